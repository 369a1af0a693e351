// The board around the map: status bar, tracks, regions, hand, piles, decision, log.
import { h, fill } from "./svg.js";
import { t, sideName, regionName, cardName, getLang, termName } from "./i18n.js";
import { cardFace, cardChip, cardTip } from "./cards.js";

const $ = (id) => document.getElementById(id);
const TRACKS = [
  ["diplomacy", "shared"], ["regional_security", "shared"], ["russia", "shared"],
  ["social_usa", "usa"], ["social_china", "china"], ["economy_usa", "usa"],
  ["economy_china", "china"], ["tech_usa", "usa"], ["tech_china", "china"],
];

/** Status bar: turn, era, phase, round, VP, reserves, hand sizes. */
export function renderStatus(content, view) {
  const stat = (value, label, id) => h("div", { class: "stat", id }, h("b", {}, String(value)), h("small", {}, label));
  const net = view.vp_net ?? (view.vp.usa - view.vp.china);
  const pos = Math.max(0, Math.min(100, 50 + net * 2.5));
  fill($("stats"),
    stat(`${view.turn}/${content.turns}`, t("turn"), "stat-turn"),
    stat(termName("era", view.era), t("era")),
    stat(termName("phase", view.phase), t("phase"), "stat-phase"),
    stat(view.round, t("round"), "stat-round"),
    h("div", { class: "stat", id: "stat-vp" },
      h("b", {}, `${t("usa")} ${view.vp.usa} : ${view.vp.china} ${t("china")}`),
      h("div", { class: "vp-bar", title: `${t("vp")} ${net >= 0 ? "+" : ""}${net}` },
        h("i", { style: `left:calc(${100 - pos}% - 2px)` }))),
    stat(view.tracks.diplomacy, t("diplomacy"), "stat-diplomacy"),
    stat(view.tracks.regional_security, t("regional_security"), "stat-security"),
    stat(`${view.reserves.usa} / ${view.reserves.china}`, t("reserves") + ` (${t("usa")}/${t("china")})`, "stat-reserves"),
    stat(`${view.hand_sizes.usa} / ${view.hand_sizes.china}`, t("hand_sizes"), "stat-hands"),
  );
  if (view.tracks.diplomacy <= 2) $("stat-diplomacy").dataset.low = "1";  // near total war
}

/** All tracks as rows of pips, the current level filled. */
export function renderTracks(content, view) {
  const rows = TRACKS.filter(([k]) => k in view.tracks).map(([k, cls]) => {
    const [lo, hi] = content.tracks[k] || [0, 10];
    const v = view.tracks[k];
    const pips = [];
    for (let i = lo; i <= hi; i++) {
      pips.push(h("span", { class: `pip${i <= v && (i > 0 || v === 0) ? " on" : ""}${k === "diplomacy" && i === 1 ? " low" : ""}` }, String(i)));
    }
    return h("div", { class: `track ${cls}`, "data-track": k, "data-value": v },
      h("span", {}, `${t(k)}: ${v}`), h("div", { class: "pips" }, pips));
  });
  fill($("tracks"), rows);
}

/** Region panels: each side's presence/domination/control and the score now. */
export function renderRegions(content, view) {
  const level = (p) => (p.control ? t("control") : p.domination ? t("domination") : p.presence ? t("presence") : "–");
  const zh = (name) => regionName(content.regions.find((r) => r.name === name) || { name });
  // A sub-region has no levels: what its scoring counts, the countries each side controls
  // there (battlegrounds among them), from the view's control (10.3).
  const sub = (name, side) => {
    const mine = content.countries.filter((c) => (c.subregions || []).includes(name) && view.control[c.id] === side);
    return t("subregion_cell", mine.length, mine.filter((c) => c.battleground).length);
  };
  const cellOf = (r, side) => (r.kind === "subregion"
    ? h("td", { class: `lvl ${side} sub`, title: t("subregion_tip") }, sub(r.name, side))
    : h("td", { class: `lvl ${side}` }, r[side] ? `${level(r[side])} (${r[side].battlegrounds}+${r[side].others})` : "–"));
  const rows = view.regions.map((r) => h("tr", { "data-region": r.name, class: r.kind === "subregion" ? "subregion" : null },
    h("td", r.kind === "subregion" ? { title: t("subregion_tip") } : {},
      zh(r.name), r.kind === "subregion" ? h("sup", { class: "help" }, " ?") : null),
    cellOf(r, "usa"), cellOf(r, "china"),
    h("td", { class: "lvl usa" }, String(r.score_now.usa)),
    h("td", { class: "lvl china" }, String(r.score_now.china))));
  fill($("regions-body"), h("table", {},
    h("tr", {}, h("th", {}, t("regions")), h("th", {}, t("usa")), h("th", {}, t("china")),
      h("th", { colspan: 2 }, t("score_now"))), rows));
}

/** Own hand (legal cards highlighted), opponent's hand size, piles, cards in play. */
export function renderCards(content, view, cardOptions, onPick) {
  const card = (id) => content.cards[id];
  const seat = view.seat;
  const handHost = $("hand");
  handHost.classList.toggle("hand-row", !!(seat && view.hand));
  if (seat && view.hand) {
    fill(handHost, view.hand.map((id) => cardFace(card(id), cardOptions[id] || null, onPick)));
  } else if (view.hands) {  // a finished game or a replay: both hands, face up
    fill(handHost, ["usa", "china"].map((s) => h("div", { class: "chips", "data-hand": s },
      h("b", {}, sideName(s) + ": "), view.hands[s].map((id) => cardChip(card(id))))));
  } else {
    fill(handHost);
  }
  $("hand-title").textContent = seat ? `${t("hand")} (${sideName(seat)})` +
    (view.hand && view.hand.length ? ` · ${t("hand_count", view.hand.length)}` : "") : t("hand");
  markHandOverflow();
  const opp = seat === "usa" ? "china" : seat === "china" ? "usa" : null;
  const lines = [];
  if (opp) lines.push(h("div", { id: "opp-hand" }, t("opp_hand", sideName(opp), view.hand_sizes[opp])));
  if (opp && view.opponent_known && view.opponent_known.length) {
    lines.push(h("div", { class: "chips" }, t("known_cards", sideName(opp)) + ": ",
      view.opponent_known.map((id) => cardChip(card(id)))));
  }
  lines.push(h("div", {}, t("draw_pile", view.draw_pile ?? "?")));
  const pileKey = JSON.stringify([getLang(), seat, view.hand_sizes, view.opponent_known, view.draw_pile,
    view.headlines, view.playing, view.in_play, view.discard, view.removed]);
  if ($("piles").dataset.key === pileKey) return;
  $("piles").dataset.key = pileKey;
  const heads = view.headlines || {};
  const headChips = ["usa", "china"].filter((s) => heads[s] !== null && heads[s] !== undefined)
    .map((s) => cardChip(card(heads[s])));
  const open = new Set([...document.querySelectorAll("#piles details[open]")].map((d) => d.dataset.pile));
  const pile = (key, ids, always = false) => h("details", { class: "pile", "data-pile": key,
                                                           open: always || open.has(key) },
    h("summary", {}, `${t(key)} (${ids.length})`), h("div", { class: "chips" }, ids.map((id) => cardChip(card(id)))));
  fill($("piles"), lines,
    headChips.length ? h("div", { class: "pile" }, h("h2", {}, t("headlines")), h("div", { class: "chips" }, headChips)) : null,
    (view.playing || []).length ? pile("playing", view.playing, true) : null,
    pile("in_play", view.in_play || [], true), pile("discard", view.discard || []),
    pile("removed", view.removed || []));
}

/** Say so when the hand's row is wider than the screen (the rest is a sideways scroll). */
export function markHandOverflow() {
  const hand = $("hand"), more = $("hand-more");
  const over = hand.classList.contains("hand-row") && hand.scrollWidth > hand.clientWidth + 2;
  more.textContent = over ? t("hand_more") : "";
  more.classList.toggle("hidden", !over);
}

/** The pending history card's four outcomes and the modifiers' values and costs. */
function historyBlock(view) {
  const p = view.history && view.history.pending;
  if (!p) return null;
  const zh = getLang() === "zh";
  return h("div", { id: "history-pending" },
    h("b", {}, `${t("history")}: ${p.name} (${sideName(p.owner)})`),
    h("div", { class: "meta" }, t("outcomes")),
    h("table", { class: "outcomes" }, p.outcomes.map((o) => h("tr", {},
      h("td", {}, o.rolls), h("td", {}, zh && o.text_zh ? o.text_zh : o.text)))),
    h("div", { class: "meta" }, t("modifiers") + ": " +
      p.modifiers.map((m) => t("modifier_value", m.name, (m.value > 0 ? "+" : "") + m.value, m.cost)).join(" · ")),
    Object.keys(p.picks || {}).length ? h("div", {}, t("picked", Object.entries(p.picks)
      .map(([s, m]) => `${sideName(s)} ${m}`).join(", "))) : null);
}

export const optionLabel = (o) => (getLang() === "zh" && o.label_zh ? o.label_zh : o.label);

/** The decision panel. Returns the options split by where they are clicked. */
export function renderDecision(content, view, ctx) {
  const host = $("decision");
  const d = view.decision;
  const byCountry = {}, byCard = {};
  if (view.over) {
    const r = view.result || {};
    host.className = "panel";
    fill(host, h("h2", {}, t("game_over")),
      h("div", { id: "result", "data-winner": r.winner || "" },
        h("b", {}, r.winner ? t("winner", sideName(r.winner)) : t("draw")), " — ", r.reason || ""),
      // A finished game (not a replay): watch it again, keep its record, or start anew.
      ctx.finished ? h("div", { class: "row", id: "after-game" },
        h("button", { id: "replay-game", onclick: ctx.finished.replay }, t("replay_this")),
        h("button", { id: "download-record", onclick: ctx.finished.download }, t("download_record")),
        h("button", { id: "new-game", onclick: ctx.finished.home }, t("new_game"))) : null);
    return { byCountry, byCard };
  }
  if (!d) { host.className = "panel idle"; fill(host); return { byCountry, byCard }; }
  const opts = [...(d.options || [])].sort((a, b) => a.action - b.action);  // stable: by action id
  if (!opts.length) {
    host.className = "panel idle";
    fill(host, h("h2", {}, t("decision")), h("div", { id: "waiting" }, t("waiting_for", sideName(d.player))),
      // Another seat's prompt is not shown while the game runs: it may name a card that is
      // still in that hand (a card picked, its mode not yet chosen, and then undone).
      ctx.showPrompt ? h("div", { class: "meta" }, getLang() === "zh" && d.prompt_zh ? d.prompt_zh : d.prompt) : null,
      historyBlock(view));
    return { byCountry, byCard };
  }
  host.className = "panel";
  const buttons = [], loose = [];
  const inHand = new Set(view.hand || []);
  for (const o of opts) {
    if (o.group === "country") byCountry[o.index] = o;
    else if (o.group === "card" && inHand.has(o.index)) byCard[o.index] = o;
    else if (o.group === "card") loose.push(cardFace(content.cards[o.index], o, ctx.pick));
    else buttons.push(h("button", { class: o.total_war ? "war" : "", "data-action": o.action,
                                    "data-group": o.group, title: optionLabel(o),
                                    onclick: () => ctx.pick(o) },
                        o.group === "mod" ? modifierLabel(content, o) : optionLabel(o)));
  }
  const notes = [];
  if (Object.keys(byCountry).length) notes.push(h("div", { class: "meta" }, t("choose_country")));
  if (Object.keys(byCard).length) notes.push(h("div", { class: "meta" }, t("choose_card")));
  fill(host,
    h("h2", {}, t("your_move", sideName(d.player))),
    h("div", { class: "prompt", id: "prompt" }, getLang() === "zh" && d.prompt_zh ? d.prompt_zh : d.prompt),
    historyBlock(view), notes,
    loose.length ? h("div", { class: "cards" }, loose) : null,
    h("div", { class: "opts" }, buttons),
    ctx.canUndo ? h("div", { style: "margin-top:6px" },
      h("button", { id: "undo", onclick: ctx.undo }, "↶ " + t("undo"))) : null);
  return { byCountry, byCard };
}

/** A modifier card's button: its value and price ("+2 · costs 2 reserve(s)"), beside the
 *  history card's outcomes by roll that it shifts. */
function modifierLabel(content, o) {
  const m = (content.modifiers || [])[o.index];
  if (!m) return optionLabel(o);
  const value = m.name === "counter" ? t("mod_counter")
    : `${m.value > 0 ? "+" : m.value < 0 ? "−" : "±"}${Math.abs(m.value)}`;
  return `${value} · ${t("mod_cost", m.cost)}`;
}

/** A log line's text, the name of the card it names (if any) marked to show the card. */
function logText(e, text, c) {
  const name = c ? cardName(c) : null;
  const at = name ? text.indexOf(name) : -1;
  if (at < 0) return [text];
  return [text.slice(0, at), h("span", { class: "cardref" }, name), text.slice(at + name.length)];
}

/** The log: newest at the bottom; hovering a line highlights the countries it touched and
 *  shows the card it names (a card the viewer's log shows: a hidden one has card -1).
 *  Only new lines are added (a long game's log has a thousand lines). */
export function renderLog(entries, onTouch, seat, cards = []) {
  const host = $("log");
  const atBottom = host.scrollHeight - host.scrollTop - host.clientHeight < 30;
  const zh = getLang() === "zh";
  const key = `${getLang()}|${seat}|${entries.length ? entries[0].seq : ""}`;
  let have = host.dataset.key === key ? host.childElementCount : 0;
  if (have > entries.length || (have && host.lastElementChild.dataset.seq !== String(entries[have - 1].seq))) have = 0;
  if (!have) { host.replaceChildren(); cardTip(null); }
  host.dataset.key = key;
  const frag = document.createDocumentFragment();
  for (const e of entries.slice(have)) {
    const c = Number.isInteger(e.card) && e.card >= 0 && !e.hidden ? cards[e.card] : null;
    const el = h("div", { class: e.countries && e.countries.length ? "touches" : "",
                          "data-seq": e.seq, "data-countries": (e.countries || []).join(","),
                          "data-card": c ? c.id : null },
      logText(e, zh && e.text_zh ? e.text_zh : e.text, c));
    el.addEventListener("mouseenter", () => { onTouch(e.countries || []); if (c) cardTip(c, el); });
    el.addEventListener("mouseleave", () => { onTouch([]); if (c) cardTip(null); });
    frag.appendChild(el);
  }
  host.appendChild(frag);
  if (atBottom || !host.dataset.seen) host.scrollTop = host.scrollHeight;
  host.dataset.seen = "1";
}

/** The analysis panel: top moves with probabilities and the value estimate. */
export function renderAnalysis(a) {
  const host = $("analysis-body");
  if (!a) { fill(host); return; }
  if (a.value === null) { fill(host, h("div", { class: "meta" }, a.note)); return; }
  fill(host, h("div", {}, `${t("value")}: ${Number(a.value).toFixed(2)}`),
    h("div", { class: "meta" }, t("top_moves")),
    h("ol", {}, (a.moves || []).map((m) => h("li", { "data-action": null },
      `${optionLabel(m)} — ${(100 * m.prob).toFixed(1)}%`))));
}

export { cardName };
