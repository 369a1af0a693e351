"""The PettingZoo AEC environment for Dawn of the Evenstar."""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from ..content import ContentSpec, as_content
from ..conventions import VP_SCALE, as_int_or_repr, check_options, draw_seed
from ..engine.constants import SIDES
from ..game import Game, IllegalActionError
from .observation import ObservationEncoder
from .render import has_display, render_ansi, render_rgb

AGENTS = ["usa_0", "china_1"]  # index = engine side (0 = US, 1 = China)
AGENT_OF_SIDE = {"usa": AGENTS[0], "china": AGENTS[1], None: None}


class raw_env(AECEnv):  # noqa: N801  (PettingZoo naming convention)
    """Dawn of the Evenstar as an AEC environment.

    Options: ``reward="win_loss"`` (+1 / -1 / 0 at the end) or ``"vp_diff"``
    (also, at every step, the change of own VP minus opponent VP divided by
    `vp_scale`); ``illegal_action="raise"`` (an :class:`IllegalActionError`)
    or ``"lose"`` (the game ends, -1 for the offender, +1 for the other);
    ``max_decisions``: both agents are truncated once the game has taken that many
    decisions (:attr:`Game.decisions`) without ending, with no result reward (0, as
    :meth:`Game.returns`) beyond the ``vp_diff`` shaping.

    ``reset(seed=s)`` plays ``Game(seed=s)``; an unseeded reset draws the game's seed from
    the generator of the last seeded reset.  PettingZoo's terminal convention: once the
    game has ended every agent is terminated (or truncated), sees its final reward in
    :meth:`last` and must step ``None``; the action mask is all zero for any agent that is
    not to move, so also at the end.
    """

    metadata = {"render_modes": ["ansi", "rgb_array", "human"], "name": "evenstar_v0",
                "is_parallelizable": False, "render_fps": 2}

    def __init__(self, render_mode: str | None = None, reward: str = "win_loss",
                 illegal_action: str = "raise", vp_scale: float = VP_SCALE,
                 max_decisions: int | None = None, content: ContentSpec = None) -> None:
        super().__init__()
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}")
        check_options(reward, illegal_action, max_decisions)
        self.render_mode = render_mode
        self.reward_mode, self.illegal_action, self.vp_scale = reward, illegal_action, vp_scale
        self.max_decisions = max_decisions
        self.content = as_content(content)
        self.encoder = ObservationEncoder(self.content)
        self.possible_agents = list(AGENTS)
        n_actions = Game(0, content=self.content).num_actions
        obs_box = spaces.Box(low=self.encoder.low, high=self.encoder.high, dtype=np.float32)
        mask_box = spaces.Box(0, 1, shape=(n_actions,), dtype=np.int8)
        self.observation_spaces = {a: spaces.Dict({"observation": obs_box,
                                                   "action_mask": mask_box})
                                   for a in AGENTS}
        self.action_spaces = {a: spaces.Discrete(n_actions) for a in AGENTS}
        self.game: Game | None = None
        self._seed_rng = np.random.default_rng()
        self._fig = None

    @property
    def static_features(self) -> dict[str, np.ndarray]:
        """The map features that never change (battleground, stability, links to the
        superpowers), per country in map order; not part of the observation vector."""
        return self.encoder.static_features

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # ------------------------------------------------------------ AEC API
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._seed_rng = np.random.default_rng(seed)
        game_seed = draw_seed(self._seed_rng) if seed is None else int(seed)
        self.game = Game(game_seed, content=self.content)
        self.agents = list(AGENTS)
        self.rewards = {a: 0.0 for a in AGENTS}
        self._cumulative_rewards = {a: 0.0 for a in AGENTS}
        self.terminations = {a: False for a in AGENTS}
        self.truncations = {a: False for a in AGENTS}
        self.infos = {a: {"seed": game_seed, "illegal_action": False} for a in AGENTS}
        self.agent_selection = AGENT_OF_SIDE[self.game.current_player]
        self._last_vp = (0, 0)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        p = AGENTS.index(agent)
        g = self.game
        mask = np.zeros(g.num_actions, dtype=np.int8)
        if AGENT_OF_SIDE[g.current_player] == agent:  # (not the pending tuple: native builds it)
            mask[g.legal_actions()] = 1
        return {"observation": self.encoder.encode(g._m, p), "action_mask": mask}

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        g = self.game
        self._cumulative_rewards[agent] = 0.0
        self.rewards = {a: 0.0 for a in self.agents}
        try:
            g.step(action)
        except IllegalActionError:
            if self.illegal_action == "raise":
                raise
            self._end({agent: -1.0, _other(agent): 1.0},
                      {"illegal_action": True, "illegal_action_id": as_int_or_repr(action),
                       "offender": agent, "result": "illegal action",
                       "winner": SIDES[1 - AGENTS.index(agent)]})
            return
        if self.reward_mode == "vp_diff":
            vp = (g.vp["usa"], g.vp["china"])
            d = ((vp[0] - self._last_vp[0]) - (vp[1] - self._last_vp[1])) / self.vp_scale
            self._last_vp = vp
            self.rewards[AGENTS[0]] += d
            self.rewards[AGENTS[1]] -= d
        if g.is_over:
            winner = AGENT_OF_SIDE[g.result.winner]
            final = {a: 0.0 if winner is None else (1.0 if a == winner else -1.0)
                     for a in AGENTS}
            self._end(final, {"result": g.result.reason, "winner": g.result.winner,
                              "vp": g.vp})
            return
        if self.max_decisions is not None and g.decisions >= self.max_decisions:
            self._end({a: 0.0 for a in AGENTS}, {"result": "truncated", "decisions": g.decisions},
                      truncated=True)
            return
        self.agent_selection = AGENT_OF_SIDE[g.current_player]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _end(self, final: dict[str, float], info: dict[str, Any],
             truncated: bool = False) -> None:
        for a in AGENTS:
            self.rewards[a] += final[a]
            (self.truncations if truncated else self.terminations)[a] = True
            self.infos[a] = {**self.infos[a], **info}
        self._accumulate_rewards()
        # The agent to move next is the one who has not seen its final reward.
        self.agent_selection = _other(self.agent_selection)

    # ------------------------------------------------------------ rendering
    def render(self) -> str | np.ndarray | None:
        if self.render_mode is None:
            return None
        if self.render_mode == "ansi":
            return render_ansi(self.game)
        if self.render_mode == "rgb_array":
            return render_rgb(self.game)
        if has_display():
            self._show(render_rgb(self.game))
        return None

    def _show(self, image: np.ndarray) -> None:
        """Show a frame in one reused window, at the metadata's frame rate."""
        import matplotlib.pyplot as plt

        if self._fig is None:
            self._fig = plt.figure(figsize=(image.shape[1] / 100, image.shape[0] / 100))
            self._image = self._fig.figimage(image)
        else:
            self._image.set_data(image)
        plt.pause(1 / self.metadata["render_fps"])

    def close(self) -> None:
        if self._fig is not None:
            import matplotlib.pyplot as plt

            plt.close(self._fig)
            self._fig = None


def _other(agent: str) -> str:
    return AGENTS[1 - AGENTS.index(agent)]


def env(render_mode: str | None = None, **options: Any) -> AECEnv:
    """The wrapped environment (order enforcing).

    No out-of-bounds wrapper: `raw_env.step` itself rejects a non-integer,
    out-of-range or illegal action with an :class:`IllegalActionError`.
    """
    return wrappers.OrderEnforcingWrapper(raw_env(render_mode=render_mode, **options))
