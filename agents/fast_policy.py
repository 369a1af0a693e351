"""A fast rule policy (no look-ahead): for rollouts and fine-grained search decisions.

Country choices are scored in one vectorised pass: a point that gains or
breaks control counts most, battlegrounds and countries next to the enemy
superpower more than others.  Other choices follow the cautious-random rules
(scoring cards first, never an ops realignment).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from evenstar_env import Game
from evenstar_env.engine.board import controllers

COUNTRY_KINDS = ("place", "influence", "realign", "trade")


class FastPolicy:
    """Chooses in microseconds; good enough to make rollouts meaningful."""

    name = "fast"

    def __init__(self, seed: int | None = None) -> None:
        self.reseed(seed)

    def reseed(self, seed: int | None) -> None:
        """Start afresh, as if built with `seed`."""
        self.rng = np.random.default_rng(seed)

    def act(self, observation: Any, action_mask: np.ndarray, game: Game | None = None) -> int:
        if game is None:
            raise ValueError("FastPolicy needs the game")
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
        return int(legal[self.rng.integers(legal.size)])

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
        v = value[idx] + self.rng.random(idx.size) * 1e-3  # random tie-break
        return int(legal[int(np.argmax(v))])
