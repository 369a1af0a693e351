"""The Ray backend of the arena, the ratings and the balance studies: games as Ray tasks.

``ray_imap_unordered`` starts a local Ray node of `workers` CPUs (or joins the cluster at
`address`, ``ray start --head`` on one machine and ``ray start --address=...`` on the
others), submits one task per game with at most ``2 * workers`` in flight, and yields the
results as they finish.  A node it started is shut down at the end; a running one is left
alone.  The workers import this project as the driver does: run from the repository root
(or install it on every machine of a cluster).
"""

from __future__ import annotations

import re
import socket
from collections.abc import Callable, Iterable, Iterator
from typing import Any

CONNECT_TIMEOUT = 5.0  # seconds to wait for a cluster's port to answer
_ADDRESS = re.compile(r"(?:ray://)?(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.\-_]+):(\d{1,5})")


def check_address(address: str) -> None:
    """ValueError unless `address` is ``auto``, ``local`` or ``[ray://]HOST:PORT`` whose port
    answers within :data:`CONNECT_TIMEOUT` seconds (``ray.init`` itself waits minutes)."""
    if address in ("auto", "local"):
        return
    found = _ADDRESS.fullmatch(address)
    if found is None or not 1 <= int(found.group(2)) <= 65535:
        raise ValueError(f"Ray address {address[:200]!r} is not HOST:PORT, ray://HOST:PORT, "
                         "auto or local")
    host = found.group(1).strip("[]")
    try:
        socket.create_connection((host, int(found.group(2))), CONNECT_TIMEOUT).close()
    except OSError as exc:
        why = "no answer" if isinstance(exc, TimeoutError) else (exc.strerror or str(exc))
        raise ValueError(f"Ray address {address}: nothing answers there within "
                         f"{CONNECT_TIMEOUT:.0f} s ({why})") from None


def ray_imap_unordered(fn: Callable[..., Any], args: Iterable[tuple[Any, ...]], workers: int,
                       address: str | None = None) -> Iterator[Any]:
    """``fn(*a)`` for every tuple `a` of `args`, as Ray tasks; results in finishing order."""
    import ray

    started = not ray.is_initialized()
    if started and address is not None:
        check_address(address)
    if started:
        try:
            ray.init(address=address, num_cpus=None if address else workers,
                     include_dashboard=False, log_to_driver=False, logging_level="ERROR")
        except ConnectionError as exc:  # nothing of Ray's answered at a reachable port
            raise ValueError(f"Ray address {address}: {exc}") from None
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
