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
the N observations, ``threads`` worker threads); :class:`EvenstarVectorEnv` with a per-game
opponent (a Python agent that reads the game) plays each slot on a native ``Game``, its
observations encoded in C++, and with a batch-policy opponent keeps its N games in one C++
batch too (:class:`~evenstar_env.native.learner.NativeLearner`: a step is the learner's
batch step, then per round one policy call and one batch step, then one encoding).  Infos: per row,
the single-agent env's keys in Gymnasium's vector convention (docs/infos.md).  An SB3
``VecEnv`` over the native batch itself: :mod:`evenstar_env.sb3`.
"""

from __future__ import annotations

import copy
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.error import ResetNeeded
from gymnasium.utils import seeding
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from .content import Content, ContentSpec, as_content
from .conventions import VP_SCALE, as_int_or_repr, check_options, draw_seed
from .engine.constants import SIDES
from .env.observation import ObservationEncoder
from .game import Game, IllegalActionError
from .learner_game import (
    LearnerGame,
    batch_policy,
    batch_rounds,
    make_opponent,
    opponent_name,
    write_mask,
)
from .native import resolve
from .wrappers import SIDE_OPTIONS, observation_box, side_of_game


class SlotSeeds:
    """The seed of every slot's game and the generators that draw the next ones."""

    def __init__(self, n: int) -> None:
        self.seeds = np.zeros(n, dtype=np.int64)
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
                self.seeds[i] = s

    def next(self, i: int) -> int:
        """Draw the seed of slot i's next game."""
        self.seeds[i] = draw_seed(self._rngs[i])
        return int(self.seeds[i])


MAX_ENVS = 2**16  # games in one batch (each holds a whole game state)


def check_num_envs(n: Any) -> int:
    """`n` as a number of games, 1..MAX_ENVS; TypeError / ValueError in one line."""
    if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)):
        raise TypeError(f"num_envs must be an integer, not {type(n).__name__} {n!r}")
    if not 1 <= n <= MAX_ENVS:
        raise ValueError(f"num_envs must be within 1..{MAX_ENVS}, got {n}")
    return int(n)


class BatchedGames(ABC):
    """What both batched forms share: N slots, their seeds, encoders and output rows, and
    the loop that steps every slot or, after its game has ended, starts its next game."""

    def __init__(self, num_envs: int, content: Content | None, backend: str | None) -> None:
        num_envs = check_num_envs(num_envs)
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
        self._started = np.ones(num_envs, dtype=bool)  # rows that started a game this call
        self._ends: dict[int, dict[str, Any]] = {}  # row -> what its ended game's info adds
        self._reset_done = np.zeros(num_envs, dtype=bool)  # slots a reset has started

    # Gymnasium's vector-info convention: a key's values in an array, ``_key`` its rows.
    _add_info = VectorEnv._add_info

    def _batch_info(self, sides: np.ndarray, stepped: dict[str, np.ndarray]) -> dict[str, Any]:
        """The per-row info of the last reset or step (docs/observation.md, *Infos*): every
        row's ``seed``, ``side`` and ``action_mask``; `stepped` (one array per key) on the
        rows that stepped; the end keys of the rows whose game ended, and for those rows
        Gymnasium's ``final_obs`` / ``final_info`` (the row's whole info)."""
        every = np.ones(self.num_envs, dtype=bool)
        side = np.array([SIDES[k] for k in sides], dtype=object)
        info: dict[str, Any] = {"seed": self.slots.seeds.copy(), "_seed": every,
                                "side": side, "_side": every.copy(),
                                "action_mask": self._mask.copy(), "_action_mask": every.copy()}
        moved = ~self._started
        if moved.any():
            for key, values in stepped.items():
                values = values.copy()
                values[~moved] = None if values.dtype == object else 0
                info[key], info[f"_{key}"] = values, moved.copy()
        for i, end in sorted(self._ends.items()):
            self._add_info(info, end, i)
            final = {"seed": int(info["seed"][i]), "side": side[i],
                     **{k: v[i].item() if isinstance(v[i], np.generic) else v[i]
                        for k, v in stepped.items()},
                     "action_mask": self._mask[i].copy(), **end}
            self._add_info(info, {"final_obs": self._obs[i].copy(), "final_info": final}, i)
        return info

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
        self._started[:], self._ends = True, {}
        self._mark_started(only)
        native = getattr(self, "_native", None)
        if native is not None:  # the native backend starts its games in C++
            native.reset(only)
            return
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

    def _mark_started(self, only: np.ndarray | None) -> None:
        self._reset_done[slice(None) if only is None else only] = True

    def _check_started(self) -> None:
        """Both backends refuse a step before every slot has been reset."""
        if not self._reset_done.all():
            k = int(np.flatnonzero(~self._reset_done)[0])
            raise ResetNeeded(f"call reset() before step(): slot {k} has no game yet")

    def _step_all(self, actions: Any) -> tuple[np.ndarray, np.ndarray]:
        """Step every slot (`_step_row`) or restart it; (terminated, truncated)."""
        self._check_started()
        n = self.num_envs
        actions = np.asarray(actions)
        if actions.shape != (n,):
            raise ValueError(f"expected {n} actions, got an array of shape {actions.shape}")
        terminated = np.zeros(n, dtype=bool)
        truncated = np.zeros(n, dtype=bool)
        self._started, self._ends = self._ended.copy(), {}
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
    """`num_envs` games, the learner on `side` in each, `opponent` moving inside; the
    options are those of :class:`~evenstar_env.wrappers.SingleAgentEnv`.  The masks are
    ``info["action_mask"]`` (shape ``(num_envs, n_actions)``) after every reset and step, and
    :meth:`action_masks`.

    `opponent`: an agent spec or agent object (copied per game, moving game by game), or a
    **batch policy**: a callable without ``act`` taking ``(obs[k, obs_size], mask[k,
    n_actions])`` for the k games where the opponent is to move and returning their k
    actions; it is called once per round of opponent moves (a step takes as many rounds as
    the longest run of opponent decisions in it; :attr:`opponent_calls` counts them).  The
    spec ``"learned[:PATH]"`` (the shipped network or any networks checkpoint folder, such
    as a training snapshot) is played as a batch policy
    (:class:`agents.batch_policy.NetworkPolicy`, one forward pass per round).  A batch
    policy with ``reseed(seed)`` is reseeded by every seeded reset.  On the native backend
    a batch opponent's games live in one C++ batch (:mod:`evenstar_env.native.learner`);
    ``cores[i]`` then answers ``game`` (a copy), ``me`` and ``awaits_opponent()``.
    """

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP}

    def __init__(self, num_envs: int = 8, side: str = "alternate", opponent: Any = None,
                 reward: str = "win_loss", vp_scale: float = VP_SCALE, illegal_action: str = "lose",
                 max_decisions: int | None = None, content: ContentSpec = None,
                 backend: str | None = None) -> None:
        if side not in SIDE_OPTIONS:
            raise ValueError(f"side must be one of {SIDE_OPTIONS}, not {side!r}")
        BatchedGames.__init__(self, num_envs, content, backend)
        self.side_option = side
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        check_options(reward, illegal_action, max_decisions)
        self.reward_mode, self.vp_scale = reward, vp_scale
        self.illegal_action, self.max_decisions = illegal_action, max_decisions
        self.batch_opponent = batch_policy(opponent, self.content)
        self.opponent_calls = 0
        self._pending: list[int] = []  # rows whose opponent moves in batched rounds
        self._rewards = np.zeros(num_envs, dtype=np.float64)
        self._native = None
        if self.batch_opponent is not None and self.backend == "native":
            from .native.learner import LearnerSlot, NativeLearner

            self._native = NativeLearner(self)  # the N games in one C++ batch
            self.cores = [LearnerSlot(self._native, i) for i in range(num_envs)]
            self._opponent_names = np.array([opponent_name(self.batch_opponent, opponent)]
                                            * num_envs, dtype=object)
            return
        opponents = ([None] * num_envs if self.batch_opponent is not None else
                     [make_opponent(opponent) for _ in range(num_envs)]
                     if opponent is None or isinstance(opponent, str)
                     else [copy.deepcopy(opponent) for _ in range(num_envs)])
        self.cores = [LearnerGame(self.content, opp, reward, vp_scale, illegal_action,
                                  max_decisions, backend=self.backend) for opp in opponents]
        self._opponent_names = np.array(
            [opponent_name(opp or self.batch_opponent, opponent) for opp in opponents],
            dtype=object)

    def reset(self, *, seed: int | Sequence[int | None] | None = None,
              options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        reseed = getattr(self.batch_opponent, "reseed", None)
        if reseed is not None and seed is not None and np.ndim(seed) == 0:
            reseed(int(seed))
        self._reset_all(seed, options)
        self._settle_pending(np.zeros(self.num_envs, dtype=bool),
                             np.zeros(self.num_envs, dtype=bool))
        return self._obs.copy(), self._info()

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                                           dict[str, Any]]:
        self._rewards = np.zeros(self.num_envs, dtype=np.float64)
        terminated, truncated = self._step_all(actions)
        self._settle_pending(terminated, truncated)
        return self._obs.copy(), self._rewards, terminated, truncated, self._info()

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions in every game (rows of ended games are all True)."""
        return self._mask.copy()

    def _step_all(self, actions: Any) -> tuple[np.ndarray, np.ndarray]:
        if self._native is None:
            return super()._step_all(actions)
        self._check_started()
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,):
            raise ValueError(f"expected {self.num_envs} actions, got an array of shape "
                             f"{actions.shape}")
        self._started, self._ends = self._ended.copy(), {}
        terminated, truncated = self._native.step(actions)
        self._ended = terminated | truncated
        return terminated, truncated

    def _start(self, i: int) -> None:
        seed = int(self.slots.seeds[i])
        me = side_of_game(self.side_option, seed)
        self._ended[i] = False
        if self.batch_opponent is not None:
            self.cores[i].start(seed, me)
            self._pending.append(i)
            return
        self.cores[i].reset(seed, me)
        self._write(i)

    def _step_row(self, i: int, action: Any) -> tuple[bool, bool]:
        core = self.cores[i]
        if self.batch_opponent is None:
            outcome = core.step(action)
        elif (outcome := core.play(action)) is None:
            self._pending.append(i)  # settled after the opponent's batched rounds
            return False, False
        self._rewards[i], terminated, truncated, info = outcome
        self._write(i)
        if terminated or truncated:
            self._ends[i] = info
        return terminated, truncated

    def _settle_pending(self, terminated: np.ndarray, truncated: np.ndarray) -> None:
        """The batch opponent's rounds for the pending rows, then their outcomes and rows
        (`terminated` / `truncated` updated in place)."""
        rows, self._pending = self._pending, []
        if not rows:
            return
        self._opponent_rounds(rows)
        for i in rows:
            core = self.cores[i]
            if self._started[i]:
                core.check_started()
            else:
                self._rewards[i], terminated[i], truncated[i], info = core.settle()
                if terminated[i] or truncated[i]:
                    self._ends[i] = info
            self._write(i)
        self._ended = terminated | truncated

    def _opponent_rounds(self, rows: list[int]) -> None:
        """The batch opponent's rounds in the games of `rows`."""
        self.opponent_calls += batch_rounds([self.cores[i] for i in rows],
                                            [self.encoders[i] for i in rows],
                                            self.batch_opponent, opponent=True)

    def _write(self, i: int) -> None:
        core = self.cores[i]
        self._obs[i] = self.encoders[i].encode(core.game._m, core.me)
        write_mask(self._mask[i], core.game, core.done)

    def _info(self) -> dict[str, Any]:
        """Per row, the keys of SingleAgentEnv's info (docs/observation.md, *Infos*)."""
        illegal = np.zeros(self.num_envs, dtype=bool)
        for i, end in self._ends.items():
            illegal[i] = end["illegal_action"]
        sides = (self._native.me if self._native is not None else
                 np.array([c.me for c in self.cores]))
        return self._batch_info(sides,
                                {"opponent": self._opponent_names, "illegal_action": illegal})


class SelfPlayVectorEnv(BatchedGames):
    """`num_envs` games with both seats played from outside.

    :meth:`reset` returns ``(obs, mask, player)`` and :meth:`step` ``(obs, mask, player,
    reward, terminated, truncated)``: ``obs[N, obs_size]`` is the observation of ``player[N]``
    (0 = US, 1 = China), the player to move, ``mask[N, n_actions]`` that player's legal
    actions, ``reward[N, 2]`` what the step paid each player (columns US, China; the result
    +1/-1/0 when the game ends, plus the ``vp_diff`` shaping).  On a row whose game has just
    ended, ``obs`` is the final observation of the player who moved last, ``player`` is -1
    and the mask all True; the next step ignores that row's action and starts its next game.
    After every reset and step :attr:`info` holds the per-row info in Gymnasium's vector
    convention (docs/observation.md, *Infos*; ``side`` is the side of ``player``, on an ended
    row the last mover's, and ``ended_by`` the side whose move ended the game).
    ``threads``: worker threads of the native backend (the same games for any number);
    there ``games[i]`` is a copy of slot i's game, on Python the game itself.
    """

    metadata: dict[str, Any] = {"autoreset_mode": AutoresetMode.NEXT_STEP}

    def __init__(self, num_envs: int = 8, reward: str = "win_loss", vp_scale: float = VP_SCALE,
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
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self.info: dict[str, Any] = {}
        self._native = None
        if self.backend == "native":
            from .native.selfplay import NativeSelfPlay

            self._native = NativeSelfPlay(self, threads)
            self.games = self._native.games  # copies of the slots' games

    def reset(self, seed: int | Sequence[int | None] | None = None,
              options: dict[str, Any] | None = None
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        self._reset_all(seed, options)
        self._started[:], self._ends = True, {}
        self.info = self._batch_info(self._player, {})
        return self._obs.copy(), self._mask.copy(), self._player.copy()

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                                           np.ndarray, np.ndarray]:
        self._reward = np.zeros((self.num_envs, 2), dtype=np.float64)
        actions = np.asarray(actions)
        mover, started = self._player.copy(), self._ended.copy()
        terminated, truncated = self._step_all(actions)
        self._started = started
        ended = np.flatnonzero(terminated | truncated)
        self._ends = {int(i): self._end_info(int(i), actions[i], int(mover[i]), truncated[i])
                      for i in ended}
        illegal = np.zeros(self.num_envs, dtype=bool)
        illegal[ended] = [self._ends[int(i)].get("illegal_action", False) for i in ended]
        self.info = self._batch_info(np.where(self._player >= 0, self._player, mover),
                                     {"illegal_action": illegal})
        return (self._obs.copy(), self._mask.copy(), self._player.copy(), self._reward,
                terminated, truncated)

    def close(self) -> None:
        """Release the games (a closed env is not stepped again)."""
        self._native = None
        self.games = [None] * self.num_envs

    def _end_info(self, i: int, action: Any, mover: int, truncated: bool) -> dict[str, Any]:
        """What the info of row i's just-ended game adds (the single-agent env's keys)."""
        g = self.games[i]
        if truncated:
            return {"result": "truncated", "decisions": g.decisions}
        if g.is_over:
            return {"result": g.result.reason, "winner": g.result.winner, "vp": g.vp,
                    "ended_by": SIDES[mover]}
        return {"illegal_action": True, "illegal_action_id": as_int_or_repr(action),
                "result": "illegal action", "winner": SIDES[1 - mover], "ended_by": SIDES[mover]}

    def _step_all(self, actions: Any) -> tuple[np.ndarray, np.ndarray]:
        if self._native is None:
            return super()._step_all(actions)
        self._check_started()
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
