"""Empirical epsilon: what membership attacks prove about a differential-privacy claim.

A membership game plays, for one target record, many test datasets: half hold the target (IN),
half a random other record instead (OUT), and an attack scores each released synthetic dataset.
If the generator is (epsilon, delta)-differentially private, no test of IN against OUT can do
better than the DP trade-off, so the attack's true- and false-positive rates bound epsilon from
below. This module turns the scores into

* a **lower bound** on epsilon at 90 / 95 / 99 % confidence, from Clopper-Pearson intervals of the
  true- and false-positive rates at one threshold (Jagielski et al. 2020; Nasr et al. 2021);
* the **ceiling**: the largest epsilon the number of trials could ever certify;
* a **Gaussian-DP mu** estimated from the whole ROC curve (through its AUC), with an interval and
  its epsilon at the stated delta (Dong et al. 2022; Nasr et al. 2023), as a companion figure;
* a **verdict** against a claimed epsilon: ``violation``, ``consistent`` or ``inconclusive``.

Formulas
--------
For a test "member if score >= threshold" with true-positive rate TPR and false-positive rate
FPR, (epsilon, delta)-DP implies ``TPR <= e^eps FPR + delta`` and ``1 - FPR <= e^eps (1 - TPR) +
delta`` (the hypothesis-testing form of DP of Kairouz et al. 2015, as used by Jagielski et al.
2020). Hence, with one-sided Clopper-Pearson bounds ``TPR_lb`` and ``FPR_ub``::

    eps_lb = max(0, ln((TPR_lb - delta) / FPR_ub), ln((1 - FPR_ub - delta) / (1 - TPR_lb)))

which is Jagielski et al.'s ``max(ln((1 - delta - FN)/FP), ln((1 - delta - FP)/FN))`` with the
false-negative rate ``FN = 1 - TPR`` bounded from above. Both terms use the same two bounds
(``TPR >= TPR_lb`` and ``FPR <= FPR_ub``); each is the end of a two-sided interval at the stated
confidence ``c``, i.e. one-sided at ``1 - (1 - c) / 2``, so by the union bound both hold together
with probability at least ``c`` and ``eps_lb`` is a lower confidence bound at level ``c``. (The
form ``(1 - FPR_lb) / (1 - TPR_ub)`` would use the wrong end of both intervals and overstate the
bound.) The ceiling is the same bound with every trial classified correctly (``TPR = 1``,
``FPR = 0``); for ``n`` trials per class and ``a = (1 - c) / 2`` it is
``ln((a^(1/n) - delta) / (1 - a^(1/n)))``: 3.28 for n = 100 and 5.60 for n = 1,000 at c = 0.95
and delta = 0.

No winner's curse
-----------------
Choosing the threshold (and the attack, and the target) that maximise the bound on the same trials
the bound is computed on inflates it: the maximum of many 95 % lower bounds is not a 95 % lower
bound. :func:`empirical_epsilon` therefore splits the trials (test datasets) at random, seeded by
``rng``, into a SELECTION split (default half of them) and a disjoint EVALUATION split. The
candidate, the threshold and the direction are chosen on the selection split only; the bound, the
ceiling and the verdict are computed on the evaluation split only. A test dataset never serves
both splits, also when several targets share it (a shared pool, where one dataset is IN for one
target and OUT for another). The split is stratified by pool and label, so a candidate with its
own pool has each class halved exactly; in a shared pool with several targets the datasets are
halved at random and each class is halved approximately. The ceiling is that of the evaluation
split: with 200 test datasets per class the evaluation split holds 100, so the ceiling at 95 % is
about 3.3 (replace-one neighbours, delta = 0).

Rules fixed in advance
----------------------
An unfitted attack can state its test before any trial is seen (the novelty attack of
:mod:`synthleak.attacks.mia_novelty` calls a release IN when it holds a combination of the
target's values that no known record holds). Such a rule needs no selection split, so
``fixed_rules`` evaluates it on every trial, doubling its evaluation trials and raising the
ceiling. The estimate then holds two families of tests, and their error is shared (Bonferroni):
the selected test's bound is computed at error ``(1 - confidence) / 2`` and each of the ``k``
fixed rules' at ``(1 - confidence) / (2 k)``; the reported bound is the largest of them, which
holds at ``confidence`` because the chance that any of them overstates epsilon is at most the
sum of their errors. Without fixed rules nothing changes.

Gaussian DP
-----------
mu is estimated from the whole ROC curve of the attack with the highest AUC on the selection split,
through its evaluation-split AUC: every test against a mu-GDP mechanism has an AUC of at most
``Phi(mu / sqrt 2)``, so ``sqrt 2 Phi^-1(AUC)`` is the smallest mu consistent with the attack. Its
interval is an approximate score interval under the equal-variance binormal model
(:func:`gdp_mu_interval`). ``mu_epsilon`` converts mu to epsilon at the stated delta; it
extrapolates the whole Gaussian trade-off curve, so it is an estimate for mechanisms that behave
like the Gaussian mechanism, not a bound, and the verdict never rests on it.

Neighbouring datasets
---------------------
The membership game's IN and OUT datasets differ by *replacing* the target with another record
(substitution, "bounded" DP). Many generators state their guarantee for *adding or removing* one
record ("unbounded" DP); by group privacy such a guarantee (eps, delta) only gives
(2 eps, (1 + e^eps) delta) for a substitution, and mu-GDP gives 2 mu-GDP. Comparing a
substitution bound with an add/remove claim directly would report false violations (a factor of
two in epsilon), so every figure is converted to the relation of the claim (``neighbouring``):
for an add/remove claim the reported lower bound is the ``e`` solving
``2 e = eps_lb((1 + e^e) delta)`` (every smaller add/remove epsilon is refuted at the stated
confidence), and mu is halved. The default is the conservative add/remove.

Notes
-----
Threat assumptions: the bound concerns the generator as run in the game (its training datasets
drawn from the same population, the target in or out) against the attacks tried; it is a lower
bound (what the attacks prove), never a certificate that the claim holds. The trials must be
independent: test datasets drawn and generated independently of each other and of the attacks'
training (shadow) datasets, as in :mod:`synthleak.games.membership`.

References
----------
Jagielski et al. (2020) (Clopper-Pearson epsilon bounds). Kairouz et al. (2015) (hypothesis
testing form of DP). Nasr et al. (2021) (lower bounds from membership tests). Nasr et al. (2023)
(Gaussian DP auditing). Dong et al. (2022), Corollary 1 (GDP to (eps, delta)) and group privacy
of GDP. Annamalai et al. (2024b) (auditing DP synthetic-data generators; threshold chosen on a
held-out split). Clopper and Pearson (1934).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

import numpy as np

from synthleak.errors import InputError
from synthleak.metrics.privacy import auc
from synthleak.modes import Neighbouring
from synthleak.serde import Result

CONFIDENCES = (0.9, 0.95, 0.99)
"""Confidence levels every :class:`EpsilonEstimate` reports a bound at."""

DEFAULT_DELTA = 1e-5
"""Default delta: set it to the claim's delta (a larger delta only makes the bound smaller)."""

_SQRT2 = math.sqrt(2.0)
_MU_RANGE = 40.0  # mu searched in [-40, 40]: AUC = Phi(mu / sqrt 2) is 1 to double precision


class EpsilonVerdict(StrEnum):
    """How the attacks read against a claimed epsilon."""

    VIOLATION = "violation"  # the lower bound exceeds the claim
    CONSISTENT = "consistent"  # no violation found, and the trials could have shown one
    INCONCLUSIVE = "inconclusive"  # the ceiling is at or below the claim: no violation possible
    NO_CLAIM = "no claim"  # no epsilon was claimed


class ScoreDirection(StrEnum):
    """Which side of the threshold the test calls a member."""

    HIGHER = "higher"  # member if score >= threshold
    LOWER = "lower"  # member if score <= threshold


# --- Clopper-Pearson ---------------------------------------------------------------------------


def _check_confidence(confidence: float) -> float:
    c = float(confidence)
    if not 0.0 < c < 1.0:
        raise InputError(f"confidence must lie strictly between 0 and 1, got {confidence}")
    return c


def _check_delta(delta: float) -> float:
    d = float(delta)
    if not 0.0 <= d < 1.0:
        raise InputError(f"delta must lie in [0, 1), got {delta}")
    return d


def clopper_pearson(
    successes: Any, n: Any, confidence: float = 0.95
) -> tuple[np.ndarray | float, np.ndarray | float]:
    """Exact two-sided Clopper-Pearson interval of a binomial proportion.

    Each end is a one-sided bound at level ``1 - (1 - confidence) / 2``: the lower end is the
    ``(1 - confidence) / 2`` quantile of ``Beta(k, n - k + 1)`` (0 when ``k = 0``), the upper end
    the ``1 - (1 - confidence) / 2`` quantile of ``Beta(k + 1, n - k)`` (1 when ``k = n``).

    Parameters
    ----------
    successes, n : int or array of int
        Counts (broadcast together); ``0 <= successes <= n``, ``n >= 1``.
    confidence : float
        Two-sided coverage, e.g. 0.95.

    Returns
    -------
    (low, high) : floats, or arrays of the broadcast shape

    References
    ----------
    Clopper and Pearson (1934).
    """
    from scipy.special import betaincinv

    c = _check_confidence(confidence)
    k = np.asarray(successes, dtype=np.float64)
    nn = np.asarray(n, dtype=np.float64)
    if np.any(nn < 1) or np.any(k < 0) or np.any(k > nn) or np.any(k != np.round(k)):
        raise InputError("Clopper-Pearson needs whole counts with 0 <= successes <= n and n >= 1")
    a = (1.0 - c) / 2.0
    with np.errstate(invalid="ignore", divide="ignore"):
        lo = np.where(k == 0, 0.0, betaincinv(np.maximum(k, 1e-300), nn - k + 1.0, a))
        hi = np.where(k == nn, 1.0, betaincinv(k + 1.0, np.maximum(nn - k, 1e-300), 1.0 - a))
    if lo.ndim == 0:
        return float(lo), float(hi)
    return lo, hi


def _cp(k: int, n: int, confidence: float) -> tuple[float, float]:
    lo, hi = clopper_pearson(k, n, confidence)
    return float(lo), float(hi)


def _cp_tables(n: int, confidence: float) -> tuple[np.ndarray, np.ndarray]:
    """Lower and upper Clopper-Pearson ends for every count 0..n."""
    lo, hi = clopper_pearson(np.arange(n + 1), n, confidence)
    return np.asarray(lo), np.asarray(hi)


# --- epsilon lower bound and ceiling -----------------------------------------------------------


def _eps_from_rates(tpr_lb: Any, fpr_ub: Any, delta: Any) -> np.ndarray:
    """``max(0, ln((TPR_lb - d) / FPR_ub), ln((1 - FPR_ub - d) / (1 - TPR_lb)))``, vectorised."""
    t = np.asarray(tpr_lb, dtype=np.float64)
    f = np.asarray(fpr_ub, dtype=np.float64)
    d = np.asarray(delta, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        r1 = (t - d) / f
        r2 = (1.0 - f - d) / (1.0 - t)
    ratio = np.fmax(np.fmax(np.nan_to_num(r1, nan=0.0), np.nan_to_num(r2, nan=0.0)), 1.0)
    return np.log(ratio)


def _relations(neighbouring: Any, game_neighbouring: Any) -> tuple[Neighbouring, Neighbouring]:
    try:
        claim, game = Neighbouring(neighbouring), Neighbouring(game_neighbouring)
    except ValueError:
        raise InputError(
            "unknown neighbouring relation: use one of " + ", ".join(n.value for n in Neighbouring)
        ) from None
    if claim is Neighbouring.SUBSTITUTE and game is Neighbouring.ADD_REMOVE:
        raise InputError(
            "a substitution (bounded) DP claim cannot be tested with add/remove trials: "
            "give neighbouring='add_remove' or trials that replace the target"
        )
    return claim, game


def _to_claim_scale(
    tpr_lb: float, fpr_ub: float, delta: float, game: Neighbouring, claim: Neighbouring
) -> float:
    """The epsilon lower bound in the claim's neighbouring relation (module docstring)."""
    if claim is game:
        return float(_eps_from_rates(tpr_lb, fpr_ub, delta))

    # substitution trials, add/remove claim: (e, d) add/remove gives (2e, (1 + e^e) d) here,
    # so the bound is the crossing of e = f(e), f decreasing, which lies in [0, f(0)].
    def f(e: float) -> float:
        d2 = min((1.0 + math.exp(min(e, 700.0))) * delta, 1.0)
        return 0.5 * float(_eps_from_rates(tpr_lb, fpr_ub, d2))

    hi = f(0.0)
    if delta == 0.0 or hi <= 0.0:
        return hi
    lo = 0.0
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if mid < f(mid):
            lo = mid
        else:
            hi = mid
    return lo


def epsilon_lower_bound(
    tp: Any,
    n_pos: Any,
    fp: Any,
    n_neg: Any,
    *,
    confidence: float = 0.95,
    delta: float = 0.0,
    neighbouring: Neighbouring | str = Neighbouring.SUBSTITUTE,
    game_neighbouring: Neighbouring | str = Neighbouring.SUBSTITUTE,
) -> np.ndarray | float:
    """Lower confidence bound on epsilon from one fixed test's counts.

    ``eps_lb = max(0, ln((TPR_lb - delta) / FPR_ub), ln((1 - FPR_ub - delta) / (1 - TPR_lb)))``
    with the ends of two-sided Clopper-Pearson intervals at ``confidence``; by the union bound it
    holds with probability at least ``confidence`` when the test was fixed before seeing these
    trials. With an add/remove claim and substitution trials the bound is converted by group
    privacy (module docstring).

    Parameters
    ----------
    tp, n_pos : int or array
        IN trials called members, and IN trials.
    fp, n_neg : int or array
        OUT trials called members, and OUT trials.
    confidence : float
    delta : float
        The delta of the (epsilon, delta)-DP guarantee tested.
    neighbouring, game_neighbouring : Neighbouring
        Relation of the guarantee, and of the trials (both substitution by default: the raw
        formula).

    References
    ----------
    Jagielski et al. (2020); Nasr et al. (2021); Kairouz et al. (2015).
    """
    d = _check_delta(delta)
    claim, game = _relations(neighbouring, game_neighbouring)
    tpr_lb, _ = clopper_pearson(tp, n_pos, confidence)
    _, fpr_ub = clopper_pearson(fp, n_neg, confidence)
    if claim is game:
        out = _eps_from_rates(tpr_lb, fpr_ub, d)
    else:
        conv = np.vectorize(lambda t, f: _to_claim_scale(t, f, d, game, claim), otypes=[float])
        out = np.asarray(conv(tpr_lb, fpr_ub))
    return float(out) if out.ndim == 0 else out


def epsilon_ceiling(
    n_pos: int,
    n_neg: int,
    *,
    confidence: float = 0.95,
    delta: float = 0.0,
    neighbouring: Neighbouring | str = Neighbouring.SUBSTITUTE,
    game_neighbouring: Neighbouring | str = Neighbouring.SUBSTITUTE,
) -> float:
    """The largest epsilon ``n_pos`` IN and ``n_neg`` OUT trials could ever certify.

    It is :func:`epsilon_lower_bound` with every trial right (``tp = n_pos``, ``fp = 0``); for
    substitution trials and claim, ``max(ln((a^(1/n_pos) - delta) / (1 - a^(1/n_neg))),
    ln((a^(1/n_neg) - delta) / (1 - a^(1/n_pos))))`` with ``a = (1 - confidence) / 2``: about 3.3
    for 100 trials per class and 5.6 for 1,000 at 95 % (delta = 0); half of that for an
    add/remove claim. A claim at or above the ceiling can never be shown violated by these
    trials, whatever the attack.
    """
    return float(
        epsilon_lower_bound(
            n_pos,
            n_pos,
            0,
            n_neg,
            confidence=confidence,
            delta=delta,
            neighbouring=neighbouring,
            game_neighbouring=game_neighbouring,
        )
    )


def trials_needed(
    epsilon: float,
    *,
    confidence: float = 0.95,
    delta: float = 0.0,
    neighbouring: Neighbouring | str = Neighbouring.SUBSTITUTE,
    game_neighbouring: Neighbouring | str = Neighbouring.SUBSTITUTE,
    limit: int = 10**9,
) -> int | None:
    """Smallest number of evaluation trials per class whose ceiling exceeds ``epsilon``.

    ``None`` when even ``limit`` trials per class would not (delta too large for the claim).
    """

    def ceil(n: int) -> float:
        return epsilon_ceiling(
            n,
            n,
            confidence=confidence,
            delta=delta,
            neighbouring=neighbouring,
            game_neighbouring=game_neighbouring,
        )

    if ceil(limit) <= epsilon:
        return None
    lo, hi = 1, limit
    while lo < hi:
        mid = (lo + hi) // 2
        if ceil(mid) > epsilon:
            hi = mid
        else:
            lo = mid + 1
    return lo


# --- Gaussian differential privacy -------------------------------------------------------------


def gdp_delta(mu: float, epsilon: float) -> float:
    """The delta at which mu-GDP implies (epsilon, delta)-DP (Dong et al. 2022, Corollary 1).

    ``delta(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2)``.
    """
    from scipy.special import log_ndtr, ndtr

    if mu <= 0.0:
        return 0.0
    if math.isinf(mu):
        return 1.0
    a = -epsilon / mu + mu / 2.0
    b = -epsilon / mu - mu / 2.0
    return float(max(0.0, ndtr(a) - math.exp(epsilon + float(log_ndtr(b)))))


def gdp_epsilon(mu: float, delta: float) -> float:
    """The smallest epsilon with mu-GDP implying (epsilon, delta)-DP; ``inf`` when ``delta = 0``.

    Solves :func:`gdp_delta` ``(mu, eps) = delta`` for ``eps`` (decreasing in ``eps``).

    References
    ----------
    Dong et al. (2022), Corollary 1; Nasr et al. (2023).
    """
    from scipy.optimize import brentq

    d = _check_delta(delta)
    if math.isnan(mu):
        return float("nan")
    if mu <= 0.0:
        return 0.0
    if math.isinf(mu) or d == 0.0:
        return float("inf")
    if gdp_delta(mu, 0.0) <= d:
        return 0.0
    hi = 1.0
    while gdp_delta(mu, hi) > d:
        hi *= 2.0
        if hi > 1e6:
            return float("inf")
    return float(brentq(lambda e: gdp_delta(mu, e) - d, 0.0, hi, xtol=1e-12, rtol=1e-12))


def gdp_mu_from_auc(auc_value: float) -> float:
    """mu with ``AUC = Phi(mu / sqrt 2)``, the AUC of the optimal test between N(0,1) and N(mu,1).

    Every test against a mu-GDP mechanism has its ROC curve below the Gaussian trade-off curve, so
    its AUC is at most ``Phi(mu / sqrt 2)``: ``sqrt 2 Phi^-1(AUC)`` is the smallest mu consistent
    with the attack (clipped at 0; ``inf`` for AUC 1).

    References
    ----------
    Dong et al. (2022) (the Gaussian trade-off function).
    """
    from scipy.special import ndtri

    if math.isnan(auc_value):
        return float("nan")
    return max(0.0, _SQRT2 * float(ndtri(min(max(auc_value, 0.0), 1.0))))


def _binormal_auc_var(mu: float, n_pos: int, n_neg: int) -> tuple[float, float]:
    """AUC and variance of the Mann-Whitney AUC when IN ~ N(mu, 1) and OUT ~ N(0, 1).

    ``Var = [A(1-A) + (n_pos - 1)(Q - A^2) + (n_neg - 1)(Q - A^2)] / (n_pos n_neg)`` with
    ``A = Phi(h)``, ``Q = Phi_2(h, h; 1/2) = Phi(h) - 2 T(h, 1/sqrt 3)``, ``h = mu / sqrt 2`` (two
    comparisons sharing one score are correlated 1/2; T is Owen's function). ``Q - A^2`` is even
    in ``h`` and is computed as ``R - B^2`` with ``B = Phi(-|h|)`` and ``R = Phi_2(-|h|, -|h|;
    1/2)``, which keeps its precision near AUC 0 or 1.
    """
    from scipy.special import ndtr, owens_t

    h = mu / _SQRT2
    big_a = float(ndtr(h))
    # the covariance term is even in mu (swapping IN and OUT); take the side where it is a
    # difference of small numbers
    hh = abs(h)
    b = float(ndtr(-hh))
    r = b - 2.0 * float(owens_t(hh, 1.0 / math.sqrt(3.0)))  # Phi_2(-hh, -hh; 1/2)
    cov = max(r - b * b, 0.0)
    var = (big_a * (1.0 - big_a) + (n_pos - 1 + n_neg - 1) * cov) / (n_pos * n_neg)
    return big_a, var


def gdp_mu_interval(
    auc_value: float, n_pos: int, n_neg: int, *, confidence: float = 0.95
) -> tuple[float, float]:
    """Confidence interval for mu (unclipped; may be negative) from an observed AUC.

    A score interval in the manner of Wilson's: the mu whose equal-variance binormal model puts the
    observed AUC exactly ``z`` standard deviations away, using the model's own variance of the
    Mann-Whitney statistic at that mu (so the interval does not collapse at AUC 1, where the upper
    end is ``inf``). Approximate (normal approximation of the AUC); the AUC interval is
    ``Phi(ends / sqrt 2)``.

    References
    ----------
    Hanley and McNeil (1982) (variance of the AUC); Wilson (1927) (score interval).
    """
    from scipy.optimize import brentq
    from scipy.special import ndtri

    c = _check_confidence(confidence)
    if math.isnan(auc_value) or n_pos < 1 or n_neg < 1:
        return float("nan"), float("nan")
    z = float(ndtri(1.0 - (1.0 - c) / 2.0))

    def g(mu: float) -> float:
        a, v = _binormal_auc_var(mu, n_pos, n_neg)
        if v <= 0.0:
            return math.copysign(math.inf, a - auc_value) if a != auc_value else 0.0
        return (a - auc_value) / math.sqrt(v)

    def root(target: float) -> float:
        lo_mu, hi_mu = -_MU_RANGE, _MU_RANGE
        g_lo, g_hi = g(lo_mu) - target, g(hi_mu) - target
        if g_lo > 0:
            return -math.inf
        if g_hi < 0:
            return math.inf
        return float(brentq(lambda m: g(m) - target, lo_mu, hi_mu, xtol=1e-10))

    return root(-z), root(z)


# --- threshold selection -----------------------------------------------------------------------


@dataclass(frozen=True)
class ThresholdChoice:
    """The best threshold of one candidate's scores on some trials (see :func:`best_threshold`)."""

    threshold: float
    direction: ScoreDirection
    lower_bound: float  # substitution scale, at the confidence and delta asked
    tp: int
    fp: int
    n_pos: int
    n_neg: int
    tie_break: float  # the bound at confidence 0.5, to order candidates whose bounds tie


def _check_scores(scores: Any, labels: Any, what: str) -> tuple[np.ndarray, np.ndarray]:
    s = np.asarray(scores, dtype=np.float64).ravel()
    y_raw = np.asarray(labels).ravel()
    if s.size != y_raw.size:
        raise InputError(
            f"{what}: {s.size} scores but {y_raw.size} labels: give one label per score"
        )
    if np.isnan(s).any():
        raise InputError(f"{what}: the scores contain NaN: drop the failed trials first")
    if not np.isin(y_raw, (0, 1, True, False)).all():
        raise InputError(f"{what}: labels must be 0/1 or booleans (1 = the target was IN)")
    return s, y_raw.astype(bool)


def best_threshold(
    scores: Any,
    labels: Any,
    *,
    confidence: float = 0.95,
    delta: float = 0.0,
) -> ThresholdChoice:
    """The threshold and direction maximising :func:`epsilon_lower_bound` on these trials.

    Every distinct score is tried as a threshold, with "member if score >= t" and "member if
    score <= t". Ties in the bound go to the larger bound at confidence 0.5 (close to the point
    estimate), then to "higher" and to the higher threshold.

    Warning: the bound returned is computed on the same trials it was maximised on, so it is
    biased upwards (the winner's curse) and is NOT a valid confidence bound. Use it to choose a
    threshold on a selection split; :func:`empirical_epsilon` does, and evaluates the choice on
    disjoint trials.
    """
    c = _check_confidence(confidence)
    d = _check_delta(delta)
    s, y = _check_scores(scores, labels, "best_threshold")
    if not (y.any() and (~y).any()):
        raise InputError("best_threshold needs both IN and OUT trials")
    return _best_threshold(s, y, c, d, {})


def _best_threshold(
    s: np.ndarray,
    y: np.ndarray,
    c: float,
    d: float,
    cache: dict[tuple[int, float], tuple[np.ndarray, np.ndarray]],
) -> ThresholdChoice:
    n_pos, n_neg = int(y.sum()), int((~y).sum())

    def table(n: int, conf: float) -> tuple[np.ndarray, np.ndarray]:
        if (n, conf) not in cache:
            cache[(n, conf)] = _cp_tables(n, conf)
        return cache[(n, conf)]

    lo_p, hi_n = table(n_pos, c)[0], table(n_neg, c)[1]
    lo_p5, hi_n5 = table(n_pos, 0.5)[0], table(n_neg, 0.5)[1]
    best: ThresholdChoice | None = None
    for direction, sign in ((ScoreDirection.HIGHER, 1.0), (ScoreDirection.LOWER, -1.0)):
        v = sign * s
        order = np.argsort(-v, kind="mergesort")
        vs, ys = v[order], y[order]
        last = np.flatnonzero(np.r_[vs[1:] != vs[:-1], True])  # last index of each distinct value
        tps = np.cumsum(ys)[last]
        fps = (last + 1) - tps
        eps = _eps_from_rates(lo_p[tps], hi_n[fps], d)
        tie = _eps_from_rates(lo_p5[tps], hi_n5[fps], d)
        j = int(np.lexsort((-np.arange(eps.size), tie, eps))[-1])  # max eps, max tie, first
        cand = ThresholdChoice(
            threshold=float(sign * vs[last[j]]),
            direction=direction,
            lower_bound=float(eps[j]),
            tp=int(tps[j]),
            fp=int(fps[j]),
            n_pos=n_pos,
            n_neg=n_neg,
            tie_break=float(tie[j]),
        )
        if best is None or (cand.lower_bound, cand.tie_break) > (best.lower_bound, best.tie_break):
            best = cand
    assert best is not None
    return best


def _apply(choice: ThresholdChoice, s: np.ndarray, y: np.ndarray) -> tuple[int, int, int, int]:
    """(tp, n_pos, fp, n_neg) of the chosen test on other trials."""
    if choice.direction is ScoreDirection.HIGHER:
        member = s >= choice.threshold
    else:
        member = s <= choice.threshold
    return int((member & y).sum()), int(y.sum()), int((member & ~y).sum()), int((~y).sum())


# --- splitting ---------------------------------------------------------------------------------


def selection_split(
    labels: Mapping[str, Any] | Any,
    *,
    rng: np.random.Generator,
    fraction: float = 0.5,
    trial_ids: Mapping[str, Any] | Any | None = None,
) -> dict[str, np.ndarray]:
    """Boolean masks (True = selection split) over each candidate's trials.

    Trials are identified by ``trial_ids`` (per candidate; by default the position, so candidates
    of equal length are taken to share their trials, as targets of a shared pool do). Every
    distinct trial goes wholly to one split. Trials are stratified by the set of candidates
    holding them (their pool) and by label: ``floor(fraction * k)`` of the ``k`` trials of a
    stratum go to selection, so a candidate with its own pool has each class split exactly; trials
    whose label differs between candidates (a shared pool with several targets) form one stratum
    per pool. The split depends on the labels, the trial ids and ``rng`` only, never on the
    scores.
    """
    f = float(fraction)
    if not 0.0 < f < 1.0:
        raise InputError(f"selection fraction must lie strictly between 0 and 1, got {fraction}")
    lab = _as_mapping(labels, "labels")
    ids = _trial_ids(lab, trial_ids)
    all_ids = np.unique(np.concatenate([ids[k] for k in lab]))
    # a trial's stratum: which candidates hold it (a pool) and its label (0 / 1 when every
    # candidate agrees, 2 when mixed); the pool is a sum of fixed per-candidate 64-bit keys
    keys = np.random.default_rng(0x5EED).integers(0, 2**63, size=len(lab), dtype=np.uint64)
    pool = np.zeros(all_ids.size, dtype=np.uint64)
    seen_true = np.zeros(all_ids.size, dtype=bool)
    seen_false = np.zeros(all_ids.size, dtype=bool)
    for key, (k, y) in zip(keys, lab.items(), strict=True):
        pos = np.searchsorted(all_ids, ids[k])
        yb = y.astype(bool)
        pool[pos] += key
        seen_true[pos[yb]] = True
        seen_false[pos[~yb]] = True
    label_state = np.where(seen_true & seen_false, 2, seen_true.astype(np.uint64))
    _, stratum = np.unique(
        np.stack([pool, label_state.astype(np.uint64)]), axis=1, return_inverse=True
    )
    stratum = np.asarray(stratum).ravel()
    selected = np.zeros(all_ids.size, dtype=bool)
    for st in range(int(stratum.max()) + 1):
        members = np.flatnonzero(stratum == st)
        take = rng.permutation(members)[: math.floor(f * members.size)]
        selected[take] = True
    return {k: selected[np.searchsorted(all_ids, ids[k])] for k in lab}


def _as_mapping(x: Mapping[str, Any] | Any, what: str) -> dict[str, np.ndarray]:
    if isinstance(x, Mapping):
        if not x:
            raise InputError(f"no {what} given: give at least one attack's {what}")
        return {str(k): np.asarray(v).ravel() for k, v in x.items()}
    return {"attack": np.asarray(x).ravel()}


def _trial_ids(lab: dict[str, np.ndarray], trial_ids: Any) -> dict[str, np.ndarray]:
    if trial_ids is None:
        sizes = {v.size for v in lab.values()}
        if len(sizes) > 1:
            raise InputError(
                "the candidates have different numbers of trials: give trial_ids naming each "
                "trial's test dataset so that no dataset serves both splits"
            )
        return {k: np.arange(v.size) for k, v in lab.items()}
    tid = (
        {str(k): np.asarray(v).ravel() for k, v in trial_ids.items()}
        if isinstance(trial_ids, Mapping)
        else {k: np.asarray(trial_ids).ravel() for k in lab}
    )
    out = {}
    for k, y in lab.items():
        if k not in tid or tid[k].size != y.size:
            raise InputError(f"trial_ids for {k!r} must give one id per trial")
        if np.unique(tid[k]).size != tid[k].size:
            raise InputError(f"trial_ids for {k!r} repeat an id: give each trial its own id")
        out[k] = tid[k]
    return out


# --- the estimate ------------------------------------------------------------------------------


@dataclass(frozen=True, repr=False)
class EpsilonEstimate(Result):
    """What the attacks prove about epsilon, and the verdict against a claim.

    All epsilon and mu figures are in the neighbouring relation of the claim (``neighbouring``);
    JSON ``null`` stands for an unbounded or undefined figure (e.g. the epsilon of mu at
    delta = 0).

    Attributes
    ----------
    lower_bound : float
        Lower confidence bound on epsilon at ``confidence``: the selected test's on the
        evaluation split, or a rule fixed in advance on all of its trials, whichever is larger
        (their levels adjusted so the larger one holds at ``confidence``).
    confidence : float
    ceiling : float
        The largest lower bound these trials could ever give (every trial right).
    claimed : float or None
        The claimed epsilon.
    verdict : EpsilonVerdict
    mu : float
        Gaussian-DP mu from the AUC of the best attack (chosen on the selection split) on the
        evaluation split: ``sqrt 2 Phi^-1(AUC)``, clipped at 0.
    delta : float
        The claim's delta, used in every bound.
    message : str
        The verdict in plain words.
    neighbouring, game_neighbouring : Neighbouring
        Relation of the claim (and of the figures), and of the trials.
    bounds, ceilings : dict
        Lower bound and ceiling at each confidence of :data:`CONFIDENCES` (keys ``"0.9"`` ...).
    attack : str
        The candidate (attack, or target and attack) chosen on the selection split.
    threshold : float
    direction : ScoreDirection
    tp, fp : int
        Evaluation IN trials called members, OUT trials called members.
    tpr, fpr : float
        Their rates; ``tpr_ci``, ``fpr_ci`` the Clopper-Pearson intervals at the level the bound
        used (``confidence``, higher when rules are fixed in advance).
    n_selection_in, n_selection_out, n_evaluation_in, n_evaluation_out : int
        Trials per split and class (of the chosen candidate).
    selection_lower_bound : float
        The (biased) bound the chosen test reached on the selection split, for comparison.
    mu_ci : (float, float)
        Approximate interval of mu at ``confidence`` (:func:`gdp_mu_interval`), clipped at 0.
    mu_epsilon : float
        Epsilon at ``delta`` of ``mu`` (:func:`gdp_epsilon`); ``mu_epsilon_ci`` likewise.
    mu_attack : str
        The candidate with the highest selection-split AUC (the one ``mu`` and ``auc`` describe).
    auc : float
        Its evaluation-split AUC, with ``auc_ci``: an honest "most exposed" membership AUC.
    n_mu_in, n_mu_out : int
        Evaluation trials behind ``mu``.
    n_candidates : int
        Candidates the choice was made among.
    n_fixed_rules : int
        Rules fixed in advance that were also tested (on all of their trials).
    fixed_rule : bool
        Whether the bound (``attack``, ``threshold``, the counts) is one of them; the selection
        counts are then 0 and ``selection_lower_bound`` undefined (NaN).
    """

    lower_bound: float
    confidence: float
    ceiling: float
    claimed: float | None
    verdict: EpsilonVerdict
    mu: float
    delta: float
    message: str
    neighbouring: Neighbouring
    game_neighbouring: Neighbouring
    bounds: dict[str, float]
    ceilings: dict[str, float]
    attack: str
    threshold: float
    direction: ScoreDirection
    tp: int
    fp: int
    tpr: float
    fpr: float
    tpr_ci: tuple[float, float]
    fpr_ci: tuple[float, float]
    n_selection_in: int
    n_selection_out: int
    n_evaluation_in: int
    n_evaluation_out: int
    selection_lower_bound: float
    mu_ci: tuple[float, float]
    mu_epsilon: float
    mu_epsilon_ci: tuple[float, float]
    mu_attack: str
    auc: float
    auc_ci: tuple[float, float]
    n_mu_in: int
    n_mu_out: int
    n_candidates: int
    n_fixed_rules: int = 0
    fixed_rule: bool = False

    @property
    def violation(self) -> bool | None:
        """True / False against the claim; None when no claim or the audit could not show one."""
        if self.verdict in (EpsilonVerdict.NO_CLAIM, EpsilonVerdict.INCONCLUSIVE):
            return None
        return self.verdict is EpsilonVerdict.VIOLATION


def epsilon_verdict(
    lower_bound: float,
    ceiling: float,
    claimed: float | None,
    *,
    confidence: float = 0.95,
    delta: float = 0.0,
    n_in: int | None = None,
    n_out: int | None = None,
    neighbouring: Neighbouring | str = Neighbouring.ADD_REMOVE,
    game_neighbouring: Neighbouring | str = Neighbouring.SUBSTITUTE,
) -> tuple[EpsilonVerdict, str]:
    """The verdict against a claim and its plain-words sentence.

    ``violation`` when the lower bound exceeds the claim; ``inconclusive`` when the ceiling is at
    or below the claim (these trials could never show a violation, whatever the attack);
    ``consistent`` otherwise (no violation found, which does not prove the claim); ``no claim``
    without a claim. ``lower_bound`` and ``ceiling`` are in the claim's relation.
    """
    conf = f"{100 * confidence:g}%"
    claim_nb, game_nb = _relations(neighbouring, game_neighbouring)
    rel = "add/remove-one" if claim_nb is Neighbouring.ADD_REMOVE else "replace-one"
    setting = f"delta = {delta:g}, {rel} neighbours"
    if claimed is None:
        return EpsilonVerdict.NO_CLAIM, (
            f"No epsilon was claimed. The attacks show epsilon >= {lower_bound:.2f} at {conf} "
            f"confidence ({setting}); this audit could show at most {ceiling:.2f}."
        )
    if lower_bound > claimed:
        return EpsilonVerdict.VIOLATION, (
            f"Violation: the attacks show epsilon >= {lower_bound:.2f} at {conf} confidence, "
            f"above the claimed epsilon = {claimed:g} ({setting}). The generator as run does "
            "not satisfy its differential-privacy claim."
        )
    if ceiling <= claimed:
        trials = (
            f" with {n_in} IN and {n_out} OUT evaluation trials"
            if n_in is not None and n_out is not None
            else ""
        )
        need = trials_needed(
            claimed,
            confidence=confidence,
            delta=delta,
            neighbouring=claim_nb,
            game_neighbouring=game_nb,
        )
        more = (
            f" About {need} evaluation trials per class (twice as many test datasets per class "
            "with the default half-and-half split) could show one."
            if need is not None
            else " No number of trials can show one at this delta."
        )
        return EpsilonVerdict.INCONCLUSIVE, (
            f"Inconclusive: the largest epsilon this audit could ever show{trials} is "
            f"{ceiling:.2f}, not above the claimed epsilon = {claimed:g} ({setting}), so no "
            f"attack could have shown a violation.{more}"
        )
    return EpsilonVerdict.CONSISTENT, (
        f"Consistent: the attacks show epsilon >= {lower_bound:.2f} at {conf} confidence, not "
        f"above the claimed epsilon = {claimed:g} ({setting}; this audit could have shown up to "
        f"{ceiling:.2f}). No violation was found; an audit bounds epsilon from below and does "
        "not prove the claim."
    )


# long: the selection and evaluation split, the fixed rules and the Bonferroni share, in one place
def empirical_epsilon(
    scores: Mapping[str, Any] | Any,
    labels: Mapping[str, Any] | Any,
    *,
    rng: np.random.Generator,
    claimed: float | None = None,
    delta: float = DEFAULT_DELTA,
    neighbouring: Neighbouring | str = Neighbouring.ADD_REMOVE,
    game_neighbouring: Neighbouring | str = Neighbouring.SUBSTITUTE,
    confidence: float = 0.95,
    selection_fraction: float = 0.5,
    trial_ids: Mapping[str, Any] | Any | None = None,
    fixed_rules: Mapping[str, float] | None = None,
) -> EpsilonEstimate:
    """Lower bound, ceiling, Gaussian-DP mu and verdict from membership trials.

    Parameters
    ----------
    scores : array or mapping name -> array
        Membership scores of the test datasets, higher = more likely IN; one array per candidate
        (an attack against one target, e.g. ``"row 12 / query"``). Scores are never compared
        across candidates.
    labels : array or mapping name -> array
        1 / True when the target was IN that test dataset. One array shared by every candidate
        (several attacks against one target) or one per candidate.
    rng : numpy.random.Generator
        Draws the selection / evaluation split (module docstring).
    claimed : float, optional
        The claimed epsilon.
    delta : float
        The claim's delta (0 for pure DP). Use the claimed value: a larger delta only lowers the
        bound, a smaller one could overstate it.
    neighbouring : Neighbouring
        The claim's relation; the default, add/remove, is the conservative reading.
    game_neighbouring : Neighbouring
        The trials' relation: substitution for :class:`synthleak.games.membership.MembershipGame`.
    confidence : float
        Level of ``lower_bound`` and of the verdict (bounds at 0.9, 0.95 and 0.99 are always
        reported too).
    selection_fraction : float
        Share of the trials used to choose the candidate and threshold.
    trial_ids : array or mapping name -> array, optional
        Identifiers of each trial's test dataset. By default candidates of equal length share
        their trials position by position (a shared pool). Give ids when candidates have their own
        test pools (e.g. ``t * n_test + i``) or different lengths.
    fixed_rules : mapping name -> float, optional
        Candidates whose test was fixed before any trial was seen (an unfitted attack's own
        rule: call a trial IN when its score is above the given threshold). Each is evaluated on
        all of its trials, and the error is shared with the selected test (module docstring,
        "Rules fixed in advance").

    Returns
    -------
    EpsilonEstimate

    References
    ----------
    Jagielski et al. (2020); Nasr et al. (2021, 2023); Dong et al. (2022);
    Annamalai et al. (2024b).
    """
    from scipy.special import ndtr

    c = _check_confidence(confidence)
    d = _check_delta(delta)
    claim_nb, game_nb = _relations(neighbouring, game_neighbouring)
    if claimed is not None and not (math.isfinite(claimed) and claimed >= 0):
        raise InputError(f"claimed epsilon must be a finite number >= 0, got {claimed}")
    sc = _as_mapping(scores, "scores")
    if isinstance(labels, Mapping):
        lab_in = _as_mapping(labels, "labels")
        if set(lab_in) != set(sc):
            raise InputError("scores and labels must name the same candidates")
    else:
        shared = np.asarray(labels).ravel()
        lab_in = {k: shared for k in sc}
    checked = {k: _check_scores(sc[k], lab_in[k], f"candidate {k!r}") for k in sc}
    sel = selection_split(
        {k: y for k, (_, y) in checked.items()},
        rng=rng,
        fraction=selection_fraction,
        trial_ids=trial_ids,
    )

    # choose (candidate, threshold, direction), and the best-AUC candidate, on the selection split
    cache: dict[tuple[int, float], tuple[np.ndarray, np.ndarray]] = {}
    best_key: str | None = None
    best_choice: ThresholdChoice | None = None
    best_auc_key: str | None = None
    best_auc = -math.inf
    usable = 0
    for k, (s, y) in checked.items():
        m = sel[k]
        ys, ye = y[m], y[~m]
        if not (ys.any() and (~ys).any() and ye.any() and (~ye).any()):
            continue
        usable += 1
        ch = _best_threshold(s[m], ys, c, d, cache)
        if best_choice is None or (ch.lower_bound, ch.tie_break) > (
            best_choice.lower_bound,
            best_choice.tie_break,
        ):
            best_key, best_choice = k, ch
        a = auc(ys, s[m])
        if a > best_auc:
            best_auc_key, best_auc = k, a
    if best_choice is None or best_key is None or best_auc_key is None:
        raise InputError(
            "too few trials to split: a candidate needs at least 2 IN and 2 OUT trials (test "
            "datasets), one of each in both splits; raise the number of test datasets"
        )

    fixed = dict(fixed_rules or {})
    if set(fixed) - set(checked):
        raise InputError(
            f"fixed_rules names {sorted(set(fixed) - set(checked))}, which are not candidates"
        )
    # the selected test, on the evaluation split (at a share of the error when rules are fixed)
    s, y = checked[best_key]
    ev = ~sel[best_key]
    tp, n_in, fp, n_out = _apply(best_choice, s[ev], y[ev])
    share, rule_share = error_shares(len(fixed))
    bounds, ceilings = _route(tp, n_in, fp, n_out, share, c, d, game_nb, claim_nb)
    route = _Route(best_key, best_choice.threshold, best_choice.direction, tp, n_in, fp, n_out)
    chosen, best_ceiling = (route, bounds), (route, ceilings)
    # each rule fixed in advance, on all of its trials, at its share of the other half
    for key, threshold in sorted(fixed.items()):
        s, y = checked[key]
        called = s > float(threshold)
        r = _Route(
            key,
            float(threshold),
            ScoreDirection.HIGHER,
            int(called[y].sum()),
            int(y.sum()),
            int(called[~y].sum()),
            int((~y).sum()),
        )
        if not (r.n_in and r.n_out):
            continue
        b_r, c_r = _route(r.tp, r.n_in, r.fp, r.n_out, rule_share, c, d, game_nb, claim_nb)
        if b_r[f"{c:g}"] > chosen[1][f"{c:g}"]:
            chosen = (r, b_r)
        if c_r[f"{c:g}"] > best_ceiling[1][f"{c:g}"]:
            best_ceiling = (r, c_r)
        bounds = {k: max(v, b_r[k]) for k, v in bounds.items()}
        ceilings = {k: max(v, c_r[k]) for k, v in ceilings.items()}
    won, _ = chosen
    fixed_won = won is not route
    lower, ceiling = bounds[f"{c:g}"], ceilings[f"{c:g}"]
    level = level_at_share(c, rule_share if fixed_won else share)
    tpr_ci = _cp(won.tp, won.n_in, level)
    fpr_ci = _cp(won.fp, won.n_out, level)
    sel_tpr_lb, _ = _cp(best_choice.tp, best_choice.n_pos, c)
    _, sel_fpr_ub = _cp(best_choice.fp, best_choice.n_neg, c)

    # Gaussian-DP mu from the AUC of the best-AUC candidate on the evaluation split
    s_mu, y_mu = checked[best_auc_key]
    ev_mu = ~sel[best_auc_key]
    auc_eval = auc(y_mu[ev_mu], s_mu[ev_mu])
    n_mu_in, n_mu_out = int(y_mu[ev_mu].sum()), int((~y_mu[ev_mu]).sum())
    mu_lo_raw, mu_hi_raw = gdp_mu_interval(auc_eval, n_mu_in, n_mu_out, confidence=c)
    scale = 1.0 if claim_nb is game_nb else 2.0  # group privacy: mu add/remove = mu subst. / 2
    mu = gdp_mu_from_auc(auc_eval) / scale
    mu_ci = (max(0.0, mu_lo_raw) / scale, max(0.0, mu_hi_raw) / scale)

    verdict, message = epsilon_verdict(
        lower,
        ceiling,
        claimed,
        confidence=c,
        delta=d,
        n_in=best_ceiling[0].n_in,
        n_out=best_ceiling[0].n_out,
        neighbouring=claim_nb,
        game_neighbouring=game_nb,
    )
    return EpsilonEstimate(
        lower_bound=lower,
        confidence=c,
        ceiling=ceiling,
        claimed=None if claimed is None else float(claimed),
        verdict=verdict,
        mu=mu,
        delta=d,
        message=message,
        neighbouring=claim_nb,
        game_neighbouring=game_nb,
        bounds=bounds,
        ceilings=ceilings,
        attack=won.key,
        threshold=won.threshold,
        direction=won.direction,
        tp=won.tp,
        fp=won.fp,
        tpr=won.tp / won.n_in,
        fpr=won.fp / won.n_out,
        tpr_ci=tpr_ci,
        fpr_ci=fpr_ci,
        n_selection_in=0 if fixed_won else best_choice.n_pos,
        n_selection_out=0 if fixed_won else best_choice.n_neg,
        n_evaluation_in=won.n_in,
        n_evaluation_out=won.n_out,
        selection_lower_bound=math.nan
        if fixed_won
        else _to_claim_scale(sel_tpr_lb, sel_fpr_ub, d, game_nb, claim_nb),
        mu_ci=mu_ci,
        mu_epsilon=gdp_epsilon(mu, d),
        mu_epsilon_ci=(gdp_epsilon(mu_ci[0], d), gdp_epsilon(mu_ci[1], d)),
        mu_attack=best_auc_key,
        auc=float(auc_eval),
        auc_ci=(float(ndtr(mu_lo_raw / _SQRT2)), float(ndtr(mu_hi_raw / _SQRT2))),
        n_mu_in=n_mu_in,
        n_mu_out=n_mu_out,
        n_candidates=usable,
        n_fixed_rules=len(fixed),
        fixed_rule=fixed_won,
    )


@dataclass(frozen=True)
class _Route:
    """One test of the membership trials: its candidate, rule and counts."""

    key: str
    threshold: float
    direction: ScoreDirection
    tp: int
    n_in: int
    fp: int
    n_out: int


def error_shares(n_fixed_rules: int) -> tuple[float, float]:
    """Shares of an estimate's error (Bonferroni, module docstring): the selected test's, and
    each of ``n_fixed_rules`` rules fixed in advance (0 when there are none)."""
    if n_fixed_rules <= 0:
        return 1.0, 0.0
    return 0.5, 0.5 / n_fixed_rules


def level_at_share(confidence: float, share: float) -> float:
    """The level one test is bounded at when it holds ``share`` of the error ``1 - confidence``."""
    return 1.0 - (1.0 - confidence) * share


def _route(
    tp: int,
    n_in: int,
    fp: int,
    n_out: int,
    share: float,
    confidence: float,
    delta: float,
    game_nb: Neighbouring,
    claim_nb: Neighbouring,
) -> tuple[dict[str, float], dict[str, float]]:
    """Bounds and ceilings of one test at every reported level, each at ``share`` of its error
    (Bonferroni: the tests of one estimate share the error ``1 - level``)."""
    bounds: dict[str, float] = {}
    ceilings: dict[str, float] = {}
    for level in sorted({*CONFIDENCES, confidence}):
        at = level_at_share(level, share)
        tpr_lb, _ = _cp(tp, n_in, at)
        _, fpr_ub = _cp(fp, n_out, at)
        top_lb, _ = _cp(n_in, n_in, at)
        _, zero_ub = _cp(0, n_out, at)
        bounds[f"{level:g}"] = _to_claim_scale(tpr_lb, fpr_ub, delta, game_nb, claim_nb)
        ceilings[f"{level:g}"] = _to_claim_scale(top_lb, zero_ub, delta, game_nb, claim_nb)
    return bounds, ceilings
