"""The agent protocol."""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class Agent(Protocol):
    """Chooses one legal action id; search agents may also read the `game`."""

    name: str

    def act(self, observation: Any, action_mask: np.ndarray, game: Any = None) -> int: ...

# Optional: ``reseed(seed)`` starts an agent afresh as if built with `seed`; the envs
# call it at every reset so that ``reset(seed=s)`` also fixes the opponent's choices.


def observation_vector(observation: Any, game: Any, who: str) -> np.ndarray:
    """The flat observation a network agent reads: `observation` as given (an array or the
    PettingZoo dict), or encoded from `game` for the player to move when it is None (the
    arena passes none).  `who` names the agent in the error."""
    if observation is None:
        if game is None:
            raise ValueError(f"{who} needs an observation or the game")
        from evenstar_env.env.observation import observe

        observation = observe(game, game.current_player)
    if isinstance(observation, dict):
        observation = observation["observation"]
    return np.asarray(observation, dtype=np.float32)
