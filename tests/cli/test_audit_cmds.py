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
    # the two-stage screen chose the targets, resumed from its own part of the run directory
    assert (out / "run" / "screen" / "catalogue.sqlite").exists()
    assert again["screening"] == first["screening"] and first["config"]["selector"] == "screen"
    screened = [r["row"] for r in first["screening"]["top"]]
    chosen = [t["row"] for t in first["membership"]["targets"] if t["selected_by"] == "screen"]
    assert chosen == screened[:1]  # the tiny plan attacks one target
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
        (["--generator", "indhist", "--selector", "vk"], "Invalid value for '--selector'"),
        (["--synthetic", "SYN", "--secret", "age"], "--secret-tolerance (and --tolerance-kind"),
        (
            ["--synthetic", "SYN", "--secret", "age", "--secret-tolerance", "-1"],
            "--secret-tolerance must be positive",
        ),
        (["--synthetic", "SYN", "--secret", "sex", "--secret-bins", "3"], "'sex' is categorical"),
        (["--synthetic", "SYN", "--secret-bins", "3"], "need --secret"),
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


#: Peak memory of the audit of 30,000 records below (README, "Data handling": every stage is
#: linear in records x columns; no dense product of category domains is ever allocated).
MEMORY_BOUND_MB = 1536


def test_audit_memory_is_bounded_with_huge_categorical_domains(tmp_path: Path) -> None:
    """A 5,000-level text column and a 30,000-level ID column: the audit finishes, with warnings.

    Counting 3-way marginals densely over such domains asked for hundreds of GiB; the audit must
    finish within :data:`MEMORY_BOUND_MB`, leave the identifier out and say so.
    """
    import subprocess
    import sys

    import synthleak as sl

    df = sl.datasets.load_adult().dropna().sample(frac=1.0, random_state=0)
    rng = np.random.default_rng(0)
    df["product_code"] = [f"P{c:05d}" for c in rng.integers(0, 5000, len(df))]
    df["person_id"] = np.arange(len(df)) + 100_000
    n, half = 30_000, (len(df) - 30_000) // 2
    paths = {}
    for name, part in {
        "original": df.iloc[:n],
        "synthetic": df.iloc[n : n + half],
        "control": df.iloc[n + half :],
    }.items():
        paths[name] = tmp_path / f"{name}.csv"
        part.to_csv(paths[name], index=False)
    assert df.iloc[:n]["product_code"].nunique() > 4900
    out = tmp_path / "out"
    code = (
        "import resource, sys\n"
        "from synthleak.cli.main import main\n"
        "rc = main(sys.argv[1:])\n"
        "print('PEAK_MB=%d' % (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024))\n"
        "sys.exit(rc)\n"
    )
    args = ["audit", "--budget", "quick", "--out-dir", str(out)]
    for name, path in paths.items():
        args += [f"--{name}", str(path)]
    done = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr[-2000:]
    peak = int(done.stdout.rsplit("PEAK_MB=", 1)[1].split()[0])
    assert peak < MEMORY_BOUND_MB, f"peak {peak} MB"
    assert "'person_id' is left out of the analysis as an identifier" in done.stderr
    assert "'product_code' is categorical with" in done.stderr
    report = json.loads((out / "report.json").read_text())
    assert report["schema"]["excluded"] == ["person_id"]
    assert "product_code" in [c["name"] for c in report["schema"]["columns"]]
    status = {stage["name"]: stage["status"] for stage in report["stages"]}
    for stage in ("vulnerability", "singling_out", "linkability", "membership_nobox", "utility"):
        assert status[stage] == "measured", status
    assert (out / "report.html").exists()


def test_unwritable_out_dir_fails_before_any_work(tmp_path: Path, capsys) -> None:
    """A folder that cannot be written is found before the attacks run (exit 2, one line)."""
    import os

    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o555)
    try:
        probe = locked / "probe"
        try:
            probe.write_text("x")  # root ignores permissions: nothing to test then
            pytest.skip("running as a user who can write into read-only folders")
        except PermissionError:
            pass
        out = locked / "report"
        code = main(["audit", "--original", "adult", "--synthetic", "adult", "--out-dir", str(out)])
    finally:
        locked.chmod(0o755)
    err = capsys.readouterr().err
    assert code == 2 and "cannot write into" in err and "--out-dir" in err
    assert "ranking" not in err and not out.exists() and os.listdir(locked) == []


def test_proc_out_dir_is_unwritable_even_for_root(capsys) -> None:
    code = main(["audit", "--original", "adult", "--synthetic", "adult", "--out-dir", "/proc/x"])
    err = capsys.readouterr().err
    assert code == 2 and "cannot write into /proc for --out-dir" in err
    assert err.count("synthleak: error") == 1 and "ranking" not in err


def test_failing_user_generator_exits_2_and_keeps_the_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    (tmp_path / "brokengen.py").write_text(
        "class Boom:\n"
        "    def fit(self, data):\n"
        "        raise RuntimeError('my generator broke')\n"
        "    def sample(self, n):\n"
        "        return None\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    out = tmp_path / "out"
    args = ["audit", "--original", "adult", "--generator", "python:brokengen:Boom"]
    code = main([*args, "--budget", "quick", "--out-dir", str(out)])
    err = capsys.readouterr().err
    assert code == 2, err
    last = [ln for ln in err.splitlines() if ln.startswith("synthleak: error")]
    assert len(last) == 1 and "python:brokengen:Boom failed" in last[0]
    assert "my generator broke" in last[0] and "Traceback" not in err
    assert (out / "report.json").exists()
