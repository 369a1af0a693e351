"""The observation vector of one player: what that player may know, vectorised.

The layout (named slices) is documented in docs/observation.md and available
at run time as ``ObservationEncoder.layout``.  Nothing here depends on the
opponent's hand, the draw pile, the opponent's unrevealed headline or modifier
card, or the dice to come.
"""

from __future__ import annotations

import operator
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import numpy as np

from ..content import Content
from ..engine.board import control_masks
from ..engine.constants import (
    DIPLOMACY,
    DISCARD,
    HAND,
    HEADLINE,
    IN_PLAY,
    M_DISCARD_RIGHT,
    M_HAND_SIZE,
    M_HIST_DRAWN,
    M_IMPROVE_LEFT,
    M_NEXT_BOTH,
    M_NEXT_NO_EVENT,
    M_NEXT_OPS,
    M_PHASE,
    M_PHASING,
    M_ROUND,
    M_ROUND8,
    M_RUSSIA_DEFERRED,
    M_RW_ADDED,
    M_RW_K,
    M_RW_STATE,
    M_TECH_DONE,
    M_TRADE_DONE,
    M_TURN,
    PHASES,
    REMOVED,
    RUSSIA,
    SIDES,
)
from ..engine.machine import Machine
from ..engine.play import risks_total_war

if TYPE_CHECKING:
    from ..game import Game

DECISION_KINDS = ("modifier", "headline", "spend", "card", "mode", "granted", "order", "place",
                  "realign", "trade", "influence", "discard", "option", "upgrade", "round8",
                  "end_discard", "ai_event", "ai_action")
INFLUENCE_SCALE = 5.0


class ObservationEncoder:
    """Encodes a game for one player into a fixed-length float32 vector."""

    def __init__(self, content: Content) -> None:
        self.c = c = content
        n, nc, nh = c.n, c.nc, c.nh
        n_spare = len(c.rules.spare_scoring)
        # Blocks that are written in one operation stay contiguous (see `encode`).
        sizes = [
            ("inf_usa", n), ("inf_china", n), ("inf_anti_us", n),
            ("ctrl_usa", n), ("ctrl_china", n), ("ctrl_anti_us", n),
            ("battleground", n), ("stability", n), ("non_realignable", n),
            ("adjacent_usa", n), ("adjacent_china", n),
            ("hand", nc), ("discard", nc), ("removed", nc), ("in_play", nc), ("own_headline", nc),
            ("revealed_opponent_hand", nc),
            ("tracks", 9), ("vp", 2), ("reserves", 2),
            ("hand_size", 2), ("improve_left", 2), ("tech_done", 2), ("trade_done", 2),
            ("discard_right", 2), ("round8", 2), ("next_card", 6),
            ("russia_ukraine_need", 1), ("russia_ukraine_added", 1),
            ("turn", 1), ("round", 1), ("opponent_hand_size", 1), ("own_hand_size", 1),
            ("phase", len(PHASES)), ("phasing", 2), ("me", 2), ("to_move", 1),
            ("russia_ukraine", 3), ("spare_scoring_used", n_spare),
            ("decision_kind", len(DECISION_KINDS)), ("decision_card", nc), ("decision_ops", 1),
            ("decision_countries", n), ("decision_history", nh),
            ("hand_war_risk", nc), ("decision_card_war_risk", 1), ("realign_war_risk", 1),
            ("russia_deferred", len(c.russia_boxes)), ("history_turn", nh),
        ]
        self.layout: dict[str, slice] = {}
        start = 0
        for name, size in sizes:
            self.layout[name] = slice(start, start + size)
            start += size
        self.size = start
        L = self.layout
        self._inf = slice(L["inf_usa"].start, L["inf_anti_us"].stop)
        self._ctrl = slice(L["ctrl_usa"].start, L["ctrl_anti_us"].stop)
        self._cards = slice(L["hand"].start, L["own_headline"].stop)
        self._numbers = slice(L["tracks"].start, L["own_hand_size"].stop)
        self._card_codes = [np.array([[HAND[p]], [DISCARD], [REMOVED], [IN_PLAY], [HEADLINE[p]]])
                            for p in (0, 1)]
        track_max = [c.rules.social_max] * 2 + [c.rules.economy_max] * 2 + [
            3, 3, len(c.russia_boxes), len(c.tech_boxes[0]), len(c.tech_boxes[1])]
        # Scale of every value of the "numbers" block, in order.
        self._number_scale = np.array(
            [1 / t for t in track_max] + [1 / 20] * 2 + [1 / 10] * 2 + [1 / 10] * 2
            + [1 / 3] * 2 + [1.0] * 14 + [1 / 10] * 2 + [1 / c.rules.turns]
            + [1 / (c.rules.action_rounds + 1)] + [1 / 10] * 2, dtype=np.float32)
        assert self._number_scale.size == self._numbers.stop - self._numbers.start
        # The parts that never change during a game.
        self._static = np.zeros(self.size, dtype=np.float32)
        self._static[L["battleground"]] = c.bg
        self._static[L["stability"]] = c.stab / 5.0
        self._static[L["adjacent_usa"]] = c.adj_sp[0]
        self._static[L["adjacent_china"]] = c.adj_sp[1]
        self._kind_index = {k: i for i, k in enumerate(DECISION_KINDS)}
        # Blocks that rarely change between decisions, keyed by the bytes they come from.
        self._board = slice(self._inf.start, L["non_realignable"].stop)
        self._board_cache: tuple[bytes, np.ndarray] | None = None
        self._inf_scale = np.repeat(np.array([1, 1, -1], dtype=np.float32) / INFLUENCE_SCALE, n)
        self._nonreal_at = L["non_realignable"].start - self._board.start
        self._at = {k: sl.start for k, sl in L.items()}  # start index of every field
        self._revealed, self._spare = L["revealed_opponent_hand"], L["spare_scoring_used"]
        # The per-turn counters of the "numbers" block, in layout order.
        self._misc_numbers = operator.itemgetter(
            *(base + k for base in (M_HAND_SIZE, M_IMPROVE_LEFT, M_TECH_DONE, M_TRADE_DONE,
                                    M_DISCARD_RIGHT, M_ROUND8, M_NEXT_OPS, M_NEXT_NO_EVENT,
                                    M_NEXT_BOTH) for k in (0, 1)),
            M_RW_K, M_RW_ADDED, M_TURN, M_ROUND)
        self._cards_cache: dict[int, tuple[bytes, tuple[np.ndarray, int, int]]] = {}
        # The only cards whose event can cost diplomacy levels (9.2.3, R7).
        self._threat_cards = [int(k) for k in np.flatnonzero(c.card_diplomacy_threat)]

    def _board_block(self, s: Any) -> np.ndarray:
        """Influence, control, static map features and ⊗ marks (the same for both players)."""
        key = s.inf_us.tobytes() + s.inf_cn.tobytes() + s.non_realignable.tobytes()
        if self._board_cache is not None and self._board_cache[0] == key:
            return self._board_cache[1]
        block = self._static[self._board].copy()
        n = self.c.n
        inf = block[: 3 * n]
        # US markers are the positive part of inf_us, anti-US markers the negative part.
        np.maximum(s.inf_us, 0, out=inf[:n])
        inf[n: 2 * n] = s.inf_cn
        np.minimum(s.inf_us, 0, out=inf[2 * n:])
        inf *= self._inf_scale
        inf += 0.0  # turns the -0.0 of the anti-US row into 0.0
        for row, mask in enumerate(control_masks(self.c, s), start=3):
            block[row * n: (row + 1) * n] = mask
        block[self._nonreal_at: self._nonreal_at + n] = s.non_realignable
        self._board_cache = (key, block)
        return block

    def _cards_block(self, s: Any, p: int) -> tuple[np.ndarray, int, int]:
        """Own hand, discard, removed, in play, own headline (as seen by `p`), and the
        numbers of cards in the opponent's hand and in `p`'s own hand."""
        key = s.card_loc.tobytes()
        hit = self._cards_cache.get(p)
        if hit is not None and hit[0] == key:
            return hit[1]
        where = s.card_loc == self._card_codes[p]
        value = (where.ravel().astype(np.float32),
                 int(np.count_nonzero(s.card_loc == HAND[1 - p])), int(np.count_nonzero(where[0])))
        self._cards_cache[p] = (key, value)
        return value

    def encode(self, m: Machine, p: int) -> np.ndarray:
        """The observation of player `p` (0 = US, 1 = China)."""
        s, at = m.s, self._at
        o = 1 - p
        v = self._static.copy()
        v[self._board] = self._board_block(s)
        v[self._cards], opp_held, own_held = self._cards_block(s, p)
        v[self._revealed] = s.revealed[o]  # R20: the snapshot as revealed
        misc = s.misc
        numbers = v[self._numbers]
        numbers[:] = [*s.tracks.tolist(), *s.vp.tolist(), *s.reserves.tolist(),
                      *self._misc_numbers(misc), opp_held, own_held]
        numbers *= self._number_scale
        v[at["phase"] + misc[M_PHASE]] = 1.0
        if misc[M_PHASING] in (0, 1):
            v[at["phasing"] + misc[M_PHASING]] = 1.0
        v[at["me"] + p] = 1.0
        v[at["russia_ukraine"] + misc[M_RW_STATE]] = 1.0
        v[self._spare] = s.spare_used
        for k in self._threat_cards:
            if s.card_loc[k] == HAND[p] and risks_total_war(m, k, p):
                v[at["hand_war_risk"] + k] = 1.0
        v[at["realign_war_risk"]] = s.tracks[DIPLOMACY] <= 2  # one attempt costs at most 1 (R7)
        deferred = misc[M_RUSSIA_DEFERRED]
        if deferred:  # R22: the boxes whose effects wait, up to the marker's box
            top = at["russia_deferred"] + int(s.tracks[RUSSIA])
            v[top - deferred: top] = 1.0
        for k in (M_HIST_DRAWN, M_HIST_DRAWN + 1):  # R23: the turn's face-up history cards
            if misc[k]:
                v[at["history_turn"] + misc[k] - 1] = 1.0
        pend = s.pending
        if pend is not None:
            _, player, kind, legal, ctx = pend
            v[at["to_move"]] = player == p
            v[at["decision_kind"] + self._kind_index[kind]] = 1.0
            card = ctx.get("card", -1)
            if card >= 0:
                v[at["decision_card"] + card] = 1.0
                v[at["decision_card_war_risk"]] = risks_total_war(m, card, p)
            v[at["decision_ops"]] = ctx.get("ops", 0) / 4.0
            if "history" in ctx:
                v[at["decision_history"] + ctx["history"]] = 1.0
            if player == p and kind in ("place", "realign", "trade", "influence"):
                countries = np.fromiter(legal, dtype=np.int64) - m.space.country0
                v[at["decision_countries"] + countries] = 1.0
        return v


@lru_cache(maxsize=4)
def encoder_for(content: Content) -> ObservationEncoder:
    """The (cached) encoder of a content set."""
    return ObservationEncoder(content)


def observe(game: Game, side: str) -> np.ndarray:
    """The observation vector of `side` ("usa" or "china") in `game`."""
    return encoder_for(game.content).encode(game._m, SIDES.index(side))
