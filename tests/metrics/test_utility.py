"""Utility metrics against naive pandas computations."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from synthleak.data.schema import infer_schema
from synthleak.data.table import Table
from synthleak.errors import InputError
from synthleak.metrics.utility import (
    marginal_counts,
    mre_from_codes,
    mre_gt10,
    random_marginals,
    tvd_from_codes,
    tvd_k,
    utility_report,
)


def _naive(o: np.ndarray, s: np.ndarray, marg: np.ndarray, thr: float) -> tuple[float, float]:
    do, ds = pd.DataFrame(o), pd.DataFrame(s)
    errs, tvds = [], []
    for attrs in marg:
        cols = list(attrs)
        co = do.groupby(cols).size() / len(do)
        cs = ds.groupby(cols).size() / len(ds)
        both = pd.concat([co.rename("o"), cs.rename("s")], axis=1).fillna(0.0)
        tvds.append(0.5 * (both["o"] - both["s"]).abs().sum())
        big = do.groupby(cols).size() > thr
        keep = both.loc[big[big].index]
        errs.extend(((keep["o"] - keep["s"]).abs() / keep["o"]).tolist())
    return float(np.mean(errs)), float(np.mean(tvds))


def test_metrics_match_naive() -> None:
    rng = np.random.default_rng(0)
    sizes = np.array([3, 4, 2, 5, 3])
    o = rng.integers(0, sizes, size=(2000, 5))
    s = rng.integers(0, sizes, size=(1500, 5))
    marg = random_marginals(5, 3, 6, rng=rng)
    mre, tvd = _naive(o, s, marg, 10)
    assert mre_from_codes(o, s, sizes, marg, 10) == pytest.approx(mre)
    assert tvd_from_codes(o, s, sizes, marg) == pytest.approx(tvd)


def test_marginal_counts_and_subsets() -> None:
    codes = np.array([[0, 1], [0, 1], [1, 0]])
    np.testing.assert_array_equal(
        marginal_counts(codes, np.array([2, 2]), np.array([0, 1])), [0, 2, 1, 0]
    )
    rng = np.random.default_rng(1)
    m = random_marginals(8, 3, 20, rng=rng)
    assert len({tuple(r) for r in m}) == 20 and all(len(set(r)) == 3 for r in m)
    assert len(random_marginals(4, 3, 100, rng=rng)) == 4
    assert {tuple(r) for r in random_marginals(4, 3, 100, rng=rng)} == set(
        itertools.combinations(range(4), 3)
    )
    with pytest.raises(InputError):
        random_marginals(2, 3, 5, rng=rng)


def test_tables_identical_zero_independent_positive() -> None:
    rng = np.random.default_rng(2)
    a = rng.integers(0, 3, 3000)
    df = pd.DataFrame(
        {"a": a, "b": (a + rng.integers(0, 2, 3000)) % 3, "c": a % 2, "x": rng.random(3000) * 10}
    )
    schema = infer_schema(df)
    t = Table.from_frame(df, schema)
    assert mre_gt10(t, t, rng=np.random.default_rng(0)) == 0.0
    assert tvd_k(t, t, rng=np.random.default_rng(0)) == 0.0
    shuffled = df.apply(lambda c: rng.permutation(c.to_numpy()))
    t2 = Table.from_frame(shuffled, schema)
    rep = utility_report(t, t2, rng=np.random.default_rng(0))
    assert rep["mre_gt10"] > 0.1 and rep["tvd3"] > 0.05
    assert rep["marginals"] == 4
