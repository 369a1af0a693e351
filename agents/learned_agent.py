"""A player driven by a policy-value network checkpoint (agents/networks.py).

Spec ``learned:PATH``: greedy by default (the most likely legal action), or
sampled at `temperature` > 0.  It encodes the observation itself from the game
(the arena passes none), for the side to move.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import torch

from agents.networks import load_checkpoint, masked_logits
from evenstar_env.env.observation import observe


class LearnedAgent:
    """Plays the network at `path`: greedy, or sampled at `temperature`."""

    name = "learned"

    def __init__(self, path: str | Path, seed: int | None = None,
                 temperature: float = 0.0) -> None:
        self.net, self.config, self.extra = load_checkpoint(Path(path))
        self.temperature = temperature
        self.reseed(seed)

    def reseed(self, seed: int | None) -> None:
        """Start afresh, as if built with `seed`."""
        self.rng = np.random.default_rng(seed)

    def act(self, observation: Any, action_mask: np.ndarray, game: Any = None) -> int:
        legal = np.flatnonzero(action_mask)
        if legal.size == 1:
            return int(legal[0])
        if observation is None:
            if game is None:
                raise ValueError("LearnedAgent needs the observation or the game")
            observation = observe(game, game.current_player)
        with torch.inference_mode():
            logits, _ = self.net(torch.as_tensor(observation, dtype=torch.float32)[None])
            logits = masked_logits(logits, torch.as_tensor(action_mask, dtype=torch.bool)[None])[0]
        if self.temperature <= 0:
            return int(torch.argmax(logits))
        p = torch.softmax(logits / self.temperature, -1).double().numpy()
        return int(self.rng.choice(p.size, p=p / p.sum()))
