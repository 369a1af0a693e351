"""The observation encoder of the native core, configured by the Python encoder.

The C++ encoder (native/src/cpp/observation.cpp) writes the same float32 vector as
``ObservationEncoder.encode``, bit for bit, into a caller's buffer.  Offsets, the
static part and every scale come from the Python encoder, so the layout has one
source; a layout with fields the C++ encoder does not know raises
NotImplementedError (use the Python encoder on the native views then).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

from ..env.observation import ObservationEncoder, encoder_for
from . import core, names
from .frames import CTX_SCHEMA

# The C++ ObsField order; "numbers" is the block from "tracks" to "own_hand_size".
FIELDS = ("inf_usa", "inf_china", "inf_anti_us", "ctrl_usa", "ctrl_china", "ctrl_anti_us",
          "non_realignable", "hand", "discard", "removed", "in_play", "own_headline",
          "revealed_opponent_hand", "numbers", "phase", "phasing", "me", "to_move",
          "russia_ukraine", "spare_scoring_used", "decision_kind", "decision_card",
          "decision_ops", "decision_countries", "decision_history", "hand_war_risk",
          "decision_card_war_risk", "realign_war_risk", "russia_deferred", "history_turn")
NUMBERS = ("tracks", "vp", "reserves", "hand_size", "improve_left", "tech_done", "trade_done",
           "discard_right", "round8", "next_card", "russia_ukraine_need",
           "russia_ukraine_added", "turn", "round", "opponent_hand_size", "own_hand_size")
STATIC = ("battleground", "stability", "adjacent_usa", "adjacent_china")
COUNTRY_KINDS = ("place", "realign", "trade", "influence")


def _slot(kind: str, key: str) -> int:
    return next((slot for k, slot in CTX_SCHEMA.get(kind, ()) if k == key), -1)


def spec_dict(enc: ObservationEncoder) -> dict[str, np.ndarray]:
    """What the C++ encoder needs from a Python encoder."""
    layout = enc.layout
    known = set(FIELDS) - {"numbers"} | set(NUMBERS) | set(STATIC)
    if set(layout) != known:
        raise NotImplementedError(f"observation fields the native encoder does not know: "
                                  f"{sorted(set(layout) ^ known)}")
    at = [layout["tracks"].start if f == "numbers" else layout[f].start for f in FIELDS]
    kinds = names.decision_kinds()
    i32 = lambda x: np.asarray(x, dtype=np.int32)  # noqa: E731
    return {
        "at": i32(at),
        "static": np.ascontiguousarray(enc._static, dtype=np.float32),
        "number_scale": np.ascontiguousarray(enc._number_scale, dtype=np.float32),
        "inf_scale": np.array([enc._inf_scale[0], enc._inf_scale[-1]], dtype=np.float32),
        "misc_items": i32(enc._misc_numbers.__reduce__()[1]),
        "threat": i32(enc._threat_cards),
        "kind_index": i32([enc._kind_index[k] for k in kinds]),
        "card_slot": i32([_slot(k, "card") for k in kinds]),
        "ops_slot": i32([_slot(k, "ops") for k in kinds]),
        "hist_slot": i32([_slot(k, "history") for k in kinds]),
        "countries": i32([k in COUNTRY_KINDS for k in kinds]),
    }


@lru_cache(maxsize=8)
def spec_for(content: Any) -> Any:
    """The native encoder settings of a content's (cached) Python encoder."""
    return core().make_obs_spec(spec_dict(encoder_for(content)))


def observe_native(game: Any, p: int, out: np.ndarray | None = None) -> np.ndarray:
    """Player `p`'s observation of a native game, encoded in C++ (into `out` if given)."""
    spec = spec_for(game.content)
    if out is None:
        out = np.empty(spec.size, dtype=np.float32)
    game._m.s.engine.encode(spec, p, out)
    return out
