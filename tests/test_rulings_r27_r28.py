"""Behaviour tests for the rulings R27 and R28 (RULINGS.md, section D).

R27 Super Materials (8.2.3, R5): the US's next card play fires no event, so that card is
not offered as "play as event". R28 (6.3.3, R5): improve-social / improve-economy is not
offered while its track is at the leftmost box (social 10, economy 11).
"""

from __future__ import annotations

import pytest
from helpers import do, legal_modes, play, skip_spend
from test_rulings import CN1, US1, US2, US3, to_spend, us_round

from evenstar_env import Game

SUPER_MATERIALS_BOX = 5  # tech_usa level before the purchase (box 6: Super Materials)


def _super_materials(hand: tuple[str, ...], buy: bool = True) -> Game:
    """The US buys Super Materials (tech box 6) at the start of its round (or, `buy`
    false, does not), holding `hand`."""
    g = to_spend("usa", 4, tech_usa=SUPER_MATERIALS_BOX, diplomacy=3)
    if buy:
        do(g, "spend", "tech")
        assert g.track("tech_usa") == SUPER_MATERIALS_BOX + 1
    skip_spend(g)
    g.set_hand("usa", list(hand))
    return g


# --------------------------------------------------------------------------- R27


def test_r27_next_card_is_not_offered_as_event():
    """R27 (8.2.3, R5): after Super Materials, Operation Uphold Democracy (US, its event
    could happen) is not offered as "play as event"; its ops actions are."""
    g = _super_materials((US1, US3))
    assert "event" in legal_modes(_super_materials((US1, US3), buy=False), US1)
    modes = legal_modes(g, US1)
    assert "event" not in modes
    assert "place" in modes


def test_r27_event_can_happen_says_no_and_the_heuristic_plays_on():
    """R27: `event_can_happen` answers for the card play after Super Materials (no event),
    and the heuristic, which values events by playing them on a copy, chooses a legal
    action there (it tried "play as event" and was refused: the sanitizer run found it)."""
    from agents.heuristic import HeuristicAgent

    g = _super_materials((US1, US3))
    assert not g.event_can_happen(US1, "usa")
    assert _super_materials((US1, US3), buy=False).event_can_happen(US1, "usa")
    agent = HeuristicAgent(seed=3)
    for _ in range(3):
        a = agent.act(None, g.action_mask(), g)
        assert g.action_mask()[a]
        g.step(a)


def test_r27_opponent_card_for_ops_fires_no_event():
    """R27: a China card the US uses for ops after Super Materials fires no event (China's
    +2 reserves of Exchange Rate Unification do not happen); no order is asked."""
    g = _super_materials((CN1, US3))
    reserves = g.reserves["china"]
    play(g, CN1, "place")
    assert g.decision.kind == "place"
    assert g.reserves["china"] == reserves


def test_r27_effect_is_used_up_by_one_card_play():
    """R27: the effect is used up by the card play that follows: the US's next card is
    again offered as event."""
    g = _super_materials((US2, US3, US1))
    play(g, US2, "place")
    while g.decision.player == "usa" and g.decision.kind == "place":
        do(g, "country", "Canada")
    while g.decision.player != "usa" or g.decision.kind not in ("card", "spend"):
        g.step(int(g.legal_actions()[0]))
    skip_spend(g)
    g.set_hand("usa", [US1, US3])
    assert "event" in legal_modes(g, US1)


# --------------------------------------------------------------------------- R28


@pytest.mark.parametrize(("track", "top"), [("social", 10), ("economy", 11)])
def test_r28_improve_not_offered_at_the_leftmost_box(track, top):
    """R28 (6.3.3, R5): at the leftmost box of its track (social 10, economy 11) the
    improve action of that track is not offered; one box lower it is."""
    g = us_round(hand=(US3, US1))
    g.set_track(f"{track}_usa", top)
    assert f"improve_{track}" not in legal_modes(g, US3)
    other = "economy" if track == "social" else "social"
    assert f"improve_{other}" in legal_modes(g, US3)
    g.set_track(f"{track}_usa", top - 1)
    assert f"improve_{track}" in legal_modes(g, US3)
