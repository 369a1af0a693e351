"""The agent protocol."""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class Agent(Protocol):
    """Chooses one legal action id; search agents may also read the `game`."""

    name: str

    def act(self, observation: Any, action_mask: np.ndarray, game: Any = None) -> int: ...
