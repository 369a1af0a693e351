"""Where the agents think: worker processes (the server's default) or threads, never the
event loop.  A move is asked with the game's state (``State.to_dict``), rebuilt in the
worker on the native core where it is built (the agents are many times faster on it),
with the game's content (sent along unless it is the shipped edition); each worker keeps
one agent per spec."""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import secrets
import threading
import time
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from typing import Any

from agents.specs import make_agent
from evenstar_env import Game
from evenstar_env.content import content_from_files, load_content

_local = threading.local()  # one agent cache per worker thread (and so per process)


def agent_for(spec: str) -> Any:
    cache = _local.__dict__.setdefault("agents", {})
    if spec not in cache:
        cache[spec] = make_agent(spec, secrets.randbits(32))
    return cache[spec]


def position(state: dict[str, Any], files: dict[str, Any] | None = None,
             cid: str | None = None) -> Game:
    """The game of a state snapshot of the content of `files` (a snapshot's raw files, id
    `cid`; None: the shipped edition), on the native core where it is built."""
    from evenstar_env import native

    content = load_content() if files is None else content_from_files(files, cid)
    if native.resolve(None) == "native":
        from evenstar_env.native.game import NativeGame

        return NativeGame.load(content, state)
    from evenstar_env.engine.state import State

    return Game(content=content, _state=State.from_dict(state))


def think(spec: str, state: dict[str, Any], files: dict[str, Any] | None = None,
          cid: str | None = None) -> int:
    """The move agent `spec` makes in the position of `state` (of the content of `files`,
    :func:`position`)."""
    g = position(state, files, cid)
    return int(agent_for(spec).act(None, g.action_mask(), g))


def _exit_with(parent: int) -> None:
    """End this worker once the server that started it is gone (even SIGKILLed)."""
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(0)


def warm_up() -> None:
    """Prepare a worker: it ends with its server; one torch thread, the content, the
    heuristic and (where torch and the shipped network are there) the learned agent
    loaded before the first move."""
    threading.Thread(target=_exit_with, args=(os.getppid(),), daemon=True).start()
    try:
        import torch

        torch.set_num_threads(1)
    except ImportError:
        pass
    load_content()
    agent_for("heuristic")
    with contextlib.suppress(ImportError, OSError, ValueError):  # no torch, no network
        agent_for("learned")


def make_pool(workers: int, processes: bool) -> Executor:
    """`workers` agent processes (spawned: no fork of a threaded server) or threads."""
    if processes:
        return ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"),
                                   initializer=warm_up)
    return ThreadPoolExecutor(workers, thread_name_prefix="agent")
