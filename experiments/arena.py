"""The arena: agents play each other with paired seeds; win rates, ratings, plots.

Every pairing plays N seeds twice, the second time with the sides swapped, so
both games of a pair see the same dice and the same deck (the game's random
streams are independent of play).  Results per side with Wilson 95%
intervals, end-reason and end-turn histograms, an openskill rating per agent,
JSON + CSV + PNG outputs and every game's seed and actions for replay.
"""

from __future__ import annotations

import csv
import itertools
import json
import multiprocessing as mp
import signal
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from rich.progress import Progress

from agents.specs import make_agent
from experiments.files import ensure_output_dir, write_text_atomic
from experiments.selfplay import GameRecord, play_game
from experiments.stats import wilson

SIDES = ("usa", "china")
BACKENDS = ("process", "ray")  # where games run


def ignore_sigint() -> None:
    """Pool worker initializer: Ctrl-C is handled once, by the main process (no traceback
    from every worker)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@dataclass(frozen=True)
class Job:
    seed: int
    usa: str
    china: str


def _play(job: Job) -> GameRecord:
    agents = {"usa": make_agent(job.usa, 2 * job.seed), "china": make_agent(job.china,
                                                                           2 * job.seed + 1)}
    rec = play_game(job.seed, agents)
    rec.agents = {"usa": job.usa, "china": job.china}  # specs, not display names
    return rec


def jobs_for(specs: list[str], games: int, seed0: int = 0) -> list[Job]:
    """Paired seeds: every pairing plays each seed twice with the sides swapped."""
    out = []
    for a, b in itertools.combinations(specs, 2):
        for k in range(games):
            out += [Job(seed0 + k, a, b), Job(seed0 + k, b, a)]
    return out


def _play_at(i: int, job: Job) -> tuple[int, GameRecord]:
    return i, _play(job)


def run_games(jobs: list[Job], workers: int = 2, progress: bool = True,
              backend: str = "process", ray_address: str | None = None) -> list[GameRecord]:
    """Play the jobs over `workers` processes, or as Ray tasks (``backend="ray"``, on the
    cluster at `ray_address` or on a local node of `workers` CPUs); results in job order,
    the same on both backends (every agent is seeded from its job)."""
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")
    results: list[GameRecord | None] = [None] * len(jobs)
    with Progress(disable=not progress, transient=True) as bar:
        task = bar.add_task("arena games", total=len(jobs))
        if backend == "ray":
            from experiments.ray_backend import ray_imap_unordered

            for i, rec in ray_imap_unordered(_play_at, enumerate(jobs), workers, ray_address):
                results[i] = rec
                bar.advance(task)
        elif workers <= 1:
            for i, job in enumerate(jobs):
                results[i] = _play(job)
                bar.advance(task)
        else:
            with mp.get_context("spawn").Pool(workers, initializer=ignore_sigint) as pool:
                for i, rec in enumerate(pool.imap(_play, jobs, chunksize=1)):
                    results[i] = rec
                    bar.advance(task)
    return [r for r in results if r is not None]


def summarise(records: list[GameRecord]) -> dict[str, Any]:
    """Per pairing and side: W/D/L with Wilson intervals; histograms; ratings."""
    pairs: dict[tuple[str, str], dict[str, Counter]] = defaultdict(
        lambda: {s: Counter() for s in SIDES})
    reasons: dict[str, Counter] = defaultdict(Counter)
    turns: dict[str, Counter] = defaultdict(Counter)
    for r in records:
        specs = r.agents
        for side in SIDES:
            me, opp = specs[side], specs["china" if side == "usa" else "usa"]
            outcome = "draw" if r.winner is None else ("win" if r.winner == side else "loss")
            pairs[(me, opp)][side][outcome] += 1
        key = f"{specs['usa']} (US) vs {specs['china']} (China)"
        reasons[key][_reason_kind(r.reason)] += 1
        turns[key][r.turn] += 1
    rows = []
    for (me, opp), by_side in sorted(pairs.items()):
        for side in (*SIDES, "both"):
            c = by_side[side] if side != "both" else by_side["usa"] + by_side["china"]
            n = sum(c.values())
            lo, hi = wilson(c["win"], n)
            rows.append({"agent": me, "opponent": opp, "side": side, "games": n,
                         "wins": c["win"], "draws": c["draw"], "losses": c["loss"],
                         "win_rate": c["win"] / n if n else 0.0, "ci95_low": lo, "ci95_high": hi})
    return {"results": rows, "end_reasons": {k: dict(v) for k, v in reasons.items()},
            "end_turns": {k: {str(t): n for t, n in sorted(v.items())}
                          for k, v in turns.items()},
            "ratings": ratings(records)}


def _reason_kind(reason: str) -> str:
    for side in SIDES:
        reason = reason.replace(f"{side} ", "")
    return reason.split(":")[0].split(" caused")[0]


def ratings(records: list[GameRecord]) -> dict[str, dict[str, float]]:
    """openskill (Plackett-Luce) ratings from every game, in order."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    table: dict[str, Any] = {}
    for r in records:
        a, b = r.agents["usa"], r.agents["china"]
        for spec in (a, b):
            table.setdefault(spec, model.rating(name=spec))
        ranks = [1, 1] if r.winner is None else ([1, 2] if r.winner == "usa" else [2, 1])
        [[table[a]], [table[b]]] = model.rate([[table[a]], [table[b]]], ranks=ranks)
    return {k: {"mu": v.mu, "sigma": v.sigma, "ordinal": v.ordinal()}
            for k, v in sorted(table.items(), key=lambda kv: -kv[1].ordinal())}


def write_outputs(records: list[GameRecord], summary: dict[str, Any], out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    write_text_atomic(out / "games.jsonl", "".join(json.dumps(asdict(r)) + "\n"
                                                   for r in records))
    write_text_atomic(out / "summary.json", json.dumps(summary, indent=2))
    with (out / "results.csv").open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(summary["results"][0]))
        w.writeheader()
        w.writerows(summary["results"])
    plot(summary, out)


def plot(summary: dict[str, Any], out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [r for r in summary["results"] if r["side"] != "both"]
    labels = [f"{r['agent']} as {r['side']}\nvs {r['opponent']}" for r in rows]
    fig, ax = plt.subplots(figsize=(max(6, 1.2 * len(rows)), 4.5))
    rates = [r["win_rate"] for r in rows]
    err = [[r["win_rate"] - r["ci95_low"] for r in rows], [r["ci95_high"] - r["win_rate"]
                                                          for r in rows]]
    ax.bar(range(len(rows)), rates, yerr=err, capsize=4,
           color=["#4a78d0" if r["side"] == "usa" else "#d04a4a" for r in rows])
    ax.axhline(0.5, color="#888", linewidth=0.8)
    ax.set_xticks(range(len(rows)), labels, fontsize=7)
    ax.set_ylim(0, 1)
    ax.set_ylabel("win rate (95% Wilson interval)")
    ax.set_title("Arena: win rate per agent and side")
    fig.tight_layout()
    fig.savefig(out / "win_rates.png", dpi=110)
    plt.close(fig)
    for key, title, fname in (("end_reasons", "How games ended", "end_reasons.png"),
                              ("end_turns", "Turn the game ended", "end_turns.png")):
        data = summary[key]
        cats = sorted({c for v in data.values() for c in v},
                      key=lambda x: int(x) if x.isdigit() else x)
        fig, ax = plt.subplots(figsize=(max(6, 1.0 * len(cats) + 3), 4))
        width = 0.8 / max(1, len(data))
        for k, (pairing, counts) in enumerate(data.items()):
            ax.bar([i + k * width for i in range(len(cats))],
                   [counts.get(c, 0) for c in cats], width, label=pairing)
        ax.set_xticks([i + 0.4 - width / 2 for i in range(len(cats))], cats, fontsize=7,
                      rotation=20 if key == "end_reasons" else 0)
        ax.set_ylabel("games")
        ax.set_title(title)
        ax.legend(fontsize=6)
        fig.tight_layout()
        fig.savefig(out / fname, dpi=110)
        plt.close(fig)


def check_settings(specs: list[str], games: int, workers: int, backend: str) -> None:
    """ValueError on bad settings or agent specs (before the first game)."""
    if games < 1 or workers < 1:
        raise ValueError(f"games ({games}) and workers ({workers}) must be >= 1")
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")
    if len(specs) < 2:
        raise ValueError("name at least two agents")
    for spec in specs:
        make_agent(spec, 0)  # fail fast on a bad spec or policy file


def arena(specs: list[str], games: int, out: Path, workers: int = 2, seed0: int = 0,
          progress: bool = True, backend: str = "process", ray_address: str | None = None
          ) -> dict[str, Any]:
    """Run a whole arena and write its outputs; return the summary.

    Bad settings, agent specs and an output folder that cannot be written fail before the
    first game (ValueError; :class:`experiments.files.OutputDirError` for the folder).
    """
    check_settings(specs, games, workers, backend)
    ensure_output_dir(out)
    records = run_games(jobs_for(specs, games, seed0), workers, progress, backend, ray_address)
    summary = summarise(records)
    summary["config"] = {"agents": specs, "games_per_pairing": games, "paired": True,
                         "seed0": seed0, "backend": backend}
    write_outputs(records, summary, out)
    return summary
