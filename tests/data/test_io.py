from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from synthleak import InputError
from synthleak.data.io import load_data, read_frame


def _write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def test_csv_gz_parquet_and_bundled(tmp_path: Path, mixed_frame: pd.DataFrame) -> None:
    mixed_frame.to_csv(tmp_path / "d.csv", index=False)
    with gzip.open(tmp_path / "d.csv.gz", "wt") as fh:
        mixed_frame.to_csv(fh, index=False)
    mixed_frame.to_parquet(tmp_path / "d.parquet")
    tables = [load_data(tmp_path / n).table for n in ("d.csv", "d.csv.gz", "d.parquet")]
    assert tables[0].equals(tables[1]) and tables[0].equals(tables[2])
    assert len(read_frame("adult")) == 48842
    assert len(read_frame("adult-complete")) == 45222


def test_na_values_and_schema_file(tmp_path: Path) -> None:
    p = _write(tmp_path / "d.csv", "a,b\n1,x\nN,y\n3,N\n")
    loaded = load_data(p, na_values=["N"])
    assert loaded.schema["a"].has_missing and loaded.schema["b"].has_missing
    loaded.schema.to_json(tmp_path / "s.json")
    again = load_data(p, na_values=["N"], schema=tmp_path / "s.json")
    assert again.table.equals(loaded.table)
    with pytest.raises(InputError, match="either schema or"):
        load_data(p, schema=tmp_path / "s.json", categorical=["a"])


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "does not exist"),
        ("", "is empty"),
        ("a,b\n", "header but no rows"),
        ("a,a\n1,2\n", "duplicate column names"),
        ("a,b\n,\n,\n", "only missing values"),
    ],
)
def test_bad_files(tmp_path: Path, content: str | None, message: str) -> None:
    p = tmp_path / "d.csv"
    if content is not None:
        p.write_text(content)
    with pytest.raises(InputError, match=message):
        load_data(p)


def test_min_rows_and_directory(tmp_path: Path) -> None:
    p = _write(tmp_path / "d.csv", "a\n1\n")
    with pytest.raises(InputError, match="at least 2"):
        load_data(p, min_rows=2)
    with pytest.raises(InputError, match="is a directory with no Parquet parts"):
        load_data(tmp_path)


def test_a_directory_of_parquet_parts_reads_as_one_table(
    tmp_path: Path, mixed_frame: pd.DataFrame
) -> None:
    parts = tmp_path / "parts"
    parts.mkdir()
    cut = len(mixed_frame) // 3
    for i, (a, b) in enumerate([(0, cut), (cut, 2 * cut), (2 * cut, len(mixed_frame))]):
        mixed_frame.iloc[a:b].to_parquet(parts / f"part-{i:03d}.parquet", index=False)
    (parts / "_SUCCESS").write_text("")  # a writer's marker file is not a part
    whole = tmp_path / "whole.parquet"
    mixed_frame.to_parquet(whole, index=False)
    got, ref = load_data(parts), load_data(whole)
    assert got.table.schema == ref.table.schema
    np.testing.assert_array_equal(got.table.codes, ref.table.codes)
    np.testing.assert_array_equal(got.table.values, ref.table.values)
    mixed_frame.iloc[:5, :2].to_parquet(parts / "part-999.parquet", index=False)
    with pytest.raises(InputError, match="other columns"):
        load_data(parts)


def test_encode_frames_widens_domains_and_names_column_differences() -> None:
    from synthleak.data.io import encode_frames

    a = pd.DataFrame({"c": ["x", "y"], "v": [1.5, 2.5]})
    b = pd.DataFrame({"c": ["z", "x"], "v": [0.5, 9.5]})
    sch, tables = encode_frames({"original": a, "synthetic": b})
    assert sch["c"].categories == ("x", "y", "z") and (sch["v"].low, sch["v"].high) == (0.5, 9.5)
    assert tables["synthetic"].to_frame()["c"].tolist() == ["z", "x"]
    with pytest.raises(
        InputError,
        match=(
            r"the control data: missing column\(s\) \['v'\]; "
            r"the control data: unexpected column\(s\) \['w'\]"
        ),
    ):
        encode_frames({"original": a, "control": pd.DataFrame({"c": ["x"], "w": [1]})})


@pytest.mark.parametrize(
    ("first", "then"), [(True, 1), (1, True), (1.0, True), (False, 0), ("1", True)]
)
def test_parts_mixing_booleans_and_numbers_widen_to_every_value(
    first: object, then: object
) -> None:
    """An object column of True in one part and 1 in another: Python takes 1 for True, the
    encoding (by string form) does not; the widened domain holds both, so the second part
    encodes (it failed: "holds value(s) ['1'] that are not in its schema categories") and
    decodes to its own values."""
    from synthleak.data.io import encode_frames

    a = pd.DataFrame({"f": pd.Series([first, 0, 0], dtype=object), "v": [1.0, 2.0, 3.0]})
    b = pd.DataFrame({"f": pd.Series([then, 0, then], dtype=object), "v": [1.0, 2.0, 3.0]})
    for compact in (False, True):
        enc = encode_frames({"original": lambda: a, "synthetic": lambda: b}, compact=compact)
        key = {str(c) for c in enc.schema["f"].categories}
        assert key >= {str(then), "0"} and len(key) == len({str(first), str(then), "0"})
        got = enc.tables["synthetic"].to_frame()["f"].map(str).tolist()
        assert got == [str(then), "0", str(then)]


@pytest.mark.parametrize(
    ("sep", "name"), [(";", "d.csv"), ("\t", "d.tsv"), ("|", "d.csv"), ("\t", "d.csv.gz")]
)
def test_delimiter_is_sniffed(
    tmp_path: Path, mixed_frame: pd.DataFrame, sep: str, name: str
) -> None:
    path = tmp_path / name
    mixed_frame.to_csv(path, sep=sep, index=False)
    df = read_frame(path)
    assert list(df.columns) == list(mixed_frame.columns)
    pd.testing.assert_frame_equal(df, pd.read_csv(path, sep=sep))
    assert df.attrs["synthleak_read"]["delimiter"] == sep


def test_semicolon_file_with_decimal_commas(tmp_path: Path) -> None:
    text = 'name;height;"note, with comma"\nana;1,62;x\nbo;1,80;"y; z"\ncy;1,75;\n'
    df = read_frame(_write(tmp_path / "d.csv", text))
    assert list(df.columns) == ["name", "height", "note, with comma"]
    assert df["height"].tolist() == [1.62, 1.80, 1.75]
    assert df.attrs["synthleak_read"] == {"delimiter": ";", "decimal": ","}
    # a semicolon file with decimal points keeps them
    df2 = read_frame(_write(tmp_path / "e.csv", "a;b\n1.5;x\n2.5;y\n"))
    assert df2["a"].tolist() == [1.5, 2.5] and df2.attrs["synthleak_read"]["decimal"] == "."


def test_comma_file_with_semicolons_inside_fields_stays_comma(tmp_path: Path) -> None:
    text = "a,b,c\n1,x;y,2.5\n2,u;v;w,3.5\n3,z,4.5\n"
    df = read_frame(_write(tmp_path / "d.csv", text))
    assert list(df.columns) == ["a", "b", "c"] and df["c"].tolist() == [2.5, 3.5, 4.5]


def test_explicit_delimiter_and_bom(tmp_path: Path) -> None:
    p = tmp_path / "d.csv"
    p.write_bytes("\ufeffid;v\n1;2\n3;4\n".encode())
    df = read_frame(p)
    assert list(df.columns) == ["id", "v"]  # the byte-order mark is not part of the name
    assert list(read_frame(p, delimiter=",").columns) == ["id;v"]


def test_ragged_file_reading_as_one_column_is_an_error(tmp_path: Path) -> None:
    text = "a;b;c\n1;2;3\n4;5\n6\n7;8;9;10\n"
    with pytest.raises(InputError, match="reads as one column although its first line holds"):
        read_frame(_write(tmp_path / "d.csv", text))
    # one genuine column is fine
    assert read_frame(_write(tmp_path / "e.csv", "a\n1\n2\n"))["a"].tolist() == [1, 2]


def test_encode_frames_profiles_the_reference_and_checks_domains() -> None:
    from synthleak.data.io import EncodedFrames, encode_frames
    from synthleak.data.profile import WarningCode

    rng = np.random.default_rng(0)
    n = 100
    original = pd.DataFrame(
        {
            "person_id": rng.permutation(10**6)[:n],
            "c": rng.choice(["x", "y"], n),
            "when": pd.to_datetime("2024-01-01") + pd.to_timedelta(rng.integers(0, 30, n), "D"),
        }
    )
    # the synthetic data has no identifier column and times of day on its dates
    synthetic = original.drop(columns="person_id").assign(
        when=lambda d: d["when"] + pd.Timedelta(hours=6)
    )
    enc = encode_frames({"original": original, "synthetic": synthetic})
    assert isinstance(enc, EncodedFrames)
    schema, tables = enc  # unpacks as before
    assert schema.names == ["c", "when"] and schema.excluded == ("person_id",)
    assert schema["when"].unit == "s"  # days and date-times widen to seconds
    decoded = tables["synthetic"].to_frame()["when"]
    assert (decoded - synthetic["when"]).abs().max() <= pd.Timedelta(seconds=128)  # float32
    assert enc.profile.identifiers == ["person_id"]
    # 6 hours past the original's last day is outside its range (about 1 record in 30)
    assert [w.code for w in enc.warnings] == [
        WarningCode.IDENTIFIER,
        WarningCode.DATETIME,
        WarningCode.OUT_OF_DOMAIN,
    ]
    kept = encode_frames({"original": original, "synthetic": original}, keep=["person_id"])
    assert kept.schema.excluded == () and "person_id" in kept.schema.names
    with pytest.raises(
        InputError, match=r"the synthetic data: missing column\(s\) \['person_id'\]"
    ):
        encode_frames({"original": original, "synthetic": synthetic}, keep=["person_id"])


def test_load_data_returns_the_profile(tmp_path: Path) -> None:
    p = _write(tmp_path / "d.csv", "a;b\n1,5;x\n2,5;y\n")
    loaded = load_data(p)
    assert loaded.profile is not None and loaded.profile.read["delimiter"] == ";"
    assert loaded.table.column("a").tolist() == [1.5, 2.5]


# --- stray values: one behaviour in every file -------------------------------------------------
def _ages(n: int = 60, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"age": rng.integers(17, 90, n), "sex": rng.choice(["F", "M"], n)})


def _with_stray(df: pd.DataFrame, rows: list[int], value: str = "4O") -> pd.DataFrame:
    out = df.astype({"age": object})
    out.loc[rows, "age"] = value
    return out


@pytest.mark.parametrize("role", ["original", "synthetic", "control", "aux_b"])
def test_a_stray_value_stops_the_same_way_in_every_file(tmp_path: Path, role: str) -> None:
    from synthleak.data.io import encode_frames

    names = ["original", "synthetic", "control", "aux_b"]
    paths = {}
    for i, name in enumerate(names):
        df = _with_stray(_ages(seed=i), [7]) if name == role else _ages(seed=i)
        paths[name] = tmp_path / f"{name}.csv"
        df.to_csv(paths[name], index=False)
    with pytest.raises(InputError) as err:
        encode_frames({n: (lambda p=p: read_frame(p)) for n, p in paths.items()})
    msg = str(err.value)
    assert msg.startswith(f"the {role} data ({paths[role]}): column 'age' holds numbers")
    assert "1 other value(s) in 1 record(s) (row(s) 7, 0-based)" in msg
    assert "na_values" in msg and "special_values" in msg and "categorical" in msg
    assert "4O" not in msg and "\n" not in msg  # a value one record holds is not quoted
    # declared categorical, the column is analysed as categories in every file
    enc = encode_frames({n: read_frame(p) for n, p in paths.items()}, categorical=["age"])
    assert enc.schema["age"].is_categorical


def test_a_stray_value_in_a_single_file_or_frame(tmp_path: Path) -> None:
    from synthleak.data.io import encode_frames

    path = tmp_path / "d.csv"
    _with_stray(_ages(), [3, 9, 20, 41]).to_csv(path, index=False)
    with pytest.raises(InputError, match=r"^data file .*d\.csv: column 'age'") as err:
        load_data(path)
    assert "in 4 record(s) (row(s) 3, 9, 20, ..., 0-based)" in str(err.value)
    assert load_data(path, na_values=["4O"]).schema["age"].has_missing
    # frames given in Python: named by their part
    ok, bad = _ages(), _with_stray(_ages(seed=1), [2])
    with pytest.raises(InputError, match=r"^the synthetic data: column 'age'"):
        encode_frames({"original": ok, "synthetic": bad})


def test_a_marker_many_records_hold_is_quoted() -> None:
    from synthleak.data.profile import check_stray_values

    df = _with_stray(_ages(200), list(range(0, 200, 10)), "?")  # 20 records
    df = _with_stray(df, [5])
    with pytest.raises(InputError) as err:
        check_stray_values(df, "the original data")
    msg = str(err.value)
    assert "2 other value(s) ('?' and values held by fewer than 10 records)" in msg
    assert "in 21 record(s)" in msg and "4O" not in msg


def test_a_reference_number_column_names_the_other_file_on_text(tmp_path: Path) -> None:
    from synthleak.data.io import encode_frames

    ok = _ages().assign(age=lambda d: d["age"] + 0.5)  # continuous
    words = ok.astype({"age": object})
    words.loc[:10, "age"] = [f"w{i}" for i in range(11)]  # too many to be strays
    words.to_csv(tmp_path / "s.csv", index=False)
    with pytest.raises(InputError, match=r"^the synthetic data \(.*s\.csv\): column 'age' is"):
        encode_frames({"original": ok, "synthetic": read_frame(tmp_path / "s.csv")})


def test_special_codes_are_values_a_generator_cannot_invent() -> None:
    from synthleak.data.io import encode_frames
    from synthleak.data.values import join_special
    from synthleak.generators import make_generator

    rng = np.random.default_rng(0)
    n = 400
    age = rng.integers(17, 90, n).astype(float)
    age[rng.random(n) < 0.2] = -8  # "not applicable"
    df = pd.DataFrame({"age": age, "hours": rng.normal(40, 5, n).round(1)})
    df["sex"] = rng.choice(["F", "M"], n)

    def invented(special: list[str] | None) -> set[float]:
        enc = encode_frames({"original": df}, special_values=special)
        gen = make_generator("baynet:k=2").fit(enc.tables["original"], rng=np.random.default_rng(1))
        out = join_special(gen.sample(n, rng=np.random.default_rng(2)).to_frame())
        ages = out["age"].dropna().astype(float)
        return set(ages[ages < 17].tolist()) - {-8.0}

    assert invented(None)  # as a number, the code turns into numbers no one holds
    assert invented(["age=-8"]) == set()
    # the code is a category of its own in the encoded table, as attacks and copies see it
    enc = encode_frames(
        {"original": df, "synthetic": df.iloc[::-1].reset_index(drop=True)},
        special_values={"age": [-8]},
    )
    col = enc.schema["age (special)"]
    assert col.is_categorical and col.categories == ("-8",)
    codes = enc.tables["original"].column("age (special)")
    assert (codes == 0).sum() == (df["age"] == -8).sum()
    assert enc.schema["age"].low == 17.0  # the numbers alone
    with pytest.raises(InputError, match=r"^the original data: special_values names unknown"):
        encode_frames({"original": df}, special_values=["agee=-8"])
