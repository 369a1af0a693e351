"""Expert iteration: the network learns the choices of the search built on it (issue 35).

    python -m experiments.expert_iteration --init agents/checkpoints/learned --out runs/exit
    python -m experiments.expert_iteration --smoke          # < 1 minute, runs/exit_smoke

**Each round.**
1. *Search.*  ``--games`` games of ``alphaism`` on the current network (``--sims``
   simulations a decision, the prior mixed with ``--eps`` of the uniform distribution so
   that the search visits the alternatives, ``--sim`` taking the fine decisions inside
   simulations), ``--workers`` processes: against itself, or in a ``--scripted-frac``
   share of the games against ``--scripted`` (seats alternating), so that the rows also
   cover the positions other players lead to.  ``--root halving --playout N`` searches
   with the halving root and play-out leaves (agents/alphaism.py).  At every searched
   decision the row keeps the mover's observation, the legal mask and the search's
   improved policy (the root's visit shares; for the halving root, Gumbel MuZero's
   ``softmax(log prior + sigma(completed Q))``); when the game ends, the mover's result.
2. *Fit.*  On the rows of every round so far: cross-entropy of the network's policy to
   the search's improved policy plus ``--vf-coef`` x the squared error
   of its value to the game's result, ``--epochs`` passes of ``--minibatch`` rows, on
   ``--device``.  The next round searches with the fitted network.

**From recorded games** (``--records FILE[,FILE...]``, one round): the rows are those of
arenas' ``games.jsonl`` instead of new searches.  Every game is replayed; at each decision
a ``--searcher`` seat (agent spec kinds, comma-separated: ``rollout`` or
``rollout,alphaism``) searched (not a point of
influence or a target, more than one legal action, not a scoring card due), the target is
the action it took (probability 1) and the value target its result.  The search's games
against the bare policy (``evenstar arena rollout:64 learned``) are then both the measure
of the search and its expert data.  ``--deviation-weight W`` draws the rows where the
search left the network's arg-max W times as often in the fit.

**Resuming.**  Each search game's rows are saved to ``OUT/games_round_K/SEED.npz`` as the
game ends; rerun the command on the same ``--out`` and a killed run goes on from there
(finished rounds loaded, not refitted; ``--rounds``, ``--workers``, ``--threads`` and
``--device`` may change, other settings are refused).

``OUT/round_K/`` and ``OUT/checkpoint/`` are :mod:`agents.networks` checkpoints (the
last round's), ``OUT/rounds.csv`` says per round: rows, how often the search's choice
was the network's own arg-max, the mean entropy of the targets, the loss before and
after the fit and the minutes.  Measure with ``evenstar arena learned:OUT/checkpoint
learned``.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import time
import zipfile
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import MISSING, asdict, dataclass, fields
from multiprocessing import get_context
from pathlib import Path
from typing import Any

import numpy as np
import torch

from agents.networks import load_checkpoint, save_checkpoint, torch_threads
from evenstar_env import Game
from evenstar_env.content import load_content
from evenstar_env.env.observation import observe
from experiments.config_args import config_from_args
from experiments.devices import resolve_device
from experiments.files import (
    ensure_output_dir,
    folder_lock,
    write_bytes_atomic,
    write_text_atomic,
)
from experiments.rows import ArrayRows
from experiments.train import adam
from experiments.war_risk_tune import _write_csv, target_loss


@dataclass
class ExitConfig:
    """Everything a run depends on (saved as OUT/config.json)."""

    init: str = "agents/checkpoints/learned"
    out: str = "runs/exit"
    content: str = "shipped"
    rounds: int = 1
    games: int = 60
    sims: int = 64
    eps: float = 0.25
    c: float = 1.5
    sim: str = "network"
    root: str = "puct"
    playout: int = 0
    scripted_frac: float = 0.0
    scripted: str = "heuristic"
    workers: int = 2
    epochs: int = 4
    minibatch: int = 256
    lr: float = 5e-5
    vf_coef: float = 0.5
    seed: int = 97_000
    threads: int = 1
    device: str = "cpu"
    records: str = ""
    searcher: str = "rollout"
    deviation_weight: float = 1.0

    def check(self) -> None:
        for name in ("rounds", "games", "sims", "workers", "epochs", "threads"):
            if getattr(self, name) < 1:
                raise ValueError(f"--{name} must be at least 1, not {getattr(self, name)}")
        if self.root not in ("puct", "halving") or self.playout < 0:
            raise ValueError("--root must be puct or halving, --playout at least 0")
        if self.minibatch < 2 or not (0 <= self.eps <= 1 and 0 <= self.scripted_frac <= 1
                                      and self.lr > 0 and self.deviation_weight >= 1
                                      and self.vf_coef >= 0 and self.c > 0):
            raise ValueError("--minibatch must be at least 2, --eps and --scripted-frac in "
                             "[0, 1], --lr and --c positive, --vf-coef at least 0, "
                             "--deviation-weight at least 1")


SMOKE = dict(out="runs/exit_smoke", games=2, sims=4, workers=1, epochs=1, minibatch=64)


@dataclass
class Rows(ArrayRows):
    """Searched positions: observation, legal mask, target log-probabilities (the visit
    shares; -inf off them), the mover's result, and whether the search chose the
    network's own arg-max."""

    obs: np.ndarray
    mask: np.ndarray
    target: np.ndarray
    value: np.ndarray
    agree: np.ndarray



def share_target(shares: np.ndarray, legal: np.ndarray, n_actions: int) -> np.ndarray:
    """Visit shares over the `legal` actions as log-probabilities over all actions
    (-inf where the search made no visit and off the legal actions)."""
    out = np.full(n_actions, -np.inf, dtype=np.float32)
    seen = shares > 0
    out[legal[seen]] = np.log(shares[seen] / shares[seen].sum())
    return out


def play_game(args: tuple[str, str, int, dict[str, Any], str | None]
              ) -> dict[str, np.ndarray]:
    """One game of the search, against itself or (`opponent`, an agent spec) against
    that agent on the seat the seed's parity gives it; the search's rows as arrays."""
    from agents.alphaism import AlphaISMCTSAgent
    from agents.specs import make_agent

    init, content, seed, kw, opponent = args
    g = Game(seed, content=load_content(content))
    agents = {side: AlphaISMCTSAgent.from_checkpoint(init, seed=2 * seed + k, **kw)
              for k, side in enumerate(("usa", "china"))}
    if opponent:
        agents[("usa", "china")[seed % 2]] = make_agent(opponent, 2 * seed + 7)
    obs, mask, target, agree, movers = [], [], [], [], []
    while not g.is_over:
        mover, m = g.current_player, g.action_mask()
        ag = agents[mover]
        searching = isinstance(ag, AlphaISMCTSAgent) and np.count_nonzero(m) > 1
        x = observe(g, mover) if searching else None
        a = ag.act(None, m, g)
        legal = np.flatnonzero(m)
        shares = ag.visit_shares(legal) if searching else None
        if shares is not None:
            obs.append(np.asarray(x, dtype=np.float32))
            mask.append(m.astype(bool))
            target.append(share_target(shares, legal, m.size))
            prior = ag.last_root.prior
            agree.append(a == max(prior, key=prior.__getitem__))
            movers.append(mover)
        g.step(a)
    result = g.returns()
    n = len(obs)
    return {"obs": np.stack(obs) if n else np.zeros((0, 0), np.float32),
            "mask": np.stack(mask) if n else np.zeros((0, 0), bool),
            "target": np.stack(target) if n else np.zeros((0, 0), np.float32),
            "value": np.array([result[s] for s in movers], dtype=np.float32),
            "agree": np.array(agree, dtype=bool)}


def searched(g: Game, legal: np.ndarray) -> bool:
    """Whether a search agent searches the pending decision of `g` (agents/ismcts.py's
    split: not a fine decision, a choice, not a scoring card that must be played now)."""
    from agents.ismcts import FINE_KINDS, scoring_card_due

    return (g.decision.kind not in FINE_KINDS and legal.size > 1
            and scoring_card_due(g, legal) is None)


def record_rows(path: Path, searcher: str, content: Any, net: torch.nn.Module
                ) -> tuple[Rows, int]:
    """The rows of the `searcher` seats of the arena games in `path` (module docstring),
    and the number of games; `agree` says where the taken action is `net`'s own arg-max."""
    from experiments.arena import game_key, parse_game
    from experiments.gamelog import read

    games = read(path, parse_game, game_key).games
    kinds = searcher.split(",")
    obs, mask, target, value = [], [], [], []
    for rec in games:
        seats = {s for s, spec in rec.agents.items() if spec.split(":")[0] in kinds}
        g, movers = Game(rec.seed, content=content), []
        for a in rec.actions:
            mover, m = g.current_player, g.action_mask()
            legal = np.flatnonzero(m)
            if mover in seats and searched(g, legal):
                obs.append(np.asarray(observe(g, mover), dtype=np.float32))
                mask.append(m.astype(bool))
                t = np.full(m.size, -np.inf, dtype=np.float32)
                t[a] = 0.0
                target.append(t)
                movers.append(mover)
            g.step(a)
        result = g.returns()
        value += [result[s] for s in movers]
    if not obs:
        raise ValueError(f"{path}: no decision of a {searcher!r} seat to learn from")
    x, mk = np.stack(obs), np.stack(mask)
    with torch.no_grad():
        logits = torch.cat([net(torch.as_tensor(x[k:k + 512]), torch.as_tensor(mk[k:k + 512]))[0]
                            for k in range(0, len(x), 512)])
    chosen = np.stack(target).argmax(1)
    return Rows(x, mk, np.stack(target), np.array(value, dtype=np.float32),
                logits.argmax(1).numpy() == chosen), len(games)


def _seeded_game(job: tuple[str, str, int, dict[str, Any], str | None]
                 ) -> tuple[int, dict[str, np.ndarray]]:
    return job[2], play_game(job)


def save_game(path: Path, rows: dict[str, np.ndarray]) -> None:
    """One game's rows as a compressed ``.npz``, written atomically."""
    buf = io.BytesIO()
    np.savez_compressed(buf, **rows)
    write_bytes_atomic(path, buf.getvalue())


def load_game(path: Path) -> dict[str, np.ndarray] | None:
    """A game saved by :func:`save_game`; None (the file moved aside to ``*.bad``) if it
    cannot be read, so that the game is played again."""
    try:
        with np.load(path) as z:
            return {k: z[k] for k in Rows.names()}
    except (OSError, ValueError, KeyError, zipfile.BadZipFile):
        path.replace(path.with_suffix(".bad"))
        return None


def search_rows(cfg: ExitConfig, net_path: Path, seeds: list[int],
                store: Path | None = None) -> Rows:
    """The searched rows of one game per seed, played in `cfg.workers` processes.  With
    `store`, each game's rows go to ``STORE/SEED.npz`` as soon as it ends, and the games
    already there are read instead of played again: a killed round resumes."""
    kw = {"simulations": cfg.sims, "prior_mix": cfg.eps, "c_puct": cfg.c,
          "sim_fine": cfg.sim, "root": cfg.root, "playout": cfg.playout or None}
    rng = np.random.default_rng([cfg.seed, seeds[0]])
    jobs = [(str(net_path), cfg.content, s, kw,
             cfg.scripted if rng.random() < cfg.scripted_frac else None) for s in seeds]
    done: dict[int, dict[str, np.ndarray]] = {}
    if store is not None:
        for s in seeds:
            if (store / f"{s}.npz").exists() and (game := load_game(store / f"{s}.npz")):
                done[s] = game
    todo = [j for j in jobs if j[2] not in done]
    with contextlib.ExitStack() as stack:
        if cfg.workers == 1 or len(todo) <= 1:
            played = map(_seeded_game, todo)
        else:
            pool = stack.enter_context(ProcessPoolExecutor(
                min(cfg.workers, len(todo)), mp_context=get_context("spawn")))
            played = (f.result() for f in as_completed(pool.submit(_seeded_game, j)
                                                       for j in todo))
        for seed, game in played:
            if store is not None:
                save_game(store / f"{seed}.npz", game)
            done[seed] = game
    games = [done[s] for s in seeds if len(done[s]["value"])]
    if not games:
        raise ValueError("no searched decision in these games (all were forced)")
    return Rows(*(np.concatenate([x[f] for x in games]) for f in Rows.names()))


def mean_loss(net: torch.nn.Module, rows: Rows, cfg: ExitConfig, chunk: int = 2048) -> float:
    """The fit's loss on `rows` (no gradient)."""
    with torch.no_grad():
        parts = [target_loss(net, r.obs, r.mask, r.target, r.value, cfg.vf_coef, cfg.device)
                 .item() * len(r) for r in (rows.take(np.arange(k, min(k + chunk, len(rows))))
                                            for k in range(0, len(rows), chunk))]
    return sum(parts) / len(rows)


def fit(net: torch.nn.Module, rows: Rows, cfg: ExitConfig, rng: np.random.Generator) -> None:
    """`cfg.epochs` passes of minibatch steps of the policy and value targets; the rows
    where the search left the network's arg-max are drawn `cfg.deviation_weight` times as
    often as the others (the few rows that teach something new)."""
    opt = adam(net.parameters(), cfg.lr, cfg.device)
    weight = np.where(rows.agree, 1.0, cfg.deviation_weight)
    net.train()
    for _ in range(cfg.epochs * max(1, len(rows) // cfg.minibatch)):
        b = rows.take(rng.choice(len(rows), min(cfg.minibatch, len(rows)), replace=False,
                                 p=weight / weight.sum()))
        loss = target_loss(net, b.obs, b.mask, b.target, b.value, cfg.vf_coef, cfg.device)
        opt.zero_grad()
        loss.backward()
        opt.step()
    net.eval()


def target_entropy(rows: Rows) -> float:
    """The mean entropy of the visit-share targets (nats)."""
    t = rows.target.astype(np.float64)
    p = np.where(np.isfinite(t), np.exp(np.where(np.isfinite(t), t, 0.0)), 0.0)
    return float(-(p * np.where(p > 0, np.log(np.where(p > 0, p, 1.0)), 0.0)).sum(1).mean())


RESUME_FREE = ("rounds", "workers", "threads", "device")  # settings a resumed run may change


def previous_rounds(out: Path, cfg: ExitConfig) -> list[dict[str, Any]]:
    """The rounds a run in `out` has finished (rounds.csv), after checking it had the
    same settings (those of RESUME_FREE aside); [] for a new folder."""
    old_path = out / "config.json"
    if not old_path.exists():
        return []
    # a setting newer than the run's config.json ran as its default does (e.g. --root puct)
    old = {**{f.name: f.default for f in fields(ExitConfig) if f.default is not MISSING},
           **json.loads(old_path.read_text())}
    diff = [f"--{k.replace('_', '-')} {old.get(k)!r}, not {v!r}"
            for k, v in asdict(cfg).items() if k not in RESUME_FREE and old.get(k) != v]
    if diff:
        raise ValueError(f"{out} holds a run with other settings ({'; '.join(diff)}): "
                         "rerun it with its own settings to resume it, or use another --out")
    if not (out / "rounds.csv").exists():
        return []
    with (out / "rounds.csv").open(newline="") as f:
        return [{k: json.loads(v) for k, v in row.items()} for row in csv.DictReader(f)]


def run(cfg: ExitConfig) -> Path:
    """The rounds; returns the final checkpoint folder.  Rerun on the same `--out` with
    the same settings, a killed run resumes: finished rounds are loaded, not refitted, and
    a round's finished search games (``OUT/games_round_K/``) are not played again."""
    cfg.check()
    cfg.device = resolve_device(cfg.device)
    content = load_content(cfg.content)
    net, net_cfg, facts = load_checkpoint(Path(cfg.init), content)
    net.to(cfg.device)
    out = ensure_output_dir(Path(cfg.out))
    with folder_lock(out):
        log = previous_rounds(out, cfg)
        write_text_atomic(out / "config.json", json.dumps(asdict(cfg), indent=1) + "\n")
        current, rows = Path(cfg.init), None
        t0 = time.perf_counter()
        for r in range(1, (1 if cfg.records else cfg.rounds) + 1):
            if cfg.records:
                net.cpu()
                parts = [record_rows(Path(f), cfg.searcher, content, net)
                         for f in cfg.records.split(",")]
                fresh, n_games = Rows.concat([p for p, _ in parts]), sum(n for _, n in parts)
                net.to(cfg.device)
            else:
                seeds = list(range(cfg.seed + (r - 1) * cfg.games, cfg.seed + r * cfg.games))
                fresh = search_rows(cfg, current, seeds, out / f"games_round_{r}")
                n_games = len(seeds)
            rows = fresh if rows is None else Rows.concat([rows, fresh])
            current = out / f"round_{r}"
            if r <= len(log):  # finished before: its fitted network, not a new fit
                net = load_checkpoint(current, content)[0].to(cfg.device)
                continue
            torch.manual_seed(cfg.seed + r - 1)
            # round 1 keeps the generator of the runs measured before rounds could resume
            rng = np.random.default_rng([cfg.seed, 35] if r == 1 else [cfg.seed, 35, r])
            with torch_threads(cfg.threads):
                before = mean_loss(net, rows, cfg)
                fit(net, rows, cfg, rng)
                after = mean_loss(net, rows, cfg)
            extra = {**facts, "expert_iteration": {"round": r, "init": cfg.init,
                                                   "rows": len(rows)}}
            save_checkpoint(current, net, net_cfg, extra)
            log.append({"round": r, "games": n_games, "rows": len(fresh),
                        "search_agrees": round(float(fresh.agree.mean()), 4),
                        "target_entropy": round(target_entropy(fresh), 4),
                        "loss_before": round(before, 4), "loss_after": round(after, 4),
                        "minutes": round((time.perf_counter() - t0) / 60, 2)})
            print("  ".join(f"{k} {v}" for k, v in log[-1].items()), flush=True)
            _write_csv(out / "rounds.csv", log)
        save_checkpoint(out / "checkpoint", net, net_cfg, {
            **facts, "expert_iteration": {"rounds": log, "init": cfg.init}})
    return out / "checkpoint"


def main(argv: list[str] | None = None) -> None:
    cfg = config_from_args(ExitConfig, __doc__ or "", SMOKE, argv)
    try:
        path = run(cfg)
    except ValueError as e:
        raise SystemExit(f"expert_iteration: {e}") from None
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
