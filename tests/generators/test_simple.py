"""The reference generators ``nonprivate`` and ``indhist`` (generators/simple.py)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from synthleak.data.encoding import Discretiser
from synthleak.data.profile import infer_schema
from synthleak.data.table import Table
from synthleak.generators.simple import IndHist, NonPrivate


@pytest.fixture(scope="module")
def table() -> Table:
    rng = np.random.default_rng(0)
    n = 400
    a = rng.choice(["x", "y", "z"], n, p=[0.6, 0.3, 0.1])
    df = pd.DataFrame(
        {
            "a": a,
            "b": np.where(a == "x", "p", "q"),  # b is a function of a
            "v": np.where(a == "x", rng.uniform(0, 10, n), rng.uniform(90, 100, n)),
        }
    )
    df.loc[:39, "v"] = np.nan
    return Table.from_frame(df, infer_schema(df))


def test_nonprivate_resamples_with_replacement(table: Table) -> None:
    gen = NonPrivate().fit(table, rng=np.random.default_rng(0))
    out = gen.sample(len(table), rng=np.random.default_rng(1))
    keys = set(table.row_keys().tolist())
    assert set(out.row_keys().tolist()) <= keys
    frac = len(set(out.row_keys().tolist())) / len(keys)
    assert 0.55 < frac < 0.72  # 1 - (1 - 1/n)^n ~ 0.632
    assert out.equals(gen.sample(len(table), rng=np.random.default_rng(1)))


def test_nonprivate_empty_training_table(table: Table) -> None:
    gen = NonPrivate().fit(table.take(np.zeros(0, dtype=int)), rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="empty table"):
        gen.sample(3, rng=np.random.default_rng(0))


def test_indhist_matches_one_way_marginals(table: Table) -> None:
    gen = IndHist(bins=10).fit(table, rng=np.random.default_rng(0))
    out = gen.sample(20000, rng=np.random.default_rng(2))
    disc = Discretiser(table.schema, 10)
    ct, co = disc.transform(table), disc.transform(out)
    for f, size in enumerate(disc.sizes):
        p = np.bincount(ct[:, f], minlength=size) / len(table)
        q = np.bincount(co[:, f], minlength=size) / len(out)
        assert 0.5 * np.abs(p - q).sum() < 0.03
    assert abs(np.isnan(out.column("v")).mean() - 0.1) < 0.02


def test_indhist_breaks_dependencies(table: Table) -> None:
    out = (
        IndHist()
        .fit(table, rng=np.random.default_rng(0))
        .sample(5000, rng=np.random.default_rng(3))
    )
    a, b = out.column("a"), out.column("b")
    # in training b == 'p' iff a == 'x'; independent sampling: P(b=p | a=x) ~ P(b=p) ~ 0.6
    x = table.schema["a"].categories.index("x")
    p = table.schema["b"].categories.index("p")
    assert abs(np.mean(b[a == x] == p) - np.mean(b == p)) < 0.05
    assert abs(np.mean(b == p) - 0.6) < 0.06


def test_indhist_values_inside_bins_and_range(table: Table) -> None:
    out = (
        IndHist(bins=10)
        .fit(table, rng=np.random.default_rng(0))
        .sample(2000, rng=np.random.default_rng(4))
    )
    v = out.column("v")
    ok = v[~np.isnan(v)]
    col = table.schema["v"]
    assert np.all((ok >= col.low) & (ok <= col.high))
    # no training value lies in (10, 90); with 10 uniform bins over [~0, ~100] the middle bins
    # are empty
    assert np.mean((ok > 15) & (ok < 85)) == 0.0
