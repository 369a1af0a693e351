"""Long jobs keep every finished game (issue 36, "Data lost"): arena and ratings append
each game as it finishes and resume after SIGKILL, a folder of another run is refused
(never pruned or replaced without --force), study folders are locked against a second
writer, and a bad line is reported by its line number, never a KeyError."""

from __future__ import annotations

import contextlib
import errno
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
import warnings
from pathlib import Path

import pytest
from helpers import sigkill_when
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from evenstar_env.safe_io import read_bounded
from experiments import arena, balance, gamelog, ratings
from experiments.balance import Study, run_study
from experiments.cli import app
from experiments.files import FolderLockedError, folder_lock
from experiments.gamelog import ResumeWarning

ROOT = Path(__file__).resolve().parent.parent
PAIR = ["random", "cautious"]


def lines_of(path: Path) -> list[str]:
    """The whole lines of `path` (a last line without its newline is a write in progress,
    or one that a SIGKILL cut between two pages: not a line)."""
    return [ln for ln in path.read_text().split("\n")[:-1] if ln.strip()]


def game_keys(path: Path) -> list[tuple]:
    return [arena.game_key(arena.parse_game(json.loads(ln))) for ln in lines_of(path)]


def one_line(result) -> str:
    lines = [ln for ln in result.output.splitlines() if ln.strip()]
    assert len(lines) == 1, result.output
    return lines[0]


# ---------------------------------------------------------------- SIGKILL and resume

SLOW_CLI = textwrap.dedent("""
    import sys, time
    import experiments.arena as arena
    real = arena._play
    def slow(job):
        time.sleep(0.4)
        return real(job)
    arena._play = slow
    from experiments.cli import app
    app(sys.argv[1:])
""")


def kill_after(args: list[str], games: Path, k: int) -> int:
    """Run the CLI with 0.4 s a game, SIGKILL it once `k` games are on disk; the number
    of complete games it left."""
    sigkill_when([sys.executable, "-c", SLOW_CLI, *args],
                 lambda: games.exists() and len(lines_of(games)) >= k, ROOT)
    return len(lines_of(games))


@pytest.mark.parametrize("command", ["arena", "ratings"])
def test_sigkill_then_rerun_loses_and_replays_no_game(tmp_path: Path, monkeypatch,
                                                      command: str) -> None:
    """k games on disk, SIGKILL, rerun: every finished game kept, none played twice, and
    the results equal those of an uninterrupted run."""
    out, whole = tmp_path / "killed", tmp_path / "whole"
    args = [command, *PAIR, "--games", "4", "--seed", "11", "--workers", "1",
            "--out", str(out)]
    left = kill_after(args, out / "games.jsonl", 3)
    assert 3 <= left < 8  # killed mid-run
    # A kill inside the one write of a line can cut it at a page boundary (Linux stops a
    # write between pages for SIGKILL): that game was not recorded, the rerun reports the
    # torn tail, moves it aside and plays the game again.
    torn = not (out / "games.jsonl").read_text().endswith("\n")
    before = game_keys(out / "games.jsonl")
    played: list[arena.Job] = []
    real = arena._play
    monkeypatch.setattr(arena, "_play", lambda job: played.append(job) or real(job))
    run = (lambda o: arena.arena(PAIR, 4, o, workers=1, seed0=11, progress=False)) \
        if command == "arena" else \
        (lambda o: ratings.round_robin(PAIR, 4, o, workers=1, seed0=11, progress=False))
    with pytest.warns(ResumeWarning) if torn else contextlib.nullcontext():
        resumed = run(out)
    assert len(played) == 8 - left
    assert not {arena.game_key(j) for j in played} & set(before)  # no game replayed
    after = game_keys(out / "games.jsonl")
    assert after[:left] == before and len(after) == len(set(after)) == 8
    uninterrupted = run(whole)
    assert sorted(after) == sorted(game_keys(whole / "games.jsonl"))
    if command == "arena":
        assert resumed["results"] == uninterrupted["results"]
        assert resumed["ratings"] == uninterrupted["ratings"]
    else:
        assert resumed["ratings"] == uninterrupted["ratings"]
        assert resumed["pairwise"] == uninterrupted["pairwise"]
        assert resumed["config"]["reused"] == left
    by_key = {arena.game_key(arena.parse_game(json.loads(ln))): json.loads(ln)
              for ln in lines_of(whole / "games.jsonl")}
    for ln in lines_of(out / "games.jsonl"):  # the same games, move for move
        rec = json.loads(ln)
        assert by_key[arena.game_key(arena.parse_game(rec))] == rec


def test_each_game_is_on_disk_before_the_next_one_starts(tmp_path: Path, monkeypatch) -> None:
    out = tmp_path / "a"
    seen: list[int] = []
    real = arena._play

    def spy(job):
        path = out / "games.jsonl"
        seen.append(len(lines_of(path)) if path.exists() else 0)
        return real(job)
    monkeypatch.setattr(arena, "_play", spy)
    arena.arena(PAIR, 2, out, workers=1, progress=False)
    assert seen == [0, 1, 2, 3]


# ---------------------------------------------------------------- a folder of another run


@pytest.fixture
def arena_out(tmp_path: Path) -> Path:
    out = tmp_path / "a"
    arena.arena(PAIR, 2, out, workers=1, progress=False)
    return out


def test_an_existing_out_is_resumed_not_replaced(arena_out: Path, monkeypatch) -> None:
    """Issue 36: rerunning into an existing --out replaced it (6 games -> 2)."""
    before = lines_of(arena_out / "games.jsonl")
    monkeypatch.setattr(arena, "_play", lambda job: pytest.fail("a finished game was replayed"))
    arena.arena(PAIR, 2, arena_out, workers=1, progress=False)
    assert lines_of(arena_out / "games.jsonl") == before


@pytest.mark.parametrize("command,other,message", [
    ("arena", ["random", "heuristic", "--games", "2"], "agents this command does not name "
     "(cautious)"),
    ("arena", [*PAIR, "--games", "1"], "seeds this command does not play (1..1)"),
    ("arena", [*PAIR, "--games", "2", "--seed", "5"], "seeds this command does not play"),
    ("ratings", ["random", "heuristic", "--games", "2", "--seed", "0"],
     "agents this command does not name (cautious)"),
])
def test_a_folder_of_another_run_is_refused_in_one_line(arena_out: Path, command: str,
                                                        other: list[str], message: str) -> None:
    """A dropped agent's games are never deleted: the command stops in one line, before
    any game, and leaves every file as it was."""
    files = {p.name: p.read_bytes() for p in arena_out.iterdir() if p.is_file()}
    result = CliRunner().invoke(app, [command, *other, "--workers", "1",
                                      "--out", str(arena_out)])
    assert result.exit_code == 1
    line = one_line(result)
    assert line.startswith("error: ") and message in line and "--force" in line
    assert {p.name: p.read_bytes() for p in arena_out.iterdir() if p.is_file()} == files


def test_force_replaces_the_folders_games(arena_out: Path) -> None:
    result = CliRunner().invoke(app, ["arena", "random", "heuristic", "--games", "1",
                                      "--workers", "1", "--out", str(arena_out), "--force"])
    assert result.exit_code == 0, result.output
    keys = game_keys(arena_out / "games.jsonl")
    assert sorted(keys) == [(0, "heuristic", "random"), (0, "random", "heuristic")]


def test_ratings_never_drop_a_named_agents_games(tmp_path: Path) -> None:
    """Adding an agent keeps the earlier games; dropping it again is refused."""
    out = tmp_path / "r"
    ratings.round_robin([*PAIR, "heuristic"], 1, out, workers=1, progress=False)
    with pytest.raises(ValueError, match=r"4 game\(s\) of agents this command does not name "
                                         r"\(heuristic\)"):
        ratings.round_robin(PAIR, 1, out, workers=1, progress=False)
    assert len(lines_of(out / "games.jsonl")) == 6


# ---------------------------------------------------------------- bad lines


BAD_LINES = {
    "torn": ("{\"seed\": 1, \"agents\"", "line 2: not a whole JSON line"),
    "no_seed": (json.dumps({"agents": {"usa": "random", "china": "cautious"}, "actions": []}),
                "line 2: not a game record: no field 'seed'"),
    "seed_text": (json.dumps({"seed": "x", "agents": {}, "actions": []}),
                  "line 2: not a game record: seed must be an integer"),
    "no_agents": (json.dumps({"seed": 0, "actions": []}),
                  "line 2: field 'agents' must map usa and china"),
    "list": ("[1, 2]", "line 2: not a game record: expected a JSON object"),
}


@pytest.mark.parametrize("case", sorted(BAD_LINES))
def test_a_bad_arena_line_is_reported_by_number_and_moved_aside(arena_out: Path, monkeypatch,
                                                                case: str) -> None:
    """The bad line is named with its number, kept in games.jsonl.damaged, and its game
    (if any) played again; every other game is kept."""
    bad, message = BAD_LINES[case]
    lines = lines_of(arena_out / "games.jsonl")
    (arena_out / "games.jsonl").write_text("\n".join([lines[0], bad, *lines[2:]]) + "\n")
    with pytest.warns(ResumeWarning, match="skipped 1 damaged") as caught:
        arena.arena(PAIR, 2, arena_out, workers=1, progress=False)
    assert message in str(caught[0].message)
    assert lines_of(arena_out / "games.jsonl.damaged") == [bad]
    assert sorted(game_keys(arena_out / "games.jsonl")) == sorted(
        arena.game_key(j) for j in arena.jobs_for(PAIR, 2))


def test_the_cli_reports_a_bad_line_as_one_warning_line(arena_out: Path) -> None:
    with (arena_out / "games.jsonl").open("a") as fh:
        fh.write('{"seed": 3}\n')
    result = CliRunner().invoke(app, ["arena", *PAIR, "--games", "2", "--workers", "1",
                                      "--out", str(arena_out)])
    assert result.exit_code == 0, result.output
    warned = [ln for ln in result.output.splitlines() if ln.startswith("warning:")]
    assert len(warned) == 1 and "line 5: not a game record: no field 'actions'" in warned[0]
    assert "Traceback" not in result.output


@pytest.fixture
def study_out(tmp_path: Path) -> Path:
    out = tmp_path / "s"
    run_study(Study([balance.Variant(name="baseline")], usa="cautious", china="random",
                    games=2, workers=1), out, progress=False)
    return out


def tiny_study() -> Study:
    return Study([balance.Variant(name="baseline")], usa="cautious", china="random", games=2,
                 workers=1)


@pytest.mark.parametrize("field", ["seed", "winner", "vp_sources", "cards"])
def test_a_balance_line_missing_a_field_no_longer_blocks_every_resume(study_out: Path,
                                                                      field: str) -> None:
    """Issue 36: one well-formed line without 'seed' gave KeyError: 'seed' on every resume."""
    lines = lines_of(study_out / "games.jsonl")
    rec = json.loads(lines[1])
    del rec[field]
    (study_out / "games.jsonl").write_text("\n".join([lines[0], json.dumps(rec),
                                                      *lines[2:]]) + "\n")
    with pytest.warns(ResumeWarning, match=f"line 2: no field '{field}'"):
        summary = run_study(tiny_study(), study_out, progress=False)
    assert summary["variants"]["baseline"]["games"] == 4
    run_study(tiny_study(), study_out, progress=False)  # and the next resume is clean


def test_a_balance_line_of_the_wrong_types_is_reported(study_out: Path) -> None:
    lines = lines_of(study_out / "games.jsonl")
    rec = {**json.loads(lines[0]), "seed": "zero"}
    (study_out / "games.jsonl").write_text("\n".join([json.dumps(rec), *lines[1:]]) + "\n")
    with pytest.warns(ResumeWarning, match="line 1: field 'seed' must be int, not str"):
        run_study(tiny_study(), study_out, progress=False)


def test_a_refused_resume_does_not_rewrite_the_torn_file(study_out: Path) -> None:
    """Issue 36: a resume refused for its data stamp still rewrote the torn file."""
    text = (study_out / "games.jsonl").read_text()
    torn = text + text.splitlines()[0][:25]
    (study_out / "games.jsonl").write_text(torn)
    (study_out / balance.STAMP).write_text("0123456789abcdef\n")
    with pytest.raises(ValueError, match="played on data 0123456789abcdef"), \
            pytest.warns(ResumeWarning, match="line 5: not a whole JSON line"):
        run_study(tiny_study(), study_out, progress=False)
    assert (study_out / "games.jsonl").read_text() == torn
    assert not (study_out / "games.jsonl.damaged").exists()


# ---------------------------------------------------------------- locks


def test_a_second_writer_is_refused_while_the_first_holds_the_folder(tmp_path: Path,
                                                                     monkeypatch) -> None:
    monkeypatch.setattr(balance, "play_job", lambda *a: pytest.fail("a game was played"))
    monkeypatch.setattr(arena, "_play", lambda *a: pytest.fail("a game was played"))
    for out in (tmp_path / "b", tmp_path / "a", tmp_path / "r"):
        out.mkdir()
        with folder_lock(out), pytest.raises(FolderLockedError,
                                             match=f"process {os.getpid()}"):
            if out.name == "b":
                run_study(tiny_study(), out, progress=False)
            elif out.name == "a":
                arena.arena(PAIR, 1, out, workers=1, progress=False)
            else:
                ratings.round_robin(PAIR, 1, out, workers=1, progress=False)
        assert not (out / "games.jsonl").exists()


def test_two_balance_processes_on_one_folder_play_each_game_once(tmp_path: Path) -> None:
    """Issue 36: two balance processes on one folder both played every game; now the
    second stops at once with one error line while the first plays."""
    out = tmp_path / "s"
    go = tmp_path / "go"  # the first run's later games wait for it: the second meets the lock
    slow = textwrap.dedent(f"""
        import sys, time, pathlib
        import experiments.balance as balance
        real = balance.play_job
        played = []
        def slow(*a):
            t = time.monotonic()
            while played and not pathlib.Path({str(go)!r}).exists() \\
                    and time.monotonic() - t < 120:
                time.sleep(0.05)
            played.append(1)
            return real(*a)
        balance.play_job = slow
        from experiments.cli import app
        app(sys.argv[1:])
    """)
    args = ["balance", "--variant", "baseline", "--usa", "cautious", "--china", "random",
            "--games", "4",
            "--workers", "1", "--out", str(out)]
    first = subprocess.Popen([sys.executable, "-c", slow, *args], cwd=ROOT,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 120
        while not (out / "games.jsonl").exists():
            assert first.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        second = subprocess.run([sys.executable, "-m", "experiments.cli", *args], cwd=ROOT,
                                capture_output=True, text=True, timeout=120)
        go.touch()
        assert first.wait(120) == 0, first.stderr.read().decode()
    finally:
        if first.poll() is None:
            first.kill()
    assert second.returncode == 1
    err = [ln for ln in second.stderr.splitlines() if ln.strip()]
    assert len(err) == 1 and "another run is writing this folder" in err[0], second.stderr
    keys = [json.loads(ln)["key"] for ln in lines_of(out / "games.jsonl")]
    assert len(keys) == len(set(keys)) == 8


def test_the_lock_goes_with_a_killed_process(tmp_path: Path) -> None:
    """A SIGKILLed holder leaves no stale lock."""
    code = ("import sys, time; from experiments.files import folder_lock\n"
            "with folder_lock(sys.argv[1]):\n    print('held', flush=True); time.sleep(60)")
    proc = subprocess.Popen([sys.executable, "-c", code, str(tmp_path)], cwd=ROOT,
                            stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "held"
        with pytest.raises(FolderLockedError, match=f"process {proc.pid}"), \
                folder_lock(tmp_path):
            pass
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(30)
    finally:
        if proc.poll() is None:
            proc.kill()
    with folder_lock(tmp_path):
        pass


@pytest.mark.parametrize("kw,message", [
    (dict(games=10**12), "games must be an integer in 1..100,000"),
    (dict(games=0), "games must be an integer in 1..100,000"),
    (dict(workers=10**9), "workers must be an integer in 1..512"),
    (dict(seed0=2**64), "first seed must be an integer in 0..2\\*\\*63-1"),
    (dict(seed0=-1), "first seed must be an integer"),
    (dict(seed0=True), "first seed must be an integer"),
    (dict(seed0=2**63 - 1, games=2), "go past 2\\*\\*63-1"),
])
def test_the_python_api_bounds_its_numbers_too(tmp_path: Path, monkeypatch, kw: dict,
                                               message: str) -> None:
    monkeypatch.setattr(arena, "_play", lambda *a: pytest.fail("a game was played"))
    monkeypatch.setattr(balance, "play_job", lambda *a: pytest.fail("a game was played"))
    settings = {"games": 1, "workers": 1, "seed0": 0, **kw}
    with pytest.raises(ValueError, match=message):
        arena.arena(PAIR, settings["games"], tmp_path / "a", workers=settings["workers"],
                    seed0=settings["seed0"], progress=False)
    with pytest.raises(ValueError, match=message):
        ratings.round_robin(PAIR, settings["games"], tmp_path / "r",
                            workers=settings["workers"], seed0=settings["seed0"],
                            progress=False)
    with pytest.raises(ValueError, match=message):
        run_study(Study([balance.Variant(name="baseline")], games=settings["games"],
                        workers=settings["workers"], seed0=settings["seed0"]),
                  tmp_path / "b", progress=False)
    assert not any(tmp_path.iterdir())


def test_numpy_integers_are_whole_numbers(tmp_path: Path) -> None:
    import numpy as np

    summary = arena.arena(PAIR, np.int64(1), tmp_path / "a", workers=np.int32(1),
                          seed0=np.uint64(3), progress=False)
    assert sum(r["games"] for r in summary["results"] if r["side"] == "both") == 4


@pytest.mark.parametrize("kind", ["fifo", "folder"])
@pytest.mark.parametrize("command", ["arena", "ratings", "balance"])
def test_a_games_file_that_is_not_a_file_is_one_line(tmp_path: Path, kind: str,
                                                     command: str) -> None:
    out = tmp_path / "o"
    out.mkdir()
    if kind == "fifo":
        os.mkfifo(out / "games.jsonl")
    else:
        (out / "games.jsonl").mkdir()
    args = ({"balance": ["balance", "--variant", "baseline", "--games", "1"]}
            .get(command, [command, *PAIR, "--games", "1"]))

    def hung(*_):
        raise TimeoutError("waited on the FIFO")
    old = signal.signal(signal.SIGALRM, hung)
    signal.alarm(60)  # a regression fails here instead of hanging the test run
    try:
        result = CliRunner().invoke(app, [*args, "--workers", "1", "--out", str(out)])
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    assert result.exit_code == 1, result.output
    assert "games.jsonl: not a regular file" in one_line(result)


def test_a_refused_arena_resume_leaves_a_torn_file_as_it_was(arena_out: Path) -> None:
    torn = (arena_out / "games.jsonl").read_text() + '{"seed": 1, "agen'
    (arena_out / "games.jsonl").write_text(torn)
    result = CliRunner().invoke(app, ["arena", "random", "heuristic", "--games", "2",
                                      "--workers", "1", "--out", str(arena_out)])
    assert result.exit_code == 1
    lines = [ln for ln in result.output.splitlines() if ln.strip()]
    assert len(lines) == 2 and "line 5: not a whole JSON line" in lines[0]
    assert lines[1].startswith("error: ") and "does not name (cautious)" in lines[1]
    assert (arena_out / "games.jsonl").read_text() == torn
    assert not (arena_out / "games.jsonl.damaged").exists()


def test_a_failed_write_is_one_line_and_keeps_the_games(tmp_path: Path, monkeypatch) -> None:
    """A full disk in the middle of a run: one error line; the games written stay."""
    import errno

    import experiments.files as files

    real, calls = files.os.write, []

    def full(fd: int, data: bytes) -> int:
        calls.append(1)
        if len(calls) > 2:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(fd, data)
    monkeypatch.setattr(files.os, "write", full)
    out = tmp_path / "a"
    result = CliRunner().invoke(app, ["arena", *PAIR, "--games", "2", "--workers", "1",
                                      "--out", str(out)])
    assert result.exit_code == 1
    assert "No space left on device (the games finished so far are kept)" in one_line(result)
    assert len(game_keys(out / "games.jsonl")) == 2


# ---------------------------------------------------------------- invariants


def _parse_kv(data: object) -> dict:
    if not isinstance(data, dict) or not isinstance(data["k"], int):
        raise TypeError("field 'k' must be int")
    return data


LINE = st.one_of(
    st.integers(0, 6).map(lambda k: ("good", json.dumps({"k": k, "v": "x" * k}))),
    st.sampled_from([("bad", '{"k": 1, "v'), ("bad", '{"v": 2}'), ("bad", "[1]"),
                     ("bad", '{"k": "one"}'), ("bad", "not json")]))


@settings(max_examples=60, deadline=None)
@given(st.lists(LINE, max_size=12), st.booleans())
def test_read_keeps_each_good_key_once_and_repair_loses_nothing(tmp_path_factory, lines,
                                                                 torn_tail: bool) -> None:
    """Any mix of good, damaged and repeated lines: read keeps the first game of each key
    in order and names every other line; repair leaves a clean file of exactly those
    games and every damaged line in NAME.damaged."""
    path = tmp_path_factory.mktemp("g") / "games.jsonl"
    text = "".join(line + "\n" for _, line in lines) + ('{"k": 9, "v"' if torn_tail else "")
    path.write_text(text)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ResumeWarning)
        got = gamelog.read(path, _parse_kv, lambda r: r["k"])
    expect, seen = [], set()
    for kind, line in lines:
        k = json.loads(line)["k"] if kind == "good" else None
        if kind == "good" and k not in seen:
            seen.add(k)
            expect.append(json.loads(line))
    assert got.games == expect
    bad = [ln for kind, ln in lines if kind == "bad"] + (['{"k": 9, "v"'] if torn_tail else [])
    assert [t for _, _, t in got.damaged] == bad
    assert len(got.repeated) == sum(kind == "good" for kind, _ in lines) - len(expect)
    gamelog.repair(got)
    again = gamelog.read(path, _parse_kv, lambda r: r["k"])
    assert again.clean and again.games == expect
    damaged = path.with_name("games.jsonl.damaged")
    assert (damaged.read_text().splitlines() if damaged.exists() else []) == bad


@settings(max_examples=40, deadline=None)
@given(st.binary(max_size=3000), st.integers(0, 3000))
def test_read_bounded_returns_the_file_or_refuses_it(tmp_path_factory, data: bytes,
                                                     cap: int) -> None:
    path = tmp_path_factory.mktemp("f") / "x"
    path.write_bytes(data)
    if len(data) <= cap:
        assert read_bounded(path, cap) == data
    else:
        with pytest.raises(OSError) as err:
            read_bounded(path, cap)
        assert err.value.errno == errno.EFBIG


def test_a_study_never_mixes_in_games_of_other_agents_or_seeds(study_out: Path) -> None:
    """Games of another study in the folder stay on disk but out of this one's figures
    (they were counted as this study's before)."""
    before = lines_of(study_out / "games.jsonl")
    other = Study([balance.Variant(name="baseline")], usa="random", china="random", games=1,
                  workers=1)
    with pytest.warns(ResumeWarning, match="4 game\\(s\\) of other variants, agents or seeds"):
        summary = run_study(other, study_out, progress=False)
    assert summary["variants"]["baseline"]["games"] == 1
    assert summary["config"]["usa"] == "random"
    after = lines_of(study_out / "games.jsonl")
    assert after[:4] == before and len(after) == 5
    with pytest.warns(ResumeWarning, match="1 game\\(s\\) of other"):
        assert run_study(tiny_study(), study_out, progress=False)["variants"]["baseline"][
            "games"] == 4
