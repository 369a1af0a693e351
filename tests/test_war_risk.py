"""The war-risk flags as actions and the trainer's war-risk term (agents/war_risk.py)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from helpers import action_round, china_card_choice, quiet_action
from hypothesis import given, settings
from hypothesis import strategies as st

from agents.specs import make_agent
from agents.war_risk import WarRisk
from evenstar_env import Game
from evenstar_env.engine.constants import HAND as IN_HAND
from evenstar_env.engine.constants import M_ROUND, MODE_TECH, SIDES
from evenstar_env.engine.play import legal_modes
from evenstar_env.env.observation import observe

HAND = ["Gulf War", "Wolf Warrior Diplomacy"]  # a US war card (threat) and China's own card


def china_to_play(hand: list[str], diplomacy: int, tech_done: bool = True):
    """The game, China's observation (1 x obs_size) and its legal actions (1 x n)."""
    g = china_card_choice(hand, diplomacy, tech_done)
    obs = torch.as_tensor(np.asarray(observe(g, "china"), dtype=np.float32))[None]
    mask = torch.as_tensor(g.action_mask().astype(bool))[None]
    return g, obs, mask


@pytest.mark.parametrize(("diplomacy", "tech_done", "risky"), [
    (2, True, ["Gulf War"]), (3, True, []), (2, False, [])])
def test_only_the_card_whose_event_could_end_the_game_is_risky(diplomacy, tech_done, risky):
    """9.2.3, R21: at diplomacy 2 the US war China would set off is a lost total war; at 3
    (the top of the track) it is not.  China's own card is never flagged.  While China's
    tech race of the turn is still open, the card is not risky to choose: the race takes
    it without its event (R5, 6.4)."""
    g, obs, _ = china_to_play(HAND, diplomacy, tech_done)
    wr = WarRisk(g.content)
    flagged = np.flatnonzero(wr.actions(obs)[0].numpy())
    assert [g.describe_action(int(a)) for a in flagged] == [
        g.describe_action(g.action_id("card", name)) for name in risky]
    assert [g.event_risks_total_war(name, "china") for name in HAND] == [
        name == "Gulf War" and diplomacy == 2 for name in HAND]  # the event itself


@pytest.mark.parametrize(("round_", "hand", "risky"), [
    (7, ["Europe Scoring", "Wolf Warrior Diplomacy", "Brexit"],
     ["Wolf Warrior Diplomacy", "Brexit"]),
    (6, ["Europe Scoring", "Wolf Warrior Diplomacy", "Brexit"], []),
    (6, ["Europe Scoring", "Asia Scoring", "Brexit"], ["Brexit"]),
    (7, ["Europe Scoring", "Asia Scoring"], []),
    (7, ["Wolf Warrior Diplomacy", "Brexit"], [])])
def test_a_card_that_would_leave_a_due_scoring_card_in_hand_is_risky(round_, hand, risky):
    """2.2.1.1, R13: a scoring card held at the end of the turn loses the game.  Once the
    hand's scoring cards fill the action rounds left (7 a turn), every other card is risky;
    with only scoring cards in hand (a loss either way) nothing is safer, so nothing is
    flagged as offered."""
    g = china_card_choice(hand, 3, tech_done=True)
    g.state.misc[M_ROUND] = round_
    obs = torch.as_tensor(np.asarray(observe(g, "china"), dtype=np.float32))[None]
    mask = torch.as_tensor(g.action_mask().astype(bool))[None]
    wr = WarRisk(g.content)
    flagged = np.flatnonzero(wr.actions(obs)[0].numpy())
    assert sorted(g.describe_action(int(a)) for a in flagged) == sorted(
        g.describe_action(g.action_id("card", name)) for name in risky)
    _, offered = wr.offered(obs, mask)
    assert bool(offered[0]) == bool(risky)


def test_no_action_is_risky_outside_card_plays():
    g, obs, _ = china_to_play(HAND, 2)
    g.step(g.action_id("card", "Wolf Warrior Diplomacy"))  # now the mode decision
    obs = torch.as_tensor(np.asarray(observe(g, "china"), dtype=np.float32))[None]
    assert not WarRisk(g.content).actions(obs).any()


def test_the_term_moves_probability_to_the_safe_card_and_ignores_forced_plays():
    g, obs, mask = china_to_play(HAND, 2)
    wr = WarRisk(g.content)
    logits = torch.zeros(mask.shape[1], requires_grad=True)
    opt = torch.optim.SGD([logits], lr=1.0)
    safe = g.action_id("card", "Wolf Warrior Diplomacy")
    losses = []
    for _ in range(20):
        logp = torch.log_softmax(logits.masked_fill(~mask[0], -1e9), -1)[None]
        loss, rows = wr.loss(logp, mask, obs)
        assert rows == 1
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[0] == pytest.approx(np.log(2))  # two legal cards, equally likely
    assert losses[-1] < 0.1 and torch.softmax(logits.masked_fill(~mask[0], -1e9), -1)[
        safe] > 0.9
    # A hand of Gulf War alone: the card is forced, its mode is not (the tech race is safe).
    _, obs, mask = china_to_play(["Gulf War"], 2, tech_done=False)
    assert wr.loss(torch.zeros(mask.shape, dtype=torch.float32), mask, obs)[1] == 1
    g, obs, mask = china_to_play(["Gulf War"], 2, tech_done=True)  # the race already run
    assert g.decision.kind == "mode" and wr.actions(obs)[mask].all()  # nothing safe
    loss, rows = wr.loss(torch.zeros(mask.shape, dtype=torch.float32), mask, obs)
    assert rows == 0 and float(loss) == 0.0


def played_out(g, mode: int) -> bool:
    """Whether the card whose mode is pending, played in `mode` with the quietest choices
    after, ends the game in a total war its player loses."""
    h = g.clone()
    player = h.decision.player
    h.step(mode)
    for _ in range(500):
        if h.is_over or h.decision.kind in ("card", "headline"):
            break
        h.step(int(quiet_action(h)))
    return h.is_over and h.returns()[player] < 0


@pytest.mark.parametrize(("side", "card", "diplomacy", "risky"), [
    ("china", "Gulf War", 2, "all but tech"), ("usa", "Gulf War", 2, "event")])
def test_on_a_flagged_cards_mode_decision_the_modes_that_let_its_event_happen_are_risky(
        side, card, diplomacy, risky):
    """R5: a US card's event happens whatever China does with its ops but race in tech
    (6.4); at diplomacy 2 Gulf War's takes diplomacy to 1, a total war China loses
    (9.2.3).  Played by the US, its own card, the event happens only as the event.  Each
    legal mode is played out, and the flags agree with how the game ends (Gulf War lowers
    diplomacy itself; a card whose risk lies in realignments its executor may choose, such
    as Clinton Doctrine, is flagged without a certain loss)."""
    g = action_round(2, side)
    g.set_hand(side, [card, "Wolf Warrior Diplomacy", "Taiwan Strait Crisis"])
    g.set_track("diplomacy", diplomacy)
    assert g.event_risks_total_war(card, side)
    g.step(g.action_id("card", card))
    obs = torch.as_tensor(np.asarray(observe(g, side), dtype=np.float32))[None]
    flags = WarRisk(g.content).actions(obs)[0].numpy()
    legal = [int(a) for a in g.legal_actions()]
    assert len(legal) >= 3
    assert {a: bool(flags[a]) for a in legal} == {a: played_out(g, a) for a in legal}
    event, tech = g.action_id("mode", "event"), g.action_id("mode", "tech")
    others = [a for a in legal if a not in (event, tech)]
    if risky == "event":
        assert event in legal and flags[event] and not flags[others].any()
    else:
        assert tech in legal and not flags[tech] and flags[others].all()


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 100_000), steps=st.integers(0, 600))
def test_the_tech_race_read_from_the_observation_is_the_engines(seed, steps):
    """tech_open, computed from what the mover sees, says for each card of its hand exactly
    what the engine's legal modes say of the tech race (6.4, 7.3), at a card choice reached
    by cautious play."""
    g = Game(seed, backend="python")
    agent = make_agent("cautious", seed)
    for _ in range(steps):
        if g.is_over:
            return
        g.step(agent.act(None, g.action_mask(), g))
    for _ in range(200):  # on to the next card choice
        if g.is_over:
            return
        if g.decision.kind == "card":
            break
        g.step(agent.act(None, g.action_mask(), g))
    else:
        return
    m, p = g._m, SIDES.index(g.decision.player)
    obs = torch.as_tensor(np.asarray(observe(g, g.decision.player), dtype=np.float32))[None]
    seen = WarRisk(g.content).tech_open(obs)[0]
    held = np.flatnonzero(g.state.card_loc == IN_HAND[p])
    assert held.size
    for k in held:
        ops = m.modified_ops(int(k), p, m.next_plus(p))
        assert bool(seen[k]) == (MODE_TECH in legal_modes(m, p, int(k), ops)), (
            g.content.cards[k].name)


def test_the_tech_race_is_kept_for_the_card_only_it_can_play_safely():
    """6.4: one tech race a turn.  Holding Gulf War at diplomacy 2, China may choose it
    (the race takes it without its event, R5), but racing another card with it would
    leave Gulf War nothing safe for the rest of the turn: that race is flagged, the other
    uses of the card are not."""
    g, obs, _ = china_to_play(["Gulf War", "NATO Enlargement"], 2, tech_done=False)
    wr = WarRisk(g.content)
    assert not wr.actions(obs).any()  # either card may be chosen
    g.step(g.action_id("card", "NATO Enlargement"))
    obs = torch.as_tensor(np.asarray(observe(g, "china"), dtype=np.float32))[None]
    flags = wr.actions(obs)[0].numpy()
    tech = g.action_id("mode", "tech")
    assert tech in g.legal_actions() and len(g.legal_actions()) >= 3
    assert [a for a in g.legal_actions() if flags[a]] == [tech]
