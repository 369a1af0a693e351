"""The per-seat JSON view of a game (the boardgame.io ``playerView``): what a seat may know.

A seat sees the public board and record, its own hand, the opponent's cards it was shown
(R20), and the options of a decision it must take.  It never sees the opponent's hand, the
draw pile's order, a secret headline or modifier choice before both are revealed (4.6.F,
R16), or the seed.  ``reveal=True`` (a finished game, a replay) shows both hands.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from evenstar_env import Game
from evenstar_env.content import Content, content_id
from evenstar_env.engine.board import controllers, score_all
from evenstar_env.engine.constants import (
    C_ANTI_US,
    C_CHINA,
    C_USA,
    CONTROLLER_NAMES,
    DISCARD,
    DRAW,
    H_DONE,
    HAND,
    HEADLINE,
    IN_PLAY,
    M_HIST_DRAWN,
    M_MOD,
    MODES,
    MODIFIERS,
    PLAYING,
    REMOVED,
    SIDES,
    TRACK_NAMES,
)
from evenstar_env.events import annotate

from . import zh

SEATS = SIDES
CARD_PLAY_KINDS = ("card", "headline")  # card options that play the card (its event may fire)


def other(seat: str) -> str:
    return SEATS[1 - SEATS.index(seat)]


# ------------------------------------------------------------------ the log
def log_size(game: Game) -> int:
    """How many records the game's event stream has so far (docs/events.md)."""
    return len(game._event_tuples() or ())


def log_entries(game: Game, viewer: str | None, start: int = 0) -> tuple[list[dict], int]:
    """The log from record `start` on as `viewer` ("usa", "china", None: a spectator of a
    running game, "all": everything) may read it, and the number of records in all.

    The one place the log is built: the engine's event stream filtered for the viewer
    (`Game.events`: the opponent's draws and secret choices redacted), each record with
    "text" and "text_zh" (its English and Chinese rendering, dice arithmetic and cause
    included) and "countries" (the ids it touches)."""
    total = log_size(game)
    return annotate(game.events(viewer, since=min(start, total)), game.content), total


# ------------------------------------------------------------------ regions
def region_panels(c: Content, s: Any) -> list[dict[str, Any]]:
    """Per region: each side's presence/domination/control (10.1, R18: AU lowers the US
    counts) and what scoring it now would give; sub-regions with their score only."""
    ctrl = controllers(c, s)
    scores = score_all(c, s, ctrl)
    us, cn, au = ctrl == C_USA, ctrl == C_CHINA, ctrl == C_ANTI_US
    P, bg = c.region_matrix, c.bg
    counts = {"usa": (np.maximum(P @ (us & bg) - P @ (au & bg), 0),
                      np.maximum(P @ (us & ~bg) - P @ (au & ~bg), 0)),
              "china": (P @ (cn & bg), P @ (cn & ~bg))}
    panels = []
    for r, name in enumerate(c.region_names):
        panel: dict[str, Any] = {"name": name, "kind": "region"}
        for side in SEATS:
            mb, mn = int(counts[side][0][r]), int(counts[side][1][r])
            ob, on = (int(x[r]) for x in counts[other(side)])
            panel[side] = {"battlegrounds": mb, "others": mn, "presence": mb + mn >= 1,
                           "domination": mb > ob and (mn >= 1 or on == 0),
                           "control": mb > ob and mn > on}
        panel["score_now"] = {"usa": int(scores[r, 0]), "china": int(scores[r, 1])}
        panels.append(panel)
    for k, name in enumerate(c.subregion_names, len(c.region_names)):
        panels.append({"name": name, "kind": "subregion",
                       "score_now": {"usa": int(scores[k, 0]), "china": int(scores[k, 1])}})
    return panels


# ------------------------------------------------------------------ decisions
def decision_view(game: Game, seat: str | None, reveal: bool) -> dict[str, Any] | None:
    """The pending decision; its options only for `seat` when it is the one to decide."""
    d = game.decision
    if d is None:
        return None
    out: dict[str, Any] = {"player": d.player, "kind": d.kind, "prompt": d.text,
                           "prompt_zh": zh.prompt(game),
                           "ctx": {k: int(v) if isinstance(v, (int, np.integer)) else v
                                   for k, v in d.context.items()}}
    if seat != d.player and not reveal:
        out["options"] = []
        return out
    out["options"] = [_option(game, d, int(a)) for a in d.legal]
    return out


def _option(game: Game, d: Any, a: int) -> dict[str, Any]:
    group, index = game.action_group(a)
    c = game.content
    war = False
    if group == "card" and d.kind in CARD_PLAY_KINDS:
        war = game.event_risks_total_war(c.cards[index].name, d.player)
    elif group == "mode" and d.kind == "mode" and d.context.get("card", -1) >= 0:
        card = c.cards[d.context["card"]]
        # The event happens in "event" mode, and whatever the mode for an opponent's card.
        if MODES[index] == "event" or card.side not in (d.player, "neutral"):
            war = game.event_risks_total_war(card.name, d.player)
    return {"action": a, "group": group, "index": int(index),
            "label": game.describe_action(a),
            "label_zh": zh.label(game, d.kind, d.context, d.player, a), "total_war": bool(war)}


# ------------------------------------------------------------------ the view
def _cards_at(s: Any, loc: int) -> list[int]:
    return [int(i) for i in np.flatnonzero(s.card_loc == loc)]


def _headlines(game: Game, seat: str | None, reveal: bool) -> dict[str, int | None]:
    s = game.state
    pend = s.pending
    secret = pend is not None and pend[2] == "headline"  # 4.6.F: shown together
    out: dict[str, int | None] = {}
    for p, side in enumerate(SEATS):
        cards = _cards_at(s, HEADLINE[p])
        out[side] = cards[0] if cards and (reveal or not secret or side == seat) else None
    return out


def _history(game: Game, seat: str | None, reveal: bool) -> dict[str, Any]:
    """The turn's face-up history cards (R23), the pending one with its four outcomes and
    the modifier cards while they are chosen (own pick only, R16)."""
    s, c = game.state, game.content
    drawn = {side: (int(s.misc[M_HIST_DRAWN + p]) - 1 if s.misc[M_HIST_DRAWN + p] else None)
             for p, side in enumerate(SEATS)}
    out: dict[str, Any] = {"drawn": drawn, "done": [int(h) for h in
                                                     np.flatnonzero(s.hist_loc == H_DONE)],
                           "pending": None}
    pend = s.pending
    if pend is not None and pend[2] == "modifier":
        h = int(pend[4]["history"])
        costs = c.rules.modifier_costs
        picks = {}
        for p, side in enumerate(SEATS):
            chosen = pend[1] != p and (p == 0)  # the US chooses first (R16)
            if chosen and (side == seat or reveal):
                picks[side] = MODIFIERS[s.misc[M_MOD + p]][0]
        out["pending"] = {
            "id": h, "name": c.history[h].name, "owner": c.history[h].side,
            "outcomes": [{"rolls": rolls, "text": o.text, "text_zh": o.text_zh}
                         for rolls, o in zip(("<=1", "2-3", "4-5", ">=6"),
                                             c.history[h].outcomes, strict=True)],
            "modifiers": [{"name": k, "value": v, "cost": costs[k]} for k, v in MODIFIERS],
            "picks": picks}
    return out


def game_view(game: Game, *, seat: str | None, reveal: bool = False, log_from: int = 0,
              log: tuple[list[dict], int] | None = None) -> dict[str, Any]:
    """The board as `seat` ("usa", "china" or None for a spectator) may see it, with its
    log from entry `log_from` on (`log`: entries and total given by the caller, a replay)."""
    c, s = game.content, game.state
    ctrl = controllers(c, s)
    own = SEATS.index(seat) if seat in SEATS else None
    hands = {side: _cards_at(s, HAND[p]) for p, side in enumerate(SEATS)}
    view: dict[str, Any] = {
        "seat": seat, "over": game.is_over, "content_id": content_id(c),
        "result": (None if game.result is None else
                   {"winner": game.result.winner, "reason": game.result.reason}),
        "turn": int(game.turn), "era": _era(game), "phase": game.phase,
        "round": int(game.round), "vp": game.vp, "vp_net": game.vp["usa"] - game.vp["china"],
        "reserves": game.reserves,
        "tracks": {name: int(s.tracks[k]) for k, name in enumerate(TRACK_NAMES)},
        "influence": {"usa": np.maximum(s.inf_us, 0).tolist(), "china": s.inf_cn.tolist(),
                      "anti_us": np.maximum(-s.inf_us, 0).tolist()},
        "control": [CONTROLLER_NAMES[int(k)] for k in ctrl],
        "non_realignable": [int(i) for i in np.flatnonzero(s.non_realignable)],
        "regions": region_panels(c, s),
        "hand": hands[seat] if own is not None else [],
        "hand_sizes": {side: len(h) for side, h in hands.items()},
        "opponent_known": ([int(i) for i in np.flatnonzero(
            s.revealed[1 - own] & (s.card_loc == HAND[1 - own]))] if own is not None else []),
        "hands": hands if reveal else None,
        "draw_pile": int(np.count_nonzero(s.card_loc == DRAW)),
        "discard": _cards_at(s, DISCARD), "removed": _cards_at(s, REMOVED),
        "in_play": _cards_at(s, IN_PLAY), "playing": _cards_at(s, PLAYING),
        "headlines": _headlines(game, seat, reveal),
        "history": _history(game, seat, reveal),
        "decision": decision_view(game, seat, reveal),
    }
    if log is None:
        log = log_entries(game, "all" if reveal else seat, max(0, log_from))
    view["log"], view["log_total"] = log
    return view


def _era(game: Game) -> str:
    r = game.content.rules
    turn = game.turn
    return max((e for e, t in r.era_turns.items() if t <= turn), key=lambda e: r.era_turns[e],
               default="early")


# ------------------------------------------------------------------ static content
def content_json(content: Content, agents: list[str], space: Any) -> dict[str, Any]:
    """What the client needs to draw: map (with the drawing positions of
    data/map_layout.toml where the content has them), cards, history cards, tracks,
    action offsets, the agent specs offered."""
    c = content
    layout = getattr(c.raw, "layout", None)
    places = layout.countries if layout is not None else {}
    countries = []
    for i, k in enumerate(c.countries):
        pos = places.get(k.name)
        countries.append({"id": i, "name": k.name, "name_zh": k.zh, "region": k.region,
                          "subregions": list(k.subregions), "stability": k.stability,
                          "battleground": k.battleground, "non_realignable": k.non_realignable,
                          "x": pos.x if pos else None, "y": pos.y if pos else None,
                          "adj": [int(j) for j in c.neighbours[i]],
                          "adj_superpower": [side for p, side in enumerate(SEATS)
                                             if c.adj_sp[p][i]]})
    m = c.raw.map
    regions = [{"name": r.name, "name_zh": r.zh, "kind": "region", "presence": r.presence,
                "domination": r.domination, "control": r.control} for r in m.regions] + [
        {"name": r.name, "name_zh": r.zh, "kind": "subregion"} for r in m.subregions]
    cards = [{"id": i, "code": k.id, "name": k.name, "name_zh": k.zh, "side": k.side,
              "ops": k.ops, "era": k.era, "text": k.text, "text_zh": k.text_zh,
              "scoring": k.kind == "scoring", "removed_after_event": k.removed,
              "persistent": k.persistent is not None} for i, k in enumerate(c.cards)]
    history = [{"id": i, "code": h.id, "name": h.name, "name_zh": h.zh, "side": h.side,
                "era": h.era, "outcomes": [{"text": o.text, "text_zh": o.text_zh}
                                           for o in h.outcomes]}
               for i, h in enumerate(c.history)]
    r = c.rules
    tracks = {"social_usa": [1, r.social_max], "social_china": [1, r.social_max],
              "economy_usa": [1, r.economy_max], "economy_china": [1, r.economy_max],
              "diplomacy": [1, 3], "regional_security": [1, 3],
              "russia": [0, len(c.russia_boxes)], "tech_usa": [0, len(c.tech_boxes[0])],
              "tech_china": [0, len(c.tech_boxes[1])]}
    offsets = {k: int(getattr(space, k)) for k in
               ("card0", "country0", "mode0", "order0", "mod0", "spend0", "yes", "no",
                "option0", "done", "n")}
    return {"content_id": content_id(c), "countries": countries, "regions": regions,
            "cards": cards, "history": history,
            "tracks": tracks, "actions": offsets, "modes": list(MODES),
            "modifiers": [{"name": k, "value": v, "cost": r.modifier_costs[k]}
                          for k, v in MODIFIERS],
            "agents": agents, "turns": r.turns, "action_rounds": r.action_rounds,
            "layout": None if layout is None else layout.model_dump(exclude={"countries"})}
