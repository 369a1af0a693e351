"""Networks as batch policies: ``policy(obs[k, d], mask[k, A]) -> actions[k]``, one forward
pass for all k positions (the form ``EvenstarVectorEnv(opponent=...)`` and
:func:`evenstar_env.evaluate` call once per round of moves).

:class:`NetworkPolicy` plays an :mod:`agents.networks` checkpoint folder: the shipped
``learned`` policy, any ``learned:PATH``, or a training snapshot
(``runs/NAME/snapshots/...``, the same format), greedily by default as
:class:`~agents.learned_agent.LearnedAgent` does.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import torch

from . import kernels
from .networks import NATIVE_INFER_UP_TO, load_checkpoint, torch_threads


def native_packed(net: torch.nn.Module) -> kernels.Packed | None:
    """`net`'s arrays for the native forward pass (:func:`kernels.infer_into`) as they are
    now, or None where the network does not take that pass (an MLP, kernels not built,
    tokens wider than the kernels, max pooling)."""
    if not hasattr(net, "country_in") or not hasattr(net, "packed"):
        return None
    probe = torch.zeros(1, 1, dtype=net.country_in.weight.dtype)
    return net.packed() if net.fused(probe) and not net.max_pool else None


def infer_chunked(packed: kernels.Packed, obs: np.ndarray, mask: np.ndarray
                  ) -> tuple[np.ndarray, np.ndarray]:
    """Masked logits and values of a batch by the native forward pass, in chunks of up to
    NATIVE_INFER_UP_TO positions (`obs` C-contiguous in the network's type; `mask` bool)."""
    k = len(obs)
    logits = np.empty((k, packed.n_actions), dtype=obs.dtype)
    value = np.empty(k, dtype=obs.dtype)
    for lo in range(0, k, NATIVE_INFER_UP_TO):
        hi = min(k, lo + NATIVE_INFER_UP_TO)
        kernels.infer_into(obs[lo:hi], mask[lo:hi], packed, logits[lo:hi], value[lo:hi])
    return logits, value


class NetworkPolicy:
    """A networks checkpoint choosing for a batch of positions in one forward pass."""

    name = "learned"

    def __init__(self, path: str | Path | None = None, greedy: bool = True,
                 seed: int | None = None, threads: int = 1, content: Any = None) -> None:
        from .learned_agent import DEFAULT_PATH

        self.path = Path(path or DEFAULT_PATH)
        self.net, self.config, self.facts = load_checkpoint(self.path, content)
        self.net.eval().requires_grad_(False)  # frozen: packed once (_logits)
        self._packed: kernels.Packed | None = None
        self._use_native: bool | None = None  # decided at the first call (_native)
        self._dtype = np.dtype(torch.empty(0, dtype=next(self.net.parameters()).dtype)
                               .numpy().dtype)
        self.greedy, self.threads = greedy, threads
        self.reseed(seed)

    @classmethod
    def from_spec(cls, spec: str, seed: int | None = None, content: Any = None
                  ) -> NetworkPolicy:
        """``learned`` or ``learned:PATH`` (an arena spec) as a batch policy for the games
        of `content` (default: the shipped edition)."""
        kind, _, path = spec.partition(":")
        if kind != "learned":
            raise ValueError(f"not a network spec: {spec!r} (learned[:PATH])")
        return cls(path or None, seed=seed, content=content)

    def reseed(self, seed: int | None) -> None:
        """The generator of sampled choices (greedy play uses none)."""
        self.rng = np.random.default_rng(seed)

    def __call__(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """One legal action per row: the most likely (greedy) or a sampled one; a row with
        one legal action takes it without the network."""
        mask = np.asarray(mask, dtype=bool)
        counts = np.count_nonzero(mask, axis=1)
        acts = np.argmax(mask, axis=1)
        rows = np.flatnonzero(counts > 1)
        if rows.size:
            if rows.size < len(mask):
                obs, mask = np.asarray(obs)[rows], mask[rows]
            acts[rows] = self._choose(obs, mask)
        return acts

    def _native(self) -> kernels.Packed | None:
        """The packed arrays of the native forward pass, or None where the network does
        not take it (decided once: the network is frozen)."""
        if self._use_native is None:
            self._packed = native_packed(self.net)
            self._use_native = self._packed is not None
        return self._packed

    def _logits(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Masked logits: the network's native forward pass (agents/kernels.py) on its
        arrays packed once (the frozen network's per-call bookkeeping skipped), in chunks
        of up to NATIVE_INFER_UP_TO positions, where the network takes it; else the network
        itself, on `threads` threads."""
        packed = self._native()
        obs = np.ascontiguousarray(obs, dtype=self._dtype)
        mask = np.ascontiguousarray(mask)
        if packed is not None:
            return infer_chunked(packed, obs, mask)[0]
        with torch_threads(self.threads), torch.no_grad():
            return self.net(torch.from_numpy(obs), torch.from_numpy(mask))[0].numpy()

    def _choose(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        logits = self._logits(obs, mask)
        if self.greedy:
            return logits.argmax(axis=1)
        p = torch.softmax(torch.from_numpy(logits).double(), -1).numpy()
        u = self.rng.random((len(p), 1))
        return np.minimum((np.cumsum(p, axis=1) < u * p.sum(axis=1, keepdims=True)).sum(axis=1),
                          p.shape[1] - 1)
