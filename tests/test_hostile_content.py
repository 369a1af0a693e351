"""Content that passes the schema but would break every game is refused at load time
(issue 15, "Corrupted or stuck games"): a ContentError naming file, entry and field."""

from __future__ import annotations

from pathlib import Path

import pytest

from evenstar_env.content import ContentError, load_variant
from evenstar_env.content.loader import RawContent


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, old
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


@pytest.mark.parametrize("file,old,new,message", [
    ("rules.toml", "start_social = { usa = 8", "start_social = { usa = 50",
     r"rules.toml: field 'start_social.usa': 50 is outside 2..10"),
    ("rules.toml", "start_economy = { usa = 8, china = 6 }", "start_economy = { usa = 8 }",
     r"rules.toml: field 'start_economy.china': missing"),
    ("rules.toml", "start_reserves = { usa = 2", "start_reserves = { usa = -3",
     r"rules.toml: field 'start_reserves.usa': -3 is outside 0.."),
    ("rules.toml", "start_diplomacy = 3", "start_diplomacy = 1",
     r"rules.toml: field 'start_diplomacy': 1 is outside 2..3"),
    ("rules.toml", ", counter = 1 }", " }",
     r"rules.toml: field 'modifier_costs'.*missing \['counter'\]"),
    ("rules.toml", "zero = 0,", "zero = -1,", r"rules.toml: field 'modifier_costs.zero'"),
    ("rules.toml", "{ 2 = 3,", "{", r"rules.toml: field 'improve_success.2'"),
    ("rules.toml", "[[8, 11, 1]", "[[8, 40, 1]", r"rules.toml: field 'improve_attempts\[0\]'"),
    ("rules.toml", "mid = 4", "mid = 40", r"rules.toml: field 'era_turns'"),
    ("rules.toml", "[4, 5, 6, 7, 8]", "[4, 5, 6, 7, 80]",
     r"rules.toml: field 'spare_scoring_turns\[4\]'"),
    ("rules.toml", "action_rounds = 7", "action_rounds = 0", r"field 'action_rounds'"),
    ("tracks.toml", "lo = 8\nhi = 9", "lo = 8\nhi = 8",
     r"tracks.toml: social: level 9 is in no zone \(a gap\)"),
    ("tracks.toml", "lo = 2\nhi = 3", "lo = 2\nhi = 4",
     r"tracks.toml: social: level 4 is in 2 zones"),
    ("tracks.toml", "lo = 10\nhi = 11", "lo = 10\nhi = 12",
     r"tracks.toml: economy\[0\] \('.*'\): field 'lo'/'hi': 10..12 is not within 1..11"),
    ("tracks.toml", "price = 1", "price = -1", r"tracks.toml: tech_usa\[0\].*field 'price'"),
])
def test_content_that_would_break_every_game_is_refused(data_copy, file, old, new,
                                                        message) -> None:
    _edit(data_copy / file, old, new)
    with pytest.raises(ContentError, match=message):
        RawContent(data_copy)


def test_a_renamed_rule_country_is_named(data_copy: Path) -> None:
    """Ukraine renamed everywhere in the data: the rules still need it (8.1.5)."""
    for f in data_copy.glob("*.toml"):
        f.write_text(f.read_text(encoding="utf-8").replace('"Ukraine"', '"Ukrayina"'),
                     encoding="utf-8")
    with pytest.raises(ContentError, match=r"map.toml: countries: .*\['Ukraine'\]"):
        RawContent(data_copy)


def test_a_card_naming_a_missing_country_is_named(data_copy: Path) -> None:
    _edit(data_copy / "map.toml", 'name = "Syria"', 'name = "Syrie"')
    with pytest.raises(ContentError, match="unknown country 'Syria'"):
        RawContent(data_copy)


def test_binary_file_is_a_content_error(data_copy: Path) -> None:
    (data_copy / "rules.toml").write_bytes(b"\x89PNG\r\n\x1a\n\x00\xff\xfe")
    with pytest.raises(ContentError, match="rules.toml: not UTF-8 text"):
        RawContent(data_copy)


def test_file_where_a_folder_is_expected(tmp_path: Path, data_copy: Path) -> None:
    (tmp_path / "file").write_text("x")
    with pytest.raises(ContentError, match="a file where the content folder is expected"):
        RawContent(tmp_path / "file")
    with pytest.raises(ContentError, match="nothing where the content folder"):
        RawContent(tmp_path / "nowhere")
    (data_copy / "map.toml").unlink()
    (data_copy / "map.toml").mkdir()
    with pytest.raises(ContentError, match="map.toml: a folder where a file is expected"):
        RawContent(data_copy)


@pytest.mark.parametrize("variant,message", [
    ({"name": 3}, r"variant: name: .*valid string"),
    ("tough", r"variant: .*valid dictionary"),
    ({"name": "v", "colour": "red"}, r"variant: colour: .*Extra inputs"),
    ({"name": "v", "rules": {"start_social": {"usa": 50}}},
     r"rules.toml \(variant 'v'\): field 'start_social.usa'"),
    ({"name": "v", "hand_sizes": {"Stable": -2}}, r"tracks.toml \(variant 'v'\).*field 'hand'"),
    ({"name": "v", "bid": {"side": "usa", "countries": {"Atlantis": 1}}},
     r"variant 'v': field 'bid.countries': unknown country 'Atlantis'"),
])
def test_bad_variant_dict_is_a_content_error(variant, message) -> None:
    with pytest.raises(ContentError, match=message):
        load_variant(variant)
