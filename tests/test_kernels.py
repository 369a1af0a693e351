"""The structured network's fused country stage and card rows (agents/kernels.py, the
native module evenstar_native._kernels) against PyTorch's operations, which stay the
reference."""

import ast
import copy
import subprocess
import sys

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from agents import kernels, networks
from agents.networks import NEG, NetConfig, build_network

pytestmark = pytest.mark.skipif(not kernels.available(),
                                reason="the native core is not built")


def _net(token: int, seed: int = 0, dtype=torch.float32):
    torch.manual_seed(seed)
    cfg = NetConfig.for_content(kind="structured", hidden=(32,), options={"token": token})
    net = build_network(cfg).to(dtype)
    with torch.no_grad():  # every term of the stage carries weight
        for p in net.parameters():
            p.add_(torch.randn_like(p) * 0.2)
    return net, cfg


def _obs(cfg, b: int, seed: int, dtype=torch.float32) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    x = torch.rand(b, cfg.obs_size, generator=g, dtype=dtype)
    return torch.where(torch.rand(b, cfg.obs_size, generator=g) > 0.8, x, 0.0)


def _stage(net, obs, native: bool, pick, stage="country_stage"):
    """The stage's outputs and the gradients of a loss on them (the pooled tokens, and
    the tokens of `pick` = (positions, countries or cards), or none)."""
    net = copy.deepcopy(net)
    net.native = native
    mean, spread, token_at = getattr(net, stage)(obs)
    loss = (mean * torch.arange(mean.shape[1])).sum() + spread.square().sum()
    if pick is not None:
        loss = loss + token_at(*pick).sin().sum()
    loss.backward()
    grads = {k: p.grad for k, p in net.named_parameters() if p.grad is not None}
    return [mean.detach(), spread.detach()], grads


def _close(a: torch.Tensor, b: torch.Tensor, rtol: float) -> bool:
    if not b.numel():
        return a.shape == b.shape
    return bool((a - b).abs().max() <= rtol * max(1.0, b.abs().max().item()))


STAGES = {"country_stage": {"country_in.weight", "country_id.weight", "neighbours.bias"},
          "card_stage": {"card_in.weight", "card_id.weight", "card_out.bias"}}


@pytest.mark.parametrize("stage", sorted(STAGES))
@pytest.mark.parametrize("generic", [False, True])
@pytest.mark.parametrize("token", [16, 32, 12])
def test_float32_stage_matches_pytorch_with_every_gradient(token, generic, stage):
    """float32, the training type: the two builds (AVX2/FMA and generic), the widths
    with compile-time loops (16, 32) and one known only at run time."""
    net, cfg = _net(token)
    obs = _obs(cfg, 70, seed=token)
    obs[3] = 0  # a position with no card present
    pick = (torch.tensor([0, 0, 5, 69, 3]), torch.tensor([0, 86, 3, 40, 2]))
    kernels._kernels.force_generic(generic)
    try:
        (outs, grads), (ref, ref_grads) = (_stage(net, obs, True, pick, stage),
                                           _stage(net, obs, False, pick, stage))
    finally:
        kernels._kernels.force_generic(False)
    assert all(_close(a, b, 1e-5) for a, b in zip(outs, ref, strict=True))
    assert grads.keys() == ref_grads.keys()
    assert STAGES[stage] <= grads.keys()  # the stage's own parameters
    for k in grads:
        assert _close(grads[k], ref_grads[k], 1e-4), k


@settings(max_examples=25, deadline=None)
@given(b=st.integers(0, 9), seed=st.integers(0, 2**16), token=st.sampled_from([4, 8, 16]),
       picked=st.booleans(), zero=st.booleans(), stage=st.sampled_from(sorted(STAGES)))
def test_float64_stage_is_pytorchs_within_rounding(b, seed, token, picked, zero, stage):
    """Any batch (empty too), with or without token gradients (the backward then gets
    none for the tokens), observations all 0 (every country token's spread can be 0, no
    card row is present)."""
    net, cfg = _net(token, seed, torch.float64)
    obs = _obs(cfg, b, seed, torch.float64) * (0 if zero else 1)
    pick = (torch.arange(b), torch.arange(b) % net.n) if picked else None
    (outs, grads), (ref, ref_grads) = (_stage(net, obs, True, pick, stage),
                                       _stage(net, obs, False, pick, stage))
    assert all(_close(a, b_, 1e-12) for a, b_ in zip(outs, ref, strict=True))
    assert grads.keys() == ref_grads.keys()
    for k in grads:
        assert _close(grads[k], ref_grads[k], 1e-10), k


@settings(max_examples=25, deadline=None)
@given(b=st.integers(0, 6), seed=st.integers(0, 2**16), density=st.sampled_from([0.0, 0.02, 0.5]),
       generic=st.booleans())
def test_card_rows_are_the_present_cards_in_nonzeros_order(b, seed, density, generic):
    """The card rows (both builds): which cards have a non-zero field, the pairs in
    ``nonzero``'s order and each pair's row, as PyTorch computes them."""
    net, cfg = _net(8)
    g = torch.Generator().manual_seed(seed)
    obs = torch.where(torch.rand(b, cfg.obs_size, generator=g) < density, 1.0, 0.0)
    kernels._kernels.force_generic(generic)
    try:
        present, row, pos, card = kernels.card_rows(obs, net.card_starts, net.nc)
    finally:
        kernels._kernels.force_generic(False)
    fields = torch.stack([obs[:, s:s + net.nc] for s in net.card_starts.tolist()], 2)
    want = (fields != 0).any(2)
    assert torch.equal(present, want)
    rb, rk = want.nonzero(as_tuple=True)
    assert torch.equal(pos, rb) and torch.equal(card, rk)
    expect = torch.full_like(row, -1)
    expect[rb, rk] = torch.arange(len(rb))
    assert torch.equal(row, expect)


@pytest.mark.parametrize("stage", sorted(STAGES))
def test_two_threads_compute_what_one_does(stage):
    net, cfg = _net(16)
    obs = _obs(cfg, 300, seed=1)
    pick = (torch.arange(300), torch.arange(300) % net.n)
    results = []
    for threads in (1, 2):
        before = torch.get_num_threads()
        torch.set_num_threads(threads)
        try:
            results.append(_stage(net, obs, True, pick, stage))
        finally:
            torch.set_num_threads(before)
    (o1, g1), (o2, g2) = results
    assert all(torch.equal(a, b) for a, b in zip(o1, o2, strict=True))  # per position
    # summed in two parts: a different order of float32 sums, which cancel (the card
    # rows' bias gradient is 1.5e-4 of its largest entry apart)
    assert all(_close(g1[k], g2[k], 1e-3) for k in g1)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/maps")
@pytest.mark.parametrize("first", ["torch", "evenstar_native._kernels"])
def test_the_kernels_share_pytorchs_openmp_runtime(first):
    """One libgomp in the process, whichever loads first: the kernels' threads are
    PyTorch's pool, not a second pool competing with its spinning threads."""
    code = (f"import {first}, torch, evenstar_native._kernels\n"
            "print(sorted({l.split()[-1] for l in open('/proc/self/maps') if 'libgomp' in l}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    libs = ast.literal_eval(out.strip())
    assert kernels._kernels.OPENMP and len(libs) == 1, libs


def test_the_network_uses_the_kernels_on_a_cpu_only_where_they_can(monkeypatch):
    """Fused for float32 and float64 on a CPU; PyTorch's operations with `native` off,
    for tokens wider than the kernels take, and for the country stage with
    ``max_pool`` (which the kernel does not compute)."""
    calls = []
    for name in ("CountryStage", "CardRows"):
        real = getattr(kernels, name).apply

        def spy(*a, real=real, name=name):
            calls.append((name, a[0].dtype))
            return real(*a)
        monkeypatch.setattr(getattr(kernels, name), "apply", spy)

    net, cfg = _net(8)
    net(_obs(cfg, 3, 0))
    net.double()(_obs(cfg, 3, 0, torch.float64))
    net.native = False
    net(_obs(cfg, 3, 0, torch.float64))
    pooled = build_network(NetConfig.for_content(
        kind="structured", hidden=(32,), options={"token": 8, "max_pool": True}))
    pooled(_obs(cfg, 3, 0))
    monkeypatch.setattr(kernels, "MAX_WIDTH", 4)  # tokens wider than the kernels take
    net.native = True
    net(_obs(cfg, 3, 0, torch.float64))
    f32, f64 = torch.float32, torch.float64
    assert calls == [("CountryStage", f32), ("CardRows", f32), ("CountryStage", f64),
                     ("CardRows", f64), ("CardRows", f32)]


def test_inconsistent_arrays_are_refused_with_a_clear_error():
    net, cfg = _net(16)
    graph = net.country_graph()
    obs = _obs(cfg, 2, 0).numpy()
    d, n = 16, net.n
    f32 = np.float32
    args = dict(ident=np.zeros((n, d), f32), w_in=np.zeros((d, len(graph.starts)), f32),
                w_out=np.zeros((d, d), f32), w_nb=np.zeros((d, d), f32), bias=np.zeros(d, f32))
    out = [np.zeros((2, n, d), np.float32), np.zeros((2, n, d), np.float32),
           np.zeros((2, d), np.float32), np.zeros((2, d), np.float32)]

    def call(obs=obs, starts=graph.starts, out=out, **kw):
        a = {**args, **kw}
        kernels._kernels.country_forward(obs, starts, a["ident"], a["w_in"], a["w_out"],
                                                a["w_nb"], a["bias"], *graph.csr, *out)

    call()  # consistent
    with pytest.raises(ValueError, match="w_in is d x fields"):
        call(w_in=np.zeros((d, 3), np.float32))
    with pytest.raises(ValueError, match="field outside obs"):
        call(starts=graph.starts + cfg.obs_size)
    with pytest.raises(ValueError, match="z has the wrong size"):
        call(out=[out[0], np.zeros((1, n, d), np.float32), *out[2:]])
    with pytest.raises(ValueError, match="width"):
        call(ident=np.zeros((n, 300), np.float32))
    with pytest.raises(TypeError):  # one type throughout
        call(obs=obs.astype(np.float64))
    nc = net.nc
    rows = (np.zeros((2, nc), bool), np.zeros((2, nc), np.int64), np.zeros((2, 2 * nc), np.int64))
    assert kernels._kernels.card_rows(obs, net.card_starts, nc, *rows) >= 0
    with pytest.raises(ValueError, match="rows is 2 x B\\*cards"):
        kernels._kernels.card_rows(obs, net.card_starts, nc, *rows[:2], np.zeros((2, nc), np.int64))
    with pytest.raises(ValueError, match="field outside obs"):
        kernels._kernels.card_rows(obs, net.card_starts + cfg.obs_size, nc, *rows)


def test_a_stale_build_is_not_used(monkeypatch):
    """A module built from other sources (another VERSION) leaves PyTorch's operations
    in charge instead of being called with arguments it does not take."""
    import importlib

    from evenstar_native import _kernels as built

    monkeypatch.setattr(built, "VERSION", kernels.VERSION + 1)
    try:
        assert not importlib.reload(kernels).available()
    finally:
        monkeypatch.undo()
        importlib.reload(kernels)
    assert kernels.available()


def _policy(token: int, hidden: tuple[int, ...], seed: int, dtype=torch.float32):
    torch.manual_seed(seed)
    cfg = NetConfig.for_content(kind="structured", hidden=hidden, options={"token": token})
    net = build_network(cfg).to(dtype)
    with torch.no_grad():  # the corrections (initialised to 0) carry weight too
        for p in net.parameters():
            p.add_(torch.randn_like(p) * 0.2)
    return net, cfg


def _whole(net, obs, mask, native: bool):
    net = copy.deepcopy(net)
    net.native = native
    with torch.no_grad():
        return net(obs, mask)


@settings(max_examples=30, deadline=None)
@given(b=st.integers(1, 9), seed=st.integers(0, 2**16), token=st.sampled_from([16, 32, 12]),
       hidden=st.sampled_from([(32,), (24, 16), ()]),
       density=st.sampled_from([0.0, 0.05, 0.3, 1.0]), masked=st.booleans(),
       generic=st.booleans())
def test_native_forward_pass_is_pytorchs_within_rounding(b, seed, token, hidden, density, masked,
                                                          generic):
    """The whole network without gradients (kernels.infer: float64, both builds, any
    token width and trunk depth, with and without a mask, any share of legal actions)
    against PyTorch's operations: the same logits and values within rounding, and the
    illegal actions at NEG exactly (a share of 0.05 takes the legal-rows-only head)."""
    net, cfg = _policy(token, hidden, seed, torch.float64)
    obs = _obs(cfg, b, seed, torch.float64)
    g = torch.Generator().manual_seed(seed)
    mask = (torch.rand(b, cfg.n_actions, generator=g) < density) if masked else None
    kernels._kernels.force_generic(generic)
    try:
        logits, value = _whole(net, obs, mask, True)
    finally:
        kernels._kernels.force_generic(False)
    ref_logits, ref_value = _whole(net, obs, mask, False)
    legal = mask if mask is not None else torch.ones_like(logits, dtype=torch.bool)
    assert torch.all(logits[~legal] == NEG) and torch.all(ref_logits[~legal] == NEG)
    assert _close(logits[legal], ref_logits[legal], 1e-12)
    assert _close(value, ref_value, 1e-12)


def test_native_forward_pass_in_float32_and_where_it_runs(monkeypatch):
    """float32, the shipped type, within rounding; the native pass runs only without
    gradients, up to NATIVE_INFER_UP_TO positions, where the kernels run."""
    net, cfg = _policy(16, (32, 32), 3)
    obs = _obs(cfg, 12, 3)
    mask = torch.rand(12, cfg.n_actions, generator=torch.Generator().manual_seed(3)) < 0.2
    (logits, value), (ref, ref_value) = _whole(net, obs, mask, True), _whole(net, obs, mask, False)
    assert _close(logits[mask], ref[mask], 1e-5) and _close(value, ref_value, 1e-5)
    calls = []
    monkeypatch.setattr(kernels, "infer", lambda *a: calls.append(len(a[0])) or (None, None))
    with torch.no_grad():
        net(obs, mask)
        monkeypatch.setattr(networks, "NATIVE_INFER_UP_TO", 11)
        net(obs, mask)  # too many positions
    net(obs, mask)  # gradients
    assert calls == [12]


def test_the_native_forward_pass_refuses_a_network_it_cannot_read():
    net, cfg = _policy(16, (32,), 0)
    obs, mask = _obs(cfg, 2, 0), torch.ones(2, cfg.n_actions, dtype=torch.bool)
    args = list(net.packed().args)
    out = (np.zeros((2, cfg.n_actions), np.float32), np.zeros(2, np.float32))
    kernels._kernels.infer(obs.numpy(), mask.numpy(), *args, *out)  # consistent
    weights = list(args[-6])
    args[-6] = [weights[0][:-1].copy(), *weights[1:]]  # one global field short
    with pytest.raises(ValueError, match="the trunk's layers chain"):
        kernels._kernels.infer(obs.numpy(), mask.numpy(), *args, *out)
    with pytest.raises(ValueError, match="mask is B x actions"):
        kernels._kernels.infer(obs.numpy(), mask[:, 1:].contiguous().numpy(),
                               *net.packed().args, *out)
