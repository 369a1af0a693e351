"""Play against the AI, replay and render (issue: play, watch and replay)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import matplotlib.image
from rich.console import Console
from typer.testing import CliRunner

from experiments import records
from experiments.cli import app
from experiments.play import PlaySession


def scripted(lines: list[str], then: str | None = "1"):
    """An input function: the given lines, then `then` forever (None: end of input)."""
    it = iter(lines)

    def read(prompt: str) -> str:
        try:
            return next(it)
        except StopIteration:
            if then is None:
                raise EOFError from None
            return then
    return read


def session(tmp_path: Path, lines: list[str], then: str | None = "1", seed: int = 4):
    out = io.StringIO()
    s = PlaySession("china", "random", seed, tmp_path / "game.json",
                    console=Console(file=out, width=120), input_fn=scripted(lines, then))
    return s, out


def test_full_game_against_random_with_invalid_inputs(tmp_path: Path) -> None:
    s, out = session(tmp_path, ["", "no such action", "9999", "help", "board", "hand", "log 5",
                                "load", "load /nonexistent.json"])
    rec = s.run()
    text = out.getvalue()
    assert "Game over" in text and rec.reason
    assert "No action starts with that." in text and "No action 9999" in text
    assert "Commands:" in text and "Your hand" in text
    saved = json.loads((tmp_path / "game.json").read_text())
    assert saved["actions"] == rec.actions and saved["reason"] == rec.reason
    assert saved["content"] and saved["format"] == records.FORMAT


def test_end_of_input_saves_and_exits_cleanly(tmp_path: Path) -> None:
    s, out = session(tmp_path, ["1"], then=None)
    rec = s.run()
    assert "Saved to" in out.getvalue() and rec.winner is None and not rec.reason
    loaded = records.load(tmp_path / "game.json")
    assert loaded.actions == rec.actions


def test_undo_takes_back_own_placement_but_not_past_dice(tmp_path: Path) -> None:
    s, _ = session(tmp_path, [], then=None)
    g = s.game
    while g.current_player != "china" or g.decision.kind != "card":
        if g.current_player == "china":
            s._step(int(g.legal_actions()[0]), "you")
        else:
            s._step(s.opponent.act(None, g.action_mask(), g), "them")
        g = s.game
    before = s.game.state.copy()
    card = next(a for a in g.legal_actions()
                if not g.content.card_scoring[g.action_group(a)[1]])
    s._step(int(card), "you")
    assert s._undo() is True
    assert s.game.state == before
    s._step(int(card), "you")  # after a chance outcome, undo is refused
    s.game._m.trace.append(("die", 3))
    assert s._undo() is False


def test_load_continues_a_saved_game(tmp_path: Path) -> None:
    s, _ = session(tmp_path, ["1", "1", "1"], then=None)
    rec = s.run()
    s2, out = session(tmp_path, [f"load {tmp_path / 'game.json'}"], then=None)
    s2.run()
    assert s2.actions == rec.actions and "Loaded" in out.getvalue()


def finished_record(tmp_path: Path) -> Path:
    s, _ = session(tmp_path, [])
    s.run()
    return tmp_path / "game.json"


def test_replay_reproduces_the_recorded_result(tmp_path: Path) -> None:
    path = finished_record(tmp_path)
    rec = records.load(path)
    g = records.final_game(rec)
    assert (g.result.winner, g.result.reason) == (rec.winner, rec.reason) and g.vp == rec.vp
    result = CliRunner().invoke(app, ["replay", str(path), "--no-pause"])
    assert result.exit_code == 0, result.output
    assert rec.reason.split(":")[0] in result.output


def test_render_writes_a_png_of_the_expected_size(tmp_path: Path) -> None:
    path = finished_record(tmp_path)
    out = tmp_path / "map.png"
    result = CliRunner().invoke(app, ["render", str(path), "--turn", "2", "--out", str(out)])
    assert result.exit_code == 0, result.output
    image = matplotlib.image.imread(out)
    assert image.shape[:2] == (800, 1400)


def test_bad_record_gives_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    result = CliRunner().invoke(app, ["replay", str(bad)])
    flat = " ".join(result.output.replace("│", " ").split())
    assert result.exit_code != 0 and "not a game record" in flat


def test_evenstar_play_command_through_its_input_stream(tmp_path: Path) -> None:
    save = tmp_path / "cli_game.json"
    stdin = "what\n0\nboard\n" + "1\n" * 3000
    result = CliRunner().invoke(app, ["play", "--as", "usa", "--opponent", "random",
                                      "--seed", "2", "--save", str(save)], input=stdin)
    assert result.exit_code == 0, result.output[-2000:]
    assert "Game over" in result.output and "No action 0" in result.output
    rec = records.load(save)
    assert rec.reason and records.final_game(rec).result.reason == rec.reason


def test_replay_prints_each_decision_lines_before_the_next_prompt(tmp_path: Path,
                                                                  monkeypatch) -> None:
    """Issue 33: `replay` shows what a decision did before the next decision's prompt."""
    from experiments import cli

    monkeypatch.setattr(cli.console, "width", 400)  # made at import: COLUMNS comes too late
    path = finished_record(tmp_path)
    out = CliRunner().invoke(app, ["replay", str(path), "--no-pause"],
                             env={"COLUMNS": "400"}).output.splitlines()
    plays = 0
    for k, line in enumerate(out):
        if "choose how to play" in line and "-> Play '" in line:
            card = line.split("-> Play '", 1)[1].rsplit("' ", 1)[0]
            upto = next((j for j in range(k + 1, len(out)) if " -> " in out[j]), len(out))
            assert any(f"plays {card} for" in x for x in out[k + 1: upto]), (card, out[k:upto])
            plays += 1
    assert plays > 5


def test_play_shows_history_outcomes_and_warns_of_total_war(tmp_path: Path) -> None:
    answers: list[str] = []
    s, out = session(tmp_path, [], then=None)
    s.input = lambda prompt: answers.pop(0) if answers else (_ for _ in ()).throw(EOFError)
    g = s.game
    while g.decision.kind != "modifier" or g.current_player != "china":
        s._step(int(g.legal_actions()[0]), "you" if g.current_player == "china" else "them")
    hist = g.content.history[g.decision.context["history"]]
    answers[:] = ["1"]
    s._human_turn()
    text = " ".join(out.getvalue().split())  # the console wraps long lines
    assert all(" ".join(o.text.split()) in text for o in hist.outcomes)
    while g.decision.kind != "card" or g.current_player != "china":
        s._step(int(g.legal_actions()[0]), "you" if g.current_player == "china" else "them")
    g.set_track("diplomacy", 2)
    risky = [c.name for i, c in enumerate(g.content.cards)
             if g.content.card_diplomacy_threat[i] > 0]
    for name in risky:
        try:
            g.set_hand("china", [*[x for x in g.hand("china") if x != name][1:], name])
        except ValueError:  # committed elsewhere (a headline, the card in play)
            continue
        if g.event_risks_total_war(name, "china"):
            break
    else:
        raise AssertionError("no card risks total war at diplomacy 2")
    n = len(s.actions)
    k = str(list(g.legal_actions()).index(g.action_id("card", name)) + 1)
    answers[:] = [k, "n"]
    assert s._human_turn() is False and len(s.actions) == n  # declined: nothing played
    assert "can lose the game by total war (10.2)" in out.getvalue()
    answers[:] = [k, "y"]
    assert s._human_turn() is True and s.actions[n] == g.action_id("card", name)
