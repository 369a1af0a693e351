"""The C++ observation encoder against the Python one (docs/native.md, *Observation*).

The lockstep games (tests/test_native_lockstep.py) compare both players' observations
at every step; here: positions reached by any seed and number of steps and moved to
the native core through ``from_dict`` (hypothesis), every decision context the encoder
writes, ``Engine.observe``'s contract (into the caller's array, every entry written)
and the batched encoder across thread counts.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from native_lockstep import chooser, compare_observations

from evenstar_env import Game
from evenstar_env.env.observation import encoder_for
from evenstar_env.native.batch import NativeBatch


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**40), steps=st.integers(0, 600),
       agent=st.sampled_from(["random", "cautious"]))
def test_any_position_encodes_the_same(seed: int, steps: int, agent: str) -> None:
    """A Python game played `steps` decisions, then loaded into the native core: both
    players' observations are the same bits."""
    py = Game(seed, backend="python")
    pick = chooser(agent, seed)
    for _ in range(steps):
        if py.is_over:
            break
        py.step(pick(py))
    nat = Game.from_dict(py.to_dict(), backend="native")
    compare_observations(py, nat, f"{agent} seed {seed} after {steps} steps")


def test_every_decision_context_is_compared() -> None:
    """Lockstep games until every context writer of the encoder (and the pay-to-fire
    discard, the headline secrecy and the modifier) has been compared on both sides."""
    enc = encoder_for(Game(0, backend="python").content)
    seen: Counter[str] = Counter()
    want = {*enc._context, "pay", "headline", "ended"}
    for seed in range(400):
        py, nat = Game(seed, backend="python"), Game(seed, backend="native")
        pick = chooser("random" if seed % 2 else "cautious", seed)
        while True:
            compare_observations(py, nat, f"seed {seed}")
            if py.is_over:
                seen["ended"] += 1
                break
            pend = py.state.pending
            seen[pend[2]] += 1
            seen["pay"] += pend[0][0] == "pay"
            a = pick(py)
            py.step(a)
            nat.step(a)
        if want <= {k for k, v in seen.items() if v}:
            break
    assert want <= {k for k, v in seen.items() if v}, sorted(want - set(seen))


def test_observe_writes_every_entry_of_the_callers_array() -> None:
    g = Game(11, backend="native")
    size = encoder_for(g.content).size
    out = np.full(size, np.nan, dtype=np.float32)
    assert g._m.observe(1, out) is out
    assert not np.isnan(out).any()
    for bad in (np.zeros(size - 1, np.float32), np.zeros(size, np.float64),
                np.zeros((2, size), np.float32)[:, 0]):
        with pytest.raises((TypeError, RuntimeError)):
            g._m.s.engine.observe(0, bad)
    with pytest.raises(RuntimeError, match="player"):
        g._m.s.engine.observe(2, out)


def test_observation_entry_points_use_the_native_encoder() -> None:
    """The env, Game.observe-style helpers and the encoder give the C++ bits on native."""
    from evenstar_env.env.observation import observe

    py, nat = Game(4, backend="python"), Game(4, backend="native")
    for side in ("usa", "china"):
        assert np.array_equal(observe(py, side).view(np.uint32),
                              observe(nat, side).view(np.uint32))


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_batch_observe_equals_the_python_encoder(threads: int) -> None:
    """NativeBatch.observe (C++, GIL released) row by row equals the Python encoder on the
    same games, whatever the thread count; rows of other players and of -1 too."""
    n = 7
    b = NativeBatch(n, seed=900, threads=threads)
    enc = encoder_for(b.content)
    rng = np.random.default_rng(threads)
    out = np.full((n, enc.size), np.nan, dtype=np.float32)
    for step in range(120):
        acts = np.array([int(rng.choice(np.flatnonzero(m))) if m.any() else 0 for m in b.mask])
        b.step(acts)
        if step % 10:
            continue
        players = np.where(b.player >= 0, 1 - b.player, -1) if step % 20 else None
        got = b.observe(out, players)
        assert got is out
        for i in range(n):
            p = int(b.player[i] if players is None else players[i])
            if p < 0:
                assert not out[i].any()
                continue
            py = Game.from_dict(b.game(i).to_dict(), backend="python")
            want = enc.encode(py._m, p)
            assert np.array_equal(out[i].view(np.uint32), want.view(np.uint32)), (step, i)
