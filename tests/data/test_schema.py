from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from synthleak import InputError, Schema, infer_schema
from synthleak.data.schema import ColumnKind, widen


def test_adult_inference_rules(adult_df: pd.DataFrame) -> None:
    s = infer_schema(adult_df)
    assert s.continuous_names == [
        "age",
        "fnlwgt",
        "education-num",
        "capital-gain",
        "capital-loss",
        "hours-per-week",
    ]
    assert len(s.categorical) == 9
    wc = s["workclass"]
    assert wc.has_missing and "?" not in wc.categories and wc.size == len(wc.categories) + 1
    assert s["age"].integer and (s["age"].low, s["age"].high) == (17.0, 90.0)


def test_small_integer_columns_are_categorical_and_overrides_win() -> None:
    df = pd.DataFrame({"code": [1, 2, 3, 1, 2, -9], "x": [0.5, 1.5, 2.5, 3.5, 4.5, 5.5]})
    s = infer_schema(df)
    assert s["code"].kind is ColumnKind.CATEGORICAL and s["code"].categories == (-9, 1, 2, 3)
    assert s["x"].kind is ColumnKind.CONTINUOUS
    s2 = infer_schema(df, continuous=["code"], categorical=["x"])
    assert s2["code"].kind is ColumnKind.CONTINUOUS and s2["x"].kind is ColumnKind.CATEGORICAL
    assert infer_schema(df, max_categories=3)["code"].kind is ColumnKind.CONTINUOUS


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"categorical": ["nope"]}, "^categorical names unknown column"),
        ({"continuous": ["nope"]}, "^continuous names unknown column"),
        ({"keep": ["nope"]}, "^keep names unknown column"),
        ({"continuous": ["s"], "categorical": ["s"]}, "both categorical and continuous"),
        ({"continuous": ["s"]}, "non-numeric values"),
    ],
)
def test_bad_overrides(kwargs: dict, message: str) -> None:
    df = pd.DataFrame({"s": ["a", "b"], "v": [1.0, 2.5]})
    with pytest.raises(InputError, match=message):
        infer_schema(df, **kwargs)


def test_all_missing_and_duplicate_columns_rejected() -> None:
    # an empty column is left out with a note (nothing to attack or copy); kept, it is an error
    s = infer_schema(pd.DataFrame({"a": [np.nan, np.nan], "b": [1, 2]}))
    assert list(s.names) == ["b"] and list(s.excluded) == ["a"]
    with pytest.raises(InputError, match="only missing values"):
        infer_schema(pd.DataFrame({"a": [np.nan, np.nan], "b": [1, 2]}), keep=["a"])
    with pytest.raises(InputError, match="every column has only missing values"):
        infer_schema(pd.DataFrame({"a": [np.nan, np.nan], "b": [None, None]}))
    df = pd.DataFrame([[1, 2]], columns=["a", "a"])
    with pytest.raises(InputError, match="duplicate column names"):
        infer_schema(df)


def test_json_round_trip(mixed_frame: pd.DataFrame, tmp_path) -> None:
    s = infer_schema(mixed_frame)
    path = tmp_path / "schema.json"
    s.to_json(path)
    assert Schema.from_json(path) == s
    assert Schema.from_json(s.to_json()) == s
    assert json.loads(s.to_json())["version"] == 1


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        ("[1, 2]", "'columns' list"),
        ('{"columns": [{"name": "a"}]}', "needs 'name' and 'kind'"),
        ('{"columns": [{"name": "a", "kind": "categorical"}]}', "no 'categories'"),
        (
            '{"columns": [{"name": "a", "kind": "continuous", "low": 2, "high": 1}]}',
            "invalid range",
        ),
        ("{not json", "not valid JSON"),
    ],
)
def test_bad_schema_files(doc: str, message: str) -> None:
    with pytest.raises(InputError, match=message):
        Schema.from_json(doc)


def test_widen_unions_domains() -> None:
    a = infer_schema(pd.DataFrame({"c": ["x", "y"], "v": [0.0, 1.5]}))
    b = infer_schema(pd.DataFrame({"c": ["z", None], "v": [-1.5, 0.5]}))
    w = widen(a, b)
    assert w["c"].categories == ("x", "y", "z") and w["c"].has_missing
    assert (w["v"].low, w["v"].high) == (-1.5, 1.5)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.sampled_from(["a", "b", "c", None]), min_size=1, max_size=30))
def test_categorical_inference_property(values: list) -> None:
    df = pd.DataFrame({"c": values, "k": range(len(values))})
    if all(v is None for v in values):
        assert "c" in infer_schema(df, keep=["k"]).excluded  # empty: left out with a note
        return
    col = infer_schema(df, keep=["k"])["c"]
    assert set(col.categories) == {v for v in values if v is not None}
    assert col.has_missing == (None in values)


def test_datetime_schema_json() -> None:
    doc = {
        "columns": [
            {"name": "d", "kind": "datetime", "unit": "D", "low": "2024-01-01", "high": 19800},
            {
                "name": "t",
                "kind": "datetime",
                "unit": "s",
                "low": "2024-01-01T00:00:00+01:00",
                "high": "2024-01-02",
                "tz": "Europe/Paris",
                "missing": True,
            },
        ],
        "excluded": ["id"],
    }
    s = Schema.from_dict(doc)
    assert (s["d"].low, s["d"].high, s["d"].integer) == (19723.0, 19800.0, True)
    assert s["t"].low == 1704063600.0 and s["t"].tz == "Europe/Paris" and s["t"].has_missing
    assert s.excluded == ("id",) and Schema.from_json(s.to_json()) == s
    assert [c.name for c in s.continuous] == ["d", "t"] and s["t"].kind == ColumnKind.DATETIME


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        (
            {"columns": [{"name": "d", "kind": "datetime", "unit": "h", "low": 0, "high": 1}]},
            "unit",
        ),
        ({"columns": [{"name": "d", "kind": "datetime", "low": "soon", "high": 1}]}, "ISO dates"),
        (
            {
                "columns": [{"name": "a", "kind": "continuous", "low": 0, "high": 1}],
                "excluded": ["a"],
            },
            "both analysed and excluded",
        ),
        (
            {
                "columns": [{"name": "a", "kind": "continuous", "low": 0, "high": 1}],
                "excluded": "a",
            },
            "list of column names",
        ),
    ],
)
def test_bad_datetime_and_excluded_entries(doc: dict, message: str) -> None:
    with pytest.raises(InputError, match=message):
        Schema.from_dict(doc)


def test_widen_datetime_units_and_kind_mismatch() -> None:
    a = infer_schema(pd.DataFrame({"t": pd.to_datetime(["2024-01-01", "2024-01-03"])}))
    b = infer_schema(pd.DataFrame({"t": pd.to_datetime(["2024-01-02 12:00", "2024-01-05 06:00"])}))
    w = widen(a, b)
    assert w["t"].unit == "s" and not w["t"].integer
    assert (w["t"].low, w["t"].high) == (1704067200.0, 1704434400.0)
    c = infer_schema(pd.DataFrame({"t": ["x", "y"]}))
    with pytest.raises(InputError, match="datetime in one dataset and categorical"):
        widen(a, c)


def test_errors_about_a_value_name_its_row_not_the_value() -> None:
    from synthleak.data.schema import ColumnKind, infer_column

    s = pd.Series(["1", "2", "Jane Doe", "4"])
    with pytest.raises(InputError, match=r"row 2, 0-based") as err:
        infer_column(s, "x", ColumnKind.CONTINUOUS)
    assert "Jane" not in str(err.value)
