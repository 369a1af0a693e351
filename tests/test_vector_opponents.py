"""Batched opponents in EvenstarVectorEnv (issue 37): a batch policy is called once per
round for every game where the opponent is to move, and plays the games a per-game agent
making the same choices plays; ``learned[:PATH]`` is played as one."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from helpers import same_info

from agents.batch_policy import NetworkPolicy
from agents.learned_agent import DEFAULT_PATH, LearnedAgent
from evenstar_env import IllegalActionError
from evenstar_env.env.observation import observe
from evenstar_env.vector import EvenstarVectorEnv


def last_legal(mask: np.ndarray) -> np.ndarray:
    """The highest legal action of every row."""
    return mask.shape[1] - 1 - np.argmax(mask[:, ::-1], axis=1)


def unnamed(info: dict[str, Any]) -> dict[str, Any]:
    """An info without the opponent's name (at any depth)."""
    return {k: unnamed(v) if isinstance(v, dict) else v for k, v in info.items()
            if "opponent" not in k}


class LastLegal:
    """The same choice as a per-game agent, counting its moves."""

    def __init__(self) -> None:
        self.moves = 0

    def act(self, observation: Any, action_mask: np.ndarray, game: Any = None) -> int:
        self.moves += 1
        return int(last_legal(np.asarray(action_mask, dtype=bool)[None])[0])


class Recorder:
    """A batch policy recording every call."""

    def __init__(self) -> None:
        self.calls: list[tuple[np.ndarray, np.ndarray]] = []

    def __call__(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        self.calls.append((obs.copy(), mask.copy()))
        return last_legal(mask)


@pytest.mark.parametrize("backend", ["python", "native"])
def test_batch_policy_plays_the_per_game_agents_games_one_call_per_round(backend: str) -> None:
    n = 6
    policy = Recorder()
    batched = EvenstarVectorEnv(n, opponent=policy, max_decisions=200, backend=backend)
    per_game = EvenstarVectorEnv(n, opponent=LastLegal(), max_decisions=200, backend=backend)
    assert batched.batch_opponent is policy and per_game.batch_opponent is None
    (_, info), (_, ref) = batched.reset(seed=20), per_game.reset(seed=20)
    same_info(unnamed(info), unnamed(ref), "reset")
    rng = np.random.default_rng(0)
    for step in range(250):
        moves = [c.opponent.moves for c in per_game.cores]
        calls = len(policy.calls)
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in batched.action_masks()])
        out = batched.step(acts)
        ref = per_game.step(acts)
        for k in range(4):
            assert np.array_equal(out[k], ref[k]), f"step {step}: output {k}"
        same_info(*[unnamed(o[4]) for o in (out, ref)], f"step {step}")
        made = [c.opponent.moves - m for c, m in zip(per_game.cores, moves, strict=True)]
        new = policy.calls[calls:]
        # one call per round: as many as the longest run of opponent moves, covering them all
        assert len(new) == max(made) and sum(len(m) for _, m in new) == sum(made)
        assert batched.opponent_calls == len(policy.calls)
    info = batched.step(acts)[4]
    assert set(info["opponent"][info["_opponent"]]) == {"Recorder"}


def test_batch_policy_sees_the_opponents_observation_and_mask() -> None:
    calls = []

    def policy(obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        games = [c.game for c in env.cores if c.awaits_opponent()]
        assert len(games) == len(obs) == len(mask)
        for row, m, g in zip(obs, mask, games, strict=True):
            assert g.current_player == "china"
            assert np.array_equal(row, observe(g, "china"))  # the opponent's, not the learner's
            assert np.array_equal(m, g.action_mask())
        calls.append(len(games))
        return np.argmax(mask, axis=1)

    env = EvenstarVectorEnv(3, side="usa", opponent=policy, backend="native")
    env.reset(seed=1)
    for _ in range(100):
        env.step(np.argmax(env.action_masks(), axis=1))
    assert len(calls) >= 10 and max(calls) > 1


def test_bad_batch_policies_are_named() -> None:
    env = EvenstarVectorEnv(2, opponent=lambda obs, mask: np.zeros(len(obs) + 1, dtype=int))
    with pytest.raises(ValueError, match="returned actions of shape"):
        env.reset(seed=0)
    env = EvenstarVectorEnv(2, side="usa", opponent=lambda obs, mask: np.argmin(mask, axis=1))
    with pytest.raises(IllegalActionError, match="batch opponent.s move in game"):
        env.reset(seed=0)
        for _ in range(50):
            env.step(np.argmax(env.action_masks(), axis=1))


def test_learned_spec_is_a_batch_network_choosing_as_the_learned_agent() -> None:
    env = EvenstarVectorEnv(4, opponent="learned")
    assert isinstance(env.batch_opponent, NetworkPolicy)
    _, info = env.reset(seed=0)
    assert list(info["side"]) == ["usa", "china", "usa", "china"]
    assert list(info["seed"]) == [0, 1, 2, 3]
    rng = np.random.default_rng(1)
    for _ in range(10):
        env.step(np.array([rng.choice(np.flatnonzero(m)) for m in env.action_masks()]))
    assert env.opponent_calls > 0
    # position by position, the batch network chooses what LearnedAgent chooses
    agent, games = LearnedAgent(DEFAULT_PATH), [c.game for c in env.cores]
    obs = np.stack([observe(g, g.current_player) for g in games])
    mask = np.stack([g.action_mask() for g in games])
    assert list(env.batch_opponent(obs, mask)) == [agent.act(None, m, g) for m, g in
                                                   zip(mask, games, strict=True)]
    with pytest.raises(Exception, match="cannot read the checkpoint"):
        EvenstarVectorEnv(2, opponent="learned:/nonexistent/snapshot")


def test_native_batch_path_plays_the_per_slot_games_to_their_ends() -> None:
    """On native, a batch opponent moves in one C++ batch (evenstar_env/native/learner.py):
    the same rows, rewards, infos and policy calls as the per-slot games, through games
    that end (by the learner, by the opponent, on an illegal action), partial resets and
    the NEXT_STEP restart, an ended game kept as it ended while the others play on."""
    n = 5
    policy = Recorder()
    batched = EvenstarVectorEnv(n, opponent=policy, reward="vp_diff", backend="native")
    per_game = EvenstarVectorEnv(n, opponent=LastLegal(), reward="vp_diff", backend="native")
    assert batched._native is not None and per_game._native is None
    (obs, info), (ref_obs, ref) = batched.reset(seed=3), per_game.reset(seed=3)
    assert np.array_equal(obs, ref_obs)
    same_info(unnamed(info), unnamed(ref), "reset")
    rng = np.random.default_rng(2)
    ends = illegal = 0
    for step in range(900):
        masks = batched.action_masks()
        assert np.array_equal(masks, per_game.action_masks())
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        if step % 97 == 50:  # an illegal action: the episode is lost
            acts[step % n] = int(np.flatnonzero(~masks[step % n])[0]) if \
                (~masks[step % n]).any() else -1
        calls = len(policy.calls)
        moves = [c.opponent.moves for c in per_game.cores]
        out, ref_out = batched.step(acts), per_game.step(acts)
        for k in range(4):
            assert np.array_equal(out[k], ref_out[k]), f"step {step}: output {k}"
        same_info(*[unnamed(o[4]) for o in (out, ref_out)], f"step {step}")
        made = [c.opponent.moves - m for c, m in zip(per_game.cores, moves, strict=True)]
        assert len(policy.calls) - calls == max(made)
        ended = np.flatnonzero(out[2] | out[3])
        ends += ended.size
        illegal += int(out[4].get("illegal_action", np.zeros(n, bool))[ended].sum())
        for i in ended:  # the ended game stays as it ended until the next step
            assert batched.cores[i].game.to_dict() == per_game.cores[i].game.to_dict()
        if step == 400:
            only = np.array([True, False, True, False, False])
            (o1, i1), (o2, i2) = (e.reset(seed=[9, None, 11, None, None],
                                          options={"reset_mask": only})
                                  for e in (batched, per_game))
            assert np.array_equal(o1, o2)
            same_info(unnamed(i1), unnamed(i2), "partial reset")
    assert ends >= 6 and illegal >= 1
