"""A readable rule-based player, the yardstick for the other agents.

It plays scoring cards when they pay (and always before it would be caught
holding one, 2.2.1.1), stays clear of total war (diplomacy, 9.2.3) and of
social or economy collapse (9.1.3), uses tech race / sabotage, trade
contests, reserves and upgrades, and places influence greedily: every
placement or event target is chosen by a one-step look-ahead on a
*determinised* copy of the game (the opponent's hand and the dice redrawn),
so it never peeks at hidden information.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from evenstar_env import Game
from evenstar_env.content.compiled import diplomacy_threat
from evenstar_env.engine.constants import MODES
from evenstar_env.env.observation import scoring_rounds_left

from .evaluation import action_values, evaluate

OPS_VALUE = 1.3  # evaluation units one op of placement is worth, roughly
LOOKAHEAD_KINDS = ("place", "influence", "option", "trade", "granted")


class HeuristicAgent:
    """Rule-based play with greedy one-step look-ahead for targets (needs `game`)."""

    name = "heuristic"

    def __init__(self, seed: int | None = None) -> None:
        self.reseed(seed)

    def reseed(self, seed: int | None) -> None:
        """Start afresh, as if built with `seed` (the envs call it at every reset)."""
        self.rng = np.random.default_rng(seed)
        self._plan: tuple[int, str] | None = None  # (card, "event" | ops mode)

    # ------------------------------------------------------------ entry point
    def act(self, observation: Any, action_mask: np.ndarray, game: Game | None = None) -> int:
        if game is None:
            raise ValueError("HeuristicAgent needs the game")
        d = game.decision
        legal = [int(a) for a in np.flatnonzero(action_mask)]
        handler = getattr(self, f"_{d.kind}", None)
        a = handler(game, d, legal) if handler else None
        if a is None or a not in legal:
            a = self._greedy(game, d.player, legal)
        return a

    # ------------------------------------------------------------ look-ahead
    def _greedy(self, g: Game, side: str, legal: list[int]) -> int:
        """The action whose immediate result evaluates best (ties broken at random)."""
        best = self._best_actions(g, side, legal)
        return best[int(self.rng.choice(len(best)))] if len(legal) > 1 else best[0]

    def _best_actions(self, g: Game, side: str, legal: list[int]) -> list[int]:
        """The actions whose immediate result evaluates best, on a determinised copy."""
        if len(legal) == 1:
            return legal
        values = action_values(g.resample_hidden(side, self.rng), side, legal)
        return [legal[i] for i in np.flatnonzero(values >= values.max() - 1e-9)]

    def _event_value(self, g: Game, side: str, card: int) -> float:
        """Evaluation gain of playing `card` as an event, own follow-up choices greedy."""
        sim = g.resample_hidden(side, self.rng)
        before = evaluate(sim, side)
        sim.step(sim.action_id("card", g.content.cards[card].name))
        sim.step(sim.action_id("mode", "event"))
        for _ in range(8):  # the event's own targets, chosen greedily
            if sim.is_over or sim.decision.player != side or sim.decision.kind not in \
                    ("influence", "option", "discard", "granted", "place", "realign", "trade"):
                break
            sim.step(self._greedy(sim, side, [int(x) for x in sim.legal_actions()]))
        return evaluate(sim, side) - before

    # ------------------------------------------------------------ card choice
    def _card(self, g: Game, d, legal: list[int]) -> int:
        side, c = d.player, g.content
        cards = [g.action_group(a)[1] for a in legal]
        scoring = [k for k in cards if c.card_scoring[k]]
        rounds_left = self._rounds_left(g, side)
        best: tuple[float, int, str] | None = None
        for k in cards:
            card = c.cards[k]
            if card.kind == "scoring":
                region = card.effects[0].region
                sc = g.score_region(region)
                gain = sc[side] - sc["china" if side == "usa" else "usa"]
                urgent = len(scoring) >= rounds_left
                value = gain + (100.0 if urgent else 0.0) - (0.5 if gain < 0 else 0.0)
                plan = "event"
            else:
                ops_value = card.ops * OPS_VALUE
                own = card.side in (side, "neutral")
                event_value = -np.inf
                if own and g.event_can_happen(card.name, side):
                    event_value = self._event_value(g, side, k)
                plan = "ops"
                if not own and g.event_can_happen(card.name, side):
                    if "tech" in self._modes(g, card.name):
                        plan = "tech"  # tech race / sabotage: the event does not fire (R5, R9)
                    else:
                        ops_value -= 0.8 * card.ops  # the opponent's event fires too (5.2)
                        if g.event_risks_total_war(card.name, side):
                            ops_value -= 50.0  # its realignments could start a war we lose
                value, plan = max((event_value, "event"), (ops_value, plan))
            if best is None or value > best[0]:
                best = (value, k, plan)
        self._plan = (best[1], best[2])
        return g.action_id("card", c.cards[best[1]].name)

    @staticmethod
    def _modes(g: Game, card: str) -> set[str]:
        """The play modes `card` would offer now."""
        sim = g.clone()
        sim.step(sim.action_id("card", card))
        if sim.decision is None or sim.decision.kind != "mode":
            return set()
        return {MODES[sim.action_group(a)[1]] for a in sim.legal_actions()}

    def _rounds_left(self, g: Game, side: str) -> int:
        return scoring_rounds_left(g.content, g.round)

    def _mode(self, g: Game, d, legal: list[int]) -> int:
        side = d.player
        card = d.context["card"]
        plan = self._plan[1] if self._plan and self._plan[0] == card else "ops"
        if plan in ("event", "tech") and g.action_id("mode", plan) in legal:
            return g.action_id("mode", plan)
        me, opp = (0, 1) if side == "usa" else (1, 0)
        t = g.state.tracks
        for choice, ok in (
            ("tech", side == "china" or int(t[1]) <= 6),
            ("improve_social", int(t[me]) <= 5 and int(t[me]) <= int(t[2 + me])),
            ("improve_economy", int(t[2 + me]) <= 6),
            ("trade", int(t[2 + me]) >= int(t[2 + opp]) - 1),
        ):
            a = g.action_id("mode", choice)
            if ok and a in legal:
                return a
        return g.action_id("mode", "place")

    # ------------------------------------------------------------ other choices
    def _headline(self, g: Game, d, legal: list[int]) -> int:
        side, c = d.player, g.content
        best = None
        for a in legal:
            card = c.cards[g.action_group(a)[1]]
            if card.kind == "scoring":
                sc = g.score_region(card.effects[0].region)
                value = sc[side] - sc["china" if side == "usa" else "usa"]
            elif card.side in (side, "neutral"):
                value = card.ops * 0.5 + (1.0 if g.event_can_happen(card.name, side) else -2.0)
            else:
                value = -card.ops  # the opponent's event happens for them (R14)
                # Not event_risks_total_war: the headline resolves after the other
                # headline, so whether the event can happen is not known yet.
                if g.track("diplomacy") - diplomacy_threat(card) <= 1:
                    value -= 50.0
            if best is None or value > best[0]:
                best = (value, a)
        return best[1]

    def _modifier(self, g: Game, d, legal: list[int]) -> int:
        side = d.player
        hist = g.content.history[d.context["history"]]
        reserves = g.reserves[side]
        mine = hist.side == side
        for name, need in (("plus2" if mine else "minus2", 6), ("plus1" if mine else "minus1", 3)):
            a = g.action_id("mod", name)
            if a in legal and reserves >= need:
                return a
        return g.action_id("mod", "zero")

    def _spend(self, g: Game, d, legal: list[int]) -> int:
        side = d.player
        res = g.reserves[side]
        dip = g.action_id("spend", "diplomacy")
        if dip in legal and g.track("diplomacy") <= 2:
            return dip  # keep clear of total war (9.2.3)
        tech = g.action_id("spend", "tech")
        if tech in legal and res >= 5:
            return tech
        russia = g.action_id("spend", "russia")
        if russia in legal and res >= 6 and g.track("russia") >= 2:
            return russia  # from the third box on, the Russia track hurts the US (8.1.2)
        return g.action_id("done")

    def _order(self, g: Game, d, legal: list[int]) -> int:
        return g.action_id("order", "event_first")  # then the action can answer the event

    def _upgrade(self, g: Game, d, legal: list[int]) -> int:
        return g.action_id("yes")

    def _round8(self, g: Game, d, legal: list[int]) -> int:
        return g.action_id("yes")

    def _end_discard(self, g: Game, d, legal: list[int]) -> int:
        side, c = d.player, g.content
        enemy = [a for a in legal if g.action_group(a)[0] == "card"
                 and c.cards[g.action_group(a)[1]].side not in (side, "neutral")]
        return max(enemy, key=lambda a: c.card_ops[g.action_group(a)[1]]) if enemy \
            else g.action_id("done")

    def _discard(self, g: Game, d, legal: list[int]) -> int:
        side, c = d.player, g.content
        if g.action_id("no") in legal:  # pay for an event the opponent fired, or not (5.3)
            return self._greedy(g, side, legal)

        def keep_value(a: int) -> float:
            card = c.cards[g.action_group(a)[1]]
            if card.kind == "scoring":
                sc = g.score_region(card.effects[0].region)
                return sc[side] - sc["china" if side == "usa" else "usa"]
            return card.ops if card.side in (side, "neutral") else -card.ops

        return min(legal, key=keep_value)

    def _realign(self, g: Game, d, legal: list[int]) -> int:
        c = g.content

        def target_value(a: int) -> float:
            i = g.action_group(a)[1]
            inf = g.influence(c.countries[i].name)
            enemy = inf["china"] + inf["anti_us"] if d.player == "usa" else inf["usa"]
            return enemy - 2 * int(c.stab[i]) - (3 if c.bg[i] else 0)  # BGs cost diplomacy

        return max(legal, key=target_value)
