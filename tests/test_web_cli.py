"""`evenstar serve`'s arguments: bad ones are one usage line (exit 2) before anything
starts; an unusable game store is one error line (exit 1)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from experiments.cli import app

runner = CliRunner()


@pytest.mark.parametrize("args, words", [
    (["--port", "0"], "port"), (["--port", "70000"], "port"), (["--workers", "0"], "workers"),
    (["--db", "{tmp}"], "folder"), (["--records", "{tmp}/nowhere"], "not a folder"),
])
def test_serve_refuses_bad_arguments(tmp_path: Path, args: list[str], words: str) -> None:
    r = runner.invoke(app, ["serve", *[a.format(tmp=tmp_path) for a in args]],
                      env={"COLUMNS": "400"})
    assert r.exit_code == 2 and words in r.output


def test_serve_says_when_the_store_cannot_be_opened(tmp_path: Path) -> None:
    bad = tmp_path / "not.sqlite"
    bad.write_bytes(b"this is not a database" * 100)
    r = runner.invoke(app, ["serve", "--db", str(bad)])
    assert r.exit_code == 1 and "cannot open the game store" in r.output
    assert len(r.output.strip().splitlines()) == 1
