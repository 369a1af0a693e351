"""Behaviour of every mid-era base card (data/cards_mid.toml), checked against the
card's own text and docs/content.md.

Each test plays the card in an action round of a quiet turn-1 game (tests/helpers.py:
`quiet_round`; `set_hand` works for cards of any era), after clearing every persistent
card from play and setting the influence and tracks the event depends on, and asserts
the exact change of the board (`changes`: influence after, tracks after, VP / reserve
deltas), the card's location and any ongoing effect.  Test names carry the card id.
"""

from __future__ import annotations

from collections import Counter

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
    legal_cards,
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
from evenstar_env.engine.constants import (
    DISCARD,
    DRAW,
    IN_PLAY,
    LOC_NAMES,
    M_TRADE_DONE,
    REMOVED,
)

OTHER = {"usa": "china", "china": "usa"}
FILLER = "Gulf of Aden Patrols"  # a second card (1 ops), so that the hand is never empty
BASE_TRACKS = (("social_usa", 8), ("economy_usa", 8), ("social_china", 6),
               ("economy_china", 6), ("diplomacy", 3), ("regional_security", 3),
               ("russia", 0), ("tech_usa", 0), ("tech_china", 0))


# ------------------------------------------------------------------ helpers


def card_index(g: Game, name: str) -> int:
    return g.content.card_by_name[name]


def loc(g: Game, name: str) -> str:
    return LOC_NAMES[int(g.state.card_loc[card_index(g, name)])]


def mark_played(g: Game, card_id: str) -> None:
    """Record that a card's event has happened this game (prerequisites, 5.2)."""
    g.state.event_played[g.content.card_by_id[card_id]] = True


def fresh(side: str, turn: int = 1) -> Game:
    """A quiet game at `side`'s card choice: no persistent card in play, known tracks,
    3 reserves each."""
    g = quiet_round(side, turn)
    s = g.state
    s.card_loc[s.card_loc == IN_PLAY] = DISCARD
    for t, v in BASE_TRACKS:
        g.set_track(t, v)
    g.set_reserves("usa", 3)
    g.set_reserves("china", 3)
    return g


def start(side: str, card: str, filler: str = FILLER, turn: int = 1) -> Game:
    """`fresh`, with `card` (and a filler) in `side`'s hand."""
    g = fresh(side, turn)
    g.set_hand(side, [card, filler])
    return g


def set_board(g: Game, setting: dict[str, dict]) -> None:
    for country, inf in setting.items():
        g.set_influence(country, **inf)


def mid_cards() -> list:
    return [c for c in Game(0).content.cards if c.era == "mid" and c.kind == "base"]


# ====================================================================== USA


def test_september_11_social_vp_bases_and_security() -> None:
    g = start("usa", "9/11")
    set_board(g, {"Pakistan": {"china": 2}, "Afghanistan": {"anti_us": 1}, "Central Asia": {}})
    assert board_after_event(g, "9/11") == {
        "social_usa": 9, "vp_usa": 2, "regional_security": 2,
        "Pakistan": {"usa": 1, "china": 2},
        "Afghanistan": {},  # adding US removes the AU first (R1)
        "Central Asia": {"usa": 1}}
    assert loc(g, "9/11") == LOC_NAMES[REMOVED]


def test_war_on_terror_is_no_event_before_september_11() -> None:
    g = start("usa", "War on Terror")
    assert "event" not in legal_modes(g, "War on Terror")
    assert "place" in legal_modes(g, "War on Terror")


def test_war_on_terror_event_reduces_au_and_stays_in_play() -> None:
    g = start("usa", "War on Terror")
    mark_played(g, "september_11")
    wipe_region(g, "Middle East")
    set_board(g, {"Iraq": {"anti_us": 3}, "Syria": {"anti_us": 2},
                  "Iran": {"anti_us": 1, "china": 1}, "Afghanistan": {"anti_us": 1},
                  "Pakistan": {"anti_us": 2}})  # Pakistan is not in the selector
    before = snapshot(g)
    play(g, "War on Terror", "event")
    assert g.decision.kind == "influence" and g.decision.player == "usa"
    assert legal_countries(g) == {"Iraq", "Syria", "Iran", "Afghanistan"}
    answer(g, "Iraq")
    assert legal_countries(g) == {"Syria", "Iran", "Afghanistan"}  # at most 1 per country
    answer(g, "Afghanistan")
    assert changes(g, before) == {"regional_security": 2, "Iraq": {"anti_us": 2},
                                  "Afghanistan": {}}
    assert loc(g, "War on Terror") == LOC_NAMES[IN_PLAY]


def test_war_on_terror_in_play_reduces_one_au_at_the_start_of_each_turn() -> None:
    g = start("usa", "War on Terror")
    mark_played(g, "september_11")
    wipe_region(g, "Middle East")
    clear(g, "Afghanistan")
    g.set_influence("Syria", anti_us=2)
    play(g, "War on Terror", "event")  # the only AU is in Syria: both points forced there
    assert g.influence("Syria")["anti_us"] == 1
    set_board(g, {"Iraq": {"anti_us": 3}, "Afghanistan": {"anti_us": 1}})
    empty_hands_to_next_turn(g, "influence", "usa")
    assert g.turn == 2 and g.phase == "improve"  # phase A
    assert legal_countries(g) == {"Iraq", "Syria", "Afghanistan"}
    before = snapshot(g)
    answer(g, "Iraq")
    assert changes(g, before) == {"Iraq": {"anti_us": 2}}
    assert g.decision.kind == "modifier"  # phase A done; phase D is next
    assert loc(g, "War on Terror") == LOC_NAMES[IN_PLAY]


# ------------------------------------------------------------------ war cards (7.5)

AFGHAN_NEIGHBOURS = ("Pakistan", "Central Asia", "Iran")


@pytest.mark.parametrize("neighbours, die, won", [
    ({}, 4, True), ({}, 3, False),  # no influence anywhere: unmodified roll, win on 4
    ({"Pakistan": {"usa": 2}, "Central Asia": {"usa": 2}, "Iran": {"china": 4}}, 3, True),
    ({"Pakistan": {"usa": 2}, "Central Asia": {"usa": 2}, "Iran": {"china": 4}}, 2, False),
    ({"Pakistan": {"usa": 2}, "Iran": {"anti_us": 1}}, 3, False),  # AU control counts for China
    ({"Pakistan": {"usa": 2}, "Iran": {"anti_us": 1}}, 4, True),
    ({"Pakistan": {"usa": 1, "china": 1}, "Iran": {"usa": 3}}, 3, False),  # no control: +0
    ({"Iran": {"china": 4}, "Central Asia": {"china": 2}}, 6, True),  # 6 - 2 = 4
    ({"Iran": {"china": 4}, "Central Asia": {"china": 2}}, 5, False),
], ids=["empty-4", "empty-3", "plus1-3", "plus1-2", "au-counts-3", "au-counts-4",
        "uncontrolled-3", "minus2-6", "minus2-5"])
def test_afghan_war_roll_with_neighbour_modifiers(neighbours, die, won) -> None:
    g = start("usa", "Afghan War")
    clear(g, *AFGHAN_NEIGHBOURS)
    set_board(g, neighbours)
    g.set_influence("Afghanistan", anti_us=2)
    g.set_influence("India", usa=3)  # controlled but not adjacent: no modifier
    g.force_dice([die])
    expected = {"regional_security": 2}
    if won:
        expected.update({"Afghanistan": {"usa": 2}, "vp_usa": 1})
    else:
        expected.update({"Afghanistan": {"anti_us": 4}, "vp_china": 1})
    assert board_after_event(g, "Afghan War") == expected
    assert loc(g, "Afghan War") == LOC_NAMES[REMOVED]


def test_afghan_war_playable_with_no_influence_and_failure_replaces_us() -> None:
    g = start("usa", "Afghan War")
    clear(g, "Afghanistan", *AFGHAN_NEIGHBOURS)
    assert "event" in legal_modes(g, "Afghan War")
    g.set_track("regional_security", 1)
    g.force_dice([1])
    g.set_influence("Afghanistan", usa=1)
    # failure: 2 AU added, removing the US point first (R1); security stays at 1
    assert board_after_event(g, "Afghan War") == {"Afghanistan": {"anti_us": 1},
                                                   "vp_china": 1}


def test_afghan_war_played_by_china_for_ops_is_waged_by_the_us() -> None:
    g = start("china", "Afghan War")
    clear(g, *AFGHAN_NEIGHBOURS, "Mongolia")
    set_board(g, {"Pakistan": {"usa": 2}, "Iran": {"china": 4}, "Afghanistan": {"anti_us": 1}})
    g.force_dice([5])  # the US rolls: 5 + 1 - 1 = 5, victory
    before = snapshot(g)
    play(g, "Afghan War", "place")
    assert g.decision.kind == "order" and g.decision.player == "china"
    do(g, "order", "event_first")
    answer(g, "Mongolia", "Mongolia", "Mongolia")
    assert changes(g, before) == {"Afghanistan": {"usa": 2}, "vp_usa": 1,
                                  "regional_security": 2, "Mongolia": {"china": 3}}
    assert loc(g, "Afghan War") == LOC_NAMES[REMOVED]


IRAQ_NEIGHBOURS = ("Turkey", "Iran", "Syria", "Jordan", "Saudi Arabia", "Gulf States")
MIXED = {"Turkey": {"usa": 2}, "Saudi Arabia": {"usa": 3}, "Jordan": {"usa": 2},  # +3
         "Iran": {"china": 4}, "Syria": {"anti_us": 1},  # -2
         "Israel": {"usa": 4}}  # US-controlled, not adjacent to Iraq: no modifier


@pytest.mark.parametrize("neighbours, die, won", [
    (MIXED, 3, True), (MIXED, 2, False),
    ({"Turkey": {"anti_us": 1}, "Syria": {"anti_us": 1}, "Iran": {"china": 4}}, 6, False),
    ({"Gulf States": {"usa": 2}}, 3, True),
], ids=["plus1-3", "plus1-2", "minus3-6", "plus1-gulf-3"])
def test_iraq_war_roll_with_neighbour_modifiers(neighbours, die, won) -> None:
    g = start("usa", "Iraq War")
    wipe_region(g, "Middle East")
    clear(g, "Turkey")
    set_board(g, neighbours)
    g.set_influence("Iraq", anti_us=3, china=1)
    g.force_dice([die])
    expected = {"regional_security": 1, "reserves_usa": -1}  # security -2
    if won:
        expected.update({"Iraq": {"usa": 4}, "vp_usa": 1})  # 3 AU + 1 CN become 4 US
    else:
        expected.update({"Iraq": {"anti_us": 5, "china": 1}, "vp_china": 1})
    assert board_after_event(g, "Iraq War") == expected
    assert loc(g, "Iraq War") == LOC_NAMES[REMOVED]


@pytest.mark.parametrize("die, expected", [
    (4, {"vp_usa": 1}),  # victory with nothing to replace
    (3, {"Iraq": {"anti_us": 2}, "vp_china": 1}),
])
def test_iraq_war_playable_with_no_influence_security_clamped(die, expected) -> None:
    g = start("usa", "Iraq War")
    wipe_region(g, "Middle East")
    clear(g, "Turkey")
    assert "event" in legal_modes(g, "Iraq War")
    g.set_track("regional_security", 2)
    g.set_reserves("usa", 0)  # reserves never go below 0
    g.force_dice([die])
    assert board_after_event(g, "Iraq War") == {"regional_security": 1, **expected}


# ------------------------------------------------------------------ Russia card (7.6)


def test_abm_treaty_withdrawal_event_tech_box_au_in_russia_and_russia_track() -> None:
    g = start("usa", "ABM Treaty Withdrawal")
    wipe_region(g, "Former USSR")  # box 3 (reduce US in Former USSR) finds no US
    g.set_track("russia", 2)
    assert board_after_event(g, "ABM Treaty Withdrawal") == {
        "tech_usa": 1, "vp_usa": 1,  # US tech box 1, Internet Age: +1 VP
        "Russia": {"anti_us": 1}, "russia": 3}
    assert loc(g, "ABM Treaty Withdrawal") == LOC_NAMES[REMOVED]


def test_abm_treaty_withdrawal_for_ops_advances_the_russia_track() -> None:
    g = start("usa", "ABM Treaty Withdrawal")
    clear(g, "Canada", "Russia")
    g.set_track("russia", 0)
    before = snapshot(g)
    play(g, "ABM Treaty Withdrawal", "place")
    answer(g, "Canada", "Canada", "Canada")
    assert changes(g, before) == {"Canada": {"usa": 3}, "russia": 1,
                                  "Russia": {"usa": 1}}  # box 1, Privatization
    assert loc(g, "ABM Treaty Withdrawal") == LOC_NAMES[DISCARD]  # no event: not removed


def test_abm_treaty_withdrawal_played_by_china_fires_us_event_then_russia_step() -> None:
    g = start("china", "ABM Treaty Withdrawal")
    wipe_region(g, "Former USSR")
    clear(g, "Mongolia")
    g.set_track("russia", 2)
    before = snapshot(g)
    play(g, "ABM Treaty Withdrawal", "place")
    assert g.decision.kind == "order"
    do(g, "order", "action_first")
    answer(g, "Mongolia", "Mongolia", "Mongolia")
    assert changes(g, before) == {"Mongolia": {"china": 3}, "tech_usa": 1, "vp_usa": 1,
                                  "Russia": {"anti_us": 1}, "russia": 3}
    assert loc(g, "ABM Treaty Withdrawal") == LOC_NAMES[REMOVED]


def test_abm_treaty_withdrawal_headlined_advances_the_russia_track() -> None:
    g = quiet_advance(Game(7), "headline", "usa", turn=2)
    s = g.state
    s.card_loc[s.card_loc == IN_PLAY] = DISCARD
    wipe_region(g, "Former USSR")
    for t, v in BASE_TRACKS:
        g.set_track(t, v)
    g.set_track("russia", 2)
    g.set_hand("usa", ["ABM Treaty Withdrawal", FILLER])
    g.set_hand("china", ["Strategic and Economic Dialogue", "Copenhagen Climate Summit"])
    before = snapshot(g)
    do(g, "card", "ABM Treaty Withdrawal")
    do(g, "card", "Strategic and Economic Dialogue")
    assert g.phase == "action"
    assert changes(g, before) == {"tech_usa": 1, "vp_usa": 1, "Russia": {"anti_us": 1},
                                  "russia": 3, "reserves_china": 2}  # S&ED at diplomacy 3
    assert loc(g, "ABM Treaty Withdrawal") == LOC_NAMES[REMOVED]


# ------------------------------------------------------------------ other US cards


def test_rose_revolution_clears_au_and_adds_two_us_in_georgia() -> None:
    g = start("usa", "Rose Revolution")
    g.set_influence("Georgia/Azerbaijan", anti_us=2, china=1)
    assert board_after_event(g, "Rose Revolution") == {
        "Georgia/Azerbaijan": {"usa": 2, "china": 1}}
    assert loc(g, "Rose Revolution") == LOC_NAMES[REMOVED]


def test_orange_revolution_needs_rose_revolution_first() -> None:
    g = start("usa", "Orange Revolution")
    assert "event" not in legal_modes(g, "Orange Revolution")
    mark_played(g, "rose_revolution")
    assert "event" in legal_modes(g, "Orange Revolution")


def test_orange_revolution_after_playing_rose_revolution() -> None:
    g = start("usa", "Rose Revolution")
    play(g, "Rose Revolution", "event")
    quiet_advance(g, "card", "china")
    quiet_advance(g, "card", "usa")
    g.set_hand("usa", ["Orange Revolution", FILLER])
    assert "event" in legal_modes(g, "Orange Revolution")


@pytest.mark.parametrize("die, us, vp", [(1, 1, 0), (2, 1, 0), (3, 2, 0), (4, 2, 0),
                                         (5, 3, 1), (6, 3, 1)])
def test_orange_revolution_roll(die, us, vp) -> None:
    g = start("usa", "Orange Revolution")
    mark_played(g, "rose_revolution")
    g.set_influence("Ukraine", china=1)
    g.force_dice([die])
    expected = {"Ukraine": {"usa": us, "china": 1}}
    if vp:
        expected["vp_usa"] = 1
    assert board_after_event(g, "Orange Revolution") == expected
    assert loc(g, "Orange Revolution") == LOC_NAMES[REMOVED]


def test_the_surge_needs_iraq_war_first() -> None:
    g = start("usa", "The Surge")
    assert "event" not in legal_modes(g, "The Surge")


def test_the_surge_without_insurgency_reduces_iraq_au() -> None:
    g = start("usa", "The Surge")
    mark_played(g, "iraq_war")
    g.set_influence("Iraq", anti_us=3, china=1)
    assert board_after_event(g, "The Surge") == {"Iraq": {"anti_us": 1, "china": 1}}
    assert loc(g, "The Surge") == LOC_NAMES[REMOVED]
    assert loc(g, "Iraqi Insurgency") != LOC_NAMES[IN_PLAY]


def test_the_surge_cancels_iraqi_insurgency_and_restores_us_ops() -> None:
    g = start("china", "Iraqi Insurgency")
    mark_played(g, "iraq_war")
    play(g, "Iraqi Insurgency", "event")
    assert loc(g, "Iraqi Insurgency") == LOC_NAMES[IN_PLAY]
    quiet_advance(g, "card", "usa")
    g.set_hand("usa", ["The Surge", "Pivot to Asia"])
    assert ops_shown(g, "The Surge") == 1 and ops_shown(g, "Pivot to Asia") == 3
    g.set_influence("Iraq", anti_us=4)
    assert board_after_event(g, "The Surge") == {"Iraq": {"anti_us": 2}}
    assert loc(g, "Iraqi Insurgency") == LOC_NAMES[REMOVED]  # cancelled: leaves the game
    assert loc(g, "The Surge") == LOC_NAMES[REMOVED]
    quiet_advance(g, "card", "usa")
    g.set_hand("usa", ["Pivot to Asia", FILLER])
    assert ops_shown(g, "Pivot to Asia") == 4


def test_death_of_bin_laden_needs_september_11() -> None:
    g = start("usa", "Death of Osama bin Laden")
    assert "event" not in legal_modes(g, "Death of Osama bin Laden")


def test_death_of_bin_laden_without_war_on_terror_two_vp() -> None:
    g = start("usa", "Death of Osama bin Laden")
    mark_played(g, "september_11")
    assert board_after_event(g, "Death of Osama bin Laden") == {"vp_usa": 2}
    assert loc(g, "Death of Osama bin Laden") == LOC_NAMES[REMOVED]


def test_death_of_bin_laden_cancels_war_on_terror_and_raises_us_social() -> None:
    g = start("usa", "War on Terror")
    mark_played(g, "september_11")
    wipe_region(g, "Middle East")
    clear(g, "Afghanistan")
    play(g, "War on Terror", "event")
    assert loc(g, "War on Terror") == LOC_NAMES[IN_PLAY]
    quiet_advance(g, "card", "china")
    quiet_advance(g, "card", "usa")
    g.set_hand("usa", ["Death of Osama bin Laden", FILLER])
    g.set_track("social_usa", 8)
    assert board_after_event(g, "Death of Osama bin Laden") == {"vp_usa": 2, "social_usa": 9}
    assert loc(g, "War on Terror") == LOC_NAMES[REMOVED]  # cancelled: leaves the game
    # no more upkeep: the next turn's phase A asks the US nothing
    g.set_influence("Iraq", anti_us=3)
    empty_hands_to_next_turn(g, "modifier", "usa")
    assert g.influence("Iraq")["anti_us"] == 3


PIVOT = ["Japan", "South Korea", "Philippines", "Australia", "Singapore", "Vietnam"]


def test_pivot_to_asia_three_us_at_most_one_each_then_reduce_cn_in_southeast_asia() -> None:
    g = start("usa", "Pivot to Asia")
    wipe_region(g, "Southeast Asia")
    clear(g, *PIVOT)
    set_board(g, {"Vietnam": {"china": 2}, "Laos/Cambodia": {"china": 1},
                  "North Korea": {"china": 3}})  # North Korea is not in Southeast Asia
    before = snapshot(g)
    play(g, "Pivot to Asia", "event")
    assert g.decision.player == "usa" and legal_countries(g) == set(PIVOT)
    answer(g, "Japan")
    assert legal_countries(g) == set(PIVOT) - {"Japan"}
    answer(g, "Vietnam", "Australia")
    assert g.decision.player == "usa"  # US reduces CN (4.6.D, R16)
    assert legal_countries(g) == {"Vietnam", "Laos/Cambodia"}
    answer(g, "Vietnam")
    assert changes(g, before) == {"Japan": {"usa": 1}, "Australia": {"usa": 1},
                                  "Vietnam": {"usa": 1, "china": 1}}
    assert loc(g, "Pivot to Asia") == LOC_NAMES[REMOVED]


def test_smart_power_grants_a_three_ops_action_of_three_kinds() -> None:
    g = start("usa", "Smart Power")
    clear(g, "Canada")
    before = snapshot(g)
    play(g, "Smart Power", "event")
    assert g.decision.kind == "granted" and g.decision.context["ops"] == 3
    assert set(g.decision.legal) == {g.action_id("mode", m) for m in ("place", "realign",
                                                                       "trade")}
    do(g, "mode", "place")
    answer(g, "Canada", "Canada", "Canada")
    assert changes(g, before) == {"Canada": {"usa": 3}}
    assert loc(g, "Smart Power") == LOC_NAMES[REMOVED]  # "*": a 3-ops action once (issue 19)


def test_smart_power_trade_contest_in_a_stability_one_country() -> None:
    g = start("usa", "Smart Power")
    clear(g, "Nicaragua")
    g.state.misc[M_TRADE_DONE + 0] = 1  # the US's own trade contest of the turn is used up
    before = snapshot(g)
    play(g, "Smart Power", "event")
    do(g, "mode", "trade")  # still offered (docs/content.md: ops_action)
    assert "Nicaragua" in legal_countries(g) and "Iran" not in legal_countries(g)
    g.force_dice([3, 6])  # US 3 + 7 = 10 vs China 6 + 5 = 11: China wins, no effect
    answer(g, "Nicaragua")
    assert changes(g, before) == {}
    h = start("usa", "Smart Power")
    clear(h, "Nicaragua")
    play(h, "Smart Power", "event")
    do(h, "mode", "trade")
    h.force_dice([4, 6])  # 11 vs 11: the US (phasing) wins ties
    answer(h, "Nicaragua")
    assert h.influence("Nicaragua") == {"usa": 3, "china": 0, "anti_us": 0}
    quiet_advance(h, "card", "usa")
    h.set_hand("usa", ["Pivot to Asia", FILLER])
    assert "trade" in legal_modes(h, "Pivot to Asia")  # not counted as the turn's contest


def test_smart_power_ops_reduced_by_iraqi_insurgency() -> None:
    g = start("china", "Iraqi Insurgency")
    mark_played(g, "iraq_war")
    play(g, "Iraqi Insurgency", "event")
    quiet_advance(g, "card", "usa")
    g.set_hand("usa", ["Smart Power", FILLER])
    clear(g, "Canada")
    play(g, "Smart Power", "event")
    assert g.decision.context["ops"] == 2  # 7.3.1: also for events that give ops
    do(g, "mode", "place")
    answer(g, "Canada", "Canada")
    assert g.influence("Canada")["usa"] == 2


def test_pepfar_adds_three_us_only_where_africa_has_no_chinese_influence() -> None:
    g = start("usa", "PEPFAR")
    wipe_region(g, "Africa")
    set_board(g, {"Kenya": {"china": 1}, "Angola": {"china": 2, "usa": 1}})
    before = snapshot(g)
    play(g, "PEPFAR", "event")
    assert legal_countries(g) == countries_of("Africa") - {"Kenya", "Angola"}
    answer(g, "Nigeria")
    assert "Nigeria" not in legal_countries(g)
    answer(g, "South Africa", "Ethiopia")
    assert changes(g, before) == {c: {"usa": 1} for c in ("Nigeria", "South Africa",
                                                           "Ethiopia")}
    assert loc(g, "PEPFAR") == LOC_NAMES[REMOVED]


def test_us_india_nuclear_deal_two_us_and_one_less_cn_in_india() -> None:
    g = start("usa", "US–India Civil Nuclear Agreement")
    g.set_influence("India", usa=1, china=2)
    assert board_after_event(g, "US–India Civil Nuclear Agreement") == {
        "India": {"usa": 3, "china": 1}}
    assert loc(g, "US–India Civil Nuclear Agreement") == LOC_NAMES[REMOVED]


@pytest.mark.parametrize("reserves, lost", [(3, 1), (0, 0)])
def test_sars_outbreak_china_social_and_reserve(reserves, lost) -> None:
    g = start("usa", "SARS Outbreak")
    g.set_reserves("china", reserves)
    expected = {"social_china": 5}
    if lost:
        expected["reserves_china"] = -lost
    assert board_after_event(g, "SARS Outbreak") == expected
    assert loc(g, "SARS Outbreak") == LOC_NAMES[REMOVED]


@pytest.mark.parametrize("option, expected", [
    (0, {"economy_china": 5}),
    (1, {"vp_usa": 1, "reserves_usa": 1}),
])
def test_renminbi_revaluation_pressure_china_chooses(option, expected) -> None:
    g = start("usa", "Renminbi Revaluation Pressure")
    before = snapshot(g)
    play_option(g, "Renminbi Revaluation Pressure", "china", option)
    assert changes(g, before) == expected
    assert loc(g, "Renminbi Revaluation Pressure") == LOC_NAMES[DISCARD]


# ==================================================================== CHINA


def test_china_joins_wto_economy_and_stays_in_play() -> None:
    g = start("china", "China Joins the WTO")
    assert board_after_event(g, "China Joins the WTO") == {"economy_china": 7}
    assert loc(g, "China Joins the WTO") == LOC_NAMES[IN_PLAY]


def test_china_joins_wto_in_play_gives_china_one_reserve_in_the_economy_phase() -> None:
    g = start("china", "China Joins the WTO")
    play(g, "China Joins the WTO", "event")
    control = g.clone()
    control.state.card_loc[card_index(control, "China Joins the WTO")] = DISCARD
    control.set_reserves("china", control.reserves["china"])  # re-ask the pending decision
    res = g.reserves["china"]
    for h in (g, control):
        empty_hands_to_next_turn(h, "modifier", "usa")  # turn 2, phase D: after phase H
    assert g.reserves["china"] == res + 3 + 1  # economy 7: income 3 (9.1.7)
    assert control.reserves["china"] == res + 3
    assert g.reserves["usa"] == control.reserves["usa"]
    assert loc(g, "China Joins the WTO") == LOC_NAMES[IN_PLAY]


def test_beijing_olympics_needs_china_social_5() -> None:
    g = start("china", "Beijing Olympics")
    g.set_track("social_china", 4)
    assert "event" not in legal_modes(g, "Beijing Olympics")
    g.set_track("social_china", 5)
    assert "event" in legal_modes(g, "Beijing Olympics")


def test_beijing_olympics_vp_social_and_diplomacy() -> None:
    g = start("china", "Beijing Olympics")
    g.set_track("diplomacy", 2)
    assert board_after_event(g, "Beijing Olympics") == {
        "vp_china": 2, "social_china": 7, "diplomacy": 3}
    assert loc(g, "Beijing Olympics") == LOC_NAMES[REMOVED]


@pytest.mark.parametrize("social, expected", [
    (4, {"social_china": 6}), (5, {"social_china": 7}),
    (6, {"social_china": 7, "reserves_china": 1}),
    (10, {"reserves_china": 1}),  # social max 10 (9.1.2)
])
def test_harmonious_society_branches_on_china_social(social, expected) -> None:
    g = start("china", "Harmonious Society")
    g.set_track("social_china", social)
    assert board_after_event(g, "Harmonious Society") == expected
    assert loc(g, "Harmonious Society") == LOC_NAMES[REMOVED]


def test_sco_expansion_removes_us_in_central_asia_and_adds_cn() -> None:
    g = start("china", "Shanghai Cooperation Organisation")
    set_board(g, {"Central Asia": {"usa": 2, "china": 1}, "Russia": {},
                  "Pakistan": {"usa": 1, "china": 2}, "Iran": {"anti_us": 3}})
    assert board_after_event(g, "Shanghai Cooperation Organisation") == {
        "Central Asia": {"china": 2}, "Russia": {"china": 1},
        "Pakistan": {"usa": 1, "china": 3}, "Iran": {"anti_us": 3, "china": 1}}
    assert loc(g, "Shanghai Cooperation Organisation") == LOC_NAMES[REMOVED]


def test_chinese_investment_in_africa_three_cn_and_stays_in_play() -> None:
    g = start("china", "Chinese Investment in Africa")
    wipe_region(g, "Africa")
    before = snapshot(g)
    play(g, "Chinese Investment in Africa", "event")
    assert g.decision.player == "china" and legal_countries(g) == countries_of("Africa")
    answer(g, "Kenya")
    assert "Kenya" not in legal_countries(g)
    answer(g, "Angola", "Nigeria")
    assert changes(g, before) == {c: {"china": 1} for c in ("Kenya", "Angola", "Nigeria")}
    assert loc(g, "Chinese Investment in Africa") == LOC_NAMES[IN_PLAY]


def test_chinese_investment_in_africa_adds_one_cn_each_turn_where_cn_already_is() -> None:
    g = start("china", "Chinese Investment in Africa")
    wipe_region(g, "Africa")
    play(g, "Chinese Investment in Africa", "event")
    answer(g, "Kenya", "Angola", "Nigeria")
    g.set_influence("Nigeria", usa=2)  # no CN any more
    g.set_influence("Egypt", china=2)  # CN, but in the Middle East
    empty_hands_to_next_turn(g, "influence", "china")
    assert g.turn == 2 and g.phase == "improve"  # phase A
    assert legal_countries(g) == {"Kenya", "Angola"}
    before = snapshot(g)
    answer(g, "Angola")
    assert changes(g, before) == {"Angola": {"china": 2}}
    assert g.decision.kind == "modifier"


def test_confucius_institutes_two_cn_where_us_and_no_cn() -> None:
    g = start("china", "Confucius Institutes")
    set_board(g, {"United Kingdom": {"usa": 4}, "France": {"usa": 2, "china": 1},
                  "Kenya": {"usa": 1}})
    pool = {c["name"] for c in Game.countries()
            if g.influence(c["name"])["usa"] > 0 and g.influence(c["name"])["china"] == 0}
    assert "United Kingdom" in pool and "France" not in pool
    before = snapshot(g)
    play(g, "Confucius Institutes", "event")
    assert g.decision.player == "china" and legal_countries(g) == pool
    answer(g, "United Kingdom")
    assert "United Kingdom" not in legal_countries(g)
    answer(g, "Kenya")
    assert changes(g, before) == {"United Kingdom": {"usa": 4, "china": 1},
                                  "Kenya": {"usa": 1, "china": 1}}
    assert loc(g, "Confucius Institutes") == LOC_NAMES[DISCARD]


def test_alba_one_au_in_each_member_removing_us_first() -> None:
    g = start("china", "Bolivarian Alliance (ALBA)")
    set_board(g, {"Venezuela": {"usa": 1}, "Cuba": {"anti_us": 3, "china": 1},
                  "Bolivia": {}, "Nicaragua": {"usa": 2}, "Ecuador": {"china": 1}})
    assert board_after_event(g, "Bolivarian Alliance (ALBA)") == {
        "Venezuela": {}, "Cuba": {"anti_us": 4, "china": 1}, "Bolivia": {"anti_us": 1},
        "Nicaragua": {"usa": 1}, "Ecuador": {"anti_us": 1, "china": 1}}
    assert loc(g, "Bolivarian Alliance (ALBA)") == LOC_NAMES[REMOVED]


def test_iraqi_insurgency_needs_iraq_war_first() -> None:
    g = start("china", "Iraqi Insurgency")
    assert "event" not in legal_modes(g, "Iraqi Insurgency")


def test_iraqi_insurgency_after_the_iraq_war_event() -> None:
    g = start("usa", "Iraq War")
    g.force_dice([6])
    play(g, "Iraq War", "event")
    quiet_advance(g, "card", "china")
    g.set_hand("china", ["Iraqi Insurgency", FILLER])
    assert "event" in legal_modes(g, "Iraqi Insurgency")


def test_iraqi_insurgency_au_in_iraq_and_us_ops_minus_one() -> None:
    g = start("china", "Iraqi Insurgency")
    mark_played(g, "iraq_war")
    g.set_influence("Iraq", usa=3)
    assert board_after_event(g, "Iraqi Insurgency") == {"Iraq": {"usa": 1}}
    assert loc(g, "Iraqi Insurgency") == LOC_NAMES[IN_PLAY]
    quiet_advance(g, "card", "usa")
    g.set_hand("usa", ["Pivot to Asia", "Afghan War", "Smart Power", "SARS Outbreak"])
    assert [ops_shown(g, c) for c in ("Pivot to Asia", "Afghan War", "Smart Power",
                                      "SARS Outbreak")] == [3, 2, 1, 1]  # minimum 1
    quiet_advance(g, "card", "china")
    g.set_hand("china", ["China Joins the WTO", FILLER])
    assert ops_shown(g, "China Joins the WTO") == 4  # China's cards are not affected


def test_four_trillion_stimulus_needs_another_card_of_three_ops() -> None:
    """5.3 and docs/content.md: `hand_card_min_ops` needs *another* card of that value;
    the stimulus card itself (3 ops) does not count."""
    g = start("china", "Four Trillion Yuan Stimulus")
    g.set_hand("china", ["Four Trillion Yuan Stimulus", "Confucius Institutes", FILLER])
    assert "event" not in legal_modes(g, "Four Trillion Yuan Stimulus")
    assert "place" in legal_modes(g, "Four Trillion Yuan Stimulus")


@pytest.mark.parametrize("other", ["Harmonious Society", "Pivot to Asia"])  # 3 ops; 4 serves
def test_four_trillion_stimulus_discards_the_three_ops_card(other) -> None:
    g = start("china", "Four Trillion Yuan Stimulus")
    g.set_hand("china", ["Four Trillion Yuan Stimulus", other, FILLER])
    assert "event" in legal_modes(g, "Four Trillion Yuan Stimulus")
    # the only card of 3+ ops left is discarded (a forced choice, taken at once)
    assert board_after_event(g, "Four Trillion Yuan Stimulus") == {
        "economy_china": 7, "social_china": 7}
    assert loc(g, other) == LOC_NAMES[DISCARD]
    assert not g.state.event_played[card_index(g, other)]  # 5.4: no event
    assert g.hand("china") == [FILLER]
    assert loc(g, "Four Trillion Yuan Stimulus") == LOC_NAMES[REMOVED]


def test_four_trillion_stimulus_china_picks_among_cards_of_three_or_more() -> None:
    g = start("china", "Four Trillion Yuan Stimulus")
    g.set_hand("china", ["Four Trillion Yuan Stimulus", "Harmonious Society",
                         "China Joins the WTO", "Confucius Institutes", FILLER])
    before = snapshot(g)
    play(g, "Four Trillion Yuan Stimulus", "event")
    assert g.decision.kind == "discard" and g.decision.player == "china"
    assert legal_cards(g) == {"Harmonious Society", "China Joins the WTO"}
    do(g, "card", "China Joins the WTO")
    assert changes(g, before) == {"economy_china": 7, "social_china": 7}
    assert loc(g, "China Joins the WTO") == LOC_NAMES[DISCARD]
    assert sorted(g.hand("china")) == sorted(["Harmonious Society", "Confucius Institutes",
                                              FILLER])


def test_string_of_pearls_one_cn_in_each_port_country() -> None:
    g = start("china", "String of Pearls")
    set_board(g, {"Pakistan": {"usa": 1, "china": 2}, "Bangladesh": {}, "Myanmar": {"anti_us": 1}})
    assert board_after_event(g, "String of Pearls") == {
        "Pakistan": {"usa": 1, "china": 3}, "Bangladesh": {"china": 1},
        "Myanmar": {"anti_us": 1, "china": 1}}
    assert loc(g, "String of Pearls") == LOC_NAMES[REMOVED]


@pytest.mark.parametrize("taiwan_us, expected", [
    (3, {"Taiwan": {"usa": 2}, "vp_china": 1}),
    (0, {"vp_china": 1}),  # only where there is US influence at the start (docs/content.md)
])
def test_anti_secession_law_reduces_us_in_taiwan_and_one_vp(taiwan_us, expected) -> None:
    g = start("china", "Anti-Secession Law")
    g.set_influence("Taiwan", usa=taiwan_us)
    assert board_after_event(g, "Anti-Secession Law") == expected
    assert loc(g, "Anti-Secession Law") == LOC_NAMES[REMOVED]


def test_shenzhou_5_advances_china_tech_with_its_box_and_gives_one_vp() -> None:
    g = start("china", "Shenzhou 5")
    assert board_after_event(g, "Shenzhou 5") == {
        "tech_china": 1, "vp_china": 2, "social_china": 7}  # box 1, Hybrid Rice, + 1 VP
    assert loc(g, "Shenzhou 5") == LOC_NAMES[REMOVED]


def test_china_asean_fta_four_cn_among_southeast_asian_countries_not_us_controlled() -> None:
    g = start("china", "China–ASEAN Free Trade Area")
    wipe_region(g, "Southeast Asia")
    set_board(g, {"Philippines": {"usa": 2},  # US-controlled (stab 2)
                  "Thailand": {"usa": 1}, "Myanmar": {"anti_us": 1}})
    before = snapshot(g)
    play(g, "China–ASEAN Free Trade Area", "event")
    assert legal_countries(g) == countries_of("Southeast Asia") - {"Philippines"}
    answer(g, "Thailand", "Myanmar", "Vietnam", "Singapore")  # at most 1 per country
    assert changes(g, before) == {"Thailand": {"usa": 1, "china": 1},
                                  "Myanmar": {"anti_us": 1, "china": 1},
                                  "Vietnam": {"china": 1}, "Singapore": {"china": 1},
                                  "reserves_china": 1}
    assert loc(g, "China–ASEAN Free Trade Area") == LOC_NAMES[REMOVED]


def test_north_korean_nuclear_test_security_au_and_us_reductions() -> None:
    g = start("china", "North Korean Nuclear Test")
    set_board(g, {"North Korea": {"china": 4, "anti_us": 3}, "South Korea": {"usa": 3},
                  "Japan": {"usa": 2}})
    before = snapshot(g)
    play(g, "North Korean Nuclear Test", "event")
    assert g.decision.player == "china" and legal_countries(g) == {"South Korea", "Japan"}
    answer(g, "Japan")  # at most 1 per country: the second point is forced in South Korea
    assert changes(g, before) == {"regional_security": 2,
                                  "North Korea": {"china": 4, "anti_us": 4},
                                  "South Korea": {"usa": 2}, "Japan": {"usa": 1}}
    assert loc(g, "North Korean Nuclear Test") == LOC_NAMES[REMOVED]


@pytest.mark.parametrize("georgia, after", [
    ({"usa": 3}, {"usa": 1}), ({"usa": 1}, {"anti_us": 1}),  # shortfall placed as AU (R1)
    ({"anti_us": 1, "china": 1}, {"anti_us": 3, "china": 1}),
])
def test_russo_georgian_war_security_and_two_less_us_in_georgia(georgia, after) -> None:
    g = start("china", "Russo-Georgian War")
    g.set_influence("Georgia/Azerbaijan", **georgia)
    assert board_after_event(g, "Russo-Georgian War") == {
        "regional_security": 2, "Georgia/Azerbaijan": after}
    assert loc(g, "Russo-Georgian War") == LOC_NAMES[REMOVED]


# ================================================================== NEUTRAL


@pytest.mark.parametrize("side", ["usa", "china"])
def test_global_financial_crisis_us_economy_china_reserves_diplomacy(side) -> None:
    g = start(side, "2008 Financial Crisis")
    g.set_track("diplomacy", 2)
    assert board_after_event(g, "2008 Financial Crisis") == {
        "economy_usa": 7, "reserves_china": -2, "diplomacy": 3}
    assert loc(g, "2008 Financial Crisis") == LOC_NAMES[REMOVED]


@pytest.mark.parametrize("side", ["usa", "china"])
def test_brics_one_own_in_each_member_and_a_reserve(side) -> None:
    g = start(side, "BRICS Summit")
    clear(g, "Brazil", "Russia", "India", "South Africa")
    assert board_after_event(g, "BRICS Summit") == {
        **{c: {side: 1} for c in ("Brazil", "Russia", "India", "South Africa")},
        f"reserves_{side}": 1}
    assert loc(g, "BRICS Summit") == LOC_NAMES[REMOVED]


ARAB = ["Tunisia", "Egypt", "Libya", "Syria", "Yemen"]
ARAB_BOARD = {"Tunisia": {}, "Egypt": {"usa": 2, "china": 1}, "Libya": {"anti_us": 3},
              "Syria": {"anti_us": 3, "china": 1}, "Yemen": {"china": 1}}


def test_arab_spring_played_by_the_us() -> None:
    g = start("usa", "Arab Spring")
    set_board(g, ARAB_BOARD)
    before = snapshot(g)
    play(g, "Arab Spring", "event")
    assert g.decision.player == "usa" and legal_countries(g) == set(ARAB)
    answer(g, "Libya")
    assert "Libya" not in legal_countries(g)
    answer(g, "Tunisia")
    assert changes(g, before) == {
        "regional_security": 2, "Egypt": {"usa": 2}, "Syria": {"anti_us": 3}, "Yemen": {},
        "Libya": {"anti_us": 2}, "Tunisia": {"usa": 1}}
    assert loc(g, "Arab Spring") == LOC_NAMES[REMOVED]


def test_arab_spring_played_by_china() -> None:
    g = start("china", "Arab Spring")
    set_board(g, ARAB_BOARD)
    before = snapshot(g)
    play(g, "Arab Spring", "event")
    assert g.decision.player == "china" and legal_countries(g) == set(ARAB)
    answer(g, "Egypt", "Tunisia")
    assert changes(g, before) == {
        "regional_security": 2, "Egypt": {"usa": 1, "china": 2}, "Tunisia": {"china": 1}}


@pytest.mark.parametrize("side, libya", [("usa", {"usa": 2, "china": 1}),
                                         ("china", {"china": 3})])
def test_libya_intervention_before_arab_spring_adds_two(side, libya) -> None:
    """No prerequisite since issue 19: Arab Spring raises the gain from 2 to 3."""
    g = start(side, "Libya Intervention")
    g.set_influence("Libya", anti_us=3, china=1)
    assert board_after_event(g, "Libya Intervention") == {"regional_security": 2,
                                                          "Libya": libya}


def test_libya_intervention_after_playing_arab_spring() -> None:
    g = start("china", "Arab Spring")
    play(g, "Arab Spring", "event")
    answer(g, *[c for c in ARAB][:2])
    quiet_advance(g, "card", "usa")
    g.set_hand("usa", ["Libya Intervention", FILLER])
    assert "event" in legal_modes(g, "Libya Intervention")


@pytest.mark.parametrize("side, libya", [("usa", {"usa": 3, "china": 1}),
                                         ("china", {"china": 4})])
def test_libya_intervention_clears_au_and_adds_own(side, libya) -> None:
    g = start(side, "Libya Intervention")
    mark_played(g, "arab_spring")
    g.set_influence("Libya", anti_us=3, china=1)
    assert board_after_event(g, "Libya Intervention") == {"regional_security": 2,
                                                          "Libya": libya}
    assert loc(g, "Libya Intervention") == LOC_NAMES[REMOVED]


@pytest.mark.parametrize("side, iran", [("usa", {"anti_us": 2, "china": 1}),
                                        ("china", {"anti_us": 3, "china": 2})])
def test_iran_nuclear_talks_engage(side, iran) -> None:
    g = start(side, "Iran Nuclear Talks")
    g.set_track("diplomacy", 2)
    g.set_influence("Iran", anti_us=3, china=1)
    assert board_after_event(g, "Iran Nuclear Talks", ("option", 0)) == {
        "diplomacy": 3, "Iran": iran}
    assert loc(g, "Iran Nuclear Talks") == LOC_NAMES[DISCARD]


@pytest.mark.parametrize("side, iran, after", [
    ("usa", {"anti_us": 3, "china": 2}, {"anti_us": 3}),
    ("usa", {"anti_us": 3, "china": 1}, {"anti_us": 3}),  # CN stops at 0
    ("china", {"usa": 1, "china": 1}, {"anti_us": 1, "china": 1}),  # US shortfall: AU (R1)
    # 2.1.8.6, R1: "reduce US by 2, a US shortfall is placed as AU" also where the US has none.
    ("china", {"anti_us": 2}, {"anti_us": 4}),
    ("china", {}, {"anti_us": 2}),
])
def test_iran_nuclear_talks_sanctions(side, iran, after) -> None:
    g = start(side, "Iran Nuclear Talks")
    g.set_influence("Iran", **iran)
    changed = board_after_event(g, "Iran Nuclear Talks", ("option", 1))
    assert changed == ({"Iran": after} if after != iran else {})


@pytest.mark.parametrize("side", ["usa", "china"])
def test_six_party_talks_diplomacy_own_in_both_koreas_and_stays(side) -> None:
    g = start(side, "Six-Party Talks")
    g.set_track("diplomacy", 2)
    set_board(g, {"North Korea": {"china": 4, "anti_us": 3}, "South Korea": {"usa": 3}})
    nk = {"usa": {"china": 4, "anti_us": 2}, "china": {"china": 5, "anti_us": 3}}[side]
    sk = {"usa": {"usa": 4}, "china": {"usa": 3, "china": 1}}[side]
    assert board_after_event(g, "Six-Party Talks") == {"diplomacy": 3, "North Korea": nk,
                                                       "South Korea": sk}
    assert loc(g, "Six-Party Talks") == LOC_NAMES[IN_PLAY]


def test_six_party_talks_prevents_north_korean_nuclear_test() -> None:
    g = start("usa", "Six-Party Talks")
    play(g, "Six-Party Talks", "event")
    quiet_advance(g, "card", "china")
    g.set_hand("china", ["North Korean Nuclear Test", FILLER])
    assert "event" not in legal_modes(g, "North Korean Nuclear Test")
    assert "place" in legal_modes(g, "North Korean Nuclear Test")
    quiet_advance(g, "card", "usa")
    g.set_hand("usa", ["North Korean Nuclear Test", FILLER])
    clear(g, "Canada")
    before = snapshot(g)
    play(g, "North Korean Nuclear Test", "place")  # China's event is prevented: no order
    answer(g, "Canada", "Canada")
    assert changes(g, before) == {"Canada": {"usa": 2}}
    assert loc(g, "North Korean Nuclear Test") == LOC_NAMES[DISCARD]  # "*" not removed


EURO_BOARD = {"Greece": {"usa": 1}, "Italy": {"usa": 2}, "Spain/Portugal": {"china": 1}}


def test_european_debt_crisis_played_by_the_us() -> None:
    g = start("usa", "European Debt Crisis")
    set_board(g, EURO_BOARD)
    before = snapshot(g)
    play(g, "European Debt Crisis", "event")
    assert g.decision.player == "usa"
    assert legal_countries(g) == {"Greece", "Italy", "Spain/Portugal"}
    answer(g, "Spain/Portugal", "Italy")
    assert changes(g, before) == {"Greece": {}, "Spain/Portugal": {"usa": 1, "china": 1},
                                  "reserves_usa": -1}  # Italy: 2 - 1 + 1
    assert loc(g, "European Debt Crisis") == LOC_NAMES[REMOVED]


def test_european_debt_crisis_played_by_china() -> None:
    g = start("china", "European Debt Crisis")
    set_board(g, EURO_BOARD)
    g.set_reserves("china", 0)
    before = snapshot(g)
    play(g, "European Debt Crisis", "event")
    answer(g, "Greece", "Italy")
    assert changes(g, before) == {"Greece": {"china": 1}, "Italy": {"usa": 1, "china": 1}}


@pytest.mark.parametrize("side, sudan, after", [
    ("usa", {"china": 1, "anti_us": 2}, {"anti_us": 2}),  # CN stops at 0
    ("china", {"usa": 1, "china": 1}, {"anti_us": 1, "china": 1}),  # US shortfall: AU
    ("china", {"china": 1}, {"anti_us": 2, "china": 1}),  # 2.1.8.6, R1: no US, all shortfall
])
def test_darfur_crisis_security_and_opponent_reduced_in_sudan(side, sudan, after) -> None:
    g = start(side, "Darfur Crisis")
    g.set_influence("Sudan/South Sudan", **sudan)
    assert board_after_event(g, "Darfur Crisis") == {"regional_security": 2,
                                                     "Sudan/South Sudan": after}
    assert loc(g, "Darfur Crisis") == LOC_NAMES[REMOVED]


@pytest.mark.parametrize("side", ["usa", "china"])
def test_gulf_of_aden_patrols_one_own_in_somalia_or_yemen_and_a_reserve(side) -> None:
    g = start(side, "Gulf of Aden Patrols", filler="Copenhagen Climate Summit")
    clear(g, "Somalia", "Yemen")
    before = snapshot(g)
    play(g, "Gulf of Aden Patrols", "event")
    assert legal_countries(g) == {"Somalia", "Yemen"}
    answer(g, "Yemen")
    assert changes(g, before) == {"Yemen": {side: 1}, f"reserves_{side}": 1}
    assert loc(g, "Gulf of Aden Patrols") == LOC_NAMES[DISCARD]


TSUNAMI = ["Indonesia", "Thailand", "India", "Malaysia", "Myanmar"]


@pytest.mark.parametrize("side", ["usa", "china"])
def test_indian_ocean_tsunami_three_own_at_most_one_each(side) -> None:
    g = start(side, "Indian Ocean Tsunami")
    clear(g, *TSUNAMI)
    before = snapshot(g)
    play(g, "Indian Ocean Tsunami", "event")
    assert g.decision.player == side and legal_countries(g) == set(TSUNAMI)
    answer(g, "India")
    assert legal_countries(g) == set(TSUNAMI) - {"India"}
    answer(g, "Indonesia", "Myanmar")
    assert changes(g, before) == {c: {side: 1} for c in ("India", "Indonesia", "Myanmar")}
    assert loc(g, "Indian Ocean Tsunami") == LOC_NAMES[REMOVED]


@pytest.mark.parametrize("side", ["usa", "china"])
def test_wikileaks_cables_reveal_the_opponent_hand_and_draw_one(side) -> None:
    g = start(side, "WikiLeaks Cables")
    other = OTHER[side]
    g.set_hand(other, ["Harmonious Society", "Pivot to Asia", "Mumbai Attacks"])
    drawn_from = set(np.flatnonzero(g.state.card_loc == DRAW))
    assert board_after_event(g, "WikiLeaks Cables") == {}
    shown = {g.content.cards[i].name
             for i in np.flatnonzero(g.state.revealed[("usa", "china").index(other)])}
    assert shown == {"Harmonious Society", "Pivot to Asia", "Mumbai Attacks"}
    hand = g.hand(side)
    assert len(hand) == 2 and FILLER in hand
    (new,) = set(hand) - {FILLER}
    assert card_index(g, new) in drawn_from
    assert loc(g, "WikiLeaks Cables") == LOC_NAMES[REMOVED]


@pytest.mark.parametrize("side", ["usa", "china"])
def test_commodity_boom_reserves_option(side) -> None:
    g = start(side, "Commodity Boom")
    assert board_after_event(g, "Commodity Boom", ("option", 0)) == {f"reserves_{side}": 2}
    assert loc(g, "Commodity Boom") == LOC_NAMES[DISCARD]


@pytest.mark.parametrize("side", ["usa", "china"])
def test_commodity_boom_influence_option(side) -> None:
    g = start(side, "Commodity Boom")
    producers = ["Angola", "Nigeria", "Brazil", "Venezuela", "Gulf States"]
    clear(g, *producers)
    before = snapshot(g)
    play_option(g, "Commodity Boom", side, 1)
    assert legal_countries(g) == set(producers)
    answer(g, "Angola")
    assert "Angola" not in legal_countries(g)
    answer(g, "Brazil")
    assert changes(g, before) == {"Angola": {side: 1}, "Brazil": {side: 1}}


@pytest.mark.parametrize("side", ["usa", "china"])
def test_mumbai_attacks_security_and_one_own_in_india(side) -> None:
    g = start(side, "Mumbai Attacks")
    g.set_influence("India", usa=1, china=1)
    india = {"usa": {"usa": 2, "china": 1}, "china": {"usa": 1, "china": 2}}[side]
    assert board_after_event(g, "Mumbai Attacks") == {"regional_security": 2, "India": india}
    assert loc(g, "Mumbai Attacks") == LOC_NAMES[REMOVED]


@pytest.mark.parametrize("side", ["usa", "china"])
@pytest.mark.parametrize("diplomacy", [2, 3])
def test_strategic_economic_dialogue_diplomacy_and_a_reserve(side, diplomacy) -> None:
    g = start(side, "Strategic and Economic Dialogue")
    g.set_track("diplomacy", diplomacy)
    # Below 3: diplomacy +1 and 1 reserve; at 3: 2 reserves (issue 19: never empty).
    expected = {f"reserves_{side}": 1, "diplomacy": 3} if diplomacy < 3 else {
        f"reserves_{side}": 2}
    assert board_after_event(g, "Strategic and Economic Dialogue") == expected
    assert loc(g, "Strategic and Economic Dialogue") == LOC_NAMES[DISCARD]


@pytest.mark.parametrize("side", ["usa", "china"])
@pytest.mark.parametrize("diplomacy", [2, 3])
def test_copenhagen_climate_summit(side, diplomacy) -> None:
    g = start(side, "Copenhagen Climate Summit")
    g.set_track("diplomacy", diplomacy)
    want = {"diplomacy": 3} if diplomacy == 2 else {f"reserves_{OTHER[side]}": -1,
                                                     f"reserves_{side}": 1}
    assert board_after_event(g, "Copenhagen Climate Summit") == want
    assert loc(g, "Copenhagen Climate Summit") == LOC_NAMES[DISCARD]


# ================================================================== the deck


def test_mid_deck_shape() -> None:
    cards = mid_cards()
    assert len(cards) >= 42
    sides = Counter(c.side for c in cards)
    assert all(len(cards) / 4 <= sides[s] <= len(cards) / 2.5 for s in ("usa", "china",
                                                                       "neutral")), sides
    ops = Counter(c.ops for c in cards)
    for value, share in ((1, 0.15), (2, 0.30), (3, 0.35), (4, 0.20)):
        assert abs(ops[value] / len(cards) - share) <= 0.05, (value, ops)
    assert sum(c.persistent is not None for c in cards) >= 4
    assert sum(c.removed for c in cards) >= 10
    wars = {c.id for c in cards if any(e.op == "war" for e in c.effects)}
    assert wars == {"afghan_war", "iraq_war"}
    assert {c.id for c in cards if c.russia} == {"abm_treaty_withdrawal"}
    ids = {c.id for c in Game(0).content.cards}
    assert {"september_11", "war_on_terror"} <= ids
    by_name = {c.name: c for c in cards}
    assert by_name["9/11"].zh == "911事件"
    assert by_name["ABM Treaty Withdrawal"].zh == "退出反弹道导弹条约"


def test_hainan_island_incident_is_a_mid_era_card() -> None:
    """April 2001: it enters with the mid-era deck (turn 4, R12), 9/11's era."""
    c = Game(0).content
    cd = c.cards[c.card_by_id["hainan_island_incident"]]
    assert (cd.era, cd.requires) == ("mid", [])
    assert cd.era == c.cards[c.card_by_id["september_11"]].era


def test_hainan_island_incident_reveals_the_us_hand_and_gives_one_vp() -> None:
    g = start("china", "Hainan Island Incident")
    us_hand = sorted(g.hand("usa"))
    assert board_after_event(g, "Hainan Island Incident") == {"vp_china": 1}
    shown = {g.content.cards[i].name for i in np.flatnonzero(g.state.revealed[0])}
    assert sorted(shown) == us_hand
    assert loc(g, "Hainan Island Incident") == LOC_NAMES[REMOVED]
    assert sorted(g.resample_hidden("china", 3).hand("usa")) == sorted(g.hand("usa"))


def test_every_mid_card_has_a_test_named_after_its_id() -> None:
    names = [n for n in globals() if n.startswith("test_")]
    missing = [c.id for c in mid_cards() if not any(c.id in n for n in names)]
    assert missing == []
