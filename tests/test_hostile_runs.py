"""Long runs survive crashes and crafted files (issue 15, issue 16): balance resume after a
half-written record, and training checkpoints that never run code or mix configurations."""

from __future__ import annotations

import base64
import dataclasses
import json
import pickle
import zipfile
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from evenstar_env.content.schema import Variant
from experiments import balance, checkpoint
from experiments.balance import ResumeWarning, Study, read_games, run_study
from experiments.files import append_line

BASE = Variant(name="baseline")


def tiny(games: int = 2) -> Study:
    return Study([BASE], usa="cautious", china="random", games=games, workers=1)


def keys(path: Path) -> Counter:
    return Counter(json.loads(line)["key"] for line in path.read_text().splitlines())


# ---------------------------------------------------------------- balance resume


@pytest.fixture(scope="module")
def finished_study(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("study")
    run_study(tiny(3), out, progress=False)
    return out


def copy_study(src: Path, dst: Path) -> Path:
    dst.mkdir(exist_ok=True)
    for name in ("games.jsonl", balance.STAMP):
        (dst / name).write_bytes((src / name).read_bytes())
    return dst


def test_half_written_record_is_repaired_and_nothing_is_played_twice(
        finished_study: Path, tmp_path: Path, monkeypatch) -> None:
    """A crash mid-write left half a line: three resumes give 6 games, each stored once."""
    out = copy_study(finished_study, tmp_path / "s")
    lines = (out / "games.jsonl").read_text().splitlines()
    assert len(lines) == 6
    (out / "games.jsonl").write_text("\n".join(lines[:3]) + "\n" + lines[3][:40])
    played: list[str] = []
    real = balance.play_job

    def counting(job, *args):
        played.append(job.key)
        return real(job, *args)
    monkeypatch.setattr(balance, "play_job", counting)
    with pytest.warns(ResumeWarning, match="skipped 1 damaged and 0 repeated"):
        run_study(tiny(3), out, progress=False)
    for _ in range(2):  # later resumes: nothing to play, nothing appended
        run_study(tiny(3), out, progress=False)
    assert len(played) == 3 and len(set(played)) == 3
    text = (out / "games.jsonl").read_text()
    assert text.endswith("\n") and all(json.loads(ln) for ln in text.splitlines())
    assert keys(out / "games.jsonl") == keys(finished_study / "games.jsonl")
    assert max(keys(out / "games.jsonl").values()) == 1
    summary = json.loads((out / "summary.json").read_text())
    assert summary["variants"]["baseline"]["games"] == 6


def test_repeated_and_damaged_lines_are_dropped_once(finished_study: Path, tmp_path: Path) -> None:
    out = copy_study(finished_study, tmp_path / "s")
    lines = (out / "games.jsonl").read_text().splitlines()
    (out / "games.jsonl").write_text("\n".join([lines[0], lines[0], "[1, 2]", "{not json",
                                                *lines[1:]]) + "\n")
    with pytest.warns(ResumeWarning, match="skipped 2 damaged and 1 repeated"):
        recs = read_games(out / "games.jsonl", repair=True)
    assert [r["key"] for r in recs] == [json.loads(ln)["key"] for ln in lines]
    assert (out / "games.jsonl").read_text() == "".join(
        json.dumps(json.loads(ln)) + "\n" for ln in lines)


def test_a_complete_last_line_without_newline_is_terminated(finished_study: Path,
                                                            tmp_path: Path) -> None:
    out = copy_study(finished_study, tmp_path / "s")
    (out / "games.jsonl").write_text((out / "games.jsonl").read_text().rstrip("\n"))
    read_games(out / "games.jsonl", repair=True)
    append_line(out / "games.jsonl", json.dumps({"key": "new"}))
    assert len((out / "games.jsonl").read_text().splitlines()) == 7


def test_append_line_writes_each_record_in_one_write(tmp_path: Path, monkeypatch) -> None:
    import experiments.files as files

    writes: list[bytes] = []
    real = files.os.write

    def spy(fd: int, data: bytes) -> int:
        writes.append(bytes(data))
        return real(fd, data)
    monkeypatch.setattr(files.os, "write", spy)
    append_line(tmp_path / "g.jsonl", json.dumps({"key": "a", "x": "y" * 10_000}))
    assert len(writes) == 1 and writes[0].endswith(b"\n")


def test_study_settings_are_checked_before_any_game(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(balance, "play_job", lambda *a: pytest.fail("a game was played"))
    for bad, message in ((dict(backend="foo"), "unknown backend 'foo'"),
                         (dict(games=-2), "games"), (dict(forbid=["nosuchcard"]),
                                                     "no card with id 'nosuchcard'")):
        study = dataclasses.replace(tiny(), **bad)
        with pytest.raises(ValueError, match=message):
            run_study(study, tmp_path / "s", progress=False)
    assert not (tmp_path / "s").exists()


# ---------------------------------------------------------------- training checkpoints


class _Exploit:
    """Unpickling this creates `marker` (proof that code ran)."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (Path.touch, (self.marker,))


def smoke_config(out: Path):
    from experiments.train_selfplay import TrainConfig

    return TrainConfig.smoke(str(out))


def write_meta(out: Path, config: dict, steps: int = 512) -> None:
    (out / "checkpoints").mkdir(parents=True, exist_ok=True)
    (out / "checkpoints" / "latest.json").write_text(json.dumps(
        {"format": checkpoint.FORMAT, "num_timesteps": steps, "config": config}))


def test_the_exploit_is_real(tmp_path: Path) -> None:
    """Control: plain unpickling of the crafted bytes does run code."""
    marker = tmp_path / "ran"
    pickle.loads(pickle.dumps(_Exploit(marker)))
    assert marker.exists()


@pytest.mark.filterwarnings("ignore:Detected pickle protocol:UserWarning")
def test_resume_never_runs_code_from_a_crafted_weights_file(tmp_path: Path) -> None:
    from experiments.train_selfplay import train

    out, marker = tmp_path / "run", tmp_path / "pwned"
    cfg = smoke_config(out)
    write_meta(out, dataclasses.asdict(cfg))
    (out / "checkpoints" / "latest.pt").write_bytes(pickle.dumps(_Exploit(marker)))
    with pytest.raises(checkpoint.CheckpointError, match="not a weights-only tensor file"):
        train(cfg, resume=True, progress=False)
    assert not marker.exists()


def test_resume_never_opens_a_crafted_sb3_zip(tmp_path: Path) -> None:
    """An SB3 zip unpickles its ':serialized:' entries on load; ours is never opened."""
    from experiments.train_selfplay import train

    out, marker = tmp_path / "run", tmp_path / "pwned"
    (out / "checkpoints").mkdir(parents=True)
    payload = base64.b64encode(pickle.dumps(_Exploit(marker))).decode()
    with zipfile.ZipFile(out / "checkpoints" / "latest.zip", "w") as z:
        z.writestr("data", json.dumps({"policy_class": {":type:": "x",
                                                        ":serialized:": payload}}))
    with pytest.raises(checkpoint.CheckpointError, match="can carry code and is never loaded"):
        train(smoke_config(out), resume=True, progress=False)
    assert not marker.exists()
    with pytest.raises(checkpoint.CheckpointError, match="already holds a training run"):
        train(smoke_config(out), resume=False, progress=False)  # nor is it overwritten


def test_resume_refuses_another_configuration_naming_the_fields(tmp_path: Path) -> None:
    """Issue 16: a smoke checkpoint in the full run's folder is not silently continued."""
    import torch

    from experiments.train_selfplay import TrainConfig, train

    out = tmp_path / "run"
    write_meta(out, dataclasses.asdict(smoke_config(out)))
    torch.save({"policy": {}, "optimizer": {}}, out / "checkpoints" / "latest.pt")
    with pytest.raises(checkpoint.CheckpointError) as err:
        train(TrainConfig(out=str(out)), resume=True, progress=False)
    message = str(err.value)
    for name in ("n_steps (saved 128, now 2048)", "net_arch (saved [64, 64], now [256, 256])",
                 "bc_games"):
        assert name in message
    assert "total_timesteps" not in message  # may change on resume
    assert not (out / "config.json").exists()  # nothing was written


def test_resume_without_a_checkpoint_is_a_clear_error(tmp_path: Path) -> None:
    from experiments.train_selfplay import train

    with pytest.raises(checkpoint.CheckpointError, match="no checkpoint to resume"):
        train(smoke_config(tmp_path / "empty"), resume=True, progress=False)


@pytest.mark.parametrize("meta", ["[]", '{"format": "other"}', "\udcff", "[" * 50_000])
def test_a_malformed_checkpoint_description_is_refused(tmp_path: Path, meta: str) -> None:
    out = tmp_path / "run"
    (out / "checkpoints").mkdir(parents=True)
    (out / "checkpoints" / "latest.json").write_bytes(meta.encode("utf-8", "surrogateescape"))
    (out / "checkpoints" / "latest.pt").write_bytes(b"")
    with pytest.raises(checkpoint.CheckpointError, match="latest.json"):
        checkpoint.read(out, dataclasses.asdict(smoke_config(out)))


def test_smoke_runs_get_their_own_folder(monkeypatch) -> None:
    import experiments.train_selfplay as ts

    seen = []
    monkeypatch.setattr(ts, "train", lambda cfg, **k: seen.append(cfg) or Path("p"))
    assert CliRunner().invoke(ts.app, ["--smoke"]).exit_code == 0
    assert CliRunner().invoke(ts.app, []).exit_code == 0
    assert [c.out for c in seen] == ["runs/ppo-smoke", "runs/ppo"]


def test_train_command_reports_a_refused_resume_in_one_line(tmp_path: Path) -> None:
    import experiments.train_selfplay as ts

    result = CliRunner().invoke(ts.app, ["--out", str(tmp_path / "none"), "--resume"])
    assert result.exit_code == 1
    lines = [ln for ln in result.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and "no checkpoint to resume" in lines[0]


def test_a_study_played_on_other_data_is_not_resumed(finished_study: Path, tmp_path: Path) -> None:
    """Games from other card or rule data would be mixed into this data's figures: the
    resume stops in one message, before any game is played."""
    out = copy_study(finished_study, tmp_path / "s")
    (out / balance.STAMP).write_text("0123456789abcdef\n")
    with pytest.raises(ValueError, match="played on data 0123456789abcdef, not on the shipped"):
        run_study(tiny(3), out, progress=False)
    (out / balance.STAMP).unlink()  # folders from before the stamp are not trusted either
    with pytest.raises(ValueError, match="unknown fingerprint"):
        run_study(tiny(3), out, progress=False)
    assert keys(out / "games.jsonl") == keys(finished_study / "games.jsonl")


def test_a_study_played_by_other_network_weights_is_not_resumed(tmp_path: Path) -> None:
    """A network agent's games depend on its weights: a folder whose games were played by
    other weights of the same spec is refused on resume; the same weights resume it."""
    from agents.networks import NetConfig, build_network, save_checkpoint

    net_dir = tmp_path / "net"
    save_checkpoint(net_dir, build_network(NetConfig.for_content(hidden=(8,))),
                    NetConfig.for_content(hidden=(8,)), {})
    study = Study([BASE], usa=f"learned:{net_dir}", china="random", games=1, workers=1)
    out = tmp_path / "s"
    run_study(study, out, progress=False)
    assert f"learned:{net_dir}=" in (out / balance.STAMP).read_text()
    run_study(study, out, progress=False)  # same weights: resumes (nothing to play)
    save_checkpoint(net_dir, build_network(NetConfig.for_content(hidden=(8,))),
                    NetConfig.for_content(hidden=(8,)), {})  # new random weights
    with pytest.raises(ValueError, match="not on the shipped data and networks"):
        run_study(study, out, progress=False)


def test_a_device_or_fifo_checkpoint_is_refused_not_waited_on(tmp_path: Path) -> None:
    """Issue 36: regular files only (a FIFO latest.json hung, /dev/zero was read on)."""
    import os
    import signal

    out = tmp_path / "run"
    cfg = dataclasses.asdict(smoke_config(out))
    write_meta(out, cfg)
    os.symlink("/dev/zero", out / "checkpoints" / "latest.pt")
    with pytest.raises(checkpoint.CheckpointError, match="cannot be read: a character device"):
        checkpoint.read(out, cfg)
    (out / "checkpoints" / "latest.json").unlink()
    os.mkfifo(out / "checkpoints" / "latest.json")

    def hung(*_):
        raise TimeoutError("waited on the FIFO")
    old = signal.signal(signal.SIGALRM, hung)
    signal.alarm(30)  # a regression fails here instead of hanging the test run
    try:
        with pytest.raises(checkpoint.CheckpointError, match="a FIFO, not a regular file"):
            checkpoint.read(out, cfg)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def test_train_refuses_a_bad_ray_address_at_once(tmp_path: Path) -> None:
    from experiments import train

    for address, message in (("nowhere", "is not HOST:PORT"), ("localhost:1", "nothing answers")):
        with pytest.raises(SystemExit, match=message):
            train.main(["--smoke", "--runs-dir", str(tmp_path), "--backend", "ray",
                        "--ray-address", address])
