"""Expert iteration (issue 35): the search's visit shares and the game's result as the
network's targets (experiments/expert_iteration.py)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest
import torch
from helpers import action_round, sigkill_when

from agents.alphaism import AlphaISMCTSAgent
from agents.ismcts import FINE_KINDS
from agents.networks import NetConfig, build_network, load_checkpoint, save_checkpoint
from evenstar_env.content import load_content
from experiments import expert_iteration as ex


@pytest.fixture(scope="module")
def net_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    cfg = NetConfig.for_content(hidden=(16,))
    torch.manual_seed(0)
    net = build_network(cfg)
    with torch.no_grad():
        net.policy.weight.normal_(0, 0.5)
    path = tmp_path_factory.mktemp("net") / "ck"
    save_checkpoint(path, net, cfg)
    return path


def test_visit_shares_are_the_roots_visits_over_the_legal_actions(net_path: Path) -> None:
    ag = AlphaISMCTSAgent.from_checkpoint(net_path, simulations=24, prior_mix=0.5, seed=1)
    g = action_round(3, "usa")
    legal = g.legal_actions()
    a = ag.act(None, g.action_mask(), g)
    shares = ag.visit_shares(legal)
    visits = [ag.last_root.children[x].visits if x in ag.last_root.children else 0
              for x in legal.tolist()]
    assert shares is not None and shares.sum() == pytest.approx(1.0) and (shares >= 0).all()
    assert np.allclose(shares * sum(visits), visits)
    assert shares[legal.tolist().index(a)] == shares.max()  # the most visited is played
    g.step(a)
    while g.decision.kind not in FINE_KINDS:  # a point of influence: not searched
        g.step(int(np.flatnonzero(g.action_mask())[0]))
    ag.act(None, g.action_mask(), g)
    assert ag.visit_shares(g.legal_actions()) is None


def test_a_halving_roots_target_is_gumbels_improved_policy(net_path: Path) -> None:
    """root=halving: the target is softmax(log prior + (50 + max N) * 0.1 * q), q the mean
    value on [0, 1] of a visited action and, for an unvisited one, the prior-weighted mean
    of the visited ones; a better result raises an action's share."""
    ag = AlphaISMCTSAgent.from_checkpoint(net_path, simulations=16, root="halving", width=4,
                                          seed=2)
    g = action_round(3, "usa")
    legal = g.legal_actions()
    ag.act(None, g.action_mask(), g)
    root = ag.last_root
    target = ag.visit_shares(legal)
    assert target is not None and target.sum() == pytest.approx(1.0) and (target > 0).all()
    prior = np.array([root.prior[a] for a in legal.tolist()])
    n = {a: c.visits for a, c in root.children.items()}
    q = {a: (root.children[a].value / n[a] + 1) / 2 for a in n}
    fill = sum(root.prior[a] * q[a] for a in n) / sum(root.prior[a] for a in n)
    z = np.log(prior) + (50 + max(n.values())) * 0.1 * np.array(
        [q.get(a, fill) for a in legal.tolist()])
    assert target == pytest.approx(np.exp(z) / np.exp(z).sum())
    unvisited = [i for i, a in enumerate(legal.tolist()) if a not in n]
    assert unvisited and np.allclose(target[unvisited] / prior[unvisited],
                                     target[unvisited[0]] / prior[unvisited[0]])
    a = next(iter(n))
    i = legal.tolist().index(a)
    root.children[a].value += n[a]  # its mean up by 1: a larger share
    assert ag.visit_shares(legal)[i] > target[i]


def test_the_search_rounds_can_use_the_halving_root(net_path: Path, tmp_path: Path) -> None:
    """--root halving --playout N: the search's games give full improved-policy targets."""
    cfg = ex.ExitConfig(init=str(net_path), out=str(tmp_path / "h"), games=1, sims=8,
                        workers=1, epochs=1, minibatch=16, root="halving", playout=4, eps=0)
    rows = ex.search_rows(cfg, net_path, [11])
    assert len(rows) > 10
    finite = np.isfinite(rows.target)
    assert (finite == rows.mask).all()  # every legal action has a share
    assert np.exp(np.where(finite, rows.target, -np.inf)).sum(1) == pytest.approx(1.0)
    with pytest.raises(ValueError, match="--root must be"):
        ex.ExitConfig(root="gumbel").check()


def test_share_target_is_a_log_distribution_on_the_visited_actions() -> None:
    legal = np.array([2, 5, 7])
    t = ex.share_target(np.array([0.75, 0.0, 0.25]), legal, 9)
    assert np.isneginf(t[[0, 1, 3, 4, 5, 6, 8]]).all()
    assert np.exp(t[[2, 7]]) == pytest.approx([0.75, 0.25])
    rows = ex.Rows(np.zeros((1, 1), np.float32), np.ones((1, 9), bool), t[None],
                   np.zeros(1, np.float32), np.ones(1, bool))
    assert ex.target_entropy(rows) == pytest.approx(-(0.75 * np.log(0.75)
                                                     + 0.25 * np.log(0.25)))


def test_a_searched_game_gives_rows_with_the_movers_results(net_path: Path) -> None:
    out = ex.play_game((str(net_path), "shipped", 5, {"simulations": 4, "prior_mix": 0.25},
                        None))
    n = len(out["value"])
    assert n > 20 and out["obs"].shape[0] == out["mask"].shape[0] == out["target"].shape[0] == n
    assert set(np.unique(out["value"])) <= {-1.0, 0.0, 1.0} and len(set(out["value"])) == 2
    p = np.exp(out["target"].astype(np.float64))
    assert np.allclose(p.sum(1), 1.0) and not (p > 0)[~out["mask"]].any()


def test_games_against_a_scripted_player_keep_the_searchs_rows_only(net_path: Path) -> None:
    """An even seed gives the heuristic the US, an odd one China: every row is the other
    seat's, the search's."""
    for seed, search_seat in ((6, 1), (7, 0)):
        out = ex.play_game((str(net_path), "shipped", seed, {"simulations": 4}, "heuristic"))
        assert len(out["value"]) > 10
        assert (encoder_me(out["obs"]) == search_seat).all()


def encoder_me(obs: np.ndarray) -> np.ndarray:
    """The seat (0 US, 1 China) each observation is for (its ``me`` field)."""
    from evenstar_env.env.observation import encoder_for

    at = encoder_for(load_content()).layout["me"]
    return obs[:, at].argmax(1)


def test_fitting_moves_the_network_towards_the_targets(net_path: Path) -> None:
    net, _, _ = load_checkpoint(net_path)
    rows = ex.Rows(**ex.play_game((str(net_path), "shipped", 6, {"simulations": 4}, None)))
    # targets the network does not hold: all the mass on the last legal action
    target = np.full_like(rows.target, -np.inf)
    last = np.array([np.flatnonzero(m)[-1] for m in rows.mask])
    target[np.arange(len(rows)), last] = 0.0
    rows.target = target
    cfg = ex.ExitConfig(epochs=6, minibatch=128, lr=1e-2)
    before = ex.mean_loss(net, rows, cfg)
    ex.fit(net, rows, cfg, np.random.default_rng(0))
    assert ex.mean_loss(net, rows, cfg) < 0.5 * before


def test_rows_where_the_search_departed_are_drawn_more_often(net_path: Path) -> None:
    net, _, _ = load_checkpoint(net_path)
    rows = ex.Rows(**ex.play_game((str(net_path), "shipped", 6, {"simulations": 4}, None)))
    rows.agree = np.ones(len(rows), bool)
    rows.agree[:3] = False
    assert len(rows) > 40
    drawn: list[np.ndarray] = []
    take = rows.take
    rows.take = lambda idx: (drawn.append(np.asarray(idx)), take(idx))[1]  # type: ignore
    ex.fit(net, rows, ex.ExitConfig(epochs=2, minibatch=8, lr=1e-4, deviation_weight=1e4),
           np.random.default_rng(0))
    assert drawn and np.mean([np.isin([0, 1, 2], d).all() for d in drawn]) > 0.9
    drawn.clear()
    ex.fit(net, rows, ex.ExitConfig(epochs=2, minibatch=8, lr=1e-4), np.random.default_rng(0))
    assert np.mean([np.isin([0, 1, 2], d).all() for d in drawn]) < 0.1
    with pytest.raises(ValueError, match="deviation-weight"):
        ex.ExitConfig(deviation_weight=0.5).check()


def test_smoke_run_writes_a_checkpoint_and_its_rounds(tmp_path: Path, net_path: Path) -> None:
    ex.main(["--smoke", "--init", str(net_path), "--out", str(tmp_path / "exit")])
    net, cfg, facts = load_checkpoint(tmp_path / "exit" / "checkpoint")
    rounds = list(csv.DictReader((tmp_path / "exit" / "rounds.csv").open()))
    assert len(rounds) == 1 and int(rounds[0]["rows"]) > 0
    assert float(rounds[0]["loss_after"]) < float(rounds[0]["loss_before"])
    assert facts["expert_iteration"]["init"] == str(net_path)
    with pytest.raises(SystemExit, match="--games must be at least 1"):
        ex.main(["--smoke", "--games", "0", "--out", str(tmp_path / "bad")])


def test_rows_from_recorded_games_are_the_searchers_choices(net_path: Path,
                                                            tmp_path: Path) -> None:
    """--records: each game replayed; a row at every decision the rollout seat searched,
    its target the action it took, its value the seat's result; other seats give none."""
    import json
    from dataclasses import asdict

    from agents.random_agent import RandomAgent
    from agents.rollout_search import RolloutSearchAgent
    from evenstar_env import Game
    from experiments.selfplay import play_game

    recs = []
    for seed, seat in ((5, "usa"), (6, "china")):
        other = "china" if seat == "usa" else "usa"
        search = RolloutSearchAgent.from_checkpoint(net_path, simulations=4, width=2,
                                                    depth=2, seed=seed)
        recs.append(play_game(seed, {seat: search, other: RandomAgent(seed)}))
    path = tmp_path / "games.jsonl"
    path.write_text("".join(json.dumps(asdict(r)) + "\n" for r in recs))
    net = load_checkpoint(net_path)[0]
    rows, games = ex.record_rows(path, "rollout", load_content(), net)
    expected_actions, expected_values = [], []
    for rec in recs:
        seat = next(s for s, spec in rec.agents.items() if spec.startswith("rollout"))
        g, n = Game(rec.seed), 0
        for a in rec.actions:
            if g.current_player == seat and ex.searched(g, g.legal_actions()):
                expected_actions.append(a)
                n += 1
            g.step(a)
        expected_values += [g.returns()[seat]] * n
    assert games == 2 and len(rows) == len(expected_actions) > 20
    assert rows.target.argmax(1).tolist() == expected_actions
    assert (np.isfinite(rows.target).sum(1) == 1).all()
    assert rows.value.tolist() == expected_values
    assert rows.mask[np.arange(len(rows)), expected_actions].all()
    with pytest.raises(ValueError, match="no decision of a 'alphaism' seat"):
        ex.record_rows(path, "alphaism", load_content(), net)
    both, _ = ex.record_rows(path, "rollout,random", load_content(), net)  # two kinds
    assert len(both) > len(rows) and set(both.value.tolist()) == {-1.0, 1.0}
    out = ex.run(ex.ExitConfig(init=str(net_path), out=str(tmp_path / "exit"),
                               records=f"{path},{path}", epochs=1, minibatch=16))
    with open(tmp_path / "exit" / "rounds.csv") as f:
        (row,) = list(csv.DictReader(f))
    assert (row["games"], row["rows"]) == ("4", str(2 * len(rows)))  # two files
    assert float(row["loss_after"]) < float(row["loss_before"])
    assert load_checkpoint(out)[0] is not None


def _weights(path: Path) -> list[np.ndarray]:
    return [p.detach().numpy().copy() for p in load_checkpoint(path)[0].parameters()]


def test_a_killed_run_resumes_without_replaying_or_refitting(
        net_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every search game's rows are on disk as soon as it ends; a rerun on the same --out
    plays only the games that are missing (a torn file is moved aside and played again),
    keeps the rounds already fitted, and ends where an uninterrupted run ends."""
    base = dict(init=str(net_path), games=2, sims=4, workers=1, epochs=1, minibatch=32)
    straight = ex.run(ex.ExitConfig(out=str(tmp_path / "straight"), rounds=2, **base))
    played: list[int] = []
    real = ex.play_game

    def counting(job):  # type: ignore[no-untyped-def]
        played.append(job[2])
        return real(job)

    monkeypatch.setattr(ex, "play_game", counting)
    out = tmp_path / "resumed"
    ex.run(ex.ExitConfig(out=str(out), rounds=1, **base))
    seeds = sorted(played)
    assert sorted(int(p.stem) for p in (out / "games_round_1").glob("*.npz")) == seeds
    round_1 = _weights(out / "round_1")
    # killed in round 2: one game finished and saved, one torn
    ex.save_game(out / "games_round_2" / f"{seeds[-1] + 1}.npz",
                 real((str(out / "round_1"), "shipped", seeds[-1] + 1,
                       {"simulations": 4, "prior_mix": 0.25, "c_puct": 1.5,
                        "sim_fine": "network", "root": "puct", "playout": None}, None)))
    (out / "games_round_2" / f"{seeds[-1] + 2}.npz").write_bytes(b"PK\x03\x04 torn")
    played.clear()
    final = ex.run(ex.ExitConfig(out=str(out), rounds=2, **base))
    assert played == [seeds[-1] + 2]  # only the torn game is played again
    assert (out / "games_round_2" / f"{seeds[-1] + 2}.bad").exists()
    assert all((a == b).all() for a, b in zip(_weights(out / "round_1"), round_1, strict=True))
    assert all((a == b).all() for a, b in zip(_weights(final), _weights(straight), strict=True))
    with open(out / "rounds.csv") as f:
        assert [row["round"] for row in csv.DictReader(f)] == ["1", "2"]
    played.clear()
    ex.run(ex.ExitConfig(out=str(out), rounds=2, **{**base, "workers": 2}))
    assert played == []  # finished: nothing is played or fitted again
    with pytest.raises(ValueError, match=r"other settings \(--sims 4, not 8\)"):
        ex.run(ex.ExitConfig(out=str(out), rounds=2, **{**base, "sims": 8}))
    # a run made before --root and --playout existed resumes: it ran with their defaults
    saved = json.loads((out / "config.json").read_text())
    (out / "config.json").write_text(json.dumps(
        {k: v for k, v in saved.items() if k not in ("root", "playout")}))
    ex.run(ex.ExitConfig(out=str(out), rounds=2, **base))
    assert played == []
    with pytest.raises(ValueError, match=r"other settings \(--root 'puct', not 'halving'"):
        ex.run(ex.ExitConfig(out=str(out), rounds=2, **{**base, "root": "halving"}))


def test_sigkill_mid_round_keeps_the_finished_games(net_path: Path, tmp_path: Path) -> None:
    """A real SIGKILL once a search game is on disk: the rerun keeps that game's file as
    it was and plays only the others."""
    import subprocess
    import sys

    out = tmp_path / "exit"
    args = [sys.executable, "-m", "experiments.expert_iteration", "--init", str(net_path),
            "--out", str(out), "--games", "4", "--sims", "4", "--workers", "1",
            "--epochs", "1", "--minibatch", "32"]
    root = Path(__file__).resolve().parents[1]
    sigkill_when(args, lambda: bool(list((out / "games_round_1").glob("*.npz"))), root)
    kept = {p.name: p.stat().st_mtime_ns for p in (out / "games_round_1").glob("*.npz")}
    assert 1 <= len(kept) < 4 and not (out / "checkpoint").exists()
    done = subprocess.run(args, cwd=root, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    files = {p.name: p.stat().st_mtime_ns for p in (out / "games_round_1").glob("*.npz")}
    assert len(files) == 4 and all(files[k] == t for k, t in kept.items())
    assert load_checkpoint(out / "checkpoint")[0] is not None


def test_a_second_run_on_the_same_folder_is_refused(net_path: Path, tmp_path: Path) -> None:
    from experiments.files import folder_lock

    out = tmp_path / "exit"
    out.mkdir()
    with folder_lock(out), pytest.raises(SystemExit, match="another run is writing"):
        ex.main(["--smoke", "--init", str(net_path), "--out", str(out)])
