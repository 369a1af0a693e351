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

import operator
from typing import Any

import numpy as np

from ..content import ContentSpec, as_content
from ..game import IllegalActionError
from . import core, tables_for

MAX_THREADS = 256


class NativeBatch:
    """N games stepped together in C++ (see the module docstring)."""

    def __init__(self, n: int, seed: int = 0, threads: int = 1,
                 content: ContentSpec = None) -> None:
        from ..vector import check_num_envs

        self.content = as_content(content)
        n = check_num_envs(n)
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) \
                or not 0 <= seed < 2**64 - 2**32:
            raise ValueError("seed must be a non-negative 64-bit integer")
        if isinstance(threads, bool) or not isinstance(threads, (int, np.integer)) or threads < 1:
            raise ValueError(f"threads must be a positive integer, got {threads!r}")
        # At most one thread a game and MAX_THREADS (the results do not depend on the
        # count); a thread the OS refuses runs its share on the caller's thread (batch.cpp).
        self._b = core().Batch(tables_for(self.content), n, int(seed),
                               min(int(threads), n, MAX_THREADS))
        self.n = n
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
        """One action per game (an integer array of length n); outputs are updated in place.
        Non-integer actions (floats, bools) raise IllegalActionError, as Game.step does."""
        a = np.asarray(actions)
        if a.shape != (self.n,):
            raise ValueError(f"actions must have shape ({self.n},), not {a.shape}")
        if a.dtype.kind not in "iu":
            raise IllegalActionError(f"actions must be integers, not {a.dtype}")
        if a.dtype.kind == "u" and a.size and int(a.max()) >= 2**63:
            raise IllegalActionError("an action is outside the action space")
        self._b.step(np.ascontiguousarray(a, dtype=np.int64))

    def observe(self, out: np.ndarray | None = None,
                players: np.ndarray | None = None) -> np.ndarray:
        """``N x obs`` float32, encoded in C++ with the GIL released (on the batch's
        threads): row i is the observation of ``players[i]`` (default: the player to move,
        ``self.player``) in slot i's game, zeros where that is -1 (a finished game), the row
        left as it is where -2; any other value raises ValueError.
        Written into `out` (C-contiguous float32) when given: no allocation."""
        if out is None:
            out = np.empty((self.n, self.obs_size), dtype=np.float32)
        elif not (isinstance(out, np.ndarray) and out.dtype == np.float32
                  and out.shape == (self.n, self.obs_size) and out.flags.c_contiguous
                  and out.flags.writeable):
            raise ValueError(f"out must be a writable C-contiguous float32 array of shape "
                             f"({self.n}, {self.obs_size})")
        if players is None:
            who = self.player
        else:
            p = np.asarray(players)
            if p.shape != (self.n,) or p.dtype.kind not in "iu":
                raise ValueError(f"players must be {self.n} integers, not {p.dtype} {p.shape}")
            if p.size and (p.min() < -2 or p.max() > 1):
                raise ValueError("players must be 0 (US), 1 (China), -1 (zeros) or -2 (untouched)")
            who = np.ascontiguousarray(p, dtype=np.int32)
        self._b.observe(who, out)
        return out

    def game(self, i: int) -> Any:
        """A copy of slot i's game as a native Game (for inspection and tests)."""
        from .game import NativeGame

        i = operator.index(i)
        if not 0 <= i < self.n:
            raise IndexError(f"no game {i} in a batch of {self.n}")
        g = NativeGame._wrap(self.content, self._b.game(i))
        g.seed = int(self.seed[int(i)])
        return g
