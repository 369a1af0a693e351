"""Agents that play Dawn of the Evenstar (see docs/agents.md)."""

from .base import Agent
from .heuristic import HeuristicAgent
from .ismcts import ISMCTSAgent
from .random_agent import CautiousRandomAgent, RandomAgent

__all__ = ["Agent", "CautiousRandomAgent", "HeuristicAgent", "ISMCTSAgent", "RandomAgent"]
