"""Frames and pending decisions: Python tuples <-> native frame records.

A native frame is a fixed record (``Frame`` in native/src/cpp/engine.h): ``op``,
``aux`` (the op of a nested action frame), ``flags`` (bit 0: ``set`` holds a country
tuple), ``nseq``, six small ints ``a``, an ordered tuple ``seq`` and a country set
``set`` (two 64-bit words; country tuples from ``flatnonzero`` are ascending).
``FRAME_SCHEMA`` says, for every frame op of the Python engine, which record field
holds each tuple element; the converters below are the only place that knows it.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from ..content import Content
from ..engine.constants import SIDES
from . import names

MASK64 = (1 << 64) - 1
KINDS = ("usa", "china", "anti_us")  # influence kinds of pick frames (board.py strings)

# Tuple elements after the name: "aK" is a[K]; "kind" is KINDS[a[2]]; "set" a country
# tuple; "optset" a country tuple or None; "seq" an ordered tuple; "log" the text of a
# track-box log frame; "action" the nested action frame (aux, a[3..5]).
FRAME_SCHEMA: dict[str, tuple[str, ...]] = {
    "log": ("log",), "resolved": (), "vp_source": ("a0",), "eff": ("a0", "a1"),
    "pick": ("a0", "a1", "kind", "a3", "set", "seq"), "discard": ("a0", "a1", "a2", "a3"),
    "choice": ("a0", "a1"), "round": ("a0", "a1"), "spend": ("a0",), "russia_step": (),
    "russia_deferred": (), "play": ("a0",), "mode": ("a0", "a1"),
    "order": ("a0", "a1", "a2", "action"), "ai_event": ("a0", "a1", "a2", "action"),
    "ai_action": ("a0", "a1", "a2"), "event": ("a0", "a1", "a2"), "pay": ("a0", "a1", "a2"),
    "card_done": ("a0",),
    "ops_mode": ("a0", "a1", "seq", "optset"), "place_start": ("a0", "a1", "optset"),
    "realign": ("a0", "a1", "optset"), "trade": ("a0", "a1", "optset"),
    "place": ("a0", "a1", "set"), "improve": ("a0", "a1", "a2"), "tech": ("a0", "a1"),
    "turn": (), "phase_a": (), "phase_b": (), "phase_c": (), "phase_d": (), "phase_e": (),
    "phase_f": (), "phase_g": (), "phase_h": (), "phase_i": (), "phase_j": (),
    "history_draw": (), "history": ("a0", "a1"), "modifier": ("a0", "a1"),
    "history_roll": ("a0", "a1"), "headline": ("a0",), "headline_resolve": (),
    "headline_event": ("a0", "a1"), "round8": ("a0",), "end_g": (), "rw_reduce": (),
    "scoring_held": (), "end_discard": ("a0",), "upgrade": ("a0",), "decline": (),
    "final": (),
}

# Decision context keys in the Python engine's order, and which p_ctx slot holds each.
CTX_SCHEMA: dict[str, tuple[tuple[str, int], ...]] = {
    "influence": (("verb", 0), ("kind", 1), ("left", 2), ("eff", 3)),
    "discard": (("side", 0), ("card", 1)), "option": (("eff", 0),),
    "mode": (("card", 0), ("ops", 1)), "ai_action": (("card", 0), ("ops", 1)),
    "order": (("card", 0),), "ai_event": (("card", 0),),
    "granted": (("ops", 0),), "place": (("ops", 0),), "realign": (("ops", 0),),
    "trade": (("ops", 0),), "modifier": (("history", 0),),
}
# Keys a decision has only sometimes (the pay-to-fire discard names its card): stored + 1,
# 0 when absent.
CTX_OPTIONAL = {("discard", "card")}
VERBS = ("add", "reduce")

FRAME_DTYPE = np.dtype([("op", "u1"), ("aux", "u1"), ("flags", "u1"), ("nseq", "u1"),
                        ("a", "<i2", 6), ("seq", "u1", 16), ("set", "<u8", 2)])
assert FRAME_DTYPE.itemsize == 48


class FrameCodec:
    """Converts frames of one content between tuples and records."""

    def __init__(self, c: Content) -> None:
        self.c = c
        self.ops = names.frame_names()
        self.op_index = {n: i for i, n in enumerate(self.ops)}
        self.kinds = names.decision_kinds()
        self.kind_index = {k: i for i, k in enumerate(self.kinds)}
        missing = set(self.ops) - set(FRAME_SCHEMA)
        if missing:
            raise RuntimeError(f"frames without a native schema: {sorted(missing)}")
        self.log_texts: dict[str, tuple[int, int, int]] = {}
        for p, boxes in enumerate(c.tech_boxes):
            for k, box in enumerate(boxes):
                self.log_texts[f"{SIDES[p]} tech: {box.name}"] = (0, p, k)
        for k, box in enumerate(c.russia_boxes):
            self.log_texts[f"Russia track: {box.name}"] = (1, 0, k)

    # ------------------------------------------------------------ record -> tuple
    def to_tuple(self, r: Any) -> tuple:
        name = self.ops[int(r["op"])]
        a = r["a"]
        out: list[Any] = [name]
        for spec in FRAME_SCHEMA[name]:
            if spec[0] == "a" and spec != "action":
                out.append(int(a[int(spec[1])]))
            elif spec == "kind":
                out.append(KINDS[int(a[2])])
            elif spec == "set":
                out.append(_set_tuple(r["set"]))
            elif spec == "optset":
                out.append(_set_tuple(r["set"]) if int(r["flags"]) & 1 else None)
            elif spec == "seq":
                out.append(tuple(int(x) for x in r["seq"][: int(r["nseq"])]))
            elif spec == "log":
                kind, side, box = int(a[0]), int(a[1]), int(a[2])
                out.append(f"{SIDES[side]} tech: {self.c.tech_boxes[side][box].name}" if kind == 0
                           else f"Russia track: {self.c.russia_boxes[box].name}")
            elif spec == "action":
                nested = np.zeros((), dtype=FRAME_DTYPE)
                nested["op"] = r["aux"]
                nested["a"][:3] = a[3:6]
                out.append(self.to_tuple(nested))
        return tuple(out)

    # ------------------------------------------------------------ tuple -> record
    def to_record(self, f: tuple, r: Any) -> None:
        """Write frame `f` into the (zeroed) record `r`; ValueError if not representable."""
        name = f[0]
        if name not in self.op_index:
            raise ValueError(f"unknown frame {name!r}")
        spec = FRAME_SCHEMA[name]
        if len(f) != len(spec) + 1:
            raise ValueError(f"frame {f!r} does not have {len(spec)} fields")
        r["op"] = self.op_index[name]
        for value, s in zip(f[1:], spec, strict=True):
            if s[0] == "a" and s != "action":
                r["a"][int(s[1])] = _int16(value)
            elif s == "kind":
                r["a"][2] = KINDS.index(value)
            elif s in ("set", "optset"):
                if value is None and s == "optset":
                    continue
                r["flags"] = int(r["flags"]) | 1
                r["set"] = _set_words(value, self.c.n)
            elif s == "seq":
                if len(value) > 16 or any(not 0 <= int(x) < 256 for x in value):
                    raise ValueError(f"frame {f!r}: tuple not representable natively")
                r["nseq"] = len(value)
                r["seq"][: len(value)] = value
            elif s == "log":
                if value not in self.log_texts:
                    raise ValueError(f"log frame {value!r} is not a track-box log")
                r["a"][:3] = self.log_texts[value]
            elif s == "action":
                nested = np.zeros((), dtype=FRAME_DTYPE)
                self.to_record(tuple(value), nested)
                if int(nested["flags"]) or int(nested["a"][3]):
                    raise ValueError(f"frame {f!r}: nested action not representable natively")
                r["aux"] = nested["op"]
                r["a"][3:6] = nested["a"][:3]

    # ------------------------------------------------------------ pending decision
    def pending(self, frame: Any, player: int, kind: int, legal: Any, ctx: Any) -> tuple:
        name = self.kinds[kind]
        return (self.to_tuple(frame), int(player), name, tuple(int(x) for x in legal),
                pending_context(name, ctx))

    def pending_ctx(self, kind: str, ctx: dict[str, Any]) -> list[int]:
        keys = [(k, slot) for k, slot in CTX_SCHEMA.get(kind, ())
                if k in ctx or (kind, k) not in CTX_OPTIONAL]
        if list(ctx) != [k for k, _ in keys]:
            raise ValueError(f"decision {kind!r}: context keys {list(ctx)} are not the engine's")
        out = [0, 0, 0, 0]
        for key, slot in keys:
            v = ctx[key]
            out[slot] = VERBS.index(v) if key == "verb" else KINDS.index(v) if key == "kind" \
                else int(v) + ((kind, key) in CTX_OPTIONAL)
        return out


def pending_context(name: str, ctx: Any) -> dict[str, Any]:
    """The context dict of a decision of kind `name` from its four native ints."""
    d: dict[str, Any] = {}
    for key, slot in CTX_SCHEMA.get(name, ()):
        v = int(ctx[slot])
        if (name, key) in CTX_OPTIONAL:
            if not v:
                continue
            v -= 1
        d[key] = VERBS[v] if key == "verb" else KINDS[v] if key == "kind" else v
    return d


def _set_tuple(words: Any) -> tuple[int, ...]:
    out = []
    for k in range(2):
        w = int(words[k])
        while w:
            b = (w & -w).bit_length() - 1
            out.append(64 * k + b)
            w &= w - 1
    return tuple(out)


def _set_words(values: Any, n: int) -> list[int]:
    values = [int(v) for v in values]
    if values != sorted(set(values)) or any(not 0 <= v < min(n, 128) for v in values):
        raise ValueError(f"country tuple {values!r} is not ascending and in range")
    w = [0, 0]
    for v in values:
        w[v >> 6] |= 1 << (v & 63)
    return w


def _int16(v: Any) -> int:
    v = int(v)
    if not -(2**15) <= v < 2**15:
        raise ValueError(f"frame value {v} does not fit the native record")
    return v


# ---------------------------------------------------------------- results
_REASONS = {
    1: lambda x, y, z: f"{SIDES[x]} social or economy collapse",
    2: lambda x, y, z: f"diplomacy at 1 (total war) caused by {SIDES[x]}",
    3: lambda x, y, z: f"both sides lost at once: {_REASONS[x](0, 0, 0)}; {_REASONS[y](1, 0, 0)}",
    4: lambda x, y, z: "both players held a scoring card",
    5: lambda x, y, z: f"{SIDES[x]} held a scoring card at the end of the turn",
    6: lambda x, y, z: f"final scoring: equal VP ({x})",
    7: lambda x, y, z: f"final scoring: {SIDES[x]} has more VP ({y}-{z})",
}


def reason_text(code: int, x: int, y: int, z: int) -> str:
    return _REASONS[code](x, y, z)


def reason_code(text: str) -> tuple[int, int, int, int]:
    """The inverse of `reason_text`; ValueError for a reason the engine never gives."""
    m = re.fullmatch(r"final scoring: equal VP \((-?\d+)\)", text)
    if m:
        return 6, int(m[1]), 0, 0
    m = re.fullmatch(r"final scoring: (usa|china) has more VP \((-?\d+)-(-?\d+)\)", text)
    if m:
        return 7, SIDES.index(m[1]), int(m[2]), int(m[3])
    for code in (1, 2, 4, 5):
        for x in (0, 1):
            if reason_text(code, x, 0, 0) == text:
                return code, x, 0, 0
    for x in (1, 2):
        for y in (1, 2):
            if reason_text(3, x, y, 0) == text:
                return 3, x, y, 0
    raise ValueError(f"unknown result reason {text!r}")
