from __future__ import annotations

import importlib
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from synthleak.cli.main import main
from synthleak.pipeline import BudgetPlan

audit_mod = importlib.import_module(
    "synthleak.pipeline"
)  # the package re-exports audit() under that name

TINY = BudgetPlan(100, 1, 1, 20, 20, 100, ("distance",), 4)


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory, adult_df: pd.DataFrame) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("data")
    rng = np.random.default_rng(0)
    rows = rng.choice(len(adult_df), 1500, replace=False)
    paths = {}
    for name, part in (("ori", rows[:600]), ("syn", rows[600:1200]), ("ctl", rows[1200:])):
        paths[name] = d / f"{name}.csv"
        adult_df.iloc[part].to_csv(paths[name], index=False, na_rep="?")
    return paths


@pytest.fixture(autouse=True)
def tiny_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(audit_mod.BUDGETS, audit_mod.Budget.QUICK, TINY)


def test_audit_writes_the_three_reports(files, tmp_path: Path, capsys) -> None:
    out = tmp_path / "rep"
    code = main(
        [
            "audit",
            "--original",
            str(files["ori"]),
            "--synthetic",
            str(files["syn"]),
            "--control",
            str(files["ctl"]),
            "--na-values",
            "?",
            "--budget",
            "quick",
            "--secret",
            "sex",
            "--out-dir",
            str(out),
        ]
    )
    assert code == 0
    assert capsys.readouterr().out.strip() == str(out / "report.html")
    doc = json.loads((out / "report.json").read_text())
    assert {f["key"] for f in doc["findings"]} >= {"linkability", "attribute.recon.release"}
    assert (out / "report.md").read_text().startswith("# synthleak privacy audit")
    # rebuild from the output directory
    assert main(["report", str(out), "--out-dir", str(tmp_path / "again")]) == 0
    assert json.loads((tmp_path / "again" / "report.json").read_text()) == doc


def test_generator_audit_leaves_a_resumable_run_dir(files, tmp_path: Path) -> None:
    out = tmp_path / "rep"
    args = [
        "audit",
        "--original",
        str(files["ori"]),
        "--generator",
        "indhist",
        "--na-values",
        "?",
        "--budget",
        "quick",
        "--out-dir",
        str(out),
    ]
    assert main(args) == 0
    first = json.loads((out / "report.json").read_text())
    units = sorted(p.name for p in (out / "run" / "units").iterdir())
    assert units and (out / "run" / "catalogue.sqlite").exists()
    assert main(args) == 0  # re-run resumes from the catalogue: identical membership results
    again = json.loads((out / "report.json").read_text())
    assert again["membership"]["targets"] == first["membership"]["targets"]
    # report from the membership game's own run directory
    assert main(["report", str(out / "run"), "--out-dir", str(tmp_path / "mia")]) == 0
    mia = json.loads((tmp_path / "mia" / "report.json").read_text())
    assert mia["membership"]["targets"] == first["membership"]["targets"]


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ([], "nothing to audit"),
        (["--synthetic", "SYN", "--secret", "nope"], "--secret 'nope' is not a column"),
        (["--generator", "nosuch"], "unknown generator"),
    ],
)
def test_bad_input_exit_2_and_no_report(
    files, tmp_path: Path, capsys, extra: list[str], message: str
) -> None:
    out = tmp_path / "rep"
    extra = [str(files["syn"]) if e == "SYN" else e for e in extra]
    assert (
        main(
            [
                "audit",
                "--original",
                str(files["ori"]),
                "--na-values",
                "?",
                *extra,
                "--out-dir",
                str(out),
            ]
        )
        == 2
    )
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert not out.exists()  # no report and no empty folder left behind


def test_report_needs_a_finished_run(tmp_path: Path, capsys) -> None:
    assert main(["report", str(tmp_path)]) == 2
    assert "no finished result" in capsys.readouterr().err


@pytest.mark.parametrize(("release", "code"), [("ori", 3), ("syn", 0)])
def test_fail_on_exit_code_and_junit(
    files, tmp_path: Path, capsys, release: str, code: int
) -> None:
    """A release that copies its training data fails the gate (exit 3); a disjoint sample of real
    people passes it (exit 0). The report and the JUnit file are written either way."""
    import xml.etree.ElementTree as ET

    out, junit = tmp_path / "rep", tmp_path / "checks.xml"
    args = [
        "audit",
        "--original",
        str(files["ori"]),
        "--synthetic",
        str(files[release]),
        "--control",
        str(files["ctl"]),
        "--na-values",
        "?",
        "--budget",
        "quick",
        "--fail-on",
        "singling_out.risk>0.05,linkability.risk>0.05",
        "--junit",
        str(junit),
        "--out-dir",
        str(out),
    ]
    assert main(args) == code
    err = capsys.readouterr().err
    assert ("FAILED" if code else "PASSED") in err
    doc = json.loads((out / "report.json").read_text())
    assert doc["policy"]["passed"] is (code == 0)
    suite = ET.parse(junit).getroot()
    assert int(suite.get("tests") or suite[0].get("tests")) == 2
    md = (out / "report.md").read_text()
    assert ("**FAIL:" if code else "**PASS:") in md


def test_bad_policy_is_exit_2_before_any_work(files, tmp_path: Path, capsys) -> None:
    out = tmp_path / "rep"
    args = ["audit", "--original", str(files["ori"]), "--synthetic", str(files["syn"])]
    assert main([*args, "--fail-on", "nonsense>1", "--out-dir", str(out)]) == 2
    assert "nonsense" in capsys.readouterr().err and not out.exists()
    assert main([*args, "--junit", str(tmp_path / "j.xml"), "--out-dir", str(out)]) == 2
    assert "--fail-on or --policy" in capsys.readouterr().err
