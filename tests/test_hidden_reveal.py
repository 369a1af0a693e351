"""Hidden information at the edges: a hand shown to the opponent (R20) and the discard pile
reshuffled (4.4), and determinisations that agree with what a seat sees (both backends).

Found by tests/test_web_hidden.py's hypothesis search: a card shown in China's hand by a
reveal, later discarded and reshuffled into the draw pile, kept its "revealed" mark, so a
redraw (and a real draw) of it would have shown it to the US as a known card in China's
hand; and a redraw of the US hand on which its pending discard could not be asked moved
the determinised game on to another decision.
"""

from __future__ import annotations

import numpy as np
import pytest

from evenstar_env import Game
from evenstar_env.engine.constants import DISCARD, DRAW, HAND
from experiments.web.view import game_view

BACKENDS = ("python", "native")
# A game (seed, then the index of the legal action taken at each decision, modulo their
# count) reaching a US discard decision (step 41), from the hypothesis search.
SEED = 1_450_453_797_740_960_256
PICKS = [4443, 3520, 4765, 8424, 0, 13715, 462, 511, 8261, 20037, 16719, 441, 32268, 2508,
         26700, 91, 65535, 13692, 5076, 849, 15003, 177, 1083, 28092, 251, 3316, 27826, 102,
         0, 0, 13189, 0, 4863, 12326, 0, 0, 1122, 0, 287, 0, 0]


@pytest.mark.parametrize("backend", BACKENDS)
def test_r20_a_reshuffled_card_is_no_longer_known_when_drawn_again(backend: str) -> None:
    """R20, 4.4: the cards shown in China's hand went to the discards; the draw pile runs
    out and the discards are reshuffled: China's new hand is drawn in secret."""
    g = Game(3, backend=backend)

    def shown_then_discarded(s):  # every card of the deck: shown in China's hand, discarded
        pile = s.card_loc == DRAW
        s.card_loc[pile] = DISCARD
        s.revealed[1, pile] = True

    g._scenario(shown_then_discarded)
    assert g.state.revealed[1].sum() > 0
    while not (g.state.card_loc == HAND[1]).any():  # to the deal: the discards reshuffled
        g.step(int(g.decision.legal[0]))
    s = g.state
    assert not s.revealed[1][s.card_loc == HAND[1]].any()
    assert not s.revealed[1][s.card_loc == DRAW].any()
    view = game_view(g, seat="usa", log=([], 0))
    assert view["opponent_known"] == []


def _at_the_discard(backend: str) -> Game:
    g = Game(SEED, backend=backend)
    for pick in PICKS[:41]:
        legal = g.decision.legal
        g.step(legal[pick % len(legal)])
    return g


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_determinisation_keeps_the_decision_the_seat_sees(backend: str) -> None:
    """The US must discard (China sees it deciding); a redraw of the US hand for China is
    one on which that discard is asked, with options from the redrawn hand only."""
    g = _at_the_discard(backend)
    d = g.decision
    assert (d.player, d.kind) == ("usa", "discard")
    for k in range(40):
        other = g.resample_hidden("china", k)
        assert (other.decision.player, other.decision.kind) == ("usa", "discard")
        hand = set(np.flatnonzero(other.state.card_loc == HAND[0]))
        cards = {i for g_, i in map(other.action_group, other.decision.legal) if g_ == "card"}
        assert cards and cards <= hand


def test_determinisations_are_the_same_on_both_backends() -> None:
    games = [_at_the_discard(b) for b in BACKENDS]
    for k in range(10):
        py, nat = (g.resample_hidden("china", k) for g in games)
        assert py.state.to_dict() == nat.state.to_dict()
