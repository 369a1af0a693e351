"""Policy-value networks and their weights-only checkpoints (agents/networks.py)."""

import json

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from agents import kernels
from agents.networks import (
    NEG,
    CheckpointError,
    NetConfig,
    build_network,
    load_checkpoint,
    masked_logits,
    save_checkpoint,
)


@pytest.fixture(scope="module")
def cfg() -> NetConfig:
    return NetConfig.for_content(hidden=(32,))


def test_shapes_and_value_range(cfg):
    net = build_network(cfg)
    logits, value = net(torch.randn(5, cfg.obs_size) * 10)
    assert logits.shape == (5, cfg.n_actions) and value.shape == (5,)
    assert torch.all(value.abs() <= 1)


def test_masked_logits_forbid_illegal_actions(cfg):
    logits = torch.zeros(2, cfg.n_actions)
    mask = torch.zeros(2, cfg.n_actions, dtype=torch.bool)
    mask[0, 3] = mask[1, 7] = True
    probs = torch.softmax(masked_logits(logits, mask), -1)
    assert probs[0, 3] == 1 and probs[1, 7] == 1
    assert masked_logits(logits, mask)[0, 0] == NEG


def test_checkpoint_round_trip(cfg, tmp_path):
    net = build_network(cfg)
    save_checkpoint(tmp_path / "ck", net, cfg, {"steps": 7})
    loaded, cfg2, extra = load_checkpoint(tmp_path / "ck")
    assert cfg2 == cfg and extra == {"steps": 7}
    x = torch.randn(3, cfg.obs_size)
    for a, b in zip(net(x), loaded(x), strict=True):
        assert torch.equal(a, b)


def test_checkpoint_for_other_content_is_refused(cfg, tmp_path):
    save_checkpoint(tmp_path / "ck", build_network(cfg), cfg)
    doc = json.loads((tmp_path / "ck" / "config.json").read_text())
    doc["net"]["content"] = "0" * 16
    (tmp_path / "ck" / "config.json").write_text(json.dumps(doc))
    with pytest.raises(CheckpointError, match="made for content"):
        load_checkpoint(tmp_path / "ck")


def test_unknown_kind_and_missing_files_are_clear_errors(cfg, tmp_path):
    with pytest.raises(CheckpointError, match="unknown network kind"):
        build_network(NetConfig(kind="nope", obs_size=1, n_actions=1))
    with pytest.raises(CheckpointError, match="cannot read"):
        load_checkpoint(tmp_path / "absent")


# ----------------------------------------------------------------- the structured kind
@pytest.fixture(scope="module")
def scfg() -> NetConfig:
    return NetConfig.for_content(kind="structured", hidden=(32,), options={"token": 8})


def test_structured_shapes_and_round_trip(scfg, tmp_path):
    net = build_network(scfg)
    x = torch.rand(4, scfg.obs_size)
    logits, value = net(x)
    assert logits.shape == (4, scfg.n_actions) and value.shape == (4,)
    save_checkpoint(tmp_path / "ck", net, scfg)
    loaded, cfg2, _ = load_checkpoint(tmp_path / "ck")
    assert cfg2 == scfg
    for a, b in zip(net(x), loaded(x), strict=True):
        assert torch.equal(a, b)


def test_structured_tokens_cover_every_country_and_card_field_once(scfg):
    from agents.networks import token_indices
    from evenstar_env.content import load_content

    country, card, rest = token_indices(load_content())
    every = torch.cat([country.flatten(), card.flatten(), rest])
    assert sorted(every.tolist()) == list(range(scfg.obs_size))


def _permute(net, x, perm, idx, group0, id_emb, extra_buffers=()):
    """The network and observations with the tokens of `idx` reordered by `perm`: the
    token fields in the observation, the identities, the dense logits of those actions."""
    import copy

    net2 = copy.deepcopy(net)
    x2 = x.clone()
    x2[:, idx] = x[:, idx[perm]]
    with torch.no_grad():
        getattr(net2, id_emb).weight.copy_(getattr(net, id_emb).weight[perm])
        rows = torch.arange(group0, group0 + len(perm))
        net2.policy.weight[rows] = net.policy.weight[rows[perm]]
        net2.policy.bias[rows] = net.policy.bias[rows[perm]]
        for name in extra_buffers:
            buf = getattr(net, name)
            setattr(net2, name, buf[perm][:, perm] if buf.shape[1] == len(perm) else buf[perm])
    return net2, x2, rows


def test_structured_country_head_is_equivariant(scfg):
    """Reordering the countries (fields, identities, map features, adjacency, dense rows)
    reorders the country logits and leaves every other output as it was."""
    torch.manual_seed(0)
    net = build_network(scfg).double()
    for head in (net.country_corr, net.card_corr):  # make the per-token corrections count
        torch.nn.init.normal_(head.weight)
    x = torch.rand(3, scfg.obs_size, dtype=torch.float64)
    perm = torch.randperm(net.n)
    net2, x2, rows = _permute(net, x, perm, net.country_idx, net.country0, "country_id",
                              ("static", "adj"))
    (l1, v1), (l2, v2) = net(x), net2(x2)
    assert torch.allclose(l2[:, rows], l1[:, rows[perm]])
    other = torch.ones(scfg.n_actions, dtype=torch.bool)
    other[rows] = False
    assert torch.allclose(l2[:, other], l1[:, other]) and torch.allclose(v1, v2)
    # The identity embeddings are what tells the countries apart: without permuting
    # them the logits change.
    net3, _, _ = _permute(net, x, perm, net.country_idx, net.country0, "country_id",
                          ("static", "adj"))
    with torch.no_grad():
        net3.country_id.weight.copy_(net.country_id.weight)
    assert not torch.allclose(net3(x2)[0][:, rows], l1[:, rows[perm]])


def test_structured_card_head_is_equivariant(scfg):
    torch.manual_seed(1)
    net = build_network(scfg).double()
    torch.nn.init.normal_(net.card_corr.weight)
    x = (torch.rand(3, scfg.obs_size, dtype=torch.float64) > 0.7).double()
    perm = torch.randperm(net.nc)
    net2, x2, rows = _permute(net, x, perm, net.card_idx, net.card0, "card_id")
    (l1, v1), (l2, v2) = net(x), net2(x2)
    assert torch.allclose(l2[:, rows], l1[:, rows[perm]]) and torch.allclose(v1, v2)


def test_structured_corrections_start_at_zero(scfg):
    """At initialisation the per-token corrections add nothing to the dense logits."""
    net = build_network(scfg)
    x = torch.rand(2, scfg.obs_size)
    zc, zk, _ = net.tokens(x)
    assert torch.all(net.country_corr(zc) == 0) and torch.all(net.card_corr(zk) == 0)


def _reference_forward(net, x):
    """The structured network written plainly: index gathers, ``torch.std``, the hand's
    mean as a masked sum (what the forward's slices, two-pass deviation and bmm replace)."""
    ident = net.country_id.weight + net.country_static(net.static)
    zc = torch.relu(net.country_in(x[:, net.country_idx]) + ident)
    zc = torch.relu(net.country_out(zc) + net.neighbours(net.adj @ zc))
    zk = torch.relu(net.card_in(x[:, net.card_idx]) + net.card_id.weight)
    zk = torch.relu(net.card_out(zk))
    hand = x[:, net.card_idx[:, 0]]
    in_hand = (hand[:, :, None] * zk).sum(1) / hand.sum(1, keepdim=True).clamp(min=1)
    t = net.trunk(torch.cat([x[:, net.global_idx], zc.mean(1), zc.std(1), zk.mean(1),
                             in_hand], -1))
    logits = net.policy(t).clone()
    logits[:, net.card0:net.card0 + net.nc] += net.card_corr(
        torch.relu(zk + net.card_query(t)[:, None])).squeeze(-1)
    logits[:, net.country0:net.country0 + net.n] += net.country_corr(
        torch.relu(zc + net.country_query(t)[:, None])).squeeze(-1)
    return logits, torch.tanh(net.value(t)).squeeze(-1)


NATIVE = pytest.mark.skipif(not kernels.available(), reason="the native core is not built")


@pytest.mark.parametrize("masked", [False, True])
@pytest.mark.parametrize("sparse_from", [0, 10**9])
@pytest.mark.parametrize("native,token", [(False, 8), pytest.param(True, 8, marks=NATIVE),
                                          pytest.param(True, 16, marks=NATIVE)])
def test_structured_forward_matches_the_plain_reference(masked, sparse_from, native, token,
                                                        monkeypatch):
    """The fast forward computes the plain one: outputs and every gradient agree.  Given
    a legal-action mask (which computes the corrections of legal actions only), the
    masked logits, the values and every gradient of a loss on them agree.  Both card
    stages: the sparse one (for large batches) and the dense one; both country stages:
    the fused native kernel (its loops for a width known at run time, 8, and for 16)
    and PyTorch's operations."""
    import agents.networks

    monkeypatch.setattr(agents.networks, "SPARSE_CARDS_FROM", sparse_from)
    torch.manual_seed(2)
    scfg = NetConfig.for_content(kind="structured", hidden=(32,), options={"token": token})
    net = build_network(scfg).double()
    net.native = native
    for head in (net.country_corr, net.card_corr):
        torch.nn.init.normal_(head.weight)
    x = (torch.rand(5, scfg.obs_size, dtype=torch.float64) > 0.8).double()
    x[0] = 0  # no hand, every country token alike but for its identity
    mask = torch.rand(5, scfg.n_actions) > 0.7
    mask[1] = False  # a position with no legal action left (never played, still defined)
    mask[2, net.card0:net.card0 + net.nc] = x[2, net.card_idx[:, 0]] > 0  # the hand
    grads = []
    for forward in (lambda o: net(o, mask if masked else None),
                    lambda o: _reference_forward(net, o)):
        net.zero_grad()
        logits, value = forward(x)
        if masked:
            logits = torch.log_softmax(masked_logits(logits, mask), -1)
            logits = torch.where(mask, logits, 0.0)
        (logits.square().mean() + value.sum()).backward()
        grads.append([logits, value] + [p.grad.clone() for p in net.parameters()])
    for a, b in zip(*grads, strict=True):
        assert torch.allclose(a, b, atol=1e-10)


def test_legal_probs_are_the_masked_exponentials_with_their_gradient():
    from agents.networks import legal_probs

    torch.manual_seed(3)
    logits = torch.randn(4, 9, dtype=torch.float64, requires_grad=True)
    mask = torch.rand(4, 9) > 0.5
    mask[:, 0] = True
    grads = []
    for f in (legal_probs, lambda lp, m: torch.where(m, lp.exp(), 0.0)):
        logits.grad = None
        y = f(torch.log_softmax(masked_logits(logits, mask), -1), mask)
        (y * torch.arange(9.0, dtype=torch.float64)).sum().backward()
        grads.append((y.detach(), logits.grad.clone()))
    assert torch.equal(grads[0][0], grads[1][0]) and torch.allclose(grads[0][1], grads[1][1])
    assert torch.all(grads[0][0][~mask] == 0)


def test_the_cached_sparse_adjacency_follows_the_buffer(scfg):
    """The forward's sparse copies of the adjacency (PyTorch's and the fused kernel's) are
    redone when the buffer changes: in place, or replaced by a conversion after a
    forward pass."""
    torch.manual_seed(4)
    net = build_network(scfg)
    x = (torch.rand(3, scfg.obs_size) > 0.8).float()
    net(x)
    net.double()
    x = x.double()
    assert torch.allclose(net(x)[0], _reference_forward(net, x)[0], atol=1e-10)
    with torch.no_grad():
        net.adj.mul_(torch.rand_like(net.adj))
    assert torch.allclose(net(x)[0], _reference_forward(net, x)[0], atol=1e-10)
    graph = net.country_graph()  # the fused kernel's copy, cached while the buffer stays
    assert net.country_graph() is graph
    with torch.no_grad():
        net.adj.mul_(0.5)
    assert net.country_graph() is not graph
    assert torch.allclose(net(x)[0], _reference_forward(net, x)[0], atol=1e-10)


@given(st.sets(st.integers(0, 40)))
def test_index_ranges_are_the_indices_as_slices(indices):
    from agents.networks import index_ranges

    idx = torch.tensor(sorted(indices), dtype=torch.long)
    ranges = index_ranges(idx)
    assert [i for a, b in ranges for i in range(a, b)] == idx.tolist()
    assert all(b1 < a2 for (_, b1), (a2, _) in zip(ranges, ranges[1:], strict=False))


@given(st.integers(2, 6), st.integers(1, 4), st.booleans())
def test_std_pool_is_torch_std_with_its_gradient(n, d, constant):
    from agents.networks import std_pool

    x = torch.rand(3, n, d, dtype=torch.float64)
    if constant:  # zero deviation: torch's gradient is 0 there, not nan
        x[1] = x[1, :1]
    grads = []
    for f in (std_pool, lambda t: t.std(1), lambda t: std_pool(t.transpose(0, 1), 0)):
        xg = x.clone().requires_grad_(True)
        y = f(xg)
        (y * torch.arange(1.0, d + 1, dtype=torch.float64)).sum().backward()
        grads.append((y.detach(), xg.grad))
    for y, g in grads[1:]:
        assert torch.allclose(grads[0][0], y) and torch.allclose(grads[0][1], g)


@pytest.mark.parametrize("kind", ["mlp", "structured"])
def test_an_empty_batch_gives_empty_outputs(kind):
    """A rollout step may have no learner to move (every game waiting on an opponent):
    each kind maps 0 positions to 0 logits and values instead of failing."""
    cfg = NetConfig.for_content(kind=kind, hidden=(16,),
                                options={"token": 8} if kind == "structured" else {})
    logits, value = build_network(cfg)(torch.zeros(0, cfg.obs_size))
    assert logits.shape == (0, cfg.n_actions) and value.shape == (0,)


def test_fresh_config_sets_the_token_width_of_the_structured_kind_only():
    from agents.networks import fresh_config

    assert fresh_config("structured", (16,), 4).options == {"token": 4}
    assert fresh_config("mlp", (16,), 4).options == {}
    with pytest.raises(CheckpointError, match="unknown network kind"):
        fresh_config("nope", (16,))


@pytest.mark.parametrize("kind", ["mlp", "structured"])
def test_given_the_mask_every_kind_returns_masked_logits(kind):
    """With the legal-action mask the forbidden actions' logits are NEG and the legal
    ones (and the values) are those of the unmasked pass."""
    cfg = NetConfig.for_content(kind=kind, hidden=(16,),
                                options={"token": 4} if kind == "structured" else {})
    net = build_network(cfg).double()
    for p in net.parameters():
        torch.nn.init.normal_(p, std=0.3)
    x = (torch.rand(3, cfg.obs_size, dtype=torch.float64) > 0.8).double()
    mask = torch.rand(3, cfg.n_actions) > 0.6
    (full, v1), (masked, v2) = net(x), net(x, mask)
    assert torch.all(masked[~mask] == NEG)
    assert torch.allclose(masked[mask], full[mask]) and torch.allclose(v1, v2)


def test_the_parameter_terms_kept_without_gradients_follow_the_parameters(scfg):
    """Without gradients the parameter-only terms are kept between forward passes; a
    change of any parameter (an optimizer step in place, loaded weights) or a
    conversion replaces them, so the outputs stay those of a fresh computation."""
    torch.manual_seed(5)
    net = build_network(scfg)
    for head in (net.country_corr, net.card_corr):
        torch.nn.init.normal_(head.weight)
    x = (torch.rand(4, scfg.obs_size) > 0.8).float()

    def agree() -> bool:
        with torch.no_grad():
            kept = net(x)
        fresh = net(x)  # gradients on: nothing kept
        # within float32 rounding (the kept pass runs natively, kernels.infer); a stale
        # term is off by about 0.1
        return all(torch.allclose(a, b.detach(), rtol=1e-4, atol=1e-5)
                   for a, b in zip(kept, fresh, strict=True))

    assert agree()
    for name, p in net.named_parameters():  # each: a term left out of the key goes stale
        with torch.no_grad():
            p.add_(0.5)
        assert agree(), name
    other = build_network(scfg)
    net.load_state_dict(other.state_dict())
    assert agree()
    net.double()
    x = x.double()
    assert agree()
