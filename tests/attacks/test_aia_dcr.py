"""Adv_dcr: mode collapse and nearest-record distances."""

from __future__ import annotations

import numpy as np
import pytest

from synthleak.attacks.aia_dcr import DCRAttributeAttack, collapse_by_mode
from synthleak.attacks.base import AttributeAttack
from synthleak.errors import InputError, NotFittedError


def _naive_scores(tx: np.ndarray, rows: np.ndarray, ys: np.ndarray, n_classes: int) -> np.ndarray:
    """One target and one class at a time (the obvious loops)."""
    F = tx.shape[1]
    best = np.full((tx.shape[0], n_classes), float(F + 1))
    for k in range(tx.shape[0]):
        d = (rows != tx[k]).sum(axis=1)
        for c in range(n_classes):
            same = ys == c
            d_same = d[same].min() if same.any() else F + 1
            d_other = d[~same].min() + 1 if (~same).any() else F + 2
            best[k, c] = min(best[k, c], d_same, d_other)
    return -best


def test_collapse_takes_the_mode() -> None:
    S = np.array([[0, 1], [0, 1], [0, 1], [2, 2], [2, 2]])
    y = np.array([1, 1, 0, 0, 0])
    rows, ys = collapse_by_mode(S, y, 2, rng=np.random.default_rng(0))
    got = {tuple(r): int(v) for r, v in zip(rows, ys, strict=True)}
    assert got == {(0, 1): 1, (2, 2): 0}


def test_collapse_ties_are_random_but_seeded() -> None:
    S = np.zeros((2, 2), dtype=int)
    y = np.array([0, 1])
    picks = {int(collapse_by_mode(S, y, 2, rng=np.random.default_rng(s))[1][0]) for s in range(20)}
    assert picks == {0, 1}
    a = collapse_by_mode(S, y, 2, rng=np.random.default_rng(3))[1]
    b = collapse_by_mode(S, y, 2, rng=np.random.default_rng(3))[1]
    np.testing.assert_array_equal(a, b)


def test_scores_are_minus_hamming_distances() -> None:
    X = np.array([[0, 0, 0], [1, 1, 1]])
    S = np.array([[0, 0, 1], [1, 1, 1], [1, 1, 1]])
    ys = np.array([1, 0, 0])
    att = DCRAttributeAttack().fit(X, np.array([2, 2, 2]), rng=np.random.default_rng(0))
    sc = att.score(S, ys, np.array([0, 1]), 2, rng=np.random.default_rng(0))
    # target 0: (000|1) is 1 mismatch from (001|1); (000|0) is min(1+1, 3+0) = 2 away
    np.testing.assert_array_equal(sc[0], [-2, -1])
    # target 1 is in S with secret 0
    np.testing.assert_array_equal(sc[1], [0, -1])


def test_collapse_matters_when_both_secrets_present() -> None:
    X = np.array([[0, 0]])
    S = np.array([[0, 0], [0, 0], [0, 0]])
    ys = np.array([1, 1, 0])
    rng = np.random.default_rng(0)
    with_c = (
        DCRAttributeAttack()
        .fit(X, np.array([2, 2]), rng=rng)
        .score(S, ys, np.array([0]), 2, rng=rng)
    )
    without = (
        DCRAttributeAttack(collapse=False)
        .fit(X, np.array([2, 2]), rng=rng)
        .score(S, ys, np.array([0]), 2, rng=rng)
    )
    assert with_c[0].argmax() == 1 and with_c[0, 0] < with_c[0, 1]
    assert without[0, 0] == without[0, 1]  # both at distance 0: no signal without collapse


def test_nonprivate_oracle_and_blocks() -> None:
    rng = np.random.default_rng(1)
    X = rng.integers(0, 6, size=(100, 6))
    y = rng.integers(0, 2, 100)
    S_idx = rng.integers(0, 100, 2000)
    att = DCRAttributeAttack(block=7).fit(X, np.full(6, 6), rng=rng)
    sc = att.score(X[S_idx], y[S_idx], np.arange(100), 2, rng=rng)
    present = np.isin(np.arange(100), S_idx)
    assert (sc.argmax(axis=1)[present] == y[present]).mean() > 0.95


def test_not_fitted() -> None:
    with pytest.raises(NotFittedError):
        DCRAttributeAttack().score(
            np.zeros((1, 2)), np.zeros(1), np.array([0]), 2, rng=np.random.default_rng(0)
        )


@pytest.mark.parametrize("block", [1, 5, 64, 1 << 22])
@pytest.mark.parametrize("n_classes", [2, 4])
def test_vectorised_scores_equal_naive_loops(block: int, n_classes: int) -> None:
    rng = np.random.default_rng(3)
    X = rng.integers(0, 3, size=(30, 4))
    S = rng.integers(0, 3, size=(200, 4))
    ys = rng.integers(0, n_classes - 1, 200)  # the last class never occurs in S
    att = DCRAttributeAttack(collapse=False, block=block).fit(X, np.full(4, 3), rng=rng)
    got = att.score(S, ys, np.arange(30), n_classes, rng=rng)
    np.testing.assert_array_equal(got, _naive_scores(X, S, ys, n_classes))


def test_is_an_attribute_attack_and_validates_block() -> None:
    assert isinstance(DCRAttributeAttack(), AttributeAttack)
    with pytest.raises(InputError, match="block"):
        DCRAttributeAttack(block=0).fit(
            np.zeros((1, 2)), np.array([2, 2]), rng=np.random.default_rng(0)
        )
