"""The Ray backend of the arena, the ratings and the balance studies: games as Ray tasks.

``ray_imap_unordered`` starts a local Ray node of `workers` CPUs (or joins the cluster at
`address`, ``ray start --head`` on one machine and ``ray start --address=...`` on the
others), submits one task per game with at most ``2 * workers`` in flight, and yields the
results as they finish.  A node it started is shut down at the end; a running one is left
alone.  The workers import this project as the driver does: run from the repository root
(or install it on every machine of a cluster).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any


def ray_imap_unordered(fn: Callable[..., Any], args: Iterable[tuple[Any, ...]], workers: int,
                       address: str | None = None) -> Iterator[Any]:
    """``fn(*a)`` for every tuple `a` of `args`, as Ray tasks; results in finishing order."""
    import ray

    started = not ray.is_initialized()
    if started:
        ray.init(address=address, num_cpus=None if address else workers,
                 include_dashboard=False, log_to_driver=False, logging_level="ERROR")
    remote = ray.remote(fn)
    try:
        pending: list[Any] = []
        for a in args:
            pending.append(remote.remote(*a))
            while len(pending) >= 2 * max(1, workers):
                done, pending = ray.wait(pending, num_returns=1)
                yield ray.get(done[0])
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            yield ray.get(done[0])
    finally:
        if started:
            ray.shutdown()
