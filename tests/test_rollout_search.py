"""Greedy network play-outs (agents/rollouts.py) and the rollout search built on them
(agents/rollout_search.py; issue 35: search that adds strength to the learned policy)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch
from helpers import action_round, advance_to

from agents.ismcts import FINE_KINDS
from agents.networks import DeckNetworks, NetConfig, build_network, save_checkpoint
from agents.rollout_search import RolloutSearchAgent
from agents.rollouts import PolicyRollouts
from agents.specs import make_agent, rollout_options
from evenstar_env import Game
from evenstar_env.engine.constants import SIDES
from evenstar_env.env.observation import encoder_for
from evenstar_env.native import available

NATIVE = pytest.mark.skipif(not available(), reason="the native core is not built")


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory) -> Path:
    torch.manual_seed(0)
    cfg = NetConfig.for_content(hidden=(16,))
    net = build_network(cfg)
    with torch.no_grad():  # logits that differ enough for the order of candidates to matter
        net.policy.weight.normal_(0, 0.5)
    path = tmp_path_factory.mktemp("net") / "small"
    save_checkpoint(path, net, cfg)
    return path


@pytest.fixture(scope="module")
def net(checkpoint):
    return DeckNetworks(checkpoint, "test").net


def greedy_result(net, g: Game, side: str) -> float:
    """The play-out by hand: one position at a time, the network's arg-max."""
    enc = encoder_for(g.content)
    while not g.is_over:
        x = torch.as_tensor(enc.encode(g._m, SIDES.index(g.current_player)),
                            dtype=torch.float32)[None]
        with torch.no_grad():
            logits = net(x, torch.as_tensor(g.action_mask())[None])[0][0]
        g.step(int(torch.argmax(logits)))
    return float(np.sign(g.returns()[side]))


def late_games(backend: str, n: int = 4) -> list[Game]:
    """`n` games in their last turns (short play-outs), one of them already over."""
    out = []
    for seed in range(n):
        g = Game(seed, backend=backend)
        advance_to(g, "card", "usa")
        while not g.is_over and (g.turn < 9 or g.decision.kind != "card"):
            g.step(int(g.legal_actions()[-1]))
        out.append(g)
    while not out[0].is_over:
        out[0].step(int(out[0].legal_actions()[0]))
    return out


@pytest.mark.parametrize("side", ["usa", "china"])
def test_play_outs_are_the_networks_arg_max_for_both_sides(net, side) -> None:
    games = late_games("python")
    expected = [greedy_result(net, g.clone(), side) for g in games]
    got = PolicyRollouts(net).results([g.clone() for g in games], side)
    assert got.tolist() == expected
    assert set(got) <= {-1.0, 0.0, 1.0}


@NATIVE
@pytest.mark.parametrize("side", ["usa", "china"])
def test_native_slots_play_out_as_the_python_games_do(net, side) -> None:
    """The NativeBatch path (state bytes copied into slots, lockstep C++ steps) gives the
    Python games' results, leaves the games as they were, and reuses its batch."""
    rollouts = PolicyRollouts(net)
    games = late_games("native", 5)
    before = [g.to_dict() for g in games]
    expected = PolicyRollouts(net).results(
        [Game.from_dict(g.to_dict(), backend="python") for g in games], side)
    assert rollouts.results(games, side).tolist() == expected.tolist()
    assert [g.to_dict() for g in games] == before
    assert rollouts.results(games[:2], side).tolist() == expected[:2].tolist()
    cut = PolicyRollouts(net).results(
        [Game.from_dict(g.to_dict(), backend="python") for g in games], side, depth=7)
    assert rollouts.results(games, side, depth=7) == pytest.approx(cut, abs=1e-6)


@pytest.mark.parametrize("side", ["usa", "china"])
def test_a_cut_off_play_out_is_scored_by_the_value_head(net, side) -> None:
    """depth=0: the value head of the position itself, for the mover, turned to `side`;
    depth=k: the value after k arg-max moves; a finished game keeps its exact result."""
    games = late_games("python")
    rollouts = PolicyRollouts(net)
    enc = encoder_for(games[0].content)

    def value_for_side(g: Game) -> float:
        if g.is_over:
            return float(np.sign(g.returns()[side]))
        x = torch.as_tensor(enc.encode(g._m, SIDES.index(g.current_player)))[None]
        with torch.no_grad():
            v = float(net(x, torch.as_tensor(g.action_mask())[None])[1][0])
        return v if g.current_player == side else -v

    assert rollouts.results([g.clone() for g in games], side, depth=0) == pytest.approx(
        [value_for_side(g) for g in games], abs=1e-6)
    stepped = [g.clone() for g in games]
    for g in stepped:
        for _ in range(5):
            if not g.is_over:
                x = torch.as_tensor(enc.encode(g._m, SIDES.index(g.current_player)))[None]
                with torch.no_grad():
                    g.step(int(torch.argmax(net(x, torch.as_tensor(g.action_mask())[None])[0])))
    assert rollouts.results([g.clone() for g in games], side, depth=5) == pytest.approx(
        [value_for_side(g) for g in stepped], abs=1e-6)
    assert rollouts.results([games[0].clone()], side, depth=0)[0] in (-1.0, 0.0, 1.0)


def test_only_legal_actions_and_deterministic_for_a_seed(checkpoint) -> None:
    def play(seed: int) -> list[int]:
        ag = RolloutSearchAgent.from_checkpoint(checkpoint, simulations=8, width=3, seed=seed)
        g, out = action_round(2, "usa"), []
        while len(out) < 10:
            mask = g.action_mask()
            a = ag.act(None, mask, g)
            assert mask[a]
            out.append(a)
            g.step(a)
        return out

    assert play(3) == play(3)


def test_the_network_choice_stands_unless_a_play_out_beats_it(checkpoint) -> None:
    """margin 2 (more than any mean difference of results in [-1, 1]): always the
    network's arg-max; margin 0: the best mean of the last round's candidates, which
    all saw the same worlds."""
    g = action_round(2, "china")
    legal = g.legal_actions()
    assert legal.size > 2 and g.decision.kind not in FINE_KINDS
    strict = RolloutSearchAgent.from_checkpoint(checkpoint, simulations=12, width=4,
                                                margin=2.0, seed=1)
    logits = strict.rollouts.logits_of(g.clone())
    assert strict.act(None, g.action_mask(), g) == int(legal[np.argmax(logits[legal])])
    loose = RolloutSearchAgent.from_checkpoint(checkpoint, simulations=12, width=4,
                                               margin=0.0, seed=1)
    a = loose.act(None, g.action_mask(), g)
    means = loose.last_means
    assert means is not None and len(means) >= 2 and a in means
    assert means[a] == max(means.values())


@pytest.mark.parametrize(("seed", "side"), [(11, "usa"), (6, "china")])
def test_search_never_reads_the_opponents_hidden_cards(checkpoint, seed, side) -> None:
    """Same public state and own hand, the opponent's hand (and the deck order and dice)
    redrawn: the same choice and the same means."""
    g = advance_to(Game(seed), "card", side)
    opp = "china" if side == "usa" else "usa"
    other = g.resample_hidden(side, 1234)
    assert sorted(other.hand(opp)) != sorted(g.hand(opp))

    def choice(game: Game):
        ag = RolloutSearchAgent.from_checkpoint(checkpoint, simulations=8, width=4,
                                                margin=0.0, seed=9)
        return ag.act(None, game.action_mask(), game), ag.last_means

    assert choice(g) == choice(other)


def test_spec_and_settings(checkpoint) -> None:
    assert rollout_options("32,width=4,margin=0.2,depth=90") == {
        "simulations": 32, "width": 4, "margin": 0.2, "depth": 90}
    ag = make_agent(f"rollout:16,width=2:{checkpoint}", seed=0)
    assert isinstance(ag, RolloutSearchAgent) and (ag.simulations, ag.width) == (16, 2)
    for bad, words in [("0.5s", "SIMS must be a number of simulations"),
                       ("8,deep=3", "unknown setting"),
                       ("8,margin=nan", "margin must be a finite number >= 0"),
                       ("8,width=0", "width must be a whole number in 1..65,536")]:
        with pytest.raises(ValueError, match=words):
            rollout_options(bad)
    with pytest.raises(ValueError, match="margin"):
        RolloutSearchAgent.from_checkpoint(checkpoint, margin=-1.0)
    with pytest.raises(Exception, match="no network checkpoint"):
        make_agent(f"rollout:8:{checkpoint.parent / 'missing'}", seed=0)
