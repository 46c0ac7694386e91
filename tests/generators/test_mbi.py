"""The MST generator (private-pgm / mbi): accounting, structure learning, fidelity, domain,
seeding.
"""

from __future__ import annotations

import importlib.util
import math

import numpy as np
import pandas as pd
import pytest

from synthleak.data.schema import Column, ColumnKind, Schema
from synthleak.data.table import Table
from synthleak.errors import InputError, MissingExtraError
from synthleak.generators import make_generator
from synthleak.generators.mbi import MST, cdp_delta, cdp_rho

needs_mbi = pytest.mark.skipif(
    importlib.util.find_spec("mbi") is None, reason="the mbi extra is not installed"
)


@pytest.mark.parametrize(("eps", "delta"), [(0.1, 1e-5), (1.0, 1e-9), (10.0, 1e-6)])
def test_cdp_rho_inverts_cdp_delta_and_beats_the_simple_bound(eps: float, delta: float) -> None:
    rho = cdp_rho(eps, delta)
    assert cdp_delta(rho, eps) <= delta
    assert cdp_delta(rho * 1.01, eps) > delta  # the largest such rho, to 1%
    # Bun & Steinke's simple conversion eps = rho + 2 sqrt(rho log(1/delta)) is looser
    log_d = math.log(1 / delta)
    rho_simple = (math.sqrt(log_d + eps) - math.sqrt(log_d)) ** 2
    assert rho_simple <= rho < eps


def test_cdp_rho_reference_value() -> None:
    # value of private-pgm's cdp2adp.cdp_rho(1.0, 1e-9)
    assert cdp_rho(1.0, 1e-9) == pytest.approx(0.014973, rel=1e-3)


def _schema() -> Schema:
    return Schema(
        (
            Column("a", ColumnKind.CATEGORICAL, categories=("p", "q", "r")),
            Column(
                "b", ColumnKind.CATEGORICAL, categories=("p", "q", "r", "never")
            ),  # 'never' unseen
            Column("c", ColumnKind.CATEGORICAL, categories=(0, 1)),
            Column("x", ColumnKind.CONTINUOUS, low=0.0, high=100.0, has_missing=True),
        )
    )


@pytest.fixture(scope="module")
def table() -> Table:
    rng = np.random.default_rng(0)
    n = 600
    a = rng.choice(["p", "q", "r"], n, p=[0.5, 0.3, 0.2])
    x = rng.uniform(0, 10, n)  # schema range is [0, 100]; the data uses only [0, 10]
    x[:60] = np.nan
    df = pd.DataFrame({"a": a, "b": a, "c": rng.integers(0, 2, n), "x": x})
    return Table.from_frame(df, _schema())


@pytest.fixture(scope="module")
def fitted(table: Table) -> MST:
    return make_generator("mst:epsilon=1000,iters=300").fit(table, rng=np.random.default_rng(3))


@needs_mbi
def test_high_epsilon_keeps_the_strong_pair(table: Table, fitted: MST) -> None:
    assert len(fitted.edges_) == 3  # spanning tree on 4 attributes
    assert (0, 1) in fitted.edges_  # a and b are copies: the worst-explained pair
    out = fitted.sample(2000, rng=np.random.default_rng(0))
    assert out.schema == table.schema
    a, b = out.column("a"), out.column("b")
    assert np.mean(a == b) > 0.95
    p_true = np.bincount(table.column("a"), minlength=3) / len(table)
    p_syn = np.bincount(a, minlength=3) / len(out)
    assert np.abs(p_true - p_syn).max() < 0.05
    assert np.mean(b == 3) < 0.01  # the schema-only category stays (almost) absent
    x = out.column("x")
    miss = np.isnan(x)
    assert 0.05 < miss.mean() < 0.15  # 10% missing in training
    assert np.all((x[~miss] >= 0) & (x[~miss] <= 100))
    assert np.mean(x[~miss] <= 10) > 0.9  # bins over the schema range, mass where the data is


@needs_mbi
def test_same_seed_same_output(table: Table, fitted: MST) -> None:
    a = fitted.sample(200, rng=np.random.default_rng(5))
    assert a.equals(fitted.sample(200, rng=np.random.default_rng(5)))
    assert not a.equals(fitted.sample(200, rng=np.random.default_rng(6)))
    refit = make_generator("mst:epsilon=1000,iters=300").fit(table, rng=np.random.default_rng(3))
    assert refit.edges_ == fitted.edges_
    assert refit.sample(200, rng=np.random.default_rng(5)).equals(a)


@needs_mbi
def test_budget_split(fitted: MST) -> None:
    assert fitted.rho_ == pytest.approx(cdp_rho(1000, 1e-9))


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("mst:epsilon=0", r"epsilon must be a number in \(0, inf\)"),
        ("mst:epsilon=-1", r"epsilon must be a number in \(0, inf\)"),
        ("mst:epsilon=inf", r"epsilon must be a number in \(0, inf\)"),
        ("mst:delta=1", r"delta must be a number in \(0, 1\)"),
        ("mst:bins=0", "bins must be an integer >= 1"),
    ],
)
@needs_mbi
def test_bad_parameters(spec: str, message: str) -> None:
    with pytest.raises(InputError, match=message):
        make_generator(spec)


def test_missing_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.util.find_spec

    def fake(name: str, *args, **kwargs):  # type: ignore[no-untyped-def]
        return None if name == "mbi" else real(name, *args, **kwargs)

    monkeypatch.setattr(importlib.util, "find_spec", fake)
    with pytest.raises(MissingExtraError, match=r"synthleak\[mbi\]"):
        make_generator("mst:epsilon=1")


@needs_mbi
def test_a_long_lived_process_keeps_the_programs_of_few_model_shapes(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Fits of other shapes drop the compiled programs once more than MAX_PROGRAM_SHAPES are
    kept (JAX keeps every program otherwise: a shadow-model worker ran out of memory); a shape
    seen before keeps them."""
    import jax

    from synthleak.generators import mbi

    cleared: list[int] = []
    monkeypatch.setattr(jax, "clear_caches", lambda: cleared.append(1))
    monkeypatch.setattr(mbi, "MAX_PROGRAM_SHAPES", 3)
    monkeypatch.setattr(mbi, "_PROGRAM_SHAPES", set())
    for shape in [("a",), ("b",), ("a",), ("c",), ("b",)]:
        mbi._keep_programs_bounded(shape)
    kept = mbi._PROGRAM_SHAPES
    assert cleared == [] and kept == {("a",), ("b",), ("c",)}
    mbi._keep_programs_bounded(("d",))
    assert cleared == [1] and kept == {("d",)}
    # a fit registers its two estimations' shapes (one-way model, then the tree)
    monkeypatch.setattr(mbi, "_PROGRAM_SHAPES", set())
    make_generator("mst:epsilon=1,iters=5").fit(table, rng=np.random.default_rng(0))
    assert len(mbi._PROGRAM_SHAPES) == 2
