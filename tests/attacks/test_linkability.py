"""Linkability attack: exact Gower k-NN and the link rule."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import synthleak as sl
from synthleak.attacks.base import AttackFamily, LinkabilityAttack, make_attack
from synthleak.attacks.linkability import (
    NearestNeighbourLinkability,
    gower_knn,
    random_neighbors,
    sets_intersect,
)
from synthleak.errors import InputError, NotFittedError


def _mixed(n: int, seed: int) -> sl.Table:
    rng = np.random.default_rng(seed)
    df = pd.DataFrame(
        {
            "a": rng.choice(list("pqrs"), n),
            "b": rng.choice(list("xy"), n),
            "u": rng.normal(0, 1, n),
            "v": rng.uniform(0, 50, n).round(3),
        }
    )
    df.loc[rng.random(n) < 0.1, "u"] = np.nan
    return sl.Table.from_frame(df, sl.infer_schema(df))


def _brute(t: sl.Table, s: sl.Table, ranges: np.ndarray) -> np.ndarray:
    d = (t.codes[:, None, :] != s.codes[None, :, :]).sum(axis=2).astype(float)
    for j in range(t.values.shape[1]):
        a, b = t.values[:, j, None].astype(float), s.values[None, :, j].astype(float)
        dj = np.abs(a - b) / ranges[j]
        d += np.where(np.isnan(dj), (np.isnan(a) != np.isnan(b)).astype(float), dj)
    return d


def test_gower_knn_matches_brute_force() -> None:
    t, s = _mixed(40, 0), _mixed(300, 1)
    ranges = np.array([2.5, 49.0])
    idx = gower_knn(t, s, 4, ranges)
    d = _brute(t, s, ranges)
    for i in range(len(t)):
        expect = np.lexsort((np.arange(len(s)), d[i]))[:4]  # by distance, ties to lower index
        np.testing.assert_array_equal(idx[i], expect)


def test_walk_from_the_spread_column_matches_brute_force_with_ties_and_gaps() -> None:
    """Coarse values (many exact ties), missing cells on both sides, a target missing the
    walked column: the same indices as the plain scan."""
    rng = np.random.default_rng(9)

    def coarse(n: int) -> sl.Table:
        df = pd.DataFrame(
            {
                "a": rng.choice(list("pq"), n),
                "u": rng.integers(0, 4, n).astype(float),
                "v": rng.integers(0, 6, n).astype(float),
            }
        )
        df.loc[rng.random(n) < 0.15, "v"] = np.nan
        df.loc[rng.random(n) < 0.1, "u"] = np.nan
        return sl.Table.from_frame(
            df, sl.infer_schema(df, categorical=["a"], continuous=["u", "v"])
        )

    from synthleak.attacks.linkability import _knn_gower

    t, s = coarse(60), coarse(400)
    ones = np.ones(2)  # integer values: every distance exact, so ties are real ties
    d = _brute(t, s, ones)
    for k in (1, 3, 7):
        idx = gower_knn(t, s, k, ones)
        for i in range(len(t)):
            expect = np.lexsort((np.arange(len(s)), d[i]))[:k]
            np.testing.assert_array_equal(idx[i], expect)
        # scaled columns: the same indices as the plain scan over the same scaled values
        ranges = np.array([3.0, 5.0])
        tv, sv = t.values / ranges, s.values / ranges
        plain = _knn_gower(t.codes.astype(np.int64), s.codes.astype(np.int64), tv, sv, k)[1]
        np.testing.assert_array_equal(gower_knn(t, s, k, ranges), plain)


def test_ties_go_to_the_lowest_index() -> None:
    t = _mixed(5, 2).select(["a"])
    s = _mixed(200, 3).select(["a"])
    idx = gower_knn(t, s, 3, np.ones(0))
    for i in range(len(t)):
        same = np.flatnonzero(s.codes[:, 0] == t.codes[i, 0])
        np.testing.assert_array_equal(idx[i], same[:3])


def test_links_when_synthetic_is_the_original() -> None:
    ori = _mixed(300, 4)
    attack = NearestNeighbourLinkability(["a", "u"], ["b", "v"], n_neighbors=1)
    assert attack.fit(ori, rng=np.random.default_rng(0)) is attack
    # with unique continuous values each half's nearest record is the record itself
    linked = attack.links(ori.take(np.arange(50)))
    assert linked.dtype == bool and linked.mean() > 0.9
    near = attack.neighbors(ori.take(np.arange(5)), ["u", "v"])
    np.testing.assert_array_equal(near[:, 0], np.arange(5))


def test_registered_as_the_nearest_neighbour_attack() -> None:
    attack = make_attack(AttackFamily.LINKABILITY, "nearest-neighbour", aux_a=["a"], aux_b=["b"])
    assert isinstance(attack, NearestNeighbourLinkability)
    assert isinstance(attack, LinkabilityAttack) and attack.name == "nearest-neighbour"


def test_sets_intersect_and_random_neighbors() -> None:
    a = np.array([[1, 2], [3, 4]])
    b = np.array([[2, 9], [5, 6]])
    np.testing.assert_array_equal(sets_intersect(a, b), [True, False])
    r = random_neighbors(50, 200, 5, rng=np.random.default_rng(0))
    assert r.shape == (200, 5)
    assert all(len(set(row)) == 5 for row in r.tolist())
    assert r.min() >= 0 and r.max() < 50
    # baseline rate close to its analytic value 1 - C(45,5)/C(50,5) ~ 0.42
    hits = sets_intersect(r, random_neighbors(50, 200, 5, rng=np.random.default_rng(1))).mean()
    assert 0.3 < hits < 0.55


def test_errors() -> None:
    t = _mixed(20, 5)
    with pytest.raises(InputError, match=r"aux_a names unknown column\(s\) \['nope'\]"):
        NearestNeighbourLinkability(["a", "nope"], ["b"]).fit(t)
    with pytest.raises(
        InputError, match=r"aux_a=\[\] is invalid: aux_a must be a list of 1 or more"
    ):
        NearestNeighbourLinkability([], ["b"]).fit(t)
    with pytest.raises(InputError, match="aux_b='b' is invalid: aux_b must be a list"):
        NearestNeighbourLinkability(["a"], "b").fit(t)
    with pytest.raises(InputError, match="n_neighbors"):
        NearestNeighbourLinkability(["a"], ["b"], n_neighbors=0).fit(t)
    with pytest.raises(NotFittedError):
        NearestNeighbourLinkability(["a"], ["b"]).links(t)
