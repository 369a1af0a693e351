"""Hostile network checkpoints and training runs (issue 36, "Checkpoints and CLI"): every
bad file is one CheckpointError line before anything large is allocated, nothing hangs on
a FIFO or a device, NaN weights are refused, ``train --resume`` checks its state and keeps
its snapshots inside the run, and ``train --smoke`` deletes only what a smoke run made."""

from __future__ import annotations

import json
import os
import pickle
import shutil
import subprocess
import sys
from dataclasses import asdict
from pathlib import Path

import pytest
import torch

from agents.networks import CheckpointError, NetConfig, build_network, save_checkpoint
from agents.ppo_agent import SHIPPED_POLICY, PolicyFileError, PPOAgent
from agents.specs import make_agent
from experiments import train
from experiments.train_state import read_state

ROOT = Path(__file__).resolve().parent.parent
CFG = NetConfig.for_content(hidden=(8,))


@pytest.fixture
def ckpt(tmp_path: Path) -> Path:
    """A small, good checkpoint folder (copied and damaged by each test)."""
    path = tmp_path / "good"
    save_checkpoint(path, build_network(CFG), CFG, {"note": "ok"})
    return path


def damaged(ckpt: Path, name: str, config=None, weights=None) -> Path:
    out = ckpt.parent / name
    shutil.copytree(ckpt, out)
    if config is not None:
        doc = json.loads((out / "config.json").read_text())
        (out / "config.json").write_text(json.dumps(config(doc)))
    if weights is not None:
        (out / "weights.pt").unlink()
        if isinstance(weights, bytes):
            (out / "weights.pt").write_bytes(weights)
        else:
            os.symlink(weights, out / "weights.pt")
    return out


def refused(path: Path, message: str) -> None:
    with pytest.raises(CheckpointError) as err:
        make_agent(f"learned:{path}", 0)
    text = str(err.value)
    assert message in text and "\n" not in text, text


def nan_weights(ckpt: Path, value: float) -> bytes:
    import io

    state = torch.load(ckpt / "weights.pt", weights_only=True)
    key = next(iter(state))
    state[key] = state[key].clone()
    state[key].view(-1)[3] = value
    buf = io.BytesIO()
    torch.save(state, buf)
    return buf.getvalue()


def test_the_good_checkpoint_loads(ckpt: Path) -> None:
    assert make_agent(f"learned:{ckpt}", 0).config.hidden == (8,)


class _Exploit:
    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (Path.touch, (self.marker,))


@pytest.mark.filterwarnings("ignore:Detected pickle protocol:UserWarning")
@pytest.mark.parametrize("weights,message", [
    (b"", "an empty file, not a weights-only tensor file"),  # printed only 'Aborted.'
    (b"garbage" * 20, "not a weights-only tensor file: Unsupported operand"),
    (pickle.dumps({"w": [1, 2]}), "not a weights-only tensor file"),
    ("/dev/zero", "cannot read the checkpoint: a character device, not a regular file"),
    ("/dev/urandom", "cannot read the checkpoint: a character device, not a regular file"),
])
def test_weights_that_are_not_a_tensor_file_are_one_line(ckpt: Path, weights, message) -> None:
    refused(damaged(ckpt, "bad", weights=weights), message)


@pytest.mark.filterwarnings("ignore:Detected pickle protocol:UserWarning")
def test_a_pickle_in_weights_never_runs(ckpt: Path, tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    refused(damaged(ckpt, "bad", weights=pickle.dumps(_Exploit(marker))),
            "not a weights-only tensor file")
    assert not marker.exists()


@pytest.mark.parametrize("value", [float("nan"), float("inf"), float("-inf")])
def test_weights_that_are_not_finite_are_refused(ckpt: Path, value: float) -> None:
    """Issue 36: NaN weights were accepted by `learned:` (and played garbage)."""
    refused(damaged(ckpt, "bad", weights=nan_weights(ckpt, value)), "NaN or infinite")


def _net(doc: dict, **change) -> dict:
    return {**doc, "net": {**doc["net"], **change}}


@pytest.mark.parametrize("change,message", [
    (lambda d: {**d, "extra": [1]}, "'extra' must be an object, not list"),
    (lambda d: {**d, "extra": "x"}, "'extra' must be an object, not str"),
    (lambda d: _net(d, options=[1]), "'options' must be an object, not list"),
    (lambda d: _net(d, options={"token": "wide"}), "option 'token' must be one of"),
    (lambda d: _net(d, options={"evil": 1}), "option 'evil' must be one of"),
    (lambda d: _net(d, hidden=[-5]), "each 'hidden' width must be an integer in 1..16,384"),
    (lambda d: _net(d, hidden=[10**30]), "got 1000000000000000000000000000000"),
    (lambda d: _net(d, hidden=[10**6, 10**6]), "got 1000000"),
    (lambda d: _net(d, hidden=[8.5]), "each 'hidden' width"),
    (lambda d: _net(d, hidden=[16_384] * 3), "parameters (at most 200,000,000)"),
    (lambda d: _net(d, hidden="512"), "'hidden' must be a list"),
    (lambda d: _net(d, kind="transformer"), "network kind 'transformer'"),
    (lambda d: _net(d, obs_size=-1), "'obs_size' must be an integer"),
    (lambda d: {**d, "net": [1]}, "'net' must be an object, not list"),
    (lambda d: _net(d, surprise=1), "unknown 'net' field"),
])
def test_config_fields_are_checked_before_allocating(ckpt: Path, change, message) -> None:
    """`hidden: [10**6, 10**6]` allocated 1.9 GB before failing; now refused up front."""
    refused(damaged(ckpt, "bad", config=change), message)


@pytest.mark.parametrize("target", ["/dev/urandom", "/dev/zero"])
def test_a_device_config_is_refused(ckpt: Path, target: str) -> None:
    """/dev/urandom as config.json was read until memory ran out."""
    out = damaged(ckpt, "bad")
    (out / "config.json").unlink()
    os.symlink(target, out / "config.json")
    refused(out, "config.json: cannot read the checkpoint: a character device")


def test_a_fifo_config_or_policy_never_hangs(ckpt: Path, tmp_path: Path) -> None:
    """A FIFO config.json hung `learned:` forever (run in a subprocess with a timeout)."""
    out = damaged(ckpt, "fifo")
    (out / "config.json").unlink()
    os.mkfifo(out / "config.json")
    os.mkfifo(tmp_path / "p.json")
    code = ("import sys\nfrom agents.specs import make_agent\n"
            "for spec in sys.argv[1:]:\n"
            "    try:\n        make_agent(spec, 0)\n"
            "    except ValueError as e:\n        print(e)\n")
    done = subprocess.run([sys.executable, "-c", code, f"learned:{out}",
                           f"ppo:{tmp_path / 'p'}"], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    lines = done.stdout.splitlines()
    assert len(lines) == 2, done.stdout + done.stderr
    assert "config.json: cannot read the checkpoint: a FIFO, not a regular file" in lines[0]
    assert "p.json: cannot read the policy config: a FIFO, not a regular file" in lines[1]


def test_ppo_weights_that_are_not_finite_are_refused(tmp_path: Path) -> None:
    config = json.loads(SHIPPED_POLICY.with_suffix(".json").read_text())
    weights = torch.load(SHIPPED_POLICY.with_suffix(".pt"), weights_only=True)
    weights["action_net.bias"] = weights["action_net.bias"].clone()
    weights["action_net.bias"][0] = float("nan")
    (tmp_path / "p.json").write_text(json.dumps(config))
    torch.save(weights, tmp_path / "p.pt")
    with pytest.raises(PolicyFileError, match="'action_net.bias' holds NaN"):
        PPOAgent(tmp_path / "p")
    (tmp_path / "p.pt").unlink()
    os.symlink("/dev/zero", tmp_path / "p.pt")
    with pytest.raises(PolicyFileError, match="cannot be read: a character device"):
        PPOAgent(tmp_path / "p")


def test_the_cli_reports_a_bad_checkpoint_without_aborting(ckpt: Path) -> None:
    """An empty weights.pt printed only 'Aborted.' (click's answer to an EOFError)."""
    from typer.testing import CliRunner

    from experiments.cli import app

    bad = damaged(ckpt, "bad", weights=b"")
    result = CliRunner().invoke(app, ["arena", f"learned:{bad}", "random", "--games", "1"])
    assert result.exit_code == 2 and "Aborted" not in result.output
    assert "an empty file" in " ".join(result.output.replace("│", " ").split())


# ---------------------------------------------------------------- training


def test_train_init_refuses_nan_weights(ckpt: Path, tmp_path: Path) -> None:
    bad = damaged(ckpt, "nan", weights=nan_weights(ckpt, float("nan")))
    with pytest.raises(SystemExit) as err:
        train.main(["--smoke", "--runs-dir", str(tmp_path / "runs"), "--init", str(bad)])
    assert "NaN or infinite" in str(err.value.code) and "\n" not in str(err.value.code)


def test_train_hidden_sizes_are_bounded(tmp_path: Path) -> None:
    with pytest.raises(SystemExit) as err:
        train.main(["--smoke", "--runs-dir", str(tmp_path), "--hidden", "1000000,1000000"])
    assert "each 'hidden' width must be an integer in 1..16,384" in str(err.value.code)


def test_smoke_never_deletes_a_folder_it_did_not_make(tmp_path: Path) -> None:
    """Issue 36: `--smoke --name NAME` deleted an existing runs/NAME with a config.json."""
    run = tmp_path / "precious"
    run.mkdir()
    (run / "config.json").write_text("{}")
    (run / "weeks_of_work.pt").write_text("x")
    with pytest.raises(SystemExit, match="holds files no smoke run made"):
        train.parse_args(["--smoke", "--runs-dir", str(tmp_path), "--name", "precious"])
    assert sorted(p.name for p in run.iterdir()) == ["config.json", "weeks_of_work.pt"]
    cfg, _ = train.parse_args(["--smoke", "--runs-dir", str(tmp_path), "--name", "new"])
    (cfg.run_dir / "config.json").write_text("{}")  # as a smoke run leaves it
    train.parse_args(["--smoke", "--runs-dir", str(tmp_path), "--name", "new"])
    assert sorted(p.name for p in cfg.run_dir.iterdir()) == [train.LOCK_NAME, train.SMOKE_MARK]


def _state(run: Path, **change) -> None:
    latest = run / "checkpoints" / "latest"
    latest.mkdir(parents=True, exist_ok=True)
    (run / "snapshots" / "u00001").mkdir(parents=True, exist_ok=True)
    state = {"update": 3, "learner_steps": 100, "games": 4, "minutes": 0.5, "best": 0.25,
             "snapshots": ["u00001"], "init": "", "trainer": "x", "seed": 0,
             "league": {"entries": {"heuristic": "scripted", "u00001": "snapshot"},
                        "scores": {"heuristic": 0.5, "u00001": 0.4},
                        "games": {"heuristic": 1, "u00001": 2}, "decay": 0.05},
             "rng": __import__("numpy").random.default_rng(1).bit_generator.state}
    state.update(change)
    (latest / "state.json").write_text(json.dumps(state))


def test_a_good_state_is_read(tmp_path: Path) -> None:
    _state(tmp_path)
    st = read_state(tmp_path)
    assert st["update"] == 3 and st["snapshots"] == ["u00001"]
    assert st["league"]["entries"]["u00001"] == "snapshot"


@pytest.mark.parametrize("change,message", [
    ({"update": "3"}, "'update' must be a whole number"),
    ({"games": -1}, "'games' must be a whole number"),
    ({"minutes": None}, "'minutes' must be a finite number"),
    ({"best": "NaN"}, "'best' must be a finite number"),
    ({"snapshots": "u00001"}, "'snapshots' must be a list"),
    ({"snapshots": ["../../elsewhere"]}, "is not a folder in"),
    ({"snapshots": ["/etc"]}, "is not a folder in"),
    ({"snapshots": ["missing"]}, "'missing' is not a folder in"),
    ({"snapshots": [7]}, "'7' is not a folder in"),
    ({"league": []}, "'league' must be an object"),
    ({"league": {"entries": {"x": "boss"}}}, "'league.entries' must map"),
    ({"league": {"entries": {"x": "scripted"}, "scores": {"x": "high"}, "games": {"x": 1}}},
     "league score of 'x'"),
    ({"rng": {"bit_generator": "nope"}}, "'rng' is not a generator state"),
    ({"rng": None}, "'rng' is not a generator state"),
])
def test_a_crafted_state_is_refused_in_one_line(tmp_path: Path, change: dict,
                                                message: str) -> None:
    """`train --resume` with a crafted state.json gave TypeErrors, and its snapshots could
    name any path outside the run."""
    _state(tmp_path, **change)
    with pytest.raises(CheckpointError) as err:
        read_state(tmp_path)
    assert message in str(err.value) and "\n" not in str(err.value)


def test_resume_refuses_a_crafted_state_before_training(tmp_path: Path) -> None:
    cfg, _ = train.parse_args(["--smoke", "--runs-dir", str(tmp_path)])
    (cfg.run_dir / "config.json").write_text(json.dumps(asdict(cfg)))
    _state(cfg.run_dir, snapshots=["../../../../etc"])
    with pytest.raises(SystemExit) as err:
        train.main(["--smoke", "--runs-dir", str(tmp_path), "--resume"])
    assert "is not a folder in" in str(err.value.code)


@pytest.mark.parametrize("config,message", [
    ("[1]", "is not a JSON object"),
    ('{"num_envs": "six"}', "setting 'num_envs' must be a int"),
    ('{"evil": 1}', "unknown setting(s) ['evil']"),
])
def test_resume_checks_the_saved_settings(tmp_path: Path, config: str, message: str) -> None:
    cfg, _ = train.parse_args(["--smoke", "--runs-dir", str(tmp_path)])
    (cfg.run_dir / "config.json").write_text(config)
    _state(cfg.run_dir)
    with pytest.raises(SystemExit) as err:
        train.parse_args(["--smoke", "--runs-dir", str(tmp_path), "--resume"])
    assert message in str(err.value.code)


def test_a_run_folder_is_locked_against_a_second_trainer(tmp_path: Path) -> None:
    """A second `train` on a folder a run is writing (or a smoke run about to replace
    it) stops at once with one line and deletes nothing."""
    from experiments.files import folder_lock

    run = tmp_path / "smoke"
    run.mkdir()
    with folder_lock(run):
        with pytest.raises(SystemExit) as err:
            train.main(["--smoke", "--runs-dir", str(tmp_path)])
        assert "another run is writing this folder" in str(err.value.code)
        (run / "train.csv").write_text("rows of the running smoke run")
        with pytest.raises(SystemExit) as err:
            train.main(["--smoke", "--runs-dir", str(tmp_path)])
        assert str(err.value.code).startswith("--smoke: ")
        assert (run / "train.csv").read_text() == "rows of the running smoke run"


def test_a_fresh_run_into_a_folder_with_a_run_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "ppo" / "checkpoints" / "latest").mkdir(parents=True)
    with pytest.raises(SystemExit) as err:
        train.main(["--runs-dir", str(tmp_path), "--name", "ppo", "--hidden", "8",
                    "--num-envs", "2"])
    assert "already holds a run: --resume or a new --name" in str(err.value.code)
    (tmp_path / "file").write_text("x")
    with pytest.raises(SystemExit, match="is a file, not a run folder"):
        train.main(["--smoke", "--runs-dir", str(tmp_path), "--name", "file"])
