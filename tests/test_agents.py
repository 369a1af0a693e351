"""Agents, self-play training and the arena (issue: agents and arena)."""

from __future__ import annotations

import csv
import json
import pickle
from pathlib import Path

import numpy as np
import pytest
from helpers import action_round

from agents import CautiousRandomAgent, HeuristicAgent, ISMCTSAgent, RandomAgent
from agents.ppo_agent import PolicyFileError, PPOAgent
from agents.specs import make_agent
from evenstar_env import Game
from experiments.arena import Job, jobs_for, run_games, summarise
from experiments.selfplay import GameRecord, play_game


def assert_only_legal(agent, seed: int, max_decisions: int | None = None) -> None:
    g = Game(seed)
    n = 0
    while not g.is_over and (max_decisions is None or n < max_decisions):
        mask = g.action_mask()
        a = agent.act(None, mask, g)
        assert mask[a], f"{agent.name} chose illegal {a} for {g.decision}"
        g.step(a)
        n += 1


@pytest.mark.parametrize("cls", [RandomAgent, CautiousRandomAgent, HeuristicAgent])
def test_agents_only_pick_legal_actions_for_whole_games(cls) -> None:
    for seed in range(3):
        assert_only_legal(cls(seed), seed)


def test_ismcts_only_picks_legal_actions() -> None:
    assert_only_legal(ISMCTSAgent(iterations=4, rollout_depth=5, seed=0), 0, max_decisions=60)


def test_ismcts_is_deterministic_for_a_seed() -> None:
    def actions(seed: int) -> list[int]:
        g, agent, out = Game(5), ISMCTSAgent(iterations=6, seconds=None, rollout_depth=5,
                                             seed=seed), []
        while len(out) < 40:
            out.append(agent.act(None, g.action_mask(), g))
            g.step(out[-1])
        return out

    assert actions(3) == actions(3)


def test_ismcts_respects_a_time_budget() -> None:
    import time

    g = Game(2)
    agent = ISMCTSAgent(iterations=10**6, seconds=0.05, seed=1)
    t = time.perf_counter()
    agent.act(None, g.action_mask(), g)
    assert time.perf_counter() - t < 0.5


def test_heuristic_beats_random_on_both_sides() -> None:
    wins = 0
    for seed in range(4):
        for side in ("usa", "china"):
            other = "china" if side == "usa" else "usa"
            rec = play_game(seed, {side: HeuristicAgent(seed), other: RandomAgent(seed)})
            wins += rec.winner == side
    assert wins >= 7


@pytest.fixture(scope="module")
def smoke_run(tmp_path_factory) -> Path:
    """The --smoke training run (the tests' stand-in for the full run)."""
    from experiments.train_selfplay import TrainConfig, train

    out = tmp_path_factory.mktemp("smoke")
    train(TrainConfig.smoke(str(out)), progress=False)
    return out


def test_smoke_training_runs_end_to_end_with_losses_logged(smoke_run: Path) -> None:
    rows = list(csv.DictReader((smoke_run / "tb" / "progress.csv").open()))
    losses = [r["train/loss"] for r in rows if r.get("train/loss")]
    assert losses and all(np.isfinite(float(x)) for x in losses)
    assert (smoke_run / "checkpoints" / "latest.pt").exists()
    assert (smoke_run / "checkpoints" / "latest.json").exists()
    assert (smoke_run / "winrates.png").stat().st_size > 0
    assert list((smoke_run / "snapshots").glob("snapshot_*.pt"))
    win_rows = list(csv.DictReader((smoke_run / "winrates.csv").open()))
    assert win_rows and {r["side"] for r in win_rows} <= {"usa", "china"}


def test_training_resumes_from_its_checkpoint(smoke_run: Path) -> None:
    from experiments.train_selfplay import TrainConfig, train

    cfg = TrainConfig.smoke(str(smoke_run))
    cfg.total_timesteps = 1536
    train(cfg, resume=True, progress=False)
    done = json.loads((smoke_run / "checkpoints" / "progress.json").read_text())
    assert done["timesteps"] >= 1536


def test_ppo_agent_plays_legal_moves_from_an_exported_policy(smoke_run: Path) -> None:
    agent = PPOAgent(smoke_run / "checkpoints" / "policy")
    assert_only_legal(agent, 5, max_decisions=150)


def test_ppo_agent_rejects_bad_files(smoke_run: Path, tmp_path: Path) -> None:
    good = smoke_run / "checkpoints" / "policy"
    with pytest.raises(PolicyFileError, match="no policy config"):
        PPOAgent(tmp_path / "missing")
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(PolicyFileError, match="not valid JSON"):
        PPOAgent(tmp_path / "bad")
    config = json.loads(good.with_suffix(".json").read_text())
    (tmp_path / "other.json").write_text(json.dumps({**config, "content": "0" * 16}))
    with pytest.raises(PolicyFileError, match="other game content"):
        PPOAgent(tmp_path / "other")
    (tmp_path / "older.json").write_text(json.dumps({**config, "obs_size": 2111}))
    with pytest.raises(PolicyFileError, match="observations of size 2111"):
        PPOAgent(tmp_path / "older")


class _Exploit:
    """An object whose unpickling would run code (create `marker`)."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (Path.touch, (self.marker,))


@pytest.mark.filterwarnings("ignore:Detected pickle protocol:UserWarning")
def test_ppo_agent_never_runs_code_from_the_weights_file(smoke_run: Path, tmp_path: Path) -> None:
    good = smoke_run / "checkpoints" / "policy"
    marker = tmp_path / "pwned"
    (tmp_path / "evil.json").write_text(good.with_suffix(".json").read_text())
    (tmp_path / "evil.pt").write_bytes(pickle.dumps(_Exploit(marker)))
    with pytest.raises(PolicyFileError, match="weights-only"):
        PPOAgent(tmp_path / "evil")
    assert not marker.exists()


def test_arena_intervals_on_known_results() -> None:
    recs = [GameRecord(k, {"usa": "a", "china": "b"}, winner="usa" if k < 9 else "china",
                       reason="final scoring: x", turn=11) for k in range(10)]
    rows = {(r["agent"], r["side"]): r for r in summarise(recs)["results"]}
    a = rows[("a", "usa")]
    assert (a["games"], a["wins"], a["losses"]) == (10, 9, 1)
    assert (a["ci95_low"], a["ci95_high"]) == pytest.approx((0.5958, 0.9821), abs=1e-4)
    b = rows[("b", "china")]
    assert (b["wins"], b["win_rate"]) == (1, 0.1)


def test_arena_pairs_every_seed_with_sides_swapped() -> None:
    jobs = jobs_for(["x", "y", "z"], games=2, seed0=5)
    assert len(jobs) == 3 * 2 * 2
    assert Job(5, "x", "y") in jobs and Job(5, "y", "x") in jobs


def trace_game(seed: int, usa, china) -> list[tuple[str, int]]:
    g = Game(seed)
    g._m.trace = trace = []
    agents = {"usa": usa, "china": china}
    while not g.is_over:
        g.step(agents[g.current_player].act(None, g.action_mask(), g))
    return trace


def test_paired_seeds_replay_identical_dice_and_draws() -> None:
    """Same seed, sides swapped, different agents: the k-th die and k-th draw agree."""
    a = trace_game(3, HeuristicAgent(1), RandomAgent(2))
    b = trace_game(3, RandomAgent(3), HeuristicAgent(4))
    dice_a = [v for k, v in a if k == "die"]
    dice_b = [v for k, v in b if k == "die"]
    n = min(len(dice_a), len(dice_b))
    assert n > 10 and dice_a[:n] == dice_b[:n]
    draws_a = [v for k, v in a if k == "draw"]
    draws_b = [v for k, v in b if k == "draw"]
    assert len(draws_a) >= 18 and draws_a[:18] == draws_b[:18]  # the first deal, at least


def test_arena_plots_of_a_round_robin_stay_readable(tmp_path: Path) -> None:
    """A ladder-sized round robin (10 agents: 90 pairings, 180 bars): the win rates become a
    list of horizontal bars, the end plots one series of all games, and matplotlib warns of
    no layout it could not make (it did with 90 legend entries)."""
    import warnings

    from PIL import Image

    from experiments.arena import plot

    names = [f"agent{k}" for k in range(10)]
    pairs = [(a, b) for a in names for b in names if a != b]
    results = [{"agent": a, "opponent": b, "side": side, "win_rate": 0.5, "ci95_low": 0.3,
                "ci95_high": 0.7} for a, b in pairs for side in ("usa", "china", "both")]
    ends = {f"{a} (US) vs {b} (China)": {"final scoring": 3, "diplomacy at 1 (total war)": 1}
            for a, b in pairs}
    turns = {k: {"11": 3, "4": 1} for k in ends}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        plot({"results": results, "end_reasons": ends, "end_turns": turns}, tmp_path)
    with Image.open(tmp_path / "win_rates.png") as im:
        width, height = im.size
    assert height > 3 * width  # one row per agent and side, read top to bottom
    for name in ("end_reasons.png", "end_turns.png"):
        with Image.open(tmp_path / name) as im:
            assert im.size[0] < 2000, name


def test_arena_end_to_end_writes_replayable_games(tmp_path: Path) -> None:
    from experiments.arena import arena

    summary = arena(["random", "cautious"], games=2, out=tmp_path, workers=1, progress=False)
    assert {"results", "end_reasons", "end_turns", "ratings", "config"} <= set(summary)
    for name in ("summary.json", "results.csv", "games.jsonl", "win_rates.png",
                 "end_reasons.png", "end_turns.png"):
        assert (tmp_path / name).stat().st_size > 0, name
    first = json.loads((tmp_path / "games.jsonl").read_text().splitlines()[0])
    g = Game(first["seed"])
    for a in first["actions"]:
        g.step(a)
    assert g.result.winner == first["winner"] and g.vp == first["vp"]


def test_ismcts_spec_keeps_the_defaults_it_does_not_name() -> None:
    default = ISMCTSAgent()
    plain, iters, both = (make_agent(spec, 0) for spec in ("ismcts", "ismcts:50",
                                                           "ismcts:50:0.5"))
    assert (plain.iterations, plain.seconds) == (default.iterations, default.seconds)
    assert (iters.iterations, iters.seconds) == (50, default.seconds)
    assert (both.iterations, both.seconds) == (50, 0.5)
    assert default.seconds is not None and default.seconds <= 1.0  # the arena's 1 s rule


def test_make_agent_rejects_unknown_specs() -> None:
    with pytest.raises(ValueError, match="unknown agent spec"):
        make_agent("grandmaster", 0)


def test_run_games_in_parallel_matches_serial() -> None:
    jobs = jobs_for(["random", "cautious"], games=1)
    serial = run_games(jobs, workers=1, progress=False)
    parallel = run_games(jobs, workers=2, progress=False)
    assert [r.actions for r in serial] == [r.actions for r in parallel]


def test_arena_ray_backend_plays_the_same_games_as_local_processes(tmp_path: Path) -> None:
    """Issue 18: the arena's `--backend ray` on a one-node cluster the test starts; a search
    agent on a test network and a rule agent, the same records as the local backend."""
    import ray
    import torch

    from agents.networks import NetConfig, build_network, save_checkpoint

    torch.manual_seed(0)
    cfg = NetConfig.for_content(hidden=(16,))
    save_checkpoint(tmp_path / "net", build_network(cfg), cfg)
    jobs = jobs_for(["cautious", f"alphaism:6:{tmp_path / 'net'}"], games=1, seed0=3)
    local = run_games(jobs, workers=1, progress=False)
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="ERROR")
    try:
        remote = run_games(jobs, workers=2, progress=False, backend="ray")
    finally:
        ray.shutdown()
    assert [r.seed for r in remote] == [j.seed for j in jobs]
    assert remote == local
    assert summarise(remote) == summarise(local)


def test_shipped_policy_loads_and_plays_legal_moves() -> None:
    """The checkpoint in agents/checkpoints matches the current cards and countries."""
    from agents.ppo_agent import SHIPPED_POLICY

    assert SHIPPED_POLICY.with_suffix(".pt").stat().st_size <= 20 * 2**20
    assert_only_legal(PPOAgent(SHIPPED_POLICY), 1, max_decisions=300)


def _china_last_round_with(hand: list[str], diplomacy: int, tech_done: bool) -> Game:
    from evenstar_env.engine.constants import DISCARD, HAND, M_ROUND, M_TECH_DONE

    g = action_round(2, "china")
    c, s = g.content, g.state
    s.card_loc[s.card_loc == HAND[1]] = DISCARD
    for name in hand:
        s.card_loc[c.card_by_name[name]] = HAND[1]
    s.misc[M_ROUND] = c.rules.action_rounds
    s.misc[M_TECH_DONE + 1] = int(tech_done)
    g.set_track("diplomacy", diplomacy)
    return g


@pytest.mark.parametrize(("hand", "diplomacy", "tech_done", "expected"), [
    (["Clinton Doctrine"], 3, True, 1),  # the last card is a war China would start (R21)
    (["Clinton Doctrine"], 3, False, 0),  # ... unless the tech race can take it (R5)
    (["Smart Power"], 3, True, 0),  # one realignment leaves diplomacy at 2
    (["Clinton Doctrine", "Smart Power"], 2, True, 1),  # one play left, both dangerous
    (["Clinton Doctrine", "Wolf Warrior Diplomacy"], 3, True, 0),  # China's own card is safe
])
def test_ismcts_counts_opponent_cards_it_will_be_forced_to_play_into_war(
        hand, diplomacy, tech_done, expected) -> None:
    from agents.ismcts import forced_war_plays

    g = _china_last_round_with(hand, diplomacy, tech_done)
    assert forced_war_plays(g, "china") == expected


@pytest.mark.parametrize(("rounds_left", "hand", "due"), [
    (1, ["Exchange Rate Unification", "Europe Scoring"], {"Europe Scoring"}),
    (2, ["Exchange Rate Unification", "Europe Scoring", "Asia Scoring"],
     {"Europe Scoring", "Asia Scoring"}),
    (2, ["Exchange Rate Unification", "Europe Scoring"], set()),  # a round is left for it
])
def test_searchers_play_a_due_scoring_card_without_searching(rounds_left, hand, due) -> None:
    """2.2.1.1 (R13): a scoring card held at the end of the turn loses, so with as many
    scoring cards in hand as rounds left, every searcher plays one without a search."""
    from agents.ismcts import forced_choice
    from evenstar_env.engine.constants import M_ROUND

    g = _china_last_round_with(hand, 3, True)
    g.state.misc[M_ROUND] -= rounds_left - 1
    forced = forced_choice(g, g.legal_actions())
    if not due:
        assert forced is None
        return
    assert g.content.cards[g.action_group(forced)[1]].name in due
    for spec in ("ismcts:8", "alphaism:8", "rollout:8"):
        agent = make_agent(spec, seed=0)
        assert agent.act(None, g.action_mask(), g) == forced, spec
        assert getattr(agent, "last_root", None) is None, spec  # alphaism searched nothing
        assert getattr(agent, "last_means", None) is None, spec  # nor did rollout
