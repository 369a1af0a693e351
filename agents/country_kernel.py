"""The structured network's country stage as one fused native kernel (CPU).

For each position, with ``x_i`` country i's observation fields and A the map's
row-normalised adjacency::

    h_i = relu(W_in x_i + ident_i)
    z_i = relu(W_out h_i + W_nb (A h)_i + bias)
    mean_i z_i,  std_i z_i

PyTorch computes this as a dozen passes over B x n x d tensors, forward and back;
``evenstar_native._kernels`` (native/src/cpp/country_stage.h) makes one pass per
position.  :meth:`StructuredPolicyValue.country_tokens` (PyTorch's own operations)
stays the reference and the fallback: on a GPU, without the native core, or with
``max_pool``.  The results agree within rounding (tests/test_country_kernel.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

try:
    from evenstar_native import _kernels
except ImportError:  # the native core is not built: PyTorch's operations are used
    _kernels = None


def available() -> bool:
    """Whether the fused kernel is built."""
    return _kernels is not None


@dataclass(frozen=True)
class Graph:
    """The country fields' places in the observation and the adjacency in CSR, both ways."""

    starts: np.ndarray  # field f of country i is obs[:, starts[f] + i]
    csr: tuple[np.ndarray, ...]  # ptr, col, val of A, then of A transposed

    @classmethod
    def build(cls, starts: torch.Tensor, adj: torch.Tensor) -> Graph:
        a = adj.detach().cpu().numpy()
        parts: list[np.ndarray] = []
        for m in (a, a.T):
            rows, cols = np.nonzero(m)
            ptr = np.zeros(len(m) + 1, dtype=np.int64)
            np.cumsum(np.bincount(rows, minlength=len(m)), out=ptr[1:])
            parts += [ptr, cols.astype(np.int64), np.ascontiguousarray(m[rows, cols])]
        return cls(np.ascontiguousarray(starts.cpu().numpy(), dtype=np.int64), tuple(parts))


def _np(t: torch.Tensor) -> np.ndarray:
    return t.detach().contiguous().numpy()


class CountryStage(torch.autograd.Function):
    """The fused stage: (obs, ident, W_in, W_out, W_nb, bias) -> (z B x n x d, mean, std)."""

    @staticmethod
    def forward(ctx: Any, obs: torch.Tensor, ident: torch.Tensor, w_in: torch.Tensor,
                w_out: torch.Tensor, w_nb: torch.Tensor, bias: torch.Tensor,
                graph: Graph) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        b, (n, d) = len(obs), ident.shape
        h, z = obs.new_empty(b, n, d), obs.new_empty(b, n, d)
        mean, std = obs.new_empty(b, d), obs.new_empty(b, d)
        params = [_np(p) for p in (obs, ident, w_in, w_out, w_nb, bias)]
        _kernels.country_forward(params[0], graph.starts, *params[1:], *graph.csr,
                                 h.numpy(), z.numpy(), mean.numpy(), std.numpy(),
                                 threads=torch.get_num_threads())
        ctx.save_for_backward(obs, ident, w_in, w_out, w_nb, bias, h, z, mean, std)
        ctx.graph = graph
        ctx.set_materialize_grads(False)  # no tokens picked: no B x n x d zeros to read
        return z, mean, std

    @staticmethod
    @torch.autograd.function.once_differentiable
    def backward(ctx: Any, gz: torch.Tensor | None, gmean: torch.Tensor | None,
                 gstd: torch.Tensor | None) -> tuple[torch.Tensor | None, ...]:
        obs, ident, w_in, w_out, w_nb, bias, h, z, mean, std = ctx.saved_tensors
        grads = [torch.empty_like(p) for p in (ident, w_in, w_out, w_nb, bias)]
        _kernels.country_backward(
            _np(obs), ctx.graph.starts,
            *(_np(t) for t in (ident, w_in, w_out, w_nb, bias)), *ctx.graph.csr,
            *(_np(t) for t in (h, z, mean, std)),
            None if gz is None else _np(gz),
            _np(torch.zeros_like(mean) if gmean is None else gmean),
            _np(torch.zeros_like(std) if gstd is None else gstd),
            *(g.numpy() for g in grads), threads=torch.get_num_threads())
        return (None, *grads, None)
