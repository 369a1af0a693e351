"""Hostile or careless input at the entry points never loses a game (issue 15): `evenstar
play`, record files for `replay` / `render`, CLI arguments, Ctrl-C, output folders."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest
from rich.console import Console
from test_play import scripted
from typer.testing import CliRunner

from evenstar_env.engine.constants import M_HEADLINE
from experiments import records
from experiments.cli import app
from experiments.play import PlaySession


def session(tmp_path: Path, lines: list[str], then: str | None = "1", seed: int = 4,
            human: str = "china", opponent: str = "random", input_fn=None):
    out = io.StringIO()
    s = PlaySession(human, opponent, seed, tmp_path / "game.json",
                    console=Console(file=out, width=200),
                    input_fn=input_fn or scripted(lines, then))
    return s, out


def saved_actions(path: Path) -> list[int]:
    return records.load(path).actions


def flat(text: str) -> str:
    return " ".join(text.replace("│", " ").split())


# ---------------------------------------------------------------- play: data loss


@pytest.mark.parametrize("answer", ["²", "٣", "9" * 5000, "log ²", "log " + "9" * 5000])
def test_play_survives_digit_like_answers(tmp_path: Path, answer: str) -> None:
    """`str.isdigit()` is true for "²" and for 5,000 digits, yet `int()` fails on both."""
    s, out = session(tmp_path, ["1", answer, "1"], then=None)
    rec = s.run()
    assert len(rec.actions) >= 2  # the answer after the bad one was still taken
    assert saved_actions(tmp_path / "game.json") == rec.actions
    if not answer.startswith("log"):
        assert "No action" in out.getvalue()


@pytest.mark.parametrize("content", ["[1, 2]", "42", '"a string"', "null", "[" * 100_000,
                                     b"\xff\xfe{}"])
def test_play_load_of_a_non_record_keeps_playing(tmp_path: Path, content) -> None:
    bad = tmp_path / "bad.json"
    (bad.write_bytes if isinstance(content, bytes) else bad.write_text)(content)
    s, out = session(tmp_path, ["1", f"load {bad}", "1"], then=None)
    rec = s.run()
    text = out.getvalue()
    assert "not a game record" in flat(text)
    assert len(rec.actions) >= 2 and saved_actions(tmp_path / "game.json") == rec.actions


def test_play_load_of_an_illegal_record_changes_nothing(tmp_path: Path) -> None:
    s, _ = session(tmp_path, ["1", "1"], then=None)
    s.run()
    data = json.loads((tmp_path / "game.json").read_text())
    bad = tmp_path / "illegal.json"
    bad.write_text(json.dumps({**data, "actions": [*data["actions"], -5]}))
    s2, out = session(tmp_path, ["1", f"load {bad}", "1"], then=None, seed=9)
    rec = s2.run()
    assert f"action {len(data['actions'])} (-5) is not legal" in flat(out.getvalue())
    saved = json.loads((tmp_path / "game.json").read_text())
    assert s2.seed == 9 and saved["seed"] == 9 and saved["actions"] == rec.actions
    assert len(rec.actions) >= 2  # the session went on from its own position


@pytest.mark.parametrize("target", ["folder", "under_a_file", "long_name"])
def test_play_failed_save_says_why_and_keeps_playing(tmp_path: Path, target: str) -> None:
    (tmp_path / "a_file").write_text("keep me")
    (tmp_path / "a_folder").mkdir()
    path = {"folder": tmp_path / "a_folder", "under_a_file": tmp_path / "a_file" / "g.json",
            "long_name": tmp_path / ("x" * 400 + ".json")}[target]
    s, out = session(tmp_path, ["1", f"save {path}", "1", "save"], then=None)
    rec = s.run()
    text = flat(out.getvalue())
    assert "Could not save to" in text and "The game goes on" in text
    reason = {"folder": "is a folder", "under_a_file": "Not a directory",
              "long_name": "File name too long"}[target]
    assert reason in text
    assert len(rec.actions) >= 2 and saved_actions(tmp_path / "game.json") == rec.actions
    assert (tmp_path / "a_file").read_text() == "keep me"
    assert list((tmp_path / "a_folder").iterdir()) == []


def test_a_failed_save_never_damages_the_previous_save(tmp_path: Path, monkeypatch) -> None:
    s, _ = session(tmp_path, ["1", "save", "1"], then=None)
    s.run()
    before = (tmp_path / "game.json").read_text()

    rec = records.load(tmp_path / "game.json")
    rec.actions.append(0)  # a different content, so a clobbered file would show

    def disk_full(fd: int) -> None:
        raise OSError(28, "No space left on device")
    monkeypatch.setattr("experiments.files.os.fsync", disk_full)
    with pytest.raises(OSError, match="No space"):
        records.save(rec, tmp_path / "game.json")
    monkeypatch.undo()
    assert (tmp_path / "game.json").read_text() == before
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".tmp-")]


def test_play_unexpected_error_saves_before_it_propagates(tmp_path: Path) -> None:
    s, out = session(tmp_path, [])
    real, calls = s.opponent.act, []

    def flaky(*args):
        calls.append(1)
        if len(calls) == 30:
            raise RuntimeError("agent bug")
        return real(*args)
    s.opponent.act = flaky
    with pytest.raises(RuntimeError, match="agent bug"):
        s.run()
    assert "Unexpected error (RuntimeError: agent bug)" in flat(out.getvalue())
    saved = saved_actions(tmp_path / "game.json")
    assert saved == s.actions and len(saved) > 30


def test_play_ctrl_c_saves_and_prints_one_line(tmp_path: Path) -> None:
    answers = iter(["1", "1", "1"])

    def read(prompt: str) -> str:
        try:
            return next(answers)
        except StopIteration:
            raise KeyboardInterrupt from None
    s, out = session(tmp_path, [], input_fn=read)
    rec = s.run()
    lines = [ln for ln in out.getvalue().splitlines() if "Interrupted" in ln]
    assert lines == [f"Interrupted: saved to {tmp_path / 'game.json'}."]
    assert "Traceback" not in out.getvalue()
    assert saved_actions(tmp_path / "game.json") == rec.actions and len(rec.actions) >= 3


def test_play_unwritable_save_path_rescues_the_game(tmp_path: Path, monkeypatch) -> None:
    (tmp_path / "blocker").write_text("")
    monkeypatch.chdir(tmp_path)
    out = io.StringIO()
    s = PlaySession("china", "random", 4, tmp_path / "blocker" / "game.json",
                    console=Console(file=out, width=300), input_fn=scripted(["1"], None))
    rec = s.run()
    rescued = list(tmp_path.glob("evenstar_game_rescue_*.json"))
    assert len(rescued) == 1 and f"Saved to {rescued[0]}" in out.getvalue()
    assert saved_actions(rescued[0]) == rec.actions


def test_play_command_refuses_an_unusable_save_path_up_front(tmp_path: Path) -> None:
    (tmp_path / "f").write_text("")
    result = CliRunner().invoke(app, ["play", "--save", str(tmp_path / "f" / "g.json")],
                                input="1\n")
    assert result.exit_code == 2 and "--save" in result.output
    assert "cannot write" in flat(result.output)
    result = CliRunner().invoke(app, ["play", "--save", str(tmp_path)], input="1\n")
    assert result.exit_code == 2 and "is a folder" in flat(result.output)


# ---------------------------------------------------------------- play: hidden information


def test_play_as_china_never_shows_the_us_secret_choices(tmp_path: Path) -> None:
    """R14/R16: the US's modifier card and headline are secret until both are revealed."""
    seen: dict[str, int] = {"modifier": 0, "headline": 0}
    holder: dict[str, PlaySession] = {}
    out = io.StringIO()

    def read(prompt: str) -> str:
        g = holder["s"].game
        kind = g.decision.kind
        if kind in seen:
            text = out.getvalue()
            assert "(usa): Modifier" not in text and "(usa): Headline" not in text
            if kind == "headline":
                card = int(g.state.misc[M_HEADLINE])
                if card >= 0:  # the US chose first: its card is nowhere since this turn began
                    this_turn = text[text.rfind(f"turn {g.turn} begins"):]
                    assert g.content.cards[card].name not in this_turn
            seen[kind] += 1
        if g.turn >= 4:
            raise EOFError
        return "1"

    s = PlaySession("china", "heuristic", 1, tmp_path / "g.json",
                    console=Console(file=out, width=200), input_fn=read)
    holder["s"] = s
    s.run()
    assert seen["headline"] >= 3 and seen["modifier"] >= 1, seen
    text = out.getvalue()
    assert "chooses its headline card (secret until both are revealed)" in text
    assert "chooses its modifier card (secret until both are revealed)" in text
    assert "US headlines" in text and "(modifier cards: US" in text  # revealed afterwards
    draws = re.findall(r"US draws (.*)", text)  # China's view: the US draws unnamed
    assert draws and all(d.startswith(("a card", "history card")) for d in draws), draws


# ---------------------------------------------------------------- record files


def finished_record(tmp_path: Path) -> dict:
    s, _ = session(tmp_path, [])
    s.run()
    return json.loads((tmp_path / "game.json").read_text())


@pytest.fixture(scope="module")
def good_record(tmp_path_factory) -> dict:
    return finished_record(tmp_path_factory.mktemp("rec"))


def bad_files(good: dict) -> dict[str, tuple[bytes, str]]:
    """name -> (file content, what the error line must say)."""
    n = len(good["actions"])
    return {
        "list": (b"[1, 2, 3]", "expected a JSON object, found list"),
        "number": (b"7", "expected a JSON object, found int"),
        "not_utf8": ('{"seed": 1, "actions": [], "x": "é"}'.encode("latin-1"),
                     "not UTF-8 text"),
        "deep": (b"[" * 200_000 + b"]" * 200_000, "nested too deeply"),
        "invalid_json": (b"{seed: 1", "invalid JSON"),
        "no_actions": (json.dumps({"seed": 1}).encode(), "no field 'actions'"),
        "seed_text": (json.dumps({"seed": "one", "actions": []}).encode(),
                      "seed must be an integer"),
        "action_float": (json.dumps({**good, "actions": [*good["actions"][:5], 1.5]}).encode(),
                         "action 5 must be an integer"),
        "illegal": (json.dumps({**good, "actions": [*good["actions"][:5], 10**6]}).encode(),
                    f"action 5 ({10**6}) is not legal"),
        "after_end": (json.dumps({**good, "actions": [*good["actions"], 0]}).encode(),
                      f"action {n} (0) comes after the end of the game"),
        "other_content": (json.dumps({**good, "content": "0" * 16}).encode(),
                          "recorded with other game content"),
    }


@pytest.mark.parametrize("command", ["replay", "render"])
@pytest.mark.parametrize("case", ["list", "number", "not_utf8", "deep", "invalid_json",
                                  "no_actions", "seed_text", "action_float", "illegal",
                                  "after_end", "other_content"])
def test_bad_record_files_are_one_clear_line(tmp_path: Path, good_record: dict,
                                             command: str, case: str) -> None:
    content, message = bad_files(good_record)[case]
    path = tmp_path / "bad.json"
    path.write_bytes(content)
    args = [command, str(path)] + (["--no-pause"] if command == "replay" else
                                   ["--out", str(tmp_path / "m.png")])
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 1, result.output
    assert not isinstance(result.exception, Exception) or isinstance(result.exception,
                                                                     SystemExit)
    lines = [ln for ln in result.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0], lines
    assert not (tmp_path / "m.png").exists()


def test_replay_and_render_accept_the_good_record(tmp_path: Path, good_record: dict) -> None:
    path = tmp_path / "good.json"
    path.write_text(json.dumps(good_record))
    assert CliRunner().invoke(app, ["replay", str(path), "--no-pause"]).exit_code == 0
    result = CliRunner().invoke(app, ["render", str(path), "--out", str(tmp_path / "m.png")])
    assert result.exit_code == 0 and (tmp_path / "m.png").stat().st_size > 0


# ---------------------------------------------------------------- CLI arguments


@pytest.mark.parametrize("args,names", [
    (["arena", "random", "cautious", "--games", "0"], ["--games", "greater than or equal to 1"]),
    (["arena", "random", "cautious", "--workers", "0"], ["--workers"]),
    (["arena", "random", "--games", "1"], ["two agents"]),
    (["arena", "random", "nosuchagent", "--games", "1"], ["nosuchagent"]),
    (["balance", "--backend", "foo"], ["--backend", "foo"]),
    (["balance", "--forbid", "nosuchcard"], ["--forbid", "nosuchcard"]),
    (["balance", "--forbid", "gulf_wars"], ["gulf_war"]),  # the close match is suggested
    (["balance", "--games", "-2"], ["--games", "greater than or equal to 1"]),
    (["balance", "--workers", "0"], ["--workers"]),
    (["balance", "--variant", "nosuchvariant"], ["nosuchvariant"]),
    (["balance", "--usa", "robot"], ["--usa", "robot"]),
    (["play", "--as", "russia"], ["--as", "russia"]),
    (["play", "--opponent", "robot"], ["--opponent", "robot"]),
    (["play", "--seed", "-1"], ["--seed"]),
    (["render", "x.json", "--turn", "-1"], ["--turn"]),
    (["skill-curve", "robot"], ["AGENTS", "robot"]),
    (["skill-curve", "random", "--games", "0"], ["--games", "greater than or equal to 1"]),
    # issue 36: numbers out of range were tracebacks or hangs, spec arguments were accepted
    (["arena", "random", "cautious", "--seed", str(2**64)], ["--seed", "9223372036854775807"]),
    (["play", "--seed", str(2**64)], ["--seed", "9223372036854775807"]),
    (["balance", "--seed", str(2**64)], ["--seed", "9223372036854775807"]),
    (["skill-curve", "random", "--seed", str(2**64)], ["--seed"]),
    (["arena", "random", "cautious", "--seed", str(2**63 - 1), "--games", "2"],
     ["go past 2**63-1"]),
    (["arena", "random", "cautious", "--games", str(10**12)], ["--games", "100000"]),
    (["ratings", "random", "cautious", "--games", str(10**12)], ["--games", "100000"]),
    (["balance", "--games", str(10**12)], ["--games", "100000"]),
    (["arena", "random", "cautious", "--workers", str(10**6)], ["--workers", "512"]),
    (["arena", "ismcts:-1", "random"], ["ismcts: ITER must be a whole number in 1.."]),
    (["arena", "ismcts:0", "random"], ["ismcts: ITER must be a whole number in 1.."]),
    (["arena", "ismcts:10:nan", "random"], ["ismcts: SECONDS must be a number of seconds"]),
    (["arena", "ismcts:10:inf", "random"], ["ismcts: SECONDS must be a number of seconds"]),
    (["arena", "openspiel-ismcts:-1", "random"], ["openspiel-ismcts: SIMS must be a whole"]),
    (["arena", "alphaism:5,c=nan", "random"], ["alphaism: c must be a finite number"]),
    (["balance", "--variants", "/dev/zero"], ["/dev/zero", "a character device, not a"]),
    (["render", "x.json", "--out", "m" * 300 + ".png"], ["--out", "File name too long"]),
    (["arena", "random", "cautious", "--ray-address", "not an address"],
     ["--ray-address", "is not HOST:PORT"]),
    (["balance", "--ray-address", "localhost:1"], ["--ray-address", "nothing answers"]),
])
def test_bad_arguments_fail_before_any_work(tmp_path: Path, monkeypatch, args: list[str],
                                            names: list[str]) -> None:
    import experiments.arena
    import experiments.balance
    import experiments.skill_curve

    def no_games(*a, **k):
        raise AssertionError("a game was played despite a bad argument")
    monkeypatch.setattr(experiments.arena, "run_games", no_games)
    monkeypatch.setattr(experiments.balance, "run_study", no_games)
    monkeypatch.setattr(experiments.skill_curve, "run_study", no_games)
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, args, input="1\n")
    assert result.exit_code == 2, result.output
    text = flat(result.output)
    for name in names:
        assert name in text, (name, text)
    assert "Traceback" not in result.output


@pytest.mark.parametrize("args,target", [
    (["arena", "random", "cautious", "--games", "1", "--out", "OUT"], "experiments.arena.arena"),
    (["balance", "--games", "1", "--out", "OUT"], "experiments.balance.run_study"),
    (["replay", "REC", "--no-pause"], "experiments.records.replay"),
])
def test_ctrl_c_prints_one_line_and_exits_130(tmp_path: Path, monkeypatch, good_record: dict,
                                              args: list[str], target: str) -> None:
    (tmp_path / "rec.json").write_text(json.dumps(good_record))
    args = [str(tmp_path / "out") if a == "OUT" else str(tmp_path / "rec.json") if a == "REC"
            else a for a in args]

    def interrupted(*a, **k):
        raise KeyboardInterrupt
    monkeypatch.setattr(target, interrupted)
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 130
    assert [ln for ln in result.output.splitlines() if ln.strip()] == ["Interrupted."]


def test_pool_workers_leave_ctrl_c_to_the_main_process() -> None:
    import signal

    from experiments.arena import ignore_sigint

    old = signal.getsignal(signal.SIGINT)
    try:
        ignore_sigint()
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, old)


# ---------------------------------------------------------------- output folders


@pytest.mark.parametrize("command", [["arena", "random", "cautious", "--games", "1"],
                                     ["balance", "--games", "1"]])
def test_unusable_output_folder_fails_before_the_first_game(tmp_path: Path, monkeypatch,
                                                            command: list[str]) -> None:
    import experiments.arena
    import experiments.balance

    played = []
    monkeypatch.setattr(experiments.arena, "_play", lambda job: played.append(job))
    monkeypatch.setattr(experiments.balance, "play_job", lambda *a: played.append(a))
    (tmp_path / "file").write_text("not a folder")
    out = tmp_path / "file" / "results"
    result = CliRunner().invoke(app, [*command, "--workers", "1", "--out", str(out)])
    assert result.exit_code == 1 and not played
    lines = [ln for ln in result.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and "cannot write results there" in lines[0] and str(out) in lines[0]


def test_arena_function_checks_its_folder_before_playing(tmp_path: Path, monkeypatch) -> None:
    import experiments.arena
    from experiments.files import OutputDirError

    monkeypatch.setattr(experiments.arena, "run_games",
                        lambda *a, **k: pytest.fail("played before checking the folder"))
    (tmp_path / "file").write_text("")
    with pytest.raises(OutputDirError, match="cannot write results"):
        experiments.arena.arena(["random", "cautious"], 1, tmp_path / "file" / "x")
    with pytest.raises(ValueError, match="games"):
        experiments.arena.arena(["random", "cautious"], 0, tmp_path / "ok")


# ---------------------------------------------------------------- markup in user text


def test_bracketed_names_are_text_not_markup(tmp_path: Path, good_record: dict) -> None:
    """Rich markup in a file name or record field is printed, never parsed (MarkupError)."""
    (tmp_path / "f").write_text("")
    s, out = session(tmp_path, ["1", f"save {tmp_path}/f/[/red]x.json", "load [/]missing.json",
                                "1"], then=None)
    rec = s.run()
    text = flat(out.getvalue())
    assert "[/red]x.json" in text and "[/]missing.json" in text and len(rec.actions) >= 2
    rec_path = tmp_path / "[red]odd.json"
    rec_path.write_text(json.dumps({**good_record, "agents": {"usa": "[/]", "china": "[b]"}}))
    result = CliRunner().invoke(app, ["replay", str(rec_path), "--no-pause"])
    assert result.exit_code == 0 and "'usa': '[/]'" in result.output
    result = CliRunner().invoke(app, ["replay", str(tmp_path / "[/red]none.json")])
    assert result.exit_code == 1 and "[/red]none.json" in result.output


# ---------------------------------------------------------------- issue 36


def test_replay_of_a_fifo_is_one_line_not_a_hang(tmp_path: Path) -> None:
    """`replay` of a FIFO blocked forever in open() (run in a subprocess with a timeout)."""
    import os
    import subprocess
    import sys

    os.mkfifo(tmp_path / "rec.json")
    for command in (["replay", "--no-pause"], ["render", "--out", str(tmp_path / "m.png")]):
        done = subprocess.run([sys.executable, "-m", "experiments.cli", command[0],
                               str(tmp_path / "rec.json"), *command[1:]],
                              cwd=Path(__file__).resolve().parent.parent, capture_output=True,
                              text=True, timeout=120)
        lines = [ln for ln in (done.stdout + done.stderr).splitlines() if ln.strip()]
        assert done.returncode == 1 and len(lines) == 1, lines
        assert "cannot read a game record: a FIFO, not a regular file" in lines[0]


def test_play_shows_the_seed_only_when_the_game_ends(tmp_path: Path) -> None:
    """The seed fixes the hidden cards and dice: not shown during play, shown at the end,
    and kept in the saved record either way."""
    seed = 987_654_321
    s, out = session(tmp_path, ["1", "1", "quit"], seed=seed)
    s.run()
    assert str(seed) not in out.getvalue()
    assert records.load(tmp_path / "game.json").seed == seed
    s, out = session(tmp_path, [], seed=seed)
    rec = s.run()
    text = flat(out.getvalue())
    assert rec.winner is not None or rec.reason
    assert text.count(str(seed)) == 1 and f"the game's seed was {seed}" in text
    assert text.index(str(seed)) > text.index("Game over")


def test_play_load_of_a_fifo_or_device_keeps_playing(tmp_path: Path) -> None:
    import os
    import signal

    os.mkfifo(tmp_path / "fifo.json")

    def hung(*_):
        raise TimeoutError("waited on the FIFO")
    old = signal.signal(signal.SIGALRM, hung)
    signal.alarm(60)  # a regression fails here instead of hanging the test run
    try:
        s, out = session(tmp_path, ["1", f"load {tmp_path / 'fifo.json'}", "load /dev/zero",
                                    "1"], then=None)
        rec = s.run()
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    text = flat(out.getvalue())
    assert "a FIFO, not a regular file" in text and "a character device, not a" in text
    assert len(rec.actions) >= 2 and saved_actions(tmp_path / "game.json") == rec.actions
