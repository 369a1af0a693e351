"""The map's drawing positions (``data/map_layout.toml``), validated against the map.

Presentation data only: it is kept out of `fingerprint` and `play_fingerprint`, so moving
a box on the drawn map never invalidates a record or a stored result.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

from pydantic import Field

from .schema import Strict

if TYPE_CHECKING:
    from .loader import RawContent

LAYOUT_FILE = "map_layout.toml"
SUPERPOWERS = ("USA", "China")


# Pairs as TOML arrays: strict models take no list for a tuple, so lists of exactly two.
IntPair = Annotated[list[int], Field(min_length=2, max_length=2)]
NamePair = Annotated[list[str], Field(min_length=2, max_length=2)]


class Point(Strict):
    x: int
    y: int


class Canvas(Strict):
    width: int = Field(gt=0)
    height: int = Field(gt=0)
    box: IntPair  # a country's box, width and height
    superpower_box: IntPair


class LayoutFile(Strict):
    canvas: Canvas
    superpowers: dict[str, Point]
    labels: dict[str, Point]  # where each region's and sub-region's name is written
    countries: dict[str, Point]  # the centre of each country's box
    # Links drawn as two short lines off the map's edges (USA-Japan across the Pacific).
    wrap_links: list[NamePair] = []


def _rect(p: Point, size: list[int]) -> tuple[float, float, float, float]:
    w, h = size
    return p.x - w / 2, p.y - h / 2, p.x + w / 2, p.y + h / 2


def check_layout(layout: LayoutFile, raw: RawContent, fname: str = LAYOUT_FILE) -> None:
    """Every country and superpower placed once, inside the canvas, no two boxes overlapping;
    every region and sub-region labelled; wrapped links are links of the map."""
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
    boxes = [(n, _rect(p, cv.box)) for n, p in layout.countries.items()]
    boxes += [(n, _rect(p, cv.superpower_box)) for n, p in layout.superpowers.items()]
    for name, (x0, y0, x1, y1) in boxes:
        if x0 < 0 or y0 < 0 or x1 > cv.width or y1 > cv.height:
            raise ContentError(f"{fname}: {name!r}: its box ({x0:g}, {y0:g})-({x1:g}, {y1:g}) "
                               f"is outside the {cv.width}x{cv.height} canvas")
    for i, (a, ra) in enumerate(boxes):
        for b, rb in boxes[i + 1:]:
            if ra[0] < rb[2] and rb[0] < ra[2] and ra[1] < rb[3] and rb[1] < ra[3]:
                raise ContentError(f"{fname}: the boxes of {a!r} and {b!r} overlap")
    for name, p in layout.labels.items():
        if not (0 <= p.x <= cv.width and 0 <= p.y <= cv.height):
            raise ContentError(f"{fname}: [labels] {name!r}: ({p.x}, {p.y}) is outside the canvas")
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
        "superpowers": {k: p.model_dump() for k, p in lay.superpowers.items()},
        "labels": {k: p.model_dump() for k, p in lay.labels.items()},
        "countries": {k: p.model_dump() for k, p in lay.countries.items()},
        "links": [list(link) for link in raw.map.links],
        "wrap_links": [list(link) for link in lay.wrap_links],
        "regions": [{"name": r.name, "zh": r.zh} for r in raw.map.regions],
        "subregions": [{"name": s.name, "zh": s.zh} for s in raw.map.subregions],
    }
