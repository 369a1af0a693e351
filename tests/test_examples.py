"""examples/cleanrl_ppo.py runs (a seconds-long smoke run; the full run is in
docs/agents.md)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "cleanrl_ppo.py"


def test_cleanrl_example_trains_and_evaluates(capsys: pytest.CaptureFixture[str]) -> None:
    spec = importlib.util.spec_from_file_location("cleanrl_ppo", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    sys.modules["cleanrl_ppo"] = module
    spec.loader.exec_module(module)
    module.main(["--total-steps", "600", "--num-envs", "8", "--num-steps", "40",
                 "--eval-games", "2"])
    out = capsys.readouterr().out.splitlines()
    assert out[0].split()[0].isdigit() and int(out[0].split()[0]) > 0  # steps trained
    assert out[-1].startswith("greedy policy vs random, 4 games on both sides: ")
