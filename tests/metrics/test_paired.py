"""DeLong's paired comparison of two AUCs on the same records; paired shares."""

from __future__ import annotations

import math

import numpy as np
import pytest

from synthleak.metrics.paired import (
    paired_auc_difference,
    paired_excess_difference,
    paired_share_difference,
    share_difference_resamples,
    sign_flip_p_value,
)
from synthleak.metrics.privacy import auc, paired_accuracy_difference


def test_the_difference_is_the_difference_of_the_two_aucs() -> None:
    rng = np.random.default_rng(0)
    y = np.r_[np.ones(60), np.zeros(80)]
    a = y + rng.normal(0, 1, y.size)
    b = rng.normal(0, 1, y.size)
    d = paired_auc_difference(y, a, b)
    assert d.auc_a == pytest.approx(auc(y, a)) and d.auc_b == pytest.approx(auc(y, b))
    assert d.difference == pytest.approx(auc(y, a) - auc(y, b))
    assert d.ci_low < d.difference < d.ci_high
    assert d.p_value < 0.05 and d.ci_low > 0  # interval and test agree


def test_identical_scorings_do_not_differ() -> None:
    y = np.r_[np.ones(5), np.zeros(5)]
    s = np.arange(10.0)
    d = paired_auc_difference(y, s, s)
    assert d.difference == 0 and d.p_value == 1.0 and d.ci_low == d.ci_high == 0


def test_the_single_auc_variance_matches_delongs_for_a_known_case() -> None:
    # against b = constant scores (AUC 0.5, no variance), the difference's variance is a's alone;
    # DeLong's variance of one AUC: var(V10)/m + var(V01)/n, checked by a direct computation
    y = np.array([1, 1, 1, 0, 0, 0, 0], dtype=bool)
    a = np.array([0.9, 0.4, 0.7, 0.5, 0.1, 0.3, 0.6])
    v10 = np.array([np.mean([(p > q) + 0.5 * (p == q) for q in a[~y]]) for p in a[y]])
    v01 = np.array([np.mean([(p > q) + 0.5 * (p == q) for p in a[y]]) for q in a[~y]])
    var = v10.var(ddof=1) / 3 + v01.var(ddof=1) / 4
    d = paired_auc_difference(y, a, np.zeros(7), confidence=0.95)
    assert d.ci_high - d.difference == pytest.approx(1.959964 * np.sqrt(var), rel=1e-5)


def test_under_the_null_the_test_rejects_at_about_its_level() -> None:
    rng = np.random.default_rng(1)
    y = np.r_[np.ones(100), np.zeros(100)]
    signal = y * 0.5
    rejections = 0
    for _ in range(300):  # two noisy scorings of one signal: equal AUCs, correlated
        common = rng.normal(0, 1, y.size)
        a = signal + common + rng.normal(0, 1, y.size)
        b = signal + common + rng.normal(0, 1, y.size)
        rejections += paired_auc_difference(y, a, b).p_value < 0.05
    assert rejections / 300 <= 0.09


def test_bad_shapes_and_too_few_records_are_refused() -> None:
    with pytest.raises(ValueError, match="one length"):
        paired_auc_difference(np.ones(3), np.ones(3), np.ones(4))
    with pytest.raises(ValueError, match="two positives"):
        paired_auc_difference(np.array([1, 0, 0]), np.ones(3), np.ones(3))


def test_paired_share_difference_gives_the_record_bootstraps_figures() -> None:
    # the same difference and McNemar test as the record-by-record bootstrap, and an interval
    # from the same distribution (other resamples): within their Monte Carlo error
    rng = np.random.default_rng(8)
    a, b = rng.random(2000) < 0.05, rng.random(2000) < 0.03
    got = paired_share_difference(a, b, rng=np.random.default_rng(1))
    ref = paired_accuracy_difference(a, b, rng=np.random.default_rng(1))
    assert (got.difference, got.p_value, got.n, got.a_only, got.b_only) == (
        ref.difference,
        ref.p_value,
        ref.n,
        ref.a_only,
        ref.b_only,
    )
    assert got.ci_low == pytest.approx(ref.ci_low, abs=0.0015)
    assert got.ci_high == pytest.approx(ref.ci_high, abs=0.0015)
    assert got.ci_low < got.difference < got.ci_high
    assert paired_share_difference(a, b, rng=np.random.default_rng(1)) == got
    empty = paired_share_difference(a[:0], b[:0], rng=np.random.default_rng(1))
    assert empty.n == 0 and math.isnan(empty.ci_low)


def test_share_difference_resamples_follow_the_record_bootstraps_distribution() -> None:
    # multinomial counts against resampling 200 records one by one: the same law (two-sample
    # Kolmogorov-Smirnov), and the bootstrap's exact mean and variance
    from scipy.stats import ks_2samp

    n, a_only, b_only = 200, 23, 9
    step = np.r_[np.ones(a_only), -np.ones(b_only), np.zeros(n - a_only - b_only)]
    draws = np.random.default_rng(3).integers(0, n, (20_000, n))
    by_record = step[draws].sum(axis=1) / n
    drawn = share_difference_resamples(
        a_only, b_only, n, rng=np.random.default_rng(4), n_boot=20_000
    )
    assert ks_2samp(by_record, drawn).pvalue > 0.01
    pa, pb = a_only / n, b_only / n
    assert drawn.mean() == pytest.approx(pa - pb, abs=0.002)
    assert drawn.var() == pytest.approx((pa + pb - (pa - pb) ** 2) / n, rel=0.05)
    # a real difference in law is seen: one record more for a alone
    shifted = share_difference_resamples(
        a_only + 4, b_only, n, rng=np.random.default_rng(4), n_boot=20_000
    )
    assert ks_2samp(by_record, shifted).pvalue < 1e-6


def test_the_sign_flip_test_is_mcnemars_without_control_discordance_and_exact() -> None:
    from itertools import product

    from synthleak.metrics.privacy import mcnemar_exact

    for a_only, b_only in ((0, 0), (7, 2), (3, 11), (20, 20)):
        assert sign_flip_p_value(a_only, b_only, 100, 0, 0, 80) == pytest.approx(
            mcnemar_exact(a_only, b_only), rel=1e-9
        )
    # against every sign assignment of 5 discordant training and 3 discordant control targets
    n, m, a1, b1, a2, b2 = 40, 30, 4, 1, 0, 3
    obs = abs((a1 - b1) / n - (a2 - b2) / m)
    hits = 0
    for signs in product((1, -1), repeat=a1 + b1 + a2 + b2):
        t = sum(signs[: a1 + b1]) / n - sum(signs[a1 + b1 :]) / m
        hits += abs(t) >= obs - 1e-12
    assert sign_flip_p_value(a1, b1, n, a2, b2, m) == pytest.approx(hits / 2**8)


def test_paired_excess_difference_subtracts_the_controls_discordance() -> None:
    rng = np.random.default_rng(2)
    ta = rng.random(400) < 0.3
    tb = ta & (rng.random(400) < 0.5)  # b links half of what a links on the training targets
    ca = rng.random(300) < 0.1
    d = paired_excess_difference(ta, tb, ca, ca, rng=np.random.default_rng(0))
    assert d.difference == pytest.approx(ta.mean() - tb.mean())
    assert d.ci_low > 0 and d.p_value < 1e-6 and (d.b_only, d.control_a_only) == (0, 0)
    # a linking as much more of the control targets: no excess left
    cb = ca.copy()
    more = np.flatnonzero(~ca)[: d.a_only * 300 // 400]
    ca2 = ca.copy()
    ca2[more] = True
    e = paired_excess_difference(ta, tb, ca2, cb, rng=np.random.default_rng(0))
    assert abs(e.difference) < 0.01 and e.ci_low < 0 < e.ci_high and e.p_value > 0.5
    assert paired_excess_difference(ta, tb, ca2, cb, rng=np.random.default_rng(0)) == e
    with pytest.raises(ValueError, match="control targets"):
        paired_excess_difference(ta, tb, ca[:0], ca[:0], rng=np.random.default_rng(0))
