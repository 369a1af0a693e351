"""Content data lint and loader errors (issue: rules engine, item 2; RULINGS E)."""

from __future__ import annotations

from pathlib import Path

import pytest

from evenstar_env.content import ContentError, load_content
from evenstar_env.content.loader import RawContent

C = load_content()


def test_every_card_has_both_languages_and_a_real_event() -> None:
    for card in C.cards:
        assert card.name and card.zh and card.text and card.text_zh and card.note, card.id
        assert card.effects, card.id
    for h in C.history:
        assert h.name and h.zh and len(h.outcomes) == 4
        for o in h.outcomes:
            assert o.text and o.text_zh


def test_ids_and_names_are_unique() -> None:
    ids = [c.id for c in C.cards] + [h.id for h in C.history]
    assert len(ids) == len(set(ids))
    assert len({c.name for c in C.cards}) == len(C.cards)


def test_early_era_deck_meets_the_engine_issue() -> None:
    early = [c for c in C.cards if c.era == "early" and c.kind == "base"]
    assert len(early) >= 35
    hist = [h for h in C.history if h.era == "early" and h.special is None]
    assert sum(h.side == "usa" for h in hist) >= 4 and sum(h.side == "china" for h in hist) >= 4
    assert {h.special for h in C.history} >= {"turn1", "putin"}
    scoring = {c.name for c in C.cards if c.kind == "scoring"}
    assert len(scoring) == 7 and "Former USSR Scoring" in scoring


def test_map_constraints_of_rulings_e() -> None:
    by = {c.name: c for c in C.countries}
    assert by["Israel"].stability == 4 and by["Iran"].stability == 4
    assert by["Myanmar"].stability == 1 and C.adj_sp[1, C.index["Myanmar"]]
    assert by["India"].stability is None
    assert by["India"].non_realignable and by["Taiwan"].non_realignable
    for bg in ("Ukraine", "Japan", "South Korea", "Taiwan", "North Korea", "India", "Vietnam"):
        assert by[bg].battleground, bg
    assert not by["Australia"].battleground
    assert C.adj_sp[1, C.index["Taiwan"]]
    for n in ("Japan", "South Korea", "Australia"):
        assert not C.adj_sp[1, C.index[n]], n
    assert by["Central Asia"].region == "Asia" and "Former USSR" in by["Central Asia"].subregions
    assert by["Libya"].region == by["Egypt"].region == "Middle East"
    for n in ("Canada", "Turkey", "Georgia/Azerbaijan", "Armenia"):
        assert by[n].region == "Europe", n
    assert C.region_box["Europe"] == (3, 7, 9)
    assert C.adj.any(axis=1).all(), "every country has a neighbour"
    assert (C.adj == C.adj.T).all()


def test_setup_totals_match_rulebook_3_1_and_3_2() -> None:
    setup = C.raw.setup
    assert sum(setup.china.values()) == 13
    assert sum(setup.anti_us.values()) == 24
    assert sum(setup.usa.values()) == 62


def _break(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_bad_field_names_file_entry_and_field(data_copy: Path) -> None:
    _break(data_copy / "cards_early.toml", "ops = ", "ops = 9 #")
    with pytest.raises(ContentError) as err:
        RawContent(data_copy)
    msg = str(err.value)
    assert "cards_early.toml" in msg and "cards[" in msg and "'ops'" in msg


def test_unknown_country_in_an_effect_is_named(data_copy: Path) -> None:
    text = (data_copy / "cards_early.toml").read_text(encoding="utf-8")
    first = text.index('countries = ["') + len('countries = ["')
    (data_copy / "cards_early.toml").write_text(text[:first] + "Atlantis\", \"" + text[first:],
                                                encoding="utf-8")
    with pytest.raises(ContentError, match="cards_early.toml.*unknown country 'Atlantis'"):
        RawContent(data_copy)


def test_unknown_link_endpoint_is_named(data_copy: Path) -> None:
    _break(data_copy / "map.toml", '["USA", "Canada"]', '["USA", "Canadia"]')
    with pytest.raises(ContentError, match=r"map.toml: links\[\d+\]: unknown country 'Canadia'"):
        RawContent(data_copy)


def test_broken_toml_is_reported_with_the_file(data_copy: Path) -> None:
    (data_copy / "rules.toml").write_text("turns = [", encoding="utf-8")
    with pytest.raises(ContentError, match="rules.toml: not valid TOML"):
        RawContent(data_copy)


def test_rarely_playable_notes_sit_on_cards_with_a_prerequisite() -> None:
    """Issue 19: a card whose event is meant to be rarely playable says why in its data."""
    noted = {c.id: c.rarely_playable for c in C.cards if c.rarely_playable is not None}
    assert {"the_surge", "hong_kong_handover", "nunn_lugar"} <= set(noted)
    for card in C.cards:
        if card.id in noted:
            assert card.requires and noted[card.id].strip(), card.id


def test_rarely_playable_note_on_an_always_playable_card_is_rejected(data_copy: Path) -> None:
    _break(data_copy / "cards_early.toml", 'id = "nafta"\n',
           'id = "nafta"\nrarely_playable = "it never comes up"\n')
    with pytest.raises(ContentError, match=r"cards_early.toml: cards\[\d+\] \('nafta'\).*"
                                           r"rarely_playable needs a prerequisite"):
        RawContent(data_copy)


def test_empty_rarely_playable_note_is_rejected(data_copy: Path) -> None:
    _break(data_copy / "cards_mid.toml", 'rarely_playable = "', 'rarely_playable = " " #')
    with pytest.raises(ContentError, match="rarely_playable is empty"):
        RawContent(data_copy)
