"""Hostile policy files (issue 15, "Policy files") and exported activations (issue 16)."""

from __future__ import annotations

import json
import pickle
import zipfile
from pathlib import Path

import numpy as np
import pytest
import torch

from agents.ppo_agent import (
    SHIPPED_POLICY,
    PolicyFileError,
    PPOAgent,
    export_policy,
)
from agents.specs import make_agent
from evenstar_env import Game
from evenstar_env.env.observation import observe
from evenstar_env.wrappers import SingleAgentEnv


def _positions(n: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """(observation, mask) of the player to move at `n` positions of random games."""
    out, seed = [], 0
    rng = np.random.default_rng(0)
    while len(out) < n:
        g = Game(seed)
        while not g.is_over and len(out) < n:
            out.append((observe(g, g.current_player), g.action_mask()))
            g.step(int(rng.choice(g.legal_actions())))
        seed += 1
    return out


@pytest.fixture(scope="module")
def positions() -> list[tuple[np.ndarray, np.ndarray]]:
    return _positions(200)


def _model(activation: type, seed: int):
    from sb3_contrib import MaskablePPO

    torch.manual_seed(seed)
    return MaskablePPO("MlpPolicy", SingleAgentEnv(), device="cpu", seed=seed,
                       policy_kwargs={"net_arch": [32, 32], "activation_fn": activation})


@pytest.mark.parametrize("activation,name", [("Tanh", "tanh"), ("ReLU", "relu")])
def test_exported_policy_agrees_with_its_sb3_original(positions, tmp_path: Path,
                                                      activation: str, name: str) -> None:
    """Issue 16: export writes the activation the model uses; 200/200 moves agree, and
    the SB3 zip read weights-only agrees too."""
    model = _model(getattr(torch.nn, activation), 1)
    export_policy(model.policy, tmp_path / "p")
    assert json.loads((tmp_path / "p.json").read_text())["activation"] == name
    model.save(tmp_path / "m.zip")
    agents = [PPOAgent(tmp_path / "p"), make_agent(f"ppo:{tmp_path / 'm.zip'}", 0)]
    assert [a.activation for a in agents] == [name, name]  # the arena reads the zip itself
    for obs, mask in positions:
        want, _ = model.policy.predict(obs, deterministic=True, action_masks=mask)
        assert [a.act(obs, mask) for a in agents] == [int(want)] * 2


def test_a_relu_policy_read_as_tanh_disagrees(positions, tmp_path: Path) -> None:
    """The agreement test above can fail: the old export (always "tanh") misplays ReLU."""
    model = _model(torch.nn.ReLU, 2)
    export_policy(model.policy, tmp_path / "p")
    cfg = json.loads((tmp_path / "p.json").read_text())
    (tmp_path / "p.json").write_text(json.dumps({**cfg, "activation": "tanh"}))
    agent = PPOAgent(tmp_path / "p")
    agree = sum(agent.act(o, m) == int(model.policy.predict(o, deterministic=True,
                                                            action_masks=m)[0])
                for o, m in positions)
    assert agree < len(positions)


class _Exploit:
    def __reduce__(self):
        return (print, ("pwned",))


def _sb3_zip(tmp_path: Path, data: bytes, weights: bytes) -> Path:
    path = tmp_path / "evil.zip"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("data", data)
        z.writestr("policy.pth", weights)
    return path


@pytest.mark.filterwarnings("ignore:Detected pickle protocol:UserWarning")
def test_sb3_zip_is_never_unpickled(tmp_path: Path, capsys) -> None:
    path = _sb3_zip(tmp_path, b"{}", pickle.dumps(_Exploit()))
    with pytest.raises(PolicyFileError, match="policy.pth.*weights-only"):
        PPOAgent(path)
    assert "pwned" not in capsys.readouterr().out
    with pytest.raises(PolicyFileError, match="not a Stable-Baselines3 zip"):
        with zipfile.ZipFile(tmp_path / "empty.zip", "w") as z:
            z.writestr("other", b"")
        PPOAgent(tmp_path / "empty.zip")
    (tmp_path / "junk.zip").write_bytes(b"not a zip")
    with pytest.raises(PolicyFileError, match="not a readable zip"):
        PPOAgent(tmp_path / "junk.zip")


@pytest.fixture()
def shipped(tmp_path: Path) -> tuple[dict, dict]:
    config = json.loads(SHIPPED_POLICY.with_suffix(".json").read_text())
    weights = torch.load(SHIPPED_POLICY.with_suffix(".pt"), weights_only=True)
    return config, weights


def _write(tmp_path: Path, config: object, weights: object = None, name: str = "p") -> Path:
    path = tmp_path / name
    raw = config if isinstance(config, bytes) else json.dumps(config).encode()
    path.with_suffix(".json").write_bytes(raw)
    if weights is not None:
        torch.save(weights, path.with_suffix(".pt"))
    return path


@pytest.mark.parametrize("weights,message", [
    ([1, 2, 3], "not a dict of named tensors"),
    ("tensor", "not a dict of named tensors"),
])
def test_weights_that_are_not_a_tensor_dict(tmp_path, shipped, weights, message) -> None:
    config, _ = shipped
    w = torch.zeros(3) if weights == "tensor" else weights
    with pytest.raises(PolicyFileError, match=message):
        PPOAgent(_write(tmp_path, config, w))


@pytest.mark.parametrize("field,value,message", [
    ("hidden", [2_000_000], "field 'hidden'"),
    ("hidden", [256] * 40, "field 'hidden'"),
    ("hidden", [0], "field 'hidden'"),
    ("hidden", "256", "field 'hidden'"),
    ("hidden", [8192, 8192, 8192, 8192], "parameters"),
    ("activation", "sigmoid", "field 'activation'"),
    ("activation", None, "field 'activation'"),
    ("n_actions", 17, "field 'n_actions'"),
    ("obs_size", None, "observations of size None"),
    ("format", "x", "field 'format'"),
])
def test_config_fields_are_checked_before_any_allocation(tmp_path, shipped, field, value,
                                                         message) -> None:
    """`hidden: [2000000]` once tried an 18 GB allocation; now a PolicyFileError."""
    config, weights = shipped
    bad = dict(config)
    if value is None:
        del bad[field]
    else:
        bad[field] = value
    with pytest.raises(PolicyFileError, match=message):
        PPOAgent(_write(tmp_path, bad, weights))


def test_weights_must_match_the_config(tmp_path, shipped) -> None:
    config, weights = shipped
    with pytest.raises(PolicyFileError, match=r"'mlp_extractor.policy_net.0.weight' has shape"):
        PPOAgent(_write(tmp_path, {**config, "hidden": [128, 256]}, weights))
    missing = {k: v for k, v in weights.items() if not k.startswith("action_net.")}
    with pytest.raises(PolicyFileError, match="'action_net.weight' is missing"):
        PPOAgent(_write(tmp_path, config, missing))


def test_non_utf8_and_non_object_configs(tmp_path, shipped) -> None:
    _, weights = shipped
    with pytest.raises(PolicyFileError, match="not UTF-8"):
        PPOAgent(_write(tmp_path, b"\xff\xfe{}", weights))
    with pytest.raises(PolicyFileError, match="field 'format'"):
        PPOAgent(_write(tmp_path, [1, 2], weights))
    with pytest.raises(PolicyFileError, match="not valid JSON"):
        PPOAgent(_write(tmp_path, b"[" * 100_000, weights))
