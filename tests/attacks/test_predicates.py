"""Vectorised predicate counting against a per-predicate reference (pandas-style semantics)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import synthleak as sl
from synthleak.attacks.predicates import (
    Op,
    PredicateSet,
    TableIndex,
    encoded_matrix,
    popcount,
    sample_bitsets,
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
    np.testing.assert_array_equal(popcount(preds.match_bitsets(table)), ref)
    capped = preds.count(table, cap=2, index=TableIndex.build(table))
    np.testing.assert_array_equal(capped, np.minimum(ref, 2))


def test_match_bitsets_mark_the_right_rows() -> None:
    table = _table(3)
    preds = _random_preds(table, 10, np.random.default_rng(4))
    bits = preds.match_bitsets(table)
    rows = np.unpackbits(bits.view(np.uint8), axis=1, bitorder="little")[:, : len(table)].astype(
        bool
    )
    for i in range(len(preds)):
        assert rows[i].sum() == _reference(preds.take([i]), table)[0]
        # the rows it marks satisfy the predicate: re-count on just those rows
        sub = table.take(np.flatnonzero(rows[i]))
        if len(sub):
            assert preds.take([i]).count(sub)[0] == len(sub)


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


def test_unique_rows_and_sample_bitsets() -> None:
    table = _table(8)
    doubled = sl.Table.from_arrays(
        table.schema,
        np.concatenate([table.codes, table.codes]),
        np.concatenate([table.values, table.values]),
    )
    u = unique_rows(doubled)
    assert len(u) == len(unique_rows(table)) <= len(table)
    bits = sample_bitsets(100, [10, 50], rng=np.random.default_rng(0))
    np.testing.assert_array_equal(popcount(bits), [10, 50])
