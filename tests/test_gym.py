"""The Gymnasium side (issue 16): the single-agent wrapper under the standard checkers and
Gymnasium's vector envs, seeds that mean Game(seed) everywhere, terminal steps, truncation,
Game.returns() and the batched envs of evenstar_env.vector."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import evenstar_env
from agents import HeuristicAgent, RandomAgent
from agents.specs import make_agent
from evenstar_env import Game, IllegalActionError, raw_env
from evenstar_env.vector import EvenstarVectorEnv, SelfPlayVectorEnv
from evenstar_env.wrappers import SingleAgentEnv
from experiments import arena, balance


def masked_random(rng: np.random.Generator, masks: np.ndarray) -> np.ndarray:
    """One uniformly random legal action per row; an empty row is an error (IndexError)."""
    return np.array([rng.choice(np.flatnonzero(row)) for row in masks])


# ------------------------------------------------------------ the standard checkers
def test_gymnasium_env_checker_passes_unmodified() -> None:
    from gymnasium.utils.env_checker import check_env

    check_env(SingleAgentEnv())
    check_env(gym.make("Evenstar-v0").unwrapped)


def test_stable_baselines3_env_checker_passes_unmodified() -> None:
    from stable_baselines3.common.env_checker import check_env

    check_env(SingleAgentEnv())


def test_gymnasium_make_takes_side_and_opponent_spec_or_object() -> None:
    env = gym.make("Evenstar-v0", side="china", opponent="heuristic", max_decisions=500)
    obs, info = env.reset(seed=2)
    assert info["side"] == "china" and env.unwrapped.me == 1
    assert isinstance(env.unwrapped.opponent, HeuristicAgent)
    assert obs in env.observation_space
    _, _, _, _, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
    assert info["opponent"] == "heuristic"
    agent = RandomAgent(0)
    assert gym.make("Evenstar-v0", opponent=agent).unwrapped.opponent is agent
    with pytest.raises(ValueError, match="unknown agent spec"):
        gym.make("Evenstar-v0", opponent="grandmaster")


def test_make_vec_builds_the_batched_env() -> None:
    envs = gym.make_vec("Evenstar-v0", num_envs=3, side="usa")
    assert isinstance(envs.unwrapped, EvenstarVectorEnv) and envs.num_envs == 3
    obs, info = envs.reset(seed=0)
    assert obs.shape == (3, envs.single_observation_space.shape[0])
    assert info["action_mask"].shape == (3, envs.single_action_space.n)


# ------------------------------------------------------------ illegal actions
def test_illegal_action_lose_ends_the_episode_with_a_loss_not_silently() -> None:
    env = SingleAgentEnv(side="usa")
    _, info = env.reset(seed=0)
    before = env.game.to_dict()
    illegal = int(np.flatnonzero(~info["action_mask"])[0])
    obs, reward, terminated, truncated, info = env.step(illegal)
    assert (reward, terminated, truncated) == (-1.0, True, False)
    assert info["illegal_action"] is True and info["illegal_action_id"] == illegal
    assert (info["winner"], info["ended_by"]) == ("china", "learner")
    assert env.game.to_dict() == before  # nothing was applied
    assert info["action_mask"].all()  # the terminal convention
    with pytest.raises(RuntimeError, match="finished episode"):
        env.step(0)


def test_illegal_action_raise_names_the_decision() -> None:
    env = SingleAgentEnv(illegal_action="raise")
    _, info = env.reset(seed=0)
    with pytest.raises(IllegalActionError, match="is not legal for the decision"):
        env.step(int(np.flatnonzero(~info["action_mask"])[0]))
    with pytest.raises(ValueError, match="illegal_action"):
        SingleAgentEnv(illegal_action="ignore")


# ------------------------------------------------------------ Gymnasium's vector envs
@pytest.mark.parametrize("vector", ["sync", "async"])
def test_gymnasium_vector_envs_survive_autoreset_with_masked_random_actions(vector) -> None:
    """Default NEXT_STEP autoreset: the step after an episode's end samples from the final
    mask (all True) and its action is ignored; 2,000 steps over two envs."""
    fns = [lambda: SingleAgentEnv(side="usa"), lambda: SingleAgentEnv(side="china")]
    envs = (gym.vector.SyncVectorEnv(fns) if vector == "sync"
            else gym.vector.AsyncVectorEnv(fns))
    assert envs.metadata["autoreset_mode"] == gym.vector.AutoresetMode.NEXT_STEP
    rng = np.random.default_rng(0)
    try:
        _, info = envs.reset(seed=0)
        results = []
        for _ in range(2000):
            _, reward, term, trunc, info = envs.step(masked_random(rng, info["action_mask"]))
            assert not trunc.any()
            results += list(reward[term])
            assert info["action_mask"][term].all()
    finally:
        envs.close()
    assert len(results) > 20 and set(results) <= {-1.0, 0.0, 1.0} and -1.0 in results


def test_batched_env_plays_what_sync_vector_env_plays() -> None:
    """Same seeds, same actions (illegal ones included: "lose"), across autoresets."""
    n = 3
    ref = gym.vector.SyncVectorEnv([lambda: SingleAgentEnv(opponent="random")] * n)
    vec = EvenstarVectorEnv(n, opponent="random")
    obs_r, info_r = ref.reset(seed=11)
    obs_v, info_v = vec.reset(seed=11)
    assert np.array_equal(vec.seeds, [11, 12, 13])
    rng = np.random.default_rng(1)
    ended = 0
    for t in range(600):
        assert np.array_equal(obs_r, obs_v) and np.array_equal(info_r["action_mask"],
                                                              info_v["action_mask"]), t
        acts = masked_random(rng, info_r["action_mask"])
        if t % 97 == 0:
            acts[0] = int(np.argmin(info_r["action_mask"][0]))  # illegal unless all True
        obs_r, rew_r, term_r, trunc_r, info_r = ref.step(acts)
        obs_v, rew_v, term_v, trunc_v, info_v = vec.step(acts)
        assert np.array_equal(rew_r, rew_v) and np.array_equal(term_r, term_v)
        assert np.array_equal(trunc_r, trunc_v)
        ended += int(term_r.sum())
    assert ended > 10


# ------------------------------------------------------------ seeds
@pytest.mark.parametrize("seed", [0, 7, 123456])
def test_a_seed_is_the_same_game_in_game_aec_and_vector_envs(seed: int) -> None:
    e = raw_env()
    e.reset(seed=seed)
    assert e.game.to_dict() == Game(seed=seed).to_dict()
    sp = SelfPlayVectorEnv(2)
    sp.reset(seed=seed)
    assert sp.games[0].to_dict() == Game(seed=seed).to_dict()
    assert sp.games[1].to_dict() == Game(seed=seed + 1).to_dict()


@pytest.mark.parametrize(("seed", "side"), [(3, "usa"), (4, "china")])
def test_single_agent_env_replays_the_arena_and_balance_game_of_its_seed(seed, side) -> None:
    """reset(seed=s) plays Game(s) and reseeds the opponent as the arena seeds that side's
    agent (2s for the US, 2s+1 for China): the learner playing the arena's other agent
    reproduces the arena's game move for move, and balance's game of seed s is the same."""
    p = ("usa", "china").index(side)
    spec = {"usa": "random", "china": "cautious"}
    record = arena._play(arena.Job(seed, spec["usa"], spec["china"]))
    job = balance.Job("shipped", seed, spec["usa"], spec["china"])
    assert balance.play_job(job, {"name": "shipped"})["actions"] == record.actions
    learner = make_agent(spec[side], 2 * seed + p)
    env = SingleAgentEnv(side=side, opponent=spec[("china", "usa")[p]])
    env.reset(seed=seed)
    done = False
    while not done:
        g = env.game
        _, _, done, _, info = env.step(learner.act(None, g.action_mask(), g))
    assert info["winner"] == record.winner
    replay = Game(seed)
    for a in record.actions:
        replay.step(a)
    assert env.game.to_dict() == replay.to_dict()


def test_seeded_reset_fixes_the_opponents_random_choices() -> None:
    """Two envs with heuristic opponents and the same learner moves agree step for step,
    also over the unseeded resets that follow a seeded one."""
    envs = [SingleAgentEnv(side="alternate", opponent="heuristic", max_decisions=300)
            for _ in range(2)]
    trails: list[list[dict]] = [[], []]
    for k, env in enumerate(envs):
        rng = np.random.default_rng(0)
        for episode in range(3):
            _, info = env.reset(seed=5) if episode == 0 else env.reset()
            trails[k].append(env.game.to_dict())
            done = False
            while not done:
                _, _, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(
                    info["action_mask"]))))
                done = term or trunc
                trails[k].append(env.game.to_dict())
    assert trails[0] == trails[1]


# ------------------------------------------------------------ returns and truncation
def test_game_returns_are_zero_until_the_end_then_the_result() -> None:
    g = Game(1)
    assert g.returns() == {"usa": 0.0, "china": 0.0}
    rng = np.random.default_rng(1)
    while not g.is_over:
        g.step(int(rng.choice(g.legal_actions())))
    winner = g.result.winner
    expected = {"usa": 0.0, "china": 0.0} if winner is None else {
        s: (1.0 if s == winner else -1.0) for s in ("usa", "china")}
    assert g.returns() == expected


def test_max_decisions_truncates_the_single_agent_env() -> None:
    env = SingleAgentEnv(side="usa", max_decisions=40)
    _, info = env.reset(seed=9)
    rng = np.random.default_rng(9)
    rewards = []
    while True:
        _, reward, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(
            info["action_mask"]))))
        rewards.append(reward)
        if term or trunc:
            break
    assert trunc and not term and not env.game.is_over
    assert env.game.decisions >= 40 and info["result"] == "truncated"
    assert rewards[-1] == 0.0 and env.game.returns() == {"usa": 0.0, "china": 0.0}
    assert info["action_mask"].all()


def test_max_decisions_truncates_both_aec_agents() -> None:
    e = raw_env(max_decisions=25)
    e.reset(seed=9)
    rng = np.random.default_rng(9)
    for _agent in e.agent_iter():
        obs, reward, term, trunc, _ = e.last()
        if term or trunc:
            assert trunc and not term and reward == 0.0
            e.step(None)
            continue
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert all(e.truncations.values()) and not any(e.terminations.values())
    assert e.game.decisions >= 25 and not e.game.is_over


# ------------------------------------------------------------ the self-play vector env
@pytest.mark.parametrize("reward", ["win_loss", "vp_diff"])
def test_selfplay_vector_env_equals_aec_games_stepped_one_by_one(reward: str) -> None:
    n, seed = 3, 20
    vec = SelfPlayVectorEnv(n, reward=reward, max_decisions=400)
    obs, mask, player = vec.reset(seed=seed)
    refs = []
    for i in range(n):
        e = raw_env(reward=reward, max_decisions=400)
        e.reset(seed=seed + i)
        refs.append(e)
    rng = np.random.default_rng(0)
    finished = [0] * n
    for _ in range(500):
        for i, e in enumerate(refs):
            if finished[i]:
                continue
            agent = e.agent_selection
            seen = e.observe(agent)
            assert player[i] == ("usa_0", "china_1").index(agent)
            assert np.array_equal(obs[i], seen["observation"])
            assert np.array_equal(mask[i], seen["action_mask"].astype(bool))
        actions = masked_random(rng, mask)
        obs, mask, player, rew, term, trunc = vec.step(actions)
        for i, e in enumerate(refs):
            if finished[i]:
                continue
            e.step(int(actions[i]))
            assert rew[i].tolist() == pytest.approx([e.rewards["usa_0"], e.rewards["china_1"]])
            assert term[i] == all(e.terminations.values())
            assert trunc[i] == all(e.truncations.values())
            if term[i] or trunc[i]:
                finished[i] = 1
                assert player[i] == -1 and mask[i].all()
    assert sum(finished) >= 1


def test_selfplay_vector_env_autoresets_the_next_step_from_the_slot_generator() -> None:
    vec = SelfPlayVectorEnv(1)
    _, mask, _ = vec.reset(seed=4)
    rng = np.random.default_rng(4)
    term = trunc = np.array([False])
    while not (term[0] or trunc[0]):
        _, mask, player, rew, term, trunc = vec.step(masked_random(rng, mask))
    assert rew[0].sum() == 0.0  # zero-sum
    obs, mask, player, rew, term, trunc = vec.step([0])  # ignored: the slot restarts
    expected = int(gym.utils.seeding.np_random(4)[0].integers(0, 2**31 - 1))
    assert vec.seeds[0] == expected
    assert vec.games[0].to_dict() == Game(expected).to_dict()
    assert not rew.any() and not term[0] and player[0] in (0, 1)


def test_selfplay_vector_env_illegal_action_loses_for_the_mover() -> None:
    vec = SelfPlayVectorEnv(2)
    _, mask, player = vec.reset(seed=0)
    actions = [int(np.argmin(mask[0])), int(np.flatnonzero(mask[1])[0])]
    _, mask2, player2, rew, term, _ = vec.step(actions)
    mover = player[0]
    assert term.tolist() == [True, False]
    assert rew[0, mover] == -1.0 and rew[0, 1 - mover] == 1.0 and mask2[0].all()
    with pytest.raises(IllegalActionError):
        strict = SelfPlayVectorEnv(1, illegal_action="raise")
        _, mask, _ = strict.reset(seed=0)
        strict.step([int(np.argmin(mask[0]))])


def test_registration_ids_match() -> None:
    assert evenstar_env.ENV_ID in gym.registry


def test_an_illegal_option_id_during_an_influence_decision_is_a_clear_error() -> None:
    """Its error message used to crash (AttributeError) on an effect without options; the
    single-agent checkers' random actions hit it."""
    g = Game(0)
    assert g.decision.kind == "influence" and "eff" in g.decision.context
    with pytest.raises(IllegalActionError, match="is not legal"):
        g.step(g.action_id("option", 0))


def test_batched_env_partial_reset_restarts_only_the_masked_slots() -> None:
    vec = EvenstarVectorEnv(3, side="usa")
    vec.reset(seed=30)
    vec.step([np.flatnonzero(m)[0] for m in vec.action_masks()])
    before = [core.game.to_dict() for core in vec.cores]
    vec.reset(seed=[None, 7, None], options={"reset_mask": np.array([False, True, False])})
    assert vec.seeds.tolist() == [30, 7, 32]
    assert vec.cores[0].game.to_dict() == before[0] and vec.cores[2].game.to_dict() == before[2]
    assert vec.cores[1].game.to_dict()["state"] != before[1]["state"]


# ------------------------------------------------------------ sides by seed
@pytest.mark.parametrize("start", [0, 7, 1000])
def test_alternate_side_follows_the_seed_so_consecutive_seeds_cover_both_sides(
        start: int) -> None:
    env = SingleAgentEnv(side="alternate")
    sides = [env.reset(seed=s)[1]["side"] for s in range(start, start + 4)]
    assert sorted(sides) == ["china", "china", "usa", "usa"]
    assert sides == [("usa", "china")[s % 2] for s in range(start, start + 4)]
    # the same seed, the same side, whatever came before it
    assert env.reset(seed=start + 1)[1]["side"] == sides[1]
    # an unseeded reset: the side of the drawn seed
    _, info = env.reset()
    assert info["side"] == ("usa", "china")[info["seed"] % 2]
    venv = EvenstarVectorEnv(4, side="alternate")
    venv.reset(seed=start)
    assert [("usa", "china")[c.me] for c in venv.cores] == sides


# ------------------------------------------------------------ defaults, rendering, masks
def test_vp_scale_defaults_to_the_recommended_200_in_every_env() -> None:
    import inspect

    from evenstar_env.conventions import VP_SCALE
    from evenstar_env.learner_game import LearnerGame

    assert VP_SCALE == 200.0
    for cls in (SingleAgentEnv, EvenstarVectorEnv, SelfPlayVectorEnv, raw_env, LearnerGame):
        assert inspect.signature(cls).parameters["vp_scale"].default == VP_SCALE, cls
    # a whole game's shaping is the final VP difference / 200, beside the result
    env = SingleAgentEnv(side="usa", reward="vp_diff")
    _, info = env.reset(seed=3)
    rng, total, done = np.random.default_rng(0), 0.0, False
    while not done:
        _, reward, done, _, info = env.step(rng.choice(np.flatnonzero(info["action_mask"])))
        total += reward
    g = env.game
    result = g.returns()["usa"]
    assert total == pytest.approx(result + (g.vp["usa"] - g.vp["china"]) / 200)


@pytest.mark.parametrize("mode", ["ansi", "rgb_array"])
def test_render_modes_pass_gymnasiums_render_checks(mode: str) -> None:
    import warnings

    from gymnasium.utils.env_checker import check_env

    env = gym.make("Evenstar-v0", render_mode=mode)
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message=".*render.*")
        check_env(env.unwrapped)  # with a spec: every render mode is made and checked
    env.reset(seed=0)
    frame = env.render()
    if mode == "ansi":
        assert isinstance(frame, str) and "Turn 1" in frame
    else:
        assert frame.dtype == np.uint8 and frame.ndim == 3 and frame.shape[2] == 3
    assert SingleAgentEnv().render() is None
    with pytest.raises(ValueError, match="render_mode must be one of"):
        SingleAgentEnv(render_mode="human")


def test_action_masks_reachable_through_gymnasium_make() -> None:
    from sb3_contrib.common.maskable.utils import get_action_masks
    from stable_baselines3.common.vec_env import DummyVecEnv

    env = gym.make("Evenstar-v0", opponent="random")
    with pytest.raises(RuntimeError, match="call reset"):  # order enforced by the env itself
        env.step(0)
    _, info = env.reset(seed=0)
    assert np.array_equal(env.action_masks(), info["action_mask"])
    venv = DummyVecEnv([lambda: gym.make("Evenstar-v0")])
    venv.reset()
    assert get_action_masks(venv).shape == (1, env.action_space.n)
