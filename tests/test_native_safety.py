"""No input reachable from Python crashes the process (issue 36, docs/native.md).

Every former crash of the native core is replayed in a subprocess, so that a segfault
fails its test instead of killing pytest: tampered snapshot frames and misc slots,
writes through the live state views, NativeBatch with more threads than the OS gives,
float actions and bad players.  Both backends must refuse the same snapshots with
SnapshotError; the fuzzer (scripts/fuzz.py) runs a short round.
"""

from __future__ import annotations

import contextlib
import copy
import json
import os
import pickle
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evenstar_env import Game
from evenstar_env.engine.validity import FRAME_ARGS
from evenstar_env.snapshot import SnapshotError

ROOT = Path(__file__).resolve().parents[1]
BACKENDS = ("python", "native")


def isolated(code: str, *, limit_as: int | None = None) -> str:
    """Run `code` in a fresh interpreter; its stdout.  A crash (signal) fails the test."""
    pre = ""
    if limit_as is not None:  # the address space left for thread stacks: the OS refuses
        pre = ("import resource\n"
               "from evenstar_env.native.batch import NativeBatch\n"
               "NativeBatch(1)\n"  # everything loaded before the limit
               "import re\n"
               "vm = int(re.search(r'VmSize:\\s+(\\d+)', open('/proc/self/status').read())[1])\n"
               f"lim = vm * 1024 + {limit_as}\n"
               "resource.setrlimit(resource.RLIMIT_AS, (lim, lim))\n")
    proc = subprocess.run([sys.executable, "-c", pre + textwrap.dedent(code)],
                          capture_output=True, text=True, cwd=ROOT, timeout=300,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert proc.returncode == 0, f"status {proc.returncode}: {proc.stderr[-2000:]}"
    return proc.stdout


# ----------------------------------------------------------------- snapshots
CRASH_FRAMES = [["eff", 32767, 0], ["mode", 0, 32767], ["history", 136, 0],
                ["choice", 32767, 0], ["modifier", 0, 1000]]


def test_crafted_frames_and_misc_slots_are_snapshot_errors_on_both_backends() -> None:
    """The snapshots of issue 36 that segfaulted (frame arguments out of range, the
    VP-source misc slot at 2**31-1) or corrupted the heap (["modifier", 0, 1000]) raise
    SnapshotError on both backends, and later from_dict calls in the process still work."""
    out = isolated(f"""
        import copy
        from evenstar_env import Game
        from evenstar_env.snapshot import SnapshotError
        g = Game(3, backend="python")
        for _ in range(5):
            g.step(int(g.legal_actions()[0]))
        d = g.to_dict()
        bad = []
        for fr in {CRASH_FRAMES!r}:
            e = copy.deepcopy(d)
            e["state"]["stack"].append(fr)
            bad.append(e)
        e = copy.deepcopy(d)
        e["state"]["misc"][35] = 2**31 - 1
        bad.append(e)
        for e in bad:
            for backend in ("python", "native"):
                try:
                    Game.from_dict(e, backend=backend)
                    print("accepted", backend)
                except SnapshotError as exc:
                    print("refused", backend, str(exc)[:60])
        assert Game.from_dict(d, backend="native").to_dict() == d
        print("after: fine")
    """)
    assert out.count("refused") == 2 * (len(CRASH_FRAMES) + 1)
    assert "accepted" not in out and "after: fine" in out


def _position(seed: int = 3, steps: int = 30) -> dict:
    g = Game(seed, backend="python")
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        if g.is_over:
            break
        g.step(int(rng.choice(g.legal_actions())))
    return g.to_dict()


POSITIONS = [_position(s, k) for s, k in ((3, 5), (4, 40), (5, 120), (6, 2000))]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), pos=st.integers(0, len(POSITIONS) - 1))
def test_both_backends_accept_and_refuse_the_same_snapshots(seed: int, pos: int) -> None:
    """A snapshot tampered by the fuzzer's mutations is accepted by both backends (and
    then gives the same state, which the C++ check accepts too) or refused by both with
    SnapshotError."""
    sys.path.insert(0, str(ROOT / "scripts"))
    import fuzz

    d = copy.deepcopy(POSITIONS[pos])
    fuzz._mutate(np.random.default_rng(seed), d, sorted(FRAME_ARGS))
    outcome = []
    for backend in BACKENDS:
        try:
            g = Game.from_dict(copy.deepcopy(d), backend=backend)
        except SnapshotError as exc:
            outcome.append(f"refused: {exc}")
            continue
        outcome.append(g.to_dict())
        if backend == "native":
            g._engine.clone()  # its views are out: validate.cpp checks the state here
    assert outcome[0] == outcome[1]


def test_a_result_reason_the_engine_never_gives_is_refused_by_both() -> None:
    """The native core cannot hold a free-text result (it keeps a reason code): both
    backends refuse it with SnapshotError (Python accepted it, native raised ValueError)."""
    d = POSITIONS[-1]
    assert d["state"]["over"]
    bad = copy.deepcopy(d)
    bad["state"]["result"][1] = "nonsense"
    for backend in BACKENDS:
        with pytest.raises(SnapshotError, match="state.result.*unknown result reason"):
            Game.from_dict(bad, backend=backend)
        assert Game.from_dict(d, backend=backend).is_over


@pytest.mark.parametrize("backend", BACKENDS)
def test_every_reachable_state_is_accepted(backend: str) -> None:
    """The checks refuse no state a game reaches: snapshots of random games load."""
    rng = np.random.default_rng(8)
    for seed in range(3):
        g = Game(seed, backend=backend)
        while not g.is_over:
            if rng.random() < 0.1:
                assert Game.from_dict(g.to_dict(), backend=backend).to_dict() == g.to_dict()
            g.step(int(rng.choice(g.legal_actions())))
        assert Game.from_dict(g.to_dict(), backend=backend).is_over


# ----------------------------------------------------------------- live views
def test_live_view_writes_are_refused_before_the_next_step() -> None:
    """Issue 36: writing a bad frame or card location through the live views, then
    stepping, segfaulted or played on; now the step raises SnapshotError and changes
    nothing, and the game goes on once the write is undone."""
    out = isolated("""
        import numpy as np
        from evenstar_env import Game
        from evenstar_env.snapshot import SnapshotError

        def attempt(write, undo):
            g = Game(3, backend="native")
            before = g.to_dict()
            write(g)
            try:
                g.step(int(g.legal_actions()[0]))
                print("stepped")
            except SnapshotError as exc:
                print("refused", str(exc)[:70])
            undo(g)
            assert g.to_dict() == before
            g.step(int(g.legal_actions()[0]))

        attempt(lambda g: g.state.stack.append(("eff", 32767, 0)), lambda g: g.state.stack.pop())
        saved = {}
        def wipe(g):
            saved["loc"] = g.state.card_loc.copy()
            g.state.card_loc[:] = 99
        attempt(wipe, lambda g: g.state.card_loc.__setitem__(slice(None), saved["loc"]))
        def misc(g):
            saved["m"] = int(g.state.misc[26])
            g.state.misc[26] = 1000
        attempt(misc, lambda g: g.state.misc.__setitem__(26, saved["m"]))
        def legal(g):  # the raw record too (private, but reachable from Python)
            saved["n"] = int(g.state._r["p_nlegal"])
            g.state._r["p_nlegal"] = 4000
        attempt(legal, lambda g: g.state._r.__setitem__("p_nlegal", saved["n"]))
    """)
    assert out.count("refused") == 4 and "stepped" not in out


def test_counters_at_the_int32_limit_are_refused_before_they_overflow() -> None:
    """The sanitizer build's fuzzer finding: VP written at 2**31-1, then a VP gain, was a
    signed overflow (undefined behaviour) in C++. VP, VP by source and reserves are held
    to +-10**6 (engine/validity.py): a live write beyond is refused before the step, a
    snapshot beyond by both backends."""
    out = isolated("""
        from evenstar_env import Game
        from evenstar_env.snapshot import SnapshotError
        for arr, k in (("vp", 0), ("vp_source", 3), ("reserves", 1)):
            g = Game(3, backend="native")
            view = getattr(g.state, arr)
            view[(0, k) if view.ndim == 2 else k] = 2**31 - 1
            try:
                g.step(int(g.legal_actions()[0]))
                print("stepped")
            except SnapshotError as exc:
                print("refused step", arr)
            d = Game(3, backend="python").to_dict()
            flat = d["state"][arr] if arr != "vp_source" else d["state"][arr][0]
            flat[k] = 2**31 - 1
            for backend in ("python", "native"):
                try:
                    Game.from_dict(d, backend=backend)
                    print("accepted")
                except SnapshotError:
                    print("refused snapshot")
    """)
    assert out.count("refused step") == 3 and out.count("refused snapshot") == 6, out


def test_a_decision_made_stale_by_a_view_write_is_asked_again() -> None:
    """After a write through the views the native core asks the pending decision again
    on the written state (as the setters do), so a stale decision never acts: the
    fuzzer's case (Russia set to its last box while the Russia spend was on offer, then
    the spend taken: Russia one box beyond its track) is an illegal action now."""
    from test_rulings import to_spend

    from evenstar_env.game import IllegalActionError

    g = to_spend("china", 3, russia=4, diplomacy=3)
    g = Game.from_dict(g.to_dict(), backend="native")
    spend = g.action_id("spend", "russia")
    assert spend in g.legal_actions()
    top = len(g.content.russia_boxes)
    g.state.tracks[6] = top
    with pytest.raises(IllegalActionError, match="not legal"):
        g.step(spend)
    assert g.track("russia") == top and spend not in g.legal_actions()
    g.step(int(g.legal_actions()[0]))


def test_scenario_setters_still_write_through_the_views() -> None:
    """The documented setters (set_influence, set_hand, set_track, force_dice) change a
    native game whose views are out, and it steps on."""
    g = Game(3, backend="native")
    assert g.state.misc[0] == 1  # the views are out: every step is checked
    g.set_influence("Iran", usa=2)
    g.set_track("economy_usa", 7)
    g.force_dice([6, 6])
    hand = g.hand(g.current_player)
    g.set_hand(g.current_player, hand[:1] + hand[1:])
    assert g.influence("Iran")["usa"] == 2 and g.track("economy_usa") == 7
    g.step(int(g.legal_actions()[0]))


# ----------------------------------------------------------------- NativeBatch
def test_batch_with_more_threads_than_the_os_gives() -> None:
    """Issue 36: NativeBatch(2000, threads=2000) aborted (std::system_error, SIGABRT) when
    the OS refused a thread; now the refused threads' games run on the caller's thread,
    with the same results as one thread."""
    out = isolated("""
        import numpy as np
        from evenstar_env.native.batch import NativeBatch
        one = NativeBatch(2000, threads=1)
        many = NativeBatch(2000, threads=2000)
        for b in (one, many):
            for _ in range(3):
                b.step(np.array([np.flatnonzero(m)[0] for m in b.mask]))
        assert (many.mask == one.mask).all() and (many.vp == one.vp).all()
        print("same")
    """, limit_as=160 * 2**20)  # 256 threads' stacks (8 MiB each) do not fit
    assert "same" in out


def test_batch_refuses_bad_actions_players_and_sizes() -> None:
    """Float actions (legal + 0.5 was taken), players=-3 (uninitialised rows) and
    num_envs=0 (IndexError / ZeroDivisionError) are refused in one line."""
    out = isolated("""
        import numpy as np
        from evenstar_env.game import IllegalActionError
        from evenstar_env.native.batch import NativeBatch
        b = NativeBatch(3)
        legal = np.array([np.flatnonzero(m)[0] for m in b.mask])
        for bad in (legal + 0.5, legal > 0, legal.astype(np.uint64) + np.uint64(2**63)):
            try:
                b.step(bad)
            except IllegalActionError as exc:
                print("refused:", exc)
        for players in (np.full(3, -3), np.full(3, 2), np.zeros(3) + 0.5, np.zeros(2, int)):
            try:
                b.observe(players=players)
            except ValueError as exc:
                print("refused:", exc)
        for n in (0, -1, 2**40):
            try:
                NativeBatch(n)
            except ValueError as exc:
                print("refused:", exc)
        for rows in (np.empty((2, b.obs_size), np.float32), np.empty((3, b.obs_size))):
            try:
                b.observe(rows)
            except ValueError as exc:
                print("refused:", exc)
        try:
            b.game(3)
        except IndexError as exc:
            print("refused:", exc)
    """)
    assert out.count("refused:") == 13, out


@pytest.mark.parametrize("backend", BACKENDS)
def test_vector_env_refuses_step_before_reset_and_zero_envs(backend: str) -> None:
    """Both backends: a step before reset raises ResetNeeded (native stepped games of
    seed 0, Python failed on None); num_envs=0 is a ValueError."""
    from gymnasium.error import ResetNeeded

    from evenstar_env.vector import EvenstarVectorEnv, SelfPlayVectorEnv

    for make in (SelfPlayVectorEnv, EvenstarVectorEnv):
        env = make(2, backend=backend)
        with pytest.raises(ResetNeeded, match="call reset"):
            env.step(np.zeros(2, dtype=np.int64))
        with pytest.raises(ValueError, match="num_envs"):
            make(0, backend=backend)
    env = SelfPlayVectorEnv(2, backend=backend)
    env.reset(seed=1, options={"reset_mask": np.array([True, False])})
    with pytest.raises(ResetNeeded, match="slot 1"):
        env.step(np.zeros(2, dtype=np.int64))


# ----------------------------------------------------------------- pickle
@pytest.mark.parametrize("kw", [{"backend": "python"}, {"backend": "python", "log": True},
                                {"backend": "native"}, {"backend": "native", "log": True}])
def test_pickle_and_deepcopy_keep_backend_state_and_log(kw: dict) -> None:
    """Issue 36: pickling or deep-copying a Game(backend="python") (also log=True, what
    `play` uses) failed under the default native backend; now every game round-trips to a
    game of its own backend with its state, seed and log, and plays on identically."""
    g = Game(5, **kw)
    for _ in range(7):
        g.step(int(g.legal_actions()[0]))
    for copy_of in (lambda x: pickle.loads(pickle.dumps(x)), copy.deepcopy):
        h = copy_of(g)
        assert type(h) is type(g) and h.backend == g.backend and h.seed == 5
        assert h.to_dict() == g.to_dict()
        if kw.get("log"):
            assert h.log == g.log and h.log
        a = int(g.legal_actions()[-1])
        twin = g.clone()
        h.step(a)
        twin.step(a)
        assert h.to_dict() == twin.to_dict()


def test_pickle_of_a_variant_content_game() -> None:
    """A game of other content pickles with its content (compiled again on loading)."""
    from evenstar_env.content import load_variant

    variant = {"name": "t", "rules": {"start_reserves": {"usa": 9, "china": 9}}}
    g = Game(2, backend="python", content=load_variant(variant))
    h = pickle.loads(pickle.dumps(g))
    assert h.content.rules.start_reserves["usa"] == 9 and h.to_dict() == g.to_dict()
    assert h.content is not g.content and h.to_dict()["content"] == g.to_dict()["content"]


# ----------------------------------------------------------------- the fuzzer
def test_fuzzer_short_run_is_clean(tmp_path: Path) -> None:
    """scripts/fuzz.py: 300 cases a backend in worker processes, no crash, no case saved."""
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "fuzz.py"), "--cases", "300",
                           "--seed", "36", "--out", str(tmp_path)], capture_output=True,
                          text=True, timeout=600, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "python: 300 cases" in proc.stdout and "native: 300 cases" in proc.stdout
    assert not list(tmp_path.iterdir())


def test_fuzzer_saves_a_crashing_case_with_its_reproduction(tmp_path: Path) -> None:
    """A worker that dies is reported, its case saved as JSON whose snapshot
    Game.from_dict imports, with a one-line reproduction."""
    sys.path.insert(0, str(ROOT / "scripts"))
    import fuzz

    path = fuzz.save_case("native", 5, 17, tmp_path, "worker died (status -11)")
    case = json.loads(path.read_text())
    assert case["repro"] == f"python scripts/fuzz.py --replay {path}"
    assert case["case"] == 17 and case["why"].startswith("worker died")
    if case["snapshot"] is not None:  # importable (a tampered one is refused in one line)
        with contextlib.suppress(SnapshotError):
            Game.from_dict(case["snapshot"])
    again = fuzz.make_case("native", 5, 17, fuzz.Pool("native", 5 ^ fuzz._chunk_start(17)))
    assert again["ops"] == case["ops"] and again["snapshot"] == case["snapshot"]


@pytest.mark.slow
def test_fuzzer_long_run_is_clean(tmp_path: Path) -> None:
    """The long round (behind the slow marker): 20,000 cases a backend."""
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "fuzz.py"), "--cases",
                           "20000", "--seed", "3600", "--out", str(tmp_path)],
                          capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr
