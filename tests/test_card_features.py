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

from agents.card_transfer import ridge_loo, to_card_features
from agents.learned_agent import DEFAULT_PATH, LearnedAgent
from agents.networks import (
    CheckpointError,
    board_key,
    build_network,
    carry_cards,
    fresh_config,
    load_checkpoint,
    plays,
    save_checkpoint,
)
from evenstar_env import Game
from evenstar_env.content import load_content
from evenstar_env.env.card_features import card_features, feature_names
from evenstar_env.env.observation import observe
from tests.test_content_folders import make_overlay


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
    out = carry_cards(state, trained, content, Path("ck"))
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
                        (("cards", "nafta"), "distinct card ids")):
        (tmp_path / "ck" / "config.json").write_text(json.dumps({**doc, change[0]: change[1]}))
        with pytest.raises(CheckpointError, match=why):
            load_checkpoint(tmp_path / "ck", load_content(deck))


def test_the_shipped_policy_plays_an_edited_deck_to_the_end(deck: Path) -> None:
    """Its cards are read by their data: a new card, a changed one and a removed one."""
    from agents.specs import make_agent

    agent = make_agent("learned", 0)
    assert agent.net.card_features
    g = Game(2, content=deck)
    while not g.is_over:
        a = agent.act(None, g.action_mask(), g)
        assert g.action_mask()[a]
        g.step(a)
    assert g.is_over and agent.nets.for_game(g) is not agent.net
    assert plays(DEFAULT_PATH, load_content(deck))
