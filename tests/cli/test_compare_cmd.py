"""``synthleak compare``: the reports, the recommendation's exit code, bad input."""

from __future__ import annotations

import importlib
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import synthleak as sl
from synthleak.cli.compare_cmd import parse_releases
from synthleak.cli.main import main
from synthleak.errors import InputError
from synthleak.generators import make_generator
from synthleak.pipeline import BudgetPlan

audit_mod = importlib.import_module("synthleak.pipeline")

TINY = BudgetPlan(
    n_attacks=100,
    mia_targets=1,
    mia_controls=1,
    shadows=20,
    tests=20,
    n=100,
    mia_attacks=("distance",),
    aia_games=4,
)
COLUMNS = ["age", "workclass", "fnlwgt", "education", "sex", "hours-per-week"]


@pytest.fixture(autouse=True)
def tiny_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(audit_mod.BUDGETS, audit_mod.Budget.QUICK, TINY)


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory, adult_df: pd.DataFrame) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("data")
    rows = np.random.default_rng(0).choice(len(adult_df), 800, replace=False)
    ori = adult_df[COLUMNS].iloc[rows[:400]].reset_index(drop=True)
    ctl = adult_df[COLUMNS].iloc[rows[400:]].reset_index(drop=True)
    t = sl.Table.from_frame(ori, sl.infer_schema(ori))
    rng = np.random.default_rng(1)
    clean = make_generator("baynet:k=1").fit(t, rng=rng).sample(len(t), rng=rng).to_frame()
    leaky = clean.copy()
    leaky.iloc[:8] = ori.iloc[:8].to_numpy()  # 2 % verbatim copies
    paths = {}
    for name, part in (("ori", ori), ("ctl", ctl), ("clean", clean), ("leaky", leaky)):
        paths[name] = d / f"{name}.csv"
        part.to_csv(paths[name], index=False)
    return paths


def _args(files: dict[str, Path], out: Path, *extra: str) -> list[str]:
    return [
        "compare",
        "--original",
        str(files["ori"]),
        "--control",
        str(files["ctl"]),
        "--release",
        f"clean={files['clean']}",
        "--release",
        f"leaky={files['leaky']}",
        "--budget",
        "quick",
        *extra,
        "--out-dir",
        str(out),
    ]


def test_compare_writes_the_comparison_and_every_candidates_report(
    files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "cmp"
    assert main(_args(files, out, "--fail-on", "copies.rate>0")) == 0
    captured = capsys.readouterr()
    assert captured.out.strip() == str(out / "comparison.html")
    assert "recommended: clean" in captured.err
    doc = json.loads((out / "comparison.json").read_text())
    assert [c["name"] for c in doc["candidates"]] == ["clean", "leaky"]
    assert doc["recommendation"]["best"] == "clean"
    (copies,) = [d for d in doc["differences"] if d["family"] == "copies.rate"]
    assert copies["significant"] and copies["difference"] < 0  # clean minus leaky
    md = (out / "comparison.md").read_text()
    assert md.startswith("# synthleak comparison\n\n## Privacy–utility frontier")
    assert "clean publishes fewer original records verbatim than leaky" in md
    for name in ("clean", "leaky"):
        assert (out / "candidates" / name / "report.html").is_file()
        assert (out / "run" / "candidates" / name).is_dir()  # each candidate's stages kept


def test_compare_exits_3_when_no_candidate_passes(
    files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "cmp"
    assert main(_args(files, out, "--fail-on", "membership.nobox.auc>0")) == 3
    assert "none: no candidate passes the policy" in capsys.readouterr().err
    assert (out / "comparison.html").is_file()  # written before the exit


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--release", "only=ORI"], "at least two candidates"),
        (["--release", "noequals"], "NAME=PATH"),
        (["--release", "a=ORI", "--release", "a=ORI"], "twice"),
        (["--release", "a=ORI", "--generator", "nosuchgen"], "nosuchgen"),
        (["--release", "a=ORI", "--release", "b=/no/such.csv"], "/no/such.csv"),
        (["--release", "a=ORI", "--release", "b=ORI", "--fail-on", "nonsense>1"], "nonsense"),
    ],
)
def test_bad_input_is_exit_2_with_one_line_and_no_output(
    files: dict[str, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    extra: list[str],
    message: str,
) -> None:
    out = tmp_path / "cmp"
    extra = [e.replace("ORI", str(files["ori"])) for e in extra]
    args = ["compare", "--original", str(files["ori"]), "--control", str(files["ctl"])]
    assert main([*args, *extra, "--out-dir", str(out)]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert not out.exists()


def test_missing_control_is_named(files: dict[str, Path], tmp_path: Path, capsys) -> None:
    args = ["compare", "--original", str(files["ori"]), "--release", f"a={files['ori']}"]
    assert main([*args, "--release", f"b={files['ori']}", "--out-dir", str(tmp_path / "x")]) == 2
    assert "--control" in capsys.readouterr().err


def test_parse_releases() -> None:
    assert parse_releases(["a=x.csv", " b = y.csv "]) == {"a": "x.csv", "b": "y.csv"}
    with pytest.raises(InputError, match="NAME=PATH"):
        parse_releases(["=x.csv"])


def test_shadow_releases_pair_the_release_membership_on_two_workers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.stages.release_shadows import noisy, write_case

    paths = write_case(tmp_path, n_original=200, n_control=300)
    other = tmp_path / "noisy.csv"
    noisy(pd.read_csv(paths["original"]), np.random.default_rng(3)).to_csv(other, index=False)
    out = tmp_path / "cmp"
    args = [
        "compare",
        "--original",
        str(paths["original"]),
        "--control",
        str(paths["control"]),
        "--release",
        f"copying={paths['synthetic']}",
        "--release",
        f"noisy={other}",
        "--shadow-releases",
        str(paths["shadows"]),
        "--budget",
        "quick",
        "--workers",
        "2",
        "--out-dir",
        str(out),
    ]
    assert main(args) == 0
    doc = json.loads((out / "comparison.json").read_text())
    (mia,) = [d for d in doc["differences"] if d["family"] == "membership.release.auc"]
    assert mia["significant"] and mia["difference"] > 0  # copying minus noisy
    md = (out / "comparison.md").read_text()
    assert "copying is more exposed to membership inference learned from the shadow" in md
    for name in ("copying", "noisy"):  # each candidate's stages kept, from its worker
        assert any((out / "run" / "candidates" / name).iterdir())


# --- --relational: candidates as folders of tables, compared person by person -----------------
@pytest.fixture(scope="module")
def relational_folders(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Folders of tables (person, visit): the original, the control, a release replaying the
    original's histories (``synthetic``) and one of other people's (``others``)."""
    from tests.cli.relational_folders import replay_folders

    return replay_folders(tmp_path_factory.mktemp("relational"), 4, 50, others=True)


def _relational_args(folders: dict[str, Path], out: Path, *extra: str) -> list[str]:
    return [
        "compare",
        "--relational",
        str(folders["meta"]),
        "--original",
        str(folders["original"]),
        "--control",
        str(folders["control"]),
        *extra,
        "--budget",
        "quick",
        "--out-dir",
        str(out),
    ]


def test_relational_compare_pairs_persons_and_recommends_the_clean_release(
    relational_folders: dict[str, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from synthleak import pipeline

    # the stages whose figures the comparison pairs (the others are audit's, tested there)
    kept = {"person_membership", "person_copies", "utility"}
    monkeypatch.setattr(pipeline, "STAGES", tuple(s for s in pipeline.STAGES if s.name in kept))
    f = relational_folders
    out = tmp_path / "cmp"
    releases = ["--release", f"replay={f['synthetic']}", "--release", f"clean={f['others']}"]
    args = _relational_args(f, out, *releases, "--fail-on", "copies.rate>0")
    assert main(args) == 0
    captured = capsys.readouterr()
    assert captured.out.strip() == str(out / "comparison.html")
    assert "recommended: clean" in captured.err
    doc = json.loads((out / "comparison.json").read_text())
    diffs = {d["family"]: d for d in doc["differences"]}
    for family in ("copies.person_history", "membership.person.auc"):
        assert diffs[family]["significant"] and diffs[family]["difference"] > 0  # replay - clean
    replay = next(c for c in doc["candidates"] if c["name"] == "replay")
    assert replay["worst_finding"]["membership.nobox.auc"] == "membership.person"
    md = (out / "comparison.md").read_text()
    assert "replay replays more training persons' whole histories than clean" in md
    for name in ("replay", "clean"):
        assert (out / "candidates" / name / "report.html").is_file()


@pytest.mark.parametrize(
    ("case", "message"),
    [
        ("file", "is not a folder"),
        ("missing", "--release b="),
        ("orphan", "orphaned"),
        ("generator", "unknown relational generator 'baynet'"),
        ("categorical", "--categorical, --continuous and --schema describe one table"),
    ],
)
def test_relational_bad_input_is_exit_2_with_one_line_and_no_output(
    relational_folders: dict[str, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    case: str,
    message: str,
) -> None:
    f = relational_folders
    bad = tmp_path / "bad"
    bad.mkdir()
    person = pd.read_csv(f["others"] / "person.csv")
    person.to_csv(bad / "person.csv", index=False)
    if case == "orphan":
        visit = pd.read_csv(f["others"] / "visit.csv")
        visit.loc[0, "pid"] = 123456
        visit.to_csv(bad / "visit.csv", index=False)
    b = {"file": bad / "person.csv"}.get(case, bad)
    extra = ["--release", f"a={f['synthetic']}", "--release", f"b={b}"]
    extra += {"generator": ["--generator", "baynet"], "categorical": ["--categorical", "sex"]}.get(
        case, []
    )
    out = tmp_path / "cmp"
    assert main(_relational_args(f, out, *extra)) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1 and "Traceback" not in err
    if case == "missing":
        assert "['visit']" in err and "missing" in err
    assert not out.exists()
