"""The public game API: :class:`Game`, :class:`Decision`, :class:`IllegalActionError`."""

from __future__ import annotations

import operator
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from .content import Content, fingerprint, load_content
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
    M_DECISIONS,
    M_HEADLINE,
    M_MOD,
    M_PHASE,
    M_ROUND,
    M_TURN,
    MODES,
    MODIFIERS,
    OUT,
    PHASES,
    REMOVED,
    SIDES,
    SOCIAL,
    SPENDS,
    TRACK_NAMES,
    USA,
    VP_SOURCES,
)
from .engine.machine import Machine
from .engine.rng import seed_streams
from .engine.state import State

FORMAT_VERSION = 1


class IllegalActionError(ValueError):
    """An action that is not legal for the pending decision."""


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
    """

    def __init__(self, seed: int = 0, *, content: Content | None = None, log: bool = False,
                 _state: State | None = None) -> None:
        self.content = content or load_content()
        c = self.content
        if _state is not None:
            self._m = Machine(c, _state, log)
            return
        s = State(c.n, c.nc, c.nh, len(c.rules.spare_scoring),
                  len(c.region_names) + len(c.subregion_names) + len(VP_SOURCES))
        self._m = Machine(c, s, log)
        self.seed = seed
        s.rng = seed_streams(seed)
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
        p = self._m.s.pending
        if p is None:
            return None
        _, player, kind, legal, ctx = p
        fmt = {k: (self.content.cards[v].name if k == "card" and v >= 0 else v)
               for k, v in ctx.items()}
        if "history" in fmt:
            fmt["history"] = self.content.history[fmt["history"]].name
        return Decision(SIDES[player], kind, legal, dict(ctx),
                        DECISION_TEXT[kind].format_map(_Default(fmt)))

    def action_id(self, group: str, which: str | int | None = None) -> int:
        """The id of an action by name: ``("card", "<card name>")``, ``("country", "Iran")``,
        ``("mode", "realign")``, ``("order", "event_first"|"action_first")``,
        ``("mod", "plus1")``, ``("spend", "tech")``, ``("option", 1)``, ``("yes")``,
        ``("no")``, ``("done")``."""
        sp, c = self._m.space, self.content
        if group in ("yes", "no", "done"):
            return getattr(sp, group)
        if group == "card":
            return sp.card0 + c.card_by_name[which]
        if group == "country":
            return sp.country0 + self._country(which)
        if group == "mode":
            return sp.mode0 + MODES.index(which)
        if group == "order":
            return sp.order0 + ("event_first", "action_first").index(which)
        if group == "mod":
            return sp.mod0 + [k for k, _ in MODIFIERS].index(which)
        if group == "spend":
            return sp.spend0 + SPENDS.index(which)
        if group == "option":
            return sp.option0 + int(which)
        raise KeyError(f"unknown action group {group!r}")

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
            return f"Play '{card}' {text}" if card else f"Action: {text}"
        if group == "order":
            return f"'{card}': " + ("event first, then the action" if k == 0
                                    else "action first, then the event")
        if group == "mod":
            return f"Modifier card {MODIFIERS[k][0]}"
        if group == "spend":
            return f"Spend reserves: {SPENDS[k]}"
        if group == "option":
            eff = c.effects[ctx["eff"]] if "eff" in ctx else None
            label = eff.options[k].label if eff is not None and k < len(eff.options) else k
            return f"Option: {label}"
        if group in ("yes", "no"):
            return group.capitalize()
        return "Pass" if kind == "end_discard" else "Done: go on to play a card"

    # ------------------------------------------------------------ copying
    def clone(self) -> Game:
        g = Game.__new__(Game)
        g.content = self.content
        g._m = Machine(self.content, self._m.s.copy(), False)
        return g

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable snapshot (with the fingerprint of the content it belongs to)."""
        return {"format": FORMAT_VERSION, "content": fingerprint(self.content),
                "state": self._m.s.to_dict()}

    @classmethod
    def from_dict(cls, d: dict[str, Any], content: Content | None = None) -> Game:
        """The game of a `to_dict` snapshot; `content` must be the content it was made with."""
        if d.get("format") != FORMAT_VERSION:
            raise ValueError(f"unknown game format {d.get('format')!r}")
        content = content or load_content()
        if d.get("content", fingerprint(content)) != fingerprint(content):
            raise ValueError(f"the snapshot was made with other game content "
                             f"({d['content']}, this is {fingerprint(content)})")
        return cls(content=content, _state=State.from_dict(d["state"]))

    # ------------------------------------------------------------ status
    @property
    def is_over(self) -> bool:
        return self._m.s.over

    @property
    def result(self) -> Result | None:
        r = self._m.s.result
        return None if r is None else Result(None if r[0] is None else SIDES[r[0]], r[1])

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
        return list(self._m.log_lines or [])

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
        """Whether `card`'s event could happen now if `side` played it (5.2, 7.4)."""
        i = self.content.card_by_name[card]
        return self._m.can_happen(i, _play.executor_of(self._m, i, SIDES.index(side)))

    def event_risks_total_war(self, card: str, side: str) -> bool:
        """Whether `side` playing `card` now could start a total war it loses: the event
        can happen and its realignments or diplomacy losses can reach 1 (9.2.3, R7, R21)."""
        return bool(_play.risks_total_war(self._m, self.content.card_by_name[card],
                                          SIDES.index(side)))

    # ------------------------------------------------------------ scenarios
    def _country(self, name: str) -> int:
        try:
            return self.content.index[name]
        except KeyError:
            raise KeyError(f"unknown country {name!r}") from None

    def influence(self, name: str) -> dict[str, int]:
        i, s = self._country(name), self._m.s
        return {k: board.amount(s, i, k) for k in ("usa", "china", "anti_us")}

    def set_influence(self, name: str, usa: int = 0, china: int = 0, anti_us: int = 0) -> None:
        if usa and anti_us:
            raise ValueError("US and anti-US influence never coexist (R1)")
        if min(usa, china, anti_us) < 0:
            raise ValueError("influence cannot be negative")
        i, s = self._country(name), self._m.s
        s.inf_us[i] = usa - anti_us
        s.inf_cn[i] = china
        self._refresh()

    def controller(self, name: str) -> str | None:
        return CONTROLLER_NAMES[board.controller_of(self.content, self._m.s, self._country(name))]

    def score_region(self, region: str) -> dict[str, int]:
        if region not in self.content.place_mask:
            raise KeyError(f"unknown region {region!r}")
        u, c = board.score_region(self.content, self._m.s, region)
        return {"usa": u, "china": c}

    def track(self, name: str) -> int:
        return int(self._m.s.tracks[_track_index(name)])

    def set_track(self, name: str, value: int) -> None:
        t = _track_index(name)
        if not 0 <= value <= self._m.track_max(t):
            raise ValueError(f"{name} must be within 0..{self._m.track_max(t)}")
        self._m.s.tracks[t] = value
        self._refresh()

    def set_reserves(self, side: str, value: int) -> None:
        self._m.s.reserves[SIDES.index(side)] = value
        self._refresh()

    def hand(self, side: str) -> list[str]:
        return [self.content.cards[i].name for i in self._m.hand(SIDES.index(side))]

    def set_hand(self, side: str, names: list[str]) -> None:
        """Put exactly the named cards in `side`'s hand; the old hand goes to the draw pile."""
        s, c = self._m.s, self.content
        p = SIDES.index(side)
        ids = []
        for n in names:
            if n not in c.card_by_name:
                raise KeyError(f"unknown card {n!r}")
            ids.append(c.card_by_name[n])
        s.card_loc[s.card_loc == HAND[p]] = DRAW
        for i in ids:
            s.card_loc[i] = HAND[p]
        self._refresh()

    def force_dice(self, dice: list[int]) -> None:
        if any(not 1 <= d <= 6 for d in dice):
            raise ValueError("dice show 1 to 6")
        self._m.s.forced.extend(int(d) for d in dice)

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
        and the future dice.
        """
        gen = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
        g = self.clone()
        s = g._m.s
        p = SIDES.index(player)
        o = 1 - p
        pend = s.pending
        known = s.revealed[o] & (s.card_loc == HAND[o])
        if pend is not None and pend[2] == "mode":
            known[pend[4]["card"]] = True  # the card chosen to play is face up
        hidden_hand = np.flatnonzero((s.card_loc == HAND[o]) & ~known)
        secret_head = pend is not None and pend[2] == "headline"
        hidden_head = np.flatnonzero(s.card_loc == HEADLINE[o]) if secret_head else ()
        pool = np.concatenate([hidden_hand, hidden_head, np.flatnonzero(s.card_loc == DRAW)])
        pool = pool.astype(np.int64)
        gen.shuffle(pool)
        s.card_loc[pool] = DRAW
        s.card_loc[pool[: hidden_hand.size]] = HAND[o]
        if len(hidden_head):
            card = int(pool[hidden_hand.size])
            s.card_loc[card] = HEADLINE[o]
            s.misc[M_HEADLINE + o] = card
        if o == USA and pend is not None and pend[2] == "modifier" and pend[1] == CHINA:
            costs = [g._m.c.rules.modifier_costs[k] for k, _ in MODIFIERS]
            afford = [k for k, cost in enumerate(costs) if cost <= s.reserves[USA]]
            s.misc[M_MOD] = int(gen.choice(afford))
        s.rng = [int(x) for x in gen.integers(0, 2**63, size=len(s.rng))]
        return g

    def __repr__(self) -> str:
        status = f"over: {self.result}" if self.is_over else str(self.decision)
        return f"<Game turn {self.turn} {self.phase} VP {self.vp} | {status}>"


class _Default(dict):
    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


def _track_index(name: str) -> int:
    try:
        return TRACK_NAMES.index(name)
    except ValueError:
        raise KeyError(f"unknown track {name!r}; one of {TRACK_NAMES}") from None
