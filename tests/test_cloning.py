"""Behaviour cloning of the heuristic and DAgger (experiments/cloning.py), the warm start
of training; and the SB3 path's use of the same data (experiments/train_selfplay.py)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest
import torch

from agents import HeuristicAgent, RandomAgent
from agents.networks import NetConfig, build_network, load_checkpoint
from evenstar_env import Game
from evenstar_env.env.observation import observe
from experiments.cloning import (
    CloningConfig,
    Labelled,
    LabellingHeuristic,
    Rows,
    fit,
    load_records,
    main,
    play_record,
    replay_rows,
    run,
    save_records,
)

CAP = 150  # decisions per test game: enough for headlines, cards, modes, placements


@pytest.fixture(scope="module")
def records():
    return [play_record((seed, usa, china, None, CAP)) for seed, usa, china in
            ((1, "heuristic", "heuristic"), (2, "noisy", "heuristic"), (3, "heuristic", "fast"))]


def test_heuristic_labels_are_what_the_heuristic_plays(records) -> None:
    """The labelling heuristic plays exactly as HeuristicAgent with the same seeds, and its
    label is the action it took; its tied best actions include that action."""
    rec = records[0]
    g = Game(rec.seed)
    plain = {"usa": HeuristicAgent(2 * rec.seed), "china": HeuristicAgent(2 * rec.seed + 1)}
    for a in rec.actions.tolist():
        assert plain[g.current_player].act(None, g.action_mask(), g) == a
        g.step(a)
    assert np.array_equal(rec.labels, rec.actions)
    assert rec.ties and all(rec.actions[i] in best for i, best in rec.ties.items())


def test_labelled_player_records_the_heuristics_choice() -> None:
    """Whoever plays, the label is what a fresh heuristic with the same seed would do."""
    for seed in (4, 5):
        g = Game(seed)
        for _ in range(3):  # headlines and the first card of the turn
            g.step(int(RandomAgent(seed).act(None, g.action_mask(), g)))
        want = HeuristicAgent(7).act(None, g.action_mask(), g.clone())
        player = Labelled(LabellingHeuristic(7), player=RandomAgent(seed))
        a = player.act(None, g.action_mask(), g)
        assert player.label == want and g.action_mask()[a]


def test_noisy_and_fast_games_label_only_heuristic_decisions(records) -> None:
    noisy, fast = records[1], records[2]
    assert (noisy.labels >= 0).all()  # both sides are heuristics, one with noise
    assert (noisy.labels != noisy.actions).any()  # the noise did move off the label
    g, fast_side = Game(fast.seed), 1
    for a, label in zip(fast.actions.tolist(), fast.labels.tolist(), strict=True):
        by_fast = g.current_player == "china" and fast.agents[fast_side] == "fast"
        assert (label < 0) == by_fast and (by_fast or label == a)
        g.step(a)


@pytest.mark.parametrize("content", [b"junk", "pickle", "other-npz"])
def test_a_file_that_is_not_records_is_refused_in_one_line(content, tmp_path, capsys) -> None:
    path = tmp_path / "bad.npz"
    if content == "pickle":
        np.savez(path, seed=np.array([object()], dtype=object))
    elif content == "other-npz":
        np.savez(path, seed=np.arange(3))
    else:
        path.write_bytes(content)
    with pytest.raises(SystemExit) as e:
        main(["--data", str(path), "--out", str(tmp_path / "out")])
    assert "not a records file" in str(e.value) and str(path) in str(e.value)
    assert not (tmp_path / "out" / "config.json").exists()


def test_records_round_trip_to_the_same_observations(records, tmp_path) -> None:
    save_records(tmp_path / "r.npz", records)
    back = load_records(tmp_path / "r.npz")
    for a, b in zip(records, back, strict=True):
        assert (a.seed, a.agents, a.winner, a.ties) == (b.seed, b.agents, b.winner, b.ties)
        assert np.array_equal(a.actions, b.actions) and np.array_equal(a.labels, b.labels)
    rows = replay_rows(back[:1])
    # The observations the mover saw while the game was played, decision by decision.
    g, seen = Game(records[0].seed), []
    for a in records[0].actions.tolist():
        if g.action_mask().sum() >= 2:
            seen.append(observe(g, g.current_player))
        g.step(a)
    assert np.array_equal(rows.obs.toarray(), np.asarray(seen))
    assert rows.masks[np.arange(len(rows)), rows.labels].all()
    assert np.allclose(rows.targets.sum(1), 1.0)
    assert len(replay_rows(back[2:])) < int((back[2].labels >= 0).sum()) + 1


def test_smoke_bc_lowers_the_loss(records) -> None:
    import torch

    torch.manual_seed(0)
    rows = replay_rows(records)
    net = build_network(NetConfig.for_content(hidden=(64,)))
    hist = fit(net, rows, rows.take(np.arange(50)), epochs=4, lr=3e-3, batch_size=64, log=None)
    assert hist[-1]["train"]["cross_entropy"] < hist[0]["train"]["cross_entropy"] - 0.1
    assert hist[-1]["train"]["agreement"] > hist[0]["train"]["agreement"]
    assert set(hist[-1]["held_out"]["per_kind"]) >= {"card", "place"}


def test_smoke_run_writes_a_checkpoint_and_dagger_adds_heuristic_labels(tmp_path) -> None:
    cfg = CloningConfig.smoke(str(tmp_path / "run"))
    facts = run(cfg, log=None)
    net, net_cfg, extra = load_checkpoint(tmp_path / "run")
    assert net_cfg.kind == "mlp" and extra["cloning"]["dagger_rounds"] == 1
    saved = json.loads((tmp_path / "run" / "cloning.json").read_text())
    assert "per_kind" in saved["bc"][-1]["held_out"]
    assert facts["dagger"][0]["new_rows"] > 0
    new = load_records(tmp_path / "run" / "dagger1.npz")
    assert {"net"} <= {a for r in new for a in r.agents}
    for r in new:  # every decision of the net with a choice was labelled by the heuristic
        g = Game(r.seed)
        for a, label in zip(r.actions.tolist(), r.labels.tolist(), strict=True):
            if g.action_mask().sum() >= 2:
                assert label >= 0 and g.action_mask()[label]
            g.step(a)
    assert len(Rows.concat([replay_rows(new[:1]), replay_rows(new[1:])])) == \
        facts["dagger"][0]["new_rows"]


def test_sb3_pretraining_raises_agreement_with_the_heuristic(records) -> None:
    import torch
    from sb3_contrib import MaskablePPO

    from evenstar_env.wrappers import SingleAgentEnv
    from experiments.train_selfplay import agreement, pretrain

    torch.manual_seed(0)
    model = MaskablePPO("MlpPolicy", SingleAgentEnv(), device="cpu", seed=0,
                        policy_kwargs={"net_arch": [64, 64]})
    rows = replay_rows(records)
    before = agreement(model.policy, rows)
    history = pretrain(model.policy, rows, rows.take(np.arange(40)), epochs=6, lr=3e-3)
    assert [row["epoch"] for row in history] == list(range(1, 7))
    assert history[-1]["cross_entropy"] < history[0]["cross_entropy"]
    assert history[-1]["agreement"] > before + 0.1


def test_warm_start_logs_and_seeds_the_opponent_pool(tmp_path: Path) -> None:
    from sb3_contrib import MaskablePPO

    from evenstar_env.wrappers import SingleAgentEnv
    from experiments.train_selfplay import TrainConfig, warm_start

    cfg = TrainConfig.smoke(str(tmp_path))
    (tmp_path / "snapshots").mkdir()
    (tmp_path / "checkpoints").mkdir()
    model = MaskablePPO("MlpPolicy", SingleAgentEnv(), device="cpu", seed=0,
                        policy_kwargs={"net_arch": cfg.net_arch})
    warm_start(model.policy, cfg, tmp_path, progress=False)
    rows = list(csv.DictReader((tmp_path / "bc.csv").open()))
    assert len(rows) == cfg.bc_epochs and int(rows[0]["examples"]) > 0
    assert (tmp_path / "snapshots" / "snapshot_000000000.pt").exists()
    assert (tmp_path / "checkpoints" / "bc_policy.json").exists()


def test_init_continues_from_a_checkpoint(tmp_path) -> None:
    """--init starts from the given checkpoint's weights and sizes (not a fresh --net):
    with no epoch's worth of change (lr tiny) the result stays that network."""
    first = CloningConfig.smoke(str(tmp_path / "a"))
    first.dagger = 0
    run(first, log=None)
    again = CloningConfig.smoke(str(tmp_path / "b"))
    again.dagger, again.hidden, again.lr = 0, (8,), 1e-12
    again.init, again.data = str(tmp_path / "a"), str(tmp_path / "a" / "data.npz")
    run(again, log=None)
    (a, a_cfg, _), (b, b_cfg, _) = load_checkpoint(tmp_path / "a"), load_checkpoint(tmp_path / "b")
    assert b_cfg.hidden == a_cfg.hidden == (64,)
    for (name, x), y in zip(a.state_dict().items(), b.state_dict().values(), strict=True):
        assert torch.allclose(x, y, atol=1e-6), name


def test_missing_records_and_bad_counts_end_in_one_line(tmp_path) -> None:
    from experiments import cloning

    with pytest.raises(SystemExit, match="no such records file"):
        cloning.main(["--data", str(tmp_path / "absent.npz"), "--out", str(tmp_path / "o")])
    with pytest.raises(SystemExit, match="--init .*no network checkpoint"):
        cloning.main(["--init", str(tmp_path / "absent"), "--out", str(tmp_path / "o")])
    with pytest.raises(SystemExit, match="--games must be at least 1"):
        cloning.main(["--games", "0", "--out", str(tmp_path / "o")])
    with pytest.raises(SystemExit, match="--token must be at least 1"):
        cloning.main(["--token", "0", "--net", "structured", "--out", str(tmp_path / "o")])


def test_token_sets_the_structured_networks_width(tmp_path) -> None:
    from experiments import cloning

    cloning.main(["--smoke", "--net", "structured", "--token", "4", "--out", str(tmp_path)])
    net, cfg, _ = load_checkpoint(tmp_path)
    assert cfg.kind == "structured" and cfg.options == {"token": 4}
    assert net.country_id.weight.shape[1] == 4
