"""Rank statistics: how well a score ranks records by their measured risk (pure functions).

Used to validate record selectors against a risk map: Spearman's rank correlation with a
bootstrap interval, and the precision of a selector's top ``k`` against the true top ``k``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from synthleak.metrics.privacy import rankdata
from synthleak.serde import Result


def spearman(x: np.ndarray, y: np.ndarray) -> float:
    """Spearman rank correlation (average ranks for ties); NaN when either side is constant."""
    rx, ry = rankdata(np.asarray(x)), rankdata(np.asarray(y))
    if rx.std() == 0 or ry.std() == 0:
        return math.nan
    return float(np.corrcoef(rx, ry)[0, 1])


def spearman_ci(
    x: np.ndarray,
    y: np.ndarray,
    *,
    rng: np.random.Generator,
    n_boot: int = 1000,
    confidence: float = 0.95,
) -> tuple[float, float, float]:
    """Spearman's rho with a percentile bootstrap CI (records resampled with replacement).

    References
    ----------
    Efron and Tibshirani (1993), Ch. 13 (percentile intervals).
    """
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    rho = spearman(x, y)
    n = x.size
    if n < 3 or math.isnan(rho):
        return rho, math.nan, math.nan
    idx = rng.integers(0, n, (n_boot, n))
    vals = np.array([spearman(x[i], y[i]) for i in idx])
    vals = vals[~np.isnan(vals)]
    if vals.size == 0:
        return rho, math.nan, math.nan
    a = (1 - confidence) / 2
    return rho, float(np.quantile(vals, a)), float(np.quantile(vals, 1 - a))


def top_k_precision(score: np.ndarray, risk: np.ndarray, k: int = 10) -> float:
    """Fraction of the ``k`` records ranked highest by ``score`` that are in the true top ``k``.

    The true top ``k`` is every record whose risk reaches the ``k``-th largest risk (ties at the
    boundary are all counted as top); the score's top ``k`` breaks ties by row order.
    """
    k = min(k, score.size)
    if k == 0:
        return math.nan
    pred = np.argsort(-score, kind="stable")[:k]
    thresh = np.sort(risk)[::-1][k - 1]
    return float(np.mean(risk[pred] >= thresh))


@dataclass(frozen=True, repr=False)
class SelectorAgreement(Result):
    """How one selector's scores agree with the measured risk."""

    spearman: float
    spearman_ci: tuple[float, float]
    precision_at_k: float


@dataclass(frozen=True, repr=False)
class RankValidation(Result):
    """Agreement of every selector with the measured risk of ``n_records`` records."""

    n_records: int
    top_k: int
    chance_precision: float
    selectors: dict[str, SelectorAgreement] = field(default_factory=dict)


def rank_validation(
    risk: np.ndarray,
    scores: dict[str, np.ndarray],
    *,
    rng: np.random.Generator,
    k: int = 10,
    n_boot: int = 1000,
) -> RankValidation:
    """Spearman (bootstrap CI) and top-``k`` precision of every selector score against ``risk``.

    Records whose risk is undefined (NaN) are left out. The chance level of the precision is
    ``k / n``.
    """
    risk = np.asarray(risk, dtype=np.float64)
    ok = ~np.isnan(risk)
    n_ok = int(ok.sum())
    out = {}
    for name, s in scores.items():
        s = np.asarray(s, dtype=np.float64)
        rho, lo, hi = spearman_ci(s[ok], risk[ok], rng=rng, n_boot=n_boot)
        out[name] = SelectorAgreement(rho, (lo, hi), top_k_precision(s[ok], risk[ok], k))
    return RankValidation(n_ok, int(k), float(min(k, n_ok) / max(n_ok, 1)), out)
