"""Pentanomial statistics for paired games (chess engine testing practice).

A *pair* is the two games of one seed with the sides swapped: both see the same dice and
deck, so their results are correlated and the games are not independent trials.  Scoring
each pair as one of five outcomes — the agent's points over the pair, 0, 0.5, 1, 1.5 or 2
(a win 1, a draw 0.5) — and treating the *pairs* as the independent units gives the right
variance (the "pentanomial model" of Fishtest / OpenBench; M. Van den Bergh,
"Pentanomial statistics", 2020).  The per-game score of a pair is ``points / 2``.

For ``N`` units (games or pairs) with per-unit scores ``x_i``:

* mean score ``s = (1/N) Σ x_i``; per-unit variance ``σ² = (1/N) Σ (x_i − s)²``;
* 95% interval of ``s``: ``s ± 1.96 · σ / √N`` (normal approximation);
* trinomial: the units are the ``2N`` games (scores 0, ½, 1), assumed independent;
* pentanomial: the units are the ``N`` pairs (scores 0, ¼, ½, ¾, 1).

The variance of the mean is ``σ²/N`` in both; when the seed decides much of a game the
pentanomial one is smaller (typically about half in chess opening books).

Elo of a score: ``E(s) = −400 · log10(1/s − 1)`` (logistic Elo).

SPRT: the generalised SPRT of Van den Bergh ("A practical introduction to the GSPRT",
2016; Fishtest's ``LLR_logistic``) approximates the log-likelihood ratio of H1 (mean score
``s1``) against H0 (``s0``) by ``LLR ≈ N · (s1 − s0) · (2s − s0 − s1) / (2σ²)``, with ``s``
and ``σ²`` measured per unit (pairs for the pentanomial test).  Wald's bounds: accept H1
at ``LLR ≥ log((1 − β)/α)``, H0 at ``LLR ≤ log(β/(1 − α))``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

Z95 = 1.959964
PAIR_POINTS = (0.0, 0.5, 1.0, 1.5, 2.0)


def pair_index(points: float) -> int:
    """The pentanomial outcome (0..4) of a pair worth `points` (0, 0.5, 1, 1.5 or 2)."""
    k = round(points * 2)
    if not (0 <= k <= 4 and abs(points * 2 - k) < 1e-9):
        raise ValueError(f"a pair is worth 0, 0.5, 1, 1.5 or 2 points, got {points!r}")
    return k


def counts_of(pair_points: Iterable[float]) -> list[int]:
    """Pentanomial counts ``[n0, n½, n1, n1½, n2]`` of the pairs' points."""
    out = [0] * 5
    for p in pair_points:
        out[pair_index(p)] += 1
    return out


@dataclass(frozen=True)
class Estimate:
    """A mean score per game with its per-unit variance over `units` units."""

    units: int
    score: float
    variance: float  # per unit

    @property
    def var_of_mean(self) -> float:
        return self.variance / self.units if self.units else math.inf

    def interval(self, z: float = Z95) -> tuple[float, float]:
        """``s ± z · σ/√N``, clipped to [0, 1]."""
        if not self.units:
            return 0.0, 1.0
        half = z * math.sqrt(self.var_of_mean)
        return max(0.0, self.score - half), min(1.0, self.score + half)

    def llr(self, s0: float, s1: float) -> float:
        """GSPRT log-likelihood ratio of H1 (mean ``s1``) against H0 (``s0``)."""
        return gsprt_llr(self.units, self.score, self.variance, s0, s1)

    def as_dict(self) -> dict[str, object]:
        lo, hi = self.interval()
        return {"units": self.units, "score": self.score, "variance": self.variance,
                "var_of_mean": self.var_of_mean if self.units else None, "ci95": [lo, hi],
                "elo": _finite(elo(self.score)), "elo_ci95": [_finite(elo(lo)),
                                                              _finite(elo(hi))]}


def _finite(x: float) -> float | None:
    """JSON has no infinity: an Elo of a 0% or 100% score is None."""
    return x if math.isfinite(x) else None


def _estimate(weights: Sequence[float], values: Sequence[float]) -> Estimate:
    n = round(sum(weights))
    if n == 0:
        return Estimate(0, 0.5, 0.0)
    total = sum(weights)
    s = sum(w * v for w, v in zip(weights, values, strict=True)) / total
    var = sum(w * (v - s) ** 2 for w, v in zip(weights, values, strict=True)) / total
    return Estimate(n, s, var)


REGULARISE = 1e-3  # Fishtest's pseudo-count for an empty outcome (LLR only)


def pentanomial(counts: Sequence[float], regularise: bool = False) -> Estimate:
    """The estimate from pentanomial counts (the pairs are the units).  With `regularise`
    an empty outcome counts :data:`REGULARISE` (as Fishtest does before its LLR), so that a
    run of identical pairs has a small variance rather than none."""
    if len(counts) != 5 or any(c < 0 for c in counts):
        raise ValueError("pentanomial counts are five numbers ≥ 0")
    if regularise and sum(counts):
        counts = [c or REGULARISE for c in counts]
    return _estimate(counts, (0.0, 0.25, 0.5, 0.75, 1.0))


def trinomial(losses: int, draws: int, wins: int) -> Estimate:
    """The estimate from game counts (the games are the units, assumed independent)."""
    return _estimate((losses, draws, wins), (0.0, 0.5, 1.0))


def elo(score: float) -> float:
    """Logistic Elo difference of a mean score (±inf at 0 and 1)."""
    if score <= 0:
        return -math.inf
    if score >= 1:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def score_of_elo(diff: float) -> float:
    """Expected score of an Elo difference (inverse of :func:`elo`)."""
    return 1.0 / (1.0 + 10.0 ** (-diff / 400.0))


def gsprt_llr(units: int, score: float, variance: float, s0: float, s1: float) -> float:
    """``N (s1 − s0)(2s − s0 − s1) / (2σ²)`` (Van den Bergh's GSPRT approximation); 0 with
    no variance yet (every unit alike: nothing can be concluded from spread alone)."""
    if units == 0 or variance <= 0:
        return 0.0
    return units * (s1 - s0) * (2 * score - s0 - s1) / (2 * variance)


def bounds(alpha: float, beta: float) -> tuple[float, float]:
    """Wald's (lower, upper) LLR bounds."""
    return math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)


def compare(pairs: Iterable[tuple[float, float]]) -> dict[str, object]:
    """Both models on the same paired games (each pair the agent's two game scores, 1 a
    win, 0.5 a draw, 0 a loss), and the ratio of their variances of the mean."""
    pairs = list(pairs)
    games = [x for pair in pairs for x in pair]
    pent = pentanomial(counts_of(a + b for a, b in pairs))
    tri = trinomial(games.count(0.0), games.count(0.5), games.count(1.0))
    if len(games) != tri.units:
        raise ValueError("a game scores 0, 0.5 or 1")
    ratio = pent.var_of_mean / tri.var_of_mean if tri.units and tri.variance > 0 else None
    return {"pairs": pent.units, "counts": counts_of(a + b for a, b in pairs),
            "pentanomial": pent.as_dict(), "trinomial": tri.as_dict(),
            "variance_ratio": ratio}
