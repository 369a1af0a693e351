// The start page: play an agent, hot-seat, two browsers, watch agents, replay a record.
import { api } from "./api.js";
import { h, fill } from "./svg.js";
import { t, sideName } from "./i18n.js";

const $ = (id) => document.getElementById(id);
let agents = null;

const absolute = (link) => (link && link.startsWith("/") ? location.origin + link : link);
const hashOf = (link) => link.slice(link.indexOf("#"));

function agentSelect(id, value) {
  const sel = h("select", { id }, (agents || ["heuristic"]).map((a) => h("option", { value: a }, a)));
  if ((agents || []).includes(value)) sel.value = value;
  return sel;
}

/** Draw the start page; `app.go(hash)` opens a game, `app.toast(msg)` reports an error. */
export async function renderStart(content, app) {
  if (!agents) {
    try { agents = (await api("/api/agents")).agents; } catch (e) { agents = content.agents || ["heuristic"]; }
  }
  const create = async (body) => api("/api/games", { method: "POST", body });
  const fail = (e) => app.toast(t("error", e.message));

  const side = h("select", { id: "agent-side" }, ["usa", "china"].map((s) => h("option", { value: s }, sideName(s))));
  const opp = agentSelect("agent-spec", "heuristic");
  const custom = h("input", { id: "agent-custom", placeholder: "alphaism:64, ismcts:400 …", size: 18 });
  const analysis = h("input", { type: "checkbox", id: "agent-analysis" });
  const playAgent = h("section", { class: "panel", id: "mode-agent" },
    h("h2", {}, t("play_agent")), h("p", { class: "meta" }, t("about_agent")),
    h("label", {}, t("your_side") + " ", side),
    h("label", {}, t("opponent") + " ", opp, " ", custom),
    h("label", {}, analysis, " " + t("analysis_opt")),
    h("button", { class: "primary", id: "start-agent", onclick: () => {
      const spec = custom.value.trim() || opp.value;
      const me = side.value, them = me === "usa" ? "china" : "usa";
      create({ [me]: "human", [them]: spec, analysis: analysis.checked })
        .then((g) => app.go(hashOf(g.links[me]))).catch(fail);
    } }, t("start")));

  const hotseat = h("section", { class: "panel", id: "mode-hotseat" },
    h("h2", {}, t("hotseat")), h("p", { class: "meta" }, t("about_hotseat")),
    h("button", { class: "primary", id: "start-hotseat", onclick: () =>
      create({ usa: "human", china: "human", hotseat: true })
        .then((g) => app.go(hashOf(g.links.usa))).catch(fail) }, t("start")));

  const links = h("div", { id: "links" });
  const remote = h("section", { class: "panel", id: "mode-remote" },
    h("h2", {}, t("remote")), h("p", { class: "meta" }, t("about_remote")),
    h("button", { class: "primary", id: "start-remote", onclick: () =>
      create({ usa: "human", china: "human", hotseat: false }).then((g) => {
        fill(links, h("p", {}, t("links_title")), ["usa", "china", "watch"].map((s) => h("label", {},
          t("link_" + s), h("input", { readonly: true, value: absolute(g.links[s]), "data-link": s }),
          s !== "watch" ? h("a", { href: absolute(g.links[s]), target: "_blank" }, t("open_link")) : null)));
      }).catch(fail) }, t("start")),
    links);

  const wUsa = agentSelect("watch-usa", "heuristic");
  const wChina = agentSelect("watch-china", "learned");
  const speed = h("input", { type: "number", id: "watch-speed", min: 0, max: 10, step: 0.1, value: 0.5, style: "width:70px" });
  const watch = h("section", { class: "panel", id: "mode-watch" },
    h("h2", {}, t("watch")), h("p", { class: "meta" }, t("about_watch")),
    h("label", {}, sideName("usa") + " ", wUsa), h("label", {}, sideName("china") + " ", wChina),
    h("label", {}, t("speed") + " ", speed),
    h("button", { class: "primary", id: "start-watch", onclick: () =>
      create({ usa: wUsa.value, china: wChina.value, speed: Number(speed.value) })
        .then((g) => app.go(hashOf(g.links.watch))).catch(fail) }, t("start")));

  const file = h("input", { type: "file", id: "replay-file", accept: ".json,application/json" });
  const path = h("input", { id: "replay-path", placeholder: "arena/game.json", size: 24 });
  const replay = h("section", { class: "panel", id: "mode-replay" },
    h("h2", {}, t("replay")), h("p", { class: "meta" }, t("about_replay")),
    h("label", {}, t("record_file") + " ", file),
    h("label", {}, t("record_path") + " ", path),
    h("button", { class: "primary", id: "start-replay", onclick: async () => {
      try {
        // The file goes as it is: its seed may not survive a JavaScript number.
        const r = file.files.length
          ? await api("/api/replays", { method: "POST", text: await file.files[0].text() })
          : await api("/api/replays", { method: "POST", body: { path: path.value.trim() } });
        app.go(`#replay=${encodeURIComponent(r.id)}&at=0`);
      } catch (e) { fail(e); }
    } }, t("load")));

  const last = localStorage.getItem("evenstar.last");
  const resume = last ? h("section", { class: "panel", id: "mode-resume" },
    h("h2", {}, t("resume")),
    h("button", { id: "resume", onclick: () => app.go(last) }, "↻ " + last.split("&")[0].slice(1))) : null;

  const hero = h("header", { class: "hero" }, h("h2", {}, t("title")), h("p", {}, t("subtitle")));
  fill($("start"), hero, playAgent, hotseat, remote, watch, replay, resume);
}
