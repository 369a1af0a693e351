"""The public game API: :class:`Game`, :class:`Decision`, :class:`IllegalActionError`."""

from __future__ import annotations

import difflib
import operator
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from .content import ContentSpec, as_content, fingerprint, load_content
from .engine import board
from .engine import effects as _effects  # noqa: F401  (registers effect handlers)
from .engine import play as _play  # noqa: F401  (registers action-round handlers)
from .engine import turn as _turn  # noqa: F401  (registers turn handlers)
from .engine.constants import (
    CHINA,
    CONTROLLER_NAMES,
    DRAW,
    ECONOMY,
    H_DECK,
    H_OUT,
    HAND,
    HEADLINE,
    HEADLINE_CHINA,
    HEADLINE_USA,
    M_DECISIONS,
    M_HEADLINE,
    M_MOD,
    M_NEXT_NO_EVENT,
    M_PHASE,
    M_ROUND,
    M_TURN,
    MODES,
    MODIFIERS,
    N_OPTIONS,
    OUT,
    PHASES,
    PLAYING,
    REMOVED,
    SIDES,
    SOCIAL,
    SPENDS,
    TRACK_NAMES,
    USA,
    VP_SOURCES,
)
from .engine.machine import Machine
from .engine.rng import Rng, seed_streams
from .engine.state import State
from .snapshot import (
    FORMAT_VERSION,
    SnapshotError,
    check_seed,
    load_snapshot,
    new_state,
    track_bounds,
)

__all__ = ["FORMAT_VERSION", "Decision", "Game", "IllegalActionError", "Result",
           "SnapshotError", "UnknownNameError"]

# The scenario setters' ceiling for influence and reserves: far inside the int16/int32
# counters, so that play can still add to them (a whole game adds a few hundred at most).
SCENARIO_MAX = 999


class IllegalActionError(ValueError):
    """An action that is not legal for the pending decision."""


class UnknownNameError(KeyError, ValueError):
    """A side, country, card, track, mode or other name that does not exist."""

    def __str__(self) -> str:  # KeyError would quote the whole message
        return str(self.args[0]) if self.args else ""


class Result(NamedTuple):
    winner: str | None  # "usa", "china" or None for a draw
    reason: str


DECISION_TEXT = {
    "modifier": "choose a modifier card for history event '{history}'",
    "headline": "choose a headline card",
    "spend": "spend foreign reserves, or go on to play a card",
    "card": "choose a card to play",
    "mode": "choose how to play '{card}' ({ops} ops)",
    "granted": "choose the action an event grants ({ops} ops)",
    "order": "event of '{card}' before or after the action",
    "place": "place influence ({ops} ops left)",
    "realign": "choose a realignment target ({ops} ops)",
    "trade": "choose a trade contest target ({ops} ops)",
    "influence": "choose where to {verb} {kind} influence ({left} left)",
    "discard": "choose a card to discard",
    "option": "choose an option of the event",
    "upgrade": "pay to upgrade the economy?",
    "round8": "take an 8th action round?",
    "end_discard": "discard a card at the end of the turn, or pass",
    "ai_event": "General AI: carry out the event of '{card}' before or after the action, or not",
    "ai_action": "General AI: also take an action with '{card}' ({ops} ops), or not",
}


@dataclass(frozen=True)
class Decision:
    """The decision pending: who decides, what kind, the legal actions and context."""

    player: str
    kind: str
    legal: tuple[int, ...]
    context: dict[str, Any]
    text: str

    def __str__(self) -> str:
        return f"{self.player}: {self.text}"


class Game:
    """One game of Dawn of the Evenstar, from setup to the end (docs/rules.md).

    ``Game(seed)`` sets up the board (3.1-3.7) and runs to the first decision.
    ``backend`` is ``"python"`` (the reference engine) or ``"native"`` (the C++ core,
    bit-identical); None is the default of ``evenstar_env.native`` (Python with ``log``).
    ``events=True`` records the event stream (`events`, docs/events.md); ``log=True``
    too, and `log` renders it as text lines.

    `seed` is an integer in 0..2**64-1 (a Python or numpy integer; strings, floats
    and bools raise TypeError, values outside the range ValueError).  It seeds the
    game's three independent random streams, dice, deck and other chance events
    (engine/rng.py): their states are the first three outputs of SplitMix64
    started at ``seed * 0x2545F4914F6CDD1D + 0x1234567 (mod 2**64)``.  The
    multiplier is odd, so this map is one-to-one on 0..2**64-1: two different
    seeds never share their streams (negative or larger seeds would alias modulo
    2**64, hence they are refused).  ``seed`` is kept as an attribute by
    `clone` and `to_dict`/`from_dict` (None for a game made from a snapshot
    that stored none); scenario setters and `resample_hidden` change a game without
    changing its seed.
    """

    backend = "python"

    def __new__(cls, seed: int = 0, *, backend: str | None = None, log: bool = False,
                events: bool = False, _state: State | None = None, **kw: Any) -> Game:
        if cls is Game and _state is None and not (log and backend is None):
            from . import native

            if native.resolve(backend) == "native":
                from .native.game import NativeGame

                return object.__new__(NativeGame)
        elif backend is not None:
            from . import native

            native.resolve(backend)
        return object.__new__(cls)

    def __init__(self, seed: int = 0, *, content: ContentSpec = None, log: bool = False,
                 events: bool = False, _state: State | None = None,
                 backend: str | None = None) -> None:
        self.content = as_content(content)
        c = self.content
        if _state is not None:  # from clone / from_dict, which set the seed themselves
            self.seed: int | None = None
            self._m = Machine(c, _state, log or events)
            return
        self.seed = check_seed(seed)
        s = new_state(c)
        self._m = Machine(c, s, log or events)
        s.rng = seed_streams(self.seed)
        self._setup()
        self._m.run()

    # ------------------------------------------------------------ setup
    def _setup(self) -> None:
        s, c = self._m.s, self.content
        setup = c.raw.setup
        for name, pts in setup.china.items():
            s.inf_cn[c.index[name]] = pts
        for name, pts in setup.anti_us.items():
            s.inf_us[c.index[name]] -= pts
        for name, pts in setup.usa.items():
            board.add(c, s, c.index[name], "usa", pts)
        s.non_realignable[:] = c.non_realignable0
        r = c.rules
        for p in (USA, CHINA):
            s.tracks[SOCIAL + p] = r.start_social[SIDES[p]]
            s.tracks[ECONOMY + p] = r.start_economy[SIDES[p]]
            s.reserves[p] = r.start_reserves[SIDES[p]]
        s.tracks[4] = r.start_diplomacy
        s.tracks[5] = r.start_security
        s.card_loc[:] = np.where(c.card_era == 0, DRAW, OUT)
        s.card_loc[[card.out_of_game for card in c.cards]] = REMOVED  # a rule variant
        s.hist_loc[:] = [H_DECK if (e == 0 and sp is None) else H_OUT
                         for e, sp in zip(c.hist_era, c.hist_special, strict=True)]
        s.misc[M_TURN] = 1
        s.misc[M_HEADLINE] = s.misc[M_HEADLINE + 1] = -1
        s.stack.append(("turn",))

    # ------------------------------------------------------------ state
    @property
    def state(self) -> State:
        return self._m.s

    @property
    def num_actions(self) -> int:
        return self._m.space.n

    @property
    def current_player(self) -> str | None:
        p = self._m.s.pending
        return None if p is None else SIDES[p[1]]

    @property
    def decision(self) -> Decision | None:
        p = self._pending()
        if p is None:
            return None
        _, player, kind, legal, ctx = p
        fmt = {k: (self.content.cards[v].name if k == "card" and v >= 0 else v)
               for k, v in ctx.items()}
        if "history" in fmt:
            fmt["history"] = self.content.history[fmt["history"]].name
        return Decision(SIDES[player], kind, legal, dict(ctx),
                        DECISION_TEXT[kind].format_map(_Default(fmt)))

    def _decision_key(self) -> tuple[int, Any] | None:
        """Who decides and what kind of decision (None when none is pending), without
        building the Decision: what a seat sees of the opponent's pending decision."""
        p = self._m.s.pending
        return None if p is None else (p[1], p[2])

    def _pending(self) -> tuple | None:
        """The pending decision's tuple (the native core leaves its frame out: None)."""
        return self._m.s.pending

    def action_id(self, group: str, which: str | int | None = None) -> int:
        """The id of an action by name: ``("card", "<card name>")``, ``("country", "Iran")``,
        ``("mode", "realign")``, ``("order", "event_first"|"action_first")``,
        ``("mod", "plus1")``, ``("spend", "tech")``, ``("option", 1)``, ``("yes")``,
        ``("no")``, ``("done")``."""
        sp = self._m.space
        if group in ("yes", "no", "done"):
            return getattr(sp, group)
        if group == "card":
            return sp.card0 + self._card(which)
        if group == "country":
            return sp.country0 + self._country(which)
        if group == "mode":
            return sp.mode0 + _pick("mode", which, MODES)
        if group == "order":
            return sp.order0 + _pick("order", which, ("event_first", "action_first"))
        if group == "mod":
            return sp.mod0 + _pick("modifier", which, [k for k, _ in MODIFIERS])
        if group == "spend":
            return sp.spend0 + _pick("spend", which, SPENDS)
        if group == "option":
            return sp.option0 + _pick("option", which, range(N_OPTIONS))
        raise UnknownNameError(f"unknown action group {group!r}; one of card, country, mode, "
                               f"order, mod, spend, option, yes, no, done")

    def action_group(self, action: int) -> tuple[str, int]:
        """The group of an action id and its index in it, e.g. ``("country", 12)``."""
        return self._m.space.group(int(action))

    def legal_actions(self) -> np.ndarray:
        p = self._m.s.pending
        return np.array(p[3] if p else (), dtype=np.int64)

    def action_mask(self) -> np.ndarray:
        mask = np.zeros(self.num_actions, dtype=bool)
        p = self._m.s.pending
        if p:
            mask[list(p[3])] = True
        return mask

    def step(self, action: int) -> None:
        """Apply a legal action of the pending decision and run to the next decision."""
        m = self._m
        p = m.s.pending
        try:
            a = operator.index(action)
        except TypeError:
            raise IllegalActionError(f"action {action!r} is not an integer") from None
        if p is None:
            raise IllegalActionError(f"the game is over; action {a} cannot be applied")
        if not 0 <= a < m.space.n:
            raise IllegalActionError(f"action {a} is outside the action space 0..{m.space.n - 1}")
        if a not in p[3]:
            raise IllegalActionError(
                f"action {a} ({self._describe_raw(a)}) is not legal for the decision "
                f"'{self.decision}'; legal: {list(p[3])}")
        m.apply(a)
        m.run()

    def describe_action(self, action: int) -> str:
        """Human-readable text of an action, in the context of the pending decision."""
        return self._describe_raw(int(action))

    def _describe_raw(self, a: int) -> str:
        c, sp = self.content, self._m.space
        group, k = sp.group(a)
        p = self._m.s.pending
        ctx = p[4] if p else {}
        kind = p[2] if p else ""
        card = c.cards[ctx["card"]].name if ctx.get("card", -1) >= 0 else None
        if group == "card":
            verb = {"headline": "Headline", "discard": "Discard",
                    "end_discard": "Discard"}.get(kind, "Play")
            cd = c.cards[k]
            return f"{verb} '{cd.name}' ({cd.side}, {cd.ops} ops)"
        if group == "country":
            name = c.countries[k].name
            if kind == "place":
                cost = board.placement_cost(c, self._m.s, USA if p[1] == USA else CHINA, k)
                return f"Place 1 influence in {name} (cost {cost})"
            if kind == "influence":
                return f"{ctx['verb'].capitalize()} 1 {ctx['kind']} influence in {name}"
            return f"{kind.capitalize()} {name}" + (f" with '{card}'" if card else "")
        if group == "mode":
            text = {"event": "as event", "place": "for ops: place influence",
                    "realign": "for ops: realignment", "improve_social": "to improve social",
                    "improve_economy": "to improve economy", "trade": "for a trade contest",
                    "tech": "for tech race" if p and p[1] == CHINA else "for sabotage"}[MODES[k]]
            if kind == "ai_action":
                return f"Also use '{card}' {text}"
            return f"Play '{card}' {text}" if card else f"Action: {text}"
        if group == "order":
            return f"'{card}': " + ("event first, then the action" if k == 0
                                    else "action first, then the event")
        if group == "mod":
            return f"Modifier card {MODIFIERS[k][0]}"
        if group == "spend":
            return f"Spend reserves: {SPENDS[k]}"
        if group == "option":
            options = getattr(c.effects[ctx["eff"]], "options", ()) if "eff" in ctx else ()
            label = options[k].label if k < len(options) else k  # any effect: illegal ids too
            return f"Option: {label}"
        if group == "no" and kind == "ai_event":
            return f"No: '{card}' is used for the action only"
        if group == "no" and kind == "ai_action":
            return f"No: '{card}' is used for its event only"
        if group in ("yes", "no"):
            return group.capitalize()
        return "Pass" if kind == "end_discard" else "Done: go on to play a card"

    # ------------------------------------------------------------ copying
    def __reduce__(self) -> tuple:
        """Pickling and deepcopy: the backend, then the game's own state (`__getstate__`);
        unpickling makes a game of that backend (not the default one)."""
        return (_unpickle, (self.backend, self.__getstate__()))

    def __getstate__(self) -> dict[str, Any]:
        """The default content is stored by reference (loaded again); the event stream (and
        so the log) is kept."""
        content = None if self.content is load_content() else self.content
        events = self._event_tuples()
        return {"content": content, "seed": self.seed, "state": self._m.s.copy(),
                "events": None if events is None else list(events)}

    def __setstate__(self, d: dict[str, Any]) -> None:
        self.content = d["content"] or load_content()
        self.seed = d["seed"]
        self._m = Machine(self.content, d["state"])
        if d.get("events") is not None:
            self.start_events()
            self._m.events.extend(d["events"])

    def clone(self) -> Game:
        """An independent copy (same seed, same state; no log)."""
        g = object.__new__(Game)
        g.content = self.content
        g.seed = self.seed
        g._m = Machine(self.content, self._m.s.copy(), False)
        return g

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable snapshot: format, content fingerprint, seed and state."""
        return {"format": FORMAT_VERSION, "content": fingerprint(self.content),
                "seed": self.seed, "state": self._m.s.to_dict()}

    @classmethod
    def from_dict(cls, d: dict[str, Any], content: ContentSpec = None,
                  backend: str | None = None) -> Game:
        """The game of a `to_dict` snapshot; `content` must be the content it was made with.
        ``backend`` as for ``Game()``; on ``Game`` itself None is the default backend.

        Every field is checked (types, shapes, ranges, frame names) and the pending
        decision is re-derived by the engine: a malformed or tampered snapshot raises
        :class:`SnapshotError` (a ValueError) naming the field.
        """
        content = as_content(content)
        state, seed = load_snapshot(d, content)
        if cls is Game:
            from . import native

            if native.resolve(backend) == "native":
                from .native.game import NativeGame

                g = NativeGame.load(content, state.to_dict())
                g.seed = seed
                return g
        g = cls(content=content, _state=state)
        g.seed = seed
        return g

    # ------------------------------------------------------------ status
    @property
    def is_over(self) -> bool:
        return self._m.s.over

    @property
    def result(self) -> Result | None:
        r = self._m.s.result
        return None if r is None else Result(None if r[0] is None else SIDES[r[0]], r[1])

    def returns(self) -> dict[str, float]:
        """The result per side: +1 win, -1 loss, 0 draw; 0 for both while the game runs
        (also when an env truncates it: a cut-off game has no winner)."""
        r = self._m.s.result
        if r is None or r[0] is None:
            return {"usa": 0.0, "china": 0.0}
        return {side: 1.0 if p == r[0] else -1.0 for p, side in enumerate(SIDES)}

    @property
    def vp(self) -> dict[str, int]:
        return {"usa": int(self._m.s.vp[USA]), "china": int(self._m.s.vp[CHINA])}

    def vp_by_source(self) -> dict[str, dict[str, int]]:
        """VP gained so far by source: each region and sub-region, then event, history,
        track, economy, ukraine_war, final_social, final_economy."""
        names = self.content.region_names + self.content.subregion_names + list(VP_SOURCES)
        s = self._m.s
        return {side: {n: int(s.vp_source[p, k]) for k, n in enumerate(names)}
                for p, side in enumerate(SIDES)}

    @property
    def reserves(self) -> dict[str, int]:
        return {"usa": int(self._m.s.reserves[USA]), "china": int(self._m.s.reserves[CHINA])}

    @property
    def turn(self) -> int:
        return self._m.s.misc[M_TURN]

    @property
    def round(self) -> int:
        """The action round (1..8), 0 outside phase G."""
        return self._m.s.misc[M_ROUND]

    @property
    def phase(self) -> str:
        return PHASES[self._m.s.misc[M_PHASE]]

    @property
    def decisions(self) -> int:
        """Number of decisions taken so far (forced ones included)."""
        return self._m.s.misc[M_DECISIONS]

    @property
    def log(self) -> list[str]:
        """The event stream rendered as English lines, "T<turn> <text>" (everything:
        an experimenter's view); empty when the stream is off (``log=True`` turns it on)."""
        from .events import render

        return [f"T{r['turn']} {render(r, self.content)}" for r in self.events("all")]

    @property
    def events_on(self) -> bool:
        """Whether this game records its event stream (``Game(..., events=True)`` or log)."""
        return self._m.events is not None

    def events(self, viewer: str | None = "all", since: int = 0) -> list[dict[str, Any]]:
        """The event records from number `since` on, filtered for `viewer` ("usa", "china",
        None: a spectator of a running game, "all": everything); docs/events.md."""
        from .events import for_viewer, to_records

        tuples = self._event_tuples()
        if tuples is None:
            return []
        since = _count(since, "since", len(tuples))
        return for_viewer(to_records(tuples[since:], since), viewer)

    def start_events(self) -> None:
        """Turn the event stream on from now (a copy, a loaded snapshot); records are
        numbered from 0 here.  Nothing happens if it is on already."""
        if self._m.events is None:
            self._m.events = []

    def _event_tuples(self) -> list[tuple[int, ...]] | None:
        return self._m.events

    # ------------------------------------------------------------ content
    @classmethod
    def countries(cls) -> list[dict[str, Any]]:
        return [{"name": c.name, "region": c.region, "subregions": list(c.subregions),
                 "stability": c.stability, "battleground": c.battleground,
                 "non_realignable": c.non_realignable} for c in load_content().countries]

    @classmethod
    def regions(cls) -> list[str]:
        c = load_content()
        return c.region_names + c.subregion_names

    @classmethod
    def cards(cls) -> list[dict[str, Any]]:
        return [{"name": c.name, "id": c.id, "era": c.era, "side": c.side, "ops": c.ops,
                 "kind": c.kind} for c in load_content().cards] + [
            {"name": h.name, "id": h.id, "era": h.era, "side": h.side, "ops": 0,
             "kind": "history"} for h in load_content().history]

    def event_can_happen(self, card: str, side: str) -> bool:
        """Whether `card`'s event could happen now if `side` played it (5.2, 7.4; not on
        the card play right after buying Super Materials, R27)."""
        i, p = self._card(card), _side(side)
        if self._m.s.misc[M_NEXT_NO_EVENT + p]:
            return False
        return self._m.can_happen(i, _play.executor_of(self._m, i, p))

    def event_risks_total_war(self, card: str, side: str) -> bool:
        """Whether `side` playing `card` now could start a total war it loses: the event
        can happen and its realignments or diplomacy losses can reach 1 (9.2.3, R7, R21)."""
        return bool(_play.risks_total_war(self._m, self._card(card), _side(side)))

    # ------------------------------------------------------------ scenarios
    # Every setter checks its arguments before changing anything; a change after
    # which the pending decision cannot be asked again is undone (ValueError).

    def _country(self, name: str) -> int:
        return self.content.index[_known("country", name, self.content.index)]

    def _card(self, name: str) -> int:
        return self.content.card_by_name[_known("card", name, self.content.card_by_name)]

    def influence(self, name: str) -> dict[str, int]:
        i, s = self._country(name), self._m.s
        return {k: board.amount(s, i, k) for k in ("usa", "china", "anti_us")}

    def set_influence(self, name: str, usa: int = 0, china: int = 0, anti_us: int = 0) -> None:
        """Set a country's influence (each 0..SCENARIO_MAX; US and AU never both, R1)."""
        i = self._country(name)
        usa, china, anti_us = (_count(v, f"{k} influence", SCENARIO_MAX) for k, v in
                               (("usa", usa), ("china", china), ("anti_us", anti_us)))
        if usa and anti_us:
            raise ValueError("US and anti-US influence never coexist (R1)")

        def change(s: State) -> None:
            s.inf_us[i] = usa - anti_us
            s.inf_cn[i] = china
        self._scenario(change)

    def controller(self, name: str) -> str | None:
        return CONTROLLER_NAMES[board.controller_of(self.content, self._m.s, self._country(name))]

    def score_region(self, region: str) -> dict[str, int]:
        region = _known("region", region, self.content.place_mask)
        u, c = board.score_region(self.content, self._m.s, region)
        return {"usa": u, "china": c}

    def track(self, name: str) -> int:
        return int(self._m.s.tracks[_track_index(name)])

    def set_track(self, name: str, value: int) -> None:
        """Set a track level within its real range (Russia and tech from 0, others from 1)."""
        t = _track_index(name)
        lo, hi = track_bounds(self._m, t)
        value = _count(value, name, hi, lo)
        self._scenario(lambda s: s.tracks.__setitem__(t, value))

    def set_reserves(self, side: str, value: int) -> None:
        """Set a side's foreign reserves (0..SCENARIO_MAX)."""
        p = _side(side)
        value = _count(value, f"{side} reserves", SCENARIO_MAX)
        self._scenario(lambda s: s.reserves.__setitem__(p, value))

    def hand(self, side: str) -> list[str]:
        return [self.content.cards[i].name for i in self._m.hand(_side(side))]

    def set_hand(self, side: str, names: Iterable[str]) -> None:
        """Put exactly the named cards in `side`'s hand; the old hand goes to the draw pile.

        A card may come from anywhere (draw pile, discards, the other hand, a later
        era), but a card in a headline slot, being played or decided on stays where it is."""
        s = self._m.s
        p = _side(side)
        if isinstance(names, str):
            raise TypeError("names must be a list of card names, not a string")
        ids = [self._card(n) for n in names]
        dup = {self.content.cards[i].name for i in ids if ids.count(i) > 1}
        if dup:
            raise ValueError(f"a card can be in a hand once: {sorted(dup)} named twice")
        new = s.card_loc.copy()
        new[new == HAND[p]] = DRAW
        new[ids] = HAND[p]
        committed = np.isin(s.card_loc, (HEADLINE_USA, HEADLINE_CHINA, PLAYING))
        if s.pending is not None and s.pending[4].get("card", -1) >= 0:
            committed[s.pending[4]["card"]] = True
        moved = [self.content.cards[i].name
                 for i in np.flatnonzero(committed & (new != s.card_loc))]
        if moved:
            raise ValueError(f"cards {moved} are committed (a headline, the card being played "
                             "or decided on) and cannot move")
        self._scenario(lambda s: s.card_loc.__setitem__(slice(None), new))

    def force_dice(self, dice: Iterable[int]) -> None:
        """The next dice rolled show these values (1..6), before the dice stream."""
        if isinstance(dice, (str, bytes)):
            raise TypeError("dice must be a list of integers")
        values = [_count(d, "a die", 6, 1) for d in dice]
        s = self._m.s
        s.forced = [*s.forced, *values]  # an assignment: the native state checks its room

    def _scenario(self, change: Callable[[State], None]) -> None:
        """Apply a checked change and re-ask the pending decision; undo it all if that fails."""
        m = self._m
        before, n_events = m.s.copy(), len(self._event_tuples() or ())
        try:
            change(m.s)
            self._refresh()
        except Exception as exc:
            self._restore(before)
            events = self._event_tuples()
            if events is not None:
                del events[n_events:]
            raise ValueError(f"this change leaves the pending decision with no way on, "
                             f"undone: {type(exc).__name__}: {exc}") from exc

    def _restore(self, before: State) -> None:
        """Put back a state copied by `_scenario` (in place: callers may hold `state`)."""
        for name in State.__slots__:
            setattr(self._m.s, name, getattr(before, name))

    def _refresh(self) -> None:
        """Re-ask the pending decision after a scenario change (its legal actions may differ)."""
        m = self._m
        if m.s.pending is not None:
            m.s.stack.append(m.s.pending[0])
            m.s.pending = None
            m.run()

    # ------------------------------------------------------------ hidden information
    def resample_hidden(self, player: str, rng: np.random.Generator | int | None = None) -> Game:
        """A copy where what `player` cannot see is redrawn consistently with what it knows.

        Redrawn: the opponent's hand (except cards revealed to `player` that are
        still there, R20, and the card it has chosen to play), the opponent's
        headline card while it is secret (until both are chosen, 4.6.F), the order
        of the draw pile (the future draws), the opponent's hidden modifier choice,
        and the future dice.  When the opponent is the one to decide, its pending
        decision is asked again on the redrawn hand, so the copy's legal actions never
        list the real hidden cards; a redrawn hand on which that decision would not be
        asked (a discard with no card to discard: `player` sees the opponent deciding)
        is drawn again (:func:`consistent_redraw`).

        The draws come from one SplitMix64 stream started at a 64-bit seed: `rng`
        itself when it is an int (0..2**64-1), one raw 64-bit draw of a numpy
        Generator's bit generator, or fresh entropy for None; both backends draw the
        same (docs/native.md, "resample_hidden").
        """
        p = _side(player)

        def redraw(seed: int) -> Game:
            g = self.clone()
            redraw_hidden(g._m, p, seed)
            return g
        return consistent_redraw(self, p, resample_seed(rng), redraw)

    def _reask_for(self, side: int) -> None:
        """Ask the pending decision again if it is `side`'s (its hidden cards were redrawn)."""
        if self.current_player == SIDES[side]:
            self._refresh()

    def __repr__(self) -> str:
        status = f"over: {self.result}" if self.is_over else str(self.decision)
        return f"<Game turn {self.turn} {self.phase} VP {self.vp} | {status}>"


def _unpickle(backend: str, state: dict[str, Any]) -> Game:
    """A game of `backend` from its `__getstate__` (see `Game.__reduce__`)."""
    if backend == "native":
        from .native.game import NativeGame

        cls: type[Game] = NativeGame
    else:
        cls = Game
    g = object.__new__(cls)
    g.__setstate__(state)
    return g


class _Default(dict):
    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


def _known(kind: str, name: Any, names: Iterable[Any]) -> Any:
    """`name` if it is one of `names`, else UnknownNameError naming it and the options."""
    options = list(names)
    try:
        if name in options:
            return name
    except TypeError:  # unhashable, uncomparable
        pass
    if len(options) <= 12:
        hint = f"one of {', '.join(map(repr, options))}"
    else:
        close = difflib.get_close_matches(str(name), [str(o) for o in options], n=3)
        hint = f"did you mean {', '.join(map(repr, close))}?" if close else \
            f"{len(options)} {kind} names, see Game.{kind}s()" if kind in ("country", "card") \
            else f"one of {', '.join(map(repr, options))}"
    raise UnknownNameError(f"unknown {kind} {name!r}; {hint}")


def _pick(kind: str, name: Any, names: Iterable[Any]) -> int:
    options = list(names)
    return options.index(_known(kind, name, options))


def _side(side: str) -> int:
    return _pick("side", side, SIDES)


def _track_index(name: str) -> int:
    return _pick("track", name, TRACK_NAMES)


def _count(value: Any, what: str, hi: int, lo: int = 0) -> int:
    """An integer in lo..hi (Python or numpy; bools and floats refused)."""
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{what} must be an integer, not a bool")
    try:
        v = operator.index(value)
    except TypeError:
        raise TypeError(f"{what} must be an integer, not {type(value).__name__} "
                        f"{value!r}") from None
    if not lo <= v <= hi:
        raise ValueError(f"{what} must be within {lo}..{hi}, got {v}")
    return v


def resample_seed(rng: np.random.Generator | int | None) -> int:
    """The 64-bit seed of `resample_hidden`'s stream (see there)."""
    if isinstance(rng, np.random.Generator):
        return int(rng.bit_generator.random_raw())
    if rng is None:
        return int(np.random.default_rng().bit_generator.random_raw())
    return check_seed(rng)


RESAMPLE_TRIES = 64  # redraws before a determinisation keeps an inconsistent decision
GOLDEN = 0x9E3779B97F4A7C15  # the seed step between tries (SplitMix64's increment)


def consistent_redraw(game: Game, p: int, seed: int, redraw: Callable[[int], Game]) -> Game:
    """`redraw(seed)` with the opponent's pending decision asked again, redrawn at seeds
    ``seed + k * GOLDEN`` (mod 2**64, k = 1, 2, ...) until the decision pending is the one
    `p` sees in `game` (who decides, and what kind of decision): a redrawn hand that
    would skip it contradicts what `p` observes.  After RESAMPLE_TRIES the last redraw
    is kept (documented in docs/native.md; the real hand always fits)."""
    want = game._decision_key()
    for k in range(RESAMPLE_TRIES):
        g = redraw((seed + k * GOLDEN) % 2**64)
        g._reask_for(1 - p)
        if g._decision_key() == want:
            break
    return g


def redraw_hidden(m: Machine, p: int, seed: int) -> None:
    """`resample_hidden`'s redraw, in place on `m`'s state: one SplitMix64 stream at `seed`
    shuffles the pool (the opponent's hidden hand cards, its secret headline and the draw
    pile, sorted ascending so that its order tells nothing of where each card is;
    Fisher-Yates from the end, ``j = below(i + 1)``), then picks the
    opponent's hidden modifier among those it can afford, then the three stream states.
    native/src/cpp/resample.cpp draws the same."""
    s = m.s
    o = 1 - p
    r = Rng(seed)
    pend = s.pending
    known = s.revealed[o] & (s.card_loc == HAND[o])
    if pend is not None and pend[2] == "mode":
        known[pend[4]["card"]] = True  # the card chosen to play is face up
    hidden_hand = np.flatnonzero((s.card_loc == HAND[o]) & ~known)
    secret_head = pend is not None and pend[2] == "headline"
    hidden_head = np.flatnonzero(s.card_loc == HEADLINE[o]) if secret_head else ()
    pool = sorted(int(k) for part in (hidden_hand, hidden_head,
                                      np.flatnonzero(s.card_loc == DRAW)) for k in part)
    for i in range(len(pool) - 1, 0, -1):
        j = r.below(i + 1)
        pool[i], pool[j] = pool[j], pool[i]
    s.card_loc[pool] = DRAW
    s.card_loc[pool[: hidden_hand.size]] = HAND[o]
    if len(hidden_head):
        card = pool[hidden_hand.size]
        s.card_loc[card] = HEADLINE[o]
        s.misc[M_HEADLINE + o] = card
    if o == USA and pend is not None and pend[2] == "modifier" and pend[1] == CHINA:
        costs = [m.c.rules.modifier_costs[k] for k, _ in MODIFIERS]
        afford = [k for k, cost in enumerate(costs) if cost <= s.reserves[USA]]
        s.misc[M_MOD] = afford[r.below(len(afford))]
    s.rng = [r.next64() for _ in range(len(s.rng))]
