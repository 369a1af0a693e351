"""A policy trained by experiments/train.py (or cloned) as an agent.

Loads an :mod:`agents.networks` checkpoint folder (``weights.pt`` read weights-only,
``config.json``); plays the most likely legal action (``greedy``) or samples one.  A
network that reads cards by their data plays any deck on its board (docs/agents.md).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import torch

from .base import observation_vector
from .networks import DeckNetworks, torch_threads

DEFAULT_PATH = Path(__file__).resolve().parent / "checkpoints" / "learned"


class LearnedAgent:
    """A networks checkpoint playing one position at a time (on one torch thread)."""

    name = "learned"

    def __init__(self, path: str | Path = DEFAULT_PATH, greedy: bool = True,
                 seed: int | None = None) -> None:
        self.nets = DeckNetworks(Path(path), "LearnedAgent")
        self.net, self.config, self.facts = self.nets.net, self.nets.config, self.nets.facts
        self.greedy = greedy
        self.reseed(seed)

    def reseed(self, seed: int | None) -> None:
        """Start afresh, as if built with `seed` (the envs call it at every reset)."""
        self.rng = np.random.default_rng(seed)

    def act(self, observation: Any, action_mask: np.ndarray, game: Any = None) -> int:
        net = self.nets.for_game(game)
        legal = np.flatnonzero(action_mask)
        if legal.size == 1:
            return int(legal[0])
        x = torch.as_tensor(observation_vector(observation, game, "LearnedAgent"))[None]
        mask = torch.as_tensor(np.asarray(action_mask, dtype=bool))[None]
        # one position: extra threads only cost (docs/agents.md)
        with torch_threads(1), torch.no_grad():
            logits = net(x, mask)[0][0]  # masked by the network
        if self.greedy:
            return int(torch.argmax(logits))
        p = torch.softmax(logits.double(), -1).numpy()
        return int(self.rng.choice(p.size, p=p / p.sum()))
