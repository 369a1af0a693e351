"""The worked examples of the rulebook (evenstar-rulebook.zh.txt), one test each.

Section numbers are the rulebook's; R-numbers are the rulings (docs/rules.md).
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import numpy as np
import pytest
from helpers import clear_region, do, play, start

from evenstar_env import Game

MAP_TOML = Path(__file__).resolve().parents[1] / "evenstar_env" / "data" / "map.toml"


def region_box(name: str) -> dict[str, int]:
    """The presence / domination / control values printed in a region box of the map."""
    data = tomllib.loads(MAP_TOML.read_text(encoding="utf-8"))
    (box,) = [r for r in data["regions"] if r["name"] == name]
    return {k: box[k] for k in ("presence", "domination", "control")}


# ------------------------------------------------------------------ 2.1.8 control


@pytest.mark.parametrize(
    ("usa", "china", "expected"),
    [
        (4, 0, "usa"),   # 4 US >= stab 4 and 4 more than CN
        (3, 0, None),    # fewer than 4 US
        (4, 1, None),    # only 3 more than CN
        (5, 1, "usa"),   # 5 >= 4 and 5 - 1 = 4 >= 4
        (6, 3, None),
    ],
)
def test_2_1_8_1_israel_us_control(usa, china, expected):
    """2.1.8.1 example: to control Israel (stab 4) the US needs at least 4 US there and
    at least 4 more US than CN."""
    g = start("usa")
    assert [c["stability"] for c in Game.countries() if c["name"] == "Israel"] == [4]
    g.set_influence("Israel", usa=usa, china=china)
    assert g.controller("Israel") == expected


@pytest.mark.parametrize(
    ("usa", "china", "anti_us", "expected"),
    [
        (0, 4, 0, "china"),    # 4 CN >= stab 4 and 4 more than US
        (1, 5, 0, "china"),    # 5 - 1 = 4
        (1, 4, 0, None),       # only 3 more CN than US: nobody
        (0, 3, 0, None),       # fewer than 4 CN
        (0, 0, 1, "anti_us"),  # a single AU makes Iran AU-controlled ...
        (0, 3, 1, "anti_us"),  # ... when China does not control it
        (0, 4, 2, "china"),    # meeting China's test, it is China-controlled (10.1.3 note)
    ],
)
def test_2_1_8_3_iran_china_or_anti_us_control(usa, china, anti_us, expected):
    """2.1.8.3 example: Iran (stab 4) is China-controlled with >= 4 CN and >= 4 more CN
    than US; or China keeps the US out by 1 AU, which makes Iran AU-controlled (R2)."""
    g = start("usa")
    assert [c["stability"] for c in Game.countries() if c["name"] == "Iran"] == [4]
    g.set_influence("Iran", usa=usa, china=china, anti_us=anti_us)
    assert g.controller("Iran") == expected
    if anti_us:
        assert g.influence("Iran")["usa"] == 0  # with AU there is no US (R1): no US control


@pytest.mark.parametrize(
    ("usa", "china", "expected"),
    [(2, 1, "usa"), (1, 2, "china"), (1, 1, None), (3, 0, "usa"), (0, 0, None)],
)
def test_2_1_8_5_india_control(usa, china, expected):
    """2.1.8.5 example: India has no stab; 2 US and 1 CN make it US-controlled (more own
    influence than the opponent's controls it)."""
    g = start("usa")
    g.set_influence("India", usa=usa, china=china)
    assert g.controller("India") == expected


# ------------------------------------------------------------------ 6.2 realignment


def test_6_2_5_us_realigns_myanmar():
    """6.2.5 example: the US realigns Myanmar (stab 1, 2 AU, 1 CN) with a 3-ops card; the
    die shows 6 ("6,6" is one die, R6): 6 + 3 - 1 (adjacent to China) = 8, 8 - 1 - 2 = 5.
    The US removes 2 AU and 1 CN and places 2 US."""
    g = start("usa")
    g.set_hand("usa", ["Dual Containment", "Dayton Agreement"])  # US card, 3 ops
    g.set_influence("Myanmar", anti_us=2, china=1)
    g.force_dice([6])
    play(g, "Dual Containment", "realign")
    assert g.decision.kind == "realign" and g.decision.context["ops"] == 3
    do(g, "country", "Myanmar")
    assert g.influence("Myanmar") == {"usa": 2, "china": 0, "anti_us": 0}
    assert g.controller("Myanmar") == "usa"


def test_6_2_6_china_realigns_myanmar():
    """6.2.6 example: China realigns Myanmar (stab 1, 2 US) with a 3-ops card and rolls 6:
    6 + 3 + 1 (adjacent to China) = 10, 10 - 1 - 2 = 7. China removes 2 US and places
    5 AU (never CN)."""
    g = start("china")
    g.set_hand("china", ["Socialist Market Economy", "Exchange Rate Unification"])  # 3 ops
    g.set_influence("Myanmar", usa=2)
    g.force_dice([6])
    play(g, "Socialist Market Economy", "realign")
    assert g.decision.kind == "realign" and g.decision.context["ops"] == 3
    do(g, "country", "Myanmar")
    assert g.influence("Myanmar") == {"usa": 0, "china": 0, "anti_us": 5}


# ------------------------------------------------------------------ 9.2.4 consequences


def test_9_2_4_example_1_china_realigns_ukraine():
    """9.2.4 example 1: China realigns Ukraine (a BG); afterwards Ukraine holds 2 AU, so
    diplomacy drops by 1 (two clauses hold, but one attempt costs at most 1, R7);
    regional security is unchanged (China's own 2 > US 0)."""
    g = start("china")
    g.set_hand("china", ["Socialist Market Economy", "Exchange Rate Unification"])
    g.set_track("diplomacy", 3)
    g.set_track("regional_security", 3)
    g.set_influence("Ukraine", usa=1)
    g.force_dice([5])  # 3 + 5 - (3 + 2) = 3: remove 1 US, place 2 AU
    play(g, "Socialist Market Economy", "realign")
    do(g, "country", "Ukraine")
    assert g.influence("Ukraine") == {"usa": 0, "china": 0, "anti_us": 2}
    assert g.track("diplomacy") == 2
    assert g.track("regional_security") == 3


def test_9_2_4_example_2_us_realigns_ukraine():
    """9.2.4 example 2: the US realigns Ukraine; afterwards Ukraine holds 2 CN, so the US's
    own 0 <= other 2 and regional security drops by 1; diplomacy is unchanged."""
    g = start("usa")
    g.set_hand("usa", ["Dual Containment", "Dayton Agreement"])
    g.set_track("diplomacy", 3)
    g.set_track("regional_security", 3)
    g.set_influence("Ukraine", china=4)
    g.force_dice([4])  # 3 + 4 - (3 + 2) = 2: remove 2 of the 4 CN
    play(g, "Dual Containment", "realign")
    do(g, "country", "Ukraine")
    assert g.influence("Ukraine") == {"usa": 0, "china": 2, "anti_us": 0}
    assert g.track("regional_security") == 2
    assert g.track("diplomacy") == 3


# ------------------------------------------------------------------ 10.1.3 scoring


def test_10_1_3_asia_scoring_example():
    """10.1.3 Asia example: the US controls Japan, South Korea, Taiwan and Australia; China
    controls North Korea and India; North Korea (China-controlled, so ignored) and Vietnam
    have AU. US BGs 3 - 1 = 2 = China's 2: nobody dominates. The rulebook gives the US
    2 (BGs) + 1 (Taiwan, adjacent to China) = 3 VP and China 2 VP; R18 adds the Asia
    presence award the example omits."""
    g = start("usa")
    clear_region(g, "Asia")
    g.set_influence("Japan", usa=2)          # stab 2
    g.set_influence("South Korea", usa=3)    # stab 3
    g.set_influence("Taiwan", usa=3)         # stab 3
    g.set_influence("Australia", usa=4)      # stab 4, not a BG
    g.set_influence("North Korea", china=3, anti_us=3)
    g.set_influence("India", china=1)
    g.set_influence("Vietnam", anti_us=1)
    assert [g.controller(c) for c in ("Japan", "South Korea", "Taiwan", "Australia")] == ["usa"] * 4
    assert g.controller("North Korea") == "china" and g.controller("India") == "china"
    assert g.controller("Vietnam") == "anti_us"
    presence = region_box("Asia")["presence"]
    assert g.score_region("Asia") == {"usa": presence + 3, "china": presence + 2}


def test_10_1_3_former_ussr_scoring_example():
    """10.1.3 Former USSR example: the US controls Ukraine, China controls Central Asia,
    Russia and Belarus are AU-controlled. US 2 VP (Ukraine, a BG), China 1 VP; AU control
    does not affect sub-region scoring (R18)."""
    g = start("usa")
    clear_region(g, "Former USSR")
    g.set_influence("Ukraine", usa=3)
    g.set_influence("Central Asia", china=2)
    g.set_influence("Russia", anti_us=1)
    g.set_influence("Belarus", anti_us=1)
    assert g.controller("Ukraine") == "usa" and g.controller("Central Asia") == "china"
    assert g.controller("Russia") == g.controller("Belarus") == "anti_us"
    assert g.score_region("Former USSR") == {"usa": 2, "china": 1}


def test_4_4_empty_draw_pile_reshuffles_the_discards_mid_deal():
    """4.4: the moment the draw pile is empty, all discards become the new draw pile."""
    from evenstar_env.engine.constants import DISCARD, DRAW, HAND
    from evenstar_env.engine.effects import draw_cards

    g = Game(5)
    s = g.state
    pile = np.flatnonzero(s.card_loc == DRAW)
    s.card_loc[pile[2:]] = DISCARD  # two cards left to draw, the rest discarded
    last_two, discards = set(pile[:2].tolist()), set(pile[2:].tolist())
    in_hand = set(np.flatnonzero(s.card_loc == HAND[0]).tolist())
    assert draw_cards(g._m, 0, 5) == 5
    drawn = set(np.flatnonzero(s.card_loc == HAND[0]).tolist()) - in_hand
    assert last_two <= drawn and len(drawn - last_two) == 3 and drawn - last_two <= discards
    assert not (s.card_loc == DISCARD).any()  # every discard went into the new pile
    assert np.count_nonzero(s.card_loc == DRAW) == len(discards) - 3


def test_4_4_draw_stops_when_both_piles_are_empty():
    from evenstar_env.engine.constants import DISCARD, DRAW, REMOVED
    from evenstar_env.engine.effects import draw_cards

    g = Game(5)
    s = g.state
    pile = np.flatnonzero(s.card_loc == DRAW)
    s.card_loc[pile[1:]] = REMOVED
    assert not (s.card_loc == DISCARD).any()
    assert draw_cards(g._m, 1, 3) == 1
    assert not (s.card_loc == DRAW).any()
