"""Behaviour cloning of the heuristic: the warm start of self-play training.

Games of the heuristic (against itself and against random play) are replayed
from their seeds and actions; every decision the heuristic took becomes one
example (the observation of the side to move, its action mask, the action, and
the discounted return that `SingleAgentEnv` would have paid from there).  The
policy is then fitted by masked cross-entropy, its value head by squared error.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from evenstar_env import Game
from evenstar_env.env.observation import encoder_for
from experiments.arena import Job, run_games
from experiments.selfplay import GameRecord

SIDES = ("usa", "china")


@dataclass
class Demonstrations:
    """Aligned example arrays (one row per decision of the demonstrator)."""

    obs: np.ndarray  # float32 [n, observation size]
    masks: np.ndarray  # bool [n, actions]
    actions: np.ndarray  # int64 [n]
    returns: np.ndarray  # float32 [n]

    def __len__(self) -> int:
        return int(self.actions.size)

    def split(self, holdout: float) -> tuple[Demonstrations, Demonstrations]:
        """The first and the last `holdout` share of the rows (rows are in game order)."""
        k = len(self) - int(round(len(self) * holdout))
        head = Demonstrations(self.obs[:k], self.masks[:k], self.actions[:k], self.returns[:k])
        tail = Demonstrations(self.obs[k:], self.masks[k:], self.actions[k:], self.returns[k:])
        return head, tail


def demonstration_games(games: int, seed: int = 0, workers: int = 2,
                        progress: bool = True) -> list[GameRecord]:
    """`games` seeds of heuristic vs heuristic and of heuristic vs random, each side once."""
    jobs = []
    for k in range(games):
        s = seed + k
        jobs += [Job(s, "heuristic", "heuristic"),
                 Job(s, "heuristic", "random") if k % 2 else Job(s, "random", "heuristic")]
    return run_games(jobs, workers=workers, progress=progress)


def demonstrations(records: Iterable[GameRecord], demonstrator: str = "heuristic",
                   gamma: float = 0.995, vp_scale: float = 20.0) -> Demonstrations:
    """Replay the records; keep every decision taken by `demonstrator`."""
    obs, masks, actions = [], [], []
    filled: list[tuple[list[int], list[float]]] = []  # (rows, returns) per game and side
    for rec in records:
        g = Game(rec.seed)
        enc = encoder_for(g.content)
        rows: dict[int, list[int]] = {0: [], 1: []}
        diffs: dict[int, list[int]] = {0: [], 1: []}  # own minus opponent VP at each decision
        for a in rec.actions:
            p = SIDES.index(g.current_player)
            if rec.agents[SIDES[p]] == demonstrator:
                rows[p].append(len(actions))
                obs.append(enc.encode(g._m, p))
                masks.append(g.action_mask())
                actions.append(a)
                vp = g.state.vp
                diffs[p].append(int(vp[p]) - int(vp[1 - p]))
            g.step(a)
        vp = g.state.vp
        for p in (0, 1):
            outcome = 0.0 if rec.winner is None else (1.0 if rec.winner == SIDES[p] else -1.0)
            final = int(vp[p]) - int(vp[1 - p])
            filled.append((rows[p], _returns(diffs[p], final, outcome, gamma, vp_scale)))
    returns = np.zeros(len(actions), dtype=np.float32)
    for rows_p, values in filled:
        returns[rows_p] = values
    return Demonstrations(np.asarray(obs, dtype=np.float32), np.asarray(masks, dtype=bool),
                          np.asarray(actions, dtype=np.int64), returns)


def _returns(diffs: list[int], final: int, outcome: float, gamma: float,
             vp_scale: float) -> list[float]:
    """Discounted returns at each decision: VP-difference shaping and the result, as
    `SingleAgentEnv(reward="vp_diff")` pays them (its first step counts from 0)."""
    out = [0.0] * len(diffs)
    g = outcome + (final - (diffs[-1] if diffs else 0)) / vp_scale
    for k in range(len(diffs) - 1, -1, -1):
        out[k] = g
        prev = diffs[k - 1] if k else 0
        g = (diffs[k] - prev) / vp_scale + gamma * g
    return out


def pretrain(policy: Any, data: Demonstrations, held_out: Demonstrations | None = None,
             epochs: int = 8, lr: float = 3e-4, batch_size: int = 512, vf_coef: float = 0.5,
             seed: int = 0, log: Any = None) -> list[dict[str, float]]:
    """Fit an SB3 masked actor-critic `policy` to the demonstrations, in place.

    Returns per-epoch cross-entropy, value loss and agreement with the
    demonstrator (arg-max over legal actions) on the training rows and on
    `held_out`; `log(row)` is called per epoch.
    """
    import torch

    rng = np.random.default_rng(seed)
    opt = torch.optim.Adam(policy.parameters(), lr=lr)
    obs = torch.as_tensor(data.obs)
    acts = torch.as_tensor(data.actions)
    rets = torch.as_tensor(data.returns)
    history = []
    policy.set_training_mode(True)
    for epoch in range(epochs):
        order = rng.permutation(len(data))
        sums = np.zeros(2)
        for lo in range(0, len(order), batch_size):
            idx = order[lo: lo + batch_size]
            values, log_prob, _ = policy.evaluate_actions(obs[idx], acts[idx],
                                                          action_masks=data.masks[idx])
            policy_loss = -log_prob.mean()
            value_loss = torch.nn.functional.mse_loss(values.flatten(), rets[idx])
            opt.zero_grad()
            (policy_loss + vf_coef * value_loss).backward()
            opt.step()
            sums += np.array([policy_loss.item(), value_loss.item()]) * idx.size
        row = {"epoch": epoch + 1, "cross_entropy": sums[0] / len(data),
               "value_loss": sums[1] / len(data), "agreement": agreement(policy, data),
               "held_out_agreement": agreement(policy, held_out) if held_out else float("nan")}
        history.append(row)
        if log is not None:
            log(row)
    policy.set_training_mode(False)
    return history


def agreement(policy: Any, data: Demonstrations, batch_size: int = 4096) -> float:
    """Share of examples where the policy's most likely legal action is the demonstrator's."""
    import torch

    if len(data) == 0:
        return float("nan")
    hits = 0
    with torch.no_grad():
        for lo in range(0, len(data), batch_size):
            sl = slice(lo, lo + batch_size)
            dist = policy.get_distribution(torch.as_tensor(data.obs[sl]),
                                           action_masks=data.masks[sl])
            best = dist.distribution.probs.argmax(dim=1).numpy()
            hits += int((best == data.actions[sl]).sum())
    return hits / len(data)
