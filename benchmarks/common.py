"""Shared pieces of the benchmark scripts."""

from __future__ import annotations

import datetime
import json
import os
import platform
import sys
from pathlib import Path
from typing import Any

import numpy as np

from evenstar_env import Game


def machine() -> dict[str, str | int]:
    """CPU model, cores, Python version and platform of this machine."""
    cpu = platform.processor() or "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {"cpu": cpu, "cores": os.cpu_count() or 1, "python": platform.python_version(),
            "platform": platform.platform()}


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


def write_results(out: dict[str, Any], path: Path) -> None:
    """Write a benchmark's figures as JSON and say where, with the date (UTC), the command
    and the default backend (what benchmarks/readme_tables.py puts above each table)."""
    from evenstar_env.native import resolve

    out.setdefault("date", datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d"))
    script = Path(sys.argv[0]).resolve()
    root = Path(__file__).resolve().parent.parent
    if script.is_relative_to(root):
        script = script.relative_to(root)
    out.setdefault("command", " ".join(["python", str(script), *sys.argv[1:]]))
    out.setdefault("default_backend", resolve(None))
    out.setdefault("machine", machine())
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(out, indent=2))
    print(f"wrote {path}")
