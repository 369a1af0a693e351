"""OpenSpiel's ISMCTS bot as an Evenstar agent (arena spec ``openspiel-ismcts[:SIMS]``).

Needs the ``openspiel`` extra.  The bot is OpenSpiel's Python
``open_spiel.python.algorithms.ismcts.ISMCTSBot`` with random rollouts
(``mcts.RandomRolloutEvaluator``), searching the game of
:mod:`evenstar_env.openspiel`: determinisations come from
``resample_from_infostate`` (:meth:`Game.resample_hidden`), tree nodes are keyed by
the information-state string.  (``pyspiel.ISMCTSBot``, the C++ bot, crashes on
Python games in OpenSpiel 2.0.2: it cannot call a Python ``resample_from_infostate``.)
"""

from __future__ import annotations

from typing import Any

import numpy as np


class OpenSpielISMCTSAgent:
    """OpenSpiel ISMCTS with `simulations` per decision, UCT constant `uct_c`."""

    name = "openspiel-ismcts"

    def __init__(self, simulations: int = 50, uct_c: float = 2.0, seed: int | None = None) -> None:
        import pyspiel
        from open_spiel.python.algorithms import ismcts, mcts

        from evenstar_env import openspiel

        self._openspiel = openspiel
        self.game = pyspiel.load_game(openspiel.SHORT_NAME)
        rng = np.random.RandomState(None if seed is None else seed % 2**32)
        self.bot = ismcts.ISMCTSBot(
            self.game, mcts.RandomRolloutEvaluator(1, rng), uct_c, simulations,
            random_state=rng, final_policy_type=ismcts.ISMCTSFinalPolicyType.MAX_VISIT_COUNT)

    def act(self, observation: Any, action_mask: np.ndarray, game: Any = None) -> int:
        if game is None:
            raise ValueError("OpenSpielISMCTSAgent needs the game")
        legal = np.flatnonzero(action_mask)
        if legal.size == 1:
            return int(legal[0])
        return int(self.bot.step(self._openspiel.state_from_game(game, self.game)))
