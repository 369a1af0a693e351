"""Game records: a small JSON file from which any game can be replayed exactly.

:func:`load` is the one reader of record files (``evenstar play``'s ``load``,
``evenstar replay`` and ``evenstar render``): it refuses, with one clear
:class:`RecordError`, a file that is not UTF-8 JSON, not a JSON object, nested
too deeply, recorded with other game content, or whose actions are not legal
in order (or go on after the end).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import asdict
from pathlib import Path
from typing import Any

from evenstar_env import Game
from evenstar_env.content import fingerprint, load_content
from evenstar_env.safe_io import read_bounded
from experiments.files import write_text_atomic
from experiments.selfplay import GameRecord

FORMAT = "evenstar-game-v1"
MAX_BYTES = 50_000_000  # a finished game is a few kB; anything this big is not a record


class RecordError(ValueError):
    """A record file that cannot be read or replayed."""


def to_json(rec: GameRecord) -> dict[str, Any]:
    return {"format": FORMAT, "content": fingerprint(load_content()), **asdict(rec)}


def save(rec: GameRecord, path: Path) -> None:
    """Write a record atomically (an old file at `path` survives a failed save); OSError
    says why a save failed."""
    write_text_atomic(Path(path), json.dumps(to_json(rec), indent=1))


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
                          turn=_int(data.get("turn", 0), "turn"), vp=dict(data.get("vp", {})))
    except KeyError as exc:
        raise RecordError(f"not a game record: no field {exc}") from None
    except TypeError as exc:
        raise RecordError(f"not a game record: {exc}") from None


def load(path: Path) -> GameRecord:
    """Read a record (a .json file, or the first line of a .jsonl arena file) and check
    that every action replays legally on this engine."""
    return from_data(_read_json(path), path)


def from_data(data: Any, path: Path | str = "record") -> GameRecord:
    """A record from its parsed JSON (`path` names it in errors), checked as `load` does."""
    ours = fingerprint(load_content())
    if isinstance(data, dict) and data.get("content", ours) != ours:
        raise RecordError(f"{path}: recorded with other game content ({data['content']!r}, "
                          f"this is {ours})")
    try:
        rec = parse(data)
        final_game(rec)
    except RecordError as exc:
        raise RecordError(f"{path}: {exc}") from None
    return rec


def _start(rec: GameRecord, log: bool) -> Game:
    try:
        return Game(rec.seed, log=log)
    except (TypeError, ValueError, OverflowError) as exc:
        raise RecordError(f"seed {rec.seed} cannot start a game: {exc}") from None


def replay(rec: GameRecord, log: bool = False) -> Iterator[tuple[Game, int]]:
    """Yield (game before the action, action) for every recorded action."""
    g = _start(rec, log)
    for i, a in enumerate(rec.actions):
        if g.is_over:
            raise RecordError(f"action {i} ({a}) comes after the end of the game "
                              f"({g.result.reason})")
        if a not in g.legal_actions():
            raise RecordError(f"action {i} ({a}) is not legal in the replay: the record does "
                              f"not match this engine")
        yield g, a
        g.step(a)


def final_game(rec: GameRecord, log: bool = False) -> Game:
    """The game after every recorded action."""
    g = _start(rec, log)
    for g, _ in replay(rec, log):  # noqa: B007  (the generator steps the same game)
        pass
    return g
