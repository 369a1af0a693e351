"""The game files of long jobs (``games.jsonl`` of arena, ratings and balance studies).

One finished game is one JSON line, appended with a single write and flushed to disk
(:func:`experiments.files.append_line`) as soon as it is played, so SIGKILL or Ctrl-C
loses at most the games still being played.  On resume :func:`read` parses every line
with the job's own checker: a damaged line (torn by a crash mid-write, or well-formed
JSON that lacks a field or holds one of the wrong type) and a repeated game are skipped
and reported by line number in one :class:`ResumeWarning`; :func:`repair` — called only
once every other check of the resume has passed — moves them to ``games.jsonl.damaged``
(nothing is deleted) and rewrites the file without them, so later appends start on a
clean line.
"""

from __future__ import annotations

import json
import stat
import warnings
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, TypeVar

from experiments.files import append_line, write_text_atomic

T = TypeVar("T")
MAX_LINE = 10_000_000  # bytes: a finished game is a few kB
SHOWN = 5  # damaged lines named in the warning


class ResumeWarning(UserWarning):
    """Damaged or repeated lines found in a games.jsonl on resume."""


@dataclass
class Lines(Generic[T]):
    """What :func:`read` found: the games (first of each key) and the lines skipped."""

    path: Path
    games: list[T] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)  # the raw line of each game
    damaged: list[tuple[int, str, str]] = field(default_factory=list)  # (line no, why, text)
    repeated: list[int] = field(default_factory=list)  # line numbers
    unterminated: bool = False

    @property
    def clean(self) -> bool:
        return not (self.damaged or self.repeated or self.unterminated)

    def report(self) -> str:
        """One line naming the skipped lines (first :data:`SHOWN` damaged ones with why)."""
        shown = "; ".join(f"line {n}: {why}" for n, why, _ in self.damaged[:SHOWN])
        more = f"; {len(self.damaged) - SHOWN} more" if len(self.damaged) > SHOWN else ""
        rep = (f" (line{'s' if len(self.repeated) > 1 else ''} "
               f"{', '.join(map(str, self.repeated[:SHOWN]))})" if self.repeated else "")
        return (f"{self.path}: skipped {len(self.damaged)} damaged and {len(self.repeated)} "
                f"repeated line(s){rep}" + (f" ({shown}{more})" if shown else ""))


def read(path: Path, parse: Callable[[object], T], key: Callable[[T], Hashable]
         ) -> Lines[T]:
    """Every line of `path` through `parse` (ValueError, TypeError or KeyError: damaged);
    each key kept once (the first).  Warns (:class:`ResumeWarning`) if any line was
    skipped; an absent file holds no games; ValueError if `path` is not a regular file."""
    out: Lines[T] = Lines(Path(path))
    try:
        mode = out.path.stat().st_mode
    except FileNotFoundError:
        return out
    if not stat.S_ISREG(mode):  # a FIFO would block, a device never end
        raise ValueError(f"{out.path}: not a regular file; move it away or use another "
                         "folder")
    raw = out.path.read_bytes()
    out.unterminated = bool(raw) and not raw.endswith(b"\n")
    seen: set[Hashable] = set()
    for n, line in enumerate(raw.decode("utf-8", errors="replace").splitlines(), 1):
        if not line.strip():
            continue
        try:
            if len(line) > MAX_LINE:
                raise ValueError(f"over {MAX_LINE} characters")
            game = parse(json.loads(line))
            k = key(game)
        except json.JSONDecodeError:
            out.damaged.append((n, "not a whole JSON line", line))
            continue
        except RecursionError:
            out.damaged.append((n, "JSON nested too deeply", line))
            continue
        except KeyError as exc:
            out.damaged.append((n, f"no field {exc}", line))
            continue
        except (ValueError, TypeError) as exc:
            out.damaged.append((n, str(exc)[:200], line))
            continue
        if k in seen:
            out.repeated.append(n)
            continue
        seen.add(k)
        out.games.append(game)
        out.kept.append(line)
    if out.damaged or out.repeated:
        warnings.warn(out.report(), ResumeWarning, stacklevel=2)
    return out


def repair(lines: Lines) -> None:
    """Rewrite the file with only its games (damaged lines appended to
    ``NAME.damaged``, never deleted); nothing to do for a clean file."""
    if lines.clean:
        return
    for _, _, text in lines.damaged:
        append_line(lines.path.with_name(lines.path.name + ".damaged"), text)
    write_text_atomic(lines.path, "".join(line + "\n" for line in lines.kept))


def checked(value: Any, kind: type | tuple[type, ...], what: str) -> Any:
    """`value` if it is of `kind` (a bool is no int), else TypeError naming `what`."""
    if isinstance(value, bool) and bool not in (kind if isinstance(kind, tuple) else (kind,)):
        raise TypeError(f"field {what!r} must be {_name(kind)}, not bool")
    if not isinstance(value, kind):
        raise TypeError(f"field {what!r} must be {_name(kind)}, not {type(value).__name__}")
    return value


def _name(kind: type | tuple[type, ...]) -> str:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return " or ".join("null" if k is type(None) else k.__name__ for k in kinds)
