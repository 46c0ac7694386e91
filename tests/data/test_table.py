from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from synthleak import InputError, Table, infer_schema


def test_round_trip_mixed_with_missing(mixed_frame: pd.DataFrame) -> None:
    s = infer_schema(mixed_frame)
    t = Table.from_frame(mixed_frame, s)
    assert t.codes.dtype == np.int8 and t.values.dtype == np.float32
    assert t.codes.shape == (200, 3) and t.values.shape == (200, 2)
    back = t.to_frame()
    assert list(back.columns) == list(mixed_frame.columns)
    pd.testing.assert_series_equal(
        back["colour"].astype(object), mixed_frame["colour"].astype(object), check_names=False
    )
    np.testing.assert_allclose(back["height"], mixed_frame["height"], rtol=1e-6)
    assert (back["flag"] == mixed_frame["flag"]).all()
    assert back["weight"].dtype == np.int64


def test_adult_round_trip(adult_df: pd.DataFrame, adult_table: Table) -> None:
    back = adult_table.to_frame()
    for c in adult_df.columns:
        a, b = adult_df[c], back[c]
        assert (a.isna() == b.isna()).all(), c
        assert (a[a.notna()].astype(str).to_numpy() == b[b.notna()].astype(str).to_numpy()).all(), c


def test_unknown_category_and_missing_not_allowed(mixed_frame: pd.DataFrame) -> None:
    s = infer_schema(mixed_frame)
    bad = mixed_frame.copy()
    bad.loc[0, "size"] = "XXL"
    with pytest.raises(InputError, match="not in its schema categories"):
        Table.from_frame(bad, s)
    bad = mixed_frame.copy()
    bad.loc[0, "weight"] = np.nan
    with pytest.raises(InputError, match="allows none"):
        Table.from_frame(bad, s)
    with pytest.raises(InputError, match="missing column"):
        Table.from_frame(mixed_frame.drop(columns="size"), s)


def test_numeric_categories_match_by_value() -> None:
    s = infer_schema(pd.DataFrame({"c": [1, 2, 3]}))
    t = Table.from_frame(pd.DataFrame({"c": ["2", 3.0, 1]}), s)
    assert t.codes[:, 0].tolist() == [1, 2, 0]


def test_sample_take_select_concat(adult_table: Table) -> None:
    rng = np.random.default_rng(1)
    a = adult_table.sample(100, rng=rng)
    b = adult_table.sample(100, rng=np.random.default_rng(1))
    assert a.equals(b) and len(a) == 100
    with pytest.raises(InputError, match="cannot sample"):
        a.sample(101, rng=rng)
    assert len(a.sample(300, rng=rng, replace=True)) == 300
    sub = a.select(["age", "sex"])
    assert sub.schema.names == ["age", "sex"]
    np.testing.assert_array_equal(sub.column("sex"), a.column("sex"))
    both = Table.concat([a, b])
    assert len(both) == 200 and both.take(np.arange(100, 200)).equals(b)


def test_row_keys_identify_equal_rows(adult_table: Table) -> None:
    t = adult_table.take([0, 1, 0])
    k = t.row_keys()
    assert k[0] == k[2] and k[0] != k[1]


def test_datetime_columns_encode_as_days_or_seconds_and_decode_back() -> None:
    import datetime as dt

    from synthleak.data.schema import ColumnKind

    days = pd.Series(pd.to_datetime(["1970-01-02", "2024-02-29", None, "1969-12-31"]))
    df = pd.DataFrame(
        {"d": days, "t": ["2024-01-01T00:00:30", None, "2024-01-01 12:00", "1999-12-31 23:59"]}
    )
    s = infer_schema(df)
    assert s["d"].kind is ColumnKind.DATETIME and s["d"].unit == "D" and s["d"].integer
    assert s["t"].unit == "s" and not s["t"].integer
    t = Table.from_frame(df, s)
    np.testing.assert_array_equal(t.column("d"), [1.0, 19782.0, np.nan, -1.0])
    assert t.column("t")[0] == np.float32(1704067230.0)
    back = t.to_frame()
    ns = "datetime64[ns]"  # pandas 3 parses to microseconds, decoding gives nanoseconds
    pd.testing.assert_series_equal(back["d"].astype(ns), days.astype(ns), check_names=False)
    # seconds since 1970 in float32: kept to within 128 s at present-day dates (documented)
    assert abs(back["t"].iloc[3] - pd.Timestamp("1999-12-31 23:59")) <= pd.Timedelta(seconds=64)
    assert pd.isna(back["t"].iloc[1])
    # other spellings of the same instants encode alike: datetime64, dates, ISO text
    other = pd.DataFrame(
        {
            "d": [dt.date(1970, 1, 2), "2024-02-29", None, pd.Timestamp("1969-12-31")],
            "t": pd.to_datetime(
                ["2024-01-01 00:00:30", None, "2024-01-01 12:00", "1999-12-31 23:59"],
                format="ISO8601",
            ),
        }
    )
    assert Table.from_frame(other, s).equals(t)
    bad = df.assign(t=["2024-01-01", "soon", None, None])
    with pytest.raises(InputError, match="datetime but holds values that are not ISO dates"):
        Table.from_frame(bad, s)


def test_excluded_columns_are_dropped_and_may_be_absent() -> None:
    from synthleak.data.schema import Schema

    df = pd.DataFrame({"id": np.arange(30), "v": np.linspace(0, 1, 30)})
    s = infer_schema(df)
    assert s.excluded == ("id",) and s.names == ["v"]
    assert Table.from_frame(df, s).equals(Table.from_frame(df[["v"]], s))
    with pytest.raises(InputError, match="unexpected column"):
        Table.from_frame(df.assign(w=1), s)
    assert Schema.from_json(s.to_json()) == s


def test_thousands_separators_in_continuous_columns() -> None:
    s = infer_schema(pd.DataFrame({"v": [1.5, 2000.0, 3.25]}))
    t = Table.from_frame(
        pd.DataFrame({"v": ["1,234.5", "2,000", "3"]}),
        s.replace_column(s["v"].__class__("v", s["v"].kind, low=0.0, high=3000.0)),
    )
    assert t.column("v").tolist() == [1234.5, 2000.0, 3.0]
