"""Policy-value networks of the learned agents and their weights-only checkpoints.

Every network maps a batch of observations (``B x obs_size`` float32), and optionally
their legal-action masks, to action logits (``B x n_actions``; given the mask, masked
with :func:`masked_logits`) and a value (``B``, the expected result
for the player to move, in [-1, 1]).  A checkpoint is a folder holding
``weights.pt`` (a plain tensor dict, read with ``torch.load(weights_only=True)``)
and ``config.json`` (the :class:`NetConfig` and free-form training facts); no
code in either file is ever executed.  Kinds are registered in :data:`NETWORKS`.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F  # noqa: N812

from agents import kernels
from agents.deck_carry import (
    CarryError,
    carry_cards,
    carry_trunk,
    check_facts,
    deck_scales,
    scale_ratio,
    trunk_columns,
)
from evenstar_env.content import Content, fingerprint, load_content
from evenstar_env.engine.actions import ActionSpace
from evenstar_env.env.card_features import card_features
from evenstar_env.env.observation import encoder_for
from evenstar_env.safe_io import read_bounded, read_json

FORMAT = "evenstar-net-v1"
NEG = -1e9  # the logit of an illegal action


@contextmanager
def torch_threads(n: int) -> Iterator[None]:
    """Run a block on `n` torch threads (the process's setting is restored after)."""
    old = torch.get_num_threads()
    torch.set_num_threads(n)
    try:
        yield
    finally:
        torch.set_num_threads(old)


class CheckpointError(ValueError):
    """A network checkpoint is missing, malformed or made for other content."""


@dataclass(frozen=True)
class NetConfig:
    """What builds a network: its kind, sizes and the content layout it reads."""

    kind: str = "mlp"
    hidden: tuple[int, ...] = (512, 512)
    obs_size: int = 0
    n_actions: int = 0
    content: str = ""  # the content fingerprint of the observation and action layout
    options: dict[str, Any] = field(default_factory=dict)  # kind-specific settings

    @classmethod
    def for_content(cls, content: Content | None = None, **kw: Any) -> NetConfig:
        c = content or load_content()
        return cls(obs_size=encoder_for(c).size, n_actions=ActionSpace.for_content(c).n,
                   content=fingerprint(c), **kw)


def board_key(content: Content) -> str:
    """What a ``card_features`` network needs unchanged to play a content: the countries,
    the history cards and every observation field that is not a card's, by name and size,
    but for ``option_effects``, whose columns are carried by name (agents/deck_carry.py).
    A deck edit keeps it; a map edit or a history card does not."""
    import hashlib

    enc, per_card = encoder_for(content), {*CARD_FIELDS, "option_effects"}
    fields = [f"{k}:{s.stop - s.start}" for k, s in enc.layout.items() if k not in per_card]
    names = [x.name for x in content.countries] + [h.id for h in content.history]
    return hashlib.sha256("\n".join(names + fields).encode()).hexdigest()[:16]


def fresh_config(kind: str, hidden: tuple[int, ...], token: int = 32,
                 content: Content | None = None) -> NetConfig:
    """The config of a fresh network of `kind`: layer widths (the structured kind's
    trunk) and, for the structured kind, its token width."""
    if kind not in NETWORKS:
        raise CheckpointError(f"unknown network kind {kind!r} (one of {sorted(NETWORKS)})")
    cfg = NetConfig.for_content(content, kind=kind, hidden=tuple(hidden),
                                options={"token": token} if kind == "structured" else {})
    return check_config({**asdict(cfg), "hidden": list(cfg.hidden)}, "--hidden/--token")


def dense_stack(width: int, hidden: tuple[int, ...],
                activation: Callable[[], nn.Module]) -> tuple[nn.Sequential, int]:
    """Linear layers of the `hidden` widths from `width` inputs, each followed by
    `activation`; and the width of the output."""
    layers: list[nn.Module] = []
    for h in hidden:
        layers += [nn.Linear(width, h), activation()]
        width = h
    return nn.Sequential(*layers), width


class MLPPolicyValue(nn.Module):
    """A shared tanh MLP body with a policy head and a value head."""

    def __init__(self, cfg: NetConfig, content: Content | None = None) -> None:
        super().__init__()
        self.body, width = dense_stack(cfg.obs_size, cfg.hidden, nn.Tanh)
        self.policy = nn.Linear(width, cfg.n_actions)
        self.value = nn.Linear(width, 1)
        nn.init.orthogonal_(self.policy.weight, gain=0.01)
        nn.init.zeros_(self.policy.bias)

    def forward(self, obs: torch.Tensor, mask: torch.Tensor | None = None
                ) -> tuple[torch.Tensor, torch.Tensor]:
        x = self.body(obs)
        logits = self.policy(x)
        return (logits if mask is None else masked_logits(logits, mask),
                torch.tanh(self.value(x)).squeeze(-1))


# The observation fields that describe one country (blocks of `content.n` entries) and
# one card (blocks of `content.nc`); ``option_places`` adds one field per option slot.
COUNTRY_FIELDS = ("inf_usa", "inf_china", "inf_anti_us", "ctrl_usa", "ctrl_china",
                  "ctrl_anti_us", "non_realignable", "decision_countries",
                  "decision_candidates", "decision_chosen")
CARD_FIELDS = ("hand", "discard", "removed", "in_play", "own_headline", "playing",
               "opponent_headline", "event_played", "revealed_opponent_hand", "decision_card",
               "hand_war_risk", "source_card")


def token_indices(content: Content) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Observation indices of the country tokens (n x fields), of the card tokens
    (nc x fields) and of the global fields (everything else)."""
    enc = encoder_for(content)
    n, nc, L = content.n, content.nc, enc.layout
    slots = (L["option_places"].stop - L["option_places"].start) // n
    country = [[L[f].start + i for f in COUNTRY_FIELDS]
               + [L["option_places"].start + k * n + i for k in range(slots)] for i in range(n)]
    card = [[L[f].start + k for f in CARD_FIELDS] for k in range(nc)]
    for f in COUNTRY_FIELDS + CARD_FIELDS:
        assert L[f].stop - L[f].start == (n if f in COUNTRY_FIELDS else nc), f
    used = {i for row in country + card for i in row}
    rest = [i for i in range(enc.size) if i not in used]
    return torch.tensor(country), torch.tensor(card), torch.tensor(rest)


def field_blocks(idx: torch.Tensor) -> list[tuple[int, int]]:
    """The observation slices of token fields laid out as blocks of ``len(idx)`` entries
    (entry ``idx[i, f] == idx[0, f] + i``), adjacent fields merged: (start, fields)."""
    n = len(idx)
    assert bool((idx == idx[0] + torch.arange(n)[:, None]).all()), "fields not in blocks"
    blocks: list[list[int]] = []
    for s in idx[0].tolist():
        if blocks and blocks[-1][0] + blocks[-1][1] * n == s:
            blocks[-1][1] += 1
        else:
            blocks.append([s, 1])
    return [(s, k) for s, k in blocks]


def index_ranges(idx: torch.Tensor) -> list[tuple[int, int]]:
    """The increasing indices `idx` as runs of consecutive ones: (start, stop) slices."""
    runs: list[list[int]] = []
    for i in idx.tolist():
        if runs and runs[-1][1] == i:
            runs[-1][1] += 1
        else:
            runs.append([i, i + 1])
    return [(a, b) for a, b in runs]


def gather_fields(obs: torch.Tensor, blocks: list[tuple[int, int]], n: int) -> torch.Tensor:
    """The token fields of `obs` (B x fields x n) from its `blocks` (slices, no index op)."""
    b = obs.shape[0]
    return torch.cat([obs[:, s:s + k * n].view(b, k, n) for s, k in blocks], 1)


def std_pool(x: torch.Tensor, dim: int = 1) -> torch.Tensor:
    """``x.std(dim)`` in two passes, about 5x faster on a CPU; the gradient is 0 where
    the deviation is 0, as torch's."""
    var = (x - x.mean(dim, keepdim=True)).square().sum(dim) / (x.shape[dim] - 1)
    pos = var > 0
    return torch.where(pos, torch.where(pos, var, 1.0).sqrt(), 0.0)


# Up to this many positions a forward pass without gradients runs natively as a whole
# (agents/kernels.py: infer) where the fused kernels run: PyTorch's some sixty operations
# cost about a millisecond whatever the batch (docs/agents.md).
NATIVE_INFER_UP_TO = 64
# From this many positions the card stage computes per position only the cards with a
# non-zero field (61 of 136 in real positions): that pays in training batches, while
# below it the stage's index operations cost more than they save (docs/agents.md).
SPARSE_CARDS_FROM = 256
TokenAt = Callable[[torch.Tensor, torch.Tensor], torch.Tensor]


class StructuredPolicyValue(nn.Module):
    """Country and card tokens, a pooled trunk, pointer-style country and card logits.

    A country token embeds that country's observation fields, its static map
    features and a learned identity; one round of neighbour messages runs over
    the map's adjacency.  A card token embeds the card's fields and identity.
    The trunk reads the global fields, the pooled country tokens and the mean of
    all card tokens and of those in one's own hand.  Every
    action gets a dense logit from the trunk; country and card actions add a
    per-token correction (initialised to zero) from their own token and the trunk.
    Given the legal-action mask, the corrections are computed for the legal actions
    only (exact for masked logits); in large batches the card stage skips the cards
    with no non-zero field; on a CPU both token stages run as fused native kernels
    (agents/kernels.py).
    Options: ``token`` (token width, default 32), ``max_pool`` (max- rather than
    standard-deviation pooling of the countries; slower), ``card_features`` (a card's
    identity and its action's dense row are a learned function of its data,
    :mod:`evenstar_env.env.card_features`, plus a learned per-card residual: a card the
    network never saw gets its terms from its data alone; :func:`load_checkpoint` carries
    such a network to another deck on the same board).  `hidden` are the trunk's widths.
    """

    def __init__(self, cfg: NetConfig, content: Content | None = None) -> None:
        super().__init__()
        c = content or load_content()
        sp = ActionSpace.for_content(c)
        d = int(cfg.options.get("token", 32))
        self.max_pool = bool(cfg.options.get("max_pool", False))
        self.card_features = bool(cfg.options.get("card_features", False))
        self.card_ids = [card.id for card in c.cards]
        self.board = board_key(c) if self.card_features else ""
        self.scales = deck_scales(c) if self.card_features else {}
        self.native = True  # the fused kernels where built (agents/kernels.py)
        country, card, rest = token_indices(c)
        static = torch.tensor(np.stack(list(encoder_for(c).static_features.values()), 1))
        adj = torch.tensor(c.adj, dtype=torch.float32)
        self.register_buffer("country_idx", country, persistent=False)
        self.register_buffer("card_idx", card, persistent=False)
        self.register_buffer("global_idx", rest, persistent=False)
        # the global fields as slices: ``obs[:, global_idx]`` costs 13x their concatenation
        self.global_ranges = index_ranges(rest)
        self.country_blocks, self.card_blocks = field_blocks(country), field_blocks(card)
        self.register_buffer("static", static, persistent=False)
        self.register_buffer("adj", adj / adj.sum(1, keepdim=True).clamp(min=1),
                             persistent=False)
        self.country0, self.card0, self.n, self.nc = sp.country0, sp.card0, c.n, c.nc
        self.card_starts = kernels.field_starts(self.card_blocks, self.nc)
        self.country_in = nn.Linear(country.shape[1], d)
        self.country_static = nn.Linear(static.shape[1], d, bias=False)
        self.country_id = nn.Embedding(c.n, d)
        self.neighbours = nn.Linear(d, d)
        self.country_out = nn.Linear(d, d)
        self.card_in = nn.Linear(card.shape[1], d)
        self.card_id = nn.Embedding(c.nc, d)
        self.card_out = nn.Linear(d, d)
        self.trunk, width = dense_stack(rest.numel() + 4 * d, cfg.hidden, nn.ReLU)
        self.policy = nn.Linear(width, cfg.n_actions)
        if self.card_features:
            feats = torch.tensor(card_features(c))
            self.register_buffer("card_feats", feats, persistent=False)
            self.card_feat = nn.Linear(feats.shape[1], d, bias=False)
            self.card_policy = nn.Linear(feats.shape[1], width + 1, bias=False)
            nn.init.normal_(self.card_feat.weight, std=0.02)
            nn.init.zeros_(self.card_policy.weight)
        self.value = nn.Linear(width, 1)
        self.country_query = nn.Linear(width, d)
        self.card_query = nn.Linear(width, d)
        self.country_corr = nn.Linear(d, 1)
        self.card_corr = nn.Linear(d, 1)
        for head in (self.country_corr, self.card_corr):
            nn.init.zeros_(head.weight)
            nn.init.zeros_(head.bias)
        nn.init.orthogonal_(self.policy.weight, gain=0.01)
        nn.init.zeros_(self.policy.bias)
        for emb in (self.country_id, self.card_id):
            nn.init.normal_(emb.weight, std=0.1)

    def card_ident(self) -> torch.Tensor:
        """Every card's identity term (nc x d): its learned embedding, plus (option
        ``card_features``) a learned function of its data."""
        if not self.card_features:
            return self.card_id.weight
        return self.card_id.weight + self.card_feat(self.card_feats)

    def policy_params(self) -> tuple[torch.Tensor, torch.Tensor]:
        """The dense head's weight and bias; with ``card_features`` a card action's row
        adds a learned function of the card's data to its own."""
        w, b = self.policy.weight, self.policy.bias
        if not self.card_features:
            return w, b
        extra = self.card_policy(self.card_feats)  # nc x (width + 1)
        lo, hi = self.card0, self.card0 + self.nc
        return (torch.cat([w[:lo], w[lo:hi] + extra[:, :-1], w[hi:]]),
                torch.cat([b[:lo], b[lo:hi] + extra[:, -1], b[hi:]]))

    def memo(self, name: str, tensors: tuple[torch.Tensor, ...], make: Callable[[], Any]) -> Any:
        """``make()``, kept under `name` until one of `tensors` is replaced (``.to``,
        ``.double``, loaded weights) or changed in place (its version counter)."""
        key = tuple((t.data_ptr(), t.dtype, t._version) for t in tensors)
        cached = self.__dict__.get("_memo", {}).get(name)
        if cached is None or cached[0] != key:
            cached = (key, make())
            self.__dict__.setdefault("_memo", {})[name] = cached
        return cached[1]

    def sparse_adj(self) -> torch.Tensor:
        """`adj` as a sparse tensor (a conversion costs 0.3 ms: kept, :meth:`memo`)."""
        return self.memo("sparse_adj", (self.adj,), self.adj.to_sparse)

    def country_tokens(self, obs: torch.Tensor) -> torch.Tensor:
        """The country tokens after the neighbour step, country-major (n x B x d): the
        neighbours' mean is then one sparse (n x n) @ (n x B*d) product, no transpose."""
        ident = self.country_id.weight + self.country_static(self.static)  # n x d
        xc = gather_fields(obs, self.country_blocks, self.n).permute(2, 0, 1)
        zc = torch.relu(self.country_in(xc) + ident[:, None])
        n, b, d = zc.shape
        nb = torch.sparse.mm(self.sparse_adj(), zc.reshape(n, b * d)).view(n, b, d)
        return torch.relu(self.country_out(zc) + self.neighbours(nb))

    def fused(self, obs: torch.Tensor) -> bool:
        """Whether the fused kernels (agents/kernels.py) compute the stages of `obs`: on a
        CPU where they are built, for tokens up to their width, unless `native` is
        switched off."""
        return (self.native and kernels.available() and obs.device.type == "cpu"
                and obs.dtype == self.country_in.weight.dtype
                and self.country_in.out_features <= kernels.MAX_WIDTH)

    def terms(self) -> dict[str, torch.Tensor]:
        """The terms that depend on the parameters alone: ``country_ident`` and
        ``card_ident`` (the tokens' own terms with the first layers' biases),
        ``country_bias`` (the country stage's summed biases), ``base`` (the absent
        cards' tokens).  Without gradients (rollouts, play) they are kept until one of
        the tensors they are made of changes (:meth:`term_inputs`): a forward pass of a
        few positions spent about a fifth of its time on them.  A forward pass asks once
        (the key costs 20-30 µs)."""
        make = {"country_ident": lambda: self.country_id.weight
                + self.country_static(self.static) + self.country_in.bias,
                "country_bias": lambda: self.country_out.bias + self.neighbours.bias,
                "card_ident": lambda: self.card_ident() + self.card_in.bias,
                "base": lambda: self.base_tokens(self.card_id.weight)}
        if torch.is_grad_enabled():
            return {k: f() for k, f in make.items()}
        return self.memo("terms", self.term_inputs(), lambda: {k: f() for k, f in make.items()})

    def term_inputs(self) -> tuple[torch.Tensor, ...]:
        """The tensors :meth:`terms` are made of: their key."""
        return (self.country_id.weight, self.country_static.weight, self.static,
                self.country_in.bias, self.country_out.bias, self.neighbours.bias,
                self.card_id.weight, self.card_in.weight, self.card_in.bias,
                self.card_out.weight, self.card_out.bias,
                *((self.card_feat.weight, self.card_feats) if self.card_features else ()))

    def packed(self) -> kernels.Packed:
        """The network's arrays for the native forward pass (kernels.infer), kept until a
        parameter or buffer changes (:meth:`memo`)."""
        features = (self.card_feats,) if self.card_features else ()
        return self.memo("packed", (*self.parameters(), self.static, self.adj, *features),
                         self.pack)

    def pack(self) -> kernels.Packed:
        """:meth:`packed`, made afresh."""
        def arr(t: torch.Tensor) -> np.ndarray:
            return t.detach().contiguous().numpy()
        with torch.no_grad():
            terms, g = self.terms(), self.country_graph()
            layers = [(m.weight, m.bias) for m in self.trunk if isinstance(m, nn.Linear)]
            layers += [self.policy_params()] + [(m.weight, m.bias) for m in (
                self.value, self.country_query, self.card_query)]
            glob = np.array(self.global_ranges, dtype=np.int64).reshape(-1)
            args = (g.starts, arr(terms["country_ident"]), arr(self.country_in.weight),
                    arr(self.country_out.weight), arr(self.neighbours.weight),
                    arr(terms["country_bias"]), *g.csr,
                    self.card_starts, arr(terms["card_ident"]), arr(self.card_in.weight),
                    arr(self.card_out.weight), arr(self.card_out.bias), arr(terms["base"]),
                    glob, [arr(w.t()) for w, _ in layers], [arr(b) for _, b in layers],
                    *(arr(torch.cat([c.weight[0], c.bias])) for c in (self.country_corr,
                                                                      self.card_corr)),
                    self.country0, self.card0)
        return kernels.Packed(args, self.policy.out_features)

    def country_graph(self) -> kernels.Graph:
        """The fused kernel's view of the map (kept, :meth:`memo`)."""
        return self.memo("graph", (self.adj,), lambda: kernels.Graph.build(
            kernels.field_starts(self.country_blocks, self.n), self.adj))

    def country_stage(self, obs: torch.Tensor, terms: dict[str, torch.Tensor] | None = None
                      ) -> tuple[torch.Tensor, torch.Tensor, TokenAt]:
        """The pooled country tokens (mean and spread, B x d each) and the token of given
        (position, country) pairs: the fused kernel where it runs (not for ``max_pool``),
        else :meth:`country_tokens`.  `terms`: :meth:`terms`, if already asked for."""
        if self.fused(obs) and not self.max_pool:
            terms = terms or self.terms()
            z, mean, std = kernels.CountryStage.apply(
                obs.contiguous(), terms["country_ident"], self.country_in.weight,
                self.country_out.weight, self.neighbours.weight, terms["country_bias"],
                self.country_graph())
            return mean, std, lambda b, i: z[b, i]
        zc = self.country_tokens(obs)
        return (zc.mean(0), zc.amax(0) if self.max_pool else std_pool(zc, 0),
                lambda b, i: zc[i, b])

    def card_stage(self, obs: torch.Tensor, terms: dict[str, torch.Tensor] | None = None
                   ) -> tuple[torch.Tensor, torch.Tensor, TokenAt]:
        """The mean card token, the mean token of the hand and the token of given
        (position, card) pairs: the fused kernel where it runs, else the sparse stage
        from `SPARSE_CARDS_FROM` positions on and the dense one below.  `terms`:
        :meth:`terms`, if already asked for."""
        if self.fused(obs):
            return self.fused_cards(obs.contiguous(), terms or self.terms())
        xk = gather_fields(obs, self.card_blocks, self.nc).transpose(1, 2)  # B x nc x f
        if len(obs) >= SPARSE_CARDS_FROM:
            return self.sparse_cards(xk, (terms or self.terms())["base"])
        return self.dense_cards(xk)

    def card_token(self, fields: torch.Tensor, card: torch.Tensor) -> torch.Tensor:
        """The tokens (... x d) of cards `card` whose fields are `fields` (... x fields)."""
        return torch.relu(self.card_out(torch.relu(self.card_in(fields)
                                                   + self.card_ident()[card])))

    def tokens(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Every country token (B x n x d), every card token (B x nc x d) and the card
        fields (B x fields x nc)."""
        xk = gather_fields(obs, self.card_blocks, self.nc)
        return (self.country_tokens(obs).transpose(0, 1),
                self.card_token(xk.transpose(1, 2), torch.arange(self.nc, device=obs.device)),
                xk)

    def dense_cards(self, xk: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, TokenAt]:
        """The card stage on every card of every position (B x nc x fields `xk`): the
        mean card token, the mean token of the hand and the token of given (position,
        card) pairs."""
        zk = self.card_token(xk, torch.arange(self.nc, device=xk.device))  # B x nc x d
        hand = xk[:, :, 0]  # 1 for the cards in one's own hand (CARD_FIELDS[0])
        in_hand = torch.bmm(hand[:, None], zk)[:, 0] / hand.sum(1, keepdim=True).clamp(min=1)
        return zk.mean(1), in_hand, lambda b, k: zk[b, k]

    def base_tokens(self, like: torch.Tensor) -> torch.Tensor:
        """The token of each card whose fields are all 0 (nc x d): the card's alone."""
        return self.card_token(like.new_zeros(self.nc, self.card_in.in_features),
                               torch.arange(self.nc, device=like.device))

    def row_pooling(self, present: torch.Tensor, where: torch.Tensor, zr: torch.Tensor,
                    sums: torch.Tensor, hand: torch.Tensor, hand_count: torch.Tensor,
                    base: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, TokenAt]:
        """The card stage's outputs from the tokens `zr` of the present cards' rows
        (`where`: each (position, card)'s row, -1 if absent), their per-position `sums`
        and hand sums, the cards in hand a position and the absent cards' tokens."""
        # every card's base token, less those of the present cards (a small matrix
        # product: gathering base[rk] row by row costs more, forward and back)
        total = base.sum(0) - present.to(base.dtype) @ base + sums

        def token_at(pb: torch.Tensor, pk: torch.Tensor) -> torch.Tensor:
            if not len(zr):  # no card present in any position
                return base[pk]
            i = where[pb, pk]
            return torch.where((i >= 0)[:, None], zr[i.clamp(min=0)], base[pk])
        return total / self.nc, hand / hand_count.clamp(min=1)[:, None], token_at

    def sparse_cards(self, xk: torch.Tensor, base: torch.Tensor
                     ) -> tuple[torch.Tensor, torch.Tensor, TokenAt]:
        """:meth:`dense_cards`, computing per position only the tokens of the cards with
        a non-zero field: the others' depend on the card alone (most of the deck, whose
        tokens are `base`)."""
        b = len(xk)
        present = (xk != 0).any(2)
        rb, rk = present.nonzero(as_tuple=True)
        rows = xk[rb, rk]
        zr = self.card_token(rows, rk)
        sums = zr.new_zeros(b, zr.shape[1]).index_add(0, rb, zr)
        h = rows[:, 0].nonzero().squeeze(1)  # the rows of cards in one's own hand
        hand = zr.new_zeros(b, zr.shape[1]).index_add(0, rb[h], zr[h] * rows[h, :1])
        where = torch.full(present.shape, -1, dtype=torch.long, device=zr.device)
        where[rb, rk] = torch.arange(len(rb), device=zr.device)
        return self.row_pooling(present, where, zr, sums, hand, xk[:, :, 0].sum(1), base)

    def fused_cards(self, obs: torch.Tensor, terms: dict[str, torch.Tensor]
                    ) -> tuple[torch.Tensor, torch.Tensor, TokenAt]:
        """:meth:`sparse_cards` with the present cards' rows in the fused kernel."""
        present, where, rb, rk = kernels.card_rows(obs, self.card_starts, self.nc)
        zr, sums, hand = kernels.CardRows.apply(
            obs, rb, rk, terms["card_ident"], self.card_in.weight,
            self.card_out.weight, self.card_out.bias, self.card_starts)
        s = int(self.card_starts[0])  # the hand field (CARD_FIELDS[0])
        return self.row_pooling(present, where, zr, sums, hand, obs[:, s:s + self.nc].sum(1),
                                terms["base"])

    def trunk_out(self, obs: torch.Tensor, pooled: torch.Tensor) -> torch.Tensor:
        """The trunk on the global fields of `obs` and the `pooled` tokens.  Its first
        layer is two products, so that the backward pass computes no gradient for the
        global fields: for their concatenation with the pooled tokens PyTorch would (85%
        of that layer's input gradient, thrown away)."""
        glob = torch.cat([obs[:, lo:hi] for lo, hi in self.global_ranges], -1)
        if not len(self.trunk):  # no hidden layer: the heads read the input itself
            return torch.cat([glob, pooled], -1)
        first, g = self.trunk[0], len(self.global_idx)
        x = torch.addmm(first.bias, glob, first.weight[:, :g].t())
        return self.trunk[1:](x + pooled @ first.weight[:, g:].t())

    def forward(self, obs: torch.Tensor, mask: torch.Tensor | None = None
                ) -> tuple[torch.Tensor, torch.Tensor]:
        """Logits (B x n_actions) and values (B).  Given the legal-action `mask`, the
        logits are masked (:func:`masked_logits`), so the per-token corrections are
        computed for the legal actions only."""
        b = len(obs)
        if not b:  # no position (a rollout step with no learner to move)
            return obs.new_zeros(0, self.policy.out_features), obs.new_zeros(0)
        if (b <= NATIVE_INFER_UP_TO and not torch.is_grad_enabled() and self.fused(obs)
                and not self.max_pool):
            legal = mask if mask is not None else obs.new_ones(b, self.policy.out_features,
                                                               dtype=torch.bool)
            return kernels.infer(obs.contiguous(), legal.contiguous(), self.packed())
        terms = self.terms()
        country_mean, spread, country_token_at = self.country_stage(obs, terms)
        card_mean, in_hand, card_token_at = self.card_stage(obs, terms)
        t = self.trunk_out(obs, torch.cat([country_mean, spread, card_mean, in_hand], -1))
        logits = F.linear(t, *self.policy_params())
        legal = mask if mask is not None else obs.new_ones(logits.shape, dtype=torch.bool)
        cb, ck = legal[:, self.card0:self.card0 + self.nc].nonzero(as_tuple=True)
        corr = self.card_corr(torch.relu(card_token_at(cb, ck) + self.card_query(t)[cb]))
        logits = logits.index_put((cb, ck + self.card0), corr.squeeze(-1), accumulate=True)
        qb, qk = legal[:, self.country0:self.country0 + self.n].nonzero(as_tuple=True)
        corr = self.country_corr(torch.relu(country_token_at(qb, qk) + self.country_query(t)[qb]))
        logits = logits.index_put((qb, qk + self.country0), corr.squeeze(-1), accumulate=True)
        return (logits if mask is None else masked_logits(logits, mask),
                torch.tanh(self.value(t)).squeeze(-1))


NETWORKS: dict[str, Callable[[NetConfig, Content | None], nn.Module]] = {
    "mlp": MLPPolicyValue, "structured": StructuredPolicyValue}


def build_network(cfg: NetConfig, content: Content | None = None) -> nn.Module:
    """A fresh network of `cfg.kind`."""
    if cfg.kind not in NETWORKS:
        raise CheckpointError(f"unknown network kind {cfg.kind!r} (one of {sorted(NETWORKS)})")
    return NETWORKS[cfg.kind](cfg, content)


def masked_logits(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """`logits` with every action the boolean `mask` forbids set to :data:`NEG`."""
    return logits.masked_fill(~mask, NEG)


def legal_log_probs(net: nn.Module, obs: torch.Tensor, mask: torch.Tensor,
                    chunk: int = 4096) -> tuple[torch.Tensor, torch.Tensor]:
    """Masked log-probabilities and values of `net` on a batch, without gradients and
    `chunk` rows a forward pass (thirty thousand rows at once hold a gigabyte)."""
    parts = []
    with torch.no_grad():
        for k in range(0, max(len(obs), 1), chunk):  # an empty batch: one empty pass
            logits, value = net(obs[k:k + chunk], mask[k:k + chunk])
            parts.append((torch.log_softmax(logits, -1), value))
    return torch.cat([p[0] for p in parts]), torch.cat([p[1] for p in parts])


def legal_probs(logp: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """``logp.exp()`` on the actions `mask` allows and 0 on the others, without taking
    the exponential of their -1e9s (a slow path of ``exp`` on a CPU, 10x the time)."""
    return torch.where(mask, logp.masked_fill(~mask, 0.0).exp(), 0.0)


def save_checkpoint(path: Path, net: nn.Module, cfg: NetConfig,
                    extra: dict[str, Any] | None = None) -> None:
    """Write `net` as ``path/weights.pt`` + ``path/config.json`` (atomically per file)."""
    path = Path(path)
    path.mkdir(parents=True, exist_ok=True)
    state = {k: v.detach().cpu().clone() for k, v in net.state_dict().items()}
    tmp = path / "weights.pt.tmp"
    torch.save(state, tmp)
    tmp.replace(path / "weights.pt")
    doc: dict[str, Any] = {"format": FORMAT, "net": asdict(cfg), "extra": extra or {}}
    if getattr(net, "card_features", False):  # what load_checkpoint carries to other decks
        doc.update(cards=net.card_ids, board=net.board, scales=net.scales)
    tmp = path / "config.json.tmp"
    tmp.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n")
    tmp.replace(path / "config.json")


MAX_CONFIG_BYTES = 1 << 20  # a config.json is a few hundred bytes
MAX_WEIGHTS_BYTES = 1 << 30
MAX_LAYERS = 16
MAX_WIDTH = 16_384  # units per hidden layer
MAX_TOKEN = 1_024  # the structured kind's token width
MAX_PARAMS = 200_000_000  # 800 MB of float32, as for PPO policy files
OPTIONS: dict[str, type] = {"token": int, "max_pool": bool, "card_features": bool}


def one_line(exc: BaseException, limit: int = 300) -> str:
    """An exception's message on one line (torch's unpickling errors span many)."""
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= limit else text[:limit] + "..."


def _size(value: Any, what: str, lo: int, hi: int) -> int:
    if type(value) is not int or not lo <= value <= hi:
        raise CheckpointError(f"{what} must be an integer in {lo}..{hi:,}, got "
                              f"{value!r}"[:200])
    return value


def check_config(raw: Any, where: str = "config") -> NetConfig:
    """The :class:`NetConfig` of a checkpoint's ``net`` entry, every field checked and the
    network's size bounded before anything is allocated (:class:`CheckpointError`)."""
    if not isinstance(raw, dict):
        raise CheckpointError(f"{where}: 'net' must be an object, not {type(raw).__name__}")
    unknown = sorted(set(raw) - {f for f in NetConfig.__dataclass_fields__})
    if unknown:
        raise CheckpointError(f"{where}: unknown 'net' field(s) {unknown}"[:200])
    kind, hidden = raw.get("kind", "mlp"), raw.get("hidden", [])
    if kind not in NETWORKS:
        raise CheckpointError(f"{where}: network kind {kind!r} is not one of "
                              f"{sorted(NETWORKS)}"[:200])
    if not isinstance(hidden, list | tuple) or len(hidden) > MAX_LAYERS:
        raise CheckpointError(f"{where}: 'hidden' must be a list of at most {MAX_LAYERS} "
                              f"layer widths, got {hidden!r}"[:200])
    widths = tuple(_size(h, f"{where}: each 'hidden' width", 1, MAX_WIDTH) for h in hidden)
    obs = _size(raw.get("obs_size", 0), f"{where}: 'obs_size'", 0, 1 << 24)
    n_act = _size(raw.get("n_actions", 0), f"{where}: 'n_actions'", 0, 1 << 24)
    if not isinstance(raw.get("content", ""), str):
        raise CheckpointError(f"{where}: 'content' must be a text fingerprint")
    options = raw.get("options", {})
    if not isinstance(options, dict):
        raise CheckpointError(f"{where}: 'options' must be an object, not "
                              f"{type(options).__name__}")
    for key, value in options.items():
        if key not in OPTIONS or type(value) is not OPTIONS[key]:
            raise CheckpointError(f"{where}: option {key!r} must be one of "
                                  + ", ".join(f"{k} ({t.__name__})" for k, t in OPTIONS.items())
                                  + f", got {value!r}"[:100])
    token = _size(options.get("token", 32), f"{where}: option 'token'", 1, MAX_TOKEN)
    sizes = [obs + (4 * token if kind == "structured" else 0), *widths]
    params = sum((a + 1) * b for a, b in zip(sizes, sizes[1:], strict=False))
    params += (sizes[-1] + 1) * (n_act + 1) + obs * token
    if params > MAX_PARAMS:
        raise CheckpointError(f"{where}: 'hidden' {list(widths)} needs about {params:,} "
                              f"parameters (at most {MAX_PARAMS:,})")
    return NetConfig(kind=kind, hidden=widths, obs_size=obs, n_actions=n_act,
                     content=raw.get("content", ""), options=dict(options))


def carry_deck(state: dict[str, torch.Tensor], doc: dict[str, Any], content: Content,
               path: Path) -> dict[str, torch.Tensor]:
    """A ``card_features`` network's weights carried to the deck of `content` on its board
    (agents/deck_carry.py): card rows by id, the trunk's option-effect columns by name,
    and the inputs scaled by the deck's extremes rescaled."""
    rows = state.get("card_id.weight")
    if rows is None or not {"policy.weight", "policy.bias", "trunk.0.weight",
                            "country_in.weight"} <= set(state):
        raise CheckpointError(f"{path}/weights.pt: not a structured network's weights "
                              "with a trunk")
    try:
        trained, old = check_facts(doc, len(rows), path)
    except CarryError as e:
        raise CheckpointError(str(e)) from None
    new = deck_scales(content)
    state = carry_cards(state, trained, content)
    tokens = {*COUNTRY_FIELDS, *CARD_FIELDS, "option_places"}
    old_cols = trunk_columns(content, old["option_features"], tokens)
    first = state["trunk.0.weight"]
    if (first.shape[1] != len(old_cols) + 4 * rows.shape[1]
            or old["option_slots"] != new["option_slots"]):
        raise CheckpointError(f"{path}: the trunk does not read this board's fields")
    state["trunk.0.weight"] = carry_trunk(first, old_cols, trunk_columns(
        content, new["option_features"], tokens), old, new)
    chosen = COUNTRY_FIELDS.index("decision_chosen")  # counts scaled by max_points
    w = state["country_in.weight"].clone()
    w[:, chosen] *= scale_ratio(old, new, "max_points")
    state["country_in.weight"] = w
    return state


def _read_doc(path: Path) -> dict[str, Any]:
    cfg_path = path / "config.json"
    doc = read_json(cfg_path, MAX_CONFIG_BYTES, "checkpoint", CheckpointError)
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise CheckpointError(f"{cfg_path}: format is not {FORMAT!r}")
    if not isinstance(doc.get("extra", {}), dict):
        raise CheckpointError(f"{cfg_path}: 'extra' must be an object, not "
                              f"{type(doc['extra']).__name__}")
    return doc


def load_weights(path: Path) -> dict[str, torch.Tensor]:
    """A weights-only tensor file as a dict of finite float tensors (CheckpointError in
    one line if it is not: a pickle, garbage, an empty file, a device, NaN or inf)."""
    try:
        data = read_bounded(path, MAX_WEIGHTS_BYTES)
    except OSError as exc:
        raise CheckpointError(f"{path}: cannot read the checkpoint: "
                              f"{exc.strerror or exc}") from None
    if not data:
        raise CheckpointError(f"{path}: an empty file, not a weights-only tensor file")
    try:
        state = torch.load(io.BytesIO(data), map_location="cpu", weights_only=True)
    except Exception as exc:  # an unpickling refusal or garbage: nothing in it ran
        found = re.search(r"WeightsUnpickler error:\s*(.*?)\s*(?:\n\n|$)", str(exc))
        why = found.group(1) if found else one_line(exc)
        raise CheckpointError(f"{path}: not a weights-only tensor file: {why}"[:400]
                              ) from None
    if not isinstance(state, dict) or not all(isinstance(k, str) and isinstance(v, torch.Tensor)
                                              for k, v in state.items()):
        raise CheckpointError(f"{path}: not a dict of named tensors")
    for key, t in state.items():
        if t.is_floating_point() and not bool(torch.isfinite(t).all()):
            raise CheckpointError(f"{path}: weight {key!r} holds NaN or infinite values")
    return state


def load_checkpoint(path: Path, content: Content | None = None
                    ) -> tuple[nn.Module, NetConfig, dict[str, Any]]:
    """The network, its config and the training facts saved at `path` (weights only).

    Every failure is one :class:`CheckpointError` line, raised before anything large is
    allocated: a config.json or weights.pt that is not a regular file or is too big, a
    malformed field, a network over :data:`MAX_PARAMS`, weights that are not finite.
    """
    path = Path(path)
    c = content or load_content()
    doc = _read_doc(path)
    cfg = check_config(doc.get("net"), f"{path}/config.json")
    want = NetConfig.for_content(c)
    state = load_weights(path / "weights.pt")
    if (cfg.content, cfg.obs_size, cfg.n_actions) != (want.content, want.obs_size,
                                                      want.n_actions):
        if not (cfg.options.get("card_features") and doc.get("board") == board_key(c)):
            hint = ("its cards are read by index: retrain, or convert it to read them by "
                    "their data (scripts/card_features.py)" if not cfg.options.get(
                        "card_features") else "the board differs (countries, history "
                    "cards or a decision field), not only the deck")
            raise CheckpointError(
                f"{path}: made for content {cfg.content} ({cfg.obs_size} inputs, "
                f"{cfg.n_actions} actions), this content is {want.content} "
                f"({want.obs_size}, {want.n_actions}): {hint}")
        state = carry_deck(state, doc, c, path)
        cfg = NetConfig(kind=cfg.kind, hidden=cfg.hidden, obs_size=want.obs_size,
                        n_actions=want.n_actions, content=want.content, options=cfg.options)
    net = build_network(cfg, c)
    try:
        net.load_state_dict(state)
    except (RuntimeError, TypeError, AttributeError) as e:
        raise CheckpointError(f"{path}/weights.pt: does not fit a {cfg.kind} network "
                              f"({one_line(e)})") from None
    net.eval()
    return net, cfg, dict(doc.get("extra") or {})


def plays(path: Path, content: Content) -> bool:
    """Whether the checkpoint at `path` plays `content` (its own layout, or any deck on
    its board for a ``card_features`` network), from its config alone."""
    try:
        doc = _read_doc(Path(path))
        cfg = check_config(doc.get("net"), str(path))
    except CheckpointError:
        return False
    if cfg.content == fingerprint(content):
        return True
    return bool(cfg.options.get("card_features")) and doc.get("board") == board_key(content)


def checkpoint_folder(path: str | Path, who: str, hint: str) -> Path:
    """`path` as a checkpoint folder (CheckpointError naming `who` and `hint` where it
    holds no config.json)."""
    path = Path(path)
    if not (path / "config.json").is_file():
        raise CheckpointError(f"{who}: no network checkpoint at {path} (a folder with "
                              f"weights.pt and config.json; {hint})")
    return path


class DeckNetworks:
    """A checkpoint's network for each content it is asked to play: a ``card_features``
    network is carried to any deck on its board (:func:`load_checkpoint`, kept per
    layout), one that reads cards by index plays its own layout only (ValueError)."""

    def __init__(self, path: Path, who: str) -> None:
        self.path, self.who = Path(path), who
        self.net, self.config, self.facts = load_checkpoint(self.path)
        self._nets: dict[str, nn.Module] = {self.config.content: self.net}

    def for_game(self, game: Any) -> nn.Module:
        """The network for `game`'s content (the loaded one when `game` is None)."""
        return self.net if game is None else self.for_content(game.content)

    def for_content(self, c: Content) -> nn.Module:
        """The network for content `c` (ValueError naming it where it cannot be read)."""
        fp = getattr(c, "_layout_fingerprint", None)
        if fp is None:
            fp = c._layout_fingerprint = fingerprint(c)
        net = self._nets.get(fp)
        if net is None:
            try:
                net = load_checkpoint(self.path, c)[0]
            except CheckpointError as e:
                raise ValueError(f"{self.who} cannot play {c.source}: {e} (use heuristic, "
                                 "cautious, ismcts or random)") from None
            self._nets[fp] = net
        return net

