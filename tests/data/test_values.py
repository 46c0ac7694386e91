from __future__ import annotations

import ast
import datetime as dt
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from synthleak import infer_schema
from synthleak.data import values
from synthleak.data.values import (
    DATE_TEXT,
    canonical_datetime,
    column_numbers,
    datetimes_to_numbers,
    numbers_to_datetimes,
    parse_datetimes,
    parse_numbers,
)


def test_column_numbers_is_the_one_cell_converter() -> None:
    s = infer_schema(
        pd.DataFrame(
            {"t": pd.to_datetime(["2024-01-01", "2024-01-03"]), "v": [1.5, 2.0], "c": ["a", "b"]}
        )
    )
    vals, bad = column_numbers(pd.Series(["2024-01-02", None, "never"]), s["t"])
    np.testing.assert_array_equal(vals, [19724.0, np.nan, np.nan])
    assert bad.tolist() == [False, False, True]
    vals, bad = column_numbers(pd.Series(["1,500", "2", True]), s["v"])
    assert vals[:2].tolist() == [1500.0, 2.0] and bad.tolist() == [False, False, True]
    with pytest.raises(TypeError):
        column_numbers(pd.Series(["a"]), s["c"])


def test_parse_numbers_reads_text_separators_and_flags_the_rest() -> None:
    vals, bad = parse_numbers(pd.Series(["-12,345.5", " 7 ", None, "x", "1,2"], dtype=object))
    np.testing.assert_array_equal(vals, [-12345.5, 7.0, np.nan, np.nan, np.nan])
    assert bad.tolist() == [False, False, False, True, True]
    vals, bad = parse_numbers(pd.Series([True, False]))
    assert np.isnan(vals).all() and bad.all()


def test_parse_datetimes_utc_zone_and_slash_dates() -> None:
    when, tz, bad = parse_datetimes(pd.Series(["2024/01/02", dt.date(2024, 1, 3), "soon", None]))
    assert tz == "" and bad.tolist() == [False, False, True, False]
    assert [canonical_datetime(t) for t in when[:2]] == ["2024-01-02", "2024-01-03"]
    when, tz, bad = parse_datetimes(pd.Series(["2024-01-02T10:00+02:00", "2024-01-02"]))
    assert tz == "UTC" and not bad.any()
    assert [canonical_datetime(t) for t in when] == ["2024-01-02T08:00:00", "2024-01-02"]
    assert bool(DATE_TEXT.match("2024/01/02")) and not DATE_TEXT.match("2024-01/02")


def test_a_time_without_offset_is_utc_beside_times_with_one() -> None:
    """A naive time after one with an offset is read as UTC, not at that offset."""
    texts = ["2024-01-02T10:00+02:00", "2024-01-03 05:00", "2024-01-04T00:00:00"]
    for cells in (texts, [texts[0], dt.datetime(2024, 1, 3, 5), texts[2]]):
        when, tz, bad = parse_datetimes(pd.Series(cells))
        assert tz == "UTC" and not bad.any()
        assert [canonical_datetime(t) for t in when] == [
            "2024-01-02T08:00:00",
            "2024-01-03T05:00:00",
            "2024-01-04",
        ]


@pytest.mark.parametrize("unit", ["D", "s"])
def test_datetime_numbers_round_trip(unit: str) -> None:
    stamps = pd.Series(pd.to_datetime(["1969-12-31", "2024-02-29", None]))
    nums = datetimes_to_numbers(stamps, unit)
    assert np.isnan(nums[2]) and nums[0] == (-1.0 if unit == "D" else -86_400.0)
    col = infer_schema(pd.DataFrame({"t": stamps}))["t"]
    col = type(col)(col.name, col.kind, has_missing=True, unit=unit, low=nums[0], high=nums[1])
    back = numbers_to_datetimes(nums, col)
    assert list(back[:2]) == list(stamps[:2]) and pd.isna(back[2])


def test_values_is_the_bottom_of_the_data_layer() -> None:
    """Parsing has one home that imports nothing else from the package at run time."""
    tree = ast.parse(Path(values.__file__).read_text())
    runtime_imports = [
        node
        for node in tree.body
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("synthleak")
    ]
    assert runtime_imports == []


# --- declared special codes -------------------------------------------------------------------
def test_special_values_are_parsed_from_specs_or_a_mapping() -> None:
    from synthleak.data.values import parse_special_values, special_specs
    from synthleak.errors import InputError

    assert parse_special_values(["age=-8,-9", "age=-9", "inc=N/A"]) == {
        "age": ("-8", "-9"),
        "inc": ("N/A",),
    }
    assert parse_special_values({"age": [-8, -9.0]}) == {"age": ("-8", "-9.0")}
    assert special_specs(parse_special_values("age=-8, -9")) == ("age=-8,-9",)
    assert parse_special_values(None) == {} and parse_special_values(()) == {}
    for bad in ("age", "=-8", "age="):
        with pytest.raises(InputError, match="special_values"):
            parse_special_values([bad])


def test_split_special_moves_codes_into_their_own_category_and_back() -> None:
    from synthleak.data.values import join_special, split_special

    df = pd.DataFrame({"age": [30, -8, 41, -8.0, None], "x": list("abcde")})
    out = split_special(df, {"age": ("-8",)})
    assert list(out.columns) == ["age", "age (special)", "x"]
    assert out["age"].isna().tolist() == [False, True, False, True, True]
    assert out["age"].iloc[[0, 2]].tolist() == [30.0, 41.0]
    assert out["age (special)"].tolist() == [None, "-8", None, "-8", None]
    back = join_special(out)
    assert list(back.columns) == ["age", "x"]
    assert back["age"].iloc[:4].astype(float).tolist() == [30.0, -8.0, 41.0, -8.0]
    # a text code in a column of numbers: the rest is numbers again
    text = pd.DataFrame({"inc": ["10", "N/A", "12.5", "N/A"]})
    split = split_special(text, {"inc": ("N/A",)})
    assert split["inc"].dtype.kind == "f" and split["inc"].iloc[[0, 2]].tolist() == [10.0, 12.5]
    assert split["inc (special)"].tolist() == [None, "N/A", None, "N/A"]
    # a declared column without any code still gets its (empty) special column
    none = split_special(pd.DataFrame({"age": [1.0, 2.0]}), {"age": ("-8",)})
    assert none["age (special)"].isna().all()
