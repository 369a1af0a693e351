"""Content compiled into numpy arrays and integer indices for the engine."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from .loader import DATA_DIR, ContentError, RawContent, _validate, walk
from .schema import Card, HistoryCard, Selector, Variant

SIDE_INDEX = {"usa": 0, "china": 1, "neutral": 2}
ERA_INDEX = {"early": 0, "mid": 1, "late": 2}


def diplomacy_threat(card: Card) -> int:
    """How many diplomacy levels a card's event could cost at most (9.2.3, 9.2.4, 9.2.5).

    Each granted realignment can lower diplomacy by one (R7), and so can a
    diplomacy track effect; R21 makes the player whose card it is lose at 1.
    """
    threat = 0
    for _, node in walk(card.effects, ""):
        op = getattr(node, "op", None)
        if op == "ops_action" and "realign" in node.modes:
            threat += 1
        elif op == "track" and node.track == "diplomacy" and node.delta < 0:
            threat -= node.delta
    return threat


class Content:
    """Everything the engine needs to know about the map, tracks and cards."""

    def __init__(self, raw: RawContent, source: str = "shipped") -> None:
        self.raw = raw
        self.source = source  # "shipped", a folder, or "snapshot <id>": where it came from
        self.files = raw.files  # the raw tables as played (what a record's snapshot keeps)
        m = raw.map
        self.countries = list(m.countries)
        self.n = n = len(self.countries)
        self.index = {c.name: i for i, c in enumerate(self.countries)}
        self.region_names = [r.name for r in m.regions]
        self.subregion_names = [s.name for s in m.subregions]
        self.region_box = {r.name: (r.presence, r.domination, r.control) for r in m.regions}
        self.region_of = np.array([self.region_names.index(c.region) for c in self.countries])
        self.place_mask: dict[str, np.ndarray] = {}
        for r in self.region_names:
            self.place_mask[r] = np.array([c.region == r for c in self.countries])
        for s in self.subregion_names:
            self.place_mask[s] = np.array([s in c.subregions for c in self.countries])
        self.region_matrix = np.array([self.place_mask[r] for r in self.region_names],
                                      dtype=np.int64)
        self.subregion_matrix = np.array([self.place_mask[r] for r in self.subregion_names],
                                         dtype=np.int64)
        self.region_values = np.array([self.region_box[r] for r in self.region_names])
        self.has_stab = np.array([c.stability is not None for c in self.countries])
        self.stab = np.array([c.stability or 0 for c in self.countries], dtype=np.int16)
        # Control threshold: India (no stab) is controlled with a lead of 1 (R2).
        self.ctrl_stab = np.where(self.has_stab, self.stab, 1).astype(np.int16)
        # [ops]: countries a trade contest with a card of that many ops may target (6.6.2).
        self.trade_reach = np.stack([self.has_stab & (self.stab <= 3) & (ops >= 4 - self.stab)
                                     for ops in range(5)])
        self.bg = np.array([c.battleground for c in self.countries])
        self.non_realignable0 = np.array([c.non_realignable for c in self.countries])
        adj = np.zeros((n, n), dtype=bool)
        adj_sp = np.zeros((2, n), dtype=bool)
        for a, b in m.links:
            if a in ("USA", "China") or b in ("USA", "China"):
                sp, c = (a, b) if a in ("USA", "China") else (b, a)
                adj_sp[0 if sp == "USA" else 1, self.index[c]] = True
            else:
                adj[self.index[a], self.index[b]] = adj[self.index[b], self.index[a]] = True
        self.adj, self.adj_sp = adj, adj_sp
        self.adj_i8 = adj.astype(np.int8)
        self.neighbours = [tuple(np.flatnonzero(adj[i])) for i in range(n)]
        self.taiwan = self.index.get("Taiwan", -1)
        self.india = self.index.get("India", -1)
        self.au_controllable = np.ones(n, dtype=bool)
        if self.taiwan >= 0:
            self.au_controllable[self.taiwan] = False  # 2.1.8.4
        self.ukraine = self.index["Ukraine"]
        self.russia = self.index["Russia"]

        # Cards: base and scoring cards share one index (the CARD actions).
        self.cards: list[Card] = [c for _, cf in raw.card_files for c in cf.cards]
        self.nc = len(self.cards)
        self.card_by_id = {c.id: i for i, c in enumerate(self.cards)}
        self.card_by_name = {c.name: i for i, c in enumerate(self.cards)}
        self.card_ops = np.array([c.ops for c in self.cards], dtype=np.int16)
        self.card_side = np.array([SIDE_INDEX[c.side] for c in self.cards], dtype=np.int8)
        self.card_era = np.array([ERA_INDEX[c.era] for c in self.cards], dtype=np.int8)
        self.card_scoring = np.array([c.kind == "scoring" for c in self.cards])
        self.card_diplomacy_threat = np.array([diplomacy_threat(c) for c in self.cards],
                                              dtype=np.int8)
        self.history: list[HistoryCard] = [h for _, hf in raw.history_files for h in hf.history]
        self.nh = len(self.history)
        self.hist_by_id = {h.id: i for i, h in enumerate(self.history)}
        self.hist_side = np.array([SIDE_INDEX[h.side] for h in self.history], dtype=np.int8)
        self.hist_era = np.array([ERA_INDEX[h.era] for h in self.history], dtype=np.int8)
        self.hist_special = [h.special for h in self.history]
        self.persistent_cards = [i for i, c in enumerate(self.cards) if c.persistent]
        # Persistent cards that change ops: (card, (US change, China change)).
        self.ops_mod_cards = [(i, tuple(self.cards[i].persistent.ops_mod.get(side, 0)
                                        for side in ("usa", "china")))
                              for i in self.persistent_cards if self.cards[i].persistent.ops_mod]
        # For every card, the persistent cards whose presence prevents its event.
        self.prevented_by: list[tuple[int, ...]] = [
            tuple(i for i in self.persistent_cards if c.id in self.cards[i].persistent.prevents)
            for c in self.cards]

        t = raw.tracks
        self.russia_boxes = t.russia
        self.tech_boxes = (t.tech_usa, t.tech_china)
        self.rules = raw.rules
        self.social_zone = _zone_table(t.social, raw.rules.social_max)
        self.economy_zone = _zone_table(t.economy, raw.rules.economy_max)
        self.improve_attempts = np.zeros(raw.rules.economy_max + 1, dtype=np.int8)
        for lo, hi, k in raw.rules.improve_attempts:
            self.improve_attempts[lo : hi + 1] = k

        # Every effect object gets an integer id so that engine frames stay plain data.
        self.effects: list[Any] = []
        self._eid: dict[int, int] = {}
        for root in (self.cards, self.history, t):
            for _, node in walk(root, ""):
                if hasattr(node, "op") and id(node) not in self._eid:
                    self._eid[id(node)] = len(self.effects)
                    self.effects.append(node)
        self._static: dict[int, np.ndarray] = {}
        self._eids_cache: dict[int, tuple[list[Any], tuple[int, ...]]] = {}


    def __reduce__(self) -> tuple:
        """Pickled as its raw content, compiled again on loading (ids index its effects)."""
        return (Content, (self.raw,))
    def eid(self, effect: Any) -> int:
        """Integer id of one effect object."""
        return self._eid[id(effect)]

    def eids(self, effects: list[Any]) -> tuple[int, ...]:
        """Integer ids of a list of effect objects (cached: the content is immutable)."""
        hit = self._eids_cache.get(id(effects))
        if hit is not None and hit[0] is effects:  # the same list object, not a reused id
            return hit[1]
        ids = tuple(self._eid[id(e)] for e in effects)
        self._eids_cache[id(effects)] = (effects, ids)  # holds the list: its id stays its own
        return ids

    def static_mask(self, sel: Selector) -> np.ndarray:
        """The part of a selector that does not depend on the game state (cached)."""
        key = id(sel)
        mask = self._static.get(key)
        if mask is None:
            mask = np.ones(self.n, dtype=bool)
            if sel.countries is not None or sel.regions is not None:
                places = np.zeros(self.n, dtype=bool)
                for name in sel.countries or []:
                    places[self.index[name]] = True
                for r in sel.regions or []:
                    places |= self.place_mask[r]
                mask &= places
            if sel.battleground is not None:
                mask &= self.bg == sel.battleground
            if sel.adjacent_to is not None:
                near = np.zeros(self.n, dtype=bool)
                for name in sel.adjacent_to:
                    if name in ("USA", "China"):
                        near |= self.adj_sp[0 if name == "USA" else 1]
                    else:
                        near |= self.adj[self.index[name]]
                mask &= near
            if sel.max_stability is not None:
                mask &= self.has_stab & (self.stab <= sel.max_stability)
            if sel.min_stability is not None:
                mask &= self.has_stab & (self.stab >= sel.min_stability)
            mask.setflags(write=False)
            self._static[key] = mask
        return mask

    def zone(self, track: str, level: int) -> Any:
        table = self.social_zone if track == "social" else self.economy_zone
        return table[level]


def _zone_table(zones: list, top: int) -> list:
    table = [None] * (top + 1)
    for z in zones:
        for lvl in range(z.lo, z.hi + 1):
            table[lvl] = z
    return table


def fingerprint(content: Content) -> str:
    """Identifies the layout of observations, actions and records: countries and cards."""
    import hashlib

    names = [x.name for x in content.countries] + [x.id for x in content.cards] + [
        h.id for h in content.history]
    return hashlib.sha256("\n".join(names).encode()).hexdigest()[:16]


TEXT_FIELDS = frozenset({"zh", "text", "text_zh", "note", "rarely_playable", "description"})


def _strip_text(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {k: _strip_text(v) for k, v in obj.items() if k not in TEXT_FIELDS}
    if isinstance(obj, list):
        return [_strip_text(v) for v in obj]
    return obj


def play_fingerprint(content: Content) -> str:
    """Identifies everything in the data that can change play (map, rules, setup, tracks,
    every card and history card, without texts and notes); `fingerprint` only covers
    the layout.  Stored self-play results are valid only for the same play fingerprint."""
    import hashlib
    import json

    r = content.raw
    blobs = [json.dumps(_strip_text(m.model_dump()), sort_keys=True)
             for m in (r.map, r.rules, r.setup, r.tracks, *content.cards, *content.history)]
    return hashlib.sha256("\n".join(blobs).encode()).hexdigest()[:16]


def _source_of(folder: Path) -> str:
    return "shipped" if folder == DATA_DIR.resolve() else str(folder)


@lru_cache(maxsize=8)
def _load_folder(folder: Path) -> Content:
    return Content(RawContent(folder), _source_of(folder))


def load_content(data_dir: Path | str = DATA_DIR) -> Content:
    """Load, validate and compile a content folder or overlay (cached by its path);
    ``"shipped"`` is the shipped edition."""
    from .source import folder_of

    return _load_folder(folder_of(data_dir))


ContentSpec = Content | Path | str | None  # what `Game(content=...)` and the envs take


def as_content(content: ContentSpec) -> Content:
    """A Content from itself, a content folder or overlay path, or None (the shipped one)."""
    if content is None:
        return load_content()
    if isinstance(content, Content):
        return content
    if isinstance(content, (str, Path)):
        return load_content(content)
    raise TypeError(f"content must be a Content, a folder path or None, not "
                    f"{type(content).__name__}")


def content_id(content: Content) -> str:
    """The id of a content's snapshot (a hash of every file, texts included)."""
    from .source import content_id as files_id

    cid = getattr(content, "_content_id", None)
    if cid is None:
        cid = content._content_id = files_id(content.files)
    return cid


@lru_cache(maxsize=16)
def load_snapshot(path: Path) -> Content:
    """The content kept in a snapshot file (``content/<id>.json`` beside records)."""
    from .source import read_snapshot

    return Content(RawContent(path.parent, files=read_snapshot(path)), f"snapshot {path.stem}")


_FROM_FILES: dict[str, Content] = {}  # content id -> content built from its raw files


def content_from_files(files: Any, cid: Any = None) -> Content:
    """The content of a snapshot's raw `files` (file name -> TOML table), validated as a
    folder is; `cid` (if given) must be their id (ContentError otherwise).  Kept by id."""
    from .source import content_id as files_id

    if not isinstance(files, dict) or not all(isinstance(k, str) and isinstance(v, dict)
                                              for k, v in files.items()):
        raise ContentError("a content snapshot's files must be an object of file tables")
    real = files_id(files)
    if cid is not None and cid != real:
        raise ContentError(f"the content snapshot was altered (its id {str(cid)[:40]!r} "
                           f"does not match its files, {real})")
    if real not in _FROM_FILES:
        if len(_FROM_FILES) >= 16:
            _FROM_FILES.pop(next(iter(_FROM_FILES)))
        c = Content(RawContent(DATA_DIR, files=files), f"snapshot {real}")
        c._content_id = real
        _FROM_FILES[real] = c
    return _FROM_FILES[real]


@lru_cache(maxsize=32)
def _variant_content(spec: str, data_dir: Path) -> Content:
    v = Variant.model_validate_json(spec)
    folder = data_dir if v.content is None else Path(v.content)
    return Content(RawContent(folder, v), f"{_source_of(folder)} + variant {v.name!r}")


def load_variant(variant: Variant | dict, data_dir: Path = DATA_DIR) -> Content:
    """The content with a rule variant's overrides applied (cached by the variant's value);
    a variant naming `content` starts from that folder or overlay instead of `data_dir`."""
    v = variant if isinstance(variant, Variant) else _validate(variant, Variant, "variant")
    return _variant_content(v.model_dump_json(), Path(data_dir))
