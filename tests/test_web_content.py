"""The browser board plays and replays other content (issue 34: records carry their
content): `evenstar serve --content DIR`, each game keeping the content it was started with
in the store, records that carry their snapshot, and the board drawn per game."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from test_content_folders import make_overlay
from typer.testing import CliRunner
from web_helpers import client, new_game, view

from evenstar_env.content import content_id, load_content
from experiments import records


@pytest.fixture
def deck(tmp_path: Path) -> Path:
    return make_overlay(tmp_path / "my_deck")


def _finish(cl, gid: str) -> dict:
    v = view(cl, gid)
    while not v["over"]:
        v = view(cl, gid, wait=v["decision_index"])
    return v


def test_a_server_of_other_content_plays_it_and_its_records_travel(deck: Path, tmp_path) -> None:
    mine = load_content(deck)
    with client(tmp_path / "g.sqlite", content=deck) as cl:
        drawn = cl.get("/api/content").json()
        assert drawn["content_id"] == content_id(mine)
        assert "Silicon Valley Boom" in [c["name"] for c in drawn["cards"]]
        # The shipped network reads cards by their data: it is offered for an edited deck.
        assert "learned" in cl.get("/api/agents").json()["agents"]
        g = new_game(cl, usa="heuristic", china="random")
        end = _finish(cl, g["id"])
        assert end["content_id"] == content_id(mine)
        rec = cl.get(f"/api/games/{g['id']}/record").json()
    assert rec["content_id"] == content_id(mine) and "content_snapshot" in rec
    # The downloaded record replays alone (no folder beside it) ...
    played, c = records.played_from_data(rec, tmp_path / "elsewhere" / "game.json")
    assert content_id(c) == content_id(mine)
    assert records.final_game(played, content=c).vp == end["vp"]
    # ... and in the board of a server of the shipped content, drawn with its own cards.
    with client() as cl:
        alone = {k: v for k, v in rec.items() if k != "content_snapshot"}
        bad = cl.post("/api/replays", json=alone)  # its content is unknown here
        assert bad.status_code == 400 and "snapshot" in bad.json()["error"]
        r = cl.post("/api/replays", json=rec)
        assert r.status_code == 200, r.text
        last = cl.get(f"/api/replays/{r.json()['id']}",
                      params={"at": r.json()["decisions"]}).json()
        assert last["content_id"] == content_id(mine) and last["vp"] == end["vp"]
        other = cl.get(f"/api/content/{content_id(mine)}").json()
        assert "Silicon Valley Boom" in [c["name"] for c in other["cards"]]
        # Once kept here, a record naming that content replays without its snapshot.
        assert cl.post("/api/replays", json=alone).status_code == 200
        # An altered snapshot is refused, naming it.
        rec["content_snapshot"]["files"]["rules.toml"]["turns"] = 3
        bad = cl.post("/api/replays", json=rec)
        assert bad.status_code == 400 and "altered" in bad.json()["error"]


def test_a_game_resumes_on_its_own_content_after_the_server_changes_its_own(
        deck: Path, tmp_path) -> None:
    db = tmp_path / "g.sqlite"
    with client(db, content=deck) as cl:
        g = new_game(cl, usa="human", china="human")
        v = view(cl, g["id"], g["seats"]["usa"])
        first = v["decision"]["options"][0]["action"]
        r = cl.post(f"/api/games/{g['id']}/act", headers={"X-Seat-Token": g["seats"]["usa"]},
                    json={"decision": 0, "action": first})
        assert r.status_code == 200, r.text
    with client(db) as cl:  # the same store, now serving the shipped edition
        assert cl.get("/api/content").json()["content_id"] == content_id(load_content())
        back = view(cl, g["id"], g["seats"]["usa"])
        assert back["content_id"] == content_id(load_content(deck))
        assert back["decision_index"] == 1
        assert cl.get(f"/api/content/{back['content_id']}").status_code == 200


def test_a_store_written_before_games_kept_their_content_still_opens(tmp_path) -> None:
    db = tmp_path / "old.sqlite"
    con = sqlite3.connect(db)
    con.executescript("""
        CREATE TABLE games (id TEXT PRIMARY KEY, created REAL NOT NULL, seed TEXT NOT NULL,
            players TEXT NOT NULL, options TEXT NOT NULL, tokens TEXT NOT NULL,
            over INTEGER NOT NULL DEFAULT 0);
        CREATE TABLE actions (game TEXT NOT NULL, idx INTEGER NOT NULL,
            action INTEGER NOT NULL, PRIMARY KEY (game, idx));
        INSERT INTO games VALUES ('old1', 0, '7', '{"usa": "human", "china": "human"}',
            '{}', '{"usa": "t1", "china": "t2"}', 0);""")
    con.commit()
    con.close()
    with client(db) as cl:
        v = view(cl, "old1", "t1")
        assert v["content_id"] == content_id(load_content()) and v["decision_index"] == 0


def test_serve_takes_a_content_folder_and_refuses_a_bad_one(tmp_path, monkeypatch) -> None:
    import uvicorn

    from experiments.cli import app

    ran = {}
    monkeypatch.setattr(uvicorn, "run", lambda a, **kw: ran.update(app=a, **kw))
    deck = make_overlay(tmp_path / "deck")
    res = CliRunner().invoke(app, ["serve", "--db", str(tmp_path / "g.sqlite"),
                                   "--content", str(deck)])
    assert res.exit_code == 0, res.output
    assert ran["app"].state.sessions.content_id == content_id(load_content(deck))
    bad = make_overlay(tmp_path / "bad")
    (bad / "cards_early.toml").write_text('[[cards]]\nid = "nafta"\nops = "2"\n')
    res = CliRunner().invoke(app, ["serve", "--db", str(tmp_path / "h.sqlite"),
                                   "--content", str(bad)])
    assert res.exit_code != 0 and "ops" in res.output


def test_the_networks_are_refused_on_another_board(tmp_path: Path) -> None:
    """A history card taken out changes the board, which the shipped network cannot read:
    its agents are not offered there, and asked for, refused."""
    other = make_overlay(tmp_path / "other", remove=("dayton_agreement", "patriot_act"))
    with client(tmp_path / "g.sqlite", content=other) as cl:
        agents = cl.get("/api/agents").json()["agents"]
        assert "learned" not in agents and "heuristic" in agents
        for spec in ("learned", "alphaism:200", "rollout:64,depth=100"):
            r = cl.post("/api/games", json={"usa": "human", "china": spec})
            assert r.status_code == 400 and "shipped board" in r.json()["error"], r.text
        # The analysis says so in its note rather than advising from a misread board.
        g = new_game(cl, usa="human", china="heuristic", analysis=True)
        a = cl.get(f"/api/games/{g['id']}/analysis",
                   headers={"X-Seat-Token": g["seats"]["usa"]}).json()
        assert a["value"] is None and not a["moves"] and "board differs" in a["note"]


def test_the_analysis_reads_an_edited_deck_on_the_shipped_board(tmp_path: Path) -> None:
    five_new = Path(__file__).resolve().parent.parent / "docs" / "examples" / "five_new"
    with client(tmp_path / "g.sqlite", content=five_new) as cl:
        g = new_game(cl, usa="human", china="learned", analysis=True)
        a = cl.get(f"/api/games/{g['id']}/analysis",
                   headers={"X-Seat-Token": g["seats"]["usa"]}).json()
        assert -1 <= a["value"] <= 1 and a["moves"]
