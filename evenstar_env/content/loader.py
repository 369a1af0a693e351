"""Load, validate and cross-check the content files (map, setup, tracks, rules, cards)."""

from __future__ import annotations

import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from ..engine.constants import MODIFIERS
from .layout import LAYOUT_FILE, LayoutFile, check_layout
from .schema import (
    CardFile,
    Condition,
    HistoryFile,
    MapFile,
    Persistent,
    RulesFile,
    Selector,
    SetupFile,
    TracksFile,
    Variant,
    VariantFile,
)

DATA_DIR = Path(__file__).resolve().parent.parent / "data"
SUPERPOWERS = ("USA", "China")
REQUIRED_COUNTRIES = ("Russia", "Ukraine")  # named by the rules themselves (8.1.5, 7.6)
IMPROVE_OPS = (2, 3, 4)  # printed ops of cards that may improve a track (6.3.1)


class ContentError(ValueError):
    """A content file is malformed; the message names the file, the entry and the field."""


def _entry_label(raw: Any, loc: tuple) -> tuple[str, tuple]:
    """Name the top-level entry of an error location, e.g. ``cards[3] (id 'x')``."""
    if len(loc) >= 2 and isinstance(loc[1], int) and isinstance(raw, dict):
        items = raw.get(loc[0])
        label = f"{loc[0]}[{loc[1]}]"
        if isinstance(items, list) and loc[1] < len(items) and isinstance(items[loc[1]], dict):
            item = items[loc[1]]
            key = item.get("id") or item.get("name")
            if key:
                label += f" ({key!r})"
        return label, loc[2:]
    return (str(loc[0]) if loc else "<file>"), loc[1:]


def _load_toml(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as fh:
            return tomllib.load(fh)
    except FileNotFoundError:
        raise ContentError(f"{path.name}: file not found in {path.parent}") from None
    except IsADirectoryError:
        raise ContentError(f"{path.name}: a folder where a file is expected ({path})") from None
    except NotADirectoryError:
        raise ContentError(f"{path.parent}: a file where a folder is expected") from None
    except OSError as exc:
        raise ContentError(f"{path.name}: cannot be read: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise ContentError(f"{path.name}: not UTF-8 text (a binary file?): {exc.reason} "
                           f"at byte {exc.start}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ContentError(f"{path.name}: not valid TOML: {exc}") from None


def _field_names() -> set[str]:
    """Every field name of the content models (for "did you mean" on an unknown field)."""
    from . import schema

    return {f for m in vars(schema).values()
            if isinstance(m, type) and issubclass(m, BaseModel) for f in m.model_fields}


def _validate(raw: dict[str, Any], model: type[BaseModel], fname: str) -> Any:
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        lines = []
        for err in exc.errors()[:5]:
            entry, field = _entry_label(raw, tuple(err["loc"]))
            field_s = ".".join(str(p) for p in field) or "<entry>"
            msg = err["msg"]
            if err["type"] == "extra_forbidden" and field:
                from .source import did_you_mean

                msg += did_you_mean(field[-1], _field_names())
            lines.append(f"{fname}: {entry}: field '{field_s}': {msg}")
        more = len(exc.errors()) - 5
        if more > 0:
            lines.append(f"... and {more} more errors")
        raise ContentError("\n".join(lines)) from None


def walk(obj: Any, path: str) -> Iterator[tuple[str, Any]]:
    """Yield (field path, model) for every nested pydantic model."""
    if isinstance(obj, BaseModel):
        yield path, obj
        for name in type(obj).model_fields:
            yield from walk(getattr(obj, name), f"{path}.{name}")
    elif isinstance(obj, (list, tuple)):
        for i, item in enumerate(obj):
            yield from walk(item, f"{path}[{i}]")
    elif isinstance(obj, dict):
        for k, v in obj.items():
            yield from walk(v, f"{path}.{k}")


class RawContent:
    """The validated files, before compilation into arrays."""

    def __init__(self, data_dir: Path | str = DATA_DIR, variant: Variant | None = None,
                 files: dict[str, dict] | None = None) -> None:
        """Read `data_dir` (a content folder or an overlay, source.py), or take the raw
        `files` (file name -> TOML table, e.g. from a record's snapshot); then apply
        `variant` and validate.  ``self.files`` is the raw content as played."""
        import copy

        from .source import card_key, read_folder

        self.data_dir = Path(data_dir)
        files = copy.deepcopy(read_folder(data_dir) if files is None else files)
        self.variant = variant
        for name in ("map.toml", "setup.toml", "tracks.toml", "rules.toml"):
            if name not in files:
                raise ContentError(f"{name}: file not found in {self.data_dir}")
        card_names = sorted(n for n in files if card_key(n) == "cards" and n != "scoring.toml")
        card_names += ["scoring.toml"] if "scoring.toml" in files else []
        cards = {name: files[name] for name in card_names}
        if variant is not None:
            apply_variant(variant, files, cards)
        self.files = files
        raw = files
        label = "" if variant is None else f" (variant {variant.name!r})"
        self.map: MapFile = _validate(raw["map.toml"], MapFile, "map.toml" + label)
        self.setup: SetupFile = _validate(raw["setup.toml"], SetupFile, "setup.toml" + label)
        self.tracks: TracksFile = _validate(raw["tracks.toml"], TracksFile, "tracks.toml" + label)
        self.rules: RulesFile = _validate(raw["rules.toml"], RulesFile, "rules.toml" + label)
        self.card_files = [(name, _validate(data, CardFile, name + label))
                           for name, data in cards.items()]
        self.history_files = [(name, _validate(files[name], HistoryFile, name))
                              for name in sorted(n for n in files if card_key(n) == "history")]
        self._label = label
        self._check()
        self._check_playable()
        from .text_check import content_mismatches

        wrong = content_mismatches(self)
        if wrong:  # a player would be shown a wrong event
            more = f"\n... and {len(wrong) - 5} more" if len(wrong) > 5 else ""
            raise ContentError("\n".join(w + label for w in wrong[:5]) + more)
        # Presentation only (kept out of both fingerprints and the content id), checked
        # last: a broken map is reported as such before the layout complains about it.  A
        # folder without its own layout (an overlay, a snapshot) is drawn with the shipped one.
        own = self.data_dir / LAYOUT_FILE
        layout = own if own.is_file() else DATA_DIR / LAYOUT_FILE
        self.layout: LayoutFile = _validate(_load_toml(layout), LayoutFile, layout.name)
        check_layout(self.layout, self)

    # ------------------------------------------------------------ checks
    def _check(self) -> None:
        m = self.map
        regions = {r.name for r in m.regions}
        subregions = {s.name for s in m.subregions}
        places = regions | subregions
        names = [c.name for c in m.countries]
        self.country_names = set(names)
        _unique(names, "map.toml", "countries", "name")
        for i, c in enumerate(m.countries):
            where = f"map.toml: countries[{i}] ({c.name!r})"
            if c.region not in regions:
                raise ContentError(f"{where}: field 'region': "
                                   f"{_unknown('region', c.region, regions)}")
            for s in c.subregions:
                if s not in subregions:
                    raise ContentError(f"{where}: field 'subregions': "
                                       f"{_unknown('sub-region', s, subregions)}")
        nodes = self.country_names | set(SUPERPOWERS)
        seen = set()
        for i, (a, b) in enumerate(m.links):
            for n in (a, b):
                if n not in nodes:
                    raise ContentError(f"map.toml: links[{i}]: {_unknown('country', n, nodes)}")
            key = frozenset((a, b))
            if a == b or key in seen:
                raise ContentError(f"map.toml: links[{i}]: self or duplicate link {a!r}-{b!r}")
            seen.add(key)
        for kind in ("usa", "china", "anti_us"):
            for name, pts in getattr(self.setup, kind).items():
                if name not in self.country_names:
                    raise ContentError(f"setup.toml: [{kind}]: "
                                       f"{_unknown('country', name, self.country_names)}")
                if pts < 0:
                    raise ContentError(f"setup.toml: [{kind}] {name!r}: negative influence")
        for side in ("usa", "china"):
            if not getattr(self.tracks, f"tech_{side}"):
                raise ContentError(f"tracks.toml: tech_{side}: no boxes")
        for reg in self.rules.spare_scoring:
            if reg not in regions:
                raise ContentError(f"rules.toml: field 'spare_scoring': unknown region {reg!r}")

        ids = [(c.id, f"{fname}: cards[{i}]") for fname, cf in self.card_files
               for i, c in enumerate(cf.cards)]
        ids += [(h.id, f"{fname}: history[{i}]") for fname, hf in self.history_files
                for i, h in enumerate(hf.history)]
        _unique_at(ids, "id")
        _unique_at([(c.name, f"{fname}: cards[{i}]") for fname, cf in self.card_files
                    for i, c in enumerate(cf.cards)], "name")
        card_ids = [c.id for _, cf in self.card_files for c in cf.cards]
        hist_ids = [h.id for _, hf in self.history_files for h in hf.history]
        self.card_ids, self.hist_ids = set(card_ids), set(hist_ids)
        for special in ("turn1", "putin"):
            if not any(h.special == special for _, hf in self.history_files for h in hf.history):
                raise ContentError(f"history files: no history card with special = {special!r}")

        def check_refs(where: str, root: Any) -> None:
            for path, node in walk(root, ""):
                _check_node(where + path, node, self.country_names, places, self.card_ids,
                            self.hist_ids)

        for fname, cf in self.card_files:
            for i, c in enumerate(cf.cards):
                check_refs(f"{fname}: cards[{i}] ({c.id!r}): field '", c)
        for fname, hf in self.history_files:
            for i, h in enumerate(hf.history):
                check_refs(f"{fname}: history[{i}] ({h.id!r}): field '", h)
        for track in ("russia", "tech_usa", "tech_china"):
            for i, box in enumerate(getattr(self.tracks, track)):
                check_refs(f"tracks.toml: {track}[{i}] ({box.name!r}): field '", box)
        for track in ("social", "economy"):
            for i, zone in enumerate(getattr(self.tracks, track)):
                check_refs(f"tracks.toml: {track}[{i}] ({zone.name!r}): field '", zone)


    def _check_playable(self) -> None:
        """Values that pass the schema but would break every game (levels, zones, costs)."""
        r, t = self.rules, self.tracks
        rules = "rules.toml" + self._label

        def bad(field: str, msg: str) -> ContentError:
            return ContentError(f"{rules}: field '{field}': {msg}")

        for field in ("turns", "action_rounds", "social_max", "economy_max"):
            if getattr(r, field) < (1 if field in ("turns", "action_rounds") else 2):
                raise bad(field, f"{getattr(r, field)} is too small")
        if r.action_rounds > 7:
            raise bad("action_rounds", f"{r.action_rounds}: at most 7 (the 8th is a right, 4.6.G)")
        for field, lo, hi in (("start_social", 2, r.social_max),
                              ("start_economy", 2, r.economy_max),
                              ("start_reserves", 0, None)):
            values = getattr(r, field)
            for side in ("usa", "china"):
                if side not in values:
                    raise bad(f"{field}.{side}", "missing")
                v = values[side]
                if v < lo or (hi is not None and v > hi):
                    span = f"{lo}.." + ("" if hi is None else str(hi))
                    raise bad(f"{field}.{side}", f"{v} is outside {span} (1 is a collapse, R21)"
                              if lo == 2 else f"{v} is outside {span}")
        if not 2 <= r.start_diplomacy <= 3:
            raise bad("start_diplomacy", f"{r.start_diplomacy} is outside 2..3 (1 is total war)")
        if not 1 <= r.start_security <= 3:
            raise bad("start_security", f"{r.start_security} is outside 1..3")
        for field in ("diplomacy_spend_price", "russia_spend_price"):
            if getattr(r, field) < 0:
                raise bad(field, "negative price")
        names = [k for k, _ in MODIFIERS]
        if set(r.modifier_costs) != set(names):
            raise bad("modifier_costs", f"needs exactly the keys {names}: missing "
                                        f"{sorted(set(names) - set(r.modifier_costs))}, unknown "
                                        f"{sorted(set(r.modifier_costs) - set(names))}")
        for k, cost in r.modifier_costs.items():
            if cost < 0:
                raise bad(f"modifier_costs.{k}", "negative cost")
        for ops in IMPROVE_OPS:
            if not 0 <= r.improve_success.get(ops, -1) <= 6:
                raise bad(f"improve_success.{ops}", "needs a highest successful roll in 0..6")
        for i, (lo, hi, k) in enumerate(r.improve_attempts):
            if not (1 <= lo <= hi <= r.economy_max and k >= 0):
                raise bad(f"improve_attempts[{i}]", f"({lo}, {hi}, {k}) needs "
                                                    f"1 <= lo <= hi <= economy_max, attempts >= 0")
        eras = [r.era_turns.get(e) for e in ("early", "mid", "late")]
        if None in eras or eras[0] != 1 or not eras[0] < eras[1] < eras[2] <= r.turns:
            raise bad("era_turns", f"{r.era_turns}: needs early = 1 < mid < late <= turns")
        for i, turn in enumerate(r.spare_scoring_turns):
            if not 1 <= turn <= r.turns:
                raise bad(f"spare_scoring_turns[{i}]", f"turn {turn} is outside 1..{r.turns}")
        missing = [n for n in REQUIRED_COUNTRIES if n not in self.country_names]
        if missing:
            raise ContentError(f"map.toml: countries: field 'name': no country named "
                               f"{missing} (the rules name them; renamed?)")
        for track, top in (("social", r.social_max), ("economy", r.economy_max)):
            _check_zones(f"tracks.toml{self._label}", track, getattr(t, track), top)


def _check_zones(fname: str, track: str, zones: list, top: int) -> None:
    """Zones must cover the levels 1..top once each, with no gap or overlap."""
    covered = [0] * (top + 1)
    for i, z in enumerate(zones):
        where = f"{fname}: {track}[{i}] ({z.name!r})"
        if not 1 <= z.lo <= z.hi <= top:
            raise ContentError(f"{where}: field 'lo'/'hi': {z.lo}..{z.hi} is not within 1..{top}")
        for lvl in range(z.lo, z.hi + 1):
            covered[lvl] += 1
    for lvl in range(1, top + 1):
        if covered[lvl] != 1:
            what = "no zone (a gap)" if covered[lvl] == 0 else f"{covered[lvl]} zones"
            raise ContentError(f"{fname}: {track}: level {lvl} is in {what}; zones must cover "
                               f"1..{top} once each")


def _unique(values: list[str], fname: str, entry: str, field: str) -> None:
    seen: set[str] = set()
    for v in values:
        if v in seen:
            raise ContentError(f"{fname}: {entry}: field '{field}': duplicate value {v!r}")
        seen.add(v)


def _unique_at(values: list[tuple[str, str]], field: str) -> None:
    """Refuse a repeated value, naming the file and entry of both (``cards_mid.toml:
    cards[3]: field 'id': duplicate value 'x' (first in cards_early.toml: cards[5])``)."""
    first: dict[str, str] = {}
    for v, where in values:
        if v in first:
            raise ContentError(f"{where} ({v!r}): field '{field}': duplicate value {v!r} "
                               f"(first in {first[v]})")
        first[v] = where


def _unknown(what: str, name: str, known: Any) -> str:
    from .source import did_you_mean

    return f"unknown {what} {name!r}{did_you_mean(name, known)}"


def _check_node(where: str, node: Any, countries: set[str], places: set[str],
                cards: set[str], hist: set[str]) -> None:
    def bad(field: str, msg: str) -> ContentError:
        return ContentError(f"{where}.{field}'".replace("'.", "'", 1) + f": {msg}")


    if isinstance(node, Selector):
        for n in node.countries or []:
            if n not in countries:
                raise bad("countries", _unknown("country", n, countries))
        for r in node.regions or []:
            if r not in places:
                raise bad("regions", _unknown("region", r, places))
        for n in node.adjacent_to or []:
            if n not in countries and n not in SUPERPOWERS:
                raise bad("adjacent_to", _unknown("country", n, countries))
    elif isinstance(node, Condition):
        for field in ("in_play", "not_in_play", "event_played", "event_not_played"):
            v = getattr(node, field)
            if v is not None and v not in cards:
                raise bad(field, _unknown("card id", v, cards))
        if node.controls is not None and node.controls not in countries:
            raise bad("controls", _unknown("country", node.controls, countries))
    op = getattr(node, "op", None)
    if op == "cancel" and node.card not in cards:
        raise bad("card", _unknown("card id", node.card, cards))
    if op == "history_event" and node.card not in hist:
        raise bad("card", _unknown("history card id", node.card, hist))
    if op == "war" and node.target not in countries:
        raise bad("target", _unknown("country", node.target, countries))
    if op == "score" and node.region not in places:
        raise bad("region", _unknown("region", node.region, places))
    if isinstance(node, Persistent):
        for field in ("prevents", "cancelled_by"):
            for v in getattr(node, field):
                if v not in cards:
                    raise bad(field, _unknown("card id", v, cards))


# ---------------------------------------------------------------- rule variants


def _merge(base: dict[str, Any], over: dict[str, Any]) -> None:
    for k, v in over.items():
        if isinstance(v, dict) and isinstance(base.get(k), dict):
            _merge(base[k], v)
        else:
            base[k] = v


def apply_variant(v: Variant, raw: dict[str, dict], cards: dict[str, dict]) -> None:
    """Apply a variant's overrides to the raw file contents (validated afterwards)."""
    def bad(field: str, msg: str) -> ContentError:
        return ContentError(f"variant {v.name!r}: field '{field}': {msg}")

    _merge(raw["rules.toml"], v.rules)
    countries = {c["name"] for c in raw["map.toml"].get("countries", [])}
    if v.bid is not None:
        side = raw["setup.toml"].setdefault(v.bid.side, {})
        for name, pts in v.bid.countries.items():
            if name not in countries:
                raise bad("bid.countries", _unknown("country", name, countries))
            side[name] = side.get(name, 0) + pts
    by_id = {c.get("id"): c for data in cards.values() for c in data.get("cards", [])}
    for field, ids in (("card_ops", v.card_ops), ("ban_events", v.ban_events),
                       ("remove_cards", v.remove_cards)):
        for cid in ids:
            if cid not in by_id:
                raise bad(field, _unknown("card id", cid, by_id))
    for cid, ops in v.card_ops.items():
        by_id[cid]["ops"] = ops
    for cid in v.ban_events:
        by_id[cid]["event_banned"] = True
    for cid in v.remove_cards:
        by_id[cid]["out_of_game"] = True
    regions = {r["name"]: r for r in raw["map.toml"].get("regions", [])}
    for name, values in v.region_values.items():
        if name not in regions:
            raise bad("region_values", _unknown("region", name, regions))
        regions[name].update(zip(("presence", "domination", "control"), values, strict=True))
    tracks = raw["tracks.toml"]
    for field, track, key in (("hand_sizes", "social", "hand"),
                              ("upgrade_prices", "economy", "price")):
        zones = {z["name"]: z for z in tracks.get(track, [])}
        for zone, value in getattr(v, field).items():
            if zone not in zones:
                raise bad(field, f"unknown {track} zone {zone!r} (one of {sorted(zones)})")
            zones[zone][key] = value
    if v.tech_prices is not None:
        boxes = tracks.get("tech_usa", [])
        if len(v.tech_prices) != len(boxes):
            raise bad("tech_prices", f"needs {len(boxes)} prices, one per US tech box")
        for box, price in zip(boxes, v.tech_prices, strict=True):
            box["price"] = price


def load_variants(path: Path) -> list[Variant]:
    """Rule variants from a TOML file of ``[[variant]]`` tables, each checked against the data."""
    path = Path(path)
    variants = _validate(_load_toml(path), VariantFile, path.name).variant
    _unique([v.name for v in variants], path.name, "variant", "name")
    from .compiled import load_variant

    out = []
    for v in variants:  # a content folder is relative to the variants file
        if v.content is not None and v.content != "shipped":
            v = v.model_copy(update={"content": str((path.parent / v.content).resolve())})
        elif v.content == "shipped":
            v = v.model_copy(update={"content": None})
        load_variant(v)  # applied once: unknown names and bad folders fail here
        out.append(v)
    return out
