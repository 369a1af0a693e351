"""Batched masked-PPO self-play with a league, a KL anchor and evaluation (CleanRL style).

    python -m experiments.train --name ppo --init runs/bc/checkpoint   # from a cloned policy
    python -m experiments.train --smoke                                # < 1 minute, runs/smoke
                                                  # (replaced each time; never a folder
                                                  # a smoke run did not make)
    python -m experiments.train --name ppo --resume                    # continue runs/ppo

**Rollout.**  A :class:`RolloutWorker` holds ``num_envs`` games of
:class:`~evenstar_env.vector.SelfPlayVectorEnv` (both seats played from outside).  Every
step, all positions whose mover is the learner go through the network in one forward pass
(``torch.no_grad``, masked sampling with the worker's numpy generator, so that a seed fixes
the run); positions of snapshot opponents go through their frozen network, batched per
snapshot; scripted opponents (``heuristic``, ``ismcts``...) act per game through
``act(None, mask, game)``.  Each game keeps its matchup to the end: a *self-play* game (both
seats are learner rows) or a *league* game (the learner on one seat, drawn at random, an
opponent on the other, whose rows are not trained on).

**Returns: sign flip at mover changes.**  Rewards are zero-sum (the result ±1 / draw 0 at
the end, plus the optional VP shaping ``Δ(own VP - opponent VP) / vp_scale``, also zero-sum)
and the value head estimates the result *for the player to move*.  :func:`seat_gae` walks
each game backwards over the rows the learner trains on; between two such rows of one game
the advantage chain continues with the next row's value and advantage, negated when that
row's mover is the other seat, and the reward is what the earlier row's seat earned in
between (its opponent's moves included).  In a self-play game this uses every value
estimate of the game (both seats); in a league game, where only one seat is trained, it is
exactly a per-seat trajectory.  We prefer it to separate per-seat trajectories in self-play
because those bootstrap half as often, so with λ < 1 their advantages reach further and
vary more: a Twilight Struggle project (DeepStruggle) measured per-player GAE 520 Elo
worse.  γ = 1 by default (the game is finite).  The VP shaping defaults to
200 VP per reward unit: at 20 VP per unit (the vector env's default) a game's VP difference
outweighed the result 5-15 times and the old trainer's policy learned to win VP, not games.

**Update.**  Clipped PPO on the learner rows only (advantages normalised per minibatch),
entropy over the legal actions, value MSE, and ``β·KL(π ‖ π_ref)`` toward the reference
policy of ``--init`` (the checkpoint the learner starts from, e.g. behaviour cloning), on
the learner rows only, β annealed linearly from ``--kl-coef`` to ``--kl-coef-final`` over
the run (``--total-steps`` or ``--minutes``, whichever ends it first); no ``--init`` means
a fresh network (``--net``, ``--hidden``, ``--token``) and no KL term.  The first
``--value-warmup`` updates fit the value only (no policy-gradient or entropy term; the KL
anchor stays): a cloned value head has to be refitted on the learner's own games before
its advantages mean anything.
``--war-risk-coef`` adds ``agents/war_risk.py``'s term: where a decision offers both an
action that could start a total war the learner would lose (read from the observation's own
flags: a flagged card, a mode that lets its event happen, the tech race a flagged card needs)
and a safe one, ``-log`` of the probability of the safe ones (docs/agents.md, "War-risk term").

**League.**  A new game is self-play with probability ``--selfplay-frac``, against a
scripted agent (``--scripted``) with ``--scripted-frac`` (scripted agents cost ~25 learner
samples a decision), else against a snapshot: the ``--pool-size`` most recent of the
snapshots saved every ``--snapshot-every`` updates, plus the ``--init`` policy.  Within each
group the opponent is drawn by prioritised fictitious self-play: weight
``(1 - x)^power + floor``, x the learner's running score against it (win 1, draw ½).

**Evaluation.**  Every ``--eval-every`` updates the greedy learner plays each
``--eval-opponents`` agent on paired seeds from ``--eval-seed`` (5000-5099; the arena
reports on 30000+ and 40000+, never used here), both sides of every seed; written to
``eval.csv``, TensorBoard (``tb/``) and ``eval.png``.  The checkpoint with the best score
against the first evaluation opponent (ties: the best mean over all of them) is kept as
``checkpoints/best``.

**Outputs** (``runs/NAME/``): ``config.json``, ``train.csv`` (losses, KL, β, throughput and
its split), ``eval.csv``, ``eval.png``, ``tb/``, ``checkpoints/latest`` and ``best``
(:func:`agents.networks.save_checkpoint` folders; ``latest`` also holds ``optimizer.pt``
and ``state.json`` for ``--resume``), ``snapshots/``.  A resumed run keeps its weights,
optimizer, league and counters; games in flight are not saved, they start afresh.

**Backends.**  ``--backend local`` runs ``--workers`` rollout workers in this process, one
after the other; ``--backend ray`` runs them as Ray actors (``--ray-address`` joins a
cluster, else a local one is started), the evaluation games split among them.  Both give
the same batches for the same seed.  ``--overlap`` collects the next batch while the update
runs (one update stale; the PPO ratio is taken against the policy that collected it): on
Ray the actors' processes run it in parallel with the update; locally only the order
changes (the same batches as Ray, no speed-up).
``--env-backend`` is passed to the vector env as ``backend=`` (the native core), unset
means the env's default.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import shutil
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

import numpy as np
import torch

from agents.networks import (
    NETWORKS,
    CheckpointError,
    NetConfig,
    build_network,
    fresh_config,
    legal_log_probs,
    legal_probs,
    load_checkpoint,
    masked_logits,
    save_checkpoint,
    torch_threads,
)
from agents.specs import make_agent
from agents.war_risk import WarRisk
from evenstar_env.content import Content, load_content
from evenstar_env.vector import SelfPlayVectorEnv
from experiments.devices import resolve_device
from experiments.files import LOCK_NAME, OutputDirError, ensure_output_dir, folder_lock
from experiments.limits import MAX_SEED
from experiments.stats import wilson
from experiments.train_state import load_optimizer, read_json, read_state, run_config

TRAIN_SEED0 = 1_000_000  # training games: far from evaluation (5000+) and arena seeds (30000+)
EVAL_SEEDS = range(5000, 5100)


def _opt(default: Any, help: str) -> Any:
    return field(default=default, metadata={"help": help})


@dataclass
class TrainConfig:
    """Everything a run depends on (saved as runs/NAME/config.json)."""

    name: str = _opt("ppo", "run folder runs/NAME")
    runs_dir: str = _opt("runs", "where run folders go")
    init: str = _opt("", "start from this networks checkpoint; it is also the KL reference")
    content: str = _opt("shipped", "content folder or overlay to train on (an --init that "
                                   "reads cards by their data carries over to a new deck)")
    net: str = _opt("mlp", "network kind when there is no --init (agents/networks.py)")
    hidden: str = _opt("512,512", "layer widths (the structured kind's trunk) when there is "
                                  "no --init")
    token: int = _opt(32, "the structured kind's token width when there is no --init")
    device: str = _opt("cpu", "auto, cpu, cuda, cuda:N or mps (the update; rollouts run on "
                              "the CPU)")
    threads: int = _opt(1, "torch threads for the update (rollouts use 1); 2 only on an "
                           "idle machine")
    threads_idle: int = _opt(0, "torch threads for the rest of an update once no rollout "
                                "runs beside it (--overlap: the next batch is in); 0: "
                                "--threads. Makes runs timing-dependent")
    seed: int = _opt(0, "fixes games, sampling and initialisation")
    backend: str = _opt("local", "rollout workers: local (this process) or ray")
    workers: int = _opt(1, "rollout workers, each with --num-envs games")
    overlap: bool = _opt(False, "collect the next batch during the update (one update "
                                "stale; in parallel with --backend ray)")
    ray_address: str = _opt("", "join this Ray cluster (default: start a local one)")
    env_backend: str = _opt("", "passed to SelfPlayVectorEnv as backend= (unset: default)")
    num_envs: int = _opt(64, "games per worker")
    rollout_steps: int = _opt(128, "vector-env steps per worker per update")
    total_steps: int = _opt(10_000_000, "stop after this many learner samples")
    minutes: float = _opt(0.0, "stop after this many minutes (0: no limit)")
    lr: float = _opt(2.5e-4, "Adam learning rate")
    epochs: int = _opt(3, "passes over each batch")
    minibatch: int = _opt(1024, "samples per gradient step")
    clip: float = _opt(0.2, "PPO ratio clip")
    vf_coef: float = _opt(0.5, "value loss weight")
    ent_coef: float = _opt(0.003, "entropy bonus (over legal actions)")
    max_grad_norm: float = _opt(0.5, "gradient norm clip")
    gamma: float = _opt(1.0, "discount per learner row")
    gae_lambda: float = _opt(0.95, "GAE lambda")
    vp_scale: float = _opt(200.0, "VP per reward unit of the shaping (0: result only)")
    kl_coef: float = _opt(0.1, "beta of KL(pi||pi_ref) at the start")
    kl_coef_final: float = _opt(0.01, "beta at the end of the run (linear over "
                                      "--total-steps or --minutes, whichever is shorter)")
    value_warmup: int = _opt(0, "first updates that fit the value only (no policy or "
                                "entropy term; the KL anchor stays)")
    war_risk_coef: float = _opt(0.0, "weight of -log P(safe actions) where a decision also "
                                     "offers one that could start a lost total war "
                                     "(agents/war_risk.py; 0: off)")
    selfplay_frac: float = _opt(0.65, "share of new games in self-play")
    scripted_frac: float = _opt(0.05, "share of new games against a scripted agent")
    scripted: str = _opt("heuristic", "scripted opponents, comma-separated agent specs")
    china_frac: float = _opt(0.5, "share of league games in which the learner plays China "
                                  "(more for the side it is weaker on)")
    pool_size: int = _opt(8, "most recent snapshots in the league")
    exploiters: str = _opt("", "checkpoint folders of frozen networks (exploiters of this "
                               "policy, experiments/exploit.py) that join the league's "
                               "snapshots for good, comma-separated")
    snapshot_greedy: bool = _opt(False, "snapshot opponents play their most likely action "
                                        "(as a learned agent does) instead of sampling")
    snapshot_every: int = _opt(20, "updates between snapshots")
    pfsp_power: float = _opt(2.0, "PFSP weight (1 - score)^power + floor")
    pfsp_floor: float = _opt(0.05, "PFSP weight floor")
    eval_every: int = _opt(40, "updates between evaluations (20 games vs the heuristic"
                                   " cost ~25 core-seconds)")
    eval_games: int = _opt(10, "paired seeds per evaluation opponent (2 games each)")
    eval_seed: int = _opt(5000, "first evaluation seed (5000-5099)")
    eval_opponents: str = _opt("heuristic,random", "evaluation opponents (first: best)")
    checkpoint_every: int = _opt(10, "updates between checkpoints")

    def check(self) -> None:
        for f in fields(self):
            value, flag = getattr(self, f.name), "--" + f.name.replace("_", "-")
            if isinstance(value, float) and not math.isfinite(value) and f.name != "minutes":
                raise ValueError(f"{flag} must be a finite number, not {value}")
            if isinstance(value, int) and not isinstance(value, bool) \
                    and abs(value) > INT_CAPS.get(f.name, MAX_SEED):
                raise ValueError(f"{flag} must be at most {INT_CAPS.get(f.name, MAX_SEED):,}, "
                                 f"not {value}")
        for name in ("num_envs", "rollout_steps", "workers", "epochs", "minibatch",
                     "total_steps", "pool_size", "snapshot_every", "eval_every", "eval_games",
                     "checkpoint_every", "threads", "token"):
            if getattr(self, name) < 1:
                raise ValueError(f"--{name.replace('_', '-')} must be at least 1, "
                                 f"not {getattr(self, name)}")
        if self.seed < 0:
            raise ValueError(f"--seed must be at least 0, not {self.seed}")
        if not (self.lr > 0 and self.clip > 0 and 0 < self.gamma <= 1
                and 0 <= self.gae_lambda <= 1 and self.minutes >= 0):
            raise ValueError("--lr and --clip must be positive, --gamma in (0, 1], "
                             "--gae-lambda in [0, 1], --minutes at least 0")
        if self.threads_idle < 0:
            raise ValueError(f"--threads-idle must be at least 0, not {self.threads_idle}")
        if self.value_warmup < 0:
            raise ValueError(f"--value-warmup must be at least 0, not {self.value_warmup}")
        if self.war_risk_coef < 0:
            raise ValueError(f"--war-risk-coef must be at least 0, not {self.war_risk_coef}")
        if self.net not in NETWORKS:
            raise ValueError(f"--net must be one of {sorted(NETWORKS)}, not {self.net!r}")
        if self.backend not in ("local", "ray"):
            raise ValueError(f"--backend must be local or ray, not {self.backend!r}")
        if self.backend == "ray" and self.ray_address:
            from experiments.ray_backend import check_address

            check_address(self.ray_address)  # ray.init waits minutes on a bad one
        seeds = range(self.eval_seed, self.eval_seed + self.eval_games)
        if seeds.start < EVAL_SEEDS.start or seeds.stop > EVAL_SEEDS.stop:
            raise ValueError(f"evaluation seeds {seeds.start}-{seeds.stop - 1} leave "
                             f"{EVAL_SEEDS.start}-{EVAL_SEEDS.stop - 1}")
        if self.selfplay_frac + self.scripted_frac > 1 + 1e-9:
            raise ValueError("--selfplay-frac + --scripted-frac must be at most 1")
        if not 0 <= self.china_frac <= 1:
            raise ValueError(f"--china-frac must be in [0, 1], not {self.china_frac}")
        self.device = resolve_device(self.device)

    @property
    def run_dir(self) -> Path:
        return Path(self.runs_dir) / self.name

    @property
    def batch_rows(self) -> int:
        return self.workers * self.num_envs * self.rollout_steps


# Upper bounds of the integer settings (any other: MAX_SEED): a typo such as
# --num-envs 10**9 is refused at once instead of filling the memory.
INT_CAPS = {"num_envs": 16_384, "rollout_steps": 1 << 20, "workers": 512, "epochs": 10_000,
            "minibatch": 1 << 24, "pool_size": 10_000, "threads": 1_024,
            "threads_idle": 1_024, "token": 1_024, "eval_games": 100, "value_warmup": 1 << 30}


SMOKE = dict(name="smoke", hidden="32,32", num_envs=6, rollout_steps=24, total_steps=500,
             epochs=1, minibatch=64, snapshot_every=1, eval_every=2, eval_games=1,
             checkpoint_every=1, scripted_frac=0.2, selfplay_frac=0.4, threads=1)
RESUMABLE = ("total_steps", "minutes", "device", "threads", "threads_idle", "backend",
             "workers", "ray_address", "env_backend", "runs_dir", "name")  # may change on --resume


# --------------------------------------------------------------------------- returns
def seat_gae(values: np.ndarray, rewards: np.ndarray, players: np.ndarray,
             learner: np.ndarray, ended: np.ndarray, boot_values: np.ndarray,
             boot_players: np.ndarray, gamma: float, lam: float
             ) -> tuple[np.ndarray, np.ndarray]:
    """Advantages and returns of the learner rows, sign flip at mover changes.

    Arrays are ``[T, N]`` (step, game slot): ``values`` the value of row (t, i) for its
    mover ``players`` (0 US, 1 China, -1 a just-ended row), ``rewards[T, N, 2]`` what the
    step after row t paid each seat, ``learner`` which rows are trained, ``ended`` whether
    that step ended the game.  ``boot_values[N]`` / ``boot_players[N]``: the value and mover
    of the row after the last step (mover -1: no game to continue).  Rows that are not
    learner rows get 0."""
    T, N = values.shape
    adv = np.zeros((T, N), dtype=np.float32)
    slots = np.arange(N)
    next_value = np.where(boot_players >= 0, boot_values, 0.0).astype(np.float64)
    next_player = boot_players.astype(np.int64).copy()
    next_adv = np.zeros(N)
    terminal = boot_players < 0
    pending = np.zeros((N, 2))  # reward earned since the row being looked at, per seat
    for t in range(T - 1, -1, -1):
        done = ended[t]
        terminal = terminal | done
        next_value[done], next_adv[done], pending[done] = 0.0, 0.0, 0.0
        pending += rewards[t]
        rows = learner[t]
        if not rows.any():
            continue
        seat = np.maximum(players[t], 0)
        sign = np.where(next_player == seat, 1.0, -1.0)
        cont = np.where(terminal, 0.0, gamma * sign)
        delta = pending[slots, seat] + cont * next_value - values[t]
        a = delta + cont * lam * next_adv
        adv[t] = np.where(rows, a, 0.0)
        next_value = np.where(rows, values[t], next_value)
        next_adv = np.where(rows, a, next_adv)
        next_player = np.where(rows, seat, next_player)
        terminal = terminal & ~rows
        pending[rows] = 0.0
    returns = np.where(learner, adv + values, 0.0).astype(np.float32)
    return adv, returns


# --------------------------------------------------------------------------- league
def pfsp_weights(scores: np.ndarray, power: float, floor: float) -> np.ndarray:
    """Sampling weights of opponents from the learner's scores against them (0..1): an
    opponent that still beats the learner is drawn more ("hard" PFSP)."""
    return (1.0 - np.clip(scores, 0.0, 1.0)) ** power + floor


@dataclass
class League:
    """Opponents by group ("snapshot" or "scripted") and the learner's running score
    against each (an exponential average with a prior of ½)."""

    entries: dict[str, str] = field(default_factory=dict)  # name -> group
    scores: dict[str, float] = field(default_factory=dict)
    games: dict[str, int] = field(default_factory=dict)
    decay: float = 0.05

    def add(self, name: str, group: str) -> None:
        self.entries[name] = group
        self.scores.setdefault(name, 0.5)
        self.games.setdefault(name, 0)

    def remove(self, name: str) -> None:
        for d in (self.entries, self.scores, self.games):
            d.pop(name, None)

    def record(self, name: str, score: float) -> None:
        if name in self.entries:
            self.scores[name] += self.decay * (score - self.scores[name])
            self.games[name] += 1

    def table(self, cfg: TrainConfig) -> dict[str, list[tuple[str, float]]]:
        """Per group, the opponents and their PFSP weights (sent to the workers)."""
        out: dict[str, list[tuple[str, float]]] = {"snapshot": [], "scripted": []}
        for name, group in self.entries.items():
            out[group].append(name)  # type: ignore[arg-type]
        for group, names in out.items():
            w = pfsp_weights(np.array([self.scores[n] for n in names]), cfg.pfsp_power,
                             cfg.pfsp_floor)
            out[group] = list(zip(names, (float(x) for x in w), strict=True))
        return out


def draw_matchup(rng: np.random.Generator, table: dict[str, list[tuple[str, float]]],
                 cfg: TrainConfig) -> str | None:
    """The opponent of a new game (None: self-play), by group share then PFSP weight."""
    u = rng.random()
    group = ("selfplay" if u < cfg.selfplay_frac else
             "scripted" if u < cfg.selfplay_frac + cfg.scripted_frac else "snapshot")
    if group == "selfplay" or not table.get(group):
        return None
    names, w = zip(*table[group], strict=True)
    p = np.asarray(w) / np.sum(w)
    return str(names[int(rng.choice(len(names), p=p))])


# --------------------------------------------------------------------------- policy
def sample_actions(logits: torch.Tensor, mask: np.ndarray, rng: np.random.Generator,
                   greedy: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Masked sampling (inverse CDF with `rng`, so a numpy seed fixes it): actions, log-probs."""
    logp = torch.log_softmax(masked_logits(logits, torch.from_numpy(mask)), -1).numpy()
    if greedy:
        acts = np.argmax(np.where(mask, logp, -np.inf), axis=1)
    else:
        cum = np.cumsum(np.exp(logp.astype(np.float64)), axis=1)
        u = 1.0 - rng.random(len(mask))  # in (0, 1]: never lands on a zero-probability action
        acts = (cum < (u * cum[:, -1])[:, None]).sum(1)
    return acts, logp[np.arange(len(acts)), acts]


def kl_to_reference(logits: torch.Tensor, ref_logp: torch.Tensor, mask: torch.Tensor,
                    learner: torch.Tensor | None = None) -> torch.Tensor:
    """Mean KL(π ‖ π_ref) over the legal actions of the rows where `learner` is True."""
    logp = torch.log_softmax(masked_logits(logits, mask), -1)
    kl = (legal_probs(logp, mask) * torch.where(mask, logp - ref_logp, 0.0)).sum(-1)
    if learner is None:
        return kl.mean()
    w = learner.float()
    return (kl * w).sum() / w.sum().clamp(min=1.0)


def adam(params: Iterable[torch.nn.Parameter], lr: float, device: str = "cpu",
         eps: float = 1e-5) -> torch.optim.Adam:
    """Adam as the trainers use it: PyTorch's fused kernel on a CPU or a GPU (one pass
    over all parameters: 0.55 ms a step for the shipped network against 2.8 ms)."""
    return torch.optim.Adam(params, lr=lr, eps=eps,
                            fused=torch.device(device).type in ("cpu", "cuda") or None)


def make_env(cfg: TrainConfig, n: int) -> SelfPlayVectorEnv:
    reward = "vp_diff" if cfg.vp_scale > 0 else "win_loss"
    kw: dict[str, Any] = {"backend": cfg.env_backend} if cfg.env_backend else {}
    return SelfPlayVectorEnv(n, reward=reward, vp_scale=cfg.vp_scale or 1.0,
                             content=load_content(cfg.content), **kw)


def learner_score(env: SelfPlayVectorEnv, i: int, seat: int, total: float) -> float:
    """The learner's result in slot i's ended game (1 win, ½ draw, 0 loss); from the game
    when the env exposes it, else from the sign of the seat's total reward."""
    games = getattr(env, "games", None)
    r = games[i].returns()["usa" if seat == 0 else "china"] if games is not None else total
    return 1.0 if r > 0 else 0.0 if r < 0 else 0.5


# --------------------------------------------------------------------------- rollout
class RolloutWorker:
    """`num_envs` games, a copy of the learner and the league's frozen opponents."""

    def __init__(self, cfg: dict[str, Any], net_cfg: dict[str, Any], index: int) -> None:
        self.cfg = TrainConfig(**cfg)
        self.content = load_content(self.cfg.content)
        self.net_cfg = _net_config(net_cfg)
        self.net = build_network(self.net_cfg, self.content).eval()
        self.snapshots: dict[str, torch.nn.Module] = {}
        self.retired: set[str] = set()
        self.scripted: dict[str, list[Any]] = {}
        self.index = index
        self.rng = np.random.default_rng([self.cfg.seed, index])
        n = self.cfg.num_envs
        self.env = make_env(self.cfg, n)
        self.obs, self.mask, self.player = self.env.reset(
            seed=TRAIN_SEED0 + 10_000 * self.cfg.seed + n * index)
        self.opponent: list[str | None] = [None] * n  # None: self-play
        self.seat = np.zeros(n, dtype=np.int64)  # the learner's seat in a league game
        self.game_id = np.arange(n, dtype=np.int64) + n * 1_000_000 * index  # for the batch
        self.next_game_id = n * 1_000_000 * index + n
        self.drawn = False  # the first games' matchups are drawn by the first collect
        self.total = np.zeros((n, 2))  # reward so far in each slot's game, per seat
        self.length = np.zeros(n, dtype=np.int64)

    # -- league state sent by the learner
    def add_snapshot(self, name: str, state: dict[str, torch.Tensor],
                     net_cfg: NetConfig | None = None) -> None:
        """A frozen network joins the league as `name`: a copy of the learner, or one of
        `net_cfg`'s kind and sizes (an exploiter's target, another league's network)."""
        net = build_network(net_cfg or self.net_cfg, self.content)
        net.load_state_dict(state)
        self.snapshots[name] = net.eval()

    def drop_snapshot(self, name: str) -> None:
        """Leave `name` out of new games; its net goes once no game plays it."""
        self.retired.add(name)
        self._forget_retired()

    def _forget_retired(self) -> None:
        for name in list(self.retired):
            if name not in self.opponent:
                self.snapshots.pop(name, None)
                self.retired.discard(name)

    def _scripted_agent(self, spec: str, i: int, seed: int) -> Any:
        agents = self.scripted.setdefault(spec, [None] * self.cfg.num_envs)
        if agents[i] is None:
            agents[i] = make_agent(spec, seed)
        elif hasattr(agents[i], "reseed"):
            agents[i].reseed(seed)
        return agents[i]

    def _is_learner(self, player: np.ndarray) -> np.ndarray:
        selfplay = np.array([o is None for o in self.opponent])
        return (player >= 0) & (selfplay | (player == self.seat))

    def _opponent_actions(self, rows: np.ndarray, acts: np.ndarray, greedy: bool) -> float:
        """Fill `acts` for the opponent rows; returns the seconds the frozen nets took."""
        t_net = 0.0
        by_net: dict[str, list[int]] = {}
        for i in np.flatnonzero(rows):
            name = self.opponent[i]
            if name in self.snapshots:
                by_net.setdefault(name, []).append(int(i))
            else:
                agent = self.scripted[name][i]
                acts[i] = agent.act(None, self.mask[i], self.env.games[i])
        for name, idx in by_net.items():
            t0 = time.perf_counter()
            with torch.no_grad():
                logits, _ = self.snapshots[name](torch.from_numpy(self.obs[idx]),
                                                  torch.from_numpy(self.mask[idx]))
            acts[idx], _ = sample_actions(logits, self.mask[idx], self.rng, greedy)
            t_net += time.perf_counter() - t0
        return t_net

    def _new_game(self, i: int, table: dict[str, list[tuple[str, float]]]) -> None:
        """Choose slot i's next matchup (its game starts at the next step)."""
        self.opponent[i] = draw_matchup(self.rng, table, self.cfg)
        self.seat[i] = int(self.rng.random() < self.cfg.china_frac)  # 1: China
        name = self.opponent[i]
        if name is not None and name not in self.snapshots:
            self._scripted_agent(name, i, int(self.rng.integers(2**31)))
        self.total[i], self.length[i] = 0.0, 0
        self.game_id[i], self.next_game_id = self.next_game_id, self.next_game_id + 1

    def collect(self, state: dict[str, torch.Tensor],
                table: dict[str, list[tuple[str, float]]]) -> dict[str, Any]:
        """`rollout_steps` steps of every game with the learner's weights `state`: the
        learner rows with their advantages, the league results and the time split."""
        with torch_threads(1):  # batches of a few dozen rows: a second thread only costs
            return self._collect(state, table)

    def _collect(self, state: dict[str, torch.Tensor],
                 table: dict[str, list[tuple[str, float]]]) -> dict[str, Any]:
        self.net.load_state_dict(state)
        cfg, n, T = self.cfg, self.cfg.num_envs, self.cfg.rollout_steps
        if not self.drawn:  # the reset's games have not moved yet: give them matchups
            for i in range(n):
                self._new_game(i, table)
            self.drawn = True
        obs_rows: list[np.ndarray] = []
        mask_rows: list[np.ndarray] = []
        act_rows: list[np.ndarray] = []
        logp_rows: list[np.ndarray] = []
        values = np.zeros((T, n), dtype=np.float32)
        players = np.zeros((T, n), dtype=np.int64)
        games = np.zeros((T, n), dtype=np.int64)
        learner = np.zeros((T, n), dtype=bool)
        rewards = np.zeros((T, n, 2))
        ended = np.zeros((T, n), dtype=bool)
        results: list[tuple[str, float]] = []
        lengths: list[int] = []
        t_env = t_fwd = t_opp = 0.0
        for t in range(T):
            rows = self._is_learner(self.player)
            idx = np.flatnonzero(rows)
            acts = np.zeros(n, dtype=np.int64)
            t0 = time.perf_counter()
            with torch.no_grad():
                logits, value = self.net(torch.from_numpy(self.obs[idx]),
                                         torch.from_numpy(self.mask[idx]))
            a, lp = sample_actions(logits, self.mask[idx], self.rng)
            t_fwd += time.perf_counter() - t0
            acts[idx] = a
            obs_rows.append(self.obs[idx])
            mask_rows.append(self.mask[idx])
            act_rows.append(a)
            logp_rows.append(lp)
            values[t, idx] = value.numpy()
            players[t], learner[t], games[t] = self.player, rows, self.game_id
            t0 = time.perf_counter()
            opp = (self.player >= 0) & ~rows
            t_net = self._opponent_actions(opp, acts, greedy=self.cfg.snapshot_greedy)
            t_fwd += t_net
            t_opp += time.perf_counter() - t0 - t_net
            t0 = time.perf_counter()
            self.obs, self.mask, self.player, reward, term, trunc = self.env.step(acts)
            t_env += time.perf_counter() - t0
            rewards[t], ended[t] = reward, term | trunc
            self.total += reward
            self.length += self.player >= 0
            for i in np.flatnonzero(self.player < 0):
                name = self.opponent[i]
                if name is not None:
                    seat = int(self.seat[i])
                    results.append((name, learner_score(self.env, i, seat, self.total[i, seat])))
                lengths.append(int(self.length[i]))
                self._new_game(i, table)
        self._forget_retired()
        t0 = time.perf_counter()
        boot_players = self.player.copy()
        boot_values = np.zeros(n, dtype=np.float32)
        live = np.flatnonzero(boot_players >= 0)
        with torch.no_grad():
            boot_values[live] = self.net(torch.from_numpy(self.obs[live]),
                                         torch.from_numpy(self.mask[live]))[1].numpy()
        t_fwd += time.perf_counter() - t0
        adv, ret = seat_gae(values, rewards, players, learner, ended, boot_values,
                            boot_players, cfg.gamma, cfg.gae_lambda)
        order = np.nonzero(learner)  # (t, i) in step order, as the rows were appended
        return {"obs": np.concatenate(obs_rows), "mask": np.concatenate(mask_rows),
                "act": np.concatenate(act_rows), "logp": np.concatenate(logp_rows),
                "value": values[order], "adv": adv[order], "ret": ret[order],
                "player": players[order].astype(np.int8), "game": games[order],
                "results": results, "lengths": lengths,
                "time": {"env": t_env, "forward": t_fwd, "opponent": t_opp}}

    def evaluate(self, state: dict[str, torch.Tensor], spec: str, seeds: list[int]
                 ) -> list[dict[str, Any]]:
        """The greedy learner against `spec` on `seeds`, both sides of each: one record a
        game (seed, learner side, score)."""
        with torch_threads(1):
            return self._evaluate(state, spec, seeds)

    def _evaluate(self, state: dict[str, torch.Tensor], spec: str, seeds: list[int]
                  ) -> list[dict[str, Any]]:
        self.net.load_state_dict(state)
        jobs = [(s, side) for s in seeds for side in (0, 1)]
        env = make_env(self.cfg, len(jobs))
        obs, mask, player = env.reset(seed=[s for s, _ in jobs])
        seat = np.array([side for _, side in jobs])
        agents = [make_agent(spec, 2 * s + 1 - side) for s, side in jobs]
        out: list[dict[str, Any] | None] = [None] * len(jobs)
        while any(r is None for r in out):
            acts = np.zeros(len(jobs), dtype=np.int64)
            mine = np.flatnonzero(player == seat)
            if mine.size:
                with torch.no_grad():
                    logits, _ = self.net(torch.from_numpy(obs[mine]), torch.from_numpy(mask[mine]))
                acts[mine] = sample_actions(logits, mask[mine], self.rng, greedy=True)[0]
            for i in np.flatnonzero((player >= 0) & (player != seat)):
                if out[i] is None:
                    acts[i] = agents[i].act(None, mask[i], env.games[i])
            for i in np.flatnonzero([r is not None for r in out]):
                acts[i] = np.argmax(mask[i])  # a finished slot's next game: any legal move
            obs, mask, player, _, term, trunc = env.step(acts)
            for i in np.flatnonzero(term | trunc):
                if out[i] is None:
                    out[i] = {"seed": jobs[i][0], "side": int(seat[i]),
                              "score": learner_score(env, i, int(seat[i]), 0.0)}
        return [r for r in out if r is not None]


def _net_config(d: dict[str, Any]) -> NetConfig:
    d = dict(d)
    d["hidden"] = tuple(d.get("hidden", ()))
    return NetConfig(**d)


# --------------------------------------------------------------------------- backends
class LocalWorkers:
    """Rollout workers in this process, called one after the other (with ``--overlap``
    too: the order of the calls changes, not their parallelism; a background thread was
    measured to gain nothing, the rollout's Python and the update share the GIL)."""

    def __init__(self, cfg: TrainConfig, net_cfg: NetConfig) -> None:
        self.workers = [RolloutWorker(asdict(cfg), asdict(net_cfg), k)
                        for k in range(cfg.workers)]

    def submit(self, method: str, *args: Any) -> Any:
        """Start ``method(*args)`` on every worker; :meth:`wait` gives the results."""
        return [getattr(w, method)(*args) for w in self.workers]

    def wait(self, handle: Any) -> list[Any]:
        return handle

    def ready(self, handle: Any) -> bool:
        """Whether :meth:`wait` would return at once."""
        return True

    def call(self, method: str, *args: Any) -> list[Any]:
        return self.wait(self.submit(method, *args))

    def call_each(self, method: str, args: list[tuple]) -> list[Any]:
        """Worker k runs ``method(*args[k])`` (the first len(args) workers)."""
        return [getattr(w, method)(*a) for w, a in zip(self.workers[:len(args)], args,
                                                        strict=True)]

    def close(self) -> None:
        self.workers = []


class RayWorkers(LocalWorkers):
    """The same workers as Ray actors (one CPU each)."""

    def __init__(self, cfg: TrainConfig, net_cfg: NetConfig) -> None:
        import ray

        self.ray = ray
        self.started = not ray.is_initialized()
        if self.started:
            ray.init(address=cfg.ray_address or None,
                     num_cpus=None if cfg.ray_address else max(cfg.workers, 1),
                     include_dashboard=False, log_to_driver=False, logging_level="ERROR")
        actor = ray.remote(num_cpus=1)(RolloutWorker)
        self.workers = [actor.remote(asdict(cfg), asdict(net_cfg), k)
                        for k in range(cfg.workers)]

    def submit(self, method: str, *args: Any) -> Any:
        refs = [self.ray.put(a) if isinstance(a, dict) else a for a in args]
        return [getattr(w, method).remote(*refs) for w in self.workers]

    def wait(self, handle: Any) -> list[Any]:
        return self.ray.get(handle)

    def ready(self, handle: Any) -> bool:
        return len(self.ray.wait(handle, num_returns=len(handle), timeout=0)[0]) == len(handle)

    def call_each(self, method: str, args: list[tuple]) -> list[Any]:
        return self.ray.get([getattr(w, method).remote(*a)
                             for w, a in zip(self.workers[:len(args)], args, strict=True)])

    def close(self) -> None:
        for w in self.workers:
            self.ray.kill(w)
        self.workers = []
        if self.started:
            self.ray.shutdown()


# --------------------------------------------------------------------------- update
def ppo_update(net: torch.nn.Module, opt: torch.optim.Optimizer, batch: dict[str, Any],
               ref: torch.nn.Module | None, beta: float, cfg: TrainConfig,
               rng: np.random.Generator, value_only: bool = False,
               war_risk: WarRisk | None = None,
               before_step: Callable[[], None] | None = None) -> dict[str, float]:
    """Clipped PPO epochs over `batch` (learner rows only), with β·KL toward `ref` and,
    given `war_risk`, ``--war-risk-coef`` times its term; `value_only` drops the policy,
    entropy and war-risk terms (the value warm-up).  `before_step` runs before each
    gradient step."""
    dev = next(net.parameters()).device
    obs = torch.from_numpy(batch["obs"]).to(dev)
    mask = torch.from_numpy(batch["mask"]).to(dev)
    act = torch.from_numpy(batch["act"]).to(dev)
    old_logp = torch.from_numpy(batch["logp"]).to(dev)
    adv = torch.from_numpy(batch["adv"]).to(dev)
    ret = torch.from_numpy(batch["ret"]).to(dev)
    ref_logp = None
    if ref is not None and beta > 0:
        ref_logp = legal_log_probs(ref, obs, mask)[0]
    stats: dict[str, list[float]] = {k: [] for k in ("policy_loss", "value_loss", "entropy",
                                                     "kl_ref", "approx_kl", "clipfrac",
                                                     "war_risk", "war_risk_rows")}
    net.train()
    B = len(obs)
    for _ in range(cfg.epochs):
        perm = torch.from_numpy(rng.permutation(B)).to(dev)
        for k in range(0, B, cfg.minibatch):
            mb = perm[k:k + cfg.minibatch]
            if before_step is not None:
                before_step()
            o, m = obs.index_select(0, mb), mask.index_select(0, mb)  # 3x faster than [mb]
            logits, value = net(o, m)
            logp_all = torch.log_softmax(logits, -1)  # masked by the network
            logp = logp_all.gather(1, act[mb, None]).squeeze(1)
            ratio = (logp - old_logp[mb]).exp()
            a = adv[mb]
            a = (a - a.mean()) / (a.std() + 1e-8) if len(mb) > 1 else a
            pg = -torch.min(ratio * a, ratio.clamp(1 - cfg.clip, 1 + cfg.clip) * a).mean()
            vloss = 0.5 * (value - ret[mb]).pow(2).mean()
            ent = -(legal_probs(logp_all, m) * logp_all.masked_fill(~m, 0.0)).sum(-1).mean()
            loss = cfg.vf_coef * vloss
            if not value_only:
                loss = loss + pg - cfg.ent_coef * ent
            kl_ref = torch.zeros(())
            if ref_logp is not None:
                kl_ref = kl_to_reference(logits, ref_logp[mb], m)
                loss = loss + beta * kl_ref
            risk, rows = torch.zeros(()), 0
            if war_risk is not None and cfg.war_risk_coef > 0 and not value_only:
                risk, rows = war_risk.loss(logp_all, m, o)
                loss = loss + cfg.war_risk_coef * risk
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(net.parameters(), cfg.max_grad_norm)
            opt.step()
            with torch.no_grad():
                stats["policy_loss"].append(float(pg))
                stats["value_loss"].append(float(vloss))
                stats["entropy"].append(float(ent))
                stats["kl_ref"].append(float(kl_ref))
                stats["war_risk"].append(float(risk))
                stats["war_risk_rows"].append(float(rows))
                stats["approx_kl"].append(float(((ratio - 1) - (logp - old_logp[mb])).mean()))
                stats["clipfrac"].append(float(((ratio - 1).abs() > cfg.clip).float().mean()))
    net.eval()
    return {k: float(np.mean(v)) if v else 0.0 for k, v in stats.items()}


def merge(parts: list[dict[str, Any]]) -> dict[str, Any]:
    """The workers' batches as one."""
    out: dict[str, Any] = {k: np.concatenate([p[k] for p in parts])
                           for k in ("obs", "mask", "act", "logp", "value", "adv", "ret",
                                     "player", "game")}
    out["results"] = [r for p in parts for r in p["results"]]
    out["lengths"] = [x for p in parts for x in p["lengths"]]
    out["time"] = {k: sum(p["time"][k] for p in parts) for k in parts[0]["time"]}
    return out


def explained_variance(batch: dict[str, Any]) -> float:
    """1 - Var(return - value) / Var(return) of the rollout's value estimates."""
    var = float(np.var(batch["ret"]))
    return 1.0 - float(np.var(batch["ret"] - batch["value"])) / var if var > 0 else 0.0


def beta_at(cfg: TrainConfig, steps: int, minutes: float) -> float:
    """β annealed linearly from kl_coef to kl_coef_final over the run's length: the share
    of ``--total-steps`` or of ``--minutes`` done, whichever is further."""
    f = steps / max(1, cfg.total_steps)
    if cfg.minutes:
        f = max(f, minutes / cfg.minutes)
    return cfg.kl_coef + min(1.0, f) * (cfg.kl_coef_final - cfg.kl_coef)


# --------------------------------------------------------------------------- logging
class Log:
    """train.csv, eval.csv, TensorBoard and the PNG curve of a run."""

    def __init__(self, run: Path) -> None:
        self.run = run
        self.tb = None
        try:
            from torch.utils.tensorboard import SummaryWriter

            self.tb = SummaryWriter(str(run / "tb"))
        except ImportError:  # tensorboard is an optional extra
            pass

    def row(self, name: str, row: dict[str, Any], step: int, prefix: str = "") -> None:
        path = self.run / name
        new = not path.exists()
        with path.open("a", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=list(row))
            if new:
                w.writeheader()
            w.writerow(row)
        if self.tb is not None:
            for k, v in row.items():
                if isinstance(v, (int, float)) and k not in ("update", "learner_steps"):
                    self.tb.add_scalar(f"{prefix}{k}", v, step)
            self.tb.flush()

    def scalars(self, values: dict[str, float], step: int) -> None:
        """TensorBoard only (e.g. the league's scores, whose names change over a run)."""
        if self.tb is not None:
            for k, v in values.items():
                self.tb.add_scalar(k, v, step)

    def plot(self) -> None:
        """eval.png: the learner's score against each evaluation opponent over training."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        path = self.run / "eval.csv"
        if not path.exists():
            return
        rows = list(csv.DictReader(path.open()))
        fig, ax = plt.subplots(figsize=(7, 4))
        for opp in dict.fromkeys(r["opponent"] for r in rows):
            rs = [r for r in rows if r["opponent"] == opp]
            x = [int(r["learner_steps"]) for r in rs]
            y = [float(r["score"]) for r in rs]
            lo = [y_ - float(r["low"]) for y_, r in zip(y, rs, strict=True)]
            hi = [float(r["high"]) - y_ for y_, r in zip(y, rs, strict=True)]
            ax.errorbar(x, y, yerr=[lo, hi], marker="o", capsize=3, label=f"vs {opp}")
        ax.axhline(0.5, color="grey", lw=0.8, ls="--")
        ax.set(xlabel="learner samples", ylabel="score (win 1, draw ½), Wilson 95%",
               ylim=(0, 1), title=f"{self.run.name}: greedy learner on paired seeds")
        ax.legend()
        fig.tight_layout()
        fig.savefig(self.run / "eval.png", dpi=100)
        plt.close(fig)

    def close(self) -> None:
        if self.tb is not None:
            self.tb.close()


# --------------------------------------------------------------------------- the run
def _state_dict(net: torch.nn.Module) -> dict[str, torch.Tensor]:
    return {k: v.detach().cpu().clone() for k, v in net.state_dict().items()}


class Trainer:
    """The learner: network, optimizer, reference, league and the workers."""

    def __init__(self, cfg: TrainConfig, resume: bool = False) -> None:
        cfg.check()
        self.cfg, self.run = cfg, cfg.run_dir
        torch.manual_seed(cfg.seed)
        torch.set_num_threads(cfg.threads)
        self.rng = np.random.default_rng([cfg.seed, 1 << 20])
        self.content = load_content(cfg.content)
        self.ref: torch.nn.Module | None = None
        if cfg.init:
            net, self.net_cfg, _ = load_checkpoint(Path(cfg.init), self.content)
            self.ref = load_checkpoint(Path(cfg.init), self.content)[0].eval()
        else:
            self.net_cfg = self.network_config(cfg, self.content)
            net = build_network(self.net_cfg, self.content)
        self.net = net.to(cfg.device).eval()
        if self.ref is not None:
            self.ref.to(cfg.device)
        self.opt = adam(self.net.parameters(), cfg.lr, cfg.device)
        self.war_risk = WarRisk(self.content) if cfg.war_risk_coef > 0 else None
        self.league = League()
        for spec in filter(None, cfg.scripted.split(",")):
            self.league.add(spec, "scripted")
        self.update, self.steps, self.games, self.minutes = 0, 0, 0, 0.0
        self.best = -1.0
        self.snapshots: list[str] = []
        self.run.mkdir(parents=True, exist_ok=True)
        if resume:
            self._load()
        else:
            if (self.run / "checkpoints" / "latest").exists():
                raise FileExistsError(f"{self.run} already holds a run: --resume or a new --name")
            (self.run / "config.json").write_text(json.dumps(asdict(cfg), indent=1) + "\n")
        workers = RayWorkers if cfg.backend == "ray" else LocalWorkers
        self.workers = workers(cfg, self.net_cfg)
        if self.ref is not None:
            self._add_snapshot("init", _state_dict(self.ref), save=False)
        for k, path in enumerate(filter(None, cfg.exploiters.split(","))):
            # in the league as a snapshot that is never retired, drawn by PFSP
            self.add_opponent(f"exploiter{k}", *load_checkpoint(Path(path), self.content)[:2])
        for name in self.snapshots:
            net = load_checkpoint(self.run / "snapshots" / name, self.content)[0]
            self._add_snapshot(name, _state_dict(net), save=False)
        self.log = Log(self.run)

    # -- snapshots and checkpoints
    def _add_snapshot(self, name: str, state: dict[str, torch.Tensor], save: bool,
                      net_cfg: NetConfig | None = None) -> None:
        if save:
            save_checkpoint(self.run / "snapshots" / name, self.net, self.net_cfg,
                            {"update": self.update, "learner_steps": self.steps})
            self.snapshots.append(name)
        self.league.add(name, "snapshot")
        self.workers.call("add_snapshot", name, state, net_cfg)
        while len(self.snapshots) > self.cfg.pool_size:
            old = self.snapshots.pop(0)
            self.league.remove(old)
            self.workers.call("drop_snapshot", old)

    def add_opponent(self, name: str, net: torch.nn.Module, net_cfg: NetConfig) -> None:
        """A frozen network of `net_cfg`'s kind and sizes (which may differ from the
        learner's) joins the league's snapshots as `name` for good (never retired; e.g.
        an exploiter's target)."""
        self._add_snapshot(name, _state_dict(net), save=False, net_cfg=net_cfg)

    def _facts(self) -> dict[str, Any]:
        return {"update": self.update, "learner_steps": self.steps, "games": self.games,
                "minutes": round(self.minutes, 2), "init": self.cfg.init,
                "trainer": "experiments/train.py", "seed": self.cfg.seed}

    def save(self, which: str = "latest") -> None:
        path = self.run / "checkpoints" / which
        save_checkpoint(path, self.net, self.net_cfg, self._facts())
        if which == "latest":
            torch.save(self.opt.state_dict(), path / "optimizer.pt.tmp")
            (path / "optimizer.pt.tmp").replace(path / "optimizer.pt")
            state = {**self._facts(), "best": self.best, "snapshots": self.snapshots,
                     "league": asdict(self.league),
                     "rng": self.rng.bit_generator.state}
            (path / "state.json").write_text(json.dumps(state, indent=1) + "\n")

    def _load(self) -> None:
        """The latest checkpoint, every file checked first (CheckpointError, one line)."""
        path = self.run / "checkpoints" / "latest"
        st = read_state(self.run)
        net, _, _ = load_checkpoint(path, self.content)
        self.net.load_state_dict(net.state_dict())
        load_optimizer(self.opt, path / "optimizer.pt")
        self.update, self.steps, self.games = st["update"], st["learner_steps"], st["games"]
        self.minutes, self.best, self.snapshots = st["minutes"], st["best"], st["snapshots"]
        self.league = League(**st["league"])
        self.rng.bit_generator.state = st["rng"]

    @staticmethod
    def network_config(cfg: TrainConfig, content: Content | None = None) -> NetConfig:
        """The network a run without --init trains (--net, --hidden, --token)."""
        return fresh_config(cfg.net, tuple(int(h) for h in cfg.hidden.split(",") if h),
                            cfg.token, content)

    # -- evaluation
    def evaluate(self) -> None:
        cfg = self.cfg
        league = ", ".join(f"{k} {v:.2f} ({self.league.games[k]} games)"
                           for k, v in self.league.scores.items())
        print(f"  league scores (running, training games): {league}", flush=True)
        seeds = list(range(cfg.eval_seed, cfg.eval_seed + cfg.eval_games))
        k = len(self.workers.workers)
        chunks = [seeds[j::k] for j in range(k)]
        state = _state_dict(self.net)
        scores = []
        for spec in filter(None, cfg.eval_opponents.split(",")):
            recs = [r for part in self.workers.call_each(
                "evaluate", [(state, spec, c) for c in chunks if c]) for r in part]
            score = float(np.mean([r["score"] for r in recs]))
            wins = sum(r["score"] == 1 for r in recs)
            draws = sum(r["score"] == 0.5 for r in recs)
            lo, hi = wilson(score * len(recs), len(recs))
            by_side = [np.mean([r["score"] for r in recs if r["side"] == s]) for s in (0, 1)]
            self.log.row("eval.csv", {
                "update": self.update, "learner_steps": self.steps, "opponent": spec,
                "games": len(recs), "wins": wins, "draws": draws,
                "losses": len(recs) - wins - draws, "score": round(score, 4),
                "low": round(lo, 4), "high": round(hi, 4),
                "score_us": round(float(by_side[0]), 4),
                "score_china": round(float(by_side[1]), 4)}, self.steps, f"eval/{spec}/")
            print(f"  eval vs {spec}: {wins}W {draws}D {len(recs) - wins - draws}L "
                  f"score {score:.3f} [{lo:.2f}, {hi:.2f}]", flush=True)
            scores.append(score)
        # Best: the score against the first opponent, ties broken by the mean over all.
        key = scores[0] + 1e-3 * float(np.mean(scores)) if scores else -1.0
        if key > self.best:
            self.best = key
            self.save("best")
        self.log.plot()

    def _idle_threads(self, pending: Any) -> Callable[[], None] | None:
        """With ``--threads-idle``: the update's check, before each gradient step, that
        no rollout runs beside it any more (then it takes the idle cores' threads)."""
        n = self.cfg.threads_idle
        if n <= self.cfg.threads:
            return None

        def check() -> None:
            if torch.get_num_threads() != n and (pending is None
                                                 or self.workers.ready(pending)):
                torch.set_num_threads(n)
        return check

    # -- the loop
    def train(self) -> None:
        cfg = self.cfg
        start = time.perf_counter() - 60 * self.minutes
        print(f"run {self.run}: {cfg.workers} {cfg.backend} worker(s) x {cfg.num_envs} games "
              f"x {cfg.rollout_steps} steps, net {self.net_cfg.kind} {self.net_cfg.hidden}, "
              f"init {cfg.init or '-'}", flush=True)
        pending = None
        try:
            while self.steps < cfg.total_steps and not (
                    cfg.minutes and self.minutes >= cfg.minutes):
                t0 = time.perf_counter()
                if pending is None:
                    pending = self.workers.submit("collect", _state_dict(self.net),
                                                  self.league.table(cfg))
                batch = merge(self.workers.wait(pending))
                pending = None
                if cfg.overlap:  # the next batch, collected with the weights before this update
                    pending = self.workers.submit("collect", _state_dict(self.net),
                                                  self.league.table(cfg))
                t_roll = time.perf_counter() - t0
                self.minutes = (time.perf_counter() - start) / 60
                beta = (beta_at(cfg, self.steps, self.minutes) if self.ref is not None
                        else 0.0)
                t1 = time.perf_counter()
                with torch_threads(cfg.threads):
                    stats = ppo_update(self.net, self.opt, batch, self.ref, beta, cfg,
                                       self.rng, value_only=self.update < cfg.value_warmup,
                                       war_risk=self.war_risk,
                                       before_step=self._idle_threads(pending))
                t_upd = time.perf_counter() - t1
                for name, score in batch["results"]:
                    self.league.record(name, score)
                self.log.scalars({f"league/{k}": v for k, v in self.league.scores.items()},
                                 self.steps + len(batch["act"]))
                n = len(batch["act"])
                self.update += 1
                self.steps += n
                self.games += len(batch["lengths"])
                self.minutes = (time.perf_counter() - start) / 60
                tm = batch["time"]
                sps = n / (t_roll + t_upd)
                row = {"update": self.update, "learner_steps": self.steps,
                       "games": self.games, "minutes": round(self.minutes, 3),
                       "samples": n, "steps_per_s": round(sps, 1),
                       "rollout_s": round(t_roll, 3), "env_s": round(tm["env"], 3),
                       "forward_s": round(tm["forward"], 3),
                       "opponent_s": round(tm["opponent"], 3), "update_s": round(t_upd, 3),
                       "beta": round(beta, 5), **{k: round(v, 5) for k, v in stats.items()},
                       "mean_game_length": round(float(np.mean(batch["lengths"])), 1)
                       if batch["lengths"] else 0.0,
                       "league_games": len(batch["results"]),
                       "explained_variance": round(explained_variance(batch), 4)}
                self.log.row("train.csv", row, self.steps, "train/")
                print(f"update {self.update}: {self.steps} samples, {sps:.0f} learner steps/s "
                      f"(env {tm['env']:.2f}s, forward {tm['forward']:.2f}s, opponents "
                      f"{tm['opponent']:.2f}s, update {t_upd:.2f}s), beta {beta:.3f}, "
                      f"kl_ref {stats['kl_ref']:.3f}, entropy {stats['entropy']:.2f}",
                      flush=True)
                if self.update % cfg.snapshot_every == 0:
                    self._add_snapshot(f"u{self.update:05d}", _state_dict(self.net), save=True)
                if self.update % cfg.eval_every == 0:
                    self.evaluate()
                if self.update % cfg.checkpoint_every == 0:
                    self.save()
            self.save()
            if self.update % cfg.eval_every != 0:
                self.evaluate()
                self.save()
        finally:
            self.workers.close()
            self.log.close()


# --------------------------------------------------------------------------- CLI
def parse_args(argv: list[str] | None = None) -> tuple[TrainConfig, bool]:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--smoke", action="store_true", help="tiny sizes, under a minute")
    p.add_argument("--resume", action="store_true", help="continue runs/NAME")
    for f in fields(TrainConfig):
        kw: dict[str, Any] = ({"action": "store_true"} if isinstance(f.default, bool) else
                              {"type": type(f.default)})
        p.add_argument("--" + f.name.replace("_", "-"), default=argparse.SUPPRESS,
                       help=f"{f.metadata['help']} ({f.default})", **kw)
    ns = vars(p.parse_args(argv))
    smoke, resume = ns.pop("smoke"), ns.pop("resume")
    base: dict[str, Any] = dict(SMOKE) if smoke else {}
    if resume:
        path = Path(ns.get("runs_dir", "runs")) / ns.get("name", base.get("name", "ppo"))
        if not (path / "checkpoints" / "latest" / "state.json").exists():
            raise SystemExit(f"--resume: {path} holds no checkpoint to continue")
        try:
            saved = run_config(read_json(path / "config.json", "run's settings"),
                               asdict(TrainConfig()), path / "config.json")
        except CheckpointError as exc:
            raise SystemExit(f"--resume: {exc}") from None
        other = {k: v for k, v in ns.items() if k not in RESUMABLE and v != saved.get(k)}
        if other:
            raise SystemExit(f"--resume keeps the run's settings; these differ: {other}")
        base = saved
    cfg = TrainConfig(**{**base, **ns})
    if smoke and not resume:
        fresh_smoke_folder(cfg.run_dir)
    return cfg, resume


SMOKE_MARK = ".smoke-run"  # in a folder a --smoke run made (and may replace)


def fresh_smoke_folder(run: Path) -> None:
    """Empty `run` for a new smoke run: a folder a smoke run made is replaced; anything
    else there (another run, a user's files) is refused and left alone."""
    if run.exists() and not run.is_dir():
        raise SystemExit(f"--smoke: {run} is a file, not a run folder (nothing was deleted)")
    if run.is_dir() and any(p.name != LOCK_NAME for p in run.iterdir()):
        if not (run / SMOKE_MARK).is_file():
            raise SystemExit(f"--smoke: {run} holds files no smoke run made (nothing was "
                             "deleted): pick another --name or --runs-dir")
        try:
            with folder_lock(run):  # never under a smoke run that is still going
                for p in run.iterdir():
                    if p.is_dir() and not p.is_symlink():
                        shutil.rmtree(p)
                    elif p.name != LOCK_NAME:
                        p.unlink()
        except OutputDirError as e:
            raise SystemExit(f"--smoke: {e}") from None
    run.mkdir(parents=True, exist_ok=True)
    (run / SMOKE_MARK).write_text("made by python -m experiments.train --smoke; a new "
                                  "--smoke run replaces this folder\n")


def main(argv: list[str] | None = None) -> None:
    """Parse, then train while holding the run folder's lock (a second run on the same
    folder stops at once with one line)."""
    cfg, resume = parse_args(argv)
    try:
        ensure_output_dir(cfg.run_dir)
        with folder_lock(cfg.run_dir):
            _train(cfg, resume)
    except OutputDirError as e:  # the folder cannot be written, or another run holds it
        raise SystemExit(f"train: {e}") from None


def _train(cfg: TrainConfig, resume: bool) -> None:
    try:
        trainer = Trainer(cfg, resume)
    except (ValueError, OSError) as e:  # a bad setting, a folder of another run: one line
        raise SystemExit(f"train: {e}") from None
    try:
        trainer.train()
    except KeyboardInterrupt:  # one line, not a traceback; the saved checkpoints stay
        raise SystemExit(f"interrupted after update {trainer.update}; checkpoints are in "
                         f"{trainer.run}/checkpoints (latest: every --checkpoint-every "
                         f"updates); --resume continues the run") from None


if __name__ == "__main__":
    main()
