"""The SB3 VecEnv over the native batch (evenstar_env.sb3, issue 37): the games of
SingleAgentEnv for the same seeds and opponent choices under SB3's conventions, and
sb3-contrib's MaskablePPO training on it unmodified."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported

from evenstar_env import IllegalActionError
from evenstar_env.engine.rng import Rng
from evenstar_env.learner_batch import UniformRandomPolicy
from evenstar_env.sb3 import EvenstarSB3VecEnv
from evenstar_env.wrappers import SingleAgentEnv


def last_legal(obs: Any, mask: np.ndarray) -> np.ndarray:
    """A batch opponent: the highest legal action of every row."""
    return mask.shape[1] - 1 - np.argmax(mask[:, ::-1], axis=1)


class LastLegal:
    """The same opponent, one game at a time."""

    def act(self, observation: Any, action_mask: np.ndarray, game: Any = None) -> int:
        return int(last_legal(None, np.asarray(action_mask, dtype=bool)[None])[0])


class StreamRandom:
    """The in-batch random opponent, one game at a time: a uniform legal action (in
    ascending order) drawn by ``Rng.below`` from one SplitMix64 stream per slot."""

    def __init__(self, state: int) -> None:
        self.rng = Rng(int(state))

    def act(self, observation: Any, action_mask: np.ndarray, game: Any = None) -> int:
        legal = np.flatnonzero(action_mask)
        return int(legal[self.rng.below(len(legal))])


@pytest.mark.parametrize("reward,opponent", [("win_loss", "last_legal"),
                                             ("vp_diff", "last_legal"),
                                             ("win_loss", "random")])
def test_adapter_plays_the_single_agent_games_with_sb3_autoreset(reward: str,
                                                                 opponent: str) -> None:
    n, seed = 3, 40
    venv = EvenstarSB3VecEnv(n, opponent=last_legal if opponent == "last_legal" else "random",
                             reward=reward)
    venv.seed(seed)
    obs = venv.reset()
    if opponent == "random":  # played in the C++ batch: the same draws, slot by slot
        assert venv.games._in_batch
        agents = [StreamRandom(s) for s in UniformRandomPolicy(seed).streams(n)]
    else:
        agents = [LastLegal() for _ in range(n)]
    envs = [SingleAgentEnv(opponent=agents[i], reward=reward) for i in range(n)]
    games = [0] * n  # games finished per slot

    def start(i: int) -> np.ndarray:
        return envs[i].reset(seed=seed + i + games[i] * n)[0]  # NativeBatch's seeds

    ref = np.stack([start(i) for i in range(n)])
    assert np.array_equal(obs, ref)
    rng = np.random.default_rng(5)
    ends = 0
    for step in range(600):
        masks = get_action_masks(venv)
        assert np.array_equal(masks, np.stack([e.action_masks() for e in envs]))
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        obs, rew, done, infos = venv.step(acts)
        for i, env in enumerate(envs):
            o, r, term, trunc, info = env.step(int(acts[i]))
            assert rew[i] == pytest.approx(r, abs=1e-6), f"step {step} slot {i}"
            assert done[i] == (term or trunc)
            if done[i]:
                ends += 1
                assert np.array_equal(infos[i]["terminal_observation"], o)
                assert {k: infos[i][k] for k in ("winner", "result", "side", "seed")} == \
                    {k: info[k] for k in ("winner", "result", "side", "seed")}
                assert infos[i]["episode"]["l"] > 0
                games[i] += 1
                o = start(i)
            assert np.array_equal(obs[i], o), f"step {step} slot {i}"
        assert rew.dtype == np.float32 and done.dtype == bool
    assert ends >= 2


def test_masks_reach_maskable_ppo_and_illegal_actions_are_refused() -> None:
    venv = EvenstarSB3VecEnv(4)
    assert is_masking_supported(venv)
    venv.reset()
    masks = get_action_masks(venv)
    assert masks.shape == (4, venv.action_space.n) and masks.any(axis=1).all()
    with pytest.raises(IllegalActionError, match="slot 0"):
        venv.step(np.argmin(masks, axis=1))
    with pytest.raises(ValueError, match="batch policy"):
        EvenstarSB3VecEnv(2, opponent="heuristic")


def test_maskable_ppo_learns_on_the_adapter_unmodified() -> None:
    torch.manual_seed(0)
    venv = EvenstarSB3VecEnv(8, reward="vp_diff")
    model = MaskablePPO("MlpPolicy", venv, n_steps=32, batch_size=64, n_epochs=2, seed=0,
                        policy_kwargs={"net_arch": [32, 32]}, device="cpu")
    before = [p.detach().clone() for p in model.policy.parameters()]
    model.learn(512)
    assert model.num_timesteps >= 512
    assert any(not torch.equal(a, b) for a, b in zip(before, model.policy.parameters(),
                                                      strict=True))
    obs = venv.reset()
    actions, _ = model.predict(obs, action_masks=get_action_masks(venv), deterministic=True)
    assert get_action_masks(venv)[np.arange(8), actions].all()  # masked choices only
