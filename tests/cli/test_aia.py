"""``synthleak aia`` (game and release audit) and ``synthleak utility``."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from synthleak.cli.main import main
from synthleak.games.attribute import AttributeGameResult
from synthleak.games.attribute_release import ReleaseAttributeResult


def _frame(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    q = rng.integers(0, 5, size=(n, 5))
    df = pd.DataFrame(q, columns=[f"q{j}" for j in range(5)]).astype(str)
    df["s"] = np.where((q[:, 0] + q[:, 1] + rng.integers(0, 2, n)) % 2 == 0, "a", "b")
    df.loc[::7, "q4"] = None  # missing (an empty cell in the CSV)
    return df


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    folder = tmp_path_factory.mktemp("aia")
    out = {}
    for name, (n, seed) in {
        "pop": (1500, 0),
        "train": (400, 1),
        "control": (200, 2),
        "other": (400, 3),
    }.items():
        path = folder / f"{name}.csv"
        _frame(n, seed).to_csv(path, index=False)
        out[name] = str(path)
    return out


def test_aia_game_json_sweep_and_run_dir(
    files: dict[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "run"
    args = [
        "aia",
        files["pop"],
        "--secret",
        "s",
        "--generator",
        "nonprivate",
        "--train-size",
        "120",
        "--synthetic-size",
        "100,5000",
        "--n-games",
        "2",
        "--targets-per-game",
        "4",
        "--attacks",
        "recon,dcr",
        "--query-mode",
        "marginal",
        "--seed",
        "3",
        "--format",
        "json",
        "--run-dir",
        str(run),
        "--na-values",
        "N",
    ]
    assert main(args) == 0
    out = json.loads(capsys.readouterr().out)
    res = AttributeGameResult.from_dict(out)
    assert [s.synthetic_size for s in res.sizes] == [100, 5000]
    rec = res.accuracy("recon", 5000)
    assert 0.0 <= rec.accuracy.value <= 1.0 and rec.accuracy.n_trials == 8
    assert out["config"]["quasi_ids"] == ["q0", "q1", "q2", "q3", "q4"]
    assert out["config"]["attacks"][0]["params"]["query_mode"] == "marginal"
    assert out["accuracies"][0]["status"] == "too small to measure"
    assert {"mre_gt10", "tvd3", "acc_max"} <= set(out["sizes"][0])
    stored = AttributeGameResult.from_json(run / "result.json")
    assert stored.same_as(res)
    # the same command resumes from the run directory with the same output
    assert main(args) == 0
    assert json.loads(capsys.readouterr().out) == out


def test_aia_game_table_and_out_file(files: dict[str, str], tmp_path: Path) -> None:
    out = tmp_path / "res.txt"
    code = main(
        [
            "aia",
            files["pop"],
            "--secret",
            "s",
            "--quasi-ids",
            "q0,q1,q2",
            "--generator",
            "indhist",
            "--train-size",
            "100",
            "--synthetic-size",
            "500",
            "--n-games",
            "1",
            "--attacks",
            "dcr",
            "--out",
            str(out),
        ]
    )
    assert code == 0
    text = out.read_text()
    assert "accuracy [95% CI]" in text and "Acc_max" in text and "too small to measure" in text


def test_aia_release_audit(
    files: dict[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = ["aia", "--secret", "s", "--original", files["train"], "--na-values", "N"]
    ctl = ["--control", files["control"]]
    assert main([*base, "--synthetic", files["train"], *ctl, "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    (res,) = [ReleaseAttributeResult.from_dict(r) for r in doc["results"]]
    assert res.attack == "recon" and res.status.value == "measured"
    assert res.difference.ci_low > 0  # a copy of the training data leaks
    out = tmp_path / "rel.txt"
    args = [*base, "--synthetic", files["other"], *ctl, "--attacks", "recon,dcr"]
    assert main([*args, "--out", str(out)]) == 0
    text = out.read_text()
    assert "training accuracy" in text and "control accuracy" in text and "dcr" in text
    # without a control set: not measured, with what it needs
    assert main([*base, "--synthetic", files["other"], "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["results"][0]["status"] == "not measured"
    assert "needs a control set" in doc["results"][0]["reason"]


@pytest.mark.parametrize(
    ("args", "match"),
    [
        (["--secret", "nope", "--generator", "nonprivate"], "is not a column"),
        (["--secret", "s", "--generator", "nonprivate", "--synthetic-size", "ten"], "whole"),
        (["--secret", "s", "--generator", "nonprivate", "--attacks", "magic"], "magic"),
        (["--secret", "s", "--generator", "nonprivate", "--query-mode", "weird"], "weird"),
        (["--secret", "s", "--generator", "nonprivate", "--quasi-ids", "q0,zz"], "zz"),
        (["--secret", "s"], "--generator"),
        (["--secret", "s", "--generator", "nonprivate", "--n-targets", "5"], "--n-targets"),
        (["--secret", "s", "--generator", "nonprivate", "--format", "csv"], "csv"),
        (
            ["--secret", "s", "--generator", "nonprivate", "--attacks", "dcr", "--n-queries", "9"],
            "add recon",
        ),
        (["--secret", "s", "--generator", "nonprivate", "--out", "/nonexistent/x.txt"], "folder"),
    ],
)
def test_aia_game_bad_input_exit_2(
    files: dict[str, str], args: list[str], match: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["aia", files["pop"], "--train-size", "50", "--n-games", "1", *args])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1 and match in err
    assert err.startswith("synthleak: error:")


@pytest.mark.parametrize(
    ("args", "match"),
    [
        (["--synthetic", "{other}", "--control", "{control}", "DATA"], "not both"),
        (["--control", "{control}"], "needs --original and --synthetic"),
        (["--synthetic", "{other}", "--generator", "nonprivate"], "without its generator"),
        (["--synthetic", "{other}", "--attacks", "dcr,dcr"], "more than once"),
        (["--synthetic", "{other}", "--secret", "q9"], "is not a column"),
    ],
)
def test_aia_release_bad_input_exit_2(
    files: dict[str, str], args: list[str], match: str, capsys: pytest.CaptureFixture[str]
) -> None:
    args = [a.format(**files) if "{" in a else (files["pop"] if a == "DATA" else a) for a in args]
    head = ["aia", "--original", files["train"]]
    if "--secret" not in args:
        head += ["--secret", "s"]
    code = main([*head, *args])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1 and match in err


def test_utility_json(
    files: dict[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    df = pd.read_csv(files["pop"], dtype=str, keep_default_na=False)
    rng = np.random.default_rng(1)
    syn = df.apply(lambda c: rng.permutation(c.to_numpy()))
    syn_path = tmp_path / "syn.csv"
    syn.to_csv(syn_path, index=False)
    pop = files["pop"]
    assert main(["utility", "--original", pop, "--synthetic", pop, "--format", "json"]) == 0
    same = json.loads(capsys.readouterr().out)
    assert same["mre_gt10"] == 0.0 and same["tvd3"] == 0.0
    args = ["utility", "--original", pop, "--synthetic", str(syn_path), "--format", "json"]
    assert main([*args, "--n-marginals", "30"]) == 0
    shuffled = json.loads(capsys.readouterr().out)
    assert shuffled["mre_gt10"] > 0.05 and shuffled["tvd3"] > 0.02
    assert main(["utility", "--original", pop, "--synthetic", str(tmp_path / "missing.csv")]) == 2
    assert main(["utility", "--original", pop, "--synthetic", pop, "--format", "csv"]) == 2


@pytest.fixture(scope="module")
def numeric_files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    folder = tmp_path_factory.mktemp("aia-numeric")
    out = {}
    for name, (n, seed) in {"pop": (1200, 0), "train": (400, 1), "control": (150, 2)}.items():
        df = _frame(n, seed)
        rng = np.random.default_rng(seed + 10)
        df["income"] = 1000 * df["q0"].map(lambda v: 0 if v == "N" else int(v)) + rng.integers(
            0, 800, n
        )
        df["pid"] = [f"P{seed}{i:05d}" for i in range(n)]
        df["flat"] = 7
        df["few"] = rng.choice([0.5, 1.25, 2.75], n)
        df["mostly0"] = np.where(np.arange(n) == 0, 12.5, 0.0)
        df["signed"] = rng.normal(0, 50, n).round(1)
        path = folder / f"{name}.csv"
        df.to_csv(path, index=False)
        out[name] = str(path)
    return out


def test_aia_numeric_secret_release_and_game(
    numeric_files: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    f = numeric_files
    rel = ["aia", "--original", f["train"], "--synthetic", f["train"], "--control", f["control"]]
    rule = ["--secret", "income", "--secret-tolerance", "0.2", "--tolerance-kind", "relative"]
    assert main([*rel, *rule, "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    (res,) = [ReleaseAttributeResult.from_dict(r) for r in doc["results"]]
    assert res.difference.ci_low > 0  # a copy leaks the income
    assert res.config["secret_rule"] == {"rule": "relative", "tolerance": 0.2, "bins": 10}
    assert main([*rel, "--secret", "income", "--secret-bins", "4"]) == 0
    text = capsys.readouterr().out
    assert "the right one of 4 quantile bins" in text and "[" in text
    game = ["aia", f["pop"], "--generator", "nonprivate", "--train-size", "100"]
    game += ["--synthetic-size", "1000", "--n-games", "3", "--attacks", "dcr"]
    assert main([*game, "--secret", "income", "--secret-tolerance", "300"]) == 0
    text = capsys.readouterr().out
    assert "within 300 of the true value" in text and "baseline" in text


@pytest.mark.parametrize(
    ("args", "match"),
    [
        (["--secret", "income"], "--secret-tolerance (and --tolerance-kind"),
        (["--secret", "income", "--secret-tolerance", "-5"], "must be positive, got -5"),
        (["--secret", "income", "--secret-tolerance", "1e9"], "meaningless for 'income'"),
        (
            ["--secret", "income", "--secret-tolerance", "2", "--tolerance-kind", "relative"],
            "accepts a guess of 0",
        ),
        (["--secret", "income", "--secret-tolerance", "5", "--secret-bins", "4"], "not both"),
        (["--secret", "income", "--secret-bins", "1"], "--secret-bins must be a whole number"),
        (["--secret", "pid", "--secret-bins", "4"], "left out as an identifier"),
        (["--secret", "flat", "--secret-bins", "4"], "single value"),
        (["--secret", "s", "--secret-bins", "4"], "'s' is categorical"),
        (["--secret", "few", "--secret-bins", "5"], "more than the 3 distinct values of 'few'"),
        (["--secret", "mostly0", "--secret-bins", "2"], "meaningless for 'mostly0'"),
        (
            ["--secret", "signed", "--secret-tolerance", "0.1", "--tolerance-kind", "relative"],
            "ill-defined for 'signed'",
        ),
    ],
)
def test_aia_numeric_secret_bad_input_exit_2(
    numeric_files: dict[str, str],
    args: list[str],
    match: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    f = numeric_files
    rel = ["aia", "--original", f["train"], "--synthetic", f["train"], "--control", f["control"]]
    code = main([*rel, *args])
    err = capsys.readouterr().err.strip().splitlines()
    err = [e for e in err if "note:" not in e]
    assert code == 2 and len(err) == 1 and match in err[0], err


def test_aia_secret_all_sweeps_every_column_of_a_release(
    files: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    from synthleak.games.sweep import AttributeSweepResult

    base = ["aia", "--secret", "all", "--original", files["train"], "--na-values", "N"]
    base += ["--control", files["control"], "--attacks", "dcr"]
    assert main([*base, "--synthetic", files["train"], "--format", "json"]) == 0
    res = AttributeSweepResult.from_json(capsys.readouterr().out)
    assert {c.column for c in res.columns} == {"q0", "q1", "q2", "q3", "q4", "s"}
    assert res.flagged  # a copy of the training data
    assert main([*base, "--synthetic", files["other"]]) == 0
    text = capsys.readouterr().out
    assert "Holm-corrected over 6 columns" in text and "INFERRED" not in text
    # the sweep needs a control, one attack, and no per-secret options
    for extra, match in (
        (["--attacks", "dcr,recon"], "one attack"),
        (["--quasi-ids", "q0"], "--quasi-ids"),
    ):
        assert main([*base, "--synthetic", files["other"], *extra]) == 2
        assert match in capsys.readouterr().err
    no_ctl = ["aia", "--secret", "all", "--original", files["train"], "--synthetic", files["other"]]
    assert main(no_ctl) == 2 and "--control" in capsys.readouterr().err
    assert main(["aia", files["pop"], "--secret", "all", "--generator", "nonprivate"]) == 2
    assert "sweeps the columns of a release" in capsys.readouterr().err


def test_render_sweep_prints_a_holm_p_just_above_5_percent_as_above_it() -> None:
    """A column's corrected p-value one float above 5 % is not flagged: it reads "> 0.050",
    never "0.050" beside the unflagged status."""
    import math

    from synthleak.cli.aia import render_sweep
    from synthleak.games.sweep import AttributeSweepResult, SweptColumn
    from synthleak.metrics.privacy import RiskEstimate

    col = SweptColumn(
        "age", "the exact class", "measured", 0.4, 0.3,
        RiskEstimate(0.1, 0.01, 0.2, 0.95, 500, 0.0), 0.025,
        p_holm=math.nextafter(0.05, 1.0), flagged=False,
    )  # fmt: skip
    res = AttributeSweepResult(attack="recon", n_targets=None, alpha=0.05, columns=(col,))
    text = render_sweep(res)
    assert "p(Holm) > 0.050  measured" in text and "0.050  " not in text.replace("> 0.050", "")


# --- --relational: attribute inference of persons ----------------------------------------------
@pytest.fixture(scope="module")
def relational_folders(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Folders of tables (person, visit) of a release that replays the original's histories
    under new keys, and the metadata describing them."""
    from tests.cli.relational_folders import replay_folders

    return replay_folders(tmp_path_factory.mktemp("relational"), 3, 25)


def _relational_args(folders: dict[str, Path]) -> list[str]:
    args = ["aia", "--relational", str(folders["meta"])]
    args += [x for r in ("original", "synthetic", "control") for x in (f"--{r}", str(folders[r]))]
    return args


def test_relational_input_plays_the_person_attribute_game(
    relational_folders: dict[str, Path],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """aia --relational plays the person_attribute stage's game (the same function, the
    stage's parameters) on the folders' persons: the excess with its interval over the control
    persons' baseline, the persons inferred by root key; replayed histories are flagged."""
    import synthleak.games.person_attribute as games

    play, played, calls = games.play_person_attribute, [], []

    def spy(*args: object, **kwargs: object) -> object:
        calls.append(kwargs)
        played.append(play(*args, **kwargs))  # type: ignore[arg-type]
        return played[-1]

    monkeypatch.setattr(games, "play_person_attribute", spy)
    argv = [*_relational_args(relational_folders), "--secret", "region", "--n-targets", "60"]
    assert main([*argv, "--format", "json"]) == 0
    (res,) = played
    kw = calls[0]
    assert kw["root"] == "person" and list(kw["child_tables"]) == ["visit"]
    assert kw["attack_params"] == {"time_limit": 120.0} and kw["n_targets"] == 60
    assert kw["part_size"] == 60  # aia_part_size of the records attacked, as the stage
    doc = json.loads(capsys.readouterr().out)
    assert doc["level"] == "persons" and doc["root"] == "person" and doc["key"] == "pid"
    game = doc["game"]
    assert game["accuracy"]["value"] == res.game.accuracy.value
    assert game["difference"]["ci_low"] > 0  # the replayed histories give the region away
    assert game["config"]["n_targets_asked"] == 60 <= game["config"]["n_targets"]  # whole parts
    keys = set(pd.read_csv(relational_folders["original"] / "person.csv")["pid"])
    assert doc["inferred"] and set(doc["inferred"]) <= keys
    assert doc["n_inferred"] == res.n_inferred
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "Attribute inference of persons (rows of table 'person' with their child rows" in text
    assert "control (baseline)" in text and "excess over the control persons (baseline 0)" in text
    d = res.game.advantage
    assert f"{d.value:+.3f}" in text and f"{d.ci_low:+.3f} - {d.ci_high:+.3f}" in text
    assert f"by 'pid': {res.n_inferred}: {res.inferred[0]}, " in text


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--attacks", "dcr"], "--attacks do not apply to aia --relational"),
        (["--generator", "baynet", "--bins", "5"], "--generator, --bins do not apply"),
        (["--categorical", "region"], "--categorical, --continuous and --schema describe one"),
        (["--root", "nope"], "--root 'nope' is not a table"),
        (["--secret", "all"], "--secret all sweeps the columns of one table"),
        (["--secret", "visit.n_rows"], "is not a column of table 'person'"),
        (["--secret", "nope"], "nope"),
    ],
)
def test_relational_input_refuses_what_does_not_apply(
    relational_folders: dict[str, Path],
    capsys: pytest.CaptureFixture[str],
    extra: list[str],
    message: str,
) -> None:
    secret = [] if "--secret" in extra else ["--secret", "region"]
    assert main([*_relational_args(relational_folders), *secret, *extra]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and message in err, err
    args = _relational_args(relational_folders)
    assert main([*args[: args.index("--control")], "--secret", "region"]) == 2
    assert "aia --relational needs --control too" in capsys.readouterr().err


# --- utility --relational: the audit's utility stage on persons -----------------------------------
def test_utility_relational_is_the_audit_stage_figure_on_persons(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """utility --relational gives utility_estimate (the audit's utility stage's function, with
    its stream) on the person-level views of the three folders, encoded as the audit encodes
    them; JSON names the level, root and key, text says it is one row per person."""
    from tests.cli.relational_folders import replay_folders

    from synthleak.data.relational import RelationalSchema, load_relational, person_views
    from synthleak.data.release import encode_parts
    from synthleak.metrics.utility import utility_estimate
    from synthleak.stages.base import STAGE_STREAM

    dirs = replay_folders(tmp_path, 3, 20)
    args = ["utility", "--relational", str(dirs["meta"])]
    args += [x for n in ("original", "synthetic") for x in (f"--{n}", str(dirs[n]))]
    out = tmp_path / "u.json"
    ctl = ["--control", str(dirs["control"])]
    assert main([*args, *ctl, "--seed", "4", "--format", "json", "--out", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert (doc["level"], doc["root"], doc["key"]) == ("persons", "person", "pid")
    sch = RelationalSchema.from_sdv(dirs["meta"])
    parts = {n: load_relational(dirs[n], sch) for n in ("original", "synthetic", "control")}
    enc = encode_parts(person_views(parts))
    want = utility_estimate(
        enc.tables["original"],
        enc.tables["synthetic"],
        enc.tables["control"],
        rng=STAGE_STREAM.sub("utility").rng(4),
    )
    assert doc["n_original"] == 80 and doc["n_reference"] == 20
    for k in ("mre_gt10", "tvd3", "reference_mre_gt10", "reference_tvd"):
        assert doc[k] == pytest.approx(want[k])
    assert doc["reference_tvd_ci"] == pytest.approx(list(want["reference_tvd_ci"]))  # type: ignore[call-overload]
    # the replayed histories match the original's persons; the control's do not
    assert doc["tvd3"] == 0.0 < doc["reference_tvd"]
    assert main(args) == 0
    text = capsys.readouterr().out
    assert text.startswith("Measured on one row per person: the rows of table 'person'")
    assert "child rows in 'visit' summarised" in text
    assert "reference          not measured: needs --control DIR" in text


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--categorical", "age"], "--categorical, --continuous and --schema describe one table"),
        (["--root", "nope"], "--root 'nope' is not a table"),
        (["--synthetic", "SAME"], "Missing option '--original'"),
    ],
)
def test_utility_relational_bad_input_exit_2_nothing_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], message: str
) -> None:
    from tests.cli.relational_folders import replay_folders

    dirs = replay_folders(tmp_path, 3, 20)
    out = tmp_path / "u.json"
    args = ["utility", "--relational", str(dirs["meta"]), "--out", str(out)]
    if extra[0] == "--synthetic":  # no --original
        args += ["--synthetic", str(dirs["synthetic"])]
    else:
        args += ["--original", str(dirs["original"]), "--synthetic", str(dirs["synthetic"])]
        args += extra
    assert main(args) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and message in err, err
    assert not out.exists()
    person = str(dirs["original"] / "person.csv")
    for flags, said in (
        (["--root", "person"], "--root names the table of persons of --relational"),
        (["--control", person], "--control gives the reference of utility --relational"),
    ):
        assert main(["utility", "--original", person, "--synthetic", person, *flags]) == 2
        assert said in capsys.readouterr().err
