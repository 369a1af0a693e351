"""Forward pass without gradients of a network checkpoint: the native whole pass
(agents/kernels.py ``infer``) against PyTorch's operations, per batch size, in one run.

Positions are real: the decisions of uniform random games, each seen by the player to
move with its legal-action mask.  Each round times both paths on the same batch, one
after the other (one torch thread, as the agents and the rollout use), so the ratio holds
on a machine whose speed drifts; the figures are the median of the rounds' minima.  Also
reports the largest difference of the legal logits and of the values between the two.

Usage: python benchmarks/bench_infer.py [--path agents/checkpoints/learned]
           [--batches 1 8 32 64 128] [--rounds 7] [--out PATH]
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch
from common import machine, write_results

from agents import networks
from agents.learned_agent import DEFAULT_PATH
from evenstar_env import Game
from evenstar_env.env.observation import observe


def positions(n: int, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    """`n` decisions of uniform random games: observations and legal masks."""
    rng = np.random.default_rng(seed)
    obs, masks = [], []
    while len(obs) < n:
        g = Game(int(rng.integers(2**31)))
        while not g.is_over:
            if rng.random() < 0.05:  # a spread of the game's stages, not its first turns
                obs.append(observe(g, g.current_player))
                masks.append(g.action_mask())
            legal = g.legal_actions()
            g.step(int(legal[rng.integers(legal.size)]))
    return torch.as_tensor(np.stack(obs[:n])), torch.as_tensor(np.stack(masks[:n]))


def forward(net: torch.nn.Module, obs: torch.Tensor, mask: torch.Tensor,
            native: bool) -> tuple[torch.Tensor, torch.Tensor]:
    """One forward pass, natively as a whole or with PyTorch's operations."""
    networks.NATIVE_INFER_UP_TO = 10**9 if native else 0
    with torch.no_grad():
        return net(obs, mask)


def best_of(reps: int, fn: Any, *args: Any) -> float:
    """The fastest of `reps` calls ``fn(*args)``, in milliseconds."""
    best = float("inf")
    for _ in range(reps):
        t = time.perf_counter()
        fn(*args)
        best = min(best, time.perf_counter() - t)
    return best * 1e3


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--path", type=Path, default=DEFAULT_PATH, help="a checkpoint folder")
    ap.add_argument("--batches", type=int, nargs="+", default=[1, 8, 32, 64, 128])
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, default=Path(__file__).parent / "results" / "infer.json")
    a = ap.parse_args()
    if min(a.batches) < 1 or a.rounds < 1:
        ap.error("--batches and --rounds must be positive")
    try:
        net, _, _ = networks.load_checkpoint(a.path)
    except networks.CheckpointError as e:
        ap.error(f"--path: {e}")
    torch.set_num_threads(1)
    obs, mask = positions(max(a.batches), a.seed)
    if not (isinstance(net, networks.StructuredPolicyValue) and net.fused(obs)
            and not net.max_pool):
        ap.error(f"--path {a.path}: the native forward pass does not run for this network "
                 "(it needs a structured network without max-pooling and the native core built)")
    kept = networks.NATIVE_INFER_UP_TO
    rows = []
    try:
        for b in a.batches:
            x, m = obs[:b].contiguous(), mask[:b].contiguous()
            (nl, nv), (tl, tv) = forward(net, x, m, True), forward(net, x, m, False)
            reps = max(3, 256 // b)
            times: dict[bool, list[float]] = {True: [], False: []}
            for _ in range(a.rounds):
                for native in (True, False):
                    times[native].append(best_of(reps, forward, net, x, m, native))
            native_ms, torch_ms = (statistics.median(times[k]) for k in (True, False))
            rows.append({"batch": b, "native_ms": native_ms, "pytorch_ms": torch_ms,
                         "speedup": torch_ms / native_ms,
                         "max_logit_diff": float((nl - tl)[m].abs().max()),
                         "max_value_diff": float((nv - tv).abs().max())})
            r = rows[-1]
            print(f"batch {b:>4}: native {native_ms:7.3f} ms, PyTorch {torch_ms:7.3f} ms, "
                  f"{r['speedup']:.2f}x; largest difference: logits {r['max_logit_diff']:.1e}, "
                  f"values {r['max_value_diff']:.1e}")
    finally:
        networks.NATIVE_INFER_UP_TO = kept
    write_results({"machine": machine(), "checkpoint": str(a.path), "threads": 1,
                   "native_infer_up_to": kept, "rows": rows}, a.out)


if __name__ == "__main__":
    main()
