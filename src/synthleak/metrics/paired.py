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

from synthleak.metrics.privacy import PairedComparison, paired_outcomes, rankdata
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
    a, _, a_only, b_only = paired_outcomes(correct_a, correct_b)
    n = int(a.size)
    if n == 0:
        nan = float("nan")
        return PairedComparison(nan, nan, nan, 1.0, 0, 0, 0, confidence)
    vals = share_difference_resamples(a_only, b_only, n, rng=rng, n_boot=n_boot)
    return PairedComparison.from_resamples(
        (a_only - b_only) / n, vals, a_only, b_only, n, confidence
    )


@dataclass(frozen=True, repr=False)
class ExcessDifference(Result):
    """Candidate ``a``'s excess minus candidate ``b``'s, where a candidate's excess is its
    success rate on the training targets minus its rate on the control targets, every target
    attacked in both (:func:`paired_excess_difference`).

    Attributes
    ----------
    difference : float
    ci_low, ci_high : float
        Percentile bootstrap interval, resampling the training and the control targets apart.
    p_value : float
        Two-sided exact sign-flip test of "no difference" (McNemar's exact test when no
        control target tells the candidates apart).
    n_targets, n_controls : int
    a_only, b_only : int
        Training targets only ``a``'s attack succeeded on, and only ``b``'s.
    control_a_only, control_b_only : int
        The same on the control targets.
    confidence : float
    """

    difference: float
    ci_low: float
    ci_high: float
    p_value: float
    n_targets: int
    n_controls: int
    a_only: int
    b_only: int
    control_a_only: int
    control_b_only: int
    confidence: float = 0.95


def sign_flip_p_value(
    a_only: int, b_only: int, n: int, ca_only: int, cb_only: int, m: int
) -> float:
    """Two-sided exact p-value of ``(a_only - b_only) / n - (ca_only - cb_only) / m`` under the
    hypothesis that the two candidates are exchangeable on every target: each discordant target
    then counts for ``a`` or for ``b`` with probability 1/2, independently, so the statistic is
    ``(2I - k) / n - (2J - l) / m`` with ``I ~ Bin(k, 1/2)`` over the ``k`` discordant training
    targets and ``J ~ Bin(l, 1/2)`` over the ``l`` discordant control targets. Without control
    targets that tell them apart this is McNemar's exact test (McNemar (1947))."""
    from scipy.stats import binom  # scipy.stats is slow to import; only needed here

    k, ell = a_only + b_only, ca_only + cb_only
    observed = abs((a_only - b_only) / n - ((ca_only - cb_only) / m if m else 0.0))
    i, j = np.arange(k + 1), np.arange(ell + 1)
    t = (2 * i[:, None] - k) / n - ((2 * j[None, :] - ell) / m if m else 0.0)
    prob = binom.pmf(i, k, 0.5)[:, None] * binom.pmf(j, ell, 0.5)[None, :]
    p = float(prob[np.abs(t) >= observed * (1 - 1e-9) - 1e-12].sum())
    return min(1.0, p)


def paired_excess_difference(
    train_a: np.ndarray,
    train_b: np.ndarray,
    control_a: np.ndarray,
    control_b: np.ndarray,
    *,
    rng: np.random.Generator,
    n_boot: int = 2000,
    confidence: float = 0.95,
) -> ExcessDifference:
    """Compare two candidates' excess success over the control on the same targets.

    ``train_a`` and ``train_b`` say, per training target, whether the attack on candidate
    ``a`` and on ``b`` succeeded (the same targets, in one order); ``control_a`` and
    ``control_b`` the same per control target. The figure is
    ``(rate(train_a) - rate(control_a)) - (rate(train_b) - rate(control_b))``: paired within
    each set of targets, the two sets independent. Its interval resamples each set apart (each
    as :func:`share_difference_resamples`); its p-value is :func:`sign_flip_p_value`.
    """
    ta, tb = np.asarray(train_a).astype(bool), np.asarray(train_b).astype(bool)
    ca, cb = np.asarray(control_a).astype(bool), np.asarray(control_b).astype(bool)
    if ta.shape != tb.shape or ca.shape != cb.shape or ta.ndim != 1 or ca.ndim != 1:
        raise ValueError("paired outcomes must be 1-d vectors, of one length per set of targets")
    n, m = int(ta.size), int(ca.size)
    if n == 0 or m == 0:
        raise ValueError("a paired excess needs training targets and control targets")
    a1, b1 = int((ta & ~tb).sum()), int((~ta & tb).sum())
    a2, b2 = int((ca & ~cb).sum()), int((~ca & cb).sum())
    vals = share_difference_resamples(
        a1, b1, n, rng=rng, n_boot=n_boot
    ) - share_difference_resamples(a2, b2, m, rng=rng, n_boot=n_boot)
    alpha = (1 - confidence) / 2
    return ExcessDifference(
        difference=(a1 - b1) / n - (a2 - b2) / m,
        ci_low=float(np.quantile(vals, alpha)),
        ci_high=float(np.quantile(vals, 1 - alpha)),
        p_value=sign_flip_p_value(a1, b1, n, a2, b2, m),
        n_targets=n,
        n_controls=m,
        a_only=a1,
        b_only=b1,
        control_a_only=a2,
        control_b_only=b2,
        confidence=confidence,
    )
