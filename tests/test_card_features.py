"""Networks that read cards by their data play edited decks (issue 34, docs/agents.md)."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from test_content_folders import make_overlay

from agents.card_transfer import ridge_loo, to_card_features
from agents.deck_carry import SCALED, carry_cards, carry_trunk, deck_scales, trunk_columns
from agents.learned_agent import DEFAULT_PATH, LearnedAgent
from agents.networks import (
    CARD_FIELDS,
    COUNTRY_FIELDS,
    CheckpointError,
    board_key,
    build_network,
    fresh_config,
    load_checkpoint,
    plays,
    save_checkpoint,
)
from evenstar_env import Game
from evenstar_env.content import load_content
from evenstar_env.env.card_features import card_features, feature_names
from evenstar_env.env.observation import observe


@pytest.fixture(scope="module")
def deck(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """NAFTA changed, Silicon Valley added, Dayton Agreement removed."""
    return make_overlay(tmp_path_factory.mktemp("deck") / "my_deck")


def positions(content, seeds=range(3), moves: int = 40) -> tuple[torch.Tensor, torch.Tensor]:
    """Observations and masks of positions reached by random play."""
    obs, masks = [], []
    for s in seeds:
        g, rng = Game(s, content=content), np.random.default_rng(s)
        for _ in range(moves):
            if g.is_over:
                break
            obs.append(observe(g, g.current_player))
            masks.append(g.action_mask())
            g.step(int(rng.choice(np.flatnonzero(g.action_mask()))))
    return torch.tensor(np.stack(obs)), torch.tensor(np.stack(masks))


def test_a_cards_features_depend_on_its_own_entry_only(deck: Path) -> None:
    shipped, edited = load_content(), load_content(deck)
    a, b = card_features(shipped), card_features(edited)
    assert a.shape[1] == b.shape[1] == len(feature_names(shipped))
    at = {c.id: i for i, c in enumerate(shipped.cards)}
    ops = feature_names(shipped).index("ops")
    for j, card in enumerate(edited.cards):
        if card.id == "nafta":  # 3 ops -> 2, another event
            assert b[j, ops] == 0.5 and a[at["nafta"], ops] == 0.75
        elif card.id in at:
            assert np.array_equal(b[j], a[at[card.id]]), card.id
    assert np.isfinite(a).all() and (a[:, 0] == 1).all()


def test_ridge_recovers_a_linear_map_and_scores_noise_low() -> None:
    rng = np.random.default_rng(0)
    x = np.c_[np.ones(200), rng.normal(size=(200, 6))]
    w = rng.normal(size=(7, 3))
    fit, lam, r2 = ridge_loo(x, x @ w, penalties=(1e-6, 1.0))
    assert lam == 1e-6 and r2 > 0.999 and np.allclose(fit, w, atol=1e-4)
    _, _, r2 = ridge_loo(x, rng.normal(size=(200, 3)))
    assert r2 < 0.1


def tiny(card_features_on: bool = False):
    cfg = fresh_config("structured", (16,), 4)
    if card_features_on:
        cfg = type(cfg)(**{**cfg.__dict__, "options": {**cfg.options, "card_features": True}})
    torch.manual_seed(1)
    net = build_network(cfg)
    with torch.no_grad():  # non-zero correction heads, so that every term counts
        for p in net.parameters():
            p.add_(0.05 * torch.randn_like(p))
    return net.eval(), cfg


def test_conversion_computes_what_the_index_network_computed(tmp_path: Path) -> None:
    net, cfg = tiny()
    out, new_cfg, report = to_card_features(net, cfg, load_content())
    assert new_cfg.options["card_features"] and report["cards"] == load_content().nc
    obs, mask = positions(load_content())
    with torch.no_grad():
        for n in (net, out):
            n.native = False
        (la, va), (lb, vb) = net(obs, mask), out(obs, mask)
        assert torch.allclose(la, lb, atol=1e-5) and torch.allclose(va, vb, atol=1e-6)
        out.native = True  # the fused kernels and the native forward pass agree too
        lc, vc = out(obs[:8], mask[:8])
        assert torch.allclose(la[:8], lc, atol=1e-4) and torch.allclose(va[:8], vc, atol=1e-5)
    with pytest.raises(CheckpointError, match="by index converts"):
        to_card_features(out, new_cfg, load_content())


def test_a_card_features_network_moves_to_an_edited_deck(tmp_path: Path, deck: Path) -> None:
    net, cfg = tiny(card_features_on=True)
    save_checkpoint(tmp_path / "ck", net, cfg)
    edited = load_content(deck)
    assert board_key(edited) == board_key(load_content()) and plays(tmp_path / "ck", edited)
    moved, mcfg, _ = load_checkpoint(tmp_path / "ck", edited)
    assert mcfg.n_actions == cfg.n_actions and mcfg.content != cfg.content
    old = {c.id: i for i, c in enumerate(load_content().cards)}
    for j, card in enumerate(edited.cards):
        i = old.get(card.id)
        if i is None:  # new: its terms come from its data alone
            assert card.id == "silicon_valley"
            assert not moved.card_id.weight[j].any() and not moved.policy.weight[j].any()
        else:
            assert torch.equal(moved.card_id.weight[j], net.card_id.weight[i])
            assert torch.equal(moved.policy.weight[j], net.policy.weight[i])
    assert torch.equal(moved.policy.weight[edited.nc:], net.policy.weight[load_content().nc:])
    obs, mask = positions(edited, seeds=[5], moves=30)
    with torch.no_grad():
        logits, value = moved(obs, mask)
    assert torch.isfinite(value).all() and bool(mask[torch.arange(len(mask)),
                                                     logits.argmax(1)].all())


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_carrying_moves_rows_by_card_id(data: st.DataObject) -> None:
    trained = [f"c{i}" for i in range(data.draw(st.integers(1, 8)))]
    kept = data.draw(st.permutations(trained))[:data.draw(st.integers(0, len(trained)))]
    new = [f"n{i}" for i in range(data.draw(st.integers(0, 3)))]
    deck = data.draw(st.permutations(kept + new))
    if not deck:
        return
    n, rest = len(trained), 3
    state = {"card_id.weight": torch.randn(n, 4), "policy.weight": torch.randn(n + rest, 5),
             "policy.bias": torch.randn(n + rest)}
    content = SimpleNamespace(cards=[SimpleNamespace(id=x) for x in deck])
    out = carry_cards(state, trained, content)
    for j, cid in enumerate(deck):
        for key in state:
            row = out[key][j]
            assert torch.equal(row, state[key][trained.index(cid)]) if cid in trained \
                else not row.any()
    for key in ("policy.weight", "policy.bias"):
        assert torch.equal(out[key][len(deck):], state[key][n:])


def test_a_network_reading_cards_by_index_refuses_another_deck(tmp_path: Path,
                                                                deck: Path) -> None:
    net, cfg = tiny()
    save_checkpoint(tmp_path / "ck", net, cfg)
    assert not plays(tmp_path / "ck", load_content(deck))
    with pytest.raises(CheckpointError, match="read by index.*scripts/card_features.py"):
        load_checkpoint(tmp_path / "ck", load_content(deck))
    agent = LearnedAgent(tmp_path / "ck")
    g = Game(0, content=deck)
    with pytest.raises(ValueError, match="LearnedAgent cannot play .*read by index"):
        agent.act(None, g.action_mask(), g)


def test_a_checkpoint_of_another_board_or_with_bad_cards_is_refused(tmp_path: Path,
                                                                    deck: Path) -> None:
    net, cfg = tiny(card_features_on=True)
    save_checkpoint(tmp_path / "ck", net, cfg)
    doc = json.loads((tmp_path / "ck" / "config.json").read_text())
    for change, why in ((("board", "0" * 16), "board differs"),
                        (("cards", ["x"] * len(doc["cards"])), "distinct card ids"),
                        (("cards", "nafta"), "distinct card ids"),
                        (("scales", {"max_points": 6}), "'scales' must hold"),
                        (("scales", {**doc["scales"], "max_cap": -1}), "'scales' must hold")):
        (tmp_path / "ck" / "config.json").write_text(json.dumps({**doc, change[0]: change[1]}))
        with pytest.raises(CheckpointError, match=why):
            load_checkpoint(tmp_path / "ck", load_content(deck))


FIVE_NEW = Path(__file__).resolve().parent.parent / "docs" / "examples" / "five_new"


def test_the_trunk_reads_every_known_input_as_in_training() -> None:
    """five_new brings an option effect no shipped option has (an economy track of the
    US): that column reads with zero weight, every other is moved by name and rescaled,
    so the first layer computes the same on the inputs the network knew."""
    old_c, new_c = load_content(), load_content(FIVE_NEW)
    old, new = deck_scales(old_c), deck_scales(new_c)
    assert set(new["option_features"]) - set(old["option_features"]) == {"track_economy_usa"}
    tokens = {*COUNTRY_FIELDS, *CARD_FIELDS, "option_places"}
    oc, nc = trunk_columns(old_c, old["option_features"], tokens), \
        trunk_columns(new_c, new["option_features"], tokens)
    assert oc == trunk_columns(new_c, old["option_features"], tokens)  # the same board
    rng = np.random.default_rng(0)
    w = torch.tensor(rng.normal(size=(5, len(oc) + 3)))
    doubled = {**new, "max_points": 2 * new["max_points"],
               "option_scale": [2 * x for x in new["option_scale"]]}
    for scales in (new, doubled):
        wn = carry_trunk(w, oc, nc, old, scales)
        x_new = torch.tensor(rng.normal(size=len(nc)))
        x_new[[i for i, c in enumerate(nc) if c[0] == "option_effects"
               and c[1][1] == "track_economy_usa"]] = 0.0  # an input the network never saw
        at = {c: i for i, c in enumerate(nc)}
        x_old = torch.zeros(len(oc), dtype=torch.float64)
        for i, (name, off) in enumerate(oc):
            mult = (scales[SCALED[name]] / old[SCALED[name]] if name in SCALED
                    else scales["option_scale"][scales["option_features"].index(off[1])]
                    / old["option_scale"][old["option_features"].index(off[1])]
                    if name == "option_effects" else 1.0)
            x_old[i] = x_new[at[(name, off)]] * mult
        pooled = torch.tensor(rng.normal(size=3))
        assert torch.allclose(wn @ torch.cat([x_new, pooled]), w @ torch.cat([x_old, pooled]))


@pytest.mark.parametrize("which", ["my_deck", "five_new"])
def test_the_shipped_policy_plays_an_edited_deck_to_the_end(deck: Path, which: str) -> None:
    """Its cards are read by their data: a new card, a changed one and a removed one
    (my_deck); five new cards, one with a new kind of option (five_new)."""
    from agents.specs import make_agent

    agent = make_agent("learned", 0)
    assert agent.net.card_features
    deck = deck if which == "my_deck" else FIVE_NEW
    g = Game(2, content=deck)
    while not g.is_over:
        a = agent.act(None, g.action_mask(), g)
        assert g.action_mask()[a]
        g.step(a)
    assert g.is_over and agent.nets.for_game(g) is not agent.net
    assert plays(DEFAULT_PATH, load_content(deck))


def test_training_fine_tunes_a_card_features_network_for_a_new_deck(tmp_path: Path,
                                                                      deck: Path) -> None:
    """`make train-deck`'s steps in small (experiments/train.py and war_risk_tune.py take
    --content): the run starts from the init carried to the deck and saves for the deck."""
    from experiments import train, war_risk_tune

    net, cfg = tiny(card_features_on=True)
    save_checkpoint(tmp_path / "init", net, cfg)
    train.main(["--smoke", "--runs-dir", str(tmp_path), "--init", str(tmp_path / "init"),
                "--content", str(deck)])
    latest = tmp_path / "smoke" / "checkpoints" / "latest"
    edited = load_content(deck)
    doc = json.loads((latest / "config.json").read_text())
    assert doc["cards"] == [c.id for c in edited.cards] and doc["net"]["options"][
        "card_features"]
    tuned, _, _ = load_checkpoint(latest, edited)
    new = [c.id for c in edited.cards].index("silicon_valley")
    assert tuned.card_id.weight[new].any()  # the new card's residual was learned
    war_risk_tune.main(["--smoke", "--init", str(latest), "--content", str(deck), "--out",
                        str(tmp_path / "wr")])
    assert load_checkpoint(tmp_path / "wr" / "checkpoint", edited)[1].content == \
        load_checkpoint(latest, edited)[1].content


def test_the_ppo_agent_reads_cards_by_index_and_refuses_an_edited_deck(deck: Path) -> None:
    """The SB3 policy's layer reads every card by its place: on a deck of the same size
    with a card swapped it would misread silently, so it stops with one clear error."""
    from agents.specs import make_agent

    agent = make_agent("ppo", 0)
    g = Game(0)
    assert g.action_mask()[agent.act(None, g.action_mask(), g)]
    g = Game(0, content=deck)
    assert g.content.nc == load_content().nc  # one card in, one out: the same size
    with pytest.raises(ValueError, match="PPOAgent .* reads cards by index"):
        agent.act(None, g.action_mask(), g)


def test_the_vector_env_plays_the_shipped_network_as_opponent_on_an_edited_deck() -> None:
    """`opponent="learned"` is one batch policy for the env's content (five new cards)."""
    from evenstar_env.engine.actions import ActionSpace
    from evenstar_env.env.observation import encoder_for
    from evenstar_env.vector import EvenstarVectorEnv

    c = load_content(FIVE_NEW)
    envs = EvenstarVectorEnv(num_envs=4, opponent="learned", content=FIVE_NEW)
    obs, info = envs.reset(seed=3)
    assert obs.shape == (4, encoder_for(c).size)
    assert envs.batch_opponent.config.n_actions == ActionSpace.for_content(c).n
    rng = np.random.default_rng(0)
    for _ in range(30):
        acts = [int(rng.choice(np.flatnonzero(m))) for m in info["action_mask"]]
        obs, reward, terminated, truncated, info = envs.step(acts)
    assert envs.opponent_calls > 0
