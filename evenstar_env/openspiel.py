"""Dawn of the Evenstar as an OpenSpiel game (``pyspiel.load_game("evenstar")``).

Importing this module registers the game with ``pyspiel.register_game``; it needs
the optional extra ``pip install "evenstar-env[openspiel]"`` (``import evenstar_env``
does not).  The game is sequential, two-player, zero-sum, imperfect information,
with terminal rewards +1 / -1 (0 for a draw).  Player 0 is the US, player 1 China.

**Chance: one explicit chance node, the seed.**  The Evenstar
:class:`~evenstar_env.Game` draws its dice and shuffles from its own seeded random
streams, independent of play (the arena pairs seeds on this).  The initial state is
a chance node whose outcome ``s`` (uniform over ``0 .. NUM_SEEDS - 1``) is that seed:
after it the state plays ``Game(seed=s)``, and the rest of the game is a
deterministic function of the seed and the players' actions.  This is exact (the
seed's chance node carries all of the game's randomness, with its true
probabilities), it keeps seeds meaning the same thing as everywhere else in
Evenstar (``state.apply_action(s)`` is ``Game(seed=s)``), and it keeps the engine's
streams untouched.  The alternatives were worse: a chance node per die roll and per
shuffle (a permutation of up to ~100 cards) would re-plumb the engine for no
algorithm that could use it at this size, and ``SAMPLED_STOCHASTIC`` cannot be
serialised for a Python game in OpenSpiel 2.0.2 (``SerializeGameAndState`` calls
``Game::GetRNGState``, which Python games cannot implement, so
``random_sim_test(..., serialize=True)`` fails).  Neither player observes the seed;
search algorithms draw fresh worlds with :meth:`EvenstarState.resample_from_infostate`,
built on :meth:`Game.resample_hidden` (opponent's unrevealed hand and headline, draw
order, hidden modifier choice and future dice redrawn).  :func:`state_from_game`
wraps an existing Evenstar game (any seed) as a state after the chance node.

**Observation and information state.**  Both tensors are the player's Evenstar
observation vector (:func:`evenstar_env.env.observation.observe`, documented in
docs/observation.md): the whole public state, the player's own hand and headline,
the opponent's cards revealed to it (R20) and the pending decision.  The information
state equals the observation: under the model of hidden information that
:meth:`Game.resample_hidden` implements (the opponent's unrevealed hand and headline,
the draw order and the dice are a uniform redraw of exactly the cards the
observation leaves unaccounted for), the observation is a sufficient statistic of
what the player knows.  That model ignores what a history could add (inferences
from the opponent's earlier choices, or from when a card could have been drawn),
and the information state is not perfect recall in OpenSpiel's strict sense: two
histories that reach the same observation share it
(fine for ISMCTS and for learning from tensors; tabular perfect-recall algorithms
such as CFR are out of reach at this size anyway).  The strings are a readable
header plus a digest of the tensor, so equal strings mean equal tensors (up to a
128-bit hash collision).

**Serialisation** goes through :meth:`Game.to_dict` (JSON), so a serialised state
contains the seeded streams and deserialises to the same state.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import numpy as np
import pyspiel

from .content import load_content
from .env.observation import encoder_for, observe
from .game import Game

SIDES = ("usa", "china")
SHORT_NAME = "evenstar"
NUM_SEEDS = 2**16  # outcomes of the initial chance node: the seeds 0 .. NUM_SEEDS - 1
# No game has come near this many decisions (cautious random games take ~630,
# uniform random ones fewer); OpenSpiel only needs an upper bound.
MAX_GAME_LENGTH = 20_000

_GAME_TYPE = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name="Dawn of the Evenstar",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=2,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
)


def returns_of(game: Game | None) -> list[float]:
    """:meth:`Game.returns` as OpenSpiel's list (US first); 0 / 0 before the chance node."""
    if game is None:
        return [0.0, 0.0]
    returns = game.returns()
    return [returns[side] for side in SIDES]


class EvenstarGame(pyspiel.Game):
    """The OpenSpiel game (no parameters; the seed is the initial chance outcome)."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        self.content = load_content()
        info = pyspiel.GameInfo(
            num_distinct_actions=Game(content=self.content).num_actions,
            max_chance_outcomes=NUM_SEEDS,
            num_players=2,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=MAX_GAME_LENGTH,
        )
        super().__init__(_GAME_TYPE, info, params or {})

    def new_initial_state(self) -> EvenstarState:
        return EvenstarState(self)

    def make_py_observer(self, iig_obs_type: Any = None,
                         params: dict[str, Any] | None = None) -> EvenstarObserver:
        return EvenstarObserver(self.content, iig_obs_type, params)


class _GameBox:
    """Holds a state's Evenstar :class:`Game` (None before the chance node).

    OpenSpiel clones a Python state by deep-copying its attributes and serialises it
    by pickling them: ``__deepcopy__`` is a fast :meth:`Game.clone`, and pickling
    goes through the :meth:`Game.to_dict` JSON.
    """

    __slots__ = ("game",)

    def __init__(self, game: Game | None = None) -> None:
        self.game = game

    def __deepcopy__(self, memo: dict) -> _GameBox:
        return _GameBox(None if self.game is None else self.game.clone())

    def __getstate__(self) -> dict[str, str | None]:
        return {"game": None if self.game is None else json.dumps(self.game.to_dict())}

    def __setstate__(self, d: dict[str, str | None]) -> None:
        self.game = None if d["game"] is None else Game.from_dict(json.loads(d["game"]))


class EvenstarState(pyspiel.State):
    """An OpenSpiel state wrapping one Evenstar :class:`Game` (``state.game``)."""

    def __init__(self, game: EvenstarGame) -> None:
        super().__init__(game)
        self._box = _GameBox()

    @property
    def game(self) -> Game | None:
        """The Evenstar game; None at the initial chance node."""
        return self._box.game

    def current_player(self) -> int:
        g = self._box.game
        if g is None:
            return pyspiel.PlayerId.CHANCE
        side = g.current_player
        return pyspiel.PlayerId.TERMINAL if side is None else SIDES.index(side)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return [(s, 1.0 / NUM_SEEDS) for s in range(NUM_SEEDS)]

    def _legal_actions(self, player: int) -> list[int]:
        return self._box.game.legal_actions().tolist()

    def _apply_action(self, action: int) -> None:
        if self._box.game is None:
            self._box = _GameBox(Game(seed=int(action)))
        else:
            self._box.game.step(int(action))

    def _action_to_string(self, player: int, action: int) -> str:
        g = self._box.game
        if player == pyspiel.PlayerId.CHANCE:
            return f"seed {action}"
        if g is None:
            return f"{SIDES[player]}: action {action}"
        if g.is_over or g.current_player != SIDES[player]:
            group, k = g.action_group(action)  # no decision context to describe it in
            return f"{SIDES[player]}: {group} {k}"
        return f"{SIDES[player]}: {g.describe_action(action)}"

    def is_terminal(self) -> bool:
        g = self._box.game
        return g is not None and g.is_over

    def returns(self) -> list[float]:
        return returns_of(self._box.game)

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> EvenstarState:
        """A copy in which what ``player_id`` cannot see is redrawn (Game.resample_hidden);
        ``probability_sampler()`` (a uniform [0, 1) draw, as OpenSpiel passes it) seeds it."""
        state = self.clone()
        if self._box.game is not None:
            seed = int(probability_sampler() * 2.0**53)
            state._box = _GameBox(self._box.game.resample_hidden(SIDES[player_id], seed))
        return state

    def __str__(self) -> str:
        g = self._box.game
        if g is None:
            return "chance node: the seed"
        hands = "; ".join(f"{side} hand: {', '.join(g.hand(side))}" for side in SIDES)
        return f"{g!r}\n{hands}"


class EvenstarObserver:
    """Observation / information-state tensor and string of one player (PyObserver API)."""

    def __init__(self, content: Any, iig_obs_type: Any = None,
                 params: dict[str, Any] | None = None) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported; got {params}")
        if iig_obs_type is not None and (
                iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER
                or not iig_obs_type.public_info):
            raise ValueError("only the player's own view (public and private information of "
                             "one player) is supported")
        self.tensor = np.zeros(encoder_for(content).size, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: EvenstarState, player: int) -> None:
        g = state.game
        if g is None:
            self.tensor.fill(0.0)
        else:
            self.tensor[:] = observe(g, SIDES[player])

    def string_from(self, state: EvenstarState, player: int) -> str:
        g = state.game
        if g is None:
            return f"{SIDES[player]} | before the deal"
        digest = hashlib.blake2b(observe(g, SIDES[player]).tobytes(), digest_size=16)
        return (f"{SIDES[player]} | turn {g.turn} {g.phase} round {g.round} | "
                f"{g.decision or 'over'} | {digest.hexdigest()}")


def state_from_game(game: Game, spiel_game: EvenstarGame | None = None) -> EvenstarState:
    """An OpenSpiel state holding a copy of an Evenstar game (past the chance node; its
    OpenSpiel history is empty)."""
    spiel_game = spiel_game or pyspiel.load_game(SHORT_NAME)
    state = EvenstarState(spiel_game)
    state._box = _GameBox(game.clone())
    return state


pyspiel.register_game(_GAME_TYPE, EvenstarGame)
