"""Assertions shared by the generator tests."""

from __future__ import annotations

import numpy as np

import synthleak as sl


def check_output(syn: sl.Table, schema: sl.Schema, n: int) -> None:
    """``syn`` has ``schema``, ``n`` rows, codes in their domains, values in range
    (whole numbers in integer columns)."""
    assert syn.schema == schema
    assert len(syn) == n
    assert syn.values.dtype == np.float32
    for j, col in enumerate(schema.categorical):
        assert syn.codes[:, j].min() >= 0
        assert syn.codes[:, j].max() < col.size
    for j, col in enumerate(schema.continuous):
        v = syn.values[:, j]
        if not col.has_missing:
            assert not np.isnan(v).any()
        v = v[~np.isnan(v)]
        assert np.all((v >= col.low) & (v <= col.high))
        if col.integer:
            assert np.all(v == np.round(v))
