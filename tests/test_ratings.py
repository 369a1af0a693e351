"""Ratings: a round robin on paired seeds rated with openskill (issue 18: a ratings table
of every agent)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from experiments import arena, ratings
from experiments.cli import app
from experiments.selfplay import GameRecord


def rec(seed: int, usa: str, china: str, winner: str | None) -> GameRecord:
    return GameRecord(seed, {"usa": usa, "china": china}, winner=winner)


def test_a_strict_order_of_strength_gives_that_order_of_ratings() -> None:
    """A always beats B and C, B always beats C, on both sides: ordinal A > B > C, and
    every sigma shrinks from openskill's prior 25/3."""
    games = []
    for seed in range(6):
        for strong, weak in (("A", "B"), ("A", "C"), ("B", "C")):
            games += [rec(seed, strong, weak, "usa"), rec(seed, weak, strong, "china")]
    rows = ratings.rate(games, ["C", "B", "A"])
    assert [r["agent"] for r in rows] == ["A", "B", "C"]
    assert rows[0]["ordinal"] > rows[1]["ordinal"] > rows[2]["ordinal"]
    assert all(r["sigma"] < 25 / 3 and r["games"] == 24 for r in rows)
    assert (rows[0]["wins"], rows[2]["losses"]) == (24, 24)
    pw = ratings.pairwise(games, ["A", "B", "C"])
    assert pw["A"]["B"] == [12, 12] and pw["B"]["A"] == [0, 12] and pw["B"]["C"] == [12, 12]


def test_tiny_round_robin_writes_tables_keeps_played_games_and_updates_the_readme(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    readme = tmp_path / "README.md"
    readme.write_text("# Project\n\nText.\n")
    out = tmp_path / "r"
    played: list = []
    run_games = arena.run_games

    def counting(jobs, *a, **kw):
        played.append(len(jobs))
        return run_games(jobs, *a, **kw)

    monkeypatch.setattr(arena, "run_games", counting)
    first = ratings.round_robin(["random", "cautious"], 2, out, workers=1, seed0=7,
                                readme=readme, progress=False)
    assert played == [4] and first["config"]["reused"] == 0
    assert {r["agent"] for r in first["ratings"]} == {"random", "cautious"}
    assert sum(r["games"] for r in first["ratings"]) == 8
    doc = json.loads((out / "ratings.json").read_text())
    assert doc["ratings"] == first["ratings"]
    md = (out / "ratings.md").read_text()
    assert "`random`" in md and "--games 2 --seed 7" in md
    text = readme.read_text()
    assert text.startswith("# Project\n\nText.\n") and "## Ratings" in text
    assert text.count(ratings.BEGIN) == 1 and "`cautious`" in text

    # Adding an agent plays only its pairings; the README's table is replaced, not added.
    second = ratings.round_robin(["random", "cautious", "heuristic"], 2, out, workers=1,
                                 seed0=7, readme=readme, progress=False)
    assert played == [4, 8] and second["config"]["reused"] == 4
    assert sum(r["games"] for r in second["ratings"]) == 24
    text = readme.read_text()
    assert text.count(ratings.BEGIN) == 1 and text.count("## Ratings") == 1
    assert "`heuristic`" in text
    games = [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]
    assert len(games) == 12


def test_games_of_changed_weights_or_data_are_not_reused(tmp_path: Path) -> None:
    """A network agent's kept games were played by its weights then: new weights under the
    same spec, or a folder without stamps, are refused before any game is played; adding
    another agent to a stamped folder is not."""
    from agents.networks import NetConfig, build_network, save_checkpoint

    net_cfg = NetConfig.for_content(hidden=(8,))
    save_checkpoint(tmp_path / "net", build_network(net_cfg), net_cfg, {})
    specs = ["random", f"learned:{tmp_path / 'net'}"]
    out = tmp_path / "r"
    ratings.round_robin(specs, 1, out, workers=1, progress=False)
    again = ratings.round_robin([*specs, "cautious"], 1, out, workers=1, progress=False)
    assert again["config"]["reused"] == 2
    save_checkpoint(tmp_path / "net", build_network(net_cfg), net_cfg, {})  # new weights
    with pytest.raises(ValueError, match=f"games of learned:{tmp_path / 'net'} played on "
                                         "other data or network weights"):
        ratings.round_robin(specs, 1, out, workers=1, progress=False)
    (out / ratings.STAMPS).unlink()
    with pytest.raises(ValueError, match="before stamps were kept"):
        ratings.round_robin(["random", "cautious"], 1, out, workers=1, progress=False)


def test_cli_refuses_a_repeated_agent_and_a_missing_readme(tmp_path: Path) -> None:
    def run(*args: str) -> tuple[int, str]:
        res = CliRunner().invoke(app, ["ratings", *args, "--out", str(tmp_path)])
        return res.exit_code, " ".join(res.output.replace("│", " ").split())

    code, text = run("random", "random")
    assert code == 2 and "two different agents" in text
    code, text = run("random", "cautious", "--readme", "nope.md")
    assert code == 2 and "nope.md: no such file" in text
    assert not (tmp_path / "games.jsonl").exists()
