"""The ladder: Bradley–Terry Elo of a fixed, versioned pool of agents.

Every pair of agents in :data:`POOL` (plus any agents added with ``extra``) plays the
same seeds twice with the sides swapped (the arena's jobs, :mod:`experiments.arena`).
Games are appended to ``OUT/games.jsonl`` as they finish and kept, with the play stamps
(card and rule data fingerprint, network weights) of every agent in ``stamps.json``: a
rerun resumes, and a new agent plays only its own games.  The folder is locked while a
run writes it.

Ratings: the Bradley–Terry model ``P(i beats j) = γ_i / (γ_i + γ_j) = σ(θ_i − θ_j)``
(``θ = ln γ``; R. A. Bradley and M. E. Terry, Biometrika 39, 1952) fitted by maximum
likelihood with Newton's method (the log-likelihood is concave; its Hessian is minus a
weighted graph Laplacian), a draw half a win, and :data:`PRIOR` virtual drawn games
added to every pairing played (as BayesElo does) so that a pool member that won or lost
every game keeps a finite rating.  Elo is ``400 · log10 γ``, shifted so that
``heuristic`` (:data:`ANCHOR`) is 1500 (random's Elo is then a measured figure).  95%
intervals: the 2.5 and 97.5 percentiles over bootstrap refits that resample the
table's seed pairs with replacement (both games of a seed between two agents together,
as the pentanomial model counts them).
"""

from __future__ import annotations

import json
import math
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from experiments.arena import (
    check_settings,
    game_score,
    jobs_for,
    play_into,
    resume,
    summarise,
    write_outputs,
)
from experiments.files import ensure_output_dir, folder_lock, write_text_atomic
from experiments.ratings import update_readme
from experiments.selfplay import GameRecord

POOL_VERSION = 1
# The fixed pool (version 1): scripted players, ISMCTS and AlphaISMCTS at two modest
# budgets each, and every learned checkpoint shipped under agents/checkpoints
# ("learned" is agents/checkpoints/learned, "ppo" is agents/checkpoints/ppo_selfplay.pt).
POOL = ("random", "cautious", "heuristic", "ismcts:50", "ismcts:200", "learned", "ppo",
        "alphaism:16", "alphaism:64")
ANCHOR, ANCHOR_ELO = "heuristic", 1500.0
PRIOR = 1.0  # virtual drawn games per pairing played
ELO_PER_NAT = 400.0 / math.log(10.0)
BEGIN, END = "<!-- ladder:begin -->", "<!-- ladder:end -->"


# ---------------------------------------------------------------- the fit


def bt_fit(points: np.ndarray, games: np.ndarray, prior: float = PRIOR,
           tol: float = 1e-10, max_iter: int = 100) -> np.ndarray:
    """Bradley–Terry log-strengths (natural log, mean 0 over agents with games) by Newton's
    method on the log-likelihood ``Σ_ij pts_ij · log σ(θ_i − θ_j)`` (concave; steps halved
    until it rises).

    ``points[i, j]``: points agent i scored against j (a win 1, a draw ½);
    ``games[i, j]``: their games (symmetric).  `prior` virtual draws are added to every
    pairing with games.  An agent with no games gets 0."""
    pts = np.asarray(points, dtype=float)
    n = np.asarray(games, dtype=float)
    if pts.shape != n.shape or pts.ndim != 2 or pts.shape[0] != pts.shape[1]:
        raise ValueError("points and games must be square matrices of the same shape")
    active = n.sum(axis=1) > 0
    theta = np.zeros(len(n))
    if active.sum() < 2:
        return theta
    played = n[np.ix_(active, active)] > 0
    w = pts[np.ix_(active, active)] + prior / 2 * played
    m = n[np.ix_(active, active)] + prior * played
    t = np.zeros(int(active.sum()))

    def loglik(x: np.ndarray) -> float:
        d = x[:, None] - x[None, :]
        return float(-(w * np.logaddexp(0.0, -d)).sum())

    ones = np.ones((len(t), len(t))) / len(t)
    for _ in range(max_iter):
        p = 1.0 / (1.0 + np.exp(t[None, :] - t[:, None]))
        grad = w.sum(axis=1) - (m * p).sum(axis=1)
        if np.max(np.abs(grad)) < tol * max(1.0, m.sum()):
            break
        a = m * p * (1 - p)
        lap = np.diag(a.sum(axis=1)) - a  # minus the Hessian; singular along ones
        step = np.linalg.lstsq(lap + ones, grad, rcond=None)[0]
        base, scale = loglik(t), 1.0
        while scale > 1e-6 and loglik(t + scale * step) < base:
            scale /= 2
        t = t + scale * step
        t -= t.mean()
    theta[active] = t
    return theta


def to_elo(theta: np.ndarray, agents: list[str], anchor: str = ANCHOR,
           anchor_elo: float = ANCHOR_ELO) -> np.ndarray:
    """Log-strengths as Elo, `anchor` at `anchor_elo` (the mean at it if absent)."""
    shift = theta[agents.index(anchor)] if anchor in agents else theta.mean()
    return anchor_elo + ELO_PER_NAT * (theta - shift)


def pair_table(records: list[GameRecord], agents: list[str]
               ) -> list[tuple[int, int, float, int]]:
    """The seed pairs (or lone games) as ``(i, j, points of i, games)`` units: the two
    games of a seed between the same two agents form one unit (what the bootstrap
    resamples)."""
    index = {a: k for k, a in enumerate(agents)}
    units: dict[tuple[int, int, int], list[float]] = {}
    for r in records:
        a, b = sorted((r.agents["usa"], r.agents["china"]), key=index.__getitem__)
        units.setdefault((index[a], index[b], r.seed), []).append(game_score(r, a))
    return [(i, j, sum(s), len(s)) for (i, j, _), s in units.items()]


def matrices(units: list[tuple[int, int, float, int]], k: int,
             weights: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The points and games matrices of the units (each counted `weights` times)."""
    pts, n = np.zeros((k, k)), np.zeros((k, k))
    if not units:
        return pts, n
    w = np.ones(len(units)) if weights is None else weights
    i, j, p, g = (np.array(c) for c in zip(*units, strict=True))
    np.add.at(pts, (i, j), w * p)
    np.add.at(pts, (j, i), w * (g - p))
    np.add.at(n, (i, j), w * g)
    np.add.at(n, (j, i), w * g)
    return pts, n


def fit(records: list[GameRecord], agents: list[str], boot: int = 1000, seed: int = 0,
        prior: float = PRIOR) -> list[dict[str, Any]]:
    """One row per agent, best first: Elo (anchored), bootstrap 95% interval, games and
    score.  The bootstrap resamples the seed-pair units of the whole table with
    replacement (not within each pairing: with one seed pair a pairing, as in a small
    ladder, that would never vary)."""
    units = pair_table(records, agents)
    k = len(agents)
    pts, n = matrices(units, k)
    elo = to_elo(bt_fit(pts, n, prior), agents)
    rng = np.random.default_rng(seed)
    draws = np.empty((boot, k))
    for b in range(boot):
        w = np.bincount(rng.integers(len(units), size=len(units)), minlength=len(units))
        draws[b] = to_elo(bt_fit(*matrices(units, k, w.astype(float)), prior), agents)
    lo, hi = (np.percentile(draws, q, axis=0) if boot else elo for q in (2.5, 97.5))
    rows = []
    for a in range(k):
        games, score = n[a].sum(), pts[a].sum()
        rows.append({"agent": agents[a], "elo": float(elo[a]),
                     "ci95": [float(lo[a]), float(hi[a])], "games": int(games),
                     "score": float(score / games) if games else 0.0})
    return sorted(rows, key=lambda r: -r["elo"])


# ---------------------------------------------------------------- the run


def command_line(extra: list[str], games: int, seed0: int) -> str:
    add = "".join(f" --add {s}" for s in extra)
    return f"evenstar ladder --games {games} --seed {seed0}{add}"


def markdown(result: dict[str, Any]) -> str:
    """The ladder table and how it was made."""
    cfg = result["config"]
    lines = ["| rank | agent | Elo | 95% interval | games | score |",
             "| --- | --- | --- | --- | --- | --- |"]
    for k, r in enumerate(result["ratings"], 1):
        lo, hi = r["ci95"]
        lines.append(f"| {k} | `{r['agent']}` | {r['elo']:.0f} | {lo:.0f} – {hi:.0f} | "
                     f"{r['games']} | {r['score']:.0%} |")
    lines += ["", f"Pool version {cfg['pool_version']}; Bradley–Terry by maximum likelihood, "
              f"`{ANCHOR}` anchored at {ANCHOR_ELO:.0f}, {cfg['prior']:g} virtual draw per "
              f"pairing, {cfg['bootstrap']} bootstrap refits over seed pairs.  "
              f"{cfg['games_per_pairing']} seed pair(s) per pairing (seeds {cfg['seed0']}–"
              f"{cfg['seed0'] + cfg['games_per_pairing'] - 1}, both sides each): "
              f"{cfg['total_games']} games in all, {cfg['date']}; data fingerprint "
              f"`{cfg['fingerprint']}`.  Reproduce or extend (games already played are "
              "kept):", "", "```bash", cfg["command"], "```"]
    return "\n".join(lines) + "\n"


def figure(result: dict[str, Any]) -> Any:
    """Elo with its 95% interval per agent, best on top (a matplotlib figure)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = result["ratings"][::-1]
    label = max(len(r["agent"]) for r in rows)  # long specs widen the figure, not squeeze it
    fig, ax = plt.subplots(figsize=(max(7.0, 4.5 + 0.07 * label), 0.45 * len(rows) + 1.5),
                           layout="constrained")
    y = np.arange(len(rows))
    elo = np.array([r["elo"] for r in rows])
    err = np.array([[r["elo"] - r["ci95"][0], r["ci95"][1] - r["elo"]] for r in rows]).T
    ax.errorbar(elo, y, xerr=err, fmt="o", capsize=4, color="#4a78d0")
    ax.axvline(ANCHOR_ELO, color="#888", linewidth=0.8)
    ax.set_yticks(y, [r["agent"] for r in rows], fontsize=8)
    ax.set_xlabel(f"Bradley–Terry Elo ({ANCHOR} = {ANCHOR_ELO:.0f}; 95% bootstrap interval)")
    ax.set_title(f"Ladder, pool v{result['config']['pool_version']}, "
                 f"{result['config']['total_games']} games")
    return fig


def plot(result: dict[str, Any], path: Path) -> None:
    """:func:`figure`, written to `path`."""
    import matplotlib.pyplot as plt

    fig = figure(result)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def ladder(out: Path, games: int = 2, extra: list[str] | None = None, seed0: int = 90_000,
           workers: int = 2, boot: int = 1000, pool: tuple[str, ...] = POOL,
           readme: Path | None = None, progress: bool = True, backend: str = "process",
           ray_address: str | None = None) -> dict[str, Any]:
    """Play (or complete) the ladder's round robin into `out`, fit it, write
    ``ladder.json``, ``ladder.md``, ``ladder.png`` and the arena outputs; optionally put
    the table into `readme`.  A folder with games of agents not in the pool and `extra`
    (or of other seeds) is refused (ValueError, one line)."""
    from experiments.balance import play_stamp

    extra = [s for s in (extra or []) if s not in pool]
    agents = [*pool, *dict.fromkeys(extra)]
    check_settings(agents, games, workers, backend, seed0)
    if boot < 0:
        raise ValueError(f"bootstrap must be ≥ 0, got {boot}")
    if readme is not None and not readme.is_file():
        raise ValueError(f"{readme}: no such README file")
    ensure_output_dir(out)
    with folder_lock(out):
        jobs = jobs_for(agents, games, seed0)
        known = resume(out, jobs, agents)
        reused = len(known)
        records = play_into(out, jobs, known, workers, progress, backend, ray_address)
        summary = summarise(records)
        result = {"ratings": fit(records, agents, boot),
                  "config": {"pool_version": POOL_VERSION, "pool": list(pool), "extra": extra,
                             "games_per_pairing": games, "seed0": seed0, "prior": PRIOR,
                             "bootstrap": boot, "total_games": len(records),
                             "played": len(jobs) - reused, "reused": reused,
                             "date": datetime.now(UTC).strftime("%Y-%m-%d"),
                             "fingerprint": play_stamp().split()[0],
                             "stamps": json.loads((out / "stamps.json").read_text()),
                             "command": command_line(extra, games, seed0)}}
        summary["config"] = result["config"]
        write_outputs(records, summary, out)
        table = markdown(result)
        write_text_atomic(out / "ladder.json", json.dumps(result, indent=2) + "\n")
        write_text_atomic(out / "ladder.md", "# Ladder\n\n" + table)
        plot(result, out / "ladder.png")
        if readme is not None:
            update_readme(readme, table, BEGIN, END, "Ladder")
    return result
