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

Prints tables and writes JSON (default: benchmarks/results/vector.json).
Usage: python benchmarks/bench_vector.py [--steps S] [--rounds R] [--sizes 1 8 64]
       [--backend python|native] [--selfplay-sizes 256] [--out PATH]
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

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
    ap.add_argument("--out", type=Path,
                    default=Path(__file__).parent / "results" / "vector.json")
    args = ap.parse_args()
    if args.backend:
        os.environ["EVENSTAR_BACKEND"] = args.backend
    out = {"machine": machine(), "load_before": os.getloadavg()}
    out.update(sync_vs_vector(args))
    out["selfplay_backends"] = [selfplay_backends(n, args.selfplay_steps, args.rounds)
                                for n in args.selfplay_sizes]
    out["load_after"] = os.getloadavg()
    print_backends(out["selfplay_backends"])
    write_results(out, args.out)


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


def _median(values: list[float]) -> int:
    return round(float(np.median(values)))


if __name__ == "__main__":
    main()
