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

import numpy as np
import torch

from . import kernels
from .networks import NATIVE_INFER_UP_TO, load_checkpoint


class NetworkPolicy:
    """A networks checkpoint choosing for a batch of positions in one forward pass."""

    name = "learned"

    def __init__(self, path: str | Path | None = None, greedy: bool = True,
                 seed: int | None = None, threads: int = 1) -> None:
        from .learned_agent import DEFAULT_PATH

        self.path = Path(path or DEFAULT_PATH)
        self.net, self.config, self.facts = load_checkpoint(self.path)
        self.net.eval().requires_grad_(False)  # frozen: packed once (_logits)
        self._packed: kernels.Packed | None = None
        self.greedy, self.threads = greedy, threads
        self.reseed(seed)

    @classmethod
    def from_spec(cls, spec: str, seed: int | None = None) -> NetworkPolicy:
        """``learned`` or ``learned:PATH`` (an arena spec) as a batch policy."""
        kind, _, path = spec.partition(":")
        if kind != "learned":
            raise ValueError(f"not a network spec: {spec!r} (learned[:PATH])")
        return cls(path or None, seed=seed)

    def reseed(self, seed: int | None) -> None:
        """The generator of sampled choices (greedy play uses none)."""
        self.rng = np.random.default_rng(seed)

    def __call__(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """One legal action per row: the most likely (greedy) or a sampled one; a row with
        one legal action takes it without the network."""
        mask = np.asarray(mask, dtype=bool)
        acts = np.argmax(mask, axis=1)
        rows = np.flatnonzero(mask.sum(axis=1) > 1)
        if rows.size:
            acts[rows] = self._choose(np.asarray(obs, dtype=np.float32)[rows], mask[rows])
        return acts

    def _logits(self, obs: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """Masked logits: the network's native forward pass (agents/kernels.py) on its
        arrays packed once (the frozen network's per-call bookkeeping skipped), where the
        network would take it; else the network itself."""
        net = self.net
        if (len(obs) <= NATIVE_INFER_UP_TO and hasattr(net, "packed") and net.fused(obs)
                and not net.max_pool):
            if self._packed is None:
                self._packed = net.packed()
            return kernels.infer(obs, mask, self._packed)[0]
        return net(obs, mask)[0]

    def _choose(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        threads = torch.get_num_threads()
        torch.set_num_threads(self.threads)
        try:
            with torch.no_grad():
                logits = self._logits(torch.from_numpy(np.ascontiguousarray(obs)),
                                      torch.from_numpy(np.ascontiguousarray(mask)))
        finally:
            torch.set_num_threads(threads)
        if self.greedy:
            return logits.argmax(dim=1).numpy()
        p = torch.softmax(logits.double(), -1).numpy()
        u = self.rng.random((len(p), 1))
        return np.minimum((np.cumsum(p, axis=1) < u * p.sum(axis=1, keepdims=True)).sum(axis=1),
                          p.shape[1] - 1)

