"""Game content: the map, tracks, rule parameters and cards, loaded from data files."""

from .compiled import (
    Content,
    ContentSpec,
    as_content,
    content_from_files,
    content_id,
    fingerprint,
    load_content,
    load_snapshot,
    load_variant,
    play_fingerprint,
)
from .loader import DATA_DIR, ContentError

__all__ = ["Content", "ContentError", "ContentSpec", "DATA_DIR", "as_content",
           "content_from_files", "content_id", "fingerprint", "load_content",
           "load_snapshot", "load_variant", "play_fingerprint"]
