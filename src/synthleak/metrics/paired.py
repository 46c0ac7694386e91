"""Paired comparison of two ROC curves scored on the same records (DeLong et al. (1988)).

Two releases audited with the same draws score the same members and non-members; the difference
of their AUCs is then paired, and its variance is that of correlated ROC curves: DeLong's
structural components (one per member, one per non-member) give the covariance of the two AUCs
without resampling. The interval and the two-sided p-value come from one normal approximation,
so the interval excludes 0 exactly when the p-value is below ``1 - confidence``.

The paired comparison of two 0/1 outcome vectors, such as "this record is copied verbatim",
is :func:`synthleak.metrics.privacy.paired_accuracy_difference` (McNemar's exact test, a
bootstrap over clusters of outcomes); with one outcome per cluster, :func:`paired_share_difference`
gives the same test and the same bootstrap distribution, drawn without resampling the records
one by one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from synthleak.metrics.privacy import PairedComparison, mcnemar_exact, rankdata
from synthleak.serde import Result


@dataclass(frozen=True, repr=False)
class AucDifference(Result):
    """AUC of scores ``a`` minus AUC of scores ``b`` on the same labelled records.

    Attributes
    ----------
    difference : float
        ``auc(a) - auc(b)``.
    ci_low, ci_high : float
        DeLong interval of the difference (normal approximation).
    p_value : float
        Two-sided p-value of "equal AUCs" from the same approximation.
    auc_a, auc_b : float
    n_positive, n_negative : int
    confidence : float
    """

    difference: float
    ci_low: float
    ci_high: float
    p_value: float
    auc_a: float
    auc_b: float
    n_positive: int
    n_negative: int
    confidence: float = 0.95


def _components(pos: np.ndarray, neg: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
    """The AUC of one score and its structural components: per positive, the share of negatives
    it outscores (ties half); per negative, the share of positives that outscore it."""
    m, n = pos.size, neg.size
    both = rankdata(np.r_[pos, neg])
    v10 = (both[:m] - rankdata(pos)) / n
    v01 = 1.0 - (both[m:] - rankdata(neg)) / m
    return float(v10.mean()), v10, v01


def paired_auc_difference(
    labels: np.ndarray,
    scores_a: np.ndarray,
    scores_b: np.ndarray,
    *,
    confidence: float = 0.95,
) -> AucDifference:
    """Compare two scorings of the same records by their AUCs (DeLong et al. (1988)).

    ``labels`` are 1 for positives (members) and 0 for negatives; ``scores_a`` and ``scores_b``
    score the same records in the same order. Needs at least two positives and two negatives.
    """
    y = np.asarray(labels).astype(bool)
    a = np.asarray(scores_a, dtype=np.float64)
    b = np.asarray(scores_b, dtype=np.float64)
    if not (y.shape == a.shape == b.shape) or y.ndim != 1:
        raise ValueError("labels and both scorings must be 1-d vectors of one length")
    m, n = int(y.sum()), int((~y).sum())
    if m < 2 or n < 2:
        raise ValueError("a paired AUC comparison needs at least two positives and two negatives")
    auc_a, v10_a, v01_a = _components(a[y], a[~y])
    auc_b, v10_b, v01_b = _components(b[y], b[~y])
    d10, d01 = v10_a - v10_b, v01_a - v01_b
    var = float(np.var(d10, ddof=1) / m + np.var(d01, ddof=1) / n)
    diff = auc_a - auc_b
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    if var <= 0.0:  # the two scorings rank every pair alike
        p = 1.0 if diff == 0.0 else 0.0
        return AucDifference(diff, diff, diff, p, auc_a, auc_b, m, n, confidence)
    sd = math.sqrt(var)
    p = 2.0 * NormalDist().cdf(-abs(diff) / sd)
    return AucDifference(diff, diff - z * sd, diff + z * sd, p, auc_a, auc_b, m, n, confidence)


def share_difference_resamples(
    a_only: int, b_only: int, n: int, *, rng: np.random.Generator, n_boot: int = 2000
) -> np.ndarray:
    """``n_boot`` bootstrap resamples of the difference of two shares over ``n`` paired records,
    of which ``a_only`` count for ``a`` alone and ``b_only`` for ``b`` alone.

    A bootstrap resample draws ``n`` records with replacement, each uniformly; its difference is
    (records of ``a_only`` drawn − records of ``b_only`` drawn) / ``n``, and only those two
    counts matter. They are one multinomial draw of ``n`` over the three kinds of record
    (shares ``a_only/n``, ``b_only/n`` and the rest), so the resample is drawn as that: the same
    distribution as resampling the records, at the cost of ``n_boot`` multinomial draws instead
    of ``n_boot`` x ``n`` record draws.
    """
    counts = rng.multinomial(n, [a_only / n, b_only / n, (n - a_only - b_only) / n], size=n_boot)
    return (counts[:, 0] - counts[:, 1]) / float(n)


def paired_share_difference(
    correct_a: np.ndarray,
    correct_b: np.ndarray,
    *,
    rng: np.random.Generator,
    n_boot: int = 2000,
    confidence: float = 0.95,
) -> PairedComparison:
    """Compare two 0/1 outcome vectors on the same records, one outcome per record (such as
    "the release publishes this original record verbatim"): the difference of the two shares,
    McNemar's exact test (McNemar (1947)) and a percentile bootstrap interval over the records.

    The figures are those of :func:`~synthleak.metrics.privacy.paired_accuracy_difference`
    without clusters: the same difference and p-value, and an interval from the same bootstrap
    distribution, drawn by :func:`share_difference_resamples` (the resamples themselves differ:
    another use of the random stream).
    """
    a = np.asarray(correct_a).astype(bool)
    b = np.asarray(correct_b).astype(bool)
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError("paired outcomes must be two 1-d vectors of the same length")
    n = int(a.size)
    a_only, b_only = int((a & ~b).sum()), int((~a & b).sum())
    if n == 0:
        nan = float("nan")
        return PairedComparison(nan, nan, nan, 1.0, 0, 0, 0, confidence)
    vals = share_difference_resamples(a_only, b_only, n, rng=rng, n_boot=n_boot)
    alpha = (1 - confidence) / 2
    return PairedComparison(
        difference=float((a_only - b_only) / n),
        ci_low=float(np.quantile(vals, alpha)),
        ci_high=float(np.quantile(vals, 1 - alpha)),
        p_value=mcnemar_exact(a_only, b_only),
        n=n,
        a_only=a_only,
        b_only=b_only,
        confidence=confidence,
    )
