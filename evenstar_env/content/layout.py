"""The map's drawing positions (``data/map_layout.toml``), validated against the map.

Presentation data only: it is kept out of `fingerprint` and `play_fingerprint`, so moving
a box on the drawn map never invalidates a record or a stored result.

The check is geometric, as the board draws the map (experiments/web/static/js/map.js):
every country box carries its region's outline (`halo` pixels around it), and the outlines
of two regions never meet; boxes of one region keep `gap` pixels apart; superpowers, the
legend and the region names stay off every box and outline; every country's name (English
and Chinese) fits its box on one line or, split at a '/' or a space, on two.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import Field

from .schema import Strict

if TYPE_CHECKING:
    from .loader import RawContent

LAYOUT_FILE = "map_layout.toml"
SUPERPOWERS = ("USA", "China")
MARGIN = 6  # least sea between two regions' outlines, and around labels and the legend
NAME_PAD = 8  # a name's line is at most the box's width less this
# The region and sub-region names as map.js writes them: font size (px), letter spacing,
# upper case; a region's name is followed by its scoring values ("  3/7/9").
REGION_LABEL = (23.0, 1.5)
SUBREGION_LABEL = (15.0, 0.0)


# Pairs as TOML arrays: strict models take no list for a tuple, so lists of exactly two.
IntPair = Annotated[list[int], Field(min_length=2, max_length=2)]
NamePair = Annotated[list[str], Field(min_length=2, max_length=2)]
FontPair = Annotated[list[float], Field(min_length=2, max_length=2)]


class Point(Strict):
    x: int
    y: int


class Label(Strict):
    x: int
    y: int  # the baseline
    anchor: Literal["start", "middle", "end"] = "middle"


class Rect(Strict):
    x: int  # top left
    y: int
    width: int = Field(gt=0)
    height: int = Field(gt=0)


class Canvas(Strict):
    width: int = Field(gt=0)
    height: int = Field(gt=0)
    box: IntPair  # a country's box, width and height
    superpower_box: IntPair
    halo: int = Field(default=16, ge=0)  # the region outline drawn around each box
    gap: int = Field(default=16, ge=0)  # least space between two boxes of one region
    # A country's name: one line at name_font[0] px, else two lines at name_font[1] px.
    name_font: FontPair = [12.5, 11.0]


class LayoutFile(Strict):
    canvas: Canvas
    superpowers: dict[str, Point]
    labels: dict[str, Label]  # where each region's and sub-region's name is written
    countries: dict[str, Point]  # the centre of each country's box
    legend: Rect | None = None  # where the map's legend is drawn
    # Links drawn as two short lines off the map's edges (USA-Japan across the Pacific).
    wrap_links: list[NamePair] = []


Box = tuple[float, float, float, float]


def _rect(p: Point, size: list[int]) -> Box:
    w, h = size
    return p.x - w / 2, p.y - h / 2, p.x + w / 2, p.y + h / 2


def _grow(r: Box, d: float) -> Box:
    return r[0] - d, r[1] - d, r[2] + d, r[3] + d


def _meet(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _gap(a: Box, b: Box) -> float:
    """The distance between two rectangles along the axis that separates them best."""
    return max(b[0] - a[2], a[0] - b[2], b[1] - a[3], a[1] - b[3])


# Bold sans-serif advance widths in em (DejaVu Sans Bold, the tests' font, rounded up by
# class): narrow, half, wide, other capitals and others; past U+2E7F (CJK) one em.
_NARROW = set("ijlIJ/ .,'()-|:;!")
_HALF = set("tfr1")
_WIDE = set("mwMW@&")


def text_width(s: str, size: float, spacing: float = 0.0) -> float:
    """An estimate of the width in pixels of `s` in the board's bold sans-serif."""
    em = 0.0
    for ch in s:
        if ord(ch) > 0x2E7F:
            em += 1.0
        elif ch in _NARROW:
            em += 0.4
        elif ch in _HALF:
            em += 0.5
        elif ch in _WIDE:
            em += 1.05
        elif ch.isupper():
            em += 0.85
        else:
            em += 0.7
    return em * size + spacing * len(s)


def name_lines(name: str) -> list[tuple[str, str]]:
    """The ways map.js may write a name: whole, or split in two after a '/' or at a space."""
    ways = [(name, "")]
    for i, ch in enumerate(name):
        if ch == "/":
            ways.append((name[:i + 1], name[i + 1:]))
        elif ch == " ":
            ways.append((name[:i], name[i + 1:]))
    return ways


def name_fits(name: str, width: float, fonts: list[float]) -> bool:
    """Whether `name` fits a line of `width` px at fonts[0], or two lines at fonts[1]."""
    if text_width(name, fonts[0]) <= width:
        return True
    return any(b and max(text_width(a, fonts[1]), text_width(b, fonts[1])) <= width
               for a, b in name_lines(name))


def label_rect(text: str, lab: Label, kind: str) -> Box:
    size, spacing = REGION_LABEL if kind == "region" else SUBREGION_LABEL
    w = text_width(text.upper() if kind == "region" else text, size, spacing)
    x0 = lab.x - {"start": 0.0, "middle": w / 2, "end": w}[lab.anchor]
    return x0, lab.y - size * 0.8, x0 + w, lab.y + size * 0.25


def check_layout(layout: LayoutFile, raw: RawContent, fname: str = LAYOUT_FILE) -> None:
    """Every country and superpower placed once, inside the canvas with its outline, no box
    or region outline on another region's, names that fit their boxes, labels and the
    legend clear of every box; every region and sub-region labelled; wrapped links are
    links of the map."""
    from .loader import ContentError

    def need(what: str, given: set[str], wanted: set[str]) -> None:
        if given - wanted:
            raise ContentError(f"{fname}: [{what}]: unknown name {sorted(given - wanted)[0]!r}")
        if wanted - given:
            raise ContentError(f"{fname}: [{what}]: no position for {sorted(wanted - given)[0]!r}")

    m = raw.map
    need("countries", set(layout.countries), {c.name for c in m.countries})
    need("superpowers", set(layout.superpowers), set(SUPERPOWERS))
    need("labels", set(layout.labels),
         {r.name for r in m.regions} | {s.name for s in m.subregions})
    cv = layout.canvas
    region = {c.name: c.region for c in m.countries}
    # (name, box, region or None for a superpower, how far its drawing reaches out)
    boxes = [(n, _rect(p, cv.box), region[n], cv.halo) for n, p in layout.countries.items()]
    boxes += [(n, _rect(p, cv.superpower_box), None, 0) for n, p in layout.superpowers.items()]
    for name, r, _, out in boxes:
        x0, y0, x1, y1 = _grow(r, out)
        if x0 < 0 or y0 < 0 or x1 > cv.width or y1 > cv.height:
            raise ContentError(f"{fname}: {name!r}: its box with its outline ({x0:g}, {y0:g})-"
                               f"({x1:g}, {y1:g}) is outside the {cv.width}x{cv.height} canvas")
    for i, (a, ra, ga, oa) in enumerate(boxes):
        for b, rb, gb, ob in boxes[i + 1:]:
            if _meet(ra, rb):
                raise ContentError(f"{fname}: the boxes of {a!r} and {b!r} overlap")
            need_gap = cv.gap if ga == gb else oa + ob + MARGIN
            apart = _gap(ra, rb)
            if apart < need_gap:
                what = ("boxes" if ga == gb else "region outlines" if ga and gb
                        else "box and outline")
                raise ContentError(
                    f"{fname}: the {what} of {a!r} and {b!r} are {apart:g} px apart, "
                    f"under {need_gap} ({ga or 'superpower'} / {gb or 'superpower'})")
    taken = [(n, _grow(r, out + MARGIN)) for n, r, _, out in boxes]
    if layout.legend is not None:
        lg = layout.legend
        r = (lg.x, lg.y, lg.x + lg.width, lg.y + lg.height)
        if r[0] < 0 or r[1] < 0 or r[2] > cv.width or r[3] > cv.height:
            raise ContentError(f"{fname}: [legend] is outside the canvas")
        for n, rb in taken:
            if _meet(r, rb):
                raise ContentError(f"{fname}: [legend] covers {n!r} or its outline")
        taken.append(("the legend", r))
    kinds = {r.name: ("region", r.zh, f"  {r.presence}/{r.domination}/{r.control}")
             for r in m.regions}
    kinds.update({s.name: ("subregion", s.zh, "") for s in m.subregions})
    for name, lab in layout.labels.items():
        kind, zh, suffix = kinds[name]
        for text in (name + suffix, zh + suffix):
            r = label_rect(text, lab, kind)
            if r[0] < 0 or r[1] < 0 or r[2] > cv.width or r[3] > cv.height:
                raise ContentError(f"{fname}: [labels] {name!r}: {text!r} at ({lab.x}, {lab.y}) "
                                   f"runs off the canvas")
            for n, rb in taken:
                if _meet(r, rb):
                    raise ContentError(f"{fname}: [labels] {name!r}: {text!r} is written over "
                                       f"{n!r} or its outline")
    room = cv.box[0] - NAME_PAD
    for c in m.countries:
        for name in (c.name, c.zh):
            if name and not name_fits(name, room, cv.name_font):
                raise ContentError(f"{fname}: the name {name!r} does not fit its {cv.box[0]} px "
                                   f"box on one line at {cv.name_font[0]:g} px nor on two at "
                                   f"{cv.name_font[1]:g} px")
    links = {frozenset(link) for link in m.links}
    for a, b in layout.wrap_links:
        if frozenset((a, b)) not in links:
            raise ContentError(f"{fname}: wrap_links: {a!r}-{b!r} is not a link of map.toml")


def layout_json(raw: RawContent) -> dict[str, Any]:
    """The layout as plain JSON for the browser board (``/api/content``'s ``layout``)."""
    lay = raw.layout
    return {
        "width": lay.canvas.width, "height": lay.canvas.height,
        "box": list(lay.canvas.box), "superpower_box": list(lay.canvas.superpower_box),
        "halo": lay.canvas.halo, "gap": lay.canvas.gap, "name_font": list(lay.canvas.name_font),
        "superpowers": {k: p.model_dump() for k, p in lay.superpowers.items()},
        "labels": {k: p.model_dump() for k, p in lay.labels.items()},
        "countries": {k: p.model_dump() for k, p in lay.countries.items()},
        "legend": None if lay.legend is None else lay.legend.model_dump(),
        "links": [list(link) for link in raw.map.links],
        "wrap_links": [list(link) for link in lay.wrap_links],
        "regions": [{"name": r.name, "zh": r.zh} for r in raw.map.regions],
        "subregions": [{"name": s.name, "zh": s.zh} for s in raw.map.subregions],
    }
