from __future__ import annotations

import json
from pathlib import Path

import pytest

from synthleak import Schema
from synthleak.cli.main import main


def test_schema_prints_and_writes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema", "adult"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert len(doc["columns"]) == 15
    out = tmp_path / "s.json"
    assert main(["schema", "adult", "--categorical", "education-num", "--out", str(out)]) == 0
    assert Schema.from_json(out)["education-num"].is_categorical


def test_adult_complete_is_a_data_argument(capsys: pytest.CaptureFixture[str]) -> None:
    """The complete-case Adult has no missing code: workclass has 7 levels, not 8 + missing."""
    assert main(["schema", "adult-complete"]) == 0
    cols = {c["name"]: c for c in json.loads(capsys.readouterr().out)["columns"]}
    assert len(cols) == 15
    assert len(cols["workclass"]["categories"]) == 7


@pytest.mark.parametrize(
    ("content", "extra", "message"),
    [
        ("", [], "is empty"),
        ("a,b\n", [], "header but no rows"),
        ("a,b\n1,x\n", ["--categorical", "zz"], "unknown column"),
        ("a,b\n1,x\n", ["--continuous", "b"], "non-numeric values"),
        ("a,b\n,\n,\n", [], "every column has only missing values"),
        ("a,a\n1,2\n", [], "duplicate column names"),
    ],
)
def test_bad_input_exit_2_no_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, extra: list[str], message: str
) -> None:
    data = tmp_path / "d.csv"
    data.write_text(content)
    out = tmp_path / "schema.json"
    assert main(["schema", str(data), *extra, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
    assert not out.exists()


def test_an_empty_column_is_left_out_with_a_note(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "d.csv"
    data.write_text("a,b\n1,\n2,\n3,\n")
    out = tmp_path / "schema.json"
    assert main(["schema", str(data), "--out", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert [c["name"] for c in doc["columns"]] == ["a"] and doc["excluded"] == ["b"]
    assert "'b' has only missing values" in capsys.readouterr().err


def test_schema_with_special_values(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import json

    data = tmp_path / "d.csv"
    data.write_text(
        "age,sex\n"
        + "".join(f"{a},{'FM'[a % 2]}\n" for a in [*range(20, 60), *range(59, 19, -1), -8, -8])
    )
    assert main(["schema", str(data), "--special-values", "age=-8"]) == 0
    cols = {c["name"]: c for c in json.loads(capsys.readouterr().out)["columns"]}
    assert cols["age"]["low"] == 20.0 and cols["age (special)"]["categories"] == ["-8"]
    assert main(["schema", str(data), "--special-values", "ag=-8"]) == 2
    assert "--special-values names unknown column(s) ['ag']" in capsys.readouterr().err
