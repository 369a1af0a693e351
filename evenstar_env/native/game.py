"""`NativeGame`: the Game API over the native core.

The state lives in one C++ struct; :class:`NativeState` exposes its arrays as
zero-copy numpy views with the Python State's names and dtypes, and rebuilds the
frame stack, the pending decision and the result as the Python engine's tuples
(``to_dict`` equal).  Everything that only reads the state (observation encoder,
scenario setters, describe_action, agents) runs unchanged on the views.
"""

from __future__ import annotations

import operator
from functools import lru_cache
from typing import Any

import numpy as np

from ..content import Content, ContentSpec, as_content, load_content
from ..engine.actions import ActionSpace
from ..engine.constants import SIDES, VP_SOURCES
from ..engine.machine import Machine
from ..engine.rng import seed_streams
from ..engine.state import ARRAYS, State
from ..events import EVENTS
from ..game import (
    Game,
    IllegalActionError,
    _side,
    check_seed,
    consistent_redraw,
    resample_seed,
)
from ..snapshot import SnapshotError
from . import core, tables_for
from .frames import FRAME_DTYPE, FrameCodec, pending_context, reason_code, reason_text


@lru_cache(maxsize=1)
def state_dtype() -> np.dtype:
    """The numpy layout of the native State struct (offsets from the compiled core)."""
    lay = core().layout()
    N, C, H = lay["MAXN"], lay["MAXC"], lay["MAXH"]
    fields = {
        "inf_us": ("<i2", N), "inf_cn": ("<i2", N), "tracks": ("<i2", 16),
        "non_realignable": ("u1", N), "vp": ("<i4", 2), "reserves": ("<i4", 2),
        "card_loc": ("i1", C), "hist_loc": ("i1", H), "event_played": ("u1", C),
        "event_side": ("i1", C), "revealed": ("u1", (2, C)), "spare_used": ("u1", lay["MAXSP"]),
        "vp_source": ("<i4", (2, lay["MAXVP"])), "misc": ("<i8", lay["N_MISC"]),
        "rng": ("<u8", 3), "forced": ("<i4", lay["MAXFORCED"]), "n_forced": ("<i4", ()),
        "over": ("<i4", ()), "has_result": ("<i4", ()), "result": ("<i4", 5),
        "depth": ("<i4", ()), "has_pending": ("<i4", ()), "p_player": ("<i4", ()),
        "p_kind": ("<i4", ()), "p_nlegal": ("<i4", ()), "p_ctx": ("<i4", 4),
        "p_frame": (FRAME_DTYPE, ()), "p_legal": ("<u2", lay["MAXLEGAL"]),
        "stack": (FRAME_DTYPE, lay["MAXSTACK"]),
    }
    return np.dtype({"names": list(fields), "formats": [fields[k] for k in fields],
                     "offsets": [lay[k] for k in fields], "itemsize": lay["itemsize"]})


@lru_cache(maxsize=8)
def codec_for(content: Content) -> FrameCodec:
    return FrameCodec(content)


class NativeState:
    """The Python State's interface over a native engine's state (views, not copies)."""

    def __init__(self, engine: Any, content: Content) -> None:
        self.engine = engine
        self.content = content
        self.codec = codec_for(content)

    def __getattr__(self, name: str) -> Any:
        """The numpy views, made on first use (a clone that is never read costs none)."""
        if name == "_arr":
            arr = self.engine.state_bytes().view(state_dtype())
            self.__dict__["_arr"] = arr
            return arr
        if name == "_r":
            r = self.__dict__["_r"] = self._arr[0]
            return r
        make = _VIEWS.get(name)
        if make is None:
            raise AttributeError(name)
        view = self.__dict__[name] = make(self._r, self.content)
        return view

    # ------------------------------------------------------------ scalars and lists
    @property
    def rng(self) -> list[int]:
        return [int(x) for x in self._r["rng"]]

    @rng.setter
    def rng(self, values: list[int]) -> None:
        if len(values) != 3:
            raise ValueError("rng has three streams")
        self._r["rng"][:] = [int(v) & ((1 << 64) - 1) for v in values]

    @property
    def forced(self) -> list[int]:
        return [int(x) for x in self._r["forced"][: int(self._r["n_forced"])]]

    @forced.setter
    def forced(self, values: list[int]) -> None:
        if len(values) > len(self._r["forced"]):
            raise ValueError("too many forced dice for the native core")
        self._r["forced"][:] = 0
        self._r["forced"][: len(values)] = values
        self._r["n_forced"] = len(values)

    @property
    def over(self) -> bool:
        return bool(self._r["over"])

    @property
    def result(self) -> tuple[int | None, str] | None:
        r = self._r
        if not r["has_result"]:
            return None
        w, code, x, y, z = (int(v) for v in r["result"])
        return (None if w < 0 else w, reason_text(code, x, y, z))

    @property
    def stack(self) -> list[tuple]:
        """The frames as tuples; a live list: changing it writes the native stack."""
        to = self.codec.to_tuple
        return _LiveStack(self, [to(f) for f in self._r["stack"][: int(self._r["depth"])]])

    @stack.setter
    def stack(self, frames: list[tuple]) -> None:
        fresh = np.zeros(len(self._r["stack"]), dtype=FRAME_DTYPE)
        if len(frames) > len(fresh):
            raise ValueError("frame stack too deep for the native core")
        for k, f in enumerate(frames):
            self.codec.to_record(tuple(f), fresh[k])
        self._r["stack"][:] = fresh
        self._r["depth"] = len(frames)

    @property
    def pending(self) -> tuple | None:
        r = self._r
        if not r["has_pending"]:
            return None
        return self.codec.pending(r["p_frame"], r["p_player"], int(r["p_kind"]),
                                  r["p_legal"][: int(r["p_nlegal"])], r["p_ctx"])

    @pending.setter
    def pending(self, pend: tuple | None) -> None:
        fresh = np.zeros((), dtype=state_dtype())
        if pend is not None:
            self._write_pending(pend, fresh)
        for k in ("has_pending", "p_player", "p_kind", "p_nlegal", "p_ctx", "p_frame", "p_legal"):
            self._r[k] = fresh[k]

    def _write_pending(self, pend: tuple, fresh: Any) -> None:
        codec = self.codec
        frame, player, kind, legal, ctx = pend
        codec.to_record(_tuples(frame), fresh["p_frame"])
        if kind not in codec.kind_index:
            raise ValueError(f"unknown decision kind {kind!r}")
        if len(legal) > len(fresh["p_legal"]):
            raise ValueError("too many legal actions for the native core")
        fresh["has_pending"] = 1
        fresh["p_player"] = int(player)
        fresh["p_kind"] = codec.kind_index[kind]
        fresh["p_nlegal"] = len(legal)
        fresh["p_legal"][: len(legal)] = legal
        fresh["p_ctx"] = codec.pending_ctx(kind, ctx)

    def copy(self) -> State:
        """A Python State snapshot of this state."""
        return State.from_dict(self.to_dict())

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, (State, NativeState)):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]

    # ------------------------------------------------------------ serialisation
    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {name: getattr(self, name).tolist() for name in ARRAYS}
        pend = self.pending
        res = self.result
        d.update(misc=self.misc.tolist(), stack=[list(_lists(f)) for f in self.stack],
                 pending=None if pend is None else _lists(pend), rng=self.rng,
                 forced=self.forced, result=None if res is None else list(res), over=self.over)
        return d

    def load(self, d: dict[str, Any]) -> None:
        """Write a State.to_dict() into the native state; ValueError if not representable."""
        codec = self.codec
        fresh = np.zeros((), dtype=state_dtype())
        for name in ARRAYS:
            view = getattr(self, name)
            a = np.asarray(d[name])
            if a.shape != view.shape:
                raise ValueError(f"state array {name!r} has shape {a.shape}, not {view.shape}")
        misc = [int(x) for x in d["misc"]]
        if len(misc) != len(self.misc):
            raise ValueError(f"misc has {len(misc)} entries, not {len(self.misc)}")
        stack = d["stack"]
        if len(stack) > len(fresh["stack"]):
            raise ValueError("frame stack too deep for the native core")
        for k, f in enumerate(stack):
            codec.to_record(_tuples(f), fresh["stack"][k])
        fresh["depth"] = len(stack)
        if d["pending"] is not None:
            self._write_pending(d["pending"], fresh)
        if d["result"] is not None:
            winner, reason = d["result"]
            fresh["has_result"] = 1
            fresh["result"] = (-1 if winner is None else int(winner), *reason_code(reason))
        rng = [int(x) for x in d["rng"]]
        if len(rng) != 3 or any(not 0 <= x < 2**64 for x in rng):
            raise ValueError("rng must be three 64-bit stream states")
        # All checked: write.
        self._arr[0] = fresh
        for name in ARRAYS:
            getattr(self, name)[...] = np.asarray(d[name])
        self.misc[:] = misc
        self.rng = rng
        self.forced = [int(x) for x in d["forced"]]
        self._r["over"] = int(bool(d["over"]))


def _n_vp(c: Content) -> int:
    return len(c.region_names) + len(c.subregion_names) + len(VP_SOURCES)


# State.ARRAYS and misc as views of the native struct, with the Python dtypes and shapes.
_VIEWS = {
    "inf_us": lambda r, c: r["inf_us"][: c.n],
    "inf_cn": lambda r, c: r["inf_cn"][: c.n],
    "non_realignable": lambda r, c: r["non_realignable"][: c.n].view(bool),
    "tracks": lambda r, c: r["tracks"][:9],
    "vp": lambda r, c: r["vp"],
    "reserves": lambda r, c: r["reserves"],
    "card_loc": lambda r, c: r["card_loc"][: c.nc],
    "hist_loc": lambda r, c: r["hist_loc"][: c.nh],
    "event_played": lambda r, c: r["event_played"][: c.nc].view(bool),
    "event_side": lambda r, c: r["event_side"][: c.nc],
    "revealed": lambda r, c: r["revealed"][:, : c.nc].view(bool),
    "spare_used": lambda r, c: r["spare_used"][: len(c.rules.spare_scoring)].view(bool),
    "vp_source": lambda r, c: r["vp_source"][:, : _n_vp(c)],
    "misc": lambda r, c: r["misc"],
}


class _LiveStack(list):
    """The frame stack as a list whose changes are written back to the native state."""

    def __init__(self, owner: NativeState, frames: list[tuple]) -> None:
        super().__init__(frames)
        self._owner = owner

    def _sync(self) -> None:
        self._owner.stack = list(self)


def _live(name: str) -> Any:
    method = getattr(list, name)

    def wrapper(self: _LiveStack, *args: Any) -> Any:
        out = method(self, *args)
        self._sync()
        return self if name == "__iadd__" else out
    return wrapper


for _name in ("append", "extend", "insert", "pop", "remove", "clear", "reverse", "sort",
              "__setitem__", "__delitem__", "__iadd__"):
    setattr(_LiveStack, _name, _live(_name))


def _lists(x: Any) -> Any:
    if isinstance(x, (tuple, list)):
        return [_lists(v) for v in x]
    if isinstance(x, dict):
        return {k: _lists(v) for k, v in x.items()}
    return x


def _tuples(x: Any) -> Any:
    if isinstance(x, list):
        return tuple(_tuples(v) for v in x)
    return x


class NativeMachine(Machine):
    """The Python Machine's read-only helpers over a native state (run/apply go native).

    ``trace``: set a list here and the chance outcomes (("die", d), ("draw", card)) of
    every later step are appended to it, as the Python Machine does."""

    @property
    def trace(self) -> list[tuple[str, int]] | None:
        return self._trace

    @trace.setter
    def trace(self, value: list[tuple[str, int]] | None) -> None:
        self._trace = value
        self.s.engine.set_tracing(value is not None)

    def sync_trace(self) -> None:
        if self._trace is not None:
            flat = self.s.engine.take_trace()
            self._trace.extend((("die", "draw")[flat[k]], flat[k + 1])
                               for k in range(0, len(flat), 2))

    def run(self) -> None:
        self.s.engine.run()
        self.sync_trace()

    def apply(self, action: int) -> None:
        raise RuntimeError("NativeMachine.apply: use Game.step")

    def can_happen(self, card: int, executor: int) -> bool:
        return bool(self.s.engine.can_happen(int(card), int(executor)))

    def observe(self, p: int, out: np.ndarray | None = None) -> np.ndarray:
        """Player `p`'s observation, encoded in C++ (the layout of ObservationEncoder,
        bit-identical) into `out` (float32, C-contiguous) or a new array."""
        if out is None:
            out = np.empty(self._obs_size, dtype=np.float32)
        self.s.engine.observe(p, out)
        return out


_SIDE_INDEX = {side: p for p, side in enumerate(SIDES)}


@lru_cache(maxsize=8)
def _n_actions(content: Content) -> int:
    return ActionSpace.for_content(content).n


def _machine(content: Content, engine: Any) -> NativeMachine:
    """A NativeMachine over `engine` (Machine.__init__ without its per-call lookups)."""
    m = object.__new__(NativeMachine)
    m.c = content
    m.s = NativeState(engine, content)
    m.space = ActionSpace.for_content(content)
    m.events = None
    m._trace = None
    m._obs_size = tables_for(content).obs_size
    return m


def event_tuples(rows: np.ndarray) -> list[tuple[int, ...]]:
    """The native event records (type, turn, round, EV_NF fields) as the Python engine's
    tuples (type, turn, round, the type's fields)."""
    out = []
    for row in rows.tolist():
        out.append(tuple(row[: 3 + _N_FIELDS[row[0]]]))
    return out


_N_FIELDS = [len(EVENTS[name]) for name in EVENTS]


class NativeGame(Game):
    """A Game whose rules run in the native core (``Game(seed, backend="native")``).

    ``_engine`` is the native engine; ``_m`` (the NativeMachine that the Game code reads
    the state through) is made on first use, so that a clone or a determinisation that
    is only stepped and evaluated (the agents' searches) costs one engine copy."""

    backend = "native"

    def __init__(self, seed: int = 0, *, content: ContentSpec = None, log: bool = False,
                 events: bool = False, _state: State | None = None,
                 backend: str | None = None) -> None:
        self.content = as_content(content)
        engine = self._engine = core().Engine(tables_for(self.content))
        self._m = _machine(self.content, engine)
        if log or events:
            self._m.events = []
            engine.set_events(True)
        if _state is not None:  # from from_dict, which sets the seed
            self.seed: int | None = None
            self._m.s.load(_state.to_dict())
            return
        self.seed = check_seed(seed)
        engine.reset(*seed_streams(self.seed))

    def __getattr__(self, name: str) -> Any:
        if name == "_m":
            m = self.__dict__["_m"] = _machine(self.content, self._engine)
            return m
        raise AttributeError(name)

    @classmethod
    def _wrap(cls, content: Content, engine: Any, seed: int | None = None) -> NativeGame:
        g = object.__new__(cls)
        g.content = content
        g.seed = seed
        g._engine = engine
        return g

    @classmethod
    def load(cls, content: Content, state: dict[str, Any]) -> NativeGame:
        """The game of a ``State.to_dict()`` (what ``Game.from_dict`` holds under "state")."""
        g = cls._wrap(content, core().Engine(tables_for(content)))
        g._m.s.load(state)
        return g

    @property
    def num_actions(self) -> int:
        return _n_actions(self.content)

    def _pending(self) -> tuple | None:
        """The pending decision without decoding its frame (Game.decision's part)."""
        parts = core().pending_parts(self._engine)
        if parts is None:
            return None
        player, kind, legal, ctx = parts
        name = codec_for(self.content).kinds[kind]
        return (None, player, name, legal, pending_context(name, ctx))

    @property
    def current_player(self) -> str | None:
        p = self._engine.player()
        return None if p < 0 else SIDES[p]

    @property
    def is_over(self) -> bool:
        return self._engine.is_over()

    def _decision_key(self) -> tuple[int, int] | None:
        """Game._decision_key from the core (the kind as its code)."""
        e = self._engine
        p = e.player()
        return None if p < 0 else (p, e.pending_kind())

    def legal_actions(self) -> np.ndarray:
        return self._engine.legal()

    def action_mask(self) -> np.ndarray:
        mask = np.zeros(_n_actions(self.content), dtype=bool)
        mask[self._engine.legal()] = True
        return mask

    def step(self, action: int) -> None:
        try:
            a = operator.index(action)
        except TypeError:
            raise IllegalActionError(f"action {action!r} is not an integer") from None
        try:
            code = self._engine.step(a) if -(2**62) < a < 2**62 else 2
        except ValueError as exc:  # evenstar_native.StateError: live views written wrong
            raise SnapshotError(str(exc)) from None
        if code == 0:
            m = self.__dict__.get("_m")
            if m is not None and m._trace is not None:
                m.sync_trace()
            return
        if code == 1:
            raise IllegalActionError(f"the game is over; action {a} cannot be applied")
        n = self.num_actions
        if code == 2:
            raise IllegalActionError(f"action {a} is outside the action space 0..{n - 1}")
        raise IllegalActionError(
            f"action {a} ({self._describe_raw(a)}) is not legal for the decision "
            f"'{self.decision}'; legal: {list(self._m.s.pending[3])}")

    def clone(self) -> NativeGame:
        """An independent copy (same seed, same state)."""
        g = object.__new__(NativeGame)  # _wrap inlined: clones are the searches' hot path
        g.content = self.content
        g.seed = self.seed
        g._engine = self._engine.clone()
        return g

    def resample_hidden(self, player: str, rng: np.random.Generator | int | None = None
                        ) -> NativeGame:
        """Game.resample_hidden, in C++ (native/src/cpp/resample.cpp; the same draws)."""
        p = _SIDE_INDEX.get(player) if isinstance(player, str) else None
        if p is None:
            p = _side(player)  # raises UnknownNameError
        def redraw(seed: int) -> NativeGame:
            return NativeGame._wrap(self.content, core().resample_hidden(
                self._engine, p, seed), self.seed)
        return consistent_redraw(self, p, resample_seed(rng), redraw)

    def __getstate__(self) -> dict[str, Any]:
        """Pickling (and deepcopy) go through the state dict: the engine is not a Python
        object.  The default content is pickled by reference (it is reloaded)."""
        content = None if self.content is load_content() else self.content
        events = self._event_tuples()
        return {"content": content, "seed": self.seed, "state": self._m.s.to_dict(),
                "events": None if events is None else list(events)}

    def __setstate__(self, d: dict[str, Any]) -> None:
        self.content = d["content"] or load_content()
        self.seed = d.get("seed")
        self._engine = core().Engine(tables_for(self.content))
        self._m.s.load(d["state"])
        if d.get("events") is not None:
            self.start_events()
            self._m.events.extend(d["events"])

    def _restore(self, before: State) -> None:
        self._m.s.load(before.to_dict())

    def _refresh(self) -> None:
        self._engine.refresh()
        self._m.sync_trace()

    def start_events(self) -> None:
        if self._m.events is None:
            self._m.events = []
            self._engine.set_events(True)

    def _event_tuples(self) -> list[tuple[int, ...]] | None:
        """The stream so far: the native records taken since the last call appended."""
        m = self._m
        if m.events is not None:
            m.events.extend(event_tuples(self._engine.take_events()))
        return m.events

    @property
    def turn(self) -> int:
        return int(self._m.s.misc[0])

    @property
    def round(self) -> int:
        return int(self._m.s.misc[2])

    @property
    def decisions(self) -> int:
        return int(self._m.s.misc[34])
