"""Random-vs-random full games finish without an exception (issue: rules engine)."""

from __future__ import annotations

import pytest

from agents import CautiousRandomAgent, RandomAgent
from evenstar_env import Game
from experiments.selfplay import play_game


def run(n: int, agent_cls: type) -> list:
    records = []
    for seed in range(n):
        rec = play_game(seed, {"usa": agent_cls(seed), "china": agent_cls(seed + 10_000)})
        assert rec.reason and rec.winner in ("usa", "china", None)
        records.append(rec)
    return records


def test_fifty_random_games_finish() -> None:
    assert len(run(50, RandomAgent)) == 50


def test_cautious_games_reach_final_scoring() -> None:
    """Whole games through every era, the spare scorings (4.6.I) and final scoring (10.3.3)."""
    records = run(20, CautiousRandomAgent)
    finals = [r for r in records if r.reason.startswith("final scoring")]
    assert len(finals) >= 12
    assert all(r.turn == 11 for r in finals)


def test_recorded_actions_replay_to_the_same_result() -> None:
    rec = run(1, CautiousRandomAgent)[0]
    g = Game(rec.seed)
    for a in rec.actions:
        g.step(a)
    assert g.is_over and (g.result.winner, g.result.reason) == (rec.winner, rec.reason)
    assert g.vp == rec.vp


@pytest.mark.slow
def test_thousand_random_games_finish() -> None:
    assert len(run(1000, RandomAgent)) == 1000


@pytest.mark.slow
def test_thousand_cautious_games_finish() -> None:
    assert len(run(1000, CautiousRandomAgent)) == 1000
