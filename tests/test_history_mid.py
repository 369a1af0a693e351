"""Behaviour of the mid-era history cards (data/history_mid.toml): every outcome of every
card, who chooses (4.6.D), the modifier cards (R16) and the real phase D of turn 4,
when the mid decks come into play (4.2, R12).

Outcomes resolve with `helpers.run_history` (the engine's own phase-D frame pushed on
top of a quiet game, see its docstring) with a forced die: modified roll <= 1, 2-3,
4-5, >= 6.
"""

from __future__ import annotations

import pytest
from helpers import (
    check_outcome_choices,
    clear,
    countries_of,
    do,
    history_base_game,
    legal_countries,
    quiet_action,
    resolve,
    resolve_with_modifiers,
    run_history,
    wipe_region,
)

from evenstar_env import Game
from evenstar_env.engine.constants import (
    DRAW,
    H_DECK,
    H_DONE,
    HAND,
    M_TURN,
)

DIE_FOR_OUTCOME = {1: 1, 2: 3, 3: 4, 4: 6}


def base_game() -> Game:
    return history_base_game(diplomacy=2)


ME3 = {"Iraq": {"anti_us": 3}, "Syria": {"anti_us": 2}, "Libya": {"anti_us": 1}}

# Each case: (card id, outcome, setup, picks, chooser, expected changes).
CASES = [
    # ----------------------------------------------------------- US deck
    ("bush_tax_cuts", 1, {}, (), None, {"reserves_usa": -2}),
    ("bush_tax_cuts", 2, {}, (), None, {"reserves_usa": 1}),
    ("bush_tax_cuts", 3, {}, (), None, {"economy_usa": 9}),
    ("bush_tax_cuts", 4, {}, (), None, {"economy_usa": 9, "reserves_usa": 1}),
    ("patriot_act", 1, {}, (), None, {"social_usa": 7}),
    ("patriot_act", 2, "me", ("Syria",), "usa", {"Syria": {"anti_us": 1}}),
    ("patriot_act", 3, "me", ("Iraq", "Libya"), "usa",
     {"Iraq": {"anti_us": 2}, "Libya": {}}),
    ("patriot_act", 4, "me", ("Iraq", "Syria"), "usa",
     {"Iraq": {"anti_us": 2}, "Syria": {"anti_us": 1}, "social_usa": 9}),
    ("nato_2004_enlargement", 1, {"Belarus": {"usa": 2}}, (), None, {"Belarus": {"usa": 1}}),
    ("nato_2004_enlargement", 2, {"Baltic States": {}}, (), None,
     {"Baltic States": {"usa": 1}}),
    ("nato_2004_enlargement", 3, {"Baltic States": {}, "Romania": {"china": 1}}, (), None,
     {"Baltic States": {"usa": 1}, "Romania": {"usa": 1, "china": 1}}),
    ("nato_2004_enlargement", 4, {"Baltic States": {}, "Romania": {}, "Bulgaria": {}}, (), None,
     {"Baltic States": {"usa": 1}, "Romania": {"usa": 1}, "Bulgaria": {"usa": 1},
      "vp_usa": 1}),
    ("hurricane_katrina", 1, {}, (), None, {"social_usa": 7, "reserves_usa": -1}),
    ("hurricane_katrina", 2, {}, (), None, {"social_usa": 7}),
    ("hurricane_katrina", 3, {}, (), None, {"reserves_usa": 1}),
    ("hurricane_katrina", 4, {}, (), None, {"economy_usa": 9, "social_usa": 9}),
    ("obama_elected", 1, {}, (), None, {"social_usa": 7}),
    ("obama_elected", 2, "europe", ("France",), "usa", {"diplomacy": 3, "France": {"usa": 1}}),
    ("obama_elected", 3, {}, (), None, {"diplomacy": 3, "social_usa": 9}),
    ("obama_elected", 4, "europe", ("France", "Ukraine"), "usa",
     {"diplomacy": 3, "social_usa": 9, "France": {"usa": 1}, "Ukraine": {"usa": 1}}),
    ("recovery_act", 1, {}, (), None, {"reserves_usa": -2}),
    ("recovery_act", 2, {}, (), None, {"economy_usa": 9, "reserves_usa": -2}),
    ("recovery_act", 3, {}, (), None, {"economy_usa": 9, "reserves_usa": -1}),
    ("recovery_act", 4, {}, (), None, {"economy_usa": 9}),
    ("iphone_launch", 1, {}, (), None, {"reserves_usa": -1}),
    ("iphone_launch", 2, {}, (), None, {"social_usa": 9}),
    ("iphone_launch", 3, {}, (), None, {"tech_usa": 1, "vp_usa": 1}),  # box 1: +1 VP
    ("iphone_launch", 4, {}, (), None, {"tech_usa": 1, "vp_usa": 1, "economy_usa": 9}),
    # ----------------------------------------------------------- China deck
    ("shanghai_expo", 1, {}, (), None, {"reserves_china": -1}),
    ("shanghai_expo", 2, {}, (), None, {"reserves_china": 1}),
    ("shanghai_expo", 3, {}, (), None, {"vp_china": 1}),
    ("shanghai_expo", 4, {}, (), None, {"vp_china": 1, "social_china": 7}),
    ("sichuan_earthquake", 1, {}, (), None, {"social_china": 5, "reserves_china": -1}),
    ("sichuan_earthquake", 2, {}, (), None, {"social_china": 5}),
    ("sichuan_earthquake", 3, {}, (), None, {"reserves_china": -1}),
    ("sichuan_earthquake", 4, {}, (), None, {"social_china": 7}),
    ("qinghai_tibet_railway", 1, {}, (), None, {"reserves_china": -2}),
    ("qinghai_tibet_railway", 2, {}, (), None, {"economy_china": 7, "reserves_china": -2}),
    ("qinghai_tibet_railway", 3, {}, (), None, {"economy_china": 7, "reserves_china": -1}),
    ("qinghai_tibet_railway", 4, {}, (), None, {"economy_china": 7, "vp_china": 1}),
    ("agricultural_tax_abolition", 1, {}, (), None, {"reserves_china": -2}),
    ("agricultural_tax_abolition", 2, {}, (), None, {"reserves_china": -1}),
    ("agricultural_tax_abolition", 3, {}, (), None, {"social_china": 7, "reserves_china": -1}),
    ("agricultural_tax_abolition", 4, {}, (), None, {"social_china": 7}),
    ("focac_beijing_summit", 1, "africa", ("Kenya",), "china", {"Kenya": {"china": 1}}),
    ("focac_beijing_summit", 2, "africa", ("Kenya", "Nigeria"), "china",
     {"Kenya": {"china": 1}, "Nigeria": {"china": 1}}),
    ("focac_beijing_summit", 3, "africa", ("Kenya", "Nigeria", "Angola"), "china",
     {"Kenya": {"china": 1}, "Nigeria": {"china": 1}, "Angola": {"china": 1}}),
    ("focac_beijing_summit", 4, "africa", ("Kenya", "Nigeria", "Angola"), "china",
     {"Kenya": {"china": 1}, "Nigeria": {"china": 1}, "Angola": {"china": 1},
      "vp_china": 1}),
    ("change_1_lunar_probe", 1, {}, (), None, {"reserves_china": -1}),
    ("change_1_lunar_probe", 2, {}, (), None, {"social_china": 7}),
    ("change_1_lunar_probe", 3, {}, (), None,
     {"tech_china": 1, "vp_china": 1, "social_china": 7}),  # box 1, Hybrid Rice
    ("change_1_lunar_probe", 4, {}, (), None,
     {"tech_china": 1, "vp_china": 1, "social_china": 8}),  # Hybrid Rice, then social +1
    ("nine_dash_line_submission", 1, {"Vietnam": {"china": 1}, "Philippines": {"usa": 2}}, (),
     None, {"Vietnam": {"usa": 1, "china": 1}, "Philippines": {"usa": 3}}),
    ("nine_dash_line_submission", 2, "sea", ("Vietnam",), "china", {"Vietnam": {"china": 1}}),
    ("nine_dash_line_submission", 3, "sea", ("Vietnam", "Laos/Cambodia"), "china",
     {"Vietnam": {"china": 1}, "Laos/Cambodia": {"china": 1}}),
    ("nine_dash_line_submission", 4, "sea_ph", ("Vietnam", "Philippines"), "china",
     {"Vietnam": {"china": 1}, "Philippines": {"usa": 1, "china": 1}}),
]


def setup(g: Game, spec) -> set[str] | None:
    """Apply a case's setup; for named group setups return the countries one may pick."""
    if isinstance(spec, dict):
        for c, inf in spec.items():
            g.set_influence(c, **inf)
        return None
    if spec == "me":
        wipe_region(g, "Middle East")
        for c, inf in ME3.items():
            g.set_influence(c, **inf)
        return set(ME3)  # only countries with AU (reductions)
    if spec == "europe":
        wipe_region(g, "Europe")
        return countries_of("Europe")
    if spec == "africa":
        wipe_region(g, "Africa")
        return countries_of("Africa")
    if spec == "sea":
        wipe_region(g, "Southeast Asia")
        return countries_of("Southeast Asia")
    if spec == "sea_ph":  # the US reduction in the Philippines is forced (one country)
        wipe_region(g, "Southeast Asia")
        g.set_influence("Philippines", usa=2)
        return countries_of("Southeast Asia")
    raise AssertionError(spec)


def mid_history() -> list:
    return [h for h in Game(0).content.history if h.era == "mid"]


def test_mid_history_decks_have_six_or_more_cards_per_side() -> None:
    hist = mid_history()
    assert sum(h.side == "usa" for h in hist) >= 6
    assert sum(h.side == "china" for h in hist) >= 6
    assert all(h.special is None and len(h.outcomes) == 4 for h in hist)


def test_every_mid_history_card_has_cases_for_all_four_outcomes() -> None:
    ids = {h.id for h in mid_history()}
    assert {(c[0], c[1]) for c in CASES} == {(i, k) for i in ids for k in (1, 2, 3, 4)}


CASE_IDS = [f"{c[0]}-outcome{c[1]}" for c in CASES]


def test_every_mid_history_id_appears_in_a_test_name() -> None:
    """The parametrized ids of `test_mid_history_outcome` are test names."""
    missing = [h.id for h in mid_history() if not any(h.id in n for n in CASE_IDS)]
    assert missing == []


@pytest.mark.parametrize("hist_id, outcome, spec, picks, chooser, expected", CASES,
                         ids=CASE_IDS)
def test_mid_history_outcome(hist_id, outcome, spec, picks, chooser, expected) -> None:
    g = base_game()
    pool = setup(g, spec)
    check_outcome_choices(g, hist_id, DIE_FOR_OUTCOME[outcome], pool, picks)
    assert resolve(g, hist_id, DIE_FOR_OUTCOME[outcome], picks, chooser) == expected


def test_patriot_act_best_outcome_at_most_one_per_country() -> None:
    g = base_game()
    setup(g, "me")
    g.force_dice([6])
    run_history(g, "patriot_act")
    do(g, "country", "Iraq")
    assert legal_countries(g) == {"Syria", "Libya"}


@pytest.mark.parametrize("die, outcome", [(1, 1), (2, 2), (3, 2), (4, 3), (5, 3), (6, 4)])
def test_recovery_act_roll_bands(die, outcome) -> None:
    """Die -> outcome: <= 1, 2-3, 4-5, >= 6 (R16), on a card with four distinct outcomes."""
    g = base_game()
    expected = {1: {"reserves_usa": -2}, 2: {"economy_usa": 9, "reserves_usa": -2},
                3: {"economy_usa": 9, "reserves_usa": -1}, 4: {"economy_usa": 9}}[outcome]
    assert resolve(g, "recovery_act", die) == expected


@pytest.mark.parametrize("us_mod, cn_mod, die, expected", [
    ("zero", "minus2", 3, {"reserves_china": -3}),  # 1: outcome 1 (-2 reserves; paid 2)
    ("zero", "plus2", 4, {"reserves_china": -2, "economy_china": 7, "vp_china": 1}),  # 6
    ("counter", "plus2", 4, {"reserves_usa": -1, "reserves_china": -3,
                             "economy_china": 7}),  # 4: outcome 3
])
def test_qinghai_tibet_railway_with_modifier_cards(us_mod, cn_mod, die, expected) -> None:
    g = base_game()
    assert resolve_with_modifiers(g, "qinghai_tibet_railway", die, us_mod, cn_mod) == expected
    assert g.decision.kind == "card" and g.decision.player == "usa"


def test_turn_4_phase_d_draws_from_the_mid_decks_us_first() -> None:
    """4.2, R12: at the start of turn 4 the mid history decks and the mid base cards come
    into play; phase D draws one US card, then one China card, of the mid era."""
    g = base_game()
    c = g.content
    assert all(g.state.hist_loc[c.hist_by_id[h.id]] != H_DECK for h in mid_history())
    g.state.misc[M_TURN] = 3
    g.set_hand("usa", [])
    g.set_hand("china", [])
    while g.turn < 4:  # the rest of "turn 3" with empty hands: no decision but declines
        g.step(int(quiet_action(g)))
    assert g.decision.kind == "modifier", f"no mid history event in turn 4: {g.decision}"
    first = c.history[g.decision.context["history"]]
    assert (first.era, first.side) == ("mid", "usa")
    mid_base = [i for i, cd in enumerate(c.cards) if cd.era == "mid" and cd.kind == "base"]
    assert all(int(g.state.card_loc[i]) == DRAW for i in mid_base)  # dealt in phase E
    clear(g, "Baltic States", "Romania", "Bulgaria", "Belarus")
    do(g, "mod", "zero")
    do(g, "mod", "zero")
    while g.decision.kind != "modifier":  # the first card's own choices, if any
        g.step(int(g.legal_actions()[0]))
    second = c.history[g.decision.context["history"]]
    assert (second.era, second.side) == ("mid", "china")
    assert g.state.hist_loc[c.hist_by_id[first.id]] == H_DONE
    do(g, "mod", "zero")
    do(g, "mod", "zero")
    while g.phase == "history":
        g.step(int(g.legal_actions()[0]))
    assert g.state.hist_loc[c.hist_by_id[second.id]] == H_DONE
    hands = [i for i in mid_base if int(g.state.card_loc[i]) in HAND]
    assert g.turn == 4 and hands  # mid cards were dealt from the draw pile
