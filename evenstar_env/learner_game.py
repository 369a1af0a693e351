"""One game seen from a learner's seat, the opponent moving inside: the logic shared by
:class:`~evenstar_env.wrappers.SingleAgentEnv` and :class:`~evenstar_env.vector.EvenstarVectorEnv`
(conventions: :mod:`evenstar_env.conventions`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .content import Content
from .conventions import VP_SCALE, as_int_or_repr, check_options
from .engine.constants import SIDES
from .game import Game, IllegalActionError


def make_opponent(opponent: Any) -> Any:
    """An agent object as given, or one built from an arena spec ("random", "heuristic",
    "ismcts:100", "ppo:PATH", ...); None means "random"."""
    if opponent is None:
        opponent = "random"
    if isinstance(opponent, str):
        from agents.specs import make_agent  # the arena's spec parser, one for all

        return make_agent(opponent, 0)  # reseeded at every reset
    if not callable(getattr(opponent, "act", None)):
        raise TypeError(f"opponent must be an agent spec or have act(), not {opponent!r}")
    return opponent


def opponent_name(opponent: Any, spec: Any) -> str:
    """How the step info names the opponent: its `kind` (a pool), else the spec or name."""
    if hasattr(opponent, "kind"):
        return opponent.kind
    return spec if isinstance(spec, str) else getattr(opponent, "name", type(opponent).__name__)


class LearnerGame:
    """A game in which `opponent` moves for the side the learner does not play."""

    def __init__(self, content: Content, opponent: Any, reward: str = "win_loss",
                 vp_scale: float = VP_SCALE, illegal_action: str = "lose",
                 max_decisions: int | None = None, backend: str | None = None) -> None:
        check_options(reward, illegal_action, max_decisions)
        self.content, self.opponent, self.backend = content, opponent, backend
        self.reward_mode, self.vp_scale = reward, vp_scale
        self.illegal_action, self.max_decisions = illegal_action, max_decisions
        self.game: Game | None = None
        self.me = 0
        self.done = True
        self._last_diff = 0

    def reset(self, seed: int, me: int) -> None:
        """Start ``Game(seed)`` with the learner on side `me` and play the opponent's moves."""
        if hasattr(self.opponent, "new_episode"):
            self.opponent.new_episode()  # e.g. a pool draws this episode's opponent
        reseed = getattr(self.opponent, "reseed", None)
        if reseed is not None:
            reseed(2 * seed + 1 - me)
        self.game = Game(seed, content=self.content, backend=self.backend)
        self.me, self.done, self._last_diff = me, False, 0
        self._opponent_moves()
        if self.game.is_over:  # both sides choose a history modifier before anything can end
            raise RuntimeError(f"game {seed} ended before the learner's first decision")

    def mask(self) -> np.ndarray:
        """The learner's legal actions; all True once the episode has ended."""
        return write_mask(np.empty(self.game.num_actions, dtype=bool), self.game, self.done)

    def step(self, action: Any) -> tuple[float, bool, bool, dict[str, Any]]:
        """Apply the learner's action and the opponent's replies: (reward, terminated,
        truncated, info)."""
        g = self.game
        if self.done:
            raise RuntimeError("step() called on a finished episode; call reset()")
        info: dict[str, Any] = {"illegal_action": False}
        try:
            g.step(action)
        except IllegalActionError:
            if self.illegal_action == "raise":
                raise
            self.done = True
            info.update(illegal_action=True, illegal_action_id=as_int_or_repr(action),
                        result="illegal action", winner=SIDES[1 - self.me], ended_by="learner")
            return -1.0, True, False, info
        ended_by_learner = g.is_over
        self._opponent_moves()
        reward = self._shaping()
        if g.is_over:
            self.done = True
            reward += g.returns()[SIDES[self.me]]
            info.update(result=g.result.reason, winner=g.result.winner, vp=g.vp,
                        ended_by="learner" if ended_by_learner else "opponent")
            return reward, True, False, info
        if self._cut_off():
            self.done = True
            info.update(result="truncated", decisions=g.decisions)
            return reward, False, True, info
        return reward, False, False, info

    # ------------------------------------------------------------ helpers
    def _cut_off(self) -> bool:
        return self.max_decisions is not None and self.game.decisions >= self.max_decisions

    def _opponent_moves(self) -> None:
        """The opponent plays until the learner decides, the game ends or is cut off.  It is
        called as in the arena: ``act(None, mask, game)``."""
        g, opp = self.game, 1 - self.me
        while not g.is_over and g.current_player == SIDES[opp] and not self._cut_off():
            g.step(self.opponent.act(None, g.action_mask(), g))

    def _shaping(self) -> float:
        if self.reward_mode != "vp_diff":
            return 0.0
        vp = self.game.state.vp
        diff = int(vp[self.me]) - int(vp[1 - self.me])
        delta, self._last_diff = diff - self._last_diff, diff
        return delta / self.vp_scale



def write_mask(row: np.ndarray, game: Game, done: bool) -> np.ndarray:
    """Write into `row` the legal actions of the player to move, or all True once the
    episode has ended (the terminal convention); returns `row`."""
    if done:
        row[:] = True
    else:
        row[:] = False
        row[game.legal_actions()] = True
    return row
