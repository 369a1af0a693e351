"""NativeBatch: N games stepped together equal N Python games (state, mask, ends, seeds,
and the observations NativeBatch.observe encodes in C++, against the Python encoder)."""

from __future__ import annotations

import numpy as np
import pytest

from evenstar_env import Game
from evenstar_env.env.observation import encoder_for
from evenstar_env.native.batch import NativeBatch

SIDE = {"usa": 0, "china": 1}


def _check_slot(b: NativeBatch, obs: np.ndarray, i: int, g: Game) -> None:
    assert b.game(i).to_dict()["state"] == g.to_dict()["state"]
    if g.is_over:
        assert b.player[i] == -1 and not b.mask[i].any() and not obs[i].any()
        r = g.result.winner
        assert b.winner[i] == (-1 if r is None else SIDE[r])
    else:
        p = SIDE[g.current_player]
        assert b.player[i] == p
        assert np.array_equal(b.mask[i].astype(bool), g.action_mask())
        want = encoder_for(g.content).encode(g._m, p)
        assert np.array_equal(obs[i].view(np.uint32), want.view(np.uint32))
    assert b.vp[i].tolist() == [g.vp["usa"], g.vp["china"]]


@pytest.mark.parametrize("threads", [1, 2])
def test_batch_equals_python_games_with_autoreset(threads: int) -> None:
    n, seed = 6, 500
    b = NativeBatch(n, seed=seed, threads=threads)
    games = [Game(seed + i, backend="python") for i in range(n)]
    started = [1] * n
    rng = np.random.default_rng(1)
    finished = 0
    obs = np.empty((n, encoder_for(b.content).size), dtype=np.float32)
    for _ in range(400):
        b.observe(obs)
        for i in range(n):
            _check_slot(b, obs, i, games[i])
        actions = np.zeros(n, dtype=np.int64)
        for i, g in enumerate(games):
            if not g.is_over:
                legal = np.flatnonzero(b.mask[i])
                actions[i] = legal[rng.integers(legal.size)]
        b.step(actions)
        assert not b.error.any()
        for i, g in enumerate(games):
            if g.is_over:  # autoreset: slot i's next game, seed + i + k * n
                games[i] = Game(seed + i + started[i] * n, backend="python")
                assert b.seed[i] == seed + i + started[i] * n
                started[i] += 1
                assert not b.done[i]
            else:
                g.step(int(actions[i]))
                assert b.done[i] == g.is_over
                finished += g.is_over
    assert finished >= n  # every slot went through at least one reset on average


def test_threads_do_not_change_the_games() -> None:
    outs, finals = [], []
    for threads in (1, 2):
        b = NativeBatch(16, seed=7, threads=threads)
        rng = np.random.default_rng(3)
        trace = []
        for _ in range(150):
            legal = [np.flatnonzero(m) for m in b.mask]
            acts = np.array([row[rng.integers(row.size)] if row.size else 0 for row in legal])
            b.step(acts)
            trace.append((b.player.copy(), b.mask.copy(), b.done.copy(), b.vp.copy(),
                          b.seed.copy()))
        outs.append(trace)
        finals.append([b.game(i).to_dict()["state"] for i in range(16)])
    assert finals[0] == finals[1]
    for x, y in zip(*outs, strict=True):
        assert all(np.array_equal(a, c) for a, c in zip(x, y, strict=True))


def test_illegal_action_sets_error_and_changes_nothing() -> None:
    b = NativeBatch(2, seed=3)
    before = [b.game(i).to_dict() for i in range(2)]
    legal1 = np.flatnonzero(b.mask[1])
    bad = next(a for a in range(b.mask.shape[1]) if not b.mask[0, a])
    b.step(np.array([bad, legal1[0]]))
    assert b.error.tolist() == [1, 0]
    assert b.game(0).to_dict() == before[0]
    assert b.game(1).to_dict() != before[1]


def test_play_random_moves_only_the_named_side_and_checks_its_input() -> None:
    """Batch.play_random (the SB3 adapter's in-batch random opponent): the named side plays
    until the other is to move or the game ends, each slot's stream advancing; bad sides or
    lengths are refused (no crash)."""
    b = NativeBatch(8, 3)
    streams = np.arange(8, dtype=np.uint64)
    first = b.player.copy()
    b._b.play_random(np.zeros(8, dtype=np.int32), streams)  # the US moves where it is to
    moved = first == 0
    assert moved.any() and (streams[moved] != np.arange(8, dtype=np.uint64)[moved]).all()
    assert (streams[~moved] == np.arange(8, dtype=np.uint64)[~moved]).all()
    assert ((b.player != 0) | (b.player == -1)).all()  # none left with the US to move
    for sides, states in ((np.full(8, 2, dtype=np.int32), streams),
                          (np.zeros(7, dtype=np.int32), streams)):
        with pytest.raises(RuntimeError, match="play_random"):
            b._b.play_random(sides, states)
