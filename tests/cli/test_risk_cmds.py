"""``synthleak singling-out`` and ``synthleak linkability`` end to end on small CSV files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from synthleak.cli.main import main

KEYS = {
    "attack",
    "measured",
    "note",
    "risk",
    "ci",
    "confidence",
    "attack_rate",
    "control_rate",
    "observed_control_rate",
    "baseline_rate",
    "excess",
    "n_requested",
    "n_attacks",
    "n_success",
    "n_control_success",
    "n_baseline_attacks",
    "n_baseline_success",
    "columns",
    "examples",
    "design",
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
    """The three data options, the release read from ``files[syn]``."""
    return [
        "--original",
        str(files["ori"]),
        "--synthetic",
        str(files[syn]),
        "--control",
        str(files["ctl"]),
    ]


def test_singling_out_json(files: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    code = main(
        [
            "singling-out",
            *_args(files),
            "--attacks",
            "univariate,multivariate",
            "--n-attacks",
            "100",
            "--n-cols",
            "2",
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
    assert [r["attack"] for r in res] == ["univariate", "multivariate"]
    for r in res:
        assert set(r) == KEYS
        assert r["n_attacks"] == 100 and r["measured"]
        assert r["ci"][0] <= r["risk"] <= r["ci"][1]
        assert r["risk"] > 0.5 and r["attack_rate"] > 0.9  # synthetic = original
        assert r["design"]["correction"] == "none" and r["design"]["n_original"] == 800
        assert {"column", "n_predicates", "n_success", "excess", "excess_se"} <= set(
            r["columns"][0]
        )
    multi = res[1]
    assert sum(c["n_predicates"] for c in multi["columns"]) == 2 * 100  # --n-cols 2
    assert all(e.count("&") == 1 for e in multi["examples"])


def test_singling_out_table_and_seed(
    files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["singling-out", *_args(files), "--n-attacks", "50", "--seed", "3"]
    assert main(args) == 0
    first = capsys.readouterr().out
    assert "Singling-out risk" in first and "multivariate" in first and "univariate" in first
    assert "size correction:" in first and "where (multivariate):" in first
    assert main(args) == 0
    assert capsys.readouterr().out == first
    # a release that copies the control, not the original, shows no leak and no "where"
    assert main(["singling-out", *_args(files, "ctl"), "--n-attacks", "50"]) == 0
    assert "where" not in capsys.readouterr().out


def test_linkability_json(files: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        [
            "linkability",
            *_args(files),
            "--aux-a",
            "age,workclass,fnlwgt",
            "--aux-b",
            "fnlwgt,education,race",
            "--n-neighbours",
            "1",
            "--n-attacks",
            "100",
            "--format",
            "json",
        ]
    )
    assert code == 0
    (res,) = json.loads(capsys.readouterr().out)
    assert res["attack"] == "nearest-neighbour"
    assert res["attack_rate"] > 0.8 and res["n_attacks"] == 100
    assert res["aux_a"] == ["age", "workclass", "fnlwgt"] and res["n_original"] == 800
    assert main(["linkability", *_args(files), "--aux-a", "age", "--aux-b", "race"]) == 0
    assert "Linkability risk" in capsys.readouterr().out


def test_mismatched_columns_exit_2(
    files: dict[str, Path], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out = tmp_path / "never.json"
    code = main(["singling-out", *_args(files, "bad"), "--out", str(out)])
    assert code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert "missing column(s) ['income']" in err and "unexpected column(s) ['extra']" in err
    assert not out.exists()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["linkability", "--aux-a", "age,nope", "--aux-b", "race"], "--aux-a names unknown"),
        (["linkability", "--aux-a", ",", "--aux-b", "race"], "--aux-a is empty"),
        (
            ["linkability", "--aux-a", "age", "--aux-b", "race", "--n-neighbours", "0"],
            "--n-neighbours",
        ),
        (["singling-out", "--attacks", "bogus"], "unknown singling-out attack 'bogus'"),
        (["singling-out", "--attacks", ""], "--attacks is empty"),
        (["singling-out", "--n-attacks", "0"], "--n-attacks 0 must be at least 1"),
        (["singling-out", "--n-cols", "99"], "--n-cols 99 is out of range"),
        (["singling-out", "--format", "csv"], "csv"),
        (["singling-out", "--mode", "multivariate"], "--mode"),
    ],
)
def test_bad_options_exit_2(
    files: dict[str, Path], capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    assert main([argv[0], *_args(files), *argv[1:]]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and message in err


@pytest.mark.parametrize(
    ("command", "module", "options"),
    [
        ("singling-out", "singling_out", ["--attacks", "univariate"]),
        ("linkability", "linkability", ["--aux-a", "age,sex", "--aux-b", "race,education"]),
    ],
)
def test_the_commands_play_the_stages_game(
    files: dict[str, Path],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    command: str,
    module: str,
    options: list[str],
) -> None:
    """Each command plays its game with the audit stage's function (``play_<stage>``) and
    prints that result's figures."""
    import importlib

    stage = importlib.import_module(f"synthleak.stages.{module}")
    name = f"play_{module}"
    play, played = getattr(stage, name), []

    def spy(*args: Any, **kwargs: Any) -> Any:
        played.append(play(*args, **kwargs))
        return played[-1]

    monkeypatch.setattr(stage, name, spy)
    argv = [command, *_args(files), *options, "--n-attacks", "50", "--format", "json"]
    assert main(argv) == 0
    (res,) = played
    printed = json.loads(capsys.readouterr().out)
    assert [a["risk"] for a in printed] == [a.risk.value for a in res.attacks]


@pytest.mark.parametrize("command", ["singling-out", "linkability"])
def test_a_declared_special_code_is_read_as_its_own_value(
    files: dict[str, Path], tmp_path: Path, command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A 'not applicable' code in a numeric column stops the command until it is declared;
    declared, the code is a value of its own (the same reading as audit's)."""
    coded = {}
    for name in ("ori", "syn", "ctl"):
        df = pd.read_csv(files[name])
        df["age"] = df["age"].astype(str)
        df.loc[df.index[::9], "age"] = "NA-CODE"
        coded[name] = tmp_path / f"{name}.csv"
        df.to_csv(coded[name], index=False)
    link = ["--aux-a", "age,sex", "--aux-b", "race"] if command == "linkability" else []
    args = [command, *_args(coded), *link, "--n-attacks", "50", "--format", "json"]
    assert main(args) == 2
    assert "--special-values" in capsys.readouterr().err
    assert main([*args, "--special-values", "age=NA-CODE"]) == 0
    assert json.loads(capsys.readouterr().out)
