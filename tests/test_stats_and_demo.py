"""Wilson intervals on known values, and the demo end to end."""

from __future__ import annotations

import json

import pytest

from experiments import demo
from experiments.stats import wilson


@pytest.mark.parametrize("k,n,lo,hi", [(50, 100, 0.4038, 0.5962), (0, 10, 0.0, 0.2775),
                                       (9, 10, 0.5958, 0.9821)])
def test_wilson_known_values(k: int, n: int, lo: float, hi: float) -> None:
    got = wilson(k, n)
    assert got == pytest.approx((lo, hi), abs=1e-4)


def test_demo_writes_summary_and_plot(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr("sys.argv", ["demo", "--games", "6", "--out", str(tmp_path)])
    demo.main()
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert set(summary) == {"random vs random", "cautious vs cautious", "heuristic vs heuristic"}
    for r in summary.values():
        assert r["usa"]["wins"] + r["china"]["wins"] + r["draw"]["wins"] == r["games"]
    assert summary["random vs random"]["games"] == 6
    assert (tmp_path / "win_rates.png").stat().st_size > 10_000


def test_wilson_bounds_always_bracket_the_rate() -> None:
    for n in range(1, 60):
        for k in (0, n):
            lo, hi = wilson(k, n)
            assert lo <= k / n <= hi
