"""Native core benchmark: each figure a ratio to the Python engine measured in the same run.

Backends are interleaved (Python, native, Python, native, ...) and every figure is the
median of 5 rounds, because the machine is shared and noisy.  Figures:

- uniform random play, decisions/s: Python Game, native Game driven from Python,
  and an all-C++ loop (``evenstar_native.random_games``; its agent draws from its own
  SplitMix64 stream, so its games are other random games of the same kind);
- ``clone`` (``Game.clone``; for native also ``Engine.clone`` from Python and a state
  copy inside C++), ``to_dict`` and ``from_dict`` in microseconds;
- the observation (the Python encoder on both backends: on native it reads the
  zero-copy state views), in microseconds;
- batched stepping (``NativeBatch``, N = 64 and 256, 1 and 2 threads; mask and
  state-level outputs from C++, and N = 64 with ``observe()``, the Python encoder)
  against the same loop over N Python games with the Python encoder.

Usage: python benchmarks/bench_native.py [--games N] [--out PATH]
(default out: benchmarks/results/native.json)
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

import evenstar_native
import numpy as np
from common import machine, write_results

from evenstar_env import Game
from evenstar_env.content import load_content
from evenstar_env.env.observation import encoder_for
from evenstar_env.native import tables_for

ROUNDS = 5


def play(backend: str, seeds: range) -> tuple[int, float]:
    """Uniform random play through the public API: (decisions, seconds)."""
    decisions = 0
    t0 = time.perf_counter()
    for seed in seeds:
        g = Game(seed, backend=backend)
        rng = np.random.default_rng(seed)
        while not g.is_over:
            legal = g.legal_actions()
            g.step(int(legal[rng.integers(legal.size)]))
            decisions += 1
    return decisions, time.perf_counter() - t0


def all_cpp(seed: int, n_games: int) -> tuple[int, float]:
    tables = tables_for(load_content())
    t0 = time.perf_counter()
    _, decisions = evenstar_native.random_games(tables, seed, n_games)
    return decisions, time.perf_counter() - t0


def per_call_us(fn, n: int) -> float:
    t0 = time.perf_counter()
    for _ in range(n):
        fn()
    return (time.perf_counter() - t0) / n * 1e6


def mid_game(backend: str) -> Game:
    """A cautious-looking mid-game position (turn 2 or later when the game lasts)."""
    g = Game(7, backend=backend)
    rng = np.random.default_rng(7)
    for _ in range(60):
        if g.is_over:
            break
        legal = g.legal_actions()
        g.step(int(legal[rng.integers(legal.size)]))
    return g


def batch_rate(n: int, threads: int, steps: int, obs: bool = False) -> tuple[float, float]:
    """NativeBatch: game-steps/s with the mask (and with `obs` the observations by
    ``observe()``), (whole loop, step calls only); the loop includes choosing a random
    legal action per game with numpy."""
    from evenstar_env.native.batch import NativeBatch

    b = NativeBatch(n, seed=11, threads=threads)
    buf = np.empty((n, encoder_for(b.content).size), dtype=np.float32)
    rng = np.random.default_rng(11)
    in_step = 0.0
    t0 = time.perf_counter()
    for _ in range(steps):
        acts = np.argmax(b.mask * rng.random(b.mask.shape, dtype=np.float32), axis=1)
        t1 = time.perf_counter()
        b.step(acts)
        in_step += time.perf_counter() - t1
        if obs:
            b.observe(buf)
    total = time.perf_counter() - t0
    return n * steps / total, n * steps / in_step


def python_vector_rate(n: int, steps: int) -> float:
    """The same loop on N Python games: step, then the mover's observation and mask."""
    games = [Game(11 + i, backend="python") for i in range(n)]
    enc = encoder_for(games[0].content)
    rng = np.random.default_rng(11)
    done = 0
    t0 = time.perf_counter()
    for _ in range(steps):
        for i, g in enumerate(games):
            if g.is_over:
                games[i] = g = Game(11 + i + n * (done := done + 1), backend="python")
            else:
                legal = g.legal_actions()
                g.step(int(legal[rng.integers(legal.size)]))
            if not g.is_over:
                enc.encode(g._m, g.state.pending[1])
                g.action_mask()
    return n * steps / (time.perf_counter() - t0)


def median(xs: list[float]) -> float:
    return float(statistics.median(xs))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=100, help="games per round and backend")
    ap.add_argument("--out", type=Path,
                    default=Path(__file__).parent / "results" / "native.json")
    args = ap.parse_args()
    rates: dict[str, list[float]] = {"python": [], "native": [], "cpp": []}
    costs: dict[str, list[float]] = {}
    batch: dict[str, list[float]] = {}
    for r in range(ROUNDS):
        seeds = range(r * args.games, (r + 1) * args.games)
        for backend in ("python", "native"):
            d, dt = play(backend, seeds)
            rates[backend].append(d / dt)
        d, dt = all_cpp(r, args.games * 20)
        rates["cpp"].append(d / dt)
        for backend in ("python", "native"):
            g = mid_game(backend)
            snap = g.to_dict()
            n = 2000 if backend == "native" else 500
            engine = getattr(g._m.s, "engine", None)
            if engine is not None:  # the binding's own clone, and a clone inside C++
                costs.setdefault("clone_engine_native", []).append(per_call_us(engine.clone, n))
                costs.setdefault("clone_in_cpp_native", []).append(engine.clone_ns(10**6) / 1e3)
            costs.setdefault(f"encode_{backend}", []).append(  # the Python encoder on both
                per_call_us(lambda g=g: encoder_for(g.content).encode(g._m, 0), n // 8))
            for name, fn in (("clone", g.clone), ("to_dict", g.to_dict),
                             ("from_dict", lambda s=snap, b=backend: Game.from_dict(s, backend=b))):
                calls = n if name == "clone" else n // 4
                costs.setdefault(f"{name}_{backend}", []).append(per_call_us(fn, calls))
        batch.setdefault("python_vector_n64", []).append(python_vector_rate(64, 10))
        for n in (64, 256):
            for threads in (1, 2):
                loop, inner = batch_rate(n, threads, 400 if n == 64 else 100)
                batch.setdefault(f"native_batch_n{n}_t{threads}", []).append(loop)
                batch.setdefault(f"native_batch_n{n}_t{threads}_step_only", []).append(inner)
        batch.setdefault("native_batch_n64_t1_observe", []).append(batch_rate(64, 1, 10, True)[0])
    dps = {k: round(median(v)) for k, v in rates.items()}
    bat = {k: round(median(v)) for k, v in batch.items()}
    us = {k: round(median(v), 2) for k, v in costs.items()}
    out = {
        "machine": machine(), "load_avg": os.getloadavg(), "rounds": ROUNDS,
        "games_per_round": args.games,
        "decisions_per_s": {"python_game": dps["python"], "native_game": dps["native"],
                            "all_cpp_loop": dps["cpp"]},
        "ratio_to_python": {"native_game": round(dps["native"] / dps["python"], 1),
                            "all_cpp_loop": round(dps["cpp"] / dps["python"], 1),
                            **{f"{k}_speedup": round(us[f"{k}_python"] / us[f"{k}_native"], 1)
                               for k in ("clone", "to_dict", "from_dict", "encode")}},
        "microseconds": us,
        "batch_game_steps_per_s": bat,
        "batch_ratio_to_python_vector": {k: round(v / bat["python_vector_n64"], 1)
                                         for k, v in bat.items() if k.startswith("native")},
    }
    for k, v in out.items():
        print(f"{k}: {v}")
    write_results(out, args.out)


if __name__ == "__main__":
    main()
