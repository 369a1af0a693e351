"""Action rounds: reserve spends, playing a card, and the five actions (5, 6, 7)."""

from __future__ import annotations

import numpy as np

from ..events import CAUSE as CA
from ..events import CODE as EV
from . import board
from .constants import (
    CHINA,
    DIPLOMACY,
    DISCARD,
    ECONOMY,
    HAND,
    IN_PLAY,
    M_IMPROVE_LEFT,
    M_NEXT_BOTH,
    M_NEXT_NO_EVENT,
    M_NEXT_OPS,
    M_PHASING,
    M_RESPONSIBLE,
    M_ROUND,
    M_RUSSIA_DEFERRED,
    M_TECH_DONE,
    M_TRADE_DONE,
    MODE_ECONOMY,
    MODE_EVENT,
    MODE_PLACE,
    MODE_REALIGN,
    MODE_SOCIAL,
    MODE_TECH,
    MODE_TRADE,
    NEUTRAL,
    PLAYING,
    REMOVED,
    RUSSIA,
    SECURITY,
    SIDES,
    SOCIAL,
    SPEND_DIPLOMACY,
    SPEND_RUSSIA,
    SPEND_TECH,
    SRC_EVENT,
    TECH,
    USA,
)
from .machine import Machine, handler, resume

MODE_NAMES = {"place": MODE_PLACE, "realign": MODE_REALIGN, "trade": MODE_TRADE}


# ----------------------------------------------------------- action round


@handler("round")
def _round(m: Machine, f: tuple) -> None:
    _, r, p = f
    s = m.s
    s.misc[M_ROUND] = r
    s.misc[M_PHASING] = p
    s.misc[M_RESPONSIBLE] = p
    if not (s.card_loc == HAND[p]).any():
        m.ev(EV["skip"], p)
        return
    m.ev(EV["round"], p)
    m.push(("spend", p), ("play", p))


def spend_options(m: Machine, p: int) -> list[int]:
    """Reserve spends open to the phasing player now (5.8, R11)."""
    s, c = m.s, m.c
    res = int(s.reserves[p])
    out = []
    if p == CHINA and res >= c.rules.russia_spend_price and s.tracks[RUSSIA] < m.track_max(RUSSIA):
        out.append(SPEND_RUSSIA)
    level = int(s.tracks[TECH + USA])
    if p == USA and level < m.track_max(TECH) and res >= c.tech_boxes[USA][level].price:
        out.append(SPEND_TECH)
    if res >= c.rules.diplomacy_spend_price and s.tracks[DIPLOMACY] < 3:
        out.append(SPEND_DIPLOMACY)
    return out


@handler("spend")
def _spend(m: Machine, f: tuple) -> None:
    opts = spend_options(m, f[1])
    if opts:
        sp = m.space
        m.ask(f, f[1], "spend", [sp.spend0 + o for o in opts] + [sp.done])


@resume("spend")
def _spend_resume(m: Machine, f: tuple, a: int) -> None:
    s, c, p = m.s, m.c, f[1]
    if a == m.space.done:
        return
    what = a - m.space.spend0
    m.s.stack.append(f)  # ask again after this spend
    if what == SPEND_RUSSIA:
        m.set_reserves(p, int(s.reserves[p]) - c.rules.russia_spend_price, CA["spend"], what)
        # R22: the marker moves now; the box's effect waits until the card play is over,
        # run by a frame beneath the "play" frame (after any box still waiting).
        if not s.misc[M_RUSSIA_DEFERRED]:
            s.stack.insert(len(s.stack) - 2, ("russia_deferred",))
        s.misc[M_RUSSIA_DEFERRED] += 1
        s.tracks[RUSSIA] += 1
        m.ev(EV["track"], RUSSIA, s.tracks[RUSSIA] - 1, s.tracks[RUSSIA], CA["spend"], what)
    elif what == SPEND_TECH:
        price = c.tech_boxes[USA][int(s.tracks[TECH])].price
        m.set_reserves(p, int(s.reserves[p]) - price, CA["spend"], what)
        m.move_track(TECH + USA, 1, CA["spend"], what)  # R11: at once, before the card play
    else:
        m.set_reserves(p, int(s.reserves[p]) - c.rules.diplomacy_spend_price, CA["spend"], what)
        m.move_track(DIPLOMACY, 1, CA["spend"], what)


@handler("russia_step")
def _russia_step(m: Machine, f: tuple) -> None:
    m.move_track(RUSSIA, 1, CA["russia_card"])


@handler("russia_deferred")
def _russia_deferred(m: Machine, f: tuple) -> None:
    """Resolve the lowest Russia box still waiting, then the next one (R22)."""
    s = m.s
    k = s.misc[M_RUSSIA_DEFERRED]
    if not k:
        return
    s.misc[M_RUSSIA_DEFERRED] = k - 1
    if k > 1:
        s.stack.append(f)
    level = int(s.tracks[RUSSIA]) - k + 1
    m.push_russia_boxes(level, level)


@handler("play")
def _play(m: Machine, f: tuple) -> None:
    hand = m.hand(f[1])
    if hand:
        m.ask(f, f[1], "card", [m.space.card0 + i for i in hand])


@resume("play")
def _play_resume(m: Machine, f: tuple, a: int) -> None:
    m.s.stack.append(("mode", f[1], a - m.space.card0))


def executor_of(m: Machine, card: int, p: int) -> int:
    """Who carries an event out: the card's side, or the player for a neutral card (5.2)."""
    side = int(m.c.card_side[card])
    return p if side == NEUTRAL else side


def risks_total_war(m: Machine, card: int, p: int) -> bool:
    """Whether `p` playing `card` now could start a total war they lose: its event can
    happen and its realignments or diplomacy losses can bring diplomacy to 1 (9.2.3, R7, R21)."""
    threat = int(m.c.card_diplomacy_threat[card])
    return (threat > 0 and int(m.s.tracks[DIPLOMACY]) - threat <= 1
            and m.can_happen(card, executor_of(m, card, p)))


def legal_modes(m: Machine, p: int, card: int, ops: int) -> list[int]:
    s, c = m.s, m.c
    if c.card_scoring[card]:
        return [MODE_EVENT]  # R4: scoring cards have no ops
    modes = []
    side = int(c.card_side[card])
    if side in (p, NEUTRAL) and m.can_happen(card, p):
        modes.append(MODE_EVENT)
    modes.append(MODE_PLACE)  # a superpower-linked country is always eligible (R3)
    if board.realign_targets(c, s, p).any():
        modes.append(MODE_REALIGN)
    printed = int(c.card_ops[card])
    if printed >= 2 and s.misc[M_IMPROVE_LEFT + p] > 0:  # 6.3.1: printed ops (R4, R8)
        if s.tracks[SOCIAL + p] < c.rules.social_max:
            modes.append(MODE_SOCIAL)
        if s.tracks[ECONOMY + p] < c.rules.economy_max:
            modes.append(MODE_ECONOMY)
    if ops >= 2 and not s.misc[M_TECH_DONE + p]:
        # Tech race needs a box left; sabotage needs China's social above 1.
        room = (s.tracks[TECH + CHINA] < m.track_max(TECH + CHINA) if p == CHINA
                else s.tracks[SOCIAL + CHINA] > 1)
        if room:
            modes.append(MODE_TECH)
    if not s.misc[M_TRADE_DONE + p] and board.trade_targets(c, s, p, ops).any():
        modes.append(MODE_TRADE)
    return modes


@handler("mode")
def _mode(m: Machine, f: tuple) -> None:
    _, p, card = f
    ops = m.modified_ops(card, p, m.next_plus(p))
    m.ask(f, p, "mode", [m.space.mode0 + x for x in legal_modes(m, p, card, ops)],
          {"card": card, "ops": ops})


@resume("mode")
def _mode_resume(m: Machine, f: tuple, a: int) -> None:
    _, p, card = f
    s, c = m.s, m.c
    mode = a - m.space.mode0
    scoring = bool(c.card_scoring[card])
    # R20: the US tech "next card" benefits apply to this play (scoring cards aside).
    plus = no_event = both = False
    if not scoring:
        plus, no_event, both = (bool(s.misc[k + p]) for k in (M_NEXT_OPS, M_NEXT_NO_EVENT,
                                                               M_NEXT_BOTH))
        for k in (M_NEXT_OPS, M_NEXT_NO_EVENT, M_NEXT_BOTH):
            s.misc[k + p] = 0
    ops = m.modified_ops(card, p, plus)
    s.card_loc[card] = PLAYING
    m.ev(EV["play"], p, card, mode, ops)
    tail: list[tuple] = [("card_done", card)]
    if c.cards[card].russia:
        tail.append(("russia_step",))  # 7.6, 5.2: the Russia step resolves last
    executor = executor_of(m, card, p)
    if mode == MODE_EVENT:
        first = [] if no_event else [("event", card, executor, p)]
        extra = [("ai_action", p, card, ops)] if both else []  # R25: may also take an action
        m.push(*first, *extra, *tail)
        return
    action = action_frame(m, p, card, mode, ops)
    if mode == MODE_TECH or no_event or not m.can_happen(card, executor):
        m.push(action, *tail)
    elif int(c.card_side[card]) == 1 - p:  # R5: an opponent's event happens
        m.push(("order", p, card, executor, action), *tail)
    elif both:  # R25: the US may also carry out the event of its own or a neutral card
        m.push(("ai_event", p, card, executor, action), *tail)
    else:
        m.push(action, *tail)


def action_frame(m: Machine, p: int, card: int, mode: int, ops: int) -> tuple:
    s = m.s
    if mode == MODE_PLACE:
        return ("place_start", p, ops, None)
    if mode == MODE_REALIGN:
        return ("realign", p, ops, None)
    if mode == MODE_TRADE:
        s.misc[M_TRADE_DONE + p] = 1
        return ("trade", p, ops, None)
    if mode == MODE_TECH:
        s.misc[M_TECH_DONE + p] = 1
        return ("tech", p, card)
    s.misc[M_IMPROVE_LEFT + p] -= 1
    return ("improve", p, SOCIAL if mode == MODE_SOCIAL else ECONOMY, int(m.c.card_ops[card]))


@handler("order")
def _order(m: Machine, f: tuple) -> None:
    sp = m.space
    m.ask(f, f[1], "order", (sp.order0, sp.order0 + 1), {"card": f[2]})


@resume("order")
def _order_resume(m: Machine, f: tuple, a: int) -> None:
    _, p, card, executor, action = f
    event = ("event", card, executor, p)
    if a == m.space.order0:
        m.push(event, action)
    else:
        m.push(action, event)


@handler("ai_event")
def _ai_event(m: Machine, f: tuple) -> None:
    """General AI (R25): the event too, before or after the action, or not at all."""
    sp = m.space
    m.ask(f, f[1], "ai_event", (sp.order0, sp.order0 + 1, sp.no), {"card": f[2]})


@resume("ai_event")
def _ai_event_resume(m: Machine, f: tuple, a: int) -> None:
    if a == m.space.no:
        m.s.stack.append(f[4])
    else:
        _order_resume(m, f, a)


@handler("ai_action")
def _ai_action(m: Machine, f: tuple) -> None:
    """General AI (R25): after the event, an action with the card's ops too, or not."""
    _, p, card, ops = f
    sp = m.space
    modes = [sp.mode0 + x for x in legal_modes(m, p, card, ops) if x not in (MODE_EVENT, MODE_TECH)]
    m.ask(f, p, "ai_action", modes + [sp.no], {"card": card, "ops": ops})


@resume("ai_action")
def _ai_action_resume(m: Machine, f: tuple, a: int) -> None:
    _, p, card, ops = f
    if a != m.space.no:
        m.s.stack.append(action_frame(m, p, card, a - m.space.mode0, ops))


@handler("event")
def _event(m: Machine, f: tuple) -> None:
    """Carry out a card's event (7.1); it may have become impossible meanwhile (5.2)."""
    _, card, executor, p = f
    s, c = m.s, m.c
    if not m.can_happen(card, executor):
        m.ev(EV["event_blocked"], card)
        return
    if c.cards[card].pay_discard is not None:
        s.stack.append(("pay", card, executor, p))
        return
    fire_event(m, card, executor)


def fire_event(m: Machine, card: int, executor: int) -> None:
    """The event happens: mark it, move a persistent or "*" card, run its effects."""
    s, c = m.s, m.c
    cd = c.cards[card]
    s.event_played[card] = True
    s.event_side[card] = executor
    if cd.persistent is not None:
        s.card_loc[card] = IN_PLAY
    elif cd.removed:
        s.card_loc[card] = REMOVED
    m.ev(EV["event"], card, executor, s.card_loc[card])
    m.push_effects(c.eids(cd.effects), executor, SRC_EVENT)


@handler("pay")
def _pay(m: Machine, f: tuple) -> None:
    """A pay-to-fire event (5.3): its owner discards another card of at least
    `pay_discard` printed ops. Played by the owner as an event, it must pay; fired by
    the opponent's play, the owner chooses to pay (the event happens) or not (NO: it
    does not happen, and a "*" card goes to the discards, 5.2)."""
    _, card, executor, p = f
    cards = [i for i in m.hand(executor) if m.c.card_ops[i] >= m.c.cards[card].pay_discard]
    legal = [m.space.card0 + i for i in cards] + ([m.space.no] if p != executor else [])
    if not cards:
        m.ev(EV["event_blocked"], card)
        return
    m.ask(f, executor, "discard", legal, {"side": executor, "card": card})


@resume("pay")
def _pay_resume(m: Machine, f: tuple, a: int) -> None:
    _, card, executor, _p = f
    if a == m.space.no:
        m.ev(EV["no_pay"], executor, card)
        return
    paid = a - m.space.card0
    m.s.card_loc[paid] = DISCARD  # 5.4: a discarded card's event does not happen
    m.ev(EV["discard"], executor, paid, CA["pay"], card)
    fire_event(m, card, executor)


@handler("card_done")
def _card_done(m: Machine, f: tuple) -> None:
    if m.s.card_loc[f[1]] == PLAYING:
        m.s.card_loc[f[1]] = DISCARD
        m.ev(EV["discard"], -1, f[1], CA["played"], -1)


# ----------------------------------------------------------- ops actions


def ops_action_frame(m: Machine, p: int, ops: int, modes: list[str],
                     allowed: tuple[int, ...] | None) -> tuple:
    """An event's grant of one action with `ops` (7.3.3), restricted to `allowed` countries."""
    ops = m.ops_for(ops, p)
    return ("ops_mode", p, ops, tuple(MODE_NAMES[x] for x in modes), allowed)


def _allowed_mask(m: Machine, allowed: tuple[int, ...] | None) -> np.ndarray:
    mask = np.ones(m.c.n, dtype=bool)
    if allowed is not None:
        mask[:] = False
        mask[list(allowed)] = True
    return mask


@handler("ops_mode")
def _ops_mode(m: Machine, f: tuple) -> None:
    _, p, ops, modes, allowed = f
    s, c = m.s, m.c
    mask = _allowed_mask(m, allowed)
    targets = {MODE_PLACE: lambda: board.placement_eligible(c, s, p),
               MODE_REALIGN: lambda: board.realign_targets(c, s, p),
               MODE_TRADE: lambda: board.trade_targets(c, s, p, ops)}
    ok = [mode for mode in modes if (targets[mode]() & mask).any()]
    if ok:
        m.ask(f, p, "granted", [m.space.mode0 + x for x in ok], {"ops": ops})


@resume("ops_mode")
def _ops_mode_resume(m: Machine, f: tuple, a: int) -> None:
    _, p, ops, _modes, allowed = f
    mode = a - m.space.mode0
    name = {MODE_PLACE: "place_start", MODE_REALIGN: "realign", MODE_TRADE: "trade"}[mode]
    m.s.stack.append((name, p, ops, allowed))


@handler("place_start")
def _place_start(m: Machine, f: tuple) -> None:
    _, p, ops, allowed = f
    elig = board.placement_eligible(m.c, m.s, p) & _allowed_mask(m, allowed)
    m.s.stack.append(("place", p, ops, tuple(np.flatnonzero(elig).tolist())))


@handler("place")
def _place(m: Machine, f: tuple) -> None:
    _, p, left, elig = f
    c0 = m.space.country0
    if left >= 2:  # no point costs more than 2 ops (6.1.2): every eligible country is legal
        legal = [c0 + i for i in elig]
    else:
        costs = board.placement_costs(m.c, m.s, p)
        legal = [c0 + i for i in elig if costs[i] == 1]
    if legal:  # 6.0: all ops are spent while a placement is possible
        m.ask(f, p, "place", legal, {"ops": left})


@resume("place")
def _place_resume(m: Machine, f: tuple, a: int) -> None:
    _, p, left, elig = f
    i = a - m.space.country0
    cost = board.placement_cost(m.c, m.s, p, i)  # 6.1.2: recomputed for every point
    m.influence(i, SIDES[p], 1, CA["place"], cost)
    if left - cost > 0:
        m.s.stack.append(("place", p, left - cost, elig))


@handler("realign")
def _realign(m: Machine, f: tuple) -> None:
    _, p, ops, allowed = f
    legal = np.flatnonzero(board.realign_targets(m.c, m.s, p) & _allowed_mask(m, allowed))
    if legal.size:
        m.ask(f, p, "realign", (legal + m.space.country0).tolist(), {"ops": ops})


@resume("realign")
def _realign_resume(m: Machine, f: tuple, a: int) -> None:
    realign(m, f[1], a - m.space.country0, f[2])


def realign(m: Machine, p: int, i: int, ops: int) -> None:
    """One realignment attempt and its consequences (6.2, 9.2.4, 9.2.5; R6, R7)."""
    s, c = m.s, m.c
    die = m.roll()
    mod = int(c.adj_sp[p, i]) - int(c.adj_sp[1 - p, i])
    result = ops + die + mod - (int(c.stab[i]) + 2)
    security_before = int(s.tracks[SECURITY])
    m.ev(EV["realign"], p, i, ops, die, mod, int(c.stab[i]) + 2, result)
    cause = CA["realign"]
    if result > 0:
        if p == USA:
            au = board.amount(s, i, "anti_us")
            take = min(au, result)
            m.influence(i, "usa", take, cause, i)  # removes AU (R1)
            rest = result - take
            cn = int(s.inf_cn[i])
            m.influence(i, "china", -min(cn, rest), cause, i)
            rest -= min(cn, rest)
            if rest:
                m.influence(i, "usa", rest, cause, i)
        else:
            m.influence(i, "anti_us", result, cause, i)  # removes US first, rest AU (6.2.6)
    us, cn, au = (board.amount(s, i, k) for k in ("usa", "china", "anti_us"))
    own, oth = (us, cn + au) if p == USA else (cn + au, us)
    bg = bool(c.bg[i])
    if own <= oth:
        m.move_track(SECURITY, -1, cause, i)
    dip = (own > oth and bg) or (p == CHINA and bg and au > 0) or security_before == 1
    if dip:
        m.move_track(DIPLOMACY, -1, cause, i)


@handler("improve")
def _improve(m: Machine, f: tuple) -> None:
    """Improve social or economy (6.3, R8)."""
    _, p, track, printed = f
    die = m.roll()
    need = m.c.rules.improve_success[min(printed, 4)]
    ok = die <= need
    m.ev(EV["improve"], p, track + p, printed, die, need, ok)
    if ok:
        m.move_track(track + p, 1, CA["improve"])


@handler("tech")
def _tech(m: Machine, f: tuple) -> None:
    """China's tech race (6.4, R9) or the US's sabotage (6.5, R9)."""
    _, p, card = f
    s, c = m.s, m.c
    die = m.roll()
    if p == CHINA:
        need = 3 if c.card_side[card] == USA else 4
        m.ev(EV["tech"], p, card, die, need, die <= need)
        if die <= need:
            m.move_track(TECH + CHINA, 1, CA["tech_race"], card)
    else:
        level = int(s.tracks[SOCIAL + CHINA])
        same_zone = c.zone("social", level) is c.zone("social", level - 1)
        need = 3 if same_zone else 2
        m.ev(EV["tech"], p, card, die, need, die <= need)
        if die <= need:
            m.move_track(SOCIAL + CHINA, -1, CA["sabotage"], card)
    s.card_loc[card] = DISCARD  # 6.4.3, 6.5.3: no event
    m.ev(EV["discard"], -1, card, CA["played"], -1)


@handler("trade")
def _trade(m: Machine, f: tuple) -> None:
    _, p, ops, allowed = f
    legal = np.flatnonzero(board.trade_targets(m.c, m.s, p, ops) & _allowed_mask(m, allowed))
    if legal.size:
        m.ask(f, p, "trade", (legal + m.space.country0).tolist(), {"ops": ops})


@resume("trade")
def _trade_resume(m: Machine, f: tuple, a: int) -> None:
    """Trade contest (6.6, R10): both roll d6 + economy - 1; the phasing player wins ties."""
    p, i = f[1], a - m.space.country0
    s = m.s
    die = m.roll()
    opp_die = m.roll()
    econ, opp_econ = int(s.tracks[ECONOMY + p]), int(s.tracks[ECONOMY + 1 - p])
    mine, theirs = die + econ - 1, opp_die + opp_econ - 1
    m.ev(EV["trade"], p, i, die, econ, opp_die, opp_econ, mine, theirs, mine >= theirs)
    if mine >= theirs:
        m.influence(i, SIDES[p], 3, CA["trade"], i)
