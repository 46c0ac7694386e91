"""Distance attack: eq. 5 distances match the vulnerability module; leaks are detected."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import synthleak as sl
from synthleak.attacks.base import AttackFamily, make_attack
from synthleak.attacks.mia_distance import DistanceAttack, stack_distances
from synthleak.errors import InputError, NotFittedError
from synthleak.metrics.privacy import auc
from synthleak.queries import TableStack
from synthleak.vulnerability import pairwise_distances


def _table(seed: int = 0, n: int = 200) -> sl.Table:
    rng = np.random.default_rng(seed)
    df = pd.DataFrame(
        {
            "a": rng.choice(["p", "q", "r"], n),
            "b": rng.choice(["u", "v"], n),
            "x": rng.uniform(0, 100, n).round(1),
            "y": rng.normal(5, 2, n).round(2),
        }
    )
    return sl.Table.from_frame(
        df, sl.infer_schema(df, categorical=["a", "b"], continuous=["x", "y"])
    )


def test_distances_match_eq5_reference() -> None:
    t = _table()
    rng = np.random.default_rng(1)
    stack = TableStack.from_tables([t.take(rng.integers(0, len(t), 30)) for _ in range(3)])
    target = t.take([7])
    d = stack_distances(stack, target)
    for b in range(3):
        np.testing.assert_allclose(d[b], pairwise_distances(target, stack[b])[0], atol=1e-5)
    assert d.min() >= 0 and d.max() <= 1


def test_attack_detects_copies_of_the_target() -> None:
    t = _table(2)
    rng = np.random.default_rng(0)
    y = np.arange(80) % 2
    sets = []
    for i in range(80):
        rows = rng.integers(1, len(t), 40)
        if y[i]:
            rows[0] = 0
        sets.append(t.take(rows))
    stack = TableStack.from_tables(sets)
    a = DistanceAttack(n_estimators=30).fit(
        t.take([0]), stack[:50], y[:50], rng=np.random.default_rng(0)
    )
    x = a.features(stack)
    assert x.shape == (80, 5 + 5)
    assert np.all(np.diff(x[:, :5], axis=1) >= 0)  # sorted nearest distances
    assert np.all(x[y == 1, 5] >= 1)  # exact copies counted at radius 0
    assert auc(y[50:], a.score(stack[50:])) >= 0.95


def test_registry_and_errors() -> None:
    t = _table()
    stack = TableStack.from_tables([t.take([1, 2, 3]), t.take([4, 5, 6])])
    atk = make_attack(AttackFamily.MEMBERSHIP, "distance", k=2)
    assert isinstance(atk, DistanceAttack)
    with pytest.raises(NotFittedError):
        atk.score(stack)
    with pytest.raises(InputError, match="k=0 is invalid"):
        DistanceAttack(k=0).fit(t.take([0]), stack, np.array([0, 1]), rng=np.random.default_rng(0))


def test_declared_constraints_reject_bad_hyperparameters_by_name() -> None:
    """The hyperparameters are declared (``_parameter_constraints``) and checked when ``fit``
    starts, before any input is looked at: a bad value raises InputError naming it."""
    import numpy as np

    from synthleak.attacks.mia_distance import DistanceAttack
    from synthleak.errors import InputError

    cases = [
        (DistanceAttack(k=0), "k"),
    ]
    for attack, parameter in cases:
        with pytest.raises(InputError, match=f"^{parameter}=") as exc:
            attack.fit(None, None, None, rng=np.random.default_rng(0))
        assert exc.value.parameter == parameter
