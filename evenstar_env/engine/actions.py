"""The flat action enumeration shared by every decision (docs/actions.md)."""

from __future__ import annotations

from functools import lru_cache

from ..content import Content
from .constants import MODES, MODIFIERS, N_OPTIONS, SPENDS


class ActionSpace:
    """Offsets of the action groups; an action id is ``offset + index``.

    Groups, in order: CARD (one per base or scoring card), COUNTRY (one per
    country), MODE (play modes), ORDER (event first / action first), MOD
    (modifier cards), SPEND (reserve spends), YES, NO, OPTION (event branches),
    DONE (stop spending / pass).
    """

    __slots__ = ("n_cards", "n_countries", "card0", "country0", "mode0", "order0", "mod0",
                 "spend0", "yes", "no", "option0", "done", "n")

    def __init__(self, n_cards: int, n_countries: int) -> None:
        self.n_cards, self.n_countries = n_cards, n_countries
        self.card0 = 0
        self.country0 = n_cards
        self.mode0 = self.country0 + n_countries
        self.order0 = self.mode0 + len(MODES)
        self.mod0 = self.order0 + 2
        self.spend0 = self.mod0 + len(MODIFIERS)
        self.yes = self.spend0 + len(SPENDS)
        self.no = self.yes + 1
        self.option0 = self.no + 1
        self.done = self.option0 + N_OPTIONS
        self.n = self.done + 1

    @classmethod
    @lru_cache(maxsize=8)
    def for_content(cls, content: Content) -> ActionSpace:
        return cls(content.nc, content.n)

    def group(self, a: int) -> tuple[str, int]:
        """The group name of an action id and its index within the group."""
        bounds = (("card", self.card0), ("country", self.country0), ("mode", self.mode0),
                  ("order", self.order0), ("mod", self.mod0), ("spend", self.spend0),
                  ("yes", self.yes), ("no", self.no), ("option", self.option0),
                  ("done", self.done))
        if not 0 <= a < self.n:
            raise ValueError(f"action {a} is outside 0..{self.n - 1}")
        for name, start in reversed(bounds):
            if a >= start:
                return name, a - start
        raise AssertionError("unreachable")
