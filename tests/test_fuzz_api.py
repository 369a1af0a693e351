"""Fuzzing the public API with random, partly invalid calls (issue 15, "How it is checked").

After every call the game is either exactly unchanged (the call raised a clear
error) or validly advanced: the invariants of tests/test_invariants.py hold and
`to_dict` round-trips through JSON and `from_dict` (which re-derives the pending
decision).  Any other exception type fails the test.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_invariants import check_state

import evenstar_env
from evenstar_env import Game, IllegalActionError
from evenstar_env.engine.constants import TRACK_NAMES

CLEAR_ERRORS = (IllegalActionError, ValueError, TypeError, KeyError)
CONTENT = Game(0).content
SIDE_NAMES = ["usa", "china", "USA", "", "both"]
COUNTRY_NAMES = [c.name for c in CONTENT.countries[:6]] + ["Atlantis", "iran"]
CARD_NAMES = [c.name for c in CONTENT.cards] + ["Nope"]
TRACKS = [*TRACK_NAMES, "social", "tech"]

junk = st.sampled_from([None, 1.5, "3", True, np.int64(4), [], float("nan")])
value = st.one_of(st.integers(-3, 12), st.integers(-(10**12), 10**12), junk)
side = st.sampled_from(SIDE_NAMES)
calls = st.one_of(
    st.tuples(st.just("play"), st.integers(1, 40), st.integers(0, 2**16)),
    st.tuples(st.just("step"), st.one_of(st.integers(-3, 300), junk)),
    st.tuples(st.just("set_reserves"), side, value),
    st.tuples(st.just("set_track"), st.sampled_from(TRACKS), value),
    st.tuples(st.just("set_influence"), st.sampled_from(COUNTRY_NAMES), value, value, value),
    st.tuples(st.just("set_hand"), side,
              st.one_of(st.lists(st.sampled_from(CARD_NAMES), max_size=9), st.just("Nope"))),
    st.tuples(st.just("force_dice"), st.lists(st.one_of(st.integers(-1, 8), junk), max_size=3)),
    st.tuples(st.just("action_id"), st.sampled_from(["card", "country", "mode", "spend", "x"]),
              st.one_of(st.sampled_from(["place", "tech", "Iran", "Nope"]), value)),
    st.tuples(st.just("event_can_happen"), st.sampled_from(CARD_NAMES[:3] + ["Nope"]), side),
)


def _call(g: Game, call: tuple) -> None:
    name, *args = call
    if name == "play":  # take up to n random legal steps: reach deeper positions
        n, seed = args
        rng = np.random.default_rng(seed)
        for _ in range(n):
            if g.is_over:
                return
            g.step(int(rng.choice(g.legal_actions())))
    elif name == "set_influence":
        country, usa, china, anti_us = args
        g.set_influence(country, usa=usa, china=china, anti_us=anti_us)
    else:
        getattr(g, name)(*args)


def _check_valid(g: Game) -> None:
    check_state(g)
    d = json.loads(json.dumps(g.to_dict()))
    restored = Game.from_dict(d)
    assert restored.state == g.state and restored.seed == g.seed


fuzz = settings(max_examples=60, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@fuzz
@given(seed=st.integers(0, 2**64 - 1), script=st.lists(calls, min_size=1, max_size=25))
def test_game_api_is_unchanged_or_validly_advanced(seed: int, script: list[tuple]) -> None:
    g = Game(seed)
    for call in script:
        before = g.to_dict()
        try:
            _call(g, call)
        except CLEAR_ERRORS:
            if call[0] != "play":  # a failed call changes nothing
                assert g.to_dict() == before, f"{call} raised but changed the game"
            continue
        _check_valid(g)


env_calls = st.lists(st.one_of(
    st.tuples(st.just("legal"), st.integers(0, 2**16)),
    st.tuples(st.just("action"), st.one_of(st.integers(-3, 300), junk)),
    st.tuples(st.just("many"), st.integers(1, 60), st.integers(0, 2**16)),
), min_size=1, max_size=30)


@fuzz
@given(seed=st.integers(0, 2**32 - 1), mode=st.sampled_from(["raise", "lose"]),
       script=env_calls)
def test_pettingzoo_env_is_unchanged_or_validly_advanced(seed: int, mode: str,
                                                         script: list[tuple]) -> None:
    env = evenstar_env.env(illegal_action=mode)
    env.reset(seed=seed)
    for call in script:
        steps: list[Any]
        if call[0] == "action":
            steps = [call[1]]
        else:
            rng = np.random.default_rng(call[-1])
            steps = ["legal"] * (call[1] if call[0] == "many" else 1)
        for a in steps:
            if not env.agents:  # both agents have seen the end
                return
            agent = env.agent_selection
            done = env.terminations[agent] or env.truncations[agent]
            if a == "legal":
                mask = env.observe(agent)["action_mask"]
                a = None if done else int(rng.choice(np.flatnonzero(mask)))
            before = env.unwrapped.game.to_dict()
            try:
                env.step(a)
            except CLEAR_ERRORS:
                assert env.unwrapped.game.to_dict() == before, f"step({a!r}) changed the game"
                continue
            g = env.unwrapped.game
            if env.terminations.get(agent, True) and not g.is_over:  # lost by an illegal action
                assert mode == "lose" and g.to_dict() == before
            else:
                _check_valid(g)
