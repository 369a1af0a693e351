"""Agents by spec string, as the arena, the envs' `opponent=` and the CLI name them."""

from __future__ import annotations

from typing import Any

from .heuristic import HeuristicAgent
from .ismcts import ISMCTSAgent
from .random_agent import CautiousRandomAgent, RandomAgent


def make_agent(spec: str, seed: int) -> Any:
    """An agent from a spec: random, cautious, heuristic, ismcts[:ITER[:SECONDS]], ppo:PATH,
    learned[:PATH] (a networks checkpoint folder), openspiel-ismcts[:SIMS] (needs the
    openspiel extra)."""
    kind, _, arg = spec.partition(":")
    if kind == "random":
        return RandomAgent(seed)
    if kind == "cautious":
        return CautiousRandomAgent(seed)
    if kind == "heuristic":
        return HeuristicAgent(seed)
    if kind == "ismcts":
        iters, _, secs = arg.partition(":")  # what the spec leaves out keeps its default
        budget = {"iterations": int(iters)} if iters else {}
        if secs:
            budget["seconds"] = float(secs)
        return ISMCTSAgent(seed=seed, **budget)
    if kind == "ppo":
        from agents.ppo_agent import SHIPPED_POLICY, PPOAgent

        return PPOAgent(arg or SHIPPED_POLICY, seed=seed)
    if kind == "learned":
        from agents.learned_agent import DEFAULT_PATH, LearnedAgent

        return LearnedAgent(arg or DEFAULT_PATH, seed=seed)
    if kind == "openspiel-ismcts":
        from agents.openspiel_agent import OpenSpielISMCTSAgent

        return OpenSpielISMCTSAgent(**({"simulations": int(arg)} if arg else {}), seed=seed)
    raise ValueError(f"unknown agent spec {spec!r} (random, cautious, heuristic, "
                     f"ismcts[:ITER[:SECONDS]], ppo:PATH, learned[:PATH], "
                     f"openspiel-ismcts[:SIMS])")
