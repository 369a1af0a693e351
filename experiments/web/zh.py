"""Chinese texts of a decision for the browser: its prompt and each option's label (the
English ones are the engine's, `Game.decision.text` and `Game.describe_action`)."""

from __future__ import annotations

from typing import Any

from evenstar_env import Game
from evenstar_env.engine.board import placement_cost
from evenstar_env.engine.constants import MODES, MODIFIERS, SIDES
from evenstar_env.events import KIND_LABEL, MOD_LABEL, MODE_LABEL, SIDE

PROMPTS = {
    "modifier": "为历史事件“{history}”选择修正牌",
    "headline": "选择头条牌",
    "spend": "花费外汇储备，或继续打牌",
    "card": "选择要打出的牌",
    "mode": "选择如何打出“{card}”（{ops} 点）",
    "granted": "选择事件给予的行动（{ops} 点）",
    "order": "“{card}”的事件在行动之前还是之后",
    "place": "放置影响力（剩余 {ops} 点）",
    "realign": "选择调整目标（{ops} 点）",
    "trade": "选择贸易竞争目标（{ops} 点）",
    "influence": "选择{verb}{kind}影响力的国家（剩余 {left}）",
    "discard": "选择要弃掉的牌",
    "option": "选择事件的一个选项",
    "upgrade": "是否付费升级经济？",
    "round8": "是否进行第 8 个行动轮？",
    "end_discard": "回合结束时弃一张牌，或放弃",
    "ai_event": "通用人工智能：“{card}”的事件在行动之前或之后执行，或不执行",
    "ai_action": "通用人工智能：是否也用“{card}”（{ops} 点）进行一次行动",
}
VERBS = {"add": "增加", "reduce": "减少", "remove": "移除"}
SPEND_LABELS = ("俄罗斯轨道 +1", "美国科技 +1", "外交 +1")


def _kind(kind: str) -> str:
    return dict(zip(("usa", "china", "anti_us"), KIND_LABEL["zh"], strict=True)).get(kind, kind)


def prompt(game: Game) -> str:
    """The pending decision's prompt in Chinese."""
    d, c = game.decision, game.content
    ctx = d.context
    fields: dict[str, Any] = {
        "ops": ctx.get("ops", ""), "left": ctx.get("left", ""),
        "verb": VERBS.get(ctx.get("verb", ""), ctx.get("verb", "")),
        "kind": _kind(ctx.get("kind", "")),
        "card": c.cards[ctx["card"]].zh if ctx.get("card", -1) >= 0 else "",
        "history": c.history[ctx["history"]].zh if "history" in ctx else ""}
    return PROMPTS[d.kind].format_map(fields)


def label(game: Game, kind: str, ctx: dict[str, Any], player: str, a: int) -> str:
    """One option's label in Chinese (as `Game.describe_action` in English)."""
    c = game.content
    group, k = game.action_group(a)
    if group == "card":
        verb = {"headline": "头条", "discard": "弃掉", "end_discard": "弃掉"}.get(kind, "打出")
        card = c.cards[k]
        side = SIDE["zh"][SIDES.index(card.side)] if card.side in SIDES else "中立"
        return f"{verb}“{card.zh}”（{side}，{card.ops} 点）"
    if group == "country":
        name = c.countries[k].zh
        if kind == "place":
            cost = placement_cost(c, game.state, SIDES.index(player), k)
            return f"在{name}放置 1 点影响力（花费 {cost}）"
        if kind == "influence":
            return f"在{name}{VERBS.get(ctx['verb'], ctx['verb'])} 1 点{_kind(ctx['kind'])}影响力"
        return f"{'调整' if kind == 'realign' else '贸易竞争'}{name}"
    if group == "mode":
        return MODE_LABEL["zh"][MODES[k]]
    if group == "order":
        return ("先事件，后行动", "先行动，后事件")[k]
    if group == "mod":
        return f"修正牌 {MOD_LABEL[MODIFIERS[k][0]]}"
    if group == "spend":
        return f"花费外汇储备：{SPEND_LABELS[k]}"
    if group == "option":
        options = getattr(c.effects[ctx["eff"]], "options", ()) if "eff" in ctx else ()
        return f"选项：{(options[k].zh or options[k].label) if k < len(options) else k + 1}"
    if group in ("yes", "no"):
        return "是" if group == "yes" else "否"
    return "放弃" if kind == "end_discard" else "完成：继续打牌"
