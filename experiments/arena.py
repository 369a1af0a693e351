"""The arena: agents play each other with paired seeds; win rates, ratings, plots.

Every pairing plays N seeds twice, the second time with the sides swapped, so
both games of a pair see the same dice and the same deck (the game's random
streams are independent of play).  Results per side with Wilson 95%
intervals, end-reason and end-turn histograms, an openskill rating per agent,
JSON + CSV + PNG outputs and every game's seed and actions for replay.

Each game is appended to ``OUT/games.jsonl`` as it finishes (:mod:`experiments.gamelog`),
so a killed run keeps its finished games and a rerun of the same command resumes: it
plays only the games not on disk, and its results equal those of one uninterrupted run.
A folder holding games this command would not play (another agent list, other seeds),
or games played on other data or network weights, is refused in one line; ``force``
replaces its games.  The folder is locked (:func:`experiments.files.folder_lock`)
while the run writes it.
"""

from __future__ import annotations

import csv
import itertools
import json
import multiprocessing as mp
import signal
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from rich.progress import Progress

from agents.specs import make_agent
from experiments import gamelog, records
from experiments.files import append_line, ensure_output_dir, folder_lock, write_text_atomic
from experiments.limits import check_run
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
    content: str = "shipped"  # a content folder or overlay (experiments/records.py)


def _play(job: Job) -> GameRecord:
    agents = {"usa": make_agent(job.usa, 2 * job.seed), "china": make_agent(job.china,
                                                                           2 * job.seed + 1)}
    rec = play_game(job.seed, agents, content=job.content)
    rec.agents = {"usa": job.usa, "china": job.china}  # specs, not display names
    return rec


def jobs_for(specs: list[str], games: int, seed0: int = 0, content: str = "shipped"
             ) -> list[Job]:
    """Paired seeds: every pairing plays each seed twice with the sides swapped."""
    out = []
    for a, b in itertools.combinations(specs, 2):
        for k in range(games):
            out += [Job(seed0 + k, a, b, content), Job(seed0 + k, b, a, content)]
    return out


def _play_at(i: int, job: Job) -> tuple[int, GameRecord]:
    return i, _play(job)


def _play_pair(arg: tuple[int, Job]) -> tuple[int, GameRecord]:
    return _play_at(*arg)


def run_games(jobs: list[Job], workers: int = 2, progress: bool = True,
              backend: str = "process", ray_address: str | None = None,
              on_game: Callable[[GameRecord], None] | None = None) -> list[GameRecord]:
    """Play the jobs over `workers` processes, or as Ray tasks (``backend="ray"``, on the
    cluster at `ray_address` or on a local node of `workers` CPUs); results in job order,
    the same on both backends (every agent is seeded from its job).  `on_game` is called
    with each game as soon as it finishes (in finishing order)."""
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")
    results: list[GameRecord | None] = [None] * len(jobs)
    with Progress(disable=not progress, transient=True) as bar:
        task = bar.add_task("arena games", total=len(jobs))

        def done(i: int, rec: GameRecord) -> None:
            results[i] = rec
            if on_game is not None:
                on_game(rec)
            bar.advance(task)

        if backend == "ray":
            from experiments.ray_backend import ray_imap_unordered

            for i, rec in ray_imap_unordered(_play_at, enumerate(jobs), workers, ray_address):
                done(i, rec)
        elif workers <= 1:
            for i, job in enumerate(jobs):
                done(*_play_at(i, job))
        else:
            with mp.get_context("spawn").Pool(workers, initializer=ignore_sigint) as pool:
                for i, rec in pool.imap_unordered(_play_pair, enumerate(jobs), chunksize=1):
                    done(i, rec)
    return [r for r in results if r is not None]


# ---------------------------------------------------------------- the games file

GAMES = "games.jsonl"
STAMPS = "stamps.json"


def game_key(r: GameRecord | Job) -> tuple[int, str, str]:
    """What identifies a game of a run: its seed and its US and China agent specs."""
    if isinstance(r, Job):
        return r.seed, r.usa, r.china
    return r.seed, r.agents["usa"], r.agents["china"]


def parse_game(data: object) -> GameRecord:
    """One line of ``games.jsonl`` as a record, every field checked (ValueError if not)."""
    rec = records.parse(data)
    agents = rec.agents
    if set(agents) != set(SIDES) or not all(isinstance(v, str) for v in agents.values()):
        raise ValueError("field 'agents' must map usa and china to agent specs")
    if rec.winner not in (None, *SIDES):
        raise ValueError(f"field 'winner' must be usa, china or null, not {rec.winner!r}")
    return rec


def stamps_now(out: Path, played: set[str], specs: list[str], content: str = "shipped"
               ) -> dict[str, str]:
    """The play stamps of the agents of this run and of the folder's games (spec -> card
    and rule data, and network weights); ValueError if a folder's game was played on other
    ones (``out/stamps.json``), whose results would be mixed with these."""
    from experiments.balance import play_stamp

    path = out / STAMPS
    try:
        had = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        had = None
    if not isinstance(had, dict):
        raise ValueError(f"{path}: damaged (not a JSON object): use --force to replace the "
                         "folder's games, or another folder")
    now = {s: play_stamp([s], content) for s in sorted(played | set(specs))}
    stale = sorted(s for s in played if had.get(s) != now[s])
    if stale:
        raise ValueError(f"{out} holds games of {', '.join(stale)} played on other data or "
                         "network weights (or before stamps were kept): use --force to "
                         "replace them, or another folder")
    return now


def _not_this_run(path: Path, stale: list[GameRecord], specs: list[str]) -> str:
    dropped = sorted({a for r in stale for a in r.agents.values()} - set(specs))
    if dropped:
        what = f"agents this command does not name ({', '.join(dropped)})"
    else:
        seeds = sorted({r.seed for r in stale})
        what = f"seeds this command does not play ({seeds[0]}..{seeds[-1]})"
    return (f"{path} holds {len(stale)} game(s) of {what}: name the same agents and seeds to "
            "resume, --force to replace the folder's games, or use another --out")


def resume(out: Path, jobs: list[Job], specs: list[str], force: bool = False,
           content: str = "shipped") -> dict[tuple[int, str, str], GameRecord]:
    """The games of `jobs` already in ``out/games.jsonl`` (by :func:`game_key`).

    Refused (ValueError, one line, nothing written) if the file holds a game `jobs` do not
    include or one played on other data or weights; with `force` the folder's games are
    deleted instead.  Damaged lines are reported (:class:`gamelog.ResumeWarning`) and
    moved aside once every check has passed.
    """
    path = out / GAMES
    if force:
        path.unlink(missing_ok=True)
        (out / STAMPS).unlink(missing_ok=True)
    lines = gamelog.read(path, parse_game, game_key)
    now = stamps_now(out, {a for r in lines.games for a in r.agents.values()}, specs,
                     content)
    wanted = {game_key(j) for j in jobs}
    stale = [r for r in lines.games if game_key(r) not in wanted]
    if stale:
        raise ValueError(_not_this_run(path, stale, specs))
    gamelog.repair(lines)
    write_text_atomic(out / STAMPS, json.dumps(now, indent=1) + "\n")
    return {game_key(r): r for r in lines.games}


def play_into(out: Path, jobs: list[Job], known: dict[tuple[int, str, str], GameRecord],
              workers: int, progress: bool, backend: str, ray_address: str | None
              ) -> list[GameRecord]:
    """Play the jobs not in `known`, appending each game to ``out/games.jsonl`` as it
    finishes; every job's game, in job order."""
    def keep(rec: GameRecord) -> None:
        append_line(out / GAMES, json.dumps(asdict(rec)))
        known[game_key(rec)] = rec

    todo = [j for j in jobs if game_key(j) not in known]
    run_games(todo, workers, progress, backend, ray_address, on_game=keep)
    return [known[game_key(j)] for j in jobs]


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
            "ratings": ratings(records), "paired": paired(records)}


def game_score(r: GameRecord, agent: str) -> float:
    """`agent`'s points from a game: 1 a win, 0.5 a draw, 0 a loss."""
    if r.winner is None:
        return 0.5
    return float(r.agents[r.winner] == agent)


def paired(records: list[GameRecord]) -> list[dict[str, Any]]:
    """Per pairing (agent, opponent in first-seen order): its seed pairs (both games of a
    seed, sides swapped) scored both ways, trinomial and pentanomial
    (:func:`experiments.pentanomial.compare`); a seed with one game only is left out."""
    from experiments.pentanomial import compare

    games: dict[tuple[str, str], dict[int, dict[str, GameRecord]]] = {}
    for r in records:
        a, b = r.agents["usa"], r.agents["china"]
        key = (a, b) if (b, a) not in games else (b, a)
        games.setdefault(key, {}).setdefault(r.seed, {})[a] = r
    rows = []
    for (a, b), seeds in games.items():
        pairs = [(game_score(g[a], a), game_score(g[b], a)) for g in seeds.values()
                 if len(g) == 2]
        if pairs:
            rows.append({"agent": a, "opponent": b, **compare(pairs)})
    return rows


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
    """The summary, the CSV and the plots (the games are in games.jsonl already)."""
    out.mkdir(parents=True, exist_ok=True)
    write_text_atomic(out / "summary.json", json.dumps(summary, indent=2))
    with (out / "results.csv").open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(summary["results"][0]))
        w.writeheader()
        w.writerows(summary["results"])
    plot(summary, out)


MANY = 12  # pairings (or bars) above which a plot changes its layout to stay readable


def plot(summary: dict[str, Any], out: Path) -> None:
    """``win_rates.png`` (a bar per agent and side: upright for a few, a list of horizontal
    bars for a round robin), ``end_reasons.png`` and ``end_turns.png`` (one series per
    pairing, or the pairings' total when there are more than :data:`MANY`)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [r for r in summary["results"] if r["side"] != "both"]
    rates = [r["win_rate"] for r in rows]
    err = [[r["win_rate"] - r["ci95_low"] for r in rows], [r["ci95_high"] - r["win_rate"]
                                                          for r in rows]]
    colors = ["#4a78d0" if r["side"] == "usa" else "#d04a4a" for r in rows]
    if len(rows) <= MANY:
        fig, ax = plt.subplots(figsize=(max(6, 1.2 * len(rows)), 4.5), layout="constrained")
        ax.bar(range(len(rows)), rates, yerr=err, capsize=4, color=colors)
        ax.axhline(0.5, color="#888", linewidth=0.8)
        ax.set_xticks(range(len(rows)), [f"{r['agent']} as {r['side']}\nvs {r['opponent']}"
                                         for r in rows], fontsize=7)
        ax.set_ylim(0, 1)
        ax.set_ylabel("win rate (95% Wilson interval)")
    else:
        fig, ax = plt.subplots(figsize=(9, 1.2 + 0.2 * len(rows)), layout="constrained")
        ax.barh(range(len(rows)), rates, xerr=err, capsize=2, color=colors)
        ax.axvline(0.5, color="#888", linewidth=0.8)
        ax.set_yticks(range(len(rows)), [f"{r['agent']} as {r['side']} vs {r['opponent']}"
                                         for r in rows], fontsize=6)
        ax.set_ylim(len(rows) - 0.5, -0.5)  # first row on top, no margins
        ax.set_xlim(0, 1)
        ax.set_xlabel("win rate (95% Wilson interval)")
    ax.set_title("Arena: win rate per agent and side")
    fig.savefig(out / "win_rates.png", dpi=110)
    plt.close(fig)
    for key, title, fname in (("end_reasons", "How games ended", "end_reasons.png"),
                              ("end_turns", "Turn the game ended", "end_turns.png")):
        data = summary[key]
        if len(data) > MANY:
            total: Counter = Counter()
            for counts in data.values():
                total.update(counts)
            data, title = {f"all {len(data)} pairings": dict(total)}, f"{title} (all games)"
        cats = sorted({c for v in data.values() for c in v},
                      key=lambda x: int(x) if x.isdigit() else x)
        fig, ax = plt.subplots(figsize=(max(6, 1.0 * len(cats) + 3), 4), layout="constrained")
        width = 0.8 / max(1, len(data))
        for k, (pairing, counts) in enumerate(data.items()):
            ax.bar([i + k * width for i in range(len(cats))],
                   [counts.get(c, 0) for c in cats], width, label=pairing)
        ax.set_xticks([i + 0.4 - width / 2 for i in range(len(cats))], cats, fontsize=7,
                      rotation=20 if key == "end_reasons" else 0)
        ax.set_ylabel("games")
        ax.set_title(title)
        ax.legend(fontsize=6)
        fig.savefig(out / fname, dpi=110)
        plt.close(fig)


def check_settings(specs: list[str], games: int, workers: int, backend: str,
                   seed0: int = 0) -> None:
    """ValueError on bad settings or agent specs (before the first game)."""
    check_run(seed0, games, workers)
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")
    if len(specs) < 2:
        raise ValueError("name at least two agents")
    for spec in specs:
        make_agent(spec, 0)  # fail fast on a bad spec or policy file


def keep_content(content: str, out: Path) -> str:
    """Load a run's content (ContentError if bad), keep its snapshot in ``out/content/``
    for the records, and return its source for the workers ("shipped" or a full path)."""
    from evenstar_env.content import load_content

    source = load_content(content).source
    records.keep_content(source, out)
    return source


def arena(specs: list[str], games: int, out: Path, workers: int = 2, seed0: int = 0,
          progress: bool = True, backend: str = "process", ray_address: str | None = None,
          force: bool = False, content: str = "shipped") -> dict[str, Any]:
    """Run (or resume) a whole arena on `content` (a content folder or overlay; its
    snapshot is kept in ``out/content/``) and write its outputs; return the summary.

    Bad settings, agent specs, a folder holding games of another run (see :func:`resume`;
    `force` replaces them) and an output folder that cannot be written fail before the
    first game (ValueError; :class:`experiments.files.OutputDirError` for the folder,
    :class:`experiments.files.FolderLockedError` while another run writes it).
    """
    check_settings(specs, games, workers, backend, seed0)
    games, workers, seed0 = int(games), int(workers), int(seed0)  # numpy's too
    ensure_output_dir(out)
    with folder_lock(out):
        content = keep_content(content, out)
        jobs = jobs_for(specs, games, seed0, content)
        known = resume(out, jobs, specs, force, content)
        records = play_into(out, jobs, known, workers, progress, backend, ray_address)
        summary = summarise(records)
        summary["config"] = {"agents": specs, "games_per_pairing": games, "paired": True,
                             "seed0": seed0, "backend": backend, "content": content}
        write_outputs(records, summary, out)
    return summary
