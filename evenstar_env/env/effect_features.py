"""What the content's choice-asking effects are, as numbers for the observation.

Computed once per content (never per step): for every effect that asks a
player something (an influence pick, an event's options, a discard), where it
comes from (a card, a history card and its outcome, a track box or zone), its
rank among the asking effects of that source, its pick parameters, and, for
an event's options, one vector per option saying what the option's effects do
(VP, reserves, tracks, influence by kind, cards, ...) with the sides made
absolute for either executor, and the countries it names.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from ..content import Content
from ..content.loader import walk
from ..engine.board import kind_code
from ..engine.constants import N_OPTIONS, SIDES, TRACK_NAMES
from ..engine.machine import rel_side, track_index

ASKING_OPS = ("add_influence", "reduce_influence", "choice", "discard")
KINDS = ("usa", "china", "anti_us")
# Effect ops counted (once per occurrence) in an option's vector.
_COUNTED = ("replace_influence", "roll", "if", "score", "cancel", "non_realignable",
            "history_event", "russia_ukraine_war")
# Every candidate entry of an option's vector, before the constant ones are dropped.
OPTION_FEATURES: tuple[str, ...] = (
    *(f"vp_{s}" for s in SIDES), *(f"reserves_{s}" for s in SIDES),
    *(f"track_{t}" for t in TRACK_NAMES),
    *(f"add_{k}" for k in KINDS), *(f"reduce_{k}" for k in KINDS),
    *(f"each_country_{k}" for k in KINDS), *(f"remove_all_{k}" for k in KINDS),
    *(f"draw_{s}" for s in SIDES), *(f"discard_{s}" for s in SIDES),
    *(f"reveal_hand_{s}" for s in SIDES), *(f"next_card_{s}" for s in SIDES),
    *(f"ops_action_{s}" for s in SIDES), *(f"war_{s}" for s in SIDES),
    *_COUNTED, "conditions")
_AT = {name: i for i, name in enumerate(OPTION_FEATURES)}


def option_vector(effects: Iterable[Any], requires: int, executor: int) -> np.ndarray:
    """The raw (unscaled) vector of one option: its effects, nested ones included, summed."""
    v = np.zeros(len(OPTION_FEATURES), dtype=np.float64)
    v[_AT["conditions"]] = requires
    for _, e in walk(list(effects), ""):
        op = getattr(e, "op", None)
        if op is None:
            continue
        side = SIDES[rel_side(e.side, executor)] if getattr(e, "side", None) else None
        if op in ("vp", "reserves"):
            v[_AT[f"{op}_{side}"]] += e.amount
        elif op == "track":
            t = track_index(e.track, None if side is None else SIDES.index(side))
            v[_AT[f"track_{TRACK_NAMES[t]}"]] += e.delta
        elif op in ("add_influence", "reduce_influence"):
            v[_AT[f"{op.split('_')[0]}_{kind_code(e.kind, executor)}"]] += e.points
        elif op == "each_country":
            v[_AT[f"each_country_{kind_code(e.kind, executor)}"]] += e.points
        elif op == "remove_all_influence":
            v[_AT[f"remove_all_{kind_code(e.kind, executor)}"]] += 1
        elif op in ("draw", "discard"):
            v[_AT[f"{op}_{side}"]] += e.count
        elif op in ("reveal_hand", "next_card", "war"):
            v[_AT[f"{op}_{side}"]] += 1
        elif op == "ops_action":
            v[_AT[f"ops_action_{side}"]] += e.ops
        elif op in _COUNTED:
            v[_AT[op]] += 1
    return v


def option_places(c: Content, effects: Iterable[Any]) -> np.ndarray:
    """The countries an option names: war targets and the named places of its selectors."""
    mask = np.zeros(c.n, dtype=bool)
    for _, e in walk(list(effects), ""):
        if getattr(e, "op", None) == "war":
            mask[c.index[e.target]] = True
        where = getattr(e, "where", None)
        if where is not None and (where.countries is not None or where.regions is not None):
            mask |= c.static_mask(where)
    return mask


def _sources(c: Content) -> tuple[list[tuple[str, Any, int]], list[str]]:
    """(kind, effect list, index) for every root that holds effects, and the names of the
    track roots (boxes, zones, the Russia-Ukraine failure)."""
    roots: list[tuple[str, Any, int]] = [("card", cd, i) for i, cd in enumerate(c.cards)]
    for h, hc in enumerate(c.history):
        roots += [("history", o.effects, h * 4 + k) for k, o in enumerate(hc.outcomes)]
    t = c.raw.tracks
    names = []
    for field in ("russia", "tech_usa", "tech_china", "social", "economy"):
        for item in getattr(t, field):
            names.append(f"{field}: {item.name}")
            roots.append(("track", item.effects, len(names) - 1))
    names.append("ukraine_war_failure")
    roots.append(("track", t.ukraine_war_failure, len(names) - 1))
    return roots, names


class DecisionEffects:
    """Static tables of the asking effects of a content set, keyed by effect id."""

    def __init__(self, c: Content) -> None:
        roots, track_names = _sources(c)
        # eid -> (source kind, source index, rank among the asking effects of that source)
        self.source: dict[int, tuple[str, int, int]] = {}
        ranks: dict[tuple[str, int], int] = {}
        used_tracks: list[int] = []
        for kind, root, index in roots:
            key = (kind, index // 4 if kind == "history" else index)
            for _, node in walk(root, ""):
                if getattr(node, "op", None) in ASKING_OPS and c.eid(node) not in self.source:
                    rank = ranks.get(key, 0)
                    ranks[key] = rank + 1
                    self.source[c.eid(node)] = (kind, index, rank)
                    if kind == "track" and index not in used_tracks:
                        used_tracks.append(index)
        used_tracks.sort()
        # Only track roots that ask something get an entry of their own.
        self.track_names = [track_names[i] for i in used_tracks]
        self._track_pos = {i: k for k, i in enumerate(used_tracks)}
        self.n_ranks = max(ranks.values(), default=1)
        picks = [e for e in c.effects if e.op in ("add_influence", "reduce_influence")]
        self.max_points = max((e.points for e in picks), default=1)
        self.max_cap = max((e.per_country or 0 for e in picks), default=0) or 1
        self.max_countries = max((e.max_countries or 0 for e in picks), default=0) or 1
        self._option_tables(c)

    def track_source(self, eid: int) -> int:
        """The position of an effect's track root in the `source_track` block."""
        return self._track_pos[self.source[eid][1]]

    def pick_params(self, eid: int, eff: Any) -> np.ndarray:
        """Total points, per-country cap, country limit, lump flag of a pick, each scaled."""
        return np.array([eff.points / self.max_points, (eff.per_country or 0) / self.max_cap,
                         (eff.max_countries or 0) / self.max_countries, float(eff.lump)],
                        dtype=np.float32)

    def _option_tables(self, c: Content) -> None:
        """Per choice effect and executor, the options' vectors; constant entries dropped."""
        choices = [e for e in c.effects if e.op == "choice"]
        self.option_slots = min(N_OPTIONS, max((len(e.options) for e in choices), default=0))
        raw: dict[int, np.ndarray] = {}  # eid -> [executor, slot, feature]
        # eid -> the countries each option names, slot after slot
        self.option_places: dict[int, np.ndarray] = {}
        for e in choices:
            places = np.zeros((self.option_slots, c.n), dtype=np.float32)
            for j, o in enumerate(e.options[: self.option_slots]):
                places[j] = option_places(c, o.effects)
            self.option_places[c.eid(e)] = places.ravel()
            table = np.zeros((2, self.option_slots, len(OPTION_FEATURES)))
            for ex in (0, 1):
                for j, o in enumerate(e.options[: self.option_slots]):
                    table[ex, j] = option_vector(o.effects, len(o.requires), ex)
            raw[c.eid(e)] = table
        allv = (np.concatenate([t.reshape(-1, len(OPTION_FEATURES)) for t in raw.values()])
                if raw else np.zeros((1, len(OPTION_FEATURES))))
        lo, hi = allv.min(axis=0), allv.max(axis=0)
        keep = np.flatnonzero(hi > lo)
        self.option_features = [OPTION_FEATURES[k] for k in keep]
        scale = np.maximum(np.abs(lo), np.abs(hi))[keep]
        self.option_scale = [float(x) for x in scale]  # each kept feature's divisor
        self.options = {eid: (t[:, :, keep] / scale).reshape(2, -1).astype(np.float32)
                        for eid, t in raw.items()}
        self.option_low = np.tile(lo[keep] / scale, self.option_slots).astype(np.float32)
        self.option_high = np.tile(hi[keep] / scale, self.option_slots).astype(np.float32)
