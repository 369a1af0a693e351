"""Behaviour tests for the rulings R22-R26 (RULINGS.md), one scenario or more per ruling.

R22 Russia spend timing (rulebook 5.8, 8.1.3), R23 history draw (4.6.D), R24 simultaneous
ends (10.3.2), R25 General AI (8.2.3), R26 persistent reserve income (4.6.H).
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import at, clear_region, do, legal_modes, legal_spends, play, run_until, skip_spend
from test_rulings import CN1, CN3, US1, US3, to_end_of_turn1, to_spend, us_round

from evenstar_env import Game
from evenstar_env.engine.constants import H_DRAWN, IN_PLAY, USA
from evenstar_env.env.observation import encoder_for

RU_WAR = "Russia–Ukraine War"  # China, "play only once the Russia track has reached box 5"


def _obs(g: Game, side: str, field: str) -> np.ndarray:
    enc = encoder_for(g.content)
    return enc.encode(g._m, ("usa", "china").index(side))[enc.layout[field]]


# --------------------------------------------------------------------------- R22


def test_r22_spend_moves_the_marker_at_once_box_effect_after_the_card():
    """R22 (5.8, 8.1.2): with the track at 4, China's 3-reserve spend puts the marker on
    Putin Takes Office (box 5) at once: the Russia-Ukraine War card ("box 5 or beyond") is
    playable as event; Putin's roll waits until the card play is over."""
    g = to_spend("china", 3, russia=4, diplomacy=3)
    clear_region(g, "Former USSR")
    do(g, "spend", "russia")
    skip_spend(g)
    assert g.track("russia") == 5
    g.set_hand("china", [CN1, RU_WAR])
    assert "event" in legal_modes(g, RU_WAR)
    g.force_dice([5])  # Putin: 4-5, +3 CN in Russia
    play(g, CN1, "event")
    assert g.influence("Russia") == {"usa": 0, "china": 3, "anti_us": 0}
    assert g.track("russia") == 5


def test_r22_no_second_spend_at_the_last_box():
    """R22, 8.1.3: China at box 8 with 6 reserves spends once (marker on box 9, the last);
    a second spend is not offered, so 3 reserves buy one step."""
    g = to_spend("china", 6, russia=8, diplomacy=3)
    assert "russia" in legal_spends(g)
    do(g, "spend", "russia")
    assert g.track("russia") == 9 and g.reserves["china"] == 3
    assert "russia" not in legal_spends(g)


def test_r22_deferred_box_is_in_both_observations():
    """R22: a box whose effect waits is public: both players' observations mark it until it
    has resolved; China after spending 3 of 6 differs from China holding 3."""
    g = to_spend("china", 6, russia=4, diplomacy=3)
    clear_region(g, "Former USSR")
    held = to_spend("china", 3, russia=4, diplomacy=3)
    for side in ("usa", "china"):
        assert not _obs(g, side, "russia_deferred").any()
    do(g, "spend", "russia")
    skip_spend(g)
    expected = np.zeros(len(g.content.russia_boxes), dtype=np.float32)
    expected[4] = 1.0  # box 5, Putin Takes Office
    for side in ("usa", "china"):
        assert np.array_equal(_obs(g, side, "russia_deferred"), expected)
    skip_spend(held)
    assert not np.array_equal(_obs(g, "usa", "tracks"), _obs(held, "usa", "tracks"))
    g.set_hand("china", [CN1, CN3])
    g.force_dice([2])
    play(g, CN1, "event")
    for side in ("usa", "china"):
        assert not _obs(g, side, "russia_deferred").any()


def test_r22_effects_resolve_in_the_order_the_marker_reached_their_boxes():
    """R22 (8.1.2): China spends twice from box 0 (Privatization, Shock Therapy wait), then
    plays Yeltsin's Reforms as event, which advances the marker to box 3 (Opposing NATO
    Expansion) and adds 1 CN in Russia. After the card: box 1, then box 2 (the US places
    4), then box 3 (China reduces 3)."""
    g = to_spend("china", 6, russia=0, diplomacy=3)
    clear_region(g, "Former USSR")
    do(g, "spend", "russia")
    do(g, "spend", "russia")
    skip_spend(g)
    assert g.track("russia") == 2
    g.set_hand("china", ["Yeltsin's Reforms", CN3])
    play(g, "Yeltsin's Reforms", "event")
    assert g.track("russia") == 3
    # Box 1 has resolved (+1 US in Russia); box 2 asks the US; box 3 has not begun.
    assert g.influence("Russia") == {"usa": 1, "china": 1, "anti_us": 0}
    for country in ("Ukraine", "Belarus", "Moldova", "Central Asia"):
        assert g.decision.kind == "influence" and g.decision.player == "usa"
        do(g, "country", country)
    for _ in range(3):
        assert g.decision.kind == "influence" and g.decision.player == "china"
        assert g.decision.context["verb"] == "reduce"
        do(g, "country", g.content.countries[g.legal_actions()[0] - g._m.space.country0].name)
    assert g.decision.player == "usa"


# --------------------------------------------------------------------------- R23


@pytest.mark.parametrize("turn", [1, 2])
def test_r23_both_history_cards_drawn_before_the_first_modifier(turn):
    """R23 (4.6.D): at the first modifier choice of a turn (the US card), China's card is
    already drawn face up; both players' observations show both cards of the turn."""
    g = Game(3)
    run_until(g, at("modifier", "usa", turn=turn))
    c = g.content
    us_card = g.decision.context["history"]
    assert c.hist_side[us_card] == USA
    drawn = np.flatnonzero(g.state.hist_loc == H_DRAWN)
    assert sorted(c.hist_side[drawn].tolist()) == [0, 1]
    assert us_card in drawn
    for side in ("usa", "china"):
        shown = np.flatnonzero(_obs(g, side, "history_turn"))
        assert sorted(shown.tolist()) == sorted(drawn.tolist())
    do(g, "mod", "zero")
    assert g.decision.kind == "modifier" and g.decision.player == "china"
    assert g.decision.context["history"] == us_card


# --------------------------------------------------------------------------- R24


@pytest.mark.parametrize(("economy_china", "die", "social_china", "winner"), [
    (2, 4, 8, None),     # both economies at 1: draw
    (5, 2, 2, None),     # US economy at 1, then China social at 1 in the same event: draw
    (5, 5, 8, "china"),  # only the US: China wins, once the event has finished
])
def test_r24_covid_both_economies_at_two(economy_china, die, social_china, winner):
    """R24 (10.3.2): COVID-19 Pandemic (economy -1 both, then a die: 1-3 China social -1,
    4-6 US social -1) ends the game once the whole event has resolved; losses met by both
    by then are a draw."""
    g = us_round(hand=("COVID-19 Pandemic", US3))
    g.set_track("economy_usa", 2)
    g.set_track("economy_china", economy_china)
    g.set_track("social_usa", 8)
    g.set_track("social_china", social_china)
    g.force_dice([die])
    play(g, "COVID-19 Pandemic", "event")
    assert g.is_over
    assert g.result.winner == winner
    assert not g.state.forced  # the roll of the event happened
    assert g.track("social_china" if die <= 3 else "social_usa") == (
        social_china if die <= 3 else 8) - 1


def test_r24_a_track_raised_again_within_the_resolution_still_counts():
    """R24: a track that reached 1 and was raised again within the same resolution still
    counts: one resolution "US economy -1" (COVID-19 Pandemic's first effect) then the
    Green Tech box (US +1 VP, economy +1) with the US economy at 2: the US loses,
    after the whole resolution (economy back at 2)."""
    g = us_round()
    c, m = g.content, g._m
    covid = c.cards[c.card_by_name["COVID-19 Pandemic"]]
    green = c.tech_boxes[USA][4]
    assert green.name == "Green Tech"
    g.set_track("economy_usa", 2)
    vp = g.vp["usa"]
    s = g.state
    s.stack.append(s.pending[0])  # re-ask the card choice afterwards
    s.pending = None
    m.push_effects([c.eids(covid.effects)[0], *c.eids(green.effects)], USA)
    m.run()
    assert g.track("economy_usa") == 2 and g.vp["usa"] == vp + 1
    assert g.is_over and g.result.winner == "china"


# --------------------------------------------------------------------------- R25


def _general_ai(hand: tuple[str, ...]) -> Game:
    """The US buys General AI (tech box 7) at the start of its round, holding `hand`."""
    g = to_spend("usa", 4, tech_usa=6, diplomacy=3)
    do(g, "spend", "tech")
    g.set_hand("usa", list(hand))
    return g


def test_r25_us_may_decline_the_event_of_its_card_played_for_ops():
    """R25 (8.2.3): with General AI the US plays Taiwan Strait Crisis (neutral) for ops and
    may decline its event (diplomacy -1)."""
    g = _general_ai(("Taiwan Strait Crisis", US3))
    play(g, "Taiwan Strait Crisis", "place")
    assert g.decision.kind == "ai_event" and g.decision.player == "usa"
    assert set(g.decision.legal) == {g.action_id("order", "event_first"),
                                     g.action_id("order", "action_first"), g.action_id("no")}
    do(g, "no")
    assert g.decision.kind == "place"
    for _ in range(4):
        do(g, "country", "Canada")
    assert g.track("diplomacy") == 3
    assert g.decision.player == "china"


def test_r25_us_may_also_take_the_action_of_a_card_played_as_event():
    """R25 (8.2.3): with General AI the US plays Operation Uphold Democracy as event and
    chooses whether to also take an action with its ops (here: place 1 in Canada)."""
    g = _general_ai((US1, US3))
    g.set_influence("Haiti/Dominican Republic")
    g.set_influence("Canada")
    declined = g.clone()
    play(g, US1, "event")
    assert g.influence("Haiti/Dominican Republic")["usa"] == 2
    assert g.decision.kind == "ai_action" and g.decision.player == "usa"
    assert g.action_id("no") in g.decision.legal
    assert g.action_id("mode", "event") not in g.decision.legal
    do(g, "mode", "place")
    do(g, "country", "Canada")
    assert g.influence("Canada")["usa"] == 1
    play(declined, US1, "event")
    do(declined, "no")
    assert declined.influence("Canada")["usa"] == 0
    assert declined.decision.player == "china"


def test_r25_opponent_card_still_fires_its_event():
    """R25, R5: General AI changes nothing for an opponent's card played for ops: its event
    happens (only the order is chosen)."""
    g = _general_ai((CN1, US3))
    r = g.reserves["china"]
    play(g, CN1, "place")
    assert g.decision.kind == "order"
    assert g.action_id("no") not in g.decision.legal
    do(g, "order", "event_first")
    assert g.reserves["china"] == r + 2


# --------------------------------------------------------------------------- R26


def _economy_phase_with(card: str, side: str, economy: int, reserves: int) -> Game:
    """From the end of turn 1: `card` in play (its event carried out by the US), `side` at
    `economy` with `reserves`, the other side with none; then on to phase H."""
    g = to_end_of_turn1()
    i = g.content.card_by_name[card]
    g.state.card_loc[i] = IN_PLAY
    g.state.event_side[i] = USA
    g.set_track(f"economy_{side}", economy)
    g.set_reserves("china" if side == "usa" else "usa", 0)
    g.set_reserves(side, reserves)
    do(g, "done")
    return g


def test_r26_nafta_income_counts_before_the_upgrade():
    """R26 (4.6.H, R15): the US at economy 8 with 2 reserves and NAFTA in play gains 4 + 1
    before the upgrade choice, so the 7-reserve upgrade is offered."""
    g = _economy_phase_with("NAFTA", "usa", 8, 2)
    assert g.decision.kind == "upgrade" and g.decision.player == "usa"
    assert g.reserves["usa"] == 7
    do(g, "yes")  # China has no reserves: no choice; both decline (R15)
    assert g.reserves["usa"] == 0 and g.track("economy_usa") == 8  # 9, then the decline


def test_r26_trade_war_loss_counts_before_the_upgrade():
    """R26: the US-China Trade War (China loses 1 reserve each economy phase) is taken with
    China's income: China at economy 6 (income 3, price 5) with 3 reserves has 5 - not 6 -
    and can still upgrade."""
    g = _economy_phase_with("US–China Trade War", "china", 6, 3)
    assert g.decision.kind == "upgrade" and g.decision.player == "china"
    assert g.reserves["china"] == 5
