"""The web server's API (experiments/web, docs/web.md): the modes, seats, act/undo, the
stale guard, replays and analysis, through FastAPI's TestClient."""

from __future__ import annotations

import json
from typing import Any

import pytest
from web_helpers import act, client, my_turn, new_game, view

from evenstar_env import Game
from evenstar_env.content import load_content, load_variant
from evenstar_env.content.source import write_snapshot


@pytest.fixture(scope="module")
def c():
    with client() as cl:
        yield cl


def test_content_has_the_map_cards_and_action_offsets(c) -> None:
    data = c.get("/api/content").json()
    content = load_content()
    assert [k["name"] for k in data["countries"]] == [k.name for k in content.countries]
    poland = data["countries"][content.index["Poland"]]
    assert poland["name_zh"] and poland["region"] == "Europe"
    assert {data["countries"][j]["name"] for j in poland["adj"]} >= {"Germany"}
    g = Game(0, backend="python")
    assert data["actions"]["country0"] == g.action_id("country", content.countries[0].name)
    assert data["actions"]["n"] == g.num_actions
    assert all(card["text"] and card["text_zh"] for card in data["cards"])
    assert len(data["history"][0]["outcomes"]) == 4
    assert "learned" in c.get("/api/agents").json()["agents"]


def test_the_openapi_describes_every_route(c) -> None:
    paths = c.get("/openapi.json").json()["paths"]
    assert {"/api/content", "/api/games", "/api/games/{game_id}", "/api/games/{game_id}/act",
            "/api/games/{game_id}/undo", "/api/games/{game_id}/analysis",
            "/api/replays", "/api/replays/{replay_id}"} <= set(paths)
    act_body = paths["/api/games/{game_id}/act"]["post"]["requestBody"]
    assert "Act" in json.dumps(act_body)
    assert c.get("/api/docs").status_code == 200


def test_human_against_heuristic_sees_only_its_hand_and_its_options(c) -> None:
    g = new_game(c, usa="human", china="heuristic")
    assert g["seats"]["china"] is None and g["links"]["usa"].endswith(g["seats"]["usa"])
    assert "token=" in g["links"]["usa"].split("#", 1)[1]  # the token stays in the fragment
    tok, gid = g["seats"]["usa"], g["id"]
    offsets = c.get("/api/content").json()["actions"]
    for _ in range(40):
        v = my_turn(c, gid, tok)
        assert v["mode"] == "agent" and v["seat"] == "usa"
        if v["over"]:
            break
        assert v["decision"]["player"] == "usa"
        for o in v["decision"]["options"]:
            assert o["action"] == offsets[o["group"] + "0"] + o["index"] if \
                o["group"] + "0" in offsets else o["action"] == offsets[o["group"]]
            assert o["label"]
        spectator = view(c, gid)
        assert spectator["hand"] == [] and spectator["decision"]["options"] == []
        assert len(v["hand"]) == v["hand_sizes"]["usa"]
        r = act(c, gid, tok, v["decision_index"], v["decision"]["options"][0]["action"])
        assert r.status_code == 200, r.text
        assert r.json()["decision_index"] == v["decision_index"] + 1
    w = view(c, gid)
    assert w["log_total"] == len(w["log"]) and w["log"][0]["seq"] == 0
    assert view(c, gid, log_from=3)["log"][0]["seq"] == 3


def test_a_stale_or_repeated_action_is_refused_and_changes_nothing(c) -> None:
    g = new_game(c, usa="human", china="heuristic")
    tok, gid = g["seats"]["usa"], g["id"]
    v = my_turn(c, gid, tok)
    first = v["decision"]["options"][0]["action"]
    assert act(c, gid, tok, v["decision_index"], first).status_code == 200
    again = act(c, gid, tok, v["decision_index"], first)  # a double click
    assert again.status_code == 409 and "stale" in again.json()["error"]
    now = view(c, gid, tok)
    assert now["decision_index"] >= v["decision_index"] + 1


def test_undo_takes_back_a_decision_with_nothing_hidden_after_it(c) -> None:
    g = new_game(c, usa="human", china="heuristic")
    tok, gid = g["seats"]["usa"], g["id"]
    v = my_turn(c, gid, tok)
    assert v["decision"]["kind"] == "influence"  # the setup placement: no dice, no draw
    o = v["decision"]["options"][0]
    assert not v["can_undo"]
    after = act(c, gid, tok, v["decision_index"], o["action"]).json()
    assert after["influence"]["usa"][o["index"]] == v["influence"]["usa"][o["index"]] + 1
    assert after["can_undo"] and not view(c, gid)["can_undo"]  # a spectator undoes nothing
    undone = c.post(f"/api/games/{gid}/undo", headers={"X-Seat-Token": tok})
    assert undone.status_code == 200, undone.text
    u = undone.json()
    assert u["decision_index"] == v["decision_index"]
    assert u["influence"] == v["influence"] and u["decision"] == v["decision"]
    assert u["log"] == v["log"] and u["log_total"] == v["log_total"]  # no record of it left
    assert not u["can_undo"]
    assert c.post(f"/api/games/{gid}/undo", headers={"X-Seat-Token": tok}).status_code == 409


def test_two_people_cannot_take_back_a_card_the_other_has_seen(c) -> None:
    """Two browsers: the card a seat chose to play is shown to the other player at once, so
    undo must not put it back into the hand (a hand card shown and hidden again)."""
    g = new_game(c, usa="human", china="human")
    toks, gid = g["seats"], g["id"]
    for _ in range(400):
        v = view(c, gid, toks["usa"])
        d = v["decision"]
        tok = toks[d["player"]]
        mine = view(c, gid, tok)
        option = mine["decision"]["options"][0]
        act(c, gid, tok, mine["decision_index"], option["action"])
        if d["kind"] == "card":
            break
    after = view(c, gid, tok)
    assert not after["can_undo"]
    r = c.post(f"/api/games/{gid}/undo", headers={"X-Seat-Token": tok})
    assert r.status_code == 409 and "has seen the card" in r.json()["error"]
    assert view(c, gid, tok)["decision_index"] == after["decision_index"]


def test_hotseat_one_token_plays_both_seats_and_views_each(c) -> None:
    g = new_game(c, usa="human", china="human", hotseat=True)
    tok, gid = g["seats"]["usa"], g["id"]
    assert g["seats"]["china"] == tok
    seen = set()
    for _ in range(60):
        v = view(c, gid, tok)
        if v["over"]:
            break
        seen.add(v["decision"]["player"])
        assert v["mode"] == "hotseat" and v["seat"] == v["decision"]["player"]
        other = "china" if v["seat"] == "usa" else "usa"
        o = view(c, gid, tok, **{"as": other})
        assert o["seat"] == other and o["decision"]["options"] == []
        assert o["hand"] == [] or set(o["hand"]).isdisjoint(v["hand"])
        assert act(c, gid, tok, v["decision_index"],
                   v["decision"]["options"][-1]["action"]).status_code == 200
    assert seen == {"usa", "china"}


def test_two_browsers_each_token_acts_only_for_its_seat(c) -> None:
    g = new_game(c, usa="human", china="human")
    us, cn, gid = g["seats"]["usa"], g["seats"]["china"], g["id"]
    assert us != cn and g["links"]["china"].endswith(cn)
    for _ in range(60):
        vu, vc = view(c, gid, us), view(c, gid, cn)
        if vu["over"]:
            break
        assert vu["mode"] == "remote" and set(vu["hand"]).isdisjoint(vc["hand"])
        mover, idle = (us, cn) if vu["decision"]["options"] else (cn, us)
        v = vu if mover == us else vc
        a = v["decision"]["options"][0]["action"]
        assert act(c, gid, idle, v["decision_index"], a).status_code == 403
        assert c.get(f"/api/games/{gid}", headers={"X-Seat-Token": idle},
                     params={"as": v["seat"]}).status_code == 403
        assert act(c, gid, mover, v["decision_index"], a).status_code == 200


def test_agents_play_a_whole_game_to_watch_then_the_record_and_replay(c, tmp_path) -> None:
    g = new_game(c, usa="heuristic", china="random", speed=0)
    gid = g["id"]
    assert g["seats"] == {"usa": None, "china": None}
    v = view(c, gid)
    assert c.get(f"/api/games/{gid}/record").status_code in (200, 403)
    for _ in range(400):
        if v["over"]:
            break
        assert v["hands"] is None and "seed" not in json.dumps(v)
        v = view(c, gid, wait=v["decision_index"])
    assert v["over"] and v["result"]["reason"] and v["mode"] == "watch"
    assert set(v["hands"]) == {"usa", "china"}  # a finished game hides nothing
    rec = c.get(f"/api/games/{gid}/record").json()
    assert len(rec["actions"]) == v["decision_index"] and rec["agents"]["usa"] == "heuristic"
    r = c.post("/api/replays", json=rec).json()
    assert r["decisions"] == len(rec["actions"])
    marks = r["marks"]
    assert marks[0]["decision"] == 0 and [m["turn"] for m in marks] == sorted(
        m["turn"] for m in marks) and marks[-1]["turn"] == v["turn"]
    end = c.get(f"/api/replays/{r['id']}", params={"at": r["decisions"]}).json()
    assert end["over"] and end["vp"] == v["vp"] and end["log_total"] == v["log_total"]
    mid = marks[len(marks) // 2]
    at = c.get(f"/api/replays/{r['id']}", params={"at": mid["decision"]}).json()
    assert (at["turn"], at["round"]) == (mid["turn"], mid["round"])
    assert at["decision"]["options"]  # a replay shows every option
    assert c.get(f"/api/replays/{r['id']}", params={"at": r["decisions"] + 1}).status_code == 400
    by_id = c.post("/api/replays", json={"game": gid}).json()
    assert by_id["decisions"] == r["decisions"]


def test_a_running_game_has_no_record_and_no_replay(c) -> None:
    g = new_game(c, usa="human", china="heuristic")
    assert c.get(f"/api/games/{g['id']}/record").status_code == 403
    assert c.post("/api/replays", json={"game": g["id"]}).status_code == 403


def test_replay_of_a_record_file_under_the_records_folder(tmp_path) -> None:
    from pathlib import Path

    folder = Path(__file__).parent / "playthroughs"
    with client(records=folder) as cl:
        r = cl.post("/api/replays", json={"path": "random_seed1.json"})
        assert r.status_code == 200, r.text
        rec = json.loads((folder / "random_seed1.json").read_text())
        assert r.json()["decisions"] == len(rec["actions"])
        assert cl.post("/api/replays", json={"path": "../test_web_api.py"}).status_code == 404


def test_analysis_only_when_asked_for_and_only_for_the_seat(c) -> None:
    plain = new_game(c, usa="human", china="heuristic")
    assert c.get(f"/api/games/{plain['id']}/analysis",
                 headers={"X-Seat-Token": plain["seats"]["usa"]}).status_code == 403
    g = new_game(c, usa="human", china="heuristic", analysis=True)
    tok = g["seats"]["usa"]
    v = my_turn(c, g["id"], tok)
    assert c.get(f"/api/games/{g['id']}/analysis").status_code == 403  # no token
    a = c.get(f"/api/games/{g['id']}/analysis", headers={"X-Seat-Token": tok}).json()
    legal = {o["action"] for o in v["decision"]["options"]}
    assert a["seat"] == "usa" and -1 <= a["value"] <= 1
    assert a["moves"] and {m["action"] for m in a["moves"]} <= legal
    ps = [m["prob"] for m in a["moves"]]
    assert ps == sorted(ps, reverse=True) and sum(ps) <= 1.0001


def test_an_agent_that_fails_is_retried_then_reported_in_the_view(monkeypatch) -> None:
    import experiments.web.sessions as sessions

    calls = []

    def broken(spec: str, state: dict, *content: Any) -> int:
        calls.append(spec)
        raise RuntimeError("the network is on fire")

    monkeypatch.setattr(sessions, "think", broken)
    with client() as cl:
        g = new_game(cl, usa="heuristic", china="human")
        v = view(cl, g["id"], g["seats"]["china"])
        for _ in range(20):
            if v["agent_error"]:
                break
            v = view(cl, g["id"], g["seats"]["china"], wait=v["decision_index"])
        assert "on fire" in v["agent_error"] and v["decision_index"] == 0
        assert calls == ["heuristic"] * sessions.AGENT_TRIES


def test_games_in_progress_are_bounded_and_finished_ones_come_back_from_the_store(
        monkeypatch, tmp_path) -> None:
    import experiments.web.sessions as sessions

    monkeypatch.setattr(sessions, "MAX_RUNNING", 2)
    monkeypatch.setattr(sessions, "MAX_LOADED", 2)
    with client(tmp_path / "g.sqlite") as cl:
        done = new_game(cl, usa="random", china="random")
        v = view(cl, done["id"])
        while not v["over"]:
            v = view(cl, done["id"], wait=v["decision_index"])
        first = new_game(cl, usa="human", china="heuristic")
        new_game(cl, usa="human", china="heuristic")
        r = cl.post("/api/games", json={"usa": "human", "china": "heuristic"})
        assert r.status_code == 429 and "in progress" in r.json()["error"]
        loaded = cl.app.state.sessions.games
        assert done["id"] not in loaded and first["id"] in loaded  # the finished one dropped
        back = view(cl, done["id"])  # rebuilt from its seed and actions
        assert back["over"] and back["vp"] == v["vp"] and back["log_total"] == v["log_total"]


def test_arena_and_balance_lines_replay_from_the_records_folder(tmp_path) -> None:
    from experiments.balance import Job, play_job

    base = play_job(Job("baseline", 3, "random", "random"), {"name": "baseline"})
    other = play_job(Job("rich", 3, "random", "random"),
                     {"name": "rich", "rules": {"start_reserves": {"china": 6}}})
    (tmp_path / "games.jsonl").write_text(json.dumps(base) + "\n" + json.dumps(other) + "\n")
    with client(records=tmp_path) as cl:
        r = cl.post("/api/replays", json={"path": "games.jsonl", "line": 0})
        assert r.status_code == 200, r.text
        assert r.json()["decisions"] == len(base["actions"])
        end = cl.get(f"/api/replays/{r.json()['id']}", params={"at": len(base["actions"])})
        assert end.json()["players"] == {"usa": "random", "china": "random"}
        assert end.json()["vp"] == base["vp"]
        # A game of another rule variant replays on its own content, from the snapshot
        # that balance studies keep beside their games (content/<id>.json); without it,
        # the refusal says which snapshot is missing.
        bad = cl.post("/api/replays", json={"path": "games.jsonl", "line": 1})
        assert bad.status_code == 400 and "snapshot" in bad.json()["error"]
        assert str(tmp_path) not in bad.json()["error"]  # no server path in an answer
        rich = load_variant({"name": "rich", "rules": {"start_reserves": {"china": 6}}})
        assert write_snapshot(rich.files, tmp_path) == other["content_id"]
        r = cl.post("/api/replays", json={"path": "games.jsonl", "line": 1})
        assert r.status_code == 200, r.text
        start = cl.get(f"/api/replays/{r.json()['id']}", params={"at": 0}).json()
        assert start["content_id"] == other["content_id"] != end.json()["content_id"]
        assert start["reserves"] == Game(3, content=rich).reserves  # the variant's start
        assert start["reserves"] != Game(3).reserves
        drawn = cl.get(f"/api/content/{other['content_id']}")
        assert drawn.status_code == 200 and drawn.json()["content_id"] == other["content_id"]
        assert cl.get("/api/content/0123456789abcdef").status_code == 404


def test_watch_speed_spaces_the_agents_moves() -> None:
    import time

    with client() as cl:
        slow = new_game(cl, usa="random", china="random", speed=0.25)
        t0 = time.monotonic()
        v = view(cl, slow["id"])
        while v["decision_index"] < 3:
            v = view(cl, slow["id"], wait=v["decision_index"])
        assert time.monotonic() - t0 >= 0.7 and v["speed"] == 0.25  # 3 moves, 0.25 s apart
        assert view(cl, slow["id"])["decision_index"] <= 6


def test_a_whole_game_against_learned_to_the_end(c) -> None:
    import random

    g = new_game(c, usa="learned", china="human")
    tok, gid, rng = g["seats"]["china"], g["id"], random.Random(5)
    for _ in range(2000):
        v = my_turn(c, gid, tok, log_from=10**6)
        if v["over"]:
            break
        safe = [o for o in v["decision"]["options"] if not o["total_war"]]
        o = rng.choice(safe or v["decision"]["options"])
        assert act(c, gid, tok, v["decision_index"], o["action"]).status_code == 200
    assert v["over"] and v["result"]["reason"]
    rec = c.get(f"/api/games/{gid}/record").json()
    assert len(rec["actions"]) == v["decision_index"] and rec["agents"]["usa"] == "learned"


def test_rendered_logs_are_kept_for_a_bounded_number_of_games(monkeypatch) -> None:
    import experiments.web.sessions as sessions

    monkeypatch.setattr(sessions, "LOGS_KEPT", 2)
    with client() as cl:
        games = [new_game(cl, usa="human", china="human") for _ in range(3)]
        first = [view(cl, g["id"], g["seats"]["usa"]) for g in games]
        live = cl.app.state.sessions.games
        assert live[games[0]["id"]].log_cache == {}  # the least recently viewed: dropped
        assert live[games[2]["id"]].log_cache
        again = view(cl, games[0]["id"], games[0]["seats"]["usa"])
        assert again["log"] == first[0]["log"]  # rendered again, the same


def test_a_move_that_cannot_be_stored_is_not_taken(monkeypatch) -> None:
    import sqlite3

    with client() as cl:
        g = new_game(cl, usa="human", china="human")
        tok = g["seats"]["usa"]
        v = view(cl, g["id"], tok)
        store = cl.app.state.sessions.store

        def full(*args) -> None:
            raise sqlite3.OperationalError("database or disk is full")

        monkeypatch.setattr(store, "append", full)
        monkeypatch.setattr(store, "create", full)
        refused = cl.post("/api/games", json={})
        assert refused.status_code == 503 and "disk is full" in refused.json()["error"]
        assert len(cl.app.state.sessions.games) == 1
        r = act(cl, g["id"], tok, v["decision_index"], v["decision"]["options"][0]["action"])
        assert r.status_code == 503 and "nothing changed" in r.json()["error"]
        monkeypatch.undo()
        after = view(cl, g["id"], tok)
        assert {k: after[k] for k in ("decision_index", "influence", "log_total", "decision")} \
            == {k: v[k] for k in ("decision_index", "influence", "log_total", "decision")}
        assert act(cl, g["id"], tok, v["decision_index"],
                   v["decision"]["options"][0]["action"]).status_code == 200


def test_a_slow_search_never_delays_a_quick_agent(monkeypatch) -> None:
    import threading

    import experiments.web.sessions as sessions
    from experiments.web.thinking import think

    release = threading.Event()

    def thinking(spec: str, state: dict, *content: Any) -> int:
        if spec.startswith("ismcts"):
            release.wait(20)  # a search that takes its time
        return think("random", state, *content)

    monkeypatch.setattr(sessions, "think", thinking)
    with client() as cl:
        slow = [new_game(cl, usa="ismcts:100", china="human") for _ in range(3)]
        quick = new_game(cl, usa="heuristic", china="random")
        v = view(cl, quick["id"])
        for _ in range(40):  # a stalled game ends this in 40 long-poll timeouts
            if v["decision_index"] >= 30 or v["over"]:
                break
            v = view(cl, quick["id"], wait=v["decision_index"])
        assert v["decision_index"] >= 30 or v["over"]  # while every search worker is busy
        assert all(view(cl, g["id"])["decision_index"] == 0 for g in slow)
        release.set()
        w = view(cl, slow[0]["id"], wait=0)
        assert w["decision_index"] > 0


def test_abandoned_games_neither_block_new_ones_nor_stay_in_memory(monkeypatch, tmp_path) -> None:
    import experiments.web.sessions as sessions

    monkeypatch.setattr(sessions, "MAX_RUNNING", 2)
    monkeypatch.setattr(sessions, "MAX_LOADED", 2)
    with client(tmp_path / "g.sqlite") as cl:
        old = [new_game(cl, usa="human", china="human") for _ in range(2)]
        assert cl.post("/api/games", json={"usa": "human", "china": "human"}).status_code == 429
        monkeypatch.setattr(sessions, "IDLE_S", 0.0)  # both are now abandoned
        fresh = new_game(cl, usa="human", china="human")
        loaded = cl.app.state.sessions.games
        assert fresh["id"] in loaded and old[0]["id"] not in loaded
        back = view(cl, old[0]["id"], old[0]["seats"]["usa"])  # rebuilt from the store
        assert back["decision_index"] == 0 and back["seat"] == "usa"


@pytest.mark.parametrize("spec", ["rollout:4,depth=5",
                                  "alphaism:4,root=halving,width=2,playout=5,sim=network"])
def test_the_searches_with_play_outs_play_on_the_board(spec) -> None:
    """rollout and alphaism with play-outs (the shipped policy improved by play-outs,
    issue 35) are offered and move."""
    with client() as cl:
        assert "rollout:64,depth=100" in cl.get("/api/agents").json()["agents"]
        g = new_game(cl, usa=spec, china="random")
        v = view(cl, g["id"])
        for _ in range(40):
            if v["decision_index"] >= 12 or v["over"]:
                break
            v = view(cl, g["id"], wait=v["decision_index"])
        assert v["decision_index"] >= 12
