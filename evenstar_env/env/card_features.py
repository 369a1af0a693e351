"""Each card as a fixed vector of numbers read from its data (issue 34).

A network that knows cards only by their index cannot read a card it has never
seen.  These features describe a card by what its entry says (after a constant 1): ops, side, era,
kind, its flags (removed, persistent, Russia, prerequisites, payment), what its
event does (:func:`~evenstar_env.env.effect_features.option_vector`, for the side
that carries it out) and where (named countries counted by region).  A row
depends on its own card and the map only, never on the rest of the deck, and
every count is squashed by ``sign(x) log(1 + |x|)`` rather than scaled by the
deck's extremes: adding a card changes no other card's row.
"""

from __future__ import annotations

import numpy as np

from ..content import Content
from ..content.loader import walk
from ..content.schema import Card
from .effect_features import ASKING_OPS, OPTION_FEATURES, option_places, option_vector

SIDES3 = ("usa", "china", "neutral")
ERAS = ("early", "mid", "late")
FLAGS = ("scoring", "removed", "persistent", "russia", "event_banned", "out_of_game")


def feature_names(c: Content) -> list[str]:
    """The name of every column of :func:`card_features` (the map's regions included)."""
    return (["one", "ops"] + [f"side_{s}" for s in SIDES3] + [f"era_{e}" for e in ERAS]
            + list(FLAGS) + ["requires", "pay_discard", "ops_mod_usa", "ops_mod_china",
                             "prevents", "asks"]
            + [f"event_{f}" for f in OPTION_FEATURES]
            + [f"places_{r}" for r in c.region_names])


def squash(x: np.ndarray) -> np.ndarray:
    """``sign(x) * log(1 + |x|)``: counts of any size on a scale of a few units."""
    return np.sign(x) * np.log1p(np.abs(x))


def card_row(c: Content, card: Card) -> np.ndarray:
    """One card's features (see the module docstring), in :func:`feature_names` order."""
    p = card.persistent
    effects = list(card.effects) + (list(p.each_turn) + list(p.economy) if p else [])
    executors = {"usa": (0,), "china": (1,), "neutral": (0, 1)}[card.side]
    event = np.mean([option_vector(effects, len(card.requires), ex) for ex in executors], 0)
    asks = sum(getattr(e, "op", None) in ASKING_OPS for _, e in walk(effects, ""))
    places = option_places(c, effects)
    head = [1.0, card.ops / 4, *(card.side == s for s in SIDES3), *(card.era == e for e in ERAS),
            card.kind == "scoring", card.removed, p is not None, card.russia,
            card.event_banned, card.out_of_game, squash(len(card.requires)),
            (card.pay_discard or 0) / 4,
            (p.ops_mod.get("usa", 0) if p else 0), (p.ops_mod.get("china", 0) if p else 0),
            squash(len(p.prevents) if p else 0), squash(asks)]
    by_region = [squash(np.count_nonzero(places & c.place_mask[r])) for r in c.region_names]
    return np.concatenate([np.asarray(head, dtype=np.float64), squash(event),
                           np.asarray(by_region, dtype=np.float64)]).astype(np.float32)


def card_features(c: Content) -> np.ndarray:
    """Every card's features (``nc x len(feature_names(c))`` float32), kept per content."""
    cached = getattr(c, "_card_features", None)
    if cached is None:
        cached = np.stack([card_row(c, card) for card in c.cards])
        cached.setflags(write=False)
        c._card_features = cached
    return cached
