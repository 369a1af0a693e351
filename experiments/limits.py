"""Bounds of the numbers a user gives the long jobs (CLI options and the Python API alike).

Seeds are those the engine accepts with room for the agents' seeds (``2 s`` and
``2 s + 1`` must fit 64 bits); a game count beyond :data:`MAX_GAMES` is a typo, not a
study (a list of 10^12 jobs would fill the memory before the first game).
"""

from __future__ import annotations

import operator

MAX_SEED = 2**63 - 1
MAX_GAMES = 100_000  # seeds per pairing or per variant
MAX_WORKERS = 512


def _whole(value: object) -> int | None:
    """`value` as an int if it is an integer (numpy's too; not a bool), else None."""
    if isinstance(value, bool):
        return None
    try:
        return operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        return None


def check_run(seed0: int, games: int, workers: int) -> None:
    """ValueError naming the first bad number: seeds ``seed0 .. seed0 + games - 1`` must
    lie in 0..MAX_SEED, games in 1..MAX_GAMES, workers in 1..MAX_WORKERS."""
    for name, value, hi in (("games", games, MAX_GAMES), ("workers", workers, MAX_WORKERS)):
        n = _whole(value)
        if n is None or not 1 <= n <= hi:
            raise ValueError(f"{name} must be an integer in 1..{hi:,}, not {value!r}")
    first = _whole(seed0)
    if first is None or not 0 <= first <= MAX_SEED:
        raise ValueError(f"the first seed must be an integer in 0..2**63-1, not {seed0!r}")
    if first + int(games) - 1 > MAX_SEED:
        raise ValueError(f"seeds {first}..{first + int(games) - 1} go past 2**63-1: lower "
                         "the first seed or the number of games")
