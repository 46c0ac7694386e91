from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import roc_auc_score

from synthleak.metrics.privacy import (
    RiskEstimate,
    _boot_aucs,
    accuracy_difference,
    accuracy_estimate,
    auc,
    auc_estimate,
    clopper_pearson,
    mcnemar_exact,
    paired_accuracy_difference,
    rate_excess,
    roc_curve,
    tpr_at_fpr,
    tpr_at_fpr_estimate,
    wilson_interval,
)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.integers(0, 5)), min_size=2, max_size=60))
def test_auc_matches_sklearn(pairs: list[tuple[bool, int]]) -> None:
    y = np.array([p[0] for p in pairs])
    s = np.array([p[1] for p in pairs], dtype=float)
    if y.all() or not y.any():
        assert np.isnan(auc(y, s))
    else:
        assert abs(auc(y, s) - roc_auc_score(y, s)) < 1e-12


def test_auc_estimate_ci_contains_value_and_is_seeded() -> None:
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 200)
    s = y + rng.normal(0, 1, 200)
    a = auc_estimate(y, s, rng=np.random.default_rng(1))
    b = auc_estimate(y, s, rng=np.random.default_rng(1))
    assert a == b and a.ci_low <= a.value <= a.ci_high and a.baseline == 0.5
    assert 0.7 < a.value < 0.85 and a.ci_high - a.ci_low < 0.2
    assert RiskEstimate.from_dict(a.to_dict()) == a


@pytest.mark.parametrize("values", [None, 4, 1])
def test_auc_estimate_bootstrap_is_bit_identical_to_a_rank_auc_per_resample(
    values: int | None,
) -> None:
    # the one-sort bootstrap must give exactly the AUC of each resample (ties included, and the
    # all-tied case), so that no figure moved when it replaced one rank sort per resample
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 301)
    s = y + rng.normal(0, 1, 301) if values is None else rng.integers(0, values, 301) + 0.0
    got = auc_estimate(y, s, rng=np.random.default_rng(7), n_boot=200)
    draw = np.random.default_rng(7)
    pos, neg = s[y == 1], s[y == 0]
    bi_p = draw.integers(0, pos.size, (200, pos.size))
    bi_n = draw.integers(0, neg.size, (200, neg.size))
    lab = np.r_[np.ones(pos.size), np.zeros(neg.size)]
    vals = np.array([auc(lab, np.r_[pos[bi_p[b]], neg[bi_n[b]]]) for b in range(200)])
    assert np.array_equal(_boot_aucs(pos, neg, bi_p, bi_n), vals)
    assert (got.ci_low, got.ci_high) == (np.quantile(vals, 0.025), np.quantile(vals, 0.975))
    assert got.value == auc(y, s)


def test_roc_and_tpr_at_fpr() -> None:
    y = np.array([1, 1, 0, 1, 0, 0])
    s = np.array([6, 5, 4, 3, 2, 1.0])
    f, t = roc_curve(y, s)
    assert f[0] == t[0] == 0 and f[-1] == t[-1] == 1
    assert tpr_at_fpr(y, s, 0.0) == 2 / 3
    assert tpr_at_fpr(y, s, 0.34) == 1.0


@settings(max_examples=50, deadline=None)
@given(st.integers(0, 200), st.integers(1, 200))
def test_wilson_contains_proportion(k: int, n: int) -> None:
    k = min(k, n)
    lo, hi = wilson_interval(k, n)
    assert 0 <= lo <= k / n <= hi <= 1


def test_accuracy_estimate() -> None:
    est = accuracy_estimate(np.array([1, 1, 1, 0]), baseline=0.5)
    assert est.value == 0.75 and est.n_trials == 4 and est.ci_low < 0.75 < est.ci_high


@settings(max_examples=50, deadline=None)
@given(st.lists(st.integers(0, 6), min_size=0, max_size=40))
def test_rankdata_matches_scipy(values: list[int]) -> None:
    from scipy.stats import rankdata as sp_rankdata

    from synthleak.metrics.privacy import rankdata

    np.testing.assert_allclose(rankdata(np.array(values)), sp_rankdata(values))


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 60), st.integers(0, 60))
def test_mcnemar_exact_matches_scipy(a_only: int, b_only: int) -> None:
    from scipy.stats import binomtest

    expected = (
        1.0 if a_only + b_only == 0 else binomtest(min(a_only, b_only), a_only + b_only, 0.5).pvalue
    )
    assert abs(mcnemar_exact(a_only, b_only) - expected) < 1e-9


def test_paired_difference_detects_a_better_attack_and_not_an_equal_one() -> None:
    rng = np.random.default_rng(0)
    truth_b = rng.random(600) < 0.6
    better = truth_b | (rng.random(600) < 0.3)  # a right whenever b is, plus more
    cmp = paired_accuracy_difference(
        better, truth_b, clusters=np.repeat(np.arange(120), 5), rng=np.random.default_rng(1)
    )
    assert cmp.b_only == 0 and cmp.a_only > 50
    assert cmp.difference == (better.mean() - truth_b.mean())
    assert 0 < cmp.ci_low <= cmp.difference <= cmp.ci_high
    assert cmp.p_value < 1e-6
    same = paired_accuracy_difference(
        rng.random(600) < 0.6, rng.random(600) < 0.6, rng=np.random.default_rng(1)
    )
    assert same.ci_low < 0 < same.ci_high and same.p_value > 0.01
    again = paired_accuracy_difference(
        better, truth_b, clusters=np.repeat(np.arange(120), 5), rng=np.random.default_rng(1)
    )
    assert again == cmp


@pytest.mark.parametrize("shuffled_clusters", [False, True])
def test_paired_difference_one_secret_per_cluster_is_bit_identical(
    shuffled_clusters: bool,
) -> None:
    # one secret per cluster takes an exact integer path: it must give the bootstrap of the
    # cluster sums over cluster sizes bit for bit (clusters given in any order included)
    rng = np.random.default_rng(5)
    a, b = rng.random(701) < 0.5, rng.random(701) < 0.45
    labels = rng.permutation(701) if shuffled_clusters else None
    got = paired_accuracy_difference(a, b, clusters=labels, rng=np.random.default_rng(2))
    diff = a.astype(float) - b.astype(float)
    _, inv = np.unique(np.arange(701) if labels is None else labels, return_inverse=True)
    sums = np.bincount(inv, weights=diff, minlength=701)
    draws = np.random.default_rng(2).integers(0, 701, (2000, 701))
    vals = sums[draws].sum(axis=1) / np.ones(701)[draws].sum(axis=1)
    assert (got.ci_low, got.ci_high) == (np.quantile(vals, 0.025), np.quantile(vals, 0.975))


def test_cluster_bootstrap_is_wider_for_correlated_outcomes() -> None:
    rng = np.random.default_rng(3)
    # whole games go one way: 40 clusters of 10 identical differences
    per_game = rng.random(40) < 0.6
    a = np.repeat(per_game, 10)
    b = np.zeros_like(a)
    clustered = paired_accuracy_difference(
        a, b, clusters=np.repeat(np.arange(40), 10), rng=np.random.default_rng(0)
    )
    naive = paired_accuracy_difference(a, b, rng=np.random.default_rng(0))
    assert (clustered.ci_high - clustered.ci_low) > 2 * (naive.ci_high - naive.ci_low)


def test_accuracy_difference_matches_newcombes_worked_examples() -> None:
    # Newcombe (1998), Table II: 56/70 - 48/80 and 9/10 - 3/10 by the hybrid score method
    d = accuracy_difference(np.r_[np.ones(56), np.zeros(14)], np.r_[np.ones(48), np.zeros(32)])
    assert d.difference == pytest.approx(0.2)
    assert (round(d.ci_low, 4), round(d.ci_high, 4)) == (0.0524, 0.3339)
    d = accuracy_difference(np.r_[np.ones(9), np.zeros(1)], np.r_[np.ones(3), np.zeros(7)])
    assert (round(d.ci_low, 4), round(d.ci_high, 4)) == (0.1705, 0.8090)
    assert d.p_value < 0.01 and (d.n_a, d.n_b) == (10, 10)
    assert type(d).from_json(d.to_json()) == d


def test_accuracy_difference_edge_cases() -> None:
    empty = accuracy_difference(np.ones(5, dtype=bool), np.zeros(0, dtype=bool))
    assert np.isnan(empty.difference) and np.isnan(empty.width) and empty.n_b == 0
    same = accuracy_difference(np.ones(20), np.ones(30))
    assert same.difference == 0 and same.p_value == 0.5 and same.ci_low < 0 < same.ci_high
    assert accuracy_difference(np.ones(20), np.zeros(30)).p_value < 1e-6


def test_accuracy_difference_null_calibration() -> None:
    # two independent groups with the same accuracy: the 95% interval excludes 0 from below
    # in about 2.5% of draws (the one-sided false-alarm rate of a "leak" verdict)
    rng = np.random.default_rng(0)
    low = 0
    for _ in range(2000):
        d = accuracy_difference(rng.random(400) < 0.8, rng.random(100) < 0.8)
        low += d.ci_low > 0
    assert low / 2000 < 0.04


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 40), st.integers(1, 40), st.integers(0, 40), st.integers(1, 40))
def test_accuracy_difference_interval_contains_estimate(ka: int, na: int, kb: int, nb: int) -> None:
    ka, kb = min(ka, na), min(kb, nb)
    d = accuracy_difference(np.arange(na) < ka, np.arange(nb) < kb)
    assert -1 <= d.ci_low <= d.difference <= d.ci_high <= 1
    assert 0 <= d.p_value <= 1


def test_rate_excess_covers_zero_under_the_null_and_sees_a_copy() -> None:
    """Two samples of one population at the audit's ratios (release four times the control,
    rates from 0 to 0.5): the excess's interval covers 0 about 95 % of the time, including
    rates near 0 where the plain normal interval fails; a copied release is flagged."""
    from synthleak.metrics.privacy import rate_excess

    rng = np.random.default_rng(0)
    for p in (0.0, 0.01, 0.05, 0.2, 0.5):
        for n, m in ((400, 100), (2000, 500), (63, 16)):
            hits = 0
            reps = 400
            for _ in range(reps):
                e = rate_excess(int(rng.binomial(n, p)), n, int(rng.binomial(m, p)), m)
                hits += e.ci_low <= 0 <= e.ci_high
                assert e.baseline == 0.0 and e.ci_low <= e.value <= e.ci_high
            assert hits / reps >= 0.92, (p, n, m, hits / reps)
    copy = rate_excess(63, 63, 0, 16)
    assert copy.value == 1.0 and copy.ci_low > 0.7
    same = rate_excess(148, 800, 37, 200)  # 0.185 against 0.185: no excess
    assert same.ci_low < 0 < same.ci_high
    assert math.isnan(rate_excess(1, 0, 0, 5).value)


def test_continuity_corrected_intervals_match_newcombe_1998() -> None:
    """Wilson's interval with continuity correction (Newcombe 1998, single proportion, method
    4) and the hybrid score difference built on it (method 11), against the papers' worked
    examples (Table I of the single-proportion paper, Table II of the difference paper)."""
    single = {
        (81, 263): (0.2535, 0.3682),
        (15, 148): (0.0598, 0.1644),
        (0, 20): (0.0, 0.2005),
        (1, 29): (0.0018, 0.1963),
    }
    for (k, n), want in single.items():
        assert np.allclose(wilson_interval(k, n, continuity=True), want, atol=5e-5), (k, n)
    diff = {
        (56, 70, 48, 80): (0.0428, 0.3422),
        (9, 10, 3, 10): (0.1013, 0.8387),
        (6, 7, 2, 7): (-0.0290, 0.8423),
        (5, 56, 0, 29): (-0.0667, 0.2037),
    }
    for counts, want in diff.items():
        e = rate_excess(*counts, continuity=True)
        assert np.allclose((e.ci_low, e.ci_high), want, atol=5e-5), counts
        plain = rate_excess(*counts)
        assert e.ci_low < plain.ci_low and e.ci_high > plain.ci_high  # wider
        assert e.value == plain.value and e.p_value == plain.p_value


def _exact_flag_rate(n: int, m: int, p: float, continuity: bool) -> float:
    """P(the excess's lower end > 0) when both samples have rate ``p``, summed exactly over
    every pair of counts."""
    from scipy.stats import binom

    def ends(size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        k = np.arange(size + 1)
        lo, hi = np.array([wilson_interval(int(i), size, continuity=continuity) for i in k]).T
        return k / size, lo, hi

    r1, lo1, _ = ends(n)
    r2, _, hi2 = ends(m)
    low = r1[:, None] - r2[None, :] - np.sqrt((r1 - lo1)[:, None] ** 2 + (hi2 - r2)[None, :] ** 2)
    w = np.outer(binom.pmf(np.arange(n + 1), n, p), binom.pmf(np.arange(m + 1), m, p))
    return float(w[low > 0].sum())


def test_continuity_correction_keeps_the_flag_rate_nominal_at_four_to_one() -> None:
    """Nothing differs, 400 records against 100 (the person-level copy figures' ratio): the
    uncorrected interval lies above 0 in more than the nominal 2.5 % at high rates, the
    corrected one in at most 2.5 % at every rate (exact sums, not simulation)."""
    e = rate_excess(300, 400, 70, 100)
    low = (
        0.75
        - 0.70
        - math.sqrt(
            (0.75 - wilson_interval(300, 400)[0]) ** 2 + (wilson_interval(70, 100)[1] - 0.70) ** 2
        )
    )
    assert e.ci_low == pytest.approx(low)  # the exact sum's formula is rate_excess's
    plain = {p: _exact_flag_rate(400, 100, p, False) for p in (0.5, 0.8, 0.95)}
    assert plain[0.8] > 0.027 and plain[0.95] > 0.03
    for p in (0.05, 0.2, 0.5, 0.7, 0.8, 0.9, 0.95):
        assert _exact_flag_rate(400, 100, p, True) <= 0.025, p


def test_clopper_pearson_matches_the_beta_quantiles() -> None:
    from scipy.stats import beta

    lo, hi = clopper_pearson(3, 20)
    assert lo == pytest.approx(beta.ppf(0.025, 3, 18)) and hi == pytest.approx(
        beta.ppf(0.975, 4, 17)
    )
    assert clopper_pearson(0, 10)[0] == 0.0 and clopper_pearson(10, 10)[1] == 1.0


def test_tpr_at_fpr_estimate_not_resolvable_below_one_over_fpr() -> None:
    y = np.r_[np.ones(50), np.zeros(150)]
    s = np.r_[np.full(50, 2.0), np.linspace(0, 1, 150)]
    t = tpr_at_fpr_estimate(y, s, 0.001)
    assert t.value is None and t.ci_low is None and not t.resolvable
    assert t.note is not None and "not resolvable at this size" in t.note
    assert "1000 non-members, have 150" in t.note and t.n_non_members == 150
    ok = tpr_at_fpr_estimate(y, s, 0.01)
    # every member outscores every non-member, but 150 non-members cannot rule out that the
    # population's top 1% of non-members lies above them all (0.99 ** 150 = 0.22): the lower
    # bound stays 0 until about 4.4 / fpr non-members (P(no non-member above) < alpha / 4)
    assert ok.value == 1.0 and ok.ci_high == 1.0 and ok.ci_low == 0.0
    many = tpr_at_fpr_estimate(
        np.r_[np.ones(50), np.zeros(600)], np.r_[np.full(50, 2.0), np.linspace(0, 1, 600)], 0.01
    )
    assert many.ci_low is not None and many.ci_low > 0.9


def test_tpr_at_fpr_interval_covers_the_fpr_under_the_null() -> None:
    """Members and non-members from one distribution: the interval covers TPR = FPR at least
    at the stated rate (it is conservative: the threshold bracket and the two binomial bounds
    share alpha by the union bound), and it holds the point estimate."""
    rng = np.random.default_rng(0)
    for n, f in ((1000, 0.01), (2000, 0.001), (500, 0.1)):
        cover = 0
        for _ in range(200):
            s = rng.normal(size=2 * n)
            y = np.r_[np.ones(n), np.zeros(n)]
            t = tpr_at_fpr_estimate(y, s, f)
            assert t.value is not None and t.ci_low is not None and t.ci_high is not None
            cover += t.ci_low <= f <= t.ci_high
            assert t.ci_low <= t.value <= t.ci_high
        assert cover >= 0.95 * 200, (n, f, cover)


def test_tpr_at_fpr_interval_sees_a_separated_attack() -> None:
    rng = np.random.default_rng(1)
    n = 2000
    s = np.r_[rng.normal(3.0, 1.0, n), rng.normal(0.0, 1.0, n)]
    y = np.r_[np.ones(n), np.zeros(n)]
    t = tpr_at_fpr_estimate(y, s, 0.01)
    assert t.ci_low is not None and t.ci_low > 0.3  # the true TPR at FPR 0.01 is 0.61


def test_auc_above_p_rejects_at_its_level_on_the_boundary_and_sees_a_strong_attack() -> None:
    from statistics import NormalDist

    from synthleak.metrics.privacy import auc_above_p

    rng = np.random.default_rng(0)
    y = np.arange(100) < 50
    for level in (0.5, 0.8):
        shift = np.sqrt(2) * NormalDist().inv_cdf(level)  # binormal scores of AUC = level
        rejected = sum(
            auc_above_p(y, rng.normal(size=100) + shift * y, level) <= 0.05 for _ in range(600)
        )
        assert rejected <= 0.07 * 600
    assert auc_above_p(y, y.astype(float), 0.8) < 1e-3  # a perfect attack on 50 + 50
    few = np.array([True, True, False, False])
    assert auc_above_p(few, few.astype(float), 0.8) > 0.05  # ... but not on 2 + 2 trials
    assert np.isnan(auc_above_p(np.ones(5, bool), np.arange(5.0), 0.5))


# --- null oracle of the p-values ---------------------------------------------------------------
# Each family's p-value, read as a finding reads it (``verdicts.one_sided_p`` of the estimate the
# estimator returns), on null inputs drawn at the audit's shapes (the original four times the
# control). Continuous tests: a KS test of uniformity over the draws. Discrete exact tests are
# uniform only up to their discreteness: ``P(p <= a) <= a`` at several ``a`` (with a binomial
# allowance for the finite number of draws) and not much below it at 5 %. A p-value read from an
# interval clipped at 0 (the old ``one_sided_p``) is 0.025 on about half of null draws and fails
# both.

LEVELS = (0.01, 0.025, 0.05, 0.1, 0.25, 0.5)


def _finding_p(est: RiskEstimate, baseline: float) -> float:
    from synthleak.verdicts import one_sided_p

    return one_sided_p(est, baseline)


def _assert_uniform(p: np.ndarray) -> None:
    from scipy.stats import kstest

    assert np.isfinite(p).all()
    assert kstest(p, "uniform").pvalue > 0.001, np.quantile(p, [0.01, 0.05, 0.25, 0.5])


def _assert_valid(p: np.ndarray, *, power_at_5: float = 0.01) -> None:
    """``P(p <= a) <= a`` at every level, up to 3 binomial standard errors of the draws."""
    assert np.isfinite(p).all()
    n = p.size
    for a in LEVELS:
        rate = float(np.mean(p <= a))
        assert rate <= a + 3 * math.sqrt(a * (1 - a) / n), (a, rate)
    if power_at_5 > 0:  # not degenerate: it rejects, and is not pinned at 1
        assert float(np.mean(p <= 0.05)) >= power_at_5
        assert float(np.mean(p <= 0.5)) >= 0.25


def test_null_oracle_nobox_membership_auc() -> None:
    """No-box membership: members 4x non-members, continuous scores (KS) and tied ones."""
    rng = np.random.default_rng(51)
    y = np.r_[np.ones(800, bool), np.zeros(200, bool)]
    boot = np.random.default_rng(0)
    cont = [
        _finding_p(auc_estimate(y, rng.normal(size=y.size), rng=boot, n_boot=1), 0.5)
        for _ in range(250)
    ]
    _assert_uniform(np.array(cont))
    ties = [
        _finding_p(auc_estimate(y, rng.integers(0, 4, y.size), rng=boot, n_boot=1), 0.5)
        for _ in range(200)
    ]
    _assert_valid(np.array(ties))


def test_null_oracle_black_box_per_target_auc() -> None:
    """Black-box membership of one target: its evaluation half, 50 worlds with it and 50
    without (KS)."""
    rng = np.random.default_rng(52)
    y = np.r_[np.ones(50, bool), np.zeros(50, bool)]
    boot = np.random.default_rng(0)
    p = [
        _finding_p(auc_estimate(y, rng.normal(size=y.size), rng=boot, n_boot=1), 0.5)
        for _ in range(300)
    ]
    _assert_uniform(np.array(p))


def test_null_oracle_attribute_accuracy_against_chance() -> None:
    """Attribute game: 600 guesses at a chance rate of 1/5 (exact binomial: discrete)."""
    rng = np.random.default_rng(53)
    p = np.array(
        [
            _finding_p(accuracy_estimate(rng.random(600) < 0.2, baseline=0.2, test=True), 0.2)
            for _ in range(400)
        ]
    )
    _assert_valid(p, power_at_5=0.03)


def test_null_oracle_attribute_advantage() -> None:
    """Release attribute inference: 800 training records against 200 control records at the
    same accuracy (the score test, nearly continuous at these counts: KS)."""
    from types import SimpleNamespace

    from synthleak.games.attribute_release import ReleaseAttributeResult

    rng = np.random.default_rng(54)
    advantage = ReleaseAttributeResult.advantage.fget  # type: ignore[attr-defined]
    p = []
    for _ in range(400):
        d = accuracy_difference(rng.random(800) < 0.4, rng.random(200) < 0.4)
        p.append(_finding_p(advantage(SimpleNamespace(difference=d)), 0.0))
    _assert_uniform(np.array(p))


@pytest.mark.parametrize("rate", [0.002, 0.05, 0.4])
def test_null_oracle_copy_rates(rate: float) -> None:
    """Copies: 2,000 synthetic records against 500 control records at the same (rare to
    common) rate of being found in the original (Fisher's exact test: discrete)."""
    rng = np.random.default_rng(55)
    k1, k2 = rng.binomial(2000, rate, 400), rng.binomial(500, rate, 400)
    p = np.array(
        [
            _finding_p(rate_excess(int(a), 2000, int(b), 500), 0.0)
            for a, b in zip(k1, k2, strict=True)
        ]
    )
    # at 0.2 % the ~5 expected successes cannot reach 5 % however they fall: no power to ask for
    _assert_valid(p, power_at_5=0.0 if rate < 0.01 else 0.02)


def test_bootstrap_aucs_equal_the_rank_formula_bit_for_bit() -> None:
    """The bootstrap's draws are scored without ranking each one (``_boot_aucs``): the same
    AUCs as the rank formula on every draw, with ties and infinities."""
    from synthleak.metrics.privacy import _auc_two, _boot_aucs

    for trial in range(12):
        r = np.random.default_rng(trial)
        m, n = (int(v) for v in r.integers(1, 120, 2))
        tied = trial % 2 == 1
        pos = r.integers(0, 8, m).astype(float) if tied else r.normal(0.3, 1, m)
        neg = r.integers(0, 8, n).astype(float) if tied else r.normal(0, 1, n)
        if trial % 3 == 0:
            pos[:2], neg[:1] = np.inf, -np.inf
        draws = 137
        bi_p, bi_n = r.integers(0, m, (draws, m)), r.integers(0, n, (draws, n))
        slow = [_auc_two(pos[bi_p[b]], neg[bi_n[b]]) for b in range(draws)]
        np.testing.assert_array_equal(_boot_aucs(pos, neg, bi_p, bi_n), slow)


def test_auc_estimate_with_nan_scores_keeps_the_ranked_path() -> None:
    y = np.r_[np.ones(30), np.zeros(30)]
    s = np.r_[np.linspace(0, 1, 30), np.linspace(-0.5, 0.5, 30)]
    s[[0, 40]] = np.nan
    e = auc_estimate(y, s, rng=np.random.default_rng(0), n_boot=50)
    assert 0 <= e.ci_low <= e.ci_high <= 1


def test_auc_estimate_reads_given_draws_as_it_would_make_them() -> None:
    """Draws made once (:func:`bootstrap_draws`) give the interval ``auc_estimate`` draws
    itself from the same generator; draws of other sizes are refused."""
    from synthleak.metrics.privacy import bootstrap_draws

    r = np.random.default_rng(5)
    y = np.r_[np.ones(40), np.zeros(90)]
    s = y * 0.4 + r.normal(0, 1, y.size)
    own = auc_estimate(y, s, rng=np.random.default_rng(9), n_boot=300)
    draws = bootstrap_draws(40, 90, rng=np.random.default_rng(9), n_boot=300)
    assert auc_estimate(y, s, draws=draws) == own
    assert auc_estimate(y, -s, draws=draws).ci_low == pytest.approx(1 - own.ci_high)
    with pytest.raises(ValueError, match="draws resample 40 positives and 90 negatives"):
        auc_estimate(y[1:], s[1:], draws=draws)
    with pytest.raises(TypeError, match="rng or draws"):
        auc_estimate(y, s)
