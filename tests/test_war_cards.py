"""The early war cards of rulebook 7.5 and the card mechanics of 5.3/5.4 and 7.3/7.7 (R4),
as authored in data/cards_early.toml.

War cards use the shared `war` effect (docs/content.md): the warring side rolls a die,
+1 per country adjacent to the target it controls, -1 per adjacent country controlled by
the other side (for China, anti-US control counts as its own, 2.1.8.3); a modified roll
>= `win_on` runs `success`, else `failure`; regional security -1 either way.  They can be
played with no influence in the countries concerned (7.5).

Each test plays the card in an action round of a quiet game (tests/helpers.py:
`quiet_round`), after setting the board, and asserts the exact change (`changes`:
influence after, tracks after, VP / reserve deltas).  Dice are forced.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest
from helpers import (
    changes,
    clear,
    do,
    empty_hands_to_next_turn,
    legal_cards,
    legal_countries,
    legal_modes,
    ops_shown,
    play,
    quiet_advance,
    quiet_round,
    snapshot,
    wipe_region,
)

from evenstar_env import Game
from evenstar_env.content import DATA_DIR, load_content
from evenstar_env.engine.constants import DISCARD, IN_PLAY, LOC_NAMES, M_TURN, REMOVED

FILLER = "Comprehensive Test Ban Treaty"  # neutral, 1 op: keeps the hand from running empty

GULF, YUGO, CHECHEN = "Gulf War", "Yugoslav War", "Chechen War"
ALGERIA, CONGO = "Algerian War", "Congo War"
NUNN_LUGAR = "Nunn–Lugar Threat Reduction"
WESTERN = "Western Development Strategy"
MFN = "MFN–Human Rights Linkage"

# China's early cards by printed ops, for the ops-modifier checks.
CN_BY_OPS = {1: "Exchange Rate Unification", 2: "State-Owned Enterprise Reform",
             3: "Socialist Market Economy", 4: "Asian Financial Crisis"}


# ------------------------------------------------------------------ helpers


def loc(g: Game, name: str) -> str:
    return LOC_NAMES[int(g.state.card_loc[g.content.card_by_name[name]])]


def start(side: str, card: str, filler: str = FILLER) -> Game:
    """A quiet game at `side`'s card choice, with `card` (and a filler) in hand, no
    persistent card in play, diplomacy and regional security at 3."""
    g = quiet_round(side, 1)
    g.state.card_loc[g.state.card_loc == IN_PLAY] = DISCARD  # no persistent card in play
    g.set_hand(side, [card, filler])
    g.set_track("diplomacy", 3)
    g.set_track("regional_security", 3)
    return g


def neighbours(g: Game, country: str) -> list[str]:
    c = g.content
    return [c.countries[j].name for j in np.flatnonzero(c.adj[c.index[country]])]


def battlefield(g: Game, target: str, setting: dict | None = None) -> None:
    """Clear `target` and every neighbour, then set `setting` ({country: influence})."""
    clear(g, target, *neighbours(g, target))
    for country, kinds in (setting or {}).items():
        g.set_influence(country, **kinds)


def put_in_play(g: Game, *cards: str) -> None:
    """Put persistent cards in play (as if their events had happened earlier)."""
    for name in cards:
        g.state.card_loc[g.content.card_by_name[name]] = IN_PLAY


def event(g: Game, card: str, dice: list[int], *steps: tuple) -> dict:
    """Play `card` as an event with forced `dice`, answer `steps`; return the board change."""
    before = snapshot(g)
    g.force_dice(dice)
    play(g, card, "event")
    for st in steps:
        do(g, *st)
    assert g.state.forced == [], "every forced die was used"
    return changes(g, before)


# ============================================================ deck composition


NEW_CARDS = {  # id: (side, ops, removed, russia)
    "gulf_war": ("usa", 4, True, False),
    "yugoslav_war": ("neutral", 3, True, False),
    "chechen_war": ("china", 2, True, True),
    "algerian_war": ("neutral", 3, True, False),
    "congo_war": ("neutral", 3, True, False),
    "nunn_lugar": ("usa", 1, True, False),
    "western_development": ("china", 4, False, False),
}


def test_new_early_cards_sides_ops_and_flags() -> None:
    cards = {c.id: c for c in Game(0).content.cards}
    for cid, (side, ops, removed, russia) in NEW_CARDS.items():
        c = cards[cid]
        assert (c.era, c.side, c.ops, c.removed, c.russia) == ("early", side, ops, removed,
                                                               russia), cid
    wars = {cid for cid, c in cards.items() if c.era == "early"
            and any(e.op == "war" for e in c.effects)
            or c.era == "early" and any(e.op == "choice" and any(
                x.op == "war" for o in e.options for x in o.effects) for e in c.effects)}
    assert wars == {"gulf_war", "yugoslav_war", "chechen_war", "algerian_war", "congo_war"}
    assert cards["western_development"].persistent.ops_mod == {"china": 1}
    assert cards["mfn_human_rights_linkage"].persistent.ops_mod == {"china": -1}
    russia = {cid for cid, c in cards.items() if c.russia}
    assert {"chechen_war", "nato_enlargement", "nato_bombing_of_yugoslavia", "csto"} <= russia


# ------------------------------------------------------- shared boundary check


def assert_modifier(g: Game, card: str, side: str, modifier: int, win_on: int = 4,
                    steps: tuple = ()) -> None:
    """The war's modified roll is exactly die + `modifier`: the die `win_on - modifier`
    wins and one less fails (every war success gives the warring side VP, no failure
    does).  Dice beyond 1..6 are skipped."""
    for die, won in ((win_on - modifier, True), (win_on - modifier - 1, False)):
        if 1 <= die <= 6:
            h = g.clone()
            changed = event(h, card, [die], *steps)
            assert (f"vp_{side}" in changed) is won, (die, changed)


# ==================================================================== GULF WAR


def test_gulf_war_victory_replaces_au_and_cn_in_iraq_with_us_and_gives_two_vp() -> None:
    g = start("usa", GULF)
    battlefield(g, "Iraq", {"Iraq": {"anti_us": 3, "china": 1}, "Saudi Arabia": {"usa": 3},
                           "Iran": {"anti_us": 3}})  # +1 -1 = 0
    assert event(g, GULF, [4]) == {
        "Iraq": {"usa": 4}, "vp_usa": 2, "diplomacy": 2, "regional_security": 2}
    assert loc(g, GULF) == LOC_NAMES[REMOVED]


def test_gulf_war_defeat_adds_two_au_in_iraq_and_gives_china_one_vp() -> None:
    g = start("usa", GULF)
    battlefield(g, "Iraq", {"Iraq": {"anti_us": 3, "china": 1}, "Saudi Arabia": {"usa": 3},
                           "Iran": {"anti_us": 3}})
    assert event(g, GULF, [2]) == {  # the Gulf War wins on 3 or more (its note)
        "Iraq": {"anti_us": 5, "china": 1}, "vp_china": 1, "diplomacy": 2,
        "regional_security": 2}
    assert loc(g, GULF) == LOC_NAMES[REMOVED]


def test_gulf_war_defeat_with_us_in_iraq_places_au_after_removing_us() -> None:
    g = start("usa", GULF)
    battlefield(g, "Iraq", {"Iraq": {"usa": 1}})
    assert event(g, GULF, [1]) == {
        "Iraq": {"anti_us": 1}, "vp_china": 1, "diplomacy": 2, "regional_security": 2}


@pytest.mark.parametrize("setting, modifier", [
    ({}, 0),
    ({"Saudi Arabia": {"usa": 3}}, 1),                                   # US-controlled
    ({"Saudi Arabia": {"usa": 3}, "Turkey": {"usa": 2}}, 2),
    ({"Saudi Arabia": {"usa": 3}, "Turkey": {"usa": 2}, "Jordan": {"usa": 2}}, 3),
    ({"Saudi Arabia": {"usa": 2}, "Jordan": {"usa": 1}}, 0),              # not controlled
    ({"Syria": {"anti_us": 1}}, -1),                                     # AU-controlled
    ({"Iran": {"china": 4}}, -1),                                        # China-controlled
    ({"Iran": {"china": 4}, "Syria": {"anti_us": 3}, "Gulf States": {"anti_us": 1}}, -3),
    ({"Saudi Arabia": {"usa": 3}, "Syria": {"anti_us": 3}, "Iran": {"china": 3}}, 0),
    ({"Turkey": {"usa": 2, "china": 1}}, 0),                             # US - CN < stab
], ids=["none", "one_us", "two_us", "three_us", "no_control", "au", "cn", "three_enemy",
        "mixed", "contested"])
def test_gulf_war_neighbour_modifier(setting, modifier) -> None:
    g = start("usa", GULF)
    battlefield(g, "Iraq", setting)
    assert_modifier(g, GULF, "usa", modifier, win_on=3)


def test_gulf_war_is_playable_with_no_influence_in_iraq_or_its_neighbours() -> None:
    g = start("usa", GULF)
    battlefield(g, "Iraq")
    assert "event" in legal_modes(g, GULF)
    assert event(g, GULF, [4]) == {"vp_usa": 2, "diplomacy": 2, "regional_security": 2}


def test_gulf_war_at_diplomacy_2_is_total_war_and_the_us_loses() -> None:
    g = start("usa", GULF)
    g.set_track("diplomacy", 2)
    battlefield(g, "Iraq")
    g.force_dice([6])
    play(g, GULF, "event")
    assert g.is_over and g.result.winner == "china"
    assert g.track("diplomacy") == 1


def test_gulf_war_played_by_china_for_ops_lets_the_us_wage_the_war() -> None:
    """5.2: China plays the US card for ops; the US carries the event out and rolls."""
    g = start("china", GULF)
    battlefield(g, "Iraq", {"Iraq": {"anti_us": 3}, "Saudi Arabia": {"usa": 3}})  # US +1
    clear(g, "Mongolia")
    before = snapshot(g)
    g.force_dice([3])  # 3 + 1 = 4: the US wins
    play(g, GULF, "place")
    do(g, "order", "action_first")
    for _ in range(4):
        do(g, "country", "Mongolia")
    assert g.state.forced == []
    assert changes(g, before) == {"Mongolia": {"china": 4}, "Iraq": {"usa": 3}, "vp_usa": 2,
                                  "diplomacy": 2, "regional_security": 2}
    assert loc(g, GULF) == LOC_NAMES[REMOVED]


# ================================================================ YUGOSLAV WAR

SERBIA, CROATIA = ("option", 0), ("option", 1)


@pytest.mark.parametrize("side", ["usa", "china"])
def test_yugoslav_war_the_player_chooses_serbia_or_croatia_bosnia(side) -> None:
    g = start(side, YUGO)
    play(g, YUGO, "event")
    assert g.decision.kind == "option" and g.decision.player == side
    assert set(g.decision.legal) == {g.action_id("option", 0), g.action_id("option", 1)}


@pytest.mark.parametrize("side, option, target, setting, die, expected", [
    # US victory on Serbia: AU and CN become US.
    ("usa", SERBIA, "Serbia", {"Serbia": {"anti_us": 2, "china": 1}}, 4,
     {"Serbia": {"usa": 3}, "vp_usa": 1}),
    ("usa", SERBIA, "Serbia", {"Serbia": {"anti_us": 2, "china": 1}}, 3, {"vp_china": 1}),
    # China victory on Croatia/Bosnia: US becomes CN.
    ("china", CROATIA, "Croatia/Bosnia", {"Croatia/Bosnia": {"usa": 2, "china": 1}}, 4,
     {"Croatia/Bosnia": {"china": 3}, "vp_china": 1}),
    ("china", CROATIA, "Croatia/Bosnia", {"Croatia/Bosnia": {"usa": 2, "china": 1}}, 3,
     {"vp_usa": 1}),
    # As the text says, anti-US influence is replaced too, whoever wins.
    ("china", SERBIA, "Serbia", {"Serbia": {"anti_us": 2}}, 6,
     {"Serbia": {"china": 2}, "vp_china": 1}),
    ("usa", CROATIA, "Croatia/Bosnia", {"Croatia/Bosnia": {"china": 2}}, 5,
     {"Croatia/Bosnia": {"usa": 2}, "vp_usa": 1}),
], ids=["us_serbia_win", "us_serbia_lose", "cn_croatia_win", "cn_croatia_lose",
        "cn_serbia_win_au", "us_croatia_win"])
def test_yugoslav_war_victory_and_defeat(side, option, target, setting, die,
                                         expected) -> None:
    g = start(side, YUGO)
    battlefield(g, target, setting)
    assert event(g, YUGO, [die], option) == {**expected, "regional_security": 2}
    assert loc(g, YUGO) == LOC_NAMES[REMOVED]


@pytest.mark.parametrize("side, option, target, setting, modifier", [
    ("usa", SERBIA, "Serbia", {"Hungary": {"usa": 3}, "Romania": {"usa": 3}}, 2),
    ("usa", SERBIA, "Serbia", {"Croatia/Bosnia": {"china": 2},
                               "Bulgaria": {"anti_us": 1}}, -2),
    ("usa", SERBIA, "Serbia", {"Hungary": {"usa": 2}, "Bulgaria": {"china": 2}}, 0),
    ("china", SERBIA, "Serbia", {"Croatia/Bosnia": {"anti_us": 1}, "Bulgaria": {"china": 3},
                                 "Hungary": {"usa": 3}}, 1),
    ("china", CROATIA, "Croatia/Bosnia", {"Serbia": {"anti_us": 2}}, 1),
    ("china", CROATIA, "Croatia/Bosnia", {"Serbia": {"anti_us": 2},
                                          "Hungary": {"usa": 3}}, 0),
    ("usa", CROATIA, "Croatia/Bosnia", {"Serbia": {"anti_us": 2},
                                        "Hungary": {"usa": 2}}, -1),
], ids=["us_two_own", "us_cn_and_au", "us_uncontrolled", "cn_au_cn_us", "cn_au",
        "cn_au_vs_us", "us_au_only"])
def test_yugoslav_war_neighbour_modifier(side, option, target, setting, modifier) -> None:
    g = start(side, YUGO)
    battlefield(g, target, setting)
    assert_modifier(g, YUGO, side, modifier, steps=(option,))


# ================================================================= CHECHEN WAR


def chechen_start(side: str = "china", setting: dict | None = None) -> Game:
    g = start(side, CHECHEN)
    battlefield(g, "Russia", setting)
    g.set_track("russia", 0)  # the step enters box 1, Privatization: +1 US in Russia
    return g


def test_chechen_war_victory_turns_us_into_au_then_the_russia_step() -> None:
    g = chechen_start(setting={"Russia": {"usa": 2, "china": 1},
                               "Georgia/Azerbaijan": {"usa": 1}})
    # 5 + 0 = 5 >= 5: US 2 -> AU 2 in Russia, then Privatization adds 1 US (removes 1 AU).
    assert event(g, CHECHEN, [5]) == {
        "Russia": {"anti_us": 1, "china": 1}, "Georgia/Azerbaijan": {"anti_us": 1},
        "vp_china": 1, "regional_security": 2, "russia": 1}
    assert loc(g, CHECHEN) == LOC_NAMES[REMOVED]


def test_chechen_war_defeat_on_a_4_adds_us_in_russia_and_georgia_azerbaijan() -> None:
    g = chechen_start(setting={"Russia": {"usa": 2, "china": 1},
                               "Georgia/Azerbaijan": {"usa": 1}})
    # 4 < 5 (win_on 5): +1 US in Russia, +2 in Georgia/Azerbaijan; Privatization +1.
    assert event(g, CHECHEN, [4]) == {
        "Russia": {"usa": 4, "china": 1}, "Georgia/Azerbaijan": {"usa": 3},
        "regional_security": 2, "russia": 1}
    assert loc(g, CHECHEN) == LOC_NAMES[REMOVED]


@pytest.mark.parametrize("setting, modifier", [
    ({}, 0),
    ({"Belarus": {"anti_us": 1}}, 1),                                    # AU counts for China
    ({"Mongolia": {"china": 2}}, 1),                                     # China-controlled
    ({"North Korea": {"china": 3, "anti_us": 3}}, 1),                    # CN control with AU
    ({"Belarus": {"anti_us": 1}, "Mongolia": {"china": 2}, "Ukraine": {"usa": 3},
      "Baltic States": {"usa": 1}}, 1),
    ({"Central Asia": {"anti_us": 1}, "Armenia": {"anti_us": 2}, "Belarus": {"china": 2}}, 3),
    ({"Ukraine": {"usa": 3}, "Baltic States": {"usa": 2}}, -2),
    ({"Mongolia": {"china": 1}, "Central Asia": {"china": 2, "usa": 1}}, 0),  # no control
], ids=["none", "au", "cn", "cn_with_au", "mixed", "three_own", "two_us", "uncontrolled"])
def test_chechen_war_neighbour_modifier(setting, modifier) -> None:
    g = chechen_start(setting=setting)
    assert_modifier(g, CHECHEN, "china", modifier, win_on=5)


def test_chechen_war_playable_with_no_influence_anywhere_near_russia() -> None:
    g = chechen_start()
    assert "event" in legal_modes(g, CHECHEN)
    assert event(g, CHECHEN, [5]) == {"vp_china": 1, "regional_security": 2, "russia": 1,
                                      "Russia": {"usa": 1}}  # Privatization


def test_chechen_war_for_ops_by_china_advances_the_russia_track_without_a_war() -> None:
    g = chechen_start()
    clear(g, "Mongolia")
    before = snapshot(g)
    play(g, CHECHEN, "place")
    do(g, "country", "Mongolia")
    do(g, "country", "Mongolia")
    assert g.state.forced == []
    assert changes(g, before) == {"Mongolia": {"china": 2}, "Russia": {"usa": 1}, "russia": 1}
    assert loc(g, CHECHEN) == LOC_NAMES[DISCARD]  # no event: not removed


@pytest.mark.parametrize("order", ["event_first", "action_first"])
def test_chechen_war_played_by_the_us_for_ops_china_wages_it_then_russia_step(order) -> None:
    """5.2, R5, R17: the China event fires (China rolls), the Russia step resolves last:
    US 2 in Russia becomes AU 2, then Privatization's +1 US removes one AU (had the
    step come first, Russia would hold AU 3)."""
    g = chechen_start("usa", setting={"Russia": {"usa": 2}, "Belarus": {"anti_us": 1}})
    clear(g, "Canada")
    before = snapshot(g)
    g.force_dice([4])  # 4 + 1 (Belarus AU-controlled) = 5: China wins
    play(g, CHECHEN, "place")
    assert g.decision.kind == "order" and g.decision.player == "usa"
    do(g, "order", order)
    do(g, "country", "Canada")
    do(g, "country", "Canada")
    assert g.state.forced == []
    assert changes(g, before) == {"Canada": {"usa": 2}, "Russia": {"anti_us": 1},
                                  "vp_china": 1, "regional_security": 2, "russia": 1}
    assert loc(g, CHECHEN) == LOC_NAMES[REMOVED]


# ================================================================ ALGERIAN WAR


@pytest.mark.parametrize("side, setting, die, expected", [
    ("usa", {"china": 2}, 4, {"Algeria": {"usa": 2}, "vp_usa": 1}),
    ("usa", {"anti_us": 3}, 6, {"Algeria": {"anti_us": 1}, "vp_usa": 1}),  # US removes AU (R1)
    ("usa", {"usa": 1, "china": 1}, 3, {"Algeria": {"china": 1}}),
    ("china", {"usa": 2, "china": 1}, 4, {"Algeria": {"china": 3}, "vp_china": 1}),
    ("china", {"anti_us": 1, "china": 1}, 5, {"Algeria": {"anti_us": 1, "china": 3},
                                               "vp_china": 1}),
    ("china", {"china": 2, "anti_us": 1}, 3, {"Algeria": {"anti_us": 1}}),
    ("usa", {}, 1, {}),
], ids=["us_win", "us_win_over_au", "us_lose", "cn_win", "cn_win_keeps_au", "cn_lose",
        "us_lose_nothing_there"])
def test_algerian_war_victory_and_defeat(side, setting, die, expected) -> None:
    g = start(side, ALGERIA)
    battlefield(g, "Algeria", {"Algeria": setting})
    assert event(g, ALGERIA, [die]) == {**expected, "regional_security": 2}
    assert loc(g, ALGERIA) == LOC_NAMES[REMOVED]


ALGERIA_NEIGHBOURS = {"France": {"usa": 3}, "Saharan States": {"anti_us": 1},
                      "Morocco": {"china": 3}, "Tunisia": {"usa": 1}}


@pytest.mark.parametrize("side, setting, modifier", [
    ("usa", ALGERIA_NEIGHBOURS, -1),     # France +1; Saharan States (AU), Morocco (CN) -2
    ("china", ALGERIA_NEIGHBOURS, 1),    # Saharan States (AU), Morocco +2; France -1
    ("usa", {"France": {"usa": 3}, "Tunisia": {"usa": 2}}, 2),
    ("china", {"France": {"usa": 3}, "Tunisia": {"usa": 2}}, -2),
])
def test_algerian_war_neighbour_modifier(side, setting, modifier) -> None:
    g = start(side, ALGERIA)
    battlefield(g, "Algeria", setting)
    assert_modifier(g, ALGERIA, side, modifier)


# =================================================================== CONGO WAR


@pytest.mark.parametrize("side, setting, die, expected", [
    ("usa", {"DR Congo": {"china": 2}}, 4,
     {"DR Congo": {"usa": 2}, "Angola": {"usa": 1}, "Zambia/Zimbabwe": {"usa": 1},
      "vp_usa": 1}),
    ("china", {"DR Congo": {"usa": 1, "china": 1}}, 4,
     {"DR Congo": {"china": 2}, "Angola": {"china": 1}, "Zambia/Zimbabwe": {"china": 1},
      "vp_china": 1}),
    # R1: the 2 US that replace the CN remove the AU first.
    ("usa", {"DR Congo": {"anti_us": 1, "china": 2}}, 6,
     {"DR Congo": {"usa": 1}, "Angola": {"usa": 1}, "Zambia/Zimbabwe": {"usa": 1},
      "vp_usa": 1}),
    # Angola's AU is removed by the US added there (R1).
    ("usa", {"Angola": {"anti_us": 1}}, 5,
     {"Angola": {}, "Zambia/Zimbabwe": {"usa": 1}, "vp_usa": 1}),
    ("usa", {"DR Congo": {"china": 2}}, 3, {"reserves_usa": -1}),
    ("china", {"DR Congo": {"usa": 1}}, 3, {"reserves_china": -1}),
], ids=["us_win", "cn_win", "us_win_over_au", "us_win_angola_au", "us_lose", "cn_lose"])
def test_congo_war_victory_and_defeat(side, setting, die, expected) -> None:
    g = start(side, CONGO)
    battlefield(g, "DR Congo", setting)
    g.set_reserves(side, 2)
    if "Angola" in setting:
        die += 1  # Angola (stab 1) AU-controlled: -1 for the US
    assert event(g, CONGO, [die]) == {**expected, "regional_security": 2}
    assert loc(g, CONGO) == LOC_NAMES[REMOVED]


def test_congo_war_defeat_with_no_reserves_costs_nothing_more() -> None:
    g = start("china", CONGO)
    battlefield(g, "DR Congo")
    g.set_reserves("china", 0)
    assert event(g, CONGO, [1]) == {"regional_security": 2}


CONGO_NEIGHBOURS = {"Angola": {"china": 1}, "Nigeria": {"usa": 2},
                    "Tanzania": {"anti_us": 1}, "Zambia/Zimbabwe": {"china": 1}}


@pytest.mark.parametrize("side, modifier", [("usa", -1), ("china", 1)])
def test_congo_war_neighbour_modifier(side, modifier) -> None:
    """Angola CN-controlled (stab 1), Tanzania AU-controlled, Nigeria US-controlled,
    Zambia/Zimbabwe (1 CN, stab 2) uncontrolled."""
    g = start(side, CONGO)
    battlefield(g, "DR Congo", CONGO_NEIGHBOURS)
    assert_modifier(g, CONGO, side, modifier)


# ====================================== all war cards: no influence, security loss


WAR_TARGETS = {GULF: ["Iraq"], YUGO: ["Serbia", "Croatia/Bosnia"], CHECHEN: ["Russia"],
               ALGERIA: ["Algeria"], CONGO: ["DR Congo"]}
WAR_SIDES = [(GULF, "usa"), (CHECHEN, "china")] + [
    (card, side) for card in (YUGO, ALGERIA, CONGO) for side in ("usa", "china")]


def no_influence_victory(card: str, side: str) -> dict:
    """The exact board change of a victory (die 6) with no influence anywhere near."""
    return {GULF: {"vp_usa": 2, "diplomacy": 2},
            YUGO: {f"vp_{side}": 1},
            CHECHEN: {"vp_china": 1, "russia": 1, "Russia": {"usa": 1}},  # Privatization
            ALGERIA: {"Algeria": {side: 2}, f"vp_{side}": 1},
            CONGO: {"Angola": {side: 1}, "Zambia/Zimbabwe": {side: 1}, f"vp_{side}": 1},
            }[card] | {"regional_security": 2}


@pytest.mark.parametrize("card, side", WAR_SIDES)
def test_war_event_offered_and_won_with_no_influence_in_the_countries_concerned(card,
                                                                                side) -> None:
    """7.5: playable as an event even with no influence in the attacker's or defender's
    countries (nor around them)."""
    g = start(side, card)
    for target in WAR_TARGETS[card]:
        battlefield(g, target)
    g.set_track("russia", 0)
    assert "event" in legal_modes(g, card)
    steps = (SERBIA,) if card == YUGO else ()
    assert event(g, card, [6], *steps) == no_influence_victory(card, side)
    assert loc(g, card) == LOC_NAMES[REMOVED]


@pytest.mark.parametrize("card, side", WAR_SIDES)
@pytest.mark.parametrize("security", [3, 2])
@pytest.mark.parametrize("die", [1, 6])
def test_war_lowers_regional_security_by_one_win_or_lose(card, side, security, die) -> None:
    g = start(side, card)
    for target in WAR_TARGETS[card]:
        battlefield(g, target)
    g.set_track("regional_security", security)
    g.set_track("russia", 0)
    steps = (SERBIA,) if card == YUGO else ()
    changed = event(g, card, [die], *steps)
    assert changed["regional_security"] == security - 1
    assert changed.get("diplomacy") == (2 if card == GULF else None)  # only the Gulf War
    assert g.track("diplomacy") == (2 if card == GULF else 3)


# ========================================== Nunn–Lugar: discard a card of 3+ ops (5.3, 5.4)

NUNN_COUNTRIES = ("Ukraine", "Belarus", "Central Asia")


def nunn_start(hand: list[str]) -> Game:
    g = start("usa", NUNN_LUGAR)
    g.set_hand("usa", [NUNN_LUGAR, *hand])
    clear(g, *NUNN_COUNTRIES)
    g.set_track("regional_security", 2)
    return g


def test_nunn_lugar_is_no_event_without_another_card_of_three_ops() -> None:
    g = nunn_start(["Cox Report", "Oil-for-Food Programme", "Chávez Elected",
                    "Europe Scoring"])  # printed ops 2, 1, 2, 0 (itself: 1)
    modes = legal_modes(g, NUNN_LUGAR)
    assert "event" not in modes and "place" in modes


def test_nunn_lugar_event_discards_a_chosen_card_of_three_or_more_ops() -> None:
    g = nunn_start(["Clinton Doctrine", "Dot-com Boom", "Cox Report", "Asian Financial Crisis"])
    assert "event" in legal_modes(g, NUNN_LUGAR)
    before = snapshot(g)
    play(g, NUNN_LUGAR, "event")
    assert g.decision.kind == "discard" and g.decision.player == "usa"
    assert legal_cards(g) == {"Clinton Doctrine", "Dot-com Boom", "Asian Financial Crisis"}
    do(g, "card", "Clinton Doctrine")
    assert changes(g, before) == {**{c: {"usa": 1} for c in NUNN_COUNTRIES},
                                  "regional_security": 3}
    assert loc(g, "Clinton Doctrine") == LOC_NAMES[DISCARD]
    assert not g.state.event_played[g.content.card_by_name["Clinton Doctrine"]]
    assert sorted(g.hand("usa")) == sorted(["Dot-com Boom", "Cox Report",
                                            "Asian Financial Crisis"])
    assert loc(g, NUNN_LUGAR) == LOC_NAMES[REMOVED]


@pytest.mark.parametrize("discarded", ["Dot-com Boom", "Asian Financial Crisis"])
def test_nunn_lugar_a_four_ops_card_serves_and_its_event_does_not_happen(discarded) -> None:
    """5.3: a higher value serves; 5.4: the discarded card's event does not happen (a US
    "*" card is not removed, a China card does not fire for China either)."""
    g = nunn_start([discarded, "Cox Report"])
    g.set_track("tech_usa", 0)
    g.set_track("economy_usa", 8)
    for c in ("Thailand", "Indonesia", "Malaysia", "Philippines", "Singapore", "South Korea"):
        g.set_influence(c, usa=2)
    assert "event" in legal_modes(g, NUNN_LUGAR)
    before = snapshot(g)
    play(g, NUNN_LUGAR, "event")  # the only card of 3+ ops: discarded at once
    assert changes(g, before) == {**{c: {"usa": 1} for c in NUNN_COUNTRIES},
                                  "regional_security": 3}
    assert loc(g, discarded) == LOC_NAMES[DISCARD]
    assert not g.state.event_played[g.content.card_by_name[discarded]]
    assert g.hand("usa") == ["Cox Report"]
    assert g.decision.player == "china"


def test_nunn_lugar_a_scoring_card_has_no_ops_and_neither_serves_nor_is_discarded() -> None:
    g = nunn_start(["Europe Scoring", "Cox Report"])
    assert "event" not in legal_modes(g, NUNN_LUGAR)
    g = nunn_start(["Europe Scoring", "Clinton Doctrine"])
    wipe_region(g, "Europe")
    before = snapshot(g)
    play(g, NUNN_LUGAR, "event")  # Clinton Doctrine is the only legal discard
    assert changes(g, before) == {**{c: {"usa": 1} for c in NUNN_COUNTRIES},
                                  "regional_security": 3}
    assert g.hand("usa") == ["Europe Scoring"]
    assert loc(g, "Clinton Doctrine") == LOC_NAMES[DISCARD]


def test_a_scoring_card_discarded_by_an_event_is_not_scored() -> None:
    """5.4 "also for scoring cards": Cox Report makes China discard its only card,
    Europe Scoring; Europe is not scored and the card goes to the discards."""
    g = start("usa", "Cox Report")
    g.set_hand("china", ["Europe Scoring"])
    g.state.event_played[g.content.card_by_name["Europe Scoring"]] = False  # fresh card
    wipe_region(g, "Europe")
    g.set_influence("France", usa=3)  # would score for the US if Europe were scored
    g.set_influence("Russia", china=4)
    assert g.score_region("Europe") != {"usa": 0, "china": 0}
    before = snapshot(g)
    play(g, "Cox Report", "event")
    assert changes(g, before) == {}
    assert loc(g, "Europe Scoring") == LOC_NAMES[DISCARD]
    assert not g.state.event_played[g.content.card_by_name["Europe Scoring"]]
    assert g.hand("china") == []


def test_nunn_lugar_played_by_china_for_ops_the_us_discards_for_its_event() -> None:
    """5.2: China plays the US card for ops; the US event happens, the US chooses the
    card of 3+ ops it discards."""
    g = start("china", NUNN_LUGAR)
    g.set_hand("usa", ["Clinton Doctrine", "Dot-com Boom", "Cox Report"])
    clear(g, *NUNN_COUNTRIES, "Mongolia")
    g.set_track("regional_security", 2)
    before = snapshot(g)
    play(g, NUNN_LUGAR, "place")
    do(g, "order", "event_first")
    assert g.decision.kind == "discard" and g.decision.player == "usa"
    assert legal_cards(g) == {"Clinton Doctrine", "Dot-com Boom"}
    do(g, "card", "Dot-com Boom")
    do(g, "country", "Mongolia")
    assert changes(g, before) == {**{c: {"usa": 1} for c in NUNN_COUNTRIES},
                                  "regional_security": 3, "Mongolia": {"china": 1}}
    assert sorted(g.hand("usa")) == ["Clinton Doctrine", "Cox Report"]
    assert loc(g, NUNN_LUGAR) == LOC_NAMES[REMOVED]


def test_nunn_lugar_played_by_china_with_no_us_card_of_three_ops_fires_nothing() -> None:
    g = start("china", NUNN_LUGAR)
    g.set_hand("usa", ["Cox Report", "Oil-for-Food Programme"])
    clear(g, *NUNN_COUNTRIES, "Mongolia")
    before = snapshot(g)
    play(g, NUNN_LUGAR, "place")
    assert g.decision.kind == "place"  # no order decision: the event cannot happen
    do(g, "country", "Mongolia")
    assert changes(g, before) == {"Mongolia": {"china": 1}}
    assert loc(g, NUNN_LUGAR) == LOC_NAMES[DISCARD]  # 5.2: a "*" card is only discarded


def test_discard_requirement_is_not_met_by_the_card_being_played(tmp_path: Path) -> None:
    """docs/content.md: `hand_card_min_ops` means the side holds *another* card of that
    printed value (5.3).  With Nunn–Lugar printed at 3 ops (a data copy), the card itself
    must not satisfy its own requirement: no event without another card of 3+ ops."""
    data = tmp_path / "data"
    shutil.copytree(DATA_DIR, data)
    path = data / "cards_early.toml"
    text = path.read_text(encoding="utf-8")
    at = text.index('id = "nunn_lugar"')
    ops_at = text.index("ops = 1", at)
    path.write_text(text[:ops_at] + "ops = 3" + text[ops_at + len("ops = 1"):],
                    encoding="utf-8")
    g = quiet_advance(Game(7, content=load_content(data)), "card", "usa", turn=1)
    g.state.card_loc[g.state.card_loc == IN_PLAY] = DISCARD
    assert g.content.card_ops[g.content.card_by_name[NUNN_LUGAR]] == 3
    g.set_hand("usa", [NUNN_LUGAR, "Cox Report"])
    assert "event" not in legal_modes(g, NUNN_LUGAR)
    g.set_hand("usa", [NUNN_LUGAR, "Cox Report", "Clinton Doctrine"])
    assert "event" in legal_modes(g, NUNN_LUGAR)


# ============================================== ops modifiers (7.3, 7.3.1, 7.3.2, 7.7, R4)


def test_western_development_gives_a_reserve_stays_in_play_and_raises_china_ops() -> None:
    g = start("china", WESTERN)
    before = snapshot(g)
    play(g, WESTERN, "event")
    assert changes(g, before) == {"reserves_china": 1}
    assert loc(g, WESTERN) == LOC_NAMES[IN_PLAY]
    g.set_hand("china", list(CN_BY_OPS.values()))  # China's next round is in this turn
    quiet_advance(g, "card", "usa")
    us_cards = ["Operation Uphold Democracy", "Cox Report", "Dot-com Boom"]
    g.set_hand("usa", us_cards)
    assert [ops_shown(g, c) for c in us_cards] == [1, 2, 4]  # the US is not affected
    quiet_advance(g, "card", "china")
    g.set_hand("china", list(CN_BY_OPS.values()))
    assert [ops_shown(g, CN_BY_OPS[k]) for k in (1, 2, 3, 4)] == [2, 3, 4, 4]


@pytest.mark.parametrize("card", [WESTERN, MFN])
def test_early_ops_modifiers_end_at_the_start_of_turn_4_and_leave_the_game(card) -> None:
    """Both texts: cancelled at the start of turn 4 (the mid era); a cancelled card leaves.
    MFN-Human Rights Linkage got the same end as Western Development (issue 19: its
    card-health swing was +21 points for the US while it could stay all game)."""
    g = start("china", WESTERN)
    g.state.misc[M_TURN] = 2
    put_in_play(g, card)
    empty_hands_to_next_turn(g, "modifier")
    assert (g.turn, loc(g, card)) == (3, LOC_NAMES[IN_PLAY])
    empty_hands_to_next_turn(g, "modifier")
    assert (g.turn, loc(g, card)) == (4, LOC_NAMES[REMOVED])


def test_cox_report_cancels_western_development() -> None:
    g = start("usa", "Cox Report")
    put_in_play(g, WESTERN)
    g.set_hand("china", list(CN_BY_OPS.values()))
    play(g, "Cox Report", "event")
    assert loc(g, WESTERN) == LOC_NAMES[REMOVED]
    assert len(g.hand("china")) == 3  # and China discards 1 card at random


@pytest.mark.parametrize("in_play, expected", [
    ((), [1, 2, 3, 4]),
    ((WESTERN,), [2, 3, 4, 4]),       # +1, clamped to 4 (7.7)
    ((MFN,), [1, 1, 2, 3]),           # -1, clamped to 1 (7.7)
    ((MFN, WESTERN), [2, 2, 3, 4]),   # 7.3: -1 first (1 -> 0, clamped to 1), then +1 -> 2
], ids=["none", "plus1", "minus1", "both"])
def test_china_ops_reductions_first_then_increases_clamped(in_play, expected) -> None:
    g = start("china", "Project 211")
    put_in_play(g, *in_play)
    g.set_hand("china", list(CN_BY_OPS.values()))
    assert [ops_shown(g, CN_BY_OPS[k]) for k in (1, 2, 3, 4)] == expected


def test_china_ops_modifiers_do_not_touch_us_cards() -> None:
    g = start("usa", "Cox Report")
    put_in_play(g, MFN, WESTERN)
    us_cards = ["Operation Uphold Democracy", "Cox Report", "Clinton Doctrine", "Dot-com Boom"]
    g.set_hand("usa", us_cards)
    assert [ops_shown(g, c) for c in us_cards] == [1, 2, 3, 4]


@pytest.mark.parametrize("in_play, granted", [((), 3), ((WESTERN,), 4), ((MFN,), 2),
                                              ((MFN, WESTERN), 3)])
def test_ops_modifiers_apply_to_event_granted_ops(in_play, granted) -> None:
    """7.3.1: Going Out Strategy grants an action of 3 ops, modified like a card's ops."""
    g = start("china", "Going Out Strategy")
    put_in_play(g, *in_play)
    g.set_influence("Angola", china=1)
    before = snapshot(g)
    play(g, "Going Out Strategy", "event")
    assert g.decision.kind == "granted" and g.decision.context["ops"] == granted
    do(g, "mode", "place")
    for _ in range(granted):
        do(g, "country", "Angola")
    assert changes(g, before) == {"Angola": {"china": 1 + granted}, "reserves_china": 1}


def trade_eligible(g: Game, ops: int) -> set[str]:
    """6.6.2, R10: stab <= 3 and ops >= 4 - stab (China: no anti-US restriction)."""
    c = g.content
    return {c.countries[i].name for i in range(c.n)
            if c.has_stab[i] and c.stab[i] <= 3 and ops >= 4 - c.stab[i]}


@pytest.mark.parametrize("in_play, printed, ops", [
    ((), 1, 1), ((WESTERN,), 1, 2), ((MFN,), 2, 1), ((MFN, WESTERN), 1, 2),
    ((WESTERN,), 2, 3), ((MFN,), 4, 3),
])
def test_trade_contest_eligibility_uses_the_modified_ops(in_play, printed, ops) -> None:
    g = start("china", "Project 211")
    put_in_play(g, *in_play)
    card = CN_BY_OPS[printed]
    g.set_hand("china", [card, FILLER])
    assert ops_shown(g, card) == ops
    play(g, card, "trade")
    assert g.decision.kind == "trade" and g.decision.context["ops"] == ops
    expected = trade_eligible(g, ops)
    assert legal_countries(g) == expected
    assert {1: {3}, 2: {2, 3}, 3: {1, 2, 3}}[ops] == {
        int(g.content.stab[g.content.index[n]]) for n in expected}


def test_improve_needs_printed_ops_2_even_when_modified_ops_are_2() -> None:
    """6.3.1: improve social/economy ignores ops modifiers; the tech race does not (R4)."""
    g = start("china", "Project 211")
    put_in_play(g, WESTERN)
    g.set_hand("china", [CN_BY_OPS[1], FILLER])
    assert ops_shown(g, CN_BY_OPS[1]) == 2
    modes = legal_modes(g, CN_BY_OPS[1])
    assert "improve_social" not in modes and "improve_economy" not in modes
    assert "tech" in modes  # R9 "card ops >= 2" with the modified value (R4)


def test_improve_is_offered_for_a_printed_2_card_reduced_to_1() -> None:
    g = start("china", "Project 211")
    put_in_play(g, MFN)
    card = CN_BY_OPS[2]
    g.set_hand("china", [card, FILLER])
    g.set_track("economy_china", 6)
    assert ops_shown(g, card) == 1
    modes = legal_modes(g, card)
    assert {"improve_social", "improve_economy"} <= modes and "tech" not in modes
    before = snapshot(g)
    g.force_dice([3])  # printed 2: success on 1-3 (R8)
    play(g, card, "improve_economy")
    assert changes(g, before) == {"economy_china": 7}


@pytest.mark.parametrize("in_play, die, success", [
    ((WESTERN,), 4, True), ((WESTERN,), 5, False),   # printed 3 (not 4): 1-4 succeed
    ((MFN,), 4, True), ((MFN,), 5, False),           # printed 3 (not 2): 1-4 succeed
])
def test_improve_success_roll_uses_the_printed_ops(in_play, die, success) -> None:
    g = start("china", "Project 211")
    put_in_play(g, *in_play)
    card = CN_BY_OPS[3]
    g.set_hand("china", [card, FILLER])
    g.set_track("economy_china", 6)
    before = snapshot(g)
    g.force_dice([die])
    play(g, card, "improve_economy")
    assert g.state.forced == []
    assert changes(g, before) == ({"economy_china": 7} if success else {})
    assert loc(g, card) == LOC_NAMES[DISCARD]
