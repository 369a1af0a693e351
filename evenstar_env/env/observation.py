"""The observation vector of one player: what that player may know, vectorised.

The layout (named slices) is documented in docs/observation.md and available
at run time as ``ObservationEncoder.layout``.  Nothing here depends on the
opponent's hand, the draw pile, the opponent's unrevealed headline or modifier
card, or the dice to come.
"""

from __future__ import annotations

import numpy as np

from ..content import Content
from ..engine.board import controllers
from ..engine.constants import (
    C_ANTI_US,
    C_CHINA,
    C_USA,
    DISCARD,
    HAND,
    HEADLINE,
    IN_PLAY,
    M_DISCARD_RIGHT,
    M_HAND_SIZE,
    M_IMPROVE_LEFT,
    M_NEXT_BOTH,
    M_NEXT_NO_EVENT,
    M_NEXT_OPS,
    M_PHASE,
    M_PHASING,
    M_ROUND,
    M_ROUND8,
    M_RW_ADDED,
    M_RW_K,
    M_RW_STATE,
    M_TECH_DONE,
    M_TRADE_DONE,
    M_TURN,
    PHASES,
    REMOVED,
)
from ..engine.machine import Machine

DECISION_KINDS = ("modifier", "headline", "spend", "card", "mode", "granted", "order", "place",
                  "realign", "trade", "influence", "discard", "option", "upgrade", "round8",
                  "end_discard")
INFLUENCE_SCALE = 5.0


class ObservationEncoder:
    """Encodes a game for one player into a fixed-length float32 vector."""

    def __init__(self, content: Content) -> None:
        self.c = c = content
        n, nc, nh = c.n, c.nc, c.nh
        sizes = [
            ("inf_usa", n), ("inf_china", n), ("inf_anti_us", n),
            ("ctrl_usa", n), ("ctrl_china", n), ("ctrl_anti_us", n),
            ("battleground", n), ("stability", n), ("non_realignable", n),
            ("adjacent_usa", n), ("adjacent_china", n),
            ("tracks", 9), ("vp", 2), ("reserves", 2),
            ("turn", 1), ("round", 1), ("phase", len(PHASES)), ("phasing", 2), ("me", 2),
            ("to_move", 1),
            ("hand", nc), ("discard", nc), ("removed", nc), ("in_play", nc),
            ("revealed_opponent_hand", nc), ("own_headline", nc),
            ("opponent_hand_size", 1), ("own_hand_size", 1),
            ("decision_kind", len(DECISION_KINDS)), ("decision_card", nc), ("decision_ops", 1),
            ("decision_countries", n), ("decision_history", nh),
            ("hand_size", 2), ("improve_left", 2), ("tech_done", 2), ("trade_done", 2),
            ("discard_right", 2), ("round8", 2), ("russia_ukraine", 3), ("russia_ukraine_need", 1),
            ("russia_ukraine_added", 1), ("next_card", 6), ("spare_scoring_used",
                                                           len(c.rules.spare_scoring)),
        ]
        self.layout: dict[str, slice] = {}
        start = 0
        for name, size in sizes:
            self.layout[name] = slice(start, start + size)
            start += size
        self.size = start
        track_max = np.array([c.rules.social_max] * 2 + [c.rules.economy_max] * 2 + [3, 3,
                             len(c.russia_boxes), len(c.tech_boxes[0]), len(c.tech_boxes[1])],
                             dtype=np.float32)
        self._track_scale = 1.0 / track_max
        # The parts that never change during a game.
        self._static = np.zeros(self.size, dtype=np.float32)
        L = self.layout
        self._static[L["battleground"]] = c.bg
        self._static[L["stability"]] = c.stab / 5.0
        self._static[L["adjacent_usa"]] = c.adj_sp[0]
        self._static[L["adjacent_china"]] = c.adj_sp[1]
        self._kind_index = {k: i for i, k in enumerate(DECISION_KINDS)}

    def encode(self, m: Machine, p: int) -> np.ndarray:
        """The observation of player `p` (0 = US, 1 = China)."""
        s, c, L = m.s, self.c, self.layout
        o = 1 - p
        v = self._static.copy()
        us = s.inf_us.astype(np.float32)
        v[L["inf_usa"]] = np.maximum(us, 0) / INFLUENCE_SCALE
        v[L["inf_anti_us"]] = np.maximum(-us, 0) / INFLUENCE_SCALE
        v[L["inf_china"]] = s.inf_cn / INFLUENCE_SCALE
        ctrl = controllers(c, s)
        v[L["ctrl_usa"]] = ctrl == C_USA
        v[L["ctrl_china"]] = ctrl == C_CHINA
        v[L["ctrl_anti_us"]] = ctrl == C_ANTI_US
        v[L["non_realignable"]] = s.non_realignable
        v[L["tracks"]] = s.tracks * self._track_scale
        v[L["vp"]] = s.vp / 20.0
        v[L["reserves"]] = s.reserves / 10.0
        misc = s.misc
        v[L["turn"]] = misc[M_TURN] / c.rules.turns
        v[L["round"]] = misc[M_ROUND] / (c.rules.action_rounds + 1)
        v[L["phase"].start + misc[M_PHASE]] = 1.0
        if misc[M_PHASING] in (0, 1):
            v[L["phasing"].start + misc[M_PHASING]] = 1.0
        v[L["me"].start + p] = 1.0
        loc = s.card_loc
        v[L["hand"]] = loc == HAND[p]
        v[L["discard"]] = loc == DISCARD
        v[L["removed"]] = loc == REMOVED
        v[L["in_play"]] = loc == IN_PLAY
        v[L["revealed_opponent_hand"]] = s.revealed[o]  # R20: the snapshot as revealed
        v[L["own_headline"]] = loc == HEADLINE[p]
        v[L["opponent_hand_size"]] = np.count_nonzero(loc == HAND[o]) / 10.0
        v[L["own_hand_size"]] = np.count_nonzero(loc == HAND[p]) / 10.0
        pend = s.pending
        if pend is not None:
            _, player, kind, legal, ctx = pend
            v[L["to_move"]] = player == p
            v[L["decision_kind"].start + self._kind_index[kind]] = 1.0
            card = ctx.get("card", -1)
            if card >= 0:
                v[L["decision_card"].start + card] = 1.0
            v[L["decision_ops"]] = ctx.get("ops", 0) / 4.0
            if "history" in ctx:
                v[L["decision_history"].start + ctx["history"]] = 1.0
            if player == p and kind in ("place", "realign", "trade", "influence"):
                countries = np.fromiter(legal, dtype=np.int64) - m.space.country0
                v[L["decision_countries"].start + countries] = 1.0
        for name, base in (("hand_size", M_HAND_SIZE), ("improve_left", M_IMPROVE_LEFT),
                           ("tech_done", M_TECH_DONE), ("trade_done", M_TRADE_DONE),
                           ("discard_right", M_DISCARD_RIGHT), ("round8", M_ROUND8)):
            v[L[name]] = misc[base], misc[base + 1]
        v[L["hand_size"]] /= 10.0
        v[L["improve_left"]] /= 3.0
        v[L["russia_ukraine"].start + misc[M_RW_STATE]] = 1.0
        v[L["russia_ukraine_need"]] = misc[M_RW_K] / 10.0
        v[L["russia_ukraine_added"]] = misc[M_RW_ADDED] / 10.0
        v[L["next_card"]] = (misc[M_NEXT_OPS], misc[M_NEXT_OPS + 1], misc[M_NEXT_NO_EVENT],
                             misc[M_NEXT_NO_EVENT + 1], misc[M_NEXT_BOTH], misc[M_NEXT_BOTH + 1])
        v[L["spare_scoring_used"]] = s.spare_used
        return v
