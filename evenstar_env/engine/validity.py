"""What a valid engine state holds: the domain of every frame argument, misc slot and
decision context, shared by both backends.

The Python engine checks a snapshot with these rules (``evenstar_env.snapshot``); the
native core gets them as tables (:func:`tables`, exported by
``evenstar_env/native/export.py``) and checks its state with them before it steps a
state it did not make itself (``native/src/cpp/validate.cpp``, docs/native.md).  One
spec, two checkers: both backends refuse the same states.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

from ..content import Content
from .constants import (
    H_DECK,
    H_DONE,
    H_DRAWN,
    H_OUT,
    LOC_NAMES,
    M_COLLAPSE,
    M_DECISIONS,
    M_DIPLO_LOSER,
    M_DISCARD_RIGHT,
    M_END_FLAG,
    M_HAND_SIZE,
    M_HEADLINE,
    M_HIST_DRAWN,
    M_IMPROVE_LEFT,
    M_MOD,
    M_NEXT_BOTH,
    M_NEXT_NO_EVENT,
    M_NEXT_OPS,
    M_PHASE,
    M_PHASING,
    M_RESOLVING,
    M_RESPONSIBLE,
    M_ROUND,
    M_ROUND8,
    M_RUSSIA_DEFERRED,
    M_RW_ADDED,
    M_RW_K,
    M_RW_STATE,
    M_TECH_DONE,
    M_TECH_PAID,
    M_TRADE_DONE,
    M_TURN,
    M_VP_SOURCE,
    MODE_PLACE,
    MODE_REALIGN,
    MODE_TRADE,
    MODIFIERS,
    N_MISC,
    PHASES,
    VP_SOURCES,
)

MAX_COUNT = 64  # points to place or reduce, cards to discard, turns of a Russia-Ukraine war
# VP, VP by source and reserves: far beyond any game, far enough from the int32 limit
# that the engine's additions never overflow (the sanitizer build found one at 2**31-1).
COUNTER_MAX = 10**6
I32 = (-(2**31), 2**31 - 1)

# Argument domains, in code order (the native tables use the index).  "kind" is an
# influence kind (a string in Python, 0..2 natively), "log" a track-box log text.
DOMAINS = ("any", "side", "card", "hist", "eff", "eff_pick", "eff_discard", "eff_choice",
           "source", "count", "ops", "printed", "track", "round", "flag", "country", "mode",
           "kind", "verb", "card_opt", "log", "action")
DOM = {name: k for k, name in enumerate(DOMAINS)}
EFFECT_CLASS = {"eff_pick": ("add_influence", "reduce_influence"), "eff_discard": ("discard",),
                "eff_choice": ("choice",)}
SPECIAL_VALUES = {"track": (0, 2), "mode": (MODE_PLACE, MODE_REALIGN, MODE_TRADE)}
KINDS = ("usa", "china", "anti_us")
ACTION_FRAMES = ("place_start", "realign", "trade", "tech", "improve")  # nested in order

# Per frame: the domain of each element after the name.  "countries" is an ascending
# tuple of countries, "optcountries" the same or None, "chosen" a tuple of countries,
# "modes" a tuple of granted modes.
_NO_ARGS = ("resolved", "russia_step", "russia_deferred", "turn", "phase_a", "phase_b",
            "phase_c", "phase_d", "phase_e", "phase_f", "phase_g", "phase_h", "phase_i",
            "phase_j", "history_draw", "headline_resolve", "end_g", "rw_reduce",
            "scoring_held", "decline", "final")
FRAME_ARGS: dict[str, tuple[str, ...]] = {
    **{name: () for name in _NO_ARGS},
    "log": ("log",), "vp_source": ("source",), "eff": ("eff", "side"),
    "pick": ("eff_pick", "side", "kind", "count", "countries", "chosen"),
    "discard": ("eff_discard", "side", "side", "count"), "choice": ("eff_choice", "side"),
    "round": ("round", "side"), "spend": ("side",), "play": ("side",), "mode": ("side", "card"),
    "order": ("side", "card", "side", "action"), "ai_event": ("side", "card", "side", "action"),
    "ai_action": ("side", "card", "ops"), "event": ("card", "side", "side"),
    "pay": ("card", "side", "side"), "card_done": ("card",),
    "ops_mode": ("side", "ops", "modes", "optcountries"),
    "place_start": ("side", "ops", "optcountries"), "realign": ("side", "ops", "optcountries"),
    "trade": ("side", "ops", "optcountries"), "place": ("side", "ops", "countries"),
    "improve": ("side", "track", "printed"), "tech": ("side", "card"),
    "history": ("hist", "flag"), "modifier": ("hist", "side"), "history_roll": ("hist", "flag"),
    "headline": ("side",), "headline_event": ("card", "side"), "round8": ("side",),
    "end_discard": ("side",), "upgrade": ("side",),
}
SEQ_DOMAINS = {"chosen": "country", "modes": "mode"}

# Per decision kind: the frames that ask it, the action groups of its legal actions, and
# the domain of each context key (frames.CTX_SCHEMA order; "card_opt": a card or absent).
GROUPS = ("CARD", "COUNTRY", "MODE", "ORDER", "MOD", "SPEND", "YES", "NO", "OPTION", "DONE")
DECISIONS: dict[str, tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]] = {
    "ai_action": (("ai_action",), ("MODE", "NO"), ("card", "ops")),
    "ai_event": (("ai_event",), ("ORDER", "NO"), ("card",)),
    "card": (("play",), ("CARD",), ()),
    "discard": (("discard", "pay"), ("CARD", "NO"), ("side", "card_opt")),
    "end_discard": (("end_discard",), ("CARD", "DONE"), ()),
    "granted": (("ops_mode",), ("MODE",), ("ops",)),
    "headline": (("headline",), ("CARD",), ()),
    "influence": (("pick",), ("COUNTRY",), ("verb", "kind", "count", "eff_pick")),
    "mode": (("mode",), ("MODE",), ("card", "ops")),
    "modifier": (("modifier",), ("MOD",), ("hist",)),
    "option": (("choice",), ("OPTION",), ("eff_choice",)),
    "order": (("order",), ("ORDER",), ("card",)),
    "place": (("place",), ("COUNTRY",), ("ops",)),
    "realign": (("realign",), ("COUNTRY",), ("ops",)),
    "round8": (("round8",), ("YES", "NO"), ()),
    "spend": (("spend",), ("SPEND", "DONE"), ()),
    "trade": (("trade",), ("COUNTRY",), ("ops",)),
    "upgrade": (("upgrade",), ("YES", "NO"), ()),
}


@lru_cache(maxsize=8)
def domain_bounds(c: Content) -> dict[str, tuple[int, int]]:
    """The integer range of every domain for content `c` (sets of values are also checked
    by `check_value`)."""
    n_eff = len(c.effects)
    return {"any": I32, "side": (0, 1), "card": (0, c.nc - 1), "hist": (0, c.nh - 1),
            "eff": (0, n_eff - 1), "eff_pick": (0, n_eff - 1), "eff_discard": (0, n_eff - 1),
            "eff_choice": (0, n_eff - 1), "source": (0, len(VP_SOURCES) - 1),
            "count": (0, MAX_COUNT), "ops": (0, 4), "printed": (0, 4), "track": (0, 2),
            "round": (1, c.rules.action_rounds + 1), "flag": (0, 1), "country": (0, c.n - 1),
            "mode": (MODE_PLACE, MODE_TRADE), "kind": (0, len(KINDS) - 1), "verb": (0, 1),
            "card_opt": (0, c.nc), "log": I32, "action": I32}


def misc_bounds(c: Content) -> list[tuple[int, int]]:
    """The range of every misc slot; unnamed slots hold 0."""
    r = c.rules
    b = [(0, 0)] * N_MISC
    pairs = {M_HAND_SIZE: (0, c.nc), M_IMPROVE_LEFT: (0, MAX_COUNT), M_TECH_DONE: (0, 1),
             M_TRADE_DONE: (0, 1), M_DISCARD_RIGHT: (0, 1), M_ROUND8: (0, 1),
             M_NEXT_OPS: (0, 1), M_NEXT_NO_EVENT: (0, 1), M_NEXT_BOTH: (0, 1),
             M_MOD: (0, len(MODIFIERS) - 1), M_HEADLINE: (-1, c.nc - 1),
             M_COLLAPSE: (0, 1), M_HIST_DRAWN: (0, c.nh)}
    for slot, lohi in pairs.items():
        b[slot] = b[slot + 1] = lohi
    for p, boxes in enumerate(c.tech_boxes):
        b[M_TECH_PAID + p] = (0, len(boxes))
    b[M_TURN] = (1, r.turns)
    b[M_PHASE] = (0, len(PHASES) - 1)
    b[M_ROUND] = (0, r.action_rounds + 1)
    b[M_PHASING] = (-1, 1)
    b[M_RESPONSIBLE] = (-1, 1)
    b[M_RW_STATE] = (0, 2)
    b[M_RW_K] = b[M_RW_ADDED] = (0, MAX_COUNT)
    b[M_END_FLAG] = b[M_RESOLVING] = (0, 1)
    b[M_DIPLO_LOSER] = (0, 2)
    b[M_DECISIONS] = (0, I32[1])
    b[M_VP_SOURCE] = (0, len(VP_SOURCES) - 1)
    b[M_RUSSIA_DEFERRED] = (0, len(c.russia_boxes))
    return b


def array_bounds() -> dict[str, tuple[int, int]]:
    """Semantic ranges of state arrays beyond their dtype (None: the dtype's range)."""
    return {"inf_cn": (0, 2**15 - 1), "reserves": (0, COUNTER_MAX),
            "vp": (-COUNTER_MAX, COUNTER_MAX), "vp_source": (-COUNTER_MAX, COUNTER_MAX),
            "card_loc": (0, len(LOC_NAMES) - 1),
            "hist_loc": (0, max(H_OUT, H_DECK, H_DONE, H_DRAWN)), "event_side": (0, 1)}


def check_value(c: Content, dom: str, v: Any, bounds: dict[str, tuple[int, int]]) -> str | None:
    """Why `v` is not in domain `dom` (None if it is)."""
    if dom == "kind":
        return None if v in KINDS else f"{v!r} is not an influence kind {KINDS}"
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
        return f"expected an integer, got {type(v).__name__} {v!r}"
    lo, hi = bounds[dom]
    if not lo <= v <= hi:
        return f"{v} is outside {lo}..{hi} ({dom})"
    if dom in SPECIAL_VALUES and v not in SPECIAL_VALUES[dom]:
        return f"{v} is not one of {SPECIAL_VALUES[dom]} ({dom})"
    if dom in EFFECT_CLASS and c.effects[v].op not in EFFECT_CLASS[dom]:
        return f"effect {v} is a {c.effects[v].op!r} effect, not {' or '.join(EFFECT_CLASS[dom])}"
    return None


def check_frame(c: Content, f: tuple, logs: frozenset[str], nested: bool = False
                ) -> str | None:
    """Why frame tuple `f` is not a frame the engine could hold (None if it is)."""
    name = f[0]
    spec = FRAME_ARGS.get(name)
    if spec is None:
        return f"unknown frame {name!r}"
    if nested and name not in ACTION_FRAMES:
        return f"{name!r} is not an action frame"
    if len(f) != len(spec) + 1:
        return f"{name!r} takes {len(spec)} arguments, not {len(f) - 1}"
    bounds = domain_bounds(c)
    for k, (v, dom) in enumerate(zip(f[1:], spec, strict=True), start=1):
        why = _check_arg(c, dom, v, logs, bounds, nested)
        if why:
            return f"argument {k}: {why}"
    return None


def _check_arg(c: Content, dom: str, v: Any, logs: frozenset[str],
               bounds: dict[str, tuple[int, int]], nested: bool) -> str | None:
    if dom == "log":
        return None if v in logs else f"{v!r} is not a track-box log"
    if dom == "action":
        if not isinstance(v, tuple) or not v or not isinstance(v[0], str):
            return "expected a nested action frame"
        return check_frame(c, v, logs, nested=True)
    if dom in ("countries", "optcountries"):
        if v is None and dom == "optcountries":
            return None
        if nested:
            return "a nested action frame has no country set"
        if not isinstance(v, tuple) or any(isinstance(x, bool) or not isinstance(x, int)
                                           for x in v):
            return "expected a tuple of countries"
        if list(v) != sorted(set(v)) or any(not 0 <= x < c.n for x in v):
            return f"countries {v!r} are not ascending and in 0..{c.n - 1}"
        return None
    if dom in SEQ_DOMAINS:
        if not isinstance(v, tuple) or len(v) > 16:
            return "expected a tuple of at most 16 values"
        for x in v:
            why = check_value(c, SEQ_DOMAINS[dom], x, bounds)
            if why:
                return why
        return None
    return check_value(c, dom, v, bounds)


@lru_cache(maxsize=8)
def log_texts(c: Content) -> frozenset[str]:
    """The texts of the engine's "log" frames (track boxes reached)."""
    from .constants import SIDES

    out = {f"{SIDES[p]} tech: {box.name}" for p, boxes in enumerate(c.tech_boxes)
           for box in boxes}
    return frozenset(out | {f"Russia track: {box.name}" for box in c.russia_boxes})


def tables(c: Content, frame_names: list[str], kind_names: list[str]) -> dict[str, np.ndarray]:
    """The spec as int32 tables for the native core (native/src/cpp/validate.cpp):
    ``v_frame[op]`` = domain of a[0..5], seq domain, set mode (0 none, 1 required,
    2 optional), then the domains of the nested action's a[0..2] come from its own op;
    ``v_dom[d]`` = (lo, hi); ``v_misc[k]`` = (lo, hi); ``v_kind[kind]`` = two frame ops
    that ask it (-1: none), a bit mask of action groups, four context domains."""
    from ..native.frames import CTX_SCHEMA, FRAME_SCHEMA

    frame = np.zeros((len(frame_names), 8), dtype=np.int32)
    for op, name in enumerate(frame_names):
        for elem, dom in zip(FRAME_SCHEMA[name], FRAME_ARGS[name], strict=True):
            if elem[0] == "a" and elem != "action":
                frame[op, int(elem[1])] = DOM[dom]
            elif elem == "kind":
                frame[op, 2] = DOM["kind"]
            elif elem == "log":
                frame[op, :3] = (DOM["flag"], DOM["side"], DOM["any"])  # checked in C++
            elif elem == "action":
                frame[op, 3:6] = -1  # the nested frame's own domains
            elif elem == "seq":
                frame[op, 6] = DOM[SEQ_DOMAINS[dom]]
            elif elem in ("set", "optset"):
                frame[op, 7] = 1 if elem == "set" else 2
    bounds = domain_bounds(c)
    dom = np.array([bounds[d] for d in DOMAINS], dtype=np.int64).astype(np.int32)
    misc = np.array(misc_bounds(c), dtype=np.int64).astype(np.int32)
    kind = np.full((len(kind_names), 7), -1, dtype=np.int32)
    for k, name in enumerate(kind_names):
        ops, groups, ctx = DECISIONS[name]
        kind[k, :len(ops)] = [frame_names.index(o) for o in ops]
        kind[k, 2] = sum(1 << GROUPS.index(g) for g in groups)
        kind[k, 3:7] = 0
        for (_key, slot), d in zip(CTX_SCHEMA.get(name, ()), ctx, strict=True):
            kind[k, 3 + slot] = DOM[d]
    return {"v_frame": frame, "v_dom": dom, "v_misc": misc, "v_kind": kind}
