"""Behaviour of every early base card (data/cards_early.toml) and every scoring card
(data/scoring.toml), checked against the card's own text.

Each test plays the card in an action round of a quiet game (tests/helpers.py:
`quiet_round`), after setting the influence and tracks the event depends on, and
asserts the exact change of the board (`changes`: influence after, tracks after,
VP / reserve deltas), the card's location and any ongoing effect.  Test names carry
the card id.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import (
    answer,
    board_after_event,
    changes,
    clear,
    countries_of,
    do,
    empty_hands_to_next_turn,
    legal_countries,
    legal_modes,
    ops_shown,
    play,
    play_option,
    quiet_advance,
    quiet_round,
    snapshot,
    wipe_region,
)

from evenstar_env import Game
from evenstar_env.engine.constants import DISCARD, DRAW, IN_PLAY, LOC_NAMES, REMOVED

OTHER = {"usa": "china", "china": "usa"}
FILLER = "Comprehensive Test Ban Treaty"  # a second card, so that the hand is never empty


# ------------------------------------------------------------------ helpers


def card_index(g: Game, name: str) -> int:
    return g.content.card_by_name[name]


def loc(g: Game, name: str) -> str:
    return LOC_NAMES[int(g.state.card_loc[card_index(g, name)])]


def start(side: str, card: str, turn: int = 1, filler: str = FILLER) -> Game:
    """A quiet game at `side`'s card choice, with `card` (and a filler) in hand."""
    g = quiet_round(side, turn)
    g.set_hand(side, [card, filler])
    return g


# ====================================================================== USA


def test_nafta_event_adds_mexico_and_canada_and_stays_in_play() -> None:
    g = start("usa", "NAFTA")
    clear(g, "Mexico", "Canada")
    assert board_after_event(g, "NAFTA") == {"Mexico": {"usa": 1}, "Canada": {"usa": 1}}
    assert loc(g, "NAFTA") == LOC_NAMES[IN_PLAY]


def test_nafta_in_play_gives_the_us_one_reserve_in_the_economy_phase() -> None:
    g = start("usa", "NAFTA")
    play(g, "NAFTA", "event")
    g.set_track("economy_usa", 8)  # income 4 (9.2)
    control = g.clone()
    control.state.card_loc[card_index(control, "NAFTA")] = DISCARD  # same game, NAFTA not in play
    control.set_reserves("usa", control.reserves["usa"])  # re-ask the pending decision
    res = g.reserves["usa"]
    for h in (g, control):
        empty_hands_to_next_turn(h, "modifier", "usa")  # turn 2, phase D: after phase H
    assert g.reserves["usa"] == res + 4 + 1
    assert control.reserves["usa"] == res + 4
    assert g.reserves["china"] == control.reserves["china"]
    assert loc(g, "NAFTA") == LOC_NAMES[IN_PLAY]


MAASTRICHT = ["United Kingdom", "Benelux", "France", "Germany", "Spain/Portugal", "Italy",
              "Greece", "Scandinavia", "Austria/Switzerland"]


def test_maastricht_treaty_adds_five_us_at_most_one_per_listed_country() -> None:
    g = start("usa", "Maastricht Treaty")
    clear(g, *MAASTRICHT)
    before = snapshot(g)
    play(g, "Maastricht Treaty", "event")
    assert g.decision.kind == "influence" and g.decision.player == "usa"
    assert legal_countries(g) == set(MAASTRICHT)
    answer(g, "United Kingdom")
    assert legal_countries(g) == set(MAASTRICHT) - {"United Kingdom"}
    answer(g, "Benelux", "France", "Greece", "Italy")
    assert changes(g, before) == {c: {"usa": 1} for c in
                                  ("United Kingdom", "Benelux", "France", "Greece", "Italy")}
    assert loc(g, "Maastricht Treaty") == LOC_NAMES[REMOVED]


def test_dayton_agreement_adds_two_us_in_croatia_and_reduces_serbia_au() -> None:
    g = start("usa", "Dayton Agreement")
    clear(g, "Croatia/Bosnia")
    g.set_influence("Serbia", anti_us=2)
    assert board_after_event(g, "Dayton Agreement") == {
        "Croatia/Bosnia": {"usa": 2}, "Serbia": {"anti_us": 1}}
    assert loc(g, "Dayton Agreement") == LOC_NAMES[REMOVED]


def test_nato_enlargement_event_adds_two_us_in_each_and_advances_russia() -> None:
    g = start("usa", "NATO Enlargement")
    clear(g, "Poland", "Czechia/Slovakia", "Hungary", "Russia")
    g.set_track("russia", 0)
    assert board_after_event(g, "NATO Enlargement") == {
        "Poland": {"usa": 2}, "Czechia/Slovakia": {"usa": 2}, "Hungary": {"usa": 2},
        "Russia": {"usa": 1},  # Russia track box 1, Privatization
        "russia": 1}
    assert loc(g, "NATO Enlargement") == LOC_NAMES[REMOVED]


def test_nato_enlargement_for_ops_still_advances_the_russia_track() -> None:
    g = start("usa", "NATO Enlargement")
    clear(g, "Canada", "Russia")
    g.set_track("russia", 0)
    before = snapshot(g)
    play(g, "NATO Enlargement", "place")
    answer(g, "Canada", "Canada", "Canada", "Canada")
    assert changes(g, before) == {"Canada": {"usa": 4}, "Russia": {"usa": 1}, "russia": 1}
    assert loc(g, "NATO Enlargement") == LOC_NAMES[DISCARD]  # no event: not removed


def test_nato_enlargement_played_by_china_fires_the_us_event_then_the_russia_step() -> None:
    g = start("china", "NATO Enlargement")
    clear(g, "Poland", "Czechia/Slovakia", "Hungary", "Russia", "Mongolia")
    g.set_track("russia", 0)
    before = snapshot(g)
    play(g, "NATO Enlargement", "place")
    assert g.decision.kind == "order"
    do(g, "order", "event_first")
    answer(g, "Mongolia", "Mongolia", "Mongolia", "Mongolia")
    assert changes(g, before) == {
        "Poland": {"usa": 2}, "Czechia/Slovakia": {"usa": 2}, "Hungary": {"usa": 2},
        "Mongolia": {"china": 4}, "Russia": {"usa": 1}, "russia": 1}
    assert loc(g, "NATO Enlargement") == LOC_NAMES[REMOVED]


def test_nato_bombing_of_yugoslavia_clears_serbia_au_adds_us_lowers_security() -> None:
    g = start("usa", "NATO Bombing of Yugoslavia")
    g.set_influence("Serbia", anti_us=2)
    clear(g, "Russia")
    g.set_track("russia", 0)
    g.set_track("regional_security", 3)
    assert board_after_event(g, "NATO Bombing of Yugoslavia") == {
        "Serbia": {"usa": 1}, "regional_security": 2,
        "Russia": {"usa": 1}, "russia": 1}  # Russia card: track box 1, Privatization
    assert loc(g, "NATO Bombing of Yugoslavia") == LOC_NAMES[REMOVED]


def test_clinton_doctrine_two_two_ops_actions_in_europe_or_africa() -> None:
    g = start("usa", "Clinton Doctrine")
    clear(g, "United Kingdom")
    g.set_influence("Serbia", anti_us=2)
    g.set_track("regional_security", 3)
    g.set_track("diplomacy", 3)
    before = snapshot(g)
    play(g, "Clinton Doctrine", "event")
    assert g.decision.kind == "granted" and g.decision.context["ops"] == 2
    assert set(g.decision.legal) == {g.action_id("mode", "place"), g.action_id("mode", "realign")}
    do(g, "mode", "place")
    allowed = countries_of("Europe") | countries_of("Africa")
    assert legal_countries(g) <= allowed
    assert "Japan" not in legal_countries(g) and "Mexico" not in legal_countries(g)
    answer(g, "United Kingdom", "United Kingdom")
    assert g.decision.kind == "granted"
    do(g, "mode", "realign")
    assert legal_countries(g) <= allowed and "Serbia" in legal_countries(g)
    assert "Iran" not in legal_countries(g)
    g.force_dice([6])  # 2 + 6 - (2 + 2) = 4: remove 2 AU, add 2 US
    answer(g, "Serbia")
    assert changes(g, before) == {"United Kingdom": {"usa": 2}, "Serbia": {"usa": 2}}
    assert loc(g, "Clinton Doctrine") == LOC_NAMES[DISCARD]


def test_dot_com_boom_advances_us_tech_with_its_box_and_economy() -> None:
    g = start("usa", "Dot-com Boom")
    g.set_track("tech_usa", 0)
    g.set_track("economy_usa", 8)
    assert board_after_event(g, "Dot-com Boom") == {
        "tech_usa": 1, "vp_usa": 1,  # box 1, Internet Age: US +1 VP
        "economy_usa": 9}
    assert loc(g, "Dot-com Boom") == LOC_NAMES[REMOVED]


@pytest.mark.parametrize("reserves, lost", [(3, 1), (0, 0)])
def test_mfn_human_rights_linkage_costs_china_a_reserve_and_stays(reserves, lost) -> None:
    g = start("usa", "MFN–Human Rights Linkage")
    g.set_reserves("china", reserves)
    changed = board_after_event(g, "MFN–Human Rights Linkage")
    assert changed == ({"reserves_china": -lost} if lost else {})  # never below 0 (R11)
    assert loc(g, "MFN–Human Rights Linkage") == LOC_NAMES[IN_PLAY]


def test_mfn_human_rights_linkage_lowers_china_ops_by_one_minimum_one() -> None:
    g = start("usa", "MFN–Human Rights Linkage")
    play(g, "MFN–Human Rights Linkage", "event")
    quiet_advance(g, "card", "china")
    g.set_hand("china", ["Asian Financial Crisis", "Socialist Market Economy",
                         "Exchange Rate Unification"])
    assert ops_shown(g, "Asian Financial Crisis") == 3
    assert ops_shown(g, "Socialist Market Economy") == 2
    assert ops_shown(g, "Exchange Rate Unification") == 1
    quiet_advance(g, "card", "usa")
    g.set_hand("usa", ["Dot-com Boom", FILLER])
    assert ops_shown(g, "Dot-com Boom") == 4  # US cards are not affected


def test_cox_report_china_discards_one_card_at_random() -> None:
    g = start("usa", "Cox Report")
    china = ["Asian Financial Crisis", "Project 211", "Chávez Elected"]
    g.set_hand("china", china)
    assert board_after_event(g, "Cox Report") == {}
    left = g.hand("china")
    assert len(left) == 2 and set(left) < set(china)
    (gone,) = set(china) - set(left)
    assert loc(g, gone) == LOC_NAMES[DISCARD]
    assert not g.state.event_played[card_index(g, gone)]  # 5.4: no event
    assert loc(g, "Cox Report") == LOC_NAMES[DISCARD]


def test_us_japan_defense_guidelines_add_two_us_and_make_japan_non_realignable() -> None:
    g = start("usa", "US–Japan Defense Guidelines")
    clear(g, "Japan")
    assert board_after_event(g, "US–Japan Defense Guidelines") == {"Japan": {"usa": 2}}
    assert loc(g, "US–Japan Defense Guidelines") == LOC_NAMES[REMOVED]
    quiet_advance(g, "card", "china")
    g.set_hand("china", ["Project 211", "Socialist Market Economy"])
    play(g, "Project 211", "realign")
    targets = legal_countries(g)
    assert "Japan" not in targets and "South Korea" in targets


def test_lee_teng_hui_visit_adds_two_us_in_taiwan() -> None:
    g = start("usa", "Lee Teng-hui's Cornell Visit")
    clear(g, "Taiwan")
    assert board_after_event(g, "Lee Teng-hui's Cornell Visit") == {"Taiwan": {"usa": 2}}
    assert loc(g, "Lee Teng-hui's Cornell Visit") == LOC_NAMES[REMOVED]


def test_lee_teng_hui_visit_is_no_event_while_three_noes_is_in_play() -> None:
    g = start("china", "Clinton's Three Noes")
    play(g, "Clinton's Three Noes", "event")
    quiet_advance(g, "card", "usa")
    g.set_hand("usa", ["Lee Teng-hui's Cornell Visit", FILLER])
    assert "event" not in legal_modes(g, "Lee Teng-hui's Cornell Visit")
    assert "place" in legal_modes(g, "Lee Teng-hui's Cornell Visit")


def test_operation_uphold_democracy_adds_two_us_in_haiti() -> None:
    g = start("usa", "Operation Uphold Democracy")
    clear(g, "Haiti/Dominican Republic")
    assert board_after_event(g, "Operation Uphold Democracy") == {
        "Haiti/Dominican Republic": {"usa": 2}}
    assert loc(g, "Operation Uphold Democracy") == LOC_NAMES[REMOVED]


@pytest.mark.parametrize("die, controlled, mexico, vp", [
    (4, 0, 1, 0), (1, 3, 1, 0),   # <= 4
    (5, 0, 2, 0), (2, 3, 2, 0), (4, 3, 2, 0),   # 5-7
    (5, 3, 2, 1), (6, 2, 2, 1), (6, 3, 2, 1),   # >= 8
])
def test_mexican_peso_bailout_roll_plus_us_controlled_latin_america(die, controlled, mexico,
                                                                     vp) -> None:
    g = start("usa", "Mexican Peso Bailout")
    wipe_region(g, "Latin America")
    for c in ("Brazil", "Argentina", "Colombia")[:controlled]:
        g.set_influence(c, usa=2)  # stab 2: US-controlled
    g.set_reserves("usa", 3)
    g.force_dice([die])
    expected = {"Mexico": {"usa": mexico}, "reserves_usa": -1}
    if vp:
        expected["vp_usa"] = vp
    assert board_after_event(g, "Mexican Peso Bailout") == expected
    assert loc(g, "Mexican Peso Bailout") == LOC_NAMES[DISCARD]


def test_dual_containment_reduces_iraq_and_iran_au_and_adds_gulf_states() -> None:
    g = start("usa", "Dual Containment")
    g.set_influence("Iraq", anti_us=3)
    g.set_influence("Iran", anti_us=3, china=1)
    clear(g, "Gulf States")
    assert board_after_event(g, "Dual Containment") == {
        "Iraq": {"anti_us": 1}, "Iran": {"anti_us": 2, "china": 1}, "Gulf States": {"usa": 1}}
    assert loc(g, "Dual Containment") == LOC_NAMES[DISCARD]


# ==================================================================== CHINA


def test_hong_kong_handover_is_no_event_in_turn_1() -> None:
    g = start("china", "Hong Kong Handover")
    assert "event" not in legal_modes(g, "Hong Kong Handover")


def test_hong_kong_handover_from_turn_2_social_and_two_vp() -> None:
    g = start("china", "Hong Kong Handover", turn=2)
    g.set_track("social_china", 6)
    assert board_after_event(g, "Hong Kong Handover") == {"social_china": 7, "vp_china": 2}
    assert loc(g, "Hong Kong Handover") == LOC_NAMES[REMOVED]


def test_socialist_market_economy_economy_and_one_reserve() -> None:
    g = start("china", "Socialist Market Economy")
    g.set_track("economy_china", 6)
    assert board_after_event(g, "Socialist Market Economy") == {
        "economy_china": 7, "reserves_china": 1}
    assert loc(g, "Socialist Market Economy") == LOC_NAMES[REMOVED]


@pytest.mark.parametrize("option, expected", [
    (0, {"economy_china": 7, "social_china": 5}),
    (1, {"reserves_china": 2}),
])
def test_soe_reform_china_chooses_restructure_or_reserves(option, expected) -> None:
    g = start("china", "State-Owned Enterprise Reform")
    g.set_track("economy_china", 6)
    g.set_track("social_china", 6)
    before = snapshot(g)
    play_option(g, "State-Owned Enterprise Reform", "china", option)
    assert changes(g, before) == expected
    assert loc(g, "State-Owned Enterprise Reform") == LOC_NAMES[DISCARD]


def test_exchange_rate_unification_two_reserves() -> None:
    g = start("china", "Exchange Rate Unification")
    assert board_after_event(g, "Exchange Rate Unification") == {"reserves_china": 2}
    assert loc(g, "Exchange Rate Unification") == LOC_NAMES[REMOVED]


def test_project_211_china_social_and_two_reserves() -> None:
    """Distinct from Shenzhou 5 (issue 19): the universities programme builds society."""
    g = start("china", "Project 211")
    g.set_track("tech_china", 0)
    g.set_track("social_china", 6)
    assert board_after_event(g, "Project 211") == {"social_china": 7, "reserves_china": 2}
    assert loc(g, "Project 211") == LOC_NAMES[REMOVED]


def test_belgrade_embassy_bombing_needs_nato_bombing_first() -> None:
    g = start("china", "Belgrade Embassy Bombing")
    assert "event" not in legal_modes(g, "Belgrade Embassy Bombing")


def test_belgrade_embassy_bombing_after_nato_bombing_adds_au_and_vp() -> None:
    g = start("usa", "NATO Bombing of Yugoslavia")
    play(g, "NATO Bombing of Yugoslavia", "event")
    quiet_advance(g, "card", "china")
    g.set_hand("china", ["Belgrade Embassy Bombing", FILLER])
    clear(g, "Serbia")
    assert "event" in legal_modes(g, "Belgrade Embassy Bombing")
    assert board_after_event(g, "Belgrade Embassy Bombing") == {
        "Serbia": {"anti_us": 2}, "vp_china": 1}
    assert loc(g, "Belgrade Embassy Bombing") == LOC_NAMES[REMOVED]


def test_shanghai_five_adds_cn_and_makes_central_asia_non_realignable() -> None:
    g = start("china", "Shanghai Five")
    clear(g, "Central Asia", "Russia")
    assert board_after_event(g, "Shanghai Five") == {
        "Central Asia": {"china": 2}, "Russia": {"china": 1}}
    assert loc(g, "Shanghai Five") == LOC_NAMES[REMOVED]
    quiet_advance(g, "card", "usa")
    g.set_hand("usa", ["Dot-com Boom", FILLER])
    play(g, "Dot-com Boom", "realign")
    targets = legal_countries(g)
    assert "Central Asia" not in targets and "Russia" in targets


CSTO_COUNTRIES = ("Russia", "Belarus", "Armenia", "Central Asia")


def test_csto_event_adds_au_in_four_countries_and_advances_russia() -> None:
    g = start("china", "Collective Security Treaty")
    wipe_region(g, "Former USSR")  # box 3 (reduce US in Former USSR) then finds no US
    g.set_track("russia", 2)
    assert board_after_event(g, "Collective Security Treaty") == {
        **{c: {"anti_us": 1} for c in CSTO_COUNTRIES}, "russia": 3}
    assert loc(g, "Collective Security Treaty") == LOC_NAMES[REMOVED]


def test_csto_for_ops_advances_russia_track() -> None:
    g = start("china", "Collective Security Treaty")
    wipe_region(g, "Former USSR")
    clear(g, "Mongolia")
    g.set_track("russia", 2)
    before = snapshot(g)
    play(g, "Collective Security Treaty", "place")
    answer(g, "Mongolia", "Mongolia", "Mongolia")
    assert changes(g, before) == {"Mongolia": {"china": 3}, "russia": 3}
    assert loc(g, "Collective Security Treaty") == LOC_NAMES[DISCARD]


AFC = ["Thailand", "Indonesia", "Malaysia", "Philippines", "Singapore", "South Korea"]


def test_asian_financial_crisis_reduces_four_us_at_most_one_per_country() -> None:
    g = start("china", "Asian Financial Crisis")
    for c, us in zip(AFC, (1, 1, 1, 2, 1, 3), strict=True):
        g.set_influence(c, usa=us)
    before = snapshot(g)
    play(g, "Asian Financial Crisis", "event")
    assert g.decision.kind == "influence" and g.decision.player == "china"
    assert legal_countries(g) == set(AFC)
    answer(g, "Thailand")
    assert legal_countries(g) == set(AFC) - {"Thailand"}
    answer(g, "Indonesia", "Philippines", "South Korea")
    assert changes(g, before) == {"Thailand": {}, "Indonesia": {}, "Philippines": {"usa": 1},
                                  "South Korea": {"usa": 2}, "vp_china": 1}
    assert loc(g, "Asian Financial Crisis") == LOC_NAMES[REMOVED]


def test_mfn_delinkage_cancels_linkage_and_gives_two_reserves() -> None:
    g = start("usa", "MFN–Human Rights Linkage")
    play(g, "MFN–Human Rights Linkage", "event")
    quiet_advance(g, "card", "china")
    g.set_hand("china", ["MFN Delinked from Human Rights", "Asian Financial Crisis"])
    assert ops_shown(g, "Asian Financial Crisis") == 3
    assert board_after_event(g, "MFN Delinked from Human Rights") == {"reserves_china": 2}
    assert loc(g, "MFN–Human Rights Linkage") == LOC_NAMES[REMOVED]  # cancelled: leaves the game
    assert loc(g, "MFN Delinked from Human Rights") == LOC_NAMES[DISCARD]
    quiet_advance(g, "card", "china")
    g.set_hand("china", ["Asian Financial Crisis", FILLER])
    assert ops_shown(g, "Asian Financial Crisis") == 4


def test_mfn_delinkage_without_linkage_only_gives_two_reserves() -> None:
    g = start("china", "MFN Delinked from Human Rights")
    linkage = loc(g, "MFN–Human Rights Linkage")
    assert linkage != LOC_NAMES[IN_PLAY]
    assert board_after_event(g, "MFN Delinked from Human Rights") == {"reserves_china": 2}
    assert loc(g, "MFN–Human Rights Linkage") == linkage
    assert loc(g, "MFN Delinked from Human Rights") == LOC_NAMES[DISCARD]


def test_three_noes_diplomacy_taiwan_and_stays_in_play() -> None:
    g = start("china", "Clinton's Three Noes")
    g.set_track("diplomacy", 2)
    g.set_influence("Taiwan", usa=3)
    assert board_after_event(g, "Clinton's Three Noes") == {"diplomacy": 3, "Taiwan": {"usa": 2}}
    assert loc(g, "Clinton's Three Noes") == LOC_NAMES[IN_PLAY]
    quiet_advance(g, "card", "usa")
    g.set_hand("usa", ["Lee Teng-hui's Cornell Visit", FILLER])
    assert "event" not in legal_modes(g, "Lee Teng-hui's Cornell Visit")


def test_sino_russian_partnership_adds_two_cn_in_russia_and_stays() -> None:
    g = start("china", "Sino-Russian Strategic Partnership")
    clear(g, "Russia")
    assert board_after_event(g, "Sino-Russian Strategic Partnership") == {"Russia": {"china": 2}}
    assert loc(g, "Sino-Russian Strategic Partnership") == LOC_NAMES[IN_PLAY]


def test_sino_russian_partnership_adds_one_cn_at_the_start_of_each_turn() -> None:
    g = start("china", "Sino-Russian Strategic Partnership")
    play(g, "Sino-Russian Strategic Partnership", "event")
    clear(g, "Belarus")
    empty_hands_to_next_turn(g, "influence", "china")
    assert g.turn == 2 and g.phase == "improve"  # phase A
    assert legal_countries(g) == {"Russia", "Belarus", "Central Asia"}
    before = snapshot(g)
    answer(g, "Belarus")
    assert changes(g, before) == {"Belarus": {"china": 1}}
    assert g.decision.kind == "modifier"  # phase A done; phase D of turn 2 is next


def test_chavez_elected_removes_all_us_then_adds_two_au_in_venezuela() -> None:
    g = start("china", "Chávez Elected")
    g.set_influence("Venezuela", usa=3, china=1)
    assert board_after_event(g, "Chávez Elected") == {"Venezuela": {"anti_us": 2, "china": 1}}
    assert loc(g, "Chávez Elected") == LOC_NAMES[REMOVED]


def test_going_out_strategy_places_three_ops_in_africa_or_latin_america() -> None:
    g = start("china", "Going Out Strategy")
    g.set_influence("Angola", china=1)
    before = snapshot(g)
    play(g, "Going Out Strategy", "event")
    assert g.decision.kind == "granted" and g.decision.context["ops"] == 3
    assert g.action_id("mode", "realign") not in g.decision.legal
    do(g, "mode", "place")
    allowed = countries_of("Africa") | countries_of("Latin America")
    assert legal_countries(g) <= allowed and "Mongolia" not in legal_countries(g)
    answer(g, "Angola", "Angola", "Angola")
    assert changes(g, before) == {"Angola": {"china": 4}, "reserves_china": 1}
    assert loc(g, "Going Out Strategy") == LOC_NAMES[DISCARD]


def test_going_out_strategy_trade_contest_in_africa() -> None:
    g = start("china", "Going Out Strategy")
    clear(g, "Kenya")
    g.set_track("economy_china", 6)
    g.set_track("economy_usa", 8)
    before = snapshot(g)
    play(g, "Going Out Strategy", "event")
    do(g, "mode", "trade")
    assert legal_countries(g) <= countries_of("Africa") | countries_of("Latin America")
    g.force_dice([6, 1])  # China 6 + 5 = 11 vs US 1 + 7 = 8
    answer(g, "Kenya")
    assert changes(g, before) == {"Kenya": {"china": 3}, "reserves_china": 1}


def test_going_out_strategy_ops_reduced_by_mfn_linkage() -> None:
    g = start("usa", "MFN–Human Rights Linkage")
    play(g, "MFN–Human Rights Linkage", "event")
    quiet_advance(g, "card", "china")
    g.set_hand("china", ["Going Out Strategy", FILLER])
    g.set_influence("Angola", china=1)
    play(g, "Going Out Strategy", "event")
    assert g.decision.context["ops"] == 2  # 7.3.1: also for events that give ops
    do(g, "mode", "place")
    answer(g, "Angola", "Angola")
    assert g.influence("Angola")["china"] == 3


# ================================================================== NEUTRAL


def test_taiwan_strait_crisis_needs_diplomacy_3() -> None:
    g = start("usa", "Taiwan Strait Crisis")
    g.set_track("diplomacy", 2)
    assert "event" not in legal_modes(g, "Taiwan Strait Crisis")


@pytest.mark.parametrize("side", ["usa", "china"])
@pytest.mark.parametrize("die, who, points, vp", [
    (1, "other", 2, 0), (2, "other", 2, 0), (3, "own", 2, 0), (4, "own", 2, 0),
    (5, "own", 3, 1), (6, "own", 3, 1)])
def test_taiwan_strait_crisis_diplomacy_and_roll(side, die, who, points, vp) -> None:
    g = start(side, "Taiwan Strait Crisis")
    g.set_track("diplomacy", 3)
    clear(g, "Taiwan")
    g.force_dice([die])
    gets = side if who == "own" else OTHER[side]
    expected = {"diplomacy": 2, "Taiwan": {gets: points}}
    if vp:
        expected[f"vp_{side}"] = 1
    assert board_after_event(g, "Taiwan Strait Crisis") == expected
    assert loc(g, "Taiwan Strait Crisis") == LOC_NAMES[REMOVED]


@pytest.mark.parametrize("side", ["usa", "china"])
@pytest.mark.parametrize("die", [1, 3, 4, 6])
def test_south_asian_nuclear_tests_security_and_roll(side, die) -> None:
    g = start(side, "South Asian Nuclear Tests")
    clear(g, "Pakistan", "India")
    g.set_track("regional_security", 3)
    g.force_dice([die])
    expected = {"regional_security": 2}
    if die <= 3:
        expected["Pakistan"] = {side: 2}
    else:
        expected["Pakistan"] = {side: 1}
        expected["India"] = {side: 1}
    assert board_after_event(g, "South Asian Nuclear Tests") == expected
    assert loc(g, "South Asian Nuclear Tests") == LOC_NAMES[REMOVED]


@pytest.mark.parametrize("side", ["usa", "china"])
def test_oslo_accords_one_own_in_israel_jordan_egypt(side) -> None:
    g = start(side, "Oslo Accords")
    clear(g, "Israel", "Jordan", "Egypt")
    assert board_after_event(g, "Oslo Accords") == {
        c: {side: 1} for c in ("Israel", "Jordan", "Egypt")}
    assert loc(g, "Oslo Accords") == LOC_NAMES[REMOVED]


@pytest.mark.parametrize("side, russia", [("usa", {"usa": 2}), ("china", {"usa": 1, "china": 1})])
def test_yeltsin_reforms_russia_box_then_own_influence_in_russia(side, russia) -> None:
    g = start(side, "Yeltsin's Reforms")
    clear(g, "Russia")
    g.set_track("russia", 0)
    assert board_after_event(g, "Yeltsin's Reforms") == {"russia": 1, "Russia": russia}
    assert loc(g, "Yeltsin's Reforms") == LOC_NAMES[REMOVED]


@pytest.mark.parametrize("side", ["usa", "china"])
def test_commonwealth_of_independent_states_two_own_in_former_ussr(side) -> None:
    g = start(side, "Commonwealth of Independent States")
    wipe_region(g, "Former USSR")
    before = snapshot(g)
    play(g, "Commonwealth of Independent States", "event")
    assert g.decision.player == side
    assert legal_countries(g) == countries_of("Former USSR")
    answer(g, "Ukraine")
    assert "Ukraine" not in legal_countries(g)
    answer(g, "Belarus")
    assert changes(g, before) == {"Ukraine": {side: 1}, "Belarus": {side: 1}}
    assert loc(g, "Commonwealth of Independent States") == LOC_NAMES[REMOVED]


RWANDA = ["DR Congo", "Tanzania", "Kenya", "Angola", "Zambia/Zimbabwe"]


def test_rwandan_genocide_us_reduces_cn_at_most_one_per_country() -> None:
    g = start("usa", "Rwandan Genocide")
    clear(g, *RWANDA)
    g.set_influence("Tanzania", china=2)
    g.set_influence("Angola", china=1)
    g.set_influence("Kenya", china=1)
    g.set_influence("DR Congo", usa=1)
    g.set_track("regional_security", 3)
    before = snapshot(g)
    play(g, "Rwandan Genocide", "event")
    assert g.decision.player == "usa"
    assert legal_countries(g) == {"Tanzania", "Angola", "Kenya"}
    answer(g, "Tanzania")
    assert legal_countries(g) == {"Angola", "Kenya"}
    answer(g, "Angola")
    assert changes(g, before) == {"regional_security": 2, "Tanzania": {"china": 1},
                                  "Angola": {}}
    assert loc(g, "Rwandan Genocide") == LOC_NAMES[REMOVED]


def test_rwandan_genocide_china_reduces_us() -> None:
    g = start("china", "Rwandan Genocide")
    clear(g, *RWANDA)
    g.set_influence("DR Congo", usa=2)
    g.set_influence("Kenya", usa=1)
    g.set_influence("Tanzania", china=2)
    g.set_track("regional_security", 3)
    before = snapshot(g)
    play(g, "Rwandan Genocide", "event")
    assert g.decision.player == "china"
    assert legal_countries(g) == {"DR Congo", "Kenya"}
    answer(g, "DR Congo")
    assert changes(g, before) == {"regional_security": 2, "DR Congo": {"usa": 1}, "Kenya": {}}


@pytest.mark.parametrize("side", ["usa", "china"])
def test_apec_leaders_meeting_diplomacy_and_one_card(side) -> None:
    g = start(side, "APEC Leaders' Meeting")
    g.set_track("diplomacy", 2)
    drawn_from = set(np.flatnonzero(g.state.card_loc == DRAW))
    assert board_after_event(g, "APEC Leaders' Meeting") == {"diplomacy": 3}
    hand = g.hand(side)
    assert len(hand) == 2 and FILLER in hand
    (new,) = set(hand) - {FILLER}
    assert card_index(g, new) in drawn_from
    assert loc(g, "APEC Leaders' Meeting") == LOC_NAMES[DISCARD]


@pytest.mark.parametrize("side", ["usa", "china"])
def test_apec_leaders_meeting_at_diplomacy_3_adds_one_in_an_apec_member(side) -> None:
    """Issue 19: diplomacy is at 3 nearly always; the event then places influence."""
    g = start(side, "APEC Leaders' Meeting")
    g.set_track("diplomacy", 3)
    clear(g, "Chile")
    before = snapshot(g)
    play(g, "APEC Leaders' Meeting", "event")
    assert legal_countries(g) == {"Japan", "South Korea", "Australia", "New Zealand", "Canada",
                                  "Mexico", "Chile", "Peru", "Russia", "Philippines",
                                  "Vietnam", "Thailand", "Malaysia", "Singapore", "Indonesia"}
    answer(g, "Chile")
    assert changes(g, before) == {"Chile": {side: 1}}
    assert len(g.hand(side)) == 2  # and 1 card drawn


@pytest.mark.parametrize("side", ["usa", "china"])
def test_asean_enlargement_four_own_in_southeast_asia(side) -> None:
    g = start(side, "ASEAN Enlargement")
    wipe_region(g, "Southeast Asia")
    before = snapshot(g)
    play(g, "ASEAN Enlargement", "event")
    assert legal_countries(g) == countries_of("Southeast Asia")
    answer(g, "Vietnam")
    assert "Vietnam" not in legal_countries(g)
    answer(g, "Thailand", "Malaysia", "Indonesia")
    assert changes(g, before) == {c: {side: 1} for c in
                                  ("Vietnam", "Thailand", "Malaysia", "Indonesia")}
    assert loc(g, "ASEAN Enlargement") == LOC_NAMES[REMOVED]


@pytest.mark.parametrize("side, iraq", [("usa", {"anti_us": 2}),  # US removes AU first (R1)
                                        ("china", {"anti_us": 3, "china": 1})])
def test_oil_for_food_one_own_in_iraq_and_jordan(side, iraq) -> None:
    g = start(side, "Oil-for-Food Programme")
    g.set_influence("Iraq", anti_us=3)
    clear(g, "Jordan")
    assert board_after_event(g, "Oil-for-Food Programme") == {"Iraq": iraq,
                                                               "Jordan": {side: 1}}
    assert loc(g, "Oil-for-Food Programme") == LOC_NAMES[REMOVED]  # "*" since issue 19


@pytest.mark.parametrize("side", ["usa", "china"])
def test_end_of_apartheid_two_in_south_africa_then_two_among_four(side) -> None:
    g = start(side, "End of Apartheid")
    four = ["Mozambique", "Zambia/Zimbabwe", "Angola", "Tanzania"]
    clear(g, "South Africa", *four)
    before = snapshot(g)
    play(g, "End of Apartheid", "event")
    assert legal_countries(g) == set(four)  # South Africa was forced (single country)
    answer(g, "Angola")
    assert legal_countries(g) == set(four) - {"Angola"}
    answer(g, "Tanzania")
    assert changes(g, before) == {"South Africa": {side: 2}, "Angola": {side: 1},
                                  "Tanzania": {side: 1}}
    assert loc(g, "End of Apartheid") == LOC_NAMES[REMOVED]


EURO = ["France", "Germany", "Benelux", "Italy", "Spain/Portugal", "Austria/Switzerland"]


@pytest.mark.parametrize("side", ["usa", "china"])
def test_launch_of_the_euro_reserves_option(side) -> None:
    g = start(side, "Launch of the Euro")
    assert board_after_event(g, "Launch of the Euro", ("option", 0)) == {f"reserves_{side}": 3}
    assert loc(g, "Launch of the Euro") == LOC_NAMES[REMOVED]


@pytest.mark.parametrize("side", ["usa", "china"])
def test_launch_of_the_euro_influence_option(side) -> None:
    g = start(side, "Launch of the Euro")
    clear(g, *EURO)
    before = snapshot(g)
    play_option(g, "Launch of the Euro", side, 1)
    assert legal_countries(g) == set(EURO)
    answer(g, "France")
    assert "France" not in legal_countries(g)
    answer(g, "Germany", "Italy")
    assert changes(g, before) == {c: {side: 1} for c in ("France", "Germany", "Italy")}


@pytest.mark.parametrize("side", ["usa", "china"])
def test_wto_negotiations_own_economy_diplomacy_opponent_reserve(side) -> None:
    g = start(side, "WTO Accession Talks")
    g.set_track("economy_usa", 8)
    g.set_track("economy_china", 6)
    g.set_track("diplomacy", 2)
    eco = {"usa": 9, "china": 7}[side]
    assert board_after_event(g, "WTO Accession Talks") == {
        f"economy_{side}": eco, "diplomacy": 3, f"reserves_{OTHER[side]}": 1}
    assert loc(g, "WTO Accession Talks") == LOC_NAMES[REMOVED]


@pytest.mark.parametrize("side", ["usa", "china"])
def test_north_korean_nuclear_crisis_agreed_framework(side) -> None:
    g = start(side, "North Korean Nuclear Crisis")
    g.set_track("diplomacy", 2)
    clear(g, "North Korea")
    assert board_after_event(g, "North Korean Nuclear Crisis", ("option", 0)) == {
        "diplomacy": 3, "North Korea": {side: 2}}
    assert loc(g, "North Korean Nuclear Crisis") == LOC_NAMES[REMOVED]


def test_north_korean_nuclear_crisis_brinkmanship_us_reduces_cn() -> None:
    g = start("usa", "North Korean Nuclear Crisis")
    g.set_track("regional_security", 3)
    g.set_influence("North Korea", china=4, anti_us=3)
    g.set_influence("South Korea", usa=3, china=1)
    g.set_influence("Japan", usa=2)
    before = snapshot(g)
    play(g, "North Korean Nuclear Crisis", "event")
    do(g, "option", 1)
    assert g.decision.player == "usa"
    assert legal_countries(g) == {"North Korea", "South Korea"}  # only CN is reduced
    answer(g, "North Korea", "North Korea")
    # at most 2 per country: the third point is forced into South Korea (taken at once)
    assert changes(g, before) == {"regional_security": 2,
                                  "North Korea": {"china": 2, "anti_us": 3},
                                  "South Korea": {"usa": 3}}


def test_north_korean_nuclear_crisis_brinkmanship_china_reduces_us() -> None:
    g = start("china", "North Korean Nuclear Crisis")
    g.set_track("regional_security", 3)
    g.set_influence("North Korea", china=4)
    g.set_influence("South Korea", usa=3)
    g.set_influence("Japan", usa=2)
    before = snapshot(g)
    play(g, "North Korean Nuclear Crisis", "event")
    do(g, "option", 1)
    assert g.decision.player == "china"
    assert legal_countries(g) == {"South Korea", "Japan"}
    answer(g, "Japan", "South Korea", "South Korea")
    assert changes(g, before) == {"regional_security": 2, "South Korea": {"usa": 1},
                                  "Japan": {"usa": 1}}


@pytest.mark.parametrize("side", ["usa", "china"])
@pytest.mark.parametrize("diplomacy, expected", [(3, "vp"), (2, "diplomacy")])
def test_comprehensive_test_ban_treaty(side, diplomacy, expected) -> None:
    g = start(side, "Comprehensive Test Ban Treaty", filler="Oil-for-Food Programme")
    g.set_track("diplomacy", diplomacy)
    want = {f"vp_{side}": 1} if expected == "vp" else {"diplomacy": 3}
    assert board_after_event(g, "Comprehensive Test Ban Treaty") == want
    assert loc(g, "Comprehensive Test Ban Treaty") == LOC_NAMES[REMOVED]  # "*": one +1 VP


# ================================================================== SCORING


def score_with(card: str, region: str, setting: dict[str, dict]) -> dict:
    """Clear `region`, set `setting`, play the scoring card as the US: the VP changes."""
    g = start("usa", card)
    wipe_region(g, region)
    for country, inf in setting.items():
        g.set_influence(country, **inf)
    before = snapshot(g)
    # R4: a scoring card's only mode is its event, a forced choice taken at once (engine).
    g.step(g.action_id("card", card))
    assert g.decision.player == "china"  # the card resolved: China's round is next
    changed = changes(g, before)
    assert loc(g, card) == LOC_NAMES[DISCARD]
    return changed


def test_europe_scoring_domination_bonuses_and_au_reduction() -> None:
    changed = score_with("Europe Scoring", "Europe", {
        "France": {"usa": 3}, "Germany": {"usa": 4}, "Italy": {"usa": 2},  # US BGs
        "United Kingdom": {"usa": 4},  # US non-BG
        "Ukraine": {"anti_us": 1},  # AU-controlled BG: US BG count 3 - 1 = 2
        "Russia": {"china": 4},  # China BG
        "Belarus": {"china": 2}, "Canada": {"china": 4},  # China non-BGs; Canada next to USA
    })
    # US: 2 BGs > 1, 1 non-BG < 2: domination 7 + 2 BGs = 9.
    # China: presence 3 + 1 BG + 1 (Canada, adjacent to the USA) = 5.
    assert changed == {"vp_usa": 9, "vp_china": 5}


def test_asia_scoring_rulebook_example_10_1_3() -> None:
    changed = score_with("Asia Scoring", "Asia", {
        "Japan": {"usa": 2}, "South Korea": {"usa": 3}, "Taiwan": {"usa": 3},
        "Australia": {"usa": 4},
        "North Korea": {"china": 3, "anti_us": 1},  # China-controlled, not AU-controlled
        "India": {"china": 1},
        "Vietnam": {"anti_us": 1},
    })
    # R18: US presence 3 + 2 BGs + 1 (Taiwan next to China); China presence 3 + 2 BGs.
    assert changed == {"vp_usa": 6, "vp_china": 5}


def test_middle_east_scoring_domination_with_au_reduction() -> None:
    changed = score_with("Middle East Scoring", "Middle East", {
        "Israel": {"usa": 4}, "Saudi Arabia": {"usa": 3}, "Egypt": {"usa": 2},
        "Jordan": {"usa": 2},
        "Iran": {"china": 4},
        "Iraq": {"anti_us": 1}, "Syria": {"anti_us": 1},
    })
    # US: BGs 3 - 1 = 2 > 1; non-BGs 1 - 1 = 0 and China 0: domination 5 + 2.
    # China: presence 3 + 1 BG.
    assert changed == {"vp_usa": 7, "vp_china": 4}


def test_africa_scoring_china_domination() -> None:
    changed = score_with("Africa Scoring", "Africa", {
        "South Africa": {"usa": 3}, "Nigeria": {"usa": 2}, "Kenya": {"usa": 2},
        "Algeria": {"china": 2}, "Angola": {"china": 1}, "DR Congo": {"china": 1},
        "Tanzania": {"china": 2},
    })
    # US: presence 1 + 2 BGs; China: 3 BGs > 2, 1 non-BG = 1: domination 4 + 3.
    assert changed == {"vp_usa": 3, "vp_china": 7}


def test_latin_america_scoring_control_and_adjacency_bonus() -> None:
    changed = score_with("Latin America Scoring", "Latin America", {
        "Mexico": {"usa": 2}, "Brazil": {"usa": 2}, "Argentina": {"usa": 2},
        "Panama": {"usa": 2}, "Colombia": {"usa": 2},
        "Cuba": {"china": 3},  # China BG adjacent to the USA
        "Venezuela": {"anti_us": 1},  # US BG count 3 - 1 = 2
    })
    # US: 2 BGs > 1 and 2 non-BGs > 0: control 6 + 2; China: presence 2 + 1 + 1 (Cuba).
    assert changed == {"vp_usa": 8, "vp_china": 4}


def test_former_ussr_scoring_one_per_country_two_per_battleground() -> None:
    changed = score_with("Former USSR Scoring", "Former USSR", {
        "Ukraine": {"usa": 3}, "Baltic States": {"usa": 2},
        "Russia": {"china": 4}, "Central Asia": {"china": 2}, "Armenia": {"china": 2},
        "Belarus": {"anti_us": 1},  # AU control has no effect (R18)
    })
    assert changed == {"vp_usa": 3, "vp_china": 4}


def test_southeast_asia_scoring_one_per_country_two_per_battleground() -> None:
    changed = score_with("Southeast Asia Scoring", "Southeast Asia", {
        "Philippines": {"usa": 2}, "Thailand": {"usa": 2},
        "Vietnam": {"china": 3}, "Laos/Cambodia": {"china": 1},
        "Myanmar": {"anti_us": 1},
    })
    assert changed == {"vp_usa": 2, "vp_china": 3}


# ============================================= Russia cards and prerequisites (7.6, 5.2)


def headline_game() -> Game:
    """A quiet game at the US headline choice of turn 2."""
    return quiet_advance(Game(7), "headline", "usa", turn=2)


@pytest.mark.parametrize("side, card, other_card, setup, expected", [
    ("usa", "NATO Enlargement", "Exchange Rate Unification",
     {"Poland": {}, "Czechia/Slovakia": {}, "Hungary": {}},
     {"Poland": {"usa": 2}, "Czechia/Slovakia": {"usa": 2}, "Hungary": {"usa": 2},
      "reserves_china": 2}),
    ("usa", "NATO Bombing of Yugoslavia", "Exchange Rate Unification",
     {"Serbia": {"anti_us": 2}},
     {"Serbia": {"usa": 1}, "regional_security": 2, "reserves_china": 2}),
    ("china", "Collective Security Treaty", "Operation Uphold Democracy",
     {"Haiti/Dominican Republic": {}},
     {**{c: {"anti_us": 1} for c in CSTO_COUNTRIES}, "Haiti/Dominican Republic": {"usa": 2}}),
], ids=["nato_enlargement", "nato_bombing_of_yugoslavia", "csto"])
def test_russia_cards_headlined_as_events_advance_the_russia_track(side, card, other_card,
                                                                   setup, expected) -> None:
    """7.6 and the card texts: "playing this card, as event or action, advances the Russia
    track" -- a headline card is played as an event (4.6.F)."""
    g = headline_game()
    wipe_region(g, "Former USSR")  # box 3 (reduce US in Former USSR) finds no US
    for c, inf in setup.items():
        g.set_influence(c, **inf)
    g.set_track("russia", 2)
    g.set_track("regional_security", 3)
    g.set_hand(side, [card, FILLER])
    g.set_hand(OTHER[side], [other_card, "Oil-for-Food Programme"])
    before = snapshot(g)
    do(g, "card", card if side == "usa" else other_card)
    do(g, "card", card if side == "china" else other_card)
    assert g.phase == "action"
    assert changes(g, before) == {**expected, "russia": 3}
    assert loc(g, card) == LOC_NAMES[REMOVED]


def test_csto_played_by_the_us_for_ops_fires_china_event_and_russia_step() -> None:
    g = start("usa", "Collective Security Treaty")
    wipe_region(g, "Former USSR")
    clear(g, "Canada")
    g.set_track("russia", 2)
    before = snapshot(g)
    play(g, "Collective Security Treaty", "place")
    do(g, "order", "action_first")
    answer(g, "Canada", "Canada", "Canada")
    assert changes(g, before) == {"Canada": {"usa": 3}, "russia": 3,
                                  **{c: {"anti_us": 1} for c in CSTO_COUNTRIES}}
    assert loc(g, "Collective Security Treaty") == LOC_NAMES[REMOVED]


def test_hong_kong_handover_played_by_the_us_in_turn_1_gives_only_ops_and_is_discarded() -> None:
    g = start("usa", "Hong Kong Handover")
    clear(g, "Canada")
    before = snapshot(g)
    play(g, "Hong Kong Handover", "place")
    assert g.decision.kind == "place"  # no event / order decision: the event cannot happen
    answer(g, "Canada", "Canada", "Canada", "Canada")
    assert changes(g, before) == {"Canada": {"usa": 4}}
    assert loc(g, "Hong Kong Handover") == LOC_NAMES[DISCARD]  # 5.2: "*" card discarded


def test_lee_teng_hui_played_by_china_under_three_noes_fires_no_event() -> None:
    g = start("china", "Clinton's Three Noes")
    play(g, "Clinton's Three Noes", "event")
    quiet_advance(g, "card", "usa")
    quiet_advance(g, "card", "china")
    g.set_hand("china", ["Lee Teng-hui's Cornell Visit", FILLER])
    clear(g, "Mongolia")
    before = snapshot(g)
    play(g, "Lee Teng-hui's Cornell Visit", "place")
    answer(g, "Mongolia", "Mongolia")
    assert changes(g, before) == {"Mongolia": {"china": 2}}
    assert loc(g, "Lee Teng-hui's Cornell Visit") == LOC_NAMES[DISCARD]


def test_every_early_and_scoring_card_has_a_test_named_after_its_id() -> None:
    """Across the test files (the war cards are tested in test_war_cards.py)."""
    import re
    from pathlib import Path

    names = set()
    for path in Path(__file__).parent.glob("test_*.py"):
        names |= set(re.findall(r"def (test_\w+)", path.read_text(encoding="utf-8")))
    cards = [c for c in Game(0).content.cards if c.era == "early" or c.kind == "scoring"]
    assert len([c for c in cards if c.kind == "base"]) >= 43
    assert len([c for c in cards if c.kind == "scoring"]) == 7
    missing = [c.id for c in cards if not any(c.id in n for n in names)]
    assert missing == []
