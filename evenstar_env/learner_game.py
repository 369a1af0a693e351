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


def batch_policy(opponent: Any, content: Any = None) -> Any | None:
    """`opponent` as a batch policy (``policy(obs[k, d], mask[k, A]) -> actions[k]``), or
    None where it is a per-game agent or spec: a ``learned[:PATH]`` spec (the shipped
    network, any networks checkpoint folder such as a training snapshot) becomes an
    :class:`agents.batch_policy.NetworkPolicy`; a callable without ``act`` is one as it
    stands.  A network is loaded for `content` (default: the shipped edition; a network
    that reads cards by their data plays any deck on its board)."""
    if isinstance(opponent, str):
        if opponent.partition(":")[0] != "learned":
            return None
        from agents.batch_policy import NetworkPolicy  # torch: only when asked for

        return NetworkPolicy.from_spec(opponent, content=content)
    if opponent is not None and callable(opponent) and not hasattr(opponent, "act"):
        return opponent
    return None


def opponent_name(opponent: Any, spec: Any) -> str:
    """How the step info names the opponent: its `kind` (a pool), else the spec or name."""
    if hasattr(opponent, "kind"):
        return opponent.kind
    if isinstance(spec, str):
        return spec
    return getattr(opponent, "name", getattr(opponent, "__name__", type(opponent).__name__))


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
        self._ended_by_learner = False

    def reset(self, seed: int, me: int) -> None:
        """Start ``Game(seed)`` with the learner on side `me` and play the opponent's moves."""
        self.start(seed, me)
        self.opponent_moves()
        self.check_started()

    def start(self, seed: int, me: int) -> None:
        """Start ``Game(seed)`` with the learner on side `me` (the opponent not yet moved;
        with no per-game opponent, a batch policy moves it from outside)."""
        if hasattr(self.opponent, "new_episode"):
            self.opponent.new_episode()  # e.g. a pool draws this episode's opponent
        reseed = getattr(self.opponent, "reseed", None)
        if reseed is not None:
            reseed(2 * seed + 1 - me)
        self.game = Game(seed, content=self.content, backend=self.backend)
        self.me, self.done, self._last_diff = me, False, 0

    def check_started(self) -> None:
        """After the opponent's first moves: the learner has a decision to make."""
        if self.game.is_over:  # both sides choose a history modifier before anything can end
            raise RuntimeError(f"game {self.game.seed} ended before the learner's first "
                               "decision")

    def awaits_opponent(self) -> bool:
        """Whether the opponent is to move (the game running and not cut off)."""
        g = self.game
        return not g.is_over and g.current_player == SIDES[1 - self.me] and not self._cut_off()

    def mask(self) -> np.ndarray:
        """The learner's legal actions; all True once the episode has ended."""
        return write_mask(np.empty(self.game.num_actions, dtype=bool), self.game, self.done)

    def step(self, action: Any) -> tuple[float, bool, bool, dict[str, Any]]:
        """Apply the learner's action and the opponent's replies: (reward, terminated,
        truncated, info)."""
        early = self.play(action)
        if early is not None:
            return early
        self.opponent_moves()
        return self.settle()

    def play(self, action: Any) -> tuple[float, bool, bool, dict[str, Any]] | None:
        """Apply the learner's action; the step's outcome if that ended the episode on an
        illegal action (with ``illegal_action="lose"``), else None (then the opponent moves
        and :meth:`settle` says the outcome)."""
        g = self.game
        if self.done:
            raise RuntimeError("step() called on a finished episode; call reset()")
        try:
            g.step(action)
        except IllegalActionError:
            if self.illegal_action == "raise":
                raise
            self.done = True
            return -1.0, True, False, {
                "illegal_action": True, "illegal_action_id": as_int_or_repr(action),
                "result": "illegal action", "winner": SIDES[1 - self.me], "ended_by": "learner"}
        self._ended_by_learner = g.is_over
        return None

    def settle(self) -> tuple[float, bool, bool, dict[str, Any]]:
        """After the learner's move and the opponent's replies: (reward, terminated,
        truncated, info)."""
        g = self.game
        info: dict[str, Any] = {"illegal_action": False}
        ended_by_learner = self._ended_by_learner
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

    def opponent_moves(self) -> None:
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


def batch_rounds(cores: list[LearnerGame], encoders: list[Any], policy: Any,
                 opponent: bool = True) -> int:
    """Rounds of a batch policy moving one seat in `cores` (the opponent's, else the
    learner's): until that seat is to move in none of the games, one call
    ``policy(obs[k, d], mask[k, A])`` for the k games where it is (their observations by
    `encoders`, aligned with `cores`), then one move in each.  Returns the number of calls.
    An illegal move raises :class:`IllegalActionError` naming the game."""
    calls = 0
    waiting = list(range(len(cores)))  # a game where the other seat is to move stays so
    while waiting := [j for j in waiting if _to_move(cores[j], opponent)]:
        k = len(waiting)
        g0 = cores[waiting[0]].game
        obs = np.empty((k, encoders[0].size), dtype=np.float32)
        mask = np.empty((k, g0.num_actions), dtype=bool)
        for row, j in enumerate(waiting):
            core = cores[j]
            obs[row] = encoders[j].encode(core.game._m, 1 - core.me if opponent else core.me)
            mask[row] = core.game.action_mask()
        acts = np.asarray(policy(obs, mask))
        calls += 1
        if acts.shape != (k,):
            raise ValueError(f"the batch policy returned actions of shape {acts.shape} for "
                             f"{k} positions")
        for row, j in enumerate(waiting):
            try:
                cores[j].game.step(int(acts[row]))
            except IllegalActionError as e:
                who = "opponent" if opponent else "policy"
                raise IllegalActionError(f"the batch {who}'s move in game "
                                         f"{cores[j].game.seed}: {e}") from None
    return calls


def _to_move(core: LearnerGame, opponent: bool) -> bool:
    if opponent:
        return core.awaits_opponent()
    g = core.game
    return not g.is_over and g.current_player == SIDES[core.me] and not core._cut_off()
