"""Designer's views of a content: a summary (``evenstar content check``) and the
differences between two contents in words (``evenstar content diff``)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from .compiled import Content

SIDES = ("usa", "china", "neutral")
ERAS = ("early", "mid", "late")


def summary(c: Content) -> list[str]:
    """Lines: cards per era and side, ops totals, history cards and map counts."""
    base = [x for x in c.cards if x.kind == "base"]
    count = Counter((x.era, x.side) for x in base)
    ops = Counter((x.era, x.side) for x in base for _ in range(x.ops))
    lines = [f"content: {c.source}",
             f"{len(base)} base cards, {len(c.cards) - len(base)} scoring cards, "
             f"{c.nh} history cards",
             f"{'era':<7}" + "".join(f"{s:>19}" for s in SIDES) + f"{'all':>19}"]
    for era in (*ERAS, None):
        eras = ERAS if era is None else (era,)
        cells = [(sum(count[e, s] for e in eras), sum(ops[e, s] for e in eras))
                 for s in SIDES]
        cells.append((sum(n for n, _ in cells), sum(o for _, o in cells)))
        lines.append(f"{era or 'all':<7}" + "".join(f"{f'{n} cards, {o} ops':>19}"
                                                    for n, o in cells))
    m = c.raw.map
    lines.append(f"map: {len(m.countries)} countries ({int(c.bg.sum())} battlegrounds), "
                 f"{len(m.regions)} regions, {len(m.subregions)} sub-regions, "
                 f"{len(m.links)} links")
    r = c.rules
    lines.append(f"rules: {r.turns} turns of {r.action_rounds} action rounds; eras from turns "
                 f"{r.era_turns['early']}, {r.era_turns['mid']}, {r.era_turns['late']}")
    return lines


def words(value: Any) -> str:
    """A data value as a reader says it: ``each_country (kind usa, points 2, where:
    countries Mexico, Canada)`` rather than JSON."""
    if isinstance(value, dict):
        op = value.get("op")
        parts = [f"{k} {words(v)}" if not isinstance(v, (dict, list)) or not v else
                 f"{k}: {words(v)}" for k, v in value.items() if k != "op"]
        inner = ", ".join(parts)
        return f"{op} ({inner})" if op else inner
    if isinstance(value, list):
        sep = "; " if any(isinstance(v, dict) for v in value) else ", "
        return sep.join(words(v) for v in value) or "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def _short(value: Any, limit: int = 160) -> str:
    text = value if isinstance(value, str) else words(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _fields(label: str, a: dict[str, Any], b: dict[str, Any]) -> list[str]:
    """One line per field of an entry that differs: old -> new."""
    out = []
    for k in sorted(set(a) | set(b)):
        if a.get(k) != b.get(k):
            if k not in a:
                out.append(f"{label}: {k} set to {_short(b[k])}")
            elif k not in b:
                out.append(f"{label}: {k} {_short(a[k])} removed")
            else:
                out.append(f"{label}: {k} {_short(a[k])} → {_short(b[k])}")
    return out


def _keyed(what: str, a: list[Any], b: list[Any], key: str) -> list[str]:
    da = {getattr(x, key): x.model_dump(exclude_defaults=True) for x in a}
    db = {getattr(x, key): x.model_dump(exclude_defaults=True) for x in b}
    out = []
    for k in da:
        if k not in db:
            out.append(f"{what} {da[k].get('name', k)!s} ({k}) removed")
    for k in db:
        if k not in da:
            x = db[k]
            extra = ", ".join(f"{f} {x[f]}" for f in ("era", "side", "ops") if f in x)
            out.append(f"{what} {x.get('name', k)!s} ({k}) added" + (f": {extra}" if extra
                                                                      else ""))
        elif da[k] != db[k]:
            out += _fields(f"{what} {db[k].get('name', k)!s} ({k})", da[k], db[k])
    return out


def diff(a: Content, b: Content) -> list[str]:
    """What differs from `a` to `b`, one sentence each (empty when they play the same and
    read the same)."""
    ra, rb = a.raw, b.raw
    out = _keyed("card", a.cards, b.cards, "id")
    out += _keyed("history card", a.history, b.history, "id")
    out += _keyed("country", ra.map.countries, rb.map.countries, "name")
    out += _keyed("region", ra.map.regions, rb.map.regions, "name")
    la, lb = {frozenset(x) for x in ra.map.links}, {frozenset(x) for x in rb.map.links}
    out += [f"link {' - '.join(sorted(x))} removed" for x in la - lb]
    out += [f"link {' - '.join(sorted(x))} added" for x in lb - la]
    for name, x, y in (("rules", ra.rules, rb.rules), ("setup", ra.setup, rb.setup),
                       ("tracks", ra.tracks, rb.tracks)):
        out += _fields(name, x.model_dump(), y.model_dump())
    return out
