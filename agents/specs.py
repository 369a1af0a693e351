"""Agents by spec string, as the arena, the envs' `opponent=` and the CLI name them."""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .heuristic import HeuristicAgent
from .ismcts import ISMCTSAgent
from .random_agent import CautiousRandomAgent, RandomAgent

CHECKPOINTS = Path(__file__).resolve().parent / "checkpoints"
SPEC_FORMS = ("random, cautious, heuristic, ismcts[:ITER[:SECONDS]], ppo:PATH, "
              "alphaism[:SIMS[:PATH]], rollout[:SIMS[:PATH]], learned[:PATH], "
              "openspiel-ismcts[:SIMS]")


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
        budget: dict[str, Any] = {}
        if iters:
            budget["iterations"] = count(iters, "ismcts: ITER", MAX_ITERATIONS)
        if secs:
            budget["seconds"] = seconds(secs, "ismcts: SECONDS")
        return ISMCTSAgent(seed=seed, **budget)
    if kind == "ppo":
        from agents.ppo_agent import SHIPPED_POLICY, PPOAgent

        return PPOAgent(arg or SHIPPED_POLICY, seed=seed)
    if kind == "alphaism":
        from agents.alphaism import LEARNED, AlphaISMCTSAgent

        sims, _, path = arg.partition(":")
        return AlphaISMCTSAgent.from_checkpoint(path or LEARNED, **alphaism_options(sims),
                                                seed=seed)
    if kind == "rollout":
        from agents.rollout_search import RolloutSearchAgent

        sims, _, path = arg.partition(":")
        return RolloutSearchAgent.from_checkpoint(path or CHECKPOINTS / "learned",
                                                  **rollout_options(sims), seed=seed)
    if kind == "learned":
        from agents.learned_agent import DEFAULT_PATH, LearnedAgent

        return LearnedAgent(arg or DEFAULT_PATH, seed=seed)
    if kind == "openspiel-ismcts":
        from agents.openspiel_agent import OpenSpielISMCTSAgent

        sims = {"simulations": count(arg, "openspiel-ismcts: SIMS", MAX_ITERATIONS)} if arg \
            else {}
        return OpenSpielISMCTSAgent(**sims, seed=seed)
    raise ValueError(f"unknown agent spec {spec!r} ({SPEC_FORMS})")


MAX_ITERATIONS = 10_000_000  # search iterations or simulations per decision
MAX_SECONDS = 3600.0  # search time per decision


def count(text: str, what: str, hi: int = MAX_ITERATIONS) -> int:
    """`text` as a whole number in 1..`hi` (ValueError naming `what` if not)."""
    if not (text.isascii() and text.isdigit() and len(text) <= 12 and 1 <= int(text) <= hi):
        raise ValueError(f"{what} must be a whole number in 1..{hi:,}, got {text[:40]!r}")
    return int(text)


def seconds(text: str, what: str, hi: float = MAX_SECONDS) -> float:
    """`text` as a finite number of seconds in (0, `hi`] (ValueError naming `what`)."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 < value <= hi:  # also refuses nan; inf is over hi
        raise ValueError(f"{what} must be a number of seconds in (0, {hi:g}], "
                         f"got {text[:40]!r}")
    return value


def spec_weights(spec: str) -> Path | None:
    """The network weights file an agent spec plays with (None: it plays no network)."""
    kind, _, arg = spec.partition(":")
    if kind == "learned":
        return Path(arg or CHECKPOINTS / "learned") / "weights.pt"
    if kind in ("alphaism", "rollout"):
        return Path(arg.partition(":")[2] or CHECKPOINTS / "learned") / "weights.pt"
    if kind == "ppo":
        path = Path(arg or CHECKPOINTS / "ppo_selfplay")
        return path if path.suffix in (".zip", ".pt") else path.with_suffix(".pt")
    return None


def weights_hash(path: Path) -> str:
    """The first 16 hex digits of the SHA-256 of a weights file: which network a result was
    measured with (``learned`` names whichever policy is shipped at the time)."""
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


Parser = Callable[[str, str], Any]  # (text, what it is for the message) -> the value


def real(lo: float = -math.inf, hi: float = math.inf, above: bool = False
         ) -> Parser:
    """A setting's parser: a finite number in [lo, hi] (above `lo` where `above`)."""
    span = (f" above {lo:g}" if above else "" if lo == -math.inf else f" >= {lo:g}"
            if hi == math.inf else f" in [{lo:g}, {hi:g}]")

    def parse(text: str, what: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if not (math.isfinite(value) and (value > lo if above else value >= lo)
                and value <= hi):
            raise ValueError(f"{what} must be a finite number{span}, got {text[:40]!r}")
        return value

    return parse


def whole(hi: int = 65_536) -> Parser:
    """A setting's parser: a whole number in 1..`hi`."""
    return lambda text, what: count(text, what, hi)


def choice(*names: str) -> Parser:
    """A setting's parser: one of `names`."""
    def parse(text: str, what: str) -> str:
        if text not in names:
            raise ValueError(f"{what} must be one of {', '.join(names)}, got {text[:40]!r}")
        return text

    return parse


# KEY: (the agent's keyword, the parser of its value); the agents check the same again
ALPHAISM_OPTIONS = {"c": ("c_puct", real()), "mix": ("rollout_mix", real(0, 1)),
                    "batch": ("batch", whole()),
                    "fine": ("fine", choice("network", "heuristic")),
                    "t": ("prior_temp", real(0, above=True)), "eps": ("prior_mix", real(0, 1)),
                    "sim": ("sim_fine", choice("fast", "network")),
                    "opp": ("opponent", choice("tree", "policy")),
                    "root": ("root", choice("puct", "halving")), "width": ("width", whole()),
                    "margin": ("margin", real(0)), "playout": ("playout", whole())}
ROLLOUT_OPTIONS = {"width": ("width", whole()), "margin": ("margin", real(0)),
                   "depth": ("depth", whole())}


def alphaism_options(field: str) -> dict[str, Any]:
    """alphaism's SIMS field: ``N`` simulations or ``Xs`` seconds per decision, then
    optional ``,KEY=VALUE`` settings: c (c_puct), mix (rollout_mix), batch, fine, t
    (prior_temp), eps (prior_mix: the prior mixed with uniform), sim (sim_fine: who takes
    the fine decisions inside simulations, fast or network), opp (opponent: tree, or policy
    for the network playing the opponent inside simulations), root (puct, or halving:
    sequential halving over the `width` likeliest actions, leaving the network's choice
    only for a mean gain over `margin`), playout (leaves valued by a network play-out of
    that many moves, then the value head)."""
    return search_options(field, "alphaism", ALPHAISM_OPTIONS, timed=True)


def rollout_options(field: str) -> dict[str, Any]:
    """rollout's SIMS field: ``N`` play-outs per decision, then optional ``,KEY=VALUE``
    settings: width (candidates), margin (the mean gain needed to leave the network's
    choice), depth (moves of each play-out before the value head scores it)."""
    return search_options(field, "rollout", ROLLOUT_OPTIONS, timed=False)


def search_options(field: str, who: str, table: dict[str, tuple[str, Parser]],
                   timed: bool) -> dict[str, Any]:
    """A search's ``BUDGET[,KEY=VALUE...]`` field as keyword arguments: BUDGET is a number
    of simulations (or, `timed`, seconds such as ``0.5s``); KEY is one of `table`."""
    budget, *options = field.split(",")
    kw: dict[str, Any] = {}
    try:
        if budget.endswith("s") and timed:
            kw = {"simulations": None, "seconds": seconds(budget[:-1], who)}
        elif budget:
            kw = {"simulations": count(budget, who)}
        ok = True
    except ValueError:
        ok = False
    if not ok:
        per = " or seconds per decision (e.g. 0.5s)" if timed else ""
        raise ValueError(f"{who}: SIMS must be a number of simulations (e.g. 200){per}, "
                         f"got {budget!r}")
    for opt in options:
        key, _, value = opt.partition("=")
        if key not in table or not value:
            raise ValueError(f"{who}: unknown setting {opt!r} (KEY=VALUE with KEY one of "
                             f"{', '.join(table)})")
        name, parse = table[key]
        kw[name] = parse(value, f"{who}: {key}")
    return kw
