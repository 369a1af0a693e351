"""The flat action enumeration shared by every decision (docs/actions.md)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from ..content import Content
from .constants import MODES, MODIFIERS, N_OPTIONS, SPENDS


@dataclass(frozen=True)
class ActionSpace:
    """Offsets of the action groups; an action id is ``offset + index``.

    Groups, in order: CARD (one per base or scoring card), COUNTRY (one per
    country), MODE (play modes), ORDER (event first / action first), MOD
    (modifier cards), SPEND (reserve spends), YES, NO, OPTION (event branches),
    DONE (stop spending / pass).
    """

    n_cards: int
    n_countries: int

    @classmethod
    @lru_cache(maxsize=8)
    def for_content(cls, content: Content) -> ActionSpace:
        return cls(content.nc, content.n)

    @property
    def card0(self) -> int:
        return 0

    @property
    def country0(self) -> int:
        return self.n_cards

    @property
    def mode0(self) -> int:
        return self.country0 + self.n_countries

    @property
    def order0(self) -> int:
        return self.mode0 + len(MODES)

    @property
    def mod0(self) -> int:
        return self.order0 + 2

    @property
    def spend0(self) -> int:
        return self.mod0 + len(MODIFIERS)

    @property
    def yes(self) -> int:
        return self.spend0 + len(SPENDS)

    @property
    def no(self) -> int:
        return self.yes + 1

    @property
    def option0(self) -> int:
        return self.no + 1

    @property
    def done(self) -> int:
        return self.option0 + N_OPTIONS

    @property
    def n(self) -> int:
        return self.done + 1

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
