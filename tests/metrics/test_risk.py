"""Statistics of the singling-out and linkability games: exactness, calibration, edge cases."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pytest
from scipy import stats

from synthleak.errors import InputError
from synthleak.metrics.privacy import wilson_interval
from synthleak.metrics.risk import (
    EqualSizeDesign,
    SizeCorrection,
    hypergeom_one,
    rate_estimate,
    residual_risk,
    singling_out_risk,
    wilson_rate,
)


@dataclass(frozen=True)
class Counts:
    """MatchData without row lists (predicates that share no rows)."""

    counts: np.ndarray
    cap: int = 0

    @property
    def indptr(self) -> np.ndarray:
        return np.zeros(self.counts.size + 1, dtype=np.int64)

    @property
    def rows(self) -> np.ndarray:
        return np.zeros(0, dtype=np.int64)


@dataclass(frozen=True)
class Listed:
    counts: np.ndarray
    indptr: np.ndarray
    rows: np.ndarray
    cap: int


# --- rates and linkability ------------------------------------------------------------------


def test_wilson_rate_is_the_one_wilson_interval() -> None:
    c, h = wilson_rate(30, 100, 0.95)
    z = 1.959963984540054
    assert c == pytest.approx((30 + z * z / 2) / (100 + z * z))
    assert h == pytest.approx(z / (100 + z * z) * math.sqrt(30 * 70 / 100 + z * z / 4))
    assert (c - h, c + h) == pytest.approx(wilson_interval(30, 100, 0.95))
    with pytest.raises(InputError, match="at least one trial"):
        wilson_rate(0, 0)
    with pytest.raises(InputError, match="confidence"):
        wilson_rate(1, 10, 1.5)
    r = rate_estimate(3, 10, 0.9, baseline=0.1)
    assert r.value == 0.3 and r.ci_low < 0.3 < r.ci_high and r.n_trials == 10 and r.baseline == 0.1
    assert math.isnan(rate_estimate(0, 0).value)


def test_residual_risk_is_anonymeters() -> None:
    a, ea = wilson_rate(50, 100)
    c, ec = wilson_rate(20, 100)
    r = residual_risk(50, 100, 20, 100, baseline=0.05)
    assert r.value == pytest.approx((a - c) / (1 - c))
    err = math.hypot(ea / (1 - c), ec * (a - 1) / (1 - c) ** 2)
    assert (r.ci_low, r.ci_high) == pytest.approx((r.value - err, r.value + err))
    assert r.baseline == 0.05 and r.n_trials == 100
    low = residual_risk(5, 100, 30, 100)  # worse than the control: clipped to 0
    assert low.value == 0.0 and low.ci_low == 0.0
    assert (
        math.isnan(residual_risk(10, 10, 10, 10).value) or residual_risk(10, 10, 10, 10).value < 1
    )


# --- the equal-size design --------------------------------------------------------------------


def test_hypergeom_one_matches_scipy() -> None:
    for n, m in ((50, 50), (50, 20), (1000, 250), (7, 1)):
        k = np.arange(0, n + 1)
        np.testing.assert_allclose(
            hypergeom_one(k, n, m), stats.hypergeom.pmf(1, n, k, m), rtol=1e-9, atol=1e-300
        )
    np.testing.assert_array_equal(hypergeom_one([0, 1, 2, 5], 10, 10), [0, 1, 0, 0])
    with pytest.raises(ValueError):
        hypergeom_one([1], 10, 11)


@pytest.mark.parametrize(("n_o", "n_c"), [(300, 300), (300, 75), (300, 100), (120, 480), (40, 7)])
def test_equal_size_terms_are_exactly_unbiased_when_nothing_leaks(n_o: int, n_c: int) -> None:
    """For every predicate frequency w, the original's and the control's terms have the same
    expectation when both tables are binomial samples of the population (no leak): the design
    compares them at the same size, so the size difference alone never shows as a leak."""
    d = EqualSizeDesign(n_o, n_c)
    for w in (0.0, 1e-4, 0.001, 0.004, 0.01, 0.05, 0.3):
        e_o = float(
            stats.binom.pmf(np.arange(n_o + 1), n_o, w) @ d.original_terms(np.arange(n_o + 1))
        )
        e_c = float(
            stats.binom.pmf(np.arange(n_c + 1), n_c, w) @ d.control_terms(np.arange(n_c + 1))
        )
        assert e_o == pytest.approx(e_c, abs=1e-9)
        if n_c >= n_o:  # a larger control gives the oracle's rate at the original's size exactly
            assert e_c == pytest.approx(n_o * w * (1 - w) ** (n_o - 1), abs=1e-9)


def test_design_cases_and_copied_records() -> None:
    assert EqualSizeDesign(100, 100).correction is SizeCorrection.NONE
    assert EqualSizeDesign(100, 400).correction is SizeCorrection.CONTROL_SUBSAMPLED
    small = EqualSizeDesign(400, 100)
    assert small.correction is SizeCorrection.ORIGINAL_SUBSAMPLED
    assert (small.n_evaluated, small.scale) == (100, 0.25)
    # a predicate matching only its (copied) target counts 1 whatever the sizes
    for d in (EqualSizeDesign(100, 100), EqualSizeDesign(100, 400), small):
        assert d.original_terms(np.array([1]))[0] == pytest.approx(1.0)
        assert d.original_terms(np.array([0]))[0] == 0.0
    np.testing.assert_array_equal(EqualSizeDesign(50, 50).control_terms(np.arange(4)), [0, 1, 0, 0])
    assert EqualSizeDesign(50, 50).list_cap() == 2
    cap = small.list_cap()
    assert 2 < cap < 400 and small.original_terms(np.array([cap + 1]))[0] < 1e-6
    with pytest.raises(InputError, match="at least one record"):
        EqualSizeDesign(0, 10)


# --- the risk and its interval ----------------------------------------------------------------


def _null_sim(n_o: int, n_c: int, q: int, runs: int, seed: int) -> np.ndarray:
    """Excesses and interval bounds of predicates drawn with a realistic spread of frequencies
    (log-uniform around 1 / n), counted on independent original and control samples."""
    rng = np.random.default_rng(seed)
    d = EqualSizeDesign(n_o, n_c)
    out = []
    for _ in range(runs):
        w = np.exp(rng.uniform(np.log(0.05 / n_o), np.log(20 / n_o), q))
        k = rng.binomial(n_o, w)
        x = rng.binomial(n_c, w)
        est = singling_out_risk(Counts(k), Counts(x), d)
        out.append((est.excess, est.risk.ci_low))
    return np.array(out)


@pytest.mark.parametrize(("n_o", "n_c"), [(1000, 1000), (1000, 250), (1000, 333), (250, 1000)])
def test_null_intervals_exclude_zero_rarely(n_o: int, n_c: int) -> None:
    res = _null_sim(n_o, n_c, q=200, runs=400, seed=n_o + n_c)
    excluded = float(np.mean(res[:, 1] > 0))
    assert excluded <= 0.05, f"{excluded:.3f} of null intervals exclude 0"
    # the excess is centred on 0 (its standard error over 400 runs is below 0.01)
    assert abs(float(np.mean(res[:, 0]))) < 0.025


def test_copy_gives_risk_one_at_every_ratio() -> None:
    rng = np.random.default_rng(0)
    for n_c in (1000, 250, 4000):
        d = EqualSizeDesign(1000, n_c)
        # predicates of rare records: about 1 in 10 would single out someone in a fresh sample
        x = rng.binomial(n_c, np.full(200, 0.1 / 1000))
        est = singling_out_risk(Counts(np.ones(200, dtype=np.int64)), Counts(x), d)
        assert est.raw_risk == pytest.approx(1.0)
        assert est.attack_rate.value == 1.0
        assert 0.9 < est.risk.ci_low <= est.risk.value == 1.0 == est.risk.ci_high
        assert est.excess == pytest.approx(1 - est.control_rate.value)


def test_shared_rows_widen_the_interval() -> None:
    """Predicates singling out the same original record succeed or fail together: the interval
    accounts for it (the same counts with distinct rows give a narrower interval)."""
    k = np.r_[np.ones(60, dtype=np.int64), np.zeros(40, dtype=np.int64)]
    x = np.r_[np.ones(30, dtype=np.int64), np.zeros(70, dtype=np.int64)]
    d = EqualSizeDesign(500, 500)
    ptr = np.r_[0, np.cumsum(k)].astype(np.int64)
    distinct = Listed(k, ptr, np.arange(60, dtype=np.int64), 2)
    shared = Listed(k, ptr, np.repeat(np.arange(6, dtype=np.int64), 10), 2)
    ctl = Counts(x)
    a = singling_out_risk(distinct, ctl, d)
    b = singling_out_risk(shared, ctl, d)
    assert a.raw_risk == b.raw_risk
    assert b.risk.ci_low < a.risk.ci_low
    assert b.risk.ci_high - b.risk.ci_low > 1.5 * (a.risk.ci_high - a.risk.ci_low)


def test_estimate_fields_and_errors() -> None:
    d = EqualSizeDesign(100, 100)
    est = singling_out_risk(
        Counts(np.array([1, 1, 0, 2])), Counts(np.array([1, 0, 0, 1])), d, baseline=0.1
    )
    assert est.attack_rate.value == 0.5 and est.observed_control_rate.value == 0.5
    assert est.excess == 0.0 and est.raw_risk == 0.0
    np.testing.assert_array_equal(est.terms, [0, 1, 0, -1])
    assert est.risk.baseline == 0.1 and est.risk.n_trials == 4
    with pytest.raises(InputError, match="non-empty"):
        singling_out_risk(Counts(np.zeros(0, np.int64)), Counts(np.zeros(0, np.int64)), d)
    with pytest.raises(InputError, match="confidence"):
        singling_out_risk(
            Counts(np.ones(2, np.int64)), Counts(np.ones(2, np.int64)), d, confidence=1
        )
    # the control singles out as often as possible: nothing can be measured
    full = singling_out_risk(Counts(np.ones(3, np.int64)), Counts(np.ones(3, np.int64)), d)
    assert math.isnan(full.risk.value) and math.isnan(full.raw_risk)


def test_no_success_anywhere_is_not_a_point_interval() -> None:
    """Nothing singles out anybody on either side: risk 0, but not 'exactly 0' ([0, 0])."""
    for n_c in (100, 25, 400):
        est = singling_out_risk(
            Counts(np.zeros(50, np.int64)),
            Counts(np.zeros(50, np.int64)),
            EqualSizeDesign(100, n_c),
        )
        assert est.risk.value == 0.0 and est.risk.ci_low == 0.0 and 0.01 < est.risk.ci_high < 0.5


# --- null oracle of the p-values (the method in tests/metrics/test_privacy.py) ----------------


def test_null_oracle_singling_out_p_is_uniform() -> None:
    """Singling out, original four times the control, 200 predicates: the normal test of the
    excess against its null variance is continuous enough for a KS test over 300 null draws
    (the risk is clipped at 0 on about half of them: a p read from that interval is 0.025)."""
    from scipy.stats import kstest

    from synthleak.verdicts import one_sided_p

    rng = np.random.default_rng(51)
    d = EqualSizeDesign(1000, 250)
    p = []
    for _ in range(300):
        w = np.exp(rng.uniform(np.log(0.05 / 1000), np.log(20 / 1000), 200))
        est = singling_out_risk(Counts(rng.binomial(1000, w)), Counts(rng.binomial(250, w)), d)
        p.append(one_sided_p(est.risk, 0.0))
    arr = np.array(p)
    assert np.isfinite(arr).all()
    assert kstest(arr, "uniform").pvalue > 0.001, np.quantile(arr, [0.05, 0.25, 0.5])


@pytest.mark.parametrize("rate", [0.03, 0.3])
def test_null_oracle_linkability_p_is_valid(rate: float) -> None:
    """Linkability, 500 targets of each part linking at the same rate: Fisher's exact test is
    discrete, so ``P(p <= a) <= a`` at several levels (3 binomial standard errors of 400 draws)
    and it does reject at 5 % (it is not pinned at 1)."""
    from synthleak.verdicts import one_sided_p

    rng = np.random.default_rng(52)
    a, c = rng.binomial(500, rate, 400), rng.binomial(500, rate, 400)
    p = np.array(
        [
            one_sided_p(residual_risk(int(x), 500, int(y), 500), 0.0)
            for x, y in zip(a, c, strict=True)
        ]
    )
    assert np.isfinite(p).all()
    for lv in (0.01, 0.025, 0.05, 0.1, 0.25, 0.5):
        assert float(np.mean(p <= lv)) <= lv + 3 * math.sqrt(lv * (1 - lv) / p.size), lv
    assert float(np.mean(p <= 0.05)) >= 0.02 and float(np.mean(p <= 0.5)) >= 0.25
