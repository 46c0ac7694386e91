"""Query attack: features are the counting-query answers; it separates IN/OUT on a leaky setup."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import synthleak as sl
from synthleak.attacks.base import AttackFamily, make_attack
from synthleak.attacks.mia_query import QueryAttack
from synthleak.errors import InputError, NotFittedError
from synthleak.metrics.privacy import auc
from synthleak.queries import TableStack, all_subset_counts


def _setup(seed: int = 0, n_sets: int = 60):
    rng = np.random.default_rng(seed)
    n = 300
    df = pd.DataFrame(
        {
            "a": rng.choice(["p", "q"], n),
            "b": rng.choice(["u", "v", "w"], n),
            "x": rng.normal(size=n).round(2),
        }
    )
    df.loc[0] = ["p", "w", -9.0]  # x <= -9 selects only copies of the target
    t = sl.Table.from_frame(df, sl.infer_schema(df, categorical=["a", "b"], continuous=["x"]))
    y = np.arange(n_sets) % 2
    sets = []
    for i in range(n_sets):
        rows = rng.integers(1, n, 50)
        if y[i]:
            rows[:3] = 0  # the target leaks into IN datasets
        sets.append(t.take(rows))
    return t, TableStack.from_tables(sets), y


def test_features_are_query_answers_and_attack_separates() -> None:
    t, stack, y = _setup()
    a = QueryAttack(n_queries=100, n_estimators=20, max_depth=4)
    a.fit(t.take([0]), stack[:40], y[:40], rng=np.random.default_rng(1))
    assert a.subsets_.tolist() == list(range(1, 8))  # F = 3: all 7 non-empty subsets
    x = a.features(stack)
    np.testing.assert_array_equal(x, all_subset_counts(stack, t.take([0]))[:, 1:])
    assert auc(y[40:], a.score(stack[40:])) >= 0.95


def test_registry_unfitted_and_bad_input() -> None:
    t, stack, y = _setup(n_sets=8)
    atk = make_attack(AttackFamily.MEMBERSHIP, "query", n_queries=5)
    assert isinstance(atk, QueryAttack) and atk.n_queries == 5
    with pytest.raises(NotFittedError):
        atk.score(stack)
    with pytest.raises(InputError, match="both IN"):
        atk.fit(t.take([0]), stack, np.zeros(8), rng=np.random.default_rng(0))
    with pytest.raises(InputError, match="one record"):
        atk.fit(t.take([0, 1]), stack, y, rng=np.random.default_rng(0))
    with pytest.raises(InputError, match="queries"):
        QueryAttack(n_queries=0).fit(t.take([0]), stack, y, rng=np.random.default_rng(0))


def test_same_rng_same_scores() -> None:
    t, stack, y = _setup(seed=3, n_sets=30)
    s1 = (
        QueryAttack(n_queries=4, n_estimators=10)
        .fit(t.take([0]), stack, y, rng=np.random.default_rng(5))
        .score(stack)
    )
    s2 = (
        QueryAttack(n_queries=4, n_estimators=10)
        .fit(t.take([0]), list(stack), y, rng=np.random.default_rng(5))
        .score(stack)
    )
    np.testing.assert_array_equal(s1, s2)


def test_declared_constraints_reject_bad_hyperparameters_by_name() -> None:
    """The hyperparameters are declared (``_parameter_constraints``) and checked when ``fit``
    starts, before any input is looked at: a bad value raises InputError naming it."""
    import numpy as np

    from synthleak.attacks.mia_query import QueryAttack
    from synthleak.errors import InputError

    cases = [
        (QueryAttack(n_queries=0), "n_queries"),
    ]
    for attack, parameter in cases:
        with pytest.raises(InputError, match=f"^{parameter}=") as exc:
            attack.fit(None, None, None, rng=np.random.default_rng(0))
        assert exc.value.parameter == parameter
