"""Behaviour tests for the rulings R1-R21 (as stated in docs/rules.md); R22-R26 are in
tests/test_rulings_r22_r26.py.

Each test cites its ruling and the rulebook section (evenstar-rulebook.zh.txt) it settles.
Scenarios are built through the public API: reach a decision, set hands, influence, tracks
and dice, then script the actions.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from helpers import (
    MOD_NAMES,
    at,
    card_location,
    clear_persistent,
    clear_region,
    do,
    legal_countries,
    legal_modes,
    legal_spends,
    names,
    play,
    run_until,
    safe_action,
    skip_spend,
    start,
)

from evenstar_env import Game

DATA = Path(__file__).resolve().parents[1] / "evenstar_env" / "data"
COUNTRIES = {c["name"]: c for c in Game.countries()}
ALL = sorted(COUNTRIES)

# Cards used as tools (cards_early.toml):
US3 = "Dual Containment"            # US, 3 ops
US2 = "Dayton Agreement"            # US, 2 ops
US4 = "Maastricht Treaty"           # US, 4 ops
US1 = "Operation Uphold Democracy"  # US, 1 op: +2 US in Haiti/Dominican Republic
CN3 = "Socialist Market Economy"    # China, 3 ops: China economy +1, +1 reserve
CN2 = "State-Owned Enterprise Reform"  # China, 2 ops (event: a choice)
CN1 = "Exchange Rate Unification"   # China, 1 op: China +2 reserves, no decision
CN4 = "Asian Financial Crisis"      # China, 4 ops
HAITI = "Haiti/Dominican Republic"


# Nine own cards per side, for turns that must leave cards in hand.
FULL_HAND = {
    "usa": [US3, US2, US4, US1, "NAFTA", "Dot-com Boom", "Mexican Peso Bailout",
            "Cox Report", "Clinton Doctrine"],
    "china": [CN3, CN1, CN4, CN2, "Project 211", "Shanghai Five", "Going Out Strategy",
              "MFN Delinked from Human Rights", "Chávez Elected"],
}


def region_box(name: str) -> tuple[int, int, int]:
    data = tomllib.loads((DATA / "map.toml").read_text(encoding="utf-8"))
    (box,) = [r for r in data["regions"] if r["name"] == name]
    return box["presence"], box["domination"], box["control"]


def us_round(seed: int = 0, hand: tuple[str, ...] = (US3, US2)) -> Game:
    g = start("usa", seed)
    g.set_hand("usa", list(hand))
    return g


def china_round(seed: int = 0, hand: tuple[str, ...] = (CN3, CN1)) -> Game:
    g = start("china", seed)
    g.set_hand("china", list(hand))
    return g


def to_spend(player: str, reserves: int, seed: int = 0, **tracks: int) -> Game:
    """A game at the start of `player`'s action round (turn 1), with the given reserves and
    tracks set before the round begins: at the spend decision if any spend is open."""
    if player == "usa":
        g = start("china", seed)
        g.set_hand("china", [CN1, CN3, CN4])
    else:
        g = start("usa", seed)
        g.set_hand("usa", ["Oil-for-Food Programme", US3, US4])
    g.set_reserves(player, reserves)
    for name, value in tracks.items():
        g.set_track(name, value)
    play(g, CN1 if player == "usa" else "Oil-for-Food Programme", "event")
    assert g.decision.player == player and g.decision.kind in ("spend", "card")
    return g


def realign(g: Game, card: str, country: str, die: int) -> None:
    g.force_dice([die])
    play(g, card, "realign")
    do(g, "country", country)


def last_card(g: Game, player: str, card: str, mode: str) -> None:
    """Give `player` only `card` (chosen at once, a single legal choice) and play it."""
    g.set_hand(player, [card])
    assert g.decision.kind == "mode" and g.decision.player == player
    do(g, "mode", mode)


QUIET = {"usa": ("Oil-for-Food Programme", US1, US2), "china": (CN1, CN2, CN3)}


def next_round(g: Game, player: str) -> None:
    """From the end of `player`'s card play: the opponent plays a quiet event (+1 own
    influence in Iraq and Jordan / China +2 reserves); then `player`'s next round starts."""
    opp = "china" if player == "usa" else "usa"
    skip_spend(g)
    assert g.decision.player == opp and g.decision.kind == "card"
    g.set_hand(opp, list(QUIET[opp]))
    play(g, QUIET[opp][0], "event")
    skip_spend(g)
    assert g.decision.player == player and g.decision.kind == "card"


def first_game(reach, seeds=range(50)) -> Game:
    """The first seed's game for which `reach(g)` gets where a scenario needs to be without
    the game ending (scenarios stay independent of the particular random game flow)."""
    for seed in seeds:
        g = Game(seed)
        try:
            reach(g)
        except AssertionError:
            continue
        return g
    raise AssertionError("no seed reaches the scenario")


def to_end_of_turn1() -> Game:
    """A game at the US's optional discard at the end of phase G of turn 1 (US social 8)."""
    g = first_game(lambda g: run_until(g, at("end_discard", "usa", turn=1)))
    clear_persistent(g)
    return g


# =========================================================================== A. influence


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ({"anti_us": 3}, {"usa": 0, "china": 0, "anti_us": 1}),
        ({"anti_us": 2}, {"usa": 0, "china": 0, "anti_us": 0}),
        ({"anti_us": 1}, {"usa": 1, "china": 0, "anti_us": 0}),
        ({}, {"usa": 2, "china": 0, "anti_us": 0}),
        ({"anti_us": 1, "china": 1}, {"usa": 1, "china": 1, "anti_us": 0}),
    ],
)
def test_r1_adding_us_removes_au_first(before, after):
    """R1 (5.6, 6.1.1): adding US removes AU first; only the rest is added as US; CN is
    independent. Operation Uphold Democracy adds 2 US in Haiti/Dominican Republic."""
    g = us_round(hand=(US1, US3))
    g.set_influence(HAITI, **before)
    play(g, US1, "event")
    assert g.influence(HAITI) == after


def test_r1_reducing_us_below_zero_places_au():
    """R1 (2.1.8.6): reducing US below zero places the shortfall as AU. The Russia box
    "Economic Crisis" (8.1.2) takes 2 US from a Former USSR country holding 1 US."""
    g = us_round(hand=("Yeltsin's Reforms", US3))
    clear_region(g, "Former USSR")
    g.set_influence("Ukraine", usa=1)
    g.set_track("russia", 3)
    play(g, "Yeltsin's Reforms", "event")  # Russia track +1 -> Economic Crisis
    assert g.track("russia") == 4
    assert g.influence("Ukraine") == {"usa": 0, "china": 0, "anti_us": 1}
    assert g.influence("Russia") == {"usa": 1, "china": 0, "anti_us": 0}  # then +1 own


def test_r1_removing_all_us_places_no_au():
    """R1 (8.1.5 wording "移除…所有的美国影响力"): removing all US sets US to 0 and places no AU.
    Chávez Elected removes all US in Venezuela (3 US), then adds 2 AU: 2 AU, not 5."""
    g = china_round(hand=("Chávez Elected", CN3))
    g.set_influence("Venezuela", usa=3)
    play(g, "Chávez Elected", "event")
    assert g.influence("Venezuela") == {"usa": 0, "china": 0, "anti_us": 2}


@pytest.mark.parametrize(
    ("country", "usa", "china", "anti_us", "expected"),
    [
        ("Israel", 4, 0, 0, "usa"),
        ("Israel", 4, 1, 0, None),
        ("Iran", 0, 4, 0, "china"),
        ("Iran", 1, 4, 0, None),
        ("Iran", 0, 0, 1, "anti_us"),
        ("Iran", 0, 3, 1, "anti_us"),
        ("Iran", 0, 4, 1, "china"),      # China control wins over AU control
        ("Myanmar", 0, 1, 5, "china"),   # stab 1: 1 CN - 0 US >= 1
        ("Taiwan", 0, 0, 2, None),       # Taiwan is never AU-controlled (2.1.8.4)
        ("Taiwan", 0, 2, 1, None),
        ("Taiwan", 0, 3, 1, "china"),
        ("India", 2, 1, 0, "usa"),
        ("India", 1, 2, 0, "china"),
        ("India", 2, 2, 0, None),
        ("India", 0, 0, 1, "anti_us"),
        ("India", 0, 1, 1, "china"),     # CN 1 > US 0
    ],
)
def test_r2_control(country, usa, china, anti_us, expected):
    """R2 (2.1.8.1-2.1.8.5): US control needs US >= stab and US - CN >= stab; CN likewise;
    AU-controlled when AU >= 1 and China does not control; India by a simple majority;
    Taiwan never AU-controlled."""
    g = start("usa")
    g.set_influence(country, usa=usa, china=china, anti_us=anti_us)
    assert g.controller(country) == expected


def test_r3_eligibility_is_fixed_at_the_start_of_the_placement():
    """R3 (6.1.1): eligible countries are fixed when the placement starts; a country that
    becomes a neighbour of own influence during the placement does not become eligible."""
    g = china_round(hand=(CN2, CN1))
    for c in ("Sudan/South Sudan", "Saharan States", "Egypt", "Ethiopia", "Somalia"):
        g.set_influence(c)
    g.set_influence("Kenya", china=1)
    play(g, CN2, "place")
    first = legal_countries(g)
    assert "Ethiopia" in first and "Sudan/South Sudan" not in first
    do(g, "country", "Ethiopia")  # Sudan is now adjacent to Chinese influence
    assert g.decision.kind == "place" and g.decision.context["ops"] == 1
    assert "Sudan/South Sudan" not in legal_countries(g)
    assert "Ethiopia" in legal_countries(g)


@pytest.mark.parametrize("player", ["usa", "china"])
def test_r3_cost_is_recomputed_after_every_point(player):
    """R3 (6.1.2): the cost is recomputed after each point. North Korea (stab 3, 3 CN) is
    China-controlled: the US's first point costs 2, after which it is uncontrolled and the
    second costs 1. Mirror case: South Korea (3 US) for China."""
    if player == "usa":
        g = us_round()
        target, kind = "North Korea", "usa"
        g.set_influence(target, china=3)
        play(g, US3, "place")
    else:
        g = china_round()
        target, kind = "South Korea", "china"
        g.set_influence(target, usa=3)
        play(g, CN3, "place")
    do(g, "country", target)
    assert g.decision.kind == "place" and g.decision.context["ops"] == 1
    assert target in legal_countries(g)
    do(g, "country", target)
    assert g.influence(target)[kind] == 2
    assert g.decision.player != player  # all 3 ops spent: the round is over


@pytest.mark.parametrize("player", ["usa", "china"])
def test_r3_india_always_costs_two(player):
    """R3 (6.1.2.1): a point in India costs 2 ops even when the placing side controls it."""
    if player == "usa":
        g = us_round()
        g.set_influence("India", usa=2)
        play(g, US3, "place")
    else:
        g = china_round()
        g.set_influence("India", china=2)
        g.set_influence("Pakistan", china=2)
        play(g, CN3, "place")
    assert g.controller("India") == player
    do(g, "country", "India")
    assert g.influence("India")["usa" if player == "usa" else "china"] == 3
    assert g.decision.kind == "place" and g.decision.context["ops"] == 1
    assert "India" not in legal_countries(g)


def test_r3_china_places_cn_never_au_and_au_is_not_own_influence():
    """R3 (6.1.1): China cannot place AU with ops; AU does not count as China's own
    influence for eligibility (Iraq with only AU, and its neighbour Jordan, are not eligible)."""
    g = china_round()
    g.set_influence("Myanmar", anti_us=1)
    g.set_influence("Iraq", anti_us=3)
    g.set_influence("Syria", anti_us=3)
    for c in ("Jordan", "Israel", "Saudi Arabia", "Iran", "Gulf States", "Turkey"):
        g.set_influence(c)
    play(g, CN3, "place")
    legal = legal_countries(g)
    assert "Iraq" not in legal and "Jordan" not in legal
    assert "Myanmar" in legal
    do(g, "country", "Myanmar")
    assert g.influence("Myanmar") == {"usa": 0, "china": 1, "anti_us": 1}


# =========================================================================== B. cards


def _china_card_under_linkage(card: str) -> Game:
    g = us_round(hand=("MFN–Human Rights Linkage", US3))
    play(g, "MFN–Human Rights Linkage", "event")  # China ops -1 while in play
    assert card_location(g, "MFN–Human Rights Linkage") == "in_play"
    skip_spend(g)
    g.set_hand("china", [card, "Hong Kong Handover"])
    do(g, "card", card)
    return g


@pytest.mark.parametrize(
    ("card", "expected"),
    [(CN4, 3), (CN3, 2), (CN2, 1), (CN1, 1)],  # clamped to 1 (7.7)
)
def test_r4_ops_reductions_clamped(card, expected):
    """R4 (7.3, 7.7): printed ops, then reductions, clamped to 1..4. MFN-Human Rights
    Linkage in play lowers every China card by 1, never below 1."""
    g = _china_card_under_linkage(card)
    assert g.decision.kind == "mode"
    assert g.decision.context["ops"] == expected


def test_r4_improve_uses_printed_ops():
    """R4 (6.3.1, 7.3.2): the improve action uses the printed ops (a printed-2 card reduced to
    1 may still improve, success on 1-3), every other use the modified value (tech race
    needs ops >= 2)."""
    g = _china_card_under_linkage(CN2)
    modes = legal_modes(g)
    assert {"improve_social", "improve_economy"} <= modes
    assert "tech" not in modes
    social = g.track("social_china")
    g.force_dice([3])
    do(g, "mode", "improve_social")
    assert g.track("social_china") == social + 1


def test_r4_scoring_cards_have_no_action():
    """R4 (6.2.2, 2.2.1.1): a scoring card has 0 ops and can only be played for its scoring."""
    g = us_round(hand=("Asia Scoring", US3))
    expected = g.score_region("Asia")
    vp = g.vp
    do(g, "card", "Asia Scoring")
    assert g.decision.kind != "mode" or g.decision.player != "usa"
    assert g.vp == {"usa": vp["usa"] + expected["usa"], "china": vp["china"] + expected["china"]}


@pytest.mark.parametrize(
    ("order", "venezuela"),
    [
        ("event_first", {"usa": 0, "china": 0, "anti_us": 1}),
        ("action_first", {"usa": 0, "china": 0, "anti_us": 2}),
    ],
)
def test_r5_opponent_card_fires_event_in_chosen_order(order, venezuela):
    """R5 (5.2): an opponent's card used for ops fires its event, carried out by the
    opponent; the phasing player chooses before or after the action. Chávez Elected (China)
    played by the US for 2 ops of placement in Venezuela (1 US):
    event first -> 2 AU, then 1 point at cost 2 (AU-controlled) -> 1 AU;
    action first -> 3 US, then all US removed and 2 AU placed."""
    g = us_round(hand=("Chávez Elected", US3))
    g.set_influence("Venezuela", usa=1)
    play(g, "Chávez Elected", "place")
    assert g.decision.kind == "order" and g.decision.player == "usa"
    do(g, "order", order)
    while g.decision.player == "usa" and g.decision.kind == "place":
        do(g, "country", "Venezuela")
    assert g.influence("Venezuela") == venezuela
    assert card_location(g, "Chávez Elected") == "removed"  # a "*" event that happened


@pytest.mark.parametrize("mode", ["place", "realign", "improve_social", "improve_economy", "trade"])
def test_r5_every_action_but_sabotage_fires_the_opponent_event(mode):
    """R5 (5.2): every action with an opponent's card fires its event (order chosen by the
    phasing player). MFN Delinked (China, 2 ops): China +2 reserves."""
    g = us_round(hand=("MFN Delinked from Human Rights", US3))
    reserves = g.reserves["china"]
    play(g, "MFN Delinked from Human Rights", mode)
    assert g.decision.kind == "order" and g.decision.player == "usa"
    do(g, "order", "event_first")
    assert g.reserves["china"] == reserves + 2


@pytest.mark.parametrize("player", ["usa", "china"])
def test_r5_tech_race_and_sabotage_never_fire_the_event(player):
    """R5 (6.4.3, 6.5.3): the card discarded for a tech race or sabotage fires no event,
    even an opponent's card."""
    if player == "usa":
        g = us_round(hand=(CN3, US3))  # Socialist Market Economy: China economy +1, +1 reserve
        before = (g.track("economy_china"), g.reserves["china"])
        g.force_dice([6])
        play(g, CN3, "tech")
        assert g.decision.kind != "order"
        assert (g.track("economy_china"), g.reserves["china"]) == before
        assert card_location(g, CN3) == "discard"
    else:
        g = china_round(hand=("Dot-com Boom", CN3))  # US tech +1, US economy +1
        before = (g.track("tech_usa"), g.track("economy_usa"))
        g.force_dice([6])
        play(g, "Dot-com Boom", "tech")
        assert g.decision.kind != "order"
        assert (g.track("tech_usa"), g.track("economy_usa")) == before
        assert card_location(g, "Dot-com Boom") == "discard"


@pytest.mark.parametrize(
    ("player", "card", "setup", "offered"),
    [
        ("china", "Hong Kong Handover", {}, False),               # only from turn 2
        ("usa", "Taiwan Strait Crisis", {"diplomacy": 2}, False),  # needs diplomacy 3
        ("usa", "Taiwan Strait Crisis", {"diplomacy": 3}, True),
        ("china", CN3, {}, True),
    ],
)
def test_r5_event_that_cannot_happen_is_not_offered(player, card, setup, offered):
    """R5 (7.4, 5.2): an event that cannot happen is not offered as "play as event"; the
    card can still be used for its ops."""
    g = us_round(hand=(card, US3)) if player == "usa" else china_round(hand=(card, CN1))
    for name, v in setup.items():
        g.set_track(name, v)
    do(g, "card", card)
    modes = legal_modes(g)
    assert ("event" in modes) == offered
    assert "place" in modes


def test_r5_prerequisite_card_event():
    """R5 (7.4, 5.2): Belgrade Embassy Bombing can be played as an event only after the
    event of NATO Bombing of Yugoslavia has happened."""
    for seed in range(50):  # a game where NATO Bombing has not yet been played at all
        g = start("usa", seed)
        if card_location(g, "NATO Bombing of Yugoslavia") in ("draw", "hand_usa", "hand_china"):
            break
    else:
        raise AssertionError("no suitable seed")
    g.set_track("russia", 0)  # the Russia step of the card: Privatization, no choice
    before = g.clone()
    g.set_hand("usa", ["NATO Bombing of Yugoslavia", US3, US2])
    play(g, "NATO Bombing of Yugoslavia", "event")
    skip_spend(g)
    g.set_hand("china", ["Belgrade Embassy Bombing", CN1, CN3])
    do(g, "card", "Belgrade Embassy Bombing")
    assert "event" in legal_modes(g)

    g = before  # the same game without the NATO Bombing event
    g.set_hand("usa", [US2, US3, US1])
    play(g, US2, "place")
    while g.decision.kind == "place" and g.decision.player == "usa":
        do(g, "country", "Canada")
    skip_spend(g)
    g.set_hand("china", ["Belgrade Embassy Bombing", CN1, CN3])
    do(g, "card", "Belgrade Embassy Bombing")
    assert "event" not in legal_modes(g)
    assert "place" in legal_modes(g)


def test_r5_opponent_event_that_cannot_happen_gives_only_ops():
    """R5 (5.2): the US plays Hong Kong Handover (China, "*", only from turn 2) for ops on
    turn 1: no event and no order choice; the card goes to the discards, not out of the game."""
    g = us_round(hand=("Hong Kong Handover", US3))
    social, vp = g.track("social_china"), g.vp["china"]
    play(g, "Hong Kong Handover", "place")
    assert g.decision.kind == "place"
    while g.decision.player == "usa" and g.decision.kind == "place":
        do(g, "country", "Canada")
    assert (g.track("social_china"), g.vp["china"]) == (social, vp)
    assert card_location(g, "Hong Kong Handover") == "discard"


# --------------------------------------------------------------------------- R6 realignment


def test_r6_targets():
    """R6 (6.2.1, 6.2.7, 2.1.5): the US may realign a country with AU or CN, China one with
    US; non-realignable countries (India, Taiwan) are never targets."""
    g = us_round()
    g.set_influence("India", china=2)
    g.set_influence("Taiwan", china=2)
    play(g, US3, "realign")
    inf = {c: g.influence(c) for c in ALL}
    expected = {c for c in ALL if (inf[c]["china"] or inf[c]["anti_us"])} - {"India", "Taiwan"}
    assert legal_countries(g) == expected

    g = china_round()
    g.set_influence("India", usa=2)
    play(g, CN3, "realign")
    inf = {c: g.influence(c) for c in ALL}
    expected = {c for c in ALL if inf[c]["usa"]} - {"India", "Taiwan"}
    assert "Taiwan" in {c for c in ALL if inf[c]["usa"]}
    assert legal_countries(g) == expected


def test_r6_event_made_non_realignable():
    """R6 (2.1.5, 6.2.7): a country made non-realignable by an event (US-Japan Defense
    Guidelines: Japan) cannot be a realignment target."""
    g = us_round(hand=("US–Japan Defense Guidelines", US3))
    play(g, "US–Japan Defense Guidelines", "event")
    skip_spend(g)
    g.set_hand("china", [CN3, CN1])
    play(g, CN3, "realign")
    assert g.influence("Japan")["usa"] > 0
    assert "Japan" not in legal_countries(g)
    assert "South Korea" in legal_countries(g)


@pytest.mark.parametrize(
    ("player", "country", "start_inf", "die", "after"),
    [
        # US, Cuba (stab 3, adjacent to the USA: +1): 3 + 2 + 1 - 5 = 1
        ("usa", "Cuba", {"anti_us": 3}, 2, {"usa": 0, "china": 0, "anti_us": 2}),
        # result 0: failure, nothing removed
        ("usa", "Cuba", {"anti_us": 3}, 1, {"usa": 0, "china": 0, "anti_us": 3}),
        # US removes AU, then CN, then adds US: Cuba 1 AU 1 CN, 3 + 6 + 1 - 5 = 5
        ("usa", "Cuba", {"anti_us": 1, "china": 1}, 6, {"usa": 3, "china": 0, "anti_us": 0}),
        # China, Japan (stab 2, adjacent to the USA: -1): 3 + 4 - 1 - 4 = 2
        ("china", "Japan", {"usa": 3}, 4, {"usa": 1, "china": 0, "anti_us": 0}),
        # China never removes or adds CN: Laos/Cambodia (stab 1, adjacent to China +1)
        ("china", "Laos/Cambodia", {"usa": 1, "china": 2}, 1, {"usa": 0, "china": 2, "anti_us": 1}),
        # failure: 3 + 1 - 1 - 4 = -1
        ("china", "Japan", {"usa": 3}, 1, {"usa": 3, "china": 0, "anti_us": 0}),
    ],
)
def test_r6_realignment_formula(player, country, start_inf, die, after):
    """R6 (6.2.3-6.2.6): result = ops + d6 + 1 (adjacent to own superpower) - 1 (adjacent to
    the opponent's) - (stab + 2); one attempt per card."""
    g = us_round() if player == "usa" else china_round()
    g.set_influence(country, **start_inf)
    realign(g, US3 if player == "usa" else CN3, country, die)
    assert g.influence(country) == after
    assert g.decision.player != player  # one attempt: the round is over


# --------------------------------------------------------------------------- R7 consequences


@pytest.mark.parametrize(
    ("player", "country", "start_inf", "die", "security", "dip_after", "sec_after"),
    [
        # (1) US fails on Myanmar (non-BG): own 0 <= other 2 -> security -1
        ("usa", "Myanmar", {"anti_us": 2}, 1, 3, 3, 2),
        # (2) US wins Ukraine (BG): own 3 > 0 -> diplomacy -1
        ("usa", "Ukraine", {"china": 1}, 6, 3, 2, 3),
        # own > other on a non-BG: nothing
        ("usa", "Myanmar", {"anti_us": 1}, 6, 3, 3, 3),
        # (2)+(3) China leaves 2 AU in Ukraine (BG): diplomacy -1 once
        ("china", "Ukraine", {"usa": 1}, 5, 3, 2, 3),
        # China fails in Ukraine: own 0 <= US 3 -> security -1
        ("china", "Ukraine", {"usa": 3}, 1, 3, 3, 2),
        # China wins a BG partly without AU left: own 0 <= US 1 -> security -1 only
        ("china", "Japan", {"usa": 3}, 4, 3, 3, 2),
        # China leaves AU in a non-BG: nothing
        ("china", "Myanmar", {"usa": 2}, 6, 3, 3, 3),
        # (4) security already 1: diplomacy -1 whatever the result
        ("usa", "Myanmar", {"anti_us": 2}, 1, 1, 2, 1),
        ("usa", "Myanmar", {"anti_us": 1}, 6, 1, 2, 1),
        # (2)+(4): still only -1
        ("usa", "Ukraine", {"china": 1}, 6, 1, 2, 1),
        ("china", "Ukraine", {"usa": 1}, 5, 1, 2, 1),
    ],
)
def test_r7_realignment_consequences(player, country, start_inf, die, security, dip_after,
                                     sec_after):
    """R7 (9.2.4, 9.2.5): after every attempt, on the influence left: (1) own <= other:
    security -1; (2) own > other on a BG: diplomacy -1; (3) China realigned a BG now holding
    AU: diplomacy -1; (4) security was 1: diplomacy -1. At most -1 diplomacy per attempt."""
    g = us_round() if player == "usa" else china_round()
    g.set_track("diplomacy", 3)
    g.set_track("regional_security", security)
    g.set_influence(country, **start_inf)
    realign(g, US3 if player == "usa" else CN3, country, die)
    assert (g.track("diplomacy"), g.track("regional_security")) == (dip_after, sec_after)
    assert not g.is_over


# --------------------------------------------------------------------------- R8 improve


@pytest.mark.parametrize(
    ("card", "die", "success"),
    [(US2, 3, True), (US2, 4, False), (US3, 4, True), (US3, 5, False), (US4, 5, True),
     (US4, 6, False)],
)
@pytest.mark.parametrize("track", ["social", "economy"])
def test_r8_improve_thresholds(card, die, success, track):
    """R8 (6.3.1): printed ops 2 / 3 / 4 succeed on a d6 of 1-3 / 1-4 / 1-5; success moves
    the chosen own track one level up."""
    g = us_round(hand=(card, US1))
    name = f"{track}_usa"
    g.set_track(name, 7)
    g.force_dice([die])
    play(g, card, f"improve_{track}")
    assert g.track(name) == (8 if success else 7)


def test_r8_one_op_card_cannot_improve():
    """R8 (6.3.1): improving needs a card of printed ops >= 2."""
    g = us_round(hand=(US1, US3))
    do(g, "card", US1)
    assert not {"improve_social", "improve_economy"} & legal_modes(g)


def test_r8_attempts_read_in_phase_c():
    """R8, R13 (6.3.2, 4.6.C): US economy 8 in phase C of turn 1 gives one attempt; lowering
    the economy later in the turn does not add attempts."""
    g = us_round(hand=(US3, US2, US1))  # 3 cards: a lone card would be chosen at once
    g.force_dice([6])
    play(g, US3, "improve_economy")
    g.set_track("economy_usa", 3)
    next_round(g, "usa")
    assert g.turn == 1
    g.set_hand("usa", [US2, US4])
    do(g, "card", US4)
    assert not {"improve_social", "improve_economy"} & legal_modes(g)


@pytest.mark.parametrize(
    ("economy_end_of_turn1", "attempts"),
    [(9, 1), (8, 2), (6, 2), (5, 3), (3, 3)],  # phase H lowers it by 1 before turn 2
)
def test_r8_attempts_per_turn_by_economy(economy_end_of_turn1, attempts):
    """R8 (6.3.2): attempts per turn from the economy level read in phase C: 8-11 one, 5-7
    two, 2-4 three."""
    g = to_end_of_turn1()
    g.set_track("economy_usa", economy_end_of_turn1)
    g.set_reserves("usa", 0)
    count = 0
    for _ in range(7):
        run_until(g, at("card", "usa", turn=2))
        g.set_hand("usa", [US3, US2, US1])
        do(g, "card", US3)
        if "improve_economy" not in legal_modes(g):
            break
        g.force_dice([6])  # a failure: the level read in phase C stays what matters
        do(g, "mode", "improve_economy")
        count += 1
    assert count == attempts
    assert g.turn == 2


# --------------------------------------------------------------------------- R9 tech / sabotage


@pytest.mark.parametrize(
    ("card", "die", "success"),
    [
        ("Dot-com Boom", 3, True), ("Dot-com Boom", 4, False),    # US card: 1-3
        (CN3, 4, True), (CN3, 5, False),                          # China card: 1-4
        ("Oslo Accords", 4, True), ("Oslo Accords", 5, False),    # neutral card: 1-4
    ],
)
def test_r9_tech_race(card, die, success):
    """R9 (6.4.1, 8.2.2): the tech race succeeds on 1-3 with a US card, 1-4 with a China or
    neutral card; success moves China's tech marker to Hybrid Rice (+1 VP, social +1)."""
    g = china_round(hand=(card, CN1))
    g.set_track("social_china", 6)
    vp = g.vp["china"]
    g.force_dice([die])
    play(g, card, "tech")
    assert g.track("tech_china") == (1 if success else 0)
    assert g.vp["china"] == vp + (1 if success else 0)
    assert g.track("social_china") == (7 if success else 6)


@pytest.mark.parametrize(
    ("social", "die", "after"),
    [
        (7, 3, 6), (7, 4, 7),      # within 7-6: 1-3
        (6, 2, 5), (6, 3, 6),      # 6 -> 5 enters 5-4: 1-2
        (10, 2, 9), (10, 3, 10),   # 10 -> 9 enters 9-8
        (9, 3, 8), (9, 4, 9),
        (5, 3, 4), (4, 2, 3), (4, 3, 4), (3, 3, 2),
    ],
)
def test_r9_sabotage(social, die, after):
    """R9 (6.5.1): sabotage lowers China's social level by one on 1-3 within a zone and on
    1-2 when the step enters a new zone; zones 10 | 9-8 | 7-6 | 5-4 | 3-2 | 1."""
    g = us_round()
    g.set_track("social_china", social)
    g.force_dice([die])
    play(g, US3, "tech")
    assert g.track("social_china") == after


@pytest.mark.parametrize("player", ["usa", "china"])
def test_r9_once_per_turn(player):
    """R9 (6.4.2, 6.5.2): one tech race (China) / sabotage (US) per turn."""
    if player == "china":
        g = china_round(hand=(CN3, "Oslo Accords", CN1))
        g.force_dice([6])
        play(g, CN3, "tech")
    else:
        g = us_round(hand=(US3, US2, US1))
        g.force_dice([6])
        play(g, US3, "tech")
    next_round(g, player)
    assert g.turn == 1
    g.set_hand(player, [US4, US3] if player == "usa" else [CN4, "Oslo Accords"])
    do(g, "card", US4 if player == "usa" else CN4)
    assert "tech" not in legal_modes(g)
    assert "place" in legal_modes(g)


@pytest.mark.parametrize("player", ["usa", "china"])
def test_r9_needs_two_ops(player):
    """R9 (6.4.1, 6.5.1): the card must have ops >= 2."""
    g = us_round(hand=(US1, US3)) if player == "usa" else china_round(hand=(CN1, CN3))
    do(g, "card", US1 if player == "usa" else CN1)
    assert "tech" not in legal_modes(g)


def test_r9_no_tech_race_on_the_last_box():
    """R9 (6.4.1): no tech race once China's tech marker is on the last box."""
    g = china_round()
    g.set_track("tech_china", 8)
    do(g, "card", CN3)
    assert "tech" not in legal_modes(g)


def test_r9_event_tech_advance_does_not_use_the_tech_race():
    """R9 (6.4.2): event effects do not count against the one tech race per turn: after
    Shenzhou 5 (China tech +1 as an event) China may still make its tech race."""
    g = china_round(hand=("Shenzhou 5", CN3, CN4))
    play(g, "Shenzhou 5", "event")
    assert g.track("tech_china") == 1
    next_round(g, "china")
    assert g.turn == 1
    g.set_hand("china", [CN3, CN4, CN1])
    do(g, "card", CN3)
    assert "tech" in legal_modes(g)


# --------------------------------------------------------------------------- R10 trade


def _trade_expected(g: Game, player: str, ops: int) -> set:
    out = set()
    for name, c in COUNTRIES.items():
        if c["stability"] is None or c["stability"] > 3 or ops < 4 - c["stability"]:
            continue
        if player == "usa" and g.influence(name)["anti_us"] > 0:
            continue
        out.add(name)
    return out


@pytest.mark.parametrize(("card", "ops"), [(US1, 1), (US2, 2), (US3, 3), (US4, 4)])
def test_r10_us_trade_targets(card, ops):
    """R10 (6.6.2): target stab <= 3 and card ops >= 4 - stab; the US may not target a
    country with AU; India (no stab) is never a target."""
    g = us_round(hand=(card, "Oslo Accords" if card != US1 else US3))
    g.set_influence("Iraq", anti_us=3)
    play(g, card, "trade")
    assert g.decision.kind == "trade" and g.decision.context["ops"] == ops
    legal = legal_countries(g)
    assert legal == _trade_expected(g, "usa", ops)
    assert "India" not in legal and "Iraq" not in legal  # Iraq: stab 3 but 3 AU


def test_r10_china_trade_targets():
    """R10 (6.6.2): China may target countries with AU; stab and ops limits as for the US."""
    g = china_round(hand=(CN2, CN1))
    g.set_influence("Iraq", anti_us=3)
    play(g, CN2, "trade")
    legal = legal_countries(g)
    assert legal == _trade_expected(g, "china", 2)
    assert "Iraq" in legal and "India" not in legal


@pytest.mark.parametrize(
    ("player", "economy_usa", "economy_china", "wins"),
    [
        ("usa", 6, 6, True),     # tie: the phasing player wins
        ("usa", 7, 6, True),
        ("usa", 5, 6, False),
        ("china", 6, 6, True),   # tie: China phasing wins
        ("china", 7, 6, False),
    ],
)
def test_r10_trade_contest(player, economy_usa, economy_china, wins):
    """R10 (6.6.3, 6.6.4, 9.1.8): both roll d6 + (own economy level - 1), the level at the
    moment of the contest; the phasing player wins ties and adds 3 own influence."""
    g = us_round(hand=(US2, US3)) if player == "usa" else china_round(hand=(CN2, CN1))
    g.set_track("economy_usa", economy_usa)
    g.set_track("economy_china", economy_china)
    g.set_influence("Mongolia")
    g.force_dice([3, 3])
    play(g, US2 if player == "usa" else CN2, "trade")
    do(g, "country", "Mongolia")
    kind = "usa" if player == "usa" else "china"
    expected = {"usa": 0, "china": 0, "anti_us": 0}
    if wins:
        expected[kind] = 3
    assert g.influence("Mongolia") == expected


def test_r10_once_per_turn():
    """R10 (6.6.1): one trade contest per turn for each player."""
    g = us_round(hand=(US2, US3, US1))
    g.force_dice([1, 6])
    play(g, US2, "trade")
    do(g, "country", "Mongolia")
    next_round(g, "usa")
    assert g.turn == 1
    g.set_hand("usa", [US3, US4])
    do(g, "card", US3)
    assert "trade" not in legal_modes(g)
    assert "place" in legal_modes(g)


# --------------------------------------------------------------------------- R11 reserves


@pytest.mark.parametrize(
    ("player", "reserves", "tracks", "offered"),
    [
        ("china", 2, {"russia": 0, "diplomacy": 2}, {"diplomacy"}),  # Russia costs 3
        ("china", 3, {"russia": 0, "diplomacy": 3}, {"russia"}),     # diplomacy at max 3
        ("china", 9, {"russia": 9, "diplomacy": 3}, set()),          # last box (8.1.3)
        ("china", 1, {"russia": 0, "diplomacy": 2}, set()),
        ("usa", 1, {"tech_usa": 1, "diplomacy": 2}, set()),          # next box costs 2
        ("usa", 2, {"tech_usa": 1, "diplomacy": 3}, {"tech"}),
        ("usa", 2, {"tech_usa": 1, "diplomacy": 2}, {"tech", "diplomacy"}),
        ("usa", 9, {"tech_usa": 8, "diplomacy": 3}, set()),          # last tech box
    ],
)
def test_r11_spends_offered(player, reserves, tracks, offered):
    """R11 (5.8, 8.1.3): at the start of its round the phasing player may spend: China 3 ->
    Russia +1, the US the next box's price -> US tech +1, either 2 -> diplomacy +1 (max 3);
    a spend needs enough reserves."""
    g = to_spend(player, reserves, **tracks)
    assert legal_spends(g) == offered


def test_r11_diplomacy_spend_repeatable_up_to_three():
    """R11 (5.8, 9.2.2): 2 reserves -> diplomacy +1, any number of times, never above 3."""
    g = to_spend("usa", 5, diplomacy=2, tech_usa=8)
    do(g, "spend", "diplomacy")
    assert g.track("diplomacy") == 3 and g.reserves["usa"] == 3
    assert g.decision.kind == "card"  # nothing more to spend on


def test_r11_us_tech_box_resolves_at_once():
    """R11 (5.8): the US tech box resolves at once, before the card play (Internet Age: +1 VP)."""
    g = to_spend("usa", 3, tech_usa=0, diplomacy=3)
    vp = g.vp["usa"]
    do(g, "spend", "tech")
    assert g.track("tech_usa") == 1 and g.vp["usa"] == vp + 1 and g.reserves["usa"] == 2
    assert g.decision.player == "usa" and g.decision.kind == "spend"  # may spend again (2)
    do(g, "spend", "tech")
    assert g.track("tech_usa") == 2 and g.reserves["usa"] == 0


@pytest.mark.parametrize(("player", "card"), [("usa", "Mexican Peso Bailout"),
                                              ("china", "MFN–Human Rights Linkage")])
def test_r11_reserves_never_go_negative(player, card):
    """R11: reserves never go negative: an event taking 1 reserve from a player with none
    leaves 0 (Mexican Peso Bailout: US -1; MFN-Human Rights Linkage: China -1)."""
    g = us_round(hand=(card, US3))
    g.set_reserves(player, 0)
    play(g, card, "event")
    assert g.reserves[player] == 0


def test_r11_russia_box_resolves_after_the_card():
    """R11 (5.8, 8.1.1): China's 3-reserve spend moves the Russia track; the box
    (Privatization: +1 US in Russia) resolves only after China's card play."""
    g = to_spend("china", 3, russia=0, diplomacy=3)
    g.set_influence("Russia")
    do(g, "spend", "russia")
    skip_spend(g)
    assert g.decision.kind == "card" and g.reserves["china"] == 0
    assert g.influence("Russia")["usa"] == 0
    g.set_hand("china", [CN1, CN3])
    play(g, CN1, "event")
    assert g.track("russia") == 1
    assert g.influence("Russia")["usa"] == 1
    assert g.reserves["china"] == 2


# =========================================================================== C. turn sequence


def test_r12_mid_era_cards_enter_the_draw_pile_at_turn_4():
    """R12 (4.1, 4.5): mid-era cards enter play at the start of turn 4, shuffled into the
    draw pile (not the discards); before that they are out of the game."""
    mid = [c["name"] for c in Game.cards() if c["era"] == "mid" and c["kind"] != "history"]
    assert mid
    turn3 = {}

    def reach(g: Game) -> None:
        run_until(g, lambda g: g.turn == 3)
        turn3["loc"] = {card_location(g, c) for c in mid}
        run_until(g, lambda g: g.turn == 4)
        assert g.phase in ("improve", "history")  # a decision before the deal (phase E)

    g = first_game(reach)
    assert turn3["loc"] == {"out"}
    assert {card_location(g, c) for c in mid} == {"draw"}


@pytest.mark.parametrize(
    ("social_usa", "social_china", "hand_usa", "hand_china"),
    [(10, 5, 10, 8), (7, 4, 9, 8), (5, 9, 8, 9), (3, 6, 8, 9), (9, 10, 9, 10)],
)
def test_r13_hand_size_by_social_level(social_usa, social_china, hand_usa, hand_china):
    """R13 (4.6.E, 9.1.6): phase E deals up to the hand size of the social level read in
    phase C: 10 -> 10, 9-6 -> 9, 5-2 -> 8."""
    g = to_end_of_turn1()
    g.set_track("social_usa", social_usa)
    g.set_track("social_china", social_china)
    for side in ("usa", "china"):
        g.set_track(f"economy_{side}", 8)  # no social change in phase H
    run_until(g, at("headline", "usa", turn=2))
    assert len(g.hand("usa")) == hand_usa
    assert len(g.hand("china")) == hand_china


@pytest.mark.parametrize(("low", "other"), [("china", "usa"), ("usa", "china")])
def test_r13_eighth_round_for_the_opponent(low, other):
    """R13 (9.1.6): a player at social 3-2 (read in phase C) gives the *opponent* an optional
    8th action round."""
    g = to_end_of_turn1()
    g.set_track(f"social_{low}", 3)
    g.set_track(f"social_{other}", 7)
    for side in ("usa", "china"):
        g.set_track(f"economy_{side}", 8)
    run_until(g, at("card", other, turn=2))
    g.set_hand(other, FULL_HAND[other])  # 9 cards: at least one is left after 7 rounds
    seen = []

    def pred(g: Game) -> bool:
        if g.decision.kind == "round8":
            seen.append(g.decision.player)
        return g.turn == 3 or bool(seen)

    run_until(g, pred)
    assert seen == [other]
    do(g, "yes")
    assert g.decision.player == other and g.decision.kind in ("spend", "card")
    assert g.turn == 2


def _last_china_round(seed: int = 0) -> Game:
    """The US has no cards; China plays 7 cards; returns at China's 7th card choice."""
    g = start("usa", seed)
    g.set_hand("usa", [])
    g.set_track("social_usa", 8)
    g.set_track("social_china", 6)
    cards = [CN3, CN1, CN4, "Project 211", "Shanghai Five", "Going Out Strategy",
             "Chávez Elected", "Clinton's Three Noes"]
    skip_spend(g)
    g.set_hand("china", cards)
    for _ in range(6):
        skip_spend(g)
        assert g.decision.player == "china" and g.decision.kind == "card"
        do(g, "card", g.hand("china")[0])
        do(g, "mode", "place")
        while g.decision.kind == "place":
            g.step(int(g.legal_actions()[0]))
    skip_spend(g)
    assert g.decision.player == "china" and g.turn == 1
    return g


@pytest.mark.parametrize(
    ("usa_holds", "china_holds", "winner"),
    [(True, False, "china"), (False, True, "usa"), (True, True, None)],
)
def test_r13_holding_a_scoring_card_at_the_end_of_the_turn(usa_holds, china_holds, winner):
    """R13 (2.2.1.1, 4.6.G): a player holding a scoring card at the end of phase G loses;
    if both do, the game is a draw."""
    g = _last_china_round()
    g.set_hand("usa", ["Asia Scoring"] if usa_holds else [])
    g.set_hand("china", [CN2, "Europe Scoring" if china_holds else CN1])
    play(g, CN2, "place")
    while not g.is_over and g.decision.kind == "place":
        g.step(int(g.legal_actions()[0]))
    assert g.is_over
    assert g.result.winner == winner
    assert g.turn == 1


@pytest.mark.parametrize(("social_usa", "social_china", "offered"),
                         [(8, 6, {"usa"}), (6, 9, {"china"}), (9, 8, {"usa", "china"}),
                          (10, 7, set())])
def test_r13_end_of_turn_discard_for_social_9_8(social_usa, social_china, offered):
    """R13 (9.1.6): a player at social 9-8 (read in phase C) may discard one card at the
    end of phase G (checked on turn 2 after setting the levels at the end of turn 1)."""
    g = to_end_of_turn1()
    g.set_track("social_usa", social_usa)
    g.set_track("social_china", social_china)
    for side in ("usa", "china"):
        g.set_track(f"economy_{side}", 8)
    do(g, "done")
    for side in ("usa", "china"):  # 9 cards each: some are left at the end of phase G
        run_until(g, at("card", side, turn=2))
        g.set_hand(side, FULL_HAND[side])
    seen = set()

    def pred(g: Game) -> bool:
        if g.decision.kind == "end_discard":
            seen.add(g.decision.player)
        return g.turn == 3

    run_until(g, pred)
    assert seen == offered


# --------------------------------------------------------------------------- R14 headline


def _headline(us_card: str, china_card: str, seed: int = 0) -> Game:
    """Turn 1: the US has chosen `us_card` as its headline; China is to choose (it holds
    `china_card`). No persistent card is in play yet on turn 1."""
    g = Game(seed)
    run_until(g, at("headline", "usa", turn=1))
    g.set_hand("usa", [us_card, "Oslo Accords"])
    g.set_hand("china", [china_card, CN3])
    do(g, "card", us_card)
    assert g.decision.kind == "headline" and g.decision.player == "china"
    return g


def test_r14_higher_ops_first_us():
    """R14 (4.6.F): the higher headline value resolves first. US APEC (2 ops, diplomacy +1)
    before China's Comprehensive Test Ban Treaty (1 op: +1 VP if diplomacy is 3)."""
    g = _headline("APEC Leaders' Meeting", "Comprehensive Test Ban Treaty")
    g.set_track("diplomacy", 2)
    vp = g.vp["china"]
    do(g, "card", "Comprehensive Test Ban Treaty")
    assert g.track("diplomacy") == 3
    assert g.vp["china"] == vp + 1


def test_r14_higher_ops_first_china():
    """R14 (4.6.F): China's Three Noes (2 ops, diplomacy +1) resolves before the US's
    Comprehensive Test Ban Treaty (1 op), which then finds diplomacy at 3: US +1 VP."""
    g = _headline("Comprehensive Test Ban Treaty", "Clinton's Three Noes")
    g.set_track("diplomacy", 2)
    vp = g.vp["usa"]
    do(g, "card", "Clinton's Three Noes")
    assert g.track("diplomacy") == 3
    assert g.vp["usa"] == vp + 1


def test_r14_tie_china_first():
    """R14 (4.6.F): equal headline values: China's card first. Chávez Elected (2) takes
    Venezuela from the US before Mexican Peso Bailout (2) rolls d6 + US-controlled Latin
    American countries: 4 + 0 -> +1 US in Mexico (US first would give 4 + 1 -> +2)."""
    g = _headline("Mexican Peso Bailout", "Chávez Elected")
    clear_region(g, "Latin America")
    g.set_influence("Venezuela", usa=2)
    g.force_dice([4])
    do(g, "card", "Chávez Elected")
    assert g.influence("Venezuela") == {"usa": 0, "china": 0, "anti_us": 2}
    assert g.influence("Mexico")["usa"] == 1


def test_r14_scoring_card_counts_zero():
    """R14 (4.6.F): a headlined scoring card counts 0, so the US's Commonwealth of
    Independent States (1 op; a tie would put China first) resolves before China's Europe
    Scoring: the US's new control of Moldova scores Europe presence for the US."""
    g = _headline("Commonwealth of Independent States", "Europe Scoring")
    clear_region(g, "Europe")
    g.set_influence("Serbia", china=2)  # China: presence in Europe
    vp = g.vp
    do(g, "card", "Europe Scoring")
    assert g.decision.kind == "influence" and g.decision.player == "usa"
    do(g, "country", "Moldova")
    do(g, "country", "Armenia")
    presence = region_box("Europe")[0]
    assert g.controller("Moldova") == "usa"
    assert g.vp["usa"] == vp["usa"] + presence
    assert g.vp["china"] == vp["china"] + presence


def test_r14_headline_choices_are_simultaneous():
    """R14 (4.6.F): both choose without seeing the other's choice: in China's view of the
    game (resample_hidden) the US's headline card is unknown and redrawn."""
    g = _headline("APEC Leaders' Meeting", "Comprehensive Test Ban Treaty")
    assert card_location(g, "APEC Leaders' Meeting") == "headline_usa"
    seen = {card_location(g.resample_hidden("china", s), "APEC Leaders' Meeting")
            for s in range(12)}
    assert seen != {"headline_usa"}
    assert card_location(g.resample_hidden("usa", 0), "APEC Leaders' Meeting") == "headline_usa"


def test_r14_opponent_headline_carried_out_by_the_opponent():
    """R14 (4.6.F note): an opponent's headline card is carried out by the opponent: the US
    headlines Exchange Rate Unification (China +2 reserves)."""
    g = _headline(CN1, "Comprehensive Test Ban Treaty")
    r = g.reserves
    g.set_track("diplomacy", 2)
    do(g, "card", "Comprehensive Test Ban Treaty")
    assert g.reserves["china"] == r["china"] + 2
    assert g.reserves["usa"] == r["usa"]


# --------------------------------------------------------------------------- R15 economy phase


@pytest.mark.parametrize(
    ("economy", "reserves", "upgrade", "econ_after", "res_after", "vp_usa", "vp_china",
     "social_delta"),
    [
        (11, 0, None, 10, 4, 1, 0, 1),    # income 4; 10-11: social +1, +1 VP
        (10, 4, True, 10, 0, 1, 0, 1),    # 4 + 4 = 8: upgrade to 11, decline to 10
        (9, 0, None, 8, 4, 1, 0, 0),      # 8-9: +1 VP
        (9, 3, True, 9, 0, 1, 0, 0),      # 3 + 4 = 7: upgrade 10, decline 9
        (9, 3, False, 8, 7, 1, 0, 0),
        (8, 0, None, 7, 4, 0, 0, 0),      # 6-7: nothing
        (6, 2, True, 6, 0, 0, 0, 0),      # 2 + 3 = 5: upgrade 7, decline 6
        (6, 0, None, 5, 3, 0, 1, 0),      # 4-5: opponent +1 VP
        (5, 0, None, 4, 2, 0, 1, 0),      # economy 4 is not < 4: social unchanged
        (4, 0, None, 3, 2, 0, 1, -1),     # economy 3 < 4: social -1; 2-3: opponent +1 VP
        (3, 1, True, 3, 0, 0, 1, -1),     # 1 + 1 = 2: upgrade 4, decline 3
        (3, 0, None, 2, 1, 0, 1, -1),
    ],
)
def test_r15_economy_phase(economy, reserves, upgrade, econ_after, res_after, vp_usa, vp_china,
                           social_delta):
    """R15 (4.6.H, 9.1.7): income by zone (4/4/3/2/1), optional upgrade at the zone price
    (8/7/5/4/2), economy -1 then social -1 if economy < 4, then the new level's effect."""
    g = to_end_of_turn1()
    g.set_track("economy_usa", economy)
    g.set_track("social_usa", 8)
    g.set_reserves("usa", reserves)
    g.set_track("economy_china", 8)  # China: income 4 -> 4 < 7, no upgrade; 8 -> 7: no effect
    g.set_track("social_china", 6)
    g.set_reserves("china", 0)
    vp = g.vp
    do(g, "done")
    if upgrade is None:
        assert not (g.decision.kind == "upgrade" and g.decision.player == "usa")
    else:
        assert g.decision.kind == "upgrade" and g.decision.player == "usa"
        do(g, "yes" if upgrade else "no")
    assert g.turn == 2 and g.decision.kind == "modifier"
    assert g.track("economy_usa") == econ_after
    assert g.reserves["usa"] == res_after
    assert g.track("social_usa") == 8 + social_delta
    assert g.vp == {"usa": vp["usa"] + vp_usa, "china": vp["china"] + vp_china}
    assert g.track("economy_china") == 7 and g.reserves["china"] == 4


def test_r15_maxima():
    """R15 (9.1.2): economy max 11 (no upgrade offered at 11), social max 10."""
    g = to_end_of_turn1()
    g.set_track("economy_usa", 11)
    g.set_track("social_usa", 10)
    g.set_reserves("usa", 20)
    g.set_reserves("china", 0)
    do(g, "done")
    assert not (g.decision.kind == "upgrade" and g.decision.player == "usa")
    run_until(g, lambda g: g.turn == 2)
    assert g.track("economy_usa") == 10
    assert g.track("social_usa") == 10


# --------------------------------------------------------------------------- R16 history events


def _history_game(card: str, player: str = "usa") -> Game:
    """A game at the US's modifier choice for `card`, the first normal history card."""
    for seed in range(300):
        g = Game(seed)
        run_until(g, at("modifier"))
        if g.content.history[g.decision.context["history"]].name == card:
            return g
    raise AssertionError(f"no seed draws {card}")


@pytest.mark.parametrize(
    ("us_mod", "china_mod", "die", "outcome"),
    [
        ("zero", "zero", 1, 1),
        ("zero", "zero", 2, 2),
        ("zero", "zero", 3, 2),
        ("zero", "zero", 4, 3),
        ("zero", "zero", 5, 3),
        ("zero", "zero", 6, 4),
        ("plus1", "zero", 1, 2),
        ("minus1", "zero", 2, 1),
        ("plus2", "zero", 4, 4),
        ("zero", "minus2", 4, 2),
        ("zero", "minus2", 3, 1),
        ("plus1", "minus2", 3, 2),
        ("plus2", "counter", 3, 2),    # the counter cancels the US's +2
        ("counter", "minus2", 4, 3),   # the counter cancels China's -2
        ("counter", "counter", 5, 3),  # two counters cancel each other
        ("plus2", "plus2", 3, 4),
    ],
)
def test_r16_history_modifiers(us_mod, china_mod, die, outcome):
    """R16 (4.6.D, 2.2.3.3): both choose a modifier (0 free, +-1 cost 1, +-2 cost 2, counter
    cost 1 cancelling the opponent's; two counters cancel; every card is paid); the owner
    rolls d6 + modifiers: <= 1 outcome 1, 2-3 outcome 2, 4-5 outcome 3, >= 6 outcome 4.
    Federal Budget Surplus: 1 social -1 / 2 +2 reserves / 3 economy +1 / 4 economy +1, +2."""
    g = _history_game("Federal Budget Surplus")
    g.set_reserves("usa", 5)
    g.set_reserves("china", 5)
    g.set_track("social_usa", 8)
    g.set_track("economy_usa", 8)
    cost = {"zero": 0, "plus1": 1, "minus1": 1, "plus2": 2, "minus2": 2, "counter": 1}
    do(g, "mod", us_mod)
    assert g.decision.kind == "modifier" and g.decision.player == "china"
    g.force_dice([die])
    do(g, "mod", china_mod)
    gain = {1: (-1, 0, 0), 2: (0, 0, 2), 3: (0, 1, 0), 4: (0, 1, 2)}[outcome]
    assert g.track("social_usa") == 8 + gain[0]
    assert g.track("economy_usa") == 8 + gain[1]
    assert g.reserves["usa"] == 5 - cost[us_mod] + gain[2]
    assert g.reserves["china"] == 5 - cost[china_mod]


@pytest.mark.parametrize(("reserves", "offered"), [
    (0, {"zero"}),
    (1, {"zero", "plus1", "minus1", "counter"}),
    (2, {"zero", "plus1", "minus1", "plus2", "minus2", "counter"}),
])
def test_r16_modifier_needs_reserves(reserves, offered):
    """R16, R11 (2.2.3.3): a modifier card must be paid from own reserves."""
    g = _history_game("Federal Budget Surplus")
    g.set_reserves("usa", 5)
    do(g, "mod", "zero")
    g.set_reserves("china", reserves)
    if reserves == 0:  # a single legal choice is taken at once
        assert g.decision.kind != "modifier" or g.decision.player != "china"
        return
    assert names(g, "mod", MOD_NAMES) == offered


def test_r16_turn1_named_cards_without_modifiers():
    """R16 (3.4, 4.6.D): on turn 1 Southern Tour and Rebuilding the European Order resolve
    with no modifier cards; then one normal history card each, with modifiers."""
    g = Game(0)
    east = ("Poland", "Czechia/Slovakia", "Hungary", "Romania", "Bulgaria", "Baltic States")
    assert g.decision.kind != "modifier"
    run_until(g, at("modifier"))
    first = g.content.history[g.decision.context["history"]]
    assert first.name not in ("Southern Tour", "Rebuilding the European Order")
    assert first.side == "usa"
    assert sum(g.influence(c)["usa"] for c in east) >= 2 + 2  # 2 at setup, +2..4
    assert g.reserves["usa"] == 2  # no modifier was paid
    # Southern Tour gave China at least 1 reserve or 1 economy level
    assert g.reserves["china"] > 2 or g.track("economy_china") > 6


@pytest.mark.parametrize(("die", "russia"), [
    (1, {"usa": 3, "china": 0, "anti_us": 0}),
    (2, {"usa": 0, "china": 0, "anti_us": 0}),
    (3, {"usa": 0, "china": 0, "anti_us": 0}),
    (4, {"usa": 0, "china": 3, "anti_us": 0}),
    (5, {"usa": 0, "china": 3, "anti_us": 0}),
])
def test_r16_putin_resolves_without_modifiers(die, russia):
    """R16, R17 (8.1.4): Putin Takes Office resolves when its Russia box is entered, China
    rolling a d6 with no modifier cards: 1 +3 US in Russia, 2-3 nothing, 4-5 +3 CN."""
    g = to_spend("china", 3, russia=4, diplomacy=3)
    clear_region(g, "Former USSR")
    do(g, "spend", "russia")
    skip_spend(g)
    g.set_hand("china", [CN1, CN3])
    g.force_dice([die])
    play(g, CN1, "event")
    assert g.track("russia") == 5
    assert g.decision.kind != "modifier"
    assert g.influence("Russia") == russia


def test_r16_putin_six():
    """8.1.4: Putin roll 6: +3 CN in Russia, and +2 CN in the Former USSR countries that are
    not US-controlled."""
    g = to_spend("china", 3, russia=4, diplomacy=3)
    clear_region(g, "Former USSR")
    g.set_influence("Baltic States", usa=2)  # US-controlled (stab 2)
    g.set_influence("Ukraine", usa=1)        # not US-controlled
    do(g, "spend", "russia")
    skip_spend(g)
    g.set_hand("china", [CN1, CN3])
    g.force_dice([6])
    play(g, CN1, "event")
    assert g.influence("Russia")["china"] >= 3
    assert g.influence("Baltic States") == {"usa": 2, "china": 0, "anti_us": 0}
    assert g.influence("Ukraine") == {"usa": 1, "china": 2, "anti_us": 0}
    assert g.influence("Moldova")["china"] == 2


# =========================================================================== D. tracks


def _russia_box(level: int, seed: int = 0) -> Game:
    """China spends 3 to move the Russia track from `level`; at China's card choice."""
    g = to_spend("china", 3, seed=seed, russia=level, diplomacy=3)
    clear_region(g, "Former USSR")
    return g


def _resolve_box(g: Game) -> None:
    do(g, "spend", "russia")
    skip_spend(g)
    g.set_hand("china", [CN1, CN3])
    play(g, CN1, "event")


def test_r17_privatization():
    """R17 (8.1.2): Privatization: +1 US in Russia."""
    g = _russia_box(0)
    _resolve_box(g)
    assert g.influence("Russia") == {"usa": 1, "china": 0, "anti_us": 0}


def test_r17_shock_therapy_us_places_in_four_distinct_countries():
    """R17 (8.1.2): Shock Therapy: +1 US in each of 4 Former USSR countries, placed by the US."""
    g = _russia_box(1)
    _resolve_box(g)
    chosen = ["Ukraine", "Belarus", "Moldova", "Armenia"]
    for c in chosen:
        assert g.decision.kind == "influence" and g.decision.player == "usa"
        do(g, "country", c)
        if c != chosen[-1]:
            assert c not in legal_countries(g)
    for c in chosen:
        assert g.influence(c) == {"usa": 1, "china": 0, "anti_us": 0}
    assert g.influence("Russia")["usa"] == 0


def test_r17_opposing_nato_expansion_as_many_as_exist():
    """R17 (8.1.2): Opposing NATO Expansion: -1 US in each of 3 Former USSR countries, chosen
    by China, in distinct countries, as many as exist (here 2)."""
    g = _russia_box(2)
    g.set_influence("Ukraine", usa=2)
    g.set_influence("Belarus", usa=1)
    _resolve_box(g)
    assert g.decision.kind == "influence" and g.decision.player == "china"
    do(g, "country", "Ukraine")
    assert g.influence("Ukraine") == {"usa": 1, "china": 0, "anti_us": 0}
    assert g.influence("Belarus") == {"usa": 0, "china": 0, "anti_us": 0}
    others = [c for c, d in COUNTRIES.items() if "Former USSR" in d["subregions"]]
    assert sum(g.influence(c)["anti_us"] for c in others) == 0


def test_r17_economic_crisis():
    """R17, R1 (8.1.2): Economic Crisis: -2 US in each of 3 Former USSR countries (China
    chooses); a shortfall becomes AU."""
    g = _russia_box(3)
    g.set_influence("Ukraine", usa=1)
    g.set_influence("Belarus", usa=3)
    g.set_influence("Baltic States", usa=2)
    g.set_influence("Moldova", usa=2)
    _resolve_box(g)
    for c in ("Ukraine", "Belarus", "Baltic States"):
        assert g.decision.kind == "influence" and g.decision.player == "china"
        do(g, "country", c)
    assert g.influence("Ukraine") == {"usa": 0, "china": 0, "anti_us": 1}
    assert g.influence("Belarus") == {"usa": 1, "china": 0, "anti_us": 0}
    assert g.influence("Baltic States") == {"usa": 0, "china": 0, "anti_us": 0}
    assert g.influence("Moldova") == {"usa": 2, "china": 0, "anti_us": 0}


def test_r17_second_chechen_war():
    """R17 (8.1.2): Second Chechen War: -1 US in each of 3 countries adjacent to Russia."""
    g = _russia_box(5)
    g.set_influence("Mongolia")
    g.set_influence("North Korea", china=4)
    for c, v in (("Baltic States", 2), ("Belarus", 1), ("Ukraine", 1), ("Georgia/Azerbaijan", 1)):
        g.set_influence(c, usa=v)
    _resolve_box(g)
    assert g.decision.kind == "influence" and g.decision.player == "china"
    assert legal_countries(g) == {"Baltic States", "Belarus", "Ukraine", "Georgia/Azerbaijan"}
    for c in ("Baltic States", "Belarus", "Ukraine"):
        do(g, "country", c)
    assert [g.influence(c)["usa"] for c in ("Baltic States", "Belarus", "Ukraine",
                                             "Georgia/Azerbaijan")] == [1, 0, 0, 1]


def test_r17_natos_rejection():
    """R17, R1 (8.1.2): NATO's Rejection: remove all US in Russia (no AU), then +3 AU."""
    g = _russia_box(6)
    g.set_influence("Russia", usa=4, china=1)
    _resolve_box(g)
    assert g.influence("Russia") == {"usa": 0, "china": 1, "anti_us": 3}


def test_r17_wagner_group():
    """R17 (8.1.2): Wagner Group: -2 US in Syria or an African country."""
    g = _russia_box(7)
    clear_region(g, "Africa")
    g.set_influence("Syria")
    g.set_influence("Nigeria", usa=3)
    _resolve_box(g)
    assert g.influence("Nigeria") == {"usa": 1, "china": 0, "anti_us": 0}


@pytest.mark.parametrize("mode", ["event", "place"])
def test_r17_russia_card_advances_the_track_last(mode):
    """R17, R5 (7.6, 5.2): a Russia card (NATO Enlargement) played as event or for ops
    advances the Russia track; the step resolves after everything else of the card."""
    g = us_round(hand=("NATO Enlargement", US3))
    clear_region(g, "Former USSR")
    g.set_track("russia", 0)
    play(g, "NATO Enlargement", mode)
    if mode == "place":
        for _ in range(4):
            assert g.decision.kind == "place"
            assert g.track("russia") == 0 and g.influence("Russia")["usa"] == 0
            do(g, "country", "Canada")
    else:
        assert g.influence("Poland")["usa"] >= 2
    assert g.track("russia") == 1
    assert g.influence("Russia")["usa"] == 1  # Privatization


def test_r17_opponent_russia_card_step_after_event_and_action():
    """R5, R17 (5.2): China plays the US's NATO Bombing of Yugoslavia for ops: the US event
    and China's action happen in China's chosen order, then the Russia step."""
    g = china_round(hand=("NATO Bombing of Yugoslavia", CN1))
    clear_region(g, "Former USSR")
    g.set_track("russia", 0)
    g.set_influence("Serbia", anti_us=2)
    play(g, "NATO Bombing of Yugoslavia", "place")
    do(g, "order", "event_first")
    assert g.influence("Serbia") == {"usa": 1, "china": 0, "anti_us": 0}
    for _ in range(3):
        assert g.decision.kind == "place" and g.decision.player == "china"
        assert g.track("russia") == 0 and g.influence("Russia")["usa"] == 0
        do(g, "country", "North Korea")
    assert g.track("russia") == 1
    assert g.influence("Russia")["usa"] == 1


# --------------------------------------------------------------------------- R18 scoring


ME = "Middle East"


@pytest.mark.parametrize(
    ("setup", "usa", "china"),
    [
        # control: more BG and more non-BG
        ({"Israel": {"usa": 4}, "Jordan": {"usa": 2}}, ("control", 1), (None, 0)),
        # domination: more BG, and neither side controls a non-BG
        ({"Israel": {"usa": 4}, "Saudi Arabia": {"usa": 3}, "Iran": {"china": 4}},
         ("domination", 2), ("presence", 1)),
        # no domination: China controls a non-BG, the US none
        ({"Israel": {"usa": 4}, "Saudi Arabia": {"usa": 3}, "Iran": {"china": 4},
          "Syria": {"china": 2}}, ("presence", 2), ("presence", 1)),
        # domination with one non-BG each
        ({"Israel": {"usa": 4}, "Saudi Arabia": {"usa": 3}, "Jordan": {"usa": 2},
          "Iran": {"china": 4}, "Syria": {"china": 2}}, ("domination", 2), ("presence", 1)),
        # AU-controlled BG lowers the US BG count (2 - 1), bonus from the lowered count;
        # AU control never counts for China
        ({"Israel": {"usa": 4}, "Saudi Arabia": {"usa": 3}, "Iran": {"anti_us": 1}},
         ("domination", 1), (None, 0)),
        # the reduction stops at 0
        ({"Israel": {"usa": 4}, "Jordan": {"usa": 2}, "Iran": {"anti_us": 1},
          "Iraq": {"anti_us": 1}}, ("presence", 0), (None, 0)),
        # China controls 2 BGs, the US 1 BG and 1 non-BG: China dominates? no non-BG -> no
        ({"Israel": {"usa": 4}, "Jordan": {"usa": 2}, "Iran": {"china": 4},
          "Iraq": {"china": 3}}, ("presence", 1), ("presence", 2)),
    ],
)
def test_r18_region_scoring(setup, usa, china):
    """R18 (10.1.1, 10.1.2, 10.1.3): presence / domination / control with the map's box
    values, +1 per controlled BG; AU-controlled countries lower the US's counts (floor 0)."""
    g = start("usa")
    clear_region(g, ME)
    for c, inf in setup.items():
        g.set_influence(c, **inf)
    box = dict(zip(("presence", "domination", "control"), region_box(ME), strict=True))
    expected = {side: (box[level] if level else 0) + bg
                for side, (level, bg) in (("usa", usa), ("china", china))}
    assert g.score_region(ME) == expected


def test_r18_adjacent_to_enemy_superpower_bonus():
    """R18 (10.1.2): +1 VP per controlled country adjacent to the enemy superpower: China
    controls Cuba (adjacent to the USA); the US controls Mexico (adjacent to the USA only)."""
    g = start("usa")
    clear_region(g, "Latin America")
    g.set_influence("Cuba", china=3)
    g.set_influence("Mexico", usa=2)
    presence = region_box("Latin America")[0]
    assert g.score_region("Latin America") == {"usa": presence + 1, "china": presence + 1 + 1}


def test_r18_subregion_scoring():
    """R18 (10.1.3 note): sub-region cards score 1 VP per controlled country and 2 per
    controlled BG; AU control has no effect."""
    g = start("usa")
    clear_region(g, "Southeast Asia")
    g.set_influence("Thailand", usa=2)      # non-BG: 1
    g.set_influence("Vietnam", china=3)     # BG: 2
    g.set_influence("Laos/Cambodia", china=1)  # non-BG: 1
    g.set_influence("Myanmar", anti_us=2)   # AU-controlled: no effect
    assert g.score_region("Southeast Asia") == {"usa": 1, "china": 3}


def test_r18_regions_include_their_subregions():
    """R18, 2.1.2: Europe includes the Former USSR and Asia includes Central Asia."""
    g = start("usa")
    clear_region(g, "Europe")
    clear_region(g, "Asia")
    g.set_influence("Ukraine", usa=3)        # a Former USSR BG
    g.set_influence("Central Asia", china=2)  # Asia and Former USSR, not Europe
    pe, de, _ = region_box("Europe")
    pa, _, _ = region_box("Asia")
    assert g.score_region("Europe") == {"usa": de + 1, "china": 0}
    assert g.score_region("Asia") == {"usa": 0, "china": pa}


def _keep_alive(g: Game) -> None:
    """Keep a scripted long game going (no collapse, no total war; US social 8-9)."""
    for side in ("usa", "china"):
        for t in ("social", "economy"):
            if g.track(f"{t}_{side}") < 4:
                g.set_track(f"{t}_{side}", 6)
    if g.track("social_usa") not in (8, 9):
        g.set_track("social_usa", 8)
    g.set_track("diplomacy", 3)
    g.set_track("regional_security", 3)


def test_r18_final_scoring():
    """R18 (10.3.3, 4.6.K): after turn 11 the five regions are scored as if their cards were
    played (the Former USSR is not scored separately), then the higher social level and
    the higher economy level each gain the difference in VP; most VP wins."""
    def reach(g: Game) -> None:
        for _ in range(20000):
            assert not g.is_over, g.result
            if at("end_discard", "usa", turn=11)(g):
                return
            _keep_alive(g)
            g.step(safe_action(g))
        raise AssertionError("too long")

    g = first_game(reach, seeds=range(30))
    clear_persistent(g)
    for c in ALL:
        g.set_influence(c)
    g.set_influence("Israel", usa=4)    # Middle East: US domination + 1 BG
    g.set_influence("Ukraine", usa=3)   # Europe (Former USSR): US domination + 1 BG
    g.set_influence("Cuba", china=3)    # Latin America: China domination + 1 BG + 1 adjacent
    g.set_track("social_usa", 8)
    g.set_track("economy_usa", 9)       # phase H: 9 -> 8, +1 VP
    g.set_track("social_china", 5)
    g.set_track("economy_china", 7)     # phase H: 7 -> 6
    g.set_reserves("usa", 0)
    g.set_reserves("china", 0)
    vp = g.vp
    do(g, "done")
    if not g.is_over and g.decision.kind == "end_discard":  # China at social 8-9 in phase C
        do(g, "done")
    assert g.is_over
    me, eu, la = region_box("Middle East"), region_box("Europe"), region_box("Latin America")
    usa = vp["usa"] + 1 + (me[1] + 1) + (eu[1] + 1) + (8 - 5) + (8 - 6)
    china = vp["china"] + (la[1] + 1 + 1)
    assert g.vp == {"usa": usa, "china": china}
    assert g.result.winner == ("usa" if usa > china else "china" if china > usa else None)


# --------------------------------------------------------------------------- R19 Russia-Ukraine


def test_r19_failure():
    """R19 (8.1.5): the US adds nothing to Ukraine in the first active turn: at the end of
    phase G China +2 VP, all US in Ukraine removed (no AU for it) and 3 AU placed, then
    China reduces 4 US influence in Europe."""
    g = to_spend("china", 3, russia=8, diplomacy=3)
    g.set_influence("Ukraine", usa=2)
    do(g, "spend", "russia")
    skip_spend(g)
    vp = g.vp["china"]
    g.set_hand("usa", [])  # nobody has a card left: phase G ends after China's card
    europe = [c for c, d in COUNTRIES.items() if d["region"] == "Europe" and c != "Ukraine"]
    before = sum(g.influence(c)["usa"] for c in europe)
    last_card(g, "china", CN1, "event")
    assert g.track("russia") == 9
    assert g.vp["china"] == vp + 2
    assert g.influence("Ukraine") == {"usa": 0, "china": 0, "anti_us": 3}
    for c in ("United Kingdom", "France", "Germany", "Italy"):
        assert g.decision.kind == "influence" and g.decision.player == "china"
        do(g, "country", c)
    assert sum(g.influence(c)["usa"] for c in europe) == before - 4
    assert g.decision.kind != "influence" or g.decision.player != "china"


@pytest.mark.parametrize("ukraine", [{}, {"china": 1}, {"usa": 2}])
def test_r19_requirement_met(ukraine):
    """R19 (8.1.5): in the first active turn one US point added to Ukraine meets the
    requirement: no penalty at the end of phase G."""
    g = to_spend("china", 3, russia=8, diplomacy=3)
    g.set_influence("Ukraine", **ukraine)
    g.set_influence("Poland", usa=1)
    do(g, "spend", "russia")
    skip_spend(g)
    g.set_hand("usa", [US1])
    last_card(g, "china", CN1, "event")
    assert g.track("russia") == 9
    vp = g.vp["china"]
    skip_spend(g)
    if g.decision.kind == "card":
        do(g, "card", US1)
    do(g, "mode", "place")
    do(g, "country", "Ukraine")
    expected = dict(g.influence("Ukraine"))
    run_until(g, lambda g: g.turn == 2 or g.decision.kind == "upgrade")
    assert g.influence("Ukraine") == expected
    assert g.vp["china"] == vp


def test_r19_waits_while_ukraine_is_china_controlled():
    """R19 (8.1.5): if Ukraine is China-controlled when the box is reached, the war starts
    only when it stops being China-controlled: no requirement this turn."""
    g = to_spend("china", 3, russia=8, diplomacy=3)
    g.set_influence("Ukraine", china=3)
    do(g, "spend", "russia")
    skip_spend(g)
    vp = g.vp["china"]
    g.set_hand("usa", [])
    last_card(g, "china", CN1, "event")
    assert g.track("russia") == 9
    assert g.decision.kind != "influence"
    assert g.influence("Ukraine") == {"usa": 0, "china": 3, "anti_us": 0}
    assert g.vp["china"] == vp


def _war_turn2(seed: int) -> Game:
    """The war becomes active in China's round 1 of turn 1; the US meets the requirement
    (1 point) at once; returns at the US's first card choice of turn 2."""
    g = to_spend("china", 3, seed=seed, russia=8, diplomacy=3)
    g.set_influence("Ukraine")
    g.set_influence("Poland", usa=1)
    do(g, "spend", "russia")
    skip_spend(g)
    g.set_hand("usa", [US1])
    last_card(g, "china", CN1, "event")
    skip_spend(g)
    do(g, "mode", "place")
    do(g, "country", "Ukraine")  # turn 1: 1 of 1
    assert g.influence("Ukraine")["usa"] == 1
    run_until(g, at("card", "usa", turn=2))
    return g


@pytest.mark.parametrize(("card", "points", "fails"), [(US1, 1, True), (US2, 2, False)])
def test_r19_second_turn_requires_two(card, points, fails):
    """R19 (8.1.5): in the k-th active turn the US must add k US to Ukraine (turn 2: 2)."""
    for seed in range(40):  # a game where nothing in turn 2 before the US's card adds to Ukraine
        g = _war_turn2(seed)
        if g.influence("Ukraine") == {"usa": 1, "china": 0, "anti_us": 0}:
            break
    else:
        raise AssertionError("no suitable seed")
    g.set_hand("china", [])
    vp = g.vp["china"]
    last_card(g, "usa", card, "place")
    for _ in range(points):
        do(g, "country", "Ukraine")
    # nobody has a card left: phase G ends with the last placement
    run_until(g, lambda g: g.turn == 3 or g.decision.kind in ("upgrade", "influence"))
    if fails:
        assert g.vp["china"] == vp + 2
        assert g.influence("Ukraine") == {"usa": 0, "china": 0, "anti_us": 3}
    else:
        assert g.vp["china"] == vp
        assert g.influence("Ukraine")["usa"] == 1 + points


# --------------------------------------------------------------------------- R20 US tech


PRICES = [1, 2, 2, 3, 3, 4, 4, 5]


@pytest.mark.parametrize("level", range(8))
def test_r20_tech_prices(level):
    """R20 (8.2.3): the US tech boxes cost 1, 2, 2, 3, 3, 4, 4, 5 in order."""
    price = PRICES[level]
    g = to_spend("usa", price - 1, tech_usa=level, diplomacy=3)
    assert "tech" not in legal_spends(g)
    g = to_spend("usa", price, tech_usa=level, diplomacy=3)
    assert "tech" in legal_spends(g)
    do(g, "spend", "tech")
    assert g.track("tech_usa") == level + 1
    assert g.reserves["usa"] == 0


@pytest.mark.parametrize(("card", "ops"), [(US2, 3), (US3, 4), (US4, 4), (US1, 2)])
def test_r20_smartphone_next_card_plus_one(card, ops):
    """R20 (8.2.3): Smartphone: US +1 VP and the US's next card +1 ops (max 4); only that card."""
    g = to_spend("usa", 2, tech_usa=2, diplomacy=3)
    vp = g.vp["usa"]
    do(g, "spend", "tech")
    assert g.vp["usa"] == vp + 1
    g.set_hand("usa", [card, "Oslo Accords", "Oil-for-Food Programme"])
    do(g, "card", card)
    assert g.decision.context["ops"] == ops
    do(g, "mode", "place")
    while g.decision.kind == "place" and g.decision.player == "usa":
        do(g, "country", "Canada")
    next_round(g, "usa")
    g.set_hand("usa", [US3, "Oslo Accords"])
    do(g, "card", US3)
    assert g.decision.context["ops"] == 3


def test_r20_super_materials_next_event_does_not_happen():
    """R20, R27 (8.2.3): Super Materials: the event of the US's next card does not happen,
    so that card is not offered as event (R27); played for ops, nothing of it happens."""
    g = to_spend("usa", 4, tech_usa=5, diplomacy=3)
    do(g, "spend", "tech")
    g.set_hand("usa", [US1, US3])
    g.set_influence(HAITI)
    assert "event" not in legal_modes(g, US1)
    play(g, US1, "place")
    assert g.influence(HAITI)["usa"] == 0


def test_r20_super_materials_blocks_an_opponent_event():
    """R20 (8.2.3): Super Materials also stops the event of an opponent's card the US plays
    next for ops."""
    g = to_spend("usa", 4, tech_usa=5, diplomacy=3)
    do(g, "spend", "tech")
    g.set_hand("usa", [CN1, US3])
    r = g.reserves["china"]
    play(g, CN1, "place")
    assert g.decision.kind == "place"
    do(g, "country", "Canada")
    assert g.reserves["china"] == r


def test_r20_general_ai_next_card_event_and_ops():
    """R20, R25 (8.2.3): General AI: US +1 VP; the US's next card may both fire its event
    and be used for an action with its ops."""
    g = to_spend("usa", 4, tech_usa=6, diplomacy=3)
    vp = g.vp["usa"]
    do(g, "spend", "tech")
    assert g.vp["usa"] == vp + 1
    g.set_hand("usa", [US1, US3])
    g.set_influence(HAITI)
    play(g, US1, "place")
    assert g.decision.kind == "ai_event"
    do(g, "order", "event_first")
    assert g.influence(HAITI)["usa"] == 2
    do(g, "country", "Canada")
    assert g.decision.player == "china"


def test_r20_social_media():
    """R20 (8.2.3): Social Media: the US adds 1 US in one uncontrolled country of its choice."""
    g = to_spend("usa", 2, tech_usa=1, diplomacy=3)
    do(g, "spend", "tech")
    assert g.decision.kind == "influence" and g.decision.player == "usa"
    assert legal_countries(g) == {c for c in ALL if g.controller(c) is None}
    g.set_influence("Mongolia")
    do(g, "country", "Mongolia")
    assert g.influence("Mongolia")["usa"] == 1


@pytest.mark.parametrize(("level", "vp", "economy"), [(4, 1, 1), (7, 2, 2), (0, 1, 0)])
def test_r20_vp_and_economy_boxes(level, vp, economy):
    """R20 (8.2.3): Internet Age +1 VP; Green Tech +1 VP, economy +1; Space Age +2 VP,
    economy +2."""
    g = to_spend("usa", PRICES[level], tech_usa=level, diplomacy=3)
    g.set_track("economy_usa", 8)
    v = g.vp["usa"]
    do(g, "spend", "tech")
    assert g.vp["usa"] == v + vp
    assert g.track("economy_usa") == 8 + economy


def test_r20_early_ai_reveals_a_snapshot_of_chinas_hand():
    """R20 (8.2.3): Early AI shows China's hand at that moment to the US: in the US's
    view (resample_hidden) those cards stay in China's hand; without it they are redrawn."""
    g = to_spend("usa", 3, tech_usa=3, diplomacy=3)
    g.set_hand("china", [CN3, CN4, "Project 211", "Shanghai Five", "Going Out Strategy"])
    hand = set(g.hand("china"))
    redrawn = [set(g.resample_hidden("usa", s).hand("china")) for s in range(8)]
    assert any(h != hand for h in redrawn)  # hidden before
    do(g, "spend", "tech")
    assert g.track("tech_usa") == 4
    for s in range(8):
        assert set(g.resample_hidden("usa", s).hand("china")) == hand


def test_r20_next_card_means_the_next_action_round_card():
    """R20: a "next card" benefit gained in the history phase (Information Superhighway,
    outcome 3 -> Smartphone) applies to the US's first card of the action rounds, not to
    its headline card."""
    g = _history_game("Information Superhighway")
    g.set_track("tech_usa", 2)
    g.force_dice([4])  # zero modifiers (no reserves): outcome 3, tech +1
    g.set_reserves("china", 0)
    g.set_reserves("usa", 0)  # both modifier choices are now forced: the card resolves
    run_until(g, lambda g: g.track("tech_usa") == 3 or g.decision.kind == "headline")
    assert g.track("tech_usa") == 3
    run_until(g, at("headline", "usa"))
    g.set_hand("usa", [US3, US2, US1])
    do(g, "card", US2)  # the headline card is not the "next card"
    run_until(g, at("card", "usa"))
    assert g.turn == 1
    do(g, "card", US3)
    assert g.decision.context["ops"] == 4


# --------------------------------------------------------------------------- R21 immediate ends


def test_r21_social_one_by_sabotage():
    """R21 (9.1.1, 9.1.3, 10.3.1): China's social level at 1 ends the game at once: China
    loses."""
    g = us_round()
    g.set_track("social_china", 2)
    g.force_dice([2])
    play(g, US3, "tech")
    assert g.is_over and g.result.winner == "usa"


def test_r21_social_one_by_own_event():
    """R21 (9.1.3): a player whose own event drops its social level to 1 loses."""
    g = china_round(hand=(CN2, CN1))
    g.set_track("social_china", 2)
    play(g, CN2, "event")
    assert g.decision.kind == "option"
    do(g, "option", 0)  # economy +1, social -1
    assert g.is_over and g.result.winner == "usa"


@pytest.mark.parametrize(
    ("economy_usa", "economy_china", "winner", "over"),
    [(2, 8, "china", True), (8, 2, "usa", True), (2, 2, None, True), (3, 3, None, False)],
)
def test_r21_economy_one_in_phase_h(economy_usa, economy_china, winner, over):
    """R21 (9.1.3, 10.3.2): an economy decline to 1 ends the game: that player loses; both
    at once: draw."""
    g = to_end_of_turn1()
    g.set_track("economy_usa", economy_usa)
    g.set_track("economy_china", economy_china)
    g.set_track("social_usa", 8)
    g.set_track("social_china", 8)
    g.set_reserves("usa", 0)
    g.set_reserves("china", 0)
    do(g, "done")
    while not g.is_over and g.decision.kind == "upgrade":
        do(g, "no")
    assert g.is_over == over
    if over:
        assert g.result.winner == winner
    else:
        assert g.turn == 2


@pytest.mark.parametrize("player", ["usa", "china"])
def test_r21_diplomacy_one_phasing_player_loses(player):
    """R21 (9.2.3, 10.3.1): diplomacy at 1 ends the game; the phasing player loses (a
    realignment winning Ukraine, a BG, lowers diplomacy from 2 to 1)."""
    if player == "usa":
        g = us_round()
        g.set_influence("Ukraine", china=1)
        g.set_track("diplomacy", 2)
        realign(g, US3, "Ukraine", 6)
    else:
        g = china_round()
        g.set_influence("Ukraine", usa=1)
        g.set_track("diplomacy", 2)
        realign(g, CN3, "Ukraine", 6)
    assert g.track("diplomacy") == 1
    assert g.is_over
    assert g.result.winner == ("china" if player == "usa" else "usa")
