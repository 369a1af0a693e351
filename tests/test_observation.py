"""The observation: no aliasing, real bounds, a static block, hidden information (issue 16)."""

from __future__ import annotations

import hashlib
import pickle
from collections.abc import Iterator

import numpy as np
import pytest
from helpers import action_round

from agents import CautiousRandomAgent, HeuristicAgent
from evenstar_env import Game, raw_env
from evenstar_env.engine import constants as K
from evenstar_env.env.observation import ObservationEncoder
from evenstar_env.wrappers import SingleAgentEnv

# The public counters of State.misc.  Left out: K.M_MOD (a hidden choice; the own one is
# part of the decision below), M_HEADLINE (the headline piles say it), M_END_FLAG,
# M_COLLAPSE, M_DIPLO_LOSER (resolved before any decision is asked), M_DECISIONS and
# M_VP_SOURCE (bookkeeping that no rule reads).
PUBLIC_MISC = (K.M_TURN, K.M_PHASE, K.M_ROUND, K.M_PHASING, K.M_RESPONSIBLE, K.M_RW_STATE,
               K.M_RW_K, K.M_RW_ADDED) + tuple(base + k for base in (
                   K.M_HAND_SIZE, K.M_IMPROVE_LEFT, K.M_TECH_DONE, K.M_TRADE_DONE,
                   K.M_DISCARD_RIGHT, K.M_ROUND8, K.M_NEXT_OPS, K.M_NEXT_NO_EVENT,
                   K.M_NEXT_BOTH) for k in (0, 1))
WAITING = ("event", "place_start", "realign", "trade", "improve")


def visible_key(g: Game, p: int) -> tuple:
    """Everything player `p` may know of the position, built from the state (not from the
    observation).

    The pending decision: its kind, who decides, its frame (every argument; the picks
    already made in an influence effect as a multiset, since their order is no rule's
    business), its context dict, and the legal actions when `p` decides; for the US in
    China's modifier choice, the US's own modifier card (R16).  The board (influence,
    ⊗ marks), the tracks, VP, reserves, the public counters, the spare scoring cards used,
    the history cards resolved, the events that happened, the result.  The cards as `p`
    sees them: own hand, discard, removed, in play, being played, own headline, the
    opponent's headline once both are chosen (4.6.F), everything else unseen; the
    opponent's hand as revealed to `p` (R20) and its size.  From the frame stack: the
    Russia steps still to come (R11, 7.6) and the event or ops action still to come in
    the card play in progress (R5).  Left out as no rule reads them: VP by source and
    who carried out each event (read only for the upkeep of persistent cards in play,
    whose executor is the card's side; the two neutral ones have no upkeep).
    """
    s = g.state
    o = 1 - p
    pend = s.pending
    seen = {K.HAND[p]: 1, K.DISCARD: 2, K.REMOVED: 3, K.IN_PLAY: 4, K.HEADLINE[p]: 5, K.PLAYING: 6}
    if pend is None or pend[2] != "headline":
        seen[K.HEADLINE[o]] = 7
    cards = bytes(seen.get(int(x), 0) for x in s.card_loc)
    decision = None
    if pend is not None:
        frame, player, kind, legal, ctx = pend
        if frame[0] == "pick":
            frame = (*frame[:-1], tuple(sorted(frame[-1])))
        us_sees_own = kind == "modifier" and p == K.USA and player == K.CHINA
        own_mod = s.misc[K.M_MOD] if us_sees_own else None
        decision = (kind, player, frame, tuple(sorted(ctx.items())),
                    legal if player == p else None, own_mod)
    waiting = []
    for f in reversed(s.stack):
        if f[0] == "card_done":
            break
        if f[0] in WAITING:
            waiting.append(f)
    return (p, decision, s.inf_us.tobytes(), s.inf_cn.tobytes(), s.non_realignable.tobytes(),
            s.tracks.tobytes(), s.vp.tobytes(), s.reserves.tobytes(),
            tuple(s.misc[k] for k in PUBLIC_MISC), s.spare_used.tobytes(),
            (s.hist_loc == K.H_DONE).tobytes(), s.event_played.tobytes(), s.result, cards,
            s.revealed[o].tobytes(), int(np.count_nonzero(s.card_loc == K.HAND[o])),
            s.stack.count(("russia_step",)), tuple(waiting))


def positions(n_cautious: int, n_heuristic: int) -> Iterator[tuple[str, Game]]:
    """Every position (decisions and the end) of full games: cautious random play on both
    sides, and the heuristic against cautious random play (sides alternating)."""
    for seed in range(n_cautious + n_heuristic):
        heuristic = seed >= n_cautious
        agents = [CautiousRandomAgent(seed), CautiousRandomAgent(seed + 1000)]
        if heuristic:
            agents[seed % 2] = HeuristicAgent(seed)
        g = Game(seed)
        step = 0
        while True:
            yield f"game {seed} ({'heuristic' if heuristic else 'cautious'}) step {step}", g
            if g.is_over:
                break
            agent = agents[0 if g.current_player == "usa" else 1]
            g.step(agent.act(None, g.action_mask(), g))
            step += 1


def _digest(x: object) -> bytes:
    return hashlib.blake2b(pickle.dumps(x, protocol=5), digest_size=16).digest()


def check_no_aliasing(enc: ObservationEncoder, n_cautious: int, n_heuristic: int,
                      at_least: int) -> None:
    """Two observations are equal only if the positions' visible keys are equal."""
    seen: dict[bytes, tuple[bytes, str]] = {}
    count = 0
    for where, g in positions(n_cautious, n_heuristic):
        for p in (0, 1):
            obs = enc.encode(g._m, p)
            key = _digest(visible_key(g, p))
            first = seen.setdefault(hashlib.blake2b(obs.tobytes(), digest_size=16).digest(),
                                    (key, f"{where} player {p}"))
            assert first[0] == key, f"{where} player {p} aliases {first[1]}"
            count += 1
    assert count >= at_least
    assert len(seen) > count // 2, "most observations should differ"


def test_no_two_visibly_different_positions_share_an_observation() -> None:
    """≥ 20,000 observations (both players' views of every position of 18 cautious-random
    games and one heuristic game)."""
    check_no_aliasing(ObservationEncoder(Game(0).content), 18, 1, 20_000)


@pytest.mark.slow
def test_no_aliasing_in_many_games() -> None:
    """≥ 80,000 observations: 60 cautious-random games and 6 heuristic games."""
    check_no_aliasing(ObservationEncoder(Game(0).content), 60, 6, 80_000)


def test_influence_decisions_carry_their_context() -> None:
    """The case of issue 16: the picks of an event differ in points left and picks made,
    and say what they are.  Asian Financial Crisis: China reduces US influence by 4 in
    six countries, one point at a time (R16: the opponent of the influence's owner picks)."""
    g = action_round(3, "china")
    g.set_hand("china", ["Asian Financial Crisis", "Launch of the Euro"])
    enc = ObservationEncoder(g.content)
    L = enc.layout
    g.step(g.action_id("card", "Asian Financial Crisis"))
    g.step(g.action_id("mode", "event"))
    views = []
    effect = g.state.pending[0][1]
    while g.state.pending[0][:2] == ("pick", effect):
        assert g.decision.player == "china"
        views.append(enc.encode(g._m, K.CHINA))
        g.step(int(g.legal_actions()[0]))
    assert len(views) == 4 and len({v.tobytes() for v in views}) == 4
    card = g.content.card_by_name["Asian Financial Crisis"]
    for v in views:
        assert v[L["source_card"]][card] == 1.0 and v[L["decision_executor"]].tolist() == [0, 1]
        assert v[L["influence_verb"]].tolist() == [0, 1]  # reduce
        assert v[L["influence_kind"]].tolist() == [1, 0, 0]  # US influence
        assert v[L["decision_candidates"]].sum() == 6
    left = [v[L["influence_left"]][0] * enc.effects.max_points for v in views]
    assert np.allclose(left, [4, 3, 2, 1])
    chosen = [v[L["decision_chosen"]].sum() * enc.effects.max_points for v in views]
    assert np.allclose(chosen, [0, 1, 2, 3])


def test_event_options_say_what_they_do() -> None:
    """The option ids of an event mean the card's own branches: their vectors differ."""
    g = action_round(3, "usa")
    g.set_hand("usa", ["Launch of the Euro", "Orange Revolution"])
    g.step(g.action_id("card", "Launch of the Euro"))
    g.step(g.action_id("mode", "event"))
    assert g.decision.kind == "option"
    enc = ObservationEncoder(g.content)
    v = enc.encode(g._m, 0)
    opts = v[enc.layout["option_effects"]].reshape(enc.effects.option_slots, -1)
    names = enc.effects.option_features
    assert opts[0][names.index("reserves_usa")] > 0  # "Diversify reserves: gain 3 reserves"
    assert opts[1][names.index("add_usa")] > 0  # "Court the eurozone: 3 influence"


def test_the_opponents_headline_is_seen_once_both_are_chosen() -> None:
    """4.6.F: both headline cards are shown together.  While China chooses, the US card is
    secret (and resampled); once both are chosen, China sees it and resampling keeps it."""
    enc = ObservationEncoder(Game(0).content)
    L = enc.layout
    secret = shown = 0
    for _, g in positions(6, 0):
        s = g.state
        us_card = np.flatnonzero(s.card_loc == K.HEADLINE[K.USA])
        if s.pending is None or us_card.size == 0:
            continue
        v = enc.encode(g._m, K.CHINA)
        r = g.resample_hidden("china", secret + shown)
        if s.pending[2] == "headline":
            assert v[L["opponent_headline"]].sum() == 0
            secret += 1
        else:
            assert np.flatnonzero(v[L["opponent_headline"]]).tolist() == us_card.tolist()
            assert r.state.card_loc[us_card[0]] == K.HEADLINE[K.USA]
            shown += 1
        assert np.array_equal(enc.encode(r._m, K.CHINA), v)
    assert secret > 0 and shown > 0


def test_observations_stay_within_the_box_bounds() -> None:
    enc = ObservationEncoder(Game(0).content)
    lo, hi = enc.low, enc.high
    assert lo.shape == hi.shape == (enc.size,) and (lo < hi).all()
    e = raw_env()
    space = e.observation_space("usa_0")["observation"]
    assert np.array_equal(space.low, lo) and np.array_equal(space.high, hi)
    assert SingleAgentEnv().observation_space == space
    for _, g in positions(4, 0):
        for p in (0, 1):
            v = enc.encode(g._m, p)
            bad = np.flatnonzero((v < lo) | (v > hi))
            assert bad.size == 0, [(name, v[sl]) for name, sl in enc.layout.items()
                                   if sl.start <= bad[0] < sl.stop]
            assert space.contains(v)


def test_fixed_map_features_are_a_static_block_not_in_the_vector() -> None:
    e = raw_env()
    static = e.static_features
    c = e.content
    assert set(static) == {"battleground", "stability", "adjacent_usa", "adjacent_china"}
    assert np.array_equal(static["battleground"], c.bg.astype(np.float32))
    assert np.array_equal(static["stability"], (c.stab / 5).astype(np.float32))
    assert not set(static) & set(e.encoder.layout)
    assert SingleAgentEnv().unwrapped.static_features.keys() == static.keys()


@pytest.mark.parametrize("rounds_left, held, due", [(3, 2, False), (2, 2, True), (1, 1, True),
                                                    (2, 1, False), (1, 0, False)])
def test_scoring_cards_due_when_they_fill_the_rounds_left(rounds_left, held, due) -> None:
    """2.2.1.1: a player still holding a scoring card at the end of the turn loses.  The flag
    says one's own scoring cards fill the action rounds left (this one included); the
    opponent's hand never counts."""
    g = action_round(3, "china")
    c = g.content
    scoring = [cd.name for cd in c.cards if cd.kind == "scoring"
               and g.state.card_loc[c.card_by_name[cd.name]] != K.HAND[K.USA]][:held]
    others = [n for n in g.hand("china") if not c.card_scoring[c.card_by_name[n]]]
    g.set_hand("china", scoring + others[: 3 - held])
    g.state.misc[K.M_ROUND] = c.rules.action_rounds - rounds_left + 1
    enc = ObservationEncoder(c)
    L = enc.layout
    v = enc.encode(g._m, K.CHINA)
    assert v[L["scoring_held"]][0] == held / 4 and bool(v[L["scoring_due"]][0]) is due
    us = enc.encode(g._m, K.USA)
    us_held = int(np.count_nonzero(c.card_scoring & (g.state.card_loc == K.HAND[K.USA])))
    assert us[L["scoring_held"]][0] == us_held / 4
