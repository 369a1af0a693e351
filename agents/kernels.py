"""The structured network's country stage and card rows as fused native kernels (CPU).

The country stage, per position, with ``x_i`` country i's observation fields and A
the map's row-normalised adjacency::

    h_i = relu(W_in x_i + ident_i)
    z_i = relu(W_out h_i + W_nb (A h)_i + bias)
    mean_i z_i,  std_i z_i

The card rows, for each (position, card) whose fields ``x`` are not all 0::

    z = relu(W_out relu(W_in x + ident_card) + bias)

with per position the sum of the rows' z and of ``x_0 z`` (``x_0``: in one's hand).

PyTorch computes these as a dozen passes over whole tensors, forward and back;
``evenstar_native._kernels`` (native/src/cpp/nn_kernels.h) makes one pass per position
or row.  PyTorch's own operations (:class:`agents.networks.StructuredPolicyValue`)
stay the reference and the fallback: on a GPU, without the native core, or with
``max_pool`` (the countries').  The results agree within rounding
(tests/test_kernels.py).  The kernels give gradients for the parameters, none for
the observations.

:func:`infer` runs the whole network natively, without gradients: both stages, the
pooling, the trunk, the heads, the pointer corrections and the mask.  The network
uses it for up to ``NATIVE_INFER_UP_TO`` positions (search, league opponents, play),
where PyTorch's operations cost about a millisecond whatever the batch.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

VERSION = 3  # of evenstar_native._kernels: a stale build (another version) is not used
MAX_WIDTH = 256  # the widest token the kernels take (kMaxWidth in nn_kernels.h)

try:
    from evenstar_native import _kernels
except ImportError:  # the native core is not built: PyTorch's operations are used
    _kernels = None
if getattr(_kernels, "VERSION", None) != VERSION:
    _kernels = None


def available() -> bool:
    """Whether the fused kernels are built."""
    return _kernels is not None


def field_starts(blocks: list[tuple[int, int]], n: int) -> np.ndarray:
    """Where each token field starts in the observation (token i of field f is at
    ``starts[f] + i``), from :func:`agents.networks.field_blocks`'s blocks."""
    return np.array([s + k * n for s, fields in blocks for k in range(fields)], dtype=np.int64)


@dataclass(frozen=True)
class Graph:
    """The country fields' places in the observation and the adjacency in CSR, both ways."""

    starts: np.ndarray
    csr: tuple[np.ndarray, ...]  # ptr, col, val of A, then of A transposed

    @classmethod
    def build(cls, starts: np.ndarray, adj: torch.Tensor) -> Graph:
        a = adj.detach().cpu().numpy()
        parts: list[np.ndarray] = []
        for m in (a, a.T):
            rows, cols = np.nonzero(m)
            ptr = np.zeros(len(m) + 1, dtype=np.int64)
            np.cumsum(np.bincount(rows, minlength=len(m)), out=ptr[1:])
            parts += [ptr, cols.astype(np.int64), np.ascontiguousarray(m[rows, cols])]
        return cls(starts, tuple(parts))


def _np(t: torch.Tensor | None) -> np.ndarray | None:
    return None if t is None else t.detach().contiguous().numpy()


class CountryStage(torch.autograd.Function):
    """(obs, ident, W_in, W_out, W_nb, bias) -> (z B x n x d, mean, std)."""

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
            *(_np(t) for t in (h, z, mean, std)), _np(gz),
            _np(torch.zeros_like(mean) if gmean is None else gmean),
            _np(torch.zeros_like(std) if gstd is None else gstd),
            *(g.numpy() for g in grads), threads=torch.get_num_threads())
        return (None, *grads, None)


def card_rows(obs: torch.Tensor, starts: np.ndarray, cards: int
              ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """The (position, card) pairs whose card has a non-zero field, in one pass: whether
    each is present (B x cards), each pair's row or -1 (B x cards), and the rows'
    positions and cards (``present.nonzero()``'s order)."""
    b = len(obs)
    present = torch.empty(b, cards, dtype=torch.bool)
    row = torch.empty(b, cards, dtype=torch.long)
    rows = torch.empty(2, b * cards, dtype=torch.long)
    r = _kernels.card_rows(_np(obs), starts, cards, present.numpy(), row.numpy(), rows.numpy())
    return present, row, rows[0, :r], rows[1, :r]


class CardRows(torch.autograd.Function):
    """(obs, rows' positions and cards, ident, W_in, W_out, bias) -> (z rows x d,
    per-position sums B x d, per-position hand sums B x d).  The rows are sorted by
    position (as ``nonzero`` gives them)."""

    @staticmethod
    def forward(ctx: Any, obs: torch.Tensor, pos: torch.Tensor, card: torch.Tensor,
                ident: torch.Tensor, w_in: torch.Tensor, w_out: torch.Tensor,
                bias: torch.Tensor, starts: np.ndarray
                ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        r, d = len(pos), ident.shape[1]
        h, z = obs.new_empty(r, d), obs.new_empty(r, d)
        sums, hand = obs.new_empty(len(obs), d), obs.new_empty(len(obs), d)
        _kernels.card_forward(_np(obs), starts, _np(pos), _np(card),
                              *(_np(t) for t in (ident, w_in, w_out, bias)),
                              h.numpy(), z.numpy(), sums.numpy(), hand.numpy(),
                              threads=torch.get_num_threads())
        ctx.save_for_backward(obs, pos, card, ident, w_in, w_out, bias, h, z)
        ctx.starts = starts
        ctx.set_materialize_grads(False)
        return z, sums, hand

    @staticmethod
    @torch.autograd.function.once_differentiable
    def backward(ctx: Any, gz: torch.Tensor | None, gsums: torch.Tensor | None,
                 ghand: torch.Tensor | None) -> tuple[torch.Tensor | None, ...]:
        obs, pos, card, ident, w_in, w_out, bias, h, z = ctx.saved_tensors
        grads = [torch.empty_like(p) for p in (ident, w_in, w_out, bias)]
        _kernels.card_backward(_np(obs), ctx.starts, _np(pos), _np(card),
                               *(_np(t) for t in (ident, w_in, w_out, bias, h, z, gz, gsums,
                                                  ghand)),
                               *(g.numpy() for g in grads), threads=torch.get_num_threads())
        return (None, None, None, *grads, None)


@dataclass(frozen=True)
class Packed:
    """A structured network's arrays in the order :func:`infer` passes them (made by
    :meth:`agents.networks.StructuredPolicyValue.packed`; they hold the memory)."""

    args: tuple[Any, ...]
    n_actions: int


def infer(obs: torch.Tensor, mask: torch.Tensor, packed: Packed
          ) -> tuple[torch.Tensor, torch.Tensor]:
    """The whole network without gradients, natively: masked logits and values of
    `obs` (contiguous, the network's type) under the boolean `mask`."""
    logits, value = obs.new_empty(len(obs), packed.n_actions), obs.new_empty(len(obs))
    _kernels.infer(_np(obs), _np(mask), *packed.args, logits.numpy(), value.numpy())
    return logits, value


def infer_into(obs: np.ndarray, mask: np.ndarray, packed: Packed, logits: np.ndarray,
               value: np.ndarray) -> None:
    """:func:`infer` on numpy arrays (C-contiguous, the network's type; `mask` boolean),
    written into `logits` and `value`: no tensor made (a batch policy's per-call cost)."""
    _kernels.infer(obs, mask, *packed.args, logits, value)
