"""The event stream (docs/events.md): completeness, visibility, rendering, both backends.

The streams of the two backends are compared record by record in
tests/test_native_lockstep.py; here each property is checked on both.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agents.random_agent import CautiousRandomAgent
from evenstar_env import Game
from evenstar_env.content import load_content
from evenstar_env.engine import board
from evenstar_env.engine.constants import (
    DISCARD,
    HAND,
    HEADLINE,
    IN_PLAY,
    PLAYING,
    REMOVED,
    SIDES,
)
from evenstar_env.engine.machine import Machine
from evenstar_env.env.observation import encoder_for
from evenstar_env.events import (
    CAUSES,
    EVENTS,
    TYPES,
    annotate,
    effect_owner,
    for_viewer,
    render,
)
from evenstar_env.snapshot import new_state

BACKENDS = ("python", "native")
PUBLIC_LOCS = (DISCARD, REMOVED, IN_PLAY, PLAYING)


def play(g: Game, seed: int, steps: int | None = None, cautious: bool = False) -> Game:
    """Random (or cautious random) play to the end or for `steps` decisions."""
    rng = np.random.default_rng(seed)
    agent = CautiousRandomAgent(seed) if cautious else None
    k = 0
    while not g.is_over and (steps is None or k < steps):
        if agent is not None:
            a = agent.act(None, g.action_mask(), game=g)
        else:
            legal = g.legal_actions()
            a = int(legal[rng.integers(legal.size)])
        g.step(a)
        k += 1
    return g


def setup_board(seed: int) -> Game:
    """The set-up board before the first frame runs (what the stream starts from)."""
    g = Game.__new__(Game)
    g.content = load_content()
    g.seed = seed
    g._m = Machine(g.content, new_state(g.content))
    g._setup()
    return g


# ----------------------------------------------------------------- completeness


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("seed", [3, 1004, 1011])
def test_every_influence_track_reserve_and_vp_change_is_recorded(backend: str, seed: int) -> None:
    """Replaying the records' before -> after over the set-up board gives the final
    board: every change is recorded and each record starts where the last one ended."""
    g = play(Game(seed, backend=backend, events=True), seed, cautious=True)
    s0 = setup_board(seed).state
    us, cn = s0.inf_us.astype(int).tolist(), s0.inf_cn.astype(int).tolist()
    tracks, reserves = s0.tracks.astype(int).tolist(), s0.reserves.astype(int).tolist()
    vp = [0, 0]
    recs = g.events()
    for r in recs:
        if r["type"] == "influence":
            i = r["country"]
            assert (us[i], cn[i]) == (r["usa_before"], r["china_before"]), r
            us[i], cn[i] = r["usa_after"], r["china_after"]
        elif r["type"] == "track":
            assert tracks[r["track"]] == r["before"], r
            tracks[r["track"]] = r["after"]
        elif r["type"] == "reserves":
            assert reserves[r["side"]] == r["before"], r
            reserves[r["side"]] = r["after"]
        elif r["type"] == "vp":
            vp[r["side"]] += r["amount"]
            assert vp[r["side"]] == r["total"], r
    s = g.state
    assert us == s.inf_us.tolist() and cn == s.inf_cn.tolist()
    assert tracks == s.tracks.tolist() and reserves == s.reserves.tolist()
    assert vp == s.vp.tolist()
    assert [r["seq"] for r in recs] == list(range(len(recs)))
    assert recs[-1]["type"] == "game_end" and sum(r["type"] == "game_end" for r in recs) == 1
    winner = recs[-1]["winner"]
    assert g.result.winner == (None if winner < 0 else SIDES[winner])


@pytest.mark.parametrize("backend", BACKENDS)
def test_every_decision_is_recorded_with_its_chooser(backend: str) -> None:
    g = Game(5, backend=backend, events=True)
    taken = []
    rng = np.random.default_rng(5)
    while not g.is_over and len(taken) < 150:
        legal = g.legal_actions()
        a = int(legal[rng.integers(legal.size)])
        taken.append((SIDES.index(g.current_player), g.decision.kind, a))
        g.step(a)
    got = [(r["side"], r["kind"], r["action"]) for r in g.events() if r["type"] == "decision"]
    it = iter(got)  # the choices made, in order, among them the forced ones (one legal action)
    assert all(any(x == y for y in it) for x in taken)
    assert g.decisions == len(got) >= len(taken)


@pytest.mark.parametrize("backend", BACKENDS)
def test_headline_nato_enlargement_records_poland(backend: str) -> None:
    """Issue 33: a fixed-amount event effect is logged (Poland 2 -> 4, with its cause)."""
    g = Game(7, backend=backend, log=True)
    while g.decision.kind != "headline":
        g.step(int(g.legal_actions()[0]))
    hand = g.hand("usa")
    g.set_hand("usa", [*hand[1:], "NATO Enlargement"])
    before = g.influence("Poland")["usa"]
    g.step(g.action_id("card", "NATO Enlargement"))
    g.step(int(g.legal_actions()[0]))  # China's headline
    poland = g.content.index["Poland"]
    nato = g.content.card_by_name["NATO Enlargement"]
    owner = effect_owner(g.content)
    recs = [r for r in g.events() if r["type"] == "influence" and r["country"] == poland
            and CAUSES[r["cause"]] == "effect" and owner[r["cause_id"]] == ("card", nato, 0)]
    assert len(recs) == 1 and (recs[0]["usa_before"], recs[0]["usa_after"]) == (before, before + 2)
    assert f"Poland: adds 2 US influence — US {before} / China 0 → US {before + 2} / China 0 " \
           f"(NATO Enlargement)" in "\n".join(g.log)


@given(seed=st.integers(0, 10**6), steps=st.integers(0, 300))
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_score_detail_adds_up_to_score_all(seed: int, steps: int) -> None:
    g = play(Game(seed, backend="python"), seed, steps)
    c, s = g.content, g.state
    rows = board.score_all(c, s)
    for row in range(len(rows)):
        us, cn = board.score_detail(c, s, row)
        assert (us[-1], cn[-1]) == tuple(rows[row])
        for d in (us, cn):
            if row < len(c.region_names):
                assert d[5] == d[1] + d[2] + d[4] and 0 <= d[0] <= 3
            else:
                assert d[5] == 2 * d[2] + d[3]


# ----------------------------------------------------------------- visibility


def _cards_named(r: dict, content) -> list[int]:
    """Card ids a record names."""
    from evenstar_env.engine.actions import ActionSpace

    out = [r["card"]] if r.get("card", -1) >= 0 else []
    if r["type"] == "decision" and r["action"] >= 0:
        group, k = ActionSpace.for_content(content).group(r["action"])
        if group == "card":
            out.append(k)
    if r["type"] == "discard" and CAUSES[r["cause"]] == "pay":
        out.append(r["cause_id"])
    return out


@pytest.mark.parametrize("backend", BACKENDS)
@given(seed=st.integers(0, 10**6))
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_a_seat_stream_names_only_cards_the_seat_knows(backend: str, seed: int) -> None:
    """Every card in a viewer's stream is, at that point, in its own hand or headline, in a
    public place (discards, removed, in play, being played) or revealed to it; a card only
    ever in the opponent's hand or the draw pile is never named.  (The card chosen to
    play is face up while its mode is chosen, and both headlines once both are chosen,
    as resample_hidden has it.)"""
    g = Game(seed, backend=backend, events=True)
    rng = np.random.default_rng(seed)
    viewers = ("usa", "china", None)
    known = {v: set() for v in viewers}
    seen = 0
    while True:
        s = g.state
        for v in viewers:
            public = np.isin(s.card_loc, PUBLIC_LOCS)
            if g.is_over or g.decision.kind != "headline":
                public |= np.isin(s.card_loc, HEADLINE)
            if v is not None:
                p = SIDES.index(v)
                public |= (s.card_loc == HAND[p]) | (s.card_loc == HEADLINE[p]) | s.revealed[1 - p]
            known[v] |= set(np.flatnonzero(public).tolist())
            if not g.is_over and g.decision.kind == "mode":
                known[v].add(g.decision.context["card"])
        new = g.events("all", seen)
        for v in viewers:
            for r in for_viewer(new, v):
                for card in _cards_named(r, g.content):
                    assert card in known[v], f"{v} sees card {card} in {r}"
        seen += len(new)
        if g.is_over:
            break
        legal = g.legal_actions()
        g.step(int(legal[rng.integers(legal.size)]))


def twin_streams(backend: str, seed: int, steps: int, seat: str, redraw: int) -> tuple[int, int]:
    """Two games that differ only in what `seat` cannot see (the opponent's hidden hand,
    secret headline and modifier: resample_hidden, the dice kept) must give `seat` the
    same stream for as long as its observations stay equal (the same choices in both, the
    opponent's by the same index into its own legal actions).  Returns the records
    compared and how many of them were redacted."""
    g = play(Game(seed, backend=backend), seed, steps)
    if g.is_over:
        return 0, 0
    twin = g.resample_hidden(seat, redraw)
    twin.state.rng = list(g.state.rng)  # the same future dice (a copy: the Python State
    # would otherwise share one list between the games): only the hidden cards differ
    g.start_events()
    twin.start_events()
    p = SIDES.index(seat)
    enc = encoder_for(g.content)
    rng = np.random.default_rng(seed)
    a: list[dict] = []
    while not g.is_over and not twin.is_over:
        la, lb = g.legal_actions(), twin.legal_actions()
        if g.current_player != twin.current_player or la.size != lb.size:
            break
        k = int(rng.integers(la.size))
        g.step(int(la[k]))
        twin.step(int(lb[k]))
        if g.is_over != twin.is_over or not np.array_equal(enc.encode(g._m, p),
                                                           enc.encode(twin._m, p)):
            break  # new information for the seat (a reveal, its own draw): stop here
        a, b = g.events(seat), twin.events(seat)
        assert a == b, f"{seat}'s streams differ while its observations agree"
    return len(a), sum(bool(r.get("hidden")) for r in a)


@pytest.mark.parametrize("backend", BACKENDS)
@given(seed=st.integers(0, 10**6), steps=st.integers(0, 120), seat=st.sampled_from(SIDES),
       redraw=st.integers(0, 2**64 - 1))
@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_opponent_hidden_cards_do_not_change_a_seat_stream(backend: str, seed: int, steps: int,
                                                           seat: str, redraw: int) -> None:
    twin_streams(backend, seed, steps, seat, redraw)


def test_twin_streams_compare_redacted_records() -> None:
    """The twin comparison above is not vacuous: over 30 fixed games it compares hundreds
    of records, redacted draws and secret choices among them."""
    compared = hidden = 0
    for seed in range(30):
        n, h = twin_streams("native", seed, seed * 7 % 120, SIDES[seed % 2], seed)
        compared += n
        hidden += h
    assert compared > 300 and hidden > 10


def test_opponent_draws_and_secret_choices_are_redacted() -> None:
    g = play(Game(11, events=True, backend="native"), 11, 80)
    full = g.events("all")
    for viewer, seat in (("usa", 0), ("china", 1), (None, None)):
        mine = for_viewer(full, viewer)
        assert len(mine) == len(full)
        for r, f in zip(mine, full, strict=True):
            private = (f["type"] == "draw") or (
                f["type"] == "decision" and f["kind"] in ("headline", "modifier"))
            if (private and f["side"] != seat) or (f["type"] == "reveal" and seat is None):
                assert r.get("hidden") and (r.get("card", -1) == -1 and r.get("action", -1) == -1)
                assert r["side"] == f["side"]
            else:
                assert r == f
    draws = [r for r in for_viewer(full, "usa") if r["type"] == "draw" and r["side"] == 1]
    assert draws and render(draws[0], g.content) == "China draws a card"
    with pytest.raises(ValueError, match="viewer"):
        for_viewer(full, "spectator")


# ----------------------------------------------------------------- rendering and API


@pytest.mark.parametrize("backend", BACKENDS)
def test_every_record_renders_in_both_languages(backend: str) -> None:
    c = load_content()
    kinds = set()
    for seed in (1000, 1002):
        g = play(Game(seed, backend=backend, events=True), seed, cautious=True)
        for r in annotate(g.events(), c):
            kinds.add(r["type"])
            assert r["text"] and r["text_zh"] and r["text"] != r["text_zh"], r
            assert all(0 <= i < c.n for i in r["countries"])
            if r["type"] in ("influence", "realign", "trade", "war"):
                assert r["countries"] == [r["country"]]
                assert c.countries[r["country"]].zh in r["text_zh"]
                assert c.countries[r["country"]].name in r["text"]
    assert {"influence", "track", "reserves", "vp", "draw", "play", "score", "history_roll",
            "decision", "game_end", "turn", "phase"} <= kinds
    assert set(kinds) <= set(TYPES)


def test_realign_and_trade_text_show_the_arithmetic() -> None:
    c = load_content()
    iran = c.index["Iran"]
    r = {"seq": 0, "type": "realign", "turn": 2, "round": 3, "side": 0, "country": iran,
         "ops": 2, "die": 4, "adjacency": 0, "stability": 6, "result": 0}
    assert render(r, c) == ("US realigns Iran: die 4 + 2 ops − 6 (stability 4 + 2) = 0 → "
                            "no change")
    assert "伊朗" in render(r, c, "zh")
    t = {"seq": 1, "type": "trade", "turn": 2, "round": 3, "side": 1, "country": iran,
         "die": 5, "economy": 6, "opp_die": 2, "opp_economy": 7, "total": 10, "opp_total": 8,
         "won": 1}
    assert render(t, c) == ("China trade contest in Iran: China die 5 + economy 6 − 1 = 10 vs "
                            "US die 2 + economy 7 − 1 = 8 (ties to China) → China wins: "
                            "+3 China influence")
    with pytest.raises(ValueError, match="unknown event record type"):
        render({"type": "nonsense"}, c)
    with pytest.raises(ValueError, match="lang"):
        render(r, c, "fr")


@pytest.mark.parametrize("backend", BACKENDS)
def test_events_api(backend: str) -> None:
    g = Game(2, backend=backend)
    assert not g.events_on and g.events() == [] and g.log == []
    g = Game(2, backend=backend, log=True)
    assert g.events_on and g.log and all(line.startswith("T1 ") for line in g.log[:5])
    n = len(g.events())
    assert g.events("all", n) == [] and g.events("usa", 3)[0]["seq"] == 3
    with pytest.raises(ValueError, match="since"):
        g.events("all", n + 1)
    for name, fields in EVENTS.items():
        assert len(fields) <= 15 and len(set(fields)) == len(fields), name
    assert g.clone().events() == []


def test_every_label_table_covers_its_vocabulary() -> None:
    from evenstar_env.engine.constants import SPENDS
    from evenstar_env.events import KIND_ZH, SPEND_LABEL, decision_kinds

    assert set(KIND_ZH) == set(decision_kinds())
    assert all(len(v) == len(SPENDS) for v in SPEND_LABEL.values())
    c = load_content()
    owners = effect_owner(c)
    assert len(owners) == len(c.effects) and all(o[0] != "effect" for o in owners)


def test_docs_list_every_record_type_and_cause() -> None:
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[1] / "docs" / "events.md").read_text()
    for name, fields in EVENTS.items():
        assert f"| `{name}` | {', '.join(f'`{x}`' for x in fields) or '—'} |" in doc, name
    for cause in CAUSES:
        assert f"`{cause}`" in doc, cause
