// The browser board: start page, the game loop (long-poll the seat's view, act by clicks),
// hot-seat hand hiding, replays, language switch.  State lives in the URL fragment
// (#game=ID&token=TOKEN, #replay=ID&at=K), so a reload resumes where it was.
import { api, ApiError } from "./api.js";
import { h, fill } from "./svg.js";
import { t, getLang, setLang, sideName, termName } from "./i18n.js";
import { drawMap } from "./map.js";
import { renderStatus, renderTracks, renderRegions, renderCards, renderDecision, renderLog,
         renderAnalysis, markHandOverflow } from "./board.js";
import { renderStart } from "./start.js";

const $ = (id) => document.getElementById(id);
const S = {
  content: null, home: null, map: null, route: {}, view: null, log: [], gen: 0, busy: false,
  shown: null,  // hot-seat: the seat whose hand may be on screen now
  analysisOn: false,
};

// ------------------------------------------------------------------ helpers
export function toast(msg) {
  const el = $("toast");
  el.textContent = msg;
  el.classList.remove("hidden");
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => el.classList.add("hidden"), 4000);
}

function overlay(...children) {
  const el = $("overlay");
  fill(el, h("div", { class: "dialog" }, children));
  el.classList.remove("hidden");
  return el;
}
const closeOverlay = () => { $("overlay").classList.add("hidden"); fill($("overlay")); };

/** "This can lose the game by total war (10.2)": resolves true to go ahead. */
function confirmWar(option) {
  return new Promise((resolve) => {
    const done = (ok) => { closeOverlay(); resolve(ok); };
    overlay(h("h2", {}, "⚠ " + t("war_title")),
      h("p", { id: "war-text" }, t("war_text")), h("p", { class: "meta" }, getLang() === "zh" && option.label_zh ? option.label_zh : option.label),
      h("div", { class: "row" },
        h("button", { id: "war-cancel", onclick: () => done(false) }, t("cancel")),
        h("button", { id: "war-confirm", class: "primary", onclick: () => done(true) }, t("confirm"))));
  });
}

function parseHash() {
  const p = new URLSearchParams(location.hash.slice(1));
  return { game: p.get("game"), token: p.get("token"), replay: p.get("replay"),
           at: p.has("at") ? Number(p.get("at")) : null };
}

function staticLabels() {
  document.title = t("title");
  $("title").textContent = t("title");
  $("lang-btn").textContent = t("language");
  $("home-btn").title = t("home");
  for (const [id, key] of [["tracks-title", "tracks"], ["regions-title", "regions"], ["log-title", "log"],
                           ["analysis-title", "analysis"], ["analysis-label", "analysis_show"]]) {
    $(id).textContent = t(key);
  }
}

// ------------------------------------------------------------------ rendering
function mergeLog(v) {
  if (v.log_total < S.log.length) S.log.length = v.log_total;
  for (const e of v.log || []) S.log[e.seq] = e;
  S.log.length = Math.min(S.log.length, v.log_total ?? S.log.length);
}

function seatLabel(v) {
  if (v.mode === "replay") return t("replay");
  if (!v.seat) return t("spectator");
  return t("you_are", sideName(v.seat));
}

function render() {
  const v = S.view;
  if (!v) return;
  const hotseat = v.mode === "hotseat";
  // Hot-seat: the hand is on screen only for the seat that confirmed it sits at the screen.
  const hide = hotseat && !v.over && v.decision && v.decision.player !== S.shown;
  const shown = hide ? { ...v, hand: [], decision: { ...v.decision, options: [] }, seat: S.shown,
                         opponent_known: [], history: hideOwnPicks(v) } : v;
  renderStatus(S.content, shown);
  renderTracks(S.content, shown);
  renderRegions(S.content, shown);
  const human = !!v.seat && v.mode !== "replay" && v.mode !== "watch";
  // The server says whether the seat's last decision may be taken back (as the terminal
  // game's undo: nothing hidden revealed and nobody else decided since).
  const canUndo = human && !hide && !v.over && !!v.can_undo;
  const { byCountry, byCard } = renderDecision(S.content, shown,
    { pick, undo, canUndo, showPrompt: v.mode === "replay",
      finished: v.over && v.mode !== "replay" ? { replay: replayGame, download: downloadRecord,
                                                 home: () => { location.hash = ""; } } : null });
  S.map.update(shown);
  S.map.choices(byCountry);
  renderCards(S.content, shown, byCard, pick);
  // Hot-seat between turns: no log either (a seat's own draws are in its log).
  const log = hide ? [] : S.log.filter(Boolean);
  renderLog(log, (ids) => S.map.touch(ids), shown.seat, S.content.cards);
  // What the opponent's last turn changed (for a spectator or a replay: the last turn of
  // the seat not to move), from the viewer's own log: influence records only.
  const who = shown.seat || (v.decision ? v.decision.player : null);
  S.map.recent(v.over ? [] : recentCountries(log, who),
               shown.seat || !who ? null : sideName(who === "usa" ? "china" : "usa"));
  $("seat-label").textContent = hide ? "" : seatLabel(shown);
  $("analysis").classList.toggle("hidden", !(v.analysis && human && !hide));
  // For tests and scripts: where the game stands (what is also drawn on screen).
  Object.assign(document.body.dataset, { decision: v.decision_index, over: v.over ? "1" : "",
    turn: v.turn, mode: v.mode, toMove: v.decision ? v.decision.player : "" });
  if (hide) passScreen(v.decision.player);
  else if (!$("overlay").classList.contains("hidden") && $("overlay").dataset.kind === "pass") closeOverlay();
}

/** The countries whose influence changed in the other seat's last turn as `seat` sees it:
 *  the influence records from the other seat's first decision after `seat`'s last decision
 *  that preceded one of the other seat's, up to `seat`'s next decision (so the marks stay
 *  while `seat` takes the several steps of its own turn).  Only the viewer's log is used. */
export function recentCountries(log, seat) {
  if (!seat) return [];
  const me = seat === "usa" ? 0 : 1;
  const mine = (e) => e.type === "decision" && e.side === me;
  const theirs = (e) => e.type === "decision" && e.side !== me;
  let lastTheirs = -1;
  for (let i = log.length - 1; i >= 0 && lastTheirs < 0; i--) if (theirs(log[i])) lastTheirs = i;
  if (lastTheirs < 0) return [];
  let start = 0;
  for (let i = lastTheirs - 1; i >= 0; i--) if (mine(log[i])) { start = i + 1; break; }
  while (!theirs(log[start])) start++;
  const ids = new Set();
  for (let i = start; i < log.length && !mine(log[i]); i++) {
    if (log[i].type === "influence") ids.add(log[i].country);
  }
  return [...ids];
}

function hideOwnPicks(v) {
  if (!v.history || !v.history.pending) return v.history;
  return { ...v.history, pending: { ...v.history.pending, picks: {} } };
}

function passScreen(seat) {
  const el = overlay(h("h2", { id: "pass-title" }, t("pass_title", sideName(seat))),
    h("p", {}, t("pass_text", sideName(seat))),
    h("div", { class: "row" }, h("button", { id: "pass-ok", class: "primary", onclick: () => {
      S.shown = seat;
      sessionStorage.setItem("evenstar.shown." + S.route.game, seat);
      closeOverlay();
      if (S.view && S.view.seat === seat) render();  // the view in hand is already this seat's
      poll();  // (re)fetch the view as this seat
    } }, t("pass_button", sideName(seat)))));
  el.dataset.kind = "pass";
}

/** Draw with the content a game or replay was played with (its view's content_id): a
 *  server's games may be of another content than its own, and a replay of any. */
async function useContent(cid) {
  S.content = await api(`/api/content/${encodeURIComponent(cid)}`);
  mountMap();
}

function show(v) {
  if (v.content_id && S.content && v.content_id !== S.content.content_id) {
    const gen = S.gen;
    useContent(v.content_id).then(() => { if (gen === S.gen || v.mode === "replay") show(v); })
      .catch((e) => toast(t("error", e.message)));
    return;
  }
  if (S.view && S.view.id === v.id && v.mode !== "replay" && v.decision_index < S.view.decision_index &&
      !S.undone) return;  // a late long-poll answer: keep the newer view
  const same = S.view && S.view.id === v.id && S.view.decision_index === v.decision_index &&
    S.view.seat === v.seat && S.view.log_total === v.log_total && S.view.over === v.over && !S.undone;
  S.undone = false;
  if (same) return;  // the long poll answering with what the act already showed
  if (v.mode === "hotseat") S.log = [];  // hot-seat: each view brings its seat's whole log
  mergeLog(v);
  S.view = v;
  render();
  if (S.analysisOn) refreshAnalysis();
}

// ------------------------------------------------------------------ game loop
/** Where the log request starts: hot-seat views are for two seats, each with its own
 *  log (its draws), so each one brings the whole log; otherwise only the new lines. */
const logFrom = () => (S.view && S.view.mode === "hotseat" ? 0 : S.log.length);

function viewPath(wait) {
  const r = S.route;
  const q = new URLSearchParams({ log_from: String(logFrom()) });
  if (wait !== null) q.set("wait", String(wait));
  if (S.view && S.view.mode === "hotseat" && S.shown) q.set("as", S.shown);
  return `/api/games/${encodeURIComponent(r.game)}?${q}`;
}

/** (Re)start the long-poll loop; an older loop notices the new generation and stops. */
async function poll() {
  const gen = ++S.gen;
  let wait = null;
  for (;;) {
    try {
      const v = await api(viewPath(wait), { token: S.route.token });
      if (gen !== S.gen) return;
      show(v);
      if (v.over) return;
      wait = v.decision_index;
    } catch (e) {
      if (gen !== S.gen) return;
      if (e instanceof ApiError && e.status >= 400 && e.status < 500) { toast(t("error", e.message)); return; }
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
}

async function pick(option) {
  if (S.busy || !S.view) return;
  if (option.total_war && !(await confirmWar(option))) return;
  S.busy = true;
  try {
    const v = await api(`/api/games/${encodeURIComponent(S.route.game)}/act?log_from=${logFrom()}`,
      { method: "POST", token: S.route.token, body: { decision: S.view.decision_index, action: option.action } });
    show(v);
  } catch (e) {
    toast(e.status === 409 ? t("stale") : t("error", e.message));
    poll();
  } finally {
    S.busy = false;
  }
}

async function undo() {
  if (S.busy) return;
  S.busy = true;
  try {
    const v = await api(`/api/games/${encodeURIComponent(S.route.game)}/undo`,
      { method: "POST", token: S.route.token });
    S.log = [];
    S.undone = true;
    show(v);
    poll();
  } catch (e) {
    toast(t("error", e.message));
  } finally {
    S.busy = false;
  }
}

async function refreshAnalysis() {
  const v = S.view;
  if (!v || !v.analysis || !v.seat) return;
  try {
    const q = v.mode === "hotseat" && S.shown ? `?as=${S.shown}` : "";
    renderAnalysis(await api(`/api/games/${encodeURIComponent(S.route.game)}/analysis${q}`, { token: S.route.token }));
  } catch (e) {
    fill($("analysis-body"), h("div", { class: "meta" }, e.message));
  }
}

// ------------------------------------------------------------------ a finished game
async function replayGame() {
  try {
    const r = await api("/api/replays", { method: "POST", body: { game: S.route.game } });
    location.hash = `#replay=${encodeURIComponent(r.id)}&at=${r.decisions}`;
  } catch (e) {
    toast(t("error", e.message));
  }
}

/** The finished game's record as a file, the server's bytes as they are (its 64-bit seed
 *  would not survive a JavaScript number); it carries its content: it replays anywhere. */
function downloadRecord() {
  const a = h("a", { href: `/api/games/${encodeURIComponent(S.route.game)}/record`,
                     download: `evenstar-${S.route.game}.json` });
  document.body.append(a);
  a.click();
  a.remove();
}

// ------------------------------------------------------------------ replay
async function loadReplay(at) {
  const gen = ++S.gen;
  const id = S.route.replay;
  const v = await api(`/api/replays/${encodeURIComponent(id)}?at=${at}`);
  if (gen !== S.gen) return;
  S.log = [];
  S.view = null;
  show(v);
  renderReplayBar(v);
  history.replaceState(null, "", `#replay=${encodeURIComponent(id)}&at=${v.decision_index}`);
}

function renderReplayBar(v) {
  const bar = $("replaybar");
  bar.classList.remove("hidden");
  const n = v.decisions;
  const go = (k) => loadReplay(Math.max(0, Math.min(n, k))).catch((e) => toast(e.message));
  const slider = h("input", { type: "range", id: "timeline", min: 0, max: n, value: v.decision_index });
  slider.addEventListener("change", () => go(Number(slider.value)));
  const turns = [...new Set((v.marks || []).map((m) => m.turn))];
  const turnSel = h("select", { id: "jump-turn" }, turns.map((tn) => h("option", { value: tn }, `${t("jump_turn")} ${tn}`)));
  const roundSel = h("select", { id: "jump-round" });
  const cur = [...(v.marks || [])].reverse().find((m) => m.decision <= v.decision_index);
  const fillRounds = () => {
    fill(roundSel, (v.marks || []).filter((m) => String(m.turn) === turnSel.value)
      .map((m) => h("option", { value: m.decision }, `${termName("phase", m.phase)} ${m.round ? t("jump_round") + " " + m.round : ""}`.trim())));
  };
  if (cur) turnSel.value = String(cur.turn);
  fillRounds();
  if (cur) roundSel.value = String(cur.decision);
  turnSel.addEventListener("change", () => { fillRounds(); go(Number(roundSel.value)); });
  roundSel.addEventListener("change", () => go(Number(roundSel.value)));
  const num = h("input", { type: "number", id: "jump-decision", min: 0, max: n, value: v.decision_index, style: "width:80px" });
  num.addEventListener("change", () => go(Number(num.value)));
  fill(bar,
    h("button", { id: "replay-prev", onclick: () => go(v.decision_index - 1) }, t("prev")),
    slider,
    h("button", { id: "replay-next", onclick: () => go(v.decision_index + 1) }, t("next")),
    h("span", { id: "timeline-label" }, t("timeline", v.decision_index, n)),
    turnSel, roundSel, num);
}

// ------------------------------------------------------------------ routing
async function route() {
  S.gen++;
  closeOverlay();
  S.route = parseHash();
  S.view = null;
  S.log = [];
  const r = S.route;
  if (r.game) {
    localStorage.setItem("evenstar.last", location.hash);
    S.shown = sessionStorage.getItem("evenstar.shown." + r.game);
    showGame(true);
    $("replaybar").classList.add("hidden");
    poll();
  } else if (r.replay) {
    showGame(true);
    loadReplay(r.at || 0).catch((e) => toast(t("error", e.message)));
  } else {
    showGame(false);
    renderStart(S.home, { toast, go: (hash) => { location.hash = hash; } });
  }
}

function showGame(on) {
  $("game").classList.toggle("hidden", !on);
  $("start").classList.toggle("hidden", on);
  $("stats").classList.toggle("hidden", !on);
}

function mountMap() {
  S.map = drawMap($("map-host"), S.content, (action) => {
    const d = S.view && S.view.decision;
    const o = d && (d.options || []).find((x) => x.action === action);
    if (o) pick(o);
  });
}

async function main() {
  setLang(getLang());
  staticLabels();
  S.content = S.home = await api("/api/content");  // the content of this server's new games
  mountMap();
  $("lang-btn").addEventListener("click", () => {
    setLang(getLang() === "en" ? "zh" : "en");
    staticLabels();
    S.map.relabel();
    if (S.route.game || S.route.replay) {
      render();
      if (S.route.replay && S.view) renderReplayBar(S.view);
    } else renderStart(S.home, { toast, go: (hash) => { location.hash = hash; } });
  });
  $("home-btn").addEventListener("click", () => { location.hash = ""; });
  let zoom = Number(localStorage.getItem("evenstar.zoom") || 1);
  const setZoom = (z) => {
    zoom = Math.max(1, Math.min(2.5, z));
    $("map-host").style.setProperty("--zoom", zoom);
    $("map-host").classList.toggle("zoomed", zoom > 1);
    localStorage.setItem("evenstar.zoom", String(zoom));
  };
  setZoom(zoom);
  // The map takes the height the hand below it leaves on screen: the hand is in view while
  // deciding (the page scrolls only for the tracks, and at a zoom above 1).
  const handPanel = $("hand-panel");
  new ResizeObserver(() => {
    document.documentElement.style.setProperty("--hand-h", `${handPanel.offsetHeight}px`);
    document.documentElement.style.setProperty("--top-h", `${$("topbar").offsetHeight}px`);
    markHandOverflow();
  }).observe(handPanel);
  $("zoom-in").addEventListener("click", () => setZoom(zoom + 0.25));
  $("zoom-out").addEventListener("click", () => setZoom(zoom - 0.25));
  $("analysis-toggle").addEventListener("change", (e) => {
    S.analysisOn = e.target.checked;
    if (S.analysisOn) refreshAnalysis(); else renderAnalysis(null);
  });
  window.addEventListener("hashchange", route);
  await route();
}

main().catch((e) => toast(String(e.message || e)));
