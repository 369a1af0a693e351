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
const BAND = 24;  // the name band at the top of a box: one line, or two for a long name

// Bold sans-serif widths in em by class, as evenstar_env/content/layout.py estimates them
// (its check guarantees that every name fits one line at name_font[0] or two at [1]).
const NARROW = new Set("ijlIJ/ .,'()-|:;!"), HALF = new Set("tfr1"), WIDE = new Set("mwMW@&");
export function textWidth(s, size) {
  let em = 0;
  for (const ch of s) {
    em += ch.codePointAt(0) > 0x2e7f ? 1 : NARROW.has(ch) ? 0.4 : HALF.has(ch) ? 0.5
      : WIDE.has(ch) ? 1.05 : ch !== ch.toLowerCase() ? 0.85 : 0.7;
  }
  return em * size;
}

/** A name as one line, or split in two after a '/' or at a space (the narrowest split). */
export function nameLines(name, room, fonts) {
  if (textWidth(name, fonts[0]) <= room) return { size: fonts[0], lines: [name] };
  let best = null;
  [...name].forEach((ch, i) => {
    if (ch !== "/" && ch !== " ") return;
    const a = ch === "/" ? name.slice(0, i + 1) : name.slice(0, i), b = name.slice(i + 1);
    const w = Math.max(textWidth(a, fonts[1]), textWidth(b, fonts[1]));
    if (b && (!best || w < best.w)) best = { w, lines: [a, b] };
  });
  return best ? { size: fonts[1], lines: best.lines } : { size: fonts[1], lines: [name] };
}

/** Draw the map into `host` (an element); returns {update(view), choices(map), touch(ids)}. */
export function drawMap(host, content, onCountry) {
  const L = content.layout;
  const { width, height } = L.canvas;
  const [bw, bh] = L.canvas.box;
  const [sw, sh] = L.canvas.superpower_box;
  const PAD = L.canvas.halo ?? 15;
  const fonts = L.canvas.name_font || [12.5, 11];
  const root = svg("svg", { viewBox: `0 0 ${width} ${height}`, class: "map", role: "img",
                            "aria-label": "world map" });
  host.replaceChildren(root);
  svg("rect", { x: 0, y: 0, width, height, class: "sea" }, root);
  const byName = {};
  for (const c of content.countries) byName[c.name] = c;
  const pos = (name) => (name in L.superpowers ? L.superpowers[name] : byName[name]);

  // Regions: the union of padded boxes (stroked first, then filled over: outer outline only;
  // a pocket of sea closed in by one region's boxes is filled, not drawn as an empty box).
  const regionLayer = svg("g", { class: "regions" }, root);
  for (const r of content.regions.filter((r) => r.kind === "region")) {
    const [fillC, line] = REGION_COLOUR[r.name] || ["#eee", "#666"];
    const members = content.countries.filter((c) => c.region === r.name);
    const g = svg("g", { "data-region": r.name }, regionLayer);
    const rects = members.map((c) => ({ x: c.x - bw / 2 - PAD, y: c.y - bh / 2 - PAD,
                                        width: bw + 2 * PAD, height: bh + 2 * PAD }));
    for (const pass of ["stroke", "fill"]) {
      for (const q of rects) {
        svg("rect", { ...q, rx: 14, fill: fillC, stroke: pass === "stroke" ? line : "none",
                      "stroke-width": pass === "stroke" ? 3 : 0 }, g);
      }
    }
    for (const q of pockets(rects)) svg("rect", { ...q, fill: fillC, class: "pocket" }, g);
  }
  for (const s of content.regions.filter((r) => r.kind === "subregion")) {
    const colour = SUBREGION_COLOUR[s.name] || "#555";
    const members = content.countries.filter((c) => (c.subregions || []).includes(s.name));
    const g = svg("g", { class: "subregion", "data-subregion": s.name, opacity: 0.32 }, regionLayer);
    const p = 7;
    const rects = members.map((c) => ({ x: c.x - bw / 2 - p, y: c.y - bh / 2 - p,
                                        width: bw + 2 * p, height: bh + 2 * p }));
    for (const pass of ["stroke", "fill"]) {
      for (const q of rects) {
        svg("rect", { ...q, rx: 8, fill: pass === "fill" ? "#ffffff" : colour,
                      stroke: pass === "stroke" ? colour : "none",
                      "stroke-width": pass === "stroke" ? 6 : 0 }, g);
      }
    }
    for (const q of pockets(rects)) svg("rect", { ...q, fill: "#ffffff", class: "pocket" }, g);
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
    const anchor = p.anchor || "middle";
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
    svg("rect", { x: -5, y: -5, width: bw + 10, height: bh + 10, rx: 7, class: "ring" }, g);
    boxFace(g, bw, bh);
    const name = svg("text", { x: bw / 2, y: 16, "text-anchor": "middle", class: "cname" }, g);
    const us = cell(g, 4, "usa");
    const cn = cell(g, bw - 40, "china");
    svg("circle", { cx: bw / 2, cy: BAND + 16, r: 11, class: "stab" }, g);
    svg("text", { x: bw / 2, y: BAND + 21, "text-anchor": "middle", class: "stabtext" }, g).textContent =
      c.stability ?? "–";
    // "Changed since your last decision": a marker in the box's corner (and an outline).
    svg("circle", { cx: bw - 2, cy: 2, r: 7, class: "recent-dot" }, g);
    if (c.non_realignable) {
      svg("text", { x: bw / 2, y: bh - 1, "text-anchor": "middle", class: "nr" }, g).textContent = "NR";
    }
    g.addEventListener("click", () => { if (g.dataset.action) onCountry(Number(g.dataset.action), g); });
    boxes.push({ c, g, name, title, us, cn });
  }

  const lg = L.legend || { x: width - 410, y: height - 250, width: 400, height: 240 };
  const legendHost = svg("g", { class: "legend", transform: `translate(${lg.x},${lg.y})` }, root);

  function relabel() {
    for (const b of boxes) {
      setName(b.name, countryName(b.c), bw, fonts);
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
    drawLegend(legendHost, bw, bh, lg);
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
    /** Mark the countries whose influence changed since the viewer's last decision. */
    recent(ids, who = null) {
      const set = new Set(ids);
      for (const b of boxes) b.g.classList.toggle("recent", set.has(b.c.id));
      const label = root.querySelector("#legend-recent");
      if (label) label.textContent = who ? t("legend_recent_of", who) : t("legend_recent");
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

/** The pockets of sea that `rects` close in (no way out to the open sea between them), as
 *  rectangles to fill: found on a 4 px grid by flooding the sea from the rectangles' frame. */
export function pockets(rects, cell = 4) {
  if (!rects.length) return [];
  const x0 = Math.min(...rects.map((q) => q.x)) - cell, y0 = Math.min(...rects.map((q) => q.y)) - cell;
  const x1 = Math.max(...rects.map((q) => q.x + q.width)) + cell;
  const y1 = Math.max(...rects.map((q) => q.y + q.height)) + cell;
  const nx = Math.ceil((x1 - x0) / cell), ny = Math.ceil((y1 - y0) / cell);
  const land = new Uint8Array(nx * ny);  // 1: covered, 2: open sea reached
  for (const q of rects) {
    for (let j = Math.max(0, Math.ceil((q.y - y0) / cell - 0.5)); j < ny && y0 + (j + 0.5) * cell <= q.y + q.height; j++) {
      for (let i = Math.max(0, Math.ceil((q.x - x0) / cell - 0.5)); i < nx && x0 + (i + 0.5) * cell <= q.x + q.width; i++) {
        land[j * nx + i] = 1;
      }
    }
  }
  const stack = [];
  for (let i = 0; i < nx; i++) stack.push(i, (ny - 1) * nx + i);
  for (let j = 0; j < ny; j++) stack.push(j * nx, j * nx + nx - 1);
  while (stack.length) {
    const k = stack.pop();
    if (land[k]) continue;
    land[k] = 2;
    const i = k % nx, j = (k - i) / nx;
    if (i > 0) stack.push(k - 1);
    if (i < nx - 1) stack.push(k + 1);
    if (j > 0) stack.push(k - nx);
    if (j < ny - 1) stack.push(k + nx);
  }
  const out = [];
  for (let j = 0; j < ny; j++) {
    for (let i = 0; i < nx; i++) {
      if (land[j * nx + i] !== 0) continue;
      let e = i;
      while (e + 1 < nx && land[j * nx + e + 1] === 0) e++;
      out.push({ x: x0 + i * cell - cell, y: y0 + j * cell - cell,
                 width: (e - i + 3) * cell, height: 3 * cell });
      i = e;
    }
  }
  return out;
}

/** The box of a country: its frame and the name band. */
function boxFace(g, bw, bh) {
  svg("rect", { width: bw, height: bh, rx: 4, class: "box" }, g);
  svg("rect", { width: bw, height: BAND, rx: 4, class: "band" }, g);
  svg("rect", { y: BAND - 5, width: bw, height: 5, class: "band" }, g);
}

/** An influence cell (US on the left, China on the right). */
function cell(g, x, side) {
  const r = svg("rect", { x, y: BAND + 4, width: 36, height: 25, rx: 3, class: `inf ${side}` }, g);
  const tx = svg("text", { x: x + 18, y: BAND + 23, "text-anchor": "middle", class: `inftext ${side}` }, g);
  return { r, tx };
}

/** Write a country's name in its band: one line, or two smaller ones for a long name. */
function setName(el, label, bw, fonts) {
  const { size, lines } = nameLines(label, bw - 8, fonts);
  el.replaceChildren();
  el.setAttribute("font-size", size);
  el.dataset.lines = lines.length;
  if (lines.length === 1) {
    el.setAttribute("y", 16);
    el.textContent = lines[0];
    return;
  }
  el.setAttribute("y", 0);
  lines.forEach((s, k) => {
    svg("tspan", { x: bw / 2, y: k ? 23 : 12 }, el).textContent = s;
  });
}

function drawLegend(g, bw, bh, lg) {
  g.replaceChildren();
  svg("rect", { width: lg.width, height: lg.height, rx: 8, class: "legend-bg" }, g);
  svg("text", { x: 12, y: 22, class: "legend-title" }, g).textContent = t("legend");
  const sample = svg("g", { class: "country bg ctrl-usa", transform: "translate(14,34)" }, g);
  boxFace(sample, bw, bh);
  svg("text", { x: bw / 2, y: 16, "text-anchor": "middle", class: "cname", "font-size": 12.5 }, sample)
    .textContent = t("legend_name");
  const us = cell(sample, 4, "usa"), cn = cell(sample, bw - 40, "china");
  setCell(us, "usa", 4, "usa");
  setCell(cn, "china", 1, "usa");
  svg("circle", { cx: bw / 2, cy: BAND + 16, r: 11, class: "stab" }, sample);
  svg("text", { x: bw / 2, y: BAND + 21, "text-anchor": "middle", class: "stabtext" }, sample).textContent = "3";
  const notes = [t("legend_band"), t("legend_cells"), t("legend_solid"), t("legend_stab"), t("legend_nr")];
  notes.forEach((s, k) => { svg("text", { x: 146, y: 44 + k * 16, class: "legend-text" }, g).textContent = s; });
  const rows = [["link", t("legend_adj")], ["link cross", t("legend_cross")],
                ["link superpower", t("legend_sp")]];
  rows.forEach(([cls, s], k) => {
    const y = 134 + k * 18;
    svg("line", { x1: 16, y1: y - 4, x2: 70, y2: y - 4, class: cls }, g);
    svg("text", { x: 80, y, class: "legend-text" }, g).textContent = s;
  });
  svg("rect", { x: 16, y: 180, width: 54, height: 14, rx: 4, fill: "#ffd54a", stroke: "#b8860b", "stroke-width": 3 }, g);
  svg("text", { x: 80, y: 192, class: "legend-text" }, g).textContent = t("legend_choice");
  const recent = svg("g", { class: "country recent", transform: "translate(16,201)" }, g);
  svg("rect", { x: -3, y: -3, width: 60, height: 20, rx: 6, class: "ring" }, recent);
  svg("rect", { width: 54, height: 14, rx: 4, class: "box" }, recent);
  svg("circle", { cx: 52, cy: 2, r: 6, class: "recent-dot" }, recent);
  svg("text", { x: 80, y: 213, class: "legend-text", id: "legend-recent" }, g).textContent = t("legend_recent");
  svg("rect", { x: 16, y: 220, width: 54, height: 12, rx: 4, fill: "none",
                stroke: SUBREGION_COLOUR["Southeast Asia"], "stroke-width": 4, opacity: 0.5 }, g);
  svg("text", { x: 80, y: 231, class: "legend-text" }, g).textContent = t("legend_subregion");
}
