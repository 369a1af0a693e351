"""Output files that survive crashes: atomic whole-file writes, one-write appends, an
output folder checked before any work is done, and a lock that keeps a second process
out of a folder a long job is writing."""

from __future__ import annotations

import contextlib
import fcntl
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path


def _no_file_in_the_way(folder: Path) -> None:
    """NotADirectoryError if `folder` or its nearest existing ancestor is a file."""
    for f in (folder, *folder.parents):
        if f.exists():
            if not f.is_dir():
                raise NotADirectoryError(20, f"Not a directory ({f} is a file)", str(folder))
            return


def write_text_atomic(path: Path, text: str) -> None:
    """Write `text` to `path` so that a crash leaves either the old file or the new one.

    Raises OSError (a folder, no permission, a name too long, ...) without touching an
    existing file at `path`.
    """
    write_bytes_atomic(path, text.encode("utf-8"))


def write_bytes_atomic(path: Path, data: bytes) -> None:
    """:func:`write_text_atomic` for bytes."""
    path = Path(path)
    if path.is_dir():
        raise IsADirectoryError(21, "is a folder", str(path))
    _no_file_in_the_way(path.parent)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".part")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def append_line(path: Path, line: str) -> None:
    """Append one full line with a single write, flushed to disk: no half-written record
    unless the process is killed or the machine dies inside that one write (Linux stops a
    write between pages for SIGKILL); readers move such a torn last line aside
    (:mod:`experiments.gamelog`) and the game is played again."""
    data = (line.rstrip("\n") + "\n").encode("utf-8")
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        written = os.write(fd, data)
        if written != len(data):
            raise OSError(f"{path}: short write ({written} of {len(data)} bytes)")
        os.fsync(fd)
    finally:
        os.close(fd)


class OutputDirError(ValueError):
    """An output folder that cannot be created or written."""


def ensure_output_dir(out: Path) -> Path:
    """Create `out` if needed and check a file can be written in it (before any game runs)."""
    out = Path(out)
    try:
        _no_file_in_the_way(out)
        out.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(dir=out, prefix=".write-test-")
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise OutputDirError(f"{out}: cannot write results there: "
                             f"{exc.strerror or exc}") from None
    return out


class FolderLockedError(OutputDirError):
    """An output folder another process is writing."""


LOCK_NAME = ".evenstar.lock"


@contextlib.contextmanager
def folder_lock(out: Path) -> Iterator[None]:
    """Hold an exclusive ``flock`` on ``out/.evenstar.lock`` (created if needed) while the
    block runs; :class:`FolderLockedError` at once if another process holds it.  The lock
    goes with the process (SIGKILL included): no stale lock is ever left behind."""
    path = Path(out) / LOCK_NAME
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    except OSError as exc:
        raise OutputDirError(f"{out}: cannot lock the folder: {exc.strerror or exc}") from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
            who = f" (process {holder})" if holder.isdigit() else ""
            raise FolderLockedError(f"{out}: another run is writing this folder{who}; wait "
                                    "for it to end or use another folder") from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        yield
    finally:
        os.close(fd)  # releases the lock
