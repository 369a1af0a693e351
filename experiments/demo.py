"""The demo: agents play each other, win rates per side are printed and plotted.

    python -m experiments.demo --games 200 --out results/demo
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from agents import CautiousRandomAgent, HeuristicAgent, RandomAgent  # noqa: E402
from experiments.selfplay import play_game  # noqa: E402
from experiments.stats import wilson  # noqa: E402

# name: (US agent, China agent, share of --games played: the heuristic takes ~1 s a game)
MATCHUPS = {
    "random vs random": (RandomAgent, RandomAgent, 1.0),
    "cautious vs cautious": (CautiousRandomAgent, CautiousRandomAgent, 1.0),
    "heuristic vs heuristic": (HeuristicAgent, HeuristicAgent, 0.1),
}


def run_matchup(usa_cls: type, china_cls: type, games: int) -> dict:
    winners: Counter = Counter()
    reasons: Counter = Counter()
    for seed in range(games):
        rec = play_game(seed, {"usa": usa_cls(2 * seed), "china": china_cls(2 * seed + 1)})
        winners[rec.winner or "draw"] += 1
        reasons[rec.reason.split(":")[0].split(" caused")[0]] += 1
    out = {"games": games, "end_reasons": dict(reasons.most_common())}
    for side in ("usa", "china", "draw"):
        lo, hi = wilson(winners[side], games)
        out[side] = {"wins": winners[side], "rate": winners[side] / games, "ci95": [lo, hi]}
    return out


def plot(results: dict, path: Path) -> None:
    fig, ax = plt.subplots(figsize=(7, 4))
    names = list(results)
    width = 0.27
    colours = {"usa": "#3060c0", "china": "#c03030", "draw": "#909090"}
    for k, side in enumerate(("usa", "china", "draw")):
        xs = [i + (k - 1) * width for i in range(len(names))]
        rates = [results[n][side]["rate"] for n in names]
        err = [[r - results[n][side]["ci95"][0] for n, r in zip(names, rates, strict=True)],
               [results[n][side]["ci95"][1] - r for n, r in zip(names, rates, strict=True)]]
        ax.bar(xs, rates, width, yerr=err, capsize=4, color=colours[side],
               label={"usa": "US wins", "china": "China wins", "draw": "draws"}[side])
    ax.set_xticks(range(len(names)), [f"{n}\n({results[n]['games']} games)" for n in names])
    ax.set_ylim(0, 1)
    ax.set_ylabel("share of games (95% Wilson interval)")
    ax.set_title("Dawn of the Evenstar: win rate per side")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main() -> None:
    ap = argparse.ArgumentParser(description="Agents play; win rates per side, plotted.")
    ap.add_argument("--games", type=int, default=200, help="games per matchup")
    ap.add_argument("--out", type=Path, default=Path("results/demo"))
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    results = {}
    for name, (u, c, share) in MATCHUPS.items():
        r = results[name] = run_matchup(u, c, max(2, round(args.games * share)))
        print(f"{name} ({r['games']} games):")
        for side, label in (("usa", "US"), ("china", "China"), ("draw", "draw")):
            lo, hi = r[side]["ci95"]
            print(f"  {label:6s} {r[side]['rate']:6.1%}  [{lo:.1%}, {hi:.1%}]")
        print(f"  how games ended: {r['end_reasons']}")
    (args.out / "summary.json").write_text(json.dumps(results, indent=2))
    plot(results, args.out / "win_rates.png")
    print(f"wrote {args.out / 'summary.json'} and {args.out / 'win_rates.png'}")


if __name__ == "__main__":
    main()
