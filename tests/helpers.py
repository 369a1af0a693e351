"""Scenario helpers for tests: reach a decision, then script actions by name."""

from __future__ import annotations

from evenstar_env import Game


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


def play(g: Game, card: str, mode: str) -> None:
    """Play `card` from hand in `mode` (the pending decision must be the card choice)."""
    g.step(g.action_id("card", card))
    g.step(g.action_id("mode", mode))


def do(g: Game, group: str, which: str | int | None = None) -> None:
    g.step(g.action_id(group, which))
