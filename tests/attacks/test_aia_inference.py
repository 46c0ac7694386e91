"""Adv_infer: a classifier trained on the synthetic data."""

from __future__ import annotations

import numpy as np
import pytest

from synthleak.attacks.aia_inference import InferenceAttack, InferenceModel
from synthleak.attacks.base import AttributeAttack
from synthleak.errors import InputError, NotFittedError


@pytest.mark.parametrize("model", list(InferenceModel))
def test_learns_a_deterministic_rule(model: InferenceModel) -> None:
    rng = np.random.default_rng(0)
    sizes = np.array([4, 3, 5])
    S = rng.integers(0, sizes, size=(600, 3))
    ys = (S[:, 0] >= 2).astype(int)
    X = rng.integers(0, sizes, size=(50, 3))
    att = InferenceAttack(model=model, n_estimators=10).fit(X, sizes, rng=rng)
    p = att.score(S, ys, np.arange(50), 2, rng=rng)
    assert p.shape == (50, 2)
    np.testing.assert_allclose(p.sum(axis=1), 1.0, atol=1e-6)
    assert (p.argmax(axis=1) == (X[:, 0] >= 2)).mean() > 0.9


def test_single_class_and_missing_class_columns() -> None:
    rng = np.random.default_rng(1)
    X = np.zeros((2, 2), dtype=int)
    att = InferenceAttack().fit(X, np.array([2, 2]), rng=rng)
    p = att.score(np.zeros((5, 2), dtype=int), np.full(5, 2), np.array([0, 1]), 3, rng=rng)
    np.testing.assert_array_equal(p, [[0, 0, 1], [0, 0, 1]])


def test_training_cap_is_seeded() -> None:
    rng = np.random.default_rng(2)
    S = rng.integers(0, 3, size=(500, 3))
    ys = rng.integers(0, 2, 500)
    att = InferenceAttack(max_train=100, n_estimators=5).fit(S[:10], np.array([3, 3, 3]), rng=rng)
    a = att.score(S, ys, np.arange(10), 2, rng=np.random.default_rng(5))
    b = att.score(S, ys, np.arange(10), 2, rng=np.random.default_rng(5))
    np.testing.assert_array_equal(a, b)


def test_not_fitted() -> None:
    with pytest.raises(NotFittedError):
        InferenceAttack().score(
            np.zeros((1, 2)), np.zeros(1), np.array([0]), 2, rng=np.random.default_rng(0)
        )


def test_is_an_attribute_attack_and_validates_parameters() -> None:
    assert isinstance(InferenceAttack(), AttributeAttack)
    rng = np.random.default_rng(0)
    with pytest.raises(InputError, match="model must be one of"):
        InferenceAttack(model="svm").fit(np.zeros((1, 2)), np.array([2, 2]), rng=rng)
    with pytest.raises(InputError, match="max_train"):
        InferenceAttack(max_train=0).fit(np.zeros((1, 2)), np.array([2, 2]), rng=rng)
