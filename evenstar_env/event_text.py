"""Event records as text (English or Chinese) and the countries each one touches.

``render(record, content, lang)`` is one line with the dice arithmetic and the cause;
``countries(record, content)`` the country ids to highlight; ``annotate`` adds both
languages and the countries to every record (the web view's log entries).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import lru_cache
from typing import Any

import numpy as np

from .content import Content
from .engine.constants import MODES, MODIFIERS, PHASES
from .events import (
    CAUSES,
    ERA_LABEL,
    KIND_LABEL,
    LEVEL_LABEL,
    MOD_LABEL,
    MODE_LABEL,
    PHASE_LABEL,
    RUSSIA_UKRAINE,
    Names,
)

Renderer = Callable[[dict[str, Any], Names], str]
_RENDER: dict[str, Renderer] = {}


def _r(name: str) -> Callable[[Renderer], Renderer]:
    def deco(fn: Renderer) -> Renderer:
        _RENDER[name] = fn
        return fn
    return deco


def _t(n: Names, en: str, zh: str) -> str:
    return zh if n.zh else en


def _signed(x: int) -> str:
    return f"+{x}" if x >= 0 else f"−{-x}"


def _because(r: dict[str, Any], n: Names) -> str:
    return f" ({n.cause(r['cause'], r['cause_id'])})"


@lru_cache(maxsize=8)
def _names(c: Content, lang: str) -> Names:
    return Names(c, lang)


def render(rec: dict[str, Any], content: Content, lang: str = "en") -> str:
    """One record as a line of text ("en" or "zh")."""
    fn = _RENDER.get(rec.get("type", ""))
    if fn is None:
        raise ValueError(f"unknown event record type {rec.get('type')!r}")
    return fn(rec, _names(content, lang))


def countries(rec: dict[str, Any], content: Content) -> list[int]:
    """Ids of the countries a record touches (for highlighting on the map)."""
    if "country" in rec:
        return [rec["country"]]
    if rec["type"] == "score":
        row = rec["row"]
        nr = len(content.region_names)
        mask = content.region_matrix[row] if row < nr else content.subregion_matrix[row - nr]
        return np.flatnonzero(mask).tolist()
    return []


def annotate(records: Iterable[dict[str, Any]], content: Content) -> list[dict[str, Any]]:
    """Each record with "text", "text_zh" and "countries" added (new dicts)."""
    return [{**r, "text": render(r, content), "text_zh": render(r, content, "zh"),
             "countries": countries(r, content)} for r in records]


# ----------------------------------------------------------------- markers


@_r("turn")
def _turn(r: dict[str, Any], n: Names) -> str:
    return _t(n, f"turn {r['turn']} begins", f"第 {r['turn']} 回合开始")


@_r("era")
def _era(r: dict[str, Any], n: Names) -> str:
    e = ERA_LABEL[n.lang][r["era"]]
    return _t(n, f"the {e} era begins", f"{e}时代开始")


@_r("phase")
def _phase(r: dict[str, Any], n: Names) -> str:
    p = PHASE_LABEL[n.lang][PHASES[r["phase"]]]
    return _t(n, f"phase: {p}", f"阶段：{p}")


@_r("round")
def _round(r: dict[str, Any], n: Names) -> str:
    return _t(n, f"action round {r['round']}: {n.side(r['side'])}",
              f"第 {r['round']} 行动轮：{n.side(r['side'])}")


@_r("skip")
def _skip(r: dict[str, Any], n: Names) -> str:
    return _t(n, f"{n.side(r['side'])} has no card and skips round {r['round']}",
              f"{n.side(r['side'])}没有手牌，跳过第 {r['round']} 行动轮")


@_r("decision")
def _decision(r: dict[str, Any], n: Names) -> str:
    from .engine.actions import ActionSpace

    who = n.side(r["side"])
    if r["action"] < 0:
        return _t(n, f"{who} chooses in secret ({r['kind']})", f"{who}秘密选择（{r['kind']}）")
    return _t(n, f"{who} decides ({r['kind']}): {_action(r, n, ActionSpace.for_content(n.c))}",
              f"{who}决定（{r['kind']}）：{_action(r, n, ActionSpace.for_content(n.c))}")


def _action(r: dict[str, Any], n: Names, sp: Any) -> str:
    group, k = sp.group(r["action"])
    if group == "card":
        return n.card(k)
    if group == "country":
        return n.country(k)
    if group == "mode":
        return MODE_LABEL[n.lang][MODES[k]]
    if group == "order":
        return _t(n, ("event first", "action first")[k], ("先事件", "先行动")[k])
    if group == "mod":
        return _t(n, "modifier ", "修正牌 ") + MOD_LABEL[MODIFIERS[k][0]]
    if group == "spend":
        return _t(n, ("Russia +1", "US tech +1", "diplomacy +1")[k],
                  ("俄罗斯 +1", "美国科技 +1", "外交 +1")[k])
    if group == "option":
        return _t(n, f"option {k + 1}", f"选项 {k + 1}")
    return {"yes": _t(n, "yes", "是"), "no": _t(n, "no", "否"),
            "done": _t(n, "done", "结束")}[group]


@_r("game_end")
def _game_end(r: dict[str, Any], n: Names) -> str:
    from .native.frames import reason_text

    reason = reason_text(r["reason"], r["x"], r["y"], r["z"])
    if r["winner"] < 0:
        return _t(n, f"game over, a draw: {reason}", f"游戏结束，平局：{reason}")
    w = n.side(r["winner"])
    return _t(n, f"game over, {w} wins: {reason}", f"游戏结束，{w}获胜：{reason}")


# ----------------------------------------------------------------- numbers


@_r("influence")
def _influence(r: dict[str, Any], n: Names) -> str:
    i = r["country"]
    kind = KIND_LABEL[n.lang][r["kind"]]
    pts = r["points"]
    verb = _t(n, "adds" if pts > 0 else "removes", "增加" if pts > 0 else "移除")
    return (f"{n.country(i)}: {verb} {abs(pts)} {kind}"
            + _t(n, " influence", "影响力") + f" — {_board(r, n)}" + _because(r, n))


def _board(r: dict[str, Any], n: Names) -> str:
    def show(us: int, cn: int) -> str:
        k = KIND_LABEL[n.lang]
        left = f"{k[0]} {us}" if us >= 0 else f"{k[2]} {-us}"
        return f"{left} / {k[1]} {cn}"
    return f"{show(r['usa_before'], r['china_before'])} → {show(r['usa_after'], r['china_after'])}"


@_r("track")
def _track(r: dict[str, Any], n: Names) -> str:
    return f"{n.track(r['track'])}: {r['before']} → {r['after']}" + _because(r, n)


@_r("reserves")
def _reserves(r: dict[str, Any], n: Names) -> str:
    return (_t(n, f"{n.side(r['side'])} reserves", f"{n.side(r['side'])}外汇储备")
            + f": {r['before']} → {r['after']}" + _because(r, n))


@_r("vp")
def _vp(r: dict[str, Any], n: Names) -> str:
    return (f"{n.side(r['side'])} {_signed(r['amount'])} VP "
            + _t(n, f"(now {r['total']}; {n.column(r['column'])})",
                 f"（共 {r['total']}；{n.column(r['column'])}）")
            + _because(r, n))


@_r("box")
def _box(r: dict[str, Any], n: Names) -> str:
    return _t(n, f"{n.track(r['track'])} box {r['level']}: {n.box(r['track'], r['level'])}",
              f"{n.track(r['track'])}第 {r['level']} 格：{n.box(r['track'], r['level'])}")


# ----------------------------------------------------------------- cards


@_r("draw")
def _draw(r: dict[str, Any], n: Names) -> str:
    return _t(n, f"{n.side(r['side'])} draws {n.card(r['card'])}",
              f"{n.side(r['side'])}抽到{n.card(r['card'])}")


@_r("reshuffle")
def _reshuffle(r: dict[str, Any], n: Names) -> str:
    return _t(n, f"the discards are shuffled into the draw pile ({r['count']} cards)",
              f"弃牌堆洗入抽牌堆（{r['count']} 张）")


@_r("discard")
def _discard(r: dict[str, Any], n: Names) -> str:
    card = n.card(r["card"])
    cause = CAUSES[r["cause"]]
    if cause == "played":
        return _t(n, f"{card} goes to the discards", f"{card}进入弃牌堆")
    who = n.side(r["side"])
    if cause == "pay":
        return _t(n, f"{who} discards {card} to pay for {n.card(r['cause_id'])}",
                  f"{who}弃掉{card}以支付{n.card(r['cause_id'])}")
    return _t(n, f"{who} discards {card}", f"{who}弃掉{card}") + _because(r, n)


@_r("headline")
def _headline(r: dict[str, Any], n: Names) -> str:
    return _t(n, f"{n.side(r['side'])} headlines {n.card(r['card'])} ({r['ops']} ops)",
              f"{n.side(r['side'])}头条打出{n.card(r['card'])}（{r['ops']} 行动点）")


@_r("play")
def _play(r: dict[str, Any], n: Names) -> str:
    mode = MODE_LABEL[n.lang][MODES[r["mode"]]]
    return _t(n, f"{n.side(r['side'])} plays {n.card(r['card'])} for {mode} ({r['ops']} ops)",
              f"{n.side(r['side'])}打出{n.card(r['card'])}用于{mode}（{r['ops']} 行动点）")


@_r("event")
def _event(r: dict[str, Any], n: Names) -> str:
    where = {4: _t(n, "; removed from the game", "；移出游戏"),
             5: _t(n, "; stays in play", "；留在场上")}.get(r["location"], "")
    return _t(n, f"event: {n.card(r['card'])} (carried out by {n.side(r['executor'])}){where}",
              f"事件：{n.card(r['card'])}（由{n.side(r['executor'])}执行）{where}")


@_r("event_blocked")
def _event_blocked(r: dict[str, Any], n: Names) -> str:
    return _t(n, f"the event of {n.card(r['card'])} cannot happen",
              f"{n.card(r['card'])}的事件不能发生")


@_r("no_pay")
def _no_pay(r: dict[str, Any], n: Names) -> str:
    return _t(n, f"{n.side(r['side'])} does not pay: the event of {n.card(r['card'])} "
                 f"does not happen",
              f"{n.side(r['side'])}不支付：{n.card(r['card'])}的事件不发生")


@_r("cancel")
def _cancel(r: dict[str, Any], n: Names) -> str:
    return _t(n, f"{n.card(r['card'])} is cancelled and removed from the game",
              f"{n.card(r['card'])}被取消并移出游戏")


@_r("reveal")
def _reveal(r: dict[str, Any], n: Names) -> str:
    if r["card"] < 0:
        return _t(n, f"{n.side(r['side'])} shows a card of its hand to its opponent",
                  f"{n.side(r['side'])}向对手展示一张手牌")
    return _t(n, f"{n.side(r['side'])} reveals {n.card(r['card'])} from its hand",
              f"{n.side(r['side'])}展示手牌{n.card(r['card'])}")


@_r("next_card")
def _next_card(r: dict[str, Any], n: Names) -> str:
    what = {"en": ("+1 ops", "no event", "event and an action"),
            "zh": ("行动点 +1", "不触发事件", "事件和行动")}[n.lang][r["effect"]]
    return _t(n, f"{n.side(r['side'])}'s next card: {what}",
              f"{n.side(r['side'])}的下一张牌：{what}")


@_r("non_realignable")
def _non_realignable(r: dict[str, Any], n: Names) -> str:
    state = _t(n, "cannot" if r["value"] else "can again",
               "不能" if r["value"] else "重新可以")
    return _t(n, f"{r['count']} countries {state} be realigned ({n.effect(r['eid'])})",
              f"{r['count']} 个国家{state}被调整（{n.effect(r['eid'])}）")


@_r("option")
def _option(r: dict[str, Any], n: Names) -> str:
    opt = n.c.effects[r["eid"]].options[r["option"]]
    label = (opt.zh or opt.label) if n.zh else opt.label
    src = n.effect(r["eid"])
    return _t(n, f"chosen ({src}): {label}", f"选择（{src}）：{label}")


# ----------------------------------------------------------------- history


@_r("history_draw")
def _history_draw(r: dict[str, Any], n: Names) -> str:
    return _t(n, f"{n.side(r['side'])} draws history card {n.history(r['history'])}",
              f"{n.side(r['side'])}抽到历史牌{n.history(r['history'])}")


@_r("history")
def _history(r: dict[str, Any], n: Names) -> str:
    owner = "usa" if r["owner"] == 0 else "china"
    if n.zh:
        return f"历史事件：{n.history(r['history'])}（{n.side(r['owner'])}）"
    return f"history event: {n.history(r['history'])} ({owner})"


def _outcome_text(n: Names, h: int, k: int) -> str:
    o = n.c.history[h].outcomes[k]
    return o.text_zh if n.zh else o.text


@_r("history_roll")
def _history_roll(r: dict[str, Any], n: Names) -> str:
    mods = ""
    if r["usa_mod"] >= 0:
        um, cm = (MOD_LABEL[MODIFIERS[r[k]][0]] for k in ("usa_mod", "china_mod"))
        mods = _t(n, f" {_signed(r['modifier'])} (modifier cards: US {um}, China {cm})",
                  f" {_signed(r['modifier'])}（修正牌：美国 {um}，中国 {cm}）")
    k = r["outcome"]
    return (_t(n, f"{n.history(r['history'])}: {n.side(r['owner'])} die {r['die']}{mods} = "
                  f"{r['total']} → outcome {k + 1}: ",
               f"{n.history(r['history'])}：{n.side(r['owner'])}骰子 {r['die']}{mods} = "
               f"{r['total']} → 结果 {k + 1}：")
            + _outcome_text(n, r["history"], k))


# ----------------------------------------------------------------- dice


@_r("roll")
def _roll(r: dict[str, Any], n: Names) -> str:
    parts = f"{r['die']}"
    if r["modifier"]:
        parts += f" {_signed(r['modifier'])}"
    if r["per_count"]:
        parts += _t(n, f" +{r['per_count']} (countries counted)", f" +{r['per_count']}（计数国家）")
    out = _t(n, f"outcome {r['outcome'] + 1}", f"结果 {r['outcome'] + 1}") \
        if r["outcome"] >= 0 else _t(n, "no outcome", "无结果")
    return _t(n, f"{n.side(r['side'])} rolls for {n.effect(r['eid'])}: die {parts} = "
                 f"{r['total']} → {out}",
              f"{n.side(r['side'])}为{n.effect(r['eid'])}掷骰：{parts} = {r['total']} → {out}")


@_r("realign")
def _realign(r: dict[str, Any], n: Names) -> str:
    adj = r["adjacency"]
    adj_text = ""
    if adj:
        adj_text = _t(n, f" {_signed(adj)} ({'adjacent to own' if adj > 0 else 'adjacent to enemy'}"
                         f" superpower)",
                      f" {_signed(adj)}（{'邻接己方' if adj > 0 else '邻接对方'}超级大国）")
    st = r["stability"]
    res = r["result"]
    if res > 0:
        out = _t(n, f"{res} point(s) realigned", f"调整 {res} 点")
    else:
        out = _t(n, "no change", "无变化")
    return _t(n, f"{n.side(r['side'])} realigns {n.country(r['country'])}: die {r['die']} "
                 f"+ {r['ops']} ops{adj_text} − {st} (stability {st - 2} + 2) = {res} → {out}",
              f"{n.side(r['side'])}调整{n.country(r['country'])}：骰子 {r['die']} + "
              f"{r['ops']} 行动点{adj_text} − {st}（稳定度 {st - 2} + 2）= {res} → {out}")


@_r("trade")
def _trade(r: dict[str, Any], n: Names) -> str:
    me, them = n.side(r["side"]), n.side(1 - r["side"])
    won = r["won"]
    out = _t(n, f"{me} wins: +3 {me} influence" if won else f"{them} holds: no change",
             f"{me}获胜：+3 {me}影响力" if won else f"{them}守住：无变化")
    return _t(n, f"{me} trade contest in {n.country(r['country'])}: {me} die {r['die']} + economy "
                 f"{r['economy']} − 1 = {r['total']} vs {them} die {r['opp_die']} + economy "
                 f"{r['opp_economy']} − 1 = {r['opp_total']} (ties to {me}) → {out}",
              f"{me}在{n.country(r['country'])}发起贸易竞争：{me}骰子 {r['die']} + 经济 "
              f"{r['economy']} − 1 = {r['total']} 对 {them}骰子 {r['opp_die']} + 经济 "
              f"{r['opp_economy']} − 1 = {r['opp_total']}（平局归{me}）→ {out}")


@_r("improve")
def _improve(r: dict[str, Any], n: Names) -> str:
    ok = _t(n, "success", "成功") if r["success"] else _t(n, "failure", "失败")
    return _t(n, f"{n.side(r['side'])} improves {n.track(r['track'])} with a {r['printed']}-ops "
                 f"card: die {r['die']} (needs ≤ {r['need']}) → {ok}",
              f"{n.side(r['side'])}用 {r['printed']} 行动点的牌改善{n.track(r['track'])}：骰子 "
              f"{r['die']}（需要 ≤ {r['need']}）→ {ok}")


@_r("tech")
def _tech(r: dict[str, Any], n: Names) -> str:
    ok = _t(n, "success", "成功") if r["success"] else _t(n, "failure", "失败")
    if r["side"] == 1:
        what = _t(n, "China tech race", "中国科技竞赛")
    else:
        what = _t(n, "US sabotage", "美国破坏")
    return _t(n, f"{what} with {n.card(r['card'])}: die {r['die']} (needs ≤ {r['need']}) → {ok}",
              f"{what}（{n.card(r['card'])}）：骰子 {r['die']}（需要 ≤ {r['need']}）→ {ok}")


@_r("war")
def _war(r: dict[str, Any], n: Names) -> str:
    ok = _t(n, "victory", "胜利") if r["won"] else _t(n, "failure", "失败")
    return _t(n, f"{n.side(r['side'])} wages war on {n.country(r['country'])}: die {r['die']} "
                 f"+ {r['own']} (own-controlled neighbours) − {r['enemy']} (enemy-controlled "
                 f"neighbours) = {r['total']} (needs ≥ {r['win_on']}) → {ok}",
              f"{n.side(r['side'])}对{n.country(r['country'])}发动战争：骰子 {r['die']} + "
              f"{r['own']}（己方控制的邻国）− {r['enemy']}（对方控制的邻国）= {r['total']}"
              f"（需要 ≥ {r['win_on']}）→ {ok}")


@_r("score")
def _score(r: dict[str, Any], n: Names) -> str:
    region = n.region(r["row"])
    sub = r["row"] >= len(n.c.region_names)
    parts = []
    for p, side in enumerate(("usa", "china")):
        g = {k: r[f"{side}_{k}"] for k in ("level", "level_vp", "bg", "other", "adjacent",
                                              "total")}
        if sub:
            arith = _t(n, f"{g['bg']} BG × 2 + {g['other']} other", f"{g['bg']} 争夺国 × 2 + "
                       f"{g['other']} 其他")
        else:
            level = LEVEL_LABEL[n.lang][g["level"]]
            arith = _t(n, f"{level} {g['level_vp']} + {g['bg']} BG + {g['adjacent']} adjacent "
                          f"to the enemy superpower",
                       f"{level} {g['level_vp']} + {g['bg']} 争夺国 + {g['adjacent']} 邻接对方"
                       f"超级大国")
        parts.append(f"{n.side(p)} {arith} = {g['total']}")
    return _t(n, f"{region} scored{_because(r, n)}: ", f"{region}计分{_because(r, n)}：") + \
        "; ".join(parts)


@_r("russia_ukraine")
def _russia_ukraine(r: dict[str, Any], n: Names) -> str:
    state = RUSSIA_UKRAINE[r["state"]]
    if state == "waiting":
        return _t(n, "Russia-Ukraine war: waits until Ukraine is not China-controlled",
                  "俄乌战争：等待乌克兰不再被中国控制")
    if state == "failed":
        return _t(n, f"the US failed the Russia-Ukraine war requirement ({r['added']} of "
                     f"{r['required']} added)",
                  f"美国未完成俄乌战争要求（增加 {r['added']}/{r['required']}）")
    return _t(n, f"Russia-Ukraine war: the US must add {r['required']} influence to Ukraine "
                 f"this turn",
              f"俄乌战争：美国本回合须在乌克兰增加 {r['required']} 点影响力")


def _check_complete() -> None:
    from .events import TYPES

    missing = set(TYPES) - set(_RENDER)
    if missing:
        raise RuntimeError(f"event types without a renderer: {sorted(missing)}")


_check_complete()
