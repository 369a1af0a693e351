"""The native backend: the C++ core (package ``evenstar_native``) behind the Game API.

``Game(seed, backend="native")`` runs the same rules in C++ (bit-identical: same
random streams, legal actions, state and ``to_dict``); ``backend="python"`` is the
readable reference engine.  The default is :func:`default_backend`.
"""

from __future__ import annotations

import os
import warnings
from functools import lru_cache
from typing import Any

from ..content import Content

BACKENDS = ("python", "native")
# The default backend when none is asked for: native, where the extension is built (the
# Python engine otherwise, with one warning).  Rules and observations run in C++ there,
# bit-identical with the Python engine, and an env step is faster (docs/native.md,
# *Measured*).  EVENSTAR_BACKEND=python overrides it; log=True without a backend picks
# Python (the native core keeps the same log when asked: backend="native", log=True).
DEFAULT = "native"

# The native/src/cpp/engine.h ABI_VERSION these Python modules speak: a core built from
# other sources (a stale build) counts as not built.
ABI_VERSION = 6

_warned = False


def core() -> Any | None:
    """The compiled module, or None when it is not built (or built from other sources)."""
    try:
        import evenstar_native
    except ImportError:
        return None
    return evenstar_native if getattr(evenstar_native, "ABI_VERSION", None) == ABI_VERSION \
        else None


def available() -> bool:
    return core() is not None


def default_backend() -> str:
    """The backend of ``Game(seed)``: EVENSTAR_BACKEND, else DEFAULT; "python", with one
    warning, when the default is native and the extension is not built."""
    global _warned
    want = os.environ.get("EVENSTAR_BACKEND", DEFAULT)
    if want not in BACKENDS:
        raise ValueError(f"EVENSTAR_BACKEND must be one of {BACKENDS}, not {want!r}")
    if want == "native" and not available():
        if not _warned:
            warnings.warn("evenstar: the native core (evenstar_native) is not built (or is "
                          "built from other sources); using the Python engine (pip install "
                          "./native to build it)", RuntimeWarning,
                          stacklevel=3)
            _warned = True
        return "python"
    return want


def resolve(backend: str | None) -> str:
    """The backend to use for an explicit choice or None (the default)."""
    if backend is None:
        return default_backend()
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}, not {backend!r}")
    if backend == "native" and not available():
        raise ImportError("backend='native' needs the compiled core: pip install ./native")
    return backend


@lru_cache(maxsize=8)
def tables_for(content: Content) -> Any:
    """The native tables of a content (exported once per content object)."""
    from .export import export
    from .obs_tables import observation_tables

    return core().make_tables(export(content) | observation_tables(content, core()))
