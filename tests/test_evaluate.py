"""In-process evaluation (evenstar_env.evaluate, issue 37): the arena's paired games and
numbers, for agents, specs and batch policies."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import evenstar_env
from agents import RandomAgent
from experiments.arena import jobs_for, run_games, summarise


@pytest.mark.parametrize(("policy", "opponent", "seed"),
                         [("heuristic", "random", 300), ("cautious", "heuristic", 7)])
def test_evaluate_gives_the_arenas_numbers_for_the_same_agents_and_seeds(
        policy: str, opponent: str, seed: int) -> None:
    games = 3
    records = run_games(jobs_for([policy, opponent], games, seed), workers=1, progress=False)
    arena_rows = [{k: v for k, v in r.items() if k not in ("agent", "opponent")}
                  for r in summarise(records)["results"]
                  if (r["agent"], r["opponent"]) == (policy, opponent)]
    result = evenstar_env.evaluate(policy, opponent, games=games, seed=seed)
    assert result.rows == arena_rows
    # game by game: the same winners and end reasons
    arena_games = {(r.seed, "usa" if r.agents["usa"] == policy else "china"):
                   (r.winner, r.reason) for r in records}
    assert {(g["seed"], g["side"]): (g["winner"], g["reason"]) for g in result.games} == \
        arena_games
    assert {g["side"] for g in result.games} == {"usa", "china"}  # both sides, paired seeds
    lo, hi = result.ci95
    assert lo <= result.win_rate <= hi


def first_legal(obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """A batch policy."""
    assert obs.ndim == 2 and obs.shape[0] == mask.shape[0]
    return np.argmax(mask, axis=1)


class FirstLegal:
    """The same choices, position by position."""

    def act(self, observation: Any, action_mask: np.ndarray, game: Any = None) -> int:
        return int(np.argmax(action_mask))


def test_a_batch_policy_plays_what_the_same_per_position_agent_plays() -> None:
    calls: list[int] = []

    def counted(obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        calls.append(len(obs))
        return first_legal(obs, mask)

    batched = evenstar_env.evaluate(counted, "random", games=4, seed=50)
    single = evenstar_env.evaluate(FirstLegal(), RandomAgent(), games=4, seed=50)
    assert batched.games == single.games and batched.rows == single.rows
    assert max(calls) > 1  # positions of several games in one call
    as_opponent = evenstar_env.evaluate("random", first_legal, games=4, seed=50)
    assert as_opponent.games == evenstar_env.evaluate("random", FirstLegal(), games=4,
                                                      seed=50).games
    assert as_opponent.row("both")["games"] == 8


def test_bad_arguments_are_one_line() -> None:
    with pytest.raises(ValueError, match="games must be a positive integer"):
        evenstar_env.evaluate("random", games=0)
    with pytest.raises(ValueError, match="unknown agent spec"):
        evenstar_env.evaluate("grandmaster", games=1)
