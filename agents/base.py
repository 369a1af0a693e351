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
