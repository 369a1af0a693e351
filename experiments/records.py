"""Game records: a small JSON file from which any game can be replayed exactly."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import asdict
from pathlib import Path
from typing import Any

from evenstar_env import Game
from evenstar_env.content import fingerprint, load_content
from experiments.selfplay import GameRecord

FORMAT = "evenstar-game-v1"


class RecordError(ValueError):
    """A record file that cannot be read or replayed."""


def to_json(rec: GameRecord) -> dict[str, Any]:
    return {"format": FORMAT, "content": fingerprint(load_content()), **asdict(rec)}


def save(rec: GameRecord, path: Path) -> None:
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text(json.dumps(to_json(rec), indent=1))


def load(path: Path) -> GameRecord:
    """Read a record (a .json file, or the first line of a .jsonl arena file)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
        data = json.loads(text.splitlines()[0] if str(path).endswith(".jsonl") else text)
    except (OSError, IndexError, json.JSONDecodeError) as exc:
        raise RecordError(f"{path}: cannot read a game record: {exc}") from None
    if data.get("content", fingerprint(load_content())) != fingerprint(load_content()):
        raise RecordError(f"{path}: recorded with other game content ({data['content']})")
    try:
        return GameRecord(seed=int(data["seed"]), agents=dict(data.get("agents", {})),
                          actions=[int(a) for a in data["actions"]],
                          winner=data.get("winner"), reason=data.get("reason", ""),
                          turn=int(data.get("turn", 0)), vp=dict(data.get("vp", {})))
    except (KeyError, TypeError, ValueError) as exc:
        raise RecordError(f"{path}: not a game record: {exc}") from None


def replay(rec: GameRecord, log: bool = False) -> Iterator[tuple[Game, int]]:
    """Yield (game before the action, action) for every recorded action."""
    g = Game(rec.seed, log=log)
    for i, a in enumerate(rec.actions):
        if g.is_over or a not in g.legal_actions():
            raise RecordError(f"action {i} ({a}) is not legal in the replay: the record does "
                              f"not match this engine")
        yield g, a
        g.step(a)


def final_game(rec: GameRecord, log: bool = False) -> Game:
    """The game after every recorded action."""
    g = Game(rec.seed, log=log)
    for g, _ in replay(rec, log):  # noqa: B007  (the generator steps the same game)
        pass
    return g
