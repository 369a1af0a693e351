"""Balance studies (issue: balance studies by self-play)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import advance_to

from evenstar_env import Game
from evenstar_env.content import ContentError, load_variant
from evenstar_env.content.loader import load_variants
from evenstar_env.content.schema import Variant
from experiments import balance
from experiments.balance import Study, run_study, sprt_decision, sprt_llr

BASE = Variant(name="baseline")


def tiny(variants: list[Variant], **kw) -> Study:
    return Study(variants, usa="cautious", china="random", games=2, workers=1, **kw)


@pytest.fixture(scope="module")
def study_dir(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("study")
    variants = [BASE, Variant(name="china reserves +4", rules={"start_reserves": {"china": 6}})]
    run_study(tiny(variants, forbid=["gulf_war"]), out, progress=False)
    return out


def test_tiny_study_produces_every_output(study_dir: Path) -> None:
    for name in ("summary.json", "games.csv", "games.jsonl", "report.md", "win_rates.png",
                 "end_reasons.png", "vp_sources.png", "card_impact.png"):
        assert (study_dir / name).stat().st_size > 0, name
    summary = json.loads((study_dir / "summary.json").read_text())
    assert list(summary["variants"]) == ["baseline", "china reserves +4", "forbid gulf_war"]
    for v in summary["variants"].values():
        assert v["games"] == 4  # 2 seeds, sides swapped (different agents)
        assert {"usa", "china", "draw", "diff_vs_baseline", "end_reasons", "end_turns",
                "vp_sources"} <= set(v)
    assert summary["cards"], "per-card statistics"
    report = (study_dir / "report.md").read_text()
    assert "![win_rates.png](win_rates.png)" in report


def test_common_seeds_make_baseline_vs_itself_exactly_zero(tmp_path: Path) -> None:
    summary = run_study(tiny([BASE, Variant(name="baseline again")]), tmp_path, progress=False)
    d = summary["variants"]["baseline again"]["diff_vs_baseline"]
    assert d["n"] == 4 and d["mean"] == 0.0 and d["ci95"] == [0.0, 0.0]


def test_resume_replays_nothing(study_dir: Path, monkeypatch) -> None:
    before = (study_dir / "games.jsonl").read_text()

    def boom(*args, **kwargs):
        raise AssertionError("a finished game was played again")

    monkeypatch.setattr(balance, "play_job", boom)
    variants = [BASE, Variant(name="china reserves +4", rules={"start_reserves": {"china": 6}})]
    run_study(tiny(variants, forbid=["gulf_war"]), study_dir, progress=False)
    assert (study_dir / "games.jsonl").read_text() == before


def test_interrupted_study_plays_only_the_missing_games(tmp_path: Path) -> None:
    run_study(tiny([BASE]), tmp_path, progress=False)
    lines = (tmp_path / "games.jsonl").read_text().splitlines()
    (tmp_path / "games.jsonl").write_text("\n".join(lines[:2]) + "\n" + lines[2][:30])
    with pytest.warns(balance.ResumeWarning, match="damaged"):
        summary = run_study(tiny([BASE]), tmp_path, progress=False)
    assert summary["variants"]["baseline"]["games"] == 4
    assert len((tmp_path / "games.jsonl").read_text().splitlines()) == 4


def test_a_card_ops_override_shows_up_in_play() -> None:
    content = load_variant(Variant(name="cheap", card_ops={"gulf_war": 1}))
    g = advance_to(Game(0, content=content), "card", "usa")
    hand = [h for h in g.hand("usa") if "Scoring" not in h and h != "Gulf War"][:2]
    g.set_hand("usa", ["Gulf War", *hand])
    g.step(g.action_id("card", "Gulf War"))
    assert g.decision.kind == "mode" and g.decision.context["ops"] == 1


def test_a_banned_event_is_not_offered_and_reserves_change() -> None:
    content = load_variant(Variant(name="b", ban_events=["gulf_war"],
                                   rules={"start_reserves": {"usa": 7}}))
    g = advance_to(Game(0, content=content), "card", "usa")
    g.set_hand("usa", ["Gulf War", "Dayton Agreement"])
    g.step(g.action_id("card", "Gulf War"))
    assert g.action_id("mode", "event") not in g.legal_actions()
    assert Game(0, content=content).reserves["usa"] >= 7 - 6  # started at 7 (spends may follow)
    assert content.rules.start_reserves["usa"] == 7


def test_bid_and_removed_cards_change_the_setup() -> None:
    content = load_variant(Variant(name="bid", bid={"side": "usa", "countries": {"Poland": 2}},
                                   remove_cards=["csto"]))
    g = Game(0, content=content)
    assert g.content.raw.setup.usa["Poland"] == 3
    assert g.state.card_loc[content.card_by_id["csto"]] == 4  # REMOVED


@pytest.mark.parametrize("bad, message", [
    ({"card_ops": {"nope": 2}}, "unknown card id 'nope'"),
    ({"card_ops": {"gulf_war": 7}}, "field 'ops'"),
    ({"rules": {"start_reserve": 3}}, "Extra inputs"),
    ({"bid": {"side": "usa", "countries": {"Atlantis": 1}}}, "unknown country 'Atlantis'"),
    ({"hand_sizes": {"Happy": 3}}, "unknown social zone 'Happy'"),
    ({"tech_prices": [1, 2]}, "needs 8 prices"),
])
def test_bad_overrides_give_clear_errors(bad: dict, message: str) -> None:
    with pytest.raises(ContentError, match=message):
        load_variant(Variant(name="x", **bad))


def test_variant_file_errors_name_the_file_and_entry(tmp_path: Path) -> None:
    path = tmp_path / "v.toml"
    path.write_text('[[variant]]\nname = "a"\ncolour = 1\n')
    with pytest.raises(ContentError, match=r"v.toml: variant\[0\] \('a'\): field 'colour'"):
        load_variants(path)
    assert [v.name for v in load_variants(Path("experiments/variants.toml"))][0] == "baseline"


def test_sprt_stops_on_a_decisive_case() -> None:
    assert sprt_decision(sprt_llr(3, 2, 0.45, 0.55), 0.05, 0.05) is None
    assert sprt_decision(sprt_llr(40, 5, 0.45, 0.55), 0.05, 0.05) == "H1"
    assert sprt_decision(sprt_llr(5, 40, 0.45, 0.55), 0.05, 0.05) == "H0"


def test_sprt_stops_a_decided_variant_early(tmp_path: Path, monkeypatch) -> None:
    """A synthetic study in which the US wins every game stops long before 200 seeds."""
    def us_always_wins(job, variant, data_dir=None):
        return {"key": job.key, "variant": job.variant, "seed": job.seed, "usa": job.usa,
                "china": job.china, "winner": "usa", "reason": "final scoring: usa",
                "end": "final scoring", "turn": 11, "vp": {"usa": 1, "china": 0},
                "vp_sources": {"usa": {}, "china": {}}, "cards": [], "actions": []}

    monkeypatch.setattr(balance, "play_job", us_always_wins)
    study = Study([BASE, Variant(name="other")], usa="random", china="random", games=200,
                  workers=1, sprt=True)
    summary = run_study(study, tmp_path, progress=False)
    for v in summary["variants"].values():
        assert v["sprt"]["decision"] == "H1" and v["sprt"]["meaning"] == "US favoured"
        assert v["games"] < 40


def test_ray_backend_gives_the_same_games(tmp_path: Path) -> None:
    proc = run_study(tiny([BASE]), tmp_path / "p", progress=False)
    ray_study = tiny([BASE], backend="ray")
    ray_run = run_study(ray_study, tmp_path / "r", progress=False)
    assert ray_run["variants"] == proc["variants"]


def test_notebook_reproduces_the_plots_from_a_results_folder(study_dir: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    nb = json.loads(Path("notebooks/balance_study.ipynb").read_text())
    scope = {"RESULTS": study_dir}
    for png in study_dir.glob("*.png"):
        png.unlink()
    for cell in nb["cells"]:
        if cell["cell_type"] == "code":
            exec("".join(cell["source"]), scope)  # noqa: S102  (our own notebook)
    assert len(scope["games"]) == 12 and len(scope["files"]) == 4
    assert all((study_dir / f).stat().st_size > 0 for f in scope["files"])


def test_card_statistics_use_the_owner_side() -> None:
    """A US card China plays for ops counts for the US (its owner); a neutral card for
    whoever played it."""
    recs = [{"winner": "china", "cards": [("gulf_war", "ops", "china"),
                                          ("yugoslav_war", "event", "china")]},
            {"winner": "usa", "cards": [("gulf_war", "event", "usa")]}]
    stats = balance.card_stats(recs)
    rate = {cid: {u: (v["games"], v["owner_win_rate"]) for u, v in by.items()
                  if isinstance(v, dict)} for cid, by in stats.items()}
    assert rate["gulf_war"] == {"ops": (1, 0.0), "event": (1, 1.0)}
    assert rate["yugoslav_war"] == {"event": (1, 1.0)}
    # names for the plots and the card table, and a Wilson interval per usage
    assert stats["gulf_war"]["name"] == "Gulf War" and stats["gulf_war"]["side"] == "usa"
    lo, hi = stats["gulf_war"]["event"]["ci95"]
    assert 0.2 < lo < 1.0 == hi


def test_us_minus_baseline_counts_draws_like_the_us_win_rate() -> None:
    """A draw is "not a US win" in both report columns: with every game paired, the mean
    paired difference equals the difference of the US win rates (issue 16)."""
    def rec(variant: str, seed: int, winner: str | None) -> dict:
        return {"variant": variant, "seed": seed, "usa": "a", "china": "b", "winner": winner,
                "end": "final scoring", "turn": 11, "cards": [],
                "vp_sources": {"usa": {}, "china": {}}}

    study = Study([BASE, Variant(name="other")], usa="a", china="b", games=2)
    records = [rec("baseline", 0, "china"), rec("baseline", 1, "china"),
               rec("other", 0, None), rec("other", 1, "usa")]
    v = balance.summarise(study, records, {})["variants"]
    us_rate_diff = v["other"]["usa"]["rate"] - v["baseline"]["usa"]["rate"]
    assert us_rate_diff == 0.5
    assert v["other"]["diff_vs_baseline"]["mean"] == pytest.approx(us_rate_diff)


def test_balance_help_keeps_the_variant_table_syntax() -> None:
    """Rich markup used to swallow "[[variant]]" in `evenstar balance --help` (issue 16)."""
    from typer.testing import CliRunner

    from experiments.cli import app

    result = CliRunner().invoke(app, ["balance", "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0
    assert "[[variant]] tables" in result.output
