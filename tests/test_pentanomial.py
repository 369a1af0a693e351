"""Pentanomial statistics of paired seeds (issue 35), against worked examples by hand."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from evenstar_env.content.schema import Variant
from experiments import arena, balance, pentanomial
from experiments.balance import Study, pair_llr, run_study
from experiments.pentanomial import compare, counts_of, elo, gsprt_llr, score_of_elo
from experiments.selfplay import GameRecord


def test_counts_of_pair_points() -> None:
    assert counts_of([0, 0.5, 1, 1, 1.5, 2, 2, 2]) == [1, 1, 2, 1, 3]
    with pytest.raises(ValueError, match="0, 0.5, 1, 1.5 or 2"):
        counts_of([2.5])
    with pytest.raises(ValueError, match="0, 0.5, 1, 1.5 or 2"):
        counts_of([0.3])


def test_mostly_split_pairs_halve_the_variance_and_more() -> None:
    """Ten pairs: one 0, eight split 1-1, one 2.  Pair scores 0, ½ (×8), 1: mean ½,
    variance (¼ + ¼)/10 = 0.05, variance of the mean 0.005.  The same 20 games as
    independent trials: 10 wins, 10 losses, variance ¼, of the mean ¼/20 = 0.0125.
    Ratio 0.4; interval ½ ± 1.96·√0.005 = ±0.1386 vs ±0.2191."""
    pairs = [(0.0, 0.0)] + [(1.0, 0.0)] * 4 + [(0.0, 1.0)] * 4 + [(1.0, 1.0)]
    c = compare(pairs)
    assert c["counts"] == [1, 0, 8, 0, 1] and c["pairs"] == 10
    pent, tri = c["pentanomial"], c["trinomial"]
    assert pent["score"] == tri["score"] == 0.5
    assert pent["variance"] == pytest.approx(0.05)
    assert pent["var_of_mean"] == pytest.approx(0.005)
    assert tri["units"] == 20 and tri["variance"] == pytest.approx(0.25)
    assert tri["var_of_mean"] == pytest.approx(0.0125)
    assert c["variance_ratio"] == pytest.approx(0.4)
    assert pent["ci95"] == pytest.approx([0.5 - 0.138590, 0.5 + 0.138590], abs=1e-5)
    assert tri["ci95"] == pytest.approx([0.5 - 0.219130, 0.5 + 0.219130], abs=1e-5)


def test_draws_count_half_a_point() -> None:
    """Pairs (1, ½), (½, ½), (1, 1), (0, 1): points 1½, 1, 2, 1, counts [0, 0, 2, 1, 1].
    Pair scores ¾, ½, 1, ½: mean 0.6875, variance 0.171875/4 = 0.04296875.  Games: 4
    wins, 3 draws, 1 loss: mean 0.6875, variance 0.96875/8 = 0.12109375."""
    c = compare([(1.0, 0.5), (0.5, 0.5), (1.0, 1.0), (0.0, 1.0)])
    assert c["counts"] == [0, 0, 2, 1, 1]
    assert c["pentanomial"]["score"] == pytest.approx(0.6875)
    assert c["pentanomial"]["variance"] == pytest.approx(0.04296875)
    assert c["trinomial"]["score"] == pytest.approx(0.6875)
    assert c["trinomial"]["variance"] == pytest.approx(0.12109375)
    assert c["variance_ratio"] == pytest.approx((0.04296875 / 4) / (0.12109375 / 8))


def test_gsprt_llr_worked_example() -> None:
    """N = 10 pairs, s = 0.6, σ² = 0.05, H0 0.45, H1 0.55:
    LLR = 10 · 0.1 · (1.2 − 1.0) / (2 · 0.05) = 2.0, inside Wald's ±log 19 = ±2.944."""
    assert gsprt_llr(10, 0.6, 0.05, 0.45, 0.55) == pytest.approx(2.0)
    lo, hi = pentanomial.bounds(0.05, 0.05)
    assert (lo, hi) == pytest.approx((-math.log(19), math.log(19)))
    assert balance.sprt_decision(2.0, 0.05, 0.05) is None
    assert balance.sprt_decision(gsprt_llr(20, 0.6, 0.05, 0.45, 0.55), 0.05, 0.05) == "H1"
    # the same through the counts: pair scores ½ ×8, 1 ×2 → s = 0.6, σ² = 0.04
    assert pair_llr([1.0] * 8 + [2.0] * 2, 0.45, 0.55) == pytest.approx(
        10 * 0.1 * 0.2 / (2 * 0.04), rel=1e-2)  # regularised: within 0.2%


def test_elo_of_a_score() -> None:
    assert elo(0.5) == 0.0
    assert elo(0.75) == pytest.approx(400 * math.log10(3))  # 190.85
    assert elo(0.0) == -math.inf and elo(1.0) == math.inf
    assert pentanomial.pentanomial([0, 0, 0, 0, 3]).as_dict()["elo"] is None  # JSON-safe


@given(st.lists(st.tuples(st.sampled_from([0.0, 0.5, 1.0]), st.sampled_from([0.0, 0.5, 1.0])),
                min_size=1, max_size=40))
def test_both_models_agree_on_the_mean(pairs: list[tuple[float, float]]) -> None:
    """Same games, same mean score; each interval brackets it."""
    c = compare(pairs)
    assert c["pentanomial"]["score"] == pytest.approx(c["trinomial"]["score"])
    for model in ("pentanomial", "trinomial"):
        lo, hi = c[model]["ci95"]
        assert lo <= c[model]["score"] <= hi
    assert sum(c["counts"]) == len(pairs)
    assert score_of_elo(elo(0.3)) == pytest.approx(0.3)


def test_arena_summary_scores_seed_pairs() -> None:
    """A beats B on seed 0 as both sides (2 points), splits seed 1 (1), loses seed 2 as
    China only... seed 2 has one game, left out."""
    def g(seed: int, usa: str, china: str, winner: str | None) -> GameRecord:
        return GameRecord(seed, {"usa": usa, "china": china}, winner=winner)

    recs = [g(0, "A", "B", "usa"), g(0, "B", "A", "china"), g(1, "A", "B", "usa"),
            g(1, "B", "A", "usa"), g(2, "B", "A", "usa")]
    [row] = arena.summarise(recs)["paired"]
    assert (row["agent"], row["opponent"], row["pairs"]) == ("A", "B", 2)
    assert row["counts"] == [0, 0, 1, 0, 1]
    assert row["pentanomial"]["score"] == pytest.approx(0.75)


def _us_wins_as(job, variant, data_dir=None, winner: str = "usa"):
    return {"key": job.key, "variant": job.variant, "seed": job.seed, "usa": job.usa,
            "china": job.china, "winner": winner, "reason": "final scoring: usa",
            "end": "final scoring", "turn": 11, "vp": {"usa": 1, "china": 0},
            "vp_sources": {"usa": {}, "china": {}}, "cards": [], "actions": []}


def test_paired_balance_sprt_is_pentanomial(tmp_path: Path, monkeypatch) -> None:
    """Two agents: the US wins every game, so every seed pair is worth 2 US points; the
    pentanomial SPRT waits for MIN_PAIRS complete pairs, then stops (H1), and the summary
    carries both intervals."""
    monkeypatch.setattr(balance, "play_job", _us_wins_as)
    study = Study([Variant(name="baseline")], usa="random", china="cautious", games=200,
                  workers=1, sprt=True)
    summary = run_study(study, tmp_path, progress=False)
    v = summary["variants"]["baseline"]
    assert v["sprt"]["decision"] == "H1"
    assert v["games"] == 2 * balance.MIN_PAIRS
    sc = v["us_score"]
    assert sc["counts"] == [0, 0, 0, 0, balance.MIN_PAIRS]
    assert sc["pentanomial"]["score"] == sc["trinomial"]["score"] == 1.0
    report = (tmp_path / "report.md").read_text()
    assert "pentanomial [100.0%, 100.0%] over 10 pairs 0-0-0-0-10" in report


def test_split_pairs_keep_the_paired_sprt_going(tmp_path: Path, monkeypatch) -> None:
    """The US wins when `random` plays it and loses otherwise: every pair splits 1-1, so
    the US score is ½ with (regularised) tiny variance: H0 (0.45) and H1 (0.55) are equally
    likely, and the SPRT plays every seed."""
    def split(job, variant, data_dir=None):
        return _us_wins_as(job, variant, winner="usa" if job.usa == "random" else "china")

    monkeypatch.setattr(balance, "play_job", split)
    study = Study([Variant(name="baseline")], usa="random", china="cautious", games=15,
                  workers=1, sprt=True)
    v = run_study(study, tmp_path, progress=False)["variants"]["baseline"]
    assert "sprt" not in v and v["games"] == 30
    assert v["us_score"]["counts"] == [0, 0, 15, 0, 0]
    assert v["us_score"]["variance_ratio"] == 0.0


def test_arena_command_prints_both_intervals(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from experiments.cli import app

    res = CliRunner().invoke(app, ["arena", "random", "cautious", "--games", "2",
                                   "--workers", "1", "--out", str(tmp_path / "a")])
    assert res.exit_code == 0, res.output
    assert "pentanomial" in res.output and "trinomial" in res.output
    [row] = json.loads((tmp_path / "a" / "summary.json").read_text())["paired"]
    assert row["pairs"] == 2 and sum(row["counts"]) == 2


def test_arena_tables_fit_100_columns_unwrapped_off_a_terminal(tmp_path: Path,
                                                              monkeypatch) -> None:
    """Off a terminal (a pipe, a file, a test) the CLI's tables are 100 columns wide, not
    rich's 80: the arena's rows and the paired table's title stay on one line each."""
    import io

    from rich.console import Console
    from typer.testing import CliRunner

    from experiments import cli

    monkeypatch.delenv("COLUMNS", raising=False)
    assert cli._width(io.StringIO()) == cli.TABLE_WIDTH == 100
    monkeypatch.setattr(cli, "console", Console(width=cli._width(io.StringIO())))
    res = CliRunner().invoke(cli.app, ["arena", "random", "cautious", "--games", "2",
                                       "--workers", "1", "--out", str(tmp_path / "a")])
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    assert max(map(len, lines)) <= 100
    assert max(map(len, lines)) > 80  # not wrapped at 80
    assert any("pentanomial (pairs as units)" in line and "Score over seed pairs" in line
               for line in lines)
    [paired] = [line for line in lines if "random" in line and "cautious" in line
                and line.count("%, ") == 2]  # both intervals on the row's one line
    assert "0-½-1-1½-2" in "".join(lines)
