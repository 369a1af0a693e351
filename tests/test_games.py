"""Random-vs-random full games finish without an exception (issue: rules engine)."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from evenstar_env import Game


def play_random(seed: int) -> Game:
    g = Game(seed)
    rng = np.random.default_rng(seed + 1)
    while not g.is_over:
        legal = g.legal_actions()
        g.step(int(legal[rng.integers(legal.size)]))
    return g


def run(n: int) -> Counter:
    reasons: Counter = Counter()
    for seed in range(n):
        g = play_random(seed)
        assert g.result is not None
        reasons[g.result.reason.split(":")[0].split(" caused")[0]] += 1
    return reasons


def test_fifty_random_games_finish() -> None:
    reasons = run(50)
    assert sum(reasons.values()) == 50


@pytest.mark.slow
def test_thousand_random_games_finish() -> None:
    reasons = run(1000)
    assert sum(reasons.values()) == 1000
