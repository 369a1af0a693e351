"""The conventions every Evenstar environment follows (AEC, single-agent and vector forms;
README "Using Evenstar from ...", docs/observation.md):

- **Seeds.** ``reset(seed=s)`` plays ``Game(seed=s)``, as the arena and balance studies do
  for seed s; an unseeded reset draws the seed from the generator of the last seeded reset.
  A built-in opponent is reseeded with ``2 * s + side`` (side 0 = US, 1 = China), the seed
  the arena gives an agent on that side, so the same seed, the same learner moves and the
  same opponent spec replay an arena game (an opponent with a time budget, such as
  ``"ismcts:300:0.9"``, depends on the machine's speed and is not reproducible).
- **Sides.** With ``side="alternate"`` the learner's side follows from the game's seed: US
  in ``Game(s)`` for an even s, China for an odd s, so paired seeds (s, s + 1, ...) and the
  vector envs' slots (seed s + i) cover both sides.
- **Illegal actions.** ``illegal_action="raise"``: an :class:`IllegalActionError` naming the
  decision and the legal actions.  ``"lose"``: the game ends (``terminated``), -1 for the
  offender (+1 for the other seat where there is one) and the info says so
  (``info["illegal_action"]``, a bool in every env, False on other steps; the action in
  ``info["illegal_action_id"]``; docs/infos.md).  The single-agent and vector forms
  default to ``"lose"`` (learners and the standard env checkers sample from the whole
  ``Discrete`` space), the AEC env to ``"raise"`` (PettingZoo's own tests sample from the
  mask).
- **Terminal steps.** Single-agent and vector forms: once an episode has ended the mask is
  all True (as in pgx), so a masked sampler never sees an empty mask; the action the
  autoreset step that follows takes (Gymnasium ``NEXT_STEP``) is ignored.  The AEC env keeps
  PettingZoo's convention: terminated agents step ``None``.
- **Truncation.** With ``max_decisions`` the episode is truncated when the game has taken that
  many decisions (:attr:`Game.decisions`, both players, forced ones included) without ending;
  a cut-off game pays no result (0, as :meth:`Game.returns`), only the ``vp_diff`` shaping.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

REWARDS = ("win_loss", "vp_diff")
ILLEGAL_ACTIONS = ("raise", "lose")
SEED_LIMIT = 2**31 - 1
# VP per reward unit of the ``vp_diff`` shaping, the default of every env: a game's VP
# difference then stays around the result's size (at 20 it outweighed the result 5-15x,
# docs/agents.md, *Returns*).
VP_SCALE = 200.0


def check_options(reward: str, illegal_action: str, max_decisions: int | None) -> None:
    """Reject an unknown reward or illegal-action mode or a non-positive decision limit."""
    if reward not in REWARDS:
        raise ValueError(f"reward must be one of {REWARDS}, not {reward!r}")
    if illegal_action not in ILLEGAL_ACTIONS:
        raise ValueError(f"illegal_action must be one of {ILLEGAL_ACTIONS}, not {illegal_action!r}")
    if max_decisions is not None and max_decisions < 1:
        raise ValueError(f"max_decisions must be a positive integer or None, not {max_decisions}")


def draw_seed(rng: np.random.Generator) -> int:
    """The seed of the next game when a reset gives none (drawn from the env's generator)."""
    return int(rng.integers(0, SEED_LIMIT))


def as_int_or_repr(action: Any) -> int | str:
    """An action as an int, or its repr when it is not an integer (for infos)."""
    try:
        return operator.index(action)
    except TypeError:
        return repr(action)
