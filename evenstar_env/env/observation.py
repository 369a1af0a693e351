"""The observation vector of one player: what that player may know, vectorised.

The layout (named slices) is documented in docs/observation.md and available
at run time as ``ObservationEncoder.layout``; the range of every entry is
``ObservationEncoder.low`` / ``.high``, and the map features that never change
are ``ObservationEncoder.static_features``, not part of the vector.  Nothing
here depends on the opponent's hand, the draw pile, the opponent's headline
card before both are shown (4.6.F), the opponent's modifier card, or the dice
to come.  Every pending decision comes with its full context: the frame that
asks it and what its effect, card or history card is (issue 16).
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import numpy as np

from ..content import Content
from ..engine.actions import ActionSpace
from ..engine.board import control_masks
from ..engine.constants import (
    DIPLOMACY,
    DISCARD,
    H_DONE,
    HAND,
    HEADLINE,
    IN_PLAY,
    M_DISCARD_RIGHT,
    M_HAND_SIZE,
    M_HIST_DRAWN,
    M_IMPROVE_LEFT,
    M_MOD,
    M_NEXT_BOTH,
    M_NEXT_NO_EVENT,
    M_NEXT_OPS,
    M_PHASE,
    M_PHASING,
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
    MODE_ECONOMY,
    MODE_PLACE,
    MODE_REALIGN,
    MODE_SOCIAL,
    MODE_TRADE,
    MODES,
    MODIFIERS,
    PHASES,
    PLAYING,
    REMOVED,
    RUSSIA,
    SIDES,
    SOCIAL,
    USA,
)
from ..engine.machine import Machine
from ..engine.play import MODE_NAMES, risks_total_war
from .effect_features import KINDS, DecisionEffects

if TYPE_CHECKING:
    from ..game import Game

DECISION_KINDS = ("modifier", "headline", "spend", "card", "mode", "granted", "order", "place",
                  "realign", "trade", "influence", "discard", "option", "upgrade", "round8",
                  "end_discard", "ai_event", "ai_action")
COUNTRY_KINDS = ("place", "realign", "trade", "influence")
CARD_KINDS = ("card", "headline", "discard")  # legal: (some of) the own hand
INFLUENCE_SCALE = 5.0
RUSSIA_STEP = ("russia_step",)
GRANTED_MODES = tuple(MODE_NAMES.values())  # the modes an event may grant (7.3.3)
# Ops-action frames that wait on the stack while the card's event resolves (R5): mode.
_ACTION_FRAMES = {"place_start": MODE_PLACE, "realign": MODE_REALIGN, "trade": MODE_TRADE}
# Counters no rule caps are bounded by the state arrays that hold them (engine/state.py):
# influence int16, VP, reserves and the misc counters int32.
INF16, INF32 = float(np.iinfo(np.int16).max), float(np.iinfo(np.int32).max)
Writer = Callable[[np.ndarray, Machine, tuple, int], None]


SCORING_SCALE = 0.25  # a power of two: the C++ encoder's product is the same bits


def scoring_rounds_left(c: Content, round_: int) -> int:
    """The action rounds left in the turn, the current one included (at least 1): a
    player holding as many scoring cards must play one now or be caught holding one at the
    end of the turn (2.2.1.1; an extra round a card grants is not counted)."""
    return max(1, c.rules.action_rounds - int(round_) + 1)


class ObservationEncoder:
    """Encodes a game for one player into a fixed-length float32 vector."""

    def __init__(self, content: Content) -> None:
        self.c = c = content
        n, nc, nh = c.n, c.nc, c.nh
        n_spare = len(c.rules.spare_scoring)
        self.space = sp = ActionSpace.for_content(c)
        self.effects = fx = DecisionEffects(c)
        # Blocks that are written in one operation stay contiguous (see `encode`).
        sizes = [
            ("inf_usa", n), ("inf_china", n), ("inf_anti_us", n),
            ("ctrl_usa", n), ("ctrl_china", n), ("ctrl_anti_us", n), ("non_realignable", n),
            ("hand", nc), ("discard", nc), ("removed", nc), ("in_play", nc), ("own_headline", nc),
            ("playing", nc), ("opponent_headline", nc), ("event_played", nc), ("history_done", nh),
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
            ("russia_deferred", len(c.russia_boxes)), ("history_turn", nh), ("tech_paid", 2),
            # The public record.
            ("responsible", 2), ("result", 3), ("russia_steps_pending", 1),
            ("own_modifier", len(MODIFIERS)),
            # The card play in progress.
            ("action_mode", len(MODES)), ("action_ops", 1), ("event_to_come", 1),
            # The context of the pending decision.
            ("legal_choices", sp.n - sp.mode0), ("decision_executor", 2),
            ("decision_candidates", n), ("decision_chosen", n),
            ("source_card", nc), ("source_history", nh), ("source_history_outcome", 4),
            ("source_track", len(fx.track_names)), ("source_rank", fx.n_ranks),
            ("influence_verb", 2), ("influence_kind", len(KINDS)), ("influence_left", 1),
            ("influence_points", 1), ("influence_cap", 1), ("influence_max_countries", 1),
            ("influence_lump", 1),
            ("discard_side", 2), ("discard_left", 1), ("discard_min_ops", 1),
            ("granted_modes", len(GRANTED_MODES)),
            ("option_effects", fx.option_slots * len(fx.option_features)),
            ("option_places", fx.option_slots * n),
            # Scoring cards in one's own hand, and whether they fill the action rounds left.
            ("scoring_held", 1), ("scoring_due", 1),
        ]
        self.layout: dict[str, slice] = {}
        start = 0
        for name, size in sizes:
            self.layout[name] = slice(start, start + size)
            start += size
        self.size = start
        L = self.layout
        self._board = slice(L["inf_usa"].start, L["non_realignable"].stop)
        self._cards = slice(L["hand"].start, L["history_done"].stop)
        self._opp_headline = L["opponent_headline"]
        self._chosen, self._candidates = L["decision_chosen"], L["decision_candidates"]
        self._options, self._places = L["option_effects"], L["option_places"]
        self._numbers = slice(L["tracks"].start, L["own_hand_size"].stop)
        self._pick_params = slice(L["influence_points"].start, L["influence_lump"].stop)
        self._card_codes = [np.array([[HAND[p]], [DISCARD], [REMOVED], [IN_PLAY], [HEADLINE[p]],
                                      [PLAYING], [HEADLINE[1 - p]]]) for p in (0, 1)]
        track_max = [c.rules.social_max] * 2 + [c.rules.economy_max] * 2 + [
            3, 3, len(c.russia_boxes), len(c.tech_boxes[0]), len(c.tech_boxes[1])]
        # Scale of every value of the "numbers" block, in order.
        self._number_scale = np.array(
            [1 / t for t in track_max] + [1 / 20] * 2 + [1 / 10] * 2 + [1 / 10] * 2
            + [1 / 3] * 2 + [1.0] * 14 + [1 / 10] * 2 + [1 / c.rules.turns]
            + [1 / (c.rules.action_rounds + 1)] + [1 / 10] * 2, dtype=np.float32)
        assert self._number_scale.size == self._numbers.stop - self._numbers.start
        # The map features that never change: a block of their own, not in the vector.
        self.static_features: dict[str, np.ndarray] = {
            "battleground": c.bg.astype(np.float32), "stability": c.stab / np.float32(5.0),
            "adjacent_usa": c.adj_sp[0].astype(np.float32),
            "adjacent_china": c.adj_sp[1].astype(np.float32)}
        for arr in self.static_features.values():
            arr.setflags(write=False)
        self._kind_index = {k: i for i, k in enumerate(DECISION_KINDS)}
        self._board_cache: tuple[bytes, np.ndarray] | None = None
        self._inf_scale = np.repeat(np.array([1, 1, -1], dtype=np.float32) / INFLUENCE_SCALE, n)
        self._at = {k: sl.start for k, sl in L.items()}  # start index of every field
        self._revealed, self._spare = L["revealed_opponent_hand"], L["spare_scoring_used"]
        # The per-turn counters of the "numbers" block, in layout order.
        self._tech_boxes = [len(c.tech_boxes[0]), len(c.tech_boxes[1])]
        self._misc_numbers = operator.itemgetter(
            *(base + k for base in (M_HAND_SIZE, M_IMPROVE_LEFT, M_TECH_DONE, M_TRADE_DONE,
                                    M_DISCARD_RIGHT, M_ROUND8, M_NEXT_OPS, M_NEXT_NO_EVENT,
                                    M_NEXT_BOTH) for k in (0, 1)),
            M_RW_K, M_RW_ADDED, M_TURN, M_ROUND)
        self._cards_cache: dict[int, tuple[tuple[bytes, ...], tuple[np.ndarray, int, int]]] = {}
        # The only cards whose event can cost diplomacy levels (9.2.3, R7).
        self._threat_cards = [int(k) for k in np.flatnonzero(c.card_diplomacy_threat)]
        self._scoring_cards = np.flatnonzero(c.card_scoring)
        self._decision_tables()
        self._bounds(track_max)

    def _decision_tables(self) -> None:
        """Per asking effect, the indices its source sets and its pick parameters."""
        c, fx, at = self.c, self.effects, self._at
        self._source_at: dict[int, np.ndarray] = {}
        for eid, (kind, index, rank) in fx.source.items():
            if kind == "card":
                idx = [at["source_card"] + index]
            elif kind == "history":
                idx = [at["source_history"] + index // 4, at["source_history_outcome"] + index % 4]
            else:
                idx = [at["source_track"] + fx.track_source(eid)]
            self._source_at[eid] = np.array(idx + [at["source_rank"] + rank])
        self._params = {eid: fx.pick_params(eid, c.effects[eid]) for eid in fx.source
                        if c.effects[eid].op in ("add_influence", "reduce_influence")}
        discards = [e for e in c.effects if e.op == "discard"]
        self._discard_scale = 1 / max((e.count for e in discards), default=1)
        self._granted_at = {mode: at["granted_modes"] + k for k, mode in enumerate(GRANTED_MODES)}
        self._context: dict[str, Writer] = {
            "influence": self._influence, "option": self._option, "discard": self._discard,
            "order": self._order, "place": self._place, "realign": self._allowed,
            "trade": self._allowed, "granted": self._granted, "modifier": self._modifier}

    def _bounds(self, track_max: list[int]) -> None:
        """`low` and `high`: the range of every entry (one-hots and flags 0..1)."""
        c, L = self.c, self.layout
        low = np.zeros(self.size, dtype=np.float32)
        high = np.ones(self.size, dtype=np.float32)
        high[slice(L["inf_usa"].start, L["inf_anti_us"].stop)] = INF16 / INFLUENCE_SCALE
        vp_low = 0 if all(e.amount >= 0 for e in c.effects if e.op == "vp") else -INF32
        # Raw ranges of the "numbers" block, in order (tracks: lowest level 1, 0 for
        # Russia and tech; 9.1.3, 9.2, 8.1.1).
        raw_low = [1] * 6 + [0] * 3 + [vp_low] * 2 + [0] * 22 + [1, 0, 0, 0]
        raw_high = (track_max + [INF32] * 4 + [max(z.hand for z in c.raw.tracks.social)] * 2
                    + [int(c.improve_attempts.max())] * 2 + [1] * 14
                    + [c.rules.turns, INF32, c.rules.turns, c.rules.action_rounds + 1, c.nc,
                       c.nc])
        low[self._numbers] = np.array(raw_low, dtype=np.float32) * self._number_scale
        high[self._numbers] = np.array(raw_high, dtype=np.float32) * self._number_scale
        high[L["scoring_held"]] = len(self._scoring_cards) * SCORING_SCALE
        low[L["option_effects"]] = self.effects.option_low
        high[L["option_effects"]] = self.effects.option_high
        self.low, self.high = low, high
        for arr in (low, high):
            arr.setflags(write=False)

    def _board_block(self, s: Any) -> np.ndarray:
        """Influence, control and ⊗ marks (the same for both players)."""
        key = s.inf_us.tobytes() + s.inf_cn.tobytes() + s.non_realignable.tobytes()
        if self._board_cache is not None and self._board_cache[0] == key:
            return self._board_cache[1]
        n = self.c.n
        block = np.empty(7 * n, dtype=np.float32)
        inf = block[: 3 * n]
        # US markers are the positive part of inf_us, anti-US markers the negative part.
        np.maximum(s.inf_us, 0, out=inf[:n])
        inf[n: 2 * n] = s.inf_cn
        np.minimum(s.inf_us, 0, out=inf[2 * n:])
        inf *= self._inf_scale
        inf += 0.0  # turns the -0.0 of the anti-US row into 0.0
        for row, mask in enumerate(control_masks(self.c, s), start=3):
            block[row * n: (row + 1) * n] = mask
        block[6 * n:] = s.non_realignable
        self._board_cache = (key, block)
        return block

    def _cards_block(self, s: Any, p: int) -> tuple[np.ndarray, int, int]:
        """Own hand, discard, removed, in play, own headline, being played, the opponent's
        headline, events played, history cards resolved (as seen by `p`), and the numbers
        of cards in the opponent's hand and in `p`'s own hand."""
        key = (s.card_loc.tobytes(), s.event_played.tobytes(), s.hist_loc.tobytes())
        hit = self._cards_cache.get(p)
        if hit is not None and hit[0] == key:
            return hit[1]
        where = s.card_loc == self._card_codes[p]
        nc = where.shape[1]
        block = np.empty(self._cards.stop - self._cards.start, dtype=np.float32)
        block[: where.size] = where.ravel()
        block[where.size: where.size + nc] = s.event_played
        block[where.size + nc:] = s.hist_loc == H_DONE
        value = (block, int(np.count_nonzero(s.card_loc == HAND[1 - p])),
                 int(np.count_nonzero(where[0])))
        self._cards_cache[p] = (key, value)
        return value

    def encode(self, m: Machine, p: int) -> np.ndarray:
        """The observation of player `p` (0 = US, 1 = China)."""
        native = getattr(m, "observe", None)  # the native core encodes in C++ (docs/native.md)
        if native is not None:
            return native(p)
        s, at = m.s, self._at
        o = 1 - p
        v = np.zeros(self.size, dtype=np.float32)
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
        for side in (0, 1):  # tech boxes already paid: re-entering them pays nothing
            v[at["tech_paid"] + side] = misc[M_TECH_PAID + side] / self._tech_boxes[side]
        held = int(np.count_nonzero(s.card_loc[self._scoring_cards] == HAND[p]))
        v[at["scoring_held"]] = held * SCORING_SCALE
        v[at["scoring_due"]] = held > 0 and held >= scoring_rounds_left(self.c, misc[M_ROUND])
        self._record(v, s)
        pend = s.pending
        if pend is not None:
            if pend[2] == "headline":  # the opponent's card stays secret until both are chosen
                v[self._opp_headline] = 0.0  # (4.6.F: both headlines are shown together)
            frame, player, kind, legal, ctx = pend
            v[at["to_move"]] = player == p
            v[at["decision_kind"] + self._kind_index[kind]] = 1.0
            card = ctx.get("card", -1)
            if card >= 0:
                v[at["decision_card"] + card] = 1.0
                v[at["decision_card_war_risk"]] = risks_total_war(m, card, p)
            v[at["decision_ops"]] = ctx.get("ops", 0) / 4.0
            if "history" in ctx:
                v[at["decision_history"] + ctx["history"]] = 1.0
            if player == p:
                if kind in COUNTRY_KINDS:
                    actions = np.fromiter(legal, dtype=np.int64, count=len(legal))
                    v[at["decision_countries"] - m.space.country0 + actions] = 1.0
                elif kind not in CARD_KINDS or legal[-1] >= m.space.mode0:
                    # The MODE .. DONE groups (a card decision may also offer NO: pay-to-fire).
                    base, mode0 = at["legal_choices"] - m.space.mode0, m.space.mode0
                    for a in legal:
                        if a >= mode0:
                            v[base + a] = 1.0
            write = self._context.get(kind)
            if write is not None:
                write(v, m, frame, p)
        return v

    # ------------------------------------------------------------ public record
    def _record(self, v: np.ndarray, s: Any) -> None:
        """Who answers for a total war (R21), the result, and what the frame stack holds for
        the card play in progress."""
        at = self._at
        if s.misc[M_RESPONSIBLE] in (0, 1):
            v[at["responsible"] + s.misc[M_RESPONSIBLE]] = 1.0
        if s.result is not None:
            v[at["result"] + (2 if s.result[0] is None else s.result[0])] = 1.0
        stack = s.stack
        steps = stack.count(RUSSIA_STEP)  # Russia cards' steps still to resolve (7.6, R5)
        if steps:
            v[at["russia_steps_pending"]] = steps / len(self.c.russia_boxes)
        for f in reversed(stack):  # down to the card play in progress
            name = f[0]
            if name == "card_done":
                break
            if name == "event":
                v[at["event_to_come"]] = 1.0
            elif name in _ACTION_FRAMES or name == "improve":
                self._action(v, f)

    def _action(self, v: np.ndarray, f: tuple) -> None:
        """The ops action of a card play: its mode and ops."""
        if f[0] == "improve":
            mode, ops = (MODE_SOCIAL if f[2] == SOCIAL else MODE_ECONOMY), f[3]
        else:
            mode, ops = _ACTION_FRAMES[f[0]], f[2]
        v[self._at["action_mode"] + mode] = 1.0
        v[self._at["action_ops"]] = ops / 4.0

    # ------------------------------------------------------------ decision context
    def _source(self, v: np.ndarray, eid: int, executor: int) -> None:
        v[self._source_at[eid]] = 1.0
        v[self._at["decision_executor"] + executor] = 1.0

    def _influence(self, v: np.ndarray, m: Machine, f: tuple, p: int) -> None:
        """An influence pick: ("pick", effect, executor, kind, left, candidates, chosen)."""
        _, eid, executor, kind, left, cands, chosen = f
        at, scale = self._at, 1.0 / self.effects.max_points
        self._source(v, eid, executor)
        v[at["influence_verb"] + (m.c.effects[eid].op == "reduce_influence")] = 1.0
        v[at["influence_kind"] + KINDS.index(kind)] = 1.0
        v[at["influence_left"]] = left * scale
        v[self._pick_params] = self._params[eid]
        v[at["decision_candidates"] + np.fromiter(cands, np.int64, len(cands))] = 1.0
        if chosen:
            counts = np.bincount(chosen, minlength=self.c.n)
            v[self._chosen] = counts * scale

    def _option(self, v: np.ndarray, m: Machine, f: tuple, p: int) -> None:
        """An event's branch: ("choice", effect, executor)."""
        _, eid, executor = f
        self._source(v, eid, executor)
        v[self._options] = self.effects.options[eid][executor]
        v[self._places] = self.effects.option_places[eid]

    def _discard(self, v: np.ndarray, m: Machine, f: tuple, p: int) -> None:
        """A discard: ("discard", effect, executor, whose hand, cards left), or the price of
        a pay-to-fire event: ("pay", card, its owner, the player who played it)."""
        at = self._at
        if f[0] == "pay":
            _, card, owner, _player = f
            v[at["source_card"] + card] = 1.0
            v[at["discard_side"] + owner] = 1.0
            v[at["discard_left"]] = self._discard_scale
            v[at["discard_min_ops"]] = m.c.cards[card].pay_discard / 4.0
            return
        _, eid, executor, side, left = f
        self._source(v, eid, executor)
        v[at["discard_side"] + side] = 1.0
        v[at["discard_left"]] = left * self._discard_scale
        v[at["discard_min_ops"]] = m.c.effects[eid].min_ops / 4.0

    def _order(self, v: np.ndarray, m: Machine, f: tuple, p: int) -> None:
        """Event first or action first (R5): ("order", player, card, executor, action)."""
        v[self._at["decision_executor"] + f[3]] = 1.0
        self._action(v, f[4])

    def _place(self, v: np.ndarray, m: Machine, f: tuple, p: int) -> None:
        """A placement point: ("place", player, ops left, eligible countries fixed at the
        start, R3)."""
        v[self._at["decision_candidates"] + np.fromiter(f[3], np.int64, len(f[3]))] = 1.0

    def _allowed(self, v: np.ndarray, m: Machine, f: tuple, p: int) -> None:
        """Realign or trade: (name, player, ops, countries an event allows or None)."""
        allowed = f[-1]
        if allowed is None:
            v[self._candidates] = 1.0
        else:
            v[self._at["decision_candidates"] + np.fromiter(allowed, np.int64, len(allowed))] = 1

    def _granted(self, v: np.ndarray, m: Machine, f: tuple, p: int) -> None:
        """An event's ops action (7.3.3): ("ops_mode", player, ops, modes, allowed)."""
        for mode in f[3]:
            v[self._granted_at[mode]] = 1.0
        self._allowed(v, m, f, p)

    def _modifier(self, v: np.ndarray, m: Machine, f: tuple, p: int) -> None:
        """("modifier", history card, chooser): the US chooses first; it sees its own card."""
        if p == USA and f[2] != USA:
            v[self._at["own_modifier"] + m.s.misc[M_MOD]] = 1.0


@lru_cache(maxsize=4)
def encoder_for(content: Content) -> ObservationEncoder:
    """The (cached) encoder of a content set."""
    return ObservationEncoder(content)


def observe(game: Game, side: str) -> np.ndarray:
    """The observation vector of `side` ("usa" or "china") in `game`."""
    return encoder_for(game.content).encode(game._m, SIDES.index(side))
