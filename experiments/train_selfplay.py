"""Masked-PPO self-play: one policy plays both sides against a pool of opponents.

    python -m experiments.train_selfplay --name ppo                # the full run, runs/ppo
    python -m experiments.train_selfplay --smoke                   # < 1 minute, runs/ppo-smoke
    python -m experiments.train_selfplay --name ppo --resume       # continue
    (--runs-dir, --name, --total-steps, --minutes, --device, --seed, --smoke and --resume
    as in experiments/train.py; --out DIR and --timesteps still work)

Training starts by behaviour cloning of the heuristic (``bc_games`` games of the
cloning data, experiments/cloning.py). Then the learner plays the side its
episode's seed gives (``SingleAgentEnv(side="alternate")``, which gives it its own
terminal reward whoever ends the game). Its opponent is
drawn each episode from the pool: past snapshots of itself, the heuristic and
the random agent. Checkpoints go to ``OUT/checkpoints``: ``latest.pt`` +
``latest.json`` for resuming (experiments/checkpoint.py: tensors and JSON only,
never unpickled objects) and a policy export for :class:`agents.PPOAgent`.
``OUT/winrates.csv`` logs win rates by side and opponent over training;
TensorBoard logs go to ``OUT/tb``.  ``--resume`` refuses a checkpoint made with
other settings (naming them), and a fresh run refuses a folder that already
holds a run; ``--smoke`` defaults to its own folder, ``runs/ppo-smoke``.
"""

from __future__ import annotations

import csv
import dataclasses
import json
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import typer

from agents import HeuristicAgent, RandomAgent
from agents.ppo_agent import PPOAgent, export_policy
from evenstar_env.content import load_content
from evenstar_env.wrappers import SingleAgentEnv
from experiments import checkpoint
from experiments.devices import resolve_device
from experiments.files import write_text_atomic

BC_SEED0 = 10_000_000  # demonstration games use seeds far from the arena's


@dataclass
class TrainConfig:
    """Everything a run depends on (saved as OUT/config.json)."""

    out: str = "runs/ppo"
    total_timesteps: int = 3_000_000
    n_envs: int = 2
    n_steps: int = 2048
    batch_size: int = 512
    n_epochs: int = 5
    learning_rate: float = 1e-4
    gamma: float = 0.995
    gae_lambda: float = 0.95
    ent_coef: float = 0.002
    clip_range: float = 0.1
    net_arch: list[int] = field(default_factory=lambda: [256, 256])
    reward: str = "vp_diff"  # shaping on top of the +1/-1 result
    vp_scale: float = 200.0  # VP per reward unit: a game's VP difference stays below the result
    snapshot_every: int = 100_000  # timesteps between opponent-pool snapshots
    checkpoint_every: int = 50_000
    pool_size: int = 5  # most recent snapshots kept in the pool
    p_self: float = 0.3  # chance the opponent is a past snapshot (when one exists)
    p_heuristic: float = 0.35  # chance of the heuristic (else random)
    seed: int = 0
    max_minutes: float = 85.0  # PPO wall-clock budget: stop (with a checkpoint) when reached
    # Warm start by behaviour cloning of the heuristic (the data of experiments/cloning.py).
    bc_games: int = 150  # games of the cloning mix (mostly heuristic vs heuristic)
    bc_epochs: int = 10
    bc_learning_rate: float = 1e-3
    bc_holdout: float = 0.1  # share of the games (the last ones) kept to measure

    @classmethod
    def smoke(cls, out: str) -> TrainConfig:
        return cls(out=out, total_timesteps=1024, n_envs=2, n_steps=128, batch_size=128,
                   n_epochs=1, snapshot_every=512, checkpoint_every=512, net_arch=[64, 64],
                   p_heuristic=0.1, bc_games=1, bc_epochs=1)


class PoolOpponent:
    """Draws an opponent every episode: a past snapshot, the heuristic, or random."""

    name = "pool"

    def __init__(self, snapshot_dir: Path, config: TrainConfig, seed: int) -> None:
        self.dir, self.cfg = Path(snapshot_dir), config
        self.rng = np.random.default_rng(seed)
        self.random, self.heuristic = RandomAgent(seed), HeuristicAgent(seed)
        self.current: Any = self.random
        self._loaded: dict[str, PPOAgent] = {}

    def new_episode(self) -> None:
        snaps = sorted(self.dir.glob("snapshot_*.pt"))[-self.cfg.pool_size:]
        cfg = self.cfg
        weights = np.array([cfg.p_self if snaps else 0.0, cfg.p_heuristic,
                            max(0.0, 1.0 - cfg.p_self - cfg.p_heuristic)])
        kind = self.rng.choice(3, p=weights / weights.sum())  # self, heuristic, random
        if kind == 0:
            path = snaps[int(self.rng.integers(len(snaps)))]
            if path.stem not in self._loaded:
                self._loaded[path.stem] = PPOAgent(path, greedy=False,
                                                   seed=int(self.rng.integers(2**31)))
            self.current = self._loaded[path.stem]
        elif kind == 1:
            self.current = self.heuristic
        else:
            self.current = self.random

    @property
    def kind(self) -> str:
        return "self" if isinstance(self.current, PPOAgent) else self.current.name

    def act(self, observation: Any, action_mask: np.ndarray, game: Any = None) -> int:
        return self.current.act(observation, action_mask, game)


def make_env(cfg: TrainConfig, rank: int):
    def _init() -> SingleAgentEnv:
        opp = PoolOpponent(Path(cfg.out) / "snapshots", cfg, cfg.seed * 100 + rank)
        return SingleAgentEnv(side="alternate", opponent=opp, reward=cfg.reward,
                              vp_scale=cfg.vp_scale)
    return _init


def build_callback(cfg: TrainConfig, out: Path):
    from stable_baselines3.common.callbacks import BaseCallback

    class SelfPlayCallback(BaseCallback):
        """Win-rate logging, snapshots for the pool and checkpoints."""

        def __init__(self) -> None:
            super().__init__()
            self.results: dict[tuple[str, str], list[float]] = defaultdict(list)
            self.csv_path = out / "winrates.csv"
            self.next_snapshot = self.next_checkpoint = 0

        def _on_training_start(self) -> None:
            self.started = time.time()
            n = self.model.num_timesteps
            self.next_snapshot = n + cfg.snapshot_every
            self.next_checkpoint = n + cfg.checkpoint_every
            if not self.csv_path.exists():
                with self.csv_path.open("w", newline="") as fh:
                    csv.writer(fh).writerow(["timesteps", "side", "opponent", "games",
                                             "win_rate", "draw_rate"])

        def _on_step(self) -> bool:
            if time.time() - self.started > cfg.max_minutes * 60:
                return False  # the budget is spent; _on_training_end checkpoints
            for done, info in zip(self.locals["dones"], self.locals["infos"], strict=True):
                if done and "winner" in info:
                    w = info["winner"]
                    score = 0.5 if w is None else float(w == info["side"])
                    self.results[(info["side"], info.get("opponent", "?"))].append(score)
            n = self.num_timesteps
            if n >= self.next_snapshot:
                export_policy(self.model.policy, out / "snapshots" / f"snapshot_{n:09d}")
                self.next_snapshot += cfg.snapshot_every
            if n >= self.next_checkpoint:
                self._checkpoint()
                self.next_checkpoint += cfg.checkpoint_every
            return True

        def _on_rollout_end(self) -> None:
            rows = []
            for (side, opp), scores in sorted(self.results.items()):
                wins = sum(s == 1.0 for s in scores)
                draws = sum(s == 0.5 for s in scores)
                rows.append([self.num_timesteps, side, opp, len(scores),
                             wins / len(scores), draws / len(scores)])
                self.logger.record(f"winrate/{side}_vs_{opp}", wins / len(scores))
            if rows:
                with self.csv_path.open("a", newline="") as fh:
                    csv.writer(fh).writerows(rows)
            self.results.clear()

        def _checkpoint(self) -> None:
            checkpoint.save(self.model, dataclasses.asdict(cfg), out)
            export_policy(self.model.policy, out / "checkpoints" / "policy")
            (out / "checkpoints" / "progress.json").write_text(
                json.dumps({"timesteps": self.num_timesteps, "time": time.time()}))

        def _on_training_end(self) -> None:
            self._checkpoint()

    return SelfPlayCallback()


def warm_start(policy: Any, cfg: TrainConfig, out: Path, progress: bool = True) -> None:
    """Behaviour cloning of the heuristic before self-play (the data of
    experiments/cloning.py); the cloned policy also becomes the first snapshot of the
    opponent pool. Logs OUT/bc.csv."""
    from experiments.cloning import cloning_jobs, play_records, replay_rows

    t0 = time.time()
    jobs = cloning_jobs(cfg.bc_games, BC_SEED0 + cfg.seed * cfg.bc_games)
    records = play_records([(*j, 0) for j in jobs], workers=max(1, min(2, cfg.n_envs)))
    k = len(records) - max(1, int(round(len(records) * cfg.bc_holdout))) \
        if len(records) > 1 else 1
    data, held_out = replay_rows(records[:k]), replay_rows(records[k:])
    with (out / "bc.csv").open("w", newline="") as fh:
        writer = csv.DictWriter(fh, ["epoch", "cross_entropy", "value_loss", "agreement",
                                     "held_out_agreement", "examples", "seconds"])
        writer.writeheader()

        def log(row: dict[str, float]) -> None:
            writer.writerow({**row, "examples": len(data), "seconds": round(time.time() - t0)})
            fh.flush()
            if progress:
                print(f"behaviour cloning epoch {row['epoch']}: agreement "
                      f"{row['agreement']:.3f} (held out {row['held_out_agreement']:.3f})")

        pretrain(policy, data, held_out, epochs=cfg.bc_epochs, lr=cfg.bc_learning_rate,
                 seed=cfg.seed, log=log)
    export_policy(policy, out / "snapshots" / "snapshot_000000000")
    export_policy(policy, out / "checkpoints" / "bc_policy")


def pretrain(policy: Any, data: Any, held_out: Any = None, epochs: int = 8, lr: float = 3e-4,
             batch_size: int = 512, vf_coef: float = 0.5, seed: int = 0,
             log: Any = None) -> list[dict[str, float]]:
    """Fit an SB3 masked actor-critic `policy` to cloning rows (experiments.cloning.Rows),
    in place: cross-entropy on the heuristic's label, squared error of the value against
    the result.  Returns (and passes to `log`) per-epoch losses and agreement."""
    import torch

    rng = np.random.default_rng(seed)
    opt = torch.optim.Adam(policy.parameters(), lr=lr)
    rets = torch.as_tensor(data.values)
    history = []
    policy.set_training_mode(True)
    for epoch in range(epochs):
        order = rng.permutation(len(data))
        sums = np.zeros(2)
        for lo in range(0, len(order), batch_size):
            idx = np.sort(order[lo: lo + batch_size])
            values, log_prob, _ = policy.evaluate_actions(
                torch.as_tensor(data.obs[idx].toarray()), torch.as_tensor(data.labels[idx]),
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


def agreement(policy: Any, data: Any, batch_size: int = 4096) -> float:
    """Share of rows where the policy's most likely legal action is the heuristic's label."""
    import torch

    if len(data) == 0:
        return float("nan")
    hits = 0
    with torch.no_grad():
        for lo in range(0, len(data), batch_size):
            sl = slice(lo, lo + batch_size)
            dist = policy.get_distribution(torch.as_tensor(data.obs[sl].toarray()),
                                           action_masks=data.masks[sl])
            best = dist.distribution.probs.argmax(dim=1).numpy()
            hits += int((best == data.labels[sl]).sum())
    return hits / len(data)


def train(cfg: TrainConfig, resume: bool = False, progress: bool = True,
          device: str = "cpu") -> Path:
    """Run (or resume) training on `device` (a torch device, see experiments/devices.py);
    return the exported policy path (without suffix)."""
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.logger import configure
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    torch.set_num_threads(1)
    out = Path(cfg.out)
    config = dataclasses.asdict(cfg)
    if resume:  # checked (and refused) before anything is built or written
        state, steps = checkpoint.read(out, config)
    elif any(p.exists() for p in (*checkpoint.paths(out), out / "checkpoints" / "latest.zip")):
        raise checkpoint.CheckpointError(f"{out} already holds a training run: continue it "
                                         "with --resume or choose another --out")
    (out / "snapshots").mkdir(parents=True, exist_ok=True)
    (out / "checkpoints").mkdir(parents=True, exist_ok=True)
    write_text_atomic(out / "config.json", json.dumps(config, indent=2))
    fns = [make_env(cfg, k) for k in range(cfg.n_envs)]
    venv = SubprocVecEnv(fns) if cfg.n_envs > 1 else DummyVecEnv(fns)
    try:
        model = MaskablePPO(
            "MlpPolicy", venv, learning_rate=cfg.learning_rate, n_steps=cfg.n_steps,
            batch_size=cfg.batch_size, n_epochs=cfg.n_epochs, gamma=cfg.gamma,
            gae_lambda=cfg.gae_lambda, ent_coef=cfg.ent_coef, clip_range=cfg.clip_range,
            seed=cfg.seed, device=device,
            policy_kwargs={"net_arch": {"pi": cfg.net_arch, "vf": cfg.net_arch}})
        if resume:
            checkpoint.restore(model, state, steps, checkpoint.paths(out)[0])
        elif cfg.bc_games:
            warm_start(model.policy, cfg, out, progress)
        formats = ["csv", "tensorboard"] if _has_tensorboard() else ["csv"]
        model.set_logger(configure(str(out / "tb"), formats))
        remaining = max(0, cfg.total_timesteps - model.num_timesteps)
        model.learn(remaining, callback=build_callback(cfg, out), progress_bar=progress,
                    reset_num_timesteps=not resume)
    finally:
        venv.close()
    if (out / "winrates.csv").exists():
        plot_winrates(out / "winrates.csv", out / "winrates.png",
                      bin_size=max(cfg.n_steps * cfg.n_envs, cfg.snapshot_every))
    return out / "checkpoints" / "policy"


def plot_winrates(csv_path: Path, png_path: Path, bin_size: int = 100_000) -> None:
    """Win rate by side and opponent over training (pooled per `bin_size` timesteps)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    games: dict[tuple[str, str], dict[int, list[float]]] = defaultdict(
        lambda: defaultdict(lambda: [0.0, 0.0]))
    with csv_path.open() as fh:
        for row in csv.DictReader(fh):
            n = int(row["games"])
            cell = games[(row["side"], row["opponent"])][int(row["timesteps"]) // bin_size]
            cell[0] += float(row["win_rate"]) * n
            cell[1] += n
    fig, ax = plt.subplots(figsize=(8, 4.5))
    colours = {"random": "tab:blue", "heuristic": "tab:red", "self": "tab:green"}
    for (side, opp), bins in sorted(games.items()):
        xs = sorted(bins)
        ax.plot([(x + 0.5) * bin_size for x in xs], [bins[x][0] / bins[x][1] for x in xs],
                marker="o", linestyle="-" if side == "usa" else "--",
                color=colours.get(opp), label=f"{side} vs {opp}")
    ax.set(xlabel="timesteps", ylabel="win rate (sampled policy)", ylim=(-0.02, 1.02),
           title="Self-play training: win rate by side and opponent")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, ncol=3)
    fig.tight_layout()
    fig.savefig(png_path, dpi=100)
    plt.close(fig)


def _has_tensorboard() -> bool:
    try:
        import tensorboard  # noqa: F401
    except ImportError:
        return False
    return True


app = typer.Typer(add_completion=False, help=__doc__)


@app.command()
def main(name: str = typer.Option(None, help="run folder RUNS_DIR/NAME [default: ppo, with "
                                  "--smoke ppo-smoke]"),
         runs_dir: str = typer.Option("runs", help="where run folders go"),
         out: str = typer.Option(None, help="the run folder itself (older spelling of "
                                 "--runs-dir/--name)"),
         smoke: bool = typer.Option(False, help="a tiny run (< 1 minute), for tests"),
         resume: bool = typer.Option(False, help="continue from the run's "
                                     "checkpoints/latest.pt (same settings only)"),
         timesteps: int = typer.Option(0, "--total-steps", "--timesteps", min=0,
                                       help="override total timesteps"),
         minutes: float = typer.Option(0, min=0, help="override the wall-clock budget "
                                       "(minutes)"),
         device: str = typer.Option("cpu", help="auto (cuda where available, else cpu), cpu, "
                                    "cuda, cuda:N or mps"),
         seed: int = typer.Option(0, min=0),
         progress: bool = typer.Option(True, help="show a progress bar")) -> None:
    if out is not None and name is not None:
        raise typer.BadParameter("give --out or --runs-dir/--name, not both")
    out = out or str(Path(runs_dir) / (name or ("ppo-smoke" if smoke else "ppo")))
    try:
        device = resolve_device(device)
    except ValueError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    cfg = TrainConfig.smoke(out) if smoke else TrainConfig(out=out)
    cfg.seed = seed
    if timesteps:
        cfg.total_timesteps = timesteps
    if minutes:
        cfg.max_minutes = minutes
    load_content()
    t0 = time.time()
    try:
        policy = train(cfg, resume=resume, progress=progress, device=device)
    except checkpoint.CheckpointError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(1) from None
    except KeyboardInterrupt:
        typer.echo(f"Interrupted; the last checkpoint is in {cfg.out}/checkpoints.", err=True)
        raise typer.Exit(130) from None
    typer.echo(f"trained {cfg.total_timesteps} timesteps in {time.time() - t0:.0f} s; "
               f"policy: {policy}.pt / .json")


if __name__ == "__main__":
    app()
