"""Singling-out predicate generators: they single out in the synthetic data, as specified."""

from __future__ import annotations

import numpy as np
import pytest

import synthleak as sl
from synthleak.attacks.predicates import Op
from synthleak.attacks.singling_out import (
    MultivariateSinglingOut,
    SinglingOutMode,
    UnivariateSinglingOut,
    make_singling_out_attack,
    random_predicates,
)
from synthleak.errors import InputError, NotFittedError


@pytest.fixture(scope="module")
def syn(adult_table: sl.Table) -> sl.Table:
    return adult_table.sample(2000, rng=np.random.default_rng(1))


def test_univariate_predicates_single_out(syn: sl.Table) -> None:
    attack = UnivariateSinglingOut().fit(syn)
    preds = attack.predicates_(150, rng=np.random.default_rng(0))
    assert len(preds) == 150
    assert np.all(preds.n_atoms == 1)
    np.testing.assert_array_equal(preds.count(attack.synthetic_), 1)
    assert len(preds.first_unique()) == len(preds)
    # every predicate is a rare value (==), a null test or an extreme (<= min, >= max)
    used = set(np.unique(preds.ops[preds.ops != Op.ANY]).tolist())
    assert used <= {Op.EQ, Op.LE, Op.GE, Op.ISNULL}


def test_univariate_returns_fewer_when_data_has_fewer(syn: sl.Table) -> None:
    tiny = syn.select(["sex", "race"])
    preds = UnivariateSinglingOut().fit(tiny).predicates_(100, rng=np.random.default_rng(0))
    assert len(preds) < 100  # only the categories that occur once can single out


def test_multivariate_predicates(syn: sl.Table) -> None:
    attack = MultivariateSinglingOut(n_cols=3).fit(syn)
    preds = attack.predicates_(100, rng=np.random.default_rng(0))
    assert len(preds) == 100
    assert np.all(preds.n_atoms == 3)
    np.testing.assert_array_equal(preds.count(attack.synthetic_), 1)
    assert len(preds.first_unique()) == 100
    # continuous atoms point to the tail: >= above the median, <= otherwise
    for j, col in enumerate(syn.schema.columns):
        if col.is_categorical:
            assert set(np.unique(preds.ops[:, j]).tolist()) <= {Op.ANY, Op.EQ}
            continue
        ge = preds.ops[:, j] == Op.GE
        le = preds.ops[:, j] == Op.LE
        assert np.all(preds.values[ge, j] > attack.medians_[j])
        assert np.all(preds.values[le, j] <= attack.medians_[j])


def test_multivariate_same_seed_same_predicates(syn: sl.Table) -> None:
    a = MultivariateSinglingOut().fit(syn).predicates_(50, rng=np.random.default_rng(3))
    b = MultivariateSinglingOut().fit(syn).predicates_(50, rng=np.random.default_rng(3))
    np.testing.assert_array_equal(a.keys(), b.keys())


def test_max_attempts_caps_generation(syn: sl.Table) -> None:
    preds = (
        MultivariateSinglingOut(n_cols=1, max_attempts=300)
        .fit(syn)
        .predicates_(1000, rng=np.random.default_rng(0))
    )
    assert len(preds) < 300


def test_random_predicates(syn: sl.Table) -> None:
    preds = random_predicates(syn, 400, 2, rng=np.random.default_rng(0))
    assert len(preds) == 400
    assert np.all(preds.n_atoms == 2)
    for j, col in enumerate(syn.schema.columns):
        ops = set(np.unique(preds.ops[:, j]).tolist()) - {Op.ANY}
        if col.is_categorical:
            assert ops == {Op.EQ, Op.NE}
        else:
            assert {Op.EQ, Op.NE, Op.LT, Op.LE, Op.GT, Op.GE} <= ops | {Op.ISNULL, Op.NOTNULL}


def test_errors(syn: sl.Table) -> None:
    with pytest.raises(NotFittedError):
        MultivariateSinglingOut().predicates_(10, rng=np.random.default_rng(0))
    with pytest.raises(InputError, match="n_cols"):
        MultivariateSinglingOut(n_cols=99).fit(syn)
    with pytest.raises(InputError, match="unknown singling-out mode"):
        make_singling_out_attack("bogus")
    assert isinstance(make_singling_out_attack(SinglingOutMode.UNIVARIATE), UnivariateSinglingOut)
    assert make_singling_out_attack("multivariate", n_cols=2).n_cols == 2
    assert [m.value for m in SinglingOutMode] == ["univariate", "multivariate", "contrastive"]
