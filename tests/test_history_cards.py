"""Behaviour of the early history cards (data/history_early.toml): every outcome of
every card, the modifier cards (R16), who chooses (4.6.D), and the real phase-D and
Russia-track paths (8.1.4).

Most tests resolve a card with `helpers.run_history`, which pushes the engine's own
phase-D frame on top of a quiet game (see its docstring); the die is forced.
Outcomes: modified roll <= 1, 2-3, 4-5, >= 6.
"""

from __future__ import annotations

import pytest
from helpers import (
    clear,
    countries_of,
    do,
    empty_hands_to_next_turn,
    history_base_game,
    legal_countries,
    play,
    quiet_round,
    resolve,
    resolve_with_modifiers,
    run_history,
    wipe_region,
)

from evenstar_env import Game
from evenstar_env.engine.constants import H_DECK, H_DONE

DIE_FOR_OUTCOME = {1: 1, 2: 3, 3: 4, 4: 6}
FUSSR = ("Baltic States", "Belarus", "Ukraine", "Moldova", "Russia", "Georgia/Azerbaijan",
         "Armenia", "Central Asia")


def base_game() -> Game:
    return history_base_game(diplomacy=3)


# Each case: (card id, outcome, setup {country: influence}, picks, chooser, expected).
CASES = [
    # ----------------------------------------------------------- turn-1 cards
    ("southern_tour", 1, {}, (), None, {"reserves_china": 1}),
    ("southern_tour", 2, {}, (), None, {"economy_china": 7}),
    ("southern_tour", 3, {}, (), None, {"economy_china": 7, "reserves_china": 2}),
    ("southern_tour", 4, {}, (), None,
     {"economy_china": 7, "social_china": 7, "reserves_china": 2}),
    ("rebuilding_european_order", 1, "reo", ("Poland", "Hungary"), "usa",
     {"Poland": {"usa": 1}, "Hungary": {"usa": 1}}),
    ("rebuilding_european_order", 2, "reo", ("Poland", "Hungary", "Romania"), "usa",
     {"Poland": {"usa": 1}, "Hungary": {"usa": 1}, "Romania": {"usa": 1}}),
    ("rebuilding_european_order", 3, "reo", ("Poland", "Hungary", "Romania", "Bulgaria"), "usa",
     {"Poland": {"usa": 1}, "Hungary": {"usa": 1}, "Romania": {"usa": 1},
      "Bulgaria": {"usa": 1}}),
    ("rebuilding_european_order", 4, "reo", ("Poland", "Poland", "Hungary", "Baltic States"),
     "usa", {"Poland": {"usa": 2}, "Hungary": {"usa": 1}, "Baltic States": {"usa": 1},
             "vp_usa": 1}),
    # ----------------------------------------------------------- US deck
    ("madrid_peace_conference", 1, {"Syria": {}}, (), None, {"Syria": {"anti_us": 1}}),
    ("madrid_peace_conference", 2, {"Jordan": {}}, (), None, {"Jordan": {"usa": 1}}),
    ("madrid_peace_conference", 3, "me", ("Israel", "Jordan"), "usa",
     {"Israel": {"usa": 1}, "Jordan": {"usa": 1}}),
    ("madrid_peace_conference", 4, "me", ("Israel", "Jordan", "Egypt"), "usa",
     {"Israel": {"usa": 1}, "Jordan": {"usa": 1}, "Egypt": {"usa": 1},
      "Syria": {"anti_us": 1}}),
    ("partnership_for_peace", 1, {"Baltic States": {"usa": 2}}, (), None,
     {"Baltic States": {"usa": 1}}),
    ("partnership_for_peace", 2, "pfp", ("Ukraine", "Belarus"), "usa",
     {"Ukraine": {"usa": 1}, "Belarus": {"usa": 1}}),
    ("partnership_for_peace", 3, "pfp", ("Ukraine", "Belarus", "Moldova"), "usa",
     {"Ukraine": {"usa": 1}, "Belarus": {"usa": 1}, "Moldova": {"usa": 1}}),
    ("partnership_for_peace", 4, "pfp", ("Ukraine", "Belarus", "Moldova", "Armenia"), "usa",
     {"Ukraine": {"usa": 1}, "Belarus": {"usa": 1}, "Moldova": {"usa": 1},
      "Armenia": {"usa": 1}}),
    ("information_superhighway", 1, {}, (), None, {"reserves_usa": -1}),
    ("information_superhighway", 2, {}, (), None, {"reserves_usa": 1}),
    ("information_superhighway", 3, {}, (), None, {"tech_usa": 1, "vp_usa": 1}),
    ("information_superhighway", 4, {}, (), None,
     {"tech_usa": 1, "vp_usa": 1, "reserves_usa": 2}),
    ("budget_surplus", 1, {}, (), None, {"social_usa": 7}),
    ("budget_surplus", 2, {}, (), None, {"reserves_usa": 2}),
    ("budget_surplus", 3, {}, (), None, {"economy_usa": 9}),
    ("budget_surplus", 4, {}, (), None, {"economy_usa": 9, "reserves_usa": 2}),
    ("plan_colombia", 1, {"Colombia": {}}, (), None, {"Colombia": {"anti_us": 1}}),
    ("plan_colombia", 2, {"Colombia": {}}, (), None, {"Colombia": {"usa": 1}}),
    ("plan_colombia", 3, {"Colombia": {}}, (), None, {"Colombia": {"usa": 2}}),
    ("plan_colombia", 4, "colombia", ("Peru", "Panama"), "usa",
     {"Colombia": {"usa": 2}, "Peru": {"usa": 1}, "Panama": {"usa": 1}}),
    ("freedom_support_act", 1, {"Russia": {}}, (), None, {"Russia": {"anti_us": 1}}),
    ("freedom_support_act", 2, {"Russia": {}}, (), None, {"Russia": {"usa": 1}}),
    ("freedom_support_act", 3, {"Russia": {}, "Ukraine": {}}, (), None,
     {"Russia": {"usa": 2}, "Ukraine": {"usa": 1}}),
    ("freedom_support_act", 4, {"Russia": {}, "Ukraine": {}}, (), None,
     {"Russia": {"usa": 2}, "Ukraine": {"usa": 2}}),
    # ----------------------------------------------------------- China deck
    ("pudong_development", 1, {}, (), None, {"reserves_china": -1}),
    ("pudong_development", 2, {}, (), None, {"reserves_china": 1,
                                             "Singapore": {"usa": 1, "china": 1}}),
    ("pudong_development", 3, {}, (), None, {"economy_china": 7}),
    ("pudong_development", 4, {}, (), None, {"economy_china": 7, "reserves_china": 2}),
    ("sino_vietnamese_normalization", 1, {"Vietnam": {"china": 2}}, (), None,
     {"Vietnam": {"china": 1}}),
    ("sino_vietnamese_normalization", 2, {"Vietnam": {}}, (), None, {"Vietnam": {"china": 1}}),
    ("sino_vietnamese_normalization", 3, {"Vietnam": {}, "Laos/Cambodia": {}}, (), None,
     {"Vietnam": {"china": 1}, "Laos/Cambodia": {"china": 1}}),
    ("sino_vietnamese_normalization", 4, {"Vietnam": {}, "Laos/Cambodia": {}}, (), None,
     {"Vietnam": {"china": 2}, "Laos/Cambodia": {"china": 1}}),
    ("china_south_korea_relations", 1, {"North Korea": {"china": 4}}, (), None,
     {"North Korea": {"china": 3}}),
    ("china_south_korea_relations", 2, {"South Korea": {"usa": 3}}, (), None,
     {"South Korea": {"usa": 3, "china": 1}}),
    ("china_south_korea_relations", 3, {"South Korea": {"usa": 3}}, (), None,
     {"South Korea": {"usa": 3, "china": 2}}),
    ("china_south_korea_relations", 4, {"South Korea": {"usa": 3}}, (), None,
     {"South Korea": {"usa": 2, "china": 2}}),
    ("yangtze_floods_1998", 1, {}, (), None, {"social_china": 5}),
    ("yangtze_floods_1998", 2, {}, (), None, {"reserves_china": -1}),
    ("yangtze_floods_1998", 3, {}, (), None, {"vp_china": 1}),
    ("yangtze_floods_1998", 4, {}, (), None, {"social_china": 7}),
    ("jiang_africa_tour", 1, "africa", ("Kenya",), "china", {"Kenya": {"china": 1}}),
    ("jiang_africa_tour", 2, "africa", ("Kenya", "Nigeria"), "china",
     {"Kenya": {"china": 1}, "Nigeria": {"china": 1}}),
    ("jiang_africa_tour", 3, "africa", ("Kenya", "Nigeria", "Angola"), "china",
     {"Kenya": {"china": 1}, "Nigeria": {"china": 1}, "Angola": {"china": 1}}),
    ("jiang_africa_tour", 4, "africa", ("Kenya", "Nigeria", "Angola", "Algeria"), "china",
     {"Kenya": {"china": 1}, "Nigeria": {"china": 1}, "Angola": {"china": 1},
      "Algeria": {"china": 1}}),
    ("tax_sharing_reform", 1, {}, (), None, {"reserves_china": -1}),
    ("tax_sharing_reform", 2, {}, (), None, {"reserves_china": 1}),
    ("tax_sharing_reform", 3, {}, (), None, {"reserves_china": 3}),
    ("tax_sharing_reform", 4, {}, (), None, {"reserves_china": 3, "economy_china": 7}),
]

REO = ("Poland", "Czechia/Slovakia", "Hungary", "Romania", "Bulgaria", "Baltic States")
PFP = ("Baltic States", "Ukraine", "Moldova", "Georgia/Azerbaijan", "Armenia", "Belarus",
       "Central Asia")


def setup(g: Game, spec) -> set[str] | None:
    """Apply a case's setup; for named group setups return the countries one may pick."""
    if isinstance(spec, dict):
        for c, inf in spec.items():
            g.set_influence(c, **inf)
        return None
    if spec == "reo":
        clear(g, *REO)
        return set(REO)
    if spec == "pfp":
        clear(g, *PFP)
        return set(PFP)
    if spec == "me":
        wipe_region(g, "Middle East")
        g.set_influence("Syria", anti_us=2)
        return countries_of("Middle East")
    if spec == "colombia":
        clear(g, "Colombia", "Ecuador", "Peru", "Bolivia", "Panama")
        return {"Ecuador", "Peru", "Bolivia", "Panama"}
    if spec == "africa":
        wipe_region(g, "Africa")
        return countries_of("Africa")
    raise AssertionError(spec)


def test_every_early_history_card_has_cases_for_all_four_outcomes() -> None:
    ids = {h.id for h in Game(0).content.history if h.era == "early"} - {"putin_takes_office"}
    assert {(c[0], c[1]) for c in CASES} == {(i, k) for i in ids for k in (1, 2, 3, 4)}


@pytest.mark.parametrize("hist_id, outcome, spec, picks, chooser, expected", CASES,
                         ids=[f"{c[0]}-outcome{c[1]}" for c in CASES])
def test_history_outcome(hist_id, outcome, spec, picks, chooser, expected) -> None:
    g = base_game()
    pool = setup(g, spec)
    if pool is not None and picks:
        g2 = g.clone()
        g2.force_dice([DIE_FOR_OUTCOME[outcome]])
        run_history(g2, hist_id)
        assert legal_countries(g2) == pool
    assert resolve(g, hist_id, DIE_FOR_OUTCOME[outcome], picks, chooser) == expected


@pytest.mark.parametrize("die, outcome", [(1, 1), (2, 2), (3, 2), (4, 3), (5, 3), (6, 4)])
def test_history_roll_bands(die, outcome) -> None:
    """Die -> outcome: <= 1, 2-3, 4-5, >= 6 (R16), on a card with four distinct outcomes."""
    g = base_game()
    expected = {1: {"social_usa": 7}, 2: {"reserves_usa": 2}, 3: {"economy_usa": 9},
                4: {"economy_usa": 9, "reserves_usa": 2}}[outcome]
    assert resolve(g, "budget_surplus", die) == expected


def test_rebuilding_european_order_best_outcome_at_most_two_per_country() -> None:
    g = base_game()
    clear(g, *REO)
    g.force_dice([6])
    run_history(g, "rebuilding_european_order")
    do(g, "country", "Poland")
    do(g, "country", "Poland")
    assert "Poland" not in legal_countries(g)


# ------------------------------------------------------------------ modifiers (R16)


@pytest.mark.parametrize("us_mod, cn_mod, die, expected", [
    ("plus2", "zero", 4, {"economy_usa": 9}),  # 6: outcome 4 (+2 reserves, paid 2)
    ("plus2", "counter", 4, {"economy_usa": 9, "reserves_usa": -2, "reserves_china": -1}),
    ("zero", "minus2", 3, {"social_usa": 7, "reserves_china": -2}),    # 1: outcome 1
    ("counter", "minus2", 3, {"reserves_usa": 1, "reserves_china": -2}),  # 3: outcome 2
    ("plus1", "minus1", 5, {"economy_usa": 9, "reserves_usa": -1, "reserves_china": -1}),
    ("counter", "counter", 6, {"economy_usa": 9, "reserves_usa": 1, "reserves_china": -1}),
    ("minus1", "zero", 2, {"social_usa": 7, "reserves_usa": -1}),      # 1: outcome 1
])
def test_history_modifiers_change_the_roll_and_are_paid(us_mod, cn_mod, die, expected) -> None:
    g = base_game()
    assert resolve_with_modifiers(g, "budget_surplus", die, us_mod, cn_mod) == expected
    assert g.decision.kind == "card" and g.decision.player == "usa"


def test_modifier_cards_need_reserves() -> None:
    g = base_game()
    g.set_reserves("usa", 1)
    g.force_dice([3])
    run_history(g, "budget_surplus", mods=True)
    legal = set(g.decision.legal)
    assert g.action_id("mod", "plus2") not in legal and g.action_id("mod", "plus1") in legal


# ------------------------------------------------------------------ real phase D


def test_phase_d_of_turn_2_resolves_the_drawn_cards_us_first() -> None:
    g = quiet_round("usa")
    c = g.content
    keep = ("plan_colombia", "yangtze_floods_1998")
    for i, h in enumerate(c.history):
        if h.era == "early" and h.special is None:  # only these two left in the decks
            g.state.hist_loc[i] = H_DECK if h.id in keep else H_DONE
    clear(g, "Colombia", "Ecuador", "Peru", "Bolivia", "Panama")
    g.set_track("social_china", 6)
    empty_hands_to_next_turn(g, "modifier", "usa")
    assert g.turn == 2
    assert g.decision.context["history"] == c.hist_by_id["plan_colombia"]
    g.force_dice([6, 1])
    social_china = g.track("social_china")
    do(g, "mod", "zero")
    do(g, "mod", "zero")
    assert g.decision.kind == "influence" and g.decision.player == "usa"
    do(g, "country", "Peru")
    do(g, "country", "Bolivia")
    assert g.decision.kind == "modifier"
    assert g.decision.context["history"] == c.hist_by_id["yangtze_floods_1998"]
    do(g, "mod", "zero")
    do(g, "mod", "zero")
    assert g.influence("Colombia")["usa"] == 2
    assert g.influence("Peru")["usa"] == 1 and g.influence("Bolivia")["usa"] == 1
    assert g.track("social_china") == social_china - 1
    for h in ("plan_colombia", "yangtze_floods_1998"):
        assert g.state.hist_loc[c.hist_by_id[h]] == H_DONE


def test_turn_1_named_history_cards_resolve_first_without_modifiers() -> None:
    g = Game(7, log=True)
    lines = [x for x in g.log if "history event:" in x]
    assert lines[0].endswith("Southern Tour (China)")
    assert lines[1].endswith("Rebuilding the European Order (US)")
    assert g.state.hist_loc[g.content.hist_by_id["southern_tour"]] == H_DONE
    assert g.state.hist_loc[g.content.hist_by_id["rebuilding_european_order"]] == H_DONE
    # then one normal card each, US first, with modifier cards
    while g.decision.kind != "modifier":
        g.step(int(g.legal_actions()[0]))  # the Rebuilding outcome's US placements
    h = g.content.history[g.decision.context["history"]]
    assert (h.side, h.special, g.decision.player) == ("usa", None, "usa")
    do(g, "mod", "zero")
    do(g, "mod", "zero")
    while g.decision.kind != "modifier":
        g.step(int(g.legal_actions()[0]))
    h = g.content.history[g.decision.context["history"]]
    assert (h.side, h.special) == ("china", None)


# ------------------------------------------------------------------ Putin (8.1.4)


@pytest.mark.parametrize("die", [1, 2, 3, 4, 5, 6])
def test_putin_becomes_president_all_outcomes(die) -> None:
    g = base_game()
    wipe_region(g, "Former USSR")
    g.set_influence("Ukraine", usa=3)        # US-controlled (stab 3)
    g.set_influence("Baltic States", usa=1)  # not US-controlled
    if die == 1:
        expected = {"Russia": {"usa": 3}}
    elif die <= 3:
        expected = {}
    elif die <= 5:
        expected = {"Russia": {"china": 3}}
    else:
        expected = {c: {"china": 2} for c in FUSSR if c != "Ukraine"}
        expected["Russia"] = {"china": 5}  # 3, then 2 as a Former USSR country
        expected["Baltic States"] = {"usa": 1, "china": 2}
    assert resolve(g, "putin_takes_office", die) == expected


@pytest.mark.parametrize("die, russia", [(1, {"usa": 4}), (2, {"usa": 1}),
                                         (5, {"usa": 1, "china": 3}),
                                         (6, {"usa": 1, "china": 5})])
def test_putin_resolves_from_the_russia_track_without_modifiers(die, russia) -> None:
    g = base_game()
    wipe_region(g, "Former USSR")
    g.set_track("russia", 4)
    g.set_hand("usa", ["Yeltsin's Reforms", "Comprehensive Test Ban Treaty"])
    g.force_dice([die])
    play(g, "Yeltsin's Reforms", "event")  # Russia track box 5, then +1 US in Russia
    assert g.decision.kind != "modifier"
    assert g.track("russia") == 5
    assert g.influence("Russia") == {"usa": 0, "china": 0, "anti_us": 0, **russia}
    assert g.state.hist_loc[g.content.hist_by_id["putin_takes_office"]] == H_DONE
