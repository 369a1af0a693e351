"""Invariants over random play (hypothesis): docs/rules.md [engine] and RULINGS R1."""

from __future__ import annotations

import json

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evenstar_env import Game
from evenstar_env.engine.constants import (
    CHINA,
    H_DRAWN,
    M_PHASE,
    M_PHASING,
    M_RUSSIA_DEFERRED,
    P_HISTORY,
    PLAYING,
)
from evenstar_env.engine.state import State

MAX_DECISIONS = 20_000
BOUNDS = {"social_usa": (1, 10), "social_china": (1, 10), "economy_usa": (1, 11),
          "economy_china": (1, 11), "diplomacy": (1, 3), "regional_security": (1, 3),
          "russia": (0, 9), "tech_usa": (0, 8), "tech_china": (0, 8)}


def random_game(seed: int, policy_seed: int, check=None) -> tuple[Game, list[int]]:
    g = Game(seed)
    rng = np.random.default_rng(policy_seed)
    actions: list[int] = []
    while not g.is_over:
        legal = g.legal_actions()
        a = int(legal[rng.integers(legal.size)])
        g.step(a)
        actions.append(a)
        if check is not None:
            check(g)
        assert len(actions) < MAX_DECISIONS, "game did not end within the decision bound"
    return g, actions


def check_state(g: Game) -> None:
    s = g.state
    assert s.inf_cn.min() >= 0, "CN influence negative"
    assert s.reserves.min() >= 0, "reserves negative"
    for name, (lo, hi) in BOUNDS.items():
        assert lo <= g.track(name) <= hi, f"{name} out of bounds: {g.track(name)}"
    assert int((s.card_loc == PLAYING).sum()) <= 1, "more than one card being played"
    assert set(np.unique(s.card_loc)) <= set(range(10)), "card in an unknown place"
    # R22: Russia box effects wait only during China's card play, for boxes the marker passed.
    deferred = s.misc[M_RUSSIA_DEFERRED]
    assert 0 <= deferred <= g.track("russia")
    if deferred and not g.is_over:
        assert s.misc[M_PHASING] == CHINA, "a Russia box effect waits outside China's round"
    # R23: at most one drawn, unresolved history card per side, and only in phase D.
    drawn = np.flatnonzero(s.hist_loc == H_DRAWN)
    assert len(set(g.content.hist_side[drawn].tolist())) == drawn.size <= 2
    if drawn.size and not g.is_over:
        assert s.misc[M_PHASE] == P_HISTORY, "a drawn history card outlives phase D"
    if not g.is_over:
        legal = g.legal_actions()
        assert legal.size >= 2, "forced decisions are taken automatically"
        assert np.array_equal(np.flatnonzero(g.action_mask()), np.sort(legal))


games = given(seed=st.integers(0, 2**31 - 1), policy=st.integers(0, 2**31 - 1))
fast = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@fast
@games
def test_invariants_hold_at_every_decision(seed: int, policy: int) -> None:
    g, _ = random_game(seed, policy, check_state)
    assert g.result is not None and g.result.winner in ("usa", "china", None)
    for country in Game.countries():
        inf = g.influence(country["name"])
        assert min(inf.values()) >= 0
        assert not (inf["usa"] > 0 and inf["anti_us"] > 0), "R1: US and AU coexist"


@fast
@games
def test_same_seed_and_actions_give_identical_state(seed: int, policy: int) -> None:
    g1, actions = random_game(seed, policy)
    g2 = Game(seed)
    for a in actions:
        g2.step(a)
    assert g1.state == g2.state
    assert g1.result == g2.result


@fast
@given(seed=st.integers(0, 2**31 - 1), policy=st.integers(0, 2**31 - 1),
       cut=st.floats(0, 1))
def test_json_round_trip_is_exact_at_any_point(seed: int, policy: int, cut: float) -> None:
    _, actions = random_game(seed, policy)
    k = int(cut * len(actions))
    g = Game(seed)
    for a in actions[:k]:
        g.step(a)
    restored = Game.from_dict(json.loads(json.dumps(g.to_dict())))
    assert restored.state == g.state
    assert restored.decision == g.decision
    for a in actions[k:]:  # both continue identically
        g.step(a)
        restored.step(a)
    assert restored.state == g.state


@fast
@games
def test_clone_is_independent(seed: int, policy: int) -> None:
    g = Game(seed)
    c = g.clone()
    assert c.state == g.state
    rng = np.random.default_rng(policy)
    for _ in range(30):
        if g.is_over:
            break
        legal = g.legal_actions()
        g.step(int(legal[rng.integers(legal.size)]))
    assert Game(seed).state == c.state, "stepping the original changed the clone"


def test_state_copy_shares_no_array() -> None:
    s = Game(3).state
    t = s.copy()
    t.inf_us[0] += 5
    t.misc[0] += 1
    t.stack.append(("log", "x"))
    assert s != t and isinstance(t, State)
