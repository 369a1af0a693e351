"""Effect primitives of the card vocabulary (docs/content.md).

Every effect runs as an ``("eff", effect_id, executor)`` frame; effects that
need a choice push a frame of their own that asks the right player.
"""

from __future__ import annotations

import numpy as np

from ..events import CAUSE as CA
from ..events import CODE as EV
from ..events import NEXT_CARD
from . import board
from .constants import (
    C_ANTI_US,
    C_CHINA,
    C_USA,
    DISCARD,
    DRAW,
    HAND,
    IN_PLAY,
    M_NEXT_BOTH,
    M_NEXT_NO_EVENT,
    M_NEXT_OPS,
    M_RW_STATE,
    N_OPTIONS,
    REMOVED,
    RW_NONE,
    RW_WAITING,
    SECURITY,
    USA,
)
from .machine import EFFECTS, Machine, effect, handler, rel_side, resume, track_index
from .rng import DECK


@handler("eff")
def run_effect(m: Machine, f: tuple) -> None:
    eff = m.c.effects[f[1]]
    EFFECTS[eff.op](m, eff, f[2])


# ----------------------------------------------------------- influence


def _start_pick(m: Machine, eff, executor: int, eid: int) -> None:
    kind = board.kind_code(eff.kind, executor)
    mask = board.select(m.c, m.s, eff.where, executor)
    if eff.op == "reduce_influence":
        mask = mask & board.has_kind(m.s, kind)  # only where that influence is, at the start
    cands = tuple(np.flatnonzero(mask).tolist())
    m.s.stack.append(("pick", eid, executor, kind, eff.points, cands, ()))


@effect("add_influence")
def _add(m: Machine, eff, executor: int) -> None:
    _start_pick(m, eff, executor, m.c.eid(eff))


@effect("reduce_influence")
def _reduce(m: Machine, eff, executor: int) -> None:
    _start_pick(m, eff, executor, m.c.eid(eff))


def _chooser(eff, kind: str, executor: int) -> int:
    if eff.chooser is not None:
        return rel_side({"executor": "self"}.get(eff.chooser, eff.chooser), executor)
    owner = board.kind_owner(kind)
    return owner if eff.op == "add_influence" else 1 - owner  # R16, R17


def _pick_legal(m: Machine, f: tuple) -> list[int]:
    _, eid, _executor, kind, _left, cands, chosen = f
    eff = m.c.effects[eid]
    reducing = eff.op == "reduce_influence"
    cap = eff.per_country
    distinct = set(chosen)
    full = eff.max_countries is not None and len(distinct) >= eff.max_countries
    legal = []
    for i in cands:
        if full and i not in distinct:
            continue
        if cap is not None and (i in distinct if eff.lump else chosen.count(i) >= cap):
            continue
        # R1, 2.1.8.6: reducing US past zero places AU; CN and AU stop at zero.
        if reducing and kind != "usa" and board.amount(m.s, i, kind) <= 0:
            continue
        legal.append(i)
    return legal


@handler("pick")
def _pick(m: Machine, f: tuple) -> None:
    legal = _pick_legal(m, f)
    if not legal:
        return  # nothing left to place or reduce: the effect ends (docs/content.md)
    eff = m.c.effects[f[1]]
    who = _chooser(eff, f[3], f[2])
    verb = "add" if eff.op == "add_influence" else "reduce"
    m.ask(f, who, "influence", [m.space.country0 + i for i in legal],
          {"verb": verb, "kind": f[3], "left": f[4], "eff": f[1]})


@resume("pick")
def _pick_resume(m: Machine, f: tuple, a: int) -> None:
    _, eid, executor, kind, left, cands, chosen = f
    eff = m.c.effects[eid]
    i = a - m.space.country0
    pts = min(eff.per_country, left) if eff.lump and eff.per_country else 1
    m.influence(i, kind, pts if eff.op == "add_influence" else -pts, CA["effect"], eid)
    if left - pts > 0:
        m.s.stack.append(("pick", eid, executor, kind, left - pts, cands, chosen + (i,)))


@effect("remove_all_influence")
def _remove_all(m: Machine, eff, executor: int) -> None:
    kind = board.kind_code(eff.kind, executor)
    eid = m.c.eid(eff)
    for i in np.flatnonzero(board.select(m.c, m.s, eff.where, executor)):
        m.remove_influence(int(i), kind, CA["effect"], eid)


@effect("each_country")
def _each(m: Machine, eff, executor: int) -> None:
    kind = board.kind_code(eff.kind, executor)
    eid = m.c.eid(eff)
    for i in np.flatnonzero(board.select(m.c, m.s, eff.where, executor)):
        m.influence(int(i), kind, eff.points, CA["effect"], eid)


# ----------------------------------------------------------- numbers


@effect("vp")
def _vp(m: Machine, eff, executor: int) -> None:
    p = rel_side(eff.side, executor)
    m.add_vp(p, eff.amount, None, CA["effect"], m.c.eid(eff))


@effect("reserves")
def _reserves(m: Machine, eff, executor: int) -> None:
    p = rel_side(eff.side, executor)
    m.set_reserves(p, max(int(m.s.reserves[p]) + eff.amount, 0), CA["effect"], m.c.eid(eff))


@effect("track")
def _track(m: Machine, eff, executor: int) -> None:
    side = None if eff.side is None else rel_side(eff.side, executor)
    m.move_track(track_index(eff.track, side), eff.delta, CA["effect"], m.c.eid(eff))


# ----------------------------------------------------------- cards


def draw_card(m: Machine, p: int) -> bool:
    """Draw a random card of the draw pile into p's hand; reshuffle discards if empty (4.4)."""
    return draw_cards(m, p, 1) == 1


def draw_cards(m: Machine, p: int, k: int) -> int:
    """Draw up to `k` cards one by one as `draw_card` does; the number drawn."""
    s = m.s
    pile: list[int] = []
    drawn = 0
    while drawn < k:
        if not pile:
            pile = np.flatnonzero(s.card_loc == DRAW).tolist()
            if not pile:
                back = s.card_loc == DISCARD
                s.card_loc[back] = DRAW
                # A card shown in a hand (R20) and reshuffled is no longer known to be there:
                # whoever draws it again draws it in secret.
                s.revealed[:, back] = False
                pile = np.flatnonzero(s.card_loc == DRAW).tolist()
                if pile:
                    m.ev(EV["reshuffle"], len(pile))
                if not pile:
                    break
        # The pile stays in index order, as a fresh flatnonzero would give it.
        card = pile.pop(m.below(len(pile), DECK))
        s.card_loc[card] = HAND[p]
        m.ev(EV["draw"], p, card)
        if m.trace is not None:
            m.trace.append(("draw", card))
        drawn += 1
    return drawn


@effect("draw")
def _draw(m: Machine, eff, executor: int) -> None:
    p = rel_side(eff.side, executor)
    for _ in range(eff.count):
        draw_card(m, p)


@effect("discard")
def _discard(m: Machine, eff, executor: int) -> None:
    p = rel_side(eff.side, executor)
    m.s.stack.append(("discard", m.c.eid(eff), executor, p, eff.count))


def _discardable(m: Machine, p: int, min_ops: int) -> list[int]:
    return [i for i in m.hand(p) if m.c.card_ops[i] >= min_ops]


@handler("discard")
def _discard_pick(m: Machine, f: tuple) -> None:
    _, eid, executor, p, left = f
    eff = m.c.effects[eid]
    cards = _discardable(m, p, eff.min_ops)
    if not cards or left <= 0:
        return
    if eff.random:
        card = cards[m.below(len(cards))]
        _do_discard(m, f, card)
        return
    who = p if eff.chooser is None else _chooser(eff, "", executor)
    m.ask(f, who, "discard", [m.space.card0 + i for i in cards], {"side": p})


def _do_discard(m: Machine, f: tuple, card: int) -> None:
    m.s.card_loc[card] = DISCARD  # 5.4: a discarded card's event does not happen
    m.ev(EV["discard"], f[3], card, CA["effect"], f[1])
    if f[4] > 1:
        m.s.stack.append(f[:4] + (f[4] - 1,))


@resume("discard")
def _discard_resume(m: Machine, f: tuple, a: int) -> None:
    _do_discard(m, f, a - m.space.card0)


@effect("reveal_hand")
def _reveal(m: Machine, eff, executor: int) -> None:
    p = rel_side(eff.side, executor)
    m.s.revealed[p] = m.s.card_loc == HAND[p]  # R20: a snapshot of that moment
    for card in m.hand(p):
        m.ev(EV["reveal"], p, card)


@effect("next_card")
def _next(m: Machine, eff, executor: int) -> None:
    p = rel_side(eff.side, executor)
    slot = {"ops_plus_1": M_NEXT_OPS, "no_event": M_NEXT_NO_EVENT,
            "event_and_ops": M_NEXT_BOTH}[eff.effect]
    m.s.misc[slot + p] = 1
    m.ev(EV["next_card"], p, NEXT_CARD.index(eff.effect))


@effect("cancel")
def _cancel(m: Machine, eff, executor: int) -> None:
    i = m.c.card_by_id[eff.card]
    if m.s.card_loc[i] == IN_PLAY:
        m.s.card_loc[i] = REMOVED  # cancelled: it leaves the game (docs/rules.md 2.1)
        m.ev(EV["cancel"], i)


@effect("score")
def _score(m: Machine, eff, executor: int) -> None:
    m.score(m.region_column(eff.region), CA["effect"], m.c.eid(eff))


# ----------------------------------------------------------- map flags


@effect("non_realignable")
def _nonrealign(m: Machine, eff, executor: int) -> None:
    where = board.select(m.c, m.s, eff.where, executor)
    m.s.non_realignable[where] = eff.value
    m.ev(EV["non_realignable"], m.c.eid(eff), eff.value, np.count_nonzero(where))


# ----------------------------------------------------------- control flow


@effect("choice")
def _choice(m: Machine, eff, executor: int) -> None:
    m.s.stack.append(("choice", m.c.eid(eff), executor))


@handler("choice")
def _choice_ask(m: Machine, f: tuple) -> None:
    eff = m.c.effects[f[1]]
    ok = [j for j, o in enumerate(eff.options[:N_OPTIONS])
          if all(m.holds(cond, f[2]) for cond in o.requires)]
    if not ok:
        return
    who = rel_side({"executor": "self"}.get(eff.chooser, eff.chooser), f[2])
    m.ask(f, who, "option", [m.space.option0 + j for j in ok], {"eff": f[1]})


@resume("choice")
def _choice_resume(m: Machine, f: tuple, a: int) -> None:
    option = m.c.effects[f[1]].options[a - m.space.option0]
    m.ev(EV["option"], f[2], f[1], a - m.space.option0)
    m.push_effects(m.c.eids(option.effects), f[2])


@effect("roll")
def _roll(m: Machine, eff, executor: int) -> None:
    p = rel_side(eff.side, executor)
    die = m.roll()
    per = 0
    if eff.modifier_per is not None:
        per = int(board.select(m.c, m.s, eff.modifier_per, executor).sum())
    total = die + eff.modifier + per
    k = next((k for k, o in enumerate(eff.outcomes) if total <= o.max), -1)
    m.ev(EV["roll"], p, m.c.eid(eff), die, eff.modifier, per, total, k)
    if k >= 0:
        m.push_effects(m.c.eids(eff.outcomes[k].effects), executor)


@effect("if")
def _if(m: Machine, eff, executor: int) -> None:
    ok = all(m.holds(cond, executor) for cond in eff.conditions)
    m.push_effects(m.c.eids(eff.then if ok else eff.otherwise), executor)


@effect("history_event")
def _history_event(m: Machine, eff, executor: int) -> None:
    m.s.stack.append(("history", m.c.hist_by_id[eff.card], 0))


@effect("ops_action")
def _ops_action(m: Machine, eff, executor: int) -> None:
    from .play import ops_action_frame  # play imports effects; resolved at call time

    p = rel_side(eff.side, executor)
    allowed = None
    if eff.where is not None:
        allowed = tuple(int(i) for i in np.flatnonzero(board.select(m.c, m.s, eff.where, executor)))
    m.s.stack.append(ops_action_frame(m, p, eff.ops, eff.modes, allowed))


@effect("russia_ukraine_war")
def _rw(m: Machine, eff, executor: int) -> None:
    """8.1.5, R19: activate now, or once Ukraine stops being China-controlled."""
    if m.s.misc[M_RW_STATE] == RW_NONE:
        m.s.misc[M_RW_STATE] = RW_WAITING
        m.ev(EV["russia_ukraine"], 0, 0, 0)
        m.check_ukraine()


@effect("replace_influence")
def _replace(m: Machine, eff, executor: int) -> None:
    add_kind = board.kind_code(eff.add, executor)
    eid = m.c.eid(eff)
    for i in np.flatnonzero(board.select(m.c, m.s, eff.where, executor)):
        i = int(i)
        total = 0
        for kind in eff.remove:
            k = board.kind_code(kind, executor)
            total += board.amount(m.s, i, k)
            m.remove_influence(i, k, CA["effect"], eid)
        if total:
            m.influence(i, add_kind, total, CA["effect"], eid)


@effect("war")
def _war(m: Machine, eff, executor: int) -> None:
    """A war (7.5): die + own-controlled neighbours - enemy-controlled neighbours of the target."""
    c, s = m.c, m.s
    p = rel_side(eff.side, executor)
    t = c.index[eff.target]
    ctrl = board.controllers(c, s)[c.adj[t]]
    us = ctrl == C_USA
    china = (ctrl == C_CHINA) | (ctrl == C_ANTI_US)  # 2.1.8.3: AU control counts for China
    own, enemy = (us, china) if p == USA else (china, us)
    die = m.roll()
    total = die + int(own.sum()) - int(enemy.sum())
    won = total >= eff.win_on
    eid = c.eid(eff)
    m.ev(EV["war"], p, t, die, own.sum(), enemy.sum(), total, eff.win_on, won)
    m.move_track(SECURITY, -eff.security_loss, CA["effect"], eid)
    m.push_effects(c.eids(eff.success if won else eff.failure), executor)
