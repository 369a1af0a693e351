"""Trainer benchmark: CPU cost per learner sample of experiments/train.py's rollout and
update, for a few networks, and the learner steps/s they allow on 2 cores.

The rollout is :class:`experiments.train.RolloutWorker` (``--num-envs`` self-play games,
one forward pass a step, one torch thread) and the update is :func:`ppo_update` on that
batch (one thread).  Time is the process's CPU time (`time.process_time`), so other jobs on
a shared machine inflate the figures less than wall-clock time; the split of the rollout
(env step + observation, forward + sampling) is from its wall-clock timers.  Projections:
one core doing both in turn, and two cores with ``--overlap`` on Ray (rollout and update
in parallel, so the slower of the two sets the pace).

``--end-to-end SECONDS`` also runs the trainer itself that long per network (pure
self-play from a fresh network, ``--backend ray --overlap``, 2 epochs, one thread each
and two for the rest of an update once the next batch is in, as ``make train``)
and reports the median learner steps/s it printed over the last two thirds of its
updates: the figure the issue's 5,000/s target is about.  A fresh network's self-play
games are short and early, so ``--real-mix SECONDS`` also runs ``make train``'s own
PPO step that long: from the shipped policy (``--init``), with its league mix (70% of
the games against the heuristic, 20% self-play) and its KL reference.

A network is ``KIND:WIDTHS[:TOKEN]`` (agents/networks.py): ``mlp:256,256``,
``structured:256,256:16`` (trunk widths, token width).

Usage: python benchmarks/bench_train.py [--nets mlp:256,256 structured:256,256:16]
           [--epochs 3] [--end-to-end 120] [--real-mix 300 [--init PATH]] [--out PATH]
"""

from __future__ import annotations

import argparse
import csv
import os
import statistics
import tempfile
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np
import torch
from common import machine, write_results

from agents.networks import CheckpointError, build_network, fresh_config, load_checkpoint
from experiments.train import RolloutWorker, TrainConfig, Trainer, _state_dict, adam, ppo_update


def net_settings(spec: str) -> dict[str, Any]:
    """The trainer's network settings (``net``, ``hidden``, ``token``) of a spec."""
    kind, _, rest = spec.partition(":")
    hidden, _, token = rest.partition(":")
    return {"net": kind, "hidden": hidden or "256,256", "token": int(token or 32)}


def measure(spec: str, epochs: int, num_envs: int, steps: int,
            rounds: int) -> dict[str, float]:
    cfg = TrainConfig(num_envs=num_envs, rollout_steps=steps, epochs=epochs, threads=1,
                      selfplay_frac=1.0, scripted_frac=0.0, **net_settings(spec))
    net_cfg = Trainer.network_config(cfg)
    net = build_network(net_cfg)
    worker = RolloutWorker(asdict(cfg), asdict(net_cfg), 0)
    opt = adam(net.parameters(), cfg.lr)
    rng = np.random.default_rng(0)
    torch.set_num_threads(1)
    worker.collect(_state_dict(net), {})  # warm up: the first games' start, allocations
    roll = upd = n = 0.0
    split = {"env": 0.0, "forward": 0.0}
    wall = 0.0
    for _ in range(rounds):
        c0, w0 = time.process_time(), time.perf_counter()
        batch = worker.collect(_state_dict(net), {})
        c1, w1 = time.process_time(), time.perf_counter()
        ppo_update(net, opt, batch, None, 0.0, cfg, rng)
        roll += c1 - c0
        upd += time.process_time() - c1
        wall += time.perf_counter() - w0
        for k in split:
            split[k] += batch["time"][k] / (w1 - w0) * (c1 - c0)
        n += len(batch["act"])
    us = {"rollout": 1e6 * roll / n, "update": 1e6 * upd / n,
          **{k: 1e6 * v / n for k, v in split.items()}}
    return {**{f"{k}_us": round(v, 1) for k, v in us.items()},
            "samples": int(n), "wall_steps_per_s": round(n / wall, 1),
            "one_core_steps_per_s": round(1e6 / (us["rollout"] + us["update"]), 1),
            "two_cores_overlap_steps_per_s": round(1e6 / max(us["rollout"], us["update"]), 1)}


# make train's PPO step (Makefile), less its evaluation and checkpoints
REAL_MIX = dict(selfplay_frac=0.2, scripted_frac=0.7, scripted="heuristic", lr=1e-4,
                ent_coef=0.0, kl_coef=0.1, kl_coef_final=0.05, value_warmup=30, seed=7)


def end_to_end(spec: str, seconds: float, num_envs: int, steps: int,
               **settings: Any) -> dict[str, float]:
    """The trainer's own learner steps/s, Ray overlap, `seconds` long: self-play from a
    fresh network, or the given `settings` (:data:`REAL_MIX` and ``init``)."""
    mix = settings or dict(selfplay_frac=1.0, scripted_frac=0.0, **net_settings(spec))
    with tempfile.TemporaryDirectory() as runs:
        cfg = TrainConfig(name="bench", runs_dir=runs, minutes=seconds / 60, **mix,
                          backend="ray", overlap=True,
                          epochs=2, num_envs=num_envs, rollout_steps=steps, threads=1,
                          threads_idle=2,
                          eval_every=10**6, eval_games=1, eval_opponents="random",
                          checkpoint_every=10**6, snapshot_every=10**6)
        Trainer(cfg).train()
        with open(Path(runs) / "bench" / "train.csv") as f:
            rows = list(csv.DictReader(f))
    rates = [float(r["steps_per_s"]) for r in rows[len(rows) // 3:]]
    return {"updates": len(rows), "samples": int(rows[-1]["learner_steps"]),
            "median_steps_per_s": round(statistics.median(rates), 1)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--nets", nargs="+", default=["mlp:256,256", "structured:512,512:32",
                                                  "structured:256,256:16"])
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--num-envs", type=int, default=64)
    ap.add_argument("--steps", type=int, default=64)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--end-to-end", type=float, default=0.0, metavar="SECONDS",
                    help="also run the trainer this long per network (0: skip)")
    ap.add_argument("--real-mix", type=float, default=0.0, metavar="SECONDS",
                    help="also run make train's PPO step this long from --init (0: skip)")
    ap.add_argument("--init", default="agents/checkpoints/learned",
                    help="the policy --real-mix starts from")
    ap.add_argument("--out", type=Path, default=Path("benchmarks/results/train.json"))
    a = ap.parse_args()
    for spec in a.nets:
        try:
            st = net_settings(spec)
            fresh_config(st["net"], tuple(int(h) for h in st["hidden"].split(",")), st["token"])
        except (ValueError, CheckpointError) as e:
            ap.error(f"--nets {spec}: not KIND:WIDTHS[:TOKEN] ({e})")
    if a.real_mix > 0:  # before minutes of other measurements
        try:
            load_checkpoint(a.init)
        except CheckpointError as e:
            ap.error(f"--init: {e}")
    load = os.getloadavg()[0]
    rows = {}
    print(f"{'net':>22} {'env':>6} {'fwd':>6} {'rollout':>8} {'update':>7}  (CPU µs per "
          f"learner sample, {a.epochs} epochs)  1 core   2 cores overlap")
    # The process's first rollouts cost more (about 14 us a sample, 2026-11-27), whatever
    # the network: a discarded round keeps that off the first network's figures.
    measure(a.nets[0], 1, a.num_envs, a.steps, 1)
    for h in a.nets:
        r = measure(h, a.epochs, a.num_envs, a.steps, a.rounds)
        rows[h] = r
        print(f"{h:>22} {r['env_us']:6.0f} {r['forward_us']:6.0f} {r['rollout_us']:8.0f} "
              f"{r['update_us']:7.0f}  {'':>38} {r['one_core_steps_per_s']:7.0f}   "
              f"{r['two_cores_overlap_steps_per_s']:7.0f}")
    trainer = {}
    for h in a.nets if a.end_to_end > 0 else []:
        trainer[h] = end_to_end(h, a.end_to_end, a.num_envs, a.steps)
        print(f"{h:>22} trainer end to end (self-play, Ray overlap, 2 epochs, "
              f"--threads-idle 2): "
              f"{trainer[h]['median_steps_per_s']:.0f} learner steps/s "
              f"({trainer[h]['samples']} samples in {a.end_to_end:.0f} s)")
    real = {}
    if a.real_mix > 0:
        real = end_to_end(a.init, a.real_mix, a.num_envs, a.steps, init=a.init, **REAL_MIX)
        print(f"{a.init:>22} make train's PPO step ({a.real_mix:.0f} s, league mix, from "
              f"this policy): {real['median_steps_per_s']:.0f} learner steps/s "
              f"({real['samples']} samples)")
    write_results({"machine": machine(), "load_before": load, "epochs": a.epochs,
                   "num_envs": a.num_envs, "steps": a.steps, "results": rows,
                   "end_to_end": trainer, "real_mix": real}, a.out)


if __name__ == "__main__":
    main()
