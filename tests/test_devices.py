"""``--device`` for both trainers and their shared CLI vocabulary (issue 37)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import torch
from typer.testing import CliRunner

from experiments import train, train_selfplay
from experiments.devices import resolve_device


def test_auto_is_cuda_where_available_else_cpu() -> None:
    assert resolve_device("auto") == ("cuda" if torch.cuda.is_available() else "cpu")
    assert resolve_device(" CPU ") == "cpu"


@pytest.mark.parametrize("spec", ["gpu", "cuda0", "cuda:x", "", "tpu", "cpu:0"])
def test_anything_else_is_one_line_naming_the_choices(spec: str) -> None:
    with pytest.raises(ValueError, match=r"^--device must be auto, cpu, cuda, cuda:N or mps, "
                                         r"not '.*'$"):
        resolve_device(spec)


def test_devices_this_machine_lacks_are_one_line() -> None:
    if not torch.backends.mps.is_available():
        with pytest.raises(ValueError, match="MPS.* not available"):
            resolve_device("mps")
    if not torch.cuda.is_available():
        for spec in ("cuda", "cuda:0"):
            with pytest.raises(ValueError, match="no CUDA GPU"):
                resolve_device(spec)
    else:
        with pytest.raises(ValueError, match="CUDA device"):
            resolve_device(f"cuda:{torch.cuda.device_count()}")


def test_batched_trainer_refuses_a_bad_device_in_one_line() -> None:
    with pytest.raises(SystemExit) as e:
        train.main(["--smoke", "--device", "gpu", "--runs-dir", "/nonexistent/x"])
    assert str(e.value) == "train: --device must be auto, cpu, cuda, cuda:N or mps, not 'gpu'"
    cfg, _ = train.parse_args(["--device", "auto", "--name", "x"])
    cfg.check()
    assert cfg.device in ("cpu", "cuda")


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """train_selfplay.train replaced by a recorder (no training)."""
    seen: list[dict[str, Any]] = []

    def fake(cfg: Any, resume: bool = False, progress: bool = True, device: str = "cpu") -> Path:
        seen.append({"cfg": cfg, "resume": resume, "device": device})
        return Path(cfg.out) / "checkpoints" / "policy"

    monkeypatch.setattr(train_selfplay, "train", fake)
    monkeypatch.setattr(train_selfplay, "load_content", lambda: None)
    return seen


def test_selfplay_trainer_speaks_the_batched_trainers_flags(calls: list, tmp_path: Path) -> None:
    run = CliRunner().invoke
    app = train_selfplay.app
    r = run(app, ["--runs-dir", str(tmp_path), "--name", "a", "--total-steps", "64",
                  "--device", "auto", "--smoke"])
    assert r.exit_code == 0, r.output
    assert calls[-1]["cfg"].out == str(tmp_path / "a")
    assert calls[-1]["cfg"].total_timesteps == 64
    assert calls[-1]["device"] == resolve_device("auto")
    # the older spellings still work
    assert run(app, ["--out", str(tmp_path / "b"), "--timesteps", "32"]).exit_code == 0
    assert calls[-1]["cfg"].out == str(tmp_path / "b")
    assert calls[-1]["cfg"].total_timesteps == 32
    assert run(app, ["--smoke"]).exit_code == 0 and calls[-1]["cfg"].out == "runs/ppo-smoke"
    n = len(calls)
    r = run(app, ["--device", "gpu"])
    assert r.exit_code == 2 and len(calls) == n
    assert "--device must be auto, cpu, cuda, cuda:N or mps, not 'gpu'" in r.output
    assert run(app, ["--out", "x", "--name", "y"]).exit_code != 0 and len(calls) == n
