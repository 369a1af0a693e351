"""Shared helpers of the web server tests (tests/test_web_*.py)."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

with warnings.catch_warnings():  # starlette's note about httpx2 is no failure of ours
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

from experiments.web import create_app


@contextmanager
def client(db: Path | str = ":memory:", records: Path | None = None,
           max_wait: float = 2.0, content: Any = None) -> Iterator[TestClient]:
    with TestClient(create_app(db, records, workers=2, max_wait=max_wait, processes=False,
                               content=content)) as c:
        yield c


def new_game(c: TestClient, **body: Any) -> dict[str, Any]:
    r = c.post("/api/games", json=body)
    assert r.status_code == 200, r.text
    return r.json()


def view(c: TestClient, gid: str, token: str | None = None, **params: Any) -> dict[str, Any]:
    headers = {"X-Seat-Token": token} if token else {}
    r = c.get(f"/api/games/{gid}", headers=headers, params=params)
    assert r.status_code == 200, r.text
    return r.json()


def act(c: TestClient, gid: str, token: str, decision: int, action: int, **params: Any):
    return c.post(f"/api/games/{gid}/act", headers={"X-Seat-Token": token}, params=params,
                  json={"decision": decision, "action": action})


def my_turn(c: TestClient, gid: str, token: str, **params: Any) -> dict[str, Any]:
    """The view once this token's seat must decide or the game is over (long-polling)."""
    v = view(c, gid, token, **params)
    for _ in range(200):
        if v["over"] or v["decision"]["options"]:
            return v
        v = view(c, gid, token, wait=v["decision_index"], **params)
    raise AssertionError("the agent never gave the move back")
