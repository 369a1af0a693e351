"""Checking a game snapshot (``Game.to_dict``) before it becomes a game.

A snapshot may come from a file a user edited or a stranger sent: every field
is checked for its type, shape and range, frame names against the engine's
handlers, and the pending decision is re-derived by running its frame again on
a copy, so a tampered legal-action list (or context) is refused.  Errors are
:class:`SnapshotError` naming the field.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .content import Content, fingerprint
from .engine import constants
from .engine.constants import (
    CHINA,
    M_RUSSIA_DEFERRED,
    N_MISC,
    RUSSIA,
    TRACK_NAMES,
    USA,
    VP_SOURCES,
)
from .engine.machine import HANDLERS, RESUMES, Machine
from .engine.state import ARRAYS, State, _tuple
from .engine.validity import array_bounds, check_frame, log_texts, misc_bounds

FORMAT_VERSION = 3  # 3: the seed is stored, and the R22-R26 state (misc 36-39, history "drawn")
MAX_FRAME_DEPTH = 8  # frames hold flat tuples of ints and strings (depth 4 in play)
# Room in a state (the native core's fixed arrays; the Python engine keeps the same limits
# so that both backends accept the same snapshots).
MAX_STACK, MAX_LEGAL, MAX_FORCED = 128, 256, 64
MISC_NAMES = {k: name[2:].lower() for name, k in vars(constants).items()
              if name.startswith("M_") and isinstance(k, int)}
STATE_KEYS = frozenset(ARRAYS) | {"misc", "stack", "pending", "rng", "forced", "result", "over"}
# Semantic ranges of the arrays beyond their dtype (engine/validity.py).
_VALUE_RANGE = array_bounds()


class SnapshotError(ValueError):
    """A game snapshot that is malformed, tampered with or made for other content."""


def new_state(c: Content) -> State:
    """An empty state shaped for content `c`."""
    return State(c.n, c.nc, c.nh, len(c.rules.spare_scoring),
                 len(c.region_names) + len(c.subregion_names) + len(VP_SOURCES))


def track_bounds(m: Machine, t: int) -> tuple[int, int]:
    """The lowest and highest level of track `t` (Russia and tech start at 0, others at 1)."""
    lo = 0 if TRACK_NAMES[t].startswith(("russia", "tech")) else 1
    return lo, m.track_max(t)


def check_seed(seed: Any) -> int:
    """A game seed as an ``int`` in 0..2**64-1 (Python or numpy integer; bools refused)."""
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"seed must be an integer (int or numpy integer), "
                        f"not {type(seed).__name__} {seed!r}")
    seed = int(seed)
    if not 0 <= seed < 2**64:
        raise ValueError(f"seed must be within 0..2**64-1, got {seed}")
    return seed


def load_snapshot(d: Any, content: Content) -> tuple[State, int | None]:
    """The state and seed of a snapshot, after checking every field against `content`."""
    if not isinstance(d, dict):
        raise SnapshotError(f"snapshot: expected an object, got {type(d).__name__}")
    fmt = d.get("format")
    if fmt in (1, 2) and not isinstance(fmt, bool):
        raise SnapshotError(f"snapshot: field 'format': format {fmt} was written before rulings "
                            f"R22-R26 changed the state; replay the game's record instead")
    if fmt != FORMAT_VERSION or isinstance(fmt, bool):
        raise SnapshotError(f"snapshot: field 'format': unknown game format {fmt!r} "
                            f"(this version reads {FORMAT_VERSION})")
    if "content" not in d:
        raise SnapshotError("snapshot: field 'content': missing (the content fingerprint)")
    if d["content"] != fingerprint(content):
        raise SnapshotError(f"snapshot: field 'content': the snapshot was made with other game "
                            f"content ({d['content']!r}, this is {fingerprint(content)!r})")
    seed = None
    if "seed" not in d:
        raise SnapshotError("snapshot: field 'seed': missing")
    if d["seed"] is not None:
        try:
            seed = check_seed(d["seed"])
        except (TypeError, ValueError) as exc:
            raise SnapshotError(f"snapshot: field 'seed': {exc}") from None
    extra = set(d) - {"format", "content", "seed", "state"}
    if extra:
        raise SnapshotError(f"snapshot: unknown fields {sorted(extra)}")
    state = _state(d.get("state"), content)
    _check_pending(state, content)
    return state, seed


def _fail(field: str, msg: str) -> SnapshotError:
    return SnapshotError(f"snapshot: field 'state.{field}': {msg}")


def _int(x: Any, field: str, lo: int, hi: int) -> int:
    if isinstance(x, bool) or not isinstance(x, int):
        raise _fail(field, f"expected an integer, got {type(x).__name__} {x!r}")
    if not lo <= x <= hi:
        raise _fail(field, f"{x} is outside {lo}..{hi}")
    return x


def _int_list(x: Any, field: str, n: int | None, lo: int, hi: int) -> list[int]:
    if not isinstance(x, list) or (n is not None and len(x) != n):
        size = "a list" if n is None else f"a list of {n}"
        raise _fail(field, f"expected {size} integers")
    return [_int(v, f"{field}[{k}]", lo, hi) for k, v in enumerate(x)]


def _state(raw: Any, c: Content) -> State:
    if not isinstance(raw, dict):
        raise SnapshotError("snapshot: field 'state': expected an object")
    missing, extra = STATE_KEYS - set(raw), set(raw) - STATE_KEYS
    if missing or extra:
        raise SnapshotError(f"snapshot: field 'state': missing {sorted(missing)}, "
                            f"unknown {sorted(extra)}")
    s = new_state(c)
    for name in ARRAYS:
        setattr(s, name, _array(raw[name], name, getattr(s, name)))
    m = Machine(c, s)
    for t in range(len(TRACK_NAMES)):
        lo, hi = track_bounds(m, t)
        _int(int(s.tracks[t]), f"tracks[{t}] ({TRACK_NAMES[t]})", lo, hi)
    s.misc = _int_list(raw["misc"], "misc", N_MISC, -(2**31), 2**31 - 1)
    for k, (lo, hi) in enumerate(misc_bounds(c)):
        _int(s.misc[k], f"misc[{k}] ({MISC_NAMES.get(k, 'unused')})", lo, hi)
    _int(s.misc[M_RUSSIA_DEFERRED], f"misc[{M_RUSSIA_DEFERRED}] (Russia boxes waiting)", 0,
         int(s.tracks[RUSSIA]))
    if not isinstance(raw["stack"], list):
        raise _fail("stack", "expected a list of frames")
    if len(raw["stack"]) > MAX_STACK:
        raise _fail("stack", f"more than {MAX_STACK} frames")
    s.stack = [_frame(f, f"stack[{k}]", HANDLERS, c) for k, f in enumerate(raw["stack"])]
    s.rng = _int_list(raw["rng"], "rng", len(s.rng), 0, 2**64 - 1)
    s.forced = _int_list(raw["forced"], "forced", None, 1, 6)
    if len(s.forced) > MAX_FORCED:
        raise _fail("forced", f"more than {MAX_FORCED} forced dice")
    if not isinstance(raw["over"], bool):
        raise _fail("over", "expected true or false")
    s.over = raw["over"]
    s.result = _result(raw["result"])
    s.pending = _pending(raw["pending"], c)
    if s.over != (s.result is not None) or (s.over and (s.pending is not None or s.stack)):
        raise _fail("over", "a finished game has a result and no pending decision or "
                            "frame; a game in progress has no result")
    if not s.over and s.pending is None:
        raise _fail("pending", "a game in progress must have a pending decision")
    if s.result is not None:
        _check_reason(s.result[1])
    return s


def _array(x: Any, name: str, proto: np.ndarray) -> np.ndarray:
    """An array of `proto`'s shape and dtype from nested lists of ints (or bools)."""
    kind = bool if proto.dtype == bool else int
    try:
        arr = np.array(x, dtype=object)
        ok = arr.shape == proto.shape and set(map(type, arr.ravel())) <= {kind}
    except (ValueError, TypeError, RecursionError):
        ok = False
    if not ok:
        _find_misfit(x, name, proto, kind, 0)
        raise _fail(name, f"expected {proto.shape} values")  # not reached for lists
    values = arr.ravel()
    if kind is int and values.size:
        info = np.iinfo(proto.dtype)
        lo, hi = _VALUE_RANGE.get(name, (None, None))
        lo = info.min if lo is None else lo
        hi = info.max if hi is None else hi
        if not (lo <= values.min() and values.max() <= hi):
            k = next(k for k, v in enumerate(values) if not lo <= v <= hi)
            raise _fail(name, f"value {values[k]} (flat index {k}) is outside {lo}..{hi}")
    return values.astype(proto.dtype).reshape(proto.shape)


def _find_misfit(v: Any, where: str, proto: np.ndarray, kind: type, depth: int) -> None:
    """Raise naming the first element of `v` that does not fit `proto` (shape, type)."""
    if depth == proto.ndim:
        if type(v) is not kind:
            raise _fail(where, f"expected {'true or false' if kind is bool else 'an integer'}, "
                               f"got {type(v).__name__} {v!r}"[:200])
        return
    if not isinstance(v, list) or len(v) != proto.shape[depth]:
        raise _fail(where, f"expected a list of {proto.shape[depth]}")
    for k, item in enumerate(v):
        _find_misfit(item, f"{where}[{k}]", proto, kind, depth + 1)


def _plain_data(x: Any, where: str, depth: int = 0) -> None:
    """Frames and contexts hold only ints, strings, None and lists/objects of them."""
    if depth > MAX_FRAME_DEPTH:
        raise _fail(where, f"nested deeper than {MAX_FRAME_DEPTH}")
    if isinstance(x, list):
        for v in x:
            _plain_data(v, where, depth + 1)
    elif isinstance(x, dict):
        for k, v in x.items():
            if not isinstance(k, str):
                raise _fail(where, f"object key {k!r} is not a string")
            _plain_data(v, where, depth + 1)
    elif x is not None and not isinstance(x, (int, str)):
        raise _fail(where, f"unexpected {type(x).__name__} {x!r}")
    elif isinstance(x, int) and not -(2**63) <= x < 2**63:
        raise _fail(where, f"integer {x} out of range")


def _frame(f: Any, where: str, table: dict, c: Content) -> tuple:
    _plain_data(f, where)
    if not isinstance(f, list) or not f or not isinstance(f[0], str):
        raise _fail(where, "a frame is a list starting with its name")
    if f[0] not in table:
        raise _fail(where, f"unknown frame {f[0]!r}")
    frame = _tuple(f)
    why = check_frame(c, frame, log_texts(c))
    if why:
        raise _fail(where, f"frame {f[0]!r}: {why}"[:300])
    return frame


def _result(r: Any) -> tuple | None:
    if r is None:
        return None
    if not (isinstance(r, list) and len(r) == 2 and r[0] in (None, USA, CHINA)
            and not isinstance(r[0], bool) and isinstance(r[1], str)):
        raise _fail("result", "expected null or [winner (0, 1 or null), reason]")
    return (r[0], r[1])


def _check_reason(reason: str) -> None:
    """A result's reason must be one the engine gives (the native core keeps its code)."""
    from .native.frames import reason_code  # pure Python

    try:
        reason_code(reason)
    except ValueError as exc:
        raise _fail("result", str(exc)[:200]) from None


def _pending(p: Any, c: Content) -> tuple | None:
    if p is None:
        return None
    if not (isinstance(p, list) and len(p) == 5):
        raise _fail("pending", "expected null or [frame, player, kind, legal, context]")
    frame = _frame(p[0], "pending[0] (frame)", RESUMES, c)
    player = _int(p[1], "pending[1] (player)", USA, CHINA)
    if not isinstance(p[2], str):
        raise _fail("pending[2] (kind)", "expected a string")
    n_actions = Machine(c, new_state(c)).space.n
    legal = _int_list(p[3], "pending[3] (legal)", None, 0, n_actions - 1)
    if len(legal) > MAX_LEGAL:
        raise _fail("pending[3] (legal)", f"more than {MAX_LEGAL} actions")
    if len(legal) < 2 or len(set(legal)) != len(legal):
        raise _fail("pending[3] (legal)", "expected two or more distinct actions "
                                          "(a forced choice is taken at once)")
    if not isinstance(p[4], dict):
        raise _fail("pending[4] (context)", "expected an object")
    _plain_data(p[4], "pending[4] (context)")
    return (frame, player, p[2], tuple(legal), _tuple(p[4]))


def _check_pending(s: State, c: Content) -> None:
    """Re-run the pending decision's frame on a copy: it must ask exactly this decision."""
    if s.pending is None:
        return
    copy = s.copy()
    copy.pending = None
    m = Machine(c, copy)
    frame = s.pending[0]
    try:
        HANDLERS[frame[0]](m, frame)
    except Exception as exc:  # a tampered frame: any failure is the snapshot's
        raise _fail("pending", f"its frame {frame!r} cannot be re-run: "
                               f"{type(exc).__name__}: {exc}") from None
    if copy.pending != s.pending:
        asked = None if copy.pending is None else copy.pending[1:4]
        raise _fail("pending", f"the engine asks {asked!r} at this point, "
                               f"the snapshot says {s.pending[1:4]!r}")
    if copy != s:
        raise _fail("pending", "re-running its frame changes the state: not a decision point")
