"""Shared pieces of the benchmark scripts."""

from __future__ import annotations

import platform
from pathlib import Path

import numpy as np

from evenstar_env import Game


def machine() -> dict[str, str]:
    """CPU model, Python version and platform of this machine."""
    cpu = platform.processor() or "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {"cpu": cpu, "python": platform.python_version(), "platform": platform.platform()}


def uniform_game(seed: int) -> tuple[int, str | None, str, int]:
    """Uniform random play straight on the engine: (decisions, winner, reason, last turn)."""
    g = Game(seed)
    rng = np.random.default_rng(seed)
    steps = 0
    while not g.is_over:
        legal = g.legal_actions()
        g.step(int(legal[rng.integers(legal.size)]))
        steps += 1
    return steps, g.result.winner, g.result.reason, g.turn
