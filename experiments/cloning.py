"""Behaviour cloning of the heuristic, then DAgger: the warm start of PPO.

    python -m experiments.cloning --out runs/cloning/mlp            # data, BC, checkpoint
    python -m experiments.cloning --data runs/cloning/mlp/data.npz --net structured \\
        --out runs/cloning/structured                                # same data, other net
    python -m experiments.cloning --init runs/cloning/mlp --games 4800 --seed 4 \
        --epochs 3 --dagger 0 --out runs/cloning/more               # go on with new games
    python -m experiments.cloning --smoke                           # < 30 s

**Data.** ``--games`` games are played over ``--workers`` processes: most are
heuristic vs heuristic, a share pits the heuristic against an ε-noisy heuristic
or against `FastPolicy` (positions the heuristic itself never reaches).  A game
is stored as a record, not as observations: its seed, the specs of its players,
its actions, and for every decision the heuristic's *label* (the action it chose
or, for the noisy player, would have chosen; -1 where no heuristic was asked)
and, where its look-ahead found ties, the tied best actions (it picks among
them at random, so they are its policy: the soft target).  Observations are
re-encoded from a replay when training (the encoder is deterministic).
Training rows are the labelled decisions with at least 2 legal actions.

**BC.** A network of agents/networks.py is fitted by cross-entropy on the
legal actions (against the heuristic's tie distribution) and a value head on
the game result from the mover's view.  The last ``--holdout`` share of the
games is held out; agreement (the net's most likely legal action is one the
heuristic rated best) overall and per decision kind is printed per epoch and
saved to ``OUT/cloning.json``.

**DAgger.** Each of ``--dagger`` rounds: the current net plays greedily,
against the heuristic (both sides) and against itself; a heuristic labels every
position the net visits (its ``act`` on a clone of the game); the net is
retrained on the union.  The checkpoint (``OUT/``, networks.save_checkpoint)
carries the training facts in ``extra``.  ``--init`` starts from a checkpoint (its
kind and sizes) instead of a fresh ``--net``; another ``--seed`` plays new games.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import time
import zipfile
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
from scipy import sparse

from agents.fast_policy import FastPolicy
from agents.heuristic import HeuristicAgent
from evenstar_env import Game
from evenstar_env.env.observation import DECISION_KINDS, encoder_for
from experiments.arena import ignore_sigint

SIDES = ("usa", "china")
DATA_SEED0 = 10_000_000  # cloning games use seeds far from the arena's (5000+, 30000+)
DAGGER_SEED0 = 20_000_000
# The share of each pairing in the cloning data (sides alternate game by game).
MIX = (("heuristic", "heuristic", 0.75), ("heuristic", "noisy", 0.15), ("heuristic", "fast", 0.10))
NOISE = 0.25  # the noisy heuristic's chance of a uniformly random legal action


# ----------------------------------------------------------------- labelling players
class LabellingHeuristic(HeuristicAgent):
    """The heuristic, also telling its label and the actions it rated best."""

    def reseed(self, seed: int | None) -> None:
        super().reseed(seed)
        self.label, self.best, self._nested = -1, (), 0

    def act(self, observation: Any, action_mask: np.ndarray, game: Game | None = None) -> int:
        self.best = ()
        self.label = super().act(observation, action_mask, game)
        if self.label not in self.best:
            self.best = (self.label,)
        return self.label

    def _best_actions(self, g: Game, side: str, legal: list[int]) -> list[int]:
        best = super()._best_actions(g, side, legal)
        if not self._nested:  # the decision's own look-ahead, not an event's follow-up
            self.best = tuple(best)
        return best

    def _event_value(self, g: Game, side: str, card: int) -> float:
        self._nested += 1
        try:
            return super()._event_value(g, side, card)
        finally:
            self._nested -= 1

    def follow(self, game: Game, action: int) -> None:
        """Another player took `action` in this side's place: plan for the card it chose."""
        d = game.decision
        if d.kind == "card" and (self._plan is None
                                 or self._plan[0] != game.action_group(action)[1]):
            self._card(game, d, [action])


class Labelled:
    """Plays `player`'s moves (or, without one, the heuristic's with ε noise) and keeps
    the heuristic's label of every position it meets."""

    def __init__(self, labeller: LabellingHeuristic, player: Any = None, epsilon: float = 0.0,
                 seed: int | None = None, name: str = "labelled") -> None:
        self.labeller, self.player, self.epsilon, self.name = labeller, player, epsilon, name
        self.rng = np.random.default_rng(seed)
        self.label, self.best = -1, ()

    def act(self, observation: Any, action_mask: np.ndarray, game: Game | None = None) -> int:
        if game is None:
            raise ValueError("Labelled needs the game")
        self.label = self.labeller.act(observation, action_mask, game.clone())
        self.best = self.labeller.best
        if self.player is not None:
            a = int(self.player.act(observation, action_mask, game))
        elif self.rng.random() < self.epsilon:
            a = int(self.rng.choice(np.flatnonzero(action_mask)))
        else:
            a = self.label
        if a != self.label:
            self.labeller.follow(game, a)
        return a


# ----------------------------------------------------------------- records
@dataclass
class Record:
    """One game, replayable from its seed and actions, with the heuristic's labels."""

    seed: int
    agents: tuple[str, str]  # (usa, china) specs
    actions: np.ndarray  # int16 [decisions]
    labels: np.ndarray  # int16 [decisions], -1 where no heuristic was asked
    ties: dict[int, tuple[int, ...]]  # decision index -> the tied best actions (>= 2)
    winner: int  # 0 usa, 1 china, -1 draw
    reason: str = ""  # how the game ended ("" if cut short)


def make_player(spec: str, seed: int, checkpoint: str | None = None) -> Any:
    """A data-generation player: heuristic, noisy, fast, or net (needs `checkpoint`)."""
    if spec == "heuristic":
        return LabellingHeuristic(seed)
    if spec == "noisy":
        return Labelled(LabellingHeuristic(seed), epsilon=NOISE, seed=seed + 1, name="noisy")
    if spec == "fast":
        return FastPolicy(seed)
    if spec == "net":
        if checkpoint is None:
            raise ValueError("the net player needs a checkpoint")
        return Labelled(LabellingHeuristic(seed), player=_learned(checkpoint), name="net")
    raise ValueError(f"unknown cloning player {spec!r} (heuristic, noisy, fast, net)")


@lru_cache(maxsize=2)
def _learned(checkpoint: str) -> Any:
    import torch

    from agents.learned_agent import LearnedAgent

    torch.set_num_threads(1)  # one position at a time: one thread is fastest
    return LearnedAgent(checkpoint)


def play_record(job: tuple[int, str, str, str | None, int]) -> Record:
    """Play one game `(seed, usa spec, china spec, checkpoint, max decisions)` and record
    its labels; a game cut short by `max decisions` (> 0) counts as a draw."""
    seed, usa, china, ckpt, cap = job
    players = {"usa": make_player(usa, 2 * seed, ckpt), "china": make_player(china, 2 * seed + 1,
                                                                             ckpt)}
    g = Game(seed)
    actions, labels, ties = [], [], {}
    while not g.is_over and not (cap and len(actions) >= cap):
        mask = g.action_mask()
        p = players[g.current_player]
        a = int(p.act(None, mask, g))
        label = int(getattr(p, "label", -1))
        best = getattr(p, "best", ())
        if len(best) > 1:
            ties[len(actions)] = tuple(int(b) for b in best)
        actions.append(a)
        labels.append(label)
        g.step(a)
    winner, reason = g.result if g.is_over else (None, "")
    return Record(seed, (usa, china), np.asarray(actions, np.int16), np.asarray(labels, np.int16),
                  ties, -1 if winner is None else SIDES.index(winner), reason)


def play_records(jobs: Sequence[tuple[int, str, str, str | None, int]], workers: int = 2,
                 on_record: Callable[[list[Record]], None] | None = None) -> list[Record]:
    """Play the jobs over `workers` processes (results in job order); `on_record` sees
    the records so far after every game."""
    done: list[Record] = []
    if workers <= 1:
        results: Iterable[Record] = map(play_record, jobs)
        pool = None
    else:
        pool = mp.get_context("spawn").Pool(workers, initializer=ignore_sigint)
        results = pool.imap(play_record, jobs, chunksize=1)
    try:
        for rec in results:
            done.append(rec)
            if on_record is not None:
                on_record(done)
    finally:
        if pool is not None:
            pool.terminate()
    return done


def cloning_jobs(games: int, seed0: int = DATA_SEED0) -> list[tuple[int, str, str, None]]:
    """`games` seeds split by :data:`MIX`, the heuristic on alternate sides."""
    jobs = []
    bounds = np.cumsum([share for *_, share in MIX])
    for k in range(games):  # games 2j and 2j + 1 are one pairing, sides swapped
        pair = MIX[int(np.searchsorted(bounds, (k // 2 % 20 + 0.5) / 20))]
        a, b = pair[0], pair[1]
        jobs.append((seed0 + k, a, b, None) if k % 2 == 0 else (seed0 + k, b, a, None))
    return jobs


def dagger_jobs(games: int, checkpoint: str, seed0: int) -> list[tuple[int, str, str, str]]:
    """Half the games net vs heuristic (sides alternating), half net vs net."""
    pairs = (("net", "heuristic"), ("heuristic", "net"), ("net", "net"), ("net", "net"))
    return [(seed0 + k, *pairs[k % 4], checkpoint) for k in range(games)]


def save_records(path: Path, records: Sequence[Record]) -> None:
    """Write the records as one compressed ``.npz`` of flat arrays."""
    lens = [len(r.actions) for r in records]
    off = np.concatenate([[0], np.cumsum(lens)]).astype(np.int64)
    tie_at, tie_len, tie_act = [], [], []
    for r, o in zip(records, off, strict=False):
        for i, best in sorted(r.ties.items()):
            tie_at.append(o + i)
            tie_len.append(len(best))
            tie_act.extend(best)
    empty = np.zeros(0, np.int16)
    arrays = {
        "seed": np.array([r.seed for r in records], np.int64),
        "agents": np.array([r.agents for r in records], dtype=str).reshape(-1, 2),
        "winner": np.array([r.winner for r in records], np.int8), "offsets": off,
        "reason": np.array([r.reason for r in records], dtype=str),
        "actions": np.concatenate([r.actions for r in records]) if records else empty,
        "labels": np.concatenate([r.labels for r in records]) if records else empty,
        "tie_at": np.array(tie_at, np.int64), "tie_len": np.array(tie_len, np.int16),
        "tie_actions": np.array(tie_act, np.int16)}
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    with tmp.open("wb") as fh:
        np.savez_compressed(fh, **arrays)
    tmp.replace(path)  # a reader never sees half a file


RECORD_KEYS = frozenset({"seed", "agents", "winner", "offsets", "actions", "labels",
                         "tie_at", "tie_len", "tie_actions"})


class RecordsError(ValueError):
    """A file given as records is not one :func:`save_records` wrote."""


def load_records(path: Path) -> list[Record]:
    """The records saved by :func:`save_records`."""
    # Every `z[key]` decompresses the whole array again: read each one once.
    try:
        z = dict(np.load(path, allow_pickle=False))
        missing = RECORD_KEYS - z.keys()
    except (OSError, ValueError, zipfile.BadZipFile) as e:
        raise RecordsError(f"{path}: not a records file ({e})") from None
    if missing:
        raise RecordsError(f"{path}: not a records file (no {', '.join(sorted(missing))})")
    off, acts, labels, tie_actions = z["offsets"], z["actions"], z["labels"], z["tie_actions"]
    ties: list[dict[int, tuple[int, ...]]] = [{} for _ in z["seed"]]
    starts = np.concatenate([[0], np.cumsum(z["tie_len"])])
    for at, lo, hi in zip(z["tie_at"], starts[:-1], starts[1:], strict=True):
        g = int(np.searchsorted(off, at, side="right")) - 1
        ties[g][int(at - off[g])] = tuple(int(a) for a in tie_actions[lo:hi])
    reasons = z["reason"] if "reason" in z else [""] * len(ties)
    return [Record(int(s), (str(a[0]), str(a[1])), acts[off[g]:off[g + 1]],
                   labels[off[g]:off[g + 1]], ties[g], int(w), str(why))
            for g, (s, a, w, why) in enumerate(zip(z["seed"], z["agents"], z["winner"], reasons,
                                                    strict=True))]


# ----------------------------------------------------------------- training rows
@dataclass
class Rows:
    """Training rows: sparse observations, masks, soft targets, labels, results, kinds."""

    obs: sparse.csr_matrix  # float32 [n, obs size]
    masks: np.ndarray  # bool [n, actions]
    targets: sparse.csr_matrix  # float32 [n, actions]: the heuristic's tie distribution
    labels: np.ndarray  # int64 [n]
    values: np.ndarray  # float32 [n]: the result from the mover's view
    kinds: np.ndarray  # int8 [n]: index in DECISION_KINDS

    def __len__(self) -> int:
        return int(self.labels.size)

    def take(self, idx: np.ndarray) -> Rows:
        """The rows at `idx`."""
        return Rows(self.obs[idx], self.masks[idx], self.targets[idx], self.labels[idx],
                    self.values[idx], self.kinds[idx])

    @staticmethod
    def concat(parts: Sequence[Rows]) -> Rows:
        return Rows(sparse.vstack([p.obs for p in parts], format="csr"),
                    np.concatenate([p.masks for p in parts]),
                    sparse.vstack([p.targets for p in parts], format="csr"),
                    np.concatenate([p.labels for p in parts]),
                    np.concatenate([p.values for p in parts]),
                    np.concatenate([p.kinds for p in parts]))


def replay_rows(records: Sequence[Record]) -> Rows:
    """Replay the records and encode every labelled decision with >= 2 legal actions."""
    blocks: list[sparse.csr_matrix] = []  # the observations, 1024 rows a block
    obs, masks, labels, values, kinds = [], [], [], [], []
    t_rows, t_cols, t_vals = [], [], []
    kind_index = {k: i for i, k in enumerate(DECISION_KINDS)}
    for r in records:
        g = Game(r.seed)
        enc = encoder_for(g.content)
        for i, (a, label) in enumerate(zip(r.actions.tolist(), r.labels.tolist(), strict=True)):
            mask = g.action_mask()
            if label >= 0 and mask.sum() >= 2:
                p = SIDES.index(g.current_player)
                if not mask[label]:
                    raise ValueError(f"game {r.seed}, decision {i}: label {label} is illegal")
                best = r.ties.get(i, (label,))
                t_rows += [len(labels)] * len(best)
                t_cols += best
                t_vals += [1.0 / len(best)] * len(best)
                obs.append(enc.encode(g._m, p))
                if len(obs) == 1024:
                    blocks.append(sparse.csr_matrix(np.stack(obs)))
                    obs.clear()
                masks.append(mask)
                labels.append(label)
                values.append(0.0 if r.winner < 0 else (1.0 if r.winner == p else -1.0))
                kinds.append(kind_index[g.decision.kind])
            g.step(a)
    n, size = len(labels), encoder_for(Game(0).content).size
    n_actions = masks[0].size if masks else Game(0).num_actions
    blocks.append(sparse.csr_matrix(np.stack(obs) if obs else np.zeros((0, size), np.float32)))
    return Rows(sparse.vstack(blocks, format="csr", dtype=np.float32),
                np.asarray(masks, bool).reshape(n, n_actions),
                sparse.csr_matrix((np.asarray(t_vals, np.float32), (t_rows, t_cols)),
                                  shape=(n, n_actions)),
                np.asarray(labels, np.int64), np.asarray(values, np.float32),
                np.asarray(kinds, np.int8))


# ----------------------------------------------------------------- training
def _batch(rows: Rows, idx: np.ndarray) -> tuple[Any, ...]:
    import torch

    return (torch.from_numpy(rows.obs[idx].toarray()), torch.from_numpy(rows.masks[idx]),
            torch.from_numpy(rows.targets[idx].toarray()), torch.from_numpy(rows.values[idx]))


def _losses(net: Any, batch: tuple[Any, ...]) -> tuple[Any, Any, Any]:
    """Cross-entropy against the soft targets, value MSE, and the (masked) logits."""
    import torch

    x, mask, target, value = batch
    logits, v = net(x, mask)  # masked by the network
    logp = torch.log_softmax(logits, -1)
    return -(target * logp).sum(-1).mean(), torch.mean((v - value) ** 2), logits


def evaluate_rows(net: Any, rows: Rows, batch_size: int = 2048) -> dict[str, Any]:
    """Losses and agreement (strict: the label; tie-aware: any tied best action),
    overall and per decision kind."""
    import torch

    if len(rows) == 0:
        return {"rows": 0}
    net.eval()
    hit = np.zeros(len(rows), bool)
    tie_hit = np.zeros(len(rows), bool)
    ce = vl = 0.0
    with torch.no_grad():
        for lo in range(0, len(rows), batch_size):
            idx = np.arange(lo, min(lo + batch_size, len(rows)))
            batch = _batch(rows, idx)
            c, v, logits = _losses(net, batch)
            ce += float(c) * idx.size
            vl += float(v) * idx.size
            best = logits.argmax(-1).numpy()
            hit[idx] = best == rows.labels[idx]
            tie_hit[idx] = batch[2].numpy()[np.arange(idx.size), best] > 0
    net.train()
    per_kind = {}
    for k in np.unique(rows.kinds):
        sel = rows.kinds == k
        per_kind[DECISION_KINDS[k]] = {"rows": int(sel.sum()),
                                       "agreement": float(tie_hit[sel].mean()),
                                       "strict": float(hit[sel].mean())}
    return {"rows": len(rows), "cross_entropy": ce / len(rows), "value_mse": vl / len(rows),
            "agreement": float(tie_hit.mean()), "strict": float(hit.mean()), "per_kind": per_kind}


def fit(net: Any, train: Rows, held_out: Rows, epochs: int, lr: float = 5e-4,
        batch_size: int = 512, value_coef: float = 0.5, seed: int = 0,
        log: Any = print) -> list[dict[str, Any]]:
    """Fit `net` to the rows, in place (Adam, cosine-decayed learning rate); an
    evaluation on held-out rows and on a sample of training rows per epoch (0: before)."""
    import torch

    rng = np.random.default_rng(seed)
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, max(1, epochs), eta_min=lr / 10)
    sample = train.take(rng.permutation(len(train))[:20_000])
    history = []
    for epoch in range(epochs + 1):
        t0 = time.perf_counter()
        if epoch:
            net.train()
            order = rng.permutation(len(train))
            for lo in range(0, len(order), batch_size):
                ce, vl, _ = _losses(net, _batch(train, np.sort(order[lo: lo + batch_size])))
                opt.zero_grad()
                (ce + value_coef * vl).backward()
                opt.step()
            sched.step()
        row = {"epoch": epoch, "seconds": round(time.perf_counter() - t0, 1),
               "train": evaluate_rows(net, sample), "held_out": evaluate_rows(net, held_out)}
        history.append(row)
        if log is not None:
            tr, ho = row["train"], row["held_out"]
            log(f"epoch {epoch}: train CE {tr.get('cross_entropy', 0):.3f} agreement "
                f"{tr.get('agreement', 0):.3f} | held-out CE {ho.get('cross_entropy', 0):.3f} "
                f"agreement {ho.get('agreement', 0):.3f} value MSE {ho.get('value_mse', 0):.3f} "
                f"({row['seconds']} s)")
    return history


# ----------------------------------------------------------------- the pipeline
@dataclass
class CloningConfig:
    """Everything a cloning run depends on (saved in the checkpoint's ``extra``)."""

    out: str = "runs/cloning/mlp"
    data: str = ""  # reuse the records of an earlier run instead of playing games
    init: str = ""  # start from this checkpoint (its kind and sizes) instead of afresh
    games: int = 300
    holdout: float = 0.1
    workers: int = 2
    net: str = "mlp"
    hidden: tuple[int, ...] = (512, 512)
    token: int = 32  # the structured network's token width
    epochs: int = 10
    lr: float = 1e-3
    batch_size: int = 512
    dagger: int = 1
    dagger_games: int = 40
    dagger_epochs: int = 4
    max_decisions: int = 0  # 0: whole games (the smoke run cuts them short)
    seed: int = 0
    threads: int = 2

    @classmethod
    def smoke(cls, out: str = "runs/cloning/smoke") -> CloningConfig:
        return cls(out=out, games=4, holdout=0.25, workers=1, hidden=(64,), epochs=2,
                   lr=3e-3, dagger=1, dagger_games=2, dagger_epochs=1, max_decisions=120)


def _play(jobs: Sequence[tuple[Any, ...]], cfg: CloningConfig, path: Path,
          log: Callable[[str], None]) -> list[Record]:
    """Play the jobs; the records so far are saved to `path` every 10 games."""
    t0 = time.perf_counter()

    def saved(done: list[Record]) -> None:
        if len(done) % 10 == 0 or len(done) == len(jobs):
            save_records(path, done)
            log(f"{len(done)}/{len(jobs)} games ({time.perf_counter() - t0:.0f} s), "
                f"saved to {path}")

    return play_records([(*j, cfg.max_decisions) for j in jobs], cfg.workers, saved)


def run(cfg: CloningConfig, log: Any = print) -> dict[str, Any]:
    """Data (or `cfg.data`), BC, DAgger rounds; writes the checkpoint to `cfg.out`."""
    import torch

    from agents.networks import build_network, fresh_config, load_checkpoint, save_checkpoint

    log = log or (lambda *_: None)
    torch.set_num_threads(cfg.threads)
    torch.manual_seed(cfg.seed)
    out = Path(cfg.out)
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    if cfg.data:
        records = load_records(Path(cfg.data))
        log(f"{len(records)} games read from {cfg.data}")
    else:
        records = _play(cloning_jobs(cfg.games, DATA_SEED0 + cfg.seed * 100_000), cfg,
                        out / "data.npz", log)
    facts: dict[str, Any] = {"config": {**cfg.__dict__, "hidden": list(cfg.hidden)},
                             "data_seconds": round(time.perf_counter() - t0, 1)}
    k = len(records) - max(1, int(round(len(records) * cfg.holdout)))
    t1 = time.perf_counter()
    train, held_out = replay_rows(records[:k]), replay_rows(records[k:])
    facts.update(train_games=k, held_out_games=len(records) - k, train_rows=len(train),
                 held_out_rows=len(held_out), replay_seconds=round(time.perf_counter() - t1, 1))
    log(f"{len(train)} training rows, {len(held_out)} held-out rows "
        f"({facts['replay_seconds']} s to replay)")
    if cfg.init:
        net, net_cfg, _ = load_checkpoint(Path(cfg.init))
        log(f"starting from {cfg.init} ({net_cfg.kind} {net_cfg.hidden})")
    else:
        net_cfg = fresh_config(cfg.net, tuple(cfg.hidden), cfg.token)
        net = build_network(net_cfg)
    t1 = time.perf_counter()
    facts["bc"] = fit(net, train, held_out, cfg.epochs, cfg.lr, cfg.batch_size, seed=cfg.seed,
                      log=log)
    facts["bc_seconds"] = round(time.perf_counter() - t1, 1)
    facts["dagger"] = []
    for r in range(1, cfg.dagger + 1):
        ckpt = out / ("bc" if r == 1 else f"dagger{r - 1}")
        save_checkpoint(ckpt, net, net_cfg, {"cloning": _summary(facts)})
        t1 = time.perf_counter()
        new = _play(dagger_jobs(cfg.dagger_games, str(ckpt.resolve()),
                                DAGGER_SEED0 + cfg.seed * 100_000 + 1000 * r), cfg,
                    out / f"dagger{r}.npz", log)
        rows = replay_rows(new)
        before = {k: v for k, v in evaluate_rows(net, rows).items() if k != "rows"}
        train = Rows.concat([train, rows])
        log(f"DAgger round {r}: {len(new)} games, {len(rows)} new rows labelled by the "
            f"heuristic ({time.perf_counter() - t1:.0f} s; the net agreed on "
            f"{before.get('agreement', 0):.3f}); {len(train)} rows in all; the net vs the "
            f"heuristic: {_net_results(new)}")
        hist = fit(net, train, held_out, cfg.dagger_epochs, cfg.lr / 2, cfg.batch_size,
                   seed=cfg.seed + r, log=log)
        facts["dagger"].append({"round": r, "games": len(new), "new_rows": len(rows),
                                "on_policy_before": before,
                                "net_vs_heuristic": _net_results(new), "seconds":
                                round(time.perf_counter() - t1, 1), "history": hist})
    facts["seconds"] = round(time.perf_counter() - t0, 1)
    save_checkpoint(out, net, net_cfg, {"cloning": _summary(facts)})
    (out / "cloning.json").write_text(json.dumps(facts, indent=1) + "\n")
    log(f"checkpoint written to {out} ({facts['seconds']} s in all)")
    return facts


def _net_results(records: Sequence[Record]) -> dict[str, Any]:
    """The net's results against the heuristic (from the net's view) and why it lost."""
    out: dict[str, Any] = {"win": 0, "draw": 0, "loss": 0, "losses_by_reason": {}}
    for r in records:
        if "heuristic" in r.agents:
            net = r.agents.index("net")
            result = "draw" if r.winner < 0 else "win" if r.winner == net else "loss"
            out[result] += 1
            if result == "loss":
                why = loss_cause(r.reason)
                out["losses_by_reason"][why] = out["losses_by_reason"].get(why, 0) + 1
    return out


def loss_cause(reason: str) -> str:
    """A game-end reason without the side names and numbers (to count causes)."""
    for side in SIDES:
        reason = reason.replace(f"{side} ", "")
    return reason.split(" (")[0].split(" caused")[0]


def _summary(facts: dict[str, Any]) -> dict[str, Any]:
    """The facts a checkpoint carries: config, data sizes, the last held-out figures."""
    last = (facts["dagger"][-1]["history"] if facts.get("dagger") else facts["bc"])[-1]
    held = last["held_out"]
    return {k: v for k, v in facts.items() if k not in ("bc", "dagger")} | {
        "dagger_rounds": len(facts.get("dagger", [])),
        "held_out_agreement": held.get("agreement"), "held_out_strict": held.get("strict"),
        "held_out_per_kind": {k: round(v["agreement"], 4)
                              for k, v in held.get("per_kind", {}).items()}}


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m experiments.cloning", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    d = CloningConfig()
    ap.add_argument("--out", default=None, help=f"checkpoint folder (default {d.out})")
    ap.add_argument("--data", default=d.data, help="records (.npz) of an earlier run to reuse")
    ap.add_argument("--init", default=d.init, help="checkpoint to start from (its kind and "
                    "sizes; default: a fresh --net)")
    for name in ("games", "workers", "epochs", "batch_size", "token", "dagger", "dagger_games",
                 "dagger_epochs", "seed", "threads", "max_decisions"):
        ap.add_argument("--" + name.replace("_", "-"), type=int, default=getattr(d, name))
    ap.add_argument("--holdout", type=float, default=d.holdout, help="share of games held out")
    ap.add_argument("--lr", type=float, default=d.lr)
    ap.add_argument("--net", default=d.net, help="network kind (agents/networks.py)")
    ap.add_argument("--hidden", default=",".join(map(str, d.hidden)), help="layer widths")
    ap.add_argument("--smoke", action="store_true", help="a tiny run (< 30 s)")
    a = ap.parse_args(argv)
    if a.smoke:
        cfg = CloningConfig.smoke(a.out or "runs/cloning/smoke")
        cfg.net, cfg.token = a.net, a.token
    else:
        kw = {k: v for k, v in vars(a).items() if k not in ("smoke", "hidden", "out")}
        cfg = CloningConfig(out=a.out or d.out, hidden=tuple(int(h) for h in a.hidden.split(",")),
                            **kw)
    bad = [n for n in ("games", "workers", "epochs", "batch_size", "token") if getattr(cfg, n) < 1]
    if bad or cfg.dagger < 0 or not 0 <= cfg.holdout < 1 or cfg.lr <= 0:
        raise SystemExit(f"cloning: {', '.join('--' + n.replace('_', '-') for n in bad)}"
                         " must be at least 1; --dagger at least 0, --holdout in [0, 1), "
                         "--lr positive")
    if cfg.data and not Path(cfg.data).is_file():
        raise SystemExit(f"cloning: --data {cfg.data}: no such records file")
    if cfg.init and not (Path(cfg.init) / "config.json").is_file():
        raise SystemExit(f"cloning: --init {cfg.init}: no network checkpoint there")
    try:
        run(cfg)
    except RecordsError as e:
        raise SystemExit(f"cloning: --data {e}") from None


if __name__ == "__main__":
    main()
