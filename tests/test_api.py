"""The public Game API contract (issue: rules engine, "Public API")."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import action_round, advance_to

from evenstar_env import Game, IllegalActionError


def test_new_game_runs_to_first_decision_of_turn_one() -> None:
    g = Game(7)
    assert g.turn == 1
    assert g.current_player in ("usa", "china")
    assert not g.is_over and g.result is None
    assert g.vp.keys() == {"usa", "china"}


def test_illegal_action_raises_and_names_decision_and_action() -> None:
    g = Game(7)
    illegal = int(np.flatnonzero(~g.action_mask())[0])
    before = g.clone().state
    with pytest.raises(IllegalActionError) as err:
        g.step(illegal)
    assert str(g.decision) in str(err.value)
    assert str(illegal) in str(err.value)
    assert g.state == before, "a rejected action changed the state"
    assert isinstance(err.value, ValueError)


def test_action_outside_the_space_is_illegal() -> None:
    g = Game(1)
    with pytest.raises(IllegalActionError):
        g.step(g.num_actions + 5)


def test_mask_matches_legal_actions() -> None:
    g = Game(3)
    mask = g.action_mask()
    assert mask.shape == (g.num_actions,) and mask.dtype == bool
    assert np.array_equal(np.flatnonzero(mask), np.sort(g.legal_actions()))


def test_describe_action_names_card_mode_and_country() -> None:
    g = action_round(0, "usa")
    card = g.hand("usa")[0]
    a = g.action_id("card", card)
    assert card in g.describe_action(a)
    g.step(a)
    modes = g.legal_actions()
    place = g.action_id("mode", "place")
    assert place in modes and card in g.describe_action(place)
    g.step(place)
    if g.decision.kind == "order":
        g.step(g.action_id("order", "action_first"))
    assert g.decision.kind == "place"
    target = int(g.legal_actions()[0])
    country = g.content.countries[target - g.action_id("country", g.content.countries[0].name)]
    assert country.name in g.describe_action(target)


def test_game_over_has_no_player_and_rejects_steps() -> None:
    g = Game(0)
    rng = np.random.default_rng(0)
    while not g.is_over:
        g.step(int(rng.choice(g.legal_actions())))
    assert g.current_player is None and g.decision is None
    assert g.legal_actions().size == 0 and not g.action_mask().any()
    assert g.result.reason
    with pytest.raises(IllegalActionError):
        g.step(0)


def test_content_listings() -> None:
    countries = Game.countries()
    assert len(countries) >= 80
    india = next(c for c in countries if c["name"] == "India")
    assert india["stability"] is None and india["non_realignable"]
    assert {"Europe", "Asia", "Middle East", "Africa", "Latin America", "Former USSR",
            "Southeast Asia"} <= set(Game.regions())
    kinds = {c["kind"] for c in Game.cards()}
    assert kinds == {"base", "scoring", "history"}


def test_set_influence_rejects_us_and_au_together() -> None:
    g = Game(0)
    with pytest.raises(ValueError, match="R1"):
        g.set_influence("Iran", usa=1, anti_us=1)


def test_set_hand_moves_named_cards_and_returns_old_ones() -> None:
    g = action_round(2, "china")
    old = g.hand("china")
    new = [c["name"] for c in Game.cards() if c["kind"] == "base"
           and c["era"] == "early" and c["name"] not in old][:3]
    g.set_hand("china", new)
    assert sorted(g.hand("china")) == sorted(new)
    legal_cards = {g.describe_action(a) for a in g.legal_actions()}
    assert all(any(n in text for text in legal_cards) for n in new)


def test_resample_hidden_keeps_what_the_player_knows() -> None:
    g = advance_to(Game(11), "card", "usa")
    us_hand = sorted(g.hand("usa"))
    changed = False
    for k in range(5):
        r = g.resample_hidden("usa", k)
        assert sorted(r.hand("usa")) == us_hand
        assert len(r.hand("china")) == len(g.hand("china"))
        assert np.array_equal(r.state.inf_us, g.state.inf_us)
        assert r.vp == g.vp and r.decision == g.decision
        public = (g.state.card_loc == 3) | (g.state.card_loc == 4) | (g.state.card_loc == 5)
        assert np.array_equal(r.state.card_loc[public], g.state.card_loc[public])
        changed |= sorted(r.hand("china")) != sorted(g.hand("china"))
    assert changed, "resampling never changed China's hidden hand"


def test_force_dice_rejects_impossible_faces() -> None:
    with pytest.raises(ValueError):
        Game(0).force_dice([7])


def test_vp_by_source_adds_up_to_the_vp_counters() -> None:
    from agents import CautiousRandomAgent

    for seed in range(4):
        g = Game(seed)
        agent = CautiousRandomAgent(seed)
        while not g.is_over:
            g.step(agent.act(None, g.action_mask(), g))
        sources = g.vp_by_source()
        for side in ("usa", "china"):
            assert sum(sources[side].values()) == g.vp[side]
        regions = set(Game.regions())
        assert any(sources[s][r] for s in ("usa", "china") for r in regions)


def test_from_dict_refuses_a_snapshot_of_other_content() -> None:
    from evenstar_env.content import load_variant

    d = Game(1).to_dict()
    other = load_variant({"name": "x", "card_ops": {"gulf_war": 1}})
    assert Game.from_dict(d).state == Game(1).state  # same content: fine
    d["content"] = "0" * 16
    with pytest.raises(ValueError, match="other game content"):
        Game.from_dict(d)
    assert Game.from_dict(Game(1, content=other).to_dict(), content=other).state is not None


@pytest.mark.parametrize(("diplomacy", "card", "side", "risk"), [
    (2, "Gulf War", "china", True),  # one level lost from 2 reaches 1 (9.2.3, R21)
    (3, "Gulf War", "china", False),  # 3 - 1 stays above 1
    (3, "Clinton Doctrine", "china", True),  # two granted realignments (R7)
    (2, "Taiwan Strait Crisis", "china", False),  # needs diplomacy 3 to happen at all
    (2, "NAFTA", "china", False),  # no realignments, no diplomacy loss
])
def test_event_risks_total_war(diplomacy: int, card: str, side: str, risk: bool) -> None:
    g = action_round(3, side)
    g.set_track("diplomacy", diplomacy)
    assert g.event_risks_total_war(card, side) is risk


def test_resample_hidden_depends_only_on_what_the_player_knows() -> None:
    """Two games that differ only in what the US cannot see (China's hand, the deck order,
    the dice) give the same determinisation for the same seed: a search seeded alike
    plays alike whatever the hidden cards are (hidden information is a promise)."""
    g = advance_to(Game(11), "card", "usa")
    other = g.resample_hidden("usa", 99)
    assert sorted(other.hand("china")) != sorted(g.hand("china"))
    for k in range(4):
        a, b = g.resample_hidden("usa", k), other.resample_hidden("usa", k)
        assert np.array_equal(a.state.card_loc, b.state.card_loc)
        assert a.state.rng == b.state.rng
