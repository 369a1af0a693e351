"""Time per decision of each agent, playing both sides against the heuristic.

Every `act` call of the measured agent is timed (the engine's own steps are
not). Prints mean, median, 95th/99th percentile and maximum per agent, and the
share of decisions over one second; writes JSON (default:
benchmarks/results/agents.json).

    python benchmarks/bench_agents.py [--agents random heuristic ismcts ppo]
                                      [--games N] [--seed S] [--out PATH]
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np
from common import machine, write_results

from evenstar_env import Game
from experiments.arena import make_agent


def decision_times(spec: str, games: int, seed0: int) -> np.ndarray:
    """Seconds per decision of agent `spec`, over `games` seeds played on each side."""
    warm = Game(seed0)  # one untimed call: imports and caches are not decisions
    make_agent(spec, 0).act(None, warm.action_mask(), warm)
    times: list[float] = []
    for seed in range(seed0, seed0 + games):
        for side in ("usa", "china"):
            other = "china" if side == "usa" else "usa"
            agents = {side: make_agent(spec, 2 * seed),
                      other: make_agent("heuristic", 2 * seed + 1)}
            g = Game(seed)
            while not g.is_over:
                mover = g.current_player
                t0 = time.perf_counter()
                a = agents[mover].act(None, g.action_mask(), g)
                if mover == side:
                    times.append(time.perf_counter() - t0)
                g.step(a)
    return np.asarray(times)


def summary(times: np.ndarray) -> dict[str, float]:
    return {"decisions": int(times.size), "mean_s": float(times.mean()),
            "median_s": float(np.median(times)), "p95_s": float(np.percentile(times, 95)),
            "p99_s": float(np.percentile(times, 99)), "max_s": float(times.max()),
            "share_over_1s": float(np.mean(times > 1.0))}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--agents", nargs="+", default=["random", "heuristic", "ismcts", "ppo"],
                    help="agent specs, as for `evenstar arena`")
    ap.add_argument("--games", type=int, default=2, help="seeds, each played on both sides")
    ap.add_argument("--seed", type=int, default=1001)
    ap.add_argument("--out", type=Path, default=Path(__file__).parent / "results" / "agents.json")
    args = ap.parse_args()
    results = {}
    print(f"{'agent':<12}{'decisions':>10}{'mean':>10}{'median':>10}{'p95':>10}{'p99':>10}"
          f"{'max':>10}{'> 1 s':>8}")
    for spec in args.agents:
        row = summary(decision_times(spec, args.games, args.seed))
        results[spec] = row
        print(f"{spec:<12}{row['decisions']:>10}" + "".join(
            f"{row[k] * 1000:>8.2f}ms" for k in ("mean_s", "median_s", "p95_s", "p99_s", "max_s"))
            + f"{row['share_over_1s']:>8.1%}")
    write_results({"machine": machine(), "load_average_at_end": list(os.getloadavg()),
                   "games": args.games, "seed": args.seed, "opponent": "heuristic",
                   "agents": results}, args.out)


if __name__ == "__main__":
    main()
