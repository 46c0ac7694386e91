from __future__ import annotations

import numpy as np
import pandas as pd

from synthleak import Table, infer_schema
from synthleak.data.encoding import Discretiser, minmax, minmax_missing, one_hot


def test_one_hot_and_minmax(mixed_frame: pd.DataFrame) -> None:
    t = Table.from_frame(mixed_frame, infer_schema(mixed_frame))
    oh = one_hot(t)
    sizes = [c.size for c in t.schema.categorical]
    assert oh.shape == (len(t), sum(sizes))
    np.testing.assert_array_equal(oh.sum(axis=1), len(sizes))
    mm = minmax(t)
    assert mm.min() >= 0 and mm.max() <= 1
    miss = minmax_missing(t)
    assert miss.shape[1] == 1 and miss.sum() == mixed_frame["height"].isna().sum()
    assert np.all(mm[miss[:, 0] == 1, 0] == 0)


def test_discretiser_round_trip_stays_in_bins(adult_1000: Table) -> None:
    d = Discretiser(adult_1000.schema, n_bins=10)
    codes = d.transform(adult_1000)
    assert codes.shape == (1000, 15) and np.all(codes < d.sizes)
    back = d.inverse(codes, rng=np.random.default_rng(0))
    np.testing.assert_array_equal(d.transform(back), codes)
    np.testing.assert_array_equal(back.codes, adult_1000.codes)
    for j, col in enumerate(back.schema.continuous):
        v = back.values[:, j]
        assert v.min() >= col.low and v.max() <= col.high
        if col.integer:
            np.testing.assert_array_equal(v, np.round(v))


def test_missing_continuous_gets_its_own_bin(mixed_frame: pd.DataFrame) -> None:
    t = Table.from_frame(mixed_frame, infer_schema(mixed_frame))
    d = Discretiser(t.schema, n_bins=5, strategy="quantile", data=t)
    codes = d.transform(t)
    f = t.schema.names.index("height")
    assert (codes[:, f] == d.sizes[f] - 1).sum() == mixed_frame["height"].isna().sum()
    back = d.inverse(codes, rng=np.random.default_rng(0))
    assert np.isnan(back.column("height")).sum() == mixed_frame["height"].isna().sum()


def test_small_integer_range_gets_one_bin_per_value() -> None:
    df = pd.DataFrame({"v": np.arange(40, dtype=float) % 20 + 0.0, "c": ["a", "b"] * 20})
    t = Table.from_frame(df, infer_schema(df, continuous=["v"]))
    d = Discretiser(t.schema, n_bins=25)
    codes = d.transform(t)[:, 0]
    np.testing.assert_array_equal(codes, t.column("v").astype(int))
