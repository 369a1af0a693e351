"""The structured network's fused country stage (agents/country_kernel.py, the native
module evenstar_native._kernels) against PyTorch's operations, which stay the reference."""

import copy

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from agents import country_kernel
from agents.networks import NetConfig, build_network

pytestmark = pytest.mark.skipif(not country_kernel.available(),
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


def _stage(net, obs, native: bool, pick):
    """The stage's outputs and the gradients of a loss on them (the mean, the spread and
    the tokens of `pick` = (positions, countries), or none)."""
    net = copy.deepcopy(net)
    net.native = native
    mean, spread, token_at = net.country_stage(obs)
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


@pytest.mark.parametrize("generic", [False, True])
@pytest.mark.parametrize("token", [16, 32, 12])
def test_float32_stage_matches_pytorch_with_every_gradient(token, generic):
    """float32, the training type: the two builds (AVX2/FMA and generic), the widths
    with compile-time loops (16, 32) and one known only at run time."""
    net, cfg = _net(token)
    obs = _obs(cfg, 70, seed=token)
    pick = (torch.tensor([0, 0, 5, 69]), torch.tensor([0, 86, 3, 40]))
    country_kernel._kernels.force_generic(generic)
    try:
        (outs, grads), (ref, ref_grads) = (_stage(net, obs, True, pick),
                                           _stage(net, obs, False, pick))
    finally:
        country_kernel._kernels.force_generic(False)
    assert all(_close(a, b, 1e-5) for a, b in zip(outs, ref, strict=True))
    assert grads.keys() == ref_grads.keys()
    # the stage's own parameters, and the trunk's (through the pooled tokens)
    assert {"country_in.weight", "country_id.weight", "neighbours.bias"} <= grads.keys()
    for k in grads:
        assert _close(grads[k], ref_grads[k], 1e-4), k


@settings(max_examples=25, deadline=None)
@given(b=st.integers(0, 9), seed=st.integers(0, 2**16), token=st.sampled_from([4, 8, 16]),
       picked=st.booleans(), zero=st.booleans())
def test_float64_stage_is_pytorchs_within_rounding(b, seed, token, picked, zero):
    """Any batch (empty too), with or without token gradients (the backward then gets
    none for the tokens), observations all 0 (every token's spread can be 0)."""
    net, cfg = _net(token, seed, torch.float64)
    obs = _obs(cfg, b, seed, torch.float64) * (0 if zero else 1)
    pick = (torch.arange(b), torch.arange(b) % net.n) if picked else None
    (outs, grads), (ref, ref_grads) = (_stage(net, obs, True, pick),
                                       _stage(net, obs, False, pick))
    assert all(_close(a, b_, 1e-12) for a, b_ in zip(outs, ref, strict=True))
    assert grads.keys() == ref_grads.keys()
    for k in grads:
        assert _close(grads[k], ref_grads[k], 1e-10), k


def test_two_threads_compute_what_one_does():
    net, cfg = _net(16)
    obs = _obs(cfg, 300, seed=1)
    pick = (torch.arange(300), torch.arange(300) % net.n)
    results = []
    for threads in (1, 2):
        before = torch.get_num_threads()
        torch.set_num_threads(threads)
        try:
            results.append(_stage(net, obs, True, pick))
        finally:
            torch.set_num_threads(before)
    (o1, g1), (o2, g2) = results
    assert all(torch.equal(a, b) for a, b in zip(o1, o2, strict=True))  # per position
    assert all(_close(g1[k], g2[k], 1e-5) for k in g1)  # summed in two parts


def test_the_network_uses_the_kernel_on_a_cpu_only_where_it_can():
    """Fused for float32 and float64 on a CPU; PyTorch's operations with ``max_pool``
    (which the kernel does not compute) or with `native` off."""
    calls = []
    real = country_kernel.CountryStage.apply

    def spy(*a):
        calls.append(a[0].dtype)
        return real(*a)

    net, cfg = _net(8)
    country_kernel.CountryStage.apply = spy
    try:
        net(_obs(cfg, 3, 0))
        net.double()(_obs(cfg, 3, 0, torch.float64))
        net.native = False
        net(_obs(cfg, 3, 0, torch.float64))
        pooled = build_network(NetConfig.for_content(
            kind="structured", hidden=(32,), options={"token": 8, "max_pool": True}))
        pooled(_obs(cfg, 3, 0))
    finally:
        country_kernel.CountryStage.apply = real
    assert calls == [torch.float32, torch.float64]


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
        country_kernel._kernels.country_forward(obs, starts, a["ident"], a["w_in"], a["w_out"],
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
