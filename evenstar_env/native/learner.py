"""The native backend of :class:`~evenstar_env.vector.EvenstarVectorEnv` with a batch-policy
opponent (``opponent="learned"`` or a callable on ``(obs, mask)``), on NativeBatch.

The N games live in one :class:`~.batch.NativeBatch`, started with the env's own slot
seeds (``restart``).  A step is a few C++ calls on all N games: the learner's actions,
then the opponent's rounds (one batch-policy call for every game where the opponent is to
move, one batch step in which the other games pass), then one encoding of the N learner
observations.  Rewards, ends, cut-offs and infos are vectorised numpy.  The games, rows,
rewards, infos and policy calls are those of the per-slot path (``LearnerGame`` and
``batch_rounds``, the Python backend's) for the same seeds and actions
(tests/test_vector_opponents.py), except that with ``illegal_action="raise"`` the error
comes before any slot has moved (as :mod:`.selfplay`'s).

A batch step starts the next game of a slot whose game is over; an ended game must stay
as it ended until the env's next step (NEXT_STEP autoreset, ``env.cores[i].game``), so
the rounds put such slots back (their state bytes and output rows) after each step.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..conventions import as_int_or_repr
from ..engine.constants import M_DECISIONS, SIDES
from ..game import IllegalActionError
from .batch import NativeBatch
from .game import state_dtype
from .selfplay import SlotGames, actions_or_illegal


class NativeLearner:
    """N learner games of `env` in one native batch, the env's batch opponent moving the
    other seat; writes the env's rows (``_obs``, ``_mask``, ``_rewards``, ``_ends``)."""

    def __init__(self, env: Any, threads: int = 1) -> None:
        from ..wrappers import side_of_game

        self.env, self._side_of_game = env, side_of_game
        n = env.num_envs
        self.batch = b = NativeBatch(n, 0, threads, env.content)
        self._bytes = b._b.state_bytes()  # N x sizeof(State), written back by _keep only
        self._decisions = self._bytes.view(state_dtype()).reshape(n)["misc"][:, M_DECISIONS]
        self.me = np.zeros(n, dtype=np.int32)
        self._diff = np.zeros(n, dtype=np.int64)  # own - opponent VP at the last settle
        self._who = np.zeros(n, dtype=np.int32)
        self._acts = np.zeros(n, dtype=np.int64)
        self._opp_obs = np.zeros((n, b.obs_size), dtype=np.float32)
        self._observes = getattr(env.batch_opponent, "observes", True)
        self.games = SlotGames(b)

    # ------------------------------------------------------------ reset and step
    def reset(self, only: np.ndarray | None) -> None:
        """Start the games of the rows of `only` (None: all) with the env's slot seeds,
        play the opponent's first moves and write their rows."""
        rows = np.arange(self.env.num_envs) if only is None else np.flatnonzero(only)
        self._start(rows)
        pending = np.zeros(self.env.num_envs, dtype=bool)
        pending[rows] = True
        self._rounds(pending)
        self._check_started(rows)
        self._write(rows, np.zeros(self.env.num_envs, dtype=bool))

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The learner's actions (restarting the slots whose game ended at the last step),
        the opponent's rounds, the outcomes: (terminated, truncated); rewards and end
        infos into the env."""
        env, b = self.env, self.batch
        n = env.num_envs
        restart = np.flatnonzero(env._ended)
        live = ~env._ended
        acts = actions_or_illegal(actions, live, b.mask.shape[1])
        if env.illegal_action == "raise":  # before anything moves (module docstring)
            ok = b.mask[np.arange(n), np.maximum(acts, 0)] != 0
            bad = np.flatnonzero(live & ((acts < 0) | ~ok))
            if bad.size:
                i = int(bad[0])
                raise IllegalActionError(f"slot {i}: action {as_int_or_repr(actions[i])} "
                                         "is not legal")
        for i in restart:
            env.slots.next(int(i))
        self._start(restart)
        b.step(acts)
        illegal = live & (b.error != 0)
        moved = live & ~illegal
        by_learner = moved & (b.player < 0)
        pending = moved & ~by_learner
        pending[restart] = True
        self._rounds(pending)
        self._check_started(restart)
        reward = env._rewards
        over = moved & (b.player < 0)
        if env.reward_mode == "vp_diff":
            own = self._own_diff()
            reward[moved] += (own[moved] - self._diff[moved]) / env.vp_scale
            self._diff[moved] = own[moved]
        won = over & (b.winner >= 0)
        reward[won] += np.where(b.winner[won] == self.me[won], 1.0, -1.0)
        reward[illegal] = -1.0
        truncated = np.zeros(n, dtype=bool)
        if env.max_decisions is not None:
            truncated = moved & ~over & (self._decisions >= env.max_decisions)
        terminated = illegal | over
        for i in np.flatnonzero(terminated | truncated):
            env._ends[int(i)] = self._end_info(int(i), actions[i], bool(illegal[i]),
                                               bool(truncated[i]), bool(by_learner[i]))
        self._write(np.arange(n), terminated | truncated)
        return terminated, truncated

    # ------------------------------------------------------------ helpers
    def _start(self, rows: np.ndarray) -> None:
        if rows.size:
            seeds = self.env.slots.seeds[rows]
            self.batch._b.restart(rows.astype(np.int64), seeds.astype(np.uint64))
            self.me[rows] = [self._side_of_game(self.env.side_option, int(s)) for s in seeds]
            self._diff[rows] = 0
            self.env._ended[rows] = False

    def _check_started(self, rows: np.ndarray) -> None:
        """After the opponent's first moves the learner has a decision (LearnerGame's)."""
        for i in rows[self.batch.player[rows] < 0]:
            raise RuntimeError(f"game {int(self.batch.seed[i])} ended before the learner's "
                               "first decision")

    def _rounds(self, pending: np.ndarray) -> None:
        """The batch opponent's rounds in the games of `pending` (``batch_rounds``'s):
        while it is to move in any of them (the game running and not cut off), one call for
        all those positions, then one batch step."""
        env, b = self.env, self.batch
        cap = env.max_decisions
        raw = b._b  # the arrays here are made right: the C++ calls without their checks
        rows = np.flatnonzero(pending)
        while True:
            player = b.player[rows]
            to_move = (player >= 0) & (player != self.me[rows])
            if cap is not None:
                to_move &= self._decisions[rows] < cap
            rows = rows[to_move]  # a game the opponent is not to move in stays so this step
            if not rows.size:
                return
            obs = None
            if self._observes:
                who = self._who
                who.fill(-2)  # rows left as they are
                who[rows] = player[to_move]
                raw.observe(who, self._opp_obs)
                obs = self._opp_obs[rows]
            chosen = np.asarray(env.batch_opponent(obs, b.mask[rows] != 0))
            env.opponent_calls += 1
            if chosen.shape != rows.shape:
                raise ValueError(f"the batch policy returned actions of shape {chosen.shape} "
                                 f"for {rows.size} positions")
            acts = self._acts
            acts.fill(-1)  # -1: not legal, the game does not move
            acts[rows] = chosen
            keep = np.flatnonzero(b.player < 0)
            saved = self._save(keep)
            raw.step(acts)
            self._restore(keep, saved)
            bad = rows[b.error[rows] != 0]
            if bad.size:
                i = int(bad[0])
                raise IllegalActionError(f"the batch opponent's move in game "
                                         f"{int(b.seed[i])}: action {int(acts[i])} is not "
                                         "legal")

    def _save(self, rows: np.ndarray) -> tuple[np.ndarray, ...] | None:
        """The state and output rows of the games over (a batch step would restart them)."""
        if not rows.size:
            return None
        b = self.batch
        return (self._bytes[rows], b.done[rows], b.winner[rows], b.vp[rows], b.seed[rows])

    def _restore(self, rows: np.ndarray, saved: tuple[np.ndarray, ...] | None) -> None:
        if saved is None:
            return
        b = self.batch
        self._bytes[rows], b.done[rows], b.winner[rows], b.vp[rows], b.seed[rows] = saved
        b.player[rows] = -1
        b.mask[rows] = 0

    def _own_diff(self) -> np.ndarray:
        vp = self.batch.vp.astype(np.int64)
        d = vp[:, 0] - vp[:, 1]
        return np.where(self.me == 0, d, -d)

    def _end_info(self, i: int, action: Any, illegal: bool, truncated: bool,
                  by_learner: bool) -> dict[str, Any]:
        """What the info of row i's ended episode adds (LearnerGame's keys)."""
        if illegal:
            return {"illegal_action": True, "illegal_action_id": as_int_or_repr(action),
                    "result": "illegal action", "winner": SIDES[1 - int(self.me[i])],
                    "ended_by": "learner"}
        g = self.batch.game(i)
        if truncated:
            return {"illegal_action": False, "result": "truncated", "decisions": g.decisions}
        return {"illegal_action": False, "result": g.result.reason, "winner": g.result.winner,
                "vp": g.vp, "ended_by": "learner" if by_learner else "opponent"}

    def _write(self, rows: np.ndarray, ended: np.ndarray) -> None:
        """The learner's observation of every row of `rows` (one C++ call) and its mask:
        the legal actions of the player to move, all True where the episode has ended."""
        env, b = self.env, self.batch
        who = self._who
        who.fill(-2)
        who[rows] = self.me[rows]
        b.observe(env._obs, who)
        env._mask[rows] = b.mask[rows] != 0
        env._mask[rows[ended[rows]]] = True


class LearnerSlot:
    """``env.cores[i]`` on the native batch: a copy of slot i's game, the learner's side
    and whether the opponent is to move (what the per-slot ``LearnerGame`` answers)."""

    def __init__(self, learner: NativeLearner, i: int) -> None:
        self._learner, self._i = learner, i

    @property
    def game(self) -> Any:
        return self._learner.batch.game(self._i)

    @property
    def me(self) -> int:
        return int(self._learner.me[self._i])

    def awaits_opponent(self) -> bool:
        lr, i = self._learner, self._i
        cap = lr.env.max_decisions
        p = int(lr.batch.player[i])
        return p >= 0 and p != self.me and (cap is None or int(lr._decisions[i]) < cap)
