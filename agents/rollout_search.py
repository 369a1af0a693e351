"""Policy rollouts at the root: one step of policy improvement over a learned policy.

``rollout[:SIMS[:PATH]]`` plays a networks checkpoint (default: the shipped ``learned``)
and, at each decision that ISMCTS and ``alphaism`` branch on (card, mode, headline,
modifiers, spends, options...), tests the network's most likely actions by playing games
out:

- **Candidates:** the `width` most likely legal actions (default 8).
- **Worlds:** determinisations of what the mover cannot see (:meth:`Game.resample_hidden`:
  the opponent's hand, the deck order, the dice stream).  Every candidate still in the
  running is played in the same worlds (common random numbers), so that two candidates
  are compared on the same hands and dice.
- **Play-out:** each (world, candidate) game is played to its end with the network's
  arg-max for both sides (:class:`agents.rollouts.PolicyRollouts`); its result for the
  mover (+1 / 0 / -1) is the sample.  With `depth`, a game still going after that many
  moves is scored by the value head there instead.
- **Sequential halving:** SIMS play-outs per decision (default 64) are spent in
  ``ceil(log2(width))`` rounds, each on fresh worlds; after a round the better half of
  the candidates by mean result goes on.  The network's own choice always goes on.
- **Choice:** the best candidate, if its mean result over the worlds both saw beats the
  network's choice by more than `margin` (default 0.1); else the network's choice.

Points of influence and targets are the network's arg-max; scoring cards that must be
played now are played without search.  Against the bare policy this is the classic
rollout improvement (Tesauro and Galperin 1996; SPARTA's single-agent search, Lerer et
al. 2020): the opponent in the play-outs is the same network.  It reads only what the
mover knows: the worlds come from its own view and the seed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from evenstar_env import Game

from .ismcts import FINE_KINDS, forced_choice
from .networks import DeckNetworks, checkpoint_folder, torch_threads
from .rollouts import PolicyRollouts, check_halving, halve, halving_rounds

LEARNED = Path(__file__).resolve().parent / "checkpoints" / "learned"


class RolloutSearchAgent:
    """A network's policy improved by play-outs at its strategic decisions (module doc)."""

    name = "rollout"

    def __init__(self, nets: DeckNetworks, simulations: int = 64, width: int = 8,
                 margin: float = 0.1, depth: int | None = None,
                 seed: int | None = None) -> None:
        if simulations < 1:
            raise ValueError(f"simulations must be >= 1, got {simulations}")
        check_halving(width, margin, depth, "depth")
        self.depth = depth
        self.nets, self.simulations, self.width, self.margin = nets, simulations, width, margin
        self.net = nets.net
        self.rollouts = PolicyRollouts(self.net)
        self.reseed(seed)

    @classmethod
    def from_checkpoint(cls, path: str | Path = LEARNED, **kw: Any) -> RolloutSearchAgent:
        """The agent on the network saved at `path` (a folder: weights.pt + config.json)."""
        path = checkpoint_folder(path, "rollout", "name it: rollout:SIMS:PATH")
        agent = cls(DeckNetworks(path, "rollout"), **kw)
        agent.name = f"rollout:{path.name}"
        return agent

    def reseed(self, seed: int | None) -> None:
        """Start afresh, as if built with `seed` (the envs call it at every reset)."""
        self.rng = np.random.default_rng(seed)

    def act(self, observation: Any, action_mask: np.ndarray, game: Game | None = None) -> int:
        if game is None:
            raise ValueError("RolloutSearchAgent needs the game")
        if (net := self.nets.for_game(game)) is not self.net:  # another deck's layout
            self.net, self.rollouts = net.eval(), PolicyRollouts(net)
        legal = np.flatnonzero(action_mask)
        self.last_means: dict[int, float] | None = None
        if (forced := forced_choice(game, legal)) is not None:
            return forced
        with torch_threads(1):
            logits = self.rollouts.logits_of(game.clone())
            order = legal[np.argsort(-logits[legal], kind="stable")]
            if game.decision.kind in FINE_KINDS:
                return int(order[0])
            return self.search(game, [int(a) for a in order[:self.width]])

    def search(self, game: Game, candidates: list[int]) -> int:
        """Sequential halving over `candidates` (the first is the network's choice) with
        play-outs on shared worlds; the chosen action."""
        base, me = candidates[0], game.current_player
        if len(candidates) == 1:
            return base
        rounds = halving_rounds(len(candidates))
        alive, budget = list(candidates), self.simulations
        total = dict.fromkeys(candidates, 0.0)
        seen = 0
        for r in range(rounds):
            per = max(1, budget // (len(alive) * (rounds - r)))
            worlds = [game.resample_hidden(me, self.rng) for _ in range(per)]
            games = []
            for a in alive:
                for w in worlds:
                    g = w.clone()
                    g.step(a)
                    games.append(g)
            results = self.rollouts.results(games, me, self.depth).reshape(len(alive), per)
            for a, row in zip(alive, results, strict=True):
                total[a] += float(row.sum())
            budget -= len(alive) * per
            seen += per
            if r < rounds - 1:
                alive = halve(alive, total.__getitem__, base)
        self.last_means = {a: total[a] / seen for a in alive}
        best = max(alive, key=lambda a: total[a])
        return best if (total[best] - total[base]) / seen > self.margin else base
