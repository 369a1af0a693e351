"""Policy-value networks and their weights-only checkpoints (agents/networks.py)."""

import json

import pytest
import torch

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
