"""Command lines made from a config dataclass: one ``--flag`` per field."""

from __future__ import annotations

import argparse
from dataclasses import asdict
from typing import Any, TypeVar

T = TypeVar("T")


def config_from_args(cls: type[T], doc: str, smoke: dict[str, Any],
                     argv: list[str] | None = None) -> T:
    """`cls` from the command line: every field is ``--field-name`` (its default shown),
    ``--smoke`` starts from the `smoke` sizes; `doc`'s first paragraph is the help."""
    p = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    p.add_argument("--smoke", action="store_true", help="tiny sizes, under a minute")
    for name, value in asdict(cls()).items():  # type: ignore[call-overload]
        p.add_argument("--" + name.replace("_", "-"), type=type(value),
                       default=argparse.SUPPRESS, help=f"(default {value})")
    ns = vars(p.parse_args(argv))
    base = dict(smoke) if ns.pop("smoke") else {}
    return cls(**{**base, **ns})
