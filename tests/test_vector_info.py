"""Per-row infos of the vector envs (issue 37): the keys of the single-agent env in
Gymnasium's vector convention (arrays + ``_key`` masks), ``final_obs`` / ``final_info`` on
the rows that ended, ``illegal_action`` one bool everywhere."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.vector import SyncVectorEnv
from helpers import same_info

from evenstar_env.vector import EvenstarVectorEnv, SelfPlayVectorEnv
from evenstar_env.wrappers import SingleAgentEnv

END_KEYS = {"result", "winner", "ended_by", "vp", "illegal_action_id", "decisions"}


def actions(rng: np.random.Generator, masks: np.ndarray, p_illegal: float) -> np.ndarray:
    """A random legal action per row, now and then an illegal one (action 0 where it is)."""
    out = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
    for i, m in enumerate(masks):
        if rng.random() < p_illegal and not m.all():
            out[i] = np.flatnonzero(~m)[0]
    return out


@pytest.mark.parametrize("backend", ["python", "native"])
def test_vector_env_info_is_the_single_agent_info_batched(backend: str) -> None:
    """EvenstarVectorEnv's info equals SyncVectorEnv's over SingleAgentEnvs (the same games,
    illegal actions and cut-offs), plus final_obs / final_info on exactly the ended rows."""
    n, kw = 3, {"opponent": "random", "max_decisions": 120}
    venv = EvenstarVectorEnv(n, backend=backend, **kw)
    sync = SyncVectorEnv([lambda: SingleAgentEnv(**kw) for _ in range(n)])
    (_, info), (_, ref) = venv.reset(seed=4), sync.reset(seed=[4, 5, 6])
    same_info(info, ref, "reset")
    rng = np.random.default_rng(1)
    seen: set[str] = set()
    for step in range(400):
        acts = actions(rng, venv.action_masks(), 0.01)
        obs, _, term, trunc, info = venv.step(acts)
        _, _, _, _, ref = sync.step(acts)
        same_info({k: v for k, v in info.items() if "final" not in k}, ref, f"step {step}")
        ended = term | trunc
        assert np.array_equal(info.get("_final_obs", np.zeros(n, bool)), ended)
        for i in np.flatnonzero(ended):
            assert np.array_equal(info["final_obs"][i], obs[i])
            final = info["final_info"]
            assert final["illegal_action"][i] == info["illegal_action"][i]
            assert final["result"][i] == info["result"][i] and final["seed"][i] == info["seed"][i]
            seen.add("illegal" if info["illegal_action"][i] else str(trunc[i]))
        assert info["illegal_action"].dtype == bool
    assert seen == {"illegal", "True", "False"}  # an illegal move, a cut-off, a real end


@pytest.mark.parametrize("backend", ["python", "native"])
def test_selfplay_vector_env_is_a_complete_vector_env_with_row_infos(backend: str) -> None:
    n = 4
    env = SelfPlayVectorEnv(n, backend=backend, max_decisions=150)
    assert env.observation_space.shape == (n, env.single_observation_space.shape[0])
    assert env.action_space.shape == (n,)
    obs, masks, player = env.reset(seed=0)
    assert obs in env.observation_space and set(env.info) >= {"seed", "side", "action_mask"}
    assert list(env.info["seed"]) == [0, 1, 2, 3]
    rng = np.random.default_rng(2)
    seen = set()
    for _ in range(500):
        acts = actions(rng, masks, 0.01)
        obs, masks, new_player, reward, term, trunc = env.step(acts)
        info = env.info
        assert np.array_equal(info["_illegal_action"], player >= 0)  # the rows that stepped
        for i in np.flatnonzero(term | trunc):
            mover = ("usa", "china")[player[i]]
            assert info["side"][i] == mover
            if term[i]:
                assert info["ended_by"][i] == mover
            if info["illegal_action"][i]:
                assert info["illegal_action_id"][i] == acts[i] and reward[i, player[i]] == -1
                assert info["winner"][i] != mover
            elif term[i]:
                w = info["winner"][i]
                assert reward[i].sum() == 0 and (w is None or reward[i, ("usa", "china").index(w)]
                                                 > 0)
            else:
                assert info["result"][i] == "truncated"
            assert np.array_equal(info["final_obs"][i], obs[i])
            seen.add((bool(info["illegal_action"][i]), bool(trunc[i])))
        player = new_player
    assert seen == {(True, False), (False, True), (False, False)}
    env.close()


def test_selfplay_info_is_the_same_on_both_backends() -> None:
    envs = [SelfPlayVectorEnv(3, backend=b, max_decisions=100) for b in ("python", "native")]
    masks = [e.reset(seed=9)[1] for e in envs][0]
    rng = np.random.default_rng(3)
    for step in range(300):
        acts = actions(rng, masks, 0.01)
        masks = [e.step(acts)[1] for e in envs][0]
        same_info(envs[0].info, envs[1].info, f"step {step}")
