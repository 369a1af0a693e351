"""The skill curve (issue 18): paired self-play per agent, rows added one command at a time,
and docs/balance.md showing the stored rows."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from experiments import skill_curve as sc


def _doc(tmp_path: Path) -> Path:
    doc = tmp_path / "balance.md"
    doc.write_text(f"# Balance\n\nbefore\n\n{sc.BEGIN}\nold table\n{sc.END}\n\nafter\n",
                   encoding="utf-8")
    return doc


def test_each_run_adds_or_replaces_one_row_and_redraws_table_and_plot(tmp_path: Path) -> None:
    paths = {"runs": tmp_path / "runs", "data": tmp_path / "curve.json",
             "doc": _doc(tmp_path), "png": tmp_path / "curve.png"}
    sc.run(["cautious"], 4, workers=1, **paths)
    rows = sc.run(["random"], 3, workers=1, **paths)  # added before cautious, cautious kept
    assert [(r["spec"], r["games"]) for r in rows] == [("random", 3), ("cautious", 4)]
    rows = sc.run(["cautious"], 6, workers=1, **paths)  # replaced, its 4 games resumed
    assert [(r["spec"], r["games"]) for r in rows] == [("random", 3), ("cautious", 6)]
    assert json.loads(paths["data"].read_text())["rows"] == rows
    text = paths["doc"].read_text(encoding="utf-8")
    assert "old table" not in text and text.startswith("# Balance\n\nbefore\n")
    assert text.endswith(f"{sc.END}\n\nafter\n") and sc.table(rows) in text
    assert paths["png"].read_bytes()[:4] == b"\x89PNG"


def test_every_agent_plays_the_same_seeds(tmp_path: Path) -> None:
    a = sc.selfplay("random", 5, seed0=7, workers=1, runs=tmp_path)
    b = sc.selfplay("cautious", 5, seed0=7, workers=1, runs=tmp_path)
    assert [r["seed"] for r in a] == [r["seed"] for r in b] == list(range(7, 12))
    assert all(r["usa"] == r["china"] == "random" for r in a)


def test_row_counts_wins_and_wilson_interval() -> None:
    recs = [{"seed": s, "winner": w, "end": "final scoring", "turn": 11}
            for s, w in enumerate(["usa"] * 6 + ["china"] * 3 + [None])]
    r = sc.row("x", recs)
    assert (r["games"], r["usa"], r["china"], r["draws"], r["seeds"]) == (10, 6, 3, 1, [0, 9])
    assert r["us_rate"] == 0.6 and r["ci95"][0] < 0.6 < r["ci95"][1]


def test_doc_without_markers_is_an_error(tmp_path: Path) -> None:
    doc = tmp_path / "balance.md"
    doc.write_text("# Balance\n", encoding="utf-8")
    with pytest.raises(ValueError, match="markers"):
        sc.write_doc([], doc)


def test_balance_doc_shows_the_stored_skill_curve() -> None:
    rows = sc.load_rows()
    assert {"random", "cautious", "heuristic"} <= {r["spec"] for r in rows}
    assert sc.table(rows) in sc.DOC.read_text(encoding="utf-8"), (
        "docs/balance.md's skill-curve table is not docs/data/skill_curve.json: rerun "
        "python -m experiments.cli skill-curve")


def test_out_folder_and_content_keep_the_docs_untouched(tmp_path) -> None:
    """`skill-curve --out DIR` writes its rows, table and plot there (issue 34); a curve of
    other content needs --out."""
    from typer.testing import CliRunner

    from experiments import skill_curve as sc
    from experiments.cli import app

    before = sc.DATA.read_bytes(), sc.DOC.read_bytes()
    out = tmp_path / "curve"
    result = CliRunner().invoke(app, ["skill-curve", "random", "--games", "2", "--workers",
                                      "1", "--runs", str(tmp_path / "runs"), "--out",
                                      str(out)])
    assert result.exit_code == 0, result.output
    assert (sc.DATA.read_bytes(), sc.DOC.read_bytes()) == before
    assert "`random` | 2 (0–1)" in (out / "skill_curve.md").read_text(encoding="utf-8")
    assert (out / "skill_curve.png").stat().st_size > 0
    assert [r["spec"] for r in sc.load_rows(out / "skill_curve.json")] == ["random"]
    refused = CliRunner().invoke(app, ["skill-curve", "random", "--content", "shipped"])
    assert refused.exit_code == 2 and "--out" in refused.output
