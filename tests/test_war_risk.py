"""The war-risk flags as actions and the trainer's war-risk term (agents/war_risk.py)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from helpers import china_card_choice

from agents.war_risk import WarRisk
from evenstar_env.env.observation import observe

HAND = ["Gulf War", "Wolf Warrior Diplomacy"]  # a US war card (threat) and China's own card


def china_to_play(hand: list[str], diplomacy: int):
    """The game, China's observation (1 x obs_size) and its legal actions (1 x n)."""
    g = china_card_choice(hand, diplomacy)
    obs = torch.as_tensor(np.asarray(observe(g, "china"), dtype=np.float32))[None]
    mask = torch.as_tensor(g.action_mask().astype(bool))[None]
    return g, obs, mask


@pytest.mark.parametrize(("diplomacy", "risky"), [(2, ["Gulf War"]), (3, [])])
def test_only_the_card_whose_event_could_end_the_game_is_risky(diplomacy, risky):
    """9.2.3, R21: at diplomacy 2 the US war China would set off is a lost total war; at 3
    (the top of the track) it is not.  China's own card is never flagged."""
    g, obs, _ = china_to_play(HAND, diplomacy)
    wr = WarRisk(g.content)
    flagged = np.flatnonzero(wr.actions(obs)[0].numpy())
    assert [g.describe_action(int(a)) for a in flagged] == [
        g.describe_action(g.action_id("card", name)) for name in risky]
    assert [g.event_risks_total_war(name, "china") for name in HAND] == [
        name in risky for name in HAND]


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
    _, obs, mask = china_to_play(["Gulf War"], 2)  # nothing safe to play instead
    loss, rows = wr.loss(torch.zeros(mask.shape, dtype=torch.float32), mask, obs)
    assert rows == 0 and float(loss) == 0.0
