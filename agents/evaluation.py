"""A static evaluation of a position for one side, shared by the heuristic and search agents.

On a native game (``backend="native"``) `evaluate` and `action_values` run in C++
(native/src/cpp/agents.cpp, the same operations in the same order, so the same
float bits; tests/test_native_agents.py checks it); the weights below are handed
over, never written twice.
"""

from __future__ import annotations

import atexit
from functools import lru_cache
from typing import Any

import numpy as np

from evenstar_env import Game
from evenstar_env.engine.board import controllers, score_all
from evenstar_env.engine.constants import HAND, M_PHASING

WIN = 1000.0
W_VP = 1.0
W_REGION = 0.4  # VP a region would score now, discounted: scoring comes later or not at all
W_SUBREGION = 0.2
W_LEVEL = 2.0  # per social/economy level of difference
W_DANGER = 8.0  # per level below 4 of own social or economy (1 loses, 9.1.3)
W_RESERVES = 0.35
W_TECH = 1.0
W_BG_INFLUENCE = 0.08  # own influence in battlegrounds (future control)
W_HELD_SCORING = 40.0  # per scoring card beyond the plays left this turn (2.2.1.1: loss)


def scoring_overhang(g: Game, p: int) -> int:
    """Scoring cards `p` holds beyond the card plays it has left this turn."""
    s, c = g.state, g.content
    held = int((c.card_scoring & (s.card_loc == HAND[p])).sum())
    if held == 0:
        return 0
    rounds = c.rules.action_rounds
    if g.phase == "action":
        left = rounds - g.round + (0 if (g.round and s.misc[M_PHASING] == 1 and p == 0) else 1)
    else:
        left = rounds + 1  # the headline and every action round are still to come
    return max(0, held - left + 1) if g.phase in ("action", "headline") else 0


SIDE = {"usa": 0, "china": 1}


@lru_cache(maxsize=1)
def native_weights() -> Any:
    """The weights above as the native core's EvalWeights (released at exit, before the
    extension is torn down, so that nanobind reports no leak)."""
    from evenstar_env.native import core

    atexit.register(native_weights.cache_clear)
    return core().EvalWeights([WIN, W_VP, W_REGION, W_SUBREGION, W_LEVEL, W_DANGER,
                               W_RESERVES, W_TECH, W_BG_INFLUENCE, W_HELD_SCORING])


def evaluate(g: Game, side: str) -> float:
    """Higher is better for `side`; a won game is +WIN, a lost one -WIN, a draw 0."""
    if g.backend == "native":
        from evenstar_env.native import core

        return core().evaluate(g._engine, SIDE[side], native_weights())
    return evaluate_python(g, side)


def action_values(g: Game, side: str, actions: list[int]) -> np.ndarray:
    """`evaluate(side)` after each of `actions` (legal now), each on its own copy of `g`."""
    if g.backend == "native":
        from evenstar_env.native import core

        return core().action_values(g._engine, SIDE[side], np.asarray(actions, dtype=np.int64),
                                    native_weights())
    values = []
    for a in actions:
        sim = g.clone()
        sim.step(a)
        values.append(evaluate(sim, side))
    return np.asarray(values, dtype=np.float64)


def evaluate_python(g: Game, side: str) -> float:
    """`evaluate` in Python, on any backend (the reference of the C++ one)."""
    if g.is_over:
        w = g.result.winner
        return 0.0 if w is None else (WIN if w == side else -WIN)
    s, c = g.state, g.content
    p = 0 if side == "usa" else 1
    o = 1 - p
    sign = 1.0 if p == 0 else -1.0  # columns are US, China
    ctrl = controllers(c, s)
    scores = score_all(c, s, ctrl)
    nreg = len(c.region_names)
    regional = (scores[:nreg, 0] - scores[:nreg, 1]).sum() * W_REGION
    sub = (scores[nreg:, 0] - scores[nreg:, 1]).sum() * W_SUBREGION
    t = s.tracks
    social, economy = (int(t[p]), int(t[o])), (int(t[2 + p]), int(t[2 + o]))
    levels = (social[0] - social[1] + economy[0] - economy[1]) * W_LEVEL
    danger = sum(max(0, 4 - x) ** 2 for x in (social[0], economy[0])) - sum(
        max(0, 4 - x) ** 2 for x in (social[1], economy[1]))
    us_bg = float(np.maximum(s.inf_us, 0)[c.bg].sum())
    cn_bg = float(s.inf_cn[c.bg].sum())
    return (W_VP * (int(s.vp[p]) - int(s.vp[o]))
            - W_HELD_SCORING * (scoring_overhang(g, p) - scoring_overhang(g, o))
            + sign * (regional + sub + W_BG_INFLUENCE * (us_bg - cn_bg))
            + levels - W_DANGER * danger
            + W_RESERVES * (int(s.reserves[p]) - int(s.reserves[o]))
            + W_TECH * (int(t[7 + p]) - int(t[7 + o])))
