"""Likelihood-ratio attack: Gaussian algebra, null and copy oracles, reproducibility, edge cases."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats
from tests.attacks.helpers import adult, bootstrap_copies, null_coverage, null_pools, stack

from synthleak.attacks.base import AttackFamily, attack_info, make_attack
from synthleak.attacks.mia_lira import (
    ClassMoments,
    LikelihoodRatioAttack,
    gaussian_logpdf,
    shrunk_covariance,
    welch_t,
)
from synthleak.errors import InputError, NotFittedError
from synthleak.metrics.privacy import auc
from synthleak.references import get as reference


def test_welch_t_and_gaussian_logpdf_match_scipy() -> None:
    rng = np.random.default_rng(0)
    x = rng.normal(size=(40, 3))
    y = np.arange(40) % 2
    x[y == 1, 0] += 1.0
    x[:, 2] = 5.0  # constant column: no evidence
    t = welch_t(x, y)
    ref = stats.ttest_ind(x[y == 1, :2], x[y == 0, :2], equal_var=False).statistic
    np.testing.assert_allclose(t[:2], ref)
    assert t[2] == 0.0
    # moments merged chunk by chunk give the same t, and exactly 0 for a constant column
    m = ClassMoments(3)
    for lo in range(0, 40, 7):
        m.add(x[lo : lo + 7] + 1e6, y[lo : lo + 7])
    np.testing.assert_allclose(m.welch_t()[:2], ref, rtol=1e-6)
    assert m.welch_t()[2] == 0.0
    cov = np.array([[2.0, 0.3], [0.3, 1.0]])
    mean = np.array([0.5, -1.0])
    pts = rng.normal(size=(7, 2))
    np.testing.assert_allclose(
        gaussian_logpdf(pts, mean, cov), stats.multivariate_normal(mean, cov).logpdf(pts)
    )
    # shrinkage keeps a covariance of two points invertible
    c = shrunk_covariance(rng.normal(size=(2, 4)))
    assert np.all(np.linalg.eigvalsh(c) > 0)


def test_null_oracle_interval_covers_one_half_at_the_stated_rate() -> None:
    """Release = other real people: the 95% AUC interval covers 0.5 in about 95% of seeds."""
    covered, aucs = null_coverage(LikelihoodRatioAttack, range(8), 100, 80, 200)
    # P(at most 5 of 8 covered | 95% coverage) < 0.006
    assert covered >= 6, f"covered 0.5 in {covered}/8 seeds; AUCs {np.round(aucs, 3)}"


@pytest.mark.slow
def test_null_oracle_at_the_games_shapes() -> None:
    """40 seeds at the game's shapes (1,000 synthetic records, 400 shadow, 200 test datasets)."""
    covered, aucs = null_coverage(LikelihoodRatioAttack, range(40), 400, 200, 1000)
    # P(at most 33 of 40 covered | 95% coverage) < 0.01
    assert covered >= 34, f"covered 0.5 in {covered}/40 seeds; AUCs {np.round(aucs, 3)}"
    assert abs(np.mean(aucs) - 0.5) < 0.02


def test_copy_oracle_detects_a_generator_that_resamples_its_training_data() -> None:
    """Release = a bootstrap of the training data (target in it when IN): AUC well above 0.5."""
    target, releases, y, _, rng = bootstrap_copies()
    attack = LikelihoodRatioAttack().fit(target, releases[:100], y[:100], rng=rng)
    value = auc(y[100:], attack.score(releases[100:]))
    # a bootstrap of n records holds the target with probability 1 - (1 - 1/n)^n = 0.63
    assert value >= 0.75, value


def test_same_rng_same_output_and_queries_drawn_from_rng() -> None:
    target, shadow, test, _ = null_pools(1, 60, 30, 200)
    y = np.arange(60) % 2
    outs, subsets = [], []
    for seed in (3, 3, 4):
        a = LikelihoodRatioAttack(n_queries=500).fit(
            target, shadow, y, rng=np.random.default_rng(seed)
        )
        outs.append(a.score(test))
        subsets.append(a.subsets_)
    np.testing.assert_array_equal(outs[0], outs[1])
    np.testing.assert_array_equal(subsets[0], subsets[1])
    assert subsets[0].size <= 32


def test_recomputing_the_selected_queries_gives_the_same_attack(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Large pools answer the chosen queries again instead of keeping every candidate answer."""
    import synthleak.attacks.mia_lira as lira

    target, shadow, test, _ = null_pools(6, 64, 20, 200)
    y = np.arange(64) % 2
    kept = LikelihoodRatioAttack(n_queries=500).fit(target, shadow, y, rng=np.random.default_rng(1))
    monkeypatch.setattr(lira, "KEEP_ANSWERS", 0)
    monkeypatch.setattr(lira, "CHUNK", 10)
    again = LikelihoodRatioAttack(n_queries=500).fit(
        target, shadow, y, rng=np.random.default_rng(1)
    )
    np.testing.assert_array_equal(kept.subsets_, again.subsets_)
    np.testing.assert_allclose(kept.score(test), again.score(test), rtol=1e-12)


def test_constant_statistics_give_the_prior_without_nan() -> None:
    table = adult()
    same = stack(table, np.tile(np.arange(50), (12, 1)))
    y = np.arange(12) % 2
    a = LikelihoodRatioAttack().fit(table.take([0]), same, y, rng=np.random.default_rng(0))
    assert a.keep_.size == 0
    np.testing.assert_array_equal(a.score(same), np.full(12, 0.5))


def test_tiny_pools_and_few_rows() -> None:
    target, shadow, test, _ = null_pools(2, 4, 6, 3)  # 2 IN, 2 OUT, 3 records (< k = 5)
    y = np.array([0, 1, 0, 1])
    for variance in ("pooled", "separate"):
        a = LikelihoodRatioAttack(variance=variance).fit(
            target, shadow, y, rng=np.random.default_rng(0)
        )
        s = a.score(test)
        assert s.shape == (6,) and np.isfinite(s).all() and np.all((s >= 0) & (s <= 1))


def test_pooled_variance_shares_one_covariance_and_separate_fits_two() -> None:
    target, shadow, test, _ = null_pools(3, 40, 10, 200)
    y = np.arange(40) % 2
    pooled = LikelihoodRatioAttack(n_queries=0).fit(target, shadow, y, rng=np.random.default_rng(0))
    assert pooled.variance_ == "pooled" and pooled.cov_in_ is pooled.cov_out_
    sep = LikelihoodRatioAttack(n_queries=0, variance="separate")
    sep.fit(target, shadow, y, rng=np.random.default_rng(0))
    assert not np.allclose(sep.cov_in_, sep.cov_out_)
    # a shared covariance makes the log-likelihood ratio linear in the standardised statistics
    z = pooled._statistics(test, pooled.subsets_)[:, pooled.keep_] - pooled.center_
    z /= pooled.scale_
    w = np.linalg.solve(pooled.cov_in_, pooled.mean_in_ - pooled.mean_out_)
    c = -0.5 * (pooled.mean_in_ + pooled.mean_out_) @ w
    np.testing.assert_allclose(pooled.log_likelihood_ratio(test), z @ w + c, rtol=1e-8)


def test_errors_and_registry() -> None:
    target, shadow, _, _ = null_pools(4, 6, 2, 20)
    rng = np.random.default_rng(0)
    with pytest.raises(NotFittedError):
        LikelihoodRatioAttack().score(shadow)
    with pytest.raises(InputError, match="at least 2 IN and 2 OUT"):
        LikelihoodRatioAttack().fit(target, shadow, np.array([1, 0, 0, 0, 0, 0]), rng=rng)
    with pytest.raises(InputError, match="variance='diag' is invalid: variance must be one of"):
        LikelihoodRatioAttack(variance="diag").fit(target, shadow, np.arange(6) % 2, rng=rng)
    with pytest.raises(InputError, match="k=0 is invalid"):
        LikelihoodRatioAttack(k=0).fit(target, shadow, np.arange(6) % 2, rng=rng)
    assert isinstance(make_attack(AttackFamily.MEMBERSHIP, "lira"), LikelihoodRatioAttack)
    info = attack_info("membership", "lira")
    assert info.doc and all(reference(k) for k in info.references)
    assert "carlini2022" in info.references


def test_declared_constraints_reject_bad_hyperparameters_by_name() -> None:
    """The hyperparameters are declared (``_parameter_constraints``) and checked when ``fit``
    starts, before any input is looked at: a bad value raises InputError naming it."""
    import numpy as np

    from synthleak.attacks.mia_lira import LikelihoodRatioAttack
    from synthleak.errors import InputError

    cases = [
        (LikelihoodRatioAttack(k=0), "k"),
        (LikelihoodRatioAttack(n_queries=-1), "n_queries"),
        (LikelihoodRatioAttack(n_select=-1), "n_select"),
        (LikelihoodRatioAttack(variance="shared"), "variance"),
    ]
    for attack, parameter in cases:
        with pytest.raises(InputError, match=f"^{parameter}=") as exc:
            attack.fit(None, None, None, rng=np.random.default_rng(0))
        assert exc.value.parameter == parameter
