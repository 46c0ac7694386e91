"""Compact frames: an audit keeps its parts with the same values in less memory."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from synthleak import InputError
from synthleak.data.io import compact_frame, encode_frames
from synthleak.data.table import Table
from synthleak.metrics.copies import copy_hashes, copy_plan


def _frame(n: int = 600, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    when = pd.Timestamp("2013-01-01") + pd.to_timedelta(rng.integers(0, 50, n), unit="h")
    carrier = rng.choice(["AA", "B6", "EV", "UA"], n).astype(object)
    carrier[rng.random(n) < 0.1] = None
    return pd.DataFrame(
        {
            "carrier": carrier,
            "when": when.strftime("%Y-%m-%dT%H:%M:%SZ"),  # ISO text: a datetime column
            "delay": rng.integers(-30, 300, n),  # int64 that fits int16
            "big": rng.integers(0, 2**40, n),  # needs int64
            "air": rng.normal(100, 20, n),
            "flag": rng.random(n) < 0.5,
            "note": [f"free text {i}" for i in range(n)],  # distinct: left as it is
            "mixed": rng.choice(np.array(["1", 1, 1.0, True], dtype=object), n),
        }
    )


def test_values_equal_memory_smaller_and_input_unchanged() -> None:
    df = _frame()
    before = df.copy()
    small = compact_frame(df)
    pd.testing.assert_frame_equal(df, before)  # not changed
    assert isinstance(small["carrier"].dtype, pd.CategoricalDtype)
    assert isinstance(small["when"].dtype, pd.CategoricalDtype)
    assert small["delay"].dtype == np.int16 and small["big"].dtype == np.int64
    for c in ("air", "flag", "note", "mixed"):  # floats, booleans, free text, non-strings
        assert small[c].dtype == df[c].dtype
    for c in df.columns:  # the same values, and missing where they were missing
        present = df[c].notna()
        assert (small[c].notna() == present).all()
        assert small[c][present].astype(object).tolist() == df[c][present].astype(object).tolist()
    assert small.memory_usage(deep=True).sum() < 0.6 * df.memory_usage(deep=True).sum()


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(2, 300))
def test_tables_and_copy_keys_are_those_of_the_raw_frame(seed: int, n: int) -> None:
    df = _frame(n, seed).drop(columns=["mixed"])
    enc = encode_frames({"original": df})
    cols = list(enc.schema.names)
    small = compact_frame(df)
    assert Table.from_frame(small[cols], enc.schema).equals(enc.tables["original"])
    plan = copy_plan([df], list(df.columns), ["note", "carrier"])
    assert copy_plan([small], list(df.columns), ["note", "carrier"]) == plan
    raw, comp = copy_hashes(df, plan), copy_hashes(small, plan)
    assert all(np.array_equal(raw[k], comp[k]) for k in raw)


def test_string_dtype_columns_are_compacted() -> None:
    s = pd.Series(["a", "b", None, "a"] * 10, dtype="string")
    out = compact_frame(pd.DataFrame({"s": s}))["s"]
    assert isinstance(out.dtype, pd.CategoricalDtype)
    assert (out.isna() == s.isna()).all()
    assert out.dropna().astype(str).tolist() == s.dropna().astype(str).tolist()


def test_parts_read_one_at_a_time_and_encoded_as_the_raw_frames() -> None:
    parts = {
        name: _frame(n, seed).drop(columns=["mixed"])
        for name, n, seed in (("original", 400, 1), ("synthetic", 300, 2), ("control", 200, 3))
    }
    raw = encode_frames(parts)
    read: list[str] = []

    def loader(name: str):  # type: ignore[no-untyped-def]
        def load() -> pd.DataFrame:
            read.append(name)
            return parts[name]

        return load

    lazy = encode_frames({k: loader(k) for k in parts}, compact=True)
    assert read == ["original", "synthetic", "control"]
    assert lazy.schema == raw.schema and lazy.profile == raw.profile and lazy.domain == raw.domain
    assert all(lazy.tables[k].equals(raw.tables[k]) for k in parts)
    assert isinstance(lazy.frames["control"]["carrier"].dtype, pd.CategoricalDtype)
    assert raw.frames["original"] is parts["original"]  # not compacted, not copied


def test_a_part_with_other_columns_is_an_error_naming_it() -> None:
    parts = {"original": _frame(50), "synthetic": _frame(50).drop(columns=["air"])}
    with pytest.raises(InputError, match=r"the synthetic data: .*air"):
        encode_frames({k: (lambda v=v: v) for k, v in parts.items()}, compact=True)
