"""Card text against card effects: the English text of every card must name the numbers,
countries, regions and tracks its `effects` (and prerequisites, and persistent effects)
use, and no number, country or region that they do not; the Chinese text is checked for
its numbers the same way (its place names are not checked).  A mismatch is a load error naming the
card (:func:`check_texts`, called by :class:`~evenstar_env.content.loader.RawContent`)."""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel

# Numeric fields of effects whose values a text states (defaults are not stated).
NUMBER_FIELDS = frozenset({"points", "amount", "delta", "count", "ops", "per_country",
                           "max_countries", "modifier", "win_on", "security_loss", "max",
                           "min", "min_ops", "hand_card_min_ops", "turn_min", "turn_max",
                           "max_stability", "min_stability", "ops_mod"})
# Rule wording that states no card datum: section numbers "(8.1.5)", "box 5", "to a
# maximum of 4", "below 3" (a condition's max 2, counted separately).
RULE_NUMBERS = re.compile(r"\d+\.\d+(?:\.\d+)?|\bbox \d+|\b(?:maximum|minimum) of \d+|"
                          r"\b(?:below|under|less than|above|more than|over) \d+")
WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
         "eight": 8, "nine": 9, "ten": 10, "once": 1, "twice": 2, "a": 1, "an": 1,
         "each": 1, "every": 1, "single": 1}
TRACK_WORDS = {"social": ("social",), "economy": ("economy", "economic"),
               "diplomacy": ("diplomacy",), "regional_security": ("security",),
               "russia": ("russia track", "russia",), "tech": ("tech",)}


_DEFAULTS = frozenset({6})  # a die's top face, added for rolls, need not be said


class Facts:
    """What a card's data says: numbers, countries, places and tracks."""

    def __init__(self) -> None:
        self.numbers: set[int] = set()
        self.places: set[str] = set()
        self.tracks: set[str] = set()


def facts(roots: list[Any]) -> Facts:
    f = Facts()

    def visit(node: Any, key: str = "") -> None:
        if isinstance(node, BaseModel):
            for name in node.model_fields_set:  # explicitly given: what the text must say
                visit(getattr(node, name), name)
            op = getattr(node, "op", None)
            if op == "roll":  # "1–3, ...; 4–6, ...": each range starts after a max
                f.numbers |= {o.max + 1 for o in node.outcomes[:-1]} | {6}
            elif op == "war":  # "4 or more, victory" is stated even when it is the default
                f.numbers |= {node.win_on, node.security_loss}
            if op == "track" or getattr(node, "track", None) in TRACK_WORDS:  # or a condition
                f.tracks.add(node.track)
        elif isinstance(node, (list, tuple)):
            for x in node:
                visit(x, key)
        elif isinstance(node, dict):
            for v in node.values():
                visit(v, key)
        elif isinstance(node, bool):
            return
        elif isinstance(node, int) and key in NUMBER_FIELDS and abs(node) < 20:
            f.numbers.add(abs(node))  # (a roll's last outcome is "max = 99": any roll)
        elif isinstance(node, str) and key in ("countries", "regions", "adjacent_to",
                                               "target", "controls", "region"):
            f.places.add(node)

    for r in roots:
        visit(r)
    return f


_WORD = re.compile(rf"\b({'|'.join(WORDS)})\b", re.I)


def _numbers(text: str) -> set[int]:
    found = {int(n) for n in re.findall(r"\d+", text)}
    # "below 3" states max = 2, "more than 4" min = 5, "1–3" a roll's max 3.
    found |= {int(n) - 1 for n in re.findall(r"(?:below|under|less than) (\d+)", text)}
    found |= {int(n) + 1 for n in re.findall(r"(?:above|more than|over) (\d+)", text)}
    found |= {WORDS[w.lower()] for w in _WORD.findall(text)}
    return found


def _forms(place: str) -> list[str]:
    """A place's name and (a region) its adjectives: "Southeast Asian", "European"."""
    return [place] + ([place + "n", place + "an", place + "ern"] if " " in place or
                      place[-1] in "aeh" or place.endswith("East") else [])


# Phrases that name a rule, not a place: "the Russia track", "a Russia card", "the
# Russia–Ukraine war"; "China" and "the US" are the players.
RULE_PHRASES = re.compile(r"Russia(?= track| card|[–-]Ukraine)")
IMPLIED = {"russia_ukraine_war": {"Russia", "Ukraine", "Europe"}}  # ops that name places


class Places:
    """The map's place names and which regions and sub-regions each country is in."""

    def __init__(self, countries: list[Any], regions: list[str]) -> None:
        self.within = {c.name: {c.region, *c.subregions} for c in countries}
        self.names = set(self.within) | set(regions)
        self.form = {f: p for p in self.names for f in _forms(p)}
        alternatives = "|".join(re.escape(f) for f in sorted(self.form, key=len, reverse=True))
        self.pattern = re.compile(rf"(?<![\w-])({alternatives})(?![\w-])")

    def named(self, text: str) -> set[str]:
        """The places a text names (the longest name at each point: "North Korea")."""
        return {self.form[m.group(1)] for m in self.pattern.finditer(text)}


# Chinese text: quoted card names “...”, section numbers, box references "第 5 格", "最高为
# 4" and the Russia-card reminder state no card datum; "低于 3" states a max of 2.
ZH_RULE = re.compile(r"“[^”]*”|\d+\.\d+(?:\.\d+)?|第\s*\d+\s*格|最[高低]为\s*\d+|"
                     r"（俄罗斯相关牌[^）]*）|[低高]于\s*\d+")


def zh_mismatches(text_zh: str, roots: list[Any], rule_text: bool = False) -> list[str]:
    """What a Chinese text gets wrong about the numbers of the data in `roots`."""
    f = facts(roots)
    unquoted = re.sub(r"“[^”]*”", " ", text_zh)
    said = {int(n) for n in re.findall(r"\d+", unquoted)}
    said |= {int(n) - 1 for n in re.findall(r"低于\s*(\d+)", unquoted)}
    said |= {int(n) + 1 for n in re.findall(r"高于\s*(\d+)", unquoted)}
    out = []
    missing = sorted(n for n in f.numbers if n not in said and n not in _DEFAULTS)
    if missing:
        out.append(f"the data uses the number(s) {missing}, the text does not say them")
    special = {op for _, op in _ops(roots)} & IMPLIED.keys()
    if not rule_text and not special:
        extra = sorted({int(n) for n in re.findall(r"\d+", ZH_RULE.sub(" ", text_zh))}
                       - f.numbers)
        if extra:
            out.append(f"the text says the number(s) {extra}, the data does not")
    return out


def mismatches(text: str, roots: list[Any], places: Places, card_names: list[str],
               rule_text: bool = False) -> list[str]:
    """What an English text gets wrong about the data in `roots` (empty: it agrees); a
    `rule_text` (a scoring card's) may state numbers of the rules that are not data."""
    f = facts(roots)
    ops = {op for _, op in _ops(roots)}
    for op in ops:
        f.places |= IMPLIED.get(op, set())
    for name in card_names:  # "If Iran Nuclear Talks is...": longest first (content_mismatches)
        if name in text:
            text = text.replace(name, " ")
    low = text.lower()
    text = RULE_PHRASES.sub(" ", text)
    out = []
    said = _numbers(text)
    missing = sorted(n for n in f.numbers if n not in said and n not in _DEFAULTS)
    if missing:
        out.append(f"the data uses the number(s) {missing}, the text does not say them")
    if not rule_text and not ops & IMPLIED.keys():  # a special op states its own rule
        plain = RULE_NUMBERS.sub(" ", text)
        extra = sorted({int(n) for n in re.findall(r"\d+", plain)} - f.numbers)
        if extra:
            out.append(f"the text says the number(s) {extra}, the data does not")
    named = places.named(text)
    for p in sorted(f.places - named):
        if not places.within.get(p, set()) & named:  # "a Southeast Asian country"
            out.append(f"the data names {p!r}, the text does not")
    for p in sorted(named - f.places):
        excluded = re.search(rf"(other than|except|not)\b[^.;:]*{re.escape(p)}", text)
        inside = any(p in places.within.get(q, ()) for q in f.places)  # "Southeast Asian"
        if not (excluded or inside or any(p != q and p in q for q in f.places)):
            out.append(f"the text names {p!r}, the data does not")
    for t in sorted(f.tracks):
        if not any(w in low for w in TRACK_WORDS[t]):
            out.append(f"the data changes the {t.replace('_', ' ')} track, the text does "
                       "not name it")
    return out


def _ops(roots: list[Any]) -> list[tuple[Any, str]]:
    from .loader import walk

    return [(n, n.op) for r in roots for _, n in walk(r, "") if hasattr(n, "op")]


def _roots(card: Any) -> list[Any]:
    """What a card's text speaks of: its effects, prerequisites and persistent effects."""
    return [card.effects, card.requires] + ([card.persistent] if card.persistent else [])


def card_mismatches(card: Any, places: Places, card_names: list[str]) -> list[str]:
    return mismatches(card.text, _roots(card), places, card_names, card.kind == "scoring")


def content_mismatches(content_raw: Any) -> list[str]:
    """Every card and history outcome whose English text disagrees with its data, one line
    each naming file, entry and field (the loader refuses the content if any)."""
    m = content_raw.map
    places = Places(m.countries, [r.name for r in m.regions] + [s.name for s in m.subregions])
    names = [c.name for _, f in content_raw.card_files for c in f.cards]
    names += [h.name for _, f in content_raw.history_files for h in f.history]
    names.sort(key=len, reverse=True)
    out = []
    for fname, cf in content_raw.card_files:
        for i, card in enumerate(cf.cards):
            for msg in card_mismatches(card, places, names):
                out.append(f"{fname}: cards[{i}] ({card.id!r}): field 'text': {msg}")
            for msg in zh_mismatches(card.text_zh, _roots(card), card.kind == "scoring"):
                out.append(f"{fname}: cards[{i}] ({card.id!r}): field 'text_zh': {msg}")
    for fname, hf in content_raw.history_files:
        for i, h in enumerate(hf.history):
            for k, o in enumerate(h.outcomes):
                if o.effects:  # "no effect" outcomes may name whom they concern
                    for msg in mismatches(o.text, [o.effects], places, names):
                        out.append(f"{fname}: history[{i}] ({h.id!r}): field "
                                   f"'outcomes[{k}].text': {msg}")
                    for msg in zh_mismatches(o.text_zh, [o.effects]):
                        out.append(f"{fname}: history[{i}] ({h.id!r}): field "
                                   f"'outcomes[{k}].text_zh': {msg}")
    return out
