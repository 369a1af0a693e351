"""The game's event stream: vocabulary, records, the viewer filter and rendering.

Both engines append one compact integer tuple per state change,
``(type code, turn, round, *fields)``, when their event stream is on (docs/events.md).
:func:`to_record` turns a tuple into a plain JSON-able dict with the field names of
:data:`EVENTS`; :func:`for_viewer` gives a viewer only what it may know;
:func:`render` writes a record as a line of English or Chinese.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from typing import Any

from .content import Content
from .engine.constants import MODES, MODIFIERS, PHASES, SPENDS, TRACK_NAMES, VP_SOURCES

# Every record type and its integer fields, in the order the engines write them.
EVENTS: dict[str, tuple[str, ...]] = {
    "turn": (),
    "era": ("era",),
    "phase": ("phase",),
    "round": ("side",),
    "skip": ("side",),
    "decision": ("side", "kind", "action"),
    "influence": ("country", "kind", "points", "usa_before", "usa_after", "china_before",
                  "china_after", "cause", "cause_id"),
    "track": ("track", "before", "after", "cause", "cause_id"),
    "reserves": ("side", "before", "after", "cause", "cause_id"),
    "vp": ("side", "amount", "total", "column", "cause", "cause_id"),
    "box": ("track", "level"),
    "draw": ("side", "card"),
    "reshuffle": ("count",),
    "discard": ("side", "card", "cause", "cause_id"),
    "headline": ("side", "card", "ops"),
    "play": ("side", "card", "mode", "ops"),
    "event": ("card", "executor", "location"),
    "event_blocked": ("card",),
    "no_pay": ("side", "card"),
    "cancel": ("card",),
    "reveal": ("side", "card"),
    "next_card": ("side", "effect"),
    "non_realignable": ("eid", "value", "count"),
    "option": ("executor", "eid", "option"),
    "history_draw": ("side", "history"),
    "history": ("history", "owner", "modifiers"),
    "history_roll": ("history", "owner", "usa_mod", "china_mod", "modifier", "die", "total",
                     "outcome"),
    "roll": ("side", "eid", "die", "modifier", "per_count", "total", "outcome"),
    "realign": ("side", "country", "ops", "die", "adjacency", "stability", "result"),
    "trade": ("side", "country", "die", "economy", "opp_die", "opp_economy", "total",
              "opp_total", "won"),
    "improve": ("side", "track", "printed", "die", "need", "success"),
    "tech": ("side", "card", "die", "need", "success"),
    "war": ("side", "country", "die", "own", "enemy", "total", "win_on", "won"),
    "score": ("row", "cause", "cause_id",
              "usa_level", "usa_level_vp", "usa_bg", "usa_other", "usa_adjacent", "usa_total",
              "china_level", "china_level_vp", "china_bg", "china_other", "china_adjacent",
              "china_total"),
    "russia_ukraine": ("state", "required", "added"),
    "game_end": ("winner", "reason", "x", "y", "z"),
}
TYPES: tuple[str, ...] = tuple(EVENTS)
CODE = {name: k for k, name in enumerate(TYPES)}
N_FIELDS = max(len(f) for f in EVENTS.values())  # the native record's field slots
HEADER = ("type", "turn", "round")

# What caused an influence, track, reserves, VP, discard or scoring record ("cause");
# "cause_id" is the effect id for "effect" (see `effect_owner`), else as docs/events.md says.
CAUSES = ("effect", "place", "realign", "trade", "improve", "tech_race", "sabotage", "spend",
          "upkeep", "decline", "upgrade", "income", "modifier", "scoring", "final",
          "ukraine_war", "russia_card", "played", "pay", "end_turn")
CAUSE = {name: k for k, name in enumerate(CAUSES)}

KINDS = ("usa", "china", "anti_us")  # influence kinds
LEVELS = ("none", "presence", "domination", "control")
RUSSIA_UKRAINE = ("waiting", "active", "required", "failed")  # "russia_ukraine" states
NEXT_CARD = ("ops_plus_1", "no_event", "event_and_ops")
# Decisions whose chosen action the other player may not see (hand cards chosen in secret).
SECRET_KINDS = frozenset({"headline", "modifier"})
LOCATIONS = ("draw", "hand_usa", "hand_china", "discard", "removed", "in_play", "out",
             "headline_usa", "headline_china", "playing")
VIEWERS = ("usa", "china", None, "all")


@lru_cache(maxsize=1)
def decision_kinds() -> tuple[str, ...]:
    """The decision kinds by code (the native core's order: sorted)."""
    from .native.names import decision_kinds as kinds

    return tuple(kinds())


def to_record(t: tuple[int, ...] | list[int], seq: int) -> dict[str, Any]:
    """The dict of one compact tuple ``(code, turn, round, *fields)``."""
    name = TYPES[t[0]]
    rec: dict[str, Any] = {"seq": seq, "type": name, "turn": int(t[1]), "round": int(t[2])}
    for key, value in zip(EVENTS[name], t[3:], strict=False):
        rec[key] = int(value)
    if name == "decision":
        rec["kind"] = decision_kinds()[rec["kind"]]
    return rec


def to_records(tuples: Iterable[tuple[int, ...]], start: int = 0) -> list[dict[str, Any]]:
    return [to_record(t, start + k) for k, t in enumerate(tuples)]


# ----------------------------------------------------------------- visibility


def seen_by(rec: dict[str, Any]) -> tuple[int, ...] | None:
    """The seats that alone may see this record in full (None: public)."""
    if rec["type"] == "draw":
        return (rec["side"],)
    if rec["type"] == "decision" and rec["kind"] in SECRET_KINDS:
        return (rec["side"],)
    if rec["type"] == "reveal":  # shown to the opponent (R20), not to the spectators
        return (0, 1)
    return None


def redact(rec: dict[str, Any]) -> dict[str, Any]:
    """What the others see of a private record: the hidden card or choice is -1."""
    out = dict(rec)
    if "card" in rec:
        out["card"] = -1
    else:
        out["action"] = -1
    out["hidden"] = True
    return out


def for_viewer(records: Iterable[dict[str, Any]], viewer: str | None) -> list[dict[str, Any]]:
    """The records a viewer may see: "usa"/"china" (a seat), None (a spectator of a running
    game: public only), "all" (a finished game, an experimenter: everything)."""
    if viewer not in VIEWERS:
        raise ValueError(f"viewer must be 'usa', 'china', None or 'all', not {viewer!r}")
    if viewer == "all":
        return list(records)
    seat = None if viewer is None else ("usa", "china").index(viewer)
    out = []
    for rec in records:
        seats = seen_by(rec)
        out.append(rec if seats is None or seat in seats else redact(rec))
    return out


# ----------------------------------------------------------------- names


@lru_cache(maxsize=8)
def effect_owner(c: Content) -> tuple[tuple[str, int, int], ...]:
    """For every effect id: (owner kind, index, detail): ("card", card, 0 event / 1 persistent),
    ("history", history card, outcome), ("tech", side, level), ("russia", 0, level),
    ("zone", 0, zone index), ("ukraine", 0, 0)."""
    from .content.loader import walk

    owner: list[tuple[str, int, int]] = [("effect", -1, 0)] * len(c.effects)

    def mark(root: Any, who: tuple[str, int, int]) -> None:
        for _, node in walk(root, ""):
            if hasattr(node, "op"):
                eid = c.eid(node)
                if owner[eid][0] == "effect":
                    owner[eid] = who
    for i, card in enumerate(c.cards):
        if card.persistent is not None:
            mark(card.persistent, ("card", i, 1))
        mark(card, ("card", i, 0))
    for h, hist in enumerate(c.history):
        for k, outcome in enumerate(hist.outcomes):
            mark(outcome, ("history", h, k))
    for p, boxes in enumerate(c.tech_boxes):
        for lvl, box in enumerate(boxes):
            mark(box, ("tech", p, lvl + 1))
    for lvl, box in enumerate(c.russia_boxes):
        mark(box, ("russia", 0, lvl + 1))
    for k, zone in enumerate(c.raw.tracks.economy):
        mark(zone, ("zone", 0, k))
    mark(c.raw.tracks.ukraine_war_failure, ("ukraine", 0, 0))
    return tuple(owner)


SIDE = {"en": ("US", "China"), "zh": ("美国", "中国")}
KIND_LABEL = {"en": ("US", "China", "anti-US"), "zh": ("美国", "中国", "反美")}
TRACK_LABEL = {
    "en": ("US social", "China social", "US economy", "China economy", "diplomacy",
           "regional security", "Russia track", "US tech", "China tech"),
    "zh": ("美国社会", "中国社会", "美国经济", "中国经济", "外交", "地区安全", "俄罗斯轨道",
           "美国科技", "中国科技"),
}
PHASE_LABEL = {
    "en": dict(zip(PHASES, ("setup", "history events", "deal", "headline", "action rounds",
                            "economy", "spare scoring", "final scoring", "improvement",
                            "Russia-Ukraine war", "game over"), strict=True)),
    "zh": dict(zip(PHASES, ("准备", "历史事件", "发牌", "头条", "行动轮", "经济", "备用计分",
                            "最终计分", "改善", "俄乌战争", "游戏结束"), strict=True)),
}
MODE_LABEL = {
    "en": dict(zip(MODES, ("event", "place influence", "realignment", "improve social",
                           "improve economy", "tech", "trade contest"), strict=True)),
    "zh": dict(zip(MODES, ("事件", "放置影响力", "调整", "改善社会", "改善经济", "科技",
                           "贸易竞争"), strict=True)),
}
MOD_LABEL = {"zero": "0", "plus1": "+1", "minus1": "-1", "plus2": "+2", "minus2": "-2",
             "counter": "counter"}
LEVEL_LABEL = {"en": LEVELS, "zh": ("无", "存在", "支配", "控制")}
VP_SOURCE_LABEL = {
    "en": dict(zip(VP_SOURCES, ("event", "history", "track", "economy", "Russia-Ukraine war",
                                "final social", "final economy"), strict=True)),
    "zh": dict(zip(VP_SOURCES, ("事件", "历史事件", "轨道", "经济", "俄乌战争", "最终社会",
                                "最终经济"), strict=True)),
}
ERA_LABEL = {"en": ("early", "mid", "late"), "zh": ("早期", "中期", "后期")}


class Names:
    """Names of a content's countries, cards, regions and causes in one language."""

    def __init__(self, c: Content, lang: str) -> None:
        if lang not in ("en", "zh"):
            raise ValueError(f"lang must be 'en' or 'zh', not {lang!r}")
        self.c, self.lang, self.zh = c, lang, lang == "zh"

    def _pick(self, obj: Any, en: str) -> str:
        zh = getattr(obj, "zh", "") if self.zh else ""
        return zh or getattr(obj, en)

    def side(self, p: int) -> str:
        return SIDE[self.lang][p]

    def country(self, i: int) -> str:
        return self._pick(self.c.countries[i], "name")

    def card(self, i: int) -> str:
        if i < 0:
            return "一张牌" if self.zh else "a card"
        return self._pick(self.c.cards[i], "name")

    def history(self, h: int) -> str:
        return self._pick(self.c.history[h], "name")

    def region(self, row: int) -> str:
        raw = self.c.raw.map
        rows = list(raw.regions) + list(raw.subregions)
        return self._pick(rows[row], "name")

    def column(self, col: int) -> str:
        n = len(self.c.region_names) + len(self.c.subregion_names)
        return self.region(col) if col < n else VP_SOURCE_LABEL[self.lang][VP_SOURCES[col - n]]

    def track(self, t: int) -> str:
        return TRACK_LABEL[self.lang][t]

    def box(self, t: int, level: int) -> str:
        boxes = self.c.russia_boxes if TRACK_NAMES[t] == "russia" else self.c.tech_boxes[t - 7]
        return self._pick(boxes[level - 1], "name")

    def effect(self, eid: int) -> str:
        kind, i, detail = effect_owner(self.c)[eid]
        zh = self.zh
        if kind == "card":
            return self.card(i) + ((" (持续)" if zh else " (in play)") if detail else "")
        if kind == "history":
            return f"{self.history(i)} " + (f"结果 {detail + 1}" if zh else f"outcome {detail + 1}")
        if kind == "tech":
            return f"{self.track(7 + i)}: {self.box(7 + i, detail)}"
        if kind == "russia":
            return f"{self.track(6)}: {self.box(6, detail)}"
        if kind == "zone":
            return self._pick(self.c.raw.tracks.economy[detail], "name")
        if kind == "ukraine":
            return "俄乌战争失败" if zh else "Russia-Ukraine war failure"
        return f"effect {eid}"

    def cause(self, cause: int, cid: int) -> str:
        name = CAUSES[cause]
        if name == "effect":
            return self.effect(cid)
        if name == "spend":
            return ("外汇储备: " if self.zh else "reserves spent: ") + SPENDS[cid]
        if name == "modifier":
            return ("修正牌 " if self.zh else "modifier card ") + MOD_LABEL[MODIFIERS[cid][0]]
        if name in ("scoring", "final") and cid >= 0:
            return (("计分 " if name == "scoring" else "最终计分 ") if self.zh
                    else ("scoring " if name == "scoring" else "final scoring ")) + \
                self.region(cid)
        if name in ("realign", "trade") and cid >= 0:
            return f"{ZH_CAUSE[name] if self.zh else name} {self.country(cid)}"
        return ZH_CAUSE[name] if self.zh else name.replace("_", " ")


ZH_CAUSE = {"effect": "效果", "place": "放置", "realign": "调整", "trade": "贸易竞争",
            "improve": "改善", "tech_race": "科技竞赛", "sabotage": "破坏", "spend": "外汇储备",
            "upkeep": "回合开始", "decline": "经济衰退", "upgrade": "经济升级", "income": "收入",
            "modifier": "修正牌", "scoring": "计分", "final": "最终计分",
            "ukraine_war": "俄乌战争", "russia_card": "俄罗斯牌", "played": "已打出",
            "pay": "支付", "end_turn": "回合结束"}


from .event_text import annotate, countries, render  # noqa: E402  (uses the names above)

__all__ = ["CAUSES", "EVENTS", "TYPES", "annotate", "countries", "for_viewer", "render",
           "to_record", "to_records"]
