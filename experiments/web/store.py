"""The SQLite game store (stdlib sqlite3, WAL): each game's players, seed, options, seat
tokens, content id and action list, the replays loaded, and the content snapshots the
games and replays were played with (so a game replays after any later edit).  Every write
is committed before the server answers, so a SIGKILL loses no completed decision; the
engine is deterministic, so seed + content + actions rebuild a game exactly."""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id TEXT PRIMARY KEY, created REAL NOT NULL, seed TEXT NOT NULL,
    players TEXT NOT NULL, options TEXT NOT NULL, tokens TEXT NOT NULL,
    over INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS actions (
    game TEXT NOT NULL, idx INTEGER NOT NULL, action INTEGER NOT NULL,
    PRIMARY KEY (game, idx));
CREATE TABLE IF NOT EXISTS replays (
    id TEXT PRIMARY KEY, created REAL NOT NULL, record TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS contents (
    id TEXT PRIMARY KEY, files TEXT NOT NULL);
"""


@dataclass
class StoredGame:
    id: str
    seed: int
    players: dict[str, str]
    options: dict[str, Any]
    tokens: dict[str, str | None]
    over: bool
    actions: list[int] = field(default_factory=list)
    content: str | None = None  # the content id (None: a game stored before, the shipped)


class Store:
    """One SQLite file; one connection shared under a lock (writes are tiny)."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._lock = threading.Lock()
        with self._lock:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")  # WAL: durable across a crash
            self._db.executescript(SCHEMA)
            columns = [r[1] for r in self._db.execute("PRAGMA table_info(games)")]
            if "content" not in columns:  # a store written before games kept their content
                self._db.execute("ALTER TABLE games ADD COLUMN content TEXT")

    def _write(self, statements: list[tuple[str, tuple]]) -> None:
        """Run the statements in one transaction, committed before returning."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                for sql, args in statements:
                    self._db.execute(sql, args)
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def create(self, g: StoredGame) -> None:
        self._write([("INSERT INTO games (id, created, seed, players, options, tokens, over, "
                      "content) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                      (g.id, time.time(), str(g.seed), json.dumps(g.players),
                       json.dumps(g.options), json.dumps(g.tokens), int(g.over), g.content))])

    def keep_content(self, cid: str, files: dict[str, Any]) -> None:
        """Keep a content snapshot (once: content ids are hashes of the files)."""
        self._write([("INSERT OR IGNORE INTO contents (id, files) VALUES (?, ?)",
                      (cid, json.dumps(files, ensure_ascii=False, default=str)))])

    def content(self, cid: str) -> dict[str, Any] | None:
        """The files of a kept content snapshot, or None."""
        with self._lock:
            row = self._db.execute("SELECT files FROM contents WHERE id = ?",
                                   (cid,)).fetchone()
        return None if row is None else json.loads(row[0])

    def append(self, game_id: str, idx: int, action: int, over: bool) -> None:
        """Record decision `idx` of a game (and whether the game is now over)."""
        stmts = [("INSERT INTO actions (game, idx, action) VALUES (?, ?, ?)",
                  (game_id, idx, action))]
        if over:
            stmts.append(("UPDATE games SET over = 1 WHERE id = ?", (game_id,)))
        self._write(stmts)

    def truncate(self, game_id: str, keep: int) -> None:
        """Forget the decisions from `keep` on (an undo)."""
        self._write([("DELETE FROM actions WHERE game = ? AND idx >= ?", (game_id, keep)),
                     ("UPDATE games SET over = 0 WHERE id = ?", (game_id,))])

    def _row(self, row: tuple) -> StoredGame:
        gid, seed, players, options, tokens, over, content = row
        return StoredGame(gid, int(seed), json.loads(players), json.loads(options),
                          json.loads(tokens), bool(over), content=content)

    def load(self, game_id: str) -> StoredGame | None:
        with self._lock:
            row = self._db.execute("SELECT id, seed, players, options, tokens, over, content "
                                   "FROM games "
                                   "WHERE id = ?", (game_id,)).fetchone()
            if row is None:
                return None
            g = self._row(row)
            g.actions = [a for (a,) in self._db.execute(
                "SELECT action FROM actions WHERE game = ? ORDER BY idx", (game_id,))]
        return g

    def unfinished(self) -> list[str]:
        with self._lock:
            return [gid for (gid,) in self._db.execute(
                "SELECT id FROM games WHERE over = 0 ORDER BY created")]

    def add_replay(self, replay_id: str, record: dict[str, Any]) -> None:
        self._write([("INSERT INTO replays (id, created, record) VALUES (?, ?, ?)",
                      (replay_id, time.time(), json.dumps(record)))])

    def replay(self, replay_id: str) -> dict[str, Any] | None:
        with self._lock:
            row = self._db.execute("SELECT record FROM replays WHERE id = ?",
                                   (replay_id,)).fetchone()
        return None if row is None else json.loads(row[0])

    def close(self) -> None:
        with self._lock:
            self._db.close()
