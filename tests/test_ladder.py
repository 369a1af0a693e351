"""The ladder (issue 35): Bradley–Terry Elo of a fixed pool, anchored, incremental."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agents.specs import CHECKPOINTS
from experiments import arena, ladder
from experiments.ladder import ELO_PER_NAT, POOL, bt_fit, fit, matrices, to_elo
from experiments.selfplay import GameRecord


def expected(theta: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(theta[None, :] - theta[:, None]))


def test_fit_recovers_known_ratings_from_expected_results() -> None:
    """Points equal to their expectation under known strengths: the maximum likelihood
    is exactly those strengths (without a prior)."""
    theta = np.array([-1.2, 0.0, 0.4, 1.5])
    n = np.full((4, 4), 100.0) - 100.0 * np.eye(4)
    est = bt_fit(expected(theta) * n, n, prior=0.0)
    assert est == pytest.approx(theta - theta.mean(), abs=1e-6)


def test_fit_recovers_known_ratings_from_sampled_games() -> None:
    """Games drawn from known Elo (1100, 1500, 1700, 1900), 400 per pairing: the fit is
    within 60 Elo of each (the virtual draws shrink the extremes a little), with a
    bootstrap interval about it of under 150 Elo."""
    rng = np.random.default_rng(3)
    true = {"random": 1100.0, "heuristic": 1500.0, "x": 1700.0, "y": 1900.0}
    agents = list(true)
    records = []
    for a in agents:
        for b in agents:
            if a < b:
                p = 1 / (1 + 10 ** ((true[b] - true[a]) / 400))
                for seed in range(200):
                    for usa, china in ((a, b), (b, a)):
                        a_wins = rng.random() < p
                        winner = ("usa" if usa == a else "china") if a_wins else \
                            ("china" if usa == a else "usa")
                        records.append(GameRecord(seed, {"usa": usa, "china": china},
                                                  winner=winner))
    rows = {r["agent"]: r for r in fit(records, agents, boot=200)}
    assert rows["heuristic"]["elo"] == pytest.approx(1500.0)
    for a, elo in true.items():
        assert rows[a]["elo"] == pytest.approx(elo, abs=60)
        lo, hi = rows[a]["ci95"]
        if a != "heuristic":
            assert lo < rows[a]["elo"] < hi and hi - lo < 150
    assert [r["agent"] for r in fit(records, agents, boot=0)] == ["y", "x", "heuristic",
                                                                  "random"]


def test_a_perfect_record_keeps_a_finite_rating_with_the_prior() -> None:
    pts = np.array([[0.0, 4.0], [0.0, 0.0]])
    n = np.array([[0.0, 4.0], [4.0, 0.0]])
    theta = bt_fit(pts, n)
    # 4.5 of 5 (one virtual draw): γ0/γ1 = 9, so θ0 − θ1 = ln 9
    assert theta[0] - theta[1] == pytest.approx(np.log(9.0))
    assert to_elo(theta, ["a", "heuristic"])[0] == pytest.approx(1500 + ELO_PER_NAT
                                                                  * np.log(9.0))


@settings(max_examples=30, deadline=None)
@given(st.lists(st.floats(-3, 3), min_size=2, max_size=6),
       st.integers(1, 50))
def test_fit_of_expected_points_inverts_for_any_strengths(theta: list[float], m: int) -> None:
    t = np.array(theta)
    k = len(t)
    n = np.full((k, k), float(m)) - m * np.eye(k)
    assert bt_fit(expected(t) * n, n, prior=0.0) == pytest.approx(t - t.mean(), abs=1e-5)


def test_units_pair_both_games_of_a_seed() -> None:
    recs = [GameRecord(0, {"usa": "a", "china": "b"}, winner="usa"),
            GameRecord(0, {"usa": "b", "china": "a"}, winner=None),
            GameRecord(1, {"usa": "b", "china": "a"}, winner="usa")]
    units = ladder.pair_table(recs, ["a", "b"])
    assert sorted(units) == [(0, 1, 0.0, 1), (0, 1, 1.5, 2)]
    pts, n = matrices(units, 2)
    assert pts.tolist() == [[0, 1.5], [1.5, 0]] and n.tolist() == [[0, 3], [3, 0]]


def test_every_shipped_checkpoint_is_in_the_pool() -> None:
    assert "learned" in POOL and (CHECKPOINTS / "learned" / "weights.pt").is_file()
    shipped = {p.stem for p in CHECKPOINTS.glob("*.pt")}
    assert shipped == {"ppo_selfplay"} and "ppo" in POOL  # ppo's default checkpoint
    assert {d.name for d in CHECKPOINTS.iterdir() if d.is_dir()} == {"learned"}


def test_incremental_ladder_plays_only_the_new_agents_games(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    readme = tmp_path / "README.md"
    readme.write_text("# P\n")
    played: list[int] = []
    run_games = arena.run_games

    def counting(jobs, *a, **kw):
        played.append(len(jobs))
        return run_games(jobs, *a, **kw)

    monkeypatch.setattr(arena, "run_games", counting)
    out = tmp_path / "l"
    pool = ("random", "heuristic")
    first = ladder.ladder(out, games=1, pool=pool, workers=1, boot=20, progress=False,
                          readme=readme)
    assert played == [2] and first["config"]["played"] == 2
    again = ladder.ladder(out, games=1, pool=pool, workers=1, boot=20, progress=False)
    assert played == [2, 0] and again["ratings"] == first["ratings"]
    third = ladder.ladder(out, games=1, pool=pool, extra=["cautious"], workers=1, boot=20,
                          progress=False)
    assert played == [2, 0, 4]  # cautious vs random and vs heuristic, both sides
    assert third["config"]["reused"] == 2 and third["config"]["total_games"] == 6
    assert {r["agent"] for r in third["ratings"]} == {"random", "heuristic", "cautious"}
    assert next(r for r in third["ratings"] if r["agent"] == "heuristic")["elo"] == 1500.0
    doc = json.loads((out / "ladder.json").read_text())
    assert doc["config"]["pool_version"] == ladder.POOL_VERSION
    assert set(doc["config"]["stamps"]) == {"random", "heuristic", "cautious"}
    assert (out / "ladder.png").stat().st_size > 0
    assert "<!-- ladder:begin -->" in readme.read_text() and "`random`" in readme.read_text()
    with pytest.raises(ValueError, match="cautious"):  # dropped agent: refused, kept
        ladder.ladder(out, games=1, pool=pool, workers=1, boot=0, progress=False)


def test_one_seed_pair_a_pairing_still_has_intervals() -> None:
    """A small ladder (one seed pair a pairing) gets intervals that reflect how little it
    rests on: the bootstrap resamples the table's pairs, not each pairing's single one."""
    def pair(a: str, b: str, a_wins: int) -> list[GameRecord]:
        w = ["usa", "china"] if a_wins == 2 else ["china", "usa"] if a_wins == 0 else \
            ["usa", "usa"]
        return [GameRecord(0, {"usa": a, "china": b}, winner=w[0]),
                GameRecord(0, {"usa": b, "china": a}, winner=w[1])]

    recs = pair("x", "heuristic", 2) + pair("x", "random", 2) + pair("heuristic", "random", 1)
    rows = {r["agent"]: r for r in fit(recs, ["x", "heuristic", "random"], boot=300)}
    for a in ("x", "random"):
        lo, hi = rows[a]["ci95"]
        assert lo <= rows[a]["elo"] <= hi and hi - lo > 100


def test_the_plot_keeps_long_agent_specs_and_its_axis_label_inside_the_figure() -> None:
    """A searcher's spec can be 50 characters long: the figure widens for it, and nothing
    (tick labels, axis label, title) is cut at the edges."""
    import matplotlib.pyplot as plt

    names = ["alphaism:64,root=halving,playout=60,sim=network", "heuristic", "random"]
    result = {"ratings": [{"agent": n, "elo": 1500.0 + 100 * k, "ci95": [1400.0 + 100 * k,
                                                                            1600.0 + 100 * k]}
                          for k, n in enumerate(names)],
              "config": {"pool_version": 1, "total_games": 6}}
    fig = ladder.figure(result)
    fig.canvas.draw()
    box = fig.bbox
    ax = fig.axes[0]
    for text in [*ax.get_yticklabels(), ax.xaxis.label, ax.title]:
        ext = text.get_window_extent()
        assert box.x0 - 1 <= ext.x0 and ext.x1 <= box.x1 + 1, text.get_text()
    plt.close(fig)
