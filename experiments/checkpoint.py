"""Training checkpoints that cannot carry code.

A checkpoint is ``OUT/checkpoints/latest.pt`` (the policy's and the optimizer's
tensors, written with ``torch.save`` and read with ``torch.load(weights_only=True)``,
which refuses any pickled object that is not a tensor or a plain container) and
``latest.json`` (the format, the timesteps done and the run's config, plain JSON); both
are read only as regular files under a size cap.
Stable-Baselines3's own ``.zip`` checkpoints unpickle objects on load (a crafted
file runs code), so they are never opened.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

from evenstar_env.safe_io import read_bounded, read_json
from experiments.files import write_text_atomic

FORMAT = "evenstar-train-checkpoint-v1"
# Settings a resumed run may change; any other difference means another run.
RESUMABLE_CHANGES = frozenset({"out", "total_timesteps", "max_minutes"})
MAX_META_BYTES = 1 << 20  # latest.json: regular file, at most this (a FIFO never hangs)
MAX_WEIGHTS_BYTES = 1 << 31


class CheckpointError(ValueError):
    """A checkpoint that is missing, malformed, unsafe or from another configuration."""


def paths(out: Path) -> tuple[Path, Path]:
    folder = Path(out) / "checkpoints"
    return folder / "latest.pt", folder / "latest.json"


def save(model: Any, config: dict[str, Any], out: Path) -> None:
    """Write the policy and optimizer tensors and a JSON description of the run."""
    import torch

    weights, meta = paths(out)
    weights.parent.mkdir(parents=True, exist_ok=True)
    tmp = weights.with_suffix(".pt.part")
    torch.save({"policy": model.policy.state_dict(),
                "optimizer": model.policy.optimizer.state_dict()}, tmp)
    tmp.replace(weights)
    write_text_atomic(meta, json.dumps({"format": FORMAT,
                                        "num_timesteps": int(model.num_timesteps),
                                        "config": config}, indent=2))


def differing_fields(saved: dict[str, Any], current: dict[str, Any]) -> list[str]:
    """Names of the settings that differ (and may not differ on resume)."""
    keys = (set(saved) | set(current)) - RESUMABLE_CHANGES
    return sorted(k for k in keys if saved.get(k) != current.get(k))


def read(out: Path, config: dict[str, Any]) -> tuple[dict[str, Any], int]:
    """The saved tensors and timesteps of the run in `out`, checked against `config`.

    CheckpointError if there is no checkpoint of ours, if it was made with a different
    configuration (the differing fields are named), or if the weights file holds anything
    but tensors and plain containers (nothing in it is ever executed).
    """
    import torch

    weights, meta = paths(out)
    if not meta.exists() or not weights.exists():
        old = weights.parent / "latest.zip"
        hint = (f"; {old} is a Stable-Baselines3 checkpoint, which can carry code and is "
                "never loaded" if old.exists() else "")
        raise CheckpointError(f"{weights.parent}: no checkpoint to resume (latest.pt + "
                              f"latest.json){hint}")
    info = read_json(meta, MAX_META_BYTES, "checkpoint description", CheckpointError)
    if not isinstance(info, dict) or info.get("format") != FORMAT:
        raise CheckpointError(f"{meta}: not an {FORMAT} file")
    saved, steps = info.get("config"), info.get("num_timesteps")
    if not isinstance(saved, dict) or isinstance(steps, bool) or not isinstance(steps, int) \
            or steps < 0:
        raise CheckpointError(f"{meta}: config or num_timesteps missing or malformed")
    diff = differing_fields(saved, config)
    if diff:
        shown = ", ".join(f"{k} (saved {saved.get(k)!r}, now {config.get(k)!r})" for k in diff)
        raise CheckpointError(f"{out}: the checkpoint was made with another configuration: "
                              f"{shown}; resume with the same settings or use another --out")
    try:
        data = read_bounded(weights, MAX_WEIGHTS_BYTES)
    except OSError as exc:
        raise CheckpointError(f"{weights}: cannot be read: {exc.strerror or exc}") from None
    try:
        state = torch.load(io.BytesIO(data), map_location="cpu", weights_only=True)
    except Exception as exc:  # an unpickling refusal or a corrupt file: nothing was run
        raise CheckpointError(f"{weights}: not a weights-only tensor file: "
                              f"{' '.join(str(exc).split())[:300]}") from None
    if not isinstance(state, dict) or not isinstance(state.get("policy"), dict) \
            or not isinstance(state.get("optimizer"), dict):
        raise CheckpointError(f"{weights}: expected policy and optimizer state dicts")
    return state, steps


def restore(model: Any, state: dict[str, Any], steps: int, path: Path) -> None:
    """Load checked tensors into a freshly built model of the same configuration."""
    try:
        model.policy.load_state_dict(state["policy"])
        model.policy.optimizer.load_state_dict(state["optimizer"])
    except (RuntimeError, KeyError, ValueError, TypeError) as exc:
        raise CheckpointError(f"{path}: weights do not match the model: {exc}") from None
    model.num_timesteps = steps
