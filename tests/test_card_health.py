"""docs/card_health.md is current: rendered from the stored results of the content the
project ships (issue 19), checked without playing a game."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from evenstar_env.content import DATA_DIR, fingerprint, load_content, play_fingerprint

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

import card_health  # noqa: E402


def test_stored_results_are_from_the_shipped_data() -> None:
    stored = card_health.load_results()
    assert stored.get("fingerprint") == play_fingerprint(load_content()), (
        "docs/data/card_health.json is from other data: run python scripts/card_health.py "
        "--games 200 (and the --ismcts / --confirm runs of docs/balance.md)")


def test_checked_in_card_health_report_is_what_the_stored_results_render_to() -> None:
    text = (ROOT / "docs" / "card_health.md").read_text(encoding="utf-8")
    assert text == card_health.report(load_content(), card_health.load_results()), (
        "docs/card_health.md is stale: run python scripts/card_health.py --render")


def test_stored_report_meets_the_size_issue_19_asks_for() -> None:
    """>= 200 self-play games, and every base card's causal swing from >= 200 paired seeds
    (the full sweep of docs/balance.md, *Card swing*)."""
    stored = card_health.load_results()
    assert stored["heuristic"]["games"] >= 200
    swing = stored["confirm"]["swing"]
    assert set(swing) == {cd.id for cd in load_content().cards if cd.kind == "base"}
    assert min(s["n"] for s in swing.values()) >= 200


def _results(c, stats: dict, screen: dict | None = None, swing: dict | None = None) -> dict:
    return {"fingerprint": play_fingerprint(c),
            "heuristic": {"games": 2, "seeds": [0, 1], "stats": stats, "screen": screen or {}},
            "confirm": {"games": 40, "how": "test", "swing": swing or {}}}


def _rows(text: str) -> dict[str, str]:
    return {line.split(" | ")[0][2:]: line for line in text.splitlines()
            if line.startswith("| ")}


def test_report_flags_empty_rare_and_duplicate_cards() -> None:
    c = load_content()
    a, b = c.cards[0].id, c.cards[1].id
    stats = {"held": {a: 40, b: 40}, "playable": {a: 40, b: 4}, "fired": {a: 10, b: 10},
             "changed": {a: 1, b: 10}}
    rows = _rows(card_health.report(c, _results(c, stats)))
    assert rows[c.cards[0].name].endswith(" empty |")  # 9 of 10 plays changed nothing
    assert rows[c.cards[1].name].endswith(" rare |")  # playable 10% of the time held
    assert card_health.duplicates(c) == []


def test_rarely_playable_note_in_the_card_data_explains_a_rare_event() -> None:
    c = load_content()
    cid = "the_surge"
    stats = {"held": {cid: 40}, "playable": {cid: 4}, "fired": {}, "changed": {}}
    text = card_health.report(c, _results(c, stats))
    name = c.cards[c.card_by_id[cid]].name
    assert _rows(text)[name].endswith(" rare (explained) |")
    assert f"- {name}: {c.cards[c.card_by_id[cid]].rarely_playable}" in text


def test_swing_flags_a_confirmed_card_and_an_unconfirmed_large_screen() -> None:
    c = load_content()
    a, b, d = (cd.id for cd in c.cards[:3])
    stats = {k: {} for k in card_health.STATS}
    # +40 points observational each (interval clear of 0); +20 with an interval across 0
    screen = {a: [50, 40, 50, 20], b: [50, 40, 50, 20], d: [10, 6, 10, 4]}
    swing = {a: {"mean": 0.2, "ci95": [0.1, 0.3], "n": 40}}
    rows = _rows(card_health.report(c, _results(c, stats, screen, swing)))
    assert rows[c.cards[0].name].endswith("| +20 [+10, +30] (40) | swing |")
    assert rows[c.cards[1].name].endswith("| – | screen |")
    assert rows[c.cards[2].name].endswith("| +20 [-23, +63] | – |  |")


def test_screen_needs_games_on_both_sides_of_the_split() -> None:
    assert card_health.screen([9, 9, 100, 50]) is None
    f = card_health.screen([20, 15, 80, 40])
    assert abs(f["mean"] - 0.25) < 1e-12 and f["ci95"][0] < 0.25 < f["ci95"][1]


def test_swing_is_the_owners_gain_from_the_event() -> None:
    """A forbid row says how the US score moves when the event is banned; the owner's swing
    is the opposite for a US card, the same for a China card, the US view for neutral."""
    c = load_content()
    us, cn, ne = (next(cd.id for cd in c.cards if cd.side == s and cd.kind == "base")
                  for s in ("usa", "china", "neutral"))
    d = {"n": 10, "mean": -0.3, "ci95": [-0.5, -0.1]}  # banning it cost the US 30 points
    summary = {"variants": {"baseline": {"diff_vs_baseline": {"n": 10, "mean": 0.0,
                                                              "ci95": [0, 0]}},
                            **{f"forbid {x}": {"diff_vs_baseline": d} for x in (us, cn, ne)}}}
    sw = card_health.swings(c, summary)
    assert sw[us]["mean"] == 0.3 and sw[us]["ci95"] == [0.1, 0.5]
    assert sw[cn]["mean"] == -0.3 and sw[cn]["ci95"] == [-0.5, -0.1]
    assert sw[ne]["mean"] == 0.3 and "baseline" not in sw


def test_measure_replays_a_stored_game_and_counts_its_events() -> None:
    from experiments.balance import Job, play_job

    c = load_content()
    rec = play_job(Job("baseline", 3, "cautious", "cautious"), {"name": "baseline"})
    m = card_health.measure(c, [rec])
    st = m["stats"]
    assert m["games"] == 1 and sum(st["fired"].values()) > 0
    assert all(st["changed"].get(k, 0) <= v for k, v in st["fired"].items())
    assert all(st["playable"].get(k, 0) <= v for k, v in st["held"].items())
    for cid, (n1, w1, n0, w0) in m["screen"].items():  # one game: on one side of the split
        assert (n1, n0) in ((1, 0), (0, 1)) and w1 <= n1 and w0 <= n0
        assert n1 == (st["fired"].get(cid, 0) > 0)


def test_play_fingerprint_changes_with_an_effect_not_with_a_note(tmp_path: Path) -> None:
    """A stale report is caught when only an amount changes (the layout stays the same);
    a text-only change needs a re-render, not new games."""
    shutil.copytree(DATA_DIR, tmp_path / "data")
    p = tmp_path / "data" / "cards_mid.toml"
    text = p.read_text(encoding="utf-8")
    p.write_text(text.replace('{ op = "vp", side = "china", amount = 1 }',
                              '{ op = "vp", side = "china", amount = 2 }', 1), encoding="utf-8")
    a, b = load_content(), load_content(tmp_path / "data")
    assert fingerprint(a) == fingerprint(b)
    assert play_fingerprint(a) != play_fingerprint(b)
    shutil.copytree(DATA_DIR, tmp_path / "text")  # another folder: load_content caches
    q = tmp_path / "text" / "cards_mid.toml"
    q.write_text(text.replace('note = "', 'note = "Revised. ', 1), encoding="utf-8")
    assert play_fingerprint(load_content(tmp_path / "text")) == \
        play_fingerprint(a)


def test_candidates_rank_screens_by_evidence_and_skip_small_ones() -> None:
    c = load_content()
    a, b, d = (cd.id for cd in c.cards[:3])
    measured = {"screen": {a: [12, 10, 12, 4],  # +50 points from 24 games
                           b: [100, 70, 100, 40],  # +30 points from 200 games
                           d: [100, 52, 100, 50]}}  # +2 points: below the screen threshold
    assert card_health.candidates(c, measured, 5) == [b, a]
    assert card_health.candidates(c, measured, 1) == [b]


def test_ismcts_columns_are_labelled_with_their_game_count() -> None:
    c = load_content()
    a = c.cards[0].id
    stats = {"held": {a: 4}, "playable": {a: 3}, "fired": {a: 2}, "changed": {a: 1}}
    res = _results(c, {k: {} for k in card_health.STATS})
    res["ismcts"] = {"spec": "ismcts:10", "games": 6, "seeds": [0, 5], "stats": stats}
    text = card_health.report(c, res)
    assert "**ISMCTS self-play: 6 games only** (`ismcts:10` vs itself, seeds 0–5)" in text
    assert "| ISMCTS playable | ISMCTS events (no change) |" in text
    assert _rows(text)[c.cards[0].name].split(" | ")[7:9] == ["75%", "2 (50%)"]


def test_report_names_its_data_and_flags_events_almost_never_chosen(tmp_path: Path) -> None:
    """Issue 34: the header names the results file it was made from (not always the default
    one) and the content; an event playable at every hold but almost never chosen (Darfur
    Crisis: 1,549 playable holds, 10 events) is flagged `unchosen`."""
    c = load_content()
    a, b = c.cards[0].id, c.cards[1].id
    stats = {"held": {a: 1549, b: 1549}, "playable": {a: 1549, b: 1549},
             "fired": {a: 10, b: 100}, "changed": {a: 10, b: 100}}
    data = tmp_path / "elsewhere.json"
    text = card_health.report(c, _results(c, stats), data)
    assert f"from `{data.resolve()}`" in text.splitlines()[2]
    rows = _rows(text)
    assert rows[c.cards[0].name].endswith(" unchosen |")  # 10 of 1,549: under 1%
    assert not rows[c.cards[1].name].endswith(" unchosen |")  # 100 of 1,549
    mine = load_content(Path(__file__).resolve().parent.parent / "docs/examples/my_deck")
    assert f"on the content `{mine.source}`" in card_health.report(
        mine, _results(mine, stats), data).splitlines()[2]
