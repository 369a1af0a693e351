"""Re-exporting a policy for a new observation layout (scripts/reexport_policy.py, issue 16)."""

from __future__ import annotations

import dataclasses
import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest
import torch

from agents import CautiousRandomAgent
from agents.policy_layout import layout_of, legacy_layout, old_observation
from agents.ppo_agent import SHIPPED_POLICY, PolicyFileError, PPOAgent
from evenstar_env import Game
from evenstar_env.content import fingerprint, load_content
from evenstar_env.env.observation import encoder_for

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("reexport", ROOT / "scripts" / "reexport_policy.py")
reexport_policy = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(reexport_policy)


def old_policy(tmp_path: Path, hidden: int = 16) -> tuple[Path, torch.nn.Module]:
    """A random policy of the 2,249-wide layout (config without a layout, as shipped then)."""
    torch.manual_seed(0)
    body = torch.nn.Sequential(torch.nn.Linear(2249, hidden), torch.nn.Tanh())
    head = torch.nn.Linear(hidden, Game(0).num_actions)
    with torch.no_grad():
        body[0].bias.normal_()
    state = {f"mlp_extractor.policy_net.{k}": v for k, v in body.state_dict().items()}
    state |= {f"action_net.{k}": v for k, v in head.state_dict().items()}
    path = tmp_path / "old"
    torch.save(state, path.with_suffix(".pt"))
    path.with_suffix(".json").write_text(json.dumps({
        "format": "evenstar-policy-v1", "obs_size": 2249, "n_actions": head.out_features,
        "hidden": [hidden], "activation": "tanh", "content": fingerprint(load_content())}))
    return path, torch.nn.Sequential(body, head)


def test_reexported_policy_computes_the_old_logits(tmp_path: Path) -> None:
    """On game positions, the re-exported policy on the new observation gives the old
    policy's logits on the old observation (kept fields copied, constants folded)."""
    src, old_net = old_policy(tmp_path)
    grown = frozenset({"decision_kind"})  # R25 appended ai_event and ai_action
    report = reexport_policy.reexport(src, tmp_path / "new", grown=grown)
    assert sorted(report["folded"]) == ["adjacent_china", "adjacent_usa", "battleground",
                                        "stability"]
    assert report["dropped"] == [] and "decision_chosen" in report["new"]
    new = PPOAgent(tmp_path / "new")  # loads: the config names the current layout
    enc = encoder_for(load_content())
    config = json.loads((tmp_path / "new.json").read_text())
    assert config["layout"] == layout_of(enc) and config["obs_size"] == enc.size
    old, now = legacy_layout(2249), layout_of(enc)
    g, agent = Game(1), CautiousRandomAgent(1)
    checked = 0
    while not g.is_over and checked < 300:
        v = enc.encode(g._m, 0 if g.current_player == "usa" else 1)
        before = old_observation(v, old, now, enc.static_features, grown)
        assert before.shape == (2249,)
        with torch.no_grad():
            want = old_net(torch.as_tensor(before)[None])[0].numpy()
            got = new.head(new.body(torch.as_tensor(v)[None]))[0].numpy()
        np.testing.assert_allclose(got, want, atol=1e-5)
        g.step(agent.act(None, g.action_mask(), g))
        checked += 1
    assert checked == 300


def test_new_fields_do_not_move_the_reexported_policy(tmp_path: Path) -> None:
    """New fields get zero columns: changing only them leaves the logits as they were."""
    src, _ = old_policy(tmp_path)
    reexport_policy.reexport(src, tmp_path / "new")
    new = PPOAgent(tmp_path / "new")
    enc = encoder_for(load_content())
    v = enc.encode(Game(2)._m, 0)
    w = v.copy()
    w[enc.layout["decision_chosen"]] = 1.0
    w[enc.layout["option_effects"]] = 0.5
    with torch.no_grad():
        a, b = (new.head(new.body(torch.as_tensor(x)[None]))[0].numpy() for x in (v, w))
    np.testing.assert_array_equal(a, b)


def test_policy_of_another_layout_is_refused_with_the_way_out(tmp_path: Path) -> None:
    config = json.loads(SHIPPED_POLICY.with_suffix(".json").read_text())
    layout = dict(config["layout"])
    first, second = list(layout)[:2]
    layout[first], layout[second] = layout[second], layout[first]  # same size, other order
    (tmp_path / "p.json").write_text(json.dumps({**config, "layout": layout}))
    with pytest.raises(PolicyFileError, match="reexport_policy"):
        PPOAgent(tmp_path / "p")


def test_shipped_policy_names_the_current_layout() -> None:
    config = json.loads(SHIPPED_POLICY.with_suffix(".json").read_text())
    assert config["layout"] == layout_of(encoder_for(load_content()))
    PPOAgent(SHIPPED_POLICY)


def test_a_grown_field_keeps_its_old_entries_and_zeroes_the_appended_ones() -> None:
    """New decision kinds are appended to `decision_kind` (R25 added ai_event, ai_action):
    `--grown decision_kind` keeps the old kinds' columns; without it the field is dropped."""
    from agents.policy_layout import remap_first_layer

    old = {"a": [0, 2], "kind": [2, 3]}
    new = {"kind": [0, 5], "a": [5, 2]}
    weight = np.arange(10, dtype=np.float32).reshape(2, 5) + 1
    bias = np.zeros(2, dtype=np.float32)
    w, _, report = remap_first_layer(weight, bias, old, new, {}, frozenset({"kind"}))
    assert report["copied"] == ["a", "kind"] and report["dropped"] == []
    np.testing.assert_array_equal(w[:, 0:3], weight[:, 2:5])
    np.testing.assert_array_equal(w[:, 3:5], 0)
    np.testing.assert_array_equal(w[:, 5:7], weight[:, 0:2])
    _, _, plain = remap_first_layer(weight, bias, old, new, {})
    assert plain["dropped"] == ["kind"]
    obs = np.arange(7, dtype=np.float32)
    np.testing.assert_array_equal(old_observation(obs, old, new, {}, frozenset({"kind"})),
                                  [5, 6, 0, 1, 2])


def test_a_checkpoint_folder_keeps_its_logits_and_ignores_the_new_fields(tmp_path: Path) -> None:
    """An MLP folder of agents/networks.py made for the 3,039-wide layout (before the
    scoring flags): re-exported, it loads, gives the old logits on the old fields, and the
    appended fields (zero columns) move nothing."""
    from agents.networks import NetConfig, build_network, load_checkpoint, save_checkpoint

    c = load_content()
    old = legacy_layout(3039)
    cfg = dataclasses.replace(NetConfig.for_content(c, hidden=(8,)), obs_size=3039)
    torch.manual_seed(1)
    old_net = build_network(cfg, c)
    save_checkpoint(tmp_path / "old", old_net, cfg)
    report = reexport_policy.reexport(tmp_path / "old", tmp_path / "new")
    assert report["new"] == ["scoring_held", "scoring_due"] and report["dropped"] == []
    net, _, _ = load_checkpoint(tmp_path / "new", c)
    enc = encoder_for(c)
    v = enc.encode(Game(3)._m, 1)
    before = old_observation(v, old, layout_of(enc), enc.static_features)
    w = v.copy()
    w[enc.layout["scoring_held"]], w[enc.layout["scoring_due"]] = 0.75, 1.0
    with torch.no_grad():
        want = old_net(torch.as_tensor(before)[None])[0][0].numpy()
        got, moved = (net(torch.as_tensor(x)[None])[0][0].numpy() for x in (v, w))
    np.testing.assert_allclose(got, want, atol=1e-5)
    np.testing.assert_array_equal(got, moved)
