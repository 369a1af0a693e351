"""A Gymnasium single-agent view of the game, for Stable-Baselines3 (MaskablePPO).

The learner plays one side; the opponent (an agent spec such as ``"random"`` or
``"heuristic"``, or any agent with ``act(observation, action_mask, game)``) moves inside
:meth:`SingleAgentEnv.step`.  The learner always receives its own terminal reward, also
when the opponent's move ends the game (+1 win, -1 loss, 0 draw).  Registered as
``gymnasium.make("Evenstar-v0", side=..., opponent=...)``.  Seeds, illegal actions,
terminal steps and truncation follow :mod:`evenstar_env.conventions`.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from .content import ContentSpec, as_content
from .conventions import VP_SCALE, draw_seed
from .engine.constants import SIDES
from .env.observation import ObservationEncoder
from .env.render import render_ansi, render_rgb
from .game import Game
from .learner_game import LearnerGame, make_opponent, opponent_name

SIDE_OPTIONS = ("usa", "china", "alternate")


def observation_box(encoder: ObservationEncoder) -> spaces.Box:
    """The observation space of one player's vector: the real range of every entry."""
    return spaces.Box(encoder.low, encoder.high, dtype=np.float32)


def side_of_game(side: str, seed: int) -> int:
    """The learner's side (0 = US, 1 = China) in ``Game(seed)``: with "alternate" it follows
    from the seed (even: US, odd: China), so consecutive seeds cover both sides."""
    return int(seed) % 2 if side == "alternate" else SIDES.index(side)


class SingleAgentEnv(gym.Env):
    """The learner plays `side` ("usa", "china" or "alternate": US in the games of even
    seeds, China in those of odd seeds, :mod:`evenstar_env.conventions`).

    `opponent`: an agent spec (default ``"random"``) or an agent object; an opponent with
    ``reseed(seed)`` is reseeded at every reset, one with ``new_episode()`` is told of it (an
    opponent pool draws then), and its ``kind`` (else its spec or ``name``) is reported in the
    step info.  `reward="vp_diff"` adds, at each learner step, the change of (own VP -
    opponent VP) / `vp_scale` since the learner's previous step.  `illegal_action="lose"`
    (default) ends the episode with -1 and ``info["illegal_action"] = True`` (False on every
    other step; the offending action in ``info["illegal_action_id"]``); ``"raise"``
    raises :class:`~evenstar_env.IllegalActionError`.  `max_decisions` truncates a game.
    The legal actions are ``info["action_mask"]`` after every reset and step and
    :meth:`action_masks` (for sb3-contrib's MaskablePPO); both are all True once the episode
    has ended.
    """

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 2}

    def __init__(self, side: str = "alternate", opponent: Any = None, reward: str = "win_loss",
                 vp_scale: float = VP_SCALE, illegal_action: str = "lose",
                 max_decisions: int | None = None, content: ContentSpec = None,
                 render_mode: str | None = None) -> None:
        if side not in SIDE_OPTIONS:
            raise ValueError(f"side must be one of {SIDE_OPTIONS}, not {side!r}")
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or "
                             f"None, not {render_mode!r}")
        self.render_mode = render_mode
        self.side_option = side
        self.content = as_content(content)
        self.encoder = ObservationEncoder(self.content)
        self.opponent = make_opponent(opponent)
        self._opponent_name = opponent_name(self.opponent, opponent)
        self.core = LearnerGame(self.content, self.opponent, reward, vp_scale, illegal_action,
                                max_decisions)
        self.observation_space = observation_box(self.encoder)
        self.action_space = spaces.Discrete(Game(0, content=self.content).num_actions)
        # The map features that never change, per country (not in the observation vector).
        self.static_features = self.encoder.static_features

    @property
    def game(self) -> Game | None:
        """The game being played (None before the first reset)."""
        return self.core.game

    @property
    def me(self) -> int:
        """The learner's side this episode (0 = US, 1 = China)."""
        return self.core.me

    # ------------------------------------------------------------ gym API
    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict]:
        """``reset(seed=s)`` plays ``Game(seed=s)``; an unseeded reset draws the game's seed
        from the env's generator (seeded by the last seeded reset)."""
        super().reset(seed=seed)
        game_seed = draw_seed(self.np_random) if seed is None else int(seed)
        me = side_of_game(self.side_option, game_seed)
        self.core.reset(game_seed, me)
        self._seed = game_seed
        return self._obs(), {"seed": game_seed, "side": SIDES[me],
                             "action_mask": self.core.mask()}

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict]:
        reward, terminated, truncated, info = self.core.step(action)
        info.update(seed=self._seed, side=SIDES[self.me], opponent=self._opponent_name,
                    action_mask=self.core.mask())
        return self._obs(), float(reward), terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions (all True once the episode has ended)."""
        return self.core.mask()

    def render(self) -> str | np.ndarray | None:
        """The board as text (``render_mode="ansi"``) or an RGB picture (``"rgb_array"``);
        nothing shown but the public board (no hand)."""
        if self.render_mode is None or self.game is None:
            return None
        if self.render_mode == "ansi":
            return render_ansi(self.game)
        return render_rgb(self.game)

    def _obs(self) -> np.ndarray:
        return self.encoder.encode(self.game._m, self.me)

