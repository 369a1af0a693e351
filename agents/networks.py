"""Policy-value networks of the learned agents and their weights-only checkpoints.

Every network maps a batch of observations (``B x obs_size`` float32) to action
logits (``B x n_actions``, before masking) and a value (``B``, the expected result
for the player to move, in [-1, 1]).  A checkpoint is a folder holding
``weights.pt`` (a plain tensor dict, read with ``torch.load(weights_only=True)``)
and ``config.json`` (the :class:`NetConfig` and free-form training facts); no
code in either file is ever executed.  Kinds are registered in :data:`NETWORKS`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import torch
from torch import nn

from evenstar_env.content import Content, fingerprint, load_content
from evenstar_env.engine.actions import ActionSpace
from evenstar_env.env.observation import encoder_for

FORMAT = "evenstar-net-v1"
NEG = -1e9  # the logit of an illegal action


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


class MLPPolicyValue(nn.Module):
    """A shared tanh MLP body with a policy head and a value head."""

    def __init__(self, cfg: NetConfig, content: Content | None = None) -> None:
        super().__init__()
        layers: list[nn.Module] = []
        width = cfg.obs_size
        for h in cfg.hidden:
            layers += [nn.Linear(width, h), nn.Tanh()]
            width = h
        self.body = nn.Sequential(*layers)
        self.policy = nn.Linear(width, cfg.n_actions)
        self.value = nn.Linear(width, 1)
        nn.init.orthogonal_(self.policy.weight, gain=0.01)
        nn.init.zeros_(self.policy.bias)

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        x = self.body(obs)
        return self.policy(x), torch.tanh(self.value(x)).squeeze(-1)


NETWORKS: dict[str, Callable[[NetConfig, Content | None], nn.Module]] = {
    "mlp": MLPPolicyValue}


def build_network(cfg: NetConfig, content: Content | None = None) -> nn.Module:
    """A fresh network of `cfg.kind`."""
    if cfg.kind not in NETWORKS:
        raise CheckpointError(f"unknown network kind {cfg.kind!r} (one of {sorted(NETWORKS)})")
    return NETWORKS[cfg.kind](cfg, content)


def masked_logits(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """`logits` with every action the boolean `mask` forbids set to :data:`NEG`."""
    return logits.masked_fill(~mask, NEG)


def save_checkpoint(path: Path, net: nn.Module, cfg: NetConfig,
                    extra: dict[str, Any] | None = None) -> None:
    """Write `net` as ``path/weights.pt`` + ``path/config.json`` (atomically per file)."""
    path = Path(path)
    path.mkdir(parents=True, exist_ok=True)
    state = {k: v.detach().cpu().clone() for k, v in net.state_dict().items()}
    tmp = path / "weights.pt.tmp"
    torch.save(state, tmp)
    tmp.replace(path / "weights.pt")
    doc = {"format": FORMAT, "net": asdict(cfg), "extra": extra or {}}
    tmp = path / "config.json.tmp"
    tmp.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n")
    tmp.replace(path / "config.json")


def load_checkpoint(path: Path, content: Content | None = None
                    ) -> tuple[nn.Module, NetConfig, dict[str, Any]]:
    """The network, its config and the training facts saved at `path` (weights only)."""
    path = Path(path)
    c = content or load_content()
    try:
        doc = json.loads((path / "config.json").read_text())
        state = torch.load(path / "weights.pt", map_location="cpu", weights_only=True)
    except (OSError, ValueError, RuntimeError) as e:
        raise CheckpointError(f"{path}: cannot read the checkpoint ({e})") from e
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise CheckpointError(f"{path}/config.json: format is not {FORMAT!r}")
    try:
        raw = dict(doc["net"])
        raw["hidden"] = tuple(int(h) for h in raw.get("hidden", ()))
        cfg = NetConfig(**raw)
    except (KeyError, TypeError, ValueError) as e:
        raise CheckpointError(f"{path}/config.json: bad 'net' entry ({e})") from e
    want = NetConfig.for_content(c)
    if (cfg.content, cfg.obs_size, cfg.n_actions) != (want.content, want.obs_size,
                                                      want.n_actions):
        raise CheckpointError(
            f"{path}: made for content {cfg.content} ({cfg.obs_size} inputs, "
            f"{cfg.n_actions} actions), this content is {want.content} ({want.obs_size}, "
            f"{want.n_actions})")
    net = build_network(cfg, c)
    try:
        net.load_state_dict(state)
    except (RuntimeError, TypeError, AttributeError) as e:
        raise CheckpointError(f"{path}/weights.pt: does not fit a {cfg.kind} network ({e})"
                              ) from e
    net.eval()
    return net, cfg, dict(doc.get("extra") or {})
