"""Game content: the map, tracks, rule parameters and cards, loaded from data files."""

from .compiled import Content, fingerprint, load_content, load_variant, play_fingerprint
from .loader import DATA_DIR, ContentError

__all__ = ["Content", "ContentError", "DATA_DIR", "fingerprint", "load_content", "play_fingerprint",
           "load_variant"]
