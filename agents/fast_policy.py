"""A fast rule policy (no look-ahead): for rollouts and fine-grained search decisions.

Country choices are scored in one vectorised pass: a point that gains or
breaks control counts most, battlegrounds and countries next to the enemy
superpower more than others (ties broken at random).  Other choices follow the
cautious-random rules (scoring cards first, never an ops realignment).

Its random draws come from a SplitMix64 stream (``self.rng``, the engine's `Rng`):
on a native game the same policy runs in C++ (native/src/cpp/agents.cpp) on the
same stream, so both backends choose the same actions.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from evenstar_env import Game
from evenstar_env.engine.board import controllers
from evenstar_env.engine.rng import Rng

COUNTRY_KINDS = ("place", "influence", "realign", "trade")


class FastPolicy:
    """Chooses in microseconds; good enough to make rollouts meaningful."""

    name = "fast"

    def __init__(self, seed: int | None = None) -> None:
        self.reseed(seed)

    def reseed(self, seed: int | None) -> None:
        """Start afresh, as if built with `seed` (None: fresh entropy)."""
        if seed is None:
            seed = int(np.random.default_rng().bit_generator.random_raw())
        self.rng = Rng(seed)

    def act(self, observation: Any, action_mask: np.ndarray, game: Game | None = None) -> int:
        if game is None:
            raise ValueError("FastPolicy needs the game")
        if game.backend == "native":  # the same policy in C++, on the same stream
            from evenstar_env.native import core

            a, self.rng.state = core().fast_policy_act(game._engine, self.rng.state)
            return a
        legal = np.flatnonzero(action_mask)
        d = game.decision
        if d.kind in COUNTRY_KINDS:
            return self._country(game, d, legal)
        if d.kind in ("card", "headline"):
            scoring = [a for a in legal if game.content.card_scoring[game.action_group(a)[1]]]
            if scoring:
                return int(scoring[0])
        if d.kind in ("mode", "ai_action"):
            keep = legal[legal != game.action_id("mode", "realign")]
            legal = keep if keep.size else legal
        if d.kind == "modifier":
            return game.action_id("mod", "zero")
        return int(legal[self.rng.below(legal.size)])

    def _country(self, g: Game, d: Any, legal: np.ndarray) -> int:
        c, s = g.content, g.state
        idx = legal - g.action_id("country", c.countries[0].name)
        me = 0 if d.player == "usa" else 1
        us = np.maximum(s.inf_us, 0).astype(np.int32)
        au = np.maximum(-s.inf_us, 0).astype(np.int32)
        cn = s.inf_cn.astype(np.int32)
        ctrl = controllers(c, s)
        st = c.ctrl_stab.astype(np.int32)
        own, opp = (us, cn + au) if me == 0 else (cn, us)
        weight = 1.0 + 1.5 * c.bg + 0.5 * c.adj_sp[1 - me]
        if d.kind == "influence" and d.context.get("verb") == "reduce":
            opp_code = (2, 3) if me == 0 else (1,)
            value = weight * (1 + 3 * np.isin(ctrl, opp_code))  # break enemy control
        else:
            mine = 1 if me == 0 else 2
            gains = (own + 1 >= st) & (own + 1 - opp >= st) & (ctrl != mine)
            value = weight * (1 + 4 * gains - 0.5 * (ctrl == mine))
            if d.kind == "realign":
                value = weight * opp - 2.0 * c.bg * 3 - c.stab  # prefer soft, non-BG targets
        v = value[idx]
        best = np.flatnonzero(v == v.max())  # ties broken at random
        return int(legal[best[self.rng.below(best.size)]])
