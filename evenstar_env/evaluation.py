"""In-process evaluation: ``evaluate(policy, opponent, games=N, seed=s)`` plays the arena's
paired games (seeds s .. s + N - 1, each twice with the sides swapped) and reports win
rates per side with Wilson 95% intervals, the numbers ``evenstar arena`` gives for the same
agents and seeds.

`policy` and `opponent` are each an arena spec (``"heuristic"``, ``"learned:PATH"``, ...),
an agent with ``act(observation, action_mask, game)`` (copied per game and, if it has
``reseed``, reseeded with the seed the arena gives that side: ``2 * seed`` US, ``2 * seed +
1`` China), or a **batch policy**: a callable ``(obs[k, d], mask[k, A]) -> actions[k]`` (no
``act``), called for all the games where its side is to move at once.  ``"learned[:PATH]"``
is played as a batch policy (one forward pass per round; greedy, so the same choices as
the arena's ``LearnedAgent`` but for float rounding).  Nothing here imports torch unless a
network is asked for.
"""

from __future__ import annotations

import copy
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from .content import Content, load_content
from .engine.constants import SIDES
from .env.observation import ObservationEncoder
from .learner_game import LearnerGame, batch_policy, batch_rounds, make_opponent
from .native import resolve
from .stats import wilson


@dataclass
class Evaluation:
    """The outcome of :func:`evaluate`: rows per side as the arena's summary writes them
    (``side`` "usa", "china", "both"; games, wins, draws, losses, win_rate, ci95_low,
    ci95_high) and every game (seed, the policy's side, winner, end reason, turn)."""

    policy: str
    opponent: str
    rows: list[dict[str, Any]]
    games: list[dict[str, Any]] = field(repr=False)

    def row(self, side: str = "both") -> dict[str, Any]:
        """The row of `side`."""
        return next(r for r in self.rows if r["side"] == side)

    @property
    def win_rate(self) -> float:
        return self.row()["win_rate"]

    @property
    def ci95(self) -> tuple[float, float]:
        r = self.row()
        return r["ci95_low"], r["ci95_high"]


def evaluate(policy: Any, opponent: Any = "random", games: int = 100, seed: int = 0,
             content: Content | None = None, backend: str | None = None) -> Evaluation:
    """`policy` against `opponent` on seeds ``seed .. seed + games - 1``, each seed played
    with `policy` as the US and as China (see the module docstring)."""
    if not isinstance(games, int) or games < 1:
        raise ValueError(f"games must be a positive integer, not {games!r}")
    content = content or load_content()
    backend = resolve(backend)
    encoder = ObservationEncoder(content)
    slots = [(s, me) for s in range(seed, seed + games) for me in (0, 1)]
    me_batch, opp_batch = batch_policy(policy, content), batch_policy(opponent, content)
    cores = [LearnerGame(content, None if opp_batch else _agent(opponent, 2 * s + 1 - me),
                         illegal_action="raise", backend=backend) for s, me in slots]
    mine = [None if me_batch else _agent(policy, 2 * s + me) for s, me in slots]
    for core, (s, me) in zip(cores, slots, strict=True):
        core.start(s, me)
    encoders = [encoder] * len(cores)
    live = cores
    while live:
        _move(live, encoders, opp_batch, opponent=True)
        live = [c for c in live if not c.game.is_over]
        _move(live, encoders, me_batch, opponent=False, agents=mine, index=cores)
        live = [c for c in live if not c.game.is_over]
    played = [{"seed": s, "side": SIDES[me], "winner": c.game.result.winner,
               "reason": c.game.result.reason, "turn": c.game.turn}
              for c, (s, me) in zip(cores, slots, strict=True)]
    return Evaluation(_name(policy), _name(opponent), _rows(played), played)


def _agent(spec: Any, seed: int) -> Any:
    """A per-game agent for one game: built from a spec with the arena's seed, or a copy
    of an agent object reseeded so."""
    if isinstance(spec, str) or spec is None:
        from agents.specs import make_agent

        return make_agent(spec or "random", seed)
    agent = copy.deepcopy(make_opponent(spec))
    if hasattr(agent, "reseed"):
        agent.reseed(seed)
    return agent


def _move(cores: list[LearnerGame], encoders: list[Any], batch: Any, opponent: bool,
          agents: list[Any] | None = None, index: list[LearnerGame] | None = None) -> None:
    """One side moves in `cores` until the other is to move (or the game ends): by batch
    rounds, or game by game with its agent (the opponent's inside its LearnerGame)."""
    if batch is not None:
        batch_rounds(cores, encoders, batch, opponent=opponent)
        return
    position = {id(c): k for k, c in enumerate(index or [])}
    for core in cores:
        if opponent:
            core.opponent_moves()
            continue
        g, agent = core.game, agents[position[id(core)]]
        while not g.is_over and g.current_player == SIDES[core.me]:
            g.step(agent.act(None, g.action_mask(), g))


def _rows(played: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per side and both: W/D/L, win rate and its Wilson interval (the arena's rows)."""
    counts = {s: Counter() for s in SIDES}
    for p in played:
        outcome = ("draw" if p["winner"] is None else
                   "win" if p["winner"] == p["side"] else "loss")
        counts[p["side"]][outcome] += 1
    rows = []
    for side in (*SIDES, "both"):
        c = counts[side] if side != "both" else counts["usa"] + counts["china"]
        n = sum(c.values())
        lo, hi = wilson(c["win"], n)
        rows.append({"side": side, "games": n, "wins": c["win"], "draws": c["draw"],
                     "losses": c["loss"], "win_rate": c["win"] / n if n else 0.0,
                     "ci95_low": lo, "ci95_high": hi})
    return rows


def _name(x: Any) -> str:
    if isinstance(x, str):
        return x
    return getattr(x, "name", getattr(x, "__name__", type(x).__name__))


__all__ = ["Evaluation", "evaluate"]
