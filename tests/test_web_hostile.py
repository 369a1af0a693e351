"""Hostile requests against every endpoint of the web server: each gets a clear 4xx
``{"error": ...}`` and changes nothing (docs/web.md, "Security model")."""

from __future__ import annotations

import json

import pytest
from web_helpers import act, client, my_turn, new_game, view


@pytest.fixture(scope="module")
def c():
    with client() as cl:
        yield cl


@pytest.fixture(scope="module")
def game(c):
    """A game against the heuristic with the human to move, and a finished game."""
    g = new_game(c, usa="human", china="heuristic", analysis=True)
    my_turn(c, g["id"], g["seats"]["usa"])
    done = new_game(c, usa="random", china="random")
    v = view(c, done["id"])
    while not v["over"]:
        v = view(c, done["id"], wait=v["decision_index"])
    return g, done


def refused(r, status: int) -> str:
    assert r.status_code == status, (r.status_code, r.text)
    body = r.json()
    assert set(body) == {"error"} and body["error"] and "\n" not in body["error"]
    return body["error"]


def snapshot(c, g) -> str:
    return json.dumps(view(c, g["id"], g["seats"]["usa"]), sort_keys=True)


def test_static_endpoints_refuse_other_methods(c) -> None:
    for path in ("/api/content", "/api/agents", "/api/stats"):
        refused(c.post(path, json={}), 405)
    refused(c.get("/api/no-such-thing"), 404)


def test_stats_refuse_bad_parameters_and_name_no_game(c, game) -> None:
    g, _ = game
    for bad in (0, -1, 10**9, "all"):
        refused(c.get("/api/stats", params={"last": bad}), 400)
    text = c.get("/api/stats").text
    assert g["id"] not in text and g["seats"]["usa"] not in text


@pytest.mark.parametrize("body, status", [
    (b"{not json", 400), (b"[1, 2]", 400), (b'"usa"', 400), (b"null", 400),
    (json.dumps({"usa": 5}).encode(), 400),
    (json.dumps({"hotseat": "yes"}).encode(), 400),
    (json.dumps({"speed": True}).encode(), 400),
    (json.dumps({"speed": -1}).encode(), 400),
    (json.dumps({"speed": 1e300}).encode(), 400),
    (json.dumps({"usa": "human", "colour": "red"}).encode(), 400),
    (json.dumps({"china": "skynet"}).encode(), 400),
    (json.dumps({"china": "learned:/etc/passwd"}).encode(), 400),
    (json.dumps({"china": "ppo:/tmp/x.zip"}).encode(), 400),
    (json.dumps({"china": "alphaism:200:/tmp"}).encode(), 400),
    (json.dumps({"china": "alphaism:99999999"}).encode(), 400),
    (json.dumps({"china": "rollout:64:/tmp"}).encode(), 400),
    (json.dumps({"china": "rollout:257"}).encode(), 400),
    (json.dumps({"china": "rollout:64,depth=401"}).encode(), 400),
    (json.dumps({"china": "rollout:64,width=17"}).encode(), 400),
    (json.dumps({"china": "rollout:64,fast=1"}).encode(), 400),
    (json.dumps({"china": "alphaism:300,playout=100"}).encode(), 400),
    (json.dumps({"china": "alphaism:64,playout=401"}).encode(), 400),
    (json.dumps({"china": "alphaism:64,root=halving,width=17,playout=9"}).encode(), 400),
    (json.dumps({"china": "alphaism:64,root=gumbel"}).encode(), 400),
    (json.dumps({"china": "alphaism:64,fine=oracle"}).encode(), 400),
    (json.dumps({"china": "alphaism:64,eps=2"}).encode(), 400),
    (json.dumps({"china": "alphaism:64,t=0"}).encode(), 400),
    (json.dumps({"china": "rollout:64,margin=-1"}).encode(), 400),
    (json.dumps({"china": "ismcts:10:1e9"}).encode(), 400),
    (json.dumps({"china": "x" * 81}).encode(), 400),
    (json.dumps({"usa": "heuristic", "china": "human", "hotseat": True}).encode(), 400),
    (b"x" * 1_100_000, 413),
])
def test_create_refuses_bad_bodies(c, body, status) -> None:
    refused(c.post("/api/games", content=body, headers={"content-type": "application/json"}),
            status)


def test_view_refuses_unknown_games_bad_tokens_and_bad_parameters(c, game) -> None:
    g, _ = game
    gid, tok = g["id"], g["seats"]["usa"]
    refused(c.get("/api/games/nope"), 404)
    refused(c.get("/api/games/" + "a" * 5000), 404)
    refused(c.get("/api/games/%00%2e%2e"), 404)
    refused(c.get(f"/api/games/{gid}", headers={"X-Seat-Token": "forged"}), 403)
    refused(c.get(f"/api/games/{gid}", params={"as": "usa"}), 403)  # no token
    refused(c.get(f"/api/games/{gid}", headers={"X-Seat-Token": tok}, params={"as": "china"}),
            403)  # the US token reads no Chinese hand
    refused(c.get(f"/api/games/{gid}", headers={"X-Seat-Token": tok}, params={"as": "moon"}),
            400)
    for bad in ({"wait": -1}, {"wait": "soon"}, {"log_from": -5}, {"log_from": "x"}):
        refused(c.get(f"/api/games/{gid}", headers={"X-Seat-Token": tok}, params=bad), 400)
    refused(c.get(f"/api/games/{gid}", headers={"X-Seat-Token": "t" * 5000}), 400)


def test_act_refuses_everything_but_the_seat_s_legal_current_action(c, game) -> None:
    g, _ = game
    gid, tok = g["id"], g["seats"]["usa"]
    v = my_turn(c, gid, tok)
    legal = [o["action"] for o in v["decision"]["options"]]
    illegal = next(a for a in range(1000) if a not in legal)
    i = v["decision_index"]
    before = snapshot(c, g)
    url = f"/api/games/{gid}/act"
    headers = {"X-Seat-Token": tok, "content-type": "application/json"}
    cases = [
        (c.post(url, json={"decision": i, "action": legal[0]}), 403),  # no token
        (act(c, gid, "forged", i, legal[0]), 403),
        (act(c, gid, tok, i, illegal), 400),
        (act(c, gid, tok, i, -1), 400),
        (act(c, gid, tok, i, 10**30), 400),
        (act(c, gid, tok, i - 1, legal[0]), 409),
        (act(c, gid, tok, i + 5, legal[0]), 409),
        (act(c, "nope", tok, i, legal[0]), 404),
    ]
    for body in (b"{oops", b"[]", b"7", json.dumps({"decision": i}).encode(),
                 json.dumps({"decision": str(i), "action": legal[0]}).encode(),
                 json.dumps({"decision": i, "action": float(legal[0])}).encode(),
                 json.dumps({"decision": i, "action": True}).encode(),
                 json.dumps({"decision": i, "action": [legal[0]]}).encode(),
                 json.dumps({"decision": i, "action": legal[0], "as": "china"}).encode()):
        cases.append((c.post(url, content=body, headers=headers), 400))
    cases.append((c.post(url, content=b"{" + b" " * 1_100_000 + b"}", headers=headers), 413))
    for r, status in cases:
        refused(r, status)
    assert snapshot(c, g) == before  # nothing changed
    assert act(c, gid, tok, i, legal[0]).status_code == 200  # and the right one works


def test_act_for_the_other_seat_needs_its_token(c) -> None:
    g = new_game(c, usa="human", china="human")
    us, cn = g["seats"]["usa"], g["seats"]["china"]
    v = view(c, g["id"], us)
    mover, idle = (us, cn) if v["decision"]["options"] else (cn, us)
    v = view(c, g["id"], mover)
    refused(act(c, g["id"], idle, v["decision_index"], v["decision"]["options"][0]["action"]),
            403)
    assert view(c, g["id"], mover)["decision_index"] == v["decision_index"]


def test_undo_analysis_and_record_refuse_without_the_right_token(c, game) -> None:
    g, done = game
    gid = g["id"]
    before = snapshot(c, g)
    refused(c.post(f"/api/games/{gid}/undo"), 403)
    refused(c.post(f"/api/games/{gid}/undo", headers={"X-Seat-Token": "forged"}), 403)
    refused(c.post("/api/games/nope/undo", headers={"X-Seat-Token": "x"}), 404)
    refused(c.get(f"/api/games/{gid}/analysis"), 403)
    refused(c.get(f"/api/games/{gid}/analysis", headers={"X-Seat-Token": "forged"}), 403)
    refused(c.get("/api/games/nope/analysis"), 404)
    refused(c.get(f"/api/games/{gid}/record"), 403)  # running: the seed stays hidden
    refused(c.get("/api/games/nope/record"), 404)
    refused(c.post(f"/api/games/{done['id']}/undo", headers={"X-Seat-Token": "x"}), 403)
    assert snapshot(c, g) == before


def test_replays_refuse_bad_records_paths_and_positions(c, game) -> None:
    g, done = game
    rec = c.get(f"/api/games/{done['id']}/record").json()
    tampered = {**rec, "actions": rec["actions"][:3] + [10**6] + rec["actions"][4:]}
    deep = b"[" * 50_000 + b"]" * 50_000
    headers = {"content-type": "application/json"}
    for body, status in [
        (b"{bad", 400), (b"[]", 400), (b"3", 400), (json.dumps({}).encode(), 400),
        (json.dumps(tampered).encode(), 400),
        (json.dumps({**rec, "seed": "one"}).encode(), 400),
        (json.dumps({**rec, "seed": -1}).encode(), 400),
        (json.dumps({**rec, "actions": "all"}).encode(), 400),
        (json.dumps({**rec, "content": "other"}).encode(), 400),
        (json.dumps({**rec, "actions": rec["actions"] + [0]}).encode(), 400),  # past the end
        (json.dumps({"path": "../../etc/passwd"}).encode(), 400),  # no --records folder
        (json.dumps({"game": g["id"]}).encode(), 403),  # still running
        (json.dumps({"game": "nope"}).encode(), 404),
        (deep, 400), (b"x" * 1_100_000, 413),
    ]:
        refused(c.post("/api/replays", content=body, headers=headers), status)
    r = c.post("/api/replays", json=rec).json()
    refused(c.get("/api/replays/nope"), 404)
    for at in (-1, r["decisions"] + 1, "x"):
        refused(c.get(f"/api/replays/{r['id']}", params={"at": at}), 400)


def test_record_paths_stay_inside_the_records_folder(tmp_path) -> None:
    (tmp_path / "records").mkdir()
    (tmp_path / "secret.json").write_text("{}")
    (tmp_path / "records" / "games.jsonl").write_text('{"seed": 1, "actions": [99999]}\n')
    with client(records=tmp_path / "records") as cl:
        for body, status in [({"path": "../secret.json"}, 404), ({"path": "/etc/passwd"}, 404),
                             ({"path": ""}, 400), ({"path": 7}, 400),
                             ({"path": "games.jsonl", "line": 5}, 400),
                             ({"path": "games.jsonl", "line": -1}, 400),
                             ({"path": "games.jsonl", "line": True}, 400),
                             ({"path": "games.jsonl"}, 400)]:  # an illegal action
            refused(cl.post("/api/replays", json=body), status)


def test_huge_chunked_bodies_are_refused_on_every_post(c, game) -> None:
    g, _ = game
    before = snapshot(c, g)

    def chunks():
        for _ in range(110):  # 1.1 MB in chunks: over MAX_BODY (1 MiB)
            yield b" " * 10_000

    headers = {"content-type": "application/json", "X-Seat-Token": g["seats"]["usa"]}
    for path in ("/api/games", f"/api/games/{g['id']}/act", f"/api/games/{g['id']}/undo",
                 "/api/replays"):
        refused(c.post(path, content=chunks(), headers=headers), 413)
    assert snapshot(c, g) == before


def test_a_loopback_server_refuses_other_host_names() -> None:
    """DNS rebinding: a page of another site resolved to 127.0.0.1 names its own host."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from fastapi.testclient import TestClient

    from experiments.web import create_app

    app = create_app(":memory:", processes=False, allowed_hosts=["127.0.0.1", "localhost"])
    with TestClient(app, base_url="http://127.0.0.1:8765") as cl:
        assert cl.get("/api/agents").status_code == 200
        assert cl.get("/api/agents", headers={"host": "localhost:8765"}).status_code == 200
        for host in ("evil.example", "127.0.0.1.evil.example:8765", ""):
            refused(cl.get("/api/agents", headers={"host": host}), 400)
            refused(cl.post("/api/games", json={}, headers={"host": host}), 400)
        assert cl.app.state.sessions.games == {}
