"""Load on the web server: N concurrent simulated players against a real server.

Starts `evenstar serve` itself (a subprocess on 127.0.0.1, a fresh SQLite file in a
temporary folder), then for each N runs N clients at once (httpx, loopback only): each
starts a game as a human against an agent (heuristic and learned alternately) and plays
at once whenever it is to move (no thinking time: the worst case), reading the view with
the log sent incrementally and long-polling while the agent thinks. Each round stops by
itself after --seconds. Prints per N the request latency (p50/p95), requests per second and
the time a long-poll waits for the agent's reply, and the agents' move times reported by the
server (from the agent's turn to its move applied, waiting for a worker included); writes
JSON (default results/bench_serve.json).

    python benchmarks/bench_serve.py [--clients 1 20 100] [--seconds 12] [--workers 2]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from common import machine, write_results

from experiments.web import launch
from experiments.web.launch import free_port

ROOT = Path(__file__).resolve().parent.parent
AGENTS = ("heuristic", "learned")


def start_server(db: Path, port: int, workers: int) -> subprocess.Popen:
    try:
        return launch.start_server(db, port, workers)
    except RuntimeError as exc:
        raise SystemExit(f"error: {exc}") from None


async def player(c: httpx.AsyncClient, k: int, stop: float, times: list[float],
                 waits: list[float], rng: random.Random) -> int:
    """One simulated player until `stop`; returns the games it finished."""
    finished = 0
    while time.monotonic() < stop:
        t = time.perf_counter()
        g = (await c.post("/api/games", json={"usa": "human", "china": AGENTS[k % 2]})).json()
        times.append(time.perf_counter() - t)
        head = {"X-Seat-Token": g["seats"]["usa"]}
        url, log = f"/api/games/{g['id']}", 0
        params: dict[str, Any] = {"log_from": 0}
        while time.monotonic() < stop:
            t = time.perf_counter()
            r = await c.get(url, headers=head, params=params)
            (waits if "wait" in params else times).append(time.perf_counter() - t)
            v = r.json()
            log = v["log_total"]
            if v["over"]:
                finished += 1
                break
            options = v["decision"]["options"]
            if not options:  # the agent is thinking: long-poll until the position changes
                params = {"log_from": log, "wait": v["decision_index"]}
                continue
            safe = [o for o in options if not o["total_war"]] or options
            t = time.perf_counter()
            r = await c.post(f"{url}/act", headers=head, params={"log_from": log},
                             json={"decision": v["decision_index"],
                                   "action": rng.choice(safe)["action"]})
            times.append(time.perf_counter() - t)
            if r.status_code != 200:
                raise SystemExit(f"error: act refused: {r.status_code} {r.text[:200]}")
            params = {"log_from": r.json()["log_total"]}
    return finished


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else float("nan")


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far (Linux /proc; NaN elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return float("nan")
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def round_of(url: str, n: int, seconds: float, pid: int) -> dict[str, Any]:
    times: list[float] = []  # requests answered at once: create, view, act
    waits: list[float] = []  # long-polls: until the agent has moved
    limits = httpx.Limits(max_connections=n + 4, max_keepalive_connections=n + 4)
    async with httpx.AsyncClient(base_url=url, timeout=60, limits=limits) as c:
        before = (await c.get("/api/stats")).json()["agent_moves"]
        cpu0 = cpu_seconds(pid)
        t0 = time.monotonic()
        stop = t0 + seconds
        done = await asyncio.gather(*(player(c, k, stop, times, waits, random.Random(k))
                                      for k in range(n)))
        wall = time.monotonic() - t0
        cpu = cpu_seconds(pid) - cpu0
        stats = (await c.get("/api/stats")).json()
        done_moves = {spec: m["total"] - before.get(spec, {}).get("total", 0)
                      for spec, m in stats["agent_moves"].items()}
        moves = {}
        for spec, k in done_moves.items():  # the times of this round's moves of each spec
            if k:
                m = (await c.get("/api/stats", params={"last": min(k, 10_000)})).json()
                moves[spec] = {**m["agent_moves"][spec], "moves": k}
    served = len(times) + len(waits)
    return {"clients": n, "seconds": round(wall, 2), "requests": served,
            "requests_per_s": round(served / wall, 1),
            "server_cpu_ms_per_request": round(1000 * cpu / max(served, 1), 2),
            "latency_p50_ms": round(1000 * pct(times, 0.5), 2),
            "latency_p95_ms": round(1000 * pct(times, 0.95), 2),
            "long_polls": len(waits), "agent_reply_p50_ms": round(1000 * pct(waits, 0.5), 2),
            "agent_reply_p95_ms": round(1000 * pct(waits, 0.95), 2),
            "games_finished": sum(done), "games_in_progress": stats["games_in_progress"],
            "agent_moves": moves}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--clients", type=int, nargs="+", default=[1, 20, 100])
    ap.add_argument("--seconds", type=float, default=12.0, help="length of each round")
    ap.add_argument("--workers", type=int, default=2, help="the server's agent processes")
    ap.add_argument("--out", type=Path, default=Path("results/bench_serve.json"))
    args = ap.parse_args()
    if any(n < 1 or n > 500 for n in args.clients) or not 1 <= args.seconds <= 300:
        raise SystemExit("error: --clients within 1..500, --seconds within 1..300")
    folder = Path(tempfile.mkdtemp(prefix="bench_serve_"))
    port = free_port()
    proc = start_server(folder / "games.sqlite", port, args.workers)
    rounds = []
    try:
        # Untimed warm-up, until both agents have moved: the agent processes start and
        # load their networks.
        for _ in range(30):
            warm = asyncio.run(round_of(f"http://127.0.0.1:{port}", 2, 3.0, proc.pid))
            if len(warm["agent_moves"]) == len(AGENTS):
                break
        for n in args.clients:
            r = asyncio.run(round_of(f"http://127.0.0.1:{port}", n, args.seconds, proc.pid))
            moves = ", ".join(f"{s} p50 {1000 * m['p50']:.0f} ms p95 {1000 * m['p95']:.0f} ms"
                              for s, m in r["agent_moves"].items())
            print(f"N={n:3d}: {r['requests_per_s']:7.1f} req/s (server CPU "
                  f"{r['server_cpu_ms_per_request']:.1f} ms a request); latency p50 "
                  f"{r['latency_p50_ms']:.1f} ms p95 {r['latency_p95_ms']:.1f} ms; long-poll "
                  f"until the agent moved p50 {r['agent_reply_p50_ms']:.0f} ms p95 "
                  f"{r['agent_reply_p95_ms']:.0f} ms; agent moves (server) "
                  f"{moves}")
            rounds.append(r)
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
        shutil.rmtree(folder, ignore_errors=True)
    write_results({"benchmark": "bench_serve", "machine": machine(), "workers": args.workers,
                   "seconds_per_round": args.seconds, "rounds": rounds}, args.out)


if __name__ == "__main__":
    main()
