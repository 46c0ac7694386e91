"""``synthleak mia``: JSON contract, table output, run directory, one-line errors (exit 2)."""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from synthleak.cli.main import main
from synthleak.games.nobox import DEFAULT_ATTACKS


@pytest.fixture(scope="module")
def data_csv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    rng = np.random.default_rng(0)
    n = 600
    df = pd.DataFrame(
        {
            "a": rng.choice(["p", "q", "r"], n),
            "b": rng.choice(["u", "v"], n),
            "c": rng.choice(["k", "l"], n),
            "x": rng.normal(40, 5, n).round(0),
        }
    )
    df.loc[0] = ["p", "u", "z", 10.0]  # the only 'z' and the smallest x: an outlier
    path = tmp_path_factory.mktemp("mia") / "d.csv"
    df.to_csv(path, index=False)
    return path


BASE = [
    "--generator",
    "nonprivate",
    "--train-size",
    "40",
    "--synthetic-size",
    "120",
    "--shadows",
    "40",
    "--tests",
    "40",
    "--n-queries",
    "50",
    "--aux-size",
    "300",
    "--test-size",
    "200",
    "--attacks",
    "distance,query",
]


def test_json_contract_and_run_dir(
    data_csv: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "r.json"
    run = tmp_path / "run"
    code = main(
        [
            "mia",
            str(data_csv),
            *BASE,
            "--targets",
            "rows:0,3",
            "--format",
            "json",
            "--out",
            str(out),
            "--run-dir",
            str(run),
            "--seed",
            "4",
        ]
    )
    assert code == 0, capsys.readouterr().err
    doc = json.loads(out.read_text())
    assert doc["mode"] == "black-box"
    assert doc["config"]["generator"] == "nonprivate" and doc["config"]["n_shadows"] == 40
    assert [t["row"] for t in doc["targets"]] == [0, 3]
    t0 = doc["targets"][0]
    assert t0["selected_by"] == "rows"
    for name in ("distance", "query"):
        o = t0["attacks"][name]
        assert set(o) >= {"auc", "auc_ci", "accuracy", "tpr_at_fpr"}
        assert set(o["tpr_at_fpr"]) == {"0.1", "0.01"}
        assert o["auc_ci"][0] <= o["auc"] <= o["auc_ci"][1]
        assert set(doc["summary"][name]) >= {"auc_mean", "auc_sd"}
    assert t0["attacks"]["distance"]["auc"] >= 0.9  # the outlier row 0 with m = 3n
    # one JSON path: the document is a serde result, read back losslessly, and it holds the
    # same figures as the game's result saved in the run directory
    from synthleak.games.membership import MembershipResult
    from synthleak.results import MembershipDocument

    typed = MembershipDocument.from_json(out.read_text())
    assert json.loads(typed.to_json()) == doc
    assert typed.config == MembershipResult.from_json(run / "result.json").config
    assert list(doc) == [
        "mode",
        "config",
        "targets",
        "summary",
        "summary_by_selector",
        "failures",
        "epsilon",
        "policy",
    ]
    saved = json.loads((run / "result.json").read_text())
    assert [t["row"] for t in saved["targets"]] == [0, 3]
    assert (run / "schema.json").exists()
    # a re-run of the same command resumes and gives the same document
    out2 = tmp_path / "r2.json"
    assert (
        main(
            [
                "mia",
                str(data_csv),
                *BASE,
                "--targets",
                "rows:0,3",
                "--format",
                "json",
                "--out",
                str(out2),
                "--run-dir",
                str(run),
                "--seed",
                "4",
            ]
        )
        == 0
    )
    assert json.loads(out2.read_text()) == doc


def test_table_format(data_csv: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["mia", str(data_csv), *BASE, "--targets", "rare:1", "--pool", "single"]) == 0
    text = capsys.readouterr().out
    assert "summary" in text and "distance" in text and "rare" in text


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--targets", "rows:5000"], "not in the data"),
        (["--targets", "rows:0", "--train-size", "400"], "--train-size 400 is larger than D_aux"),
        (["--targets", "rows:0", "--synthetic-size", "0"], "--synthetic-size must be"),
        (["--targets", "rows:0", "--shadows", "2"], "--shadows must be"),
        (["--targets", "rows:0", "--attacks", "nope"], "unknown membership attack"),
        (["--targets", "rows:0", "--attacks", "novelty"], "add --knowledge exact"),
        (["--targets", "rows:0", "--generator", "nope"], "unknown generator"),
        (["--targets", "bogus:3"], "unknown target selector"),
        (["--targets", "rows:0", "--format", "csv"], "'csv' is not one of 'table', 'json'"),
        pytest.param(
            ["--targets", "rows:0", "--cluster", "tcp://127.0.0.1:9"],
            "cannot reach the Dask scheduler",
            marks=pytest.mark.skipif(
                importlib.util.find_spec("distributed") is None, reason="needs the dask extra"
            ),
        ),
    ],
)
def test_bad_input_one_line_exit_2(
    data_csv: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    extra: list[str],
    message: str,
) -> None:
    out = tmp_path / "o.json"
    assert main(["mia", str(data_csv), *BASE, *extra, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert message in err and err.strip().count("\n") == 0
    assert not out.exists()


def test_exact_knowledge_reports_epsilon_against_the_claim(
    data_csv: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "eps.json"
    args = [
        "mia",
        str(data_csv),
        "--generator",
        "nonprivate",
        "--targets",
        "rows:0",
        "--knowledge",
        "exact",
        "--train-size",
        "40",
        "--synthetic-size",
        "120",
        "--shadows",
        "40",
        "--tests",
        "200",
        "--attacks",
        "distance",
        "--claimed-epsilon",
        "0.5",
        "--format",
        "json",
        "--out",
        str(out),
    ]
    assert main(args) == 0, capsys.readouterr().err
    doc = json.loads(out.read_text())
    eps = doc["epsilon"]
    assert set(eps) >= {"lower_bound", "confidence", "ceiling", "claimed", "verdict", "mu"}
    assert eps["claimed"] == 0.5 and eps["confidence"] == 0.95
    assert eps["verdict"] == "violation" and eps["lower_bound"] > 0.5  # a copy leaks its target
    assert doc["config"]["knowledge"] == "exact" and doc["config"]["pool"] == "single"
    # without --attacks, exact knowledge adds the unfitted novelty attack to the defaults
    dflt = tmp_path / "default.json"
    i = args.index("--attacks")
    assert main([*args[:i], *args[i + 2 : -2], "--out", str(dflt)]) == 0
    attacks = json.loads(dflt.read_text())["config"]["attacks"]
    assert attacks == ["query", "distance", "groundhog", "novelty"]
    # the report rebuilt from the run directory states the verdict printed, and who knows what
    run = tmp_path / "run"
    assert main([*args[:-2], "--out", str(tmp_path / "r.json"), "--run-dir", str(run)]) == 0
    assert main(["report", str(run), "--out-dir", str(tmp_path / "rep")]) == 0
    rebuilt = json.loads((tmp_path / "rep" / "report.json").read_text())
    assert rebuilt["epsilon"] == json.loads((tmp_path / "r.json").read_text())["epsilon"]
    md = (tmp_path / "rep" / "report.md").read_text()
    assert "every other record of the training data" in md and "0 auxiliary" not in md
    # the same run as a gate: a violation fails it (exit 3)
    assert (
        main([*args[:-2], "--out", str(tmp_path / "g.json"), "--fail-on", "epsilon.violation"]) == 3
    )


def test_projection_is_printed_and_max_time_sizes_the_game(
    data_csv: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "t.json"
    args = [
        "mia",
        str(data_csv),
        *BASE,
        "--targets",
        "rows:0",
        "--format",
        "json",
        "--out",
        str(out),
    ]
    assert main([*args, "--max-time", "3600"]) == 0
    err = capsys.readouterr().err
    assert "projected time" in err and "power:" in err and "the game took" in err
    doc = json.loads(out.read_text())
    assert doc["config"]["n_shadows"] <= 40  # --shadows caps what --max-time allows
    assert main([*args, "--max-time", "0.001"]) == 2
    err = capsys.readouterr().err
    assert "out of reach" in err and "without the generator" in err


def test_plan_game_counts_the_default_targets_of_a_game_given_none(
    data_csv: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A game built without targets plays Targets.top(10); the projection counts those 10."""
    from synthleak.data.release import as_table
    from synthleak.games.membership import MembershipGame
    from synthleak.runtime import Runtime
    from synthleak.stages.membership import plan_game

    table = as_table(pd.read_csv(data_csv))
    game = MembershipGame(
        "nonprivate",
        targets=None,
        train_size=40,
        synthetic_size=120,
        n_shadows=40,
        n_tests=40,
        attacks=["distance"],
        aux_size=300,
        test_size=200,
    )
    game.validate(table, seed=0)  # the game itself accepts no targets
    assert plan_game(game, table, seed=0, runtime=Runtime(), max_time=None) > 0
    assert "x 10 target(s)" in capsys.readouterr().err


# --- the no-box form ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def release_csvs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    import synthleak as sl

    df = sl.datasets.load_adult()
    perm = np.random.default_rng(1).permutation(len(df))
    ori = df.iloc[perm[:800]].reset_index(drop=True)
    parts = {
        "original": ori,
        "synthetic": ori.sample(2400, replace=True, random_state=0),  # a copying release
        "control": df.iloc[perm[800:1000]],
    }
    folder = tmp_path_factory.mktemp("nobox")
    paths = {}
    for name, part in parts.items():
        paths[name] = folder / f"{name}.csv"
        part.to_csv(paths[name], index=False)
    return paths


def _nobox_args(p: dict[str, Path]) -> list[str]:
    return [
        "mia",
        "--original",
        str(p["original"]),
        "--synthetic",
        str(p["synthetic"]),
        "--control",
        str(p["control"]),
    ]


def test_nobox_json_contract(
    release_csvs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "nobox.json"
    args = [*_nobox_args(release_csvs), "--rows", "3,17", "--n-exposed", "2"]
    code = main([*args, "--attacks", "dcr,domias", "--format", "json", "--out", str(out)])
    assert code == 0, capsys.readouterr().err
    doc = json.loads(out.read_text())
    assert doc["mode"] == "no-box" and set(doc["attacks"]) == {"dcr", "domias"}
    for o in doc["attacks"].values():
        assert o["auc_ci"][0] <= o["auc"] <= o["auc_ci"][1]
        assert set(o["tpr_at_fpr"]) == {"0.1", "0.01", "0.001"}
        assert o["tpr_at_fpr"]["0.001"] is None  # 100 non-members are too few for FPR 0.001
        ci = o["tpr_at_fpr_ci"]
        assert ci["0.001"]["tpr"] is None and "not resolvable" in ci["0.001"]["note"]
        assert ci["0.1"]["n_non_members"] == 100 and ci["0.1"]["tpr"] == o["tpr_at_fpr"]["0.1"]
    ens = doc["ensemble"]
    assert ens["attacks"] == ["dcr", "domias"] and set(ens["weights"]) == {"dcr", "domias"}
    assert ens["evaluated_on"] == 100 and ens["tpr_at_fpr"]["0.01"]["tpr"] is None
    best = doc["best"]
    assert best["attack"] == "dcr" and best["auc"] > 0.85
    assert best["selected_on"] == best["evaluated_on"] == 100
    assert [r["row"] for r in doc["records"]][2:] == [3, 17]
    rec = doc["records"][0]
    assert set(rec) >= {"row", "v_k", "scores"}
    assert set(rec["scores"]["dcr"]) >= {"score", "percentile"}
    assert doc["copies"]["exact"]["n_copied_training_rows"] > 0


def test_nobox_table_with_all_attacks(
    release_csvs: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([*_nobox_args(release_csvs), "--seed", "2"]) == 0
    text = capsys.readouterr().out
    for name in (*DEFAULT_ATTACKS, "strongest", "ensemble of 8 attacks"):
        assert name in text
    assert "strongest TPR at FPR 0.1:" in text and "not resolvable at this size" in text
    assert "exact copies" in text and "near copies" in text


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        # beside --synthetic, --generator is the release form's (it makes shadow releases)
        (
            ["--generator", "nonprivate", "--attacks", "dcr"],
            "--attacks do not apply to the release",
        ),
        (["--shadows", "10"], "--shadows belong to the black-box form"),
        (["--attacks", "query"], "unknown nobox-membership attack 'query'"),
        (["--rows", "x"], "--rows takes comma-separated"),
        (["--rows", "5000"], "are not rows of original"),
        (["--n-non-members", "195"], "n_non_members=195 leaves 5"),
        (["--format", "csv"], "csv"),
    ],
)
def test_nobox_bad_input_one_line_exit_2(
    release_csvs: dict[str, Path],
    extra: list[str],
    message: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = tmp_path / "o.json"
    assert main([*_nobox_args(release_csvs), *extra, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert not out.exists()


def test_forms_cannot_be_mixed_or_left_incomplete(
    release_csvs: dict[str, Path], data_csv: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["mia", str(data_csv), "--original", str(release_csvs["original"])]) == 2
    assert "DATA belong to the black-box form" in capsys.readouterr().err
    assert main(["mia", "--original", str(release_csvs["original"])]) == 2
    assert "needs --synthetic, --control too" in capsys.readouterr().err
    assert main(["mia", str(data_csv), *BASE, "--rows", "1"]) == 2
    assert "--rows belong to the no-box form" in capsys.readouterr().err
    assert main(["mia", str(data_csv)]) == 2
    assert "give DATA and --generator" in capsys.readouterr().err


def test_screen_targets_run_the_two_stage_audit(tmp_path, capsys) -> None:
    """``--targets screen:2+random:1``: stage 1 screens the rarest records, the game attacks the
    two it ranks riskiest plus a random control."""
    import json

    import synthleak as sl
    from synthleak.cli.main import main

    data = tmp_path / "a.csv"
    sl.datasets.load_adult().dropna().sample(600, random_state=0).to_csv(data, index=False)
    out = tmp_path / "mia.json"
    args = ["mia", str(data), "--generator", "indhist", "--targets", "screen:2+random:1"]
    args += ["--train-size", "100", "--shadows", "30", "--tests", "30", "--attacks", "query"]
    assert main([*args, "--format", "json", "--out", str(out)]) == 0, capsys.readouterr().err
    doc = json.loads(out.read_text())
    labels = [t["selected_by"] for t in doc["targets"]]
    assert labels.count("screen") == 2 and labels.count("random") == 1, labels


def test_default_targets_are_screened(tmp_path, capsys) -> None:
    """Without ``--targets`` the two-stage screen picks the 10 targets (``screen:10``)."""
    import json

    import synthleak as sl
    from synthleak.cli.main import main

    data = tmp_path / "a.csv"
    sl.datasets.load_adult().dropna().sample(400, random_state=1).to_csv(data, index=False)
    out = tmp_path / "mia.json"
    args = ["mia", str(data), "--generator", "indhist", "--train-size", "60"]
    args += ["--shadows", "12", "--tests", "12", "--attacks", "distance"]
    assert main([*args, "--format", "json", "--out", str(out)]) == 0, capsys.readouterr().err
    doc = json.loads(out.read_text())
    assert [t["selected_by"] for t in doc["targets"]] == ["screen"] * 10


def test_split_screen_targets() -> None:
    from synthleak.cli.common import split_screen_targets
    from synthleak.errors import InputError

    assert split_screen_targets("screen:3+top:2") == (3, "top:2")
    assert split_screen_targets("top:10") == (0, "top:10")
    with pytest.raises(InputError, match="whole number"):
        split_screen_targets("screen:x")
    with pytest.raises(InputError, match="at least 1"):
        split_screen_targets("screen:0")


def test_a_dp_generator_given_an_inferred_domain_is_noted(
    data_csv: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The game draws every dataset with one domain, so it cannot see a claim broken by a
    domain read from the private data: the command says so when no --schema was given."""
    args = ["mia", str(data_csv), "--generator", "privbayes:epsilon=1", "--targets", "rows:0"]
    args += ["--train-size", "40", "--shadows", "8", "--tests", "8", "--attacks", "distance"]
    assert main([*args, "--out", str(tmp_path / "a.json")]) == 0
    err = capsys.readouterr().err
    assert "claims epsilon = 1, but the domain it was given" in err
    assert "shadow-model game does not measure this" in err


# --- the release form: the shadow-release attack on the given release -------------------------


@pytest.fixture(scope="module")
def shadow_case(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    from tests.stages.release_shadows import write_case

    return write_case(tmp_path_factory.mktemp("shadow"), n_original=200, n_control=300)


@pytest.fixture()
def _one_thread() -> Iterator[None]:
    from threadpoolctl import threadpool_limits

    with threadpool_limits(1):
        yield


def _release_args(case: dict[str, Path]) -> list[str]:
    return [
        "mia",
        "--synthetic",
        str(case["synthetic"]),
        "--original",
        str(case["original"]),
        "--control",
        str(case["control"]),
    ]


def test_release_form_json_contract(
    shadow_case: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str], _one_thread
) -> None:
    out = tmp_path / "r.json"
    args = [*_release_args(shadow_case), "--shadow-releases", str(shadow_case["shadows"])]
    assert main([*args, "--format", "json", "--n-exposed", "3", "--out", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert doc["mode"] == "release" and doc["n_shadows"] == 4
    assert doc["n_members"] == 200 and doc["n_non_members"] == 300
    assert set(doc["tpr_at_fpr"]) == {"0.1", "0.01", "0.001"}
    assert doc["tpr_at_fpr"]["0.01"]["tpr"] >= 0.9  # the release copies its training records
    assert len(doc["auc_ci"]) == 2 and len(doc["records"]) == 3 and doc["policy"] is None
    assert all(0 <= r["row"] < 200 for r in doc["records"])
    err = capsys.readouterr().err
    assert "read 4 shadow releases" in err and "the attack took" in err
    # the table names both games
    assert main([*args, "--n-exposed", "2"]) == 0
    text = capsys.readouterr().out
    assert "membership inference on the release" in text and "generator-level game" in text
    assert text.count("  row ") == 2
    # a release gate on the figure: the copying release fails it (exit 3)
    assert main([*args, "--fail-on", "membership.release.auc>0.6"]) == 3


def test_release_form_with_a_generator_makes_its_shadows(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], _one_thread
) -> None:
    from tests.stages.release_shadows import copies, population

    pop = population(2300, 7)
    paths = {n: tmp_path / f"{n}.csv" for n in ("original", "synthetic", "control")}
    pop.iloc[:300].to_csv(paths["original"], index=False)
    copies(pop.iloc[:300], np.random.default_rng(0)).to_csv(paths["synthetic"], index=False)
    pop.iloc[300:].to_csv(paths["control"], index=False)
    args = [*_release_args(paths), "--generator", "leaky:fraction=1.0", "--shadows", "3"]
    assert main([*args, "--format", "json", "--workers", "2"]) == 0
    captured = capsys.readouterr()
    doc = json.loads(captured.out)
    assert doc["shadows_from"] == "generator leaky:fraction=1.0" and doc["n_shadows"] == 3
    assert doc["n_non_members"] == 1000  # the half of the control no shadow was trained on
    assert "3 of 3 shadow releases done" in captured.err and "projected time" in captured.err
    # two shadow releases cannot calibrate any labelled example: a one-line error
    assert main([*args[:-1], "2"]) == 2
    assert "--shadows must be at least 3" in capsys.readouterr().err


def test_release_form_says_when_the_release_copies_more_than_its_shadows(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], _one_thread
) -> None:
    """A release that copies its original, attacked with shadows of a generator that never
    copies: the verbatim check scores the copied members first, and the table says why."""
    from tests.stages.release_shadows import population

    pop = population(800, 3)
    paths = {n: tmp_path / f"{n}.csv" for n in ("original", "synthetic", "control")}
    pop.iloc[:200].to_csv(paths["original"], index=False)
    pop.iloc[:200].to_csv(paths["synthetic"], index=False)
    pop.iloc[200:].to_csv(paths["control"], index=False)
    args = [*_release_args(paths), "--generator", "indhist", "--shadows", "3"]
    assert main(args) == 0
    text = capsys.readouterr().out
    assert "note: The release holds 200 of the 500 candidates verbatim" in text
    assert "copies records significantly more often than the shadow releases" in text
    assert main([*args, "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["verbatim"]["applied"] and doc["tpr_at_fpr"]["0.01"]["tpr"] == 1.0


def test_candidates_are_written_one_score_per_record(
    shadow_case: dict[str, Path], tmp_path: Path, _one_thread
) -> None:
    out = tmp_path / "scores.csv"
    args = ["mia", "--synthetic", str(shadow_case["synthetic"]), "--candidates"]
    args += [str(shadow_case["candidates"]), "--shadow-releases", str(shadow_case["shadows"])]
    assert main([*args, "--out", str(out)]) == 0
    scores = pd.read_csv(out)
    assert list(scores.columns) == ["row", "score"]
    assert scores["row"].tolist() == list(range(50))
    assert scores["score"].between(0, 1).all()


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--generator", "indhist"], "not both"),
        (["--shadows", "3"], "folder of shadow releases is used as it is: drop them"),
        (["--synthetic-size", "30"], "--shadows and --synthetic-size size the shadow"),
        (["--rows", "1"], "--rows do not apply to the release form"),
        (["--candidates", "x.csv"], "use one"),
    ],
)
def test_release_form_bad_input_one_line_exit_2(
    shadow_case: dict[str, Path],
    extra: list[str],
    message: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = tmp_path / "o.json"
    args = [*_release_args(shadow_case), "--shadow-releases", str(shadow_case["shadows"])]
    assert main([*args, *extra, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert not out.exists()


def test_a_bad_shadow_folder_is_named(
    shadow_case: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "s1").mkdir()
    (tmp_path / "s1" / "release.csv").write_text("a,b\n1,2\n")
    args = [*_release_args(shadow_case), "--shadow-releases"]
    assert main([*args, str(tmp_path)]) == 2
    assert f"{tmp_path / 's1'} has no training.csv" in capsys.readouterr().err
    assert main([*args, str(tmp_path / "none")]) == 2
    assert "is not a folder" in capsys.readouterr().err


def test_release_form_reads_midst_published_layout(
    shadow_case: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str], _one_thread
) -> None:
    from synthleak.data.shadow_releases import read_shadow_releases

    for i, s in enumerate(read_shadow_releases(shadow_case["shadows"]), start=1):
        folder = tmp_path / f"tabddpm_{i}"
        folder.mkdir()
        assert s.training is not None
        ids = pd.DataFrame({"trans_id": range(len(s.training)), "account_id": i})
        pd.concat([ids, s.training], axis=1).to_csv(folder / "train_with_id.csv", index=False)
        s.release.to_csv(folder / "trans_synthetic.csv", index=False)
    args = [*_release_args(shadow_case), "--shadow-releases", str(tmp_path), "--format", "json"]
    assert main(args) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["n_shadows"] == 4 and doc["tpr_at_fpr"]["0.01"]["tpr"] >= 0.9


# --- --relational: the no-box game on persons ---------------------------------------------------
@pytest.fixture(scope="module")
def relational_folders(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Folders of tables (person, visit) of a release that replays the original's histories
    under new keys, and the metadata describing them."""
    from tests.cli.relational_folders import replay_folders

    return replay_folders(tmp_path_factory.mktemp("relational"), 4, 50)


def _relational_args(folders: dict[str, Path]) -> list[str]:
    args = ["mia", "--relational", str(folders["meta"])]
    return args + [
        x for r in ("original", "synthetic", "control") for x in (f"--{r}", str(folders[r]))
    ]


def test_relational_no_box_form_plays_the_person_membership_game(
    relational_folders: dict[str, Path],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """mia --relational plays the person_membership stage's game on the folders' persons:
    every attack's figures, the strongest one's held-out AUC, the most exposed members by root
    key; a release replaying the original's histories is flagged."""
    import synthleak.games.person as person

    played: list[Any] = []
    game = person.PersonMembershipGame

    class Spy(game):  # type: ignore[misc,valid-type]
        def run(self, *args: Any, **kwargs: Any) -> Any:
            played.append(super().run(*args, **kwargs))
            return played[-1]

    monkeypatch.setattr(person, "PersonMembershipGame", Spy)
    argv = [*_relational_args(relational_folders), "--attacks", "dcr", "--n-members", "30"]
    assert main([*argv, "--format", "json"]) == 0
    (res,) = played
    doc = json.loads(capsys.readouterr().out)
    assert doc["mode"] == "no-box persons" and doc["root"] == "person" and doc["key"] == "pid"
    assert doc["best"] == res.best and len(doc["member_keys"]) == 30
    best = doc["attacks"][res.best]["evaluation_auc"]
    assert best["ci_low"] > 0.5  # the replayed histories are found
    keys = set(pd.read_csv(relational_folders["original"] / "person.csv")["pid"])
    exposed = [p["key"] for p in doc["exposed"]]
    assert exposed and set(exposed) <= keys
    assert "root:dcr" in doc["attacks"] and "child-dcr" in doc["attacks"]  # row-level beside
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "no-box membership inference of persons (rows of table 'person'" in text
    assert f"strongest (auc on a random half of the persons): {res.best}" in text
    assert f"  {exposed[0]}: " in text


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--rows", "1,2"], "--rows do not apply to mia --relational"),
        (["--generator", "baynet"], "--control do not apply to mia --relational with --generator"),
        (["--categorical", "sex"], "--categorical, --continuous and --schema describe one table"),
        (["--root", "nope"], "--root 'nope' is not a table"),
    ],
)
def test_relational_no_box_form_refuses_what_does_not_apply(
    relational_folders: dict[str, Path],
    capsys: pytest.CaptureFixture[str],
    extra: list[str],
    message: str,
) -> None:
    assert main([*_relational_args(relational_folders), *extra]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and message in err, err
    args = _relational_args(relational_folders)
    assert main(args[: args.index("--control")]) == 2
    assert "needs --control too" in capsys.readouterr().err


def test_relational_generator_form_plays_the_person_shadow_game(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """mia --relational DATA --generator SPEC plays the person_shadow stage's game
    (play_person_shadow, the same parameters) and names the targets by root key; the options
    of the other forms are refused in one line."""
    from tests.cli.relational_folders import replay_folders, resampler_spec

    from synthleak.data.relational import RelationalSchema, load_relational
    from synthleak.games.person_shadow import play_person_shadow

    f = replay_folders(tmp_path, seed=6, n_control=10)
    spec = resampler_spec(tmp_path, monkeypatch, "mia_relgens")
    argv = ["mia", str(f["original"]), "--relational", str(f["meta"]), "--generator", spec]
    argv += ["--targets", "random:3", "--shadows", "4", "--tests", "4", "--seed", "2"]
    assert main([*argv, "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["mode"] == "black-box persons" and doc["key"] == "pid"
    data = load_relational(f["original"], RelationalSchema.from_sdv(f["meta"]))
    game = play_person_shadow(
        data, spec, seed=2, n_targets=3, n_shadows=4, n_tests=4, root="person"
    )
    assert doc["target_keys"] == json.loads(game.to_json())["target_keys"]
    assert doc["attacks"] == json.loads(game.to_json())["attacks"]
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "shadow-model membership inference of persons" in text and "baseline 0.5" in text
    assert game.target_ci_low is not None and game.target_ci_high is not None
    for key, lo, hi in zip(game.target_keys, game.target_ci_low, game.target_ci_high, strict=True):
        assert f"  {key}: " in text and f"({lo:.3f}-{hi:.3f})" in text
    for extra, message in (
        (["--control", str(f["control"])], "--control do not apply"),
        (["--targets", "screen:5"], "give random:N"),
        (["--pool", "single"], "--pool do not apply"),
    ):
        assert main([*argv, *extra]) == 2
        err = capsys.readouterr().err.strip()
        assert message in err and len(err.splitlines()) == 1, err
    assert main(argv[:1] + argv[2:]) == 2
    assert "needs DATA" in capsys.readouterr().err
