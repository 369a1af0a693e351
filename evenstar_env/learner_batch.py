"""N learner games on one :class:`~evenstar_env.native.batch.NativeBatch`, a batch policy
moving the other seat: the engine of the SB3 adapter (:mod:`evenstar_env.sb3`).

Every call is a few C++ calls on all N games: the learner's actions, then rounds in which
the opponent moves in every game where it is to move (one batch-policy call and one batch
step per round; the games where the learner is to move pass), then one encoding of the N
learner observations.  A game that ends is restarted within the same step (SB3's
convention, not Gymnasium's NEXT_STEP): its outcome and last observation are reported and
the row's observation is the next game's.

Seeds are NativeBatch's: slot i's k-th game since ``reset(seed)`` is ``Game(seed + i + k *
N)``.  Sides: ``side="alternate"`` follows the seed (even: US, odd: China; conventions).
The opponent is a batch policy (``policy(obs[k, d], mask[k, A]) -> actions[k]``; one with
``observes = False`` reads the masks only and gets None for `obs`, saving the encoding):
``"random"`` (uniform over the legal actions: played inside the C++ batch, one call a
step, each slot drawing from its own SplitMix64 stream seeded from the reset seed;
a :class:`UniformRandomPolicy` passed in plays so too), ``"learned[:PATH]"`` or any
callable.  Rewards as the envs pay them: the result (+1 / -1 /
0) at the end, plus with ``reward="vp_diff"`` the change of own minus opponent VP /
`vp_scale` between learner steps.  An illegal learner action raises
:class:`~evenstar_env.IllegalActionError` (a masked learner never takes one).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .content import Content, load_content
from .conventions import SEED_LIMIT, VP_SCALE, check_options
from .engine.constants import SIDES
from .game import IllegalActionError
from .learner_game import batch_policy
from .native.batch import NativeBatch
from .native.frames import reason_text
from .native.game import state_dtype
from .wrappers import SIDE_OPTIONS


class UniformRandomPolicy:
    """A uniformly random legal action per row (a batch policy)."""

    name = "random"
    observes = False  # reads the masks only: the batch skips encoding its observations

    def __init__(self, seed: int | None = None) -> None:
        self.reseed(seed)

    def reseed(self, seed: int | None) -> None:
        self.rng = np.random.default_rng(seed)

    def __call__(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return np.argmax(self.rng.random(mask.shape) * mask, axis=1)

    def streams(self, n: int) -> np.ndarray:
        """`n` SplitMix64 stream states from this generator: the in-batch random opponent's
        (:meth:`NativeLearnerBatch._random_rounds`)."""
        return self.rng.integers(0, 2**64 - 1, size=n, dtype=np.uint64, endpoint=True)


@dataclass
class Ended:
    """A game that ended in the last step: its slot, seed, learner side, result and the
    learner's last observation."""

    row: int
    seed: int
    side: int
    winner: int  # 0 US, 1 China, -1 a draw
    vp: tuple[int, int]
    result: str
    last_obs: np.ndarray


class NativeLearnerBatch:
    """`n` learner games on a native batch (see the module docstring)."""

    def __init__(self, n: int, side: str = "alternate", opponent: Any = "random",
                 reward: str = "win_loss", vp_scale: float = VP_SCALE, threads: int = 1,
                 content: Content | None = None) -> None:
        if side not in SIDE_OPTIONS:
            raise ValueError(f"side must be one of {SIDE_OPTIONS}, not {side!r}")
        check_options(reward, "raise", None)
        self.n, self.side_option, self.reward_mode, self.vp_scale = n, side, reward, vp_scale
        self.threads, self.content = threads, content or load_content()
        self.opponent = (UniformRandomPolicy() if opponent in (None, "random")
                         else batch_policy(opponent, self.content))
        if self.opponent is None:
            raise ValueError(f"opponent must be 'random', 'learned[:PATH]' or a batch policy "
                             f"(a callable on (obs, mask)), not {opponent!r}")
        self._observes = getattr(self.opponent, "observes", True)
        self._in_batch = type(self.opponent) is UniformRandomPolicy  # played by the C++ batch
        self._streams = np.zeros(n, dtype=np.uint64)
        self._new_batch(0)
        self.obs = np.zeros((n, self.batch.obs_size), dtype=np.float32)
        self.me = np.zeros(n, dtype=np.int32)
        self._opp = np.ones(n, dtype=np.int32)  # the opponent's side: 1 - me
        self._who = np.zeros(n, dtype=np.int32)
        self.diff = np.zeros(n, dtype=np.int64)  # own - opponent VP at the last learner step
        self._acts = np.zeros(n, dtype=np.int64)
        self.opponent_calls = 0

    @property
    def masks(self) -> np.ndarray:
        """The learner's legal actions in every game (a copy)."""
        return self.batch.mask != 0

    def reset(self, seed: int | None = None) -> np.ndarray:
        """Start every slot's first game (seed: see the module docstring); the learner's
        observations."""
        if seed is None:
            seed = int(np.random.default_rng().integers(0, SEED_LIMIT))
        self._new_batch(int(seed))
        reseed = getattr(self.opponent, "reseed", None)
        if reseed is not None:
            reseed(int(seed))
        if self._in_batch:
            self._streams = self.opponent.streams(self.n)
        self._sides(np.ones(self.n, dtype=bool))
        self.diff[:] = 0
        self._opponent_rounds()
        return self._observe()

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, list[Ended]]:
        """The learner's actions in every game, then the opponent's replies: (observations,
        rewards, the games that ended)."""
        b = self.batch
        acts = np.asarray(actions)
        if acts.shape != (self.n,) or acts.dtype.kind not in "iu":
            raise ValueError(f"expected {self.n} integer actions, got an array of shape "
                             f"{acts.shape} and type {acts.dtype}")
        b._b.step(np.ascontiguousarray(acts, dtype=np.int64))
        bad = np.flatnonzero(b.error)
        if bad.size:
            i = int(bad[0])
            raise IllegalActionError(f"slot {i}: action {int(acts[i])} is not legal")
        reward = np.zeros(self.n, dtype=np.float64)
        ended = self._opponent_rounds(reward)
        if self.reward_mode == "vp_diff":
            live = np.ones(self.n, dtype=bool)
            live[[e.row for e in ended]] = False  # their shaping was paid at the end
            own = self._own_diff()
            reward[live] += (own[live] - self.diff[live]) / self.vp_scale
            self.diff[live] = own[live]
        return self._observe(), reward, ended

    # ------------------------------------------------------------ helpers
    def _new_batch(self, seed: int) -> None:
        self.batch = NativeBatch(self.n, seed, self.threads, self.content)
        states = self.batch._b.state_bytes().view(state_dtype()).reshape(self.n)
        states.flags.writeable = False
        self._results = states["result"]  # a live view: winner, reason code and its x, y, z

    def _sides(self, rows: np.ndarray) -> None:
        seeds = self.batch.seed[rows]
        self.me[rows] = seeds % 2 if self.side_option == "alternate" else \
            SIDES.index(self.side_option)
        self._opp[rows] = 1 - self.me[rows]

    def _own_diff(self) -> np.ndarray:
        vp = self.batch.vp.astype(np.int64)
        d = vp[:, 0] - vp[:, 1]
        return np.where(self.me == 0, d, -d)

    def _random_rounds(self, reward: np.ndarray | None) -> list[Ended]:
        """:meth:`_opponent_rounds` for the uniformly random opponent, which the C++ batch
        plays itself (``play_random``): one call moves it in every game until the learner
        is to move or the game ends; ended games are settled and restarted."""
        b, ended, acts, raw = self.batch, [], self._acts, self.batch._b
        while True:
            raw.play_random(self._opp, self._streams)
            done = np.flatnonzero(b.done)
            if not done.size:
                return ended
            ended += self._settle(done, reward)
            acts.fill(-1)  # -1: the game passes (only the ended ones restart)
            acts[done] = 0
            raw.step(acts)
            self._sides(done)
            self.diff[done] = 0

    def _opponent_rounds(self, reward: np.ndarray | None = None) -> list[Ended]:
        """Until the learner is to move in every game: settle the ended games (restarted by
        the next batch step) and let the opponent move where it is to.  A dozen numpy calls
        a round, whatever N (the C++ calls without NativeBatch's checks: the arrays here are
        made right)."""
        if self._in_batch:
            return self._random_rounds(reward)
        b, ended, acts, raw = self.batch, [], self._acts, self.batch._b
        while True:
            done = np.flatnonzero(b.done)
            if done.size:
                ended += self._settle(done, reward)
            rows = np.flatnonzero(b.player == self._opp)  # -1 (over) is nobody's
            if not done.size and not rows.size:
                return ended
            acts.fill(-1)  # -1: the game passes this round
            if rows.size:
                obs = None
                if self._observes:
                    who = self._who
                    who.fill(-2)  # -2: row left as it is
                    who[rows] = self._opp[rows]
                    raw.observe(who, self.obs)
                    obs = self.obs[rows]
                chosen = np.asarray(self.opponent(obs, b.mask[rows].view(bool)))
                self.opponent_calls += 1
                if chosen.shape != rows.shape:
                    raise ValueError(f"the batch opponent returned actions of shape "
                                     f"{chosen.shape} for {rows.size} positions")
                acts[rows] = chosen
            if done.size:
                acts[done] = 0  # ignored: the slot starts its next game
            raw.step(acts)
            if rows.size and b.error[rows].any():
                i = int(rows[np.flatnonzero(b.error[rows])[0]])
                raise IllegalActionError(f"the batch opponent's move in slot {i} is not legal")
            if done.size:
                self._sides(done)
                self.diff[done] = 0

    def _settle(self, rows: np.ndarray, reward: np.ndarray | None) -> list[Ended]:
        """The ended games of `rows`: the learner's result (and last shaping) into `reward`,
        their records with the learner's last observation."""
        b = self.batch
        who = np.full(self.n, -2, dtype=np.int32)
        who[rows] = self.me[rows]
        b._b.observe(who, self.obs)
        out = []
        for i in rows:
            me, winner = int(self.me[i]), int(b.winner[i])
            if reward is not None:
                reward[i] += 0.0 if winner < 0 else (1.0 if winner == me else -1.0)
                if self.reward_mode == "vp_diff":
                    reward[i] += (self._own_diff()[i] - self.diff[i]) / self.vp_scale
            _, code, x, y, z = (int(v) for v in self._results[i])  # Game.result's, uncopied
            out.append(Ended(int(i), int(b.seed[i]), me, winner,
                             (int(b.vp[i, 0]), int(b.vp[i, 1])), reason_text(code, x, y, z),
                             self.obs[i].copy()))
        return out

    def _observe(self) -> np.ndarray:
        """The learner's observation in every game (the learner is to move in all)."""
        out = np.empty_like(self.obs)  # written whole by the encoding: no copy to make
        self.batch._b.observe(self.me, out)
        return out
