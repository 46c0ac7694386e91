"""Privacy metrics: pure functions on arrays.

AUC (Mann-Whitney, ties counted half), accuracy, TPR at a fixed FPR, bootstrap and Wilson
confidence intervals, the :class:`RiskEstimate` every attack reports, the paired comparison of
two attacks on the same secrets (:func:`paired_accuracy_difference`) and the comparison of one
attack's accuracy on two independent groups of people (:func:`accuracy_difference`). Each
estimator that feeds a finding attaches its own one-sided p-value of "no leak" to the estimate
(:func:`auc_above_p`, the exact :func:`binomial_p` and :func:`two_rate_p`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from synthleak.serde import Result


@dataclass(frozen=True, repr=False)
class RiskEstimate(Result):
    """A risk figure with its confidence interval.

    Attributes
    ----------
    value : float
        Point estimate.
    ci_low, ci_high : float
        Confidence interval bounds.
    confidence : float
        Confidence level of the interval (e.g. 0.95).
    n_trials : int
        Number of trials (games, attacks, test datasets) behind the estimate.
    baseline : float or None
        What a random guess (or the control set) scores on the same scale.
    p_value : float
        One-sided p-value of "no leak" (an AUC of 0.5, a rate at most its fixed chance rate, no
        excess over the control) from the estimator's own null distribution or an exact test,
        never from the interval; NaN when the estimator gives none (older reports, or nothing
        measured).
    """

    value: float
    ci_low: float
    ci_high: float
    confidence: float = 0.95
    n_trials: int = 0
    baseline: float | None = None
    p_value: float = math.nan

    @property
    def width(self) -> float:
        """Width of the confidence interval (NaN when undefined)."""
        return self.ci_high - self.ci_low

    def __repr__(self) -> str:
        return (
            f"RiskEstimate({self.value:.4g} [{self.ci_low:.4g}, {self.ci_high:.4g}] at "
            f"{self.confidence:.0%}, n={self.n_trials}, baseline={self.baseline})"
        )


def rankdata(x: np.ndarray) -> np.ndarray:
    """Ranks 1..n with ties given their average rank (as ``scipy.stats.rankdata``)."""
    x = np.asarray(x)
    order = np.argsort(x, kind="mergesort")
    xs = x[order]
    starts = np.concatenate([[True], xs[1:] != xs[:-1]]) if xs.size else np.array([], dtype=bool)
    group = np.cumsum(starts) - 1
    first = np.flatnonzero(starts)
    counts = np.diff(np.concatenate([first, [xs.size]]))
    avg = first + (counts + 1) / 2.0
    ranks = np.empty(x.size, dtype=np.float64)
    ranks[order] = avg[group]
    return ranks


def auc(labels: np.ndarray, scores: np.ndarray) -> float:
    """Area under the ROC curve (probability a positive outscores a negative; ties half).

    Returns NaN when only one class is present.
    """
    y = np.asarray(labels).astype(bool)
    s = np.asarray(scores, dtype=np.float64)
    n_pos = int(y.sum())
    n_neg = y.size - n_pos
    if n_pos == 0 or n_neg == 0:
        return float("nan")
    ranks = rankdata(s)
    return float((ranks[y].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


def accuracy(labels: np.ndarray, predictions: np.ndarray) -> float:
    """Fraction of correct predictions."""
    y = np.asarray(labels)
    return float(np.mean(y == np.asarray(predictions))) if y.size else float("nan")


def roc_curve(labels: np.ndarray, scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(fpr, tpr) at every distinct threshold, from (0, 0) to (1, 1)."""
    y = np.asarray(labels).astype(bool)
    s = np.asarray(scores, dtype=np.float64)
    order = np.argsort(-s, kind="mergesort")
    s, y = s[order], y[order]
    distinct = np.flatnonzero(np.diff(s)) if s.size else np.array([], dtype=int)
    idx = np.concatenate([distinct, [y.size - 1]]) if y.size else np.array([], dtype=int)
    tps = np.cumsum(y)[idx]
    fps = (idx + 1) - tps
    n_pos, n_neg = max(int(y.sum()), 1), max(int((~y).sum()), 1)
    return (
        np.concatenate([[0.0], fps / n_neg]),
        np.concatenate([[0.0], tps / n_pos]),
    )


def tpr_at_fpr(labels: np.ndarray, scores: np.ndarray, fpr: float) -> float:
    """Highest true-positive rate at a false-positive rate of at most ``fpr``."""
    f, t = roc_curve(labels, scores)
    ok = f <= fpr + 1e-12
    return float(t[ok].max()) if ok.any() else 0.0


@dataclass(frozen=True, repr=False)
class TprAtFpr(Result):
    """True-positive rate at a fixed false-positive rate, with its interval.

    Attributes
    ----------
    fpr : float
        The false-positive rate the threshold is set at.
    value : float or None
        Highest TPR among thresholds whose empirical FPR is at most ``fpr``; ``None`` when the
        non-members cannot resolve ``fpr`` (fewer than ``1 / fpr``), with the reason in ``note``.
    ci_low, ci_high : float or None
        Interval for the attack's TPR at the threshold whose FPR **in the population** is
        ``fpr`` (its ROC curve at ``fpr``): it includes the uncertainty of the threshold,
        set on a finite sample of non-members, not only the binomial noise of the members
        (:func:`tpr_at_fpr_estimate`).
    n_members, n_non_members : int
        Members and non-members the figure rests on.
    confidence : float
    note : str or None
    """

    fpr: float
    value: float | None
    ci_low: float | None
    ci_high: float | None
    n_members: int
    n_non_members: int
    confidence: float = 0.95
    note: str | None = None

    @property
    def resolvable(self) -> bool:
        """Whether there were enough non-members to measure the TPR at this FPR."""
        return self.value is not None


def clopper_pearson(successes: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Exact (Clopper-Pearson) two-sided interval of a binomial proportion."""
    from scipy.stats import beta  # scipy.stats is slow to import; only needed here

    if n <= 0:
        return 0.0, 1.0
    a = (1 - confidence) / 2
    lo = 0.0 if successes == 0 else float(beta.ppf(a, successes, n - successes + 1))
    hi = 1.0 if successes == n else float(beta.ppf(1 - a, successes + 1, n - successes))
    return lo, hi


def tpr_at_fpr_estimate(
    labels: np.ndarray, scores: np.ndarray, fpr: float, *, confidence: float = 0.95
) -> TprAtFpr:
    """TPR at FPR ``fpr`` with an interval that accounts for the threshold's own uncertainty.

    The point value is :func:`tpr_at_fpr`. The interval targets ``TPR(t*)``, where ``t*`` is
    the threshold whose FPR among all non-members of the population is ``fpr``. The threshold
    set on ``n`` sampled non-members is itself uncertain: the number of them scoring above
    ``t*`` is binomial ``(n, fpr)``, so with probability ``1 - alpha/2`` it lies between that
    binomial's ``alpha/4`` and ``1 - alpha/4`` quantiles ``j_lo`` and ``j_hi``, which puts
    ``t*`` between the non-member scores of ranks ``j_hi + 1`` (``t_lo``) and ``j_lo``
    (``t_hi``). The TPR decreases with the threshold, so ``TPR(t_hi) <= TPR(t*) <= TPR(t_lo)``;
    the bounds are the Clopper-Pearson lower bound (at ``alpha/4``) of the members scoring
    above ``t_hi`` and the upper bound (at ``alpha/4``) of those scoring at least ``t_lo``.
    By the union bound the interval covers ``TPR(t*)`` with probability at least
    ``confidence`` (conservative; ties are counted against the claim on each side). When
    members and non-members score alike (no leak), ``TPR(t*) = fpr``, so the interval covers
    the FPR itself.

    Fewer than ``1 / fpr`` non-members cannot resolve ``fpr`` (a single non-member above the
    threshold already exceeds it): the value and the bounds are then ``None`` with a note.
    Between ``1 / fpr`` and about ``4.4 / fpr`` non-members the value is measured but the lower
    bound is 0: so few non-members cannot rule out that the population's top ``fpr`` of
    non-members lies above every sampled score (``(1 - fpr)^n >= alpha / 4``).

    References
    ----------
    Clopper and Pearson (1934) (exact binomial interval); Carlini et al. (2022) (TPR at low
    FPR).
    """
    from scipy.stats import binom

    y = np.asarray(labels).astype(bool)
    s = np.asarray(scores, dtype=np.float64)
    neg = s[~y]
    pos = s[y]
    n, m = int(neg.size), int(pos.size)
    need = int(np.ceil(1.0 / fpr - 1e-9))
    if n < need or m == 0:
        why = (
            f"TPR at FPR {fpr:g} not resolvable at this size: needs at least {need} "
            f"non-members, have {n}"
            if n < need
            else f"TPR at FPR {fpr:g} not measured: no members"
        )
        return TprAtFpr(float(fpr), None, None, None, m, n, confidence, why)
    value = tpr_at_fpr(y, s, fpr)
    alpha = 1 - confidence
    j_lo = int(binom.ppf(alpha / 4, n, fpr))
    j_hi = int(binom.ppf(1 - alpha / 4, n, fpr))
    desc = np.sort(neg)[::-1]
    t_hi = np.inf if j_lo <= 0 else float(desc[j_lo - 1])
    t_lo = -np.inf if j_hi >= n else float(desc[j_hi])
    k_lo = int((pos > t_hi).sum())
    k_hi = int((pos >= t_lo).sum())
    lo = clopper_pearson(k_lo, m, 1 - alpha / 2)[0]
    hi = clopper_pearson(k_hi, m, 1 - alpha / 2)[1]
    return TprAtFpr(float(fpr), value, lo, hi, m, n, confidence)


def auc_above_p(labels: np.ndarray, scores: np.ndarray, threshold: float) -> float:
    """One-sided p-value of "this attack's AUC is at most ``threshold``".

    The AUC's standard error is DeLong's (from each record's placement among the other class),
    floored by Hanley and McNeil's at the threshold itself, the variance under the null's
    boundary: a perfect separation of a few trials (DeLong's variance 0) then still needs
    enough trials to be significant. Normal approximation; NaN with one class only. Simulated
    on binormal scores of true AUC equal to the threshold (0.5, 0.8, 0.9; 25 to 100 per class),
    the test rejects at 5 % in 1.7-5.0 % of draws.
    """
    y = np.asarray(labels).astype(bool)
    s = np.asarray(scores, dtype=np.float64)
    pos, neg = s[y], s[~y]
    m, n = pos.size, neg.size
    if m == 0 or n == 0:
        return math.nan
    ranks = rankdata(np.concatenate([pos, neg]))
    v10 = (ranks[:m] - rankdata(pos)) / n  # share of non-members each member outscores
    v01 = 1.0 - (ranks[m:] - rankdata(neg)) / m  # share of members outscoring each non-member
    value = float(v10.mean())
    var_d = (v10.var(ddof=1) / m if m > 1 else 0.0) + (v01.var(ddof=1) / n if n > 1 else 0.0)
    t = float(threshold)
    q1, q2 = t / (2 - t), 2 * t * t / (1 + t)
    var_h = (t * (1 - t) + (m - 1) * (q1 - t * t) + (n - 1) * (q2 - t * t)) / (m * n)
    se = math.sqrt(max(var_d, var_h))
    return 1.0 - NormalDist().cdf((value - t) / se)


@dataclass(frozen=True)
class BootstrapDraws:
    """The resamples of a stratified bootstrap: row ``b`` of ``positives`` (``negatives``)
    holds the indices, among the positives (negatives), that draw ``b`` takes.

    Made once by :func:`bootstrap_draws` and given to :func:`auc_estimate` for several score
    vectors of the same records (the attacks of one game): each interval is then read from the
    same resamples of the same people, a paired bootstrap, and the draws are made once.
    """

    positives: np.ndarray
    negatives: np.ndarray


def bootstrap_draws(
    n_pos: int, n_neg: int, *, rng: np.random.Generator, n_boot: int = 1000
) -> BootstrapDraws:
    """``n_boot`` stratified resamples of ``n_pos`` positives and ``n_neg`` negatives (the
    draws :func:`auc_estimate` makes from ``rng`` when it is given none)."""
    return BootstrapDraws(
        rng.integers(0, max(n_pos, 1), (n_boot, n_pos)),
        rng.integers(0, max(n_neg, 1), (n_boot, n_neg)),
    )


def auc_estimate(
    labels: np.ndarray,
    scores: np.ndarray,
    *,
    rng: np.random.Generator | None = None,
    n_boot: int = 1000,
    confidence: float = 0.95,
    draws: BootstrapDraws | None = None,
) -> RiskEstimate:
    """AUC with a stratified bootstrap CI (positives and negatives resampled separately).

    The resamples are ``draws`` when given (made by :func:`bootstrap_draws` for as many
    positives and negatives as ``labels`` holds; ``n_boot`` is then theirs), else drawn from
    ``rng``. Its ``p_value`` tests "the AUC is at most 0.5" with :func:`auc_above_p`: at 0.5 the
    floor of that test's variance is the exact null variance of the Mann-Whitney statistic,
    ``(m + n + 1) / (12 m n)`` (conservative with ties), so the p-value does not depend on the
    bootstrap draw or on where the interval happens to be clipped.
    """
    y = np.asarray(labels).astype(bool)
    s = np.asarray(scores, dtype=np.float64)
    value = auc(y, s)
    pos, neg = s[y], s[~y]
    if pos.size == 0 or neg.size == 0:
        return RiskEstimate(value, float("nan"), float("nan"), confidence, y.size, 0.5)
    if draws is None:
        if rng is None:
            raise TypeError("auc_estimate needs rng or draws")
        draws = bootstrap_draws(pos.size, neg.size, rng=rng, n_boot=n_boot)
    elif draws.positives.shape[1] != pos.size or draws.negatives.shape[1] != neg.size:
        raise ValueError(
            f"draws resample {draws.positives.shape[1]} positives and "
            f"{draws.negatives.shape[1]} negatives, the labels hold {pos.size} and {neg.size}"
        )
    bi_p, bi_n = draws.positives, draws.negatives
    if np.isnan(s).any():  # NaN ranks as its own value: the pooled ranks say how
        vals = np.empty(bi_p.shape[0])
        for b in range(bi_p.shape[0]):
            vals[b] = _auc_two(pos[bi_p[b]], neg[bi_n[b]])
    else:
        vals = _boot_aucs(pos, neg, bi_p, bi_n)
    alpha = (1 - confidence) / 2
    return RiskEstimate(
        value,
        float(np.quantile(vals, alpha)),
        float(np.quantile(vals, 1 - alpha)),
        confidence,
        int(y.size),
        0.5,
        _p_or_nan(auc_above_p(y, s, 0.5)),
    )


def _p_or_nan(p: float) -> float:
    """``p`` as a float in [0, 1], or the one NaN (so results round-trip equal)."""
    return float(min(max(p, 0.0), 1.0)) if math.isfinite(p) else math.nan


def binomial_p(successes: int, n: int, chance: float) -> float:
    """Exact one-sided binomial p-value of "the rate is at most ``chance``": ``P(X >= k)``.

    For a rate against a fixed chance rate (an attribute guess against ``1 / classes``). Being
    exact and discrete, it is conservative: ``P(p <= a) <= a`` at every ``a`` when the rate is
    ``chance``. NaN without trials or without a chance rate in [0, 1].
    """
    from scipy.stats import binom  # scipy.stats is slow to import; only needed here

    if n <= 0 or not (0.0 <= chance <= 1.0):
        return math.nan
    return _p_or_nan(float(binom.sf(int(successes) - 1, int(n), float(chance))))


def two_rate_p(successes: int, n: int, base_successes: int, base_n: int) -> float:
    """One-sided p-value of "the first rate is at most the second" (Fisher's exact test).

    Conditional on the total number of successes, the first sample's count is hypergeometric
    when the two rates are equal; the p-value is its upper tail ``P(X >= successes)``. Exact
    whatever the counts (copies are rare: a few successes out of thousands, where the normal
    approximation of a score test is anti-conservative), and conservative as every exact
    discrete test: ``P(p <= a) <= a``. It tests the same difference Newcombe's interval of
    :func:`rate_excess` bounds. NaN when a sample is empty.

    References
    ----------
    Fisher (1935), The Design of Experiments (exact test of a 2 x 2 table).
    """
    from scipy.stats import hypergeom  # scipy.stats is slow to import; only needed here

    if n <= 0 or base_n <= 0:
        return math.nan
    k, k2 = int(successes), int(base_successes)
    total = n + base_n
    return _p_or_nan(float(hypergeom.sf(k - 1, total, k + k2, n)))


def _boot_aucs(pos: np.ndarray, neg: np.ndarray, bi_p: np.ndarray, bi_n: np.ndarray) -> np.ndarray:
    """The AUC of every bootstrap draw (row ``b``: positives ``pos[bi_p[b]]``, negatives
    ``neg[bi_n[b]]``), equal to :func:`_auc_two` on each draw, without ranking it.

    Each draw's Mann-Whitney count is the sum, over its positives, of the number of its
    negatives below them (a negative of equal score weighs a half): the draw's negatives are
    counted per distinct negative score, cumulated along the sorted scores and read at each
    positive's place, by a compiled loop over the draws
    (:func:`synthleak.metrics.bootstrap.boot_counts`; memory: the distinct negatives, beside
    the draws). The counts are integers and halves, so the sums are exact and the AUCs are
    those of the rank formula, bit for bit. For scores without NaN.
    """
    from synthleak.metrics.bootstrap import boot_counts  # numba: imported when first needed

    uniq, code = np.unique(neg, return_inverse=True)
    u = uniq.size
    lt = np.searchsorted(uniq, pos, side="left")  # distinct negatives below each positive
    at = np.minimum(lt, u - 1)
    eq = (lt < u) & (uniq[at] == pos)
    counts = boot_counts(
        code.ravel().astype(np.int64),
        lt.astype(np.int64),
        at.astype(np.int64),
        eq,
        u,
        np.ascontiguousarray(bi_p, dtype=np.int64),
        np.ascontiguousarray(bi_n, dtype=np.int64),
    )
    return counts / (bi_p.shape[1] * bi_n.shape[1])


def _auc_two(pos: np.ndarray, neg: np.ndarray) -> float:
    ranks = rankdata(np.concatenate([pos, neg]))
    return float((ranks[: pos.size].sum() - pos.size * (pos.size + 1) / 2) / (pos.size * neg.size))


def wilson_interval(
    successes: int, n: int, confidence: float = 0.95, *, continuity: bool = False
) -> tuple[float, float]:
    """Wilson score interval of a binomial proportion; with ``continuity``, Wilson's interval
    with continuity correction (Newcombe 1998, method 4: wider, its ends closed to the nearest
    attainable counts)."""
    if n <= 0:
        return 0.0, 1.0
    z = NormalDist().inv_cdf(1 - (1 - confidence) / 2)
    p = successes / n
    if continuity:
        z2, den = z * z, 2 * (n + z * z)
        lo = 0.0
        if successes > 0:
            root = math.sqrt(max(0.0, z2 - 2 - 1 / n + 4 * p * (n * (1 - p) + 1)))
            lo = max(0.0, (2 * n * p + z2 - 1 - z * root) / den)
        hi = 1.0
        if successes < n:
            root = math.sqrt(max(0.0, z2 + 2 - 1 / n + 4 * p * (n * (1 - p) - 1)))
            hi = min(1.0, (2 * n * p + z2 + 1 + z * root) / den)
        return lo, hi
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    lo = 0.0 if successes == 0 else max(0.0, centre - half)
    hi = 1.0 if successes == n else min(1.0, centre + half)
    return lo, hi


def rate_excess(
    successes: int,
    n: int,
    base_successes: int,
    base_n: int,
    *,
    confidence: float = 0.95,
    continuity: bool = False,
) -> RiskEstimate:
    """The excess of a proportion over a baseline proportion measured on other records.

    ``successes / n - base_successes / base_n`` with Newcombe's hybrid score interval (method 10
    of Newcombe 1998: the two Wilson intervals combined), which keeps its coverage when either
    rate is 0 or 1 and when the baseline rests on few records. The baseline of the result is 0
    (no excess): a verdict read from it asks whether the rate exceeds what the baseline records
    show, not whether it exceeds zero. Its ``p_value`` is Fisher's exact one-sided test of the
    same two counts (:func:`two_rate_p`).

    With ``continuity``, the two Wilson intervals are continuity-corrected (method 11). The
    uncorrected interval's lower end exceeds 0 a little more often than its nominal one-sided
    rate when nothing differs and the sizes are unequal: at 400 against 100 records, exactly
    computed, 2.6 % at rates near 0.5, 2.8 % at 0.8 and 3.1 % at 0.95 for a nominal 2.5 %; the
    corrected one 2.1 %, 2.2 % and 2.1 %.
    """
    if n <= 0 or base_n <= 0:
        nan = float("nan")
        return RiskEstimate(nan, nan, nan, confidence, max(n, 0), 0.0)
    p1, p2 = successes / n, base_successes / base_n
    l1, u1 = wilson_interval(successes, n, confidence, continuity=continuity)
    l2, u2 = wilson_interval(base_successes, base_n, confidence, continuity=continuity)
    d = p1 - p2
    lo = d - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2)
    hi = d + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)
    p = two_rate_p(successes, n, base_successes, base_n)
    return RiskEstimate(d, max(-1.0, lo), min(1.0, hi), confidence, n, 0.0, p)


#: The false-positive rates every membership figure reports its TPR at (Carlini et al. 2022).
LOW_FPRS = (0.1, 0.01, 0.001)


def tpr_estimates(
    labels: np.ndarray, scores: np.ndarray, fprs: Sequence[float] = LOW_FPRS
) -> dict[str, TprAtFpr]:
    """TPR at each FPR with its interval (:func:`tpr_at_fpr_estimate`), keyed ``"0.1"``, ...;
    ``None`` figures with a note where fewer than ``1 / fpr`` non-members."""
    return {f"{f:g}": tpr_at_fpr_estimate(labels, scores, f) for f in fprs}


def holm_adjusted(p_values: Sequence[float]) -> list[float]:
    """Holm-adjusted p-values (Holm 1979): a test is rejected by Holm's procedure at level
    ``alpha`` exactly when its adjusted p-value is at most ``alpha``. NaN stays NaN and does not
    count as a test."""
    finite = [i for i, p in enumerate(p_values) if p is not None and math.isfinite(p)]
    idx = sorted(finite, key=lambda i: p_values[i])
    out = [math.nan] * len(p_values)
    m, running = len(idx), 0.0
    for rank, i in enumerate(idx):
        running = max(running, min(1.0, (m - rank) * p_values[i]))
        out[i] = running
    return out


def accuracy_estimate(
    correct: np.ndarray,
    *,
    baseline: float | None = None,
    confidence: float = 0.95,
    test: bool = False,
) -> RiskEstimate:
    """Accuracy of a 0/1 vector of outcomes with its Wilson interval.

    ``test``: the baseline is a fixed chance rate (not itself estimated), and the estimate
    carries the exact binomial p-value of "the accuracy is at most the baseline"
    (:func:`binomial_p`); otherwise its ``p_value`` is NaN.
    """
    c = np.asarray(correct).astype(bool)
    k, n = int(c.sum()), int(c.size)
    lo, hi = wilson_interval(k, n, confidence)
    p = binomial_p(k, n, baseline) if test and baseline is not None else math.nan
    return RiskEstimate(k / n if n else float("nan"), lo, hi, confidence, n, baseline, p)


@dataclass(frozen=True, repr=False)
class PairedComparison(Result):
    """Accuracy of attack ``a`` minus attack ``b`` on the same attacked secrets.

    Attributes
    ----------
    difference : float
        ``accuracy(a) - accuracy(b)``.
    ci_low, ci_high : float
        Percentile bootstrap interval of the difference, resampling whole clusters (games: the
        targets of one game share a synthetic dataset, so they are not independent).
    p_value : float
        Exact two-sided McNemar test of equal accuracy (binomial test on the discordant pairs).
    n : int
        Number of paired outcomes.
    a_only, b_only : int
        Secrets only ``a`` got right, and only ``b`` got right.
    """

    difference: float
    ci_low: float
    ci_high: float
    p_value: float
    n: int
    a_only: int
    b_only: int
    confidence: float = 0.95

    @classmethod
    def from_resamples(
        cls,
        difference: float,
        resamples: np.ndarray,
        a_only: int,
        b_only: int,
        n: int,
        confidence: float,
    ) -> PairedComparison:
        """The comparison of ``difference``: its percentile interval over the bootstrap
        ``resamples`` and McNemar's exact test of the discordant pairs."""
        alpha = (1 - confidence) / 2
        return cls(
            difference=float(difference),
            ci_low=float(np.quantile(resamples, alpha)),
            ci_high=float(np.quantile(resamples, 1 - alpha)),
            p_value=mcnemar_exact(a_only, b_only),
            n=n,
            a_only=a_only,
            b_only=b_only,
            confidence=confidence,
        )


def paired_outcomes(
    correct_a: np.ndarray, correct_b: np.ndarray
) -> tuple[np.ndarray, np.ndarray, int, int]:
    """Two 0/1 outcome vectors on the same records as booleans, with the counts of the records
    only ``a`` got right and only ``b`` got right (the discordant pairs)."""
    a = np.asarray(correct_a).astype(bool)
    b = np.asarray(correct_b).astype(bool)
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError("paired outcomes must be two 1-d vectors of the same length")
    return a, b, int((a & ~b).sum()), int((~a & b).sum())


def mcnemar_exact(a_only: int, b_only: int) -> float:
    """Two-sided exact McNemar p-value: a binomial test of the discordant pairs at 1/2."""
    from scipy.stats import binomtest  # scipy.stats is slow to import; only needed here

    n = a_only + b_only
    return 1.0 if n == 0 else float(binomtest(min(a_only, b_only), n, 0.5).pvalue)


def paired_accuracy_difference(
    correct_a: np.ndarray,
    correct_b: np.ndarray,
    *,
    clusters: np.ndarray | None = None,
    rng: np.random.Generator,
    n_boot: int = 2000,
    confidence: float = 0.95,
) -> PairedComparison:
    """Compare two attacks scored on the same secrets (0/1 outcome vectors of equal length).

    ``clusters`` (one label per secret, e.g. the game) makes the bootstrap resample clusters
    instead of single secrets; without it every secret is its own cluster.
    """
    a, b, a_only, b_only = paired_outcomes(correct_a, correct_b)
    n = int(a.size)
    if n == 0:
        nan = float("nan")
        return PairedComparison(nan, nan, nan, 1.0, 0, 0, 0, confidence)
    diff = a.astype(np.float64) - b.astype(np.float64)
    labels = np.arange(n) if clusters is None else np.asarray(clusters)
    _, inverse = np.unique(labels, return_inverse=True)
    n_cl = int(inverse.max()) + 1
    sums = np.bincount(inverse, weights=diff, minlength=n_cl)
    sizes = np.bincount(inverse, minlength=n_cl).astype(np.float64)
    draws = rng.integers(0, n_cl, (n_boot, n_cl))
    if n_cl == n:  # one secret per cluster: whole-number sums over n, counted exactly in int8
        step = sums.astype(np.int8)  # -1, 0 or 1 per cluster
        vals = np.empty(n_boot)
        for lo in range(0, n_boot, 100):
            vals[lo : lo + 100] = step[draws[lo : lo + 100]].sum(axis=1, dtype=np.int64) / float(n)
    else:
        vals = sums[draws].sum(axis=1) / sizes[draws].sum(axis=1)
    return PairedComparison.from_resamples(diff.mean(), vals, a_only, b_only, n, confidence)


@dataclass(frozen=True, repr=False)
class AccuracyDifference(Result):
    """Accuracy on group ``a`` minus accuracy on an independent group ``b`` (other people).

    Attributes
    ----------
    difference : float
        ``accuracy(a) - accuracy(b)`` (NaN when a group is empty).
    ci_low, ci_high : float
        Newcombe's hybrid score interval (his method 10: the two Wilson intervals combined).
    p_value : float
        One-sided p-value of "``a`` is more accurate than ``b``" (pooled two-proportion score test).
    n_a, n_b : int
        Outcomes in each group.
    confidence : float
    """

    difference: float
    ci_low: float
    ci_high: float
    p_value: float
    n_a: int
    n_b: int
    confidence: float = 0.95

    @property
    def width(self) -> float:
        """Width of the interval (NaN when undefined)."""
        return self.ci_high - self.ci_low


def accuracy_difference(
    correct_a: np.ndarray, correct_b: np.ndarray, *, confidence: float = 0.95
) -> AccuracyDifference:
    """Compare the accuracy of one attack on two independent groups of people.

    Parameters
    ----------
    correct_a, correct_b : array of bool
        0/1 outcomes on each group (e.g. training records and control records).
    confidence : float
        Level of the two-sided interval.

    Returns
    -------
    AccuracyDifference
        Difference, Newcombe interval, one-sided p-value; NaN figures when a group is empty.

    References
    ----------
    Newcombe (1998), method 10 (hybrid score interval, from Wilson (1927) intervals).
    """
    a = np.asarray(correct_a).astype(bool).ravel()
    b = np.asarray(correct_b).astype(bool).ravel()
    na, nb = int(a.size), int(b.size)
    if na == 0 or nb == 0:
        nan = float("nan")
        return AccuracyDifference(nan, nan, nan, nan, na, nb, confidence)
    ka, kb = int(a.sum()), int(b.sum())
    pa, pb = ka / na, kb / nb
    la, ua = wilson_interval(ka, na, confidence)
    lb, ub = wilson_interval(kb, nb, confidence)
    d = pa - pb
    lo = d - math.sqrt((pa - la) ** 2 + (ub - pb) ** 2)
    hi = d + math.sqrt((ua - pa) ** 2 + (pb - lb) ** 2)
    pooled = (ka + kb) / (na + nb)
    se = math.sqrt(pooled * (1 - pooled) * (1 / na + 1 / nb))
    p = (0.0 if d > 0 else 1.0 if d < 0 else 0.5) if se == 0 else 1 - NormalDist().cdf(d / se)
    return AccuracyDifference(d, max(-1.0, lo), min(1.0, hi), p, na, nb, confidence)
