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


# --- schema --relational -------------------------------------------------------------------------
def test_relational_schema_prints_and_writes_every_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """schema --relational: the roots and, per table, its keys, links, rows and the schema of
    its other columns as schema infers one table's (the metadata's categorical kept)."""
    import pandas as pd
    from tests.cli.relational_folders import replay_folders

    dirs = replay_folders(tmp_path, 3, 20)
    argv = ["schema", "--relational", str(dirs["meta"]), str(dirs["original"])]
    assert main(argv) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["roots"] == ["person"] and list(doc["tables"]) == ["person", "visit"]
    person, visit = doc["tables"]["person"], doc["tables"]["visit"]
    assert person["primary_key"] == "pid" and person["foreign_keys"] == []
    assert visit["primary_key"] == "vid"
    assert visit["foreign_keys"] == [{"column": "pid", "parent": "person", "parent_key": "pid"}]
    for t in ("person", "visit"):
        assert doc["tables"][t]["n_rows"] == len(pd.read_csv(dirs["original"] / f"{t}.csv"))
    cols = Schema.from_dict(visit["schema"])  # each table's schema is one --schema file
    assert list(cols.names) == ["amount", "kind"] and cols["kind"].is_categorical
    assert not cols["amount"].is_categorical
    assert "pid" not in Schema.from_dict(person["schema"]).names  # keys are listed as keys
    out = tmp_path / "rel.json"
    assert main([*argv, "--out", str(out)]) == 0
    assert json.loads(out.read_text()) == doc


def _cycle(meta: dict) -> dict:
    meta["relationships"].append(
        {
            "parent_table_name": "visit",
            "parent_primary_key": "vid",
            "child_table_name": "person",
            "child_foreign_key": "vid",
        }
    )
    return meta


@pytest.mark.parametrize(
    ("broken", "message"),
    [
        ("missing table", "table(s) ['visit'] named in the metadata are missing"),
        ("orphaned", "foreign key visit.pid has 1 orphaned row(s)"),
        ("repeated key", "primary key person.pid is not unique"),
        ("cycle", "the foreign keys form a cycle"),
        ("--categorical", "--categorical, --continuous and --schema describe one table"),
    ],
)
def test_relational_schema_bad_input_exit_2_nothing_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], broken: str, message: str
) -> None:
    import pandas as pd
    from tests.cli.relational_folders import replay_folders

    dirs = replay_folders(tmp_path, 3, 20)
    data, extra = dirs["original"], []
    person, visit = data / "person.csv", data / "visit.csv"
    if broken == "missing table":
        visit.unlink()
    elif broken == "orphaned":
        v = pd.read_csv(visit)
        stray = v.iloc[[0]].assign(vid=10**8, pid=10**8)
        pd.concat([v, stray]).to_csv(visit, index=False)
    elif broken == "repeated key":
        p = pd.read_csv(person)
        pd.concat([p, p.iloc[[3]]]).to_csv(person, index=False)
    elif broken == "cycle":
        dirs["meta"].write_text(json.dumps(_cycle(json.loads(dirs["meta"].read_text()))))
    else:
        extra = ["--categorical", "kind"]
    out = tmp_path / "rel.json"
    argv = ["schema", "--relational", str(dirs["meta"]), str(data), "--out", str(out), *extra]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and message in err, err
    assert not out.exists()


def test_relational_schema_keeps_metadata_kinds_and_key_only_tables(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A numeric column the metadata calls categorical is categorical; a table of keys only
    has no column schema (null); --special-values must name a column of some table."""
    meta = {
        "tables": {
            "hh": {"primary_key": "h", "columns": {"h": {"sdtype": "id"}, "size": {}}},
            "member": {
                "primary_key": "m",
                "columns": {
                    "m": {"sdtype": "id"},
                    "h": {"sdtype": "id"},
                    "code": {"sdtype": "categorical"},
                },
            },
            "link": {"primary_key": "l", "columns": {"l": {"sdtype": "id"}, "m": {"sdtype": "id"}}},
        },
        "relationships": [
            {
                "parent_table_name": "hh",
                "parent_primary_key": "h",
                "child_table_name": "member",
                "child_foreign_key": "h",
            },
            {
                "parent_table_name": "member",
                "parent_primary_key": "m",
                "child_table_name": "link",
                "child_foreign_key": "m",
            },
        ],
    }
    (tmp_path / "meta.json").write_text(json.dumps(meta))
    d = tmp_path / "data"
    d.mkdir()
    (d / "hh.csv").write_text("h,size\n" + "".join(f"{i},{i * 1.7 + 0.3:.2f}\n" for i in range(12)))
    (d / "member.csv").write_text(
        "m,h,code\n" + "".join(f"{i},{i % 12},{i * 13}\n" for i in range(30))
    )
    (d / "link.csv").write_text("l,m\n" + "".join(f"{i},{i % 30}\n" for i in range(5)))
    argv = ["schema", "--relational", str(tmp_path / "meta.json"), str(d)]
    assert main(argv) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["roots"] == ["hh"]
    assert Schema.from_dict(doc["tables"]["member"]["schema"])["code"].is_categorical
    assert not Schema.from_dict(doc["tables"]["hh"]["schema"])["size"].is_categorical
    link = doc["tables"]["link"]
    assert link["schema"] is None and link["n_rows"] == 5
    assert link["foreign_keys"] == [{"column": "m", "parent": "member", "parent_key": "m"}]
    assert main([*argv, "--special-values", "size=-8"]) == 0
    assert main([*argv, "--special-values", "age=-8"]) == 2
    err = capsys.readouterr().err
    assert "--special-values names unknown column(s) ['age']" in err
