from __future__ import annotations

import gzip
from pathlib import Path

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
    with pytest.raises(InputError, match="either --schema or"):
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
    with pytest.raises(InputError, match="is a directory"):
        load_data(tmp_path)


def test_encode_frames_widens_domains_and_names_column_differences() -> None:
    from synthleak.data.io import encode_frames

    a = pd.DataFrame({"c": ["x", "y"], "v": [1.5, 2.5]})
    b = pd.DataFrame({"c": ["z", "x"], "v": [0.5, 9.5]})
    sch, tables = encode_frames({"original": a, "synthetic": b})
    assert sch["c"].categories == ("x", "y", "z") and (sch["v"].low, sch["v"].high) == (0.5, 9.5)
    assert tables["synthetic"].to_frame()["c"].tolist() == ["z", "x"]
    with pytest.raises(
        InputError,
        match=r"the control data: missing column\(s\) \['v'\]; the control data: unexpected column\(s\) \['w'\]",
    ):
        encode_frames({"original": a, "control": pd.DataFrame({"c": ["x"], "w": [1]})})
