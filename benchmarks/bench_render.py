"""Render benchmark: time per rgb_array frame with the reused figure against a new
figure per frame (what every frame cost before issue 16), and the time of a
headless human-mode step.

Prints the figures and writes JSON (default: benchmarks/results/render.json).
Usage: python benchmarks/bench_render.py [--frames N] [--full-frames N] [--out PATH]
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import numpy as np
from common import machine, write_results

from evenstar_env import Game, env
from evenstar_env.env.render import MapRenderer, render_rgb


def positions(n: int, seed: int = 3) -> list[Game]:
    """`n` consecutive positions of a cautious-random game (one decision apart)."""
    g, rng, out = Game(seed), np.random.default_rng(seed), []
    while len(out) < n and not g.is_over:
        out.append(g.clone())
        legal = g.legal_actions()
        if g.decision.kind == "mode" and len(legal) > 1:  # avoid realignment: long games
            legal = legal[legal != g.action_id("mode", "realign")]
        g.step(int(rng.choice(legal)))
    return out


def per_frame(fn, games: list[Game]) -> tuple[list[float], float]:
    """Wall time of each frame, and the mean CPU time of this process per frame (the
    figure to trust on a shared, loaded machine)."""
    times, cpu = [], time.process_time()
    for g in games:
        t = time.perf_counter()
        fn(g)
        times.append(time.perf_counter() - t)
    return times, (time.process_time() - cpu) / len(games)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--frames", type=int, default=100)
    ap.add_argument("--full-frames", type=int, default=10)
    ap.add_argument("--out", type=Path, default=Path("benchmarks/results/render.json"))
    args = ap.parse_args()
    games = positions(args.frames)
    render_rgb(games[0])  # build the shared figure once
    reused, reused_cpu = per_frame(render_rgb, games)
    full, full_cpu = per_frame(lambda g: MapRenderer(g.content).render(g),
                               games[: args.full_frames])
    e = env(render_mode="human")
    e.reset(seed=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the one "no display" warning
        human = []
        for _ in range(50):
            obs = e.last()[0]
            t = time.perf_counter()
            e.step(int(np.flatnonzero(obs["action_mask"])[0]))
            human.append(time.perf_counter() - t)
    out = {"machine": machine(), "frames": len(reused),
           "reused_ms": {"median": 1e3 * float(np.median(reused)),
                         "mean": 1e3 * float(np.mean(reused)), "max": 1e3 * float(np.max(reused)),
                         "cpu_mean": 1e3 * reused_cpu},
           "new_figure_ms": {"median": 1e3 * float(np.median(full)),
                             "mean": 1e3 * float(np.mean(full)), "frames": len(full),
                             "cpu_mean": 1e3 * full_cpu},
           "human_headless_step_ms": {"median": 1e3 * float(np.median(human))}}
    print(f"rgb_array, reused figure: median {out['reused_ms']['median']:.1f} ms, mean "
          f"{out['reused_ms']['mean']:.1f} ms, max {out['reused_ms']['max']:.1f} ms, CPU mean "
          f"{out['reused_ms']['cpu_mean']:.1f} ms ({len(reused)} consecutive positions)")
    print(f"rgb_array, new figure per frame: median {out['new_figure_ms']['median']:.1f} ms, "
          f"CPU mean {out['new_figure_ms']['cpu_mean']:.1f} ms ({len(full)} frames)")
    print(f"human mode step without a display: median "
          f"{out['human_headless_step_ms']['median']:.2f} ms")
    write_results(out, args.out)


if __name__ == "__main__":
    main()
