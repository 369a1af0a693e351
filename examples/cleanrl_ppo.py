"""Masked PPO in one file, CleanRL style, on Evenstar's vector env (native core).

    python examples/cleanrl_ppo.py                  # ~3 minutes on one core, then 200 games
    python examples/cleanrl_ppo.py --total-steps 2000 --eval-games 2   # a smoke run

The learner plays both sides (``side="alternate"``: the seed decides) against the random
agent inside ``EvenstarVectorEnv``; illegal actions are masked out of the policy with
``info["action_mask"]``.  Autoreset is Gymnasium's NEXT_STEP: the step after a game ended
restarts that game and is not a transition, so it is left out of the loss.  At the end
``evenstar_env.evaluate`` plays the greedy policy against random on fresh paired seeds
(both sides) and prints the win rate with its Wilson interval.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch
from torch import nn

import evenstar_env
from evenstar_env.vector import EvenstarVectorEnv


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--total-steps", type=int, default=400_000, help="learner steps")
    p.add_argument("--minutes", type=float, default=10.0, help="stop training after this")
    p.add_argument("--num-envs", type=int, default=64)
    p.add_argument("--num-steps", type=int, default=64, help="rollout length per env")
    p.add_argument("--lr", type=float, default=5e-4)
    p.add_argument("--gamma", type=float, default=0.99)
    p.add_argument("--gae-lambda", type=float, default=0.95)
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--minibatches", type=int, default=4)
    p.add_argument("--clip", type=float, default=0.2)
    p.add_argument("--ent-coef", type=float, default=0.01)
    p.add_argument("--eval-games", type=int, default=100, help="seeds, each on both sides")
    p.add_argument("--seed", type=int, default=1)
    return p.parse_args(argv)


class Agent(nn.Module):
    """A shared trunk, a policy head over the flat action space and a value head."""

    def __init__(self, obs_size: int, n_actions: int, hidden: int = 128) -> None:
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(obs_size, hidden), nn.Tanh(),
                                   nn.Linear(hidden, hidden), nn.Tanh())
        self.pi, self.v = nn.Linear(hidden, n_actions), nn.Linear(hidden, 1)

    def forward(self, obs: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = self.trunk(obs)
        logits = self.pi(h).masked_fill(~mask, -1e9)  # illegal actions get no probability
        return logits, self.v(h).squeeze(-1)

    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Greedy actions (a batch policy for evenstar_env.evaluate)."""
        with torch.no_grad():
            logits, _ = self(torch.as_tensor(obs), torch.as_tensor(mask))
        return logits.argmax(-1).numpy()


def train(args: argparse.Namespace) -> Agent:
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)
    envs = EvenstarVectorEnv(args.num_envs, side="alternate", opponent="random",
                             reward="vp_diff")
    n, t_len = args.num_envs, args.num_steps
    obs_size, n_actions = envs.single_observation_space.shape[0], envs.single_action_space.n
    agent = Agent(obs_size, n_actions)
    opt = torch.optim.Adam(agent.parameters(), lr=args.lr, eps=1e-5)
    buf_obs = torch.zeros((t_len, n, obs_size))
    buf_mask = torch.zeros((t_len, n, n_actions), dtype=torch.bool)
    buf_act, buf_logp, buf_val, buf_rew, buf_term, buf_valid = (
        torch.zeros((t_len, n)) for _ in range(6))
    obs, info = envs.reset(seed=args.seed)
    fresh = np.zeros(n, dtype=bool)  # the row's last step ended a game: this one restarts
    steps, t0, results = 0, time.time(), []
    while steps < args.total_steps and time.time() - t0 < 60 * args.minutes:
        for t in range(t_len):  # ---- rollout
            o, m = torch.as_tensor(obs), torch.as_tensor(info["action_mask"])
            with torch.no_grad():
                logits, value = agent(o, m)
            dist = torch.distributions.Categorical(logits=logits)
            action = dist.sample()
            buf_obs[t], buf_mask[t], buf_act[t] = o, m, action
            buf_logp[t], buf_val[t] = dist.log_prob(action), value
            buf_valid[t] = torch.as_tensor(~fresh, dtype=torch.float32)
            obs, reward, term, trunc, info = envs.step(action.numpy())
            buf_rew[t], buf_term[t] = torch.as_tensor(reward), torch.as_tensor(term | trunc)
            for i in np.flatnonzero(term & ~fresh):
                results.append(float(info["winner"][i] == info["side"][i]))
            fresh = term | trunc
        steps += int(buf_valid.sum())
        with torch.no_grad():  # ---- GAE, cut at every game's end
            _, next_value = agent(torch.as_tensor(obs), torch.as_tensor(info["action_mask"]))
            adv, last = torch.zeros_like(buf_rew), torch.zeros(n)
            for t in reversed(range(t_len)):
                nv = next_value if t == t_len - 1 else buf_val[t + 1]
                alive = 1.0 - buf_term[t]
                delta = buf_rew[t] + args.gamma * nv * alive - buf_val[t]
                last = delta + args.gamma * args.gae_lambda * alive * last
                adv[t] = last
            ret = adv + buf_val
        flat = torch.flatten  # ---- PPO update over the valid transitions
        b_obs, b_mask = buf_obs.reshape(-1, obs_size), buf_mask.reshape(-1, n_actions)
        b_act, b_logp, b_adv, b_ret, b_valid = (flat(x) for x in
                                                (buf_act, buf_logp, adv, ret, buf_valid))
        idx = torch.nonzero(b_valid).squeeze(-1)
        for _ in range(args.epochs):
            for mb in idx[torch.randperm(len(idx))].chunk(args.minibatches):
                logits, value = agent(b_obs[mb], b_mask[mb])
                dist = torch.distributions.Categorical(logits=logits)
                ratio = (dist.log_prob(b_act[mb]) - b_logp[mb]).exp()
                a = b_adv[mb]
                a = (a - a.mean()) / (a.std() + 1e-8)
                pg = torch.max(-a * ratio, -a * ratio.clamp(1 - args.clip, 1 + args.clip))
                loss = (pg.mean() + 0.5 * ((value - b_ret[mb]) ** 2).mean()
                        - args.ent_coef * dist.entropy().mean())
                opt.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), 0.5)
                opt.step()
        recent = results[-200:]
        print(f"{steps:>8} steps {time.time() - t0:6.0f} s  games {len(results):>5}  "
              f"win rate (last {len(recent)}) {np.mean(recent) if recent else 0:.2f}",
              flush=True)
    return agent


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    agent = train(args)
    result = evenstar_env.evaluate(agent.act, "random", games=args.eval_games, seed=90_000)
    lo, hi = result.ci95
    print(f"greedy policy vs random, {2 * args.eval_games} games on both sides: "
          f"{result.win_rate:.1%} [{lo:.1%}, {hi:.1%}] (US {result.row('usa')['win_rate']:.0%},"
          f" China {result.row('china')['win_rate']:.0%})")


if __name__ == "__main__":
    main()
