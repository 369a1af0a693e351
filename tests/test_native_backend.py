"""The backend switch: defaults, the one warning, and the generated native names."""

from __future__ import annotations

import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from evenstar_env import Game, native

ROOT = Path(__file__).resolve().parent.parent


def test_backend_names_and_types() -> None:
    assert Game(0, backend="python").backend == "python"
    assert Game(0, backend="native").backend == "native"
    with pytest.raises(ValueError, match="backend"):
        Game(0, backend="cuda")


def test_log_on_both_engines() -> None:
    """log=True without a backend picks the Python engine (the readable reference); the
    native core keeps the same log when asked (its event stream, docs/events.md)."""
    assert Game(0, log=True).backend == "python"
    py, nat = Game(0, backend="python", log=True), Game(0, backend="native", log=True)
    for _ in range(30):
        a = int(py.legal_actions()[-1])
        py.step(a)
        nat.step(a)
    assert nat.backend == "native" and nat.log == py.log and len(py.log) > 40


@pytest.mark.parametrize("env", ["native", None])
def test_one_warning_when_the_default_is_native_but_not_built(
        monkeypatch: pytest.MonkeyPatch, env: str | None) -> None:
    monkeypatch.setattr(native, "core", lambda: None)
    monkeypatch.setattr(native, "_warned", False)
    if env is None:
        monkeypatch.delenv("EVENSTAR_BACKEND", raising=False)  # the default itself
    else:
        monkeypatch.setenv("EVENSTAR_BACKEND", env)
    with pytest.warns(RuntimeWarning, match="not built") as record:
        assert Game(0).backend == "python"
        assert Game(1).backend == "python"
    assert len(record) == 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert Game(0, backend="python").backend == "python"  # asked for: no warning
    with pytest.raises(ImportError, match="native"):
        Game(0, backend="native")


def test_a_core_built_from_other_sources_counts_as_not_built(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A stale build (another ABI_VERSION) is not used: the default falls back to Python
    and asking for native is an ImportError, not a failure deep inside the core."""
    import evenstar_native

    monkeypatch.setattr(evenstar_native, "ABI_VERSION", native.ABI_VERSION - 1)
    assert not native.available()
    with pytest.raises(ImportError, match="native"):
        Game(0, backend="native")


def test_native_is_the_default_and_python_is_asked_for(monkeypatch: pytest.MonkeyPatch) -> None:
    """docs/native.md: native is the default where the extension is built (rules and
    observations in C++); Python is asked for, and a text log always picks it."""
    monkeypatch.delenv("EVENSTAR_BACKEND", raising=False)
    assert native.DEFAULT == "native" and Game(0).backend == "native"
    assert Game(0, log=True).backend == "python"
    assert Game.from_dict(Game(0, backend="python").to_dict()).backend == "native"
    assert Game.from_dict(Game(0).to_dict(), backend="python").backend == "python"


def test_env_variable_picks_the_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EVENSTAR_BACKEND", "native")
    assert Game(0).backend == "native"
    monkeypatch.setenv("EVENSTAR_BACKEND", "python")
    assert Game(0).backend == "python"


def test_native_names_header_is_current() -> None:
    """native/src/cpp/names_gen.h follows the Python registries (frames, effects, kinds)."""
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "gen_native_names.py"),
                           "--check"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_every_python_frame_has_a_native_schema() -> None:
    from evenstar_env.native.frames import FRAME_SCHEMA
    from evenstar_env.native.names import frame_names

    assert set(frame_names()) == set(FRAME_SCHEMA)
