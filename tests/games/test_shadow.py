"""Shadow modelling: one generator run per designed dataset, same releases whatever the workers."""

from __future__ import annotations

import numpy as np
import pytest

import synthleak as sl
from synthleak.games.shadow import GeneratorFailures, generate_pools, table_fingerprint
from synthleak.runtime import Runtime


@pytest.fixture(scope="module")
def table() -> sl.Table:
    df = sl.datasets.load_adult().iloc[:400]
    return sl.Table.from_frame(df, sl.infer_schema(df))


def _design(rng: np.random.Generator) -> dict[int, tuple[np.ndarray, np.ndarray]]:
    return {
        p: (np.stack([rng.choice(400, 50, replace=False) for _ in range(6)]), np.arange(6) % 2)
        for p in (0, 1)
    }


def test_pools_have_one_release_per_dataset_and_ignore_workers(table: sl.Table) -> None:
    design = _design(np.random.default_rng(0))
    kw = dict(generator="indhist", synthetic_size=30, seed=4, batch_size=4, store=None)
    a = generate_pools(table, design, runtime=Runtime(), **kw)
    b = generate_pools(table, design, runtime=Runtime(workers=2), **kw)
    stacks, labels, failures = a
    assert set(stacks) == {0, 1} and len(stacks[0]) == 6 and len(stacks[0][0]) == 30
    assert failures == GeneratorFailures(0, 12, {})
    for p in (0, 1):
        np.testing.assert_array_equal(stacks[p].codes, b[0][p].codes)
        np.testing.assert_array_equal(labels[p], b[1][p])


def test_fingerprint_changes_with_the_data(table: sl.Table) -> None:
    assert table_fingerprint(table) == table_fingerprint(table.take(np.arange(len(table))))
    assert table_fingerprint(table) != table_fingerprint(table.take(np.arange(1, len(table))))
