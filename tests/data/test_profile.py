"""Column roles, kinds and typed warnings of the data people really bring."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from synthleak import InputError
from synthleak.data.io import load_data, read_frame
from synthleak.data.profile import (
    DataProfile,
    Level,
    Role,
    WarningCode,
    infer_schema,
    profile_frame,
)
from synthleak.data.schema import ColumnKind


def _frame(n: int = 300, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "age": rng.integers(18, 90, n),
            "sex": rng.choice(["F", "M"], n),
            "income": rng.normal(30_000, 8_000, n).round(2),
        }
    )


def _codes(p: DataProfile, column: str) -> set[WarningCode]:
    return {w.code for w in p.warnings_for(column)}


# --- identifiers ------------------------------------------------------------------------------
def test_id_columns_are_excluded_with_a_note() -> None:
    rng = np.random.default_rng(1)
    df = _frame()
    n = len(df)
    df["person_id"] = rng.permutation(10**6)[:n]  # unique, unordered, named
    df["row"] = np.arange(n) + 1000  # a monotone sequence
    df["shuffled"] = rng.permutation(n)  # the numbers 0..n-1 in some order
    df["code"] = [f"P{i:06d}" for i in rng.permutation(10**5)[:n]]  # unique short codes
    df["hh_id"] = np.repeat(np.arange(n // 2), 2)  # household numbers repeat
    p = profile_frame(df)
    assert p.identifiers == ["person_id", "row", "shuffled", "code", "hh_id"]
    assert p.features == ["age", "sex", "income"]
    for c in p.identifiers:
        (w,) = p.warnings_for(c)
        assert w.code is WarningCode.IDENTIFIER and w.level is Level.NOTE
        assert "--keep" in w.message and "verbatim copies" in w.message
        assert p.column(c).kind is None and p.column(c).reason
    s = infer_schema(df)
    assert s.names == ["age", "sex", "income"] and s.excluded == tuple(p.identifiers)


def test_to_csv_index_leftover_is_excluded_and_dropped_from_the_table(tmp_path: Path) -> None:
    df = _frame()
    df.sample(frac=1.0, random_state=0).to_csv(tmp_path / "d.csv")  # shuffled index saved
    loaded = load_data(tmp_path / "d.csv")
    assert "Unnamed: 0" in loaded.frame.columns
    assert loaded.schema.names == ["age", "sex", "income"]
    assert loaded.schema.excluded == ("Unnamed: 0",)
    assert loaded.profile is not None and loaded.profile.identifiers == ["Unnamed: 0"]
    assert loaded.table.to_frame().shape == (len(df), 3)


def test_unique_measurements_are_kept_with_a_warning() -> None:
    rng = np.random.default_rng(2)
    df = _frame(200)
    df["fnlwgt"] = rng.choice(np.arange(10_000, 1_500_000), 200, replace=False)
    p = profile_frame(df)
    assert "fnlwgt" in p.features
    (w,) = p.warnings_for("fnlwgt")
    assert w.code is WarningCode.UNIQUE_VALUES and w.level is Level.WARNING


def test_keep_and_kind_overrides_win_over_roles() -> None:
    df = _frame()
    df["person_id"] = np.arange(len(df))
    p = profile_frame(df, keep=["person_id"])
    assert p.column("person_id").role is Role.FEATURE
    assert p.column("person_id").kind is ColumnKind.CONTINUOUS
    (w,) = p.warnings_for("person_id")
    assert w.code is WarningCode.IDENTIFIER and "analysed as asked" in w.message
    assert infer_schema(df, categorical=["person_id"])["person_id"].is_categorical
    assert infer_schema(df, keep=["person_id"]).excluded == ()


def test_small_frames_are_not_second_guessed() -> None:
    df = pd.DataFrame({"k": range(10), "name": [f"A person {i}" for i in range(10)]})
    assert profile_frame(df).features == ["k", "name"]


def test_every_column_excluded_is_an_error() -> None:
    df = pd.DataFrame({"id": np.arange(50), "name": [f"Person {i} Smith" for i in range(50)]})
    with pytest.raises(InputError, match="every column looks like an identifier, free text"):
        infer_schema(df)


# --- free text --------------------------------------------------------------------------------
def test_free_text_is_excluded_and_listed_for_the_copy_check() -> None:
    rng = np.random.default_rng(3)
    df = _frame()
    n = len(df)
    first = np.array(["Ana", "Bo", "Cy", "Dee", "Eli", "Fay", "Gus", "Hal", "Ivy", "Jo"])
    last = np.array([f"Surname{i}" for i in range(100)])
    df["name"] = [
        f"{a} {b}" for a, b in zip(rng.choice(first, n), rng.choice(last, n), strict=True)
    ]
    df["address"] = [f"{i} High Street, Town {i % 7}" for i in rng.integers(1, 10**4, n)]
    df["title"] = [f"A very long title number {i} of a report" for i in rng.integers(0, 10**5, n)]
    p = profile_frame(df)
    assert p.text_columns == ["name", "address", "title"]
    assert all(_codes(p, c) == {WarningCode.FREE_TEXT} for c in p.text_columns)
    assert infer_schema(df).names == ["age", "sex", "income"]


def test_ordinary_categoricals_with_spaces_stay_features(adult_df: pd.DataFrame) -> None:
    p = profile_frame(adult_df)
    assert p.features == list(adult_df.columns) and p.warnings == ()


# --- dates ------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("values", "unit"),
    [
        (["2024-01-31", "2023-12-01", None, "2024/02/29"], "D"),
        (["2024-01-31 10:00", "2023-12-01T23:59:59", "2024-02-29 00:00:00.5", None], "s"),
    ],
)
def test_iso_date_strings_become_datetime_columns(values: list, unit: str) -> None:
    df = pd.DataFrame({"when": values * 10, "x": np.arange(40) % 3})
    p = profile_frame(df)
    assert p.column("when").kind is ColumnKind.DATETIME
    assert _codes(p, "when") == {WarningCode.DATETIME}
    col = infer_schema(df)["when"]
    assert col.is_datetime and col.is_continuous and not col.is_categorical
    assert col.unit == unit and col.has_missing


def test_parquet_datetimes_round_trip_and_serialise(tmp_path: Path) -> None:
    """A Parquet datetime column ran a whole audit, then failed writing JSON."""
    from synthleak.serde import dumps

    rng = np.random.default_rng(4)
    n = 100
    df = pd.DataFrame(
        {
            "day": pd.to_datetime("2020-01-01") + pd.to_timedelta(rng.integers(0, 900, n), "D"),
            "stamp": pd.Timestamp("2021-03-04 05:06:07", tz="Europe/Paris")
            + pd.to_timedelta(rng.integers(0, 10**7, n), unit="s"),
            "v": rng.random(n),
        }
    )
    df.loc[3, "day"] = pd.NaT
    df.to_parquet(tmp_path / "d.parquet")
    loaded = load_data(tmp_path / "d.parquet")
    day, stamp = loaded.schema["day"], loaded.schema["stamp"]
    assert (day.kind, day.unit, stamp.unit, stamp.tz) == (
        ColumnKind.DATETIME,
        "D",
        "s",
        "Europe/Paris",
    )
    back = loaded.table.to_frame()
    ns = "datetime64[ns]"  # pandas 3 reads microseconds, decoding gives nanoseconds
    pd.testing.assert_series_equal(back["day"].astype(ns), df["day"].astype(ns))
    # seconds in float32: within 128 s at present-day dates
    err = (back["stamp"] - df["stamp"]).abs().max()
    assert err <= pd.Timedelta(seconds=128) and str(back["stamp"].dt.tz) == "Europe/Paris"
    text = loaded.schema.to_json()
    assert json.loads(text)["columns"][0]["low"] == df["day"].min().strftime("%Y-%m-%d")
    assert type(loaded.schema).from_json(text) == loaded.schema
    json.loads(dumps([loaded.frame.iloc[i].to_dict() for i in range(5)]))
    json.loads(loaded.profile.to_json())


def test_a_date_column_declared_categorical_has_text_categories() -> None:
    df = pd.DataFrame({"d": pd.to_datetime(["2024-01-01", "2024-01-02"] * 5)})
    s = infer_schema(df, categorical=["d"])
    assert s["d"].categories == ("2024-01-01", "2024-01-02")
    json.loads(s.to_json())
    from synthleak.data.table import Table

    assert Table.from_frame(df, s).codes[:2, 0].tolist() == [0, 1]


def test_date_strings_with_a_marker_get_a_warning() -> None:
    dates = [f"2024-01-{d:02d}" for d in range(1, 29)]
    df = pd.DataFrame({"when": [*dates, "unknown", "unknown"]})
    p = profile_frame(df)
    (w,) = p.warnings_for("when")
    assert w.code is WarningCode.DATES_AS_TEXT and w.tokens == ("unknown",)
    assert p.suggested_na_values == ["unknown"]


# --- numbers written as text ------------------------------------------------------------------
def test_numbers_with_markers_name_the_tokens() -> None:
    rng = np.random.default_rng(5)
    n = 400
    vals = rng.integers(0, 10**5, n).astype(str).astype(object)
    vals[rng.random(n) < 0.2] = "N"
    vals[:3] = "refused"
    df = pd.DataFrame({"PINCP": vals, "x": rng.random(n)})
    p = profile_frame(df)
    (w,) = p.warnings_for("PINCP")
    assert w.code is WarningCode.NUMERIC_AS_TEXT and w.level is Level.WARNING
    assert w.tokens == ("N", "refused")  # most frequent first
    # 'refused' is held by 3 records: named in detail (--show-records), counted in the message
    assert "'N', 'refused'" in w.detail and "refused" not in w.message
    assert w.detail.endswith("pass them in na_values")
    assert "'N' and 1 other value(s) held by fewer than 10 records" in w.message
    assert p.suggested_na_values == ["N", "refused"] and p.shared_na_values == ["N"]
    assert w.without_values().tokens == ("N",)
    assert p.column("PINCP").kind is ColumnKind.CATEGORICAL  # unchanged until the user says
    fixed = profile_frame(df.replace({"N": np.nan, "refused": np.nan}).astype({"PINCP": float}))
    assert fixed.warnings_for("PINCP") == []


def test_thousands_separators_are_numbers(tmp_path: Path) -> None:
    text = 'v,c\n"1,234",a\n"12,345.5",b\n999,a\n"-2,000",b\n' + "5,a\n" * 20
    loaded = load_data(_write(tmp_path, text))
    col = loaded.schema["v"]
    assert col.kind is ColumnKind.CONTINUOUS and (col.low, col.high) == (-2000.0, 12345.5)
    assert loaded.table.column("v")[:4].tolist() == [1234.0, 12345.5, 999.0, -2000.0]
    assert _codes(loaded.profile, "v") == {WarningCode.THOUSANDS_SEPARATOR}


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "d.csv"
    path.write_text(text)
    return path


# --- other warnings ---------------------------------------------------------------------------
def test_high_cardinality_constant_and_headerless() -> None:
    rng = np.random.default_rng(6)
    n = 1000
    df = _frame(n)
    df["zip"] = rng.choice([f"Z{i:03d}" for i in range(400)], n)
    df["const"] = "x"
    df["Unnamed: 7"] = rng.choice(["a", "b"], n)
    p = profile_frame(df)
    assert _codes(p, "zip") == {WarningCode.HIGH_CARDINALITY}
    assert _codes(p, "const") == {WarningCode.CONSTANT}
    assert _codes(p, "Unnamed: 7") == {WarningCode.NO_HEADER}
    assert infer_schema(df).excluded == ()


def test_read_notes_come_from_read_frame(tmp_path: Path) -> None:
    path = tmp_path / "d.csv"
    path.write_text("a;b\n1,5;x\n2,5;y\n")
    p = profile_frame(read_frame(path))
    assert [w.code for w in p.warnings] == [WarningCode.DELIMITER, WarningCode.DECIMAL_COMMA]
    assert p.read == {"delimiter": ";", "decimal": ","}


def test_profile_round_trips_through_json() -> None:
    df = _frame()
    df["person_id"] = np.arange(len(df))
    p = profile_frame(df)
    back = DataProfile.from_json(p.to_json())
    assert back == p and back.identifiers == ["person_id"]


# --- the real datasets ------------------------------------------------------------------------
def test_shared_datasets(shared_datasets: Path) -> None:
    census = profile_frame(read_frame(shared_datasets / "uk_census2011_teaching_nano_10k.csv"))
    assert census.identifiers == ["row_index_in_full_file", "Person ID"]
    acs_path = shared_datasets / "nist_acs_ma2019.csv"
    acs = profile_frame(read_frame(acs_path))
    assert acs.suggested_na_values == ["N"]
    assert "PINCP" in {w.column for w in acs.warnings if w.code is WarningCode.NUMERIC_AS_TEXT}
    fixed = load_data(acs_path, na_values=["N"])
    assert fixed.schema["PINCP"].kind is ColumnKind.CONTINUOUS
    assert not [w for w in fixed.profile.warnings if w.level is Level.WARNING]
    compas = load_data(shared_datasets / "compas_two_years_noids.csv")
    assert "violent_recid" in compas.schema.excluded  # empty: left out with a note
    assert compas.profile is not None
    assert any("only missing values" in w.message for w in compas.profile.warnings)
    frame = read_frame(shared_datasets / "compas_two_years_noids.csv")
    compas_schema = infer_schema(frame.drop(columns="violent_recid"))
    assert compas_schema.excluded == ("id",)
    assert compas_schema["c_jail_in"].is_datetime and compas_schema["c_jail_in"].unit == "s"
    assert compas_schema["screening_date"].unit == "D"
    adult = profile_frame(read_frame(shared_datasets / "adult.csv.gz"))
    assert adult.excluded == [] and adult.warnings == ()
