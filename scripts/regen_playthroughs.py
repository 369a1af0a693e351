"""Record the golden playthroughs in tests/playthroughs/ (run when a rule change is intended).

Each file holds the env seed, the actions, and per step a digest of the acting
agent's observation, action mask and reward; tests/test_playthroughs.py replays
the actions and compares the digests.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np

from agents import CautiousRandomAgent
from evenstar_env import raw_env

OUT = Path(__file__).resolve().parent.parent / "tests" / "playthroughs"
GAMES = {"random_seed1": (1, "random"), "random_seed2": (2, "random"),
         "cautious_seed3": (3, "cautious")}


def digest(agent: str, obs: dict, reward: float) -> str:
    h = hashlib.blake2b(digest_size=8)
    h.update(agent.encode())
    h.update(np.ascontiguousarray(obs["observation"], dtype=np.float32).tobytes())
    h.update(np.ascontiguousarray(obs["action_mask"], dtype=np.int8).tobytes())
    h.update(repr(round(float(reward), 6)).encode())
    return h.hexdigest()


def replay(seed: int, actions: list[int] | None, policy: str = "random") -> dict:
    """Play (policy) or replay (actions) a game through the AEC API; return the record."""
    env = raw_env()
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    cautious = CautiousRandomAgent(seed)
    played: list[int] = []
    steps: list[str] = []
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        steps.append(digest(agent, obs, reward))
        if term or trunc:
            env.step(None)
            continue
        if actions is not None:
            a = actions[len(played)]
        elif policy == "cautious":
            a = cautious.act(obs, obs["action_mask"].astype(bool), env.game)
        else:
            a = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        played.append(a)
        env.step(a)
    return {"seed": seed, "actions": played, "digests": steps,
            "result": env.game.result.reason}


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for name, (seed, policy) in GAMES.items():
        rec = replay(seed, None, policy)
        (OUT / f"{name}.json").write_text(json.dumps(rec))
        print(f"{name}: {len(rec['actions'])} actions, {rec['result']}")


if __name__ == "__main__":
    main()
