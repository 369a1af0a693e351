"""Ratings of agents: a round robin on paired seeds, openskill ratings with uncertainty.

Every pair of agents plays the same seeds twice with the sides swapped (the arena's
jobs).  The games are rated with openskill's Plackett-Luce model, one game at a time in
a fixed interleaved order (seed by seed, every pairing of a seed together), so that no
pairing is rated all at once; each agent gets ``mu``, ``sigma`` (its uncertainty) and the
conservative ``ordinal = mu - 3 sigma`` by which the table is ranked.  Written as
``ratings.md`` (the table, the pairwise win rates and the command) and ``ratings.json``,
with the arena's outputs (every game, per-side results, plots) beside them.

Each game is appended to ``OUT/games.jsonl`` as it finishes and games already there for
the same seed and agent specs are kept (:func:`experiments.arena.resume`), so a killed
run resumes where it stopped and adding an agent to the command plays only its
pairings.  A folder holding games of an agent the command no longer names (or of other
seeds) is refused in one line, never pruned (``force`` replaces the folder's games).
``--readme README.md`` replaces the README's table between :data:`BEGIN` and :data:`END`.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections import Counter
from pathlib import Path
from typing import Any

from experiments.arena import (
    STAMPS,
    check_settings,
    jobs_for,
    keep_content,
    play_into,
    ratings,
    resume,
    summarise,
    write_outputs,
)
from experiments.files import ensure_output_dir, folder_lock, write_text_atomic
from experiments.selfplay import GameRecord
from experiments.stats import wilson

BEGIN, END = "<!-- ratings:begin -->", "<!-- ratings:end -->"


def rate(records: list[GameRecord], specs: list[str]) -> list[dict[str, Any]]:
    """One row per agent, best first: openskill rating, games and score with its interval."""
    ordered = sorted(records, key=lambda r: (r.seed, sorted(r.agents.values()), r.agents["usa"]))
    table = ratings(ordered)
    counts: dict[str, Counter] = {s: Counter() for s in specs}
    for r in records:
        for side, spec in r.agents.items():
            counts[spec]["draw" if r.winner is None else
                         ("win" if r.winner == side else "loss")] += 1
    rows = []
    for spec, rt in table.items():
        c = counts[spec]
        n = sum(c.values())
        score = c["win"] + 0.5 * c["draw"]
        lo, hi = wilson(c["win"], n)
        rows.append({"agent": spec, **rt, "games": n, "wins": c["win"], "draws": c["draw"],
                     "losses": c["loss"], "score": score / n if n else 0.0,
                     "win_ci95": [lo, hi]})
    return rows


def pairwise(records: list[GameRecord], specs: list[str]) -> dict[str, dict[str, list[int]]]:
    """``[wins, games]`` of each agent against each other one, both sides together."""
    out = {a: {b: [0, 0] for b in specs if b != a} for a in specs}
    for r in records:
        a, b = r.agents["usa"], r.agents["china"]
        for me, opp, side in ((a, b, "usa"), (b, a, "china")):
            out[me][opp][0] += r.winner == side
            out[me][opp][1] += 1
    return out


def command_line(specs: list[str], games: int, seed0: int) -> str:
    return (f"python -m experiments.cli ratings {' '.join(specs)} --games {games} "
            f"--seed {seed0}")


def markdown(result: dict[str, Any]) -> str:
    """The ratings table, the pairwise win rates and how they were made."""
    cfg = result["config"]
    lines = ["| rank | agent | ordinal (μ − 3σ) | μ | σ | games | W–D–L | wins [95% CI] |",
             "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for k, r in enumerate(result["ratings"], 1):
        lo, hi = r["win_ci95"]
        lines.append(f"| {k} | `{r['agent']}` | {r['ordinal']:.1f} | {r['mu']:.1f} | "
                     f"{r['sigma']:.1f} | {r['games']} | {r['wins']}–{r['draws']}–"
                     f"{r['losses']} | {r['wins'] / max(1, r['games']):.0%} "
                     f"[{lo:.0%}, {hi:.0%}] |")
    specs = [r["agent"] for r in result["ratings"]]
    lines += ["", "Wins of the row agent against the column agent (both sides, "
              f"{2 * cfg['games_per_pairing']} games a pairing):", "",
              "| | " + " | ".join(f"`{s}`" for s in specs) + " |",
              "| --- |" + " --- |" * len(specs)]
    pw = result["pairwise"]
    for a in specs:
        cells = ["—" if a == b else f"{pw[a][b][0]}/{pw[a][b][1]}" for b in specs]
        lines.append(f"| `{a}` | " + " | ".join(cells) + " |")
    lines += ["", f"Round robin on paired seeds {cfg['seed0']}–"
              f"{cfg['seed0'] + cfg['games_per_pairing'] - 1} (each played with both sides), "
              f"openskill {cfg['openskill']} Plackett-Luce, rated in seed order; "
              f"{cfg['played'] + cfg['reused']} games ({cfg['reused']} of them kept from "
              f"earlier runs), {cfg['seconds']:.0f} s of wall time in the runs that played "
              "them. Reproduce or extend "
              "(add agents; games already played are kept):", "", "```bash",
              cfg["command"] + " --readme README.md", "```"]
    return "\n".join(lines) + "\n"


def update_readme(readme: Path, table: str, begin: str = BEGIN, end: str = END,
                  title: str = "Ratings") -> None:
    """Put `table` between the README's `begin` and `end` markers (appended as a `title`
    section if the README has none)."""
    text = readme.read_text(encoding="utf-8")
    block = f"{begin}\n{table}{end}"
    if begin in text and end in text and text.index(begin) < text.index(end):
        text = text[:text.index(begin)] + block + text[text.index(end) + len(end):]
    else:
        text = text.rstrip("\n") + f"\n\n## {title}\n\n{block}\n"
    write_text_atomic(readme, text)


__all__ = ["BEGIN", "END", "STAMPS", "command_line", "markdown", "pairwise", "rate",
           "round_robin", "update_readme"]


def round_robin(specs: list[str], games: int, out: Path, workers: int = 2, seed0: int = 0,
                backend: str = "process", ray_address: str | None = None,
                readme: Path | None = None, progress: bool = True, force: bool = False,
                content: str = "shipped") -> dict[str, Any]:
    """Play (or complete) the round robin on `content` into `out`, rate it, write the
    tables."""
    from importlib.metadata import version

    check_settings(specs, games, workers, backend, seed0)
    games, workers, seed0 = int(games), int(workers), int(seed0)  # numpy's too
    if len(set(specs)) < len(specs):
        raise ValueError(f"an agent is named twice: {' '.join(specs)}")
    if readme is not None and not readme.is_file():
        raise ValueError(f"{readme}: no such README file")
    ensure_output_dir(out)
    with folder_lock(out):
        content = keep_content(content, out)
        jobs = jobs_for(specs, games, seed0, content)
        known = resume(out, jobs, specs, force, content)
        reused = len(known)
        t0 = time.perf_counter()
        records = play_into(out, jobs, known, workers, progress, backend, ray_address)
        seconds = time.perf_counter() - t0
        if reused and (out / "ratings.json").is_file():  # the earlier runs' time
            with contextlib.suppress(ValueError, KeyError, TypeError, OSError):
                seconds += float(json.loads((out / "ratings.json").read_text()
                                            )["config"]["seconds"])
        summary = summarise(records)
        result = {"ratings": rate(records, specs), "pairwise": pairwise(records, specs),
                  "config": {"agents": specs, "games_per_pairing": games, "seed0": seed0,
                             "played": len(jobs) - reused, "reused": reused,
                             "seconds": seconds,  # wall time of the runs that played them
                             "backend": backend, "content": content,
                             "openskill": version("openskill"),
                             "command": command_line(specs, games, seed0)}}
        summary["ratings"] = {r["agent"]: {k: r[k] for k in ("mu", "sigma", "ordinal")}
                              for r in result["ratings"]}
        summary["config"] = result["config"]
        write_outputs(records, summary, out)
        table = markdown(result)
        write_text_atomic(out / "ratings.json", json.dumps(result, indent=2) + "\n")
        write_text_atomic(out / "ratings.md", "# Ratings\n\n" + table)
        if readme is not None:
            update_readme(readme, table)
    return result
