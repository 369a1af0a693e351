// The SVG world map, drawn from /api/content (map_layout.toml positions) and updated
// from each view: influence, control, legal choices and the countries a log line touched.
import { svg } from "./svg.js";
import { t, countryName, regionName } from "./i18n.js";

export const SIDE_COLOUR = { usa: "#1d4f9c", china: "#c3142d", anti_us: "#d9730d" };
const REGION_COLOUR = {
  "Europe": ["#dcd3ea", "#6a4f96"], "Asia": ["#fbe0c3", "#b86614"],
  "Middle East": ["#cfe5ef", "#2f7395"], "Africa": ["#f3e6a6", "#8f7a12"],
  "Latin America": ["#d2ebc4", "#3f7f2a"],
};
const SUBREGION_COLOUR = { "Former USSR": "#7a4b3a", "Southeast Asia": "#1f7a6e" };
const PAD = 15;

/** Draw the map into `host` (an element); returns {update(view), choices(map), touch(ids)}. */
export function drawMap(host, content, onCountry) {
  const L = content.layout;
  const { width, height } = L.canvas;
  const [bw, bh] = L.canvas.box;
  const [sw, sh] = L.canvas.superpower_box;
  const root = svg("svg", { viewBox: `0 0 ${width} ${height}`, class: "map", role: "img",
                            "aria-label": "world map" });
  host.replaceChildren(root);
  svg("rect", { x: 0, y: 0, width, height, class: "sea" }, root);
  const byName = {};
  for (const c of content.countries) byName[c.name] = c;
  const pos = (name) => (name in L.superpowers ? L.superpowers[name] : byName[name]);

  // Regions: the union of padded boxes (stroked first, then filled over: outer outline only).
  const regionLayer = svg("g", { class: "regions" }, root);
  for (const r of content.regions.filter((r) => r.kind === "region")) {
    const [fillC, line] = REGION_COLOUR[r.name] || ["#eee", "#666"];
    const members = content.countries.filter((c) => c.region === r.name);
    const g = svg("g", { "data-region": r.name }, regionLayer);
    for (const pass of ["stroke", "fill"]) {
      for (const c of members) {
        svg("rect", { x: c.x - bw / 2 - PAD, y: c.y - bh / 2 - PAD, width: bw + 2 * PAD,
                      height: bh + 2 * PAD, rx: 14,
                      fill: fillC, stroke: pass === "stroke" ? line : "none",
                      "stroke-width": pass === "stroke" ? 5 : 0 }, g);
      }
    }
  }
  for (const s of content.regions.filter((r) => r.kind === "subregion")) {
    const colour = SUBREGION_COLOUR[s.name] || "#555";
    const members = content.countries.filter((c) => (c.subregions || []).includes(s.name));
    const g = svg("g", { class: "subregion", "data-subregion": s.name, opacity: 0.32 }, regionLayer);
    const p = 7;
    for (const pass of ["stroke", "fill"]) {
      for (const c of members) {
        svg("rect", { x: c.x - bw / 2 - p, y: c.y - bh / 2 - p, width: bw + 2 * p,
                      height: bh + 2 * p, rx: 8, fill: pass === "fill" ? "#ffffff" : colour,
                      stroke: pass === "stroke" ? colour : "none",
                      "stroke-width": pass === "stroke" ? 6 : 0 }, g);
      }
    }
  }

  // Adjacency: inside a region solid, across regions dashed red, superpowers thick black.
  const links = svg("g", { class: "links" }, root);
  const wrapLabels = [];
  const wrapped = new Set((L.wrap_links || []).map(([a, b]) => [a, b].sort().join("|")));
  const seen = new Set();
  const line = (a, b, cls) => svg("line", { x1: a.x, y1: a.y, x2: b.x, y2: b.y, class: cls }, links);
  for (const c of content.countries) {
    for (const j of c.adj) {
      const key = Math.min(c.id, j) + "-" + Math.max(c.id, j);
      if (seen.has(key)) continue;
      seen.add(key);
      const d = content.countries[j];
      line(c, d, c.region === d.region ? "link" : "link cross");
    }
    for (const side of c.adj_superpower || []) {
      const spName = side === "usa" ? "USA" : "China";
      if (wrapped.has([spName, c.name].sort().join("|"))) continue;
      line(c, L.superpowers[spName], "link superpower");
    }
  }
  for (const [a, b] of L.wrap_links || []) {  // across the Pacific: two stubs off the edges
    for (const [from, to] of [[a, b], [b, a]]) {
      const p = pos(from);
      const edge = p.x < width / 2 ? 0 : width;
      line(p, { x: edge, y: p.y }, "link superpower wrap");
      const tx = edge === 0 ? 4 : width - 4;
      const label = svg("text", { x: tx, y: p.y - 8, class: "wrap-label", "data-to": to,
                                  "text-anchor": edge === 0 ? "start" : "end" }, links);
      wrapLabels.push(label);
    }
  }

  // Region and sub-region labels (with the scoring values presence/domination/control).
  const labels = svg("g", { class: "labels" }, root);
  const labelEls = {};
  for (const r of content.regions) {
    const p = L.labels[r.name];
    if (!p) continue;
    const cls = r.kind === "region" ? "region-label" : "subregion-label";
    const colour = r.kind === "region" ? (REGION_COLOUR[r.name] || [0, "#333"])[1]
                                      : SUBREGION_COLOUR[r.name] || "#333";
    const anchor = p.x > width - 150 ? "end" : p.x < 150 ? "start" : "middle";
    const el = svg("text", { x: p.x, y: p.y, class: cls, fill: colour, "text-anchor": anchor,
                             "data-label": r.name }, labels);
    labelEls[r.name] = { el, r };
  }

  // Superpowers.
  for (const [name, p] of Object.entries(L.superpowers)) {
    const side = name === "USA" ? "usa" : "china";
    const g = svg("g", { class: `superpower ${side}`, transform: `translate(${p.x - sw / 2},${p.y - sh / 2})` }, root);
    svg("rect", { width: sw, height: sh, rx: 8, fill: SIDE_COLOUR[side] }, g);
    svg("text", { x: sw / 2, y: sh / 2 + 9, "text-anchor": "middle", class: "sp-name",
                  "data-sp": side }, g);
  }

  // Countries.
  const boxes = [];
  const layer = svg("g", { class: "countries" }, root);
  for (const c of content.countries) {
    const g = svg("g", { class: "country" + (c.battleground ? " bg" : ""), "data-country": c.id,
                         "data-name": c.name, transform: `translate(${c.x - bw / 2},${c.y - bh / 2})` }, layer);
    const title = svg("title", {}, g);
    svg("rect", { width: bw, height: bh, rx: 4, class: "box" }, g);
    svg("rect", { width: bw, height: 17, rx: 4, class: "band" }, g);
    svg("rect", { y: 12, width: bw, height: 5, class: "band" }, g);
    const name = svg("text", { x: bw / 2, y: 13, "text-anchor": "middle", class: "cname" }, g);
    const cell = (x, side) => {
      const r = svg("rect", { x, y: 21, width: 36, height: 26, rx: 3, class: `inf ${side}` }, g);
      const tx = svg("text", { x: x + 18, y: 40, "text-anchor": "middle", class: `inftext ${side}` }, g);
      return { r, tx };
    };
    const us = cell(4, "usa");
    const cn = cell(bw - 40, "china");
    svg("circle", { cx: bw / 2, cy: 34, r: 11, class: "stab" }, g);
    svg("text", { x: bw / 2, y: 39, "text-anchor": "middle", class: "stabtext" }, g).textContent =
      c.stability ?? "–";
    if (c.non_realignable) {
      svg("text", { x: bw / 2, y: bh - 1, "text-anchor": "middle", class: "nr" }, g).textContent = "NR";
    }
    g.addEventListener("click", () => { if (g.dataset.action) onCountry(Number(g.dataset.action), g); });
    boxes.push({ c, g, name, title, us, cn });
  }

  const legendHost = svg("g", { class: "legend", transform: "translate(1110,840)" }, root);

  function relabel() {
    for (const b of boxes) {
      const label = countryName(b.c);
      b.name.textContent = label;
      const est = [...label].reduce((n, ch) => n + (ch.charCodeAt(0) > 0x2e80 ? 12.5 : 7.1), 0);
      if (est > bw - 8) { b.name.setAttribute("textLength", bw - 8); b.name.setAttribute("lengthAdjust", "spacingAndGlyphs"); }
      else { b.name.removeAttribute("textLength"); b.name.removeAttribute("lengthAdjust"); }
    }
    for (const { el, r } of Object.values(labelEls)) {
      el.textContent = regionName(r) + (r.kind === "region" ? `  ${r.presence}/${r.domination}/${r.control}` : "");
    }
    for (const el of wrapLabels) {
      const to = el.dataset.to;
      el.textContent = "→ " + (to === "USA" ? t("usa") : to === "China" ? t("china") : countryName(byName[to]));
    }
    root.querySelector('[data-sp="usa"]').textContent = t("usa");
    root.querySelector('[data-sp="china"]').textContent = t("china");
    drawLegend(legendHost, bw, bh);
  }
  relabel();

  return {
    root,
    relabel,
    /** Influence and control from a view. */
    update(view) {
      for (const b of boxes) {
        const i = b.c.id;
        const us = view.influence.usa[i], au = (view.influence.anti_us || [])[i] || 0;
        const cn = view.influence.china[i];
        const ctrl = view.control[i];
        setCell(b.us, au > 0 ? "anti_us" : "usa", au > 0 ? au : us, ctrl);
        setCell(b.cn, "china", cn, ctrl);
        b.g.classList.toggle("ctrl-usa", ctrl === "usa");
        b.g.classList.toggle("ctrl-china", ctrl === "china");
        b.g.classList.toggle("ctrl-anti_us", ctrl === "anti_us");
        b.title.textContent = `${countryName(b.c)} — ${regionName({ name: b.c.region, name_zh: regionZh(content, b.c.region) })}` +
          `\n${t("stability")} ${b.c.stability ?? "–"}${b.c.battleground ? " · " + t("battleground") : ""}` +
          `\n${t("usa")} ${us}${au ? ` (${t("anti_us")} ${au})` : ""} · ${t("china")} ${cn}` +
          (ctrl && ctrl !== "none" ? `\n${t("controlled_by")} ${t(ctrl)}` : "");
      }
    },
    /** Make the countries in `options` ({countryId: option}) clickable and highlighted. */
    choices(options) {
      for (const b of boxes) {
        const o = options[b.c.id];
        b.g.classList.toggle("legal", !!o);
        b.g.classList.toggle("war", !!(o && o.total_war));
        if (o) b.g.dataset.action = o.action; else delete b.g.dataset.action;
      }
      root.classList.toggle("choosing", Object.keys(options).length > 0);
    },
    /** Highlight the countries a log line touched (empty: none). */
    touch(ids) {
      const set = new Set(ids);
      for (const b of boxes) b.g.classList.toggle("touched", set.has(b.c.id));
    },
  };
}

function regionZh(content, name) {
  const r = content.regions.find((x) => x.name === name);
  return r ? r.name_zh : name;
}

function setCell(cell, side, n, ctrl) {
  cell.r.setAttribute("class", `inf ${side}${n > 0 ? " has" : ""}${ctrl === side ? " ctrl" : ""}`);
  cell.tx.setAttribute("class", `inftext ${side}${ctrl === side ? " ctrl" : ""}`);
  cell.tx.textContent = n > 0 ? String(n) : "";
}

function drawLegend(g, bw, bh) {
  g.replaceChildren();
  svg("rect", { width: 380, height: 228, rx: 8, class: "legend-bg" }, g);
  svg("text", { x: 12, y: 22, class: "legend-title" }, g).textContent = t("legend");
  const sample = svg("g", { class: "country bg ctrl-usa", transform: "translate(14,36)" }, g);
  svg("rect", { width: bw, height: bh, rx: 4, class: "box" }, sample);
  svg("rect", { width: bw, height: 17, rx: 4, class: "band" }, sample);
  svg("rect", { y: 12, width: bw, height: 5, class: "band" }, sample);
  svg("text", { x: bw / 2, y: 13, "text-anchor": "middle", class: "cname" }, sample).textContent = t("legend_name");
  svg("rect", { x: 4, y: 21, width: 36, height: 26, rx: 3, class: "inf usa has ctrl" }, sample);
  svg("text", { x: 22, y: 40, "text-anchor": "middle", class: "inftext usa ctrl" }, sample).textContent = "4";
  svg("rect", { x: bw - 40, y: 21, width: 36, height: 26, rx: 3, class: "inf china has" }, sample);
  svg("text", { x: bw - 22, y: 40, "text-anchor": "middle", class: "inftext china" }, sample).textContent = "1";
  svg("circle", { cx: bw / 2, cy: 34, r: 11, class: "stab" }, sample);
  svg("text", { x: bw / 2, y: 39, "text-anchor": "middle", class: "stabtext" }, sample).textContent = "3";
  const notes = [t("legend_band"), t("legend_cells"), t("legend_solid"), t("legend_stab"), t("legend_nr")];
  notes.forEach((s, k) => { svg("text", { x: 146, y: 46 + k * 17, class: "legend-text" }, g).textContent = s; });
  const rows = [["link", t("legend_adj")], ["link cross", t("legend_cross")],
                ["link superpower", t("legend_sp")]];
  rows.forEach(([cls, s], k) => {
    const y = 140 + k * 20;
    svg("line", { x1: 16, y1: y - 4, x2: 70, y2: y - 4, class: cls }, g);
    svg("text", { x: 80, y, class: "legend-text" }, g).textContent = s;
  });
  svg("rect", { x: 16, y: 192, width: 54, height: 18, rx: 4, fill: "#ffd54a", stroke: "#b8860b", "stroke-width": 3 }, g);
  svg("text", { x: 80, y: 206, class: "legend-text" }, g).textContent = t("legend_choice");
}
