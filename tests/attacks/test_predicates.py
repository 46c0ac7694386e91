"""Vectorised predicate counting against a per-predicate reference (pandas-style semantics)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import synthleak as sl
from synthleak.attacks.predicates import (
    MAX_BATCH_CELLS,
    MAX_BATCH_GROWTH,
    Op,
    PredicateSet,
    TableIndex,
    check_n_cols,
    collect_singling_out,
    column_medians,
    encoded_matrix,
    next_batch,
    predicates_from_records,
    random_column_subsets,
    unique_rows,
)
from synthleak.errors import InputError


def _table(seed: int, n: int = 120) -> sl.Table:
    rng = np.random.default_rng(seed)
    df = pd.DataFrame(
        {
            "c": rng.choice(["a", "b", "c"], n),
            "d": rng.integers(0, 4, n),
            "x": rng.integers(0, 10, n).astype(float),
            "y": rng.normal(0, 1, n).round(1),
        }
    )
    df.loc[rng.random(n) < 0.15, "c"] = np.nan
    df.loc[rng.random(n) < 0.15, "x"] = np.nan
    return sl.Table.from_frame(df, sl.infer_schema(df, categorical=["d"]))


def _random_preds(table: sl.Table, q: int, rng: np.random.Generator) -> PredicateSet:
    f = len(table.schema)
    x = encoded_matrix(table)
    ops = np.zeros((q, f), dtype=np.int8)
    vals = np.full((q, f), np.nan)
    for j, col in enumerate(table.schema.columns):
        use = rng.random(q) < 0.5
        if col.is_categorical:
            o = rng.choice([Op.EQ, Op.NE], q)
            v = rng.integers(0, col.size, q).astype(float)
        else:
            o = rng.choice([Op.EQ, Op.NE, Op.LT, Op.LE, Op.GT, Op.GE, Op.ISNULL, Op.NOTNULL], q)
            v = x[rng.integers(0, len(table), q), j]
            o = np.where(np.isnan(v) & (o < Op.ISNULL), Op.ISNULL, o)
        ops[use, j] = o[use]
        vals[use, j] = v[use]
    return PredicateSet(table.schema, ops, vals)


def _reference(preds: PredicateSet, table: sl.Table) -> np.ndarray:
    """One predicate at a time, SQL null semantics written out explicitly."""
    x = encoded_matrix(table)
    out = []
    for i in range(len(preds)):
        m = np.ones(len(table), dtype=bool)
        for j, col in enumerate(table.schema.columns):
            op, v, xj = Op(int(preds.ops[i, j])), preds.values[i, j], x[:, j]
            null = np.isnan(xj) if not col.is_categorical else xj == col.missing_code
            if op is Op.ANY:
                continue
            if op is Op.ISNULL:
                m &= null
            elif op is Op.NOTNULL:
                m &= ~null
            elif op is Op.EQ:
                m &= xj == v
            elif op is Op.NE:
                if col.is_categorical and v == col.missing_code:
                    m &= ~null
                else:
                    m &= (xj != v) & ~null
            else:
                cmp = {
                    Op.LT: np.less,
                    Op.LE: np.less_equal,
                    Op.GT: np.greater,
                    Op.GE: np.greater_equal,
                }[op]
                m &= (
                    cmp(np.nan_to_num(xj, nan=np.inf if op in (Op.LT, Op.LE) else -np.inf), v)
                    & ~null
                )
        out.append(int(m.sum()))
    return np.array(out)


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_count_matches_reference(seed: int) -> None:
    table = _table(seed)
    preds = _random_preds(table, 60, np.random.default_rng(seed + 1))
    ref = _reference(preds, table)
    np.testing.assert_array_equal(preds.count(table), ref)
    np.testing.assert_array_equal(preds.matches(table, cap=3).counts, ref)
    capped = preds.count(table, cap=2, index=TableIndex.build(table))
    np.testing.assert_array_equal(capped, np.minimum(ref, 2))


def test_matches_list_the_right_rows_up_to_cap() -> None:
    table = _table(3)
    preds = _random_preds(table, 40, np.random.default_rng(4))
    ref = _reference(preds, table)
    m = preds.matches(table, cap=5)
    np.testing.assert_array_equal(m.counts, ref)
    assert m.cap == 5 and m.indptr[0] == 0 and m.indptr[-1] == m.rows.size
    for i in range(len(preds)):
        rows = m.rows_of(i)
        if ref[i] > 5:
            assert rows.size == 0  # too many matches: not listed
            continue
        assert rows.size == ref[i] and np.all(np.diff(rows) > 0)  # listed once each, sorted
        # the listed rows satisfy the predicate, and no other row does
        assert preds.take([i]).count(table.take(rows))[0] == rows.size
        rest = np.setdiff1d(np.arange(len(table)), rows)
        assert preds.take([i]).count(table.take(rest))[0] == 0
    empty = preds.take([]).matches(table, cap=2)
    assert empty.counts.size == 0 and empty.indptr.tolist() == [0]


def test_keys_and_first_unique() -> None:
    table = _table(5)
    preds = _random_preds(table, 30, np.random.default_rng(6))
    doubled = PredicateSet.concat([preds, preds.take([0, 3, 3])])
    first = doubled.first_unique()
    assert len(first) == len(preds.first_unique())
    assert first.max() < len(preds)
    seen: set[int] = set()
    a = doubled.first_unique(seen)
    assert len(doubled.first_unique(seen)) == 0  # everything is seen the second time
    assert len(a) == len(first)


def test_describe_and_schema_check() -> None:
    table = _table(7)
    s = table.schema
    ops = np.zeros((1, len(s)), dtype=np.int8)
    vals = np.full((1, len(s)), np.nan)
    ops[0, s.names.index("c")], vals[0, s.names.index("c")] = Op.EQ, 0
    ops[0, s.names.index("y")], vals[0, s.names.index("y")] = Op.GE, 0.5
    p = PredicateSet(s, ops, vals)
    assert p.describe(0) == "c == 'a' & y >= 0.5"
    other = sl.Table.from_frame(
        pd.DataFrame({"z": [1.0, 2.0]}), sl.infer_schema(pd.DataFrame({"z": [1.0, 2.0]}))
    )
    with pytest.raises(InputError, match="different columns"):
        p.count(other)


def test_unique_rows() -> None:
    table = _table(8)
    doubled = sl.Table.from_arrays(
        table.schema,
        np.concatenate([table.codes, table.codes]),
        np.concatenate([table.values, table.values]),
    )
    u = unique_rows(doubled)
    assert len(u) == len(unique_rows(table)) <= len(table)


def test_predicates_from_records_describe_their_records() -> None:
    table = _table(9)
    rng = np.random.default_rng(0)
    rows = rng.integers(0, len(table), 50)
    cols = random_column_subsets(50, len(table.schema), 2, rng=rng)
    assert np.all(cols.sum(axis=1) == 2)
    preds = predicates_from_records(table, rows, cols, column_medians(table))
    assert np.all(preds.n_atoms == 2)
    np.testing.assert_array_equal(preds.constrained, cols)
    # every predicate matches the record it was built from
    for i, r in enumerate(rows):
        assert preds.take([i]).count(table.take([r]))[0] == 1


def test_collect_singling_out_and_n_cols_check() -> None:
    table = _table(10, n=300)
    rng = np.random.default_rng(1)
    med = column_medians(table)
    assert np.isnan(med[table.schema.names.index("c")]) and np.isfinite(med[-1])

    def batch(size: int) -> PredicateSet:
        cols = random_column_subsets(size, len(table.schema), 3, rng=rng)
        return predicates_from_records(table, rng.integers(0, len(table), size), cols, med)

    got = collect_singling_out(table, 20, batch, max_attempts=None, batch_size=100)
    assert len(got) == 20 and len(got.first_unique()) == 20
    np.testing.assert_array_equal(got.count(table), 1)
    few = collect_singling_out(table, 10_000, batch, max_attempts=50, batch_size=100)
    assert len(few) <= 50
    check_n_cols(4, table)
    for bad in (0, 5, 2.5, True):
        with pytest.raises(InputError, match="n_cols"):
            check_n_cols(bad, table)  # type: ignore[arg-type]


def test_batches_grow_to_what_the_share_found_says_the_rest_need() -> None:
    """A batch costs milliseconds besides its candidates: at a low share singling out, the
    collection asks for the rest in a few large batches, not in hundreds of small ones."""
    assert next_batch(100, 50, 0, 0) == 100  # the first
    assert next_batch(100, 50, 0, 100) == 200  # none found yet: twice those tried
    assert next_batch(1000, 90, 10, 1000) == 10_800  # a share of 1 %: 90 more, a fifth more
    assert next_batch(100, 1, 50, 100) == 100  # never below the first
    assert next_batch(100, 10_000, 1, 1000) == MAX_BATCH_GROWTH * 100  # nor above the cap
    assert next_batch(1000, 10_000, 1, 1000, MAX_BATCH_CELLS // 2_000) == 2_000  # wide tables
    assert next_batch(1000, 10_000, 1, 1000, MAX_BATCH_CELLS) == 1000
    table = _table(11, n=300)
    rng = np.random.default_rng(2)
    med = column_medians(table)
    sizes: list[int] = []

    def batch(size: int) -> PredicateSet:
        sizes.append(size)
        cols = random_column_subsets(size, len(table.schema), 4, rng=rng)
        return predicates_from_records(table, rng.integers(0, len(table), size), cols, med)

    got = collect_singling_out(table, 100, batch, max_attempts=None, batch_size=10)
    assert len(got) == 100 and len(got.first_unique()) == 100
    np.testing.assert_array_equal(got.count(table), 1)
    assert sizes[0] == 10 and len(sizes) <= 4, sizes
    sizes.clear()
    capped = collect_singling_out(table, 10_000, batch, max_attempts=555, batch_size=10)
    assert sum(sizes) == 555 and len(capped) <= 555  # the cap is exact, however they grow


def test_no_numpy2_only_bit_functions_in_the_module() -> None:
    """The module runs on numpy 1.26: no ``np.bitwise_count`` (numpy >= 2.0 only)."""
    import inspect

    import synthleak.attacks.predicates as mod

    assert "bitwise_count" not in inspect.getsource(mod)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 60))
def test_index_runs_locate_values_as_the_sorted_column_would(seed: int, n: int) -> None:
    """The index keeps each sorted column as runs; every value (present or not, -0.0 and 0.0
    alike) is located where a binary search of the whole sorted column would put it."""
    table = _table(seed % 1000, n)
    idx = TableIndex.build(table)
    x = encoded_matrix(table)
    probes = np.concatenate([np.nan_to_num(x.ravel(), nan=0.0), [-0.0, 0.0, -1e9, 1e9, 2.5]])
    for j in range(x.shape[1]):
        order = np.argsort(x[:, j], kind="stable")
        np.testing.assert_array_equal(idx.perm[j], order)
        srt = x[order, j][: idx.n_present[j]]
        left, right = idx.bounds(j, probes)
        np.testing.assert_array_equal(left, np.searchsorted(srt, probes, side="left"))
        np.testing.assert_array_equal(right, np.searchsorted(srt, probes, side="right"))
    assert idx.perm.dtype == np.int32
