"""Card usage over self-play: how often each card is played as event, for ops, in the
headline, and how games end.  Prints a table and writes JSON
(default: benchmarks/results/cards.json).

    python benchmarks/bench_cards.py [--games N] [--agent random|cautious] [--out PATH]
"""

from __future__ import annotations

import argparse
import time
from collections import Counter, defaultdict
from pathlib import Path

from common import machine, write_results

from agents import CautiousRandomAgent, RandomAgent
from evenstar_env import Game

OPS_MODES = ("place", "realign", "improve_social", "improve_economy", "tech", "trade")


def card_usage(games: int, agent_cls: type) -> dict:
    usage: dict[str, Counter] = defaultdict(Counter)
    reasons: Counter = Counter()
    t0 = time.perf_counter()
    for seed in range(games):
        g = Game(seed)
        agents = {"usa": agent_cls(seed), "china": agent_cls(seed + 10**6)}
        while not g.is_over:
            d = g.decision
            a = agents[d.player].act(None, g.action_mask(), g)
            if d.kind == "headline":
                usage[g.content.cards[g.action_group(a)[1]].name]["headline"] += 1
            elif d.kind == "mode" and d.context.get("card", -1) >= 0:
                name = g.content.cards[d.context["card"]].name
                kind = g.action_group(a)[1]
                label = ("event", *OPS_MODES)[kind]
                usage[name]["event" if label == "event" else "ops"] += 1
                usage[name][label] += label != "event"
            g.step(a)
        reasons[g.result.reason.split(":")[0].split(" caused")[0]] += 1
    dt = time.perf_counter() - t0
    names = [c.name for c in Game(0).content.cards]
    return {"games": games, "agent": agent_cls.name, "seconds": round(dt, 1),
            "end_reasons": dict(reasons.most_common()),
            "cards": {n: dict(usage[n]) for n in names}}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--games", type=int, default=300)
    ap.add_argument("--agent", choices=("random", "cautious"), default="cautious")
    ap.add_argument("--out", type=Path, default=Path(__file__).parent / "results" / "cards.json")
    args = ap.parse_args()
    cls = CautiousRandomAgent if args.agent == "cautious" else RandomAgent
    out = {"machine": machine(), **card_usage(args.games, cls)}
    print(f"{out['games']} games, {out['agent']} agents on both sides, {out['seconds']} s")
    print(f"how games ended: {out['end_reasons']}")
    print(f"{'card':44s} {'event':>6s} {'ops':>6s} {'headline':>8s}")
    for name, u in sorted(out["cards"].items(), key=lambda kv: -sum(kv[1].values())):
        print(f"{name[:44]:44s} {u.get('event', 0):6d} {u.get('ops', 0):6d} "
              f"{u.get('headline', 0):8d}")
    write_results(out, args.out)


if __name__ == "__main__":
    main()
