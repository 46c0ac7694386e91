"""Adapter helpers: frame_to_table (output of third-party generators) and global_seed."""

from __future__ import annotations

import random

import numpy as np
import pandas as pd
import pytest

from synthleak.data.schema import Column, ColumnKind, Schema
from synthleak.errors import GeneratorFailure
from synthleak.generators._adapt import draw_seed, frame_to_table, global_seed

SCHEMA = Schema(
    (
        Column("c", ColumnKind.CATEGORICAL, categories=("01", "2", "NA")),
        Column("k", ColumnKind.CATEGORICAL, categories=(1, 2, 3), has_missing=True),
        Column("v", ColumnKind.CONTINUOUS, low=0.0, high=10.0, integer=True),
        Column("w", ColumnKind.CONTINUOUS, low=-1.0, high=1.0, has_missing=True),
    )
)


def test_frame_to_table_maps_clips_and_rounds() -> None:
    df = pd.DataFrame(
        {
            "w": [0.5, np.nan, 7.0],  # any column order
            "c": ["01", "NA", "2"],
            "k": ["1.0", None, "3"],  # numeric categories written as text / floats
            "v": [-4.0, 3.4, 99.0],
        }
    )
    t = frame_to_table(df, SCHEMA, source="prog")
    assert t.schema == SCHEMA
    assert t.column("c").tolist() == [0, 2, 1]
    assert t.column("k").tolist() == [0, 3, 2]  # 3 = missing code
    assert t.column("v").tolist() == [0.0, 3.0, 10.0]
    w = t.column("w")
    assert w[0] == 0.5 and np.isnan(w[1]) and w[2] == 1.0


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"drop": "c"}, r"prog produced .*missing column\(s\) \['c'\]"),
        ({"add": "zz"}, r"unexpected column\(s\) \['zz'\]"),
        ({"set": ("c", "03")}, "rejects.*'03'"),
        ({"set": ("k", "7")}, "rejects.*'7'"),
        ({"set": ("v", "abc")}, "non-numeric value 'abc'"),
        ({"set": ("v", None)}, "rejects.*missing values"),
        ({"set": ("c", None)}, "rejects.*missing values"),
    ],
)
def test_frame_to_table_failures(change: dict, message: str) -> None:
    df = pd.DataFrame({"c": ["01"], "k": [1], "v": [2.0], "w": [0.0]}).astype(object)
    if "drop" in change:
        df = df.drop(columns=[change["drop"]])
    if "add" in change:
        df[change["add"]] = 1
    if "set" in change:
        col, val = change["set"]
        df.loc[0, col] = val
    with pytest.raises(GeneratorFailure, match=message):
        frame_to_table(df, SCHEMA, source="prog")


def test_frame_to_table_reads_datetimes_as_generators_return_them() -> None:
    """A date column comes back from a generator as datetime64 (``to_frame``'s own output) or as
    ISO text; both are read, clipped to the training range, and a non-date is named."""
    import synthleak as sl

    df = pd.DataFrame(
        {
            "day": pd.to_datetime(["2020-01-31", "2020-02-29", "2020-03-10"] * 10),
            "x": np.arange(30.0),
        }
    )
    t = sl.Table.from_frame(df, sl.infer_schema(df))
    assert frame_to_table(t.to_frame(), t.schema, source="prog").equals(t)
    text = t.to_frame().assign(day=["2020-01-31", "2019-01-01", "2020-03-10"] * 10)
    back = frame_to_table(text, t.schema, source="prog").to_frame()["day"]
    assert back.dt.strftime("%Y-%m-%d").tolist()[:3] == ["2020-01-31", "2020-01-31", "2020-03-10"]
    with pytest.raises(GeneratorFailure, match="wrote a value that is not a date, 'soon' in"):
        frame_to_table(text.assign(day="soon"), t.schema, source="prog")


def test_global_seed_reproducible_and_restored() -> None:
    torch = pytest.importorskip("torch")

    before_np = np.random.get_state()[1].copy()  # noqa: NPY002
    before_py = random.getstate()
    before_torch = torch.random.get_rng_state().clone()
    with global_seed(5):
        a = (np.random.rand(3), random.random(), torch.rand(2))  # noqa: NPY002
    with global_seed(5):
        b = (np.random.rand(3), random.random(), torch.rand(2))  # noqa: NPY002
    assert np.array_equal(a[0], b[0]) and a[1] == b[1] and torch.equal(a[2], b[2])
    assert np.array_equal(before_np, np.random.get_state()[1])  # noqa: NPY002
    assert random.getstate() == before_py
    assert torch.equal(before_torch, torch.random.get_rng_state())


def test_global_seed_restores_on_error() -> None:
    before = np.random.get_state()[1].copy()  # noqa: NPY002
    with pytest.raises(RuntimeError), global_seed(1):
        raise RuntimeError("x")
    assert np.array_equal(before, np.random.get_state()[1])  # noqa: NPY002


def test_draw_seed_is_deterministic_and_in_range() -> None:
    s = [draw_seed(np.random.default_rng(0)) for _ in range(2)]
    assert s[0] == s[1] and 0 <= s[0] < 2**31 - 1
