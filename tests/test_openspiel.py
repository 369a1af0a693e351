"""The OpenSpiel game (evenstar_env.openspiel) and the openspiel-ismcts arena agent (issue 16)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pyspiel
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from open_spiel.python.algorithms import ismcts, mcts

from agents.specs import make_agent
from evenstar_env import Game
from evenstar_env import openspiel as eo
from evenstar_env.engine.constants import DRAW, HAND
from evenstar_env.env.observation import observe


@pytest.fixture(scope="module")
def game() -> pyspiel.Game:
    return pyspiel.load_game("evenstar")


def dealt(game: pyspiel.Game, seed: int, steps: int = 0) -> eo.EvenstarState:
    """The state after the chance node chose `seed` and `steps` uniform random actions."""
    state = game.new_initial_state()
    state.apply_action(seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        if state.is_terminal():
            break
        state.apply_action(int(rng.choice(state.legal_actions())))
    return state


def play_out(game: pyspiel.Game, state: pyspiel.State, bots: dict[int, pyspiel.Bot],
             rng: np.random.Generator) -> pyspiel.State:
    """Play to the end: the players in `bots` with their bot, the others uniformly."""
    while not state.is_terminal():
        p = state.current_player()
        action = bots[p].step(state) if p in bots else int(rng.choice(state.legal_actions()))
        assert action in state.legal_actions()
        state.apply_action(action)
    return state


def test_game_type_and_sizes(game) -> None:
    t = game.get_type()
    assert t.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    assert t.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert t.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert game.num_distinct_actions() == Game().num_actions
    assert game.observation_tensor_size() == observe(Game(), "usa").size
    assert game.information_state_tensor_size() == game.observation_tensor_size()


def test_random_sim_test_with_serialisation(game) -> None:
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


def test_chance_outcome_is_the_evenstar_seed(game) -> None:
    state = game.new_initial_state()
    assert state.is_chance_node()
    outcomes = state.chance_outcomes()
    assert len(outcomes) == eo.NUM_SEEDS
    assert sum(p for _, p in outcomes) == pytest.approx(1.0)
    state.apply_action(1234)
    g = Game(seed=1234)
    assert state.current_player() == ("usa", "china").index(g.current_player)
    assert state.legal_actions() == g.legal_actions().tolist()
    for p, side in enumerate(("usa", "china")):
        np.testing.assert_array_equal(state.observation_tensor(p), observe(g, side))


def test_returns_follow_the_result(game) -> None:
    ends = set()
    for seed in range(6):
        state = play_out(game, dealt(game, seed), {}, np.random.default_rng(seed))
        result = state.game.result
        want = [0.0, 0.0] if result.winner is None else \
            [1.0 if s == result.winner else -1.0 for s in ("usa", "china")]
        assert state.returns() == want
        assert sum(state.returns()) == 0.0
        ends.add(tuple(state.returns()))
    assert len(ends) >= 2, "both sides should win some random games"


def test_serialisation_round_trip_continues_identically(game) -> None:
    state = dealt(game, 5, steps=40)
    text = pyspiel.serialize_game_and_state(game, state)
    game2, state2 = pyspiel.deserialize_game_and_state(text)
    assert str(state2) == str(state)
    assert state2.history() == state.history()
    for p in (0, 1):
        assert state2.information_state_tensor(p) == state.information_state_tensor(p)
        assert state2.information_state_string(p) == state.information_state_string(p)
    # The seeded streams travel with the state: the same actions give the same game.
    rng = np.random.default_rng(0)
    while not state.is_terminal():
        a = int(rng.choice(state.legal_actions()))
        state.apply_action(a)
        state2.apply_action(a)
        assert str(state2) == str(state)
    assert state2.returns() == state.returns()


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, eo.NUM_SEEDS - 1), steps=st.integers(0, 120),
       sample=st.integers(0, 2**31))
@example(seed=38901, steps=113, sample=0)  # an empty draw pile: the hand is known exactly
def test_resample_from_infostate_keeps_what_the_player_knows(game, seed, steps, sample) -> None:
    state = dealt(game, seed, steps)
    if state.is_terminal():
        return
    sampler = np.random.default_rng(sample).random
    for p in (0, 1):
        other = ("usa", "china")[1 - p]
        changed = False
        for _ in range(4):
            r = state.resample_from_infostate(p, sampler)
            assert r.information_state_tensor(p) == state.information_state_tensor(p)
            assert r.observation_tensor(p) == state.observation_tensor(p)
            assert r.information_state_string(p) == state.information_state_string(p)
            if state.current_player() == p:  # its own decision: it knows every option
                assert r.legal_actions() == state.legal_actions()
            elif r.game.decision.kind == "card":  # the opponent's cards: its redrawn hand
                held = set(np.flatnonzero(r.game.state.card_loc == HAND[1 - p]).tolist())
                assert {a for a in r.legal_actions()
                        if r.game.action_group(a)[0] == "card"} <= held
            changed |= sorted(r.game.hand(other)) != sorted(state.game.hand(other))
        g = state.game
        in_hand = g.state.card_loc == HAND[1 - p]
        known = int((g.state.revealed[1 - p] & in_hand).sum())  # R20: revealed, still held
        d = g.decision
        if d is not None and d.kind == "mode" and d.player == other:
            known += 1  # the card the opponent has chosen to play is face up
        # Redrawing needs somewhere else the unseen cards could be: with the draw pile
        # empty, every card the player cannot see is in the opponent's hand.
        if int(in_hand.sum()) - known > 0 and (g.state.card_loc == DRAW).any():
            assert changed, "the opponent's unseen hand should be redrawn"


def test_openspiel_ismcts_plays_a_game_to_the_end(game) -> None:
    rs = np.random.RandomState(3)
    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, rs), 2.0, max_simulations=3,
                           random_state=rs)
    state = play_out(game, dealt(game, 11), {0: bot}, np.random.default_rng(1))
    assert state.is_terminal() and state.game.is_over
    assert state.returns() in ([1.0, -1.0], [-1.0, 1.0], [0.0, 0.0])


def test_openspiel_mcts_with_random_rollouts_plays_a_game_to_the_end(game) -> None:
    rs = np.random.RandomState(4)
    bot = mcts.MCTSBot(game, 2.0, 3, mcts.RandomRolloutEvaluator(1, rs), random_state=rs)
    state = play_out(game, dealt(game, 12), {1: bot}, np.random.default_rng(2))
    assert state.is_terminal() and state.game.is_over


def test_arena_spec_openspiel_ismcts() -> None:
    agent = make_agent("openspiel-ismcts:3", 7)
    assert agent.name == "openspiel-ismcts"
    assert agent.bot._max_simulations == 3
    assert make_agent("openspiel-ismcts", 7).bot._max_simulations == 50
    g = Game(seed=2)
    for _ in range(20):
        if g.is_over:  # its near-random play can end the game early (total war)
            break
        a = agent.act(None, g.action_mask(), g)
        assert g.action_mask()[a]
        g.step(a)
    with pytest.raises(ValueError):
        make_agent("openspiel-ismcts:many", 0)


def test_state_from_game_copies_the_game(game) -> None:
    g = Game(seed=9)
    state = eo.state_from_game(g, game)
    state.apply_action(state.legal_actions()[0])
    assert g.decisions < state.game.decisions


def test_importing_evenstar_does_not_need_open_spiel() -> None:
    code = ("import sys; sys.modules['pyspiel'] = None; sys.modules['open_spiel'] = None\n"
            "import evenstar_env, evenstar_env.wrappers, agents, experiments.arena\n"
            "try:\n    import evenstar_env.openspiel\nexcept ImportError:\n    print('ok')\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "ok"

