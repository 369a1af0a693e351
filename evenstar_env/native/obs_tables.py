"""The observation encoder's tables for the native core, computed by the Python encoder.

The C++ encoder (native/src/cpp/observation.cpp) knows no layout and no card: the
offsets of the fields it writes (by the names the core lists in ``obs_names()``),
the number scales, the card codes, the threat cards and, per effect id, the source
entries, pick parameters and option vectors all come from
:class:`~evenstar_env.env.observation.ObservationEncoder` and its
:class:`~evenstar_env.env.effect_features.DecisionEffects` here.  Floats travel as
the int32 view of their float32 bits.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..content import Content
from ..engine import constants as K
from ..env import effect_features, observation
from ..env.observation import (
    _ACTION_FRAMES,
    CARD_KINDS,
    COUNTRY_KINDS,
    GRANTED_MODES,
    ObservationEncoder,
)
from . import frames, names

# Sources of the entries of the "numbers" block (observation.h: NS_*), in encode()'s order:
# tracks, VP, reserves, the misc counters, the opponent's and one's own hand size.
NS_TRACK, NS_VP, NS_RESERVES, NS_MISC, NS_OPP_HELD, NS_OWN_HELD = range(6)


def _bits(a: Any) -> np.ndarray:
    return np.ascontiguousarray(np.asarray(a, dtype=np.float32)).view(np.int32)


def _numbers(enc: ObservationEncoder) -> list[tuple[int, int]]:
    misc = enc._misc_numbers(list(range(256)))  # the indices it picks
    return ([(NS_TRACK, k) for k in range(9)] + [(NS_VP, 0), (NS_VP, 1)]
            + [(NS_RESERVES, 0), (NS_RESERVES, 1)] + [(NS_MISC, int(i)) for i in misc]
            + [(NS_OPP_HELD, 0), (NS_OWN_HELD, 0)])


def _kinds(enc: ObservationEncoder, cols: list[str], writers: list[str]) -> np.ndarray:
    """One row per native decision kind: its index, context writer and context slots."""
    rows = []
    for kind in names.decision_kinds():
        slots = dict(frames.CTX_SCHEMA.get(kind, ()))
        write = enc._context.get(kind)
        row = {"index": enc._kind_index[kind],
               "writer": -1 if write is None else writers.index(write.__name__.lstrip("_")),
               "card_slot": slots.get("card", -1),
               "card_optional": int((kind, "card") in frames.CTX_OPTIONAL),
               "ops_slot": slots.get("ops", -1), "history_slot": slots.get("history", -1),
               "country": int(kind in COUNTRY_KINDS), "card": int(kind in CARD_KINDS)}
        rows.append([row[c] for c in cols])
    return np.array(rows, dtype=np.int32)


def _effects(c: Content, enc: ObservationEncoder, cols: list[str]
             ) -> tuple[np.ndarray, list[np.ndarray], list[np.ndarray], list[np.ndarray]]:
    """One row per effect id (source entries, verb, rows of its pick parameters and option
    vectors, min_ops), and those rows."""
    fx = enc.effects
    params, options, places, rows = [], [], [], []
    for eid, e in enumerate(c.effects):
        src = [int(x) for x in enc._source_at.get(eid, ())]
        if len(src) > 3:
            raise ValueError(f"effect {eid}: more than three source entries")
        row = {"src0": -1, "src1": -1, "src2": -1, "verb": int(e.op == "reduce_influence"),
               "params": -1, "option": -1, "min_ops": int(getattr(e, "min_ops", 0) or 0)}
        for k, idx in enumerate(src):
            row[f"src{k}"] = idx
        if eid in enc._params:
            row["params"] = len(params)
            params.append(enc._params[eid])
        if eid in fx.options:
            row["option"] = len(options)
            options.append(fx.options[eid].ravel())
            places.append(fx.option_places[eid])
        rows.append([row[k] for k in cols])
    return np.array(rows, dtype=np.int32), params, options, places


def observation_tables(c: Content, core: Any) -> dict[str, np.ndarray]:
    """The ``obs_*`` tables of `c` for `core` (the compiled module)."""
    enc = ObservationEncoder(c)
    fx = enc.effects
    nm = core.obs_names()
    if tuple(frames.KINDS) != tuple(effect_features.KINDS):
        raise RuntimeError("pick frames and the encoder name influence kinds differently")
    n_opt = fx.option_slots * len(fx.option_features)
    effects, params, options, places = _effects(c, enc, nm["effect_cols"])
    numbers = _numbers(enc)
    if len(numbers) != enc._numbers.stop - enc._numbers.start:
        raise RuntimeError("the numbers block changed: update obs_tables._numbers")
    frame_ops = names.frame_names()
    action = [_ACTION_FRAMES.get(op, -2 if op == "improve" else -1) for op in frame_ops]
    granted = [enc._granted_at[m] - enc._at["granted_modes"] if m in GRANTED_MODES else -1
               for m in range(len(K.MODES))]
    discard_max = round(1 / enc._discard_scale)
    if 1 / discard_max != enc._discard_scale:
        raise RuntimeError("the discard scale is not 1 / an integer")
    i32 = lambda x: np.ascontiguousarray(np.asarray(x, dtype=np.int32))  # noqa: E731
    return {
        "obs_size": i32(enc.size),
        "obs_at": i32([enc._at[name] for name in nm["fields"]]),
        "obs_inf_scale": _bits(enc._inf_scale[[0, c.n, 2 * c.n]]),
        "obs_card_codes": i32([codes.ravel() for codes in enc._card_codes]),
        "obs_numbers": i32(numbers).reshape(-1, 2),
        "obs_number_scale": _bits(enc._number_scale),
        "obs_threat": i32(enc._threat_cards).reshape(-1),
        "obs_kinds": _kinds(enc, nm["kind_cols"], nm["writers"]),
        "obs_effects": effects.reshape(len(c.effects), len(nm["effect_cols"])),
        "obs_params": _bits(params).reshape(-1, 4),
        "obs_options": _bits(options).reshape(-1, 2 * n_opt),
        "obs_places": _bits(places).reshape(-1, fx.option_slots * c.n),
        "obs_max_points": i32(fx.max_points),
        "obs_discard_max": i32(discard_max),
        "obs_n_russia": i32(len(c.russia_boxes)),
        "obs_tech_boxes": i32(enc._tech_boxes),
        "obs_pay_discard": i32([cd.pay_discard or 0 for cd in c.cards]),
        "obs_action_mode": i32(action),
        "obs_granted": i32(granted),
        "obs_scoring": i32(enc._scoring_cards).reshape(-1),
        "obs_scoring_scale": _bits([observation.SCORING_SCALE]),
        "obs_action_rounds": i32(c.rules.action_rounds),
    }
