"""Cards that do what their text says (issue 19, "Cards that do not do what they say").

Cancelled persistent events leave the game (docs/rules.md 2.1); a tech box pays once per
game (docs/rules.md 8.4); "reduce US by 2, a US shortfall is placed as anti-US influence"
places AU where the US has none (2.1.8.6, R1); "play as an event only by discarding
another card of at least 3 ops" is the owner's choice when the opponent plays the card
(5.3, 5.2).
"""

from __future__ import annotations

import re

import pytest
from helpers import changes, do, play, quiet_advance, quiet_round, snapshot, wipe_region

from evenstar_env import Game
from evenstar_env.engine.constants import DISCARD, DRAW, IN_PLAY, LOC_NAMES, REMOVED
from evenstar_env.engine.effects import draw_cards

OTHER = {"usa": "china", "china": "usa"}


def loc(g: Game, name: str) -> str:
    return LOC_NAMES[int(g.state.card_loc[g.content.card_by_name[name]])]


def _cancel_pairs() -> list[tuple[str, str]]:
    """(persistent card, card whose event cancels it) for every `cancel` effect of the deck."""
    c = Game(0).content
    pairs = []

    def walk(effects, canceller):
        for e in effects:
            if e.op == "cancel":
                pairs.append((c.cards[c.card_by_id[e.card]].name, canceller))
            for sub in ("then", "otherwise", "effects", "success", "failure"):
                walk(getattr(e, sub, None) or [], canceller)
            for o in getattr(e, "options", None) or []:
                walk(o.effects, canceller)
            for o in getattr(e, "outcomes", None) or []:
                walk(o.effects, canceller)

    for cd in c.cards:
        walk(cd.effects, cd.name)
    return sorted(set(pairs))


CANCEL_PAIRS = _cancel_pairs()


def test_every_cancel_target_is_a_persistent_card_naming_its_canceller() -> None:
    c = Game(0).content
    # MFN linkage, War on Terror, Iraqi Insurgency, COVID x2, US–China trade war, Western
    # Development (Cox Report).
    assert len(CANCEL_PAIRS) == 7
    for target, canceller in CANCEL_PAIRS:
        cd = c.cards[c.card_by_name[target]]
        assert cd.persistent is not None
        assert c.card_by_name[canceller] in [c.card_by_id[i] for i in cd.persistent.cancelled_by]
        assert "leaves the game" in cd.text and "移出游戏" in cd.text_zh


@pytest.mark.parametrize("target, canceller", CANCEL_PAIRS)
def test_a_cancelled_persistent_event_leaves_the_game_and_never_returns(target, canceller) -> None:
    """docs/rules.md 2.1: a cancelled persistent event is removed, not discarded."""
    g = quiet_round("usa", 1)
    c = g.content
    t, k = c.card_by_name[target], c.card_by_name[canceller]
    s = g.state
    for cd in c.cards:  # every prerequisite of the canceller met
        s.event_played[c.card_by_name[cd.name]] = True
    s.event_played[k] = False
    s.card_loc[t] = IN_PLAY
    owner = c.cards[k].side if c.cards[k].side != "neutral" else "usa"
    if owner != "usa":
        quiet_advance(g, "card", owner)
    fillers = [cd.name for cd in c.cards
               if cd.side == OTHER[owner] and cd.kind == "base" and cd.name not in (target,)][:1]
    g.set_hand(owner, [canceller, *fillers])
    play(g, canceller, "event")
    while g.decision.player == owner and g.decision.kind in ("influence", "option", "discard"):
        g.step(int(g.legal_actions()[0]))
    assert loc(g, target) == LOC_NAMES[REMOVED]
    # Every discard reshuffled into an empty draw pile: the cancelled card is not drawn.
    s.card_loc[s.card_loc == DRAW] = DISCARD
    draw_cards(g._m, 0, len(c.cards))
    assert loc(g, target) == LOC_NAMES[REMOVED]


def _china_tech_race(g: Game, card: str) -> dict:
    """China plays `card` for the tech race with a forced 1 (success, 6.4); the changes."""
    g.set_hand("china", [card, "Oslo Accords"])
    g.force_dice([1])
    before = snapshot(g)
    play(g, card, "tech")
    return changes(g, before)


def test_ai_chip_export_controls_setback_then_reentering_the_box_pays_nothing() -> None:
    """docs/rules.md 8.4: a tech box pays once per game."""
    g = quiet_round("china", 1)
    g.set_track("tech_china", 2)
    g.set_track("social_china", 5)
    first = _china_tech_race(g, "RCEP")
    assert first == {"tech_china": 3, "vp_china": 1, "social_china": 6}  # Three Gorges Dam
    quiet_advance(g, "card", "usa")
    g.state.event_played[g.content.card_by_id["chips_act"]] = True
    g.set_hand("usa", ["AI Chip Export Controls", "Pivot to Asia"])
    g.set_hand("china", ["Oslo Accords"])
    play(g, "AI Chip Export Controls", "event")
    assert g.track("tech_china") == 2
    quiet_advance(g, "card", "china")
    assert _china_tech_race(g, "RCEP") == {"tech_china": 3}  # re-entered: no VP, no social


def test_tech_paid_record_survives_serialisation() -> None:
    g = quiet_round("china", 1)
    _china_tech_race(g, "RCEP")
    from evenstar_env.engine.constants import M_TECH_PAID
    from evenstar_env.engine.state import State
    back = State.from_dict(g.state.to_dict())
    assert back.misc[M_TECH_PAID + 1] == g.state.misc[M_TECH_PAID + 1] == g.track("tech_china")


# ------------------------------------------------------------------ pay-to-fire events

PAY_CARDS = [("Nunn–Lugar Threat Reduction", "usa", "Pivot to Asia"),
             ("Four Trillion Yuan Stimulus", "china", "RCEP")]
BIG2 = {"usa": "AI Chip Export Controls", "china": "Belt and Road Initiative"}  # 4 ops
OPPONENT_FILLER = {"usa": "Pivot to Asia", "china": "RCEP"}


def _opponent_plays_for_ops(card: str, owner: str, big: str) -> Game:
    """The owner's opponent plays `card` for ops, event first; the owner holds `big` (>= 3 ops)."""
    opp = OTHER[owner]
    g = quiet_round(opp, 1)
    g.set_hand(owner, [big, "Oslo Accords"])
    g.set_hand(opp, [card, OPPONENT_FILLER[opp]])
    play(g, card, "place")
    do(g, "order", "event_first")
    return g


@pytest.mark.parametrize("card, owner, big", PAY_CARDS)
def test_pay_to_fire_owner_may_decline_when_the_opponent_plays_it(card, owner, big) -> None:
    g = _opponent_plays_for_ops(card, owner, big)
    d = g.decision
    assert d.kind == "discard" and d.player == owner
    assert set(d.legal) == {g.action_id("card", big), g.action_id("no")}
    before = snapshot(g)
    do(g, "no")
    assert changes(g, before) == {}  # the event does not happen
    assert sorted(g.hand(owner)) == sorted([big, "Oslo Accords"])
    assert not g.state.event_played[g.content.card_by_name[card]]
    while g.decision.kind == "place":
        g.step(int(g.legal_actions()[0]))
    assert loc(g, card) == LOC_NAMES[DISCARD]  # 5.2: a "*" card whose event did not happen


@pytest.mark.parametrize("card, owner, big", PAY_CARDS)
def test_pay_to_fire_owner_may_pay_when_the_opponent_plays_it(card, owner, big) -> None:
    g = _opponent_plays_for_ops(card, owner, big)
    do(g, "card", big)
    assert loc(g, big) == LOC_NAMES[DISCARD]
    assert not g.state.event_played[g.content.card_by_name[big]]  # 5.4
    assert g.state.event_played[g.content.card_by_name[card]]
    assert loc(g, card) == LOC_NAMES[REMOVED]


@pytest.mark.parametrize("card, owner, big", PAY_CARDS)
def test_pay_to_fire_owner_playing_it_as_event_must_pay(card, owner, big) -> None:
    g = quiet_round(owner, 1)
    g.set_hand(owner, [card, big, BIG2[owner], "Oslo Accords"])
    play(g, card, "event")
    d = g.decision
    assert d.kind == "discard" and d.player == owner
    # 5.3: any card of 3 or more ops serves; no "decline" for its own play as an event.
    assert set(d.legal) == {g.action_id("card", big), g.action_id("card", BIG2[owner])}
    do(g, "card", big)
    assert g.state.event_played[g.content.card_by_name[card]]


# ------------------------------------------------------------------ sub-region scoring text


@pytest.mark.parametrize("card, region, bg", [("former_ussr_scoring", "Former USSR", "Ukraine"),
                                              ("southeast_asia_scoring", "Southeast Asia",
                                               "Vietnam")])
def test_subregion_scoring_text_states_two_vp_per_battleground(card, region, bg) -> None:
    """R18: a controlled battleground of a sub-region gives 2 VP in all; the text says so."""
    g = Game(0)
    cd = g.content.cards[g.content.card_by_id[card]]
    assert "non-battleground" in cd.text and "not 1 + 2" in cd.text
    assert "非争夺国" in cd.text_zh and "共 2VP" in cd.text_zh
    wipe_region(g, region)
    assert g.content.countries[g.content.index[bg]].battleground
    g.set_influence(bg, usa=5)
    assert g.score_region(region) == {"usa": 2, "china": 0}


# ------------------------------------------------------------------ text


def test_one_chinese_name_per_country_across_map_and_cards() -> None:
    """A country named in a card's English text is named by its map name in the Chinese."""
    c = Game(0).content
    texts = [(cd.name, cd.text, cd.text_zh) for cd in c.cards]
    texts += [(h.name, o.text, o.text_zh) for h in c.history for o in h.outcomes]
    wrong = []
    for name, en, zh in texts:
        for country in c.countries:
            pattern = r"(?<![\w/])" + re.escape(country.name) + r"(?![\w/–-])"
            if re.search(pattern, en) and country.zh not in zh:
                wrong.append((name, country.name, country.zh))
    assert wrong == []
    by = {k.name: k.zh for k in c.countries}
    assert (by["Spain/Portugal"], by["Gulf States"]) == ("西班牙/葡萄牙", "海湾诸国")


@pytest.mark.parametrize("card_id, zh", [("annexation_of_crimea", "吞并克里米亚"),
                                         ("hong_kong_protests", "香港抗议活动"),
                                         ("csto", "集体安全条约")])
def test_titles_translate_the_english_event(card_id, zh) -> None:
    c = Game(0).content
    assert c.cards[c.card_by_id[card_id]].zh == zh


# ------------------------------------------------------------------ the deck


def test_no_two_cards_have_the_same_effect_list() -> None:
    """Issue 19: duplicates (Project 211 / Shenzhou 5, the tech history cards) are distinct."""
    c = Game(0).content
    seen: dict[str, str] = {}
    for cd in c.cards:
        key = repr(([e.model_dump() for e in cd.effects],
                    cd.persistent.model_dump() if cd.persistent else None))
        assert key not in seen, (cd.name, seen.get(key))
        seen[key] = cd.name
    for h in c.history:
        key = repr([[e.model_dump() for e in o.effects] for o in h.outcomes])
        assert key not in seen, (h.name, seen.get(key))
        seen[key] = h.name
