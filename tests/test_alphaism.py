"""Policy-guided ISMCTS (agents/alphaism.py) on small test networks (issue 18: search on
top of the learned policy)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch
from helpers import action_round, advance_to

from agents.alphaism import AlphaISMCTSAgent
from agents.ismcts import FINE_KINDS
from agents.networks import NetConfig, build_network, save_checkpoint
from agents.specs import make_agent
from evenstar_env import Game
from evenstar_env.env.observation import encoder_for


@pytest.fixture(scope="module")
def cfg() -> NetConfig:
    return NetConfig.for_content(hidden=(16,))


@pytest.fixture(scope="module")
def random_net(cfg):
    torch.manual_seed(0)
    net = build_network(cfg)
    with torch.no_grad():  # logits that differ enough for the prior to matter
        net.policy.weight.normal_(0, 0.5)
    return net


def agent(net, seed: int = 0, **kw) -> AlphaISMCTSAgent:
    return AlphaISMCTSAgent(net, **{"simulations": 24, "batch": 4, **kw}, seed=seed)


def play(ag, g: Game, decisions: int) -> list[int]:
    out = []
    while not g.is_over and len(out) < decisions:
        mask = g.action_mask()
        a = ag.act(None, mask, g)
        assert mask[a], f"illegal {a} for {g.decision}"
        out.append(a)
        g.step(a)
    return out


def test_only_legal_actions(random_net) -> None:
    assert len(play(agent(random_net), Game(0), 80)) == 80
    assert len(play(agent(random_net, rollout_mix=0.5, batch=1, fine="heuristic"), Game(1),
                    30)) == 30


def test_deterministic_for_a_seed(random_net) -> None:
    assert play(agent(random_net, 3), Game(5), 40) == play(agent(random_net, 3), Game(5), 40)


def one_action_net(cfg, action: int, value: float):
    """A policy with all its mass on `action` wherever it is legal, a constant value."""
    net = build_network(cfg)
    with torch.no_grad():
        for p in net.parameters():
            p.zero_()
        net.policy.bias[action] = 1e4  # the others' softmax underflows to 0
        net.value.bias.fill_(float(np.arctanh(value)))
    return net


@pytest.mark.parametrize("batch", [1, 8])
def test_search_follows_a_certain_prior_when_the_value_is_constant(cfg, batch) -> None:
    g = action_round(4, "usa")
    legal = g.legal_actions()
    assert legal.size > 3
    for target in (int(legal[1]), int(legal[-1])):
        ag = agent(one_action_net(cfg, target, 0.3), simulations=40, batch=batch)
        assert ag.act(None, g.action_mask(), g) == target
        logits = np.zeros(g.num_actions)
        logits[target] = 1e4
        assert min(ag._priors(logits, legal).values()) > 0  # renormalisable on any subset
        root = ag.search(g, {int(a): float(a == target) or 1e-17 for a in legal})
        visits = {a: c.visits for a, c in root.children.items()}
        assert visits[target] == max(visits.values())
        if batch == 1:  # no virtual loss: every simulation goes the prior's way
            assert visits == {target: 40}


def side_value_net(cfg, enc):
    """Value +tanh(tanh(3)) for the US to move, the same negated for China to move: the
    position is as good for the US whoever moves."""
    net = build_network(cfg)
    me = enc.layout["me"].start
    with torch.no_grad():
        for p in net.parameters():
            p.zero_()
        net.body[0].weight[0, me], net.body[0].weight[0, me + 1] = 3.0, -3.0
        net.value.weight[0, 0] = 1.0
    return net


@pytest.mark.parametrize("side", ["usa", "china"])
def test_values_are_backed_up_from_each_movers_point_of_view(cfg, side) -> None:
    g = action_round(2, side)
    net = side_value_net(cfg, encoder_for(g.content))
    ag = agent(net, simulations=150, batch=4)
    movers: set[str] = set()
    evaluate = ag._evaluate

    def seen(leaves, me):
        movers.update(leaf.mover for leaf in leaves)
        return evaluate(leaves, me)

    ag._evaluate = seen
    root = ag.search(g, ag._priors(np.zeros(g.num_actions), g.legal_actions()))
    assert movers == {"usa", "china"}  # leaves with either side to move were scored
    expected = float(np.tanh(np.tanh(3.0))) * (1 if side == "usa" else -1)
    assert root.value / root.visits == pytest.approx(expected, abs=1e-5)


@pytest.mark.parametrize("mode", [{"opponent": "tree"}, {"opponent": "policy"},
                                  {"root": "halving", "playout": 30}])
@pytest.mark.parametrize(("seed", "side"), [(11, "usa"), (6, "china")])
def test_search_never_reads_the_opponents_hidden_cards(random_net, seed, side,
                                                       mode) -> None:
    """Same public state, same own hand, the opponent's hand (and the deck order and
    dice) redrawn: the same tree, the same choice (play-outs included: they start from
    the searcher's determinisations)."""
    g = advance_to(Game(seed), "card", side)
    opp = "china" if side == "usa" else "usa"
    other = g.resample_hidden(side, 1234)
    assert sorted(other.hand(opp)) != sorted(g.hand(opp))

    def tree(game: Game):
        ag = agent(random_net, seed=9, simulations=40, **mode)
        a = ag.act(None, game.action_mask(), game)
        ag.reseed(9)
        root = ag.search(game, ag._priors(np.zeros(game.num_actions), game.legal_actions()))
        return a, {k: (c.visits, round(c.value, 9)) for k, c in root.children.items()}

    assert tree(g) == tree(other)


def test_spec_loads_a_checkpoint_and_names_a_missing_one(cfg, random_net, tmp_path: Path
                                                        ) -> None:
    save_checkpoint(tmp_path / "net", random_net, cfg)
    ag = make_agent(f"alphaism:16:{tmp_path / 'net'}", 1)
    assert ag.simulations == 16 and ag.name == "alphaism:net"
    timed = make_agent(f"alphaism:0.05s:{tmp_path / 'net'}", 1)
    assert timed.simulations is None and timed.seconds == 0.05
    with pytest.raises(ValueError, match="no network checkpoint at .*absent"):
        make_agent(f"alphaism:16:{tmp_path / 'absent'}", 0)
    with pytest.raises(ValueError, match="SIMS must be"):
        make_agent(f"alphaism:lots:{tmp_path / 'net'}", 0)
    tuned = make_agent(f"alphaism:0.2s,fine=heuristic,mix=0.5,c=2,batch=2:{tmp_path / 'net'}",
                       1)
    assert (tuned.seconds, tuned.fine_by, tuned.rollout_mix, tuned.c, tuned.batch) == (
        0.2, "heuristic", 0.5, 2.0, 2)
    assert make_agent(f"alphaism:8,t=3:{tmp_path / 'net'}", 1).prior_temp == 3.0
    mixed = make_agent(f"alphaism:8,eps=0.25,sim=network:{tmp_path / 'net'}", 1)
    assert (mixed.prior_mix, mixed.sim_fine) == (0.25, "network")
    for bad, message in (("8,eps=2", r"eps must be a finite number in \[0, 1\]"),
                         ("8,sim=oracle", "sim must be one of fast, network"),
                         ("8,depth=3", "unknown setting"), ("8,mix=lots", "mix must be"),
                         ("8,mix=2", "mix must be"), ("8,fine=oracle", "fine must be one of"),
                         ("8,t=0", "t must be a finite number above 0"),
                         ("8,t=-1", "t must be")):
        with pytest.raises(ValueError, match=message):
            make_agent(f"alphaism:{bad}:{tmp_path / 'net'}", 0)


def test_time_budget_is_kept(random_net) -> None:
    import time

    g = action_round(3, "usa")
    ag = agent(random_net, simulations=None, seconds=0.05)
    t = time.perf_counter()
    ag.act(None, g.action_mask(), g)
    assert time.perf_counter() - t < 0.5


def test_prior_temperature_flattens_the_prior_and_keeps_its_order(random_net) -> None:
    """issue 35: the shipped policy's prior is so peaked that 64 simulations never leave
    its arg-max; a temperature above 1 flattens it (same order, higher entropy)."""
    logits = np.array([4.0, 0.0, -2.0, 9.0])
    legal = np.array([0, 1, 3])
    cold = agent(random_net)._priors(logits, legal)
    warm = agent(random_net, prior_temp=4.0)._priors(logits, legal)
    assert sorted(cold, key=cold.get) == sorted(warm, key=warm.get) == [1, 0, 3]
    assert warm[3] < cold[3] and warm[1] > cold[1]
    assert warm[3] == pytest.approx(np.exp(9 / 4) / sum(np.exp(np.array([4, 0, 9]) / 4)))
    assert sum(warm.values()) == pytest.approx(1.0)


def test_prior_mix_gives_every_legal_action_a_share(random_net) -> None:
    """eps: (1 - eps) P + eps / |legal|, so that a search over a peaked policy visits the
    alternatives (issue 35)."""
    logits = np.array([4.0, 0.0, -2.0, 30.0])
    legal = np.array([0, 1, 3])
    mixed = agent(random_net, prior_mix=0.3)._priors(logits, legal)
    assert mixed[1] == pytest.approx(0.1, rel=1e-3) and mixed[0] == pytest.approx(0.1, rel=1e-3)
    assert mixed[3] == pytest.approx(0.8, rel=1e-3) and sum(mixed.values()) == pytest.approx(1)


def test_the_network_can_take_the_fine_decisions_inside_simulations(cfg) -> None:
    """sim=network: inside a simulation each point of influence is the network's arg-max;
    with a policy that only wants one country, every simulated pick goes there."""
    g = action_round(3, "usa")
    net = build_network(cfg)
    ag = agent(net, sim_fine="network")
    played = play(ag, g.clone(), 12)
    assert len(played) == 12
    while g.decision.kind not in FINE_KINDS:  # the first point of influence to place
        g.step(int(np.flatnonzero(g.action_mask())[0]))
    legal = g.legal_actions()
    assert legal.size > 1
    for target in (int(legal[0]), int(legal[-1])):
        with torch.no_grad():
            net.policy.bias.zero_()
            net.policy.bias[target] = 50.0
        assert ag._fine_in_simulation(g) == target


@pytest.mark.parametrize("side", ["usa", "china"])
def test_the_network_can_play_the_opponent_inside_simulations(cfg, side) -> None:
    """opp=policy: the tree holds the searching side's decisions only; the opponent's,
    fine ones included, are the network's arg-max for the determinised hand, and every
    leaf is scored with the searching side to move (issue 35)."""
    g = action_round(2, side)
    net = build_network(cfg)
    ag = agent(net, simulations=60, opponent="policy")
    movers: set[str] = set()
    chosen: list[str] = []
    evaluate, choice = ag._evaluate, ag._network_choice

    def seen(leaves, me):
        movers.update(leaf.mover for leaf in leaves)
        return evaluate(leaves, me)

    def network_choice(game):
        chosen.append(game.current_player)
        return choice(game)

    ag._evaluate, ag._network_choice = seen, network_choice
    root = ag.search(g, ag._priors(np.zeros(g.num_actions), g.legal_actions()))
    assert movers == {side}
    opp = "china" if side == "usa" else "usa"
    assert set(chosen) == {opp}  # sim=fast: the network moves for the opponent only
    stack = list(root.children.values())
    assert stack
    while stack:
        node = stack.pop()
        assert node.player == side
        stack.extend(node.children.values())
    with pytest.raises(ValueError, match="opponent"):
        agent(net, opponent="sampled")


def halving_agent(net, **kw) -> AlphaISMCTSAgent:
    return agent(net, **{"root": "halving", "width": 4, "simulations": 16, **kw})


def test_halving_root_shares_its_worlds_and_halves_the_candidates(random_net) -> None:
    """root=halving (issue 35): the `width` likeliest actions; in each round every
    candidate left gets one simulation in each of the same fresh determinisations; the
    better half goes on, the network's choice always; the budget is spent."""
    g = action_round(3, "china")
    ag = halving_agent(random_net)
    draws: list[int] = []
    resample = g.resample_hidden
    ag.reseed(4)
    prior = ag._priors(np.arange(g.num_actions, dtype=float) % 7, g.legal_actions())
    top = sorted(prior, key=lambda a: -prior[a])[:4]
    g.resample_hidden = lambda side, rng: draws.append(1) or resample(side, rng)  # counted
    root = ag.search(g, prior)
    assert set(root.children) == set(top)
    visits = {a: root.children[a].visits for a in top}
    # 16 simulations over 4 candidates in 2 rounds: 2 worlds each, then 4 for the rest
    assert sum(visits.values()) == 16 and len(draws) == 2 + 4
    assert sorted(visits.values()) == [2, 2, 6, 6]
    assert visits[top[0]] == 6  # the network's choice is never dropped
    survivors = [a for a in top if visits[a] == 6]
    assert set(ag._alive) == set(survivors)
    means = {a: ag._mean(root, a) for a in top}
    dropped = [a for a in top if a not in survivors]
    first_round = {a: root.children[a].value for a in dropped}  # their two worlds only
    assert all(v / 2 == means[a] for a, v in first_round.items())


def test_halving_root_leaves_the_networks_choice_only_by_more_than_the_margin(
        random_net) -> None:
    g = action_round(3, "usa")
    ag = halving_agent(random_net)
    ag.reseed(1)
    root = ag.search(g, ag._priors(np.arange(g.num_actions, dtype=float) % 5,
                                   g.legal_actions()))
    base = ag._base
    other = next(a for a in ag._alive if a != base)
    for a in ag._alive:
        root.children[a].value = 0.5 * root.children[a].visits if a == other else 0.0
    for margin, expected in ((0.1, other), (0.49, other), (0.5, base), (0.7, base)):
        ag.margin = margin
        assert ag._halving_choice(root) == expected
    root.children[other].value = 0.0  # a tie keeps the network's choice
    ag.margin = 0.0
    assert ag._halving_choice(root) == base


def test_a_single_candidate_is_not_searched(random_net) -> None:
    g = action_round(3, "usa")
    ag = halving_agent(random_net, width=1)
    mask = g.action_mask()
    assert ag.act(None, mask, g) == int(np.flatnonzero(mask)[np.argmax(
        ag._forward([ag._encode(g, "usa")], [np.flatnonzero(mask)])[0][0][mask])])
    assert not ag.last_root.children


def test_playout_leaves_are_valued_by_the_play_outs(random_net) -> None:
    """playout=N: each leaf's value is its game's play-out result (PolicyRollouts, with
    N as the depth), for the searching side; playout=0 is the value head again."""
    g = action_round(2, "usa")
    ag = halving_agent(random_net, playout=25)
    calls: list[tuple[int, str, int | None]] = []

    def results(games, side, depth=None):
        calls.append((len(games), side, depth))
        assert all(not x.is_over for x in games)
        return np.full(len(games), 0.5)

    ag.rollouts.results = results
    root = ag.search(g, ag._priors(np.zeros(g.num_actions), g.legal_actions()))
    assert sum(n for n, _, _ in calls) == root.visits == 16
    assert {(side, depth) for _, side, depth in calls} == {("usa", 25)}
    assert root.value / root.visits == pytest.approx(0.5)

    def tree(**kw):
        ag = halving_agent(random_net, simulations=24, **kw)
        ag.reseed(2)
        root = ag.search(g, ag._priors(np.zeros(g.num_actions), g.legal_actions()))
        return {a: (c.visits, round(c.value, 4)) for a, c in root.children.items()}

    assert tree(playout=0) == tree()


def test_timed_halving_keeps_its_budget_and_runs_every_round(random_net) -> None:
    import time

    g = action_round(3, "usa")
    ag = halving_agent(random_net, simulations=None, seconds=0.3, playout=10)
    t = time.perf_counter()
    ag.act(None, g.action_mask(), g)
    assert time.perf_counter() - t < 1.5
    visits = sorted(c.visits for c in ag.last_root.children.values())
    assert len(visits) == 4 and visits[0] >= 1 and visits[-1] > visits[0]


def test_halving_and_playout_specs(cfg, random_net, tmp_path: Path) -> None:
    save_checkpoint(tmp_path / "net", random_net, cfg)
    ag = make_agent(f"alphaism:32,root=halving,width=6,margin=0.2,playout=40:"
                    f"{tmp_path / 'net'}", 1)
    assert (ag.simulations, ag.root, ag.width, ag.margin, ag.playout) == (
        32, "halving", 6, 0.2, 40)
    assert make_agent(f"alphaism:8:{tmp_path / 'net'}", 1).rollouts is None
    for bad, message in (("8,root=gumbel", "root must be one of puct, halving"),
                         ("8,width=0", "width must be a whole number"),
                         ("8,margin=-1", "margin must be a finite number >= 0"),
                         ("8,playout=-3", "playout must be a whole number")):
        with pytest.raises(ValueError, match=message):
            make_agent(f"alphaism:{bad}:{tmp_path / 'net'}", 0)
    for bad in ({"root": "gumbel"}, {"width": 0}, {"margin": -1.0}, {"playout": -3}):
        with pytest.raises(ValueError, match=f"{next(iter(bad))} must be"):
            AlphaISMCTSAgent(random_net, **bad)  # the Python API checks them too
