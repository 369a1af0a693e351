"""A Stable-Baselines3 ``VecEnv`` over the native batch, for sb3-contrib's MaskablePPO as
it stands (``MaskablePPO("MlpPolicy", EvenstarSB3VecEnv(64))``).

:class:`EvenstarSB3VecEnv` steps N games with a few C++ calls per step
(:class:`~evenstar_env.learner_batch.NativeLearnerBatch`: seeds, sides, rewards and the
batch-policy opponent are described there) instead of N Python envs behind
``DummyVecEnv``; ``benchmarks/bench_vector.py`` measures both.  It speaks SB3's
conventions: autoreset within the step (the ended game's last observation in
``infos[i]["terminal_observation"]``, ``"episode"`` as ``VecMonitor`` writes it, and the
env's end keys ``result``, ``winner``, ``vp``, ``side``, ``seed``, ``illegal_action``),
float32 rewards, and the legal actions through ``env_method("action_masks")`` (what
sb3-contrib's ``get_action_masks`` calls).  ``seed(s)`` then ``reset()`` plays
``Game(s + i)`` in slot i.  The opponent is a batch policy (``"random"``,
``"learned[:PATH]"`` or a callable on ``(obs, mask)``); per-game agents such as
``"heuristic"`` play through ``DummyVecEnv`` over ``SingleAgentEnv``.

This module imports stable_baselines3 (and so torch); ``import evenstar_env`` does not
import it.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env.base_vec_env import (
    VecEnv,
    VecEnvIndices,
    VecEnvObs,
    VecEnvStepReturn,
)

from .engine.constants import SIDES
from .env.observation import ObservationEncoder
from .learner_batch import Ended, NativeLearnerBatch
from .wrappers import observation_box


class EvenstarSB3VecEnv(VecEnv):
    """`num_envs` learner games as one SB3 ``VecEnv``; `options` are those of
    :class:`~evenstar_env.learner_batch.NativeLearnerBatch` (side, opponent, reward,
    vp_scale, threads, content)."""

    def __init__(self, num_envs: int = 8, **options: Any) -> None:
        self.games = NativeLearnerBatch(num_envs, **options)
        self.render_mode = None
        super().__init__(num_envs, observation_box(ObservationEncoder(self.games.content)),
                         spaces.Discrete(self.games.batch.mask.shape[1]))
        self._actions: np.ndarray | None = None
        self._return = np.zeros(num_envs, dtype=np.float64)
        self._length = np.zeros(num_envs, dtype=np.int64)
        self._t0 = time.time()

    # ------------------------------------------------------------ the VecEnv API
    def reset(self) -> VecEnvObs:
        obs = self.games.reset(self._seeds[0])  # seed(s) sets s + i in slot i: NativeBatch's
        self._reset_seeds()
        self._reset_options()
        self._return[:], self._length[:] = 0.0, 0
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions)

    def step_wait(self) -> VecEnvStepReturn:
        if self._actions is None:
            raise RuntimeError("step_wait() without step_async(actions)")
        obs, reward, ended = self.games.step(self._actions.astype(np.int64, copy=False))
        self._actions = None
        self._return += reward
        self._length += 1
        done = np.zeros(self.num_envs, dtype=bool)
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        for e in ended:
            done[e.row] = True
            infos[e.row] = self._end_info(e)
            self._return[e.row], self._length[e.row] = 0.0, 0
        return obs, reward.astype(np.float32), done, infos

    def close(self) -> None:
        """Nothing to release (the native batch is freed with the object)."""

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions in every game (``N x n_actions``)."""
        return self.games.masks

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        """An attribute of the games (one batch: the same value for every index)."""
        value = getattr(self if hasattr(self, attr_name) else self.games, attr_name)
        return [value for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        setattr(self.games, attr_name, value)

    def env_method(self, method_name: str, *method_args: Any, indices: VecEnvIndices = None,
                   **method_kwargs: Any) -> list[Any]:
        """``"action_masks"``: one mask row per index (sb3-contrib's ``get_action_masks``);
        another method of the games is called once and its result given per index."""
        rows = list(self._get_indices(indices))
        if method_name == "action_masks":
            return list(self.games.masks[rows])
        result = getattr(self.games, method_name)(*method_args, **method_kwargs)
        return [result for _ in rows]

    def env_is_wrapped(self, wrapper_class: type, indices: VecEnvIndices = None) -> list[bool]:
        return [False for _ in self._get_indices(indices)]

    def get_images(self) -> Sequence[np.ndarray | None]:
        return [None for _ in range(self.num_envs)]

    def _end_info(self, e: Ended) -> dict[str, Any]:
        """Row e.row's info on the step its game ended (SB3's keys and the env's)."""
        return {"terminal_observation": e.last_obs, "TimeLimit.truncated": False,
                "episode": {"r": float(self._return[e.row]), "l": int(self._length[e.row]),
                            "t": round(time.time() - self._t0, 6)},
                "seed": e.seed, "side": SIDES[e.side], "illegal_action": False,
                "result": e.result, "winner": None if e.winner < 0 else SIDES[e.winner],
                "vp": {"usa": e.vp[0], "china": e.vp[1]}}


__all__ = ["EvenstarSB3VecEnv"]
