"""Why does `alphaism:N` not beat the bare `learned` policy?  Two cheap probes (issue 35).

Plays `learned` against itself (greedy) on the given seeds.  At every `--every`-th tree
decision (not a scoring card due, more than one legal action) it records:

- the value head's estimate for the mover, later set against the game's result for that
  mover and its final VP difference / 200 (the trainer's VP shaping, `--vp-scale`);
- whether `alphaism:SIMS` (same network) picks the policy's arg-max there.

    python scripts/alphaism_probe.py --seeds 3 --sims 64 --every 4

Prints the figures and writes them as JSON (``--out``).  Measurement only: it changes
nothing in the agents.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from agents.alphaism import AlphaISMCTSAgent
from agents.ismcts import FINE_KINDS, scoring_card_due
from agents.learned_agent import LearnedAgent
from evenstar_env import Game


def probe(seeds: list[int], sims: int, every: int, c: float = 1.5, t: float = 1.0
          ) -> dict[str, object]:
    policy = LearnedAgent(seed=0)
    search = AlphaISMCTSAgent.from_checkpoint(simulations=sims, c_puct=c, prior_temp=t,
                                              seed=1)
    rows: list[dict[str, object]] = []
    for seed in seeds:
        g, k, mine = Game(seed), 0, []
        while not g.is_over:
            mask = g.action_mask()
            legal = np.flatnonzero(mask)
            a = policy.act(None, mask, g)
            tree = (g.decision.kind not in FINE_KINDS and legal.size > 1
                    and scoring_card_due(g, legal) is None)
            if tree:
                k += 1
                if k % every == 0:
                    mover = g.current_player
                    logits, value = search._forward([search._encode(g, mover)], [legal])
                    t0 = time.perf_counter()
                    b = search.act(None, mask, g)
                    z = logits[0][legal] - logits[0][legal].max()
                    top = float(1.0 / np.exp(z).sum())  # the untempered arg-max's prior
                    mine.append({"seed": seed, "mover": mover, "value": float(value[0]),
                                 "top_prior": top,
                                 "legal": int(legal.size), "same": bool(a == b),
                                 "search_s": time.perf_counter() - t0})
            g.step(a)
        ret, vp = g.returns(), g.vp
        for r in mine:
            side, other = r["mover"], "china" if r["mover"] == "usa" else "usa"
            r["result"] = float(np.sign(ret[side]))
            r["vp_diff_200"] = (vp[side] - vp[other]) / 200.0
        rows += mine
    v = np.array([r["value"] for r in rows])
    res = np.array([r["result"] for r in rows])
    shaped = res + np.array([r["vp_diff_200"] for r in rows])
    top = np.array([r["top_prior"] for r in rows])
    return {"seeds": seeds, "sims": sims, "c_puct": c, "prior_temp": t,
            "decisions": len(rows),
            "top_prior_median": float(np.median(top)),
            "top_prior_over_0.9": float(np.mean(top > 0.9)),
            "agree_with_policy": float(np.mean([r["same"] for r in rows])),
            "value_range": [float(v.min()), float(v.max())],
            "corr_value_result": float(np.corrcoef(v, res)[0, 1]),
            "corr_value_result_plus_vp": float(np.corrcoef(v, shaped)[0, 1]),
            "mse_vs_result": float(np.mean((v - res) ** 2)),
            "mse_vs_result_plus_vp": float(np.mean((v - shaped) ** 2)),
            "search_s_mean": float(np.mean([r["search_s"] for r in rows])), "rows": rows}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seeds", type=int, default=3, help="games (seeds 80000 on)")
    p.add_argument("--sims", type=int, default=64)
    p.add_argument("--every", type=int, default=4, help="probe every k-th tree decision")
    p.add_argument("--c", type=float, default=1.5, help="alphaism's c_puct")
    p.add_argument("--t", type=float, default=1.0, help="alphaism's prior temperature")
    p.add_argument("--out", default="alphaism_probe.json")
    a = p.parse_args()
    out = probe(list(range(80_000, 80_000 + a.seeds)), a.sims, a.every, a.c, a.t)
    Path(a.out).write_text(json.dumps(out, indent=1) + "\n")
    print(json.dumps({k: v for k, v in out.items() if k != "rows"}, indent=1))


if __name__ == "__main__":
    main()
