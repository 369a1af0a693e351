"""Evenstar: a reinforcement-learning environment for Dawn of the Evenstar."""

import gymnasium as _gym
import pettingzoo as _pz

from .content import ContentError
from .env import env, raw_env
from .evaluation import Evaluation, evaluate
from .game import Decision, Game, IllegalActionError, Result, SnapshotError, UnknownNameError

__all__ = ["ContentError", "Decision", "Evaluation", "Game", "IllegalActionError", "Result",
           "SnapshotError", "UnknownNameError", "env", "evaluate", "raw_env"]
__version__ = "0.1.0"

ENV_ID = "Evenstar-v0"
if ENV_ID not in _pz.aec_registry:
    _pz.register("aec", ENV_ID, entry_point="evenstar_env.env:env")
# The same id in Gymnasium's registry: the single-agent wrapper and, for make_vec, the
# batched env (README "Using Evenstar from ...").  gym.make returns the env itself, so that
# `env.action_masks()` (sb3-contrib's MaskablePPO) works on it: it passes Gymnasium's
# env checker (tests/test_gym.py) and refuses a step before reset on its own, which is
# what the passive checker and order-enforcing wrappers would add (and they hide
# action_masks; an additional wrapper would rule out make_vec's vector entry point).
if ENV_ID not in _gym.registry:
    _gym.register(ENV_ID, entry_point="evenstar_env.wrappers:SingleAgentEnv",
                  vector_entry_point="evenstar_env.vector:EvenstarVectorEnv",
                  order_enforce=False, disable_env_checker=True)
