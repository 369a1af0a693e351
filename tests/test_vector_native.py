"""The vector envs' native backend plays the Python backend's games (evenstar_env.vector).

Same seeds and actions on both backends: every output of every step is equal (the
observations as bits), across autoresets, illegal actions, ``max_decisions`` cut-offs,
partial resets, both reward modes and any number of worker threads.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import same_info

from evenstar_env.vector import EvenstarVectorEnv, SelfPlayVectorEnv


def _same(a: tuple, b: tuple, where: str) -> None:
    assert len(a) == len(b)
    for k, (x, y) in enumerate(zip(a, b, strict=True)):
        if isinstance(x, dict):
            same_info(x, y, where)
            continue
        x, y = np.asarray(x), np.asarray(y)
        assert x.dtype == y.dtype and x.shape == y.shape, f"{where}: output {k}"
        if x.dtype == np.float32:
            x, y = x.view(np.uint32), y.view(np.uint32)
        assert np.array_equal(x, y), f"{where}: output {k}"


def _actions(rng: np.random.Generator, mask: np.ndarray, illegal: float) -> np.ndarray:
    """A legal action per row, sometimes (probability `illegal`) an illegal one."""
    acts = np.array([int(rng.choice(np.flatnonzero(m))) for m in mask])
    bad = rng.random(len(acts)) < illegal
    acts[bad] = [int(np.flatnonzero(~m)[0]) if (~m).any() else -1 for m in mask[bad]]
    return acts


@pytest.mark.parametrize(("reward", "max_decisions", "threads"),
                         [("win_loss", None, 1), ("vp_diff", 150, 2), ("win_loss", 90, 3)])
def test_selfplay_native_plays_the_python_games(reward: str, max_decisions: int | None,
                                                threads: int) -> None:
    n = 5
    envs = [SelfPlayVectorEnv(n, reward=reward, max_decisions=max_decisions, backend=b,
                              **({"threads": threads} if b == "native" else {}))
            for b in ("python", "native")]
    assert envs[1]._native is not None and envs[0]._native is None
    outs = [e.reset(seed=70) for e in envs]
    _same(*outs, "reset")
    rng = np.random.default_rng(threads)
    ends = 0
    for step in range(700):
        acts = _actions(rng, outs[0][1], 0.01)
        outs = [e.step(acts) for e in envs]
        _same(*outs, f"step {step}")
        assert np.array_equal(envs[0].seeds, envs[1].seeds)
        ends += int(outs[0][4].sum() + outs[0][5].sum())
        if step == 350:
            only = np.array([True, False, True, False, False])
            outs = [(*e.reset(seed=[5, None, 9, None, None], options={"reset_mask": only}),)
                    for e in envs]
            _same(*outs, "partial reset")
    assert ends >= n  # autoresets happened


def test_selfplay_native_raises_on_an_illegal_action_when_asked() -> None:
    from evenstar_env.game import IllegalActionError

    env = SelfPlayVectorEnv(2, illegal_action="raise", backend="native")
    _, mask, _ = env.reset(seed=1)
    acts = np.array([int(np.flatnonzero(m)[0]) for m in mask])
    acts[1] = int(np.flatnonzero(~mask[1])[0])
    with pytest.raises(IllegalActionError, match="slot 1"):
        env.step(acts)


def test_selfplay_native_refuses_what_game_step_refuses() -> None:
    """Non-integer and out-of-range actions are illegal (a loss for the mover)."""
    envs = [SelfPlayVectorEnv(3, backend=b) for b in ("python", "native")]
    outs = [e.reset(seed=3) for e in envs]
    for acts in (np.array([0.5, 1.0, 2.0]), np.array([-1, 10**6, 2**40]),
                 np.array([None, "a", 3], dtype=object)):
        outs = [e.step(acts) for e in envs]
        _same(*outs, f"actions {acts!r}")
        outs = [e.step(np.zeros(3, dtype=np.int64)) for e in envs]  # the autoreset step
        _same(*outs, "after")


@pytest.mark.parametrize("side", ["alternate", "china"])
def test_vector_env_native_plays_the_python_games(side: str) -> None:
    n = 3
    envs = [EvenstarVectorEnv(n, side=side, opponent="random", reward="vp_diff", backend=b)
            for b in ("python", "native")]
    outs = [e.reset(seed=11) for e in envs]
    _same(*outs, "reset")
    rng = np.random.default_rng(0)
    for step in range(300):
        acts = _actions(rng, envs[0].action_masks(), 0.005)
        outs = [e.step(acts) for e in envs]
        _same(*outs, f"step {step}")
