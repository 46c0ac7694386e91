"""``synthleak aia`` and ``synthleak utility``."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from synthleak.cli.main import main


@pytest.fixture(scope="module")
def data_csv(tmp_path_factory: pytest.TempPathFactory) -> str:
    rng = np.random.default_rng(0)
    n = 1500
    q = rng.integers(0, 5, size=(n, 5))
    df = pd.DataFrame(q, columns=[f"q{j}" for j in range(5)]).astype(str)
    df["s"] = np.where((q[:, 0] + q[:, 1]) % 2 == 0, "a", "b")
    df.loc[::7, "q4"] = "N"
    path = tmp_path_factory.mktemp("aia") / "pop.csv"
    df.to_csv(path, index=False)
    return str(path)


def test_aia_json_sweep_and_run_dir(
    data_csv: str, tmp_path, capsys: pytest.CaptureFixture[str]
) -> None:  # type: ignore[no-untyped-def]
    run = tmp_path / "run"
    code = main(
        [
            "aia",
            data_csv,
            "--secret",
            "s",
            "--generator",
            "nonprivate",
            "--n",
            "120",
            "--m",
            "100,5000",
            "--games",
            "2",
            "--targets-per-game",
            "4",
            "--attacks",
            "recon,dcr",
            "--seed",
            "3",
            "--format",
            "json",
            "--run-dir",
            str(run),
            "--na-values",
            "N",
        ]
    )
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    assert [e["m"] for e in out["results"]] == [100, 5000]
    rec = out["results"][1]["attacks"]["recon"]
    assert set(rec) >= {"accuracy", "accuracy_ci", "auc"}
    assert 0.0 <= rec["accuracy"] <= 1.0 and len(rec["accuracy_ci"]) == 2
    assert set(out["results"][0]["utility"]) == {"mre_gt10", "tvd3"}
    assert out["config"]["quasi_ids"] == ["q0", "q1", "q2", "q3", "q4"]
    stored = json.loads((run / "result.json").read_text())
    assert stored["results"][0]["m"] == 100
    # the report is rebuilt from the run directory: one finding per attack and m
    capsys.readouterr()
    assert main(["report", str(run), "--out", str(tmp_path / "rep")]) == 0
    rep = json.loads((tmp_path / "rep" / "report.json").read_text())
    assert {f["key"] for f in rep["findings"]} == {
        "attribute.recon.m100",
        "attribute.dcr.m100",
        "attribute.recon.m5000",
        "attribute.dcr.m5000",
    }
    assert [p["label"] for p in rep["privacy_utility"]] == ["m=100", "m=5000"]
    assert "privacy_utility.png" in {p.name for p in (tmp_path / "rep" / "figures").iterdir()}


def test_aia_table_and_out_file(data_csv: str, tmp_path) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "res.txt"
    code = main(
        [
            "aia",
            data_csv,
            "--secret",
            "s",
            "--quasi-ids",
            "q0,q1,q2",
            "--generator",
            "indhist",
            "--n",
            "100",
            "--m",
            "500",
            "--games",
            "1",
            "--attacks",
            "dcr",
            "--out",
            str(out),
        ]
    )
    assert code == 0
    text = out.read_text()
    assert "dcr acc" in text and "Acc_max" in text


@pytest.mark.parametrize(
    "args",
    [
        ["--secret", "nope", "--generator", "nonprivate"],
        ["--secret", "s", "--generator", "nonprivate", "--m", "ten"],
        ["--secret", "s", "--generator", "nonprivate", "--attacks", "magic"],
        ["--secret", "s", "--generator", "nonprivate", "--queries", "weird"],
        ["--secret", "s", "--generator", "nonprivate", "--quasi-ids", "q0,zz"],
    ],
)
def test_aia_bad_input_exit_2(
    data_csv: str, args: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["aia", data_csv, "--n", "50", "--m", "100", "--games", "1", *args]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("synthleak: error:") or "Error" in err or "Invalid" in err


def test_utility_json(data_csv: str, tmp_path, capsys: pytest.CaptureFixture[str]) -> None:  # type: ignore[no-untyped-def]
    df = pd.read_csv(data_csv, dtype=str, keep_default_na=False)
    rng = np.random.default_rng(1)
    syn = df.apply(lambda c: rng.permutation(c.to_numpy()))
    syn_path = tmp_path / "syn.csv"
    syn.to_csv(syn_path, index=False)
    assert (
        main(["utility", "--original", data_csv, "--synthetic", data_csv, "--format", "json"]) == 0
    )
    same = json.loads(capsys.readouterr().out)
    assert same["mre_gt10"] == 0.0 and same["tvd3"] == 0.0
    assert (
        main(["utility", "--original", data_csv, "--synthetic", str(syn_path), "--format", "json"])
        == 0
    )
    shuffled = json.loads(capsys.readouterr().out)
    assert shuffled["mre_gt10"] > 0.05 and shuffled["tvd3"] > 0.02
    assert (
        main(["utility", "--original", data_csv, "--synthetic", str(tmp_path / "missing.csv")]) == 2
    )
