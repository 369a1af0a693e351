"""Replays of game records (``evenstar play`` saves, arena and balance-study lines, games
finished on this server): the full view after any decision, and the timeline marks."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evenstar_env import Game
from evenstar_env.content import Content
from experiments import records
from experiments.selfplay import GameRecord

from .sessions import ApiError, new_game
from .view import game_view, log_entries, log_size

SNAPSHOT_EVERY = 32  # decisions between kept positions: a jump replays at most this many
MAX_FILE_BYTES = 50_000_000


@dataclass
class Replay:
    """A record replayed once: positions every SNAPSHOT_EVERY decisions, the log length
    after each decision, and a mark at every new turn and action round."""

    record: GameRecord
    content: Content
    entries: list[dict[str, Any]] = field(default_factory=list)  # the whole log, all shown
    log_at: list[int] = field(default_factory=list)  # log length after k decisions
    snapshots: dict[int, Game] = field(default_factory=dict)
    marks: list[dict[str, Any]] = field(default_factory=list)

    @classmethod
    def build(cls, rec: GameRecord, content: Content) -> Replay:
        r = cls(rec, content)
        g = new_game(rec.seed, content)
        last = None
        for k in range(len(rec.actions) + 1):
            if k % SNAPSHOT_EVERY == 0:
                r.snapshots[k] = g.clone()
            r.log_at.append(log_size(g))
            where = (g.turn, g.round)
            if where != last:
                r.marks.append({"turn": int(g.turn), "round": int(g.round), "decision": k,
                                "phase": g.phase})
                last = where
            if k < len(rec.actions):
                g.step(rec.actions[k])
        r.entries = log_entries(g, "all")[0]
        return r

    @property
    def decisions(self) -> int:
        return len(self.record.actions)

    def view(self, at: int, log_from: int = 0) -> dict[str, Any]:
        """Everything visible after `at` decisions (a finished record hides nothing)."""
        if not 0 <= at <= self.decisions:
            raise ApiError(400, f"at must be within 0..{self.decisions}, got {at}")
        base = at - at % SNAPSHOT_EVERY
        g = self.snapshots[base].clone()
        for a in self.record.actions[base:at]:
            g.step(a)
        shown = self.log_at[at]
        v = game_view(g, seat=None, reveal=True,
                      log=(self.entries[min(log_from, shown): shown], shown))
        v.update(mode="replay", decision_index=at, decisions=self.decisions,
                 players=self.record.agents, marks=self.marks)
        return v


Played = tuple[GameRecord, Content]  # a record and the content it was played with


def record_from_file(folder: Path | None, name: Any, line: Any) -> Played:
    """A record from a file under `folder` (a .json record, or line `line` of a .jsonl arena
    or balance file) and its content (its snapshot beside it); names outside the folder
    are refused."""
    if folder is None:
        raise ApiError(400, "this server was started without --records: send the record itself")
    if not isinstance(name, str) or not name or "\x00" in name:
        raise ApiError(400, "path must be a file name under the records folder")
    root = folder.resolve()
    path = (root / name).resolve()
    if not path.is_relative_to(root) or not path.is_file():
        raise ApiError(404, f"no record {name[:80]!r} under the records folder")
    if path.suffix != ".jsonl":
        try:
            return records.load_played(path)
        except records.RecordError as exc:
            raise ApiError(400, str(exc)[:300].replace(str(root), "<records>")) from None
    if isinstance(line, bool) or not isinstance(line, int) or line < 0:
        raise ApiError(400, "line must be a line number (0 = the first game) of the .jsonl")
    with path.open("rb") as fh:
        raw = fh.read(MAX_FILE_BYTES + 1)
    rows = raw.decode("utf-8", "replace").splitlines()
    if line >= len(rows):
        raise ApiError(400, f"{name} has {len(rows)} lines; line {line} is past the end")
    try:
        data = json.loads(rows[line])
    except json.JSONDecodeError as exc:
        raise ApiError(400, f"{name} line {line}: invalid JSON ({exc.msg})") from None
    return record_from_data(data, path, content=None, where=f"{name} line {line}",
                            root=root)


def record_from_data(data: Any, path: Path | str = "record", content: Content | None = None,
                     where: str | None = None, root: Path | None = None) -> Played:
    """A record from its JSON (checked: every action legal in order) and its content:
    `content` if given, else its inline snapshot, its snapshot beside `path`, or the
    shipped edition (records.content_of); else ApiError 400 saying why."""
    try:
        rec, played = records.played_from_data(data, path, content)
    except (records.RecordError, RecursionError) as exc:
        message = str(exc)
        if where is not None:
            message = message.replace(str(path), where)
        if root is not None:
            message = message.replace(str(root), "<records>")
        if "snapshot" in message and where is None:
            message += (" (send the record as the board saves it, with its content_snapshot, "
                        "or open it from the server's --records folder with its content/)")
        raise ApiError(400, message[:400]) from None
    if isinstance(data, dict) and not rec.agents and {"usa", "china"} <= data.keys():
        rec.agents = {s: str(data[s]) for s in ("usa", "china")}  # a balance-study line
    return rec, played
