"""Start `evenstar serve` in a child process and wait until it answers (the load
benchmark and the kill-and-restart test use it)."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[2]


def start_server(db: Path, port: int, workers: int = 1, wait: float = 90.0
                 ) -> subprocess.Popen:
    """A served board on 127.0.0.1:`port` over the game store `db`, once `/api/agents`
    answers; RuntimeError (the server's last words) if it stops or is not up in `wait` s."""
    proc = subprocess.Popen([sys.executable, "-m", "experiments.cli", "serve", "--port",
                             str(port), "--db", str(db), "--workers", str(workers)], cwd=ROOT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/api/agents", timeout=1).status_code == 200:
                return proc
        except httpx.TransportError:
            pass
        if proc.poll() is not None:
            raise RuntimeError(f"the server stopped while starting: "
                               f"{proc.stderr.read().decode()[-500:]}")
        time.sleep(0.2)
    proc.kill()
    raise RuntimeError(f"the server did not start within {wait:.0f} s")


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
