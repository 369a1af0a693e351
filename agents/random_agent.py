"""Random baselines: uniform over legal actions, and a cautious variant."""

from __future__ import annotations

from typing import Any

import numpy as np


class RandomAgent:
    """Uniform over the legal actions, seeded."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self.reseed(seed)

    def reseed(self, seed: int | None) -> None:
        """Start afresh, as if built with `seed` (the envs call it at every reset)."""
        self.rng = np.random.default_rng(seed)

    def act(self, observation: Any, action_mask: np.ndarray, game: Any = None) -> int:
        legal = np.flatnonzero(action_mask)
        return int(legal[self.rng.integers(legal.size)])


class CautiousRandomAgent(RandomAgent):
    """Random, but never realigns and plays a held scoring card first.

    Uniform random play ends most games in turns 1-3 by total war (realignments
    lower diplomacy, 9.2.4) or a held scoring card (2.2.1.1); this variant plays
    whole games to final scoring, so it exercises every phase.  Needs `game`.
    """

    name = "cautious_random"

    def act(self, observation: Any, action_mask: np.ndarray, game: Any = None) -> int:
        if game is None:
            raise ValueError("CautiousRandomAgent needs the game")
        legal = np.flatnonzero(action_mask)
        kind = game.decision.kind
        if kind == "card":
            scoring = [a for a in legal if game.content.card_scoring[a]]
            if scoring:
                return int(scoring[0])
        if kind == "mode":
            keep = legal[legal != game.action_id("mode", "realign")]
            legal = keep if keep.size else legal
        return int(legal[self.rng.integers(legal.size)])
