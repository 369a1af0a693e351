"""The turn sequence A-K (4.6, R13), the headline (R14) and history events (R16)."""

from __future__ import annotations

import numpy as np

from ..events import CAUSE as CA
from ..events import CODE as EV
from .constants import (
    CHINA,
    DIPLOMACY,
    DISCARD,
    DRAW,
    ECONOMY,
    H_DECK,
    H_DONE,
    H_DRAWN,
    H_OUT,
    HAND,
    HEADLINE,
    IN_PLAY,
    M_COLLAPSE,
    M_DISCARD_RIGHT,
    M_END_FLAG,
    M_HAND_SIZE,
    M_HEADLINE,
    M_HIST_DRAWN,
    M_IMPROVE_LEFT,
    M_MOD,
    M_PHASE,
    M_PHASING,
    M_RESPONSIBLE,
    M_ROUND,
    M_ROUND8,
    M_RW_ADDED,
    M_RW_K,
    M_RW_STATE,
    M_TECH_DONE,
    M_TRADE_DONE,
    M_TURN,
    MOD_COUNTER,
    MODIFIERS,
    OUT,
    P_ACTION,
    P_DEAL,
    P_ECONOMY,
    P_FINAL,
    P_HEADLINE,
    P_HISTORY,
    P_IMPROVE,
    P_RUSSIA_UKRAINE,
    P_SCORING,
    PLAYING,
    RW_ACTIVE,
    SECURITY,
    SIDES,
    SOCIAL,
    SRC_ECONOMY,
    SRC_EVENT,
    SRC_FINAL_ECONOMY,
    SRC_FINAL_SOCIAL,
    SRC_HISTORY,
    SRC_UKRAINE_WAR,
    USA,
)
from .effects import draw_cards
from .machine import Machine, handler, resume
from .play import executor_of

ERAS = ("early", "mid", "late")


@handler("turn")
def _turn(m: Machine, f: tuple) -> None:
    s, c = m.s, m.c
    turn = s.misc[M_TURN]
    for era_i, era in enumerate(ERAS):
        if era_i and turn == c.rules.era_turns[era]:
            # R12: new-era cards go into the draw pile, not the discards (4.5).
            s.card_loc[(c.card_era == era_i) & (s.card_loc == OUT)] = DRAW
            fresh = (c.hist_era == era_i) & (s.hist_loc == H_OUT)
            fresh &= np.array([sp is None for sp in c.hist_special])
            s.hist_loc[fresh] = H_DECK
            m.ev(EV["era"], era_i)
    m.ev(EV["turn"])
    m.push(("phase_a",), ("phase_b",), ("phase_c",), ("phase_d",), ("phase_e",),
           ("phase_f",), ("phase_g",), ("phase_h",), ("phase_i",), ("phase_j",))


@handler("phase_a")
def _phase_a(m: Machine, f: tuple) -> None:
    """A: diplomacy and regional security +1 each if below 3 (R13); persistent upkeep."""
    s, c = m.s, m.c
    s.misc[M_PHASE] = P_IMPROVE
    m.ev(EV["phase"], P_IMPROVE)
    m.move_track(DIPLOMACY, 1, CA["upkeep"])
    m.move_track(SECURITY, 1, CA["upkeep"])
    for i in c.persistent_cards:
        if s.card_loc[i] == IN_PLAY and c.cards[i].persistent.each_turn:
            m.push_effects(c.eids(c.cards[i].persistent.each_turn), int(s.event_side[i]),
                           SRC_EVENT)


@handler("phase_b")
def _phase_b(m: Machine, f: tuple) -> None:
    """B: this turn's Russia-Ukraine war requirement (8.1.5, R19)."""
    s = m.s
    s.misc[M_PHASE] = P_RUSSIA_UKRAINE
    m.ev(EV["phase"], P_RUSSIA_UKRAINE)
    if s.misc[M_RW_STATE] == RW_ACTIVE:
        s.misc[M_RW_K] += 1
        s.misc[M_RW_ADDED] = 0
        m.ev(EV["russia_ukraine"], 2, s.misc[M_RW_K], 0)


@handler("phase_c")
def _phase_c(m: Machine, f: tuple) -> None:
    """C: read social and economy levels for this turn (9.1.4, R8, R13)."""
    s, c = m.s, m.c
    for p in (USA, CHINA):
        zone = c.zone("social", int(s.tracks[SOCIAL + p]))
        s.misc[M_HAND_SIZE + p] = zone.hand
        s.misc[M_DISCARD_RIGHT + p] = int(zone.discard)
        s.misc[M_ROUND8 + 1 - p] = int(zone.opponent_round8)
        s.misc[M_IMPROVE_LEFT + p] = int(c.improve_attempts[int(s.tracks[ECONOMY + p])])
        s.misc[M_TECH_DONE + p] = 0
        s.misc[M_TRADE_DONE + p] = 0


@handler("phase_d")
def _phase_d(m: Machine, f: tuple) -> None:
    """D: history events (4.6.D, R16)."""
    s, c = m.s, m.c
    s.misc[M_PHASE] = P_HISTORY
    m.ev(EV["phase"], P_HISTORY)
    frames = []
    s.misc[M_HIST_DRAWN] = s.misc[M_HIST_DRAWN + 1] = 0
    if s.misc[M_TURN] == 1:
        turn1 = [i for i, sp in enumerate(c.hist_special) if sp == "turn1"]
        turn1.sort(key=lambda i: -int(c.hist_side[i]))  # [engine]: China's card first
        frames += [("history", i, 0) for i in turn1]
    frames.append(("history_draw",))
    m.push(*frames)


@handler("history_draw")
def _history_draw(m: Machine, f: tuple) -> None:
    """R23: both history cards are drawn face up before the first modifier choice; the
    US card resolves first, then China's."""
    s, c = m.s, m.c
    era = ERAS.index(_era(m))
    frames = []
    for p in (USA, CHINA):
        deck = np.flatnonzero((s.hist_loc == H_DECK) & (c.hist_side == p) & (c.hist_era == era))
        if deck.size:
            h = int(deck[m.below(deck.size)])
            s.hist_loc[h] = H_DRAWN
            s.misc[M_HIST_DRAWN + p] = h + 1
            m.ev(EV["history_draw"], p, h)
            frames.append(("history", h, 1))
    m.push(*frames)


def _era(m: Machine) -> str:
    turn = m.s.misc[M_TURN]
    return max((e for e in ERAS if m.c.rules.era_turns[e] <= turn),
               key=lambda e: m.c.rules.era_turns[e])


@handler("history")
def _history(m: Machine, f: tuple) -> None:
    _, h, mods = f
    owner = int(m.c.hist_side[h])
    m.s.misc[M_RESPONSIBLE] = owner  # R21: the card's owner in phase D
    m.ev(EV["history"], h, owner, mods)
    if mods:
        m.push(("modifier", h, USA), ("modifier", h, CHINA), ("history_roll", h, 1))
    else:
        m.s.stack.append(("history_roll", h, 0))


def modifier_cost(m: Machine, k: int) -> int:
    return m.c.rules.modifier_costs[MODIFIERS[k][0]]


@handler("modifier")
def _modifier(m: Machine, f: tuple) -> None:
    """Both choose a modifier card, US first; China's view hides the US choice (R16)."""
    p = f[2]
    res = int(m.s.reserves[p])
    legal = [m.space.mod0 + k for k in range(len(MODIFIERS)) if modifier_cost(m, k) <= res]
    m.ask(f, p, "modifier", legal, {"history": f[1]})


@resume("modifier")
def _modifier_resume(m: Machine, f: tuple, a: int) -> None:
    m.s.misc[M_MOD + f[2]] = a - m.space.mod0


@handler("history_roll")
def _history_roll(m: Machine, f: tuple) -> None:
    _, h, mods = f
    s, c = m.s, m.c
    owner = int(c.hist_side[h])
    total = 0
    picks = (-1, -1)
    if mods:
        picks = (s.misc[M_MOD], s.misc[M_MOD + 1])
        for p in (USA, CHINA):  # every played card is paid (R16)
            m.set_reserves(p, int(s.reserves[p]) - modifier_cost(m, picks[p]), CA["modifier"],
                           picks[p])
        for p in (USA, CHINA):
            if picks[1 - p] != MOD_COUNTER:
                total += MODIFIERS[picks[p]][1]
    die = m.roll()
    roll = die + total
    outcome = 0 if roll <= 1 else 1 if roll <= 3 else 2 if roll <= 5 else 3
    s.hist_loc[h] = H_DONE
    m.ev(EV["history_roll"], h, owner, picks[0], picks[1], total, die, roll, outcome)
    m.push_effects(c.eids(c.history[h].outcomes[outcome].effects), owner, SRC_HISTORY)


@handler("phase_e")
def _phase_e(m: Machine, f: tuple) -> None:
    """E: deal up to the hand size read in phase C (R13)."""
    s = m.s
    s.misc[M_PHASE] = P_DEAL
    m.ev(EV["phase"], P_DEAL)
    for p in (USA, CHINA):
        missing = s.misc[M_HAND_SIZE + p] - int(np.count_nonzero(s.card_loc == HAND[p]))
        if missing > 0:
            draw_cards(m, p, missing)


@handler("phase_f")
def _phase_f(m: Machine, f: tuple) -> None:
    m.s.misc[M_PHASE] = P_HEADLINE
    m.ev(EV["phase"], P_HEADLINE)
    m.push(("headline", USA), ("headline", CHINA), ("headline_resolve",))


@handler("headline")
def _headline(m: Machine, f: tuple) -> None:
    p = f[1]
    m.s.misc[M_HEADLINE + p] = -1
    hand = m.hand(p)
    if hand:
        m.ask(f, p, "headline", [m.space.card0 + i for i in hand])


@resume("headline")
def _headline_resume(m: Machine, f: tuple, a: int) -> None:
    card = a - m.space.card0
    m.s.misc[M_HEADLINE + f[1]] = card
    m.s.card_loc[card] = HEADLINE[f[1]]


@handler("headline_resolve")
def _headline_resolve(m: Machine, f: tuple) -> None:
    """Higher ops first (scoring cards 0), ties China first (R14)."""
    s = m.s
    picks = [(s.misc[M_HEADLINE + p], p) for p in (USA, CHINA) if s.misc[M_HEADLINE + p] >= 0]
    picks.sort(key=lambda cp: (-m.modified_ops(cp[0], cp[1]), -cp[1]))
    frames = []
    for card, p in picks:
        m.ev(EV["headline"], p, card, m.modified_ops(card, p))
        frames += [("headline_event", card, p), ("card_done", card)]
        if m.c.cards[card].russia:
            frames.append(("russia_step",))  # 7.6: whenever played, after its event (5.2)
    m.push(*frames)


@handler("headline_event")
def _headline_event(m: Machine, f: tuple) -> None:
    _, card, p = f
    s = m.s
    s.card_loc[card] = PLAYING
    s.misc[M_HEADLINE + p] = -1
    s.misc[M_RESPONSIBLE] = p  # R21: the player whose card caused it
    s.stack.append(("event", card, executor_of(m, card, p), p))


@handler("phase_g")
def _phase_g(m: Machine, f: tuple) -> None:
    s, c = m.s, m.c
    s.misc[M_PHASE] = P_ACTION
    m.ev(EV["phase"], P_ACTION)
    frames = [("round", r, p) for r in range(1, c.rules.action_rounds + 1) for p in (USA, CHINA)]
    frames += [("round8", p) for p in (USA, CHINA) if s.misc[M_ROUND8 + p]]
    frames.append(("end_g",))
    m.push(*frames)


@handler("round8")
def _round8(m: Machine, f: tuple) -> None:
    """The optional 8th round of the opponent of a player at social 3-2 (9.1.6, R13)."""
    if (m.s.card_loc == HAND[f[1]]).any():
        m.ask(f, f[1], "round8", (m.space.yes, m.space.no))


@resume("round8")
def _round8_resume(m: Machine, f: tuple, a: int) -> None:
    if a == m.space.yes:
        m.s.stack.append(("round", m.c.rules.action_rounds + 1, f[1]))


@handler("end_g")
def _end_g(m: Machine, f: tuple) -> None:
    """End of G: Russia-Ukraine check, held scoring cards, optional discard (R13, R19)."""
    s, c = m.s, m.c
    s.misc[M_PHASING] = -1
    s.misc[M_ROUND] = 0
    frames: list[tuple] = []
    if s.misc[M_RW_STATE] == RW_ACTIVE and s.misc[M_RW_ADDED] < s.misc[M_RW_K]:
        m.ev(EV["russia_ukraine"], 3, s.misc[M_RW_K], s.misc[M_RW_ADDED])
        s.misc[M_RESPONSIBLE] = CHINA
        m.add_vp(CHINA, 2, m.source_column(SRC_UKRAINE_WAR), CA["ukraine_war"])
        m.remove_influence(c.ukraine, "usa", CA["ukraine_war"])
        m.influence(c.ukraine, "anti_us", 3, CA["ukraine_war"])
        frames.append(("rw_reduce",))
    frames += [("scoring_held",), ("end_discard", USA), ("end_discard", CHINA)]
    m.push(*frames)


@handler("rw_reduce")
def _rw_reduce(m: Machine, f: tuple) -> None:
    m.push_effects(m.c.eids(m.c.raw.tracks.ukraine_war_failure), CHINA)


@handler("scoring_held")
def _scoring_held(m: Machine, f: tuple) -> None:
    """2.2.1.1, R13: a player holding a scoring card loses; both: draw."""
    s, c = m.s, m.c
    held = [bool((c.card_scoring & (s.card_loc == HAND[p])).any()) for p in (USA, CHINA)]
    if all(held):
        m.finish(None, "both players held a scoring card")
    elif any(held):
        loser = USA if held[USA] else CHINA
        m.finish(1 - loser, f"{SIDES[loser]} held a scoring card at the end of the turn")


@handler("end_discard")
def _end_discard(m: Machine, f: tuple) -> None:
    p = f[1]
    if m.s.misc[M_DISCARD_RIGHT + p]:
        hand = m.hand(p)
        if hand:
            sp = m.space
            m.ask(f, p, "end_discard", [sp.card0 + i for i in hand] + [sp.done])


@resume("end_discard")
def _end_discard_resume(m: Machine, f: tuple, a: int) -> None:
    if a != m.space.done:
        m.s.card_loc[a - m.space.card0] = DISCARD
        m.ev(EV["discard"], f[1], a - m.space.card0, CA["end_turn"], -1)


@handler("phase_h")
def _phase_h(m: Machine, f: tuple) -> None:
    """H: income, optional upgrade, decline, zone effects (9.1.7, R15)."""
    s, c = m.s, m.c
    s.misc[M_PHASE] = P_ECONOMY
    m.ev(EV["phase"], P_ECONOMY)
    for p in (USA, CHINA):
        income = c.zone("economy", int(s.tracks[ECONOMY + p])).income
        m.set_reserves(p, int(s.reserves[p]) + income, CA["income"])
    m.push(("upgrade", USA), ("upgrade", CHINA), ("decline",))
    # R26: persistent reserve income or loss comes with the zone income, before the upgrade.
    for i in reversed(c.persistent_cards):  # pushed last: run first, in card order
        if s.card_loc[i] == IN_PLAY and c.cards[i].persistent.economy:
            m.push_effects(c.eids(c.cards[i].persistent.economy), int(s.event_side[i]),
                           SRC_EVENT)


@handler("upgrade")
def _upgrade(m: Machine, f: tuple) -> None:
    s, c, p = m.s, m.c, f[1]
    level = int(s.tracks[ECONOMY + p])
    if level < c.rules.economy_max and s.reserves[p] >= c.zone("economy", level).price:
        m.ask(f, p, "upgrade", (m.space.yes, m.space.no))


@resume("upgrade")
def _upgrade_resume(m: Machine, f: tuple, a: int) -> None:
    s, c, p = m.s, m.c, f[1]
    if a == m.space.yes:
        price = c.zone("economy", int(s.tracks[ECONOMY + p])).price
        m.set_reserves(p, int(s.reserves[p]) - price, CA["upgrade"])
        m.move_track(ECONOMY + p, 1, CA["upgrade"])


@handler("decline")
def _decline(m: Machine, f: tuple) -> None:
    s, c = m.s, m.c
    for p in (USA, CHINA):  # both declines happen together: both at 1 is a draw (10.3.2)
        m.move_track(ECONOMY + p, -1, CA["decline"])
        if s.tracks[ECONOMY + p] < 4:
            m.move_track(SOCIAL + p, -1, CA["decline"])
    if s.misc[M_COLLAPSE] or s.misc[M_COLLAPSE + 1]:
        s.misc[M_END_FLAG] = 1
        return
    for p in (CHINA, USA):  # the US's zone effect first
        zone = c.zone("economy", int(s.tracks[ECONOMY + p]))
        m.push_effects(c.eids(zone.effects), p, SRC_ECONOMY)


@handler("phase_i")
def _phase_i(m: Machine, f: tuple) -> None:
    """I: turns 4-8 score one random spare scoring card, which leaves the game (R13)."""
    s, c = m.s, m.c
    if s.misc[M_TURN] not in c.rules.spare_scoring_turns:
        return
    s.misc[M_PHASE] = P_SCORING
    m.ev(EV["phase"], P_SCORING)
    left = np.flatnonzero(~s.spare_used)
    if left.size == 0:
        return
    k = int(left[m.below(left.size)])
    s.spare_used[k] = True
    row = m.region_column(c.rules.spare_scoring[k])
    m.score(row, CA["scoring"], row)


@handler("phase_j")
def _phase_j(m: Machine, f: tuple) -> None:
    s = m.s
    if s.misc[M_TURN] >= m.c.rules.turns:
        s.stack.append(("final",))
        return
    s.misc[M_TURN] += 1
    s.stack.append(("turn",))


@handler("final")
def _final(m: Machine, f: tuple) -> None:
    """K: final scoring: five regions, then social and economy differences (10.3.3, R18)."""
    s, c = m.s, m.c
    s.misc[M_PHASE] = P_FINAL
    m.ev(EV["phase"], P_FINAL)
    for row in range(len(c.region_names)):
        m.score(row, CA["final"], row)
    for base, src in ((SOCIAL, SRC_FINAL_SOCIAL), (ECONOMY, SRC_FINAL_ECONOMY)):
        diff = int(s.tracks[base + USA]) - int(s.tracks[base + CHINA])
        if diff:
            m.add_vp(USA if diff > 0 else CHINA, abs(diff), m.source_column(src), CA["final"])
    u, ch = int(s.vp[USA]), int(s.vp[CHINA])
    if u == ch:
        m.finish(None, f"final scoring: equal VP ({u})")
    else:
        w = USA if u > ch else CHINA
        m.finish(w, f"final scoring: {SIDES[w]} has more VP ({u}-{ch})")
