"""Bad input to the public Game API never corrupts or loses a game (issue 15).

Each case asserts the error type, that the message names the problem, and that
the game is exactly as it was (`to_dict` before and after).
"""

from __future__ import annotations

import copy
import json
from typing import Any

import numpy as np
import pytest
from helpers import action_round, advance_to

from evenstar_env import Game, SnapshotError, UnknownNameError
from evenstar_env.engine import machine
from evenstar_env.engine.constants import DRAW, N_MISC, PLAYING


@pytest.fixture()
def g() -> Game:
    return action_round(0, "usa")  # the US chooses a card: setters re-ask this decision


def rejected(game: Game, error: type[Exception], match: str, call, *args: Any, **kw: Any):
    before = game.to_dict()
    with pytest.raises(error, match=match):
        call(*args, **kw)
    assert game.to_dict() == before, "a rejected call changed the game"


# ------------------------------------------------------------------ setters
@pytest.mark.parametrize("value,error,match", [
    (-1, ValueError, r"usa reserves must be within 0..999, got -1"),
    (10**12, ValueError, r"within 0..999"),
    (1.5, TypeError, r"usa reserves must be an integer, not float"),
    ("3", TypeError, r"not str"),
    (True, TypeError, r"not a bool"),
    (None, TypeError, r"not NoneType"),
])
def test_set_reserves_refuses_bad_values(g: Game, value, error, match) -> None:
    """A negative value once made a stuck game with no legal action."""
    rejected(g, error, match, g.set_reserves, "usa", value)


def test_set_reserves_accepts_numpy_integers(g: Game) -> None:
    g.set_reserves("china", np.int64(7))
    assert g.reserves["china"] == 7 and type(g.to_dict()["state"]["reserves"][1]) is int


@pytest.mark.parametrize("kw,error,match", [
    ({"usa": 10**6}, ValueError, r"usa influence must be within 0..999, got 1000000"),
    ({"china": 40_000}, ValueError, r"china influence must be within 0..999"),
    ({"anti_us": -2}, ValueError, r"anti_us influence must be within"),
    ({"usa": 2.0}, TypeError, r"usa influence must be an integer"),
    ({"usa": 1, "anti_us": 1}, ValueError, r"R1"),
])
def test_set_influence_checks_before_erasing(g: Game, kw, error, match) -> None:
    """A huge value once erased the old influence, then raised OverflowError."""
    rejected(g, error, match, g.set_influence, "Iran", **kw)


@pytest.mark.parametrize("name,value,error,match", [
    ("social_usa", 0, ValueError, r"social_usa must be within 1..10, got 0"),
    ("economy_china", 12, ValueError, r"economy_china must be within 1..11"),
    ("diplomacy", 0, ValueError, r"diplomacy must be within 1..3"),
    ("russia", -1, ValueError, r"russia must be within 0..9"),
    ("tech_usa", 9, ValueError, r"tech_usa must be within 0..8"),
    ("social_usa", "5", TypeError, r"social_usa must be an integer"),
    ("social", 5, UnknownNameError, r"unknown track 'social'; one of 'social_usa'"),
])
def test_set_track_uses_each_tracks_real_range(g: Game, name, value, error, match) -> None:
    """Social 0 was once accepted (the floor is 1) and failed later with AttributeError."""
    rejected(g, error, match, g.set_track, name, value)


def test_set_track_accepts_both_ends_of_every_range(g: Game) -> None:
    for name, (lo, hi) in {"social_usa": (1, 10), "russia": (0, 9), "tech_china": (0, 8),
                           "regional_security": (1, 3)}.items():
        for v in (lo, hi):
            c = g.clone()
            c.set_track(name, v)
            assert c.track(name) == v


def test_set_hand_refuses_duplicates_unknown_and_committed_cards(g: Game) -> None:
    card = g.hand("usa")[0]
    rejected(g, ValueError, r"named twice", g.set_hand, "usa", [card, card])
    rejected(g, UnknownNameError, r"unknown card 'Nope'", g.set_hand, "usa", [card, "Nope"])
    rejected(g, TypeError, r"list of card names, not a string", g.set_hand, "usa", card)
    g.step(g.action_id("card", card))  # now decided on: how to play it
    assert g.decision.kind == "mode"
    rejected(g, ValueError, r"committed", g.set_hand, "china", [card])
    rejected(g, ValueError, r"committed", g.set_hand, "usa", g.hand("usa")[1:])
    g.step(g.action_id("mode", "place"))
    if g.decision.kind == "order":
        g.step(g.action_id("order", "action_first"))
    assert g.state.card_loc[g.content.card_by_name[card]] == PLAYING
    rejected(g, ValueError, r"committed", g.set_hand, "china", [card])


def test_set_hand_refuses_a_secret_headline() -> None:
    g = Game(0)
    advance_to(g, "headline")
    first = g.current_player
    g.step(int(g.legal_actions()[0]))
    card = next(c.name for i, c in enumerate(g.content.cards)
                if g.state.card_loc[i] in (7, 8))  # HEADLINE_USA, HEADLINE_CHINA
    rejected(g, ValueError, r"committed", g.set_hand, "china" if first == "usa" else "usa",
             [card])


@pytest.mark.parametrize("dice,error,match", [
    ([0], ValueError, r"a die must be within 1..6, got 0"),
    ([3, 7], ValueError, r"got 7"),
    ([2.0], TypeError, r"a die must be an integer"),
    ("123", TypeError, r"list of integers"),
    ([True], TypeError, r"not a bool"),
])
def test_force_dice_checks_every_die_first(g: Game, dice, error, match) -> None:
    rejected(g, error, match, g.force_dice, dice)


@pytest.mark.parametrize("call,args,match", [
    ("hand", ("USA",), r"unknown side 'USA'; one of 'usa', 'china'"),
    ("set_reserves", ("us", 1), r"unknown side 'us'"),
    ("set_hand", ("cn", []), r"unknown side 'cn'"),
    ("event_can_happen", ("Gulf War", "both"), r"unknown side 'both'"),
    ("event_can_happen", ("Gulf Wars", "usa"),
     r"unknown card 'Gulf Wars'; did you mean 'Gulf War'"),
    ("resample_hidden", ("nobody",), r"unknown side 'nobody'"),
    ("influence", ("Irann",), r"unknown country 'Irann'; did you mean 'Iran'"),
    ("set_influence", ("Atlantis",), r"unknown country 'Atlantis'"),
    ("score_region", ("Atlantis",), r"unknown region 'Atlantis'"),
    ("action_id", ("mode", "fly"), r"unknown mode 'fly'; one of 'event', 'place'"),
    ("action_id", ("order", "first"), r"unknown order 'first'"),
    ("action_id", ("mod", "plus3"), r"unknown modifier 'plus3'"),
    ("action_id", ("spend", "oil"), r"unknown spend 'oil'"),
    ("action_id", ("option", 8), r"unknown option 8"),
    ("action_id", ("cards", "x"), r"unknown action group 'cards'"),
])
def test_bad_names_name_the_value_and_the_choices(g: Game, call, args, match) -> None:
    """Once `tuple.index(x): x not in tuple`; now KeyError and ValueError at once."""
    rejected(g, UnknownNameError, match, getattr(g, call), *args)
    assert issubclass(UnknownNameError, KeyError) and issubclass(UnknownNameError, ValueError)


def test_a_change_the_engine_cannot_go_on_from_is_undone(g: Game, monkeypatch) -> None:
    """A Python engine handler that changes the state, then fails (the handler
    registry is the Python engine's, so the game is a Python one)."""
    g = Game.from_dict(g.to_dict(), backend="python")
    frame = g.state.pending[0][0]

    def broken(m, f):
        m.s.vp[0] += 5  # changes something, then fails
        raise RuntimeError("no legal action")

    monkeypatch.setitem(machine.HANDLERS, frame, broken)
    rejected(g, ValueError, r"undone: RuntimeError: no legal action", g.set_reserves, "usa", 4)


@pytest.mark.parametrize("backend", ["python", "native"])
def test_a_failed_refresh_is_undone_in_place_on_both_backends(g: Game, backend: str,
                                                              monkeypatch) -> None:
    """The undo restores the very state object callers may hold, on either backend."""
    g = Game.from_dict(g.to_dict(), backend=backend)
    state = g.state

    def broken() -> None:
        state.vp[0] += 5
        state.card_loc[0] = 4
        raise RuntimeError("no legal action")

    monkeypatch.setattr(g, "_refresh", broken)
    rejected(g, ValueError, r"undone: RuntimeError: no legal action", g.set_reserves, "usa", 4)
    assert g.state is state and state.vp[0] == g.vp["usa"] and state.reserves[0] != 4


# ------------------------------------------------------------------ seeds
@pytest.mark.parametrize("seed", [np.int64(5), np.uint64(5), np.int8(5)])
def test_numpy_seeds_work_like_ints(seed) -> None:
    g = Game(seed)
    assert g.state == Game(5).state and type(g.seed) is int
    json.dumps(g.to_dict())


@pytest.mark.parametrize("seed,error,match", [
    ("5", TypeError, r"seed must be an integer .*not str '5'"),
    (5.0, TypeError, r"not float"),
    (True, TypeError, r"not bool"),
    (None, TypeError, r"not NoneType"),
    (-1, ValueError, r"seed must be within 0..2\*\*64-1, got -1"),
    (2**64, ValueError, r"within 0..2\*\*64-1"),
])
def test_bad_seeds_are_refused(seed, error, match) -> None:
    with pytest.raises(error, match=match):
        Game(seed)


def test_seeds_do_not_alias_at_the_ends_of_the_range() -> None:
    assert Game(2**64 - 1).state.rng != Game(0).state.rng
    assert Game(2**64 - 1).state.rng != Game(2**63 - 1).state.rng


def test_clone_and_snapshots_keep_the_seed() -> None:
    """Issue 16: clone() and from_dict() keep the seed."""
    g = Game(2**40 + 3)
    g.step(int(g.legal_actions()[0]))
    assert g.clone().seed == 2**40 + 3
    d = json.loads(json.dumps(g.to_dict()))
    assert d["seed"] == 2**40 + 3 and Game.from_dict(d).seed == 2**40 + 3


@pytest.mark.parametrize("fmt", [1, 2])
def test_snapshots_from_before_r22_r26_are_refused_by_name(fmt: int) -> None:
    d = Game(4).to_dict()
    d["format"] = fmt
    with pytest.raises(SnapshotError, match=f"format {fmt} was written before rulings R22-R26"):
        Game.from_dict(d)


def test_a_snapshot_without_a_seed_field_is_refused() -> None:
    d = Game(4).to_dict()
    del d["seed"]
    with pytest.raises(SnapshotError, match="'seed': missing"):
        Game.from_dict(d)


# ------------------------------------------------------------------ snapshots
def _snap(g: Game) -> dict:
    return json.loads(json.dumps(g.to_dict()))


def _tampered(d: dict, path: tuple, value: Any) -> dict:
    d = copy.deepcopy(d)
    node = d
    for key in path[:-1]:
        node = node[key]
    if value is _DELETE:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return d


_DELETE = object()


@pytest.mark.parametrize("path,value,match", [
    (("content",), _DELETE, r"field 'content': missing"),
    (("content",), "0" * 16, r"field 'content': the snapshot was made with other game content"),
    (("format",), 4, r"field 'format': unknown game format 4"),
    (("seed",), "x", r"field 'seed': seed must be an integer"),
    (("seed",), -5, r"field 'seed': seed must be within"),
    (("extra",), 1, r"unknown fields \['extra'\]"),
    (("state",), [], r"field 'state': expected an object"),
    (("state", "rng"), _DELETE, r"field 'state': missing \['rng'\]"),
    (("state", "inf_us"), [0, 0], r"field 'state.inf_us': expected a list of 87"),
    (("state", "inf_cn", 3), 10**6, r"field 'state.inf_cn': value 1000000"),
    (("state", "inf_cn", 3), -1, r"field 'state.inf_cn': value -1 .* outside 0..32767"),
    (("state", "inf_us", 3), 1.5, r"field 'state.inf_us\[3\]': expected an integer"),
    (("state", "tracks", 0), True, r"field 'state.tracks\[0\]': expected an integer, got bool"),
    (("state", "tracks", 0), 0, r"field 'state.tracks\[0\] \(social_usa\)': 0 is outside 1..10"),
    (("state", "reserves", 1), -3, r"field 'state.reserves': value -3"),
    (("state", "card_loc", 0), 42, r"field 'state.card_loc': value 42"),
    (("state", "revealed", 0), [1] * 3, r"field 'state.revealed\[0\]': expected a list of"),
    (("state", "misc", 0), 99, r"field 'state.misc\[0\] \(turn\)': 99 is outside 1..11"),
    (("state", "misc"), [0], rf"field 'state.misc': expected a list of {N_MISC}"),
    (("state", "rng", 0), -1, r"field 'state.rng\[0\]': -1 is outside"),
    (("state", "forced"), [9], r"field 'state.forced\[0\]': 9 is outside 1..6"),
    (("state", "stack", 0), ["rm_rf", 1], r"field 'state.stack\[0\]': unknown frame 'rm_rf'"),
    (("state", "stack", 0), [], r"field 'state.stack\[0\]': a frame is a list"),
    (("state", "stack", 0), ["eff", 1.5], r"field 'state.stack\[0\]': unexpected float"),
    (("state", "pending", 0, 0), "log", r"field 'state.pending\[0\] \(frame\)': unknown frame"),
    (("state", "pending", 1), 2, r"field 'state.pending\[1\] \(player\)': 2 is outside 0..1"),
    (("state", "pending", 3), [0], r"field 'state.pending\[3\] \(legal\)': expected two or more"),
    (("state", "pending", 3), [0, 0], r"two or more distinct"),
    (("state", "pending", 3), [0, 9999], r"pending\[3\] \(legal\)\[1\]': 9999 is outside"),
    (("state", "pending", 2), "headline", r"field 'state.pending': the engine asks"),
    (("state", "pending", 1), 1, r"field 'state.pending': the engine asks"),
    (("state", "pending"), None, r"field 'state.pending': a game in progress must have"),
    (("state", "over"), True, r"field 'state.over'"),
    (("state", "over"), 1, r"field 'state.over': expected true or false"),
    (("state", "result"), [0, "won"], r"field 'state.over'"),
    (("state", "result"), [5, "won"], r"field 'state.result'"),
])
def test_bad_snapshots_raise_snapshot_error_naming_the_field(g: Game, path, value,
                                                             match) -> None:
    d = _snap(g)
    with pytest.raises(SnapshotError, match=match):
        Game.from_dict(_tampered(d, path, value))
    assert d == _snap(g)


def test_a_tampered_legal_list_cannot_play_a_card_from_the_draw_pile(g: Game) -> None:
    d = _snap(g)
    drawn = int(np.flatnonzero(g.state.card_loc == DRAW)[0])
    legal = d["state"]["pending"][3]
    bad = _tampered(d, ("state", "pending", 3), [*legal, drawn])
    with pytest.raises(SnapshotError, match=r"field 'state.pending': the engine asks"):
        Game.from_dict(bad)
    ctx = _tampered(d, ("state", "pending", 4), {"card": drawn})
    with pytest.raises(SnapshotError, match=r"field 'state.pending'"):
        Game.from_dict(ctx)


def test_deep_nesting_and_non_objects_are_snapshot_errors(g: Game) -> None:
    deep: list = ["eff"]
    for _ in range(10_000):
        deep = [deep]
    deep = ["eff", deep]
    with pytest.raises(SnapshotError, match=r"state.stack\[0\]': nested deeper than 8"):
        Game.from_dict(_tampered(_snap(g), ("state", "stack", 0), deep))
    for bad in ([], "game", None, 3):
        with pytest.raises(SnapshotError, match="snapshot: expected an object"):
            Game.from_dict(bad)
    assert issubclass(SnapshotError, ValueError)


def test_a_pending_frame_that_crashes_the_engine_is_a_snapshot_error(g: Game) -> None:
    frame = g.to_dict()["state"]["pending"][0]
    bad = _tampered(_snap(g), ("state", "pending", 0), [frame[0], "x", "y", "z", "w"])
    # The frame's arguments are checked first (engine/validity.py), before it is re-run.
    with pytest.raises(SnapshotError, match=r"'state.pending\[0\] \(frame\)': frame 'play': "
                                            r"'play' takes 1 arguments, not 4"):
        Game.from_dict(bad)


def test_finished_games_round_trip() -> None:
    g = Game(1)
    rng = np.random.default_rng(1)
    while not g.is_over:
        g.step(int(rng.choice(g.legal_actions())))
    restored = Game.from_dict(_snap(g))
    assert restored.state == g.state and restored.result == g.result
