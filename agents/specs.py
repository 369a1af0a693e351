"""Agents by spec string, as the arena, the envs' `opponent=` and the CLI name them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .heuristic import HeuristicAgent
from .ismcts import ISMCTSAgent
from .random_agent import CautiousRandomAgent, RandomAgent

CHECKPOINTS = Path(__file__).resolve().parent / "checkpoints"
SPEC_FORMS = ("random, cautious, heuristic, ismcts[:ITER[:SECONDS]], ppo:PATH, "
              "alphaism[:SIMS[:PATH]], learned[:PATH], openspiel-ismcts[:SIMS]")


def make_agent(spec: str, seed: int) -> Any:
    """An agent from a spec: random, cautious, heuristic, ismcts[:ITER[:SECONDS]], ppo:PATH,
    alphaism[:SIMS[:PATH]], learned[:PATH] (a networks checkpoint folder),
    openspiel-ismcts[:SIMS] (needs the openspiel extra).

    alphaism's SIMS is a number of simulations per decision (default 200) or a time per
    decision such as ``0.5s``, optionally followed by settings such as
    ``,fine=heuristic,mix=0.5`` (:func:`alphaism_options`); PATH is a network checkpoint
    folder (default agents/checkpoints/learned)."""
    kind, _, arg = spec.partition(":")
    if kind == "random":
        return RandomAgent(seed)
    if kind == "cautious":
        return CautiousRandomAgent(seed)
    if kind == "heuristic":
        return HeuristicAgent(seed)
    if kind == "ismcts":
        iters, _, secs = arg.partition(":")  # what the spec leaves out keeps its default
        budget = {"iterations": int(iters)} if iters else {}
        if secs:
            budget["seconds"] = float(secs)
        return ISMCTSAgent(seed=seed, **budget)
    if kind == "ppo":
        from agents.ppo_agent import SHIPPED_POLICY, PPOAgent

        return PPOAgent(arg or SHIPPED_POLICY, seed=seed)
    if kind == "alphaism":
        from agents.alphaism import LEARNED, AlphaISMCTSAgent

        sims, _, path = arg.partition(":")
        return AlphaISMCTSAgent.from_checkpoint(path or LEARNED, **alphaism_options(sims),
                                                seed=seed)
    if kind == "learned":
        from agents.learned_agent import DEFAULT_PATH, LearnedAgent

        return LearnedAgent(arg or DEFAULT_PATH, seed=seed)
    if kind == "openspiel-ismcts":
        from agents.openspiel_agent import OpenSpielISMCTSAgent

        return OpenSpielISMCTSAgent(**({"simulations": int(arg)} if arg else {}), seed=seed)
    raise ValueError(f"unknown agent spec {spec!r} ({SPEC_FORMS})")


def spec_weights(spec: str) -> Path | None:
    """The network weights file an agent spec plays with (None: it plays no network)."""
    kind, _, arg = spec.partition(":")
    if kind == "learned":
        return Path(arg or CHECKPOINTS / "learned") / "weights.pt"
    if kind == "alphaism":
        return Path(arg.partition(":")[2] or CHECKPOINTS / "learned") / "weights.pt"
    if kind == "ppo":
        path = Path(arg or CHECKPOINTS / "ppo_selfplay")
        return path if path.suffix in (".zip", ".pt") else path.with_suffix(".pt")
    return None


ALPHAISM_OPTIONS = {"c": ("c_puct", float), "mix": ("rollout_mix", float),
                    "batch": ("batch", int), "fine": ("fine", str)}


def alphaism_options(field: str) -> dict[str, Any]:
    """alphaism's SIMS field: ``N`` simulations or ``Xs`` seconds per decision, then
    optional ``,KEY=VALUE`` settings: c (c_puct), mix (rollout_mix), batch, fine."""
    budget, *options = field.split(",")
    kw: dict[str, Any] = {}
    try:
        if budget.endswith("s"):
            kw = {"simulations": None, "seconds": float(budget[:-1])}
            ok = kw["seconds"] > 0
        else:
            kw = {"simulations": int(budget)} if budget else {}
            ok = not budget or kw["simulations"] >= 1
    except ValueError:
        ok = False
    if not ok:
        raise ValueError(f"alphaism: SIMS must be a number of simulations (e.g. 200) or seconds "
                         f"per decision (e.g. 0.5s), got {budget!r}")
    for opt in options:
        key, _, value = opt.partition("=")
        if key not in ALPHAISM_OPTIONS or not value:
            raise ValueError(f"alphaism: unknown setting {opt!r} (KEY=VALUE with KEY one of "
                             f"{', '.join(ALPHAISM_OPTIONS)})")
        name, kind = ALPHAISM_OPTIONS[key]
        try:
            kw[name] = kind(value)
        except ValueError:
            raise ValueError(f"alphaism: {key} must be a {kind.__name__}, got {value!r}"
                             ) from None
    return kw
