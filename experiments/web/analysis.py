"""Analysis for a seat (opt-in per game): the learned policy's top moves with their
probabilities and its value estimate, computed from that seat's observation only (the
vector its own agent would get: no opponent hand, no deck order, no seed)."""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import Executor
from typing import Any

import numpy as np

from evenstar_env import Game
from evenstar_env.env.observation import observe

from . import zh

TOP = 5
_lock = threading.Lock()
_nets: Any = None


def _network(content: Any) -> Any:
    """The shipped learned network for `content` (agents/checkpoints/learned, loaded once
    and carried to each deck on its board; ValueError on another board)."""
    global _nets
    with _lock:
        if _nets is None:
            from agents.learned_agent import DEFAULT_PATH
            from agents.networks import DeckNetworks

            _nets = DeckNetworks(DEFAULT_PATH, "the analysis")
        return _nets.for_content(content)


def _evaluate(obs: np.ndarray, mask: np.ndarray, content: Any
              ) -> tuple[np.ndarray | None, float]:
    import torch

    net = _network(content)
    x = torch.as_tensor(obs, dtype=torch.float32)[None]
    m = torch.as_tensor(mask if mask.any() else np.ones_like(mask))[None]
    with torch.no_grad():
        logits, value = net(x, m)
    probs = torch.softmax(logits[0].double(), -1).numpy() if mask.any() else None
    return probs, float(value[0])


async def analyse(game: Game, seat: str, pool: Executor) -> dict[str, Any]:
    """Top moves (when `seat` is to decide) and the value estimate for `seat` (-1..1)."""
    obs = observe(game, seat)  # on the loop's thread: the game does not move meanwhile
    to_move = not game.is_over and game.current_player == seat
    mask = game.action_mask() if to_move else np.zeros(game.num_actions, dtype=bool)
    labels = {int(a): game.describe_action(int(a)) for a in np.flatnonzero(mask)}
    d = game.decision
    labels_zh = {a: zh.label(game, d.kind, d.context, d.player, a) for a in labels}
    try:
        probs, value = await asyncio.get_running_loop().run_in_executor(
            pool, _evaluate, obs, mask, game.content)
    except ValueError as e:  # a board the network cannot read
        return {"seat": seat, "value": None, "moves": [], "note": str(e)}
    moves = []
    if probs is not None:
        best = sorted(labels, key=lambda a: -probs[a])[:TOP]
        moves = [{"action": a, "label": labels[a], "label_zh": labels_zh[a],
                  "prob": round(float(probs[a]), 4)} for a in best]
    return {"seat": seat, "value": round(value, 4), "moves": moves,
            "note": "learned policy (agents/checkpoints/learned), this seat's observation"}
