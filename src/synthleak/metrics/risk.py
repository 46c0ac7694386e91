"""Statistics of the singling-out and linkability games: pure functions on counts.

Both games score an attack on the **original** records (the generator's training data) and on
**control** records of the same population the generator never saw. What works as well on the
control is inference about the population, not a leak; Anonymeter's risk is the excess success
normalised by the room for improvement (Giomi et al. 2023, Sec. 3),

    risk = (attack_rate - control_rate) / (1 - control_rate).

Linkability (:func:`residual_risk`). Whether a target's two halves link depends on the synthetic
data only, not on how many other real records there are, so the original and control link rates
are comparable whatever the sizes; they are Wilson-score rates (Wilson 1927) and the risk's
interval propagates both half-widths to first order, as Anonymeter does.

Singling out (:func:`singling_out_risk`). Whether a predicate matches exactly one record depends
on the size of the table it is counted on: the same predicate singles out less often in a larger
table when it is common and more often when it is rare. The estimand is the risk an oracle
control *as large as the original* would give. For one predicate of population frequency ``w``
the chance of singling out among ``n`` records is ``n w (1 - w)^(n - 1)``, a polynomial of degree
``n`` in ``w``; from a control of ``n_c < n`` records (a binomial sample) only polynomials of
degree at most ``n_c`` have unbiased estimates, so no unbiased extrapolation of the control to the
original's size exists. What is exactly comparable when nothing leaks are the two tables at
*equal size*: the expected outcome of a random ``n_e``-row subset of each (hypergeometric,
Rao-Blackwellised: every subset at once), ``n_e = min(n_original, n_control)``. Every
per-predicate statistic whose no-leak expectation is the same on both tables is of this form.
:class:`EqualSizeDesign`:

* equal sizes: plain indicators ("exactly one match");
* a larger control: the control's terms are the exact chance that a random subset of the
  original's size has exactly one match: the control rate *is* the equal-size oracle's;
* a smaller control (``scale = n_c / n``): a control predicate counts ``1 / scale`` when it
  matches exactly one row and ``-(1 - scale) / scale`` when it matches two or more; an original
  predicate counts the exact expectation of that over random ``n_c``-row subsets of the original.
  The two have the same expectation when nothing leaks, whatever the sizes, so the false-alarm
  rate does not depend on them. The original's plain count at full size stays the attack rate,
  and ``attack_rate - excess`` is the control rate at the original's size this implies. A leak
  shows through the ``n_c`` of ``n`` original records a subset keeps, hence the ``1 / scale``
  (a copied record, which singles out its target only, counts exactly 1: a copy's risk is 1 at
  every ratio). The ``-(1 - scale) / scale`` for two or more matches corrects, to first order,
  the chance matches a subset thins away; any fixed weight there keeps the no-leak expectation
  exact, and this one makes leak sizes less biased (on the calibration datasets at 4:1 a copy's
  excess comes out 0.19 low instead of 0.27, a noisy copy's 0.06 instead of 0.11; a copy's risk
  is 1 either way). The interval is about ``1 / scale`` times wider than with an equal-size
  control.

The rejected alternatives and their measured failures are in
:mod:`synthleak.games.singling_out` and ``benchmarks/calibration_designs.py``.

Interval. The variance of the excess is taken under "no leak" per predicate: the expected square
of a two-valued term follows from the chances of one and of two or more matches at ``n_e`` rows,
which both tables estimate and are pooled (a plug-in variance from the control alone shrinks
exactly when the control happens to have few successes, and the interval then excludes 0 too
often). To it are added the covariance of predicates that match the same real rows (the cross
products of delete-one-row effects, Efron and Stein 1981) and a floor (the variance at the
Wilson-centred rate of zero successes, so that no success anywhere does not give ``[0, 0]``). The
excess's normal interval is mapped to the risk through ``excess / (1 - attack_rate + excess)``,
so the risk's interval excludes 0 exactly when the excess's does, and widened by the attack
rate's own uncertainty. The point estimate and interval are clipped to ``[0, 1]`` for display.
The risk's p-value is the one-sided normal test of the excess against that same null variance,
``1 - Phi(excess / sd)``: the clipping does not touch it.

References
----------
Giomi et al. (2023), Sec. 3 (risk, Wilson rates) and Sec. 4.1-4.2. Cohen and Nissim (2020)
(singling out). Wilson (1927). Efron and Stein (1981) (jackknife variance).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum
from statistics import NormalDist
from typing import Protocol

import numpy as np
from scipy.special import gammaln

from synthleak.errors import InputError
from synthleak.metrics.privacy import RiskEstimate, two_rate_p, wilson_interval


def _z(confidence: float) -> float:
    if not 0 < confidence < 1:
        raise InputError(f"confidence={confidence} must lie strictly between 0 and 1")
    return NormalDist().inv_cdf(0.5 * (1 + confidence))


def wilson_rate(successes: float, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson-score centre and half-width of a success rate (``successes`` may be fractional)."""
    if n <= 0:
        raise InputError("a success rate needs at least one trial: run at least one attack")
    _z(confidence)
    lo, hi = wilson_interval(successes, n, confidence)  # type: ignore[arg-type]
    return 0.5 * (lo + hi), 0.5 * (hi - lo)


def rate_estimate(
    successes: int, n: int, confidence: float = 0.95, baseline: float | None = None
) -> RiskEstimate:
    """The observed rate ``successes / n`` with its Wilson interval."""
    if n <= 0:
        nan = float("nan")
        return RiskEstimate(nan, nan, nan, confidence, 0, baseline)
    lo, hi = wilson_interval(int(successes), int(n), confidence)
    return RiskEstimate(successes / n, lo, hi, confidence, int(n), baseline)


def residual_risk(
    n_success: int,
    n_attacks: int,
    n_control_success: int,
    n_control_attacks: int,
    *,
    confidence: float = 0.95,
    baseline: float | None = None,
) -> RiskEstimate:
    """Anonymeter's residual risk of two independent binomial samples (linkability).

    ``(a - c) / (1 - c)`` on the Wilson-centred attack rate ``a`` and control rate ``c``; the
    half-width propagates both rates' Wilson half-widths to first order. Clipped to ``[0, 1]``;
    NaN when the control rate is 1 (no room for improvement). Its ``p_value`` is Fisher's exact
    one-sided test of the two link counts (:func:`~synthleak.metrics.privacy.two_rate_p`): the
    risk is 0 exactly when the two rates are equal, and the clipped interval cannot give it.

    References
    ----------
    Giomi et al. (2023), Sec. 3. Wilson (1927).
    """
    a, ea = wilson_rate(n_success, n_attacks, confidence)
    c, ec = wilson_rate(n_control_success, n_control_attacks, confidence)
    if c >= 1.0:
        nan = float("nan")
        return RiskEstimate(nan, nan, nan, confidence, n_attacks, baseline)
    value = (a - c) / (1.0 - c)
    err = math.hypot(ea / (1.0 - c), ec * (a - 1.0) / (1.0 - c) ** 2)
    p = two_rate_p(n_success, n_attacks, n_control_success, n_control_attacks)
    return RiskEstimate(
        _clip(value), _clip(value - err), _clip(value + err), confidence, n_attacks, baseline, p
    )


def _clip(x: float) -> float:
    """``x`` clipped to [0, 1] (infinities to the bounds, NaN kept)."""
    return float("nan") if math.isnan(x) else float(min(max(x, 0.0), 1.0))


# --- singling out ----------------------------------------------------------------------------


def hypergeom_one(k: np.ndarray | int, n: int, m: int) -> np.ndarray:
    """Probability that exactly one of ``k`` marked rows is among ``m`` drawn from ``n``.

    Drawing without replacement: ``k * C(n - k, m - 1) / C(n, m)`` (0 when ``k = 0``); for
    ``m = n`` it is ``1{k = 1}``. Vectorised over ``k``.
    """
    if not 0 <= m <= n:
        raise ValueError(f"cannot draw m={m} rows from n={n}")
    k = np.asarray(k, dtype=np.int64)
    if np.any((k < 0) | (k > n)):
        raise ValueError(f"counts must lie in [0, {n}]")
    out = np.zeros(k.shape, dtype=np.float64)
    ok = (k >= 1) & (n - k >= m - 1) & (m >= 1)
    kk = k[ok].astype(np.float64)
    log = np.log(kk) + _lnchoose(n - kk, m - 1.0) - float(_lnchoose(np.float64(n), np.float64(m)))
    out[ok] = np.exp(log)
    return out


def hypergeom_none(k: np.ndarray | int, n: int, m: int) -> np.ndarray:
    """Probability that none of ``k`` marked rows is among ``m`` drawn from ``n`` (vectorised)."""
    if not 0 <= m <= n:
        raise ValueError(f"cannot draw m={m} rows from n={n}")
    k = np.asarray(k, dtype=np.int64)
    out = np.zeros(k.shape, dtype=np.float64)
    ok = n - k >= m
    kk = k[ok].astype(np.float64)
    out[ok] = np.exp(_lnchoose(n - kk, float(m)) - float(_lnchoose(np.float64(n), np.float64(m))))
    return out


def _lnchoose(a: np.ndarray | float, b: np.ndarray | float) -> np.ndarray:
    return (
        gammaln(np.asarray(a) + 1.0)
        - gammaln(np.asarray(b) + 1.0)
        - gammaln(np.asarray(a) - np.asarray(b) + 1.0)
    )


class SizeCorrection(StrEnum):
    """How the original and the control are brought to one size (see :class:`EqualSizeDesign`)."""

    NONE = "none"
    CONTROL_SUBSAMPLED = "control-subsampled"
    ORIGINAL_SUBSAMPLED = "original-subsampled"


@dataclass(frozen=True)
class EqualSizeDesign:
    """Equal-size comparison of the original (``n_original`` rows) and control tables.

    Both are evaluated at ``n_evaluated = min(n_original, n_control)`` rows (the exact expected
    success of a random subset) and the terms are divided by ``scale = n_evaluated /
    n_original`` so that the excess is on the original's scale (module docstring).
    """

    n_original: int
    n_control: int

    def __post_init__(self) -> None:
        if self.n_original < 1 or self.n_control < 1:
            raise InputError(
                f"the original ({self.n_original}) and control ({self.n_control}) data need "
                "at least one record each"
            )

    @property
    def n_evaluated(self) -> int:
        return min(self.n_original, self.n_control)

    @property
    def scale(self) -> float:
        """``n_evaluated / n_original``: the share of original records a subset keeps."""
        return self.n_evaluated / self.n_original

    @property
    def correction(self) -> SizeCorrection:
        if self.n_original == self.n_control:
            return SizeCorrection.NONE
        if self.n_control > self.n_original:
            return SizeCorrection.CONTROL_SUBSAMPLED
        return SizeCorrection.ORIGINAL_SUBSAMPLED

    def _split(self, counts: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
        """P(exactly one) and P(two or more) of a random ``n_evaluated``-row subset
        of ``n`` rows.
        """
        k = np.asarray(counts, dtype=np.int64)
        one = hypergeom_one(k, n, self.n_evaluated)
        return one, np.clip(1.0 - hypergeom_none(k, n, self.n_evaluated) - one, 0.0, 1.0)

    def original_terms(self, counts: np.ndarray) -> np.ndarray:
        """Per-predicate terms of the original from its match counts."""
        if self.n_original == self.n_evaluated:
            return (np.asarray(counts) == 1).astype(np.float64)
        one, more = self._split(counts, self.n_original)
        return (one - (1.0 - self.scale) * more) / self.scale

    def control_terms(self, counts: np.ndarray) -> np.ndarray:
        """Per-predicate terms of the control from its match counts."""
        c = np.asarray(counts)
        if self.n_control == self.n_evaluated:
            return ((c == 1) - (1.0 - self.scale) * (c >= 2)) / self.scale
        return hypergeom_one(c, self.n_control, self.n_evaluated)

    def second_moments(
        self, original_counts: np.ndarray, control_counts: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Expected squares of the original's and the control's terms under "no leak".

        A table evaluated at its own size has terms taking two values (``1/scale`` for one match,
        ``-(1 - scale)/scale`` for two or more): their expected square follows from the chances
        of one and of two or more matches at ``n_evaluated`` rows, which both tables estimate
        (the other one by its exact subset expectation), so the two estimates are pooled. A
        table evaluated at a subset's size has smooth terms: their own square.
        """
        y = self.original_terms(original_counts)
        x = self.control_terms(control_counts)
        if self.n_original == self.n_evaluated:
            p1_o = (np.asarray(original_counts) == 1).astype(np.float64)
            p2_o = (np.asarray(original_counts) >= 2).astype(np.float64)
        else:
            p1_o, p2_o = self._split(original_counts, self.n_original)
        if self.n_control == self.n_evaluated:
            p1_c = (np.asarray(control_counts) == 1).astype(np.float64)
            p2_c = (np.asarray(control_counts) >= 2).astype(np.float64)
        else:
            p1_c, p2_c = self._split(control_counts, self.n_control)
        p1, p2 = 0.5 * (p1_o + p1_c), 0.5 * (p2_o + p2_c)
        two_valued = (p1 + (1.0 - self.scale) ** 2 * p2) / self.scale**2
        e_y2 = two_valued if self.n_original == self.n_evaluated else y * y
        e_x2 = two_valued if self.n_control == self.n_evaluated else x * x
        return e_y2, e_x2

    def list_cap(self, tol: float = 1e-6, limit: int = 5000) -> int:
        """Largest match count whose rows matter to the variance (terms above it are < ``tol``)."""
        cap = 2
        for n in (self.n_original, self.n_control):
            if n == self.n_evaluated:
                continue
            k = np.arange(1, min(n, limit) + 1)
            big = np.flatnonzero(hypergeom_one(k, n, self.n_evaluated) / self.scale >= tol)
            if big.size:
                cap = max(cap, int(k[big[-1]]) + 1)
        return min(cap, limit)


class MatchData(Protocol):
    """Match counts of ``q`` predicates on one table and the rows of the predicates with few.

    ``rows[indptr[i]:indptr[i + 1]]`` are the rows predicate ``i`` matches when ``counts[i]`` is
    at most ``cap`` (empty otherwise): :class:`synthleak.attacks.predicates.Matches`.
    """

    @property
    def counts(self) -> np.ndarray: ...
    @property
    def indptr(self) -> np.ndarray: ...
    @property
    def rows(self) -> np.ndarray: ...
    @property
    def cap(self) -> int: ...


@dataclass(frozen=True)
class SinglingOutEstimate:
    """The statistics of one singling-out attack (see :func:`singling_out_risk`).

    Attributes
    ----------
    risk : RiskEstimate
        Excess risk at the original's size, clipped to [0, 1] with its interval.
    raw_risk : float
        The risk before clipping (negative when the control does better).
    attack_rate : RiskEstimate
        Share of predicates singling out one original record (Wilson interval).
    control_rate : RiskEstimate
        Control success rate at the original's size, ``attack_rate - excess``.
    observed_control_rate : RiskEstimate
        Share of predicates singling out one control record, at the control's size (Wilson).
    excess : float
        ``attack_rate - control_rate``.
    terms : ndarray (q,)
        Per-predicate excess terms (original minus control; mean ``excess``): the "where".
    """

    risk: RiskEstimate
    raw_risk: float
    attack_rate: RiskEstimate
    control_rate: RiskEstimate
    observed_control_rate: RiskEstimate
    excess: float
    terms: np.ndarray


def singling_out_risk(
    original: MatchData,
    control: MatchData,
    design: EqualSizeDesign,
    *,
    confidence: float = 0.95,
    baseline: float | None = None,
) -> SinglingOutEstimate:
    """Singling-out risk of ``q`` predicates from their matches on the original and control.

    Parameters
    ----------
    original, control : MatchData
        Exact match counts (and row lists up to ``design.list_cap()``) of the same predicates on
        the original and on the control table.
    design : EqualSizeDesign
        The two table sizes.
    confidence : float
    baseline : float, optional
        The random-guess success rate, stored with the estimates.

    Returns
    -------
    SinglingOutEstimate

    Notes
    -----
    Module docstring: the estimand, the equal-size design and the interval.

    References
    ----------
    Giomi et al. (2023), Sec. 3. Efron and Stein (1981).
    """
    z = _z(confidence)
    k = np.asarray(original.counts, dtype=np.int64)
    x_counts = np.asarray(control.counts, dtype=np.int64)
    q = int(k.size)
    if q == 0 or x_counts.size != q:
        raise InputError("singling_out_risk needs the counts of the same, non-empty predicates")
    s = (k == 1).astype(np.float64)
    y = design.original_terms(k)
    x = design.control_terms(x_counts)
    a = float(s.mean())
    excess = float(y.mean() - x.mean())
    c_hat = a - excess
    denom = 1.0 - c_hat

    # variance of the excess under "no leak", per predicate: pooled first moment (both tables
    # estimate it), each side's own second moment; plus the covariance of predicates that match
    # the same rows
    e_y2, e_x2 = design.second_moments(k, x_counts)
    var_excess = max(float(np.sum(e_y2 + e_x2 - 2.0 * y * x)) / q**2, _variance_floor(design, q, z))
    var_excess += max(_shared_row_covariance(original, control, design), 0.0) / q**2
    half_n = z * math.sqrt(max(var_excess, 0.0))
    var_a = _floored_binomial_var(s, z)
    cov = float(np.sum((y - y.mean()) * (s - a))) / q**2

    # one-sided p of "no excess" from the same null variance (the risk is 0 exactly when the
    # excess is): it does not depend on where the displayed interval is clipped
    p = 1.0 - NormalDist().cdf(excess / math.sqrt(var_excess)) if var_excess > 0 else math.nan
    if denom <= 0:
        nan = float("nan")
        risk = RiskEstimate(nan, nan, nan, confidence, q, baseline)
        raw = nan
    else:
        raw = excess / denom

        def ratio(n: float) -> float:  # the risk at excess n, attack rate fixed (increasing)
            return n / (1.0 - a + n) if 1.0 - a + n > 0 else -math.inf

        # the excess's interval mapped through the ratio (it excludes 0 exactly when the
        # excess's does), widened by the attack rate's own uncertainty (delta method)
        extra = z * z * max(excess**2 * var_a + 2 * (1 - a) * excess * cov, 0.0) / denom**4
        lo = raw - math.sqrt((raw - ratio(excess - half_n)) ** 2 + extra)
        hi = raw + math.sqrt((ratio(excess + half_n) - raw) ** 2 + extra)
        risk = RiskEstimate(_clip(raw), _clip(lo), _clip(hi), confidence, q, baseline, p)
    t = s - y + x
    c_half = z * math.sqrt(max(float(t.var(ddof=1)) if q > 1 else 0.0, var_a * q) / q)
    control_rate = RiskEstimate(
        c_hat, _clip(c_hat - c_half), _clip(c_hat + c_half), confidence, q, baseline
    )
    return SinglingOutEstimate(
        risk=risk,
        raw_risk=float(raw),
        attack_rate=rate_estimate(int(s.sum()), q, confidence, baseline),
        control_rate=control_rate,
        observed_control_rate=rate_estimate(int((x_counts == 1).sum()), q, confidence, baseline),
        excess=excess,
        terms=y - x,
    )


def _variance_floor(design: EqualSizeDesign, q: int, z: float) -> float:
    """The excess's variance when the chance of singling out is the Wilson-centred rate of zero
    successes in ``q`` trials: the least uncertainty there is, so the interval is never a point
    (no predicate singling out anybody is not a proof that none ever would)."""
    p = 0.5 * z * z / (q + z * z)
    var = 0.0
    if design.n_original == design.n_evaluated:
        var += p * (1 - p)
    if design.n_control == design.n_evaluated:
        var += p * (1 - p) / design.scale**2
    return var / q


def _floored_binomial_var(s: np.ndarray, z: float) -> float:
    """Variance of the mean of 0/1 outcomes, at least the one at the Wilson centre (never 0)."""
    q = s.size
    p = (float(s.sum()) + 0.5 * z * z) / (q + z * z)
    return max(float(s.var(ddof=1)) if q > 1 else 0.0, p * (1 - p)) / q


def _shared_row_covariance(
    original: MatchData, control: MatchData, design: EqualSizeDesign
) -> float:
    """Covariance of the excess's terms between predicates that match the same real rows.

    For each listed row, the change of every predicate's term when the row is deleted
    (delete-one jackknife); the cross products of the changes of different predicates on the
    same row estimate their covariance (the diagonal is in the pooled variance already). Summed
    over both tables, not yet divided by ``q**2``.
    """
    k = np.asarray(original.counts, dtype=np.int64)
    d_y = design.original_terms(np.maximum(k - 1, 0)) - design.original_terms(k)
    xc = np.asarray(control.counts, dtype=np.int64)
    d_x = design.control_terms(np.maximum(xc - 1, 0)) - design.control_terms(xc)
    return _cross(original, d_y) + _cross(control, d_x)


def _cross(m: MatchData, effect: np.ndarray) -> float:
    """``sum_r [(sum_{i ∋ r} e_i)^2 - sum_{i ∋ r} e_i^2]`` over the listed rows."""
    lens = np.diff(np.asarray(m.indptr))
    listed = lens > 0
    if not listed.any():
        return 0.0
    per_row_pred = np.repeat(effect, lens)
    rows = np.asarray(m.rows)
    _, inv = np.unique(rows, return_inverse=True)
    tot = np.bincount(inv, weights=per_row_pred)
    sq = np.bincount(inv, weights=per_row_pred**2)
    return float((tot**2).sum() - sq.sum())
