"""Vector-env benchmark: learner steps/s of `evenstar_env.vector.EvenstarVectorEnv` against
Gymnasium's `SyncVectorEnv` over N `SingleAgentEnv`s, for N = 1, 8, 64, on one core.

Both play the same opponent ("random") and pick uniformly random legal actions from
``info["action_mask"]`` (default NEXT_STEP autoreset).  The two run in alternating rounds so
that a slow spell of the machine hits both; the ratio of every round is kept and the median
reported.  Time is the process's CPU time (`time.process_time`), so other processes on a
shared machine slow neither side's figure much; wall-clock figures are written too.  Also:
decisions/s of the two-seat `SelfPlayVectorEnv`.  ``--backend`` picks the backend of that
part (default: the Game default).

Backends: `SelfPlayVectorEnv` at N = ``--selfplay-sizes`` (default 256) on the Python
backend and on the native one (1 and 2 worker threads), in alternating rounds, with the
ratio native / Python of every round (wall clock: the native threads run in parallel).

Batched opponents (issue 37): `EvenstarVectorEnv(N, opponent=...)` learner steps/s with
``"random"`` (a per-game agent), ``"learned"`` (the shipped network as a batch policy, one
forward pass per round) and ``LearnedAgent`` per game, at N = ``--opponent-size``, in
alternating rounds; the ratios learned / random of every round.

SB3 (issue 37): learner steps/s through SB3's VecEnv API (``get_action_masks`` + ``step``)
of `evenstar_env.sb3.EvenstarSB3VecEnv` (the native batch) against ``DummyVecEnv`` over N
`SingleAgentEnv`s, both with a random opponent, at N = ``--sb3-sizes``, alternating rounds;
and, with ``--ppo-steps``, MaskablePPO's own steps/s (rollout + update, 64x64 MLP, 4096-step
rollouts, one epoch) on DummyVecEnv with 2 envs (as experiments/train_selfplay.py runs it)
and with N envs, and on the adapter with N envs.

Prints tables and writes JSON (default: benchmarks/results/vector.json), its ``summary``
the two issue-37 figures of the run: the batched learned opponent against random and the
SB3 adapter against DummyVecEnv, each a median of per-round ratios at one N.
``--quick`` (what ``make bench`` runs): fewer steps and rounds, the same parts.
Usage: python benchmarks/bench_vector.py [--quick] [--steps S] [--rounds R] [--sizes 1 8 64]
       [--backend python|native] [--selfplay-sizes 256] [--opponent-size 64]
       [--sb3-sizes 64] [--ppo-steps 16384] [--out PATH]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
from common import machine, write_results

from evenstar_env.native import resolve
from evenstar_env.vector import EvenstarVectorEnv, SelfPlayVectorEnv
from evenstar_env.wrappers import SingleAgentEnv


def random_legal(rng: np.random.Generator, mask: np.ndarray) -> np.ndarray:
    """One uniformly random legal action per row of `mask`."""
    return np.argmax(rng.random(mask.shape) * mask, axis=1)


def learner_steps_per_s(env: gym.vector.VectorEnv, steps: int, seed: int
                        ) -> tuple[float, float]:
    """Learner steps per CPU second and per wall-clock second (summed over the N games)
    of `steps` batched steps."""
    rng = np.random.default_rng(seed)
    _, info = env.reset(seed=seed)
    c0, t0 = time.process_time(), time.perf_counter()
    for _ in range(steps):
        _, _, _, _, info = env.step(random_legal(rng, info["action_mask"]))
    return _rates(env.num_envs * steps, c0, t0)


def selfplay_decisions_per_s(env: SelfPlayVectorEnv, steps: int, seed: int
                             ) -> tuple[float, float]:
    rng = np.random.default_rng(seed)
    _, mask, _ = env.reset(seed=seed)
    c0, t0 = time.process_time(), time.perf_counter()
    for _ in range(steps):
        _, mask, *_ = env.step(random_legal(rng, mask))
    return _rates(env.num_envs * steps, c0, t0)


def _rates(count: int, c0: float, t0: float) -> tuple[float, float]:
    return count / (time.process_time() - c0), count / (time.perf_counter() - t0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--steps", type=int, default=1600,
                    help="learner steps per measurement (summed over the N games)")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--sizes", type=int, nargs="+", default=[1, 8, 64])
    ap.add_argument("--backend", choices=["python", "native"], default=None,
                    help="backend of the SyncVectorEnv / EvenstarVectorEnv comparison")
    ap.add_argument("--selfplay-sizes", type=int, nargs="*", default=[256])
    ap.add_argument("--selfplay-steps", type=int, default=51200,
                    help="native steps per measurement (Python: a sixteenth)")
    ap.add_argument("--opponent-size", type=int, default=64,
                    help="N of the batched-opponent comparison (0: skip it)")
    ap.add_argument("--sb3-sizes", type=int, nargs="*", default=[64])
    ap.add_argument("--ppo-steps", type=int, default=16384,
                    help="MaskablePPO timesteps per measurement (0: skip)")
    ap.add_argument("--out", type=Path,
                    default=Path(__file__).parent / "results" / "vector.json")
    ap.add_argument("--quick", action="store_true",
                    help="steps 800, rounds 3, selfplay steps 12800, PPO steps 4096 (unless given)")
    args = ap.parse_args()
    if args.quick:
        given = {a.split("=")[0] for a in sys.argv[1:] if a.startswith("--")}
        for flag, value in (("steps", 800), ("rounds", 3), ("selfplay_steps", 12800),
                            ("ppo_steps", 4096)):
            if "--" + flag.replace("_", "-") not in given:
                setattr(args, flag, value)
    if args.backend:
        os.environ["EVENSTAR_BACKEND"] = args.backend
    out = {"machine": machine(), "load_before": os.getloadavg()}
    out.update(sync_vs_vector(args))
    out["selfplay_backends"] = [selfplay_backends(n, args.selfplay_steps, args.rounds)
                                for n in args.selfplay_sizes]
    print_backends(out["selfplay_backends"])
    if args.opponent_size:
        out["opponents"] = opponents(args.opponent_size, args.steps, args.rounds)
    out["sb3"] = [sb3_vec_env(n, args.steps, args.rounds) for n in args.sb3_sizes]
    if args.ppo_steps and args.sb3_sizes:
        out["maskable_ppo"] = maskable_ppo(args.sb3_sizes[-1], args.ppo_steps)
    out["load_after"] = os.getloadavg()
    out["summary"] = summary(out)
    for line in out["summary"].values():
        print(line["text"])
    write_results(out, args.out)


def summary(out: dict[str, Any]) -> dict[str, Any]:
    """The run's two issue-37 figures: learned (batched) / random, adapter / DummyVecEnv."""
    s: dict[str, Any] = {}
    if "opponents" in out:
        o = out["opponents"]
        r, lb = o["random"]["steps_per_cpu_s"], o["learned_batched"]
        s["learned_vs_random"] = {
            "n": o["n"], "random_steps_per_cpu_s": r,
            "learned_steps_per_cpu_s": lb["steps_per_cpu_s"], "ratio": lb["ratio_to_random"],
            "ratio_per_round": lb["ratio_per_round"],
            "text": f"EvenstarVectorEnv N={o['n']}: opponent='learned' (batched) "
                    f"{lb['steps_per_cpu_s']:,} / 'random' {r:,} learner steps per CPU s = "
                    f"{lb['ratio_to_random']:.2f}x (rounds {lb['ratio_per_round']})"}
    if out.get("sb3"):
        row = out["sb3"][-1]
        d, a = row["dummy_vec_env"], row["native_adapter"]
        s["sb3_vs_dummy"] = {
            "n": row["n"], "dummy_steps_per_cpu_s": d["steps_per_cpu_s"],
            "adapter_steps_per_cpu_s": a["steps_per_cpu_s"],
            "ratio": a["ratio_to_dummy_vec_env"], "ratio_per_round": a["ratio_per_round"],
            "text": f"SB3 N={row['n']}: EvenstarSB3VecEnv {a['steps_per_cpu_s']:,} / "
                    f"DummyVecEnv {d['steps_per_cpu_s']:,} learner steps per CPU s = "
                    f"{a['ratio_to_dummy_vec_env']:.2f}x (rounds {a['ratio_per_round']})"}
    return s


def selfplay_backends(n: int, steps: int, rounds: int) -> dict:
    """SelfPlayVectorEnv(n) steps/s (observation and mask every step) on both backends."""
    from evenstar_env.native import available

    kinds = {"python": {"backend": "python"}}
    if available():
        kinds |= {"native_1_thread": {"backend": "native", "threads": 1},
                  "native_2_threads": {"backend": "native", "threads": 2}}
    envs = {k: SelfPlayVectorEnv(n, **kw) for k, kw in kinds.items()}
    per = {k: max(1, (steps // 16 if k == "python" else steps) // n) for k in envs}
    for env in envs.values():  # warm up
        selfplay_decisions_per_s(env, 2, 0)
    runs: dict[str, list[tuple[float, float]]] = {k: [] for k in envs}
    for r in range(rounds):
        for k, env in envs.items():
            runs[k].append(selfplay_decisions_per_s(env, per[k], seed=1000 * r))
    row: dict = {"n": n, "batched_steps": per}
    for k, v in runs.items():
        row[k] = {"steps_per_s": _median([w for _, w in v]),
                  "steps_per_cpu_s": _median([c for c, _ in v])}
        if k != "python":
            row[k]["ratio_to_python_per_round"] = [
                round(w / p, 1) for (_, w), (_, p) in zip(v, runs["python"], strict=True)]
    return row


def print_backends(rows: list[dict]) -> None:
    if rows:
        print("SelfPlayVectorEnv (observation + mask every step), medians, wall clock:")
    for row in rows:
        cells = [f"{k} {row[k]['steps_per_s']:,} steps/s" + (
            f" ({min(row[k]['ratio_to_python_per_round'])}-"
            f"{max(row[k]['ratio_to_python_per_round'])}x Python)" if k != "python" else "")
            for k in ("python", "native_1_thread", "native_2_threads") if k in row]
        print(f"  N={row['n']}: " + "; ".join(cells))


def sync_vs_vector(args: argparse.Namespace) -> dict:
    """EvenstarVectorEnv against SyncVectorEnv, and SelfPlayVectorEnv, on one backend."""
    envs = {n: {"sync": gym.vector.SyncVectorEnv(
                    [lambda: SingleAgentEnv(opponent="random") for _ in range(n)]),
                "vector": EvenstarVectorEnv(n, opponent="random")} for n in args.sizes}
    selfplay = {n: SelfPlayVectorEnv(n) for n in args.sizes}
    for n, pair in envs.items():  # warm up
        for env in pair.values():
            learner_steps_per_s(env, 5, 0)
        selfplay_decisions_per_s(selfplay[n], 5, 0)
    runs: dict[int, dict[str, list[tuple[float, float]]]] = {
        n: {"sync": [], "vector": [], "selfplay": []} for n in args.sizes}
    for r in range(args.rounds):
        for n, pair in envs.items():
            batched = max(1, args.steps // n)
            for kind, env in pair.items():
                runs[n][kind].append(learner_steps_per_s(env, batched, seed=1000 * r))
            runs[n]["selfplay"].append(selfplay_decisions_per_s(selfplay[n], batched,
                                                                seed=1000 * r))
    rows = []
    for n, rs in runs.items():
        cpu = {k: [c for c, _ in v] for k, v in rs.items()}
        wall = {k: [w for _, w in v] for k, v in rs.items()}
        ratios = [v / s for v, s in zip(cpu["vector"], cpu["sync"], strict=True)]
        wall_ratios = [v / s for v, s in zip(wall["vector"], wall["sync"], strict=True)]
        rows.append({"n": n, "sync_steps_per_cpu_s": _median(cpu["sync"]),
                     "vector_steps_per_cpu_s": _median(cpu["vector"]),
                     "ratio_per_round": [round(x, 3) for x in ratios],
                     "ratio_vector_to_sync": round(float(np.median(ratios)), 2),
                     "selfplay_decisions_per_cpu_s": _median(cpu["selfplay"]),
                     "wall_clock": {"sync_steps_per_s": _median(wall["sync"]),
                                    "vector_steps_per_s": _median(wall["vector"]),
                                    "ratio_per_round": [round(x, 3) for x in wall_ratios]}})
    out = {"backend": resolve(None), "steps_per_measurement": args.steps,
           "rounds": args.rounds, "opponent": "random", "results": rows}
    print(f"machine: {machine()['cpu']} (Python {machine()['python']}), one core, backend "
          f"{out['backend']}; "
          f"medians of {args.rounds} alternating rounds, learner steps per CPU second "
          f"over all N games")
    print(f"{'N':>4} {'SyncVectorEnv':>14} {'EvenstarVectorEnv':>18} {'ratio':>6} "
          f"{'range':>12} {'SelfPlayVectorEnv decisions/s':>30}")
    for row in rows:
        lo, hi = min(row["ratio_per_round"]), max(row["ratio_per_round"])
        print(f"{row['n']:>4} {row['sync_steps_per_cpu_s']:>14,} "
              f"{row['vector_steps_per_cpu_s']:>18,} {row['ratio_vector_to_sync']:>6.2f} "
              f"{f'{lo:.2f}-{hi:.2f}':>12} {row['selfplay_decisions_per_cpu_s']:>30,}")
    return out


def _alternate(envs: dict[str, Any], measure: Callable[[str, Any, int], tuple[float, float]],
               rounds: int) -> dict[str, list[tuple[float, float]]]:
    """`measure(name, env, seed)` of every env, in alternating rounds."""
    runs: dict[str, list[tuple[float, float]]] = {k: [] for k in envs}
    for r in range(rounds):
        for k, env in envs.items():
            runs[k].append(measure(k, env, 1000 * r))
    return runs


def _summary(runs: dict[str, list[tuple[float, float]]], base: str) -> dict[str, Any]:
    """Medians (CPU and wall clock) and the per-round CPU ratios to `base`."""
    row: dict[str, Any] = {}
    for k, v in runs.items():
        row[k] = {"steps_per_cpu_s": _median([c for c, _ in v]),
                  "steps_per_s": _median([w for _, w in v])}
        if k != base:
            ratios = [c / b for (c, _), (b, _) in zip(v, runs[base], strict=True)]
            row[k]["ratio_to_" + base] = round(float(np.median(ratios)), 2)
            row[k]["ratio_per_round"] = [round(x, 2) for x in ratios]
    return row


def opponents(n: int, steps: int, rounds: int) -> dict[str, Any]:
    """EvenstarVectorEnv(n) learner steps/s against random, the batched learned network and
    LearnedAgent per game."""
    import torch

    from agents.learned_agent import LearnedAgent

    torch.set_num_threads(1)
    envs = {"random": EvenstarVectorEnv(n, opponent="random"),
            "learned_batched": EvenstarVectorEnv(n, opponent="learned"),
            "learned_per_game": EvenstarVectorEnv(n, opponent=LearnedAgent())}
    per = {"random": max(1, steps // n), "learned_batched": max(1, steps // n),
           "learned_per_game": max(1, steps // (4 * n))}
    for env in envs.values():  # warm up
        learner_steps_per_s(env, 2, 0)
    runs = _alternate(envs, lambda k, env, seed: learner_steps_per_s(env, per[k], seed),
                      rounds)
    row = {"n": n, "backend": resolve(None), **_summary(runs, "random")}
    print(f"EvenstarVectorEnv N={n} ({row['backend']}), learner steps per CPU second, "
          f"medians of {rounds} rounds:")
    for k in envs:
        ratio = row[k].get("ratio_to_random")
        print(f"  {k:<17} {row[k]['steps_per_cpu_s']:>8,}" +
              (f"  ({ratio:.2f}x random)" if ratio is not None else ""))
    return row


def sb3_steps_per_s(env: Any, steps: int, seed: int) -> tuple[float, float]:
    """Learner steps/s through SB3's VecEnv API: masks (get_action_masks) and a step."""
    from sb3_contrib.common.maskable.utils import get_action_masks

    rng = np.random.default_rng(seed)
    env.seed(seed)
    env.reset()
    c0, t0 = time.process_time(), time.perf_counter()
    for _ in range(steps):
        env.step(random_legal(rng, get_action_masks(env)))
    return _rates(env.num_envs * steps, c0, t0)


def sb3_vec_env(n: int, steps: int, rounds: int) -> dict[str, Any]:
    """EvenstarSB3VecEnv(n) against DummyVecEnv over n SingleAgentEnvs."""
    from stable_baselines3.common.vec_env import DummyVecEnv

    from evenstar_env.sb3 import EvenstarSB3VecEnv

    envs = {"dummy_vec_env": DummyVecEnv([lambda: SingleAgentEnv(opponent="random")] * n),
            "native_adapter": EvenstarSB3VecEnv(n, opponent="random")}
    batched = max(1, steps // n)
    for env in envs.values():
        sb3_steps_per_s(env, 2, 0)
    row = {"n": n, **_summary(_alternate(
        envs, lambda _k, env, seed: sb3_steps_per_s(env, batched, seed), rounds),
        "dummy_vec_env")}
    d, a = row["dummy_vec_env"], row["native_adapter"]
    print(f"SB3 VecEnv N={n}, random opponent, learner steps per CPU second: DummyVecEnv "
          f"{d['steps_per_cpu_s']:,}, EvenstarSB3VecEnv {a['steps_per_cpu_s']:,} "
          f"({a['ratio_to_dummy_vec_env']:.2f}x, rounds {a['ratio_per_round']})")
    return row


def maskable_ppo(n: int, timesteps: int) -> dict[str, Any]:
    """MaskablePPO timesteps per CPU second (rollout + update) on the two paths."""
    import warnings

    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    from evenstar_env.sb3 import EvenstarSB3VecEnv

    torch.set_num_threads(1)
    warnings.filterwarnings("ignore", category=UserWarning)
    paths = {"dummy_vec_env_2": lambda: DummyVecEnv([lambda: SingleAgentEnv()] * 2),
             f"dummy_vec_env_{n}": lambda: DummyVecEnv([lambda: SingleAgentEnv()] * n),
             f"native_adapter_{n}": lambda: EvenstarSB3VecEnv(n)}
    row: dict[str, Any] = {"timesteps": timesteps, "net_arch": [64, 64], "rollout": 4096}
    for k, make in paths.items():
        env = make()
        model = MaskablePPO("MlpPolicy", env, n_steps=4096 // env.num_envs, batch_size=1024,
                            n_epochs=1, seed=0, device="cpu",
                            policy_kwargs={"net_arch": [64, 64]})
        model.learn(4096)  # warm-up
        c0 = time.process_time()
        model.learn(timesteps)
        row[k] = round(timesteps / (time.process_time() - c0))
    base = row["dummy_vec_env_2"]
    print("MaskablePPO timesteps per CPU second: " + ", ".join(
        f"{k} {row[k]:,} ({row[k] / base:.1f}x)" for k in paths))
    return row


def _median(values: list[float]) -> int:
    return round(float(np.median(values)))


if __name__ == "__main__":
    main()
