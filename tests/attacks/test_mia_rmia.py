"""RMIA: the pairwise ratio and the score, null and copy oracles, reproducibility, the contract."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from tests.attacks.helpers import bootstrap_copies, null_coverage, null_pools

import synthleak as sl
from synthleak.attacks.base import (
    AttackFamily,
    PopulationMembershipAttack,
    attack_info,
    fit_membership,
    make_attack,
)
from synthleak.attacks.mia_rmia import RelativeMembershipAttack, log_mean_exp
from synthleak.errors import InputError, NotFittedError
from synthleak.metrics.privacy import auc
from synthleak.queries import TableStack, subset_counts
from synthleak.references import get as reference

FAST = {"n_queries": 500, "n_population": 24, "n_reference": 24}


def test_log_mean_exp_is_stable_and_exact() -> None:
    x = np.array([[-1000.0, 2.0], [-1001.0, 3.0]])
    np.testing.assert_allclose(
        log_mean_exp(x), [-1000.0 + np.log((1 + np.exp(-1)) / 2), np.log(np.mean(np.exp([2, 3])))]
    )


def test_score_is_the_fraction_of_population_records_dominated() -> None:
    """The score recomputed from its definition: counts, composite likelihoods, priors, gamma."""
    target, shadow, test, population = null_pools(2, 40, 12, 150)
    y = np.arange(40) % 2
    for gamma in (1.0, 2.0):
        a = RelativeMembershipAttack(**FAST, gamma=gamma).fit(
            target, shadow, y, rng=np.random.default_rng(0), population=population
        )

        def loglik(
            stack: TableStack, record: sl.Table, a: RelativeMembershipAttack = a
        ) -> np.ndarray:
            c = subset_counts(stack, record, a.subsets_).astype(float)
            return np.log((c + 1) / (stack.n_rows + 1)).mean(axis=1)

        lx = loglik(shadow, target)
        prior = np.log(0.5 * np.exp(lx[y == 0]).mean() + 0.5 * np.exp(lx[y == 1]).mean())
        assert a.log_prior_ == pytest.approx(prior)
        ratio_x = np.exp(loglik(test, target) - prior)
        z = a.population_
        assert len(z) == FAST["n_population"]
        ratio_z = np.stack(
            [np.exp(loglik(test, z.take([j])) - a.log_prior_population_[j]) for j in range(len(z))],
            axis=1,
        )
        lr = ratio_x[:, None] / ratio_z
        expected = (lr > gamma * (1 + 1e-7)).mean(axis=1) + 0.5 * (
            np.abs(np.log(lr / gamma)) <= 1e-9
        ).mean(axis=1)
        np.testing.assert_allclose(a.score(test), expected)
        assert np.all((a.score(test) >= 0) & (a.score(test) <= 1))


def test_null_oracle_interval_covers_one_half_at_the_stated_rate() -> None:
    """Release = other real people: the 95% AUC interval covers 0.5 in about 95% of seeds."""
    covered, aucs = null_coverage(
        lambda: RelativeMembershipAttack(n_population=16, n_reference=16), range(8), 100, 80, 200
    )
    # P(at most 5 of 8 covered | 95% coverage) < 0.006
    assert covered >= 6, f"covered 0.5 in {covered}/8 seeds; AUCs {np.round(aucs, 3)}"


@pytest.mark.slow
def test_null_oracle_at_the_games_shapes() -> None:
    """40 seeds at the game's shapes (1,000 synthetic records, 400 shadow, 200 test datasets)."""
    covered, aucs = null_coverage(RelativeMembershipAttack, range(40), 400, 200, 1000)
    # P(at most 33 of 40 covered | 95% coverage) < 0.01
    assert covered >= 34, f"covered 0.5 in {covered}/40 seeds; AUCs {np.round(aucs, 3)}"
    assert abs(np.mean(aucs) - 0.5) < 0.02


def test_copy_oracle_detects_a_generator_that_resamples_its_training_data() -> None:
    """Release = a bootstrap of the training data (target in it when IN): AUC well above 0.5."""
    target, releases, y, population, rng = bootstrap_copies()
    attack = RelativeMembershipAttack(**FAST).fit(
        target, releases[:100], y[:100], rng=rng, population=population
    )
    value = auc(y[100:], attack.score(releases[100:]))
    # a bootstrap of n records holds the target with probability 1 - (1 - 1/n)^n = 0.63
    assert value >= 0.75, value


def test_same_rng_same_output_and_draws_come_from_rng() -> None:
    target, shadow, test, population = null_pools(1, 60, 30, 200)
    y = np.arange(60) % 2
    fitted = [
        RelativeMembershipAttack(**FAST).fit(
            target, shadow, y, rng=np.random.default_rng(seed), population=population
        )
        for seed in (3, 3, 4)
    ]
    outs = [a.score(test) for a in fitted]
    np.testing.assert_array_equal(outs[0], outs[1])
    assert fitted[0].population_.equals(fitted[1].population_)
    assert not fitted[0].population_.equals(fitted[2].population_)
    assert fitted[0].subsets_.size <= 32


def test_no_separating_query_falls_back_to_every_attribute() -> None:
    """Identical shadow datasets: no query separates IN from OUT; the attack still scores."""
    target, shadow, test, population = null_pools(4, 1, 10, 100)
    same = TableStack(shadow.schema, np.repeat(shadow.codes, 8, 0), np.repeat(shadow.values, 8, 0))
    a = RelativeMembershipAttack(**FAST).fit(
        target, same, np.arange(8) % 2, rng=np.random.default_rng(0), population=population
    )
    f = len(target.schema.categorical) + len(target.schema.continuous)
    assert a.subsets_.tolist() == [(1 << f) - 1]
    assert np.isfinite(a.score(test)).all()


def test_population_is_required_and_checked() -> None:
    target, shadow, test, population = null_pools(0, 20, 10, 100)
    y = np.arange(20) % 2
    rng = np.random.default_rng(0)
    with pytest.raises(NotFittedError):
        RelativeMembershipAttack().score(test)
    with pytest.raises(InputError, match="population"):
        RelativeMembershipAttack(**FAST).fit(target, shadow, y, rng=rng)
    with pytest.raises(InputError, match="this game has none"):
        fit_membership(
            RelativeMembershipAttack(**FAST), target, shadow, y, rng=rng, population=None
        )
    df = pd.DataFrame({"a": ["x", "y"] * 5, "b": np.arange(10.0)})
    other = sl.Table.from_frame(df, sl.infer_schema(df))
    with pytest.raises(InputError, match="schema"):
        RelativeMembershipAttack(**FAST).fit(target, shadow, y, rng=rng, population=other)
    for bad in ({"gamma": 0}, {"n_population": 0}, {"smoothing": -1}, {"n_select": -1}):
        with pytest.raises(InputError):
            RelativeMembershipAttack(**{**FAST, **bad}).fit(  # type: ignore[arg-type]
                target, shadow, y, rng=rng, population=population
            )
    with pytest.raises(InputError, match="2 IN and 2 OUT"):
        RelativeMembershipAttack(**FAST).fit(
            target, shadow[:3], np.array([1, 0, 0]), rng=rng, population=population
        )
    # fit_membership gives the population to the attacks that take it, not to the others
    fitted = fit_membership(
        RelativeMembershipAttack(**FAST), target, shadow, y, rng=rng, population=population
    )
    assert np.isfinite(fitted.score(test)).all()
    plain = fit_membership(
        make_attack(AttackFamily.MEMBERSHIP, "distance", n_estimators=5),  # type: ignore[arg-type]
        target,
        shadow,
        y,
        rng=rng,
        population=None,
    )
    assert plain.score(test).shape == (10,)


def test_registered_with_its_citation() -> None:
    info = attack_info(AttackFamily.MEMBERSHIP, "rmia")
    assert info.references[0] == "zarifzadeh2024"
    ref = reference("zarifzadeh2024")
    assert ref.year == 2024 and "Shokri" in ref.authors[-1]
    attack = make_attack(AttackFamily.MEMBERSHIP, "rmia")
    assert isinstance(attack, PopulationMembershipAttack)
