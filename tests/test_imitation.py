"""Behaviour cloning of the heuristic (experiments/imitation.py), the warm start of training."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest

from agents import HeuristicAgent, RandomAgent
from evenstar_env.wrappers import SingleAgentEnv
from experiments.imitation import _returns, agreement, demonstrations, pretrain
from experiments.selfplay import GameRecord, play_game
from experiments.train_selfplay import TrainConfig, warm_start


def test_returns_discount_the_shaping_and_the_result() -> None:
    # Rewards: (10-0)/10 = 1, (30-10)/10 = 2, then the result +1 and (20-30)/10 = -1.
    assert _returns([0, 10, 30], final=20, outcome=1.0, gamma=0.5, vp_scale=10) == [2.0, 2.0, 0.0]


class _Logged:
    """Wraps an agent and logs every action it takes into a shared list."""

    def __init__(self, agent, log: list[int], name: str) -> None:
        self.agent, self.log, self.name = agent, log, name

    def act(self, observation, action_mask, game=None) -> int:
        a = self.agent.act(observation, action_mask, game)
        self.log.append(int(a))
        return a


def test_demonstration_returns_are_what_the_training_env_pays() -> None:
    log: list[int] = []
    learner = _Logged(HeuristicAgent(0), log, "heuristic")
    env = SingleAgentEnv(side="china", opponent=_Logged(RandomAgent(1), log, "random"),
                         reward="vp_diff", vp_scale=20.0)
    obs, info = env.reset(seed=11)
    rewards = []
    done = False
    while not done:
        obs, r, done, _, step_info = env.step(learner.act(obs, env.action_masks(), env.game))
        rewards.append(r)
    rec = GameRecord(info["seed"], {"usa": "random", "china": "heuristic"}, log,
                     winner=step_info["winner"])
    data = demonstrations([rec], gamma=0.9, vp_scale=20.0)
    paid = [sum(0.9 ** j * r for j, r in enumerate(rewards[k:])) for k in range(len(rewards))]
    assert len(data) == len(rewards)
    assert data.returns == pytest.approx(np.array(paid, dtype=np.float32), abs=1e-4)
    # Every example is a legal choice of China's, seen from China's side.
    assert data.masks[np.arange(len(data)), data.actions].all()
    assert (data.obs[:, env.encoder.layout["me"].start + 1] == 1.0).all()


@pytest.fixture(scope="module")
def small_demos():
    records = [play_game(s, {"usa": HeuristicAgent(s), "china": HeuristicAgent(s + 1)})
               for s in (1, 2)]
    return demonstrations(records)


def test_pretraining_raises_agreement_with_the_heuristic(small_demos) -> None:
    import torch
    from sb3_contrib import MaskablePPO

    torch.manual_seed(0)
    model = MaskablePPO("MlpPolicy", SingleAgentEnv(), device="cpu", seed=0,
                        policy_kwargs={"net_arch": [64, 64]})
    train, held_out = small_demos.split(0.2)
    before = agreement(model.policy, train)
    history = pretrain(model.policy, train, held_out, epochs=6, lr=3e-3)
    assert [row["epoch"] for row in history] == list(range(1, 7))
    assert history[-1]["cross_entropy"] < history[0]["cross_entropy"]
    assert history[-1]["agreement"] > before + 0.1
    assert 0.0 <= history[-1]["held_out_agreement"] <= 1.0


def test_split_keeps_rows_aligned(small_demos) -> None:
    head, tail = small_demos.split(0.25)
    assert len(head) + len(tail) == len(small_demos)
    assert np.array_equal(tail.actions, small_demos.actions[len(head):])
    assert tail.obs.shape[0] == tail.masks.shape[0] == tail.returns.shape[0] == len(tail)


def test_warm_start_logs_and_seeds_the_opponent_pool(tmp_path: Path) -> None:
    from sb3_contrib import MaskablePPO

    cfg = TrainConfig.smoke(str(tmp_path))
    (tmp_path / "snapshots").mkdir()
    (tmp_path / "checkpoints").mkdir()
    model = MaskablePPO("MlpPolicy", SingleAgentEnv(), device="cpu", seed=0,
                        policy_kwargs={"net_arch": cfg.net_arch})
    warm_start(model.policy, cfg, tmp_path, progress=False)
    rows = list(csv.DictReader((tmp_path / "bc.csv").open()))
    assert len(rows) == cfg.bc_epochs and int(rows[0]["examples"]) > 0
    assert (tmp_path / "snapshots" / "snapshot_000000000.pt").exists()
    assert (tmp_path / "checkpoints" / "bc_policy.json").exists()
