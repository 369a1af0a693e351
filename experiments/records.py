"""Game records: a small JSON file from which any game can be replayed exactly.

:func:`load` is the one reader of record files (``evenstar play``'s ``load``,
``evenstar replay`` and ``evenstar render``): it refuses, with one clear
:class:`RecordError`, a file that is not UTF-8 JSON, not a JSON object, nested
too deeply, whose content cannot be found, or whose actions are not legal
in order (or go on after the end).

A record carries its content: ``content_id`` names a snapshot of every content file as
played, kept once beside the records (``content/<content_id>.json``,
:mod:`evenstar_env.content.source`), so a record replays after any later edit of the
data, an overlay or a variant.  A record from before snapshots (no ``content_id``) is
replayed on the shipped content when its layout fingerprint matches, or on ``content``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import asdict
from pathlib import Path
from typing import Any

from evenstar_env import Game
from evenstar_env.content import (
    Content,
    ContentError,
    ContentSpec,
    as_content,
    content_from_files,
    content_id,
    fingerprint,
    load_content,
    load_snapshot,
)
from evenstar_env.content.source import SNAPSHOT_FORMAT, snapshot_path, write_snapshot
from evenstar_env.safe_io import read_bounded
from experiments.files import write_text_atomic
from experiments.selfplay import GameRecord

FORMAT = "evenstar-game-v1"
MAX_BYTES = 50_000_000  # a finished game is a few kB; anything this big is not a record


class RecordError(ValueError):
    """A record file that cannot be read or replayed."""


def to_json(rec: GameRecord, content: ContentSpec = None, inline: bool = False
            ) -> dict[str, Any]:
    """The record's JSON; `inline` carries the content's snapshot in it (a record that
    travels alone, as the browser board's downloads do), unless it is the shipped one."""
    c = as_content(content)
    out = {"format": FORMAT, "content": fingerprint(c), **asdict(rec),
           "content_id": content_id(c)}
    if inline and content_id(c) != content_id(load_content()):
        out["content_snapshot"] = {"format": SNAPSHOT_FORMAT, "id": content_id(c),
                                   "files": c.files}
    return out


def keep_content(content: ContentSpec, folder: Path) -> str:
    """Keep the snapshot of `content` in ``folder/content/`` (once); its id."""
    return write_snapshot(as_content(content).files, Path(folder))


def save(rec: GameRecord, path: Path, content: ContentSpec = None) -> None:
    """Write a record atomically (an old file at `path` survives a failed save), with the
    snapshot of its `content` beside it; OSError says why a save failed."""
    path = Path(path)
    keep_content(content, path.parent)
    write_text_atomic(path, json.dumps(to_json(rec, content), indent=1))


def _read_json(path: Path) -> Any:
    try:
        raw = read_bounded(path, MAX_BYTES)  # a FIFO, /dev/zero: no record either
    except OSError as exc:
        raise RecordError(f"{path}: cannot read a game record: {exc.strerror or exc}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RecordError(f"{path}: not a game record: not UTF-8 text ({exc.reason} at "
                          f"byte {exc.start})") from None
    if str(path).endswith(".jsonl"):  # an arena or balance file: its first game
        text = text.splitlines()[0] if text.strip() else ""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise RecordError(f"{path}: not a game record: invalid JSON ({exc})") from None
    except RecursionError:
        raise RecordError(f"{path}: not a game record: JSON nested too deeply") from None


def _int(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{what} must be an integer, not {type(value).__name__}")
    return value


def _content_id(value: Any) -> str | None:
    if value is not None and not (isinstance(value, str) and value.isalnum()):
        raise TypeError("content_id must be a content snapshot id (letters and digits)")
    return value


def parse(data: Any) -> GameRecord:
    """A record from its JSON form, every field checked (:class:`RecordError` naming the
    first bad one); its actions are not replayed (see :func:`final_game`)."""
    if not isinstance(data, dict):
        raise RecordError(f"not a game record: expected a JSON object, found "
                          f"{type(data).__name__}")
    try:
        actions = data["actions"]
        if not isinstance(actions, list):
            raise TypeError(f"actions must be a list, not {type(actions).__name__}")
        for key in ("agents", "vp"):
            if not isinstance(data.get(key, {}), dict):
                raise TypeError(f"{key} must be an object")
        return GameRecord(seed=_int(data["seed"], "seed"), agents=dict(data.get("agents", {})),
                          actions=[_int(a, f"action {i}") for i, a in enumerate(actions)],
                          winner=data.get("winner"), reason=str(data.get("reason", "")),
                          turn=_int(data.get("turn", 0), "turn"), vp=dict(data.get("vp", {})),
                          content_id=_content_id(data.get("content_id")))
    except KeyError as exc:
        raise RecordError(f"not a game record: no field {exc}") from None
    except TypeError as exc:
        raise RecordError(f"not a game record: {exc}") from None


def content_of(path: Path, data: Any, content: ContentSpec = None) -> Content:
    """The content a record was played with: `content` if given, else its snapshot beside
    it, else (an old record) the shipped content if the layout matches."""
    path = Path(path)
    data = data if isinstance(data, dict) else {}
    try:
        if content is not None:
            return as_content(content)
        if "content_snapshot" in data:
            return check_layout(path, data, _inline(data))
        cid = data.get("content_id")
        if isinstance(cid, str) and cid.isalnum():
            return check_layout(path, data, _snapshot(path, cid))
    except ContentError as exc:
        raise RecordError(f"{path}: {exc}") from None
    shipped = load_content()
    played = data.get("content", fingerprint(shipped))
    if played != fingerprint(shipped) or data.get("variant") not in (None, "baseline"):
        what = (f"variant {data['variant']!r}" if data.get("variant") not in (None, "baseline")
                else f"other game content ({played!r}, the shipped content is "
                     f"{fingerprint(shipped)})")
        raise RecordError(f"{path}: recorded with {what} before records kept their content: "
                          "pass --content with the folder it was played with")
    return shipped


def _inline(data: dict) -> Content:
    """The content of a record's inline snapshot (:func:`to_json` with ``inline``)."""
    snap = data["content_snapshot"]
    if not isinstance(snap, dict) or snap.get("format") != SNAPSHOT_FORMAT:
        raise ContentError(f"content_snapshot is not a content snapshot ({SNAPSHOT_FORMAT})")
    if data.get("content_id") not in (None, snap.get("id")):
        raise ContentError("content_snapshot is not the snapshot its content_id names")
    return content_from_files(snap.get("files"), snap.get("id"))


def _snapshot(path: Path, cid: str) -> Content:
    """The content `cid` names: its snapshot beside the record, else the shipped content
    when that is the same (a record copied away from its folder)."""
    snap = snapshot_path(path.parent, cid)
    if snap.is_file():
        return load_snapshot(snap.resolve())
    if content_id(load_content()) == cid:
        return load_content()
    raise RecordError(f"{path}: its content snapshot {snap} is missing: pass --content with "
                      "the folder it was played with")


def check_layout(path: Path, data: dict, c: Content) -> Content:
    """`c` if the record's layout fingerprint is that of `c`, else RecordError."""
    played = data.get("content", fingerprint(c))
    if played != fingerprint(c):
        raise RecordError(f"{path}: recorded with other game content ({played!r}, its "
                          f"snapshot is {fingerprint(c)}): a damaged record")
    return c


def played_from_data(data: Any, path: Path | str = "record", content: ContentSpec = None
                     ) -> tuple[GameRecord, Content]:
    """A record from its parsed JSON (`path` names it in errors and is where its content
    snapshot is looked for) and the content it was played with; every action is checked
    to replay legally."""
    c = content_of(Path(path), data, content)
    try:
        rec = parse(data)
        final_game(rec, content=c)
    except RecordError as exc:
        raise RecordError(f"{path}: {exc}") from None
    return rec, c


def load_played(path: Path, content: ContentSpec = None) -> tuple[GameRecord, Content]:
    """Read a record (a .json file, or the first line of a .jsonl arena or balance file)
    and the content it was played with, and check that every action replays legally."""
    return played_from_data(_read_json(path), path, content)


def load(path: Path, content: ContentSpec = None) -> GameRecord:
    """The record of :func:`load_played`, without its content."""
    return load_played(path, content)[0]


def from_data(data: Any, path: Path | str = "record", content: ContentSpec = None
              ) -> GameRecord:
    """The record of :func:`played_from_data`, without its content."""
    return played_from_data(data, path, content)[0]


def _start(rec: GameRecord, log: bool, content: ContentSpec = None) -> Game:
    try:
        return Game(rec.seed, log=log, content=content)
    except (TypeError, ValueError, OverflowError) as exc:
        raise RecordError(f"seed {rec.seed} cannot start a game: {exc}") from None


def replay(rec: GameRecord, log: bool = False, content: ContentSpec = None
           ) -> Iterator[tuple[Game, int]]:
    """Yield (game before the action, action) for every recorded action, on `content`
    (default: the shipped content)."""
    g = _start(rec, log, content)
    for i, a in enumerate(rec.actions):
        if g.is_over:
            raise RecordError(f"action {i} ({a}) comes after the end of the game "
                              f"({g.result.reason})")
        if a not in g.legal_actions():
            raise RecordError(f"action {i} ({a}) is not legal in the replay: the record does "
                              f"not match this engine and content ({g.content.source})")
        yield g, a
        g.step(a)


def final_game(rec: GameRecord, log: bool = False, content: ContentSpec = None) -> Game:
    """The game after every recorded action."""
    g = _start(rec, log, content)
    for g, _ in replay(rec, log, content):  # noqa: B007  (the generator steps the same game)
        pass
    return g
