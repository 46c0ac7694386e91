"""Utility metrics against naive pandas computations."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from synthleak.data.profile import infer_schema
from synthleak.data.table import Table
from synthleak.errors import InputError
from synthleak.metrics.utility import (
    joint_marginal_counts,
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


def _dense_reference(o: np.ndarray, s: np.ndarray, sizes: np.ndarray, marg, thr: float):
    """The dense counting the metrics used before sparse counting (small domains only)."""
    errs, tvds = [], []
    for attrs in marg:
        co = marginal_counts(o, sizes, attrs)
        cs = marginal_counts(s, sizes, attrs)
        keep = co > thr
        if keep.any():
            errs.append(np.abs(co[keep] / len(o) - cs[keep] / len(s)) / (co[keep] / len(o)))
        tvds.append(0.5 * np.abs(co / len(o) - cs / len(s)).sum())
    return float(np.concatenate(errs).mean()), float(np.mean(tvds))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_sparse_counting_equals_dense_on_small_domains(seed: int) -> None:
    rng = np.random.default_rng(seed)
    sizes = rng.integers(2, 9, size=6)
    o = rng.integers(0, sizes, size=(800, 6))
    s = rng.integers(0, sizes, size=(500, 6)) // rng.integers(1, 3, size=6)  # skewed, some empty
    marg = random_marginals(6, 3, 10, rng=rng)
    mre, tvd = _dense_reference(o, s, sizes, marg, 10)
    assert mre_from_codes(o, s, sizes, marg, 10) == pytest.approx(mre, rel=1e-12)
    assert tvd_from_codes(o, s, sizes, marg) == pytest.approx(tvd, rel=1e-12)
    for attrs in marg:
        co, cs = joint_marginal_counts(o, s, sizes, attrs)
        do, ds = marginal_counts(o, sizes, attrs), marginal_counts(s, sizes, attrs)
        nz = (do > 0) | (ds > 0)
        np.testing.assert_array_equal(co, do[nz])
        np.testing.assert_array_equal(cs, ds[nz])


def test_adult_values_are_those_of_dense_counting(adult_table: Table) -> None:
    # values printed by the dense implementation (before sparse counting) for these seeds
    rng = np.random.default_rng(0)
    a, b = adult_table.sample(5000, rng=rng), adult_table.sample(5000, rng=rng)
    rep = utility_report(a, b, rng=np.random.default_rng(1))
    assert rep["mre_gt10"] == pytest.approx(0.19327798410204378, rel=1e-12)
    assert rep["tvd3"] == pytest.approx(0.073736, rel=1e-12)


def test_huge_domains_are_counted_in_memory_linear_in_rows() -> None:
    """Three text-like columns with thousands of levels: dense counting asked for hundreds of
    GiB; sparse counting stays within a few MiB and matches a pandas group-by."""
    import tracemalloc

    rng = np.random.default_rng(3)
    n, m = 4000, 3000
    levels = {"a": 5000, "b": 3000, "c": 1000}
    cats = {k: [f"{k}{i:05d}" for i in range(v)] for k, v in levels.items()}
    df = pd.DataFrame({k: rng.choice(cats[k][: v // 2], n) for k, v in levels.items()})
    syn = pd.DataFrame({k: rng.choice(cats[k], m) for k, v in levels.items()})
    df.loc[: n // 2, ["a", "b", "c"]] = ["a00000", "b00000", "c00000"]  # cells above threshold
    syn.loc[: m // 3, ["a", "b", "c"]] = ["a00000", "b00000", "c00000"]
    from synthleak.data.schema import Column, ColumnKind, Schema

    schema = Schema(
        tuple(Column(k, ColumnKind.CATEGORICAL, categories=tuple(cats[k])) for k in levels)
    )
    o, s = Table.from_frame(df, schema), Table.from_frame(syn, schema)
    sizes = np.array([c.size for c in schema.columns])
    assert np.prod(sizes.astype(float)) * 8 > 1e11  # dense counts: over 100 GB
    tracemalloc.start()
    try:
        rep = utility_report(o, s, rng=np.random.default_rng(0))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 20 * 2**20
    mre, tvd = _naive(o.codes, s.codes, np.array([[0, 1, 2]]), 10)
    assert rep["marginals"] == 1
    assert rep["mre_gt10"] == pytest.approx(mre) and rep["tvd3"] == pytest.approx(tvd)


def test_keys_beyond_int64_are_renumbered_not_overflowed() -> None:
    rng = np.random.default_rng(4)
    sizes = np.array([10**7, 10**7, 10**7, 10**7])  # product 1e28 > 2**63
    base = rng.integers(0, 10**7, size=(50, 4))
    o = base[rng.integers(0, 50, 3000)]
    s = base[rng.integers(0, 50, 2000)]
    marg = np.array([[0, 1, 2, 3], [1, 2, 3, 0]])
    mre, tvd = _naive(o, s, marg, 10)
    assert mre_from_codes(o, s, sizes, marg, 10) == pytest.approx(mre)
    assert tvd_from_codes(o, s, sizes, marg) == pytest.approx(tvd)
    with pytest.raises(InputError, match="too many to count densely"):
        marginal_counts(o, sizes, marg[0])


def _adult_parts(n_o: int, n_s: int, n_c: int, seed: int = 0):  # type: ignore[no-untyped-def]
    import synthleak as sl

    df = sl.datasets.load_adult()
    t = Table.from_frame(df, infer_schema(df))
    perm = np.random.default_rng(seed).permutation(len(t))
    o = t.take(perm[:n_o])
    s = t.take(perm[n_o : n_o + n_s])
    c = t.take(perm[n_o + n_s : n_o + n_s + n_c])
    return o, s, c


def test_estimate_keeps_the_figures_and_adds_intervals_and_the_reference() -> None:
    from synthleak.metrics.utility import utility_estimate

    o, s, c = _adult_parts(2000, 500, 800)
    u = utility_estimate(o, s, c, rng=np.random.default_rng(3), n_boot=200)
    rep = utility_report(o, s, rng=np.random.default_rng(3))
    assert u["mre_gt10"] == pytest.approx(rep["mre_gt10"]) and u["tvd3"] == rep["tvd3"]
    for key, ci in (("mre_gt10", "mre_ci"), ("tvd3", "tvd_ci")):
        lo, hi = u[ci]  # type: ignore[misc]
        assert lo < u[key] < hi  # type: ignore[operator]
    # the control is cut to the release's size: a perfect release of as many new people
    assert u["n_reference"] == 500 and u["marginal_space"] == 455
    lo, hi = u["reference_tvd_ci"]  # type: ignore[misc]
    assert lo <= u["reference_tvd"] <= hi  # type: ignore[operator]
    # new real people are about as far from the original as another sample of them
    assert u["reference_tvd"] == pytest.approx(u["tvd3"], rel=0.25)
    again = utility_estimate(o, s, c, rng=np.random.default_rng(3), n_boot=200)
    assert again == u  # same rng, same result
    none = utility_estimate(o, s, rng=np.random.default_rng(3), n_boot=200)
    assert none["n_reference"] == 0 and np.isnan(none["reference_tvd"])  # type: ignore[arg-type]


def test_a_copy_scores_zero_and_every_marginal_gives_an_exact_figure() -> None:
    from synthleak.metrics.utility import utility_estimate

    o, _, c = _adult_parts(1000, 0, 500)
    u = utility_estimate(o, o, c, rng=np.random.default_rng(0), n_boot=100)
    assert u["tvd3"] == 0.0 and u["tvd_ci"] == (0.0, 0.0) and u["mre_ci"] == (0.0, 0.0)
    assert u["reference_tvd"] > 0.05  # type: ignore[operator]  # sampling alone
    # with every 3-way marginal used there is no sampling of marginals: a zero-width interval
    rng = np.random.default_rng(1)
    df = pd.DataFrame({k: rng.integers(0, 4, 600) for k in "abcd"})
    t = Table.from_frame(df, infer_schema(df))
    half = utility_estimate(
        t.take(np.arange(300)), t.take(np.arange(300, 600)), rng=rng, n_boot=100
    )
    assert half["marginals"] == half["marginal_space"] == 4
    assert half["tvd_ci"] == (half["tvd3"], half["tvd3"])


@pytest.mark.slow
def test_marginal_intervals_cover_the_all_marginals_figure() -> None:
    """Oracle: over 100 draws of marginals, the 95% interval covers the figure over every 3-way
    marginal about 95% of the time (0.935 and 0.94 measured over 200 draws)."""
    from synthleak.metrics.utility import _codes, per_marginal, utility_estimate

    o, s, _ = _adult_parts(4000, 1000, 0)
    oc, sc, sizes = _codes(o, s, 20)
    every = np.array(list(itertools.combinations(range(len(sizes)), 3)))
    tvd, err, cells = per_marginal(oc, sc, sizes, every)
    truth = {"tvd_ci": tvd.mean(), "mre_ci": err.sum() / cells.sum()}
    hits = {"tvd_ci": 0, "mre_ci": 0}
    for seed in range(100):
        u = utility_estimate(o, s, rng=np.random.default_rng(seed), n_boot=300)
        for k in hits:
            lo, hi = u[k]  # type: ignore[misc]
            hits[k] += lo <= truth[k] <= hi
    assert all(85 <= h <= 100 for h in hits.values()), hits


def test_per_marginal_parts_add_up_to_the_metrics() -> None:
    from synthleak.metrics.utility import per_marginal

    rng = np.random.default_rng(0)
    sizes = np.array([3, 4, 2, 5, 3])
    o = rng.integers(0, sizes, size=(2000, 5))
    s = rng.integers(0, sizes, size=(1500, 5))
    marg = random_marginals(5, 3, 6, rng=rng)
    tvd, err, cells = per_marginal(o, s, sizes, marg, 10)
    assert tvd.mean() == pytest.approx(tvd_from_codes(o, s, sizes, marg))
    assert err.sum() / cells.sum() == pytest.approx(mre_from_codes(o, s, sizes, marg, 10))
