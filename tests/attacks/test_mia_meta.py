"""The meta classifier: out-of-fold features, null and copy oracles, reproducibility, errors."""

from __future__ import annotations

import numpy as np
import pytest
from tests.attacks.helpers import bootstrap_copies, null_pools

from synthleak.attacks.base import (
    AttackFamily,
    PopulationMembershipAttack,
    attack_info,
    fit_membership,
    make_attack,
)
from synthleak.attacks.mia_lira import LikelihoodRatioAttack
from synthleak.attacks.mia_meta import (
    LLR_CLIP,
    MetaMembershipAttack,
    parse_signals,
    stratified_folds,
)
from synthleak.errors import InputError, NotFittedError
from synthleak.metrics.privacy import auc, auc_estimate, tpr_at_fpr_estimate
from synthleak.references import get as reference

FAST = {"query_queries": 1000, "rmia_population": 16}


def test_folds_are_stratified_and_drawn_from_rng() -> None:
    y = np.r_[np.ones(23), np.zeros(17)].astype(int)
    fold = stratified_folds(y, 5, np.random.default_rng(0))
    for c, n in ((1, 23), (0, 17)):
        counts = np.bincount(fold[y == c], minlength=5)
        assert counts.sum() == n and counts.max() - counts.min() <= 1
    again = stratified_folds(y, 5, np.random.default_rng(0))
    other = stratified_folds(y, 5, np.random.default_rng(1))
    np.testing.assert_array_equal(fold, again)
    assert not np.array_equal(fold, other)


def test_meta_features_are_out_of_fold_and_the_score_uses_the_refitted_bases() -> None:
    """Each shadow dataset's lira feature comes from a lira fitted without it; test datasets'
    from the lira fitted on the whole pool; the score is the logistic of the linear model."""
    target, shadow, test, _ = null_pools(3, 40, 12, 200)
    y = np.arange(40) % 2
    a = MetaMembershipAttack(signals="lira,distance", n_folds=4, **FAST).fit(
        target, shadow, y, rng=np.random.default_rng(7)
    )
    assert a.n_folds_ == 4 and a.signals_ == ("lira", "distance")
    assert a.feature_names_[0] == "lira" and len(a.feature_names_) == a.coef_.size == 11
    fold = stratified_folds(y, 4, np.random.default_rng(7))
    seed = a.seeds_["lira"]
    for f in range(4):
        train, held = np.flatnonzero(fold != f), np.flatnonzero(fold == f)
        lira = LikelihoodRatioAttack().fit(
            target, shadow.take(train), y[train], rng=np.random.default_rng(seed)
        )
        expected = np.clip(lira.log_likelihood_ratio(shadow.take(held)), -LLR_CLIP, LLR_CLIP)
        np.testing.assert_allclose(a.oof_features_[held, 0], expected)
    full = LikelihoodRatioAttack().fit(target, shadow, y, rng=np.random.default_rng(seed))
    x = a._features(a.bases_, test, None)
    np.testing.assert_allclose(
        x[:, 0], np.clip(full.log_likelihood_ratio(test), -LLR_CLIP, LLR_CLIP)
    )
    logit = ((x - a.center_) / a.scale_) @ a.coef_ + a.intercept_
    np.testing.assert_allclose(a.score(test), 1 / (1 + np.exp(-logit)))


def test_null_oracle_intervals_cover_the_baseline_at_the_stated_rate() -> None:
    """Every dataset a sample of other real people (the target in none), labels at random: the
    95% AUC interval covers 0.5, and the TPR@FPR 0.1 interval covers 0.1, in most seeds."""
    covered_auc = covered_tpr = 0
    aucs = []
    seeds = range(8)
    for seed in seeds:
        target, shadow, test, population = null_pools(seed, 100, 80, 200)
        rng = np.random.default_rng(100 + seed)
        y_shadow = rng.permutation(np.arange(len(shadow)) % 2)
        y_test = rng.permutation(np.arange(len(test)) % 2)
        attack = fit_membership(
            MetaMembershipAttack(**FAST), target, shadow, y_shadow, rng=rng, population=population
        )
        s = attack.score(test)
        assert np.isfinite(s).all()
        est = auc_estimate(y_test, s, rng=rng)
        covered_auc += est.ci_low <= 0.5 <= est.ci_high
        aucs.append(est.value)
        tpr = tpr_at_fpr_estimate(y_test, s, 0.1)
        assert tpr.ci_low is not None and tpr.ci_high is not None
        covered_tpr += tpr.ci_low <= 0.1 <= tpr.ci_high
    # P(at most 5 of 8 covered | 95% coverage) < 0.006; the TPR interval is conservative
    assert covered_auc >= 6, f"covered 0.5 in {covered_auc}/8 seeds; AUCs {np.round(aucs, 3)}"
    assert covered_tpr >= 7, f"TPR@0.1 interval covered 0.1 in {covered_tpr}/8 seeds"


@pytest.mark.slow
def test_null_oracle_at_the_games_shapes() -> None:
    """20 seeds at the game's shapes (1,000 synthetic records, 400 shadow, 200 test datasets)."""
    from tests.attacks.helpers import null_coverage

    covered, aucs = null_coverage(MetaMembershipAttack, range(20), 400, 200, 1000)
    # P(at most 16 of 20 covered | 95% coverage) < 0.016
    assert covered >= 17, f"covered 0.5 in {covered}/20 seeds; AUCs {np.round(aucs, 3)}"
    assert abs(np.mean(aucs) - 0.5) < 0.03


def test_copy_oracle_detects_a_generator_that_resamples_its_training_data() -> None:
    """Release = a bootstrap of the training data (target in it when IN): AUC well above 0.5."""
    target, releases, y, population, rng = bootstrap_copies()
    attack = MetaMembershipAttack(**FAST).fit(
        target, releases[:100], y[:100], rng=rng, population=population
    )
    value = auc(y[100:], attack.score(releases[100:]))
    # a bootstrap of n records holds the target with probability 0.63: at most 0.82 is possible
    assert value >= 0.75, value


def test_same_rng_same_output() -> None:
    target, shadow, test, population = null_pools(1, 40, 20, 200)
    y = np.arange(40) % 2
    outs = [
        MetaMembershipAttack(**FAST)
        .fit(target, shadow, y, rng=np.random.default_rng(seed), population=population)
        .score(test)
        for seed in (3, 3, 4)
    ]
    np.testing.assert_array_equal(outs[0], outs[1])
    assert not np.array_equal(outs[0], outs[2])


def test_signals_without_rmia_need_no_population_and_folds_shrink_to_the_pool() -> None:
    target, shadow, test, _ = null_pools(2, 10, 6, 100)
    y = np.arange(10) % 2  # 5 IN, 5 OUT: two folds of at least 2 each
    a = MetaMembershipAttack(signals="query, distance", **FAST).fit(
        target, shadow, y, rng=np.random.default_rng(0)
    )
    assert a.n_folds_ == 2 and a.signals_ == ("query", "distance")
    s = a.score(test)
    assert s.shape == (6,) and np.isfinite(s).all() and np.all((s > 0) & (s < 1))


def test_bad_parameters_and_inputs_raise_input_errors() -> None:
    target, shadow, test, population = null_pools(0, 20, 10, 100)
    y = np.arange(20) % 2
    rng = np.random.default_rng(0)
    with pytest.raises(NotFittedError):
        MetaMembershipAttack().score(test)
    for bad in (
        {"n_folds": 1},
        {"C": 0.0},
        {"k": 0},
        {"query_queries": 0},
        {"rmia_population": 0},
        {"signals": "lira,nope"},
        {"signals": "lira,lira"},
        {"signals": ""},
        {"radii": (-0.1,)},
    ):
        with pytest.raises(InputError):
            MetaMembershipAttack(**{**FAST, **bad}).fit(  # type: ignore[arg-type]
                target, shadow, y, rng=rng, population=population
            )
    with pytest.raises(InputError, match="population"):
        MetaMembershipAttack(**FAST).fit(target, shadow, y, rng=rng)
    with pytest.raises(InputError, match="4 IN and 4 OUT"):
        MetaMembershipAttack(**FAST).fit(
            target, shadow[:7], np.array([1, 0, 1, 0, 1, 0, 0]), rng=rng, population=population
        )
    assert parse_signals("distance,lira") == ("lira", "distance")


def test_registered_with_its_citations() -> None:
    info = attack_info(AttackFamily.MEMBERSHIP, "meta")
    assert info.references[:3] == ("midst2025", "carlini2022", "zarifzadeh2024")
    ref = reference("midst2025")
    assert ref.year == 2025 and "MIDST" in ref.title and ref.short == "Vector Institute (2025)"
    assert isinstance(make_attack(AttackFamily.MEMBERSHIP, "meta"), PopulationMembershipAttack)
