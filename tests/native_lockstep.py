"""Lockstep differential play: the Python reference Game and the native Game, side by side.

Both games get one seed; a seeded generator picks an index into ``legal_actions()``
(or the cautious agent picks an action); every step compares the player, kind, legal
actions, context, every state array and both players' observations (the C++ encoder
on the native game against the Python encoder on the Python game, as bits), and
every 16 steps and at the end the whole ``to_dict()`` (and its JSON text).  With the
event streams on (every even seed by default), every step also compares the records
both engines wrote, event by event (docs/events.md).
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from agents.random_agent import CautiousRandomAgent
from evenstar_env import Game
from evenstar_env.engine.state import ARRAYS
from evenstar_env.env.observation import encoder_for


def compare_step(py: Game, nat: Game, where: str) -> None:
    """Decision and every state array equal (the stack is left to compare_full)."""
    ps, ns = py.state, nat.state
    assert py.current_player == nat.current_player, where
    assert py.is_over == nat.is_over, where
    dp, dn = py.decision, nat.decision
    if dp is None:
        assert dn is None, where
    else:
        assert (dp.player, dp.kind, dp.legal, dp.context, dp.text) == \
            (dn.player, dn.kind, dn.legal, dn.context, dn.text), where
        assert list(type(dn.context[k]) for k in dn.context) == \
            list(type(dp.context[k]) for k in dp.context), where
        assert np.array_equal(py.legal_actions(), nat.legal_actions()), where
    for name in ARRAYS:
        a, b = getattr(ps, name), getattr(ns, name)
        assert a.dtype == b.dtype and np.array_equal(a, b), f"{where}: {name}"
    assert ps.misc == ns.misc.tolist(), f"{where}: misc"
    assert ps.rng == ns.rng, f"{where}: rng"
    assert ps.forced == ns.forced, f"{where}: forced"
    assert ps.result == ns.result, f"{where}: result"
    compare_observations(py, nat, where)


def compare_observations(py: Game, nat: Game, where: str) -> None:
    """Both players' observations: the C++ encoder on the native game against the Python
    encoder on the Python game, as bits."""
    enc = encoder_for(py.content)
    out = np.full(enc.size, np.nan, dtype=np.float32)  # every entry must be written
    for p in (0, 1):
        a = enc.encode(py._m, p)
        b = nat._m.observe(p, out)
        assert b is out, where
        if not np.array_equal(a.view(np.uint32), b.view(np.uint32)):
            bad = np.flatnonzero(a.view(np.uint32) != b.view(np.uint32))
            fields = sorted({k for k, sl in enc.layout.items() for i in bad
                             if sl.start <= i < sl.stop})
            raise AssertionError(f"{where}: observation {p} differs in {fields}")


def compare_full(py: Game, nat: Game, where: str) -> None:
    compare_step(py, nat, where)
    assert py.state.stack == nat.state.stack, f"{where}: stack"
    dp, dn = py.to_dict(), nat.to_dict()
    assert dp == dn, f"{where}: to_dict"
    assert json.dumps(dp) == json.dumps(dn), f"{where}: JSON text"


def chooser(kind: str, seed: int) -> Any:
    """A function (game) -> action: uniform over legal indices, or the cautious agent."""
    if kind == "random":
        rng = np.random.default_rng(seed)

        def pick(g: Game) -> int:
            legal = g.legal_actions()
            return int(legal[rng.integers(legal.size)])
        return pick
    agent = CautiousRandomAgent(seed)
    return lambda g: agent.act(None, g.action_mask(), game=g)


def compare_events(py: Game, nat: Game, since: int, where: str) -> int:
    """The records both games wrote from number `since` on are equal; the new count."""
    a, b = py.events("all", since), nat.events("all", since)
    for x, y in zip(a, b, strict=False):
        assert x == y, f"{where}: event {x['seq']}: python {x} != native {y}"
    assert len(a) == len(b), f"{where}: {len(a)} python events, {len(b)} native"
    return since + len(a)


def lockstep(seed: int, agent: str = "random", every: int = 16,
             py: Game | None = None, nat: Game | None = None,
             events: bool | None = None) -> int:
    """Play one game in lockstep; the number of steps.  Fails at the first difference.
    `events` (default: even seeds) turns both event streams on and compares them."""
    on = seed % 2 == 0 if events is None else events
    py = py if py is not None else Game(seed, backend="python", events=on)
    nat = nat if nat is not None else Game(seed, backend="native", events=on)
    assert py.events_on == nat.events_on
    pick = chooser(agent, seed)
    compare_full(py, nat, f"seed {seed} start")
    seen = compare_events(py, nat, 0, f"seed {seed} start")
    step = 0
    while not py.is_over:
        a = pick(py)
        py.step(a)
        nat.step(a)
        step += 1
        where = f"{agent} seed {seed} step {step} (action {a})"
        if step % every == 0:
            compare_full(py, nat, where)
        else:
            compare_step(py, nat, where)
        seen = compare_events(py, nat, seen, where)
    compare_full(py, nat, f"{agent} seed {seed} end")
    assert not py.events_on or py.events()[-1]["type"] == "game_end", seed
    return step
