"""The browser board's map layout (data/map_layout.toml): complete, inside, not overlapping,
and kept out of the rules fingerprints."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from evenstar_env.content import fingerprint, load_content, play_fingerprint
from evenstar_env.content.compiled import Content
from evenstar_env.content.layout import layout_json
from evenstar_env.content.loader import ContentError, RawContent

LAYOUT = "map_layout.toml"


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, old
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def _position(text: str, name: str) -> re.Match:
    m = re.search(re.escape(f'"{name}" = ') + r"\{ x = (\d+), y = (\d+) \}", text)
    assert m, name
    return m


def test_every_country_and_superpower_has_a_box_on_the_canvas() -> None:
    raw = load_content().raw
    lay = layout_json(raw)
    assert set(lay["countries"]) == {c.name for c in raw.map.countries}
    assert len(lay["countries"]) == 87
    assert set(lay["superpowers"]) == {"USA", "China"}
    w, h = lay["box"]
    for p in lay["countries"].values():
        assert w / 2 <= p["x"] <= lay["width"] - w / 2 and h / 2 <= p["y"] <= lay["height"] - h / 2
    assert {r["name"] for r in lay["regions"]} | {s["name"] for s in lay["subregions"]} \
        == set(lay["labels"])


def test_moving_a_box_changes_neither_fingerprint(data_copy: Path) -> None:
    base = load_content()
    text = (data_copy / LAYOUT).read_text(encoding="utf-8")
    m = _position(text, "New Zealand")
    (data_copy / LAYOUT).write_text(
        text[:m.start()] + '"New Zealand" = { x = 1700, y = 1000 }' + text[m.end():],
        encoding="utf-8")
    moved = Content(RawContent(data_copy))
    assert moved.raw.layout.countries["New Zealand"].x == 1700
    assert fingerprint(moved) == fingerprint(base)
    assert play_fingerprint(moved) == play_fingerprint(base)


@pytest.mark.parametrize("old, new, message", [
    ('"Chile" = { x = 120, y = 920 }\n', "",
     r"map_layout.toml: \[countries\]: no position for 'Chile'"),
    ('"Chile" =', '"Chili" =', r"\[countries\]: unknown name 'Chili'"),
    ('"Chile" = { x = 120, y = 920 }', '"Chile" = { x = 30, y = 920 }',
     r"'Chile': its box .* is outside the 1800x1080 canvas"),
    ('"Chile" = { x = 120, y = 920 }', '"Chile" = { x = 230, y = 980 }',
     r"the boxes of '(Chile|Argentina)' and '(Chile|Argentina)' overlap"),
    ('China = {', 'Chine = {', r"\[superpowers\]: unknown name 'Chine'"),
    ('"Former USSR" = { x = 1040, y = 22 }\n', "", r"\[labels\]: no position for 'Former USSR'"),
    ('[["USA", "Japan"]]', '[["USA", "Chile"]]', r"wrap_links: 'USA'-'Chile' is not a link"),
    ("width = 1800", "width = -5", r"map_layout.toml: canvas: field 'width'"),
    ("[canvas]", "colour = 3\n[canvas]", r"map_layout.toml: .*colour"),
])
def test_a_broken_layout_is_named(data_copy: Path, old: str, new: str, message: str) -> None:
    _edit(data_copy / LAYOUT, old, new)
    with pytest.raises(ContentError, match=message):
        RawContent(data_copy)


def test_a_folder_without_its_own_layout_is_drawn_with_the_shipped_one(data_copy: Path) -> None:
    """A content folder or overlay need not carry a layout; the shipped layout is then
    used, and still checked against that folder's map."""
    (data_copy / LAYOUT).unlink()
    assert RawContent(data_copy).layout == load_content().raw.layout


def test_layout_json_lists_every_map_link() -> None:
    raw = load_content().raw
    lay = layout_json(raw)
    assert len(lay["links"]) == len(raw.map.links)
    assert ["USA", "Japan"] in lay["wrap_links"]
