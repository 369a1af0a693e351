"""Environment benchmark: engine decisions/s, AEC steps/s with observation and mask,
games/s, and PettingZoo's connect_four through the same loop, on one core.

Backends: the same AEC loop on the Python and the native backend (EVENSTAR_BACKEND) in
alternating rounds, with the ratio native / Python of every round (``--backend-games``
per round, 0 to skip).  The other figures run on the default backend.

Prints the figures and writes them as JSON (default: benchmarks/results/env.json).
Usage: python benchmarks/bench_env.py [--games N] [--rounds R] [--backend-games G] [--out PATH]
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np
import pettingzoo
from common import machine, uniform_game, write_results

import evenstar_env  # noqa: F401  (registers Evenstar-v0)


def aec_random_play(env_id: str, games: int, seed: int = 0) -> dict:
    """Random legal play through agent_iter/last/step: every step builds obs and mask."""
    env = pettingzoo.make("aec", env_id)
    rng = np.random.default_rng(seed)
    steps = 0
    t0 = time.perf_counter()
    for k in range(games):
        env.reset(seed=seed + k)
        for _agent in env.agent_iter():
            obs, _reward, term, trunc, _info = env.last()
            if term or trunc:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.integers(legal.size)]))
            steps += 1
    dt = time.perf_counter() - t0
    env.close()
    return {"env": env_id, "games": games, "steps": steps, "seconds": round(dt, 3),
            "steps_per_s": round(steps / dt), "games_per_s": round(games / dt, 1)}


def engine_play(games: int) -> dict:
    t0 = time.perf_counter()
    decisions = sum(uniform_game(seed)[0] for seed in range(games))
    dt = time.perf_counter() - t0
    return {"games": games, "decisions": decisions, "seconds": round(dt, 3),
            "decisions_per_s": round(decisions / dt), "games_per_s": round(games / dt, 1)}


def interleaved(games: int, rounds: int) -> tuple[dict, dict, list[float]]:
    """Evenstar and connect_four in alternating rounds (so that a slow spell of the
    machine hits both); the pooled figures and the ratio of every round."""
    runs: dict[str, list[dict]] = {"Evenstar-v0": [], "classic/connect_four-v3": []}
    ratios = []
    for r in range(rounds):
        ev = aec_random_play("Evenstar-v0", games, seed=r * games)
        c4 = aec_random_play("classic/connect_four-v3", games * 5, seed=r * games * 5)
        runs["Evenstar-v0"].append(ev)
        runs["classic/connect_four-v3"].append(c4)
        ratios.append(ev["steps_per_s"] / c4["steps_per_s"])
    return (*(_pool(env_id, rs) for env_id, rs in runs.items()), ratios)


def backends(games: int, rounds: int) -> dict:
    """The Evenstar AEC loop on the Python and the native backend, alternating rounds."""
    runs: dict[str, list[dict]] = {"python": [], "native": []}
    before = os.environ.get("EVENSTAR_BACKEND")
    try:
        for r in range(rounds):
            for backend in runs:
                os.environ["EVENSTAR_BACKEND"] = backend
                runs[backend].append(aec_random_play("Evenstar-v0", games, seed=r * games))
    finally:
        os.environ.pop("EVENSTAR_BACKEND", None)
        if before is not None:
            os.environ["EVENSTAR_BACKEND"] = before
    ratios = [n["steps_per_s"] / p["steps_per_s"]
              for n, p in zip(runs["native"], runs["python"], strict=True)]
    return {"python": _pool("Evenstar-v0", runs["python"]),
            "native": _pool("Evenstar-v0", runs["native"]),
            "ratio_per_round": [round(x, 2) for x in ratios],
            "ratio_native_to_python_steps": round(float(np.median(ratios)), 2)}


def _pool(env_id: str, runs: list[dict]) -> dict:
    games = sum(r["games"] for r in runs)
    steps = sum(r["steps"] for r in runs)
    dt = sum(r["seconds"] for r in runs)
    return {"env": env_id, "games": games, "steps": steps, "seconds": round(dt, 3),
            "steps_per_s": round(steps / dt), "games_per_s": round(games / dt, 1)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--games", type=int, default=200, help="Evenstar games per round")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--backend-games", type=int, default=50,
                    help="games per round of the backend comparison (0: skip it)")
    ap.add_argument("--out", type=Path, default=Path(__file__).parent / "results" / "env.json")
    args = ap.parse_args()
    load_before = os.getloadavg()
    aec_random_play("Evenstar-v0", 2)  # warm up: content loading, imports
    aec_random_play("classic/connect_four-v3", 2)
    evenstar, connect_four, ratios = interleaved(args.games, args.rounds)
    out = {
        "machine": machine(),
        "engine": engine_play(args.games * args.rounds),
        "evenstar_aec": evenstar,
        "connect_four_aec": connect_four,
        "ratio_per_round": [round(r, 3) for r in ratios],
        "ratio_evenstar_to_connect_four_steps": round(float(np.median(ratios)), 2),
    }
    from evenstar_env.native import available

    if args.backend_games and available():
        out["backends"] = backends(args.backend_games, args.rounds)
    out["load_average"] = {"before": load_before, "after": os.getloadavg()}
    e, a, c = out["engine"], out["evenstar_aec"], out["connect_four_aec"]
    print(f"machine: {out['machine']['cpu']} (Python {out['machine']['python']}), one core")
    print(f"engine (uniform random): {e['decisions_per_s']:,} decisions/s, "
          f"{e['games_per_s']} games/s")
    print(f"Evenstar AEC, obs + mask every step: {a['steps_per_s']:,} steps/s, "
          f"{a['games_per_s']} games/s ({a['games']} games)")
    print(f"connect_four_v3 AEC, same loop: {c['steps_per_s']:,} steps/s, "
          f"{c['games_per_s']} games/s ({c['games']} games)")
    print(f"ratio Evenstar / connect_four steps/s, {args.rounds} alternating rounds: "
          f"median {out['ratio_evenstar_to_connect_four_steps']:.2f} "
          f"(min {min(ratios):.2f}, max {max(ratios):.2f})")
    if "backends" in out:
        b = out["backends"]
        print(f"Evenstar AEC by backend, {args.rounds} alternating rounds: Python "
              f"{b['python']['steps_per_s']:,} steps/s, native {b['native']['steps_per_s']:,} "
              f"steps/s, ratio median {b['ratio_native_to_python_steps']:.2f} "
              f"(per round {b['ratio_per_round']})")
    write_results(out, args.out)


if __name__ == "__main__":
    main()
