"""Which actions would play-outs prefer to the learned policy's?  A probe (issue 35).

Plays the shipped `learned` policy against itself (greedy) on the given seeds.  At every
`--every`-th tree decision (not a fine decision or a scoring card due, more than one legal
action) it plays each of the `--width` most likely actions out to the end, both sides
the network's arg-max, in the same `--worlds` determinisations of what the mover cannot
see, and records each action's prior and its mean result's difference from the network's
choice (in results, +-1 a game: a difference of 2/worlds is one world that flips).

    python scripts/rollout_probe.py --seeds 6 --worlds 16 --every 3

Prints one line per probed decision and a summary; writes the rows as JSON (``--out``).
Measurement only: it changes nothing in the agents.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from agents.ismcts import FINE_KINDS, scoring_card_due
from agents.networks import load_checkpoint
from agents.rollouts import PolicyRollouts
from evenstar_env import Game

LEARNED = Path(__file__).resolve().parents[1] / "agents" / "checkpoints" / "learned"


def probe(seeds: list[int], worlds: int, every: int, width: int) -> list[dict[str, object]]:
    rollouts = PolicyRollouts(load_checkpoint(LEARNED)[0])
    rng = np.random.default_rng(5)
    rows: list[dict[str, object]] = []
    for seed in seeds:
        g, k = Game(seed), 0
        while not g.is_over:
            legal = g.legal_actions()
            logits = rollouts.logits_of(g)
            a = int(legal[np.argmax(logits[legal])])
            tree = (g.decision.kind not in FINE_KINDS and legal.size > 1
                    and scoring_card_due(g, legal) is None)
            k += tree
            if tree and k % every == 0:
                me = g.current_player
                ws = [g.resample_hidden(me, rng) for _ in range(worlds)]
                z = logits[legal] - logits[legal].max()
                p = np.exp(z) / np.exp(z).sum()
                order = [int(b) for b in legal[np.argsort(-p, kind="stable")][:width]]
                results = {}
                for b in order:
                    games = [w.clone() for w in ws]
                    for w in games:
                        w.step(b)
                    results[b] = rollouts.results(games, me)
                diff = {b: float(np.mean(r - results[a])) for b, r in results.items()}
                best = max(diff, key=diff.__getitem__)
                row = {"seed": seed, "mover": me, "kind": g.decision.kind, "policy": a,
                       "policy_win": float(np.mean(results[a] > 0)), "best": best,
                       "best_diff": diff[best],
                       "best_prior": float(p[list(legal).index(best)])}
                rows.append(row)
                print(json.dumps(row), flush=True)
            g.step(a)
    return rows


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seeds", type=int, default=6, help="games (seeds 93001 on)")
    p.add_argument("--worlds", type=int, default=16)
    p.add_argument("--every", type=int, default=3, help="probe every k-th tree decision")
    p.add_argument("--width", type=int, default=6, help="candidates per decision")
    p.add_argument("--out", default="rollout_probe.json")
    a = p.parse_args()
    rows = probe(list(range(93_001, 93_001 + a.seeds)), a.worlds, a.every, a.width)
    Path(a.out).write_text(json.dumps(rows, indent=1) + "\n")
    gain = [r for r in rows if float(r["best_diff"]) >= 2 * 2 / a.worlds]  # 2+ worlds flip
    low = [r for r in gain if float(r["best_prior"]) < 0.01]
    print(f"{len(rows)} decisions; an action beats the policy's by >= 2 of {a.worlds} "
          f"worlds at {len(gain)}, with a prior under 1% at {len(low)} of them")


if __name__ == "__main__":
    main()
