"""``synthleak generate`` and ``synthleak generators``."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from synthleak import Schema, Table, infer_schema
from synthleak.cli.main import main
from synthleak.generators import list_generators


@pytest.fixture
def data_csv(tmp_path: Path) -> Path:
    rng = np.random.default_rng(0)
    n = 80
    df = pd.DataFrame(
        {
            "colour": rng.choice(["red", "green", "blue"], n),
            "flag": rng.integers(0, 2, n),
            "height": rng.normal(170, 10, n).round(1),
        }
    )
    df.loc[:5, "height"] = np.nan
    path = tmp_path / "data.csv"
    df.to_csv(path, index=False)
    return path


def test_generate_csv_is_seeded_and_keeps_schema(tmp_path: Path, data_csv: Path) -> None:
    out1, out2 = tmp_path / "a.csv", tmp_path / "b.csv"
    args = [
        "generate",
        str(data_csv),
        "--generator",
        "indhist:bins=5",
        "--synthetic-size",
        "50",
        "--seed",
        "3",
    ]
    assert main([*args, "--out", str(out1)]) == 0
    assert main([*args, "--out", str(out2)]) == 0
    assert out1.read_bytes() == out2.read_bytes()
    df = pd.read_csv(out1)
    assert list(df.columns) == ["colour", "flag", "height"] and len(df) == 50
    assert set(df["colour"]) <= {"red", "green", "blue"}
    schema = infer_schema(pd.read_csv(data_csv))
    Table.from_frame(df, schema)  # encodes with the training schema
    h = df["height"].dropna()
    assert h.between(schema["height"].low, schema["height"].high).all()
    other = tmp_path / "c.csv"
    assert main([*args[:-1], "4", "--out", str(other)]) == 0
    assert other.read_bytes() != out1.read_bytes()


def test_generate_parquet_with_train_size_and_schema(tmp_path: Path, data_csv: Path) -> None:
    schema_file = tmp_path / "schema.json"
    assert main(["schema", str(data_csv), "--categorical", "flag", "--out", str(schema_file)]) == 0
    out = tmp_path / "syn.parquet"
    code = main(
        [
            "generate",
            str(data_csv),
            "--generator",
            "nonprivate",
            "--synthetic-size",
            "30",
            "--train-size",
            "10",
            "--schema",
            str(schema_file),
            "--out",
            str(out),
        ]
    )
    assert code == 0
    df = pd.read_parquet(out)
    assert len(df) == 30
    # nonprivate resamples the 10 training records: at most 10 distinct rows
    assert len(df.drop_duplicates()) <= 10
    Table.from_frame(df, Schema.from_json(schema_file))


def test_generate_n_zero(tmp_path: Path, data_csv: Path) -> None:
    out = tmp_path / "empty.csv"
    assert (
        main(
            ["generate", str(data_csv), "-g", "indhist", "--synthetic-size", "0", "--out", str(out)]
        )
        == 0
    )
    assert out.read_text().strip() == "colour,flag,height"


def test_generate_external_command(tmp_path: Path, data_csv: Path) -> None:
    prog = tmp_path / "copy.py"
    prog.write_text(
        "import sys, csv\n"
        "rows = list(csv.reader(open(sys.argv[1])))\n"
        "n = int(sys.argv[3])\n"
        "csv.writer(open(sys.argv[2], 'w', newline='')).writerows([rows[0]] + rows[1:n + 1])\n"
    )
    spec = (
        f'command:"{shlex.quote(sys.executable)} {shlex.quote(str(prog))} '
        '{input} {output} {n}"'
    )
    out = tmp_path / "ext.csv"
    assert (
        main(["generate", str(data_csv), "-g", spec, "--synthetic-size", "20", "--out", str(out)])
        == 0
    )
    assert len(pd.read_csv(out)) == 20


@pytest.mark.parametrize(
    ("argv_tail", "message"),
    [
        (["-g", "nosuch", "--synthetic-size", "5"], "unknown generator 'nosuch'"),
        (["-g", "indhist:bins=x", "--synthetic-size", "5"], "not a valid int"),
        (["-g", "indhist", "--synthetic-size", "-1"], "--synthetic-size must be >= 0"),
        (
            ["-g", "indhist", "--synthetic-size", "5", "--train-size", "0"],
            "--train-size must be >= 1",
        ),
        (
            ["-g", "indhist", "--synthetic-size", "5", "--train-size", "1000"],
            "larger than the data",
        ),
        (
            ["-g", 'command:"false {input} {output}"', "--synthetic-size", "5"],
            "failed with exit code 1",
        ),
    ],
)
def test_generate_bad_input_exit_2_nothing_written(
    tmp_path: Path,
    data_csv: Path,
    capsys: pytest.CaptureFixture[str],
    argv_tail: list[str],
    message: str,
) -> None:
    out = tmp_path / "out.csv"
    assert main(["generate", str(data_csv), *argv_tail, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
    assert not out.exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".out.csv")]  # no temp file left


def test_generate_bad_out_paths(
    tmp_path: Path, data_csv: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = ["generate", str(data_csv), "-g", "indhist", "--synthetic-size", "5", "--out"]
    assert main([*base, str(tmp_path / "x.txt")]) == 2
    assert "must end in .csv or .parquet" in capsys.readouterr().err
    assert main([*base, str(tmp_path / "nofolder" / "x.csv")]) == 2
    assert "does not exist" in capsys.readouterr().err
    (tmp_path / "d.csv").mkdir()
    assert main([*base, str(tmp_path / "d.csv")]) == 2
    assert "is a directory" in capsys.readouterr().err


def test_generate_missing_required_options(
    data_csv: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["generate", str(data_csv), "--synthetic-size", "5", "--out", "x.csv"]) == 2
    assert "--generator" in capsys.readouterr().err


def test_generators_json_lists_the_registry(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["generators", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    names = [g["name"] for g in doc]
    assert names == [i.name for i in list_generators()]
    by = {g["name"]: g for g in doc}
    assert by["indhist"]["params"] == [
        {"name": "bins", "type": "int", "default": 20, "doc": "uniform bins per continuous column"}
    ]
    assert by["nonprivate"]["differentially_private"] is False and by["nonprivate"]["extra"] is None
    assert by["mst"]["differentially_private"] is True and by["mst"]["extra"] == "mbi"
    assert by["ctgan"]["extra"] == "ctgan" and isinstance(by["ctgan"]["installed"], bool)
    assert {p["name"] for p in by["command"]["params"]} == {
        "cmd",
        "timeout",
        "claimed_epsilon",
        "claimed_delta",
    }
    assert by["sdv:ctgan"]["extra"] == "sdv" and by["realtabformer"]["extra"] == "realtabformer"
    assert by["mutant-privbayes"]["differentially_private"] is True
    # an enum parameter is a string with its choices
    assert by["synthpop"]["params"][-1] == {
        "name": "predictors",
        "type": "str",
        "default": "ordinal",
        "choices": ["ordinal", "onehot"],
        "doc": "categorical predictors: ordinal codes or onehot",
    }


def test_generators_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["generators"]) == 0
    text = capsys.readouterr().out
    for info in list_generators():
        assert info.name in text
    assert "epsilon: float = 1.0" in text
    assert "predictors: str = 'ordinal' (ordinal|onehot)" in text
    assert main(["generators", "--format", "xml"]) == 2


def _check_adult_output(path: Path, n: int) -> None:
    """The file has Adult's columns, only Adult's categories, and encodes with Adult's schema."""
    from synthleak.datasets import load_adult

    adult = load_adult()
    df = pd.read_csv(path, keep_default_na=False, na_values=[""])
    assert list(df.columns) == list(adult.columns) and len(df) == n
    for col in ("workclass", "education", "sex", "income", "native-country"):
        assert set(df[col].dropna()) <= set(adult[col].dropna()), col
    Table.from_frame(df, infer_schema(adult))


@pytest.mark.parametrize(
    "spec",
    [
        "sdv:gaussiancopula",
        "sdv:ctgan:epochs=2",
        "sdv:tvae:epochs=2",
        "realtabformer:epochs=1,n_critic=0,n_layer=1,n_embd=16,n_head=2,threads=1",
    ],
)
def test_generate_adult_with_third_party_generators(
    tmp_path: Path, spec: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip(spec.split(":")[0])
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    out = tmp_path / "syn.csv"
    argv = ["generate", "adult", "--generator", spec, "--train-size", "300"]
    assert main([*argv, "--synthetic-size", "60", "--out", str(out)]) == 0
    _check_adult_output(out, 60)


def test_generate_synthetic_size_is_n(tmp_path: Path, data_csv: Path) -> None:
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    base = ["generate", str(data_csv), "-g", "indhist", "--seed", "1"]
    assert main([*base, "--synthetic-size", "9", "--out", str(a)]) == 0
    assert main([*base, "--synthetic-size", "9", "--out", str(b)]) == 0
    assert a.read_bytes() == b.read_bytes()


def test_generate_positive_controls(tmp_path: Path, data_csv: Path) -> None:
    out = tmp_path / "leak.csv"
    argv = ["generate", str(data_csv), "-g", "leaky:fraction=1,base=indhist:bins=3"]
    assert main([*argv, "--synthetic-size", "20", "--out", str(out)]) == 0
    train = pd.read_csv(data_csv)
    schema = infer_schema(train)
    released = Table.from_frame(pd.read_csv(out), schema)
    assert np.isin(released.row_keys(), Table.from_frame(train, schema).row_keys()).all()


def test_unwritable_out_is_exit_2_before_generating(capsys) -> None:
    from synthleak.cli.main import main

    args = ["generate", "adult", "--generator", "indhist", "--synthetic-size", "10"]
    code = main([*args, "--out", "/proc/x.csv"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "cannot write into /proc for --out" in err


def test_a_dp_generator_given_an_inferred_domain_is_noted(
    tmp_path: Path, data_csv: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A DP generator fit without --schema takes its domain from the private data, outside its
    claim: a category one record holds reaches the release, and the command says so."""
    df = pd.read_csv(data_csv)
    df.loc[0, "colour"] = "purple"  # held by one record only
    df.to_csv(data_csv, index=False)
    out = tmp_path / "syn.csv"
    args = ["generate", str(data_csv), "-g", "privbayes:epsilon=1", "--synthetic-size", "2000"]
    assert main([*args, "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert "claims epsilon = 1, but the domain it was given" in err and "--schema" in err
    assert "shadow-model game" not in err  # no game here
    assert (pd.read_csv(out)["colour"] == "purple").any()  # the one record's value, released
    schema_file = tmp_path / "schema.json"
    assert main(["schema", str(data_csv), "--out", str(schema_file)]) == 0
    capsys.readouterr()
    assert main([*args, "--schema", str(schema_file), "--out", str(out)]) == 0
    assert "the domain it was given" not in capsys.readouterr().err  # a schema was given
    assert (
        main(
            ["generate", str(data_csv), "-g", "baynet", "--synthetic-size", "10", "--out", str(out)]
        )
        == 0
    )
    assert "the domain it was given" not in capsys.readouterr().err  # no DP claim


def test_generate_keeps_declared_special_codes(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    n = 400
    age = rng.integers(17, 90, n)
    age[rng.random(n) < 0.2] = -8  # "not applicable"
    df = pd.DataFrame({"age": age, "hours": rng.normal(40, 5, n).round(1)})
    df["sex"] = rng.choice(["F", "M"], n)
    data = tmp_path / "d.csv"
    df.to_csv(data, index=False)

    def invented(*extra: str) -> set[float]:
        out = tmp_path / "s.csv"
        args = ["generate", str(data), "-g", "baynet:k=2", "--synthetic-size", "400"]
        assert main([*args, "--out", str(out), *extra]) == 0
        release = pd.read_csv(out)
        assert list(release.columns) == ["age", "hours", "sex"]
        ages = release["age"].dropna()
        return set(ages[ages < 17].tolist()) - {-8}

    assert invented()  # as a number, -8 turns into ages no one has
    assert invented("--special-values", "age=-8") == set()


# --- --relational: a relational release written as a folder of tables --------------------------
@pytest.fixture
def relational(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """The folders of tests/cli/relational_folders.py and the python: spec of the resampling
    relational generator of tests/generators/test_relational.py (seeded by its rng)."""
    from tests.cli.relational_folders import replay_folders
    from tests.generators.test_relational import USER_MODULE

    name = f"cli_relgens_{tmp_path.name.replace('-', '_')}"
    (tmp_path / f"{name}.py").write_text(USER_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    folders: dict[str, Any] = replay_folders(tmp_path, seed=5, n_control=10)
    folders["spec"] = f"python:{name}:Resampler"
    return folders


def _relational_argv(rel: dict[str, Any], out: Path, *extra: str) -> list[str]:
    return [
        "generate",
        str(rel["original"]),
        "--relational",
        str(rel["meta"]),
        "-g",
        rel["spec"],
        "--out",
        str(out),
        *extra,
    ]


def test_generate_relational_writes_a_folder_that_reads_back(
    tmp_path: Path, relational: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    """N persons (default as many as DATA's) with their child rows, one CSV per table and the
    metadata, read back by load_relational; same seed, same release; another seed another."""
    from synthleak.data.relational import load_relational

    a, b, c, d = (tmp_path / x for x in ("a", "b", "c", "d"))
    assert main(_relational_argv(relational, a, "--seed", "7")) == 0
    assert "wrote 40 persons" in capsys.readouterr().err
    assert sorted(p.name for p in a.iterdir()) == ["metadata.json", "person.csv", "visit.csv"]
    back = load_relational(a, a / "metadata.json")
    assert len(back.frames["person"]) == 40 and len(back.frames["visit"]) > 40
    assert main(_relational_argv(relational, b, "--seed", "7")) == 0
    assert main(_relational_argv(relational, c, "--seed", "8")) == 0
    for t in ("person.csv", "visit.csv"):
        assert (a / t).read_bytes() == (b / t).read_bytes()
    assert (a / "visit.csv").read_bytes() != (c / "visit.csv").read_bytes()
    argv = _relational_argv(relational, d, "--synthetic-size", "12", "--train-size", "20")
    assert main([*argv, "--root", "person"]) == 0
    assert len(pd.read_csv(d / "person.csv")) == 12
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


KEYS = "person(pid) visit(vid, pid->person)"


def test_generate_relational_takes_the_keys_on_the_command_line(
    tmp_path: Path, relational: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    """--relational with the tables' keys instead of a metadata file: the same release, and
    SDV metadata of those keys written beside it, which reads back."""
    from synthleak.data.relational import load_relational

    a, b = tmp_path / "a", tmp_path / "b"
    assert main(_relational_argv(relational, a, "--seed", "7")) == 0
    argv = _relational_argv(relational, b, "--seed", "7")
    argv[argv.index("--relational") + 1] = KEYS
    assert main(argv) == 0
    for t in ("person.csv", "visit.csv"):
        assert (a / t).read_bytes() == (b / t).read_bytes()
    back = load_relational(b, b / "metadata.json")
    assert back.schema.primary_keys == {"person": "pid", "visit": "vid"}
    assert [(k.child, k.column, k.parent) for k in back.schema.foreign_keys] == [
        ("visit", "pid", "person")
    ]
    capsys.readouterr()
    for bad, message in (
        (str(tmp_path / "nosuch.json"), "nosuch.json"),
        ("nosuch", "no such metadata file"),
        ("person(pid) visit(vid, pid)", "is not COLUMN->PARENT"),
    ):
        argv = _relational_argv(relational, tmp_path / "c", "--seed", "7")
        argv[argv.index("--relational") + 1] = bad
        assert main(argv) == 2
        err = capsys.readouterr().err.strip()
        assert message in err and len(err.splitlines()) == 1, err
        assert not (tmp_path / "c").exists()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ("missing", "table(s) ['visit'] named in the metadata are missing"),
        ("orphan", "foreign key visit.pid has 1 orphaned row(s)"),
        ("single", "unknown relational generator 'indhist'"),
        ("categorical", "--special-values describe one table"),
        ("root", "--root 'visit' is a child table"),
        ("exists", "exists: with --relational give a new folder"),
        ("failing", "failed: "),
    ],
)
def test_generate_relational_bad_input_exit_2_nothing_written(
    tmp_path: Path,
    relational: dict[str, Any],
    capsys: pytest.CaptureFixture[str],
    change: str,
    message: str,
) -> None:
    out = tmp_path / "release"
    argv = _relational_argv(relational, out)
    from tests.cli.relational_folders import break_folder

    if change in ("missing", "orphan"):
        break_folder(relational["original"], change)
    elif change == "single":
        argv[argv.index("-g") + 1] = "indhist"
    elif change == "categorical":
        argv += ["--categorical", "kind"]
    elif change == "root":
        argv += ["--root", "visit"]
    elif change == "exists":
        out.mkdir()
    else:  # the generator releases orphaned child rows: a failed run
        argv[argv.index("-g") + 1] += ",orphan=true"
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1, err
    assert out.exists() == (change == "exists")
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".release")]


def test_generate_relational_spec_without_relational_is_refused(
    tmp_path: Path, data_csv: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "x.csv"
    argv = ["generate", str(data_csv), "-g", "sdv:hma", "--synthetic-size", "5", "--out", str(out)]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "--generator 'sdv:hma' is a relational generator: give --relational" in err
    assert err.count("\n") == 1 and not out.exists()
    assert main([*argv[:4], "--out", str(out)]) == 2
    assert "--synthetic-size is missing" in capsys.readouterr().err
    assert main([*argv, "--root", "person"]) == 2
    assert "--root names the table of persons of --relational" in capsys.readouterr().err


def test_generate_relational_interrupted_while_writing_leaves_nothing(
    tmp_path: Path,
    relational: dict[str, Any],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Ctrl-C after the first table is written: exit 130, no folder, no temporary folder."""
    import shutil

    def interrupt(*args: Any, **kwargs: Any) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(shutil, "copyfile", interrupt)
    out = tmp_path / "release"
    assert main(_relational_argv(relational, out)) == 130
    capsys.readouterr()
    assert not out.exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".release")]
