"""Policy-guided information-set MCTS: ISMCTS with a learned prior and value ("alphaism").

The tree is that of :mod:`agents.ismcts` (single observer, one node per sequence of
strategic actions, a determinisation by :meth:`Game.resample_hidden` per simulation,
availability counts); what changes is how it is steered and scored:

- **Selection** is PUCT, restricted to the actions legal in the simulation's
  determinisation: ``Q(a) + c * P(a) * sqrt(avail(a)) / (1 + N(a))``, where
  ``avail(a)`` counts the visits of the node in which `a` was legal (the availability
  count of ISMCTS in place of the parent's visits) and an unvisited action's ``Q`` is
  the node's own mean value for the player choosing there (first-play urgency).
- **The prior** ``P`` is the network's softmax over the legal actions (masked logits,
  divided by ``prior_temp``, default 1; mixed with the uniform distribution as
  ``(1 - prior_mix) P + prior_mix / |legal|``, default 0)
  of the position where the node was evaluated, renormalised over the actions legal
  in the current determinisation.  An opponent's node stands for many hidden hands:
  when a determinisation offers an action that no evaluation of the node has priced
  yet, the simulation stops at that node and evaluates it again in this
  determinisation, which prices the new actions (and backs up one more value).
- **The leaf value** is the value head (the expected result for the player to move,
  turned to each mover's point of view on the way up), or, with ``playout=N``, the
  result of the leaf's game played on by the network's arg-max for both sides
  (:class:`agents.rollouts.PolicyRollouts`, all the batch's leaves in lockstep) and scored
  by the value head if still going after N moves.  Either is mixed with the ISMCTS
  rollout and static evaluation as ``(1 - rollout_mix) * value + rollout_mix * rollout``
  (default 0).  A decided game is scored exactly.
- **The root** is PUCT like any node (``root="puct"``), or (``root="halving"``) sequential
  halving over the `width` most likely actions, as in Gumbel MuZero's root (Danihelka et
  al. 2022) without the noise: the simulations are spent in ``ceil(log2(width))`` rounds;
  in a round every candidate still in the running gets one simulation in each of the
  same fresh determinisations (common random numbers), PUCT below it; the better half by
  mean value goes on, and the network's own choice always does.  The move is the best
  candidate if its mean beats the network's choice by more than `margin`, else the
  network's choice.  The PUCT root never visits an action of prior 0.3% next to one of
  99.6% in 64 simulations, however good it is; this root tries them all
  (docs/agents.md, "Search that adds strength").
- **Batching:** `batch` simulations descend one after another under a virtual loss
  (each counts as a lost visit for every mover on its path until it is backed up), then
  their leaves go through the network in one forward pass.  Torch runs on one thread
  during a decision.

Which decisions the tree branches on follows ISMCTS: only the strategic ones (card,
mode, headline, modifiers, spends, options...).  Each point of influence and each
target inside a simulation is taken by :class:`FastPolicy` (or, ``sim_fine="network"``,
by the network's arg-max, one forward pass each); at the root they are the
network's arg-max (``fine="network"``) or the heuristic's look-ahead as in ISMCTS
(``fine="heuristic"``).  Branching on every point of influence would make the tree several
levels deep per card play, so that a budget of a few hundred simulations would not
reach the opponent's answer; keeping the split also makes the comparison with plain
ISMCTS one of guidance and evaluation only.  Scoring cards that must be played now
(2.2.1.1) are played without search, as ISMCTS does.

The search reads only what the searching player knows: the root's observation is
its own, and every simulation starts from a fresh determinisation.
"""

from __future__ import annotations

import math
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch

from evenstar_env import Game
from evenstar_env.engine.constants import SIDES
from evenstar_env.env.observation import encoder_for

from . import kernels
from .batch_policy import infer_chunked, native_packed
from .fast_policy import FastPolicy
from .heuristic import HeuristicAgent
from .ismcts import FINE_KINDS, forced_choice, rollout_value
from .networks import DeckNetworks, checkpoint_folder, torch_threads
from .rollouts import PolicyRollouts, check_halving, halve, halving_rounds

LEARNED = Path(__file__).resolve().parent / "checkpoints" / "learned"
PRIOR_FLOOR = 1e-12


class _Node:
    __slots__ = ("player", "children", "visits", "value", "avail", "prior")

    def __init__(self, player: str | None) -> None:
        self.player = player  # who chose the action leading here (None at the root)
        self.children: dict[int, _Node] = {}
        self.visits = 0
        self.value = 0.0  # summed results from the searching player's point of view
        self.avail: dict[int, int] = {}  # action -> visits of this node where it was legal
        self.prior: dict[int, float] = {}  # action -> its probability where first priced


class _Leaf:
    """One simulation waiting for the network: its path, where it stopped, its rollout."""

    __slots__ = ("path", "node", "legal", "mover", "obs", "rollout", "game")

    def __init__(self, path: list[_Node], node: _Node, legal: np.ndarray, mover: str,
                 obs: np.ndarray, rollout: float, game: Game | None) -> None:
        self.path, self.node, self.legal, self.mover = path, node, legal, mover
        self.obs, self.rollout, self.game = obs, rollout, game  # game: for a play-out


class AlphaISMCTSAgent:
    """ISMCTS guided by a policy-value network, `simulations` per decision or `seconds`
    per decision (whichever ends first; None: no limit of that kind)."""

    name = "alphaism"

    def __init__(self, network: torch.nn.Module, simulations: int | None = 200,
                 seconds: float | None = None, c_puct: float = 1.5, rollout_mix: float = 0.0,
                 batch: int = 8, rollout_depth: int = 80, eval_scale: float = 15.0,
                 fine: str = "network", prior_temp: float = 1.0, prior_mix: float = 0.0,
                 sim_fine: str = "fast", opponent: str = "tree", root: str = "puct",
                 width: int = 8, margin: float = 0.1, playout: int | None = None,
                 seed: int | None = None) -> None:
        if simulations is None and seconds is None:
            raise ValueError("alphaism needs a budget: simulations or seconds")
        if not 0.0 <= rollout_mix <= 1.0:
            raise ValueError(f"rollout_mix must be in [0, 1], got {rollout_mix}")
        if not (math.isfinite(prior_temp) and prior_temp > 0):
            raise ValueError(f"prior_temp must be a positive number, got {prior_temp}")
        if batch < 1:
            raise ValueError(f"batch must be >= 1, got {batch}")
        if fine not in ("network", "heuristic"):
            raise ValueError(f"fine must be 'network' or 'heuristic', got {fine!r}")
        if sim_fine not in ("fast", "network"):
            raise ValueError(f"sim_fine must be 'fast' or 'network', got {sim_fine!r}")
        if not 0.0 <= prior_mix <= 1.0:
            raise ValueError(f"prior_mix must be in [0, 1], got {prior_mix}")
        if opponent not in ("tree", "policy"):
            raise ValueError(f"opponent must be 'tree' or 'policy', got {opponent!r}")
        if root not in ("puct", "halving"):
            raise ValueError(f"root must be 'puct' or 'halving', got {root!r}")
        check_halving(width, margin, playout, "playout")
        self.root, self.width, self.margin, self.playout = root, width, margin, playout
        self.rollouts = PolicyRollouts(network) if playout is not None else None
        self.opponent = opponent
        self.prior_mix, self.sim_fine = prior_mix, sim_fine
        self.fine_by = fine
        self.prior_temp = prior_temp
        self.net = network.eval()
        self.simulations, self.seconds = simulations, seconds
        self.c, self.rollout_mix, self.batch = c_puct, rollout_mix, batch
        self.rollout_depth, self.eval_scale = rollout_depth, eval_scale
        self.encoder: Any = None
        self._packed: kernels.Packed | None = None  # the native pass's arrays, in a search
        self._dtype = np.dtype(torch.empty(0, dtype=next(network.parameters()).dtype)
                               .numpy().dtype)
        self.nets: DeckNetworks | None = None  # from_checkpoint: the network for each deck
        self.reseed(seed)

    @classmethod
    def from_checkpoint(cls, path: str | Path = LEARNED, **kw: Any) -> AlphaISMCTSAgent:
        """The agent on the network saved at `path` (a folder: weights.pt + config.json)."""
        path = checkpoint_folder(path, "alphaism", "train one, or name it: alphaism:SIMS:PATH")
        nets = DeckNetworks(path, "alphaism")
        agent = cls(nets.net, **kw)
        agent.nets, agent.name = nets, f"alphaism:{path.name}"
        return agent

    def reseed(self, seed: int | None) -> None:
        """Start afresh, as if built with `seed` (the envs call it at every reset)."""
        self.rng = np.random.default_rng(seed)
        self.policy = FastPolicy(int(self.rng.integers(2**31)))
        self.fine = (HeuristicAgent(int(self.rng.integers(2**31)))
                     if self.fine_by == "heuristic" else None)

    # ------------------------------------------------------------ network
    def _encode(self, g: Game, side: str) -> np.ndarray:
        if self.encoder is None:
            self.encoder = encoder_for(g.content)
        return self.encoder.encode(g._m, SIDES.index(side))

    def _forward(self, obs: list[np.ndarray], legal: list[np.ndarray]
                 ) -> tuple[np.ndarray, np.ndarray]:
        """Logits (right at the `legal` actions only) and values of a batch."""
        n = self.net.policy.out_features
        mask = np.zeros((len(obs), n), dtype=bool)
        for i, a in enumerate(legal):
            mask[i, a] = True
        if self._packed is not None:  # during a search
            return infer_chunked(self._packed, np.ascontiguousarray(np.stack(obs),
                                                                    dtype=self._dtype), mask)
        with torch.inference_mode():
            lg, v = self.net(torch.as_tensor(np.stack(obs), dtype=torch.float32),
                             torch.from_numpy(mask))
        return lg.numpy(), v.numpy()

    def _priors(self, logits: np.ndarray, legal: np.ndarray) -> dict[int, float]:
        """The network's softmax over the legal actions (the masked logits divided by
        ``prior_temp``: above 1 flattens a peaked policy so that the search visits its
        alternatives), each at least `PRIOR_FLOOR` so that a renormalisation over any legal
        subset is defined."""
        z = logits[legal].astype(np.float64) / self.prior_temp
        p = np.exp(z - z.max())
        p = (1.0 - self.prior_mix) * p / p.sum() + self.prior_mix / len(p)
        p = np.maximum(p, PRIOR_FLOOR)
        return {int(a): float(q) for a, q in zip(legal, p, strict=True)}

    # ------------------------------------------------------------ acting
    def act(self, observation: Any, action_mask: np.ndarray, game: Game | None = None) -> int:
        if game is None:
            raise ValueError("AlphaISMCTSAgent needs the game")
        if self.nets is not None and (net := self.nets.for_game(game)) is not self.net:
            self.net, self.encoder = net.eval(), None  # another deck: its own layout
            if self.rollouts is not None:
                self.rollouts = PolicyRollouts(net)
        self.last_root: _Node | None = None  # the tree of a decision that was searched
        legal = np.flatnonzero(action_mask)
        if (forced := forced_choice(game, legal)) is not None:
            return forced
        with torch_threads(1):
            me = game.current_player
            logits, _ = self._forward([self._encode(game, me)], [legal])
            root_prior = self._priors(logits[0], legal)
            if game.decision.kind in FINE_KINDS:
                if self.fine is not None:
                    return self.fine.act(observation, action_mask, game)
                return max(root_prior, key=root_prior.__getitem__)
            root = self.last_root = self.search(game, root_prior)
        if not root.children:  # out of time before the first simulation
            return max(root_prior, key=root_prior.__getitem__)
        if self.root == "halving":
            return self._halving_choice(root)
        return max(root.children, key=lambda a: (root.children[a].visits, root.prior[a]))

    def visit_shares(self, legal: np.ndarray) -> np.ndarray | None:
        """The last searched decision's improved policy over `legal` (summing to 1), or
        None where the last decision was not searched (expert iteration's policy target):
        the root's visit shares, or, for a halving root (whose visits follow the halving,
        not the values), :meth:`improved_policy`."""
        root = getattr(self, "last_root", None)
        if root is None or not root.children:
            return None
        if self.root == "halving":
            return self.improved_policy(root, legal)
        visits = np.array([root.children[a].visits if a in root.children else 0
                           for a in legal.tolist()], dtype=np.float64)
        return visits / visits.sum() if visits.sum() > 0 else None

    def search(self, game: Game, root_prior: dict[int, float]) -> _Node:
        """Run the simulations from `game` (the searching player to move); the root."""
        me = self._me = game.current_player
        root = _Node(None)
        root.prior = dict(root_prior)
        deadline = None if self.seconds is None else time.perf_counter() + self.seconds
        done = 0
        self._packed = native_packed(self.net)  # the network is fixed during a search
        try:
            if self.root == "halving":
                self._halve(game, root, deadline)
            while self.root == "puct" and (self.simulations is None
                                            or done < self.simulations):
                if deadline is not None and time.perf_counter() > deadline:
                    break
                n = self.batch if self.simulations is None else min(self.batch,
                                                                    self.simulations - done)
                leaves = [self._descend(game.resample_hidden(me, self.rng), root, me)
                          for _ in range(n)]
                self._evaluate([leaf for leaf in leaves if isinstance(leaf, _Leaf)], me)
                done += n
        finally:
            self._packed = None
        return root

    def _halve(self, game: Game, root: _Node, deadline: float | None) -> None:
        """Sequential halving at the root (``root="halving"``, module doc): each round's
        determinisations are shared by the candidates; a timed search gives each round an
        equal share of the time left and adds determinisations until its share is spent."""
        me = game.current_player
        alive = sorted(root.prior, key=lambda a: -root.prior[a])[:self.width]  # stable
        self._base = alive[0]
        rounds = halving_rounds(len(alive))
        budget = self.simulations
        for r in range(rounds):
            if budget is not None:
                per: int | None = max(1, budget // (len(alive) * (rounds - r)))
                budget -= len(alive) * per
                step = per
            else:  # timed: a few determinisations at a time until the round's share is up
                per, step = None, max(1, math.ceil(self.batch / len(alive)))
                assert deadline is not None
                ends = time.perf_counter() + (deadline - time.perf_counter()) / (rounds - r)
            played = 0
            while per is None or played < per:
                worlds = [game.resample_hidden(me, self.rng) for _ in range(step)]
                leaves = [self._descend(w.clone(), root, me, first=a)
                          for a in alive for w in worlds]
                self._evaluate([leaf for leaf in leaves if isinstance(leaf, _Leaf)], me)
                played += step
                if per is None and time.perf_counter() >= ends:
                    break
            if r < rounds - 1:
                alive = halve(alive, lambda a: self._mean(root, a), self._base)
        self._alive = alive

    def improved_policy(self, root: _Node, legal: np.ndarray, c_visit: float = 50.0,
                        c_scale: float = 0.1) -> np.ndarray:
        """Gumbel MuZero's improved policy at a searched root, over `legal`:
        ``softmax(log P(a) + (c_visit + max N) * c_scale * q(a))`` with ``q`` the mean
        value on [0, 1] of each visited action and, for an unvisited one, the
        prior-weighted mean of the visited ones (its completed Q)."""
        prior = np.array([root.prior[int(a)] for a in legal])
        visits = np.array([root.children[int(a)].visits if int(a) in root.children else 0
                           for a in legal.tolist()])
        seen = visits > 0
        q = np.array([self._mean(root, int(a)) if v else 0.0 for a, v in zip(legal, visits,
                                                                             strict=True)])
        q[~seen] = (prior[seen] * q[seen]).sum() / prior[seen].sum()
        z = np.log(prior) + (c_visit + visits.max()) * c_scale * (q + 1) / 2
        p = np.exp(z - z.max())
        return p / p.sum()

    @staticmethod
    def _mean(root: _Node, a: int) -> float:
        child = root.children.get(a)
        return child.value / child.visits if child is not None and child.visits else -math.inf

    def _halving_choice(self, root: _Node) -> int:
        """The best candidate left by sequential halving if its mean beats the network's
        choice by more than `margin`; else the network's choice."""
        base = self._base
        best = max(self._alive, key=lambda a: self._mean(root, a))  # first on ties: prior
        return best if self._mean(root, best) - self._mean(root, base) > self.margin else base

    def _descend(self, g: Game, root: _Node, me: str, first: int | None = None
                 ) -> _Leaf | None:
        """One simulation down to a position to evaluate (returned, its path under virtual
        loss) or to the end of the game (backed up at once, None); `first`: the root's
        action, where the root does not choose by PUCT."""
        node, path = root, [root]
        if first is not None and g.action_mask()[first]:  # (else: PUCT, as at any node)
            root.avail[first] = root.avail.get(first, 0) + 1
            node = root.children.get(first) or root.children.setdefault(first, _Node(me))
            g.step(first)
            path.append(node)
        while True:
            while not g.is_over and g.decision.kind in FINE_KINDS:  # not tree decisions
                g.step(self._fine_in_simulation(g))
            if (self.opponent == "policy" and not g.is_over
                    and g.current_player != me):  # the opponent: the network, not the tree
                g.step(self._network_choice(g))
                continue
            if g.is_over:
                self._backup(path, g.returns()[me])
                return None
            legal = g.legal_actions()
            if any(int(a) not in node.prior for a in legal):
                break  # a leaf: new, or offering actions no evaluation has priced yet
            chooser = g.current_player
            a = self._select(node, legal, chooser == me)
            child = node.children.get(a)
            if child is None:
                child = node.children[a] = _Node(chooser)
            g.step(a)
            node = child
            path.append(node)
        for n in path:  # virtual loss: a lost visit for every mover until the backup
            n.visits += 1
            n.value += 0.0 if n.player is None else (-1.0 if n.player == me else 1.0)
        mover = g.current_player
        obs = self._encode(g, mover)
        kept = self.rollouts is not None  # the play-out needs the leaf as it is
        rollout = (rollout_value(g.clone() if kept else g, me, self.policy, self.rollout_depth,
                                 self.eval_scale) if self.rollout_mix else 0.0)
        return _Leaf(path, node, legal, mover, obs, rollout, g if kept else None)

    def _fine_in_simulation(self, g: Game) -> int:
        """A point of influence or a target inside a simulation: :class:`FastPolicy`'s
        choice, or (``sim_fine="network"``) the network's most likely action."""
        if self.sim_fine == "fast" and not (self.opponent == "policy"
                                            and g.current_player != self._me):
            return self.policy.act(None, g.action_mask(), g)
        return self._network_choice(g)

    def _network_choice(self, g: Game) -> int:
        """The network's most likely legal action for the player to move in `g` (one
        forward pass from that player's view of the determinisation)."""
        legal = g.legal_actions()
        if legal.size == 1:
            return int(legal[0])
        logits, _ = self._forward([self._encode(g, g.current_player)], [legal])
        return int(legal[np.argmax(logits[0][legal])])

    def _select(self, node: _Node, legal: np.ndarray, mine: bool) -> int:
        """PUCT over the legal actions, from the chooser's point of view."""
        sign = 1.0 if mine else -1.0
        fpu = sign * node.value / node.visits if node.visits else 0.0
        total = sum(node.prior[int(a)] for a in legal)
        best, best_score = -1, -math.inf
        for a in legal:
            a = int(a)
            avail = node.avail[a] = node.avail.get(a, 0) + 1
            child = node.children.get(a)
            visits = child.visits if child is not None else 0
            q = sign * child.value / visits if visits else fpu
            score = q + self.c * node.prior[a] / total * math.sqrt(avail) / (1 + visits)
            if score > best_score:
                best, best_score = a, score
        return best

    def _evaluate(self, leaves: list[_Leaf], me: str) -> None:
        """One forward pass for the waiting leaves; price their actions, back them up."""
        if not leaves:
            return
        logits, values = self._forward([leaf.obs for leaf in leaves],
                                       [leaf.legal for leaf in leaves])
        if self.rollouts is not None:  # play-outs: their results, already the searcher's
            played = self.rollouts.results([leaf.game for leaf in leaves], me, self.playout)
        for i, (leaf, lg, v) in enumerate(zip(leaves, logits, values, strict=True)):
            for a, p in self._priors(lg, leaf.legal).items():
                leaf.node.prior.setdefault(a, p)
            if self.rollouts is not None:
                v_me = float(played[i])
            else:
                v_me = float(v) if leaf.mover == me else -float(v)
            for n in leaf.path:  # undo the virtual loss
                n.visits -= 1
                n.value -= 0.0 if n.player is None else (-1.0 if n.player == me else 1.0)
            self._backup(leaf.path, (1 - self.rollout_mix) * v_me
                         + self.rollout_mix * leaf.rollout)

    @staticmethod
    def _backup(path: list[_Node], v_me: float) -> None:
        for n in path:
            n.visits += 1
            n.value += v_me
