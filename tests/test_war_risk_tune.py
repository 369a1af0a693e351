"""DAgger on the war-risk positions (experiments/war_risk_tune.py): the teacher's labels,
the fit, and a run end to end."""

from __future__ import annotations

import csv

import numpy as np
import pytest
import torch
from helpers import china_card_choice

from agents.learned_agent import LearnedAgent
from agents.networks import NetConfig, build_network, save_checkpoint
from agents.war_risk import WarRisk
from evenstar_env.engine.constants import M_ROUND
from evenstar_env.env.observation import observe
from experiments.war_risk_tune import (
    Rows,
    TuneConfig,
    by_card_text,
    fit,
    fit_steps,
    label,
    main,
    measure,
    war_cards,
)

HAND = ["Gulf War", "Wolf Warrior Diplomacy", "Smart Power"]  # two US war cards, China's own


def positions(diplomacies: list[int]) -> tuple[np.ndarray, np.ndarray, object]:
    """China's observations and legal masks choosing a card from HAND at each diplomacy."""
    games = [china_card_choice(HAND, d, tech_done=True) for d in diplomacies]
    obs = np.stack([np.asarray(observe(g, "china"), dtype=np.float32) for g in games])
    mask = np.stack([g.action_mask().astype(bool) for g in games])
    return obs, mask, games[0]


def test_rows_about_a_due_scoring_card_are_counted_under_their_own_name():
    """A war-risk row with no flagged card (a scoring card due, R13) is reported as such,
    not under whichever card comes last in the deck."""
    g1 = china_card_choice(["Europe Scoring", "Brexit"], 3, tech_done=True)
    g1.state.misc[M_ROUND] = 7
    g2 = china_card_choice(HAND, 2, tech_done=True)
    obs = np.stack([np.asarray(observe(g, "china"), dtype=np.float32) for g in (g1, g2)])
    mask = np.stack([g.action_mask().astype(bool) for g in (g1, g2)])
    guard = WarRisk(g1.content)
    _, war = guard.offered(torch.from_numpy(obs), torch.from_numpy(mask))
    assert war.tolist() == [True, True]
    cards = war_cards(guard, obs, war.numpy())
    assert cards[0] == -1 and g1.content.cards[cards[1]].name in ("Gulf War", "Smart Power")
    text = by_card_text(g1.content, {-1: [1, 2], int(cards[1]): [0, 1]})
    assert text.startswith("a due scoring card 1/2; ")


@pytest.fixture(scope="module")
def net_cfg():
    torch.manual_seed(0)
    return NetConfig.for_content(hidden=(32,))


def test_the_teacher_drops_only_the_risky_cards_of_a_war_risk_row(net_cfg):
    """9.2.3, R21: at diplomacy 2 either US war card would set off a total war China loses;
    the label is the teacher's policy over the other legal actions.  At 3 nothing is risky and the
    label is the teacher's policy itself."""
    obs, mask, g = positions([2, 3])
    teacher = build_network(net_cfg).eval()
    rows = label(teacher, WarRisk(g.content), obs, mask)
    with torch.no_grad():
        logits, value = teacher(torch.from_numpy(obs))
    p = torch.softmax(logits.masked_fill(~torch.from_numpy(mask), -1e9), -1).numpy()
    risky = sorted(g.action_id("card", name) for name in ("Gulf War", "Smart Power"))
    assert rows.war.tolist() == [True, False]
    assert np.flatnonzero(rows.risky[0]).tolist() == risky
    want = np.where(mask[0], p[0], 0.0)
    want[risky] = 0.0
    np.testing.assert_allclose(np.exp(rows.target[0]), want / want.sum(), atol=1e-6)
    np.testing.assert_allclose(np.exp(rows.target[1]), p[1], atol=1e-6)
    np.testing.assert_allclose(rows.value, value.numpy())


def test_fitting_moves_the_risky_mass_to_the_safe_cards_and_keeps_the_other_rows(net_cfg):
    obs, mask, g = positions([2, 3])
    teacher = build_network(net_cfg).eval()
    with torch.no_grad():  # a teacher that likes Gulf War
        teacher.policy.bias[g.action_id("card", "Gulf War")] = 4.0
    rows = label(teacher, WarRisk(g.content), obs, mask)
    student = build_network(net_cfg)
    student.load_state_dict(teacher.state_dict())
    before, by_card = measure(student.eval(), rows)
    assert before["war_rows"] == 1 and before["greedy_risky"] == 1.0
    gulf = g.content.cards.index(next(c for c in g.content.cards if c.name == "Gulf War"))
    assert by_card == {gulf: [1, 1]}  # the rarest of the two flagged cards names the row
    assert before["p_risky"] > 0.8 and before["anchor_kl"] == pytest.approx(0, abs=1e-6)
    cfg = TuneConfig(epochs=300, minibatch=4, lr=1e-2)
    opt = torch.optim.Adam(student.parameters(), lr=cfg.lr)
    fit(student, opt, rows, cfg, np.random.default_rng(0), fit_steps(rows, cfg))
    after, by_card = measure(student.eval(), rows)
    assert after["greedy_risky"] == 0.0 and after["p_risky"] < 0.1 and by_card == {gulf: [0, 1]}
    assert after["anchor_kl"] < 0.05


def test_a_smoke_run_writes_a_checkpoint_that_plays(net_cfg, tmp_path):
    init = tmp_path / "init"
    save_checkpoint(init, build_network(net_cfg), net_cfg)
    out = tmp_path / "tuned"
    main(["--smoke", "--init", str(init), "--out", str(out), "--opponents", "random"])
    with (out / "rounds.csv").open() as f:
        rounds = list(csv.DictReader(f))
    assert [r["round"] for r in rounds] == ["1", "2"]
    assert all(int(r["games"]) >= 6 and int(r["anchor_rows"]) > 0 for r in rounds)
    agent = LearnedAgent(out / "checkpoint")
    assert agent.facts["war_risk_tune"]["init"] == str(init)
    g = china_card_choice(HAND, 2, tech_done=True)
    assert g.action_mask()[agent.act(None, g.action_mask(), g)]


@pytest.mark.parametrize("bad", [["--rounds", "0"], ["--anchor-frac", "0"], ["--minibatch", "1"],
                                 ["--selfplay-frac", "0.5", "--opponents", ""]])
def test_bad_settings_end_in_one_line(bad, tmp_path):
    with pytest.raises(SystemExit, match="war_risk_tune: "):
        main(["--smoke", "--out", str(tmp_path), *bad])


@pytest.mark.parametrize("bad", ["init", "opponent", "out"])
def test_a_bad_init_opponent_or_folder_ends_in_one_line_and_writes_nothing(bad, tmp_path):
    (tmp_path / "a_file").write_text("not a folder")
    out = tmp_path / ("a_file" if bad == "out" else "tuned")
    args = ["--smoke", "--out", str(out), "--init",
            str(tmp_path / "missing") if bad == "init" else "agents/checkpoints/learned",
            "--opponents", "bogus" if bad == "opponent" else "random"]
    with pytest.raises(SystemExit, match="war_risk_tune: .*(missing|bogus|a_file)"):
        main(args)
    assert not (tmp_path / "tuned").exists()


def test_rows_concatenate_and_take(net_cfg):
    obs, mask, g = positions([2, 3])
    rows = label(build_network(net_cfg).eval(), WarRisk(g.content), obs, mask)
    both = Rows.concat([rows, rows.take(np.array([0]))])
    assert len(both) == 3 and both.war.tolist() == [True, False, True]


@pytest.mark.parametrize("kind", ["mlp", "structured"])
def test_policy_in_chunks_is_the_policy_in_one_pass(kind):
    """The teacher and the measurements run `chunk` rows a forward pass (memory); the
    log-probabilities and values are those of one pass, and an empty batch is empty."""
    from experiments.war_risk_tune import policy

    obs, mask, _ = positions([2, 3, 2, 3, 3])
    cfg = NetConfig.for_content(kind=kind, hidden=(16,),
                                options={"token": 4} if kind == "structured" else {})
    net = build_network(cfg).eval()
    whole, chunked = policy(net, obs, mask, chunk=len(obs)), policy(net, obs, mask, chunk=2)
    assert chunked[0].shape == whole[0].shape and chunked[1].shape == (5,)
    for a, b in zip(whole, chunked, strict=True):
        assert torch.allclose(a, b)
    empty = policy(net, obs[:0], mask[:0])
    assert empty[0].shape == (0, cfg.n_actions) and empty[1].shape == (0,)
