"""Native core benchmark: each figure a ratio to the Python engine measured in the same run.

Backends are interleaved (Python, native, Python, native, ...) and every figure is the
median of 5 rounds (a per-call cost: the best of 5 batches in each round), because the
machine is shared and noisy.  Figures:

- uniform random play, decisions/s: Python Game, native Game driven from Python (also
  with its event stream on, ``Game(events=True)``, records taken after every step:
  docs/events.md; off is the default and the other figures), and an all-C++ loop
  (``evenstar_native.random_games``; its agent draws from its own
  SplitMix64 stream, so its games are other random games of the same kind);
- ``clone`` (``Game.clone``; for native also ``Engine.clone`` from Python and a state
  copy inside C++), ``resample_hidden`` (a Generator's draw included), ``to_dict`` and
  ``from_dict`` in microseconds;
- the agents (issue 17): HeuristicAgent decisions/s (the heuristic against itself, the
  first decisions of a game) and ISMCTSAgent iterations/s (a fixed budget of
  iterations, no clock, at the card and headline decisions of a heuristic game; the
  time of the whole ``act`` call, the heuristic's hint included); both backends play
  the same positions with the same seeds and take the same decisions
  (tests/test_native_agents.py), so the settings are equal;
- the observation (the Python encoder on both backends: on native it reads the
  zero-copy state views), in microseconds;
- batched stepping (``NativeBatch``, N = 64 and 256, 1 and 2 threads; mask and
  state-level outputs from C++, and N = 64 with ``observe()``, the Python encoder)
  against the same loop over N Python games with the Python encoder.

Usage: python benchmarks/bench_native.py [--games N] [--no-batch] [--events-only] [--out PATH]
(``--events-only``: the random-play figures only, events off and on, under a minute)
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

from agents.heuristic import HeuristicAgent
from agents.ismcts import ISMCTSAgent
from evenstar_env import Game
from evenstar_env.content import load_content
from evenstar_env.env.observation import encoder_for
from evenstar_env.native import tables_for

ROUNDS = 5


def play(backend: str, seeds: range, events: bool = False) -> tuple[int, float]:
    """Uniform random play through the public API: (decisions, seconds); with `events`
    the event stream is on and its new records are taken after every step."""
    decisions = 0
    t0 = time.perf_counter()
    for seed in seeds:
        g = Game(seed, backend=backend, events=events)
        rng = np.random.default_rng(seed)
        seen = 0
        while not g.is_over:
            legal = g.legal_actions()
            g.step(int(legal[rng.integers(legal.size)]))
            decisions += 1
            if events:
                seen += len(g.events("all", seen))
    return decisions, time.perf_counter() - t0


def all_cpp(seed: int, n_games: int) -> tuple[int, float]:
    tables = tables_for(load_content())
    t0 = time.perf_counter()
    _, decisions = evenstar_native.random_games(tables, seed, n_games)
    return decisions, time.perf_counter() - t0


def per_call_us(fn, n: int, batches: int = 5) -> float:
    """Microseconds per call: the best of `batches` batches of n / batches calls (the
    least disturbed by other jobs on the machine)."""
    k = max(1, n // batches)
    best = float("inf")
    for _ in range(batches):
        t0 = time.perf_counter()
        for _ in range(k):
            fn()
        best = min(best, time.perf_counter() - t0)
    return best / k * 1e6


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


def heuristic_rate(backend: str, seed: int, decisions: int) -> float:
    """HeuristicAgent against itself, the first `decisions` decisions of game `seed`."""
    g = Game(seed, backend=backend)
    agents = {"usa": HeuristicAgent(seed), "china": HeuristicAgent(seed + 1)}
    t0 = time.perf_counter()
    for _ in range(decisions):
        if g.is_over:
            break
        g.step(agents[g.current_player].act(None, g.action_mask(), g))
    return decisions / (time.perf_counter() - t0)


def ismcts_rate(backend: str, seed: int, searches: int, iterations: int) -> float:
    """ISMCTSAgent iterations/s: `searches` searches of `iterations` iterations at the
    card and headline decisions (from the 10th decision) of a heuristic game."""
    g = Game(seed, backend=backend)
    play = {"usa": HeuristicAgent(seed), "china": HeuristicAgent(seed + 1)}
    agent = ISMCTSAgent(iterations=iterations, seconds=None, seed=seed)
    spent, done, k = 0.0, 0, 0
    while done < searches and not g.is_over:
        d = g.decision
        if k >= 10 and d.kind in ("card", "headline") and len(d.legal) > 1:
            t0 = time.perf_counter()
            agent.act(None, g.action_mask(), g)
            spent += time.perf_counter() - t0
            done += 1
        g.step(play[g.current_player].act(None, g.action_mask(), g))
        k += 1
    return done * iterations / spent


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
    ap.add_argument("--no-batch", action="store_true", help="skip the NativeBatch figures")
    ap.add_argument("--events-only", action="store_true",
                    help="only the random-play figures (event stream off and on)")
    ap.add_argument("--searches", type=int, default=4,
                    help="ISMCTS searches per round and backend (200 iterations each)")
    ap.add_argument("--out", type=Path,
                    default=Path(__file__).parent / "results" / "native.json")
    args = ap.parse_args()
    rates: dict[str, list[float]] = {"python": [], "native": [], "native_events": [], "cpp": []}
    costs: dict[str, list[float]] = {}
    batch: dict[str, list[float]] = {}
    agents: dict[str, list[float]] = {}
    for r in range(ROUNDS):
        seeds = range(r * args.games, (r + 1) * args.games)
        for backend in ("python", "native"):
            d, dt = play(backend, seeds)
            rates[backend].append(d / dt)
        d, dt = play("native", seeds, events=True)
        rates["native_events"].append(d / dt)
        d, dt = all_cpp(r, args.games * 20)
        rates["cpp"].append(d / dt)
        if args.events_only:
            continue
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
            gen = np.random.default_rng(r)
            for name, fn in (("clone", g.clone), ("to_dict", g.to_dict),
                             ("from_dict", lambda s=snap, b=backend: Game.from_dict(s, backend=b)),
                             ("resample_hidden", lambda g=g, r=gen: g.resample_hidden("usa", r))):
                calls = n if name in ("clone", "resample_hidden") else n // 4
                costs.setdefault(f"{name}_{backend}", []).append(per_call_us(fn, calls))
            agents.setdefault(f"heuristic_decisions_per_s_{backend}", []).append(
                heuristic_rate(backend, 100 + r, 60))
            agents.setdefault(f"ismcts_iterations_per_s_{backend}", []).append(
                ismcts_rate(backend, 200 + r, args.searches, 200))
        if args.no_batch:
            continue
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
    ag = {k: round(median(v), 1) for k, v in agents.items()}
    out = {
        "machine": machine(), "load_avg": os.getloadavg(), "rounds": ROUNDS,
        "games_per_round": args.games,
        "decisions_per_s": {"python_game": dps["python"], "native_game": dps["native"],
                            "native_game_events_on": dps["native_events"],
                            "all_cpp_loop": dps["cpp"]},
        "native_events_on_to_off": round(dps["native_events"] / dps["native"], 2),
    }
    if args.events_only:
        for k, v in out.items():
            print(f"{k}: {v}")
        write_results(out, args.out.with_name("native_events.json"))
        return
    out |= {
        "ratio_to_python": {"native_game": round(dps["native"] / dps["python"], 1),
                            "all_cpp_loop": round(dps["cpp"] / dps["python"], 1),
                            **{f"{k}_speedup": round(us[f"{k}_python"] / us[f"{k}_native"], 1)
                               for k in ("clone", "to_dict", "from_dict", "encode",
                                         "resample_hidden")},
                            **{f"{k}_speedup": round(ag[f"{k}_native"] / ag[f"{k}_python"], 1)
                               for k in ("heuristic_decisions_per_s",
                                         "ismcts_iterations_per_s")}},
        "microseconds": us,
        "agents": ag,
    }
    if bat:
        out["batch_game_steps_per_s"] = bat
        out["batch_ratio_to_python_vector"] = {k: round(v / bat["python_vector_n64"], 1)
                                               for k, v in bat.items() if k.startswith("native")}
    for k, v in out.items():
        print(f"{k}: {v}")
    write_results(out, args.out)


if __name__ == "__main__":
    main()
