"""Play whole games between agents on the rules engine."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from agents import Agent
from evenstar_env import Game
from evenstar_env.content import ContentSpec, as_content, content_id


@dataclass
class GameRecord:
    """What is needed to replay a game and to count its result."""

    seed: int
    agents: dict[str, str]
    actions: list[int] = field(default_factory=list)
    winner: str | None = None
    reason: str = ""
    turn: int = 0
    vp: dict[str, int] = field(default_factory=dict)
    # The content it was played with: its snapshot is content/<content_id>.json beside
    # the record (None: a record from before snapshots, played on the shipped content).
    content_id: str | None = None


def play_game(seed: int, agents: Mapping[str, Agent], max_decisions: int = 50_000,
              content: ContentSpec = None) -> GameRecord:
    """One game from `seed` on `content` (default: the shipped one); `agents` maps "usa"
    and "china" to agents."""
    c = as_content(content)
    g = Game(seed, content=c)
    rec = GameRecord(seed, {side: a.name for side, a in agents.items()},
                     content_id=content_id(c))
    while not g.is_over:
        a = agents[g.current_player].act(None, g.action_mask(), g)
        g.step(a)
        rec.actions.append(a)
        if len(rec.actions) > max_decisions:
            raise RuntimeError(f"game {seed} exceeded {max_decisions} decisions")
    rec.winner, rec.reason = g.result
    rec.turn, rec.vp = g.turn, g.vp
    return rec
