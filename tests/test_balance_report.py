"""Balance reports state their conclusion (issue 34): differences in percentage points
with intervals, one sentence per variant, how many more games would settle it."""

from __future__ import annotations

import math

from hypothesis import given
from hypothesis import strategies as st

from experiments.balance_report import (
    card_rows,
    conclusion,
    more_games,
    palette,
    signed,
    source_label,
)


def _variant(rate: float, lo: float, hi: float, mean: float, dlo: float, dhi: float,
             n: int = 200) -> dict:
    return {"games": n, "usa": {"rate": rate, "ci95": [lo, hi]},
            "diff_vs_baseline": {"n": n, "mean": mean, "ci95": [dlo, dhi]}}


def test_a_real_difference_is_said_in_points() -> None:
    v = _variant(0.515, 0.446, 0.583, -0.135, -0.217, -0.053)
    assert conclusion("china reserves +4", v, "baseline") == (
        "china reserves +4: US wins 51.5% [44.6, 58.3] in 200 games, −13.5 points "
        "[−21.7, −5.3] vs baseline (200 paired games) — a real difference.")


def test_an_unsettled_difference_says_how_many_more_games() -> None:
    v = _variant(0.48, 0.41, 0.55, 0.02, -0.06, 0.10)
    text = conclusion("us bid 2", v, "baseline")
    assert "+2.0 points [−6.0, +10.0]" in text
    assert "not distinguishable from 0; about 312 more paired games would give ±5 points" \
        in text  # 200 * (0.08 / 0.05)**2 = 512 in all
    assert conclusion("baseline", v, "baseline").endswith("(the baseline).")


@given(st.integers(2, 5000), st.floats(0.001, 1.0))
def test_more_games_reach_the_target_width(n: int, half: float) -> None:
    d = {"n": n, "mean": 0.0, "ci95": [-half, half]}
    more = more_games(d)
    assert more is not None and more >= 0
    # the half-width shrinks as 1/sqrt(n): with n + more games it is at most 5 points
    assert half * math.sqrt(n / (n + more)) <= 0.05 + 1e-9
    if more > 0:
        assert half * math.sqrt(n / (n + more - 1)) > 0.05 - 1e-9


def test_signed_points_use_a_true_minus() -> None:
    assert signed(-0.135) == "−13.5" and signed(0.04) == "+4.0"


def test_palette_has_a_colour_per_source() -> None:
    assert len(set(palette(40))) == 40
    assert source_label("final_social") == "final social"


def test_card_rows_name_every_card_with_an_interval() -> None:
    summary = {"config": {"baseline": "b"},
               "variants": {"b": {"usa": {"rate": 0.5}, "china": {"rate": 0.4}}},
               "cards": {"nafta": {"name": "NAFTA", "side": "usa",
                                   "event": {"games": 10, "owner_win_rate": 0.7,
                                             "ci95": [0.4, 1.0]}},
                         "x": {"name": "X", "side": "china", "ops": {"games": 3,
                                                                      "owner_win_rate": 0}}}}
    rows = card_rows(summary)
    assert [r["card"] for r in rows] == ["NAFTA"]
    assert math.isclose(rows[0]["impact"], 0.25) and math.isclose(rows[0]["low"], -0.05)
