"""Paired comparison of two ROC curves scored on the same records (DeLong et al. (1988)).

Two releases audited with the same draws score the same members and non-members; the difference
of their AUCs is then paired, and its variance is that of correlated ROC curves: DeLong's
structural components (one per member, one per non-member) give the covariance of the two AUCs
without resampling. The interval and the two-sided p-value come from one normal approximation,
so the interval excludes 0 exactly when the p-value is below ``1 - confidence``.

(The paired comparison of two 0/1 outcome vectors, such as "this record is copied verbatim",
is :func:`synthleak.metrics.privacy.paired_accuracy_difference`: McNemar's exact test.)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from synthleak.metrics.privacy import rankdata
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
