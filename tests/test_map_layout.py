"""The browser board's map layout (data/map_layout.toml): complete, inside, not overlapping,
and kept out of the rules fingerprints."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from evenstar_env.content import fingerprint, load_content, play_fingerprint
from evenstar_env.content.compiled import Content
from evenstar_env.content.layout import NAME_PAD, layout_json, name_fits, name_lines, text_width
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
    d = lay["halo"]
    for p in lay["countries"].values():
        assert w / 2 + d <= p["x"] <= lay["width"] - w / 2 - d
        assert h / 2 + d <= p["y"] <= lay["height"] - h / 2 - d
    assert {r["name"] for r in lay["regions"]} | {s["name"] for s in lay["subregions"]} \
        == set(lay["labels"])


def test_moving_a_box_changes_neither_fingerprint(data_copy: Path) -> None:
    base = load_content()
    text = (data_copy / LAYOUT).read_text(encoding="utf-8")
    m = _position(text, "New Zealand")
    (data_copy / LAYOUT).write_text(
        text[:m.start()] + '"New Zealand" = { x = 1830, y = 900 }' + text[m.end():],
        encoding="utf-8")
    moved = Content(RawContent(data_copy))
    assert moved.raw.layout.countries["New Zealand"].x == 1830
    assert fingerprint(moved) == fingerprint(base)
    assert play_fingerprint(moved) == play_fingerprint(base)


@pytest.mark.parametrize("old, new, message", [
    ('"Chile" = { x = 78, y = 968 }\n', "",
     r"map_layout.toml: \[countries\]: no position for 'Chile'"),
    ('"Chile" =', '"Chili" =', r"\[countries\]: unknown name 'Chili'"),
    # inside the canvas with its outline (halo): a box 5 px off the edge is not
    ('"Chile" = { x = 78, y = 968 }', '"Chile" = { x = 64, y = 968 }',
     r"'Chile': its box with its outline .* is outside the 1920x1150 canvas"),
    ('"Chile" = { x = 78, y = 968 }', '"Chile" = { x = 200, y = 960 }',
     r"the boxes of '(Chile|Argentina)' and '(Chile|Argentina)' overlap"),
    # one region: boxes at least `gap` apart
    ('"Chile" = { x = 78, y = 968 }', '"Chile" = { x = 86, y = 968 }',
     r"the boxes of 'Chile' and 'Argentina' are 8 px apart, under 16"),
    # two regions: their outlines never meet (Georgia/Azerbaijan over Central Asia, as the
    # layout before this check had it)
    ('"Central Asia" = { x = 1370, y = 236 }', '"Central Asia" = { x = 1340, y = 236 }',
     r"the region outlines of 'Georgia/Azerbaijan' and 'Central Asia' are 16 px apart, "
     r"under 38 \(Europe / Asia\)"),
    ('China = { x = 1530, y = 220 }', 'China = { x = 1520, y = 220 }',
     r"the box and outline of 'Central Asia' and 'China' are 16 px apart, under 22"),
    ("[legend]  # top left corner and size of the map's legend\nx = 1010",
     "[legend]\nx = 990", r"\[legend\] covers 'Kenya' or its outline"),
    ('"Asia" = { x = 1900, y = 1130, anchor = "end" }', '"Asia" = { x = 1780, y = 900 }',
     r"\[labels\] 'Asia': 'Asia  3/7/9' is written over 'New Zealand' or its outline"),
    ('"Asia" = { x = 1900, y = 1130, anchor = "end" }', '"Asia" = { x = 1900, y = 1130 }',
     r"\[labels\] 'Asia': 'Asia  3/7/9' at \(1900, 1130\) runs off the canvas"),
    # names: one line, or two split at '/' or a space, in the box (less 8 px)
    ("box = [118, 56]", "box = [96, 56]",
     r"the name '.*' does not fit its 96 px box on one line at 12.5 px nor on two at 11 px"),
    ("name_font = [12.5, 11.0]", "name_font = [12.5, 12.5]",
     r"the name 'Haiti/Dominican Republic' does not fit"),
    ('China = {', 'Chine = {', r"\[superpowers\]: unknown name 'Chine'"),
    ('"Former USSR" = { x = 1110, y = 28, anchor = "middle" }\n', "",
     r"\[labels\]: no position for 'Former USSR'"),
    ('[["USA", "Japan"]]', '[["USA", "Chile"]]', r"wrap_links: 'USA'-'Chile' is not a link"),
    ("width = 1920", "width = -5", r"map_layout.toml: canvas: field 'width'"),
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


def test_every_name_fits_its_box_in_both_languages() -> None:
    """The estimate the check uses, on every name: one line at 12.5 px or two at 11 px
    within the box (less 8 px); the longest names need two lines."""
    raw = load_content().raw
    room = raw.layout.canvas.box[0] - NAME_PAD
    for c in raw.map.countries:
        for name in (c.name, c.zh):
            assert name_fits(name, room, [12.5, 11.0]), name
    assert not name_fits("Haiti/Dominican Republic", room, [12.5, 12.5])  # one line: no
    assert ("Haiti/", "Dominican Republic") in name_lines("Haiti/Dominican Republic")
    # The estimate is not below the width of DejaVu Sans Bold (the tests' font): 170.5 px
    # for this name at 12 px, 98.7 px for "Haiti/Dominican" at 11 px.
    assert text_width("Haiti/Dominican Republic", 12) >= 170.5
    assert text_width("Haiti/Dominican", 11) >= 98.7


def test_the_layout_before_the_geometric_check_fails_it(data_copy: Path) -> None:
    """The layout the board had before this check (tests/layouts/map_layout_before.toml:
    box 118x50 on 1800x1080) is refused: halos ran off the canvas and over other regions'
    (Armenia's over Iran's, Georgia/Azerbaijan's over Central Asia's ...), boxes of one
    region nearly touched, and 'Haiti/Dominican Republic' overflowed its box."""
    before = Path(__file__).parent / "layouts" / "map_layout_before.toml"
    (data_copy / LAYOUT).write_text(before.read_text(encoding="utf-8"), encoding="utf-8")
    with pytest.raises(ContentError, match=r"outside the 1800x1080 canvas"):
        RawContent(data_copy)
    text = before.read_text(encoding="utf-8").replace("width = 1800", "width = 1900")
    (data_copy / LAYOUT).write_text(text, encoding="utf-8")
    with pytest.raises(ContentError, match=r"the boxes of 'Italy' and 'Croatia/Bosnia' are "
                                           r"10 px apart"):
        RawContent(data_copy)
    text = text.replace('"Croatia/Bosnia" = { x = 680, y = 350 }',
                        '"Croatia/Bosnia" = { x = 680, y = 356 }')
    text = text.replace('"Moldova" = { x = 1008, y = 290 }', '"Moldova" = { x = 1008, y = 284 }')
    (data_copy / LAYOUT).write_text(text, encoding="utf-8")
    with pytest.raises(ContentError, match=r"the region outlines of '(Greece|Lebanon)' and "
                                           r"'(Greece|Lebanon)' are 20 px apart, under 38"):
        RawContent(data_copy)
