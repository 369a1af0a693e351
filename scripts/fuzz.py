"""Fuzz the public API on both backends, each batch of cases in a subprocess.

In the spirit of Rally the Troops' fuzzer: random games, and hostile input through the
public API -- tampered snapshots (frames, frame arguments, misc slots, arrays, the
pending decision), hostile actions, writes through the live state views, and hostile
NativeBatch / vector-env calls.  A case passes when the process survives it; Python
exceptions are expected (they are tallied by type).  On the native backend a game
stepped after live-view writes must hold a state its own checker accepts (checked in,
checked out: native/src/cpp/validate.cpp, the spec of engine/validity.py).

Cases are numbered: case K of seed S on backend B is generated from
``numpy.random.default_rng([S, K])`` and always the same.  Workers run cases in order
and print each number before running it; a worker that dies (a segfault, an abort) is
reported with the number it was on, the case is saved as JSON under ``--out`` (its
snapshot is importable with ``Game.from_dict``) with a one-line reproduction, and a
fresh worker goes on with the next case.

    python scripts/fuzz.py --cases 2000                 # both backends
    python scripts/fuzz.py --seconds 600 --backend native --seed 7
    python scripts/fuzz.py --replay results/fuzz/crash-native-7-123.json

Exit status 1 when a case crashed the process (or a native state was left invalid).
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import json
import os
import pickle
import select
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

KINDS = ("game", "snapshot", "live", "actions", "batch")
HOSTILE_INTS = (-1, 0, 1, 2, 5, 9, 99, 127, 128, 255, 256, 1000, 32767, -32768, 65535,
                2**31 - 1, -(2**31), 2**32, 2**63 - 1, -(2**63))
JUNK = (None, 1.5, float("nan"), "x", True, [], {}, [1], 2**70, -(2**70))
ARRAYS = ("inf_us", "inf_cn", "tracks", "non_realignable", "vp", "reserves", "card_loc",
          "hist_loc", "event_played", "event_side", "revealed", "spare_used", "vp_source",
          "misc")


# ----------------------------------------------------------------- generation
def _value(rng: np.random.Generator, lo: int = -3, hi: int = 12) -> Any:
    r = rng.random()
    if r < 0.5:
        return int(rng.integers(lo, hi + 1))
    if r < 0.9:
        return HOSTILE_INTS[int(rng.integers(len(HOSTILE_INTS)))]
    return copy.deepcopy(JUNK[int(rng.integers(len(JUNK)))])


def _frame(rng: np.random.Generator, names: list[str]) -> list:
    """A frame with a real name and random arguments (sometimes of the real arity)."""
    from evenstar_env.engine.validity import FRAME_ARGS

    name = names[int(rng.integers(len(names)))]
    spec = FRAME_ARGS[name]
    n = len(spec) if rng.random() < 0.8 else int(rng.integers(0, 7))
    out: list[Any] = [name]
    for k in range(n):
        dom = spec[k] if k < len(spec) else "any"
        if dom == "kind":
            out.append(["usa", "china", "anti_us", "x"][int(rng.integers(4))])
        elif dom in ("countries", "optcountries", "chosen", "modes"):
            out.append(sorted({int(x) for x in rng.integers(-2, 130, int(rng.integers(0, 5)))})
                       if rng.random() < 0.9 else None)
        elif dom == "action":
            out.append(_frame(rng, ["place_start", "realign", "trade", "tech", "improve",
                                    "eff", "mode"]))
        elif dom == "log":
            out.append("Russia track: " + str(_value(rng)))
        else:
            out.append(_value(rng))
    return out


def _mutate(rng: np.random.Generator, d: dict, names: list[str]) -> list[str]:
    """Tamper with snapshot `d` in place (one to three changes); what was changed."""
    s = d["state"]
    done = []
    for _ in range(int(rng.integers(1, 4))):
        r = rng.random()
        if r < 0.3 and isinstance(s["stack"], list) and s["stack"]:
            k = int(rng.integers(len(s["stack"])))
            f = s["stack"][k]
            if isinstance(f, list) and len(f) > 1 and rng.random() < 0.7:
                j = int(rng.integers(1, len(f)))
                f[j] = _value(rng)
                done.append(f"stack[{k}][{j}]")
            else:
                s["stack"][k] = _frame(rng, names)
                done.append(f"stack[{k}]")
        elif r < 0.45 and isinstance(s["stack"], list):
            s["stack"].append(_frame(rng, names))
            done.append("stack+")
        elif r < 0.6:
            k = int(rng.integers(len(s["misc"])))
            s["misc"][k] = _value(rng, -2, 40)
            done.append(f"misc[{k}]")
        elif r < 0.75:
            name = ARRAYS[int(rng.integers(len(ARRAYS) - 1))]
            flat = s[name]
            while isinstance(flat, list) and flat and isinstance(flat[0], list):
                flat = flat[int(rng.integers(len(flat)))]
            if flat:
                k = int(rng.integers(len(flat)))
                flat[k] = _value(rng)
                done.append(f"{name}[{k}]")
        elif r < 0.87 and isinstance(s["pending"], list) and len(s["pending"]) == 5:
            p = s["pending"]
            j = int(rng.integers(5))
            if j == 0 and isinstance(p[0], list) and len(p[0]) > 1:
                p[0][int(rng.integers(1, len(p[0])))] = _value(rng)
            elif j == 3 and isinstance(p[3], list) and p[3]:
                p[3][int(rng.integers(len(p[3])))] = _value(rng, 0, 260)
            elif j == 4 and isinstance(p[4], dict) and p[4]:
                p[4][list(p[4])[int(rng.integers(len(p[4])))]] = _value(rng)
            else:
                p[j] = _value(rng)
            done.append(f"pending[{j}]")
        else:
            key = ["forced", "rng", "result", "over", "pending"][int(rng.integers(5))]
            s[key] = [_value(rng) for _ in range(int(rng.integers(0, 4)))] \
                if rng.random() < 0.7 else _value(rng)
            done.append(key)
    return done


def _steps(rng: np.random.Generator, k: int) -> list[list]:
    """k step ops: mostly a legal action (by index), sometimes a hostile value."""
    ops = []
    for _ in range(k):
        r = rng.random()
        if r < 0.85:
            ops.append(["step", "legal", int(rng.integers(1 << 30))])
        elif r < 0.9:
            ops.append(["roundtrip"])
        elif r < 0.93:
            ops.append(["clone"])
        elif r < 0.95:
            ops.append(["resample", int(rng.integers(2)), int(rng.integers(1 << 62))])
        elif r < 0.97:
            ops.append(["pickle"])
        else:
            ops.append(["step", "value", _value(rng, -3, 300)])
    return ops


def _live_ops(rng: np.random.Generator, names: list[str]) -> list[list]:
    ops = []
    for _ in range(int(rng.integers(1, 4))):
        r = rng.random()
        if r < 0.45:
            name = ARRAYS[int(rng.integers(len(ARRAYS)))]
            ops.append(["array", name, int(rng.integers(0, 200)), _value(rng, -2, 12),
                        bool(rng.random() < 0.15)])
        elif r < 0.65:
            ops.append(["stack_append", _frame(rng, names)])
        elif r < 0.75:
            ops.append(["stack_set", int(rng.integers(0, 12)), _frame(rng, names)])
        elif r < 0.8:
            ops.append(["stack_pop"])
        elif r < 0.9:
            ops.append(["forced", [_value(rng, -1, 8) for _ in range(int(rng.integers(0, 4)))]])
        else:
            ops.append(["pending", [_frame(rng, names), _value(rng, -1, 2), "card",
                                    [_value(rng, 0, 300) for _ in range(3)], {}]])
    return ops + _steps(rng, int(rng.integers(1, 6)))


def _batch_ops(rng: np.random.Generator) -> list[list]:
    n = _value(rng, 0, 6) if rng.random() < 0.2 else int(rng.integers(1, 7))
    if isinstance(n, int) and 300 < n <= 2**16:
        n = 300  # a valid size, but 65,535 Python games take minutes to make
    threads = _value(rng, 0, 8) if rng.random() < 0.2 else int(rng.integers(1, 4))
    ops: list[list] = [["new", n, threads, _value(rng, 0, 10) if rng.random() < 0.1 else 0]]
    for _ in range(int(rng.integers(1, 12))):
        r = rng.random()
        if r < 0.5:
            ops.append(["step", "legal", int(rng.integers(1 << 30))])
        elif r < 0.65:
            kind = ["float", "big", "neg", "shape", "bool", "uint"][int(rng.integers(6))]
            ops.append(["step", kind, int(rng.integers(1 << 30))])
        elif r < 0.8:
            ops.append(["observe", [_value(rng, -4, 3) for _ in range(int(rng.integers(0, 8)))],
                        ["f32", "f64", "small", "none"][int(rng.integers(4))]])
        elif r < 0.9:
            ops.append(["game", _value(rng, -2, 8)])
        else:
            ops.append(["reset"])
    return ops


class Pool:
    """Snapshots of positions from random games of one backend (the cases' start points)."""

    def __init__(self, backend: str, seed: int, games: int = 4) -> None:
        from evenstar_env import Game

        rng = np.random.default_rng([seed, 1 << 40])
        self.snaps: list[dict] = []
        for _ in range(games):
            g = Game(int(rng.integers(1 << 62)), backend=backend)
            while not g.is_over:
                if rng.random() < 0.08:
                    self.snaps.append(json.loads(json.dumps(g.to_dict())))
                legal = g.legal_actions()
                g.step(int(legal[rng.integers(legal.size)]))
            self.snaps.append(json.loads(json.dumps(g.to_dict())))

    def pick(self, rng: np.random.Generator) -> dict:
        return copy.deepcopy(self.snaps[int(rng.integers(len(self.snaps)))])


def make_case(backend: str, seed: int, k: int, pool: Pool) -> dict:
    """Case k of `seed`: its kind, start snapshot (None: a fresh game) and operations."""
    from evenstar_env.engine.validity import FRAME_ARGS

    rng = np.random.default_rng([seed, k])
    names = sorted(FRAME_ARGS)
    # A Python vector env costs ~50 ms to make: fewer batch cases there.
    weights = [0.15, 0.4, 0.25, 0.1, 0.1] if backend == "native" else [0.16, 0.43, 0.27, 0.11, 0.03]
    kind = KINDS[int(rng.choice(len(KINDS), p=weights))]
    case: dict[str, Any] = {"kind": kind, "backend": backend, "seed": seed, "case": k,
                            "snapshot": None, "ops": []}
    if kind == "batch":
        case["ops"] = _batch_ops(rng)
        return case
    case["snapshot"] = pool.pick(rng)
    if kind == "game":
        case["ops"] = _steps(rng, int(rng.integers(5, 80)))
    elif kind == "snapshot":
        case["mutations"] = _mutate(rng, case["snapshot"], names)
        case["ops"] = _steps(rng, int(rng.integers(1, 8)))
    elif kind == "live":
        case["ops"] = _live_ops(rng, names)
    else:
        case["ops"] = [["step", "value", _value(rng, -3, 300)] for _ in range(8)]
    return case


# ----------------------------------------------------------------- running
class InvalidState(Exception):
    """A native game stepped on (or was left with) a state outside the spec."""


def _check_valid(g: Any) -> None:
    """A native game stepped after live-view writes must hold a state its own checker
    (validate.cpp, run by clone() once the views are out) accepts: checked in, checked out."""
    try:
        g._engine.clone()
    except ValueError as exc:
        raise InvalidState(f"stepped into an invalid state: {exc}") from None


def _step_op(g: Any, op: list) -> tuple[Any, bool]:
    """Apply one op: (the game to go on with, whether a step was applied)."""
    from evenstar_env import Game

    name = op[0]
    if name == "step":
        if op[1] == "legal":
            legal = g.legal_actions()
            if not legal.size:
                return g, False
            g.step(int(legal[op[2] % legal.size]))
        else:
            g.step(op[2])
        return g, True
    if name == "roundtrip":
        return Game.from_dict(json.loads(json.dumps(g.to_dict())), backend=g.backend), False
    if name == "clone":
        return g.clone(), False
    if name == "resample" and not g.is_over:
        return g.resample_hidden(("usa", "china")[op[1]], op[2]), False
    if name == "pickle":
        return pickle.loads(pickle.dumps(g)), False
    return g, False


def _live_op(g: Any, op: list) -> None:
    s = g.state
    name = op[0]
    if name == "array":
        _, arr, idx, value, whole = op
        view = getattr(s, arr)
        if whole:
            view[...] = value
        else:
            view.reshape(-1)[idx % max(view.size, 1)] = value
    elif name == "stack_append":
        s.stack.append(tuple(_tuples(op[1])))
    elif name == "stack_set":
        st = s.stack
        if st:
            st[op[1] % len(st)] = tuple(_tuples(op[2]))
    elif name == "stack_pop":
        st = s.stack
        if st:
            st.pop()
    elif name == "forced":
        s.forced = op[1]
    elif name == "pending":
        p = op[1]
        s.pending = (tuple(_tuples(p[0])), p[1], p[2], tuple(p[3]), p[4])


def _tuples(x: Any) -> Any:
    return tuple(_tuples(v) for v in x) if isinstance(x, list) else x


def _batch_case(ops: list, backend: str) -> None:
    if backend == "python":
        return _vector_case(ops)
    from evenstar_env.native.batch import NativeBatch

    _, n, threads, seed = ops[0]
    b = NativeBatch(n, seed=seed, threads=threads)
    for op in ops[1:]:
        with contextlib.suppress(ValueError, TypeError, IndexError, OverflowError):
            _batch_op(b, op)


def _batch_op(b: Any, op: list) -> None:
    name = op[0]
    if name == "step":
        legal = np.array([np.flatnonzero(m)[op[2] % max(1, int(m.sum()))] if m.any() else 0
                          for m in b.mask], dtype=np.int64)
        hostile = {"legal": legal, "float": legal + 0.5, "big": legal + 2**40,
                   "neg": -legal - 1, "shape": legal[:-1], "bool": legal > 0,
                   "uint": legal.astype(np.uint64) + np.uint64(2**63)}
        b.step(hostile[op[1]])
    elif name == "observe":
        out = {"f32": np.empty((b.n, b.obs_size), np.float32),
               "f64": np.empty((b.n, b.obs_size)), "small": np.empty((1, 3), np.float32),
               "none": None}[op[2]]
        players = None if not op[1] else np.array([v if isinstance(v, int) and
                                                    -2**31 <= v < 2**31 else 0 for v in op[1]])
        b.observe(out, players)
    elif name == "game":
        b.game(op[1]).legal_actions()
    elif name == "reset":
        b.reset()


def _vector_case(ops: list) -> None:
    from evenstar_env.vector import SelfPlayVectorEnv

    _, n, _threads, _seed = ops[0]
    env = SelfPlayVectorEnv(n, backend="python")
    mask = None
    for op in ops[1:]:
        try:
            if op[0] == "reset" or mask is None and op[0] == "step" and op[1] == "legal":
                _, mask, _ = env.reset(seed=1)
            elif op[0] == "step":
                acts = np.array([np.flatnonzero(m)[op[2] % int(m.sum())] for m in mask])
                acts = {"float": acts + 0.5, "neg": -acts - 1, "shape": acts[:-1]}.get(op[1], acts)
                _, mask, *_ = env.step(acts)
        except Exception as exc:  # the clear errors: on to the next call
            if type(exc).__name__ not in ("ValueError", "TypeError", "IllegalActionError",
                                          "ResetNeeded", "IndexError"):
                raise


def run_case(case: dict) -> None:
    """Run one case (exceptions propagate; the caller tallies them)."""
    from evenstar_env import Game

    backend = case["backend"]
    if case["kind"] == "batch":
        _batch_case(case["ops"], backend)
        return
    g = Game.from_dict(case["snapshot"], backend=backend)
    wrote = False
    for op in case["ops"]:
        if op[0] in ("array", "stack_append", "stack_set", "stack_pop", "forced", "pending"):
            try:
                _live_op(g, op)
                wrote = True
            except (ValueError, TypeError, IndexError, OverflowError):
                pass
            continue
        try:
            g, stepped = _step_op(g, op)
        except Exception:
            if wrote and backend == "native":
                continue  # refused: the state is as it was written (not stepped on)
            raise
        if wrote and backend == "native" and stepped:
            _check_valid(g)


def worker(backend: str, seed: int, start: int, count: int) -> None:
    """Run cases start..start+count-1, printing each number first and the tally last."""
    pool = Pool(backend, seed ^ _chunk_start(start))
    tally: Counter[str] = Counter()
    for k in range(start, start + count):
        print(k, flush=True)
        case = make_case(backend, seed, k, pool)
        try:
            run_case(case)
            tally["ok"] += 1
        except InvalidState as exc:
            print(f"INVALID {k} {exc}", flush=True)
            tally["InvalidState"] += 1
        except Exception as exc:  # expected: clear Python errors, tallied by type
            name = type(exc).__name__
            if name == "RuntimeError":  # the core's own errors: by message
                name += ": " + str(exc).split(":")[0][:60]
            tally[name] += 1
    print("TALLY " + json.dumps(tally), flush=True)


# ----------------------------------------------------------------- the parent
def save_case(backend: str, seed: int, k: int, out: Path, why: str) -> Path:
    """Regenerate case k (in this process) and write it as JSON with its reproduction."""
    case = make_case(backend, seed, k, Pool(backend, seed ^ _chunk_start(k)))
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"crash-{backend}-{seed}-{k}.json"
    case["why"] = why
    case["repro"] = f"python scripts/fuzz.py --replay {path}"
    path.write_text(json.dumps(case, indent=1))
    return path


CASE_TIMEOUT = 120  # seconds without a finished case: the worker hangs, it is killed


def _run_worker(cmd: list[str], env: dict[str, str] | None) -> tuple[list[str], int | None, str]:
    """Run a worker: its stdout lines, exit status (None: killed as hung) and stderr."""
    with tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=err, text=True, env=env)
        lines: list[str] = []
        while True:
            ready, _, _ = select.select([proc.stdout], [], [], CASE_TIMEOUT)
            if not ready:
                proc.kill()
                proc.wait()
                return lines, None, ""
            line = proc.stdout.readline()
            if not line:
                break
            lines.append(line.rstrip("\n"))
        proc.wait()
        err.seek(0)
        return lines, proc.returncode, err.read()


CHUNK = 2000  # cases per worker process (a crash ends only its worker: the next goes on)


def _chunk_start(k: int) -> int:
    return k - k % CHUNK


def fuzz(backend: str, seed: int, cases: int, seconds: float, out: Path,
         env: dict[str, str] | None = None, progress: bool = False, first: int = 0
         ) -> tuple[int, Counter, list[str]]:
    """Run cases first..first+cases-1 (or until `seconds` have passed) in worker processes."""
    t0 = time.time()
    done, tally, problems = 0, Counter(), []
    k, end = first, first + cases
    while k < end and time.time() - t0 < seconds:
        count = min(CHUNK - k % CHUNK, end - k)
        lines, returncode, stderr = _run_worker(
            [sys.executable, __file__, "--worker", "--backend", backend, "--seed", str(seed),
             "--start", str(k), "--count", str(count)], env)
        nums = [int(x) for x in lines if x.isdigit()]
        for line in lines:
            if line.startswith("TALLY "):
                tally.update(json.loads(line[6:]))
            elif line.startswith("INVALID "):
                _, num, why = line.split(" ", 2)
                path = save_case(backend, seed, int(num), out, why)
                problems.append(f"{backend} case {num}: {why[:200]} -> {path}")
        if returncode != 0:
            last = nums[-1] if nums else k
            why = (f"no progress for {CASE_TIMEOUT} s (a hang): killed" if returncode is None
                   else f"worker died (status {returncode}): {stderr.strip()[-300:]}")
            path = save_case(backend, seed, last, out, why)
            problems.append(f"{backend} case {last}: {why} -> {path}")
            tally["crash"] += 1
            done += last - k + 1
            k = last + 1
        else:
            done += count
            k += count
        if progress:
            print(f"{backend}: {done} cases, {time.time() - t0:.0f} s, "
                  f"{dict(sorted(tally.items()))}", flush=True)
    return done, tally, problems


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--backend", choices=("python", "native", "both"), default="both")
    ap.add_argument("--cases", type=int, default=2000, help="cases per backend")
    ap.add_argument("--seconds", type=float, default=float("inf"),
                    help="stop starting workers after this many seconds (per backend)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--first", type=int, default=0, help="the first case number (to resume)")
    ap.add_argument("--out", type=Path, default=ROOT / "results" / "fuzz",
                    help="folder for crash cases (default results/fuzz)")
    ap.add_argument("--replay", type=Path, help="run one saved case in this process")
    ap.add_argument("--progress", action="store_true", help="a line after every worker")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--start", type=int, default=0, help=argparse.SUPPRESS)
    ap.add_argument("--count", type=int, default=0, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if not 0 <= args.seed < 2**63 or args.cases < 0 or args.first < 0:
        ap.error("--seed must be within 0..2**63-1, --cases and --first non-negative")
    if args.worker:
        if os.environ.get("EVENSTAR_ASAN_LIB"):  # a worker of scripts/native_asan.py
            sys.path.insert(0, str(ROOT / "scripts"))
            from native_asan import load

            load(Path(os.environ["EVENSTAR_ASAN_LIB"]))
        worker(args.backend, args.seed, args.start, args.count)
        return 0
    if args.replay:
        case = json.loads(args.replay.read_text())
        run_case(case)
        print("replayed: no crash")
        return 0
    from evenstar_env.native import available

    backends = ("python", "native") if args.backend == "both" else (args.backend,)
    if "native" in backends and not available():
        print("fuzz: the native core is not built; fuzzing the Python engine only")
        backends = ("python",)
    failed = False
    for backend in backends:
        t0 = time.time()
        done, tally, problems = fuzz(backend, args.seed, args.cases, args.seconds, args.out,
                                     dict(os.environ), args.progress, args.first)
        print(f"{backend}: {done} cases in {time.time() - t0:.0f} s, "
              f"{tally.get('crash', 0)} crashes; outcomes {dict(sorted(tally.items()))}")
        for p in problems:
            print("  " + p)
        failed |= bool(problems)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
