"""The game state: a fixed set of numpy arrays plus a few scalars, cheap to copy."""

from __future__ import annotations

from typing import Any

import numpy as np

from .constants import N_MISC

ARRAYS = ("inf_us", "inf_cn", "non_realignable", "tracks", "vp", "reserves", "card_loc",
          "hist_loc", "event_played", "event_side", "revealed", "spare_used", "vp_source")


class State:
    """All that changes during a game.

    ``inf_us`` is the signed US/anti-US quantity of RULINGS R1 (US > 0, AU < 0);
    ``stack`` holds the frames still to run (plain tuples); ``pending`` is the
    decision being asked: ``(frame, player, kind, legal, ctx)``.
    """

    __slots__ = ARRAYS + ("misc", "stack", "pending", "rng", "forced", "result", "over")

    def __init__(self, n_countries: int, n_cards: int, n_hist: int, n_spare: int,
                 n_vp_sources: int = 1) -> None:
        self.inf_us = np.zeros(n_countries, dtype=np.int16)
        self.inf_cn = np.zeros(n_countries, dtype=np.int16)
        self.non_realignable = np.zeros(n_countries, dtype=bool)
        self.tracks = np.zeros(9, dtype=np.int16)
        self.vp = np.zeros(2, dtype=np.int32)
        self.reserves = np.zeros(2, dtype=np.int32)
        self.card_loc = np.zeros(n_cards, dtype=np.int8)
        self.hist_loc = np.zeros(n_hist, dtype=np.int8)
        self.event_played = np.zeros(n_cards, dtype=bool)
        self.event_side = np.zeros(n_cards, dtype=np.int8)  # who carried the last event out
        self.revealed = np.zeros((2, n_cards), dtype=bool)  # [p]: p's hand as shown to its opponent
        self.spare_used = np.zeros(n_spare, dtype=bool)
        # VP by source: regions and sub-regions first, then VP_SOURCES (balance studies).
        self.vp_source = np.zeros((2, n_vp_sources), dtype=np.int32)
        self.misc: list[int] = [0] * N_MISC
        self.stack: list[tuple] = []
        self.pending: tuple | None = None
        self.rng: list[int] = [0, 0, 0]  # stream states: dice, deck, other chance events
        self.forced: list[int] = []
        self.result: tuple[int | None, str] | None = None  # (winner index or None, reason)
        self.over = False

    def copy(self) -> State:
        new = State.__new__(State)
        for name in ARRAYS:
            setattr(new, name, getattr(self, name).copy())
        new.misc = self.misc.copy()
        new.stack = self.stack.copy()  # frames are immutable tuples
        new.pending = self.pending
        new.rng = self.rng.copy()
        new.forced = self.forced.copy()
        new.result = self.result
        new.over = self.over
        return new

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {name: getattr(self, name).tolist() for name in ARRAYS}
        d.update(misc=list(self.misc), stack=_plain(self.stack), pending=_plain(self.pending),
                 rng=list(self.rng), forced=list(self.forced), result=_plain(self.result),
                 over=self.over)
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> State:
        new = cls.__new__(cls)
        proto = State(1, 1, 1, 1)
        for name in ARRAYS:
            setattr(new, name, np.array(d[name], dtype=getattr(proto, name).dtype))
        new.misc = [int(x) for x in d["misc"]]
        new.stack = [_tuple(f) for f in d["stack"]]
        new.pending = _tuple(d["pending"])
        new.rng = [int(x) for x in d["rng"]]
        new.forced = [int(x) for x in d["forced"]]
        new.result = _tuple(d["result"])
        new.over = bool(d["over"])
        return new

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, State):
            return NotImplemented
        return all(np.array_equal(getattr(self, a), getattr(other, a)) for a in ARRAYS) and (
            self.misc, self.stack, self.pending, self.rng, self.forced, self.result, self.over
        ) == (other.misc, other.stack, other.pending, other.rng, other.forced, other.result,
              other.over)

    __hash__ = None  # type: ignore[assignment]


def _plain(x: Any) -> Any:
    """Tuples (frames) to lists for JSON; dicts kept; numpy ints to int."""
    if isinstance(x, (tuple, list)):
        return [_plain(v) for v in x]
    if isinstance(x, dict):
        return {k: _plain(v) for k, v in x.items()}
    if isinstance(x, np.integer):
        return int(x)
    return x


def _tuple(x: Any) -> Any:
    """The inverse of `_plain`: lists back to tuples."""
    if isinstance(x, list):
        return tuple(_tuple(v) for v in x)
    if isinstance(x, dict):
        return {k: _tuple(v) for k, v in x.items()}
    return x
