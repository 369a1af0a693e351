"""Balance studies by self-play: which side a deck or rule variant favours, and why.

Every variant plays the same seed list (common random numbers); with two
different agents every seed is played twice with the sides swapped.  Per
variant: side win rates with Wilson intervals, the paired difference from the
baseline (the first variant) with a 95% interval, an optional SPRT that stops
a decided variant early, end reasons and turns, VP by source, and per-card
statistics (observational).  ``forbid`` adds causal runs: the baseline with
one card's event banned.  Games go to ``games.jsonl`` as they finish (one
write of a whole line each, flushed to disk), so an interrupted study resumes
without replaying them: on resume a damaged line (a crash mid-write, or a line
that lacks a field) is reported by line number and moved to ``games.jsonl.damaged``
(:mod:`experiments.gamelog`), and every game (keyed by variant, seed and agents) is
played and stored at most once.  Games in the folder that are not part of this
study (other variants, agents or seeds) stay in the file and out of its results.  A
study folder is locked while a run writes it: a second process on the same folder
stops at once with one line.
"""

from __future__ import annotations

import contextlib
import json
import math
import multiprocessing as mp
import time
import warnings
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from rich.progress import Progress

from evenstar_env import Game
from evenstar_env.content import DATA_DIR, content_id, load_variant, play_fingerprint
from evenstar_env.content.loader import load_variants
from evenstar_env.content.schema import Variant
from evenstar_env.content.source import write_snapshot
from evenstar_env.safe_io import read_bounded
from experiments import gamelog
from experiments.arena import ignore_sigint, make_agent
from experiments.balance_report import (
    MIN_PLOT_GAMES,
    TOP_CARDS,
    card_rows,
    palette,
    source_label,
    write_card_table,
    write_report,
)
from experiments.files import append_line, folder_lock, write_text_atomic
from experiments.gamelog import ResumeWarning, checked
from experiments.limits import check_run
from experiments.pentanomial import compare, counts_of, pentanomial, trinomial
from experiments.stats import wilson

OPS_MODES = ("place", "realign", "improve_social", "improve_economy", "tech", "trade")
USAGES = ("event", "ops", "headline", "track")  # "track": tech race / sabotage discard
BACKENDS = ("process", "ray")


__all__ = ["ResumeWarning", "Study", "read_games", "run_study"]


def check_forbid(card_ids: list[str], baseline: Variant | None = None) -> None:
    """ValueError naming any id that is not a card of the baseline's content (default:
    the shipped content)."""
    import difflib

    known = [c.id for c in load_variant(baseline or Variant(name="baseline")).cards]
    for cid in card_ids:
        if cid not in known:
            close = difflib.get_close_matches(cid, known, n=3)
            hint = f"; did you mean {', '.join(close)}?" if close else ""
            raise ValueError(f"no card with id {cid!r}{hint}")


@dataclass
class Study:
    """What to run; the first variant is the baseline."""

    variants: list[Variant]
    usa: str = "heuristic"
    china: str = "heuristic"
    games: int = 100  # seeds per variant
    seed0: int = 0
    workers: int = 2
    backend: str = "process"  # "process" or "ray"
    ray_address: str | None = None
    sprt: bool = False
    sprt_p0: float = 0.45  # H0: the US wins with p0 (China favoured) ...
    sprt_p1: float = 0.55  # ... H1: with p1 (US favoured)
    sprt_alpha: float = 0.05
    sprt_beta: float = 0.05
    forbid: list[str] = field(default_factory=list)  # card ids for causal "event banned" runs

    def check(self) -> None:
        """ValueError naming the first bad setting (before any game is played); integer
        settings made plain ints."""
        if not self.variants:
            raise ValueError("no variants to run")
        check_run(self.seed0, self.games, self.workers)
        self.seed0, self.games, self.workers = int(self.seed0), int(self.games), \
            int(self.workers)  # numpy integers become plain ones (JSON, job keys)
        if self.backend not in BACKENDS:
            raise ValueError(f"unknown backend {self.backend!r} (one of {', '.join(BACKENDS)})")
        check_forbid(self.forbid, self.variants[0])

    def all_variants(self) -> list[Variant]:
        base = self.variants[0]
        extra = [base.model_copy(update={"name": f"forbid {cid}",
                                         "ban_events": [*base.ban_events, cid]})
                 for cid in self.forbid]
        return [*self.variants, *extra]


@dataclass(frozen=True)
class Job:
    variant: str
    seed: int
    usa: str
    china: str

    @property
    def key(self) -> str:
        return f"{self.variant}|{self.seed}|{self.usa}|{self.china}"


def jobs_for(study: Study) -> list[Job]:
    """Seed-major order, so every variant advances together (good for SPRT)."""
    pairs = [(study.usa, study.china)]
    if study.usa != study.china:
        pairs.append((study.china, study.usa))  # side-swapped pair
    return [Job(v.name, study.seed0 + k, u, c) for k in range(study.games)
            for v in study.all_variants() for u, c in pairs]


def play_job(job: Job, variant: dict[str, Any], data_dir: str = str(DATA_DIR)) -> dict:
    """One game of a study; returns a flat record with per-card usage."""
    content = load_variant(variant, Path(data_dir))
    g = Game(job.seed, content=content)
    agents = {"usa": make_agent(job.usa, 2 * job.seed), "china": make_agent(job.china,
                                                                           2 * job.seed + 1)}
    usage: list[tuple[str, str, str]] = []  # (card id, usage, player)
    actions: list[int] = []
    while not g.is_over:
        d = g.decision
        a = agents[d.player].act(None, g.action_mask(), g)
        if d.kind == "headline":
            usage.append((content.cards[g.action_group(a)[1]].id, "headline", d.player))
        elif d.kind == "mode" and d.context.get("card", -1) >= 0:
            mode = ("event", *OPS_MODES)[g.action_group(a)[1]]
            kind = "event" if mode == "event" else ("track" if mode == "tech" else "ops")
            usage.append((content.cards[d.context["card"]].id, kind, d.player))
        g.step(a)
        actions.append(a)
    return {"key": job.key, "variant": job.variant, "seed": job.seed, "usa": job.usa,
            "china": job.china, "winner": g.result.winner, "reason": g.result.reason,
            "end": _reason_kind(g.result.reason), "turn": g.turn, "vp": g.vp,
            "vp_sources": g.vp_by_source(), "cards": usage, "actions": actions,
            "content_id": content_id(content)}


def _reason_kind(reason: str) -> str:
    for side in ("usa", "china"):
        reason = reason.replace(f"{side} ", "")
    return reason.split(":")[0].split(" caused")[0]


# ---------------------------------------------------------------- SPRT


def sprt_llr(us_wins: int, us_losses: int, p0: float, p1: float) -> float:
    """Log-likelihood ratio of H1 (US win prob p1) against H0 (p0); draws are ignored."""
    return us_wins * math.log(p1 / p0) + us_losses * math.log((1 - p1) / (1 - p0))


MIN_PAIRS = 10  # complete seed pairs before the pentanomial SPRT may stop a variant


def pair_llr(us_pair_points: list[float], p0: float, p1: float) -> float:
    """GSPRT log-likelihood ratio of H1 (US score p1) against H0 (p0) from seed pairs (the
    two side-swapped games of a seed; the US's points over the pair, 0..2): the pairs are
    the units, scored pentanomially (:mod:`experiments.pentanomial`)."""
    return pentanomial(counts_of(us_pair_points), regularise=True).llr(p0, p1)


def us_pairs(seeds: dict[int, list[float]]) -> list[float]:
    """The US's points over each complete seed pair (both games on disk)."""
    return [sum(v) for v in seeds.values() if len(v) == 2]


def sprt_decision(llr: float, alpha: float, beta: float) -> str | None:
    """'H1' (US favoured), 'H0' (China favoured) or None (go on)."""
    if llr >= math.log((1 - beta) / alpha):
        return "H1"
    if llr <= math.log(beta / (1 - alpha)):
        return "H0"
    return None


# ---------------------------------------------------------------- running


def _run_local(jobs: Iterator[Job], variants: dict[str, dict], workers: int,
               ) -> Iterator[dict]:
    if workers <= 1:
        for job in jobs:
            yield play_job(job, variants[job.variant])
        return
    with mp.get_context("spawn").Pool(workers, initializer=ignore_sigint) as pool:
        args = ((job, variants[job.variant]) for job in jobs)
        yield from pool.imap_unordered(_star_play, args, chunksize=1)


def _star_play(args: tuple[Job, dict]) -> dict:
    return play_job(*args)


def _run_ray(jobs: Iterator[Job], variants: dict[str, dict], workers: int,
             address: str | None) -> Iterator[dict]:
    from experiments.ray_backend import ray_imap_unordered

    yield from ray_imap_unordered(play_job, ((job, variants[job.variant]) for job in jobs),
                                  workers, address)


STAMP = "play_fingerprint.txt"


def play_stamp(agents: Iterable[str] = (), content: str = "shipped") -> str:
    """What a study's games depend on besides their seeds: the card and rule data's play
    fingerprint, then ``spec=hash`` for each agent that plays a network (its weights)."""
    from agents.specs import spec_weights, weights_hash
    from evenstar_env.content import load_content, play_fingerprint

    parts = [play_fingerprint(load_content(content))]
    for spec in sorted(set(agents)):
        path = spec_weights(spec)
        if path is not None and path.is_file():
            parts.append(f"{spec}={weights_hash(path)}")
    return " ".join(parts)


def check_data_stamp(out: Path, has_games: bool, agents: Iterable[str] = (),
                     variants: Iterable[Variant] = ()) -> None:
    """Refuse to resume a study folder whose games were played on other card or rule data
    (the shipped data, and the content folder of each variant that names one), or by
    other network weights of its `agents` (their results would be mixed with these);
    stamp a new folder."""
    now = " ".join([play_stamp(agents)] + [
        f"{v.name}={play_fingerprint(load_variant(v))}" for v in variants if v.content])
    stamp = out / STAMP
    try:
        had = read_bounded(stamp, 1 << 16).decode("utf-8", "replace").strip() \
            if stamp.exists() else None
    except OSError:
        had = "(unreadable)"
    if has_games and had != now:
        played = f"data {had}" if had else "data of unknown fingerprint"
        raise ValueError(f"{out} holds games played on {played}, not on the shipped data "
                         f"and networks ({now}): use another folder or delete that one")
    if had != now:
        write_text_atomic(stamp, now + "\n")


def run_study(study: Study, out: Path, progress: bool = True) -> dict[str, Any]:
    """Run (or resume) a study into `out`; return the summary (also written to disk)."""
    study.check()
    out.mkdir(parents=True, exist_ok=True)
    with folder_lock(out):
        return _run_locked(study, out, progress)


def _run_locked(study: Study, out: Path, progress: bool) -> dict[str, Any]:
    started = time.perf_counter()
    games_path = out / "games.jsonl"
    lines = gamelog.read(games_path, parse_game, _game_key)
    done = lines.games
    check_data_stamp(out, bool(done), (study.usa, study.china), study.all_variants())
    for v in study.all_variants():  # what the records need to replay after any edit
        write_snapshot(load_variant(v).files, out)
    gamelog.repair(lines)
    jobs = jobs_for(study)
    wanted = {j.key for j in jobs}
    other = sum(r["key"] not in wanted for r in done)
    if other:  # kept on disk, never mixed into this study's figures
        warnings.warn(f"{games_path}: {other} game(s) of other variants, agents or seeds "
                      "are not part of this study: kept in the file, left out of its "
                      "results", ResumeWarning, stacklevel=3)
        done = [r for r in done if r["key"] in wanted]
    finished = {r["key"] for r in done}
    variants = {v.name: v.model_dump() for v in study.all_variants()}
    stopped: dict[str, str] = {}
    counts: dict[str, Counter] = defaultdict(Counter)
    seeds: dict[str, dict[int, list[float]]] = defaultdict(lambda: defaultdict(list))
    for r in done:
        _count(counts, seeds, r)
    if study.sprt:
        for name in variants:
            _sprt_check(study, name, counts, seeds, stopped)

    todo = [j for j in jobs if j.key not in finished]

    def feed() -> Iterator[Job]:
        for job in todo:
            if job.variant not in stopped:  # SPRT: a decided variant plays no more
                yield job

    runner: Iterable[dict]
    if study.backend == "ray":
        runner = _run_ray(feed(), variants, study.workers, study.ray_address)
    else:
        runner = _run_local(feed(), variants, study.workers)
    with Progress(disable=not progress, transient=True) as bar:
        task = bar.add_task("balance games", total=len(todo))
        for rec in runner:
            if rec["key"] in finished:  # never stored twice
                continue
            append_line(games_path, json.dumps(rec))
            finished.add(rec["key"])
            done.append(rec)
            _count(counts, seeds, rec)
            if study.sprt:
                _sprt_check(study, rec["variant"], counts, seeds, stopped)
            bar.advance(task)
    summary = summarise(study, done, stopped)
    summary["config"]["seconds"] = _seconds(out, started, bool(todo))
    write_outputs(summary, done, out)
    return summary


def _seconds(out: Path, started: float, played: bool) -> float:
    """Wall time of the runs that played the study's games: this one (when it played any)
    plus the earlier ones recorded in ``summary.json``."""
    earlier = 0.0
    with contextlib.suppress(OSError, ValueError, KeyError, TypeError):
        earlier = float(json.loads((out / "summary.json").read_text(encoding="utf-8")
                                   )["config"]["seconds"])
    return earlier + (time.perf_counter() - started if played else 0.0)


def _count(counts: dict[str, Counter], seeds: dict[str, dict[int, list[float]]],
           rec: dict) -> None:
    counts[rec["variant"]][rec["winner"] or "draw"] += 1
    seeds[rec["variant"]][rec["seed"]].append(_us_points(rec))


def _us_points(rec: dict) -> float:
    """The US's points from a game: 1 a win, 0.5 a draw, 0 a loss."""
    return 0.5 if rec["winner"] is None else float(rec["winner"] == "usa")


def _sprt_check(study: Study, name: str, counts: dict[str, Counter],
                seeds: dict[str, dict[int, list[float]]], stopped: dict[str, str]) -> None:
    """With two agents (side-swapped seed pairs) the pentanomial GSPRT over the complete
    pairs; with one agent on both sides the binomial SPRT over the games."""
    if name in stopped:
        return
    c = counts[name]
    if study.usa != study.china:
        pairs = us_pairs(seeds[name])
        if len(pairs) < MIN_PAIRS:  # the normal approximation needs some pairs
            return
        llr = pair_llr(pairs, study.sprt_p0, study.sprt_p1)
    else:
        llr = sprt_llr(c["usa"], c["china"], study.sprt_p0, study.sprt_p1)
    decision = sprt_decision(llr, study.sprt_alpha, study.sprt_beta)
    if decision is not None:
        stopped[name] = decision


def _game_key(rec: dict) -> str:
    return rec["key"]


_FIELDS: dict[str, type | tuple[type, ...]] = {
    "key": str, "variant": str, "seed": int, "usa": str, "china": str,
    "winner": (str, type(None)), "reason": str, "end": str, "turn": int, "vp": dict,
    "vp_sources": dict, "cards": list, "actions": list}


def parse_game(data: object) -> dict:
    """One line of a study's games.jsonl, every field the summaries read checked
    (KeyError, TypeError or ValueError naming it)."""
    rec = checked(data, dict, "the line")
    for name, kind in _FIELDS.items():
        checked(rec[name], kind, name)
    if rec["key"] != f"{rec['variant']}|{rec['seed']}|{rec['usa']}|{rec['china']}":
        raise ValueError(f"field 'key' {rec['key']!r} does not match the game's variant, "
                         "seed and agents")
    if rec["winner"] not in (None, "usa", "china"):
        raise ValueError(f"field 'winner' must be usa, china or null, not {rec['winner']!r}")
    for side in ("usa", "china"):
        checked(rec["vp"][side], (int, float), f"vp.{side}")
        sources = checked(rec["vp_sources"][side], dict, f"vp_sources.{side}")
        for v in sources.values():
            checked(v, (int, float), f"vp_sources.{side}")
    for use in rec["cards"]:
        if not (isinstance(use, list) and len(use) == 3 and all(isinstance(x, str)
                                                                 for x in use)):
            raise TypeError("field 'cards' must hold [card, usage, player] lists of text")
    return rec


def read_games(path: Path, repair: bool = False) -> list[dict]:
    """The stored games, each key once (the first); damaged lines (a crash mid-write, a
    line missing a field) are skipped with a :class:`ResumeWarning` naming their line
    numbers, and with `repair` moved to ``games.jsonl.damaged`` and the file rewritten
    without them, so that later appends start on a clean line."""
    lines = gamelog.read(path, parse_game, _game_key)
    if repair:
        gamelog.repair(lines)
    return lines.games


# ---------------------------------------------------------------- summaries


def summarise(study: Study, records: list[dict], stopped: dict[str, str]) -> dict[str, Any]:
    names = [v.name for v in study.all_variants()]
    by_variant: dict[str, list[dict]] = defaultdict(list)
    for r in records:
        by_variant[r["variant"]].append(r)
    base = names[0]
    base_by_key = {(r["seed"], r["usa"], r["china"]): r for r in by_variant[base]}
    variants = {}
    for name in names:
        recs = by_variant[name]
        n = len(recs)
        wins = Counter(r["winner"] or "draw" for r in recs)
        row: dict[str, Any] = {"games": n}
        for side in ("usa", "china", "draw"):
            lo, hi = wilson(wins[side], n)
            row[side] = {"wins": wins[side], "rate": wins[side] / n if n else 0.0,
                         "ci95": [lo, hi]}
        diffs = [_score(r) - _score(base_by_key[(r["seed"], r["usa"], r["china"])])
                 for r in recs if (r["seed"], r["usa"], r["china"]) in base_by_key]
        row["diff_vs_baseline"] = _mean_ci(diffs)
        row["us_score"] = _us_score(study, recs)
        row["end_reasons"] = dict(Counter(r["end"] for r in recs).most_common())
        row["end_turns"] = {str(t): k for t, k in sorted(Counter(r["turn"] for r in recs)
                                                          .items())}
        row["vp_sources"] = _vp_sources(recs)
        if name in stopped:
            row["sprt"] = {"decision": stopped[name],
                           "meaning": "US favoured" if stopped[name] == "H1" else
                           "China favoured"}
        variants[name] = row
    for v in study.all_variants():
        variants[v.name]["description"] = v.description or (
            f"the baseline with the event of {v.name.removeprefix('forbid ')} banned"
            if v.name.startswith("forbid ") else "")
    return {"config": {"usa": study.usa, "china": study.china, "games": study.games,
                       "seed0": study.seed0, "baseline": base, "sprt": study.sprt,
                       "forbid": study.forbid},
            "variants": variants,
            "cards": card_stats(by_variant[base], load_variant(study.all_variants()[0]))}


def _us_score(study: Study, recs: list[dict]) -> dict[str, Any]:
    """The US's mean score, trinomial (games as units) and, with two agents, pentanomial
    (seed pairs as units) too (:func:`experiments.pentanomial.compare`)."""
    if study.usa != study.china:
        seeds: dict[int, list[float]] = defaultdict(list)
        for r in recs:
            seeds[r["seed"]].append(_us_points(r))
        pairs = [(v[0], v[1]) for v in seeds.values() if len(v) == 2]
        if pairs:
            return compare(pairs)
    pts = [_us_points(r) for r in recs]
    return {"trinomial": trinomial(pts.count(0.0), pts.count(0.5), pts.count(1.0)).as_dict()}


def _score(r: dict) -> float:
    """1 if the US won, else 0 (a draw counts as not a US win, as in the US win rate)."""
    return float(r["winner"] == "usa")


def _mean_ci(xs: list[float]) -> dict[str, float]:
    if not xs:
        return {"n": 0, "mean": 0.0, "ci95": [0.0, 0.0]}
    a = np.asarray(xs, dtype=float)
    half = 1.959964 * a.std(ddof=1) / math.sqrt(a.size) if a.size > 1 else 0.0
    return {"n": int(a.size), "mean": float(a.mean()),
            "ci95": [float(a.mean() - half), float(a.mean() + half)]}


def _vp_sources(recs: list[dict]) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for side in ("usa", "china"):
        total: Counter = Counter()
        for r in recs:
            total.update(r["vp_sources"][side])
        out[side] = {k: v / max(1, len(recs)) for k, v in total.items()}
    return out


def card_stats(recs: list[dict], content: Any = None) -> dict[str, dict[str, Any]]:
    """Per card and usage (event, ops, headline, track = tech race / sabotage discard): in how
    many games, and the win rate of the card's owner side in those games (observational).

    The owner is the card's side; for a neutral card, the player who played it.
    """
    from evenstar_env.content import as_content

    side_of = {c.id: c.side for c in as_content(content).cards}
    used: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for r in recs:
        seen = set()
        for cid, usage, player in r["cards"]:
            owner = player if side_of.get(cid, "neutral") == "neutral" else side_of[cid]
            if (cid, usage, owner) in seen:
                continue
            seen.add((cid, usage, owner))
            won = 0.5 if r["winner"] is None else float(r["winner"] == owner)
            used[cid][usage].append(won)
    c = as_content(content)
    return {cid: {"name": c.cards[c.card_by_id[cid]].name if cid in c.card_by_id else cid,
                  "side": side_of.get(cid, ""),
                  **{u: {"games": len(v), "owner_win_rate": sum(v) / len(v),
                         "ci95": list(wilson(round(sum(v)), len(v)))}  # draws: half
                     for u, v in by.items()}} for cid, by in sorted(used.items())}


# ---------------------------------------------------------------- outputs


def write_outputs(summary: dict[str, Any], records: list[dict], out: Path) -> None:
    write_text_atomic(out / "summary.json", json.dumps(summary, indent=2))
    import csv

    with (out / "games.csv").open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["variant", "seed", "usa", "china", "winner", "end", "turn", "vp_usa",
                    "vp_china"])
        for r in records:
            w.writerow([r["variant"], r["seed"], r["usa"], r["china"], r["winner"] or "draw",
                        r["end"], r["turn"], r["vp"]["usa"], r["vp"]["china"]])
    plots = make_plots(summary, out)
    write_card_table(card_rows(summary), out)
    write_report(summary, plots, out)


def make_plots(summary: dict[str, Any], out: Path) -> list[str]:
    """Win rate per variant, end reasons, VP sources, per-card impact (PNG files)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    variants = summary["variants"]
    names = list(variants)
    files = []

    def save(fig: Any, name: str) -> None:
        fig.tight_layout()
        fig.savefig(out / name, dpi=110)
        plt.close(fig)
        files.append(name)

    fig, ax = plt.subplots(figsize=(max(6, 1.4 * len(names)), 4))
    rates = [variants[n]["usa"]["rate"] for n in names]
    err = [[r - variants[n]["usa"]["ci95"][0] for n, r in zip(names, rates, strict=True)],
           [variants[n]["usa"]["ci95"][1] - r for n, r in zip(names, rates, strict=True)]]
    ax.bar(range(len(names)), rates, yerr=err, capsize=4, color="#4a78d0")
    ax.axhline(0.5, color="#888", linewidth=0.8)
    ax.set_xticks(range(len(names)), names, rotation=15, fontsize=8)
    ax.set_ylim(0, 1)
    ax.set_ylabel("US win rate (95% Wilson interval)")
    ax.set_title("Side balance per variant")
    save(fig, "win_rates.png")

    reasons = sorted({k for n in names for k in variants[n]["end_reasons"]})
    fig, ax = plt.subplots(figsize=(max(6, 1.4 * len(names)), 4))
    bottom = np.zeros(len(names))
    for reason in reasons:
        vals = np.array([variants[n]["end_reasons"].get(reason, 0) / max(1, variants[n]["games"])
                         for n in names])
        ax.bar(range(len(names)), vals, bottom=bottom, label=reason)
        bottom += vals
    ax.set_xticks(range(len(names)), names, rotation=15, fontsize=8)
    ax.set_ylabel("share of games")
    ax.set_title("How games ended")
    if reasons:
        ax.legend(fontsize=6)
    save(fig, "end_reasons.png")

    sources = sorted({k for n in names for s in ("usa", "china")
                      for k in variants[n]["vp_sources"][s]})
    colours = dict(zip(sources, palette(len(sources)), strict=True))
    fig, axes = plt.subplots(1, 2, figsize=(12 + 0.3 * len(names), 4.5), sharey=True)
    for ax, side in zip(axes, ("usa", "china"), strict=True):
        bottom = np.zeros(len(names))
        for src in sources:
            vals = np.array([variants[n]["vp_sources"][side].get(src, 0) for n in names])
            ax.bar(range(len(names)), vals, bottom=bottom, label=source_label(src),
                   color=colours[src])
            bottom += vals
        ax.set_xticks(range(len(names)), names, rotation=15, fontsize=7)
        ax.set_title(f"Mean VP by source: {'US' if side == 'usa' else 'China'}")
    if sources:  # one colour per source, the legend beside the bars (never over them)
        axes[1].legend(fontsize=6, ncol=1 + len(sources) // 24, loc="upper left",
                       bbox_to_anchor=(1.02, 1.0), borderaxespad=0)
    save(fig, "vp_sources.png")

    rows = [r for r in card_rows(summary) if r["games"] >= MIN_PLOT_GAMES][:TOP_CARDS]
    fig, ax = plt.subplots(figsize=(9, max(3, 0.32 * len(rows) + 1.5)))
    y = range(len(rows))
    ax.barh(list(y), [100 * r["impact"] for r in rows],
            xerr=[[100 * (r["impact"] - r["low"]) for r in rows],
                  [100 * (r["high"] - r["impact"]) for r in rows]],
            capsize=3, color=["#3a8a3a" if r["impact"] > 0 else "#a33" for r in rows])
    ax.set_yticks(list(y), [f"{r['card']} (n={r['games']})" for r in rows])
    ax.axvline(0, color="#888", linewidth=0.8)
    ax.invert_yaxis()
    ax.tick_params(labelsize=7)
    ax.set_xlabel("owner's win rate where the event was played, minus the average, in "
                  "points\n(observational; 95% Wilson interval)")
    ax.set_title(f"Per-card impact in '{names[0]}': the {len(rows)} largest of those played "
                 f"as events in {MIN_PLOT_GAMES}+ games\n(every card in cards.html)",
                 fontsize=10)
    save(fig, "card_impact.png")
    return files


MAX_VARIANTS_FILE = 1 << 20  # bytes


def load_study_variants(path: Path, names: list[str] | None = None,
                        content: str | None = None) -> list[Variant]:
    """Variants from a TOML file (all, or the named ones in that order), those that name no
    content folder played on `content` (default: the shipped one); a FIFO, a device
    or a file over 1 MiB is refused (ValueError) before it is parsed."""
    try:
        read_bounded(path, MAX_VARIANTS_FILE)
    except OSError as exc:
        raise ValueError(f"{path}: cannot read a variants file: {exc.strerror or exc}"
                         ) from None
    variants = load_variants(path)
    if content is not None:
        from evenstar_env.content import load_content

        folder = load_content(content).source
        variants = [v if v.content else v.model_copy(update={"content": folder})
                    for v in variants]
    if not names:
        return variants
    by = {v.name: v for v in variants}
    missing = [n for n in names if n not in by]
    if missing:
        raise ValueError(f"{path}: no variant named {missing}; have {list(by)}")
    return [by[n] for n in names]
