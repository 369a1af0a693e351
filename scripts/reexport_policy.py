"""Re-export a PPO policy (NAME.pt + NAME.json) for the current observation layout.

    python scripts/reexport_policy.py agents/checkpoints/ppo_selfplay          # in place
    python scripts/reexport_policy.py OLD NEW [--old-layout LAYOUT.json]

The first layer's weight columns move by field name (agents/policy_layout.py): kept
fields are copied, fields that became constants (``static_features``) are folded into
the bias, new fields get zero columns.  The old layout is the config's ``layout``, else
the stored layout of its size (agents/checkpoints/obs_layout_*.json), else
``--old-layout``.  The new config records the current layout.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from agents.policy_layout import (  # noqa: E402
    FIRST_LAYER,
    config_text,
    layout_of,
    legacy_layout,
    remap_first_layer,
)
from evenstar_env import Game  # noqa: E402
from evenstar_env.content import Content, fingerprint, load_content  # noqa: E402
from evenstar_env.env.observation import encoder_for  # noqa: E402


def reexport(src: Path, dst: Path, old_layout: dict[str, list[int]] | None = None,
             content: Content | None = None, grown: frozenset[str] = frozenset()
             ) -> dict[str, list[str]]:
    """Write the policy `src` for the current layout as `dst`; what happened to each field."""
    import torch

    src, dst = Path(src), Path(dst)
    config: dict[str, Any] = json.loads(src.with_suffix(".json").read_text())
    state = torch.load(src.with_suffix(".pt"), map_location="cpu", weights_only=True)
    content = content or load_content()
    if config.get("content") != fingerprint(content):
        raise SystemExit(f"{src}: trained on other game content ({config.get('content')}, "
                         f"this is {fingerprint(content)}); card and country fields cannot be "
                         "matched by name across contents")
    n_actions = Game(0, content=content).num_actions
    if config["n_actions"] != n_actions:
        raise SystemExit(f"{src}: {config['n_actions']} actions, this game has {n_actions}")
    old = old_layout or config.get("layout") or legacy_layout(int(config["obs_size"]))
    enc = encoder_for(content)
    new = layout_of(enc)
    w, b, report = remap_first_layer(state[f"{FIRST_LAYER}.weight"].numpy(),
                                     state[f"{FIRST_LAYER}.bias"].numpy(), old, new,
                                     enc.static_features, grown)
    state[f"{FIRST_LAYER}.weight"] = torch.from_numpy(w)
    state[f"{FIRST_LAYER}.bias"] = torch.from_numpy(b)
    config.update(obs_size=enc.size, layout=new)
    dst.parent.mkdir(parents=True, exist_ok=True)
    torch.save(state, dst.with_suffix(".pt"))
    dst.with_suffix(".json").write_text(config_text(config))
    return report


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("src", type=Path, help="the old policy (NAME, without .pt/.json)")
    ap.add_argument("dst", type=Path, nargs="?", help="where to write (default: in place)")
    ap.add_argument("--old-layout", type=Path,
                    help="JSON with the old layout ({name: [start, size]} or {'layout': ...})")
    ap.add_argument("--grown", action="append", default=[], metavar="FIELD",
                    help="a field whose new entries were appended after its old ones "
                         "(e.g. decision_kind when decision kinds were added); repeatable")
    args = ap.parse_args()
    old = None
    if args.old_layout:
        data = json.loads(args.old_layout.read_text())
        old = data.get("layout", data)
    report = reexport(args.src, args.dst or args.src, old, grown=frozenset(args.grown))
    for what, names in report.items():
        print(f"{what} ({len(names)}): {', '.join(names) or '-'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
