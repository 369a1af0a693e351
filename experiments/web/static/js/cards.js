// Card faces (hand, decision choices) and compact chips (piles, cards in play).
import { h } from "./svg.js";
import { t, cardName, cardText, getLang } from "./i18n.js";

function meta(c) {
  const bits = [c.scoring ? t("scoring") : t("event_" + c.side), c.era];
  if (c.persistent) bits.push(t("persistent"));
  if (c.removed_after_event) bits.push(t("removed_after"));
  return bits.join(" · ");
}

/** A full card face; `option` makes it a legal choice (click calls onPick(option)). */
export function cardFace(c, option = null, onPick = null) {
  // A long text makes a wider card rather than a very tall one (a CJK character counts two).
  const size = [...cardText(c)].reduce((n, ch) => n + (ch.codePointAt(0) > 0x2e7f ? 2 : 1), 0);
  const width = size > 420 ? " wider" : size > 240 ? " wide" : "";
  const el = h("div", {
    class: `card ${c.side}${c.scoring ? " scoring" : ""}${option ? " legal" : ""}${option && option.total_war ? " war" : ""}${width}`,
    "data-card": c.id, "data-action": option ? option.action : null,
    title: option ? (getLang() === "zh" && option.label_zh ? option.label_zh : option.label) : null,
  },
  h("span", { class: "ops" }, c.scoring ? "S" : String(c.ops)),
  h("span", { class: "cn" }, cardName(c)),
  getLang() === "zh" ? h("span", { class: "meta" }, c.name) : null,
  h("div", { class: "meta" }, meta(c)),
  h("div", { class: "text" }, cardText(c)));
  if (option && onPick) el.addEventListener("click", () => onPick(option));
  else el.addEventListener("click", () => el.classList.toggle("expanded"));
  return el;
}

/** A small chip with the card's name and its full text on hover. */
export function cardChip(c) {
  return h("span", { class: `chip ${c.side}`, "data-card": c.id },
    cardName(c) + (c.scoring ? "" : ` (${c.ops})`),
    h("span", { class: "tip" }, h("b", {}, cardName(c)), h("br"), meta(c), h("br"), cardText(c)));
}

/** The floating card shown beside a log line naming it (null: hide it). */
export function cardTip(c, anchor = null) {
  let tip = document.getElementById("card-tip");
  if (!tip) {
    tip = h("div", { id: "card-tip", class: "hidden", role: "tooltip" });
    document.body.appendChild(tip);
  }
  if (!c) { tip.classList.add("hidden"); tip.replaceChildren(); return; }  // nothing left in the page
  tip.replaceChildren(cardFace(c));
  tip.dataset.card = c.id;
  tip.classList.remove("hidden");
  const r = anchor.getBoundingClientRect();
  const w = tip.offsetWidth, ht = tip.offsetHeight;
  const left = r.left - w - 8 >= 0 ? r.left - w - 8 : Math.min(r.right + 8, window.innerWidth - w - 4);
  tip.style.left = `${Math.max(4, left)}px`;
  tip.style.top = `${Math.max(4, Math.min(r.top, window.innerHeight - ht - 4))}px`;
}
