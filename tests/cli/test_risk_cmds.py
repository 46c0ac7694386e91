"""``synthleak singling-out`` and ``synthleak linkability`` end to end on small CSV files."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from synthleak.cli.main import main

KEYS = {
    "mode",
    "risk",
    "ci",
    "attack_rate",
    "control_rate",
    "baseline_rate",
    "n_attacks",
    "n_success",
}


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory, adult_df: pd.DataFrame) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("risk")
    idx = np.random.default_rng(0).permutation(len(adult_df))
    ori = adult_df.iloc[idx[:800]]
    ctl = adult_df.iloc[idx[800:1600]]
    out = {"ori": d / "ori.csv", "syn": d / "syn.csv", "ctl": d / "ctl.csv", "bad": d / "bad.csv"}
    ori.to_csv(out["ori"], index=False)
    ori.to_csv(out["syn"], index=False)  # synthetic = original: the oracle of maximal risk
    ctl.to_csv(out["ctl"], index=False)
    ori.drop(columns=["income"]).assign(extra=1).to_csv(out["bad"], index=False)
    return out


def _args(files: dict[str, Path], syn: str = "syn") -> list[str]:
    return [
        "--original",
        str(files["ori"]),
        "--synthetic",
        str(files[syn]),
        "--control",
        str(files["ctl"]),
    ]


@pytest.mark.parametrize("mode", ["univariate", "multivariate"])
def test_singling_out_json(files: dict[str, Path], tmp_path: Path, mode: str) -> None:
    out = tmp_path / "r.json"
    code = main(
        [
            "singling-out",
            *_args(files),
            "--mode",
            mode,
            "--attacks",
            "100",
            "--seed",
            "1",
            "--format",
            "json",
            "--out",
            str(out),
        ]
    )
    assert code == 0
    res = json.loads(out.read_text())
    assert set(res) == KEYS
    assert res["mode"] == mode
    assert res["n_attacks"] == 100
    assert res["ci"][0] <= res["risk"] <= res["ci"][1]
    assert res["risk"] > 0.5 and res["attack_rate"] > 0.9


def test_singling_out_table_and_seed(
    files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["singling-out", *_args(files), "--attacks", "50", "--seed", "3"]) == 0
    first = capsys.readouterr().out
    assert "multivariate risk:" in first and "baseline rate" in first
    assert main(["singling-out", *_args(files), "--attacks", "50", "--seed", "3"]) == 0
    assert capsys.readouterr().out == first


def test_linkability_json(files: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        [
            "linkability",
            *_args(files),
            "--aux-a",
            "age,workclass,fnlwgt",
            "--aux-b",
            "fnlwgt,education,race",
            "--neighbors",
            "1",
            "--attacks",
            "100",
            "--format",
            "json",
        ]
    )
    assert code == 0
    res = json.loads(capsys.readouterr().out)
    assert set(res) == KEYS
    assert res["mode"] == "linkability"
    assert res["attack_rate"] > 0.8


def test_mismatched_columns_exit_2(
    files: dict[str, Path], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out = tmp_path / "never.json"
    code = main(["singling-out", *_args(files, "bad"), "--out", str(out)])
    assert code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert (
        "the synthetic data: missing column(s) ['income']" in err
        and "the synthetic data: unexpected column(s) ['extra']" in err
    )
    assert not out.exists()


def test_bad_options_exit_2(files: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["linkability", *_args(files), "--aux-a", "age,nope", "--aux-b", "race"]) == 2
    assert "nope" in capsys.readouterr().err
    assert main(["singling-out", *_args(files), "--mode", "bogus"]) == 2
    assert main(["singling-out", *_args(files), "--attacks", "0"]) == 2
