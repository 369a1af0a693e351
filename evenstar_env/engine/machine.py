"""The frame machine: a stack of plain-data frames run until a player must decide.

A *frame* is a tuple ``(name, *args)``.  ``HANDLERS[name](m, frame)`` runs it;
a handler that needs a choice calls :meth:`Machine.ask` (before changing any
state, so that the frame can be re-run), and ``RESUMES[name](m, frame, action)``
continues once the player has chosen.  Frames hold only ints, strings and
tuples, so the whole machine state is copied and serialised with the arrays.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import lru_cache
from typing import Any

import numpy as np

from ..content import Content
from ..content.schema import Condition
from ..events import CODE as EV
from ..events import KINDS, decision_kinds
from . import board
from .actions import ActionSpace
from .constants import (
    C_ANTI_US,
    C_CHINA,
    C_USA,
    CHINA,
    DIPLOMACY,
    ECONOMY,
    HAND,
    IN_PLAY,
    M_COLLAPSE,
    M_DECISIONS,
    M_DIPLO_LOSER,
    M_END_FLAG,
    M_NEXT_OPS,
    M_PHASE,
    M_RESOLVING,
    M_RESPONSIBLE,
    M_ROUND,
    M_RUSSIA_DEFERRED,
    M_RW_ADDED,
    M_RW_K,
    M_RW_STATE,
    M_TECH_PAID,
    M_TURN,
    M_VP_SOURCE,
    P_OVER,
    RUSSIA,
    RW_ACTIVE,
    RW_WAITING,
    SECURITY,
    SIDES,
    SOCIAL,
    SRC_TRACK,
    TECH,
    USA,
)
from .rng import DICE, OTHER, Rng
from .state import State

Handler = Callable[["Machine", tuple], None]
Resume = Callable[["Machine", tuple, int], None]
HANDLERS: dict[str, Handler] = {}
RESUMES: dict[str, Resume] = {}
EFFECTS: dict[str, Callable[[Machine, Any, int], None]] = {}


def handler(name: str) -> Callable[[Handler], Handler]:
    def deco(fn: Handler) -> Handler:
        HANDLERS[name] = fn
        return fn
    return deco


def resume(name: str) -> Callable[[Resume], Resume]:
    def deco(fn: Resume) -> Resume:
        RESUMES[name] = fn
        return fn
    return deco


def effect(op: str) -> Callable:
    def deco(fn: Callable) -> Callable:
        EFFECTS[op] = fn
        return fn
    return deco


class Machine:
    """Runs frames; owns the state, the content and the action space."""

    def __init__(self, content: Content, state: State, events: bool = False) -> None:
        self.c = content
        self.s = state
        self.space = ActionSpace.for_content(content)
        # The event stream (evenstar_env/events.py): compact tuples, when it is on.
        self.events: list[tuple[int, ...]] | None = [] if events else None
        # Chance outcomes in order, when a caller sets a list here (paired-seed checks).
        self.trace: list[tuple[str, int]] | None = None

    # ------------------------------------------------------------ running
    def push(self, *frames: tuple) -> None:
        """Push frames so that the first given runs first."""
        self.s.stack.extend(reversed(frames))

    def push_effects(self, eids: Iterable[int], executor: int, source: int | None = None) -> None:
        """Push effects to run in order; `source` labels the VP they give (then restored).

        Effects pushed outside a resolution open one: immediate ends wait until the
        ``resolved`` frame beneath them (R24); effects pushed inside it belong to it."""
        frames = [("eff", e, executor) for e in reversed(tuple(eids))]
        if not frames:
            return
        s = self.s
        if source is not None:
            frames = [("vp_source", s.misc[M_VP_SOURCE]), *frames, ("vp_source", source)]
        if not s.misc[M_RESOLVING]:
            s.misc[M_RESOLVING] = 1
            s.stack.append(("resolved",))
        s.stack.extend(frames)

    def add_vp(self, p: int, amount: int, column: int | None, cause: int, cid: int = -1) -> None:
        """Add VP to p's counter, booked to a region column or the current source."""
        s = self.s
        s.vp[p] += amount
        if column is None:
            column = self.source_column(s.misc[M_VP_SOURCE])
        s.vp_source[p, column] += amount
        if amount:
            self.ev(EV["vp"], p, amount, s.vp[p], column, cause, cid)

    def influence(self, i: int, kind: str, points: int, cause: int, cid: int = -1) -> None:
        """Add (points > 0) or reduce (points < 0) influence of a kind (board.add/reduce)."""
        s = self.s
        us0, cn0 = int(s.inf_us[i]), int(s.inf_cn[i])
        if points > 0:
            board.add(self.c, s, i, kind, points)
        else:
            board.reduce(s, i, kind, -points)
        self._influence_event(i, kind, points, us0, cn0, cause, cid)

    def remove_influence(self, i: int, kind: str, cause: int, cid: int = -1) -> None:
        """Remove every point of a kind (board.remove_all)."""
        s = self.s
        us0, cn0 = int(s.inf_us[i]), int(s.inf_cn[i])
        gone = board.amount(s, i, kind)
        board.remove_all(s, i, kind)
        self._influence_event(i, kind, -gone, us0, cn0, cause, cid)

    def _influence_event(self, i: int, kind: str, points: int, us0: int, cn0: int, cause: int,
                         cid: int) -> None:
        s = self.s
        us1, cn1 = int(s.inf_us[i]), int(s.inf_cn[i])
        if (us0, cn0) != (us1, cn1):
            self.ev(EV["influence"], i, KINDS.index(kind), points, us0, us1, cn0, cn1, cause, cid)

    def score(self, row: int, cause: int, cid: int = -1) -> None:
        """Score a region or sub-region (row of region_names + subregion_names) now (10.1)."""
        us, cn = board.score_detail(self.c, self.s, row)
        self.ev(EV["score"], row, cause, cid, *us, *cn)
        self.add_vp(USA, us[-1], row, cause, cid)
        self.add_vp(CHINA, cn[-1], row, cause, cid)

    def set_reserves(self, p: int, value: int, cause: int, cid: int = -1) -> None:
        """Set p's reserves (an event record when they change)."""
        s = self.s
        before = int(s.reserves[p])
        s.reserves[p] = value
        if value != before:
            self.ev(EV["reserves"], p, before, value, cause, cid)

    def region_column(self, region: str) -> int:
        """The VP-source column of a region or sub-region."""
        return (self.c.region_names + self.c.subregion_names).index(region)

    def source_column(self, source: int) -> int:
        """The VP-source column of one of VP_SOURCES."""
        return len(self.c.region_names) + len(self.c.subregion_names) + source

    def ask(self, frame: tuple, player: int, kind: str, legal: Iterable[int],
            ctx: dict[str, Any] | None = None) -> None:
        legal = tuple(legal)
        if not legal:
            raise RuntimeError(f"engine bug: decision {kind!r} asked with no legal action")
        self.s.pending = (frame, player, kind, legal, ctx or {})

    def run(self) -> None:
        s = self.s
        while not s.over:
            if s.pending is not None:
                if len(s.pending[3]) != 1:
                    return
                self.apply(s.pending[3][0])  # a forced choice is taken at once
                continue
            if not s.stack:
                raise RuntimeError("engine bug: no frame left in a game that is not over")
            frame = s.stack.pop()
            HANDLERS[frame[0]](self, frame)
            if s.misc[M_END_FLAG] and not s.misc[M_RESOLVING]:
                self.check_end()
            if s.misc[M_RW_STATE] == RW_WAITING:
                self.check_ukraine()

    def apply(self, action: int) -> None:
        s = self.s
        pending = s.pending
        frame = pending[0]
        s.pending = None
        s.misc[M_DECISIONS] += 1
        if self.events is not None:
            self.ev(EV["decision"], pending[1], decision_kinds().index(pending[2]), action)
        RESUMES[frame[0]](self, frame, action)
        if s.misc[M_END_FLAG] and not s.misc[M_RESOLVING]:
            self.check_end()
        if s.misc[M_RW_STATE] == RW_WAITING:
            self.check_ukraine()

    def check_ukraine(self) -> None:
        """8.1.5: a waiting Russia-Ukraine war activates once Ukraine is not China-controlled."""
        if board.controller_of(self.c, self.s, self.c.ukraine) not in (C_CHINA, C_ANTI_US):
            self.activate_rw()

    def activate_rw(self) -> None:
        s = self.s
        s.misc[M_RW_STATE] = RW_ACTIVE
        s.misc[M_RW_K] = 1
        s.misc[M_RW_ADDED] = 0
        self.ev(EV["russia_ukraine"], 1, 1, 0)

    # ------------------------------------------------------------ helpers
    def ev(self, code: int, *fields: int) -> None:
        """Append an event record (events.EVENTS[code]'s fields) when the stream is on."""
        if self.events is not None:
            m = self.s.misc
            self.events.append((code, int(m[M_TURN]), int(m[M_ROUND]), *map(int, fields)))

    def roll(self) -> int:
        """The next die (the dice stream; forced dice first)."""
        s = self.s
        d = s.forced.pop(0) if s.forced else self.below(6, DICE) + 1
        if self.trace is not None:
            self.trace.append(("die", d))
        return d

    def below(self, n: int, stream: int = OTHER) -> int:
        """A uniform random index in [0, n) from one of the game's random streams."""
        r = Rng(self.s.rng[stream])
        x = r.below(n)
        self.s.rng[stream] = r.state
        return x

    def hand(self, p: int) -> list[int]:
        return np.flatnonzero(self.s.card_loc == HAND[p]).tolist()

    def country(self, i: int) -> str:
        return self.c.countries[i].name

    def card_name(self, i: int) -> str:
        return self.c.cards[i].name

    # ------------------------------------------------------------ tracks
    def track_max(self, t: int) -> int:
        r = self.c.rules
        if t in (SOCIAL, SOCIAL + 1):
            return r.social_max
        if t in (ECONOMY, ECONOMY + 1):
            return r.economy_max
        if t in (DIPLOMACY, SECURITY):
            return 3
        if t == RUSSIA:
            return len(self.c.russia_boxes)
        return len(self.c.tech_boxes[t - TECH])

    def move_track(self, t: int, delta: int, cause: int, cid: int = -1) -> None:
        """Move a track, clamped; flag immediate ends (R21); push box effects."""
        s = self.s
        old = int(s.tracks[t])
        lo = 0 if t in (RUSSIA, TECH, TECH + 1) else 1
        new = min(max(old + delta, lo), self.track_max(t))
        if new == old:
            return
        s.tracks[t] = new
        self.ev(EV["track"], t, old, new, cause, cid)
        if t in (SOCIAL, SOCIAL + 1, ECONOMY, ECONOMY + 1) and new == 1:
            s.misc[M_COLLAPSE + (t % 2)] = 1
            s.misc[M_END_FLAG] = 1
        elif t == DIPLOMACY and new == 1:
            s.misc[M_DIPLO_LOSER] = s.misc[M_RESPONSIBLE] + 1
            s.misc[M_END_FLAG] = 1
        elif t == RUSSIA and new > old:
            if s.misc[M_RUSSIA_DEFERRED]:  # R22: after the boxes still waiting, in order
                s.misc[M_RUSSIA_DEFERRED] += new - old
                return
            self.push_russia_boxes(old + 1, new)
        elif t in (TECH, TECH + 1):
            # A tech box pays once per game: re-entering a box left backwards pays nothing.
            p = t - TECH
            paid = max(s.misc[M_TECH_PAID + p], old)
            s.misc[M_TECH_PAID + p] = max(paid, new)
            for lvl in range(new, max(old, paid), -1):
                box = self.c.tech_boxes[p][lvl - 1]
                self.push_effects(self.c.eids(box.effects), p, SRC_TRACK)
                self.s.stack.append(("log", f"{SIDES[p]} tech: {box.name}"))

    def push_russia_boxes(self, first: int, last: int) -> None:
        """Push the effects of Russia boxes `first`..`last` to run in order, each with China
        as executor (R17)."""
        for lvl in range(last, first - 1, -1):
            box = self.c.russia_boxes[lvl - 1]
            self.push_effects(self.c.eids(box.effects), CHINA, SRC_TRACK)
            self.s.stack.append(("log", f"Russia track: {box.name}"))

    def check_end(self) -> None:
        """End the game on the loss conditions met since the last check; if both players
        met one, the game is a draw (R21, R24, 10.3.2)."""
        s = self.s
        s.misc[M_END_FLAG] = 0
        if s.over:
            return
        reasons: dict[int, str] = {}
        for p in (USA, CHINA):
            if s.misc[M_COLLAPSE + p]:
                reasons[p] = f"{SIDES[p]} social or economy collapse"
        if s.misc[M_DIPLO_LOSER]:
            loser = s.misc[M_DIPLO_LOSER] - 1
            reasons.setdefault(loser, f"diplomacy at 1 (total war) caused by {SIDES[loser]}")
        if len(reasons) == 2:
            self.finish(None, f"both sides lost at once: {reasons[USA]}; {reasons[CHINA]}")
        elif reasons:
            (loser, reason), = reasons.items()
            self.finish(1 - loser, reason)

    def finish(self, winner: int | None, reason: str) -> None:
        s = self.s
        s.result = (winner, reason)
        s.over = True
        s.stack.clear()
        s.pending = None
        s.misc[M_PHASE] = P_OVER
        if self.events is not None:
            from ..native.frames import reason_code

            self.ev(EV["game_end"], -1 if winner is None else winner, *reason_code(reason))

    # ------------------------------------------------------------ cards
    def modified_ops(self, card: int, p: int, next_plus: bool = False) -> int:
        """Ops of a card played by `p` (7.3, R4); scoring cards have 0."""
        printed = int(self.c.card_ops[card])
        return 0 if printed == 0 else self.ops_for(printed, p, next_plus)

    def ops_for(self, printed: int, p: int, next_plus: bool = False) -> int:
        """Ops value for `p`: reductions, then increases, clamped 1..4 (7.3, 7.3.1, 7.7)."""
        down = up = 0
        loc = self.s.card_loc
        for i, mods in self.c.ops_mod_cards:
            if loc[i] == IN_PLAY:
                d = mods[p]
                if d < 0:
                    down += d
                else:
                    up += d
        if next_plus:
            up += 1
        return min(max(max(printed + down, 1) + up, 1), 4)

    def next_plus(self, p: int) -> bool:
        return bool(self.s.misc[M_NEXT_OPS + p])

    def can_happen(self, card: int, executor: int) -> bool:
        """Whether a card's event can happen now (prerequisites, cancellations; 5.2, 7.4)."""
        s, c = self.s, self.c
        cd = c.cards[card]
        if cd.event_banned or (cd.persistent is not None and s.card_loc[card] == IN_PLAY):
            return False
        for i in c.prevented_by[card]:
            if s.card_loc[i] == IN_PLAY:
                return False
        return all(self.holds(cond, executor, card) for cond in cd.requires)

    def holds(self, cond: Condition, executor: int, playing: int = -1) -> bool:
        """Whether a condition holds; `playing` is the card being played (not "another")."""
        s, c = self.s, self.c
        side = None if cond.side is None else _rel(cond.side, executor)
        if cond.in_play is not None and s.card_loc[c.card_by_id[cond.in_play]] != IN_PLAY:
            return False
        if cond.not_in_play is not None and s.card_loc[c.card_by_id[cond.not_in_play]] == IN_PLAY:
            return False
        if cond.event_played is not None and not s.event_played[c.card_by_id[cond.event_played]]:
            return False
        not_played = cond.event_not_played
        if not_played is not None and s.event_played[c.card_by_id[not_played]]:
            return False
        if cond.turn_min is not None and s.misc[M_TURN] < cond.turn_min:
            return False
        if cond.turn_max is not None and s.misc[M_TURN] > cond.turn_max:
            return False
        if cond.controls is not None:
            code = board.controller_of(c, s, c.index[cond.controls])
            # 2.1.8.3, R2: "China-controlled" on a card includes AU control.
            if code not in ((C_USA,) if side == USA else (C_CHINA, C_ANTI_US)):
                return False
        if cond.hand_card_min_ops is not None:
            hand = (s.card_loc == HAND[side]) & (c.card_ops >= cond.hand_card_min_ops)
            if playing >= 0:
                hand[playing] = False  # 5.3: another card than the one being played
            if not hand.any():
                return False
        value = None
        if cond.track is not None:
            value = int(s.tracks[track_index(cond.track, side)])
        elif cond.count is not None:
            value = int(board.select(c, s, cond.count, executor).sum())
        if value is not None:
            if cond.min is not None and value < cond.min:
                return False
            if cond.max is not None and value > cond.max:
                return False
        return True


def _rel(side: str, executor: int) -> int:
    if side == "self":
        return executor
    if side == "opponent":
        return 1 - executor
    return USA if side == "usa" else CHINA


rel_side = _rel


def track_index(name: str, side: int | None) -> int:
    """Track index from a data name ("social", "diplomacy", ...) and a side."""
    fixed = {"diplomacy": DIPLOMACY, "regional_security": SECURITY, "russia": RUSSIA}
    if name in fixed:
        return fixed[name]
    base = {"social": SOCIAL, "economy": ECONOMY, "tech": TECH}[name]
    if side is None:
        raise ValueError(f"track {name!r} needs a side")
    return base + side


@handler("log")
def _log(m: Machine, f: tuple) -> None:
    """A track box is reached: its effects run next."""
    if m.events is not None:
        m.ev(EV["box"], *box_of_log(m.c)[f[1]])


@lru_cache(maxsize=8)
def box_of_log(c: Content) -> dict[str, tuple[int, int]]:
    """(track, level) of every track-box log frame's text."""
    out = {f"Russia track: {b.name}": (RUSSIA, k + 1) for k, b in enumerate(c.russia_boxes)}
    for p, boxes in enumerate(c.tech_boxes):
        out.update({f"{SIDES[p]} tech: {b.name}": (TECH + p, k + 1) for k, b in enumerate(boxes)})
    return out


@handler("resolved")
def _resolved(m: Machine, f: tuple) -> None:
    """The event, history outcome or phase step has finished: check ends now (R24)."""
    m.s.misc[M_RESOLVING] = 0


@handler("vp_source")
def _vp_source(m: Machine, f: tuple) -> None:
    m.s.misc[M_VP_SOURCE] = f[1]
