"""`NativeBatch`: N games in one native object, stepped with an array of actions.

The building block of the vector env's native backend (the research-interface
issue): masks and the other per-game outputs are written into preallocated arrays
(zero-copy numpy views, ``N x actions`` uint8 etc.), the GIL is released while
stepping, and worker threads are optional.  :meth:`NativeBatch.observe` encodes the
N observations in C++ (the layout of ``evenstar_env.env.observation``, bit-identical;
docs/native.md), on the same threads.

Seeds: slot ``i``'s ``k``-th game has seed ``seed + i + k * n`` (as ``Game(seed)``),
so results do not depend on the thread count.  A step that ends a game sets
``done[i]``, ``winner[i]`` (0 US, 1 China, -1 draw) and the final ``vp``; the slot's
next step ignores its action and starts the next game (autoreset).  An illegal action
sets ``error[i]`` and changes nothing.  ``mask[i]`` (and ``observe()[i]``) are those
of the player to move (``player[i]``); zero rows when the game is over.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..content import Content, as_content
from . import core, tables_for


class NativeBatch:
    """N games stepped together in C++ (see the module docstring)."""

    def __init__(self, n: int, seed: int = 0, threads: int = 1,
                 content: Content | None = None) -> None:
        self.content = as_content(content)
        if not 0 <= seed < 2**64 - 2**32:
            raise ValueError("seed must be a non-negative 64-bit integer")
        self._b = core().Batch(tables_for(self.content), int(n), int(seed), int(threads))
        self.n = int(n)
        v = self._b.views()
        self.mask: np.ndarray = v["mask"]
        self.player: np.ndarray = v["player"]
        self.done: np.ndarray = v["done"]
        self.winner: np.ndarray = v["winner"]
        self.vp: np.ndarray = v["vp"]
        self.error: np.ndarray = v["error"]
        self.seed: np.ndarray = v["seed"]
        self.obs_size: int = tables_for(self.content).obs_size
        self._b.reset()

    def reset(self) -> None:
        """Start every slot's first game again."""
        self._b.reset()

    def step(self, actions: Any) -> None:
        """One action per game (int64 array of length n); outputs are updated in place."""
        a = np.ascontiguousarray(actions, dtype=np.int64)
        if a.shape != (self.n,):
            raise ValueError(f"actions must have shape ({self.n},), not {a.shape}")
        self._b.step(a)

    def observe(self, out: np.ndarray | None = None,
                players: np.ndarray | None = None) -> np.ndarray:
        """``N x obs`` float32, encoded in C++ with the GIL released (on the batch's
        threads): row i is the observation of ``players[i]`` (default: the player to move,
        ``self.player``) in slot i's game, zeros where that is -1 (a finished game), the row
        left as it is where -2.
        Written into `out` (C-contiguous float32) when given: no allocation."""
        if out is None:
            out = np.empty((self.n, self.obs_size), dtype=np.float32)
        who = self.player if players is None else np.ascontiguousarray(players, dtype=np.int32)
        self._b.observe(who, out)
        return out

    def game(self, i: int) -> Any:
        """A copy of slot i's game as a native Game (for inspection and tests)."""
        from .game import NativeGame

        g = NativeGame._wrap(self.content, self._b.game(int(i)))
        g.seed = int(self.seed[int(i)])
        return g
