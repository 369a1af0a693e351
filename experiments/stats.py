"""Small statistics for win rates (they live in :mod:`evenstar_env.stats`, which the
in-process evaluation uses too)."""

from evenstar_env.stats import wilson

__all__ = ["wilson"]
