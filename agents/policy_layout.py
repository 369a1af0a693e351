"""Carry a trained policy over to a new observation layout, field by field (issue 16).

A policy's first layer reads the observation; its weight columns belong to the
layout's named fields.  :func:`remap_first_layer` moves them by name: a field
that still exists with the same size keeps its columns, a field that became a
constant (moved to ``static_features``) is folded into the bias as
``W[:, cols] @ value``, and a new field gets zero columns, so that the new
policy computes exactly what the old one did wherever the old inputs are
unchanged.  Nothing here imports torch: weights are numpy arrays.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import numpy as np

CHECKPOINTS = Path(__file__).resolve().parent / "checkpoints"
FIRST_LAYER = "mlp_extractor.policy_net.0"


def config_text(config: dict[str, Any]) -> str:
    """A policy config as JSON, one layout field a line."""
    text = json.dumps(config, indent=2)
    return re.sub(r"\[\s+(\d+),\s+(\d+)\s+\]", r"[\1, \2]", text) + "\n"


def layout_of(encoder: Any) -> dict[str, list[int]]:
    """An encoder's layout as plain data: name -> [start, size]."""
    return {k: [s.start, s.stop - s.start] for k, s in encoder.layout.items()}


def legacy_layout(obs_size: int) -> dict[str, list[int]]:
    """The layout of a policy config that names none, from the stored old layouts."""
    for path in sorted(CHECKPOINTS.glob("obs_layout_*.json")):
        data = json.loads(path.read_text())
        if data["obs_size"] == obs_size:
            return {k: list(v) for k, v in data["layout"].items()}
    raise ValueError(f"no stored observation layout of size {obs_size} "
                     f"(agents/checkpoints/obs_layout_*.json); pass the old layout")


def _kept(name: str, n: int, new: dict[str, list[int]], grown: frozenset[str]) -> bool:
    """Whether field `name` (old size n) keeps its entries in the `new` layout: the same
    size, or (for a field in `grown`) more entries appended after the old ones."""
    return name in new and (new[name][1] == n or (name in grown and new[name][1] > n))


def remap_first_layer(weight: np.ndarray, bias: np.ndarray, old: dict[str, list[int]],
                      new: dict[str, list[int]], static: dict[str, np.ndarray],
                      grown: frozenset[str] = frozenset()
                      ) -> tuple[np.ndarray, np.ndarray, dict[str, list[str]]]:
    """The first layer's weight and bias for the `new` layout, and what happened to each
    field: "copied" (same entries; a field in `grown` may have new entries appended, e.g.
    new decision kinds, which get zero columns), "folded" (a constant now in `static`),
    "dropped", "new" (zeros)."""
    size = sum(n for _, n in new.values())
    if weight.shape[1] != sum(n for _, n in old.values()):
        raise ValueError(f"the weight has {weight.shape[1]} inputs, the old layout "
                         f"{sum(n for _, n in old.values())}")
    w = np.zeros((weight.shape[0], size), dtype=weight.dtype)
    b = bias.astype(np.float64).copy()
    report: dict[str, list[str]] = {"copied": [], "folded": [], "dropped": [], "new": []}
    for name, (start, n) in old.items():
        cols = weight[:, start: start + n]
        if _kept(name, n, new, grown):
            w[:, new[name][0]: new[name][0] + n] = cols
            report["copied"].append(name)
        elif name not in new and name in static and np.asarray(static[name]).size == n:
            b += cols.astype(np.float64) @ np.asarray(static[name], dtype=np.float64)
            report["folded"].append(name)
        else:
            report["dropped"].append(name)
    report["new"] = [name for name in new if name not in report["copied"]]
    return w, b.astype(bias.dtype), report


def old_observation(new_obs: np.ndarray, old: dict[str, list[int]],
                    new: dict[str, list[int]], static: dict[str, np.ndarray],
                    grown: frozenset[str] = frozenset()) -> np.ndarray:
    """What an encoder of the `old` layout shows, rebuilt from a `new` observation (the
    fields kept by name and the constants of `static`; fields dropped are zero)."""
    out = np.zeros(new_obs.shape[:-1] + (sum(n for _, n in old.values()),), dtype=new_obs.dtype)
    for name, (start, n) in old.items():
        if _kept(name, n, new, grown):
            out[..., start: start + n] = new_obs[..., new[name][0]: new[name][0] + n]
        elif name in static:
            out[..., start: start + n] = static[name]
    return out
