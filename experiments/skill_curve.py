"""The skill curve: the US win rate under the shipped rules in self-play at each skill level.

Each agent spec plays itself on the same seeds (``seed0 .. seed0 + games - 1``, paired
across levels: every level sees the same dice and decks), through the balance-study
runner, so its games are stored in ``RUNS/<spec>/games.jsonl`` and a run resumes
without replaying them.  Each run replaces that spec's row in ``docs/data/
skill_curve.json`` (the other rows are kept) and redraws the table in docs/balance.md
(between the ``skill-curve`` markers) and ``docs/img/balance/skill_curve.png``:

    python -m experiments.cli skill-curve random cautious --games 400
    python -m experiments.cli skill-curve learned --games 400   # adds one row
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from evenstar_env.content.schema import Variant
from experiments.balance import Study, read_games, run_study
from experiments.files import write_text_atomic
from experiments.stats import wilson

ROOT = Path(__file__).resolve().parent.parent
RUNS = Path("results/skill_curve")
DATA = ROOT / "docs" / "data" / "skill_curve.json"
PLOT = ROOT / "docs" / "img" / "balance" / "skill_curve.png"
DOC = ROOT / "docs" / "balance.md"
# The order of the curve: the kinds of agent from the weakest (the spec before any ':').
LEVELS = ("random", "cautious", "heuristic", "ismcts", "ppo", "learned", "alphaism")
BEGIN, END = "<!-- skill-curve:begin -->", "<!-- skill-curve:end -->"


def run_dir(runs: Path, spec: str) -> Path:
    """The folder of one spec's self-play games (a spec may hold ':' and '/')."""
    return runs / re.sub(r"[^A-Za-z0-9_.-]+", "_", spec)


def selfplay(spec: str, games: int, seed0: int = 0, workers: int = 2, runs: Path = RUNS,
             progress: bool = True, content: str | None = None) -> list[dict]:
    """`spec` against itself on seeds seed0.. under the shipped rules, or on the `content`
    folder or overlay (played or resumed); the game records of those seeds, in seed order."""
    out = run_dir(runs, spec)
    run_study(Study([Variant(name="baseline", content=content)], usa=spec, china=spec, games=games,
                    seed0=seed0, workers=workers), out, progress=progress)
    want = range(seed0, seed0 + games)
    recs = {r["seed"]: r for r in read_games(out / "games.jsonl")
            if r["variant"] == "baseline" and r["usa"] == spec and r["china"] == spec
            and r["seed"] in want}
    return [recs[s] for s in want]


def row(spec: str, recs: list[dict]) -> dict[str, Any]:
    """One line of the curve: US wins, China wins, draws, the US win rate and its interval."""
    n = len(recs)
    us = sum(r["winner"] == "usa" for r in recs)
    cn = sum(r["winner"] == "china" for r in recs)
    lo, hi = wilson(us, n)
    seeds = sorted(r["seed"] for r in recs)
    return {"spec": spec, "games": n, "seeds": [seeds[0], seeds[-1]] if seeds else [],
            "usa": us, "china": cn, "draws": n - us - cn, "us_rate": us / n if n else 0.0,
            "ci95": [lo, hi], "final_scoring": sum(r["end"] == "final scoring" for r in recs),
            "mean_turn": sum(r["turn"] for r in recs) / n if n else 0.0}


def load_rows(path: Path = DATA) -> list[dict]:
    return json.loads(path.read_text(encoding="utf-8"))["rows"] if path.exists() else []


def store(new: dict, path: Path = DATA) -> list[dict]:
    """Replace the row of the same spec (or add it); the stored rows, weakest kind of
    agent first (LEVELS; other kinds after them, in the order they were added)."""
    rows = load_rows(path)
    at = next((i for i, r in enumerate(rows) if r["spec"] == new["spec"]), None)
    if at is None:
        rows.append(new)
    else:
        rows[at] = new
    kind = [r["spec"].partition(":")[0] for r in rows]
    rows = [rows[i] for i in sorted(range(len(rows)), key=lambda i: (
        LEVELS.index(kind[i]) if kind[i] in LEVELS else len(LEVELS), i))]
    path.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomic(path, json.dumps({"rows": rows}, indent=1) + "\n")
    return rows


def table(rows: list[dict]) -> str:
    """The Markdown table of the curve (generated; docs/balance.md embeds it)."""
    lines = ["| agent (self-play) | games (seeds) | US wins | China wins | draws | "
             "US win rate [95% Wilson CI] | reached final scoring |",
             "| --- | --- | ---: | ---: | ---: | --- | ---: |"]
    for r in rows:
        seeds = f"{r['seeds'][0]}–{r['seeds'][1]}" if r["seeds"] else "–"
        lines.append(f"| `{r['spec']}` | {r['games']} ({seeds}) | {r['usa']} | {r['china']} | "
                     f"{r['draws']} | **{r['us_rate']:.1%}** [{r['ci95'][0]:.1%}, "
                     f"{r['ci95'][1]:.1%}] | {r['final_scoring'] / max(1, r['games']):.0%} |")
    return "\n".join(lines)


def plot(rows: list[dict], path: Path = PLOT, title: str | None = None) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(max(5.0, 1.3 * len(rows) + 1), 3.8))
    x = range(len(rows))
    rates = [r["us_rate"] for r in rows]
    err = [[r["us_rate"] - r["ci95"][0] for r in rows], [r["ci95"][1] - r["us_rate"]
                                                         for r in rows]]
    ax.errorbar(x, rates, yerr=err, fmt="o", capsize=5, color="#2a5bb5")
    ax.axhline(0.5, color="#888", linewidth=0.8, linestyle="--")
    ax.set_xticks(list(x), [f"{r['spec']}\n(n={r['games']})" for r in rows], fontsize=8)
    ax.set_ylim(0, 1)
    ax.set_ylabel("US win rate (95% Wilson interval)")
    ax.set_title(title or "Side balance of the shipped rules by skill level (self-play)")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def write_doc(rows: list[dict], doc: Path = DOC) -> None:
    """Put the table between the markers of docs/balance.md (which must be there)."""
    text = doc.read_text(encoding="utf-8")
    if BEGIN not in text or END not in text:
        raise ValueError(f"{doc}: no {BEGIN} ... {END} markers for the skill-curve table")
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    write_text_atomic(doc, f"{head}{BEGIN}\n{table(rows)}\n{END}{tail}")


def outputs(out: Path | None) -> tuple[Path, Path, Path]:
    """Where a run writes its rows, table and plot: the docs (`out` None) or a folder
    (``skill_curve.json``, ``skill_curve.md`` and ``skill_curve.png`` in `out`)."""
    if out is None:
        return DATA, DOC, PLOT
    return out / "skill_curve.json", out / "skill_curve.md", out / "skill_curve.png"


def run(specs: list[str], games: int, seed0: int = 0, workers: int = 2, runs: Path = RUNS,
        data: Path = DATA, doc: Path = DOC, png: Path = PLOT, content: str | None = None
        ) -> list[dict]:
    """Play (or resume) each spec's self-play games (on `content`, default the shipped
    one); store its row; redraw table and plot.  The table goes between the markers of
    `doc` (docs/balance.md) if it has them, else `doc` is written whole (``--out``)."""
    rows: list[dict] = []
    for spec in specs:
        rows = store(row(spec, selfplay(spec, games, seed0, workers, runs, content=content)),
                     data)
    if doc == DOC or (doc.is_file() and BEGIN in doc.read_text(encoding="utf-8")):
        write_doc(rows, doc)  # the table between the markers
    else:
        doc.parent.mkdir(parents=True, exist_ok=True)
        title = "Skill curve" + (f" on {content}" if content else " of the shipped rules")
        write_text_atomic(doc, f"# {title}\n\n{table(rows)}\n")
    plot(rows, png, title=None if content is None else f"Side balance on {content} by "
                                                          "skill level (self-play)")
    return rows
