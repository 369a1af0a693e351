"""Hidden information in the web views (experiments/web/view.py): a seat's view never shows
the opponent's hand, the draw pile's order, a secret headline or modifier before both are
revealed, or the seed.

The invariant tested over random play: a seat's view is the same whatever the hidden part
of the game is — redrawing everything the seat cannot know (``Game.resample_hidden``: the
opponent's hidden hand, its secret headline and modifier, the deck order, the dice to come)
changes nothing in it.
"""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from web_helpers import act, client, new_game, view

from evenstar_env import Game
from evenstar_env.engine.constants import HAND
from experiments.web.sessions import new_game as live_game
from experiments.web.view import SEATS, game_view

MAX_STEPS = 260


def _public(g: Game, seat: str | None) -> str:
    return json.dumps(game_view(g, seat=seat, log=([], 0)), sort_keys=True)


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(10**15, 2**62), picks=st.lists(st.integers(0, 2**16), min_size=MAX_STEPS,
                                                  max_size=MAX_STEPS), redraw=st.integers(0, 99))
def test_a_seat_s_view_does_not_depend_on_what_it_cannot_know(seed, picks, redraw) -> None:
    g = live_game(seed)
    kinds = set()
    for k, pick in enumerate(picks):
        if g.is_over:
            break
        kinds.add(g.decision.kind)
        for p, seat in enumerate(SEATS):
            shown = _public(g, seat)
            other = g.resample_hidden(seat, redraw * 1000 + k)
            assert _public(other, seat) == shown, (seat, g.decision)
            v = json.loads(shown)
            opp_hand = {int(i) for i in (g.state.card_loc == HAND[1 - p]).nonzero()[0]}
            assert not opp_hand & set(v["hand"])
            assert str(seed) not in shown  # (a 16+ digit number: no chance match)
        spectator = _public(g, None)
        both = g.resample_hidden("usa", redraw * 1000 + k).resample_hidden("china", k)
        assert _public(both, None) == spectator  # a spectator knows neither hand
        assert json.loads(spectator)["hand"] == [] and str(seed) not in spectator
        legal = g.decision.legal
        g.step(legal[pick % len(legal)])
    assert "card" in kinds


def test_the_served_view_is_the_seat_s_view_and_never_holds_the_seed() -> None:
    with client() as c:
        g = new_game(c, usa="human", china="human")
        live = c.app.state.sessions.games[g["id"]]
        seed = str(live.stored.seed)
        for _ in range(80):
            if live.game.is_over:
                break
            for seat in SEATS:
                served = view(c, g["id"], g["seats"][seat])
                text = json.dumps(served)
                assert seed not in text
                expect = game_view(live.game, seat=seat)
                assert {k: served[k] for k in expect} == json.loads(json.dumps(expect))
            spectator = json.dumps(view(c, g["id"]))
            assert seed not in spectator and '"hands": null' in spectator
            mover = live.game.current_player
            v = view(c, g["id"], g["seats"][mover])
            assert act(c, g["id"], g["seats"][mover], v["decision_index"],
                       v["decision"]["options"][-1]["action"]).status_code == 200
