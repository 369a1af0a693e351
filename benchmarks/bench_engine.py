"""Engine benchmark: random-play decisions/s, games/s, clone and serialisation cost.

Prints the figures and writes them as JSON (default: benchmarks/results/engine.json).
Runs on one core.  Usage: python benchmarks/bench_engine.py [--games N] [--out PATH]
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import numpy as np
from common import machine, uniform_game, write_results

from agents import CautiousRandomAgent
from evenstar_env import Game
from experiments.selfplay import play_game


def end_reason(reason: str) -> str:
    """Group a result reason into its kind (drop scores and side names)."""
    return reason.split(":")[0].split(" caused")[0].replace("usa ", "").replace("china ", "")


def cautious_game(seed: int) -> tuple[int, str | None, str, int]:
    """CautiousRandomAgent on both sides: games that reach final scoring."""
    rec = play_game(seed, {"usa": CautiousRandomAgent(seed),
                           "china": CautiousRandomAgent(seed + 1_000_000)})
    return len(rec.actions), rec.winner, rec.reason, rec.turn


def play_many(n_games: int, game_fn: Callable) -> dict:
    decisions = 0
    reasons: Counter = Counter()
    winners: Counter = Counter()
    turns: Counter = Counter()
    per_game = []
    t0 = time.perf_counter()
    for seed in range(n_games):
        steps, winner, reason, turn = game_fn(seed)
        decisions += steps
        per_game.append(steps)
        reasons[end_reason(reason)] += 1
        winners[winner or "draw"] += 1
        turns[turn] += 1
    dt = time.perf_counter() - t0
    return {
        "games": n_games, "seconds": round(dt, 3), "decisions": decisions,
        "decisions_per_s": round(decisions / dt), "games_per_s": round(n_games / dt, 1),
        "mean_decisions_per_game": round(float(np.mean(per_game)), 1),
        "end_reasons": dict(reasons.most_common()), "winners": dict(winners),
        "end_turn": {str(k): v for k, v in sorted(turns.items())},
    }


def copy_costs(n: int = 2000) -> dict:
    g = Game(1)
    rng = np.random.default_rng(1)
    for _ in range(40):  # a mid-game position
        if g.is_over:
            break
        g.step(int(rng.choice(g.legal_actions())))
    t0 = time.perf_counter()
    for _ in range(n):
        g.clone()
    clone_us = (time.perf_counter() - t0) / n * 1e6
    t0 = time.perf_counter()
    for _ in range(n // 10):
        Game.from_dict(json.loads(json.dumps(g.to_dict())))
    json_us = (time.perf_counter() - t0) / (n // 10) * 1e6
    return {"clone_us": round(clone_us, 1), "json_round_trip_us": round(json_us, 1)}


def report(title: str, rp: dict) -> None:
    print(f"{title}: {rp['games']} games in {rp['seconds']} s")
    print(f"  {rp['decisions_per_s']:,} decisions/s, {rp['games_per_s']} games/s, "
          f"{rp['mean_decisions_per_game']} decisions per game")
    print(f"  winners: {rp['winners']}")
    print(f"  end reasons: {rp['end_reasons']}")
    print(f"  end turn: {rp['end_turn']}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--out", type=Path, default=Path(__file__).parent / "results" / "engine.json")
    args = ap.parse_args()
    Game(0)  # load the content once, outside the timings
    out = {"machine": machine(), "random_play": play_many(args.games, uniform_game),
           "cautious_random_play": play_many(args.games, cautious_game), "copy": copy_costs()}
    print(f"machine: {out['machine']['cpu']} (Python {out['machine']['python']}), one core")
    report("uniform random play (engine only)", out["random_play"])
    report("cautious random agents (through the agent protocol)", out["cautious_random_play"])
    print(f"clone: {out['copy']['clone_us']} us; JSON round trip: "
          f"{out['copy']['json_round_trip_us']} us")
    write_results(out, args.out)


if __name__ == "__main__":
    main()
