"""Batched environments: N games stepped together, arrays in, arrays out.

- :class:`EvenstarVectorEnv`: Gymnasium's ``VectorEnv`` API for one learner seat per game,
  the opponent moving inside (``gymnasium.make_vec("Evenstar-v0", num_envs=N)``).  It plays
  exactly what ``SyncVectorEnv`` over N :class:`~evenstar_env.wrappers.SingleAgentEnv` plays
  for the same seed and actions, with less overhead.
- :class:`SelfPlayVectorEnv`: both seats; every step returns, for each game, whose move it
  is, that player's observation and mask, and the rewards of both players.

Seeds: ``reset(seed=s)`` plays ``Game(seed=s + i)`` in slot i; the later games of slot i
draw their seeds from a generator seeded with s + i (as a Gymnasium env does after
``reset(seed=s + i)``); :attr:`seeds` holds the seed of every slot's current game.
Autoreset: Gymnasium's ``NEXT_STEP`` mode.  A step that ends a game returns its final
observation, an all-True mask and ``terminated`` (or ``truncated``); the next step ignores
that slot's action and starts the slot's next game (reward 0).  Other conventions (illegal
actions, ``max_decisions``): :mod:`evenstar_env.conventions`.

Backends: ``backend="python"`` or ``"native"`` (default: the Game default, see
:mod:`evenstar_env.native`) play the same games for the same seeds and actions.  On native,
:class:`SelfPlayVectorEnv` keeps its N games in one C++ batch
(:class:`~evenstar_env.native.selfplay.NativeSelfPlay`: one call steps them, one encodes
the N observations, ``threads`` worker threads); :class:`EvenstarVectorEnv` plays each slot
on a native ``Game`` (the opponent is a Python agent that reads the game), its
observations encoded in C++.
"""

from __future__ import annotations

import copy
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from .content import ContentSpec, as_content
from .conventions import check_options, draw_seed
from .engine.constants import SIDES
from .env.observation import ObservationEncoder
from .game import Game, IllegalActionError
from .learner_game import LearnerGame, make_opponent, write_mask
from .native import resolve
from .wrappers import SIDE_OPTIONS, observation_box, side_of_episode


class SlotSeeds:
    """The seed of every slot's game and the generators that draw the next ones."""

    def __init__(self, n: int) -> None:
        self.seeds = np.zeros(n, dtype=np.int64)
        self.episodes = np.zeros(n, dtype=np.int64)  # games started since the seeded reset
        self._rngs: list[np.random.Generator | None] = [None] * n

    def reset(self, seed: int | Sequence[int | None] | None,
              only: np.ndarray | None = None) -> None:
        """``seed``: a base (slot i gets base + i), one seed per slot, or None; `only`: a
        boolean mask of the slots to reset (default all)."""
        n = len(self._rngs)
        per_slot = ([None] * n if seed is None else
                    [int(seed) + i for i in range(n)] if np.ndim(seed) == 0 else list(seed))
        if len(per_slot) != n:
            raise ValueError(f"{len(per_slot)} seeds for {n} games")
        for i, s in enumerate(per_slot):
            if only is not None and not only[i]:
                continue
            if s is None:
                if self._rngs[i] is None:
                    self._rngs[i] = seeding.np_random()[0]
                self.seeds[i] = draw_seed(self._rngs[i])
            else:
                self._rngs[i] = seeding.np_random(s)[0]
                self.seeds[i], self.episodes[i] = s, 0

    def next(self, i: int) -> int:
        """Draw the seed of slot i's next game."""
        self.seeds[i] = draw_seed(self._rngs[i])
        return int(self.seeds[i])


class BatchedGames(ABC):
    """What both batched forms share: N slots, their seeds, encoders and output rows, and
    the loop that steps every slot or, after its game has ended, starts its next game."""

    def __init__(self, num_envs: int, content: ContentSpec, backend: str | None) -> None:
        self.num_envs = num_envs
        self.content = as_content(content)
        self.backend = resolve(backend)
        # One encoder per slot keeps each slot's block caches (Python backend); the native
        # backend encodes in C++ and shares one.
        k = num_envs if self.backend == "python" else 1
        self.encoders = [ObservationEncoder(self.content) for _ in range(k)] * (num_envs // k)
        n_actions = Game(0, content=self.content, backend=self.backend).num_actions
        self.single_observation_space = observation_box(self.encoders[0])
        self.single_action_space = spaces.Discrete(n_actions)
        self.slots = SlotSeeds(num_envs)
        self._obs = np.zeros((num_envs, self.encoders[0].size), dtype=np.float32)
        self._mask = np.zeros((num_envs, n_actions), dtype=bool)
        self._ended = np.zeros(num_envs, dtype=bool)

    @property
    def static_features(self) -> dict[str, np.ndarray]:
        """The map features that never change, per country (not in the observation vector)."""
        return self.encoders[0].static_features

    @property
    def seeds(self) -> np.ndarray:
        """The seed of every slot's current game."""
        return self.slots.seeds.copy()

    def _reset_all(self, seed: int | Sequence[int | None] | None,
                   options: dict[str, Any] | None = None) -> None:
        """Start new games in every slot, or in those of ``options["reset_mask"]``
        (Gymnasium's partial reset)."""
        only = self._reset_mask(options)
        self.slots.reset(seed, only)
        for i in range(self.num_envs):
            if only is None or only[i]:
                self._start(i)

    def _reset_mask(self, options: dict[str, Any] | None) -> np.ndarray | None:
        only = None if options is None else options.get("reset_mask")
        if only is not None:
            only = np.asarray(only, dtype=bool)
            if only.shape != (self.num_envs,):
                raise ValueError(f"reset_mask must have shape ({self.num_envs},)")
        return only

    def _step_all(self, actions: Any) -> tuple[np.ndarray, np.ndarray]:
        """Step every slot (`_step_row`) or restart it; (terminated, truncated)."""
        n = self.num_envs
        actions = np.asarray(actions)
        if actions.shape != (n,):
            raise ValueError(f"expected {n} actions, got an array of shape {actions.shape}")
        terminated = np.zeros(n, dtype=bool)
        truncated = np.zeros(n, dtype=bool)
        for i in range(n):
            if self._ended[i]:
                self.slots.next(i)
                self._start(i)
            else:
                terminated[i], truncated[i] = self._step_row(i, actions[i])
        self._ended = terminated | truncated
        return terminated, truncated

    @abstractmethod
    def _start(self, i: int) -> None:
        """Start slot i's game (seed ``self.slots.seeds[i]``) and write its first row."""

    @abstractmethod
    def _step_row(self, i: int, action: Any) -> tuple[bool, bool]:
        """Apply slot i's action and write its row: (terminated, truncated)."""


class EvenstarVectorEnv(BatchedGames, VectorEnv):
    """`num_envs` games, the learner on `side` in each, `opponent` (spec or agent object,
    copied per game) moving inside; the options are those of
    :class:`~evenstar_env.wrappers.SingleAgentEnv`.  The masks are ``info["action_mask"]``
    (shape ``(num_envs, n_actions)``) after every reset and step, and :meth:`action_masks`.
    """

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP}

    def __init__(self, num_envs: int = 8, side: str = "alternate", opponent: Any = None,
                 reward: str = "win_loss", vp_scale: float = 20.0, illegal_action: str = "lose",
                 max_decisions: int | None = None, content: ContentSpec = None,
                 backend: str | None = None) -> None:
        if side not in SIDE_OPTIONS:
            raise ValueError(f"side must be one of {SIDE_OPTIONS}, not {side!r}")
        BatchedGames.__init__(self, num_envs, content, backend)
        self.side_option = side
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        opponents = ([make_opponent(opponent) for _ in range(num_envs)]
                     if opponent is None or isinstance(opponent, str)
                     else [copy.deepcopy(opponent) for _ in range(num_envs)])
        self.cores = [LearnerGame(self.content, opp, reward, vp_scale, illegal_action,
                                  max_decisions, backend=self.backend) for opp in opponents]
        self._rewards = np.zeros(num_envs, dtype=np.float64)

    def reset(self, *, seed: int | Sequence[int | None] | None = None,
              options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        self._reset_all(seed, options)
        return self._obs.copy(), self._info()

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                                           dict[str, Any]]:
        self._rewards = np.zeros(self.num_envs, dtype=np.float64)
        terminated, truncated = self._step_all(actions)
        return self._obs.copy(), self._rewards, terminated, truncated, self._info()

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions in every game (rows of ended games are all True)."""
        return self._mask.copy()

    def _start(self, i: int) -> None:
        slots = self.slots
        me = side_of_episode(self.side_option, int(slots.episodes[i]))
        slots.episodes[i] += 1
        self.cores[i].reset(int(slots.seeds[i]), me)
        self._ended[i] = False
        self._write(i)

    def _step_row(self, i: int, action: Any) -> tuple[bool, bool]:
        self._rewards[i], terminated, truncated, _ = self.cores[i].step(action)
        self._write(i)
        return terminated, truncated

    def _write(self, i: int) -> None:
        core = self.cores[i]
        self._obs[i] = self.encoders[i].encode(core.game._m, core.me)
        write_mask(self._mask[i], core.game, core.done)

    def _info(self) -> dict[str, Any]:
        return {"action_mask": self._mask.copy(),
                "_action_mask": np.ones(self.num_envs, dtype=bool)}


class SelfPlayVectorEnv(BatchedGames):
    """`num_envs` games with both seats played from outside.

    :meth:`reset` returns ``(obs, mask, player)`` and :meth:`step` ``(obs, mask, player,
    reward, terminated, truncated)``: ``obs[N, obs_size]`` is the observation of ``player[N]``
    (0 = US, 1 = China), the player to move, ``mask[N, n_actions]`` that player's legal
    actions, ``reward[N, 2]`` what the step paid each player (columns US, China; the result
    +1/-1/0 when the game ends, plus the ``vp_diff`` shaping).  On a row whose game has just
    ended, ``obs`` is the final observation of the player who moved last, ``player`` is -1
    and the mask all True; the next step ignores that row's action and starts its next game.
    ``threads``: worker threads of the native backend (the same games for any number);
    there ``games[i]`` is a copy of slot i's game, on Python the game itself.
    """

    def __init__(self, num_envs: int = 8, reward: str = "win_loss", vp_scale: float = 20.0,
                 illegal_action: str = "lose", max_decisions: int | None = None,
                 content: ContentSpec = None, backend: str | None = None,
                 threads: int = 1) -> None:
        check_options(reward, illegal_action, max_decisions)
        super().__init__(num_envs, content, backend)
        self.reward_mode, self.vp_scale = reward, vp_scale
        self.illegal_action, self.max_decisions = illegal_action, max_decisions
        self.games: list[Game | None] = [None] * num_envs
        self._player = np.zeros(num_envs, dtype=np.int64)
        self._diff = np.zeros(num_envs, dtype=np.int64)  # US VP - China VP at the last step
        self._reward = np.zeros((num_envs, 2), dtype=np.float64)
        self._native = None
        if self.backend == "native":
            from .native.selfplay import NativeSelfPlay

            self._native = NativeSelfPlay(self, threads)
            self.games = self._native.games  # copies of the slots' games

    def reset(self, seed: int | Sequence[int | None] | None = None,
              options: dict[str, Any] | None = None
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        self._reset_all(seed, options)
        return self._obs.copy(), self._mask.copy(), self._player.copy()

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                                           np.ndarray, np.ndarray]:
        self._reward = np.zeros((self.num_envs, 2), dtype=np.float64)
        terminated, truncated = self._step_all(actions)
        return (self._obs.copy(), self._mask.copy(), self._player.copy(), self._reward,
                terminated, truncated)

    def _reset_all(self, seed: int | Sequence[int | None] | None,
                   options: dict[str, Any] | None = None) -> None:
        if self._native is None:
            super()._reset_all(seed, options)
            return
        only = self._reset_mask(options)
        self.slots.reset(seed, only)
        self._native.reset(only)

    def _step_all(self, actions: Any) -> tuple[np.ndarray, np.ndarray]:
        if self._native is None:
            return super()._step_all(actions)
        terminated, truncated = self._native.step(actions)
        self._ended = terminated | truncated
        return terminated, truncated

    def _start(self, i: int) -> None:
        self.games[i] = Game(int(self.slots.seeds[i]), content=self.content,
                             backend=self.backend)
        self._ended[i], self._diff[i] = False, 0
        self._write(i, -1, False)

    def _step_row(self, i: int, action: Any) -> tuple[bool, bool]:
        g, reward = self.games[i], self._reward[i]
        mover = int(self._player[i])
        terminated = truncated = False
        try:
            g.step(action)
        except IllegalActionError:
            if self.illegal_action == "raise":
                raise
            reward[mover], reward[1 - mover] = -1.0, 1.0
            terminated = True
        else:
            if self.reward_mode == "vp_diff":
                diff = int(g.state.vp[0]) - int(g.state.vp[1])
                step = (diff - self._diff[i]) / self.vp_scale
                reward += (step, -step)
                self._diff[i] = diff
            if g.is_over:
                r = g.returns()
                reward += (r["usa"], r["china"])
                terminated = True
            else:
                truncated = self.max_decisions is not None and g.decisions >= self.max_decisions
        self._write(i, mover, terminated or truncated)
        return terminated, truncated

    def _write(self, i: int, mover: int, ended: bool) -> None:
        """Row i: the observation and mask of the player to move, or once the game has
        ended the final observation of the last mover, player -1 and an all-True mask."""
        g = self.games[i]
        player = mover if ended else SIDES.index(g.current_player)
        self._obs[i] = self.encoders[i].encode(g._m, player)
        self._player[i] = -1 if ended else player
        write_mask(self._mask[i], g, ended)


__all__ = ["EvenstarVectorEnv", "SelfPlayVectorEnv", "SlotSeeds"]
