"""``synthleak riskmap``: JSON and CSV contract, run directory and resume, bad input (exit 2, no file)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from synthleak.cli.main import main


@pytest.fixture(scope="module")
def data_csv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    rng = np.random.default_rng(0)
    n = 60
    df = pd.DataFrame(
        {
            "a": rng.choice(["p", "q", "r"], n),
            "b": rng.choice(["u", "v"], n),
            "x": rng.normal(40, 5, n).round(0),
        }
    )
    path = tmp_path_factory.mktemp("riskmap") / "d.csv"
    df.to_csv(path, index=False)
    return path


BASE = [
    "--generator",
    "nonprivate",
    "--train-size",
    "20",
    "--synthetic-size",
    "40",
    "--shadows",
    "12",
    "--tests",
    "12",
    "--n-queries",
    "5",
    "--n-trees",
    "5",
    "--n-boot",
    "50",
    "--seed",
    "3",
]


def test_json_and_csv_contract_with_run_dir(
    data_csv: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out, run = tmp_path / "map.json", tmp_path / "run"
    code = main(["riskmap", str(data_csv), *BASE, "--out", str(out), "--run-dir", str(run)])
    assert code == 0, capsys.readouterr().err
    doc = json.loads(out.read_text())
    assert doc["config"]["train_size"] == 20 and doc["config"]["attacks"] == ["query", "distance"]
    rows = doc["rows"]
    assert len(rows) == 20 and len(set(rows)) == 20 and all(0 <= r < 60 for r in rows)
    assert set(doc["auc"]) == {"query", "distance"} and len(doc["auc"]["query"]) == 20
    assert set(doc["scores"]) == {"vulnerability", "rare_value", "log_likelihood"}
    for s in ("vulnerability", "rare_value", "log_likelihood"):
        assert set(doc["validation"]["selectors"][s]) == {
            "spearman",
            "spearman_ci",
            "precision_at_k",
        }
    assert json.loads((run / "result.json").read_text())["auc"] == doc["auc"]
    # CSV from the same run directory: resumed, same numbers
    csv = tmp_path / "map.csv"
    assert main(["riskmap", str(data_csv), *BASE, "--out", str(csv), "--run-dir", str(run)]) == 0
    frame = pd.read_csv(csv)
    assert frame["row"].tolist() == rows
    for r in frame.itertuples():
        if not np.isnan(r.auc_ci_low):
            assert r.auc_ci_low <= r.auc <= r.auc_ci_high
            assert r.auc == np.nanmax([r.auc_query, r.auc_distance])
    got = frame["auc_distance"].to_numpy()
    want = np.array([np.nan if v[0] is None else v[0] for v in doc["auc"]["distance"]])
    np.testing.assert_allclose(got, want, equal_nan=True)
    np.testing.assert_allclose(frame["vulnerability"], doc["scores"]["vulnerability"])


@pytest.mark.parametrize(
    ("extra", "msg"),
    [
        (["--train-size", "100"], "--train-size 100 is larger than the data"),
        (["--population", "10"], "smaller than --train-size"),
        (["--attacks", "query,nope"], "unknown membership attack"),
        (["--generator", "no-such-generator"], "generator"),
    ],
)
def test_bad_input_exit_2_and_no_file(
    data_csv: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], msg: str
) -> None:
    out = tmp_path / "map.json"
    code = main(["riskmap", str(data_csv), *BASE, *extra, "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2, err
    assert msg in err and len(err.strip().splitlines()) == 1
    assert not out.exists() and not list(tmp_path.iterdir())


def test_bad_out_suffix(data_csv: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "map.txt"
    assert main(["riskmap", str(data_csv), *BASE, "--out", str(out)]) == 2
    assert ".json or .csv" in capsys.readouterr().err
    assert not out.exists()
