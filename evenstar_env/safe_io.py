"""Reading a file a user named without hanging or exhausting memory.

A FIFO blocks ``open`` until a writer comes (forever), ``/dev/zero`` and
``/dev/urandom`` never end: :func:`read_bounded` opens without blocking, refuses
anything but a regular file and anything over a size cap, each as an ``OSError``
whose ``strerror`` says why (so ``exc.strerror or exc`` handlers print one line).
"""

from __future__ import annotations

import errno
import json
import os
import stat
from pathlib import Path
from typing import Any


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "not a regular file"


def read_bounded(path: str | Path, max_bytes: int) -> bytes:
    """The bytes of the regular file `path`, at most `max_bytes` of them.

    OSError: the file cannot be opened (FileNotFoundError, PermissionError, ...), is not a
    regular file (``errno.EINVAL``) or is larger than `max_bytes` (``errno.EFBIG``).
    """
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            what = _kind(mode)
            raise OSError(errno.EINVAL, f"{what}, not a regular file" if what.startswith("a ")
                          else what, str(path))
        chunks, size = [], 0
        while size <= max_bytes:
            chunk = os.read(fd, min(1 << 20, max_bytes + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    finally:
        os.close(fd)
    if size > max_bytes:
        raise OSError(errno.EFBIG, f"larger than {max_bytes:,} bytes", str(path))
    return b"".join(chunks)


def read_json(path: str | Path, max_bytes: int, what: str,
              error: type[Exception] = ValueError) -> Any:
    """The JSON value in the regular file `path` (at most `max_bytes`), or `error` in one line.

    The line names the file and `what` it should hold: "cannot read the {what}: a FIFO, not
    a regular file", "the {what} is not UTF-8 text (...)", "the {what} is not valid JSON: ...".
    """
    try:
        text = read_bounded(path, max_bytes).decode("utf-8")
    except OSError as exc:
        raise error(f"{path}: cannot read the {what}: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise error(f"{path}: the {what} is not UTF-8 text ({exc.reason} at byte "
                    f"{exc.start})") from None
    try:
        return json.loads(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        detail = " ".join(str(exc).split())[:200] or "nested too deeply"
        raise error(f"{path}: the {what} is not valid JSON: {detail}") from None
