"""Build the native core with AddressSanitizer + UBSan and run lockstep games on it.

Builds native/ with -DEVENSTAR_SANITIZE=ON into build/asan, then re-executes itself
with libasan preloaded (Python is not built with ASan), loads that build in place of
the installed one, and plays lockstep games against the Python engine
(tests/native_lockstep.py).  Any sanitizer report aborts with a non-zero status.

It also runs the fuzzer (scripts/fuzz.py) on the native backend, its workers on the
sanitizer build too: a sanitizer report ends a worker, and the case is saved.

Usage: python scripts/native_asan.py [--random N] [--cautious N] [--fuzz N]
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import subprocess
import sys
import sysconfig
import time
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUILD = ROOT / "build" / "asan"


def build() -> Path:
    import nanobind

    subprocess.run(["cmake", "-S", str(ROOT / "native"), "-B", str(BUILD), "-G", "Ninja",
                    "-DEVENSTAR_SANITIZE=ON", "-DCMAKE_BUILD_TYPE=RelWithDebInfo",
                    f"-DPython_EXECUTABLE={sys.executable}",
                    f"-Dnanobind_DIR={nanobind.cmake_dir()}"], check=True,
                   stdout=subprocess.DEVNULL)
    # The core only: the network kernels (_kernels) are not used here and take longest.
    subprocess.run(["cmake", "--build", str(BUILD), "--target", "_core"], check=True)
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    return BUILD / f"_core{suffix}"


def load(path: Path) -> None:
    """Make `import evenstar_native` give the sanitizer build."""
    spec = importlib.util.spec_from_file_location("evenstar_native._core", path)
    core = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(core)
    pkg = types.ModuleType("evenstar_native")
    pkg.__path__ = []
    for name in dir(core):  # everything the package re-exports (evenstar_native/__init__)
        if not name.startswith("_"):
            setattr(pkg, name, getattr(core, name))
    pkg._core = core
    sys.modules["evenstar_native"] = pkg
    sys.modules["evenstar_native._core"] = core


def agent_games(n: int) -> int:
    """Heuristic against a small ISMCTS on native games: the agents' C++ loops run."""
    from agents.heuristic import HeuristicAgent
    from agents.ismcts import ISMCTSAgent
    from evenstar_env import Game

    decisions = 0
    for seed in range(n):
        g = Game(500_000 + seed, backend="native")
        players = {"usa": HeuristicAgent(seed), "china": ISMCTSAgent(seed=seed, iterations=20)}
        if seed % 2:
            players = {"usa": players["china"], "china": players["usa"]}
        while not g.is_over:
            g.step(players[g.current_player].act(None, g.action_mask(), g))
            decisions += 1
    return decisions


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--random", type=int, default=2000)
    ap.add_argument("--cautious", type=int, default=50)
    ap.add_argument("--agent-games", type=int, default=20,
                    help="heuristic vs ISMCTS games on the native core (the agents' C++)")
    ap.add_argument("--fuzz", type=int, default=2000,
                    help="fuzzer cases on the native backend (workers on this build)")
    args = ap.parse_args()
    if os.environ.get("EVENSTAR_ASAN_CHILD") != "1":
        path = build()
        libasan, libstdcxx = (
            subprocess.run(["g++", f"-print-file-name={lib}"], capture_output=True, text=True,
                           check=True).stdout.strip() for lib in ("libasan.so", "libstdc++.so"))
        # libstdc++ preloaded too: ASan's __cxa_throw interceptor must find the real one at
        # start-up, or the first C++ exception (a refused state) aborts the interpreter.
        env = dict(os.environ, EVENSTAR_ASAN_CHILD="1", LD_PRELOAD=f"{libasan} {libstdcxx}",
                   ASAN_OPTIONS="detect_leaks=0:abort_on_error=1",
                   UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1",
                   EVENSTAR_ASAN_LIB=str(path))
        return subprocess.run([sys.executable, __file__, *sys.argv[1:]], env=env).returncode
    load(Path(os.environ["EVENSTAR_ASAN_LIB"]))
    sys.path[:0] = [str(ROOT), str(ROOT / "tests")]
    from native_lockstep import lockstep

    from evenstar_env.native.export import export  # noqa: F401  (the tables, on ASan)

    t0 = time.time()
    steps = 0
    for seed in range(args.random):
        steps += lockstep(300_000 + seed, "random")
    for seed in range(args.cautious):
        steps += lockstep(400_000 + seed, "cautious")
    import evenstar_native

    from evenstar_env.content import load_content
    from evenstar_env.native import tables_for

    games, decisions = evenstar_native.random_games(tables_for(load_content()), 7, 5000)
    import numpy as np

    from evenstar_env.native.batch import NativeBatch

    batch = NativeBatch(64, seed=9, threads=2)
    rng = np.random.default_rng(9)
    out = np.empty((batch.n, batch.obs_size), dtype=np.float32)
    for k in range(500):
        legal = [np.flatnonzero(m) for m in batch.mask]
        batch.step(np.array([row[rng.integers(row.size)] if row.size else 0 for row in legal]))
        batch.observe(out, None if k % 2 else np.where(batch.player >= 0, 1 - batch.player, -1))
    agent_decisions = agent_games(args.agent_games)
    sys.path.insert(0, str(ROOT / "scripts"))
    import fuzz

    fuzzed, tally, problems = fuzz.fuzz("native", 3636, args.fuzz, float("inf"),
                                        ROOT / "results" / "fuzz" / "asan", dict(os.environ))
    if problems:
        print("\n".join(["sanitizer build: fuzzer findings", *problems]))
        return 1
    print(f"sanitizer build: {args.random} random + {args.cautious} cautious lockstep games "
          f"({steps} steps, both observations in C++ every step), {games} all-C++ games "
          f"({decisions} decisions), 500 steps and observations of a 64-game batch on 2 "
          f"threads, and {args.agent_games} heuristic-vs-ISMCTS games ({agent_decisions} "
          f"decisions: resample_hidden, evaluate, action_values, FastPolicy, rollouts in "
          f"C++), and {fuzzed} fuzzer cases ({dict(sorted(tally.items()))}) with no report, "
          f"{time.time() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
