"""Agents that play Dawn of the Evenstar (see docs/agents.md)."""

from .base import Agent
from .random_agent import CautiousRandomAgent, RandomAgent

__all__ = ["Agent", "CautiousRandomAgent", "RandomAgent"]
