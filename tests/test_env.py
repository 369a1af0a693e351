"""The PettingZoo AEC environment and the SB3 single-agent wrapper (issue: env)."""

from __future__ import annotations

import warnings

import numpy as np
import pettingzoo
import pytest
from helpers import action_round
from pettingzoo.test import api_test, render_test, seed_test

import evenstar_env
from agents import RandomAgent
from evenstar_env import IllegalActionError, env, raw_env
from evenstar_env.env.observation import ObservationEncoder
from evenstar_env.wrappers import SingleAgentEnv

# PettingZoo 1.27's api_test warns about every Dict observation of an env that is
# not on its own hard-coded list; removed upstream by PettingZoo PR #1391.
KNOWN_PETTINGZOO_FALSE_POSITIVES = {
    "Observation is not a NumPy array",
    "Observation space for each agent probably should be gymnasium.spaces.box or "
    "gymnasium.spaces.discrete",
}


def test_pettingzoo_api_seed_and_render_tests_pass_without_our_warnings() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(env(), num_cycles=400)
        seed_test(env, num_cycles=400)
        render_test(env)
    # render_test also runs human mode, which headless warns about once (test_render.py);
    # deprecations inside other libraries (matplotlib 3.8 on a new pyparsing) are not ours.
    ours = {str(w.message) for w in caught if "no display" not in str(w.message)
            and not (issubclass(w.category, DeprecationWarning)
                     and "evenstar_env" not in w.filename)} - KNOWN_PETTINGZOO_FALSE_POSITIVES
    assert not ours, ours


def test_registered_with_pettingzoo_make() -> None:
    e = pettingzoo.make("aec", evenstar_env.ENV_ID)
    e.reset(seed=3)
    assert e.possible_agents == ["usa_0", "china_1"]
    assert e.agent_selection in e.possible_agents


def play_aec(e, rng: np.random.Generator) -> dict[str, float]:
    totals = {a: 0.0 for a in e.possible_agents}
    for agent in e.agent_iter():
        obs, reward, term, trunc, _ = e.last()
        totals[agent] += reward
        if term or trunc:
            e.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        e.step(int(rng.choice(legal)))
    return totals


@pytest.mark.parametrize("seed", range(6))
def test_every_agent_receives_its_final_reward(seed: int) -> None:
    e = raw_env()
    e.reset(seed=seed)
    totals = play_aec(e, np.random.default_rng(seed))
    winner = e.game.result.winner
    expected = {"usa_0": 0.0, "china_1": 0.0} if winner is None else {
        "usa_0": 1.0 if winner == "usa" else -1.0, "china_1": 1.0 if winner == "china" else -1.0}
    assert totals == expected


def test_vp_shaping_sums_to_vp_difference_plus_result() -> None:
    e = raw_env(reward="vp_diff", vp_scale=10.0)
    e.reset(seed=4)
    totals = play_aec(e, np.random.default_rng(4))
    g = e.game
    diff = (g.vp["usa"] - g.vp["china"]) / 10.0
    final = {"usa": 1.0, "china": -1.0, None: 0.0}[g.result.winner]
    assert totals["usa_0"] == pytest.approx(diff + final)
    assert totals["china_1"] == pytest.approx(-diff - final)


def test_illegal_action_raises_by_default() -> None:
    e = raw_env()
    e.reset(seed=0)
    mask = e.observe(e.agent_selection)["action_mask"]
    with pytest.raises(IllegalActionError):
        e.step(int(np.flatnonzero(mask == 0)[0]))


@pytest.mark.parametrize("bad", [-1, "num_actions", 2.0, "3", None])
def test_wrapped_env_rejects_malformed_actions(bad) -> None:
    """The wrapped env has no out-of-bounds wrapper: the env's own check names the problem."""
    e = env()
    e.reset(seed=0)
    if bad == "num_actions":
        bad = e.action_space(e.agent_selection).n
    before = e.unwrapped.game.to_dict()
    with pytest.raises(IllegalActionError):
        e.step(bad)
    assert e.unwrapped.game.to_dict() == before  # nothing was applied


def test_illegal_action_lose_ends_the_game() -> None:
    e = raw_env(illegal_action="lose")
    e.reset(seed=0)
    offender = e.agent_selection
    assert all(info["illegal_action"] is False for info in e.infos.values())
    mask = e.observe(offender)["action_mask"]
    bad = int(np.flatnonzero(mask == 0)[0])  # action 0: the id must not be the flag
    assert bad == 0
    e.step(bad)
    assert all(e.terminations.values())
    other = [a for a in e.possible_agents if a != offender][0]
    assert e._cumulative_rewards[offender] == -1.0 and e._cumulative_rewards[other] == 1.0
    for info in e.infos.values():
        assert info["illegal_action"] is True and info["illegal_action_id"] == 0
        assert info["offender"] == offender and info["winner"] == other.split("_")[0]


def test_illegal_action_lose_also_for_a_non_integer() -> None:
    e = raw_env(illegal_action="lose")
    e.reset(seed=0)
    offender = e.agent_selection
    e.step("pass")
    assert all(e.terminations.values())
    assert e.infos[offender]["illegal_action"] is True
    assert e.infos[offender]["illegal_action_id"] == "'pass'"
    assert e._cumulative_rewards[offender] == -1.0


def test_non_acting_agent_has_an_empty_mask() -> None:
    e = raw_env()
    e.reset(seed=2)
    idle = [a for a in e.possible_agents if a != e.agent_selection][0]
    assert not e.observe(idle)["action_mask"].any()
    assert e.observe(e.agent_selection)["action_mask"].any()


def random_positions(n: int, seed: int):
    """Games stopped at random decisions (any phase)."""
    rng = np.random.default_rng(seed)
    for k in range(n):
        g = evenstar_env.Game(seed * 100 + k)
        for _ in range(int(rng.integers(0, 300))):
            if g.is_over:
                break
            g.step(int(rng.choice(g.legal_actions())))
        if not g.is_over:
            yield g


def test_observation_ignores_what_the_player_cannot_see() -> None:
    """Redraw the opponent's hand, secret headline, modifier choice, draws and dice."""
    enc = ObservationEncoder(evenstar_env.Game(0).content)
    changed_hidden = positions = 0
    for g in random_positions(40, 1):
        positions += 1
        for p, side in enumerate(("usa", "china")):
            before = enc.encode(g._m, p)
            for k in range(3):
                r = g.resample_hidden(side, k)
                changed_hidden += not np.array_equal(r.state.card_loc, g.state.card_loc)
                assert np.array_equal(enc.encode(r._m, p), before), (side, g.decision)
    # Most redraws change a hidden card (not all: e.g. an empty opponent hand, no draw pile).
    assert positions >= 5 and changed_hidden >= 3 * positions, (
        "the resampling should change hidden cards")


def test_observation_shows_own_hand_and_public_state() -> None:
    g = action_round(3, "usa")
    enc = ObservationEncoder(g.content)
    L = enc.layout
    p = 0
    before = enc.encode(g._m, p)
    hand_ids = [g.content.card_by_name[n] for n in g.hand("usa")]
    assert before[L["hand"]][hand_ids].all() and before[L["hand"]].sum() == len(hand_ids)
    g.set_influence("Iran", usa=3)
    after = enc.encode(g._m, p)
    iran = g.content.index["Iran"]
    assert after[L["inf_usa"]][iran] == pytest.approx(3 / 5)
    assert not np.array_equal(before, after)


def test_single_agent_wrapper_gives_the_learner_wins_and_losses_from_both_movers() -> None:
    """The learner's terminal reward arrives whichever side's move ends the game."""
    seen = set()
    wrapper = SingleAgentEnv(side="alternate", opponent=RandomAgent(0))
    rng = np.random.default_rng(0)
    for episode in range(300):
        obs, info = wrapper.reset(seed=episode)
        done = False
        while not done:
            legal = np.flatnonzero(wrapper.action_masks())
            obs, reward, done, _, info = wrapper.step(int(rng.choice(legal)))
            assert obs.shape == wrapper.observation_space.shape
        winner = info["winner"]
        expected = 0.0 if winner is None else (1.0 if winner == info["side"] else -1.0)
        assert reward == expected
        seen.add((info["ended_by"], reward))
        if {("opponent", 1.0), ("opponent", -1.0), ("learner", 1.0), ("learner", -1.0)} <= seen:
            break
    assert {("opponent", 1.0), ("opponent", -1.0), ("learner", 1.0), ("learner", -1.0)} <= seen


def test_single_agent_wrapper_trains_with_maskable_ppo_under_subproc_vec_env() -> None:
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import SubprocVecEnv

    venv = SubprocVecEnv([lambda: SingleAgentEnv(side="usa"),
                          lambda: SingleAgentEnv(side="china")])
    try:
        model = MaskablePPO("MlpPolicy", venv, n_steps=32, batch_size=32, n_epochs=1,
                            verbose=0, seed=0)
        model.learn(64)
        assert model.num_timesteps >= 64
    finally:
        venv.close()


def war_risk_view(g, side: str = "china") -> dict[str, object]:
    """The war-risk blocks of `side`'s observation, by card name where per card."""
    enc = ObservationEncoder(g.content)
    v, L = enc.encode(g._m, ("usa", "china").index(side)), enc.layout
    risky = np.flatnonzero(v[L["hand_war_risk"]])
    return {"cards": {g.content.cards[k].name for k in risky},
            "decision": v[L["decision_card_war_risk"]][0], "realign": v[L["realign_war_risk"]][0]}


@pytest.mark.parametrize(("diplomacy", "risky"), [
    (3, {"Clinton Doctrine"}),  # two granted realignments: 3 - 2 reaches 1 (R7, R21)
    (2, {"Clinton Doctrine", "Gulf War", "Smart Power"}),  # one level is enough at 2
])
def test_observation_flags_hand_cards_whose_event_could_start_a_lost_total_war(
        diplomacy: int, risky: set[str]) -> None:
    """9.2.3 / R21: whoever plays a card whose event brings diplomacy to 1 loses."""
    g = action_round(3, "china")
    g.set_hand("china", ["Clinton Doctrine", "Gulf War", "Smart Power", "Taiwan Strait Crisis"])
    g.set_track("diplomacy", diplomacy)
    view = war_risk_view(g)
    assert view["cards"] == risky
    # Taiwan Strait Crisis could cost a level but needs diplomacy 3 to happen at all.
    assert "Taiwan Strait Crisis" not in view["cards"]
    assert view["realign"] == (diplomacy <= 2)  # one attempt costs at most one level (R7)


@pytest.mark.parametrize(("card", "flag"), [
    ("Gulf War", 0.0),  # one level: 3 - 1 stays above 1
    ("Clinton Doctrine", 1.0),  # two granted realignments: 3 - 2 reaches 1 (R7, R21)
])
def test_observation_flags_the_card_of_the_pending_decision(card: str, flag: float) -> None:
    g = action_round(3, "china")
    g.set_hand("china", ["Clinton Doctrine", "Gulf War"])
    g.set_track("diplomacy", 3)
    g.step(g.action_id("card", card))
    assert g.decision.kind == "mode"
    assert war_risk_view(g)["decision"] == flag


def test_war_risk_is_the_players_own_view() -> None:
    """The flags come from the observer's own hand: the opponent's risky cards stay hidden."""
    g = action_round(3, "china")
    g.set_hand("usa", ["Clinton Doctrine"])
    g.set_hand("china", ["Gulf War"])
    g.set_track("diplomacy", 3)
    assert war_risk_view(g, "china")["cards"] == set()
    assert war_risk_view(g, "usa")["cards"] == {"Clinton Doctrine"}
