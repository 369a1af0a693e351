"""What ``experiments.train --resume`` reads back from a run folder, checked field by field.

``runs/NAME/config.json`` (the run's settings) and ``checkpoints/latest/state.json`` (the
counters, the league, the snapshot names and the generator's state) are plain JSON a user
can edit or damage: each is read only if it is a regular file under a size cap, every
field must have the type and range the trainer expects, and every snapshot must be a
folder inside ``runs/NAME/snapshots`` (a name such as ``../../elsewhere`` is refused).
Every failure is one :class:`~agents.networks.CheckpointError` line.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

import numpy as np
import torch

from agents.networks import CheckpointError
from evenstar_env.safe_io import read_bounded
from evenstar_env.safe_io import read_json as safe_read_json

MAX_JSON_BYTES = 1 << 22
MAX_OPTIMIZER_BYTES = 1 << 31
SNAPSHOT_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}")
GROUPS = ("snapshot", "scripted")


def read_json(path: Path, what: str) -> dict[str, Any]:
    """A JSON object from a regular file of at most :data:`MAX_JSON_BYTES`."""
    doc = safe_read_json(path, MAX_JSON_BYTES, what, CheckpointError)
    if not isinstance(doc, dict):
        raise CheckpointError(f"{path}: the {what} is not a JSON object")
    return doc


def _count(doc: dict[str, Any], key: str, where: Path) -> int:
    value = doc.get(key)
    if type(value) is not int or value < 0:
        raise CheckpointError(f"{where}: {key!r} must be a whole number >= 0, got "
                              f"{value!r}"[:200])
    return value


def _number(value: Any, what: str, where: Path, lo: float = -math.inf) -> float:
    if type(value) not in (int, float) or not math.isfinite(value) or value < lo:
        raise CheckpointError(f"{where}: {what} must be a finite number >= {lo}, got "
                              f"{value!r}"[:200])
    return float(value)


def _league(doc: Any, where: Path) -> dict[str, Any]:
    if not isinstance(doc, dict) or set(doc) - {"entries", "scores", "games", "decay"}:
        raise CheckpointError(f"{where}: 'league' must be an object of entries, scores, "
                              "games and decay")
    entries, scores, games = (doc.get(k, {}) for k in ("entries", "scores", "games"))
    if not (isinstance(entries, dict) and all(isinstance(k, str) and g in GROUPS
                                              for k, g in entries.items())):
        raise CheckpointError(f"{where}: 'league.entries' must map names to one of {GROUPS}")
    for name in entries:
        if not (isinstance(scores, dict) and isinstance(games, dict)):
            raise CheckpointError(f"{where}: 'league.scores' and 'league.games' must be "
                                  "objects")
        _number(scores.get(name), f"league score of {name!r}", where, 0.0)
        if type(games.get(name)) is not int or games[name] < 0:
            raise CheckpointError(f"{where}: league games of {name!r} must be a whole "
                                  "number >= 0")
    decay = _number(doc.get("decay", 0.05), "'league.decay'", where, 0.0)
    if decay > 1:
        raise CheckpointError(f"{where}: 'league.decay' must be in [0, 1], got {decay}")
    return {"entries": dict(entries), "scores": {n: float(scores[n]) for n in entries},
            "games": {n: games[n] for n in entries}, "decay": decay}


def read_state(run: Path) -> dict[str, Any]:
    """``run/checkpoints/latest/state.json``, every field checked; the snapshot names
    kept are folders inside ``run/snapshots``."""
    where = Path(run) / "checkpoints" / "latest" / "state.json"
    st = read_json(where, "training state")
    out: dict[str, Any] = {k: _count(st, k, where) for k in ("update", "learner_steps",
                                                             "games")}
    out["minutes"] = _number(st.get("minutes"), "'minutes'", where, 0.0)
    out["best"] = _number(st.get("best"), "'best'", where)
    snaps = st.get("snapshots")
    if not isinstance(snaps, list):
        raise CheckpointError(f"{where}: 'snapshots' must be a list of snapshot names")
    home = (Path(run) / "snapshots").resolve()
    for name in snaps:
        inside = isinstance(name, str) and SNAPSHOT_NAME.fullmatch(name) is not None
        if not inside or (home / name).resolve().parent != home \
                or not (home / name).is_dir():
            raise CheckpointError(f"{where}: snapshot {str(name)[:100]!r} is not a folder "
                                  f"in {home}")
    out["snapshots"] = list(snaps)
    out["league"] = _league(st.get("league"), where)
    rng = st.get("rng")
    try:
        np.random.default_rng().bit_generator.state = rng
    except (TypeError, ValueError, KeyError, OverflowError) as exc:
        raise CheckpointError(f"{where}: 'rng' is not a generator state "
                              f"({' '.join(str(exc).split())[:150]})") from None
    out["rng"] = rng
    return out


def load_optimizer(opt: torch.optim.Optimizer, path: Path) -> None:
    """The optimizer state at `path` (weights-only, bounded) into `opt`."""
    state = load_weights_dict(path)
    try:
        opt.load_state_dict(state)
    except (ValueError, KeyError, TypeError, RuntimeError, IndexError) as exc:
        raise CheckpointError(f"{path}: does not fit the optimizer "
                              f"({' '.join(str(exc).split())[:200]})") from None


def load_weights_dict(path: Path) -> dict[str, Any]:
    """A weights-only file holding any plain dict (an optimizer state)."""
    import io

    try:
        data = read_bounded(path, MAX_OPTIMIZER_BYTES)
        state = torch.load(io.BytesIO(data), map_location="cpu", weights_only=True)
    except OSError as exc:
        raise CheckpointError(f"{path}: cannot be read: {exc.strerror or exc}") from None
    except Exception as exc:  # an unpickling refusal, garbage, an empty file: nothing ran
        raise CheckpointError(f"{path}: not a weights-only file "
                              f"({' '.join(str(exc).split())[:200]})") from None
    if not isinstance(state, dict):
        raise CheckpointError(f"{path}: not a state dict")
    return state


def run_config(saved: dict[str, Any], defaults: dict[str, Any], where: Path
               ) -> dict[str, Any]:
    """A saved run config checked against the settings' defaults: known keys only, each
    of its default's type (an int is a float too)."""
    unknown = sorted(set(saved) - set(defaults))
    if unknown:
        raise CheckpointError(f"{where}: unknown setting(s) {unknown}"[:200])
    for key, value in saved.items():
        want = type(defaults[key])
        ok = type(value) is want or (want is float and type(value) is int)
        if not ok:
            raise CheckpointError(f"{where}: setting {key!r} must be a {want.__name__}, got "
                                  f"{value!r}"[:200])
    return saved
