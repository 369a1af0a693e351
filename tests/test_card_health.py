"""docs/card_health.md is current: generated from the content the project ships (issue 19)."""

from __future__ import annotations

import re
import sys
from collections import Counter
from pathlib import Path

from evenstar_env.content import load_content

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

import card_health  # noqa: E402


def test_checked_in_card_health_report_matches_the_content() -> None:
    text = (ROOT / "docs" / "card_health.md").read_text(encoding="utf-8")
    found = re.search(r"Content fingerprint: `([0-9a-f]+)`", text)
    assert found, "docs/card_health.md has no content fingerprint"
    assert found.group(1) == card_health.data_fingerprint(load_content()), (
        "docs/card_health.md is stale: run python scripts/card_health.py")


def test_report_flags_empty_rare_and_duplicate_cards() -> None:
    c = load_content()
    a, b = c.cards[0].id, c.cards[1].id
    stats = {"held": Counter({a: 40, b: 40}), "playable": Counter({a: 40, b: 4}),
             "fired": Counter({a: 10, b: 10}), "changed": Counter({a: 1, b: 10})}
    rows = {line.split(" | ")[0][2:]: line for line in
            card_health.report(c, stats, 2, None).splitlines() if line.startswith("| ")}
    assert rows[c.cards[0].name].endswith(" empty |")  # 9 of 10 plays changed nothing
    assert rows[c.cards[1].name].endswith(" rare |")  # playable 10% of the time held
    assert card_health.duplicates(c) == []


def test_data_fingerprint_changes_with_any_card_effect(tmp_path: Path) -> None:
    """A stale report is caught when only an amount changes (the layout stays the same)."""
    import shutil

    from evenstar_env.content import DATA_DIR, fingerprint

    shutil.copytree(DATA_DIR, tmp_path / "data")
    p = tmp_path / "data" / "cards_mid.toml"
    p.write_text(p.read_text(encoding="utf-8").replace(
        '{ op = "vp", side = "china", amount = 1 }', '{ op = "vp", side = "china", amount = 2 }',
        1), encoding="utf-8")
    a, b = load_content(), load_content(tmp_path / "data")
    assert fingerprint(a) == fingerprint(b)
    assert card_health.data_fingerprint(a) != card_health.data_fingerprint(b)
