"""Many games played to their end by a network's arg-max for both sides, in lockstep.

:class:`PolicyRollouts` is the evaluator of :class:`agents.rollout_search.RolloutSearchAgent`:
``results(games, side)`` plays every game of the list to its end, both sides taking the
network's most likely legal action, and returns each game's result for `side`.  The games
move together, so that each round of moves is one forward pass for all the live ones.

Native games (the default engine) are copied into the slots of a
:class:`~evenstar_env.native.batch.NativeBatch` (their state bytes and output rows), and a
round is one C++ encoding, one native forward pass (:func:`agents.kernels.infer_into`) and
one C++ step for all slots; Python games step one by one in the same lockstep.  Both give
the same results (tests/test_rollout_search.py).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import torch

from evenstar_env import Game
from evenstar_env.engine.constants import SIDES
from evenstar_env.env.observation import encoder_for

from . import kernels
from .batch_policy import infer_chunked, native_packed


def check_halving(width: int, margin: float, depth: int | None, depth_name: str) -> None:
    """The settings shared by the searches that halve their candidates (ValueError)."""
    if width < 1:
        raise ValueError(f"width must be >= 1, got {width}")
    if not (math.isfinite(margin) and margin >= 0):
        raise ValueError(f"margin must be a number >= 0, got {margin}")
    if depth is not None and depth < 0:
        raise ValueError(f"{depth_name} must be >= 0 moves, got {depth}")


def halving_rounds(candidates: int) -> int:
    """How many rounds sequential halving takes over `candidates` (none for one)."""
    return max(1, math.ceil(math.log2(candidates))) if candidates > 1 else 0


def halve(alive: list[int], score: Callable[[int], float], base: int) -> list[int]:
    """The better half of `alive` by `score` (ties: the order of `alive`), and `base`
    always, in the order of `alive`."""
    keep = sorted(alive, key=lambda a: -score(a))[:max(1, len(alive) // 2)]
    return [a for a in alive if a in keep or a == base]


class PolicyRollouts:
    """Greedy network rollouts of a list of games (see the module docstring)."""

    def __init__(self, net: torch.nn.Module) -> None:
        self.net = net.eval()
        self.n_actions = int(net.policy.out_features)
        self._packed: kernels.Packed | None = None
        self._batch: Any = None  # a NativeBatch, grown to the largest list seen
        self._encoder: Any = None

    def results(self, games: list[Game], side: str, depth: int | None = None) -> np.ndarray:
        """Each game's result for `side` once played out: +1 won, -1 lost, 0 drawn; or,
        for a game still going after `depth` moves (None: no limit), the value head's
        estimate there, turned to `side`'s point of view.  The list is consumed: Python
        games are stepped, native ones left as they were (their slots are copies)."""
        self._packed = native_packed(self.net)  # the network is fixed during the call
        limit = -1 if depth is None else depth
        try:
            if games and all(type(g).__name__ == "NativeGame" for g in games):
                return self._native(games, SIDES.index(side), limit)
            return self._python(games, side, limit)
        finally:
            self._packed = None

    def logits_of(self, g: Game) -> np.ndarray:
        """The masked logits of the player to move in `g` (one position)."""
        obs = self._encode(g)[None]
        return self._forward(obs, g.action_mask()[None])[0][0]

    def _encode(self, g: Game) -> np.ndarray:
        if self._encoder is None:
            self._encoder = encoder_for(g.content)
        return self._encoder.encode(g._m, SIDES.index(g.current_player)).astype(np.float32)

    def _forward(self, obs: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Masked logits and values of a batch (the native forward pass in chunks where the
        network takes it)."""
        if self._packed is None:
            with torch.inference_mode():
                logits, value = self.net(torch.from_numpy(obs), torch.from_numpy(mask))
            return logits.numpy(), value.numpy()
        return infer_chunked(self._packed, np.ascontiguousarray(obs), np.ascontiguousarray(mask))

    def _python(self, games: list[Game], side: str, limit: int) -> np.ndarray:
        result = np.array([float(np.sign(g.returns()[side])) if g.is_over else 0.0
                           for g in games])
        live, moves = [i for i, g in enumerate(games) if not g.is_over], 0
        while live:
            obs = np.stack([self._encode(games[i]) for i in live])
            logits, value = self._forward(obs, np.stack([games[i].action_mask() for i in live]))
            if moves == limit:  # cut off: the value head, for the mover, turned to `side`
                for i, v in zip(live, value, strict=True):
                    result[i] = float(v) if games[i].current_player == side else -float(v)
                break
            for i, a in zip(live, logits.argmax(axis=1), strict=True):
                games[i].step(int(a))
                if games[i].is_over:
                    result[i] = float(np.sign(games[i].returns()[side]))
            live, moves = [i for i in live if not games[i].is_over], moves + 1
        return result

    def _native(self, games: list[Any], side: int, limit: int) -> np.ndarray:
        from evenstar_env.native.batch import NativeBatch

        n = len(games)
        if self._batch is None or self._batch.n < n or self._batch.content is not games[0].content:
            self._batch = NativeBatch(max(n, 8), content=games[0].content)
        b = self._batch
        states = b._b.state_bytes()
        result = np.zeros(n)
        over = np.ones(b.n, dtype=bool)  # slots beyond the list are not played
        for i, g in enumerate(games):  # the slot takes the game's state and outputs
            if g.is_over:
                result[i] = float(np.sign(g.returns()[SIDES[side]]))
                continue
            states[i] = g._engine.state_bytes()
            b.mask[i] = g.action_mask()
            b.player[i] = SIDES.index(g.current_player)
            b.done[i] = over[i] = 0
        obs = np.empty((b.n, b.obs_size), dtype=np.float32)
        actions = np.zeros(b.n, dtype=np.int64)
        moves = 0
        while True:
            ended = ~over & (b.done == 1)
            for i in np.flatnonzero(ended):
                w = int(b.winner[i])
                result[i] = 0.0 if w < 0 else (1.0 if w == side else -1.0)
            over |= ended
            live = np.flatnonzero(~over)
            if not live.size:
                break
            b.observe(obs, np.where(over, -2, b.player).astype(np.int32))
            logits, value = self._forward(obs[live], b.mask[live].astype(bool))
            if moves == limit:  # cut off: the value head, for the mover, turned to `side`
                result[live] = np.where(b.player[live] == side, value, -value)
                break
            actions[:] = 0
            actions[live] = logits.argmax(axis=1)
            # Finished slots start a fresh game on this step (autoreset): ignored, as are
            # the slots beyond the list; their action is never read as one of ours.
            b.step(actions)
            moves += 1
        return result
