"""Behaviour of the late history cards (data/history_late.toml): every outcome of every
card (modified roll <= 1, 2-3, 4-5, >= 6), who chooses (4.6.D), the modifier cards
(R16), and the real phase-D path of the late era (R12).

Most tests resolve a card with `helpers.run_history`, which pushes the engine's own
phase-D frame on top of a quiet game (see its docstring); the die is forced.  Test ids
carry the history card id (see the meta-test at the end).
"""

from __future__ import annotations

import pytest
from helpers import (
    changes,
    check_outcome_choices,
    clear,
    countries_of,
    do,
    empty_hands_to_next_turn,
    history_base_game,
    legal_countries,
    quiet_round,
    resolve,
    resolve_with_modifiers,
    run_history,
    snapshot,
    wipe_region,
)

from evenstar_env import Game
from evenstar_env.engine.constants import DRAW, H_DONE, H_DRAWN, H_OUT, M_TURN, OUT

DIE_FOR_OUTCOME = {1: 1, 2: 3, 3: 4, 4: 6}
FONOP = ("Philippines", "Vietnam", "Malaysia", "Indonesia")


def base_game() -> Game:
    return history_base_game(diplomacy=3)


# Each case: (card id, outcome, setup, picks, chooser, expected).
CASES = [
    # ----------------------------------------------------------- US deck
    ("shale_revolution", 1, {}, (), None, {"reserves_usa": -1}),
    ("shale_revolution", 2, {}, (), None, {"reserves_usa": 2}),
    ("shale_revolution", 3, {}, (), None, {"economy_usa": 9}),
    ("shale_revolution", 4, {"Poland": {}}, (), None,
     {"economy_usa": 9, "Poland": {"usa": 1}}),
    ("freedom_of_navigation_operations", 1, {}, (), None, {"regional_security": 2}),
    ("freedom_of_navigation_operations", 2, {"Philippines": {"china": 1}}, (), None,
     {"Philippines": {"usa": 1, "china": 1}}),
    ("freedom_of_navigation_operations", 3, "fonop", ("Philippines", "Vietnam"), "usa",
     {"Philippines": {"usa": 1}, "Vietnam": {"usa": 1, "china": 2}}),
    ("freedom_of_navigation_operations", 4, "fonop", ("Philippines", "Malaysia", "Indonesia"),
     "usa", {"Philippines": {"usa": 1}, "Malaysia": {"usa": 1}, "Indonesia": {"usa": 1},
             "Vietnam": {"china": 1}}),
    ("political_polarization", 1, {}, (), None, {"social_usa": 7}),
    ("political_polarization", 2, {}, (), None, {"reserves_usa": -2}),
    ("political_polarization", 3, {}, (), None, {"vp_usa": 1}),
    ("political_polarization", 4, {}, (), None, {"social_usa": 9}),
    ("generative_ai_boom", 1, {}, (), None, {"reserves_usa": -2}),
    ("generative_ai_boom", 2, {}, (), None, {"economy_usa": 9}),
    ("generative_ai_boom", 3, {}, (), None, {"tech_usa": 1, "vp_usa": 1}),  # Internet Age
    ("generative_ai_boom", 4, {}, (), None, {"tech_usa": 1, "vp_usa": 2, "reserves_usa": 2}),
    # ----------------------------------------------------------- China deck
    ("anti_corruption_campaign", 1, {}, (), None, {"social_china": 5}),
    ("anti_corruption_campaign", 2, {}, (), None, {"reserves_china": -1}),
    ("anti_corruption_campaign", 3, {}, (), None, {"social_china": 7}),
    ("anti_corruption_campaign", 4, {}, (), None, {"social_china": 7, "reserves_china": 2}),
    ("stock_market_turbulence_2015", 1, {}, (), None,
     {"economy_china": 5, "reserves_china": -2}),
    ("stock_market_turbulence_2015", 2, {}, (), None, {"reserves_china": -2}),
    ("stock_market_turbulence_2015", 3, {}, (), None, {"reserves_china": -1}),
    ("stock_market_turbulence_2015", 4, {}, (), None, {"reserves_china": 2}),
    ("change_lunar_program", 1, {}, (), None, {"reserves_china": -1}),
    ("change_lunar_program", 2, {}, (), None, {"vp_china": 1}),
    ("change_lunar_program", 3, {}, (), None,
     {"tech_china": 1, "vp_china": 1, "social_china": 7}),  # Hybrid Rice
    ("change_lunar_program", 4, {}, (), None,
     {"tech_china": 1, "vp_china": 2, "social_china": 7}),
    ("china_celac_forum", 1, "latam", ("Brazil",), "usa", {"Brazil": {"usa": 1}}),
    ("china_celac_forum", 2, "latam", ("Peru",), "china", {"Peru": {"china": 1}}),
    ("china_celac_forum", 3, "latam", ("Peru", "Chile"), "china",
     {"Peru": {"china": 1}, "Chile": {"china": 1}}),
    ("china_celac_forum", 4, "latam", ("Peru", "Chile", "Cuba"), "china",
     {"Peru": {"china": 1}, "Chile": {"china": 1}, "Cuba": {"china": 1},
      "reserves_china": 1}),
]
CASE_IDS = [f"{c[0]}-outcome{c[1]}" for c in CASES]


def setup(g: Game, spec) -> set[str] | None:
    """Apply a case's setup; for named group setups return the countries one may pick."""
    if isinstance(spec, dict):
        for c, inf in spec.items():
            g.set_influence(c, **inf)
        return None
    if spec == "fonop":
        clear(g, *FONOP)
        g.set_influence("Vietnam", china=2)
        return set(FONOP)
    if spec == "latam":
        wipe_region(g, "Latin America")
        return countries_of("Latin America")
    raise AssertionError(spec)


@pytest.mark.parametrize("hist_id, outcome, spec, picks, chooser, expected", CASES,
                         ids=CASE_IDS)
def test_late_history_outcome(hist_id, outcome, spec, picks, chooser, expected) -> None:
    g = base_game()
    pool = setup(g, spec)
    check_outcome_choices(g, hist_id, DIE_FOR_OUTCOME[outcome], pool, picks)
    assert resolve(g, hist_id, DIE_FOR_OUTCOME[outcome], picks, chooser) == expected


@pytest.mark.parametrize("hist_id", ["freedom_of_navigation_operations", "china_celac_forum"])
def test_late_history_at_most_one_per_country(hist_id) -> None:
    g = base_game()
    pool = setup(g, "fonop" if hist_id.startswith("freedom") else "latam")
    g.force_dice([6])
    run_history(g, hist_id)
    first = sorted(pool)[0]
    do(g, "country", first)
    assert legal_countries(g) == pool - {first}


def test_political_polarization_with_modifiers_plus2_countered() -> None:
    """R16: the US plays +2, China a counter: both are paid, the roll stays unmodified."""
    g = base_game()
    assert resolve_with_modifiers(g, "political_polarization", 5, "plus2", "counter") == {
        "vp_usa": 1, "reserves_usa": -2, "reserves_china": -1}


def test_stock_market_turbulence_2015_with_minus2_modifier_is_the_crash() -> None:
    g = base_game()
    before = snapshot(g)
    g.force_dice([3])  # 3 - 2 = 1: outcome 1
    run_history(g, "stock_market_turbulence_2015", mods=True)
    do(g, "mod", "minus2")
    do(g, "mod", "zero")
    assert changes(g, before) == {"economy_china": 5, "reserves_china": -2,
                                  "reserves_usa": -2}


def test_late_history_cards_enter_the_decks_in_turn_9_and_resolve_in_phase_d() -> None:
    """R12: the late history decks are prepared at the start of turn 9; phase D draws one
    card of each, both face up before the first modifier choice, the US card resolving
    first (R16, R23)."""
    g = quiet_round("usa")
    c = g.content
    s = g.state
    keep = ("generative_ai_boom", "anti_corruption_campaign")
    for i, h in enumerate(c.history):
        if h.era == "late":
            assert s.hist_loc[i] == H_OUT  # not in a deck before turn 9
        s.hist_loc[i] = H_OUT if h.id in keep else H_DONE
    s.misc[M_TURN] = 8
    late = [i for i, cd in enumerate(c.cards) if cd.era == "late"]
    assert all(s.card_loc[i] == OUT for i in late)
    g.set_track("tech_usa", 0)
    g.set_track("social_china", 6)
    empty_hands_to_next_turn(g, "modifier", "usa")
    assert g.turn == 9
    assert g.decision.context["history"] == c.hist_by_id["generative_ai_boom"]
    assert s.hist_loc[c.hist_by_id["anti_corruption_campaign"]] == H_DRAWN  # R23
    # R12: the late base cards are shuffled into the draw pile (some already dealt)
    assert all(s.card_loc[i] != OUT for i in late)
    assert any(s.card_loc[i] == DRAW for i in late)
    g.force_dice([4, 1])
    tech, social = g.track("tech_usa"), g.track("social_china")
    for _ in range(4):
        do(g, "mod", "zero")
    assert g.track("tech_usa") == tech + 1  # Generative AI Boom, outcome 3
    assert g.track("social_china") == social - 1  # Anti-Corruption Campaign, outcome 1
    for hid in keep:
        assert s.hist_loc[c.hist_by_id[hid]] == H_DONE


def test_every_late_history_card_has_cases_for_all_four_outcomes() -> None:
    late = {h.id for h in Game(0).content.history if h.era == "late"}
    assert sum(h.side == "usa" for h in Game(0).content.history if h.id in late) >= 4
    assert sum(h.side == "china" for h in Game(0).content.history if h.id in late) >= 4
    assert all(h.special is None for h in Game(0).content.history if h.id in late)
    assert {(c[0], c[1]) for c in CASES} == {(i, k) for i in late for k in (1, 2, 3, 4)}
    # every late history id appears in the name of a test (the parametrized ids)
    assert all(any(i in name for name in CASE_IDS) for i in late)
