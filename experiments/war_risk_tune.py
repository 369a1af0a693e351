"""DAgger on the war-risk positions: a trained policy learns to keep clear of the total wars
it would start, and keeps the rest of its play.

    python -m experiments.war_risk_tune --init runs/ppo/checkpoints/best --out runs/war_risk
    python -m experiments.war_risk_tune --smoke        # < 1 minute, runs/war_risk_smoke

**Why.**  A policy trained by self-play still plays, now and then, a card whose event takes
diplomacy to 1 and loses the game (9.2.3), although the observation flags the card
(``hand_war_risk``) and the hand holds a safe one.  The decisive positions are rare (the
shipped policy met Gulf War flagged at diplomacy 2 in 18 of 13,011 rows), so PPO and its
war-risk term (``experiments/train.py --war-risk-coef``) see them a few times a run and
drift elsewhere meanwhile (docs/agents.md, "Attempts at the total-war losses").

**Each round.**
1. *Visit.*  The current policy plays ``--games`` games with sampled actions (the trainer's
   :class:`~experiments.train.RolloutWorker`): a ``--selfplay-frac`` share against itself,
   the others against one of ``--opponents``, on a seat drawn with ``--china-frac``.  Every
   row of its own that offers both a risky and a safe legal action
   (:meth:`agents.war_risk.WarRisk.offered`: a flagged card, a mode that lets a flagged
   event happen, a tech race the hand needs for a flagged card...) is kept, and an
   ``--anchor-frac`` sample of its other rows.
2. *Label.*  The teacher is the starting policy π₀ with the risky actions taken out: on a
   war-risk row π₀(a | safe), renormalised over the safe legal actions; on any other row
   π₀ itself.  The value target is π₀'s value.
3. *Fit.*  On the rows of every round so far (DAgger's aggregate), cross-entropy to the
   teacher's policy plus ``--vf-coef`` × squared error to its value, each minibatch half
   anchor rows and half war-risk rows, these drawn evenly over the cards they concern;
   ``--epochs`` passes' worth of steps over the aggregate (a fixed budget a round, the
   fresh rows' epochs, converged more slowly: docs/agents.md).

Before each fit the round's fresh rows measure the current policy: the mean probability
it gives the risky cards on war-risk rows, the share of those rows where its greedy choice
is risky, and the KL(teacher ‖ policy) on anchor rows it was not fitted on.
Outputs (``OUT/``): ``checkpoint/`` (an :mod:`agents.networks` checkpoint), ``rounds.csv``,
``config.json``.
"""

from __future__ import annotations

import csv
import io
import json
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from agents.networks import legal_log_probs, load_checkpoint, save_checkpoint, torch_threads
from agents.specs import make_agent
from agents.war_risk import WarRisk
from evenstar_env.content import Content, load_content
from experiments.config_args import config_from_args
from experiments.files import ensure_output_dir, write_text_atomic
from experiments.rows import ArrayRows
from experiments.train import RolloutWorker, TrainConfig, adam


@dataclass
class TuneConfig:
    """Everything a tuning run depends on (saved as OUT/config.json)."""

    init: str = "agents/checkpoints/learned"
    out: str = "runs/war_risk"
    content: str = "shipped"  # a content folder or overlay (a deck on the shipped board)
    rounds: int = 6
    games: int = 1000
    num_envs: int = 64
    selfplay_frac: float = 0.4
    opponents: str = "random,heuristic"
    china_frac: float = 0.5
    anchor_frac: float = 0.05
    epochs: int = 3
    minibatch: int = 512
    lr: float = 1e-4
    vf_coef: float = 0.5
    seed: int = 0
    threads: int = 1

    def check(self) -> None:
        for name in ("rounds", "games", "num_envs", "epochs", "threads"):
            if getattr(self, name) < 1:
                raise ValueError(f"--{name.replace('_', '-')} must be at least 1, "
                                 f"not {getattr(self, name)}")
        if self.minibatch < 2:
            raise ValueError(f"--minibatch must be at least 2 (half anchors, half war-risk "
                             f"rows), not {self.minibatch}")
        if not (0 < self.anchor_frac <= 1 and 0 <= self.selfplay_frac <= 1
                and 0 <= self.china_frac <= 1 and self.lr > 0 and self.vf_coef >= 0):
            raise ValueError("--anchor-frac must be in (0, 1], --selfplay-frac and "
                             "--china-frac in [0, 1], --lr positive, --vf-coef at least 0")
        if self.selfplay_frac < 1 and not self.opponents.strip(","):
            raise ValueError("--opponents is empty but --selfplay-frac is below 1")


SMOKE = dict(out="runs/war_risk_smoke", rounds=2, games=6, num_envs=6, anchor_frac=0.2,
             epochs=1, minibatch=64)


@dataclass
class Rows(ArrayRows):
    """Positions with their teacher: observation, legal mask, teacher log-probabilities
    (-inf off the teacher's support), teacher value, and whether the row is a war-risk row."""

    obs: np.ndarray
    mask: np.ndarray
    target: np.ndarray
    value: np.ndarray
    risky: np.ndarray  # the war-risk rows' risky actions (all False on an anchor row)
    card: np.ndarray  # the card a war-risk row is about (:func:`war_cards`), -1 elsewhere

    @property
    def war(self) -> np.ndarray:
        return self.risky.any(1)



def policy(net: torch.nn.Module, obs: np.ndarray, mask: np.ndarray, chunk: int = 4096
           ) -> tuple[torch.Tensor, torch.Tensor]:
    """Masked log-probabilities and values of `net` on a batch (no gradient)."""
    return legal_log_probs(net, torch.from_numpy(obs), torch.from_numpy(mask), chunk)


def label(teacher: torch.nn.Module, guard: WarRisk, obs: np.ndarray, mask: np.ndarray
          ) -> Rows:
    """The teacher's targets for the rows: π₀, or π₀ given a safe action on war-risk rows."""
    logp, value = policy(teacher, obs, mask)
    m = torch.from_numpy(mask)
    risky, war = guard.offered(torch.from_numpy(obs), m)
    risky &= war[:, None]
    target = logp.masked_fill(risky | ~m, float("-inf"))
    target = target - torch.logsumexp(target, -1, keepdim=True)
    return Rows(obs, mask, target.numpy(), value.numpy(), risky.numpy(),
                war_cards(guard, obs, war.numpy()))


def visit(worker: RolloutWorker, net: torch.nn.Module, cfg: TuneConfig, guard: WarRisk,
          rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, int]:
    """The policy's own rows of `cfg.games` finished games: every war-risk row and an
    `anchor_frac` sample of the others (observations, masks), and the games played."""
    table = {"scripted": [(s, 1.0) for s in cfg.opponents.split(",") if s], "snapshot": []}
    state = {k: v.detach().clone() for k, v in net.state_dict().items()}
    obs, mask, games = [], [], 0
    while games < cfg.games:
        batch = worker.collect(state, table)
        games += len(batch["lengths"])
        _, war = guard.offered(torch.from_numpy(batch["obs"]), torch.from_numpy(batch["mask"]))
        keep = war.numpy() | (rng.random(len(war)) < cfg.anchor_frac)
        obs.append(batch["obs"][keep])
        mask.append(batch["mask"][keep])
    return np.concatenate(obs), np.concatenate(mask), games


def measure(net: torch.nn.Module, rows: Rows) -> tuple[dict[str, float], dict[int, list[int]]]:
    """How `net` plays `rows` (before it is fitted on them): its mean probability of the
    risky actions and its greedy choice on war-risk rows, its KL to the teacher elsewhere;
    and per card the war-risk rows are about, [greedy risky choices, rows]."""
    war = rows.war
    logp, _ = policy(net, rows.obs, rows.mask)
    p = logp.exp().numpy()
    out: dict[str, float] = {"war_rows": int(war.sum()), "anchor_rows": int((~war).sum())}
    by_card: dict[int, list[int]] = {}
    if war.any():
        risky = rows.risky[war]
        greedy = risky[np.arange(risky.shape[0]), p[war].argmax(1)]
        out["p_risky"] = float((p[war] * risky).sum(1).mean())
        out["greedy_risky"] = float(greedy.mean())
        for k, g in zip(rows.card[war].tolist(), greedy.tolist(), strict=True):
            by_card.setdefault(k, [0, 0])
            by_card[k][0] += int(g)
            by_card[k][1] += 1
    if (~war).any():
        t = torch.from_numpy(rows.target[~war])
        kl = torch.where(t > -np.inf, t.exp() * (t - logp[torch.from_numpy(~war)]),
                         torch.zeros_like(t)).sum(1)
        out["anchor_kl"] = float(kl.mean())
    return out, by_card


def fit_steps(rows: Rows, cfg: TuneConfig) -> int:
    """Gradient steps of `cfg.epochs` passes over `rows` at half a minibatch of each kind."""
    war = int(rows.war.sum())
    return cfg.epochs * max(1, max(war, len(rows) - war) // (cfg.minibatch // 2))


def fit(net: torch.nn.Module, opt: torch.optim.Optimizer, rows: Rows, cfg: TuneConfig,
        rng: np.random.Generator, steps: int) -> float:
    """`steps` gradient steps of cross-entropy to the teacher and value error; each minibatch
    half anchor rows and half war-risk rows, these drawn evenly over the cards they are
    about (Gulf War's rare rows as often as Clinton Doctrine's common ones); the mean loss."""
    war, anchor = np.flatnonzero(rows.war), np.flatnonzero(~rows.war)
    _, inverse, counts = np.unique(rows.card[war], return_inverse=True, return_counts=True)
    p_war = 1.0 / counts[inverse]
    p_war /= p_war.sum()
    half = cfg.minibatch // 2
    net.train()
    total = 0.0
    for _ in range(steps):
        parts = [rng.choice(anchor, half)] if len(anchor) else []
        if len(war):
            parts.append(rng.choice(war, half, p=p_war))
        idx = np.concatenate(parts)
        b = rows.take(idx)
        loss = target_loss(net, b.obs, b.mask, b.target, b.value, cfg.vf_coef)
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += loss.item()
    net.eval()
    return total / steps


def target_loss(net: torch.nn.Module, obs: np.ndarray, mask: np.ndarray, target: np.ndarray,
                value: np.ndarray, vf_coef: float, device: str = "cpu") -> torch.Tensor:
    """Cross-entropy of the network's masked policy to the `target` log-probabilities
    (-inf off their support) plus `vf_coef` x the squared error of its value to `value`
    (the rows moved to the network's `device`)."""
    def put(x: np.ndarray) -> torch.Tensor:
        return torch.from_numpy(x).to(device)

    logits, v = net(put(obs), put(mask))  # masked by the network
    logp = torch.log_softmax(logits, -1)
    t = put(target)
    ce = -torch.where(t > -np.inf, t.exp() * logp, torch.zeros_like(logp)).sum(1).mean()
    return ce + vf_coef * ((v - put(value)) ** 2).mean()


def war_cards(guard: WarRisk, obs: np.ndarray, war: np.ndarray) -> np.ndarray:
    """The card each war-risk row (`war`) is about, -1 on the others: the flagged card
    whose mode or event is being chosen, else the rarest flagged card in hand (e.g. the
    card a tech race on another card would leave without a safe play); -1 also on a row
    with no flagged card (a due scoring card, :class:`~agents.war_risk.WarRisk`)."""
    in_hand = (obs[:, guard.flags.numpy()] > 0) & war[:, None]
    rare = np.where(in_hand, in_hand.sum(0), np.iinfo(np.int64).max).argmin(1)
    pending = obs[:, guard.decision_card.numpy()].argmax(1)
    flagged = obs[:, guard.card_flag] > 0
    return np.where(war & flagged, pending, np.where(in_hand.any(1), rare, -1))


def by_card_text(content: Content, by_card: dict[int, list[int]]) -> str:
    """Per card, most rows first: greedy risky choices / war-risk rows, e.g. ``Gulf War 3/61``."""
    top = sorted(by_card.items(), key=lambda kv: -kv[1][1])
    return "; ".join(f"{content.cards[k].name if k >= 0 else 'a due scoring card'} {g}/{n}"
                     for k, (g, n) in top)


def tune(cfg: TuneConfig) -> Path:
    """Run the rounds; returns the checkpoint folder."""
    cfg.check()
    content = load_content(cfg.content)
    net, net_cfg, facts = load_checkpoint(Path(cfg.init), content)
    teacher = load_checkpoint(Path(cfg.init), content)[0].eval()
    for spec in filter(None, cfg.opponents.split(",")):
        make_agent(spec, 0)  # an unknown spec ends the run here, before anything is written
    out = ensure_output_dir(Path(cfg.out))
    write_text_atomic(out / "config.json", json.dumps(asdict(cfg), indent=1) + "\n")
    torch.manual_seed(cfg.seed)
    guard = WarRisk(content)
    rng = np.random.default_rng([cfg.seed, 7])
    train_cfg = TrainConfig(seed=cfg.seed, num_envs=cfg.num_envs, rollout_steps=64,
                            selfplay_frac=cfg.selfplay_frac, scripted_frac=1 - cfg.selfplay_frac,
                            scripted=cfg.opponents, china_frac=cfg.china_frac,
                            content=cfg.content)
    worker = RolloutWorker(asdict(train_cfg), asdict(net_cfg), 0)
    opt = adam(net.parameters(), cfg.lr)
    rows: Rows | None = None
    log: list[dict[str, Any]] = []
    t0 = time.perf_counter()
    for r in range(1, cfg.rounds + 1):
        with torch_threads(cfg.threads):
            obs, mask, games = visit(worker, net, cfg, guard, rng)
            fresh = label(teacher, guard, obs, mask)
            figures, by_card = measure(net, fresh)
            row: dict[str, Any] = {"round": r, "games": games, **figures}
            # DAgger's aggregate, `epochs` passes over it (one copy held, not the parts too)
            rows = fresh if rows is None else Rows.concat([rows, fresh])
            row["loss"] = fit(net, opt, rows, cfg, rng, fit_steps(rows, cfg))
        row["minutes"] = round((time.perf_counter() - t0) / 60, 2)
        row["greedy_risky_by_card"] = by_card_text(content, by_card)
        log.append(row)
        print("  ".join(f"{k} {v:.4g}" if isinstance(v, float) else f"{k} {v}"
                        for k, v in row.items()), flush=True)
    _write_csv(out / "rounds.csv", log)
    path = out / "checkpoint"
    save_checkpoint(path, net, net_cfg,
                    {**facts, "war_risk_tune": {"init": cfg.init, "rounds": log}})
    return path


def _write_csv(path: Path, log: list[dict[str, Any]]) -> None:
    keys = list(dict.fromkeys(k for row in log for k in row))
    buf = io.StringIO(newline="")
    w = csv.DictWriter(buf, keys)
    w.writeheader()
    w.writerows(log)
    write_text_atomic(path, buf.getvalue())


def parse_args(argv: list[str] | None = None) -> TuneConfig:
    return config_from_args(TuneConfig, __doc__ or "", SMOKE, argv)


def main(argv: list[str] | None = None) -> None:
    cfg = parse_args(argv)
    try:
        path = tune(cfg)
    except ValueError as e:
        raise SystemExit(f"war_risk_tune: {e}") from None
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
