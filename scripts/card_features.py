"""Convert a structured network that reads cards by index into one that reads them by
their data (agents/card_transfer.py), so that it plays edited decks on its board.

    python scripts/card_features.py agents/checkpoints/learned            # in place
    python scripts/card_features.py OLD NEW [--content DIR]

The network computes what it computed on the deck it was trained on; the fit's report
(leave-one-out R² of each card's learned terms from its data) goes to the config's
``extra.card_features`` and is printed.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from agents.card_transfer import to_card_features  # noqa: E402
from agents.networks import load_checkpoint, save_checkpoint  # noqa: E402
from evenstar_env.content import load_content  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("old", type=Path, help="a networks checkpoint folder")
    ap.add_argument("new", type=Path, nargs="?", help="where to write (default: in place)")
    ap.add_argument("--content", default="shipped", help="the content it was trained on")
    args = ap.parse_args(argv)
    content = load_content(args.content)
    net, cfg, extra = load_checkpoint(args.old, content)
    out, new_cfg, report = to_card_features(net, cfg, content)
    save_checkpoint(args.new or args.old, out, new_cfg, {**extra, "card_features": report})
    print(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
