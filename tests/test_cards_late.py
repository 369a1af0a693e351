"""Behaviour of every late base card (data/cards_late.toml), checked against the card's
own text.

Each test plays the card in an action round of a quiet game (tests/helpers.py:
`quiet_round`; `set_hand` works for cards of any era), after setting the influence and
tracks the event depends on, and asserts the exact change of the board (`changes`:
influence after, tracks after, VP / reserve deltas), the card's location and any ongoing
effect.  Test names carry the card id (see the meta-test at the end).
"""

from __future__ import annotations

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
from evenstar_env.engine.constants import (
    DISCARD,
    IN_PLAY,
    LOC_NAMES,
    M_RW_ADDED,
    M_RW_K,
    M_RW_STATE,
    REMOVED,
    RW_ACTIVE,
    RW_NONE,
    RW_WAITING,
)

OTHER = {"usa": "china", "china": "usa"}
# Neutral cards that keep a hand from being empty or a card choice from being forced
# (a decision with one legal action is taken at once); a card is in one hand only.
FILLERS = {"usa": ("Comprehensive Test Ban Treaty", "APEC Leaders' Meeting"),
           "china": ("Oil-for-Food Programme", "Oslo Accords")}

BRI = ["Central Asia", "Mongolia", "Pakistan", "Bangladesh", "Iran", "Egypt", "Kenya",
       "Ethiopia", "Greece", "Serbia"]
HUAWEI = ["United Kingdom", "Canada", "Australia", "New Zealand", "Japan", "Germany", "France",
          "Italy", "Poland", "Scandinavia"]
INDO_PACIFIC = ["Japan", "South Korea", "Philippines", "Vietnam", "Singapore", "Australia"]


# ------------------------------------------------------------------ helpers


def card_index(g: Game, name: str) -> int:
    return g.content.card_by_name[name]


def loc(g: Game, name: str) -> str:
    return LOC_NAMES[int(g.state.card_loc[card_index(g, name)])]


def event_played(g: Game, name: str) -> bool:
    return bool(g.state.event_played[card_index(g, name)])


def start(side: str, card: str, turn: int = 1) -> Game:
    """A quiet game at `side`'s card choice, with `card` (and a filler) in hand."""
    g = quiet_round(side, turn)
    g.set_hand(side, [card, FILLERS[side][0]])
    return g


def next_round(g: Game, side: str, *cards: str) -> Game:
    """Advance quietly to `side`'s next card choice, holding `cards` and a filler.
    The opponent holds only its two neutral fillers and plays one for ops in between:
    no event happens on the way."""
    other = OTHER[side]
    g.set_hand(other, list(FILLERS[other]))
    g.set_hand(side, [*cards, FILLERS[side][0]])  # two cards or more: the choice is asked
    quiet_advance(g, "card", side)
    return g


def answer_rest(g: Game) -> None:
    """Answer every remaining influence pick of the current effect with its first legal action."""
    while g.decision.kind == "influence":
        g.step(g.decision.legal[0])


def rw(g: Game) -> tuple[int, int, int]:
    """The Russia–Ukraine war state: (state, k, US points added this turn) (R19)."""
    m = g.state.misc
    return int(m[M_RW_STATE]), int(m[M_RW_K]), int(m[M_RW_ADDED])


def end_phase_g(g: Game) -> None:
    """Empty both hands: every remaining round is skipped and phase G ends (R13, R19)."""
    g.set_hand("usa", [])
    g.set_hand("china", [])
    while g.decision.kind == "spend":  # a spend asked before the hand was emptied
        do(g, "done")


def without(g: Game, card: str) -> Game:
    """The same game with `card` out of play (in the discards): a control for ongoing effects."""
    h = g.clone()
    h.state.card_loc[card_index(h, card)] = DISCARD
    h.set_reserves("usa", h.reserves["usa"])  # re-ask the pending decision
    return h


# ====================================================================== USA


def test_us_china_trade_war_lowers_china_economy_and_stays_in_play() -> None:
    g = start("usa", "US–China Trade War")
    g.set_track("economy_china", 6)
    assert board_after_event(g, "US–China Trade War") == {"economy_china": 5}
    assert loc(g, "US–China Trade War") == LOC_NAMES[IN_PLAY]


def test_us_china_trade_war_in_play_costs_china_a_reserve_each_economy_phase() -> None:
    g = start("usa", "US–China Trade War")
    play(g, "US–China Trade War", "event")
    control = without(g, "US–China Trade War")
    for h in (g, control):
        empty_hands_to_next_turn(h, "modifier", "usa")  # turn 2, phase D: after phase H
    assert g.reserves["china"] == control.reserves["china"] - 1
    assert g.reserves["usa"] == control.reserves["usa"]
    assert loc(g, "US–China Trade War") == LOC_NAMES[IN_PLAY]


def test_huawei_5g_ban_us_reduces_three_cn_at_most_one_per_listed_country() -> None:
    g = start("usa", "Huawei 5G Ban")
    clear(g, *HUAWEI)
    g.set_influence("Japan", usa=2, china=2)
    g.set_influence("United Kingdom", usa=4, china=1)
    g.set_influence("Australia", china=1)
    g.set_influence("Mongolia", china=2)  # not listed
    before = snapshot(g)
    play(g, "Huawei 5G Ban", "event")
    assert g.decision.kind == "influence" and g.decision.player == "usa"
    assert legal_countries(g) == {"Japan", "United Kingdom", "Australia"}
    answer(g, "Japan")
    assert legal_countries(g) == {"United Kingdom", "Australia"}
    answer(g, "United Kingdom")  # the last point is forced into Australia (taken at once)
    assert changes(g, before) == {"Japan": {"usa": 2, "china": 1},
                                  "United Kingdom": {"usa": 4}, "Australia": {}}
    assert loc(g, "Huawei 5G Ban") == LOC_NAMES[IN_PLAY]


def test_huawei_5g_ban_in_play_prevents_digital_silk_road() -> None:
    g = start("china", "Belt and Road Initiative")
    play(g, "Belt and Road Initiative", "event")
    answer_rest(g)
    next_round(g, "usa", "Huawei 5G Ban")
    play(g, "Huawei 5G Ban", "event")
    answer_rest(g)
    next_round(g, "china", "Digital Silk Road")
    assert event_played(g, "Belt and Road Initiative")
    assert "event" not in legal_modes(g, "Digital Silk Road")
    assert "place" in legal_modes(g, "Digital Silk Road")
    assert "event" in legal_modes(without(g, "Huawei 5G Ban"), "Digital Silk Road")


def test_ai_chip_export_controls_before_the_chips_act_only_moves_tech_back() -> None:
    """No prerequisite since issue 19: without the CHIPS Act, China discards nothing."""
    g = start("usa", "AI Chip Export Controls")
    g.set_hand("china", ["RCEP", "Belt and Road Initiative"])
    g.set_track("tech_china", 3)
    assert board_after_event(g, "AI Chip Export Controls") == {"tech_china": 2}
    assert sorted(g.hand("china")) == ["Belt and Road Initiative", "RCEP"]


def test_ai_chip_export_controls_after_chips_act_tech_back_and_china_discards() -> None:
    g = start("usa", "CHIPS and Science Act")
    play(g, "CHIPS and Science Act", "event")
    next_round(g, "usa", "AI Chip Export Controls")
    china = ["RCEP", "Belt and Road Initiative", "Wolf Warrior Diplomacy"]  # ops 3, 4, 1
    g.set_hand("china", china)
    g.set_track("tech_china", 3)
    assert "event" in legal_modes(g, "AI Chip Export Controls")
    before = snapshot(g)
    play(g, "AI Chip Export Controls", "event")
    assert g.decision.kind == "discard" and g.decision.player == "china"
    assert set(g.decision.legal) == {g.action_id("card", "RCEP"),
                                     g.action_id("card", "Belt and Road Initiative")}
    do(g, "card", "RCEP")
    assert changes(g, before) == {"tech_china": 2}  # no box effect is undone
    assert sorted(g.hand("china")) == sorted(["Belt and Road Initiative",
                                              "Wolf Warrior Diplomacy"])
    assert loc(g, "RCEP") == LOC_NAMES[DISCARD] and not event_played(g, "RCEP")  # 5.4
    assert loc(g, "AI Chip Export Controls") == LOC_NAMES[REMOVED]


def test_ai_chip_export_controls_without_a_big_china_card_nothing_is_discarded() -> None:
    g = start("usa", "AI Chip Export Controls")
    g.state.event_played[card_index(g, "CHIPS and Science Act")] = True
    g.set_hand("china", ["Wolf Warrior Diplomacy", "Digital Silk Road"])  # ops 1, 2
    g.set_track("tech_china", 0)
    assert board_after_event(g, "AI Chip Export Controls") == {}  # tech already at its start
    assert sorted(g.hand("china")) == ["Digital Silk Road", "Wolf Warrior Diplomacy"]


def test_chips_act_advances_us_tech_and_gives_the_next_us_card_one_op() -> None:
    g = start("usa", "CHIPS and Science Act")
    g.set_track("tech_usa", 0)
    assert board_after_event(g, "CHIPS and Science Act") == {
        "tech_usa": 1, "vp_usa": 1}  # box 1, Internet Age: US +1 VP
    assert loc(g, "CHIPS and Science Act") == LOC_NAMES[REMOVED]
    next_round(g, "china", "RCEP")
    assert ops_shown(g, "RCEP") == 3  # China's cards are not affected
    next_round(g, "usa", "Quad", "AUKUS")
    assert ops_shown(g, "Quad") == 4 and ops_shown(g, "AUKUS") == 4
    play(g, "Quad", "place")  # the bonus is used by this play ...
    answer_rest(g)
    while g.decision.kind == "place":
        g.step(g.decision.legal[0])
    next_round(g, "usa", "AUKUS")
    assert ops_shown(g, "AUKUS") == 3  # ... and only this one


def test_aukus_adds_us_makes_australia_non_realignable_and_lowers_security() -> None:
    g = start("usa", "AUKUS")
    g.set_influence("Australia", usa=1)
    g.set_influence("United Kingdom", usa=4)
    g.set_track("regional_security", 3)
    assert board_after_event(g, "AUKUS") == {
        "Australia": {"usa": 3}, "United Kingdom": {"usa": 5}, "regional_security": 2}
    assert loc(g, "AUKUS") == LOC_NAMES[REMOVED]
    next_round(g, "china", "RCEP")
    g.set_influence("Japan", usa=2)
    play(g, "RCEP", "realign")
    targets = legal_countries(g)
    assert "Australia" not in targets and "Japan" in targets


@pytest.mark.parametrize("japan, vp", [(1, 1), (0, 0)])
def test_quad_adds_one_us_in_three_and_vp_if_japan_and_australia_controlled(japan,
                                                                          vp) -> None:
    g = start("usa", "Quad")
    g.set_influence("Japan", usa=japan)   # stab 2: 2 US controls
    g.set_influence("Australia", usa=3)   # stab 4: 4 US controls
    g.set_influence("India", china=1)
    expected = {"Japan": {"usa": japan + 1}, "Australia": {"usa": 4},
                "India": {"usa": 1, "china": 1}}
    if vp:
        expected["vp_usa"] = 1
    assert board_after_event(g, "Quad") == expected
    assert loc(g, "Quad") == LOC_NAMES[DISCARD]


def test_hong_kong_protests_lower_china_social() -> None:
    g = start("usa", "Hong Kong Protests")
    g.set_track("social_china", 6)
    assert board_after_event(g, "Hong Kong Protests") == {"social_china": 5}
    assert loc(g, "Hong Kong Protests") == LOC_NAMES[REMOVED]


@pytest.mark.parametrize("reserves, lost", [(3, 2), (1, 1)])
def test_xinjiang_sanctions_cost_china_reserves_and_central_asia_cn(reserves, lost) -> None:
    g = start("usa", "Xinjiang Sanctions")
    g.set_reserves("china", reserves)
    g.set_influence("Central Asia", china=2)
    assert board_after_event(g, "Xinjiang Sanctions") == {
        "reserves_china": -lost, "Central Asia": {"china": 1}}  # reserves never below 0
    assert loc(g, "Xinjiang Sanctions") == LOC_NAMES[REMOVED]  # "*" since issue 19


def test_indo_pacific_strategy_adds_two_us_at_most_one_per_country_and_stays() -> None:
    g = start("usa", "Indo-Pacific Strategy")
    clear(g, *INDO_PACIFIC)
    before = snapshot(g)
    play(g, "Indo-Pacific Strategy", "event")
    assert g.decision.player == "usa" and legal_countries(g) == set(INDO_PACIFIC)
    answer(g, "Vietnam")
    assert legal_countries(g) == set(INDO_PACIFIC) - {"Vietnam"}
    answer(g, "Philippines")
    assert changes(g, before) == {"Vietnam": {"usa": 1}, "Philippines": {"usa": 1}}
    assert loc(g, "Indo-Pacific Strategy") == LOC_NAMES[IN_PLAY]


def test_indo_pacific_strategy_adds_one_us_at_the_start_of_each_turn() -> None:
    g = start("usa", "Indo-Pacific Strategy")
    play(g, "Indo-Pacific Strategy", "event")
    answer_rest(g)
    empty_hands_to_next_turn(g, "influence", "usa")
    assert g.turn == 2 and g.phase == "improve"  # phase A
    assert legal_countries(g) == set(INDO_PACIFIC)
    g.set_influence("Singapore", usa=1)
    before = snapshot(g)
    answer(g, "Singapore")
    assert changes(g, before) == {"Singapore": {"usa": 2}}
    assert g.decision.kind == "modifier"  # phase A done; phase D of turn 2 is next


def test_maximum_pressure_on_iran_before_the_iran_deal_gives_no_vp() -> None:
    g = start("usa", "Maximum Pressure on Iran")
    g.set_influence("Iran", china=3, anti_us=2)
    g.set_reserves("china", 2)
    g.set_track("regional_security", 3)
    assert board_after_event(g, "Maximum Pressure on Iran") == {
        "Iran": {"china": 1, "anti_us": 2}, "reserves_china": -1, "regional_security": 2}


def test_maximum_pressure_on_iran_after_the_deal_cuts_cn_reserve_and_security() -> None:
    g = start("china", "Iran Nuclear Deal (JCPOA)")
    play(g, "Iran Nuclear Deal (JCPOA)", "event")
    next_round(g, "usa", "Maximum Pressure on Iran")
    g.set_influence("Iran", china=3, anti_us=2)
    g.set_reserves("china", 2)
    g.set_track("regional_security", 3)
    assert board_after_event(g, "Maximum Pressure on Iran") == {
        "Iran": {"china": 1, "anti_us": 2}, "reserves_china": -1, "regional_security": 2,
        "vp_usa": 1}  # the US withdraws from the deal
    assert loc(g, "Maximum Pressure on Iran") == LOC_NAMES[REMOVED]


def test_western_aid_to_ukraine_adds_two_us_removing_au_first_and_costs_a_reserve() -> None:
    g = start("usa", "Western Aid to Ukraine")
    g.set_influence("Ukraine", anti_us=1, china=1)
    g.set_reserves("usa", 2)
    assert board_after_event(g, "Western Aid to Ukraine") == {
        "Ukraine": {"usa": 1, "china": 1}, "reserves_usa": -1}
    assert loc(g, "Western Aid to Ukraine") == LOC_NAMES[DISCARD]


def test_operation_warp_speed_is_no_event_before_covid() -> None:
    g = start("usa", "Operation Warp Speed")
    assert "event" not in legal_modes(g, "Operation Warp Speed")


def test_operation_warp_speed_cancels_covid_and_raises_us_social() -> None:
    g = start("china", "COVID-19 Pandemic")
    g.force_dice([1])
    play(g, "COVID-19 Pandemic", "event")
    next_round(g, "usa", "Operation Warp Speed", "Quad")
    assert ops_shown(g, "Quad") == 2
    g.set_track("social_usa", 7)
    assert board_after_event(g, "Operation Warp Speed") == {"social_usa": 8}
    assert loc(g, "COVID-19 Pandemic") == LOC_NAMES[REMOVED]  # cancelled: leaves the game
    assert loc(g, "Operation Warp Speed") == LOC_NAMES[REMOVED]
    next_round(g, "usa", "Quad")
    assert ops_shown(g, "Quad") == 3


def test_operation_warp_speed_after_covid_was_cancelled_only_raises_social() -> None:
    g = start("usa", "Operation Warp Speed")
    g.state.event_played[card_index(g, "COVID-19 Pandemic")] = True  # played and cancelled
    covid = loc(g, "COVID-19 Pandemic")
    g.set_track("social_usa", 7)
    assert board_after_event(g, "Operation Warp Speed") == {"social_usa": 8}
    assert loc(g, "COVID-19 Pandemic") == covid


# ==================================================================== CHINA


def bri_setup(g: Game) -> set[str]:
    """Clear the Belt and Road countries, make the Philippines US-controlled: the pool."""
    wipe_region(g, "Southeast Asia")
    clear(g, *BRI)
    g.set_influence("Philippines", usa=2)  # stab 2: US-controlled, not eligible
    g.set_influence("Iran", usa=1)         # US present but not in control: eligible
    return (set(BRI) | countries_of("Southeast Asia")) - {"Philippines"}


def test_belt_and_road_adds_three_cn_outside_us_control_and_stays_in_play() -> None:
    g = start("china", "Belt and Road Initiative")
    pool = bri_setup(g)
    before = snapshot(g)
    play(g, "Belt and Road Initiative", "event")
    assert g.decision.kind == "influence" and g.decision.player == "china"
    assert legal_countries(g) == pool
    answer(g, "Pakistan")
    assert legal_countries(g) == pool - {"Pakistan"}
    answer(g, "Iran", "Myanmar")
    assert changes(g, before) == {"Pakistan": {"china": 1}, "Iran": {"usa": 1, "china": 1},
                                  "Myanmar": {"china": 1}}
    assert loc(g, "Belt and Road Initiative") == LOC_NAMES[IN_PLAY]


def test_belt_and_road_adds_two_cn_at_the_start_of_each_turn() -> None:
    g = start("china", "Belt and Road Initiative")
    play(g, "Belt and Road Initiative", "event")
    answer_rest(g)
    pool = bri_setup(g)
    g.set_influence("Kenya", usa=2)  # stab 2: US-controlled, not eligible
    empty_hands_to_next_turn(g, "influence", "china")
    assert g.turn == 2 and g.phase == "improve"
    assert legal_countries(g) == pool - {"Kenya"}
    before = snapshot(g)
    answer(g, "Ethiopia")
    assert legal_countries(g) == pool - {"Kenya", "Ethiopia"}
    answer(g, "Serbia")
    assert changes(g, before) == {"Ethiopia": {"china": 1}, "Serbia": {"china": 1}}
    assert g.decision.kind == "modifier"  # phase A done; phase D of turn 2 is next


def test_belt_and_road_gives_china_one_reserve_each_economy_phase() -> None:
    g = start("china", "Belt and Road Initiative")
    play(g, "Belt and Road Initiative", "event")
    answer_rest(g)
    control = without(g, "Belt and Road Initiative")
    for h in (g, control):
        empty_hands_to_next_turn(h, "modifier", "usa")
    assert g.reserves["china"] == control.reserves["china"] + 1
    assert g.reserves["usa"] == control.reserves["usa"]
    assert loc(g, "Belt and Road Initiative") == LOC_NAMES[IN_PLAY]


def test_belt_and_road_is_never_cancelled_by_any_card() -> None:
    """7.2: the Belt and Road event lasts the whole game."""
    g = Game(0)
    bri = g.content.cards[card_index(g, "Belt and Road Initiative")]
    assert bri.persistent is not None and bri.persistent.cancelled_by == []

    def cancels(effects) -> bool:
        for e in effects:
            if e.op == "cancel" and e.card == "belt_and_road":
                return True
            for sub in ("then", "otherwise", "effects", "success", "failure"):
                if cancels(getattr(e, sub, []) or []):
                    return True
            for o in getattr(e, "options", None) or getattr(e, "outcomes", None) or []:
                if cancels(o.effects):
                    return True
        return False

    assert not any(cancels(c.effects) for c in g.content.cards)


def test_south_china_sea_island_building_reduces_us_vp_and_security() -> None:
    g = start("china", "South China Sea Island Building")
    g.set_influence("Philippines", usa=2)
    g.set_influence("Vietnam", china=2)
    g.set_influence("Malaysia", usa=1)
    g.set_influence("Indonesia", usa=1)
    g.set_track("regional_security", 3)
    before = snapshot(g)
    play(g, "South China Sea Island Building", "event")
    assert g.decision.player == "china"
    assert legal_countries(g) == {"Philippines", "Malaysia", "Indonesia"}  # only where US is
    answer(g, "Philippines")
    assert legal_countries(g) == {"Malaysia", "Indonesia"}
    answer(g, "Malaysia")
    assert changes(g, before) == {"Philippines": {"usa": 1}, "Malaysia": {},
                                  "vp_china": 1, "regional_security": 2}
    assert loc(g, "South China Sea Island Building") == LOC_NAMES[REMOVED]


def test_annexation_of_crimea_adds_au_in_ukraine_and_advances_russia() -> None:
    g = start("china", "Annexation of Crimea")
    g.set_influence("Ukraine", usa=1, china=1)
    clear(g, "Russia")
    g.set_track("russia", 0)
    assert board_after_event(g, "Annexation of Crimea") == {
        "Ukraine": {"anti_us": 1, "china": 1},  # the US point goes first (R1)
        "Russia": {"usa": 1}, "russia": 1}  # box 1, Privatization
    assert loc(g, "Annexation of Crimea") == LOC_NAMES[REMOVED]


def test_annexation_of_crimea_into_the_war_box_waits_while_ukraine_is_au_controlled() -> None:
    """8.1.5 / R19: the box starts the war, but Ukraine is then AU-controlled (China-controlled
    in the card sense): the war begins when it stops being so; US points added before do
    not count."""
    g = start("china", "Annexation of Crimea")
    clear(g, "Ukraine")
    g.set_track("russia", 8)
    assert board_after_event(g, "Annexation of Crimea") == {
        "Ukraine": {"anti_us": 2}, "russia": 9}
    assert rw(g)[0] == RW_WAITING
    next_round(g, "usa", "Western Aid to Ukraine")
    play(g, "Western Aid to Ukraine", "event")
    assert g.influence("Ukraine") == {"usa": 0, "china": 0, "anti_us": 0}
    assert rw(g) == (RW_ACTIVE, 1, 0)


def test_russia_ukraine_war_is_no_event_before_the_putin_box() -> None:
    g = start("china", "Russia–Ukraine War")
    g.set_track("russia", 4)
    assert "event" not in legal_modes(g, "Russia–Ukraine War")
    g.set_track("russia", 5)
    assert "event" in legal_modes(g, "Russia–Ukraine War")


def test_russia_ukraine_war_starts_the_war_adds_au_and_lowers_security() -> None:
    g = start("china", "Russia–Ukraine War")
    g.set_track("russia", 5)
    g.set_track("regional_security", 3)
    g.set_influence("Ukraine", usa=1)
    assert rw(g)[0] == RW_NONE
    assert board_after_event(g, "Russia–Ukraine War") == {
        "Ukraine": {"anti_us": 1}, "regional_security": 2}
    assert rw(g) == (RW_ACTIVE, 1, 0)  # R19: the US must add 1 to Ukraine this turn
    assert g.track("russia") == 5  # the track itself does not move
    assert loc(g, "Russia–Ukraine War") == LOC_NAMES[REMOVED]


def test_russia_ukraine_war_unmet_requirement_penalises_the_us_at_the_end_of_g() -> None:
    g = start("china", "Russia–Ukraine War")
    g.set_track("russia", 5)
    clear(g, "Ukraine")
    vp = g.vp["china"]
    play(g, "Russia–Ukraine War", "event")
    europe = sorted(countries_of("Europe") - {"Ukraine"})
    us_before = sum(g.influence(c)["usa"] for c in europe)
    assert us_before >= 4
    end_phase_g(g)  # no card left: phase G ends, the war check fails (R19)
    assert g.vp["china"] == vp + 2
    # R19: all US removed (there is none) and 3 AU placed, on top of the card's 2 AU
    assert g.influence("Ukraine") == {"usa": 0, "china": 0, "anti_us": 5}
    for _ in range(4):
        assert g.decision.kind == "influence" and g.decision.player == "china"
        assert legal_countries(g) <= countries_of("Europe")
        g.step(g.decision.legal[0])
    assert sum(g.influence(c)["usa"] for c in europe) == us_before - 4


def test_russia_ukraine_war_met_by_western_aid_then_two_next_turn() -> None:
    g = start("china", "Russia–Ukraine War")
    g.set_track("russia", 5)
    clear(g, "Ukraine")
    g.set_track("economy_usa", 8)
    g.set_track("economy_china", 7)  # phase H gives China no VP
    play(g, "Russia–Ukraine War", "event")
    next_round(g, "usa", "Western Aid to Ukraine")
    g.set_hand("china", [])
    vp = g.vp["china"]
    play(g, "Western Aid to Ukraine", "event")  # removes the 2 AU: 2 points count (R19)
    assert rw(g) == (RW_ACTIVE, 1, 2)
    empty_hands_to_next_turn(g, "modifier", "usa")
    assert g.vp["china"] == vp
    assert g.influence("Ukraine") == {"usa": 0, "china": 0, "anti_us": 0}
    assert rw(g) == (RW_ACTIVE, 2, 0)  # phase B of turn 2: the second active turn needs 2


def test_russia_ukraine_war_waits_while_ukraine_is_china_controlled() -> None:
    g = start("china", "Russia–Ukraine War")
    g.set_track("russia", 6)
    g.set_influence("Ukraine", china=3)
    vp = g.vp["china"]
    play(g, "Russia–Ukraine War", "event")
    assert rw(g)[0] == RW_WAITING
    assert g.influence("Ukraine") == {"usa": 0, "china": 3, "anti_us": 2}
    end_phase_g(g)  # the end of phase G: no requirement yet, no penalty
    assert g.vp["china"] == vp
    assert g.influence("Ukraine") == {"usa": 0, "china": 3, "anti_us": 2}


def test_russia_ukraine_war_box_reached_later_does_not_restart_the_war() -> None:
    g = start("china", "Russia–Ukraine War")
    g.set_track("russia", 8)
    clear(g, "Ukraine")
    play(g, "Russia–Ukraine War", "event")
    next_round(g, "usa", "Western Aid to Ukraine")
    play(g, "Western Aid to Ukraine", "event")
    assert rw(g) == (RW_ACTIVE, 1, 2)
    next_round(g, "china", "Annexation of Crimea")
    play(g, "Annexation of Crimea", "event")  # Russia track box 9: Russia–Ukraine War
    assert g.track("russia") == 9
    assert rw(g) == (RW_ACTIVE, 1, 2)  # not restarted: the US's 2 points still count


def test_russia_ukraine_war_card_after_the_war_box_does_not_restart_the_war() -> None:
    g = start("china", "Annexation of Crimea")
    g.set_track("russia", 8)
    g.set_influence("Ukraine", usa=3)
    play(g, "Annexation of Crimea", "event")  # Ukraine 1 US: not China-controlled
    assert rw(g) == (RW_ACTIVE, 1, 0)
    next_round(g, "usa", "Western Aid to Ukraine")
    play(g, "Western Aid to Ukraine", "event")
    assert rw(g) == (RW_ACTIVE, 1, 2)
    next_round(g, "china", "Russia–Ukraine War")
    assert "event" in legal_modes(g, "Russia–Ukraine War")
    play(g, "Russia–Ukraine War", "event")
    assert rw(g) == (RW_ACTIVE, 1, 0 + 2)
    assert g.influence("Ukraine") == {"usa": 1, "china": 0, "anti_us": 0}


def test_russia_ukraine_war_played_by_the_us_for_ops_starts_the_war_for_china() -> None:
    g = start("usa", "Russia–Ukraine War")
    g.set_track("russia", 5)
    g.set_track("regional_security", 3)
    clear(g, "Ukraine", "Canada")
    before = snapshot(g)
    play(g, "Russia–Ukraine War", "place")
    assert g.decision.kind == "order"  # R5: China's event happens too
    do(g, "order", "event_first")
    answer(g, "Canada", "Canada", "Canada", "Canada")
    assert changes(g, before) == {"Ukraine": {"anti_us": 2}, "Canada": {"usa": 4},
                                  "regional_security": 2}
    assert rw(g) == (RW_ACTIVE, 1, 0)
    assert loc(g, "Russia–Ukraine War") == LOC_NAMES[REMOVED]


@pytest.mark.parametrize("tech, expected", [
    (0, {"tech_china": 1, "vp_china": 1, "social_china": 7, "reserves_china": 1}),  # Hybrid Rice
    (4, {"tech_china": 5, "vp_china": 2, "economy_china": 7}),  # High-Speed Rail, then +1 VP
])
def test_made_in_china_2025_tech_box_then_vp_or_reserve(tech, expected) -> None:
    g = start("china", "Made in China 2025")
    g.set_track("tech_china", tech)
    g.set_track("social_china", 6)
    g.set_track("economy_china", 6)
    assert board_after_event(g, "Made in China 2025") == expected
    assert loc(g, "Made in China 2025") == LOC_NAMES[REMOVED]


def test_digital_silk_road_without_belt_and_road_grants_two_ops() -> None:
    g = start("china", "Digital Silk Road")
    clear(g, "Myanmar")
    before = snapshot(g)
    play(g, "Digital Silk Road", "event")
    assert g.decision.kind == "granted" and g.decision.context["ops"] == 2
    do(g, "mode", "place")
    answer(g, "Myanmar", "Myanmar")
    assert changes(g, before) == {"Myanmar": {"china": 2}}


def test_digital_silk_road_grants_a_three_ops_action_in_africa_me_or_southeast_asia() -> None:
    g = start("china", "Belt and Road Initiative")
    play(g, "Belt and Road Initiative", "event")
    answer_rest(g)
    next_round(g, "china", "Digital Silk Road")
    clear(g, "Myanmar")
    before = snapshot(g)
    play(g, "Digital Silk Road", "event")
    assert g.decision.kind == "granted" and g.decision.context["ops"] == 3
    assert set(g.decision.legal) == {g.action_id("mode", "place"), g.action_id("mode", "trade")}
    do(g, "mode", "place")
    assert legal_countries(g) <= countries_of("Africa", "Middle East", "Southeast Asia")
    assert "Myanmar" in legal_countries(g) and "Mongolia" not in legal_countries(g)
    answer(g, "Myanmar", "Myanmar", "Myanmar")
    assert changes(g, before) == {"Myanmar": {"china": 3}}
    assert loc(g, "Digital Silk Road") == LOC_NAMES[DISCARD]


def test_wolf_warrior_diplomacy_is_no_event_below_diplomacy_3() -> None:
    g = start("china", "Wolf Warrior Diplomacy")
    g.set_track("diplomacy", 2)
    assert "event" not in legal_modes(g, "Wolf Warrior Diplomacy")


def test_wolf_warrior_diplomacy_diplomacy_social_and_us_backlash() -> None:
    g = start("china", "Wolf Warrior Diplomacy")
    g.set_track("diplomacy", 3)
    g.set_track("social_china", 6)
    clear(g, "Japan", "South Korea", "Australia", "India")
    before = snapshot(g)
    play(g, "Wolf Warrior Diplomacy", "event")
    assert g.decision.kind == "influence" and g.decision.player == "usa"
    assert legal_countries(g) == {"Japan", "South Korea", "Australia", "India"}
    answer(g, "India")
    assert "India" not in legal_countries(g)
    answer(g, "Japan")
    assert changes(g, before) == {"diplomacy": 2, "social_china": 7,
                                  "India": {"usa": 1}, "Japan": {"usa": 1}}
    assert loc(g, "Wolf Warrior Diplomacy") == LOC_NAMES[DISCARD]


def test_rcep_adds_three_cn_in_the_partners_and_a_reserve() -> None:
    g = start("china", "RCEP")
    partners = {"Japan", "South Korea", "Australia", "New Zealand"} | countries_of(
        "Southeast Asia")
    clear(g, *partners)
    before = snapshot(g)
    play(g, "RCEP", "event")
    assert legal_countries(g) == partners
    answer(g, "Japan")
    assert "Japan" not in legal_countries(g)
    answer(g, "New Zealand", "Thailand")
    assert changes(g, before) == {"Japan": {"china": 1}, "New Zealand": {"china": 1},
                                  "Thailand": {"china": 1}, "reserves_china": 1}
    assert loc(g, "RCEP") == LOC_NAMES[REMOVED]


def test_hong_kong_national_security_law_before_the_protests_vp_and_a_reserve() -> None:
    g = start("china", "Hong Kong National Security Law")
    assert board_after_event(g, "Hong Kong National Security Law") == {
        "vp_china": 1, "reserves_china": 1}


def test_hong_kong_national_security_law_after_protests_social_and_vp() -> None:
    g = start("usa", "Hong Kong Protests")
    play(g, "Hong Kong Protests", "event")
    next_round(g, "china", "Hong Kong National Security Law")
    g.set_track("social_china", 5)
    assert board_after_event(g, "Hong Kong National Security Law") == {
        "social_china": 6, "vp_china": 1}
    assert loc(g, "Hong Kong National Security Law") == LOC_NAMES[REMOVED]


def test_wagner_in_africa_adds_au_in_three_and_reduces_two_us_in_africa() -> None:
    g = start("china", "Wagner in Africa")
    wipe_region(g, "Africa")
    g.set_influence("Libya", anti_us=3)
    g.set_influence("Sudan/South Sudan", usa=1)
    g.set_influence("South Africa", usa=2)
    g.set_influence("Nigeria", usa=2)
    g.set_influence("Kenya", usa=1)
    before = snapshot(g)
    play(g, "Wagner in Africa", "event")
    assert g.decision.player == "china"
    assert legal_countries(g) == {"South Africa", "Nigeria", "Kenya"}  # Sudan: 0 US now
    answer(g, "South Africa")
    assert "South Africa" not in legal_countries(g)
    answer(g, "Kenya")
    assert changes(g, before) == {"Libya": {"anti_us": 4}, "Saharan States": {"anti_us": 1},
                                  "Sudan/South Sudan": {}, "South Africa": {"usa": 1},
                                  "Kenya": {}}
    assert loc(g, "Wagner in Africa") == LOC_NAMES[REMOVED]


def test_vaccine_diplomacy_before_covid_adds_two_cn() -> None:
    g = start("china", "Vaccine Diplomacy")
    clear(g, "Brazil", "Kenya")
    assert board_after_event(g, "Vaccine Diplomacy", "Brazil", "Kenya") == {
        "Brazil": {"china": 1}, "Kenya": {"china": 1}}
    assert loc(g, "Vaccine Diplomacy") == LOC_NAMES[REMOVED]


def test_vaccine_diplomacy_cancels_covid_and_adds_three_cn() -> None:
    g = start("usa", "COVID-19 Pandemic")
    g.force_dice([6])
    play(g, "COVID-19 Pandemic", "event")
    next_round(g, "china", "Vaccine Diplomacy", "RCEP")
    assert ops_shown(g, "RCEP") == 2
    pool = countries_of("Latin America", "Africa", "Southeast Asia")
    clear(g, "Brazil", "Kenya", "Laos/Cambodia")
    before = snapshot(g)
    play(g, "Vaccine Diplomacy", "event")
    assert loc(g, "COVID-19 Pandemic") == LOC_NAMES[REMOVED]  # cancelled: leaves the game
    assert g.decision.player == "china" and legal_countries(g) == pool
    answer(g, "Brazil")
    assert "Brazil" not in legal_countries(g)
    answer(g, "Kenya", "Laos/Cambodia")
    assert changes(g, before) == {"Brazil": {"china": 1}, "Kenya": {"china": 1},
                                  "Laos/Cambodia": {"china": 1}}
    assert loc(g, "Vaccine Diplomacy") == LOC_NAMES[REMOVED]
    next_round(g, "china", "RCEP")
    assert ops_shown(g, "RCEP") == 3


def test_phase_one_trade_deal_without_the_trade_war_gives_both_a_reserve() -> None:
    g = start("china", "Phase One Trade Deal")
    assert board_after_event(g, "Phase One Trade Deal") == {"reserves_usa": 1,
                                                            "reserves_china": 1}


def test_phase_one_trade_deal_cancels_the_trade_war_and_gives_the_us_a_reserve() -> None:
    g = start("usa", "US–China Trade War")
    play(g, "US–China Trade War", "event")
    next_round(g, "china", "Phase One Trade Deal")
    assert "event" in legal_modes(g, "Phase One Trade Deal")
    assert board_after_event(g, "Phase One Trade Deal") == {"reserves_usa": 1,
                                                            "reserves_china": 1}
    assert loc(g, "US–China Trade War") == LOC_NAMES[REMOVED]  # cancelled: leaves the game
    assert loc(g, "Phase One Trade Deal") == LOC_NAMES[REMOVED]
    control = g.clone()  # the same game with the trade war still in play
    control.state.card_loc[card_index(control, "US–China Trade War")] = IN_PLAY
    control.set_reserves("usa", control.reserves["usa"])
    for h in (g, control):
        empty_hands_to_next_turn(h, "modifier", "usa")
    assert g.reserves["china"] == control.reserves["china"] + 1  # no more reserve lost


# ================================================================== NEUTRAL


@pytest.mark.parametrize("side", ["usa", "china"])
@pytest.mark.parametrize("die, social", [(3, "social_china"), (4, "social_usa")])
def test_covid_19_pandemic_economies_social_roll_and_stays(side, die, social) -> None:
    g = start(side, "COVID-19 Pandemic")
    for t, v in (("economy_usa", 8), ("economy_china", 6), ("social_usa", 8),
                 ("social_china", 6)):
        g.set_track(t, v)
    g.force_dice([die])
    after_social = {"social_china": 5, "social_usa": 7}[social]
    assert board_after_event(g, "COVID-19 Pandemic") == {
        "economy_usa": 7, "economy_china": 5, social: after_social}
    assert loc(g, "COVID-19 Pandemic") == LOC_NAMES[IN_PLAY]


def test_covid_19_pandemic_in_play_lowers_both_sides_ops_minimum_one() -> None:
    g = start("usa", "COVID-19 Pandemic")
    g.force_dice([2])
    play(g, "COVID-19 Pandemic", "event")
    next_round(g, "china", "Belt and Road Initiative", "Wolf Warrior Diplomacy")
    assert ops_shown(g, "Belt and Road Initiative") == 3
    assert ops_shown(g, "Wolf Warrior Diplomacy") == 1
    next_round(g, "usa", "US–China Trade War", "Hong Kong Protests")
    assert ops_shown(g, "US–China Trade War") == 3
    assert ops_shown(g, "Hong Kong Protests") == 1


@pytest.mark.parametrize("side", ["usa", "china"])
@pytest.mark.parametrize("diplomacy, security, expected", [
    (2, 2, {"diplomacy": 3, "regional_security": 3}),
    (3, 1, {"regional_security": 2}),
    (3, 3, {"vp": 1}),
])
def test_paris_agreement_tracks_up_or_vp(side, diplomacy, security, expected) -> None:
    g = start(side, "Paris Agreement")
    g.set_track("diplomacy", diplomacy)
    g.set_track("regional_security", security)
    want = {f"vp_{side}": 1} if "vp" in expected else expected
    assert board_after_event(g, "Paris Agreement") == want
    assert loc(g, "Paris Agreement") == LOC_NAMES[REMOVED]


@pytest.mark.parametrize("side, die, expected", [
    ("usa", 2, {"Syria": {"anti_us": 1, "china": 1}}),  # AU removes the 1 US first (R1)
    ("china", 1, {"Syria": {"anti_us": 1, "china": 1}}),
    ("usa", 4, {"Syria": {"usa": 3, "china": 1}}),
    ("china", 3, {"Syria": {"usa": 1, "china": 3}}),
    ("usa", 5, {"Syria": {"usa": 3, "china": 1}, "Lebanon": {"usa": 1}, "vp_usa": 1}),
    ("china", 6, {"Syria": {"usa": 1, "china": 3}, "Lebanon": {"china": 1}, "vp_china": 1}),
])
def test_russian_intervention_in_syria_roll(side, die, expected) -> None:
    g = start(side, "Russian Intervention in Syria")
    g.set_influence("Syria", usa=1, china=1)
    clear(g, "Lebanon")
    g.set_track("regional_security", 3)
    g.force_dice([die])
    assert board_after_event(g, "Russian Intervention in Syria") == {
        **expected, "regional_security": 2}
    assert loc(g, "Russian Intervention in Syria") == LOC_NAMES[REMOVED]


@pytest.mark.parametrize("side, taiwan, expected", [
    ("usa", {"usa": 3}, {"Taiwan": {"usa": 4}, "tech_usa": 1, "vp_usa": 1}),  # Internet Age
    ("usa", {"usa": 2, "china": 1}, {"Taiwan": {"usa": 3, "china": 1}, "reserves_usa": 2,
                                     "vp_usa": 1}),
    ("china", {"china": 2}, {"Taiwan": {"china": 3}, "tech_china": 1, "vp_china": 1,
                             "social_china": 7}),  # Hybrid Rice
    ("china", {"usa": 2, "china": 3}, {"Taiwan": {"usa": 2, "china": 4},
                                       "reserves_china": 2, "vp_china": 1}),
])
def test_taiwan_chip_industry_tech_if_you_control_taiwan_else_reserves_and_vp(side, taiwan,
                                                                      expected) -> None:
    g = start(side, "Taiwan's Chip Industry")
    g.set_influence("Taiwan", **taiwan)
    g.set_track("tech_usa", 0)
    g.set_track("tech_china", 0)
    g.set_track("social_china", 6)
    assert board_after_event(g, "Taiwan's Chip Industry") == expected
    assert loc(g, "Taiwan's Chip Industry") == LOC_NAMES[DISCARD]


@pytest.mark.parametrize("side, iran", [("usa", {"anti_us": 1, "china": 1}),
                                        ("china", {"anti_us": 2, "china": 2})])
def test_iran_nuclear_deal_diplomacy_au_down_own_up(side, iran) -> None:
    g = start(side, "Iran Nuclear Deal (JCPOA)")
    g.set_track("diplomacy", 2)
    g.set_influence("Iran", anti_us=3, china=1)
    assert board_after_event(g, "Iran Nuclear Deal (JCPOA)") == {"diplomacy": 3, "Iran": iran}
    assert loc(g, "Iran Nuclear Deal (JCPOA)") == LOC_NAMES[REMOVED]


BREXIT = ["United Kingdom", "France", "Germany", "Benelux", "Italy", "Spain/Portugal"]


def test_brexit_played_by_the_us_reduces_cn_and_adds_us_in_the_uk() -> None:
    g = start("usa", "Brexit")
    clear(g, *BREXIT)
    g.set_influence("France", china=2)
    g.set_influence("Germany", usa=2, china=1)
    g.set_influence("Italy", usa=3)
    before = snapshot(g)
    play(g, "Brexit", "event")
    assert g.decision.player == "usa" and legal_countries(g) == {"France", "Germany"}
    answer(g, "France")
    # at most 1 per country: the second point is forced into Germany (taken at once)
    assert changes(g, before) == {"France": {"china": 1}, "Germany": {"usa": 2},
                                  "United Kingdom": {"usa": 1}}
    assert loc(g, "Brexit") == LOC_NAMES[REMOVED]


def test_brexit_played_by_china_reduces_us_and_adds_cn_in_the_uk() -> None:
    g = start("china", "Brexit")
    clear(g, *BREXIT)
    g.set_influence("United Kingdom", usa=4)
    g.set_influence("Germany", usa=2, china=1)
    g.set_influence("Italy", usa=1)
    before = snapshot(g)
    play(g, "Brexit", "event")
    assert g.decision.player == "china"
    assert legal_countries(g) == {"United Kingdom", "Germany", "Italy"}
    answer(g, "United Kingdom", "Italy")
    assert changes(g, before) == {"United Kingdom": {"usa": 3, "china": 1}, "Italy": {}}


@pytest.mark.parametrize("side, venezuela, expected", [
    ("usa", {"anti_us": 2, "china": 1}, {"usa": 3, "china": 1}),
    ("china", {"anti_us": 2, "china": 1}, {"china": 4}),
    ("china", {"usa": 1}, {"usa": 1, "china": 1}),  # no AU: only the extra point
])
def test_venezuelan_crisis_replaces_au_with_own_then_adds_one(side, venezuela,
                                                              expected) -> None:
    g = start(side, "Venezuelan Crisis")
    g.set_influence("Venezuela", **venezuela)
    clear(g, "Colombia", "Brazil", "Cuba")
    before = snapshot(g)
    play(g, "Venezuelan Crisis", "event")
    assert legal_countries(g) == {"Colombia", "Brazil", "Cuba"}  # then 1 in one of them
    answer(g, "Cuba")
    assert changes(g, before) == {"Venezuela": expected, "Cuba": {side: 1}}
    assert loc(g, "Venezuelan Crisis") == LOC_NAMES[REMOVED]


@pytest.mark.parametrize("side, nk", [("usa", {"china": 4, "anti_us": 2}),
                                      ("china", {"china": 5, "anti_us": 3})])
def test_trump_kim_summit_singapore_option(side, nk) -> None:
    g = start(side, "Trump–Kim Summit")
    g.set_track("diplomacy", 2)
    g.set_influence("North Korea", china=4, anti_us=3)
    g.set_influence("South Korea", usa=3)
    sk = {"usa": 4} if side == "usa" else {"usa": 3, "china": 1}
    assert board_after_event(g, "Trump–Kim Summit", ("option", 0)) == {
        "diplomacy": 3, "North Korea": nk, "South Korea": sk}
    assert loc(g, "Trump–Kim Summit") == LOC_NAMES[REMOVED]


@pytest.mark.parametrize("side", ["usa", "china"])
def test_trump_kim_summit_fire_and_fury_option(side) -> None:
    g = start(side, "Trump–Kim Summit")
    g.set_track("regional_security", 2)
    before = snapshot(g)
    play_option(g, "Trump–Kim Summit", side, 1)
    assert changes(g, before) == {"regional_security": 1, f"vp_{side}": 1}


def test_trump_kim_summit_fire_and_fury_needs_regional_security_2() -> None:
    g = start("usa", "Trump–Kim Summit")
    g.set_track("regional_security", 1)
    g.set_track("diplomacy", 3)
    clear(g, "North Korea", "South Korea")
    # only the summit option is left: a forced choice, taken at once (engine)
    assert board_after_event(g, "Trump–Kim Summit") == {
        "North Korea": {"usa": 1}, "South Korea": {"usa": 1}}


MINERALS = ["Argentina", "Bolivia", "Chile", "DR Congo"]


@pytest.mark.parametrize("side", ["usa", "china"])
def test_critical_minerals_race_reduces_opponent_in_congo_and_adds_three_in_two(side) -> None:
    g = start(side, "Critical Minerals Race")
    g.set_influence("DR Congo", usa=1, china=1)
    clear(g, "Argentina", "Bolivia", "Chile")
    before = snapshot(g)
    play(g, "Critical Minerals Race", "event")
    assert g.decision.player == side
    assert legal_countries(g) == set(MINERALS)
    answer(g, "DR Congo", "Chile")
    assert legal_countries(g) == {"DR Congo", "Chile"}  # at most 2 countries
    answer(g, "Chile")
    congo = {side: 2}  # the opponent's point is gone, one own point added
    assert changes(g, before) == {"DR Congo": congo, "Chile": {side: 2}}
    assert loc(g, "Critical Minerals Race") == LOC_NAMES[REMOVED]


@pytest.mark.parametrize("side", ["usa", "china"])
def test_afghanistan_withdrawal_removes_us_lowers_security_adds_own(side) -> None:
    g = start(side, "Withdrawal from Afghanistan")
    g.set_influence("Afghanistan", usa=2, china=1)
    clear(g, "Pakistan", "Central Asia")
    g.set_track("regional_security", 3)
    assert board_after_event(g, "Withdrawal from Afghanistan") == {
        "Afghanistan": {"china": 1},  # removing all US places no AU (R1)
        "regional_security": 2, "Pakistan": {side: 1}, "Central Asia": {side: 1}}
    assert loc(g, "Withdrawal from Afghanistan") == LOC_NAMES[REMOVED]


# ===================================================================== deck


def test_late_deck_composition() -> None:
    cards = [c for c in Game(0).content.cards if c.era == "late" and c.kind == "base"]
    assert len(cards) >= 27
    sides = {s: sum(c.side == s for c in cards) for s in ("usa", "china", "neutral")}
    assert all(n >= len(cards) // 4 for n in sides.values()), sides
    ops = {k: sum(c.ops == k for c in cards) for k in (1, 2, 3, 4)}
    assert all(n >= 3 for n in ops.values()), ops
    assert sum(c.persistent is not None for c in cards) >= 4
    assert not any(c.russia for c in cards)  # 7.6: the five Russia cards are all early


def test_every_late_card_has_a_test_named_after_its_id() -> None:
    names = [n for n in globals() if n.startswith("test_")]
    cards = [c for c in Game(0).content.cards if c.era == "late"]
    missing = [c.id for c in cards if not any(c.id in n for n in names)]
    assert missing == []
