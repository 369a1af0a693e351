"""Where content comes from: a full content folder, an overlay folder over a base, or a
content-addressed snapshot kept beside game records.

A content folder holds the TOML files of ``evenstar_env/data``.  An *overlay* folder holds
``overlay.toml`` (``base = "shipped"`` or a folder path, relative to the overlay; ``remove``:
card ids taken out; ``description``) and only the entries it changes: in a card or history
file, an entry names its ``id`` and the fields it changes (an unknown id adds a card, given
in full); in the other files, tables are merged key by key, arrays of named tables by
``name`` and any other array is replaced.  See docs/content.md.
"""

from __future__ import annotations

import copy
import difflib
import hashlib
import json
import os
from pathlib import Path
from typing import Any

from .layout import LAYOUT_FILE
from .loader import DATA_DIR, ContentError, _load_toml, _validate
from .schema import OverlayManifest

SHIPPED = "shipped"
OVERLAY = "overlay.toml"
FIXED = ("map.toml", "setup.toml", "tracks.toml", "rules.toml")
SNAPSHOT_FORMAT = "evenstar-content-v1"
SNAPSHOT_DIR = "content"  # beside a record file: content/<content id>.json


def card_key(fname: str) -> str | None:
    """The array of entries a card-like file holds ("cards", "history"), else None."""
    if fname == "scoring.toml" or (fname.startswith("cards_") and fname.endswith(".toml")):
        return "cards"
    if fname.startswith("history_") and fname.endswith(".toml"):
        return "history"
    return None


def did_you_mean(name: str, known: Any) -> str:
    """`` (did you mean 'x'?)`` for the closest known names, or ``""``."""
    close = difflib.get_close_matches(str(name), [str(k) for k in known], n=3, cutoff=0.6)
    return f" (did you mean {' or '.join(repr(c) for c in close)}?)" if close else ""


def folder_of(spec: str | Path) -> Path:
    """The folder a content spec names ("shipped" is the shipped edition)."""
    return DATA_DIR if str(spec) == SHIPPED else Path(spec).expanduser().resolve()


def read_folder(folder: str | Path, _seen: tuple[Path, ...] = ()) -> dict[str, dict]:
    """The raw TOML tables of a content folder (file name -> table), overlays applied."""
    folder = folder_of(folder)
    if not folder.is_dir():
        what = "a file" if folder.exists() else "nothing"
        raise ContentError(f"{folder}: {what} where the content folder is expected")
    if (folder / OVERLAY).is_file():
        if folder in _seen:
            raise ContentError(f"{folder / OVERLAY}: field 'base': the overlays form a cycle")
        return _read_overlay(folder, (*_seen, folder))
    names = [p.name for p in sorted(folder.glob("*.toml")) if p.name != LAYOUT_FILE]
    for name in names:
        if name not in FIXED and card_key(name) is None:
            raise ContentError(f"{folder / name}: not a content file (one of {', '.join(FIXED)}, "
                               f"cards_*.toml, scoring.toml, history_*.toml)"
                               + did_you_mean(name, FIXED))
    return {name: _load_toml(folder / name) for name in (*FIXED, *sorted(
        n for n in names if n not in FIXED))}


def _read_overlay(folder: Path, seen: tuple[Path, ...]) -> dict[str, dict]:
    manifest: OverlayManifest = _validate(_load_toml(folder / OVERLAY), OverlayManifest,
                                          str(folder / OVERLAY))
    base = DATA_DIR if manifest.base == SHIPPED else (folder / manifest.base).resolve()
    files = copy.deepcopy(read_folder(base, seen))
    for path in sorted(folder.glob("*.toml")):
        if path.name not in (OVERLAY, LAYOUT_FILE):
            apply_file(files, path.name, _load_toml(path), str(path))
    for i, cid in enumerate(manifest.remove):
        if not _remove(files, cid):
            known = [e.get("id") for n, t in files.items() if card_key(n)
                     for e in t.get(card_key(n), [])]
            raise ContentError(f"{folder / OVERLAY}: field 'remove[{i}]': no card with id "
                               f"{cid!r}{did_you_mean(cid, known)}")
    return files


def _find(files: dict[str, dict], key: str, cid: Any) -> dict | None:
    for name, table in files.items():
        if card_key(name) == key:
            for entry in table.get(key, []):
                if isinstance(entry, dict) and entry.get("id") == cid:
                    return entry
    return None


def _remove(files: dict[str, dict], cid: str) -> bool:
    for name, table in files.items():
        key = card_key(name)
        entries = table.get(key, []) if key else []
        for i, entry in enumerate(entries):
            if isinstance(entry, dict) and entry.get("id") == cid:
                del entries[i]
                return True
    return False


def apply_file(files: dict[str, dict], fname: str, over: dict[str, Any], where: str) -> None:
    """Merge one overlay file into `files` (see the module docstring)."""
    key = card_key(fname)
    if key is None:
        if fname not in FIXED:
            raise ContentError(f"{where}: not a content file" + did_you_mean(fname, FIXED))
        merge_keyed(files.setdefault(fname, {}), over)
        return
    for field in over:
        if field != key:
            raise ContentError(f"{where}: field {field!r}: unknown (this file holds [[{key}]])"
                               + did_you_mean(field, [key]))
    entries = over.get(key, [])
    if not isinstance(entries, list):
        raise ContentError(f"{where}: field {key!r}: expected an array of tables")
    for i, entry in enumerate(entries):
        if not isinstance(entry, dict) or not isinstance(entry.get("id"), str):
            raise ContentError(f"{where}: {key}[{i}]: field 'id': missing (an overlay entry "
                               "names the card it changes or adds)")
        found = _find(files, key, entry["id"])
        if found is not None:
            merge_keyed(found, entry)
        else:
            files.setdefault(fname, {key: []}).setdefault(key, []).append(
                copy.deepcopy(entry))


def _name(item: Any) -> Any:
    return item.get("id", item.get("name")) if isinstance(item, dict) else None


def merge_keyed(base: dict[str, Any], over: dict[str, Any]) -> None:
    """Deep-merge `over` into `base`: tables key by key, arrays of named tables by name
    (new names appended), any other value replaced."""
    for k, v in over.items():
        old = base.get(k)
        if isinstance(v, dict) and isinstance(old, dict):
            merge_keyed(old, v)
        elif (isinstance(v, list) and isinstance(old, list) and v and old
              and all(_name(x) is not None for x in (*v, *old))):
            by_name = {_name(x): x for x in old}
            for item in v:
                if _name(item) in by_name:
                    merge_keyed(by_name[_name(item)], item)
                else:
                    old.append(copy.deepcopy(item))
        else:
            base[k] = copy.deepcopy(v)


def content_id(files: dict[str, dict]) -> str:
    """A short hash of the whole content (texts included): the name of its snapshot."""
    blob = json.dumps(files, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def snapshot_path(folder: Path, cid: str) -> Path:
    return Path(folder) / SNAPSHOT_DIR / f"{cid}.json"


def write_snapshot(files: dict[str, dict], folder: Path) -> str:
    """Keep a copy of the content in ``folder/content/<id>.json`` (once); return its id."""
    cid = content_id(files)
    path = snapshot_path(folder, cid)
    if not path.is_file():
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps({"format": SNAPSHOT_FORMAT, "id": cid, "files": files},
                                  ensure_ascii=False, default=str), encoding="utf-8")
        os.replace(tmp, path)  # atomic: a reader sees the whole snapshot or none
    return cid


def read_snapshot(path: Path) -> dict[str, dict]:
    """The files of a snapshot, checked against its id (ContentError if damaged)."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ContentError(f"{path}: the record's content snapshot is missing") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise ContentError(f"{path}: not a content snapshot: {exc}") from None
    if not isinstance(data, dict) or data.get("format") != SNAPSHOT_FORMAT or \
            not isinstance(data.get("files"), dict):
        raise ContentError(f"{path}: not a content snapshot ({SNAPSHOT_FORMAT})")
    if content_id(data["files"]) != data.get("id"):
        raise ContentError(f"{path}: the content snapshot was altered (its id does not match)")
    return data["files"]
