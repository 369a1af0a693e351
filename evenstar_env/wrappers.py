"""A Gymnasium single-agent view of the game, for Stable-Baselines3 (MaskablePPO).

The learner plays one side; the opponent (any agent with ``act(observation,
action_mask, game)``) moves inside :meth:`SingleAgentEnv.step`.  The learner
always receives its own terminal reward, also when the opponent's move ends
the game (+1 win, -1 loss, 0 draw).
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from .content import Content, load_content
from .engine.constants import SIDES
from .env.observation import ObservationEncoder
from .game import Game


class SingleAgentEnv(gym.Env):
    """The learner plays `side` ("usa", "china" or "alternate" per episode).

    `opponent` defaults to a uniform random agent; an opponent with a
    ``new_episode()`` method is told of every reset (an opponent pool draws
    then), and its ``kind`` (else ``name``) is reported in the step info.  `reward="vp_diff"` adds,
    at each learner step, the change of (own VP - opponent VP) / `vp_scale`
    since the learner's previous step.  :meth:`action_masks` serves
    sb3-contrib's MaskablePPO.
    """

    metadata = {"render_modes": []}

    def __init__(self, side: str = "alternate", opponent: Any = None, reward: str = "win_loss",
                 vp_scale: float = 20.0, content: Content | None = None) -> None:
        if side not in ("usa", "china", "alternate"):
            raise ValueError("side must be 'usa', 'china' or 'alternate'")
        if reward not in ("win_loss", "vp_diff"):
            raise ValueError("reward must be 'win_loss' or 'vp_diff'")
        self.side_option, self.reward_mode, self.vp_scale = side, reward, vp_scale
        self.content = content or load_content()
        self.encoder = ObservationEncoder(self.content)
        if opponent is None:
            from agents import RandomAgent

            opponent = RandomAgent()
        self.opponent = opponent
        n_actions = Game(0, content=self.content).num_actions
        self.observation_space = spaces.Box(self.encoder.low, self.encoder.high, dtype=np.float32)
        # The map features that never change, per country (not in the observation vector).
        self.static_features = self.encoder.static_features
        self.action_space = spaces.Discrete(n_actions)
        self.game: Game | None = None
        self.me = 0
        self._episodes = 0
        self._last_diff = 0

    # ------------------------------------------------------------ gym API
    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict]:
        super().reset(seed=seed)
        if self.side_option == "alternate":
            self.me = self._episodes % 2
        else:
            self.me = SIDES.index(self.side_option)
        self._episodes += 1
        self._last_diff = 0
        if hasattr(self.opponent, "new_episode"):
            self.opponent.new_episode()  # e.g. a pool draws this episode's opponent
        while True:  # a game the opponent ends before the learner's first move is redrawn
            game_seed = int(self.np_random.integers(0, 2**31 - 1))
            self.game = Game(game_seed, content=self.content)
            self._opponent_moves()
            if not self.game.is_over:
                return self._obs(), {"seed": game_seed, "side": SIDES[self.me]}

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict]:
        g = self.game
        if g is None or g.is_over:
            raise RuntimeError("step() called on a finished episode; call reset()")
        g.step(int(action))  # IllegalActionError if the action is not legal
        ended_by_learner = g.is_over
        self._opponent_moves()
        reward = self._shaping()
        info: dict[str, Any] = {"side": SIDES[self.me],
                                "opponent": getattr(self.opponent, "kind", self.opponent.name)}
        if g.is_over:
            winner = g.result.winner
            reward += 0.0 if winner is None else (1.0 if winner == SIDES[self.me] else -1.0)
            info.update(result=g.result.reason, winner=winner, vp=g.vp,
                        ended_by="learner" if ended_by_learner else "opponent")
        return self._obs(), float(reward), g.is_over, False, info

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions (all False once the game is over)."""
        return self.game.action_mask()

    # ------------------------------------------------------------ helpers
    def _opponent_moves(self) -> None:
        g = self.game
        opp = 1 - self.me
        while not g.is_over and g.state.pending[1] == opp:
            obs = self.encoder.encode(g._m, opp)
            g.step(self.opponent.act(obs, g.action_mask(), g))

    def _obs(self) -> np.ndarray:
        return self.encoder.encode(self.game._m, self.me)

    def _shaping(self) -> float:
        if self.reward_mode != "vp_diff":
            return 0.0
        vp = self.game.state.vp
        diff = int(vp[self.me]) - int(vp[1 - self.me])
        delta, self._last_diff = diff - self._last_diff, diff
        return delta / self.vp_scale
