"""``synthleak riskmap``: JSON and CSV contract, run directory and resume, bad input
(exit 2, no file).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

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


# --- --relational: the person-level shadow game, persons by root key ---------------------------
@pytest.fixture
def relational(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """The folders of tests/cli/relational_folders.py (40 original persons) and the python:
    spec of the resampling relational generator of tests/generators/test_relational.py."""
    from tests.cli.relational_folders import replay_folders, resampler_spec

    folders: dict[str, Any] = replay_folders(tmp_path, seed=6, n_control=10)
    folders["spec"] = resampler_spec(tmp_path, monkeypatch, "riskmap_relgens")
    return folders


def _persons_argv(rel: dict[str, Any], out: Path, *extra: str) -> list[str]:
    argv = ["riskmap", str(rel["original"]), "--relational", str(rel["meta"])]
    argv += ["--generator", rel["spec"], "--out", str(out), "--n-targets", "3"]
    return [*argv, "--shadows", "4", "--tests", "4", "--seed", "2", *extra]


def test_relational_plays_the_person_shadow_game_by_root_key(
    tmp_path: Path, relational: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    """riskmap --relational writes play_person_shadow's result (same parameters) with level,
    root and key; the CSV has one row per target person keyed by the root key, with its AUC
    and the game's AUC with its interval."""
    from synthleak.data.relational import RelationalSchema, load_relational
    from synthleak.games.person_shadow import play_person_shadow

    out = tmp_path / "map.json"
    assert main(_persons_argv(relational, out)) == 0
    assert "risk map of 3 persons (rows of table 'person', key 'pid')" in capsys.readouterr().err
    doc = json.loads(out.read_text())
    assert (doc["level"], doc["root"], doc["key"]) == ("persons", "person", "pid")
    sch = RelationalSchema.from_sdv(relational["meta"])
    data = load_relational(relational["original"], sch)
    game = play_person_shadow(
        data, relational["spec"], seed=2, n_targets=3, n_shadows=4, n_tests=4, root="person"
    )
    expected = json.loads(game.to_json())
    assert {k: v for k, v in doc.items() if k not in ("level", "root", "key")} == expected
    assert set(doc["target_keys"]) <= set(data.frames["person"]["pid"])
    csv = tmp_path / "map.csv"
    assert main(_persons_argv(relational, csv)) == 0
    frame = pd.read_csv(csv)
    assert list(frame.columns) == [
        "pid",
        "auc",
        "auc_ci_low",
        "auc_ci_high",
        "game_auc",
        "game_auc_ci_low",
        "game_auc_ci_high",
    ]
    assert frame["pid"].tolist() == doc["target_keys"]
    assert frame["auc"].to_numpy() == pytest.approx(np.array(game.target_auc, float), nan_ok=True)
    for col, want in (("auc_ci_low", game.target_ci_low), ("auc_ci_high", game.target_ci_high)):
        assert frame[col].to_numpy() == pytest.approx(np.array(want, float), nan_ok=True)
    a = game.primary_attack.auc
    assert frame["game_auc"].tolist() == pytest.approx([a.value] * 3)
    assert frame["game_auc_ci_low"].tolist() == pytest.approx([a.ci_low] * 3)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ("missing", "table(s) ['visit'] named in the metadata are missing"),
        ("orphan", "foreign key visit.pid has 1 orphaned row(s)"),
        ("single", "unknown relational generator 'baynet'"),
        ("workers", "--workers, --run-dir do not apply to riskmap --relational"),
        ("population", "--population does not apply to riskmap --relational"),
        ("schema", "--special-values describe one table"),
        ("targets", "--train-size must be above --n-targets"),
        ("one", "--n-targets must be an integer >= 2, got 1"),
    ],
)
def test_relational_bad_input_exit_2_and_no_file(
    tmp_path: Path,
    relational: dict[str, Any],
    capsys: pytest.CaptureFixture[str],
    change: str,
    message: str,
) -> None:
    out = tmp_path / "map.json"
    argv = _persons_argv(relational, out)
    from tests.cli.relational_folders import break_folder

    if change in ("missing", "orphan"):
        break_folder(relational["original"], change)
    elif change == "single":
        argv[argv.index("--generator") + 1] = "baynet"
    elif change == "workers":
        argv += ["--workers", "2", "--run-dir", str(tmp_path / "run")]
    elif change == "population":
        argv += ["--population", "100"]
    elif change == "schema":
        argv += ["--categorical", "kind"]
    elif change == "targets":
        argv += ["--n-targets", "30"]
    else:
        argv += ["--n-targets", "1"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1, err
    assert not out.exists() and not (tmp_path / "run").exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".map.json")]


def test_relational_only_options_without_relational_are_refused(
    data_csv: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "map.json"
    base = ["riskmap", str(data_csv), *BASE, "--out", str(out)]
    assert main([*base, "--root", "person"]) == 2
    assert "--root names the table of persons of --relational" in capsys.readouterr().err
    assert main([*base, "--n-targets", "4"]) == 2
    assert "--n-targets is for --relational" in capsys.readouterr().err
    hma = [*base[:2], "--generator", "sdv:hma", "--out", str(out)]
    assert main(hma) == 2
    assert "--generator 'sdv:hma' is a relational generator" in capsys.readouterr().err
    assert not out.exists()
