"""Training rows kept as a dataclass of equal-length arrays."""

from __future__ import annotations

from dataclasses import fields
from typing import Any, TypeVar

import numpy as np

R = TypeVar("R", bound="ArrayRows")


class ArrayRows:
    """Mixin for a dataclass whose fields are arrays with one row each: length,
    concatenation and row selection, field by field."""

    @classmethod
    def names(cls) -> list[str]:
        return [f.name for f in fields(cls)]  # type: ignore[arg-type]

    def __len__(self) -> int:
        return len(getattr(self, self.names()[0]))

    @classmethod
    def concat(cls: type[R], parts: list[Any]) -> R:
        return cls(*(np.concatenate([getattr(p, f) for p in parts]) for f in cls.names()))

    def take(self: R, idx: np.ndarray) -> R:
        return type(self)(*(getattr(self, f)[idx] for f in self.names()))
