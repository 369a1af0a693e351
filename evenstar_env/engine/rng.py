"""The game's own seeded dice: SplitMix64, a single integer of state (cheap to copy)."""

from __future__ import annotations

_MASK = (1 << 64) - 1


DICE, DECK, OTHER = range(3)  # the game's independent random streams
N_STREAMS = 3


def seed_streams(seed: int) -> list[int]:
    """Three independent stream states from one game seed."""
    base = Rng(seed * 0x2545F4914F6CDD1D + 0x1234567)
    return [base.next64() for _ in range(N_STREAMS)]


class Rng:
    __slots__ = ("state",)

    def __init__(self, state: int) -> None:
        self.state = state & _MASK

    def next64(self) -> int:
        self.state = z = (self.state + 0x9E3779B97F4A7C15) & _MASK
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """A uniform integer in [0, n) (rejection sampling, no modulo bias)."""
        if n <= 0:
            raise ValueError("below() needs n > 0")
        limit = _MASK - (_MASK + 1) % n
        while True:
            x = self.next64()
            if x <= limit:
                return x % n

    def die(self) -> int:
        return self.below(6) + 1
