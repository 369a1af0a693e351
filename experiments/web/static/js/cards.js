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
  const el = h("div", {
    class: `card ${c.side}${c.scoring ? " scoring" : ""}${option ? " legal" : ""}${option && option.total_war ? " war" : ""}`,
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
