"""``--device`` for both trainers: ``auto`` (cuda where available, else cpu), ``cpu``,
``cuda``, ``cuda:N`` or ``mps``; anything else, or a device this machine lacks, is one
line of error (:class:`ValueError`), never a PyTorch traceback."""

from __future__ import annotations

import re

import torch

CHOICES = "auto, cpu, cuda, cuda:N or mps"


def resolve_device(spec: str) -> str:
    """The torch device string `spec` names on this machine (``auto`` resolved)."""
    name = str(spec).strip().lower()
    if name == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if name == "cpu":
        return name
    if name == "mps":
        mps = getattr(torch.backends, "mps", None)
        if mps is None or not mps.is_available():
            raise ValueError("--device mps: Apple's Metal (MPS) is not available here; "
                             "use --device auto or cpu")
        return name
    m = re.fullmatch(r"cuda(?::(\d+))?", name)
    if m is None:
        raise ValueError(f"--device must be {CHOICES}, not {spec!r}")
    if not torch.cuda.is_available():
        raise ValueError(f"--device {spec}: no CUDA GPU is available; use --device auto or cpu")
    if m.group(1) is not None and int(m.group(1)) >= torch.cuda.device_count():
        raise ValueError(f"--device {spec}: this machine has {torch.cuda.device_count()} "
                         f"CUDA device(s)")
    return name
