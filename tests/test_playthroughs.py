"""Golden playthroughs: recorded games replay to identical observations, masks and rewards.

Regenerate with `python scripts/regen_playthroughs.py` when a rule change is intended.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("regen", ROOT / "scripts" / "regen_playthroughs.py")
regen = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(regen)

FILES = sorted((ROOT / "tests" / "playthroughs").glob("*.json"))


def test_there_are_golden_playthroughs() -> None:
    assert len(FILES) >= 3


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_playthrough_replays_identically(path: Path) -> None:
    rec = json.loads(path.read_text())
    again = regen.replay(rec["seed"], rec["actions"])
    assert again["result"] == rec["result"]
    first_diff = next((i for i, (a, b) in enumerate(zip(again["digests"], rec["digests"],
                                                        strict=False)) if a != b), None)
    assert first_diff is None, f"step {first_diff} differs"
    assert len(again["digests"]) == len(rec["digests"])


def test_generated_docs_are_current() -> None:
    import os
    import subprocess
    import sys

    # This checkout's package, not the installed one (they differ in a git worktree).
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "gen_docs.py"), "--check"],
                          capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
