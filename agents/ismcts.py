"""Single-observer information-set MCTS (Cowling, Powley and Whitehouse, 2012).

Every iteration draws a determinisation with :meth:`Game.resample_hidden`
(the opponent's hand, secret choices, draws and dice redrawn consistently
with what the searching player knows), descends a tree of action sequences
with UCB1 restricted to the actions legal in that determinisation
(availability counts), expands one node, plays a rollout that may be
truncated and scored by the static evaluation, and backs the result up.

The tree branches only at *strategic* decisions (which card, how to play it,
headline, modifier cards, spends, event options...); the fine-grained ones
(each point of influence, targets) are taken by :class:`FastPolicy` inside the
simulations, and by the heuristic's look-ahead when they come up at the root
(realignment targets by their evaluation averaged over redrawn dice).

At the root, the :class:`HeuristicAgent`'s choice gets a progressive bias
`prior / (visits + 1)` in UCB1: the search starts from the heuristic's plan
and leaves it only when the simulations disagree clearly.

On a native game (``backend="native"``) the determinisation, the fast-policy steps
and the whole rollout with its evaluation run in C++ (native/src/cpp/agents.cpp);
the tree stays here.  Both backends take the same decisions from the same seeds
(tests/test_native_agents.py).
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np

from evenstar_env import Game
from evenstar_env.engine.constants import HAND, M_TECH_DONE

from .evaluation import SIDE, WIN, evaluate, native_weights
from .fast_policy import FastPolicy
from .heuristic import HeuristicAgent

FINE_KINDS = ("place", "influence", "realign", "trade")
W_FORCED_WAR = 40.0  # evaluation units per opponent card that will have to be played into a war


def forced_war_plays(g: Game, side: str) -> int:
    """How many opponent cards whose event could start a total war that `side` loses
    (R21: diplomacy minus the event's threat reaches 1) `side` will be forced to play
    in this turn's remaining action rounds, after one tech-race disposal if still open.

    The search sees one card play ahead; this tells it that keeping such a card
    for the last rounds only postpones the war.
    """
    if g.phase != "action":
        return 0
    s, c = g.state, g.content
    p = 0 if side == "usa" else 1
    hand = np.flatnonzero(s.card_loc == HAND[p])
    dangerous = sum(1 for k in hand if int(c.card_side[k]) == 1 - p
                    and g.event_risks_total_war(c.cards[k].name, side))
    if not dangerous:
        return 0
    plays = min(len(hand), max(1, c.rules.action_rounds - g.round + 1))
    forced = max(0, plays - (len(hand) - dangerous))
    return max(0, forced - (0 if s.misc[M_TECH_DONE + p] else 1))


_CORE: list[Any] = []


def _core() -> Any:
    """The native module (imported on first use: the Python backend never needs it)."""
    if not _CORE:
        from evenstar_env.native import core

        _CORE.append(core())
    return _CORE[0]


def scoring_card_due(g: Game, legal: np.ndarray) -> int | None:
    """At a card choice, the scoring card that must be played now so that none is held at
    the end of the turn (2.2.1.1: as many scoring cards in hand as rounds left), else None."""
    if g.decision.kind != "card":
        return None
    scoring = [int(a) for a in legal if g.content.card_scoring[g.action_group(a)[1]]]
    left = g.content.rules.action_rounds - g.round + 1
    return scoring[0] if scoring and len(scoring) >= left else None


def forced_choice(g: Game, legal: np.ndarray) -> int | None:
    """The action a search need not weigh: the only legal one, or a scoring card that is
    due (:func:`scoring_card_due`); else None."""
    return int(legal[0]) if legal.size == 1 else scoring_card_due(g, legal)


def rollout_value(g: Game, me: str, policy: FastPolicy, depth: int, scale: float) -> float:
    """Fast-policy play on `g` (changed in place) until `me` is to choose its next card (the
    opponent has answered) or `depth` decisions, then the static evaluation for `me`
    squashed to [-1, 1] (a decided game is exactly +-1); on a native game, the same loop
    in C++."""
    if g.backend == "native":
        reward, policy.rng.state = _core().rollout(
            g._engine, SIDE[me], depth, policy.rng.state, native_weights(), W_FORCED_WAR, scale)
        return reward
    for k in range(depth):
        if g.is_over or (k and g.decision.kind == "card" and g.current_player == me):
            break
        g.step(policy.act(None, g.action_mask(), g))
    v = evaluate(g, me)
    if abs(v) >= WIN:
        return math.copysign(1.0, v)
    v -= W_FORCED_WAR * forced_war_plays(g, me)
    return math.tanh(v / scale)


class _Node:
    __slots__ = ("player", "children", "visits", "avail", "value")

    def __init__(self, player: str | None) -> None:
        self.player = player  # who chose the action leading here
        self.children: dict[int, _Node] = {}
        self.visits = 0
        self.avail = 0
        self.value = 0.0  # summed rewards from `player`'s point of view


class ISMCTSAgent:
    """ISMCTS with a budget of `iterations` or `seconds` per decision (whichever ends first)."""

    name = "ismcts"

    def __init__(self, iterations: int = 300, seconds: float | None = 0.9,
                 rollout_depth: int = 80, exploration: float = 0.4, eval_scale: float = 15.0,
                 prior: float = 1.0, realign_samples: int = 8, seed: int | None = None) -> None:
        self.iterations, self.seconds = iterations, seconds
        self.rollout_depth, self.c = rollout_depth, exploration
        self.eval_scale, self.prior, self.realign_samples = eval_scale, prior, realign_samples
        self.reseed(seed)

    def reseed(self, seed: int | None) -> None:
        """Start afresh, as if built with `seed` (the envs call it at every reset)."""
        self.rng = np.random.default_rng(seed)
        self.policy = FastPolicy(int(self.rng.integers(2**31)))
        self.fine = HeuristicAgent(int(self.rng.integers(2**31)))

    def act(self, observation: Any, action_mask: np.ndarray, game: Game | None = None) -> int:
        if game is None:
            raise ValueError("ISMCTSAgent needs the game")
        legal = np.flatnonzero(action_mask)
        if (forced := forced_choice(game, legal)) is not None:
            return forced
        if game.decision.kind == "realign" and self.realign_samples:
            return self._realign(game, [int(a) for a in legal])
        if game.decision.kind in FINE_KINDS:
            return self.fine.act(observation, action_mask, game)
        deadline = None if self.seconds is None else time.perf_counter() + self.seconds
        me = game.current_player
        hint = self.fine.act(observation, action_mask, game) if self.prior else None
        root = _Node(None)
        for _ in range(self.iterations):
            if deadline is not None and time.perf_counter() > deadline:
                break
            self._iterate(game.resample_hidden(me, self.rng), root, me, hint)
        if not root.children:  # out of time before the first iteration
            return int(legal[0]) if hint is None else hint
        best = max(root.children.items(), key=lambda kv: kv[1].visits)
        return int(best[0])

    def _realign(self, g: Game, legal: list[int]) -> int:
        """The realignment target with the best evaluation averaged over redrawn dice
        (a bad roll can cost diplomacy, 9.2.4, and total war loses, R21)."""
        side = g.current_player

        def value(a: int) -> float:
            total = 0.0
            for _ in range(self.realign_samples):
                sim = g.resample_hidden(side, self.rng)
                sim.step(a)
                total += evaluate(sim, side)
            return total

        return max(legal, key=value)

    def _advance_fine(self, g: Game) -> None:
        """Fine-grained decisions are not tree nodes: the fast policy takes them."""
        if g.backend == "native":
            self.policy.rng.state = _core().advance_fine(g._engine, self.policy.rng.state)
            return
        while not g.is_over and g.decision.kind in FINE_KINDS:
            g.step(self.policy.act(None, g.action_mask(), g))

    def _iterate(self, g: Game, root: _Node, me: str, hint: int | None = None) -> None:
        node, path = root, [root]
        c, log, sqrt = self.c, math.log, math.sqrt
        while True:  # selection and expansion
            self._advance_fine(g)
            if g.is_over:
                break
            legal = g.legal_actions().tolist()
            children = node.children
            untried = [a for a in legal if a not in children]
            if untried:
                a = untried[int(self.rng.integers(len(untried)))]
                child = children[a] = _Node(g.current_player)
                g.step(a)
                path.append(child)
                break
            best, best_score = None, -math.inf
            for a in legal:
                child = children[a]
                child.avail += 1
                visits = child.visits
                score = child.value / visits + c * sqrt(log(child.avail) / visits)
                if node is root and a == hint:  # progressive bias to the heuristic's choice
                    score += self.prior / (visits + 1)
                if score > best_score:
                    best, best_score = a, score
            node = children[best]
            g.step(best)
            path.append(node)
        reward = self._rollout(g, me)
        for n in path:
            n.visits += 1
            if n.player is not None:
                n.value += reward if n.player == me else -reward

    def _rollout(self, g: Game, me: str) -> float:
        """Fast-policy play until `me` is to choose its next card (the opponent has
        answered) or `rollout_depth` decisions, then the evaluation."""
        return rollout_value(g, me, self.policy, self.rollout_depth, self.eval_scale)
