"""Scenario helpers for tests: reach a decision, then script actions by name."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from evenstar_env import Game
from evenstar_env.engine.constants import CHINA, DRAW, H_DONE, IN_PLAY, M_TECH_DONE


def advance_to(g: Game, kind: str, player: str | None = None, limit: int = 5000) -> Game:
    """Take the first legal action until the pending decision is `kind` for `player`."""
    for _ in range(limit):
        assert not g.is_over, f"game ended before a {kind!r} decision: {g.result}"
        d = g.decision
        if d.kind == kind and (player is None or d.player == player):
            return g
        g.step(int(g.legal_actions()[0]))
    raise AssertionError(f"no {kind!r} decision for {player} within {limit} steps")


def action_round(seed: int = 0, player: str = "usa") -> Game:
    """A game at the start of one of `player`'s action rounds (the card choice)."""
    g = Game(seed)
    advance_to(g, "card", player)
    return g


def china_card_choice(hand: list[str], diplomacy: int, tech_done: bool = False) -> Game:
    """China choosing a card to play from `hand`, with diplomacy at `diplomacy` (and its
    tech race of the turn already run, if `tech_done`)."""
    g = action_round(2, "china")
    g.state.misc[M_TECH_DONE + CHINA] = int(tech_done)
    g.set_hand("china", hand)
    g.set_track("diplomacy", diplomacy)
    return g


def play(g: Game, card: str, mode: str) -> None:
    """Play `card` from hand in `mode` (the pending decision must be the card choice)."""
    g.step(g.action_id("card", card))
    g.step(g.action_id("mode", mode))


def do(g: Game, group: str, which: str | int | None = None) -> None:
    g.step(g.action_id(group, which))


# ---------------------------------------------------------------------------
# Card-test helpers (tests/test_cards_early.py, tests/test_history_cards.py).

_QUIET_CACHE: dict[tuple[int, str, int], Game] = {}


def quiet_action(g: Game) -> int:
    """A choice that changes as little as possible: no reserve spends, zero modifiers,
    no upgrade / 8th round / end discard, scoring cards first (never held), cards
    played for ops (placement), the action before the event."""
    d = g.decision
    legal = d.legal
    if d.kind in ("spend", "end_discard"):
        return g.action_id("done")
    if d.kind == "modifier":
        return g.action_id("mod", "zero")
    if d.kind in ("upgrade", "round8"):
        return g.action_id("no")
    if d.kind in ("card", "headline"):
        for a in legal:
            if g.content.card_scoring[a - g.action_id("card", g.content.cards[0].name)]:
                return a
    if d.kind == "mode" and g.action_id("mode", "place") in legal:
        return g.action_id("mode", "place")
    if d.kind == "order":
        return g.action_id("order", "action_first")
    return legal[0]


def quiet_advance(g: Game, kind: str, player: str | None = None, turn: int | None = None,
                  limit: int = 5000) -> Game:
    """Like `advance_to`, but answering with `quiet_action`; optionally in a given turn."""
    for _ in range(limit):
        assert not g.is_over, f"game ended before a {kind!r} decision: {g.result}"
        d = g.decision
        if (d.kind == kind and (player is None or d.player == player)
                and (turn is None or g.turn == turn)):
            return g
        g.step(int(quiet_action(g)))
    raise AssertionError(f"no {kind!r} decision for {player} within {limit} steps")


def quiet_round(player: str = "usa", turn: int = 1, seed: int = 7) -> Game:
    """A fresh copy of a game at `player`'s card choice in an action round of `turn`,
    reached with `quiet_action`, with no persistent event in play (they go to the draw pile)."""
    key = (seed, player, turn)
    if key not in _QUIET_CACHE:
        g = quiet_advance(Game(seed), "card", player, turn)
        s = g.state
        s.card_loc[s.card_loc == IN_PLAY] = DRAW
        g._refresh()
        _QUIET_CACHE[key] = g
    return _QUIET_CACHE[key].clone()


def clear(g: Game, *countries: str) -> None:
    """Remove all influence (US, CN, AU) from the named countries."""
    for c in countries:
        g.set_influence(c)


def wipe_region(g: Game, region: str) -> None:
    """Remove all influence from every country of a region or sub-region."""
    for c in Game.countries():
        if c["region"] == region or region in c["subregions"]:
            g.set_influence(c["name"])


def snapshot(g: Game) -> dict:
    """Everything an event may change on the board: influence, tracks, VP, reserves."""
    return {"inf": {c["name"]: g.influence(c["name"]) for c in Game.countries()},
            "tracks": {t: g.track(t) for t in ("social_usa", "social_china", "economy_usa",
                                               "economy_china", "diplomacy",
                                               "regional_security", "russia", "tech_usa",
                                               "tech_china")},
            "vp": dict(g.vp), "reserves": dict(g.reserves)}


def changes(g: Game, before: dict) -> dict:
    """What changed since `snapshot`: {country: influence after}, {track: value after},
    and "vp_<side>" / "reserves_<side>": the delta (only entries that changed)."""
    now = snapshot(g)
    out: dict = {}
    for c, inf in now["inf"].items():
        if inf != before["inf"][c]:
            out[c] = {k: v for k, v in inf.items() if v}
    for t, v in now["tracks"].items():
        if v != before["tracks"][t]:
            out[t] = v
    for what in ("vp", "reserves"):
        for side in ("usa", "china"):
            d = now[what][side] - before[what][side]
            if d:
                out[f"{what}_{side}"] = d
    return out


def run_history(g: Game, hist_id: str, mods: bool = False) -> None:
    """Resolve the history card `hist_id` now, through the engine's own phase-D frame.

    Test-only trick: the pending decision is put back on the frame stack and the
    engine's ``("history", index, mods)`` frame is pushed above it, so the card
    resolves at once (with the modifier decisions if `mods`, else straight to the
    owner's roll, as for the turn-1 and Putin cards); afterwards the interrupted
    decision is asked again.  Force the die with ``g.force_dice`` first; answer any
    modifier / influence decisions the card asks.
    """
    s = g.state
    pending = s.pending
    s.pending = None
    s.stack.append(pending[0])
    s.stack.append(("history", g.content.hist_by_id[hist_id], int(mods)))
    g._m.run()


def empty_hands_to_next_turn(g: Game, kind: str, player: str | None = None) -> Game:
    """Empty both hands (every remaining round is skipped) and advance quietly to the
    first `kind` decision of the next turn."""
    turn = g.turn
    # The deciding player's hand first: emptying the other hand re-asks the pending decision,
    # which may then have one legal card left and take it at once.
    first = g.current_player or "usa"
    for side in (first, "china" if first == "usa" else "usa"):
        g.set_hand(side, [])
    return quiet_advance(g, kind, player, turn + 1)


# ---------------------------------------------------------------- scenario helpers (rulings tests)

MODE_NAMES = ("event", "place", "realign", "improve_social", "improve_economy", "tech", "trade")
SPEND_NAMES = ("russia", "tech", "diplomacy")
MOD_NAMES = ("zero", "plus1", "minus1", "plus2", "minus2", "counter")

_DECLINE = {"upgrade": "no", "round8": "no", "spend": "done", "end_discard": "done"}


def safe_action(g: Game) -> int:
    """A neutral default: decline optional things, play scoring cards at once, else the
    first legal action."""
    d = g.decision
    if d.kind in _DECLINE:
        a = g.action_id(_DECLINE[d.kind])
        if a in d.legal:
            return a
    if d.kind in ("card", "headline"):
        for a in d.legal:
            if "Scoring" in g.describe_action(a):
                return a
    if d.kind == "mode" and g.action_id("mode", "place") in d.legal:
        return g.action_id("mode", "place")  # no realignment or sabotage: a calmer game
    return d.legal[0]


def run_until(g: Game, pred, limit: int = 20000) -> Game:
    """Step with `safe_action` until `pred(g)` holds."""
    for _ in range(limit):
        assert not g.is_over, f"game ended early: {g.result}"
        if pred(g):
            return g
        g.step(safe_action(g))
    raise AssertionError("condition not reached")


def at(kind: str, player: str | None = None, turn: int | None = None):
    def pred(g: Game) -> bool:
        d = g.decision
        return (d.kind == kind and (player is None or d.player == player)
                and (turn is None or g.turn == turn))
    return pred


def clear_persistent(g: Game) -> None:
    """Take every persistent card in play out of it (into the draw pile), keeping both
    hands: persistent effects such as reserve income (R26) would change a scenario."""
    in_play = [g.content.cards[i].name for i in (g.state.card_loc == IN_PLAY).nonzero()[0]]
    if in_play:
        hand = g.hand("usa")
        g.set_hand("usa", hand + in_play)
        g.set_hand("usa", hand)


# Events whose lasting effect the scenario API cannot undo (non-realignable countries).
_LASTING = ("US–Japan Defense Guidelines", "Shanghai Five")


def start(player: str = "usa", seed: int = 0) -> Game:
    """A game at `player`'s first card choice of turn 1 (no reserves spent), with no
    persistent card in play: the first game from `seed` on where no event made a country
    non-realignable."""
    for s in range(seed, seed + 100):
        g = Game(s)
        run_until(g, at("card", player))
        if all(card_location(g, c) != "removed" for c in _LASTING):
            break
    clear_persistent(g)
    return g


def names(g: Game, group: str, universe) -> set:
    """The names of `universe` whose action in `group` is legal now."""
    legal = set(int(a) for a in g.legal_actions())
    return {n for n in universe if g.action_id(group, n) in legal}


def legal_modes(g: Game, card: str | None = None) -> set:
    """The modes legal now, or those `card` would offer (chosen on a copy)."""
    if card is not None:
        g = g.clone()
        g.step(g.action_id("card", card))
        assert g.decision.kind == "mode", g.decision
    return names(g, "mode", MODE_NAMES)


def legal_countries(g: Game) -> set:
    return names(g, "country", [c["name"] for c in Game.countries()])


def legal_spends(g: Game) -> set:
    """Spends offered now ({} when the player goes straight to the card choice)."""
    if g.decision.kind != "spend":
        return set()
    return names(g, "spend", SPEND_NAMES)


def skip_spend(g: Game) -> None:
    while g.decision.kind == "spend":
        do(g, "done")


def clear_region(g: Game, region: str) -> None:
    """Remove all influence from every country of a region or sub-region."""
    for c in Game.countries():
        if c["region"] == region or region in c["subregions"]:
            g.set_influence(c["name"])


def card_location(g: Game, card: str) -> str:
    """Where a card is (draw, hand_usa, discard, removed, in_play, out, ...)."""
    from evenstar_env.engine.constants import LOC_NAMES

    return LOC_NAMES[int(g.state.card_loc[g.content.card_by_name[card]])]


def legal_cards(g: Game) -> set[str]:
    return names(g, "card", [c["name"] for c in Game.cards() if c["kind"] != "history"])


def ops_shown(g: Game, card: str) -> int:
    """The ops `card` would be played with now (on a copy)."""
    h = g.clone()
    h.step(h.action_id("card", card))
    assert h.decision.kind == "mode"
    return h.decision.context["ops"]


def countries_of(*regions: str) -> set[str]:
    """The countries of regions or sub-regions."""
    return {c["name"] for c in Game.countries()
            if c["region"] in regions or set(c["subregions"]) & set(regions)}


def answer(g: Game, *choices) -> None:
    """Answer the pending decisions in order: a country name, or a (group, which) pair."""
    for ch in choices:
        if isinstance(ch, tuple):
            do(g, *ch)
        else:
            assert g.decision.kind in ("influence", "place", "realign", "trade"), g.decision
            do(g, "country", ch)


def board_after_event(g: Game, card: str, *choices) -> dict:
    """Play `card` as an event, answer `choices`, return what changed on the board."""
    before = snapshot(g)
    play(g, card, "event")
    answer(g, *choices)
    return changes(g, before)


def history_base_game(diplomacy: int = 3) -> Game:
    """A quiet game (turn 1, US card choice) with known tracks and reserves, for
    resolving history cards."""
    g = quiet_round("usa")
    for t, v in (("social_usa", 8), ("economy_usa", 8), ("social_china", 6),
                 ("economy_china", 6), ("tech_usa", 0), ("tech_china", 0), ("russia", 0),
                 ("diplomacy", diplomacy), ("regional_security", 3)):
        g.set_track(t, v)
    g.set_reserves("usa", 3)
    g.set_reserves("china", 3)
    return g


def resolve(g: Game, hist_id: str, die: int, picks=(), chooser: str | None = None) -> dict:
    """Resolve `hist_id` with die `die` (no modifiers) and the influence `picks`;
    check the picks are asked of `chooser`; return the board changes."""
    before = snapshot(g)
    g.force_dice([die])
    run_history(g, hist_id)
    for country in picks:
        assert g.decision.kind == "influence", g.decision
        if chooser is not None:
            assert g.decision.player == chooser
        do(g, "country", country)
    assert g.decision.kind == "card" and g.decision.player == "usa"  # back where we were
    assert g.state.hist_loc[g.content.hist_by_id[hist_id]] == H_DONE
    return changes(g, before)


def play_option(g: Game, card: str, chooser: str, option: int) -> None:
    """Play `card` as an event and pick `option`, which `chooser` must be asked for."""
    play(g, card, "event")
    assert g.decision.kind == "option" and g.decision.player == chooser, g.decision
    do(g, "option", option)


def resolve_with_modifiers(g: Game, hist_id: str, die: int, us_mod: str, cn_mod: str) -> dict:
    """Resolve `hist_id` with modifier cards (asked US first, then China) and die `die`;
    return the board changes."""
    before = snapshot(g)
    g.force_dice([die])
    run_history(g, hist_id, mods=True)
    assert g.decision.kind == "modifier" and g.decision.player == "usa"
    do(g, "mod", us_mod)
    assert g.decision.kind == "modifier" and g.decision.player == "china"
    do(g, "mod", cn_mod)
    return changes(g, before)


def check_outcome_choices(g: Game, hist_id: str, die: int, pool: set | None, picks) -> None:
    """When an outcome asks for picks, they are offered exactly in `pool` (on a copy)."""
    if pool is not None and picks:
        g2 = g.clone()
        g2.force_dice([die])
        run_history(g2, hist_id)
        assert legal_countries(g2) == pool


def same_info(a: dict[str, Any], b: dict[str, Any], where: str) -> None:
    """Two vector infos hold the same keys, masks and, where masked, values."""
    assert set(a) == set(b), f"{where}: keys {sorted(set(a) ^ set(b))}"
    for key, value in a.items():
        if key.startswith("_"):
            continue
        if isinstance(value, dict):
            same_info(value, b[key], f"{where}/{key}")
            continue
        has = a[f"_{key}"]
        assert np.array_equal(has, b[f"_{key}"]), f"{where}: mask of {key}"
        assert value.dtype == b[key].dtype, f"{where}: dtype of {key}"
        for i in np.flatnonzero(has):
            assert np.array_equal(value[i], b[key][i]), f"{where}: {key}[{i}]"


def sigkill_when(args: list[str], ready: Callable[[], bool], cwd: Path,
                 timeout: float = 120) -> None:
    """Start `args`, SIGKILL it as soon as `ready()` holds, and wait for it to die
    (fails if it ends first or nothing is ready within `timeout` seconds)."""
    proc = subprocess.Popen(args, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + timeout
        while not ready():
            assert proc.poll() is None, proc.stderr.read().decode()
            assert time.monotonic() < deadline, "not ready in time"
            time.sleep(0.05)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(30)
    finally:
        if proc.poll() is None:
            proc.kill()
