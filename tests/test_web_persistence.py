"""Nothing is lost when the server is killed: a real server (`evenstar serve`, a subprocess on
127.0.0.1) is SIGKILLed in the middle of games and restarted on the same SQLite file; every
decision it had answered is there and the games go on, agents included (docs/web.md)."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import time
from pathlib import Path

import httpx

from experiments.web.launch import free_port, start_server

ROOT = Path(__file__).resolve().parent.parent


def start(db: Path, port: int) -> subprocess.Popen:
    return start_server(db, port, workers=1, wait=60)


def children(pid: int) -> list[int]:
    """The processes whose parent is `pid` (Linux /proc)."""
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            out.append(int(stat.parent.name))
    return out


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def stored_actions(db: Path, gid: str) -> list[int]:
    with sqlite3.connect(db) as con:
        return [a for (a,) in con.execute("SELECT action FROM actions WHERE game = ? "
                                          "ORDER BY idx", (gid,))]


def test_sigkill_loses_no_answered_decision_and_every_game_resumes(tmp_path) -> None:
    db, port = tmp_path / "games.sqlite", free_port()
    url = f"http://127.0.0.1:{port}"
    proc = start(db, port)
    try:
        with httpx.Client(base_url=url, timeout=30) as c:
            human = c.post("/api/games", json={"usa": "human", "china": "heuristic"}).json()
            watch = c.post("/api/games", json={"usa": "heuristic", "china": "heuristic",
                                               "speed": 0.05}).json()
            gid, head = human["id"], {"X-Seat-Token": human["seats"]["usa"]}
            sent: dict[int, int] = {}  # decision index -> the action the server accepted
            v = c.get(f"/api/games/{gid}", headers=head).json()
            while len(sent) < 12 and not v["over"]:
                if not v["decision"]["options"]:
                    v = c.get(f"/api/games/{gid}", headers=head,
                              params={"wait": v["decision_index"]}).json()
                    continue
                safe = [o for o in v["decision"]["options"] if not o["total_war"]]
                a = (safe or v["decision"]["options"])[0]["action"]
                r = c.post(f"/api/games/{gid}/act", headers=head,
                           json={"decision": v["decision_index"], "action": a})
                assert r.status_code == 200, r.text
                sent[v["decision_index"]] = a
                v = r.json()
            seen_watch = c.get(f"/api/games/{watch['id']}").json()["decision_index"]
            answered_human = v["decision_index"]
        workers = children(proc.pid)
        assert workers  # the agents' processes
        proc.send_signal(signal.SIGKILL)  # no shutdown, no flush: as a crash
        proc.wait(10)
        deadline = time.monotonic() + 15
        while any(alive(w) for w in workers) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not any(alive(w) for w in workers)  # they end with their server
        kept = stored_actions(db, gid)
        assert len(kept) >= answered_human
        assert all(kept[i] == a for i, a in sent.items())
        assert len(stored_actions(db, watch["id"])) >= seen_watch

        proc = start(db, port)
        with httpx.Client(base_url=url, timeout=30) as c:
            back = c.get(f"/api/games/{gid}", headers=head).json()
            assert back["decision_index"] >= answered_human and back["hand"]
            w0 = c.get(f"/api/games/{watch['id']}").json()["decision_index"]
            assert w0 >= seen_watch
            for _ in range(4):  # the agents play on (their processes start afresh)
                w = c.get(f"/api/games/{watch['id']}", params={"wait": w0}).json()
                if w["decision_index"] > w0 or w["over"]:
                    break
            assert w["decision_index"] > w0 or w["over"]
            for _ in range(50):  # and the human game too: the heuristic answers
                back = c.get(f"/api/games/{gid}", headers=head).json()
                if back["decision"]["options"]:
                    break
                c.get(f"/api/games/{gid}", headers=head, params={"wait": back["decision_index"]})
            o = back["decision"]["options"][0]["action"]
            r = c.post(f"/api/games/{gid}/act", headers=head,
                       json={"decision": back["decision_index"], "action": o})
            assert r.status_code == 200, r.text
    finally:
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait(10)
