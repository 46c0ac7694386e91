"""``synthleak vulnerable``: output formats, ranking agreement with eq. 5, bad input."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

import synthleak as sl
from synthleak.cli.main import main
from synthleak.data.encoding import minmax, minmax_missing, one_hot


def _brute_force_v5(t: sl.Table, k: int = 5) -> np.ndarray:
    """Eq. 5 as one float64 matrix, from the encoding module (independent of the kernel)."""
    h = one_hot(t).astype(np.float64)
    c = np.concatenate([minmax(t), minmax_missing(t)], axis=1).astype(np.float64)
    n_cat, n_cont = len(t.schema.categorical), len(t.schema.continuous)
    f = n_cat + n_cont
    cn = c / np.linalg.norm(c, axis=1, keepdims=True)
    d = 1.0 - n_cat / f * (h @ h.T) / n_cat - n_cont / f * (cn @ cn.T)
    np.fill_diagonal(d, np.inf)
    return np.sort(np.partition(d, k - 1, axis=1)[:, :k], axis=1).mean(axis=1)


@pytest.fixture(scope="module")
def adult_csv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """2,500 Adult records as a CSV file (a subsample: full Adult brute force is in benchmarks/)."""
    df = sl.datasets.load_adult()
    sub = df.sample(2500, random_state=11).reset_index(drop=True)
    path = tmp_path_factory.mktemp("vuln") / "adult_sub.csv"
    sub.to_csv(path, index=False)
    return path


def test_json_top10_ranks_the_records_eq5_ranks_highest(
    adult_csv: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["vulnerable", str(adult_csv), "--top", "10", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert set(doc) == {"method", "k", "metric", "n_records", "records"}
    assert (doc["method"], doc["k"], doc["metric"], doc["n_records"]) == (
        "distance",
        5,
        "cosine",
        2500,
    )
    assert [r["rank"] for r in doc["records"]] == list(range(1, 11))
    assert all(set(r) == {"rank", "row", "score"} for r in doc["records"])
    loaded = sl.load_data(adult_csv)
    ref = _brute_force_v5(loaded.table)
    expected = np.argsort(-ref, kind="stable")[:10]
    assert [r["row"] for r in doc["records"]] == expected.tolist()
    np.testing.assert_allclose([r["score"] for r in doc["records"]], ref[expected], atol=1e-6)


def test_csv_and_table_formats_and_out_file(
    adult_csv: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "top.csv"
    args = ["vulnerable", str(adult_csv), "--top", "4", "--method", "rare"]
    assert main([*args, "--format", "csv", "--out", str(out)]) == 0
    assert capsys.readouterr().out == ""
    df = pd.read_csv(out)
    assert list(df.columns[:3]) == ["rank", "row", "score"] and len(df) == 4
    assert "native-country" in df.columns
    src = pd.read_csv(adult_csv)
    assert df["age"].tolist() == src["age"].iloc[df["row"]].tolist()
    assert main([*args, "--format", "table"]) == 0
    text = capsys.readouterr().out
    assert "rare score" in text and str(df["row"].iloc[0]) in text


def test_minkowski_and_loglik_and_random(
    adult_csv: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = ["vulnerable", str(adult_csv), "--top", "3", "--format", "json"]
    assert main([*base, "--metric", "minkowski", "--p", "1", "--k", "2"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert (doc["metric"], doc["k"]) == ("minkowski", 2)
    t = sl.load_data(adult_csv).table
    v = sl.vulnerability_scores(t, k=2, metric="minkowski", p=1)
    assert [r["row"] for r in doc["records"]] == np.argsort(-v, kind="stable")[:3].tolist()
    assert main([*base, "--method", "loglik"]) == 0
    assert json.loads(capsys.readouterr().out)["method"] == "loglik"
    assert main([*base, "--method", "rarity"]) == 0
    doc = json.loads(capsys.readouterr().out)
    from synthleak.vulnerability import cell_rarity_scores

    rarity = cell_rarity_scores(t)
    assert doc["method"] == "rarity"
    assert [r["row"] for r in doc["records"]] == np.argsort(-rarity, kind="stable")[:3].tolist()
    runs = []
    for seed in ("1", "1", "2"):
        assert main([*base, "--method", "random", "--seed", seed]) == 0
        runs.append(json.loads(capsys.readouterr().out)["records"])
    assert all(r["score"] is None for r in runs[0])
    assert runs[0] == runs[1] and runs[0] != runs[2]


@pytest.mark.parametrize(
    ("content", "extra", "message"),
    [
        (None, [], "does not exist"),
        ("", [], "is empty"),
        ("a,b\n", [], "header but no rows"),
        ("a,b\n1,x\n", [], "at least 2 are needed"),
        ("a,b\n1,x\n2,y\n", ["--categorical", "zz"], "unknown column"),
        ("a,b\n1,x\n2,y\n", ["--continuous", "zz"], "unknown column"),
        ("a,b\n1,x\n2,y\n", ["--continuous", "b"], "non-numeric values"),
        ("a,b\n,\n,\n", [], "every column has only missing values"),
        ("a,a\n1,2\n3,4\n", [], "duplicate column names"),
        ("a,b\n1,x\n2,y\n3,z\n", ["--k", "3"], "--k 3 needs more than 3 records"),
        ("a,b\n1,x\n2,y\n3,z\n", ["--k", "0"], "--k must be at least 1"),
        ("a,b\n1,x\n2,y\n3,z\n", ["--k", "1", "--p", "0.5"], "--p must be at least 1"),
        ("a,b\n1,x\n2,y\n3,z\n", ["--k", "1", "--top", "0"], "--top must be at least 1"),
        ("a,b\n1,x\n2,y\n3,z\n", ["--metric", "hamming"], "Invalid value"),
        ("a,b\n1,x\n2,y\n3,z\n", ["--method", "outlier"], "Invalid value"),
    ],
)
def test_bad_input_exit_2_no_output(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    content: str | None,
    extra: list[str],
    message: str,
) -> None:
    data = tmp_path / "d.csv"
    if content is not None:
        data.write_text(content)
    out = tmp_path / "ranking.json"
    code = main(["vulnerable", str(data), *extra, "--format", "json", "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2, err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err
    assert not out.exists()
    assert list(tmp_path.iterdir()) == ([data] if content is not None else [])


def test_console_script(adult_csv: Path) -> None:
    exe = shutil.which("synthleak")
    cmd = [exe] if exe else [sys.executable, "-m", "synthleak.cli.main"]
    res = subprocess.run(
        [*cmd, "vulnerable", str(adult_csv), "--top", "2", "--format", "json"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert res.returncode == 0, res.stderr
    doc = json.loads(res.stdout)
    assert doc["n_records"] == 2500 and len(doc["records"]) == 2
    expected = sl.select_targets(sl.load_data(adult_csv).table, "distance", 2)
    assert [r["row"] for r in doc["records"]] == expected.tolist()


def test_special_values_are_read_with_the_data(
    adult_csv: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["vulnerable", str(adult_csv), "--top", "3", "--format", "json"]
    assert main([*args, "--special-values", "capital-gain=99999"]) == 0
    assert json.loads(capsys.readouterr().out)["n_records"] == 2500
    assert main([*args, "--special-values", "gain=99999"]) == 2
    assert "--special-values names unknown column(s) ['gain']" in capsys.readouterr().err


# --- --relational: persons ranked by root key ----------------------------------------------------
@pytest.fixture(scope="module")
def relational_folder(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A folder of tables (person, visit) where one person has an outlying history (forty
    visits of a huge amount), and the metadata describing them."""
    from tests.cli.test_audit_cmds import SDV_METADATA
    from tests.games.person_parts import parts

    d = tmp_path_factory.mktemp("relational")
    original, _, _ = parts(2, n_control=20)
    person, visit = original.frames["person"], original.frames["visit"]
    odd = int(person["pid"].iloc[7])
    extra = pd.DataFrame(
        {
            "vid": np.arange(40) + 10**6,
            "pid": odd,
            "amount": 10**5.0,
            "kind": visit["kind"].iloc[0],
        }
    )
    out: dict[str, Any] = {"meta": d / "metadata.json", "data": d / "original", "odd": odd}
    out["meta"].write_text(json.dumps(SDV_METADATA))
    out["data"].mkdir()
    person.to_csv(out["data"] / "person.csv", index=False)
    pd.concat([visit, extra[visit.columns]]).to_csv(out["data"] / "visit.csv", index=False)
    return out


def test_relational_input_ranks_persons_by_root_key(
    relational_folder: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    """vulnerable --relational ranks the person-level view of the folder's tables (encoded as
    the audit encodes it) and lists persons by root key, never by row: the outlying history
    ranks first, and the ranking is rank_records' on that view."""
    import io

    from synthleak.data.relational import RelationalSchema, load_relational, person_views
    from synthleak.data.release import encode_parts
    from synthleak.modes import TargetMethod
    from synthleak.vulnerability import rank_records

    odd = relational_folder["odd"]
    argv = ["vulnerable", str(relational_folder["data"]), "--relational"]
    argv += [str(relational_folder["meta"]), "--top", "5"]
    for method in ("distance", "rarity"):
        assert main([*argv, "--method", method, "--format", "json"]) == 0
        doc = json.loads(capsys.readouterr().out)
        assert doc["level"] == "persons" and doc["root"] == "person" and doc["key"] == "pid"
        assert doc["n_records"] == 80 and doc["records"][0]["pid"] == odd
        assert all(set(r) == {"rank", "pid", "score"} for r in doc["records"])
        sch = RelationalSchema.from_sdv(relational_folder["meta"])
        view = person_views({"o": load_relational(relational_folder["data"], sch)})["o"]
        table = encode_parts({"original": view}).tables["original"]
        expected = rank_records(table, TargetMethod(method), top=5)
        assert [r["pid"] for r in doc["records"]] == view.index[expected.rows].tolist()
        assert [r["score"] for r in doc["records"]] == pytest.approx(expected.scores)
    assert main([*argv, "--format", "csv"]) == 0
    csv = pd.read_csv(io.StringIO(capsys.readouterr().out))
    assert list(csv.columns[:4]) == ["rank", "pid", "score", "age"] and csv["pid"][0] == odd
    assert "visit.n_rows" in csv.columns and "row" not in csv.columns
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "most vulnerable persons of 80 (rows of table 'person' with their child rows" in text


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--categorical", "sex"], "--categorical, --continuous and --schema describe one table"),
        (["--root", "nope"], "--root 'nope' is not a table"),
    ],
)
def test_relational_input_bad_options_exit_2_in_one_line(
    relational_folder: dict[str, Any],
    capsys: pytest.CaptureFixture[str],
    extra: list[str],
    message: str,
) -> None:
    argv = ["vulnerable", str(relational_folder["data"]), "--relational"]
    assert main([*argv, str(relational_folder["meta"]), *extra]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and message in err, err
    person = str(relational_folder["data"] / "person.csv")
    assert main(["vulnerable", person, "--root", "person"]) == 2
    assert "--root names the table of persons of --relational" in capsys.readouterr().err
