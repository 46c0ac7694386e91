"""Counting queries: zeta-transform and bitset answers equal brute force; TableStack; sampling."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import synthleak as sl
from synthleak.errors import InputError
from synthleak.queries import (
    TableStack,
    _bitset_counts,
    all_subset_counts,
    match_bitsets,
    match_matrix,
    n_attributes,
    sample_subsets,
    stack_tables,
    subset_counts,
    superset_sums,
)


def _table(rng: np.random.Generator, n: int, n_cat: int, n_cont: int, levels: int = 3) -> sl.Table:
    data = {f"c{j}": rng.integers(0, levels, n).astype(str) for j in range(n_cat)}
    for j in range(n_cont):
        data[f"x{j}"] = np.round(rng.normal(size=n), 1)
    df = pd.DataFrame(data)
    schema = sl.infer_schema(df, categorical=list(data)[:n_cat], continuous=list(data)[n_cat:])
    return sl.Table.from_frame(df, schema)


def _brute(stack: TableStack, target: sl.Table, masks: np.ndarray) -> np.ndarray:
    match = match_matrix(stack, target)
    out = np.zeros((len(stack), masks.size), dtype=np.int64)
    for q, a in enumerate(masks.tolist()):
        cols = [f for f in range(match.shape[2]) if (a >> f) & 1]
        out[:, q] = match[:, :, cols].all(axis=2).sum(axis=1) if cols else match.shape[1]
    return out


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n_cat=st.integers(0, 4),
    n_cont=st.integers(0, 3),
    m=st.integers(1, 40),
    levels=st.integers(1, 4),
)
def test_zeta_counts_equal_brute_force(
    seed: int, n_cat: int, n_cont: int, m: int, levels: int
) -> None:
    if n_cat + n_cont == 0:
        n_cat = 1
    rng = np.random.default_rng(seed)
    pool = _table(rng, 3 * m + 1, n_cat, n_cont, levels)
    stack = TableStack.from_tables([pool.take(rng.integers(0, len(pool), m)) for _ in range(3)])
    target = pool.take([0])
    f = n_attributes(pool.schema)
    every = np.arange(1 << f, dtype=np.uint64)
    dense = all_subset_counts(stack, target)
    np.testing.assert_array_equal(dense, _brute(stack, target, every))
    np.testing.assert_array_equal(_bitset_counts(match_bitsets(stack, target), every, m), dense)


def test_superset_sums_matches_definition() -> None:
    rng = np.random.default_rng(3)
    for bits in (0, 1, 2, 3, 5, 9):
        h = rng.integers(0, 5, (2, 1 << bits)).astype(np.int32)
        want = np.stack(
            [
                h[:, [b for b in range(1 << bits) if b & a == a]].sum(axis=1)
                for a in range(1 << bits)
            ],
            axis=1,
        )
        np.testing.assert_array_equal(superset_sums(h.copy(), bits), want)
        # the non-contiguous fallback gives the same
        wide = np.zeros((2, 2 << bits), dtype=np.int64)
        wide[:, ::2] = h
        np.testing.assert_array_equal(superset_sums(wide[:, ::2], bits), want)


def test_bitsets_used_above_dense_limit_agree_with_brute_force() -> None:
    rng = np.random.default_rng(1)
    pool = _table(rng, 150, 22, 2, levels=2)  # F = 24 > MAX_DENSE_BITS
    stack = TableStack.from_tables([pool.take(rng.integers(0, 150, 70)) for _ in range(2)])
    target = pool.take([4])
    q = sample_subsets(24, 300, rng=rng)
    np.testing.assert_array_equal(subset_counts(stack, target, q), _brute(stack, target, q))
    with pytest.raises(InputError, match="F <= 20"):
        all_subset_counts(stack, target)


@pytest.mark.parametrize(
    ("n_queries", "dense"),
    [(1000, False), (2**15 - 1, True)],  # the risk maps' 1,000 queries; every query
)
def test_path_choice_by_work(monkeypatch: pytest.MonkeyPatch, n_queries: int, dense: bool) -> None:
    """The transform (``F * 2^F`` per dataset) only when the queries' bitset work
    (``N * F * words``) is larger: 1,000 queries of F = 15 on 500 records use bitsets."""
    import synthleak.queries as queries

    rng = np.random.default_rng(3)
    pool = _table(rng, 600, 15, 0, levels=2)
    stack = TableStack.from_tables([pool.take(rng.integers(0, 600, 500))])
    target = pool.take([0])
    q = sample_subsets(15, n_queries, rng=rng)
    used: list[bool] = []
    real = queries.all_subset_counts
    monkeypatch.setattr(
        queries, "all_subset_counts", lambda *a, **k: used.append(True) or real(*a, **k)
    )
    got = subset_counts(stack, target, q)
    assert bool(used) is dense
    np.testing.assert_array_equal(got[0, :50], _brute(stack, target, q[:50])[0])


def test_continuous_uses_less_or_equal_and_missing_matches_missing() -> None:
    df = pd.DataFrame({"c": ["a", "a", "b", "a"], "x": [1.0, 2.0, 0.5, np.nan]})
    schema = sl.infer_schema(df, categorical=["c"], continuous=["x"])
    t = sl.Table.from_frame(df, schema)
    stack = TableStack.from_tables([t])
    counts = all_subset_counts(stack, t.take([1]))  # target c=a, x=2.0
    # bit 0 = c == a (3 rows), bit 1 = x <= 2 (3 rows, NaN excluded), both: rows 0, 1
    assert counts[0].tolist() == [4, 3, 3, 2]
    nan_counts = all_subset_counts(stack, t.take([3]))  # target x missing
    assert nan_counts[0].tolist() == [4, 3, 1, 1]


def test_sample_subsets_distinct_nonempty_and_all_when_enough() -> None:
    rng = np.random.default_rng(0)
    assert sample_subsets(4, 100, rng=rng).tolist() == list(range(1, 16))
    q = sample_subsets(15, 1000, rng=rng)
    assert q.size == 1000 and np.unique(q).size == 1000 and q.min() >= 1 and q.max() < 2**15
    big = sample_subsets(40, 500, rng=rng)
    assert big.size == 500 and np.unique(big).size == 500 and int(big.min()) > 0
    with pytest.raises(InputError):
        sample_subsets(5, 0, rng=rng)


def test_table_stack_indexing_round_trip() -> None:
    rng = np.random.default_rng(2)
    pool = _table(rng, 50, 2, 1)
    tables = [pool.take(rng.integers(0, 50, 10)) for _ in range(4)]
    stack = stack_tables(tables)
    assert len(stack) == 4 and stack.n_rows == 10
    assert stack[2].equals(tables[2])
    assert isinstance(stack[1:3], TableStack) and len(stack[1:3]) == 2
    assert stack.take([0, 3])[1].equals(tables[3])
    assert stack_tables(stack) is stack
    assert all(a.equals(b) for a, b in zip(stack, tables, strict=True))
    with pytest.raises(InputError, match="sizes"):
        stack_tables([tables[0], pool.take([1, 2])])
