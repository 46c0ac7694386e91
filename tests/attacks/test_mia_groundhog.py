"""Groundhog attack: feature sets agree with pandas/numpy references; a distribution shift is
learnt.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import synthleak as sl
from synthleak.attacks.base import AttackFamily, make_attack
from synthleak.attacks.mia_groundhog import (
    FeatureSet,
    GroundhogAttack,
    correlation_features,
    histogram_features,
    naive_features,
)
from synthleak.errors import InputError, NotFittedError
from synthleak.metrics.privacy import auc
from synthleak.queries import TableStack


def _table(seed: int = 0, n: int = 300) -> sl.Table:
    rng = np.random.default_rng(seed)
    df = pd.DataFrame(
        {
            "a": rng.choice(["p", "q", "r"], n),
            "x": rng.uniform(0, 10, n).round(2),
            "y": rng.normal(size=n).round(3),
        }
    )
    return sl.Table.from_frame(df, sl.infer_schema(df, categorical=["a"], continuous=["x", "y"]))


def test_features_match_references() -> None:
    t = _table()
    rng = np.random.default_rng(0)
    sets = [t.take(rng.integers(0, len(t), 50)) for _ in range(3)]
    stack = TableStack.from_tables(sets)
    nv, hist, corr = (
        naive_features(stack),
        histogram_features(stack, 5),
        correlation_features(stack),
    )
    for b, s in enumerate(sets):
        df = s.to_frame()
        np.testing.assert_allclose(nv[b, :2], df[["x", "y"]].mean().to_numpy(), rtol=1e-5)
        np.testing.assert_allclose(nv[b, 2:4], df[["x", "y"]].median().to_numpy(), rtol=1e-5)
        np.testing.assert_allclose(nv[b, 4:6], df[["x", "y"]].var(ddof=0).to_numpy(), rtol=1e-4)
        assert nv[b, 6] == df["a"].nunique()
        np.testing.assert_allclose(nv[b, 7], df["a"].value_counts().max() / 50, rtol=1e-6)
        freq_a = (
            df["a"].value_counts(normalize=True).reindex(["p", "q", "r"], fill_value=0).to_numpy()
        )
        np.testing.assert_allclose(hist[b, :3], freq_a, rtol=1e-6)
        x = np.c_[s.codes.astype(float), s.values.astype(float)]
        ref = np.corrcoef(x, rowvar=False)[np.triu_indices(3, 1)]
        np.testing.assert_allclose(corr[b], ref, atol=1e-5)
    assert np.allclose(hist.reshape(3, -1)[:, 3:9].sum(axis=1), 1.0)  # x bins + missing bin


def test_learns_a_shift_and_feature_sets() -> None:
    t = _table(1, 400)
    rng = np.random.default_rng(2)
    y = np.arange(120) % 2
    big = np.flatnonzero(t.values[:, 0] > 8)
    sets = []
    for i in range(120):
        rows = rng.integers(0, len(t), 60)
        if y[i]:
            rows[:6] = rng.choice(big, 6)  # IN datasets hold more large x
        sets.append(t.take(rows))
    stack = TableStack.from_tables(sets)
    a = GroundhogAttack(n_estimators=50).fit(
        t.take([0]), stack[:80], y[:80], rng=np.random.default_rng(0)
    )
    assert auc(y[80:], a.score(stack[80:])) >= 0.75
    sizes = {fs: GroundhogAttack(feature_set=fs).features(stack[:2]).shape[1] for fs in FeatureSet}
    assert (
        sizes[FeatureSet.ALL]
        == sizes[FeatureSet.NAIVE] + sizes[FeatureSet.HISTOGRAM] + sizes[FeatureSet.CORRELATION]
    )


def test_registry_and_errors() -> None:
    t = _table()
    stack = TableStack.from_tables([t.take([1, 2]), t.take([3, 4])])
    atk = make_attack(AttackFamily.MEMBERSHIP, "groundhog", feature_set="naive")
    with pytest.raises(NotFittedError):
        atk.score(stack)
    with pytest.raises(InputError, match="feature_set='bogus' is invalid"):
        GroundhogAttack(feature_set="bogus").features(stack)


def test_declared_constraints_reject_bad_hyperparameters_by_name() -> None:
    """The hyperparameters are declared (``_parameter_constraints``) and checked when ``fit``
    starts, before any input is looked at: a bad value raises InputError naming it."""
    import numpy as np

    from synthleak.attacks.mia_groundhog import GroundhogAttack
    from synthleak.errors import InputError

    cases = [
        (GroundhogAttack(feature_set="fancy"), "feature_set"),
        (GroundhogAttack(n_bins=0), "n_bins"),
    ]
    for attack, parameter in cases:
        with pytest.raises(InputError, match=f"^{parameter}=") as exc:
            attack.fit(None, None, None, rng=np.random.default_rng(0))
        assert exc.value.parameter == parameter
