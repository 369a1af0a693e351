"""The batched PPO trainer (experiments/train.py) and the learned-policy agent."""

from __future__ import annotations

import csv
from dataclasses import asdict
from pathlib import Path

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from agents.learned_agent import LearnedAgent
from agents.networks import NetConfig, load_checkpoint, torch_threads
from agents.specs import make_agent
from experiments import train
from experiments.selfplay import play_game
from experiments.train import (
    League,
    RolloutWorker,
    TrainConfig,
    draw_matchup,
    kl_to_reference,
    pfsp_weights,
    seat_gae,
)


def gae(players, rewards, ended, learner=None, values=None, boot=(-1, 0.0), lam=0.95):
    """seat_gae on one game slot given as plain lists."""
    players = np.array(players)[:, None]
    T = len(players)
    learner = players >= 0 if learner is None else np.array(learner)[:, None]
    values = np.zeros((T, 1)) if values is None else np.array(values, dtype=float)[:, None]
    rewards = np.array(rewards, dtype=float)[:, None, :]
    ended = np.array(ended)[:, None]
    adv, ret = seat_gae(values, rewards, players, learner, ended, np.array([boot[1]]),
                        np.array([boot[0]]), 1.0, lam)
    return adv[:, 0], ret[:, 0]


Z = [0.0, 0.0]


def test_selfplay_game_returns_are_each_seats_result():
    """Both seats are learner rows; China's move ends the game, the US wins: every US row
    returns +1 and every China row -1 (λ = 1), whatever the values; the next game's first
    row (the bootstrap) does not leak into the ended game."""
    values = [0.1, -0.2, 0.3, 0.4, 0.0]
    adv, ret = gae([0, 1, 0, 1, -1], [Z, Z, Z, [1.0, -1.0], Z],
                   [False, False, False, True, False], values=values, boot=(0, 0.9), lam=1.0)
    assert ret[:4].tolist() == pytest.approx([1, -1, 1, -1])
    assert adv[:4].tolist() == pytest.approx([1 - 0.1, -1 + 0.2, 1 - 0.3, -1 - 0.4])
    assert ret[4] == 0 and adv[4] == 0  # the ended row is not trained


def test_sign_flips_only_when_the_mover_changes():
    """US, China, China (a repeated mover), then the rollout stops with the US to move:
    TD errors bootstrap from the next row's value, negated only across a change of mover."""
    v = [0.2, -0.1, 0.3]
    shaping = [[0.05, -0.05], Z, Z]
    adv, _ = gae([0, 1, 1], shaping, [False] * 3, values=v, boot=(0, 0.4), lam=0.0)
    assert adv.tolist() == pytest.approx([0.05 - v[1] - v[0], v[2] - v[1], -0.4 - v[2]])
    _, ret = gae([0, 1, 1], shaping, [False] * 3, values=v, boot=(0, 0.4), lam=1.0)
    assert ret.tolist() == pytest.approx([0.05 + 0.4, -0.4, -0.4])


def test_league_game_is_a_per_seat_trajectory():
    """Only China's rows are trained; what happens between two of them (the opponent's
    moves, its reward for ending the game) belongs to China's earlier row; the reward
    before China's first row belongs to no trained row."""
    v = [0.0, 0.25, 0.0, -0.5, 0.0]
    rewards = [[0.1, -0.1], Z, Z, Z, [-1.0, 1.0]]
    learner = [False, True, False, True, False]
    adv, ret = gae([0, 1, 0, 1, 0], rewards, [False] * 4 + [True], learner=learner,
                   values=v, lam=0.5)
    a3 = 1.0 - v[3]
    a1 = (v[3] - v[1]) + 0.5 * a3
    assert adv.tolist() == pytest.approx([0, a1, 0, a3, 0])
    assert ret[1] == pytest.approx(a1 + v[1]) and ret[0] == 0


def test_slots_are_independent():
    a = ([0, 1, 0, 1, -1], [Z, Z, Z, [1.0, -1.0], Z], [False, False, False, True, False])
    b = ([1, 1, 0, 0, 1], [[0.2, -0.2], Z, Z, Z, Z], [False] * 5)
    T = 5
    players = np.array([a[0], b[0]]).T
    rewards = np.stack([np.array(a[1]), np.array(b[1])], axis=1)
    ended = np.array([a[2], b[2]]).T
    values = np.linspace(-0.5, 0.5, 2 * T).reshape(T, 2)
    adv, _ = seat_gae(values, rewards, players, players >= 0, ended, np.array([0.3, -0.2]),
                      np.array([0, 1]), 1.0, 0.9)
    for k, (p, r, e) in enumerate((a, b)):
        boot = ((0, 0.3), (1, -0.2))[k]
        alone, _ = gae(p, r, e, values=values[:, k], boot=boot, lam=0.9)
        assert adv[:, k].tolist() == pytest.approx(alone.tolist())


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 1), st.booleans(),
                          st.floats(-0.1, 0.1), st.floats(-1, 1)), min_size=1, max_size=30),
       st.sampled_from([-1.0, 0.0, 1.0]))
def test_lambda_one_returns_are_the_seats_future_rewards(rows, result):
    """With λ = γ = 1 and a game that ends in the rollout, each learner row's return is
    what its seat earns from that row on (zero-sum shaping + the result), whatever the
    values, movers and trained rows."""
    players = [p for p, _, _, _ in rows]
    learner = [t for _, t, _, _ in rows]
    rewards = [[s, -s] for _, _, s, _ in rows]
    rewards[-1] = [rewards[-1][0] + result, rewards[-1][1] - result]
    ended = [False] * (len(rows) - 1) + [True]
    _, ret = gae(players, rewards, ended, learner=learner, values=[v for *_, v in rows],
                 boot=(0, 0.7), lam=1.0)
    r = np.array(rewards)
    for t, (p, trained) in enumerate(zip(players, learner, strict=True)):
        want = r[t:, p].sum() if trained else 0.0
        assert ret[t] == pytest.approx(want, abs=1e-5)


def test_kl_counts_only_learner_rows():
    torch.manual_seed(0)
    logits, ref = torch.randn(4, 6), torch.randn(4, 6)
    mask = torch.ones(4, 6, dtype=torch.bool)
    mask[:, 5] = False
    ref_logp = torch.log_softmax(ref.masked_fill(~mask, -1e9), -1)
    learner = torch.tensor([True, False, True, False])
    kl = kl_to_reference(logits, ref_logp, mask, learner)
    changed = logits.clone()
    changed[[1, 3]] += torch.randn(2, 6) * 5  # opponent rows: no effect
    assert kl_to_reference(changed, ref_logp, mask, learner) == pytest.approx(float(kl))
    p = torch.softmax(logits[:, :5], -1)
    manual = (p * (p.log() - ref_logp[:, :5])).sum(-1)[learner].mean()
    assert float(kl) == pytest.approx(float(manual), rel=1e-5)
    same = kl_to_reference(ref, ref_logp, mask, learner)
    assert float(same) == pytest.approx(0.0, abs=1e-6)


def small_cfg(**kw) -> TrainConfig:
    base = dict(train.SMOKE, hidden="16", num_envs=4, rollout_steps=30)
    base.update(kw)
    return TrainConfig(**base)


def worker_batch(cfg: TrainConfig, table) -> dict:
    net_cfg = NetConfig.for_content(hidden=(16,))
    w = RolloutWorker(asdict(cfg), asdict(net_cfg), 0)
    net = train.build_network(net_cfg)
    return w.collect(train._state_dict(net), table)


def test_league_games_train_only_the_learners_seat():
    """Against a scripted opponent every trained row of a game has the same mover (the
    learner's seat); in self-play both seats of a game are trained.  Sampled actions are
    legal."""
    table = {"snapshot": [], "scripted": [("random", 1.0)]}
    league = worker_batch(small_cfg(selfplay_frac=0.0, scripted_frac=1.0), table)
    selfplay = worker_batch(small_cfg(selfplay_frac=1.0, scripted_frac=0.0), table)
    for b in (league, selfplay):
        assert b["mask"][np.arange(len(b["act"])), b["act"]].all()
    seats = {g: set(league["player"][league["game"] == g]) for g in set(league["game"])}
    assert all(len(s) == 1 for s in seats.values()) and len(seats) >= 4
    both = [g for g in set(selfplay["game"]) if len(set(selfplay["player"][selfplay["game"]
                                                                         == g])) == 2]
    assert both
    assert len(league["act"]) < len(selfplay["act"])  # the opponent's rows are left out


@pytest.mark.parametrize("china_frac, seat", [(0.0, 0), (1.0, 1)])
def test_china_frac_chooses_the_learners_seat_in_league_games(china_frac, seat):
    table = {"snapshot": [], "scripted": [("random", 1.0)]}
    b = worker_batch(small_cfg(selfplay_frac=0.0, scripted_frac=1.0, china_frac=china_frac),
                     table)
    assert len(b["player"]) and set(b["player"].tolist()) == {seat}


def test_pfsp_prefers_opponents_that_still_win():
    w = pfsp_weights(np.array([0.0, 0.5, 1.0]), power=2.0, floor=0.05)
    assert w.tolist() == pytest.approx([1.05, 0.3, 0.05])
    league = League()
    for name in ("a", "b", "c"):
        league.add(name, "snapshot")
    league.add("heuristic", "scripted")
    for _ in range(200):
        league.record("a", 1.0)  # the learner always beats a
        league.record("c", 0.0)  # and never beats c
    cfg = TrainConfig(selfplay_frac=0.5, scripted_frac=0.1, pfsp_power=2.0, pfsp_floor=0.05)
    table = league.table(cfg)
    rng = np.random.default_rng(1)
    draws = [draw_matchup(rng, table, cfg) for _ in range(20_000)]
    share = {k: draws.count(k) / len(draws) for k in (None, "heuristic", "a", "b", "c")}
    assert share[None] == pytest.approx(0.5, abs=0.015)
    assert share["heuristic"] == pytest.approx(0.1, abs=0.01)
    wa, wb, wc = (dict(table["snapshot"])[k] for k in "abc")
    for k, wk in zip("abc", (wa, wb, wc), strict=True):
        assert share[k] == pytest.approx(0.4 * wk / (wa + wb + wc), abs=0.015)
    assert share["c"] > share["b"] > share["a"]
    empty = {"snapshot": [], "scripted": []}
    assert all(draw_matchup(rng, empty, cfg) is None for _ in range(50))  # self-play


@pytest.fixture(scope="module")
def smoke_run(tmp_path_factory) -> Path:
    runs = tmp_path_factory.mktemp("runs")
    train.main(["--smoke", "--runs-dir", str(runs)])
    return runs / "smoke"


def test_smoke_run_writes_a_loadable_checkpoint_and_logs(smoke_run: Path):
    for name in ("train.csv", "eval.csv", "eval.png", "config.json"):
        assert (smoke_run / name).stat().st_size > 0, name
    assert any((smoke_run / "tb").iterdir())
    net, cfg, facts = load_checkpoint(smoke_run / "checkpoints" / "latest")
    assert cfg.hidden == (32, 32) and facts["learner_steps"] >= 500
    load_checkpoint(smoke_run / "checkpoints" / "best")
    rows = list(csv.DictReader((smoke_run / "eval.csv").open()))
    assert {r["opponent"] for r in rows} == {"heuristic", "random"}
    assert all(int(r["games"]) == 2 for r in rows)
    log = list(csv.DictReader((smoke_run / "train.csv").open()))
    assert float(log[-1]["steps_per_s"]) > 0 and int(log[-1]["update"]) == len(log)
    agent = make_agent(f"learned:{smoke_run / 'checkpoints' / 'latest'}", 3)
    assert isinstance(agent, LearnedAgent)
    rec = play_game(7, {"usa": agent, "china": make_agent("random", 4)})
    assert rec.reason


def test_resume_continues_the_run(smoke_run: Path):
    before = load_checkpoint(smoke_run / "checkpoints" / "latest")[2]["update"]
    train.main(["--smoke", "--runs-dir", str(smoke_run.parent), "--resume",
                "--total-steps", "800", "--eval-opponents", "heuristic,random"])
    after = load_checkpoint(smoke_run / "checkpoints" / "latest")[2]
    assert after["update"] > before and after["learner_steps"] >= 800
    with pytest.raises(SystemExit, match="lr"):
        train.main(["--smoke", "--runs-dir", str(smoke_run.parent), "--resume",
                    "--lr", "0.1"])


def test_a_fresh_structured_network_is_trained_with_its_sizes(tmp_path: Path):
    """Without --init, --net, --hidden and --token choose the network the run trains."""
    train.main(["--smoke", "--runs-dir", str(tmp_path), "--net", "structured", "--hidden",
                "16", "--token", "4", "--total-steps", "200", "--eval-every", "100"])
    net, cfg, facts = load_checkpoint(tmp_path / "smoke" / "checkpoints" / "latest")
    assert (cfg.kind, cfg.hidden, cfg.options) == ("structured", (16,), {"token": 4})
    assert net.card_id.weight.shape[1] == 4 and facts["learner_steps"] >= 200


def test_ray_backend_trains_the_same_network_as_local(tmp_path: Path):
    """Two rollout workers as Ray actors on a one-node cluster started here give the same
    batches, hence the same weights, as the same workers in this process (with --overlap:
    the next batch is collected during the update, in parallel on Ray)."""
    ray = pytest.importorskip("ray")
    args = ["--smoke", "--runs-dir", str(tmp_path), "--workers", "2", "--total-steps", "300",
            "--overlap",
            "--scripted", "random", "--eval-opponents", "random", "--seed", "3"]
    train.main([*args, "--name", "local"])
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="ERROR")
    try:
        train.main([*args, "--name", "ray", "--backend", "ray"])
    finally:
        ray.shutdown()
    nets = [load_checkpoint(tmp_path / name / "checkpoints" / "latest")[0]
            for name in ("local", "ray")]
    a, b = (n.state_dict() for n in nets)
    assert all(torch.equal(a[k], b[k]) for k in a)
    logs = [list(csv.DictReader((tmp_path / n / "train.csv").open())) for n in ("local", "ray")]
    assert [r["samples"] for r in logs[0]] == [r["samples"] for r in logs[1]]
    assert [r["policy_loss"] for r in logs[0]] == [r["policy_loss"] for r in logs[1]]


def test_env_backend_is_passed_through_and_shaping_is_optional(monkeypatch):
    made = []
    monkeypatch.setattr(train, "SelfPlayVectorEnv", lambda n, **kw: made.append((n, kw)))
    train.make_env(TrainConfig(env_backend="native"), 3)
    train.make_env(TrainConfig(vp_scale=0.0), 2)
    assert [kw.pop("content").source for _, kw in made] == ["shipped", "shipped"]  # --content
    assert made[0] == (3, {"reward": "vp_diff", "vp_scale": 200.0, "backend": "native"})
    assert made[1] == (2, {"reward": "win_loss", "vp_scale": 1.0})  # no backend= unless set


def test_evaluation_seeds_stay_clear_of_the_arenas():
    TrainConfig(eval_seed=5090, eval_games=10).check()
    for seed, games in ((30000, 10), (5095, 10), (4990, 20)):
        with pytest.raises(ValueError, match="evaluation seeds"):
            TrainConfig(eval_seed=seed, eval_games=games).check()


def test_beta_fades_over_steps_or_minutes_whichever_ends_the_run():
    cfg = TrainConfig(kl_coef=0.1, kl_coef_final=0.01, total_steps=1000, minutes=10.0)
    assert train.beta_at(cfg, 0, 0.0) == pytest.approx(0.1)
    assert train.beta_at(cfg, 500, 1.0) == pytest.approx(0.055)  # half the steps
    assert train.beta_at(cfg, 100, 5.0) == pytest.approx(0.055)  # half the minutes
    assert train.beta_at(cfg, 5000, 20.0) == pytest.approx(0.01)
    no_limit = TrainConfig(kl_coef=0.1, kl_coef_final=0.01, total_steps=1000, minutes=0.0)
    assert train.beta_at(no_limit, 250, 99.0) == pytest.approx(0.0775)


def test_learned_agent_plays_the_best_legal_action(tmp_path: Path):
    from agents.networks import build_network, save_checkpoint

    cfg = NetConfig.for_content(hidden=(8,))
    net = build_network(cfg)
    with torch.no_grad():
        net.policy.weight.zero_()
        net.policy.bias.copy_(torch.arange(cfg.n_actions, dtype=torch.float32))
    save_checkpoint(tmp_path / "ck", net, cfg)
    obs = np.zeros(cfg.obs_size, dtype=np.float32)
    mask = np.zeros(cfg.n_actions, dtype=bool)
    mask[[3, 10, 20]] = True  # the best action overall (the last) is illegal
    greedy = LearnedAgent(tmp_path / "ck", greedy=True, seed=0)
    assert greedy.act(obs, mask) == 20
    assert greedy.act({"observation": obs}, mask) == 20
    sampled = LearnedAgent(tmp_path / "ck", greedy=False, seed=0)
    picks = {sampled.act(obs, mask) for _ in range(50)}
    assert picks <= {3, 10, 20} and 20 in picks
    with pytest.raises(ValueError, match="needs an observation or the game"):
        greedy.act(None, mask)


def test_ctrl_c_ends_the_run_in_one_line(tmp_path, monkeypatch) -> None:
    """Ctrl-C during training: one line naming the checkpoints and --resume, no traceback."""
    def interrupted(self) -> None:
        self.update = 3
        raise KeyboardInterrupt

    monkeypatch.setattr(train.Trainer, "train", interrupted)
    with pytest.raises(SystemExit) as e:
        train.main(["--smoke", "--runs-dir", str(tmp_path)])
    message = str(e.value.code)
    assert "interrupted after update 3" in message and "--resume" in message
    assert str(tmp_path / "smoke" / "checkpoints") in message


@pytest.mark.parametrize("args,needle", [(["--num-envs", "-3"], "--num-envs must be at least 1"),
                                         (["--gamma", "0"], "--gamma in (0, 1]"),
                                         (["--value-warmup", "-1"],
                                          "--value-warmup must be at least 0"),
                                         (["--china-frac", "1.5"],
                                          "--china-frac must be in [0, 1]"),
                                         (["--war-risk-coef", "-1"],
                                          "--war-risk-coef must be at least 0"),
                                         (["--net", "nope"], "--net must be one of"),
                                         (["--token", "0"], "--token must be at least 1"),
                                         (["--threads-idle", "-1"],
                                          "--threads-idle must be at least 0"),
                                         # issue 36: every number bounded
                                         (["--num-envs", str(10**9)],
                                          "--num-envs must be at most 16,384"),
                                         (["--lr", "nan"], "--lr must be a finite number"),
                                         (["--vf-coef", "inf"],
                                          "--vf-coef must be a finite number"),
                                         (["--seed", str(2**64)], "--seed must be at most"),
                                         (["--seed", "-1"], "--seed must be at least 0"),
                                         (["--hidden", "-4"], "each 'hidden' width must be"),
                                         (["--hidden", "100000"],
                                          "each 'hidden' width must be")])
def test_bad_settings_end_in_one_line(args, needle, tmp_path) -> None:
    with pytest.raises(SystemExit) as e:
        train.main(["--smoke", "--runs-dir", str(tmp_path), *args])
    assert needle in str(e.value.code)


def test_value_warmup_fits_the_value_and_leaves_the_policy_head_alone():
    """--value-warmup updates train the value (its loss falls on a fixed batch) with no
    policy-gradient or entropy term: without a KL reference the policy head gets no
    gradient at all."""
    cfg = small_cfg(epochs=4, minibatch=32, lr=1e-3)
    table = {"snapshot": [], "scripted": [("random", 1.0)]}
    batch = worker_batch(cfg, table)
    batch["ret"] = np.sign(batch["ret"]).astype(np.float32)  # a target worth fitting
    torch.manual_seed(0)
    net = train.build_network(NetConfig.for_content(hidden=(16,)))
    opt = torch.optim.Adam(net.parameters(), lr=cfg.lr)
    head = {k: v.clone() for k, v in net.policy.state_dict().items()}
    rng = np.random.default_rng(0)
    first = train.ppo_update(net, opt, batch, None, 0.0, cfg, rng, value_only=True)
    for _ in range(5):
        last = train.ppo_update(net, opt, batch, None, 0.0, cfg, rng, value_only=True)
    assert last["value_loss"] < first["value_loss"]
    assert all(torch.equal(head[k], v) for k, v in net.policy.state_dict().items())
    train.ppo_update(net, opt, batch, None, 0.0, cfg, rng)  # the full loss moves it
    assert not all(torch.equal(head[k], v) for k, v in net.policy.state_dict().items())


def test_threads_idle_takes_the_idle_cores_once_the_next_batch_is_in(monkeypatch, tmp_path):
    """--threads-idle: before each gradient step the update checks whether the overlapped
    rollout is done; from then on it runs on that many threads, and the run's own thread
    count is back after the update."""
    cfg = small_cfg(epochs=2, minibatch=32, threads_idle=2, runs_dir=str(tmp_path))
    trainer = train.Trainer(cfg)
    batch = worker_batch(cfg, {"snapshot": [], "scripted": [("random", 1.0)]})
    done = iter([False, False] + [True] * 100)  # the rollout ends before the third step
    monkeypatch.setattr(trainer.workers, "ready", lambda handle: next(done))
    seen = []
    check = trainer._idle_threads(pending=object())

    def step() -> None:
        check()
        seen.append(torch.get_num_threads())
    before = torch.get_num_threads()
    with torch_threads(cfg.threads):
        train.ppo_update(trainer.net, trainer.opt, batch, None, 0.0, cfg,
                         np.random.default_rng(0), before_step=step)
    assert seen[:2] == [1, 1] and set(seen[2:]) == {2} and len(seen) > 3
    assert torch.get_num_threads() == before
    trainer.cfg = small_cfg()
    assert trainer._idle_threads(object()) is None  # off by default


def test_war_risk_term_enters_the_update_only_when_asked():
    """--war-risk-coef adds agents/war_risk.py's term on the rows whose hand offers a risky
    and a safe card: a batch of such rows reports them, a zero weight leaves the update
    exactly as without the term."""
    from helpers import china_card_choice

    from agents.war_risk import WarRisk
    from evenstar_env.env.observation import observe

    g = china_card_choice(["Gulf War", "Wolf Warrior Diplomacy"], 2, tech_done=True)
    n = 8
    batch = {"obs": np.repeat(observe(g, "china")[None], n, 0).astype(np.float32),
             "mask": np.repeat(g.action_mask()[None].astype(bool), n, 0),
             "act": np.full(n, g.action_id("card", "Gulf War")), "logp": np.zeros(n, np.float32),
             "adv": np.zeros(n, np.float32), "ret": np.zeros(n, np.float32)}

    def update(coef: float, war_risk: WarRisk | None):
        torch.manual_seed(0)
        net = train.build_network(NetConfig.for_content(hidden=(16,)))
        opt = torch.optim.SGD(net.parameters(), lr=0.1)
        cfg = small_cfg(epochs=1, minibatch=n, war_risk_coef=coef)
        stats = train.ppo_update(net, opt, batch, None, 0.0, cfg, np.random.default_rng(0),
                                 war_risk=war_risk)
        return stats, [v.detach().clone() for v in net.parameters()]

    wr = WarRisk(g.content)
    _, without = update(0.0, None)
    zero, w_zero = update(0.0, wr)
    on, w_on = update(1.0, wr)
    assert all(torch.equal(a, b) for a, b in zip(without, w_zero, strict=True))
    assert zero["war_risk"] == 0.0 and on["war_risk_rows"] == n
    assert on["war_risk"] == pytest.approx(np.log(2), abs=0.05)  # a fresh net: ~uniform
    assert not all(torch.equal(a, b) for a, b in zip(without, w_on, strict=True))


def test_the_trainers_adam_is_pytorchs_fused_one_and_takes_an_unfused_state():
    """``adam`` (the trainer's, the war-risk DAgger's and the benchmark's optimizer) is
    the fused kernel on a CPU, and continues from a state that the plain one saved (a
    run begun before it, resumed)."""
    import copy

    from experiments.train import adam

    torch.manual_seed(0)
    net = torch.nn.Linear(4, 3)
    plain = torch.optim.Adam(net.parameters(), lr=1e-3, eps=1e-5)
    net(torch.randn(5, 4)).sum().backward()
    plain.step()
    fused = adam(net.parameters(), 1e-3)
    assert fused.defaults["fused"] is True
    fused.load_state_dict(copy.deepcopy(plain.state_dict()))  # (loading shares tensors)
    twin = torch.nn.Linear(4, 3)
    twin.load_state_dict(net.state_dict())
    again = torch.optim.Adam(twin.parameters(), lr=1e-3, eps=1e-5)
    again.load_state_dict(copy.deepcopy(plain.state_dict()))
    x = torch.randn(5, 4)
    for m, opt in ((net, fused), (twin, again)):
        opt.zero_grad()
        m(x).square().sum().backward()
        opt.step()
    assert torch.allclose(net.weight, twin.weight, atol=1e-7)
    assert adam(net.parameters(), 1e-3, "meta").defaults["fused"] is None


def test_exploiters_join_the_league_for_good(smoke_run: Path, tmp_path: Path) -> None:
    """Issue 35: --exploiters puts frozen networks (exploiters of the policy being trained)
    in the league's snapshots; the newest snapshots retire past --pool-size, they do not."""
    import json

    exploiter = smoke_run / "checkpoints" / "latest"
    train.main(["--smoke", "--runs-dir", str(tmp_path), "--exploiters", str(exploiter),
                "--pool-size", "1", "--selfplay-frac", "0", "--scripted-frac", "0"])
    state = json.loads((tmp_path / "smoke" / "checkpoints" / "latest" / "state.json")
                       .read_text())
    league = state["league"]["entries"]
    assert league.get("exploiter0") == "snapshot"
    assert state["update"] > 1 and len(state["snapshots"]) == 1  # the others retired
    assert state["league"]["games"]["exploiter0"] > 0  # it is played
    with pytest.raises(SystemExit) as e:
        train.main(["--smoke", "--runs-dir", str(tmp_path / "x"), "--exploiters",
                    str(tmp_path / "missing")])
    assert "missing" in str(e.value.code)
