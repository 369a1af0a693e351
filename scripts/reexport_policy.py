"""Re-export a PPO policy (NAME.pt + NAME.json) for the current observation layout.

    python scripts/reexport_policy.py agents/checkpoints/ppo_selfplay          # in place
    python scripts/reexport_policy.py agents/checkpoints/learned               # a net folder
    python scripts/reexport_policy.py OLD NEW [--old-layout LAYOUT.json]

SB3 policies (NAME.pt + NAME.json) and MLP checkpoint folders of agents/networks.py
(config.json + weights.pt; the structured network reads fields by name and is retrained).

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


def _remap(state: dict, key: str, obs_size: int, old: dict[str, list[int]] | None,
           content: Content, grown: frozenset[str]) -> tuple[dict, dict[str, list[str]]]:
    """`state` with the first layer `key` remapped to the current layout; the new layout
    and what happened to each field."""
    import torch

    old = old or legacy_layout(obs_size)
    enc = encoder_for(content)
    new = layout_of(enc)
    w, b, report = remap_first_layer(state[f"{key}.weight"].numpy(),
                                     state[f"{key}.bias"].numpy(), old, new,
                                     enc.static_features, grown)
    state[f"{key}.weight"] = torch.from_numpy(w)
    state[f"{key}.bias"] = torch.from_numpy(b)
    return new, report


def _check_content(src: Path, made_for: str | None, content: Content) -> None:
    if made_for != fingerprint(content):
        raise SystemExit(f"{src}: trained on other game content ({made_for}, this is "
                         f"{fingerprint(content)}); card and country fields cannot be "
                         "matched by name across contents")


def reexport(src: Path, dst: Path, old_layout: dict[str, list[int]] | None = None,
             content: Content | None = None, grown: frozenset[str] = frozenset()
             ) -> dict[str, list[str]]:
    """Write the policy `src` for the current layout as `dst`; what happened to each field."""
    import torch

    src, dst = Path(src), Path(dst)
    content = content or load_content()
    if (src / "config.json").exists():
        return _reexport_folder(src, dst, old_layout, content, grown)
    config: dict[str, Any] = json.loads(src.with_suffix(".json").read_text())
    state = torch.load(src.with_suffix(".pt"), map_location="cpu", weights_only=True)
    _check_content(src, config.get("content"), content)
    n_actions = Game(0, content=content).num_actions
    if config["n_actions"] != n_actions:
        raise SystemExit(f"{src}: {config['n_actions']} actions, this game has {n_actions}")
    new, report = _remap(state, FIRST_LAYER, int(config["obs_size"]),
                         old_layout or config.get("layout"), content, grown)
    config.update(obs_size=sum(n for _, n in new.values()), layout=new)
    dst.parent.mkdir(parents=True, exist_ok=True)
    torch.save(state, dst.with_suffix(".pt"))
    dst.with_suffix(".json").write_text(config_text(config))
    return report


def _reexport_folder(src: Path, dst: Path, old_layout: dict[str, list[int]] | None,
                     content: Content, grown: frozenset[str]) -> dict[str, list[str]]:
    """The same for an MLP checkpoint folder of agents/networks.py (first layer body.0)."""
    import torch

    doc = json.loads((src / "config.json").read_text())
    net = doc["net"]
    if net.get("kind") != "mlp":
        raise SystemExit(f"{src}: a {net.get('kind')} network; only MLP checkpoints are "
                         "re-exported (retrain the others)")
    _check_content(src, net.get("content"), content)
    state = torch.load(src / "weights.pt", map_location="cpu", weights_only=True)
    new, report = _remap(state, "body.0", int(net["obs_size"]), old_layout, content, grown)
    net["obs_size"] = sum(n for _, n in new.values())
    dst.mkdir(parents=True, exist_ok=True)
    torch.save(state, dst / "weights.pt")
    (dst / "config.json").write_text(json.dumps(doc, indent=1) + "\n")
    return report


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("src", type=Path,
                    help="the old policy (NAME, without .pt/.json, or a checkpoint folder)")
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
