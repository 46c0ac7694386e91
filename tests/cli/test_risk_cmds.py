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
        (["linkability", "--aux-b", "race"], "missing --aux-a"),
        (["singling-out", "--root", "person"], "--root names the table of persons"),
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


# --- --relational: the person-level games on folders of tables ---------------------------------
@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Folders of tables (person, visit) of a release that replays the original's histories
    under new keys, and the metadata describing them."""
    from tests.cli.relational_folders import replay_folders

    return replay_folders(tmp_path_factory.mktemp("relational"), 3, 25)


def _rel_args(folders: dict[str, Path], **change: Path) -> list[str]:
    args = ["--relational", str(folders["meta"])]
    for role in ("original", "synthetic", "control"):
        args += [f"--{role}", str(change.get(role, folders[role]))]
    return args


@pytest.mark.parametrize(
    ("command", "name", "options"),
    [
        ("singling-out", "play_person_singling_out", ["--attacks", "univariate"]),
        ("linkability", "play_person_linkability", []),
    ],
)
def test_relational_input_plays_the_person_level_game(
    folders: dict[str, Path],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    command: str,
    name: str,
    options: list[str],
) -> None:
    """With --relational each command plays the person_risks stage's game on the persons and
    prints its figures, the root table's row-level figure beside them and the persons by root
    key (JSON and text); a release replaying the original's histories is flagged."""
    import synthleak.games.person_risks as games

    play, played = getattr(games, name), []

    def spy(*args: Any, **kwargs: Any) -> Any:
        played.append(play(*args, **kwargs))
        return played[-1]

    monkeypatch.setattr(games, name, spy)
    argv = [command, *_rel_args(folders), *options, "--n-attacks", "30"]
    assert main([*argv, "--format", "json"]) == 0
    (res,) = played
    printed = json.loads(capsys.readouterr().out)
    persons = res.persons.attacks
    assert [a["risk"] for a in printed] == [a.risk.value for a in persons]
    keys = set(pd.read_csv(folders["original"] / "person.csv")["pid"])
    for a, r in zip(printed, persons, strict=True):
        assert a["level"] == "persons" and a["root"] == "person" and a["key"] == "pid"
        assert a["ci"][0] > 0 and a["baseline_rate"] == r.baseline_rate.value  # a replay leaks
        listed = a.get("persons_singled_out", a.get("persons_linked"))
        assert listed and set(listed) <= keys
        (row_level,) = res.root_rows.attacks  # one attack asked: its row-level twin
        assert a["root_rows"]["risk"] == pytest.approx(row_level.risk.value)
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "persons (rows of table 'person' with their child rows, key 'pid')" in text
    assert "Row-level figure: the same game on the columns of table 'person' alone" in text
    assert "by 'pid'" in text and str(listed[0]) in text


@pytest.mark.parametrize("command", ["singling-out", "linkability"])
def test_bad_relational_input_exits_2_in_one_line(
    folders: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    """A folder missing a table, an orphaned foreign key, a single-table option beside
    --relational and an unknown column of the person-level view are one line, exit 2."""
    partial = tmp_path / "partial"
    partial.mkdir()
    (partial / "person.csv").write_bytes((folders["control"] / "person.csv").read_bytes())
    orphan = tmp_path / "orphan"
    orphan.mkdir()
    (orphan / "person.csv").write_bytes((folders["control"] / "person.csv").read_bytes())
    visit = pd.read_csv(folders["control"] / "visit.csv")
    visit.loc[0, "pid"] = 123456
    visit.to_csv(orphan / "visit.csv", index=False)
    cases = [
        (_rel_args(folders, control=partial), "['visit'] named in the metadata are missing"),
        (_rel_args(folders, synthetic=orphan), "123456"),
        ([*_rel_args(folders), "--categorical", "sex"], "--categorical, --continuous and"),
        ([*_rel_args(folders), "--root", "visits"], "--root 'visits' is not a table"),
    ]
    if command == "linkability":
        cases.append(([*_rel_args(folders), "--aux-b", "nope"], "--aux-b names unknown"))
    for argv, message in cases:
        assert main([command, *argv, "--n-attacks", "10"]) == 2
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and message in err, err
