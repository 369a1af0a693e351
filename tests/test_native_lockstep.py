"""Differential tests: the native core against the Python reference engine (docs/native.md).

Fast suite: 200 uniform-random and 50 cautious games in lockstep (the event streams
compared record by record in the even seeds, docs/events.md), the golden
playthroughs replayed on the native backend, and transfers between backends
mid-game.  ``-m slow``: 10,000 random and 1,000 cautious games.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest
from native_lockstep import chooser, compare_full, lockstep

from evenstar_env import Game

ROOT = Path(__file__).resolve().parent.parent
CHUNK = 25


@pytest.mark.parametrize("first", range(0, 200, CHUNK))
def test_random_games_lockstep(first: int) -> None:
    """200 uniform-random games: every step equal, to_dict equal every 16 steps."""
    steps = [lockstep(seed, "random") for seed in range(first, first + CHUNK)]
    assert sum(steps) > CHUNK * 10


@pytest.mark.parametrize("first", range(1000, 1050, 5))
def test_cautious_games_lockstep(first: int) -> None:
    """50 cautious games (they reach the later turns and final scoring)."""
    for seed in range(first, first + 5):
        lockstep(seed, "cautious")


def _golden() -> list[Path]:
    return sorted((ROOT / "tests" / "playthroughs").glob("*.json"))


def _replay(regen, seed: int, actions: list[int]) -> tuple[list[str], str]:
    """The recorded actions through the AEC env: per-step digests and how it ended
    (the result, or the error of an action that is no longer legal)."""
    from evenstar_env import raw_env
    from evenstar_env.game import IllegalActionError

    env = raw_env()
    env.reset(seed=seed)
    digests, k = [], 0
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        digests.append(regen.digest(agent, obs, reward))
        if term or trunc:
            env.step(None)
            continue
        try:
            env.step(actions[k])
        except IllegalActionError as e:
            return digests, f"illegal: {e}"
        k += 1
    return digests, env.game.result.reason


@pytest.mark.parametrize("path", _golden(), ids=[p.stem for p in _golden()])
def test_golden_playthrough_on_both(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The golden playthroughs' actions replay identically on both backends: the same
    observation, mask and reward digest at every step and the same end (whether or
    not the recording is current; tests/test_playthroughs.py checks that)."""
    script = ROOT / "scripts" / "regen_playthroughs.py"
    spec = importlib.util.spec_from_file_location("regen", script)
    regen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(regen)
    rec = json.loads(path.read_text())
    runs = {}
    for backend in ("python", "native"):
        monkeypatch.setenv("EVENSTAR_BACKEND", backend)
        from evenstar_env import raw_env

        env = raw_env()
        env.reset(seed=rec["seed"])
        assert env.game.backend == backend
        runs[backend] = _replay(regen, rec["seed"], rec["actions"])
    assert len(runs["native"][0]) > len(rec["actions"])  # every recorded action was replayed
    assert runs["native"] == runs["python"]


@pytest.mark.parametrize("agent", ["random", "cautious"])
@pytest.mark.parametrize("direction", ["python_to_native", "native_to_python"])
def test_transfer_mid_game(agent: str, direction: str) -> None:
    """to_dict of one backend -> from_dict of the other -> the games continue identically."""
    for seed in range(8):
        py, nat = Game(seed, backend="python"), Game(seed, backend="native")
        pick = chooser(agent, seed)
        cut = 5 + 7 * seed
        for _ in range(cut):
            if py.is_over:
                break
            a = pick(py)
            py.step(a)
            nat.step(a)
        if direction == "python_to_native":
            moved = Game.from_dict(json.loads(json.dumps(py.to_dict())), backend="native")
            assert moved.backend == "native"
            compare_full(py, moved, f"seed {seed} after transfer")
            lockstep(seed, agent, py=py, nat=moved) if not py.is_over else None
        else:
            moved = Game.from_dict(json.loads(json.dumps(nat.to_dict())), backend="python")
            assert moved.backend == "python"
            compare_full(moved, nat, f"seed {seed} after transfer")
            lockstep(seed, agent, py=moved, nat=nat) if not nat.is_over else None


def test_clone_is_independent_and_equal() -> None:
    g = Game(3, backend="native")
    c = g.clone()
    assert c.to_dict() == g.to_dict()
    c.step(int(c.legal_actions()[0]))
    assert c.to_dict() != g.to_dict()
    assert g.to_dict() == Game(3, backend="python").to_dict()


def test_scenario_setters_match() -> None:
    """Scenario setters write the native views and re-ask the decision as Python does."""
    games = [Game(5, backend=b) for b in ("python", "native")]
    for g in games:
        g.set_influence("Iran", usa=0, china=3)
        g.set_track("diplomacy", 2)
        g.set_reserves("china", 7)
        g.force_dice([6, 1, 3])
    compare_full(*games, "after setters")
    pick = np.random.default_rng(5)
    while not games[0].is_over:
        legal = games[0].legal_actions()
        a = int(legal[pick.integers(legal.size)])
        for g in games:
            g.step(a)
    compare_full(*games, "end")


def test_illegal_actions_raise_the_same_errors() -> None:
    from evenstar_env.game import IllegalActionError

    msgs = []
    for backend in ("python", "native"):
        g = Game(2, backend=backend)
        out = []
        for bad in (-1, g.num_actions, 10**30, "x", max(set(range(g.num_actions)) -
                                                       set(g.legal_actions().tolist()))):
            with pytest.raises(IllegalActionError) as e:
                g.step(bad)
            out.append(str(e.value))
        msgs.append(out)
    assert msgs[0] == msgs[1]


def test_from_dict_rejects_what_the_native_core_cannot_hold() -> None:
    d = Game(1, backend="python").to_dict()
    d["state"]["stack"].append(["pick", 0, 0, "usa", 1, [5, 3], []])  # not ascending
    with pytest.raises(ValueError, match="ascending"):
        Game.from_dict(d, backend="native")
    d = Game(1, backend="python").to_dict()
    d["state"]["stack"].append(["log", "some free text"])
    with pytest.raises(ValueError, match="log"):
        Game.from_dict(d, backend="native")


@pytest.mark.slow
@pytest.mark.parametrize("agent,n", [("random", 10_000), ("cautious", 1_000)])
def test_soak_lockstep(agent: str, n: int) -> None:
    """The soak: 10,000 random and 1,000 cautious games in lockstep."""
    base = 100_000 if agent == "random" else 200_000
    for seed in range(base, base + n):
        lockstep(seed, agent)


def test_resample_hidden_matches() -> None:
    """resample_hidden (C++ on native, the Python reference on Python) gives the same game."""
    for seed in range(6):
        games = [Game(seed, backend=b) for b in ("python", "native")]
        pick = np.random.default_rng(seed)
        for step in range(40):
            if games[0].is_over:
                break
            for side in ("usa", "china"):
                a, b = (g.resample_hidden(side, rng=seed * 100 + step) for g in games)
                assert b.backend == "native"
                compare_full(a, b, f"seed {seed} step {step} resample {side}")
            legal = games[0].legal_actions()
            act = int(legal[pick.integers(legal.size)])
            for g in games:
                g.step(act)


def test_native_game_pickles_and_deep_copies() -> None:
    import copy
    import pickle

    g = Game(4, backend="native")
    for _ in range(10):
        g.step(int(g.legal_actions()[-1]))
    for h in (pickle.loads(pickle.dumps(g)), copy.deepcopy(g)):
        assert h.backend == "native" and h.to_dict() == g.to_dict()
        h.step(int(h.legal_actions()[0]))
        assert h.to_dict() != g.to_dict()


def test_rule_variants_lockstep() -> None:
    """Every variant of experiments/variants.toml: the native core interprets the
    variant's exported tables (ops, bans, removed cards, prices, bids) identically."""
    from evenstar_env.content import load_variant
    from evenstar_env.content.loader import load_variants

    variants = load_variants(ROOT / "experiments" / "variants.toml")
    assert variants
    for v in variants:
        content = load_variant(v)
        for seed in range(3):
            lockstep(seed, "random",
                     py=Game(seed, content=content, backend="python", events=True),
                     nat=Game(seed, content=content, backend="native", events=True))
        lockstep(7, "cautious", py=Game(7, content=content, backend="python", events=True),
                 nat=Game(7, content=content, backend="native", events=True))
