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


def check_layout(trained_on: str, game: Any, who: str) -> None:
    """ValueError when `game` plays content of another layout (cards or countries added,
    removed or reordered) than a network that reads cards by index was trained on: it
    would read every card after the change as another one (docs/content.md)."""
    from evenstar_env.content import fingerprint

    if game is None or not trained_on:
        return
    c = game.content
    fp = getattr(c, "_layout_fingerprint", None)
    if fp is None:
        fp = c._layout_fingerprint = fingerprint(c)
    if fp != trained_on:
        raise ValueError(f"{who} was trained on content of layout {trained_on}; this game "
                         f"plays {c.source} (layout {fp}): its network reads cards by index "
                         "and cannot read this deck (use learned, alphaism, heuristic, "
                         "cautious, ismcts or random)")


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
