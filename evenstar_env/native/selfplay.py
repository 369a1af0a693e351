"""The native backend of :class:`~evenstar_env.vector.SelfPlayVectorEnv`, on NativeBatch.

The N games live in one :class:`~.batch.NativeBatch`: the env's own slot seeds start
them (``restart``), one C++ call steps them all with the GIL released, and one more
encodes the N observations into the env's buffer.  What is left in Python is
vectorised numpy: rewards, ends, cut-offs and the rows of finished games.  The games,
rewards and rows are those of the Python backend for the same seeds and actions (the
conventions of :mod:`evenstar_env.conventions`; tests/test_vector_native.py), except that
with ``illegal_action="raise"`` the error comes before any slot has moved (the Python
backend has stepped the slots before the offending one).
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..engine.constants import M_DECISIONS
from ..game import IllegalActionError
from .batch import NativeBatch
from .game import state_dtype


class NativeSelfPlay:
    """N self-play games in one native batch, writing the rows of `env`."""

    def __init__(self, env: Any, threads: int = 1) -> None:
        self.env = env
        n = env.num_envs
        self.batch = b = NativeBatch(n, 0, threads, env.content)
        states = b._b.state_bytes().view(state_dtype()).reshape(n)
        states.flags.writeable = False  # read here only: batch states are never checked
        self._decisions = states["misc"][:, M_DECISIONS]  # a live view
        self._who = np.zeros(n, dtype=np.int32)
        self.games = SlotGames(b)

    def reset(self, only: np.ndarray | None) -> None:
        """Start the games of the rows of `only` (a boolean mask; None: all) with the env's
        slot seeds and write their rows."""
        n = self.env.num_envs
        rows = np.arange(n) if only is None else np.flatnonzero(only)
        self._start(rows)
        self._write(rows, np.zeros(n, dtype=bool), self.env._player)

    def _start(self, rows: np.ndarray) -> None:
        if rows.size:
            env = self.env
            self.batch._b.restart(rows.astype(np.int64),
                                  env.slots.seeds[rows].astype(np.uint64))
            env._ended[rows] = False
            env._diff[rows] = 0

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray]:
        """Step every slot whose game runs, restart the ended ones: (terminated, truncated)."""
        env, b = self.env, self.batch
        n = env.num_envs
        actions = np.asarray(actions)
        if actions.shape != (n,):
            raise ValueError(f"expected {n} actions, got an array of shape {actions.shape}")
        restart = np.flatnonzero(env._ended)
        live = ~env._ended
        acts = actions_or_illegal(actions, live, b.mask.shape[1])
        if env.illegal_action == "raise":  # before anything moves (see the module docstring)
            ok = b.mask[np.arange(n), np.maximum(acts, 0)] != 0
            bad = np.flatnonzero(live & ((acts < 0) | ~ok))
            if bad.size:
                i = int(bad[0])
                raise IllegalActionError(f"slot {i}: action {actions[i]!r} is not legal")
        for i in restart:
            env.slots.next(int(i))
        self._start(restart)
        mover = env._player.copy()
        b.step(acts)
        reward = env._reward
        illegal = live & (b.error != 0)
        moved = live & ~illegal
        over = moved & (b.done != 0)
        if env.reward_mode == "vp_diff":
            diff = b.vp[:, 0].astype(np.int64) - b.vp[:, 1]
            step = np.where(moved, (diff - env._diff) / env.vp_scale, 0.0)
            reward[:, 0] += step
            reward[:, 1] -= step
            env._diff[moved] = diff[moved]
        rows = np.flatnonzero(illegal)
        reward[rows, mover[rows]] = -1.0
        reward[rows, 1 - mover[rows]] = 1.0
        rows = np.flatnonzero(over & (b.winner >= 0))  # a draw pays 0 to both
        reward[rows, b.winner[rows]] += 1.0
        reward[rows, 1 - b.winner[rows]] += -1.0
        terminated = illegal | over
        truncated = np.zeros(n, dtype=bool)
        if env.max_decisions is not None:
            truncated = moved & ~over & (self._decisions >= env.max_decisions)
        self._write(np.arange(n), terminated | truncated, mover)
        return terminated, truncated

    def _write(self, rows: np.ndarray, ended: np.ndarray, mover: np.ndarray) -> None:
        """The rows of `rows`: the observation and mask of the player to move, or, where
        the game has just ended, the last mover's final observation, player -1 and an
        all-True mask (SelfPlayVectorEnv._write).  One C++ call encodes them all."""
        env, b = self.env, self.batch
        who = self._who
        who[:] = -2  # rows left as they are
        end_rows = rows[ended[rows]]
        run_rows = rows[~ended[rows]]
        who[run_rows] = b.player[run_rows]
        who[end_rows] = mover[end_rows]
        b.observe(env._obs, who)
        env._player[run_rows] = b.player[run_rows]
        env._player[end_rows] = -1
        env._mask[run_rows] = b.mask[run_rows] != 0
        env._mask[end_rows] = True


def actions_or_illegal(actions: np.ndarray, live: np.ndarray, n_actions: int) -> np.ndarray:
    """int64 actions, -1 (not legal) where Game.step would refuse the value (not an
    integer, outside the action space) and on the rows that do not step."""
    if actions.dtype.kind in "iu":
        acts = actions.astype(np.int64)
        acts[(actions < 0) | (actions >= n_actions)] = -1
    else:
        acts = np.full(len(actions), -1, dtype=np.int64)
        for i, a in enumerate(actions):
            try:
                k = operator.index(a)
            except TypeError:
                continue
            acts[i] = k if 0 <= k < n_actions else -1
    acts[~live] = -1
    return acts


class SlotGames(Sequence):
    """``env.games`` on native: item i is a copy of slot i's game (a native Game)."""

    def __init__(self, batch: NativeBatch) -> None:
        self._batch = batch

    def __len__(self) -> int:
        return self._batch.n

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        k = operator.index(i)
        if not -len(self) <= k < len(self):
            raise IndexError(i)
        return self._batch.game(k % len(self))
