"""Singling-out predicate generators: they single out in the synthetic data, as specified."""

from __future__ import annotations

import numpy as np
import pytest

import synthleak as sl
from synthleak.attacks.base import AttackFamily, SinglingOutAttack, list_attacks, make_attack
from synthleak.attacks.predicates import Op
from synthleak.attacks.singling_out import (
    MultivariateSinglingOut,
    RecordSinglingOut,
    UnivariateSinglingOut,
    random_predicates,
)
from synthleak.errors import InputError, NotFittedError

RNG = np.random.default_rng


@pytest.fixture(scope="module")
def syn(adult_table: sl.Table) -> sl.Table:
    return adult_table.sample(2000, rng=np.random.default_rng(1))


def test_univariate_predicates_single_out(syn: sl.Table) -> None:
    attack = UnivariateSinglingOut().fit(syn, rng=RNG(0))
    preds = attack.predicates(150, rng=np.random.default_rng(0))
    assert len(preds) == 150
    assert np.all(preds.n_atoms == 1)
    np.testing.assert_array_equal(preds.count(attack.synthetic_), 1)
    assert attack.baseline_n_cols == 1
    assert len(preds.first_unique()) == len(preds)
    # every predicate is a rare value (==), a null test or an extreme (<= min, >= max)
    used = set(np.unique(preds.ops[preds.ops != Op.ANY]).tolist())
    assert used <= {Op.EQ, Op.LE, Op.GE, Op.ISNULL}


def test_univariate_returns_fewer_when_data_has_fewer(syn: sl.Table) -> None:
    tiny = syn.select(["sex", "race"])
    preds = (
        UnivariateSinglingOut().fit(tiny, rng=RNG(0)).predicates(100, rng=np.random.default_rng(0))
    )
    assert len(preds) < 100  # only the categories that occur once can single out


def test_multivariate_predicates(syn: sl.Table) -> None:
    attack = MultivariateSinglingOut(n_cols=3).fit(syn, rng=RNG(0))
    preds = attack.predicates(100, rng=np.random.default_rng(0))
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
    a = MultivariateSinglingOut().fit(syn, rng=RNG(0)).predicates(50, rng=np.random.default_rng(3))
    b = MultivariateSinglingOut().fit(syn, rng=RNG(0)).predicates(50, rng=np.random.default_rng(3))
    np.testing.assert_array_equal(a.keys(), b.keys())


def test_max_attempts_caps_generation(syn: sl.Table) -> None:
    preds = (
        MultivariateSinglingOut(n_cols=1, max_attempts=300)
        .fit(syn, rng=RNG(0))
        .predicates(1000, rng=np.random.default_rng(0))
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


def test_duplicated_synthetic_records_count_once(syn: sl.Table) -> None:
    """A record the generator emitted twice is still one distinct candidate."""
    doubled = sl.Table.concat([syn, syn.take(np.arange(50))])
    attack = MultivariateSinglingOut(n_cols=3).fit(doubled, rng=RNG(0))
    assert len(attack.synthetic_) == len(syn)
    preds = attack.predicates(50, rng=RNG(1))
    np.testing.assert_array_equal(preds.count(syn), 1)


def test_registry_and_contract_classes() -> None:
    infos = {i.name: i for i in list_attacks(AttackFamily.SINGLING_OUT)}
    assert {"univariate", "multivariate", "contrastive"} <= set(infos)
    assert infos["contrastive"].extra == "torch"
    for name in ("univariate", "multivariate"):
        attack = make_attack(AttackFamily.SINGLING_OUT, name)
        assert isinstance(attack, SinglingOutAttack) and attack.name == name
    assert issubclass(MultivariateSinglingOut, RecordSinglingOut)
    assert make_attack(AttackFamily.SINGLING_OUT, "multivariate", n_cols=2).n_cols == 2


def test_errors(syn: sl.Table) -> None:
    with pytest.raises(NotFittedError):
        MultivariateSinglingOut().predicates(10, rng=RNG(0))
    with pytest.raises(NotFittedError):
        UnivariateSinglingOut().predicates(10, rng=RNG(0))
    with pytest.raises(InputError, match="n_cols"):
        MultivariateSinglingOut(n_cols=99).fit(syn, rng=RNG(0))
    with pytest.raises(InputError, match="batch_size"):
        MultivariateSinglingOut(batch_size=0).fit(syn, rng=RNG(0))
    with pytest.raises(InputError, match="at least 1"):
        MultivariateSinglingOut().fit(syn, rng=RNG(0)).predicates(0, rng=RNG(0))
    with pytest.raises(InputError, match="Table"):
        UnivariateSinglingOut().fit(syn.to_frame(), rng=RNG(0))  # type: ignore[arg-type]
    with pytest.raises(InputError, match="unknown singling-out attack"):
        make_attack(AttackFamily.SINGLING_OUT, "bogus")


def test_declared_constraints_reject_bad_hyperparameters_by_name() -> None:
    """The hyperparameters are declared (``_parameter_constraints``) and checked when ``fit``
    starts, before any input is looked at: a bad value raises InputError naming it."""
    import numpy as np

    from synthleak.attacks.singling_out import MultivariateSinglingOut
    from synthleak.errors import InputError

    cases = [
        (MultivariateSinglingOut(batch_size=0), "batch_size"),
        (MultivariateSinglingOut(max_attempts=0), "max_attempts"),
    ]
    for attack, parameter in cases:
        with pytest.raises(InputError, match=f"^{parameter}=") as exc:
            attack.fit(None, rng=np.random.default_rng(0))
        assert exc.value.parameter == parameter
