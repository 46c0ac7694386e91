from __future__ import annotations

import importlib
import json
import shutil
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from synthleak.cli.main import main
from synthleak.pipeline import BudgetPlan

audit_mod = importlib.import_module(
    "synthleak.pipeline"
)  # the package re-exports audit() under that name

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


def _generator_audit(files: dict[str, Path], out: Path) -> list[str]:
    """The command line of a quick audit of ``indhist`` on the original, written to ``out``."""
    return [
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


def test_generator_audit_leaves_a_resumable_run_dir(files, tmp_path: Path) -> None:
    out = tmp_path / "rep"
    args = _generator_audit(files, out)
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
    # the re-run states the screen's and the game's time over both runs, and that it resumed
    assert first["budget"]["resumed"] == [] and again["budget"]["resumed"] == ["screen", "game"]
    assert again["budget"]["screen_seconds"] > first["budget"]["screen_seconds"] > 0
    screened = [r["row"] for r in first["screening"]["top"]]
    chosen = [t["row"] for t in first["membership"]["targets"] if t["selected_by"] == "screen"]
    assert chosen == screened[:1]  # the tiny plan attacks one target
    # report from the membership game's own run directory
    assert main(["report", str(out / "run"), "--out-dir", str(tmp_path / "mia")]) == 0
    mia = json.loads((tmp_path / "mia" / "report.json").read_text())
    assert mia["membership"]["targets"] == first["membership"]["targets"]

    def headline(doc: dict) -> tuple[str, dict, list]:  # one number per record in both reports
        (f,) = [f for f in doc["findings"] if f["key"] == "membership.black_box"]
        return f["title"], f["estimate"], f["details"]["at_least"]

    assert headline(mia) == headline(first)


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ([], "nothing to audit"),
        (["--synthetic", "SYN", "--secret", "nope"], "--secret 'nope' is not a column"),
        (  # the workers, started before the files are read, are ended with the command
            ["--synthetic", "SYN", "--secret", "nope", "--workers", "2"],
            "--secret 'nope' is not a column",
        ),
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
    assert "'person_id' is left out of the attacks as an identifier" in done.stderr
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


# --- the real-data harness's silent leaks, as tests (copies through the command line) ---------


def _findings(out: Path) -> dict[str, dict]:
    doc = json.loads((out / "report.json").read_text())
    return {f["key"]: f for f in doc["findings"]}


def _people(n: int, start: int, rng: np.random.Generator) -> pd.DataFrame:
    """A small table of people: a free-text address, an identifier, decimals, categories."""
    return pd.DataFrame(
        {
            "case_id": np.arange(start, start + n),
            "address": [
                f"{rng.integers(100, 9999)} {rng.choice(['Vermont', 'Western', 'Florence'])} Ave"
                for _ in range(n)
            ],
            "age": rng.integers(15, 70, n),
            "sex": rng.choice(["M", "F"], n),
            "cause": rng.choice(["gunshot", "fire", "assault", "traffic"], n),
            "weight": np.round(rng.uniform(40, 110, n), 2),
        }
    )


def _audit(
    tmp_path: Path, name: str, ori: pd.DataFrame, syn: pd.DataFrame, ctl: pd.DataFrame, *extra: str
) -> Path:
    paths = {}
    for part, df in (("ori", ori), ("syn", syn), ("ctl", ctl)):
        paths[part] = tmp_path / f"{name}_{part}.csv"
        df.to_csv(paths[part], index=False)
    out = tmp_path / f"{name}_out"
    args = ["audit", "--original", str(paths["ori"]), "--synthetic", str(paths["syn"])]
    args += ["--control", str(paths["ctl"]), "--budget", "quick", "--out-dir", str(out), *extra]
    assert main(args) == 0
    return out


def test_copied_free_text_and_identifiers_are_flagged_with_a_tiny_control(tmp_path: Path) -> None:
    """The riot-deaths case: 63 people, a 16-record control (too small for the no-box game), a
    release that copies every street address and every case number but no whole record."""
    rng = np.random.default_rng(1)
    ori, ctl = _people(63, 0, rng), _people(16, 1000, rng)
    syn = pd.DataFrame({c: rng.permutation(ori[c].to_numpy()) for c in ori.columns})
    syn["weight"] = np.round(rng.uniform(40, 110, 63), 2)
    f = _findings(_audit(tmp_path, "riot", ori, syn, ctl))
    cols = f["copies.columns"]
    assert cols["verdict"] in ("measurable leakage", "severe leakage")
    named = " ".join(cols["where"])
    assert "'address' (left out of the attacks)" in named and "'case_id'" in named
    assert "against 0.0% among 16 control records (equal size)" in named


def test_verbatim_copy_with_decimals_counts_every_record(tmp_path: Path) -> None:
    """A verbatim copy of a table with decimal values (the diamonds case): every synthetic
    record is an exact copy, however the values are encoded inside."""
    rng = np.random.default_rng(2)
    ori, ctl = _people(300, 0, rng), _people(100, 1000, rng)
    ori["carat"] = np.round(rng.uniform(0.2, 3.0, 300), 2)
    ctl["carat"] = np.round(rng.uniform(0.2, 3.0, 100), 2)
    out = _audit(tmp_path, "copy", ori, ori.sample(frac=1.0, random_state=0), ctl)
    f = _findings(out)
    assert f["copies.exact"]["details"]["rate"] == 1.0
    assert f["copies.exact"]["verdict"] == "severe leakage"
    from synthleak.results import load_result

    result = load_result(out / "report.json")  # per-record arrays may sit in the side file
    assert result.copies is not None
    assert sorted(result.copies.copied_rows.tolist()) == list(range(300))  # original's rows


def test_copies_at_the_control_rate_are_not_flagged(tmp_path: Path) -> None:
    """Low-cardinality data copies records by chance: a fresh sample of the population matches
    training records about as often as the control does, which is no leak."""
    for seed in range(3):
        rng = np.random.default_rng(10 + seed)

        def sample(n: int, rng: np.random.Generator = rng) -> pd.DataFrame:
            return pd.DataFrame(
                {c: rng.choice(["a", "b", "c"], n, p=[0.7, 0.2, 0.1]) for c in "uvwx"}
            )

        f = _findings(_audit(tmp_path, f"chance{seed}", sample(800), sample(800), sample(200)))
        e = f["copies.exact"]
        assert e["details"]["rate"] > 0.3 and e["details"]["baseline_rate"] > 0.3
        assert e["verdict"] == "no evidence of leakage"


def test_keep_works_with_an_inferred_and_a_given_schema(tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    ori, ctl, syn = _people(120, 0, rng), _people(60, 500, rng), _people(120, 900, rng)
    out = _audit(tmp_path, "keep", ori, syn, ctl, "--keep", "case_id")
    doc = json.loads((out / "report.json").read_text())
    assert "case_id" in [c["name"] for c in doc["schema"]["columns"]]
    schema = tmp_path / "schema.json"  # the schema the audit used, case_id kept
    schema.write_text(json.dumps(doc["schema"]))
    out2 = _audit(tmp_path, "keep2", ori, syn, ctl, "--schema", str(schema), "--keep", "case_id")
    assert (out2 / "report.json").exists()


def test_schema_naming_a_missing_column_is_exit_2(tmp_path: Path, capsys) -> None:
    rng = np.random.default_rng(4)
    ori = _people(50, 0, rng)
    ori.to_csv(tmp_path / "o.csv", index=False)
    assert main(["schema", str(tmp_path / "o.csv"), "--out", str(tmp_path / "s.json")]) == 0
    ori.drop(columns=["cause"]).to_csv(tmp_path / "o2.csv", index=False)
    capsys.readouterr()
    out = tmp_path / "never"
    code = main(
        [
            "audit",
            "--original",
            str(tmp_path / "o2.csv"),
            "--synthetic",
            str(tmp_path / "o2.csv"),
            "--schema",
            str(tmp_path / "s.json"),
            "--out-dir",
            str(out),
        ]
    )
    assert code == 2
    err = capsys.readouterr().err
    assert "'cause'" in err and "Traceback" not in err
    assert not out.exists()


def test_selector_and_targets_take_both_names_of_v_k() -> None:
    """``audit --selector`` takes ``top`` as ``mia --targets`` does, and ``mia --targets``
    takes ``distance:N`` as ``audit --selector`` does."""
    from synthleak.cli.audit_cmds import SelectorChoice
    from synthleak.cli.common import parse_targets
    from synthleak.modes import AUDIT_SELECTORS, TargetMethod

    assert {c.api for c in SelectorChoice} == set(AUDIT_SELECTORS)
    assert SelectorChoice("top").api is TargetMethod.DISTANCE
    assert parse_targets("distance:3+random:2") == parse_targets("top:3+random:2")


SWEEP = replace(TINY, aia_records=100, aia_queries=2000)


def test_audit_secret_all_ranks_every_column_and_resumes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    """--secret all: the sweep is a stage of the audit (one finding per column, the report's
    section ranks them), a copied release flags the columns with the rows of the original whose
    secret was inferred (no values without --show-records), and a rerun resumes every column."""
    monkeypatch.setitem(audit_mod.BUDGETS, audit_mod.Budget.QUICK, SWEEP)
    rng = np.random.default_rng(3)
    ori, ctl = _people(120, 0, rng), _people(40, 1000, rng)
    syn = ori.copy()
    syn["case_id"] = np.arange(5000, 5120)
    out = _audit(tmp_path, "sweep", ori, syn, ctl, "--secret", "all")
    err = capsys.readouterr().err
    assert "attribute sweep: column 1 of 4" in err and "projected time" in err
    doc = json.loads((out / "report.json").read_text())
    sweep = doc["attribute_sweep"]
    assert {c["column"] for c in sweep["columns"]} == {"age", "sex", "cause", "weight"}
    assert set(sweep["skipped"]) == {"case_id", "address"}  # identifier and free text
    f = _findings(out)
    assert {k for k in f if k.startswith("attribute.sweep.")} == {
        f"attribute.sweep.{c}" for c in ("age", "sex", "cause", "weight")
    }
    assert "attribute.recon.release" not in f
    leaks = [
        k for k, v in f.items() if k.startswith("attribute.sweep.") and "leakage" in v["verdict"]
    ]
    leaks = [k for k in leaks if f[k]["verdict"] != "no evidence of leakage"]
    assert leaks  # a copy of the training data
    md = (out / "report.md").read_text()
    assert "## Attribute inference of every column" in md
    assert "record(s), rows " in md and "values only with --show-records" in md
    stages = {s["name"]: s for s in doc["stages"]}
    assert stages["attribute_sweep"]["status"] == "measured"
    assert stages["attribute_release"]["status"] == "not applicable"
    # a rerun into the same folder takes the finished stage; without it (a run stopped in the
    # middle of the sweep), it reloads every column's finished parts: the same figures
    args = ["audit", "--original", str(tmp_path / "sweep_ori.csv")]
    args += ["--synthetic", str(tmp_path / "sweep_syn.csv"), "--control"]
    args += [str(tmp_path / "sweep_ctl.csv"), "--budget", "quick", "--out-dir", str(out)]
    assert main([*args, "--secret", "all"]) == 0
    assert "Attribute inference of every column: finished in an earlier run, kept" in (
        capsys.readouterr().err
    )
    again = json.loads((out / "report.json").read_text())
    assert again["attribute_sweep"]["columns"] == sweep["columns"]
    shutil.rmtree(out / "run" / "stages")
    assert main([*args, "--secret", "all"]) == 0
    assert "reloaded from the run directory" in capsys.readouterr().err
    again = json.loads((out / "report.json").read_text())
    assert again["attribute_sweep"]["columns"] == sweep["columns"]


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--quasi-ids", "age"], "drop --quasi-ids"),
        (["--secret-tolerance", "5"], "give --secret-bins or nothing"),
    ],
)
def test_audit_secret_all_bad_input_exit_2(
    files, tmp_path: Path, capsys, extra: list[str], message: str
) -> None:
    out = tmp_path / "rep"
    args = ["audit", "--original", str(files["ori"]), "--synthetic", str(files["syn"])]
    args += ["--na-values", "?", "--secret", "all", *extra, "--out-dir", str(out)]
    assert main(args) == 2
    err = [e for e in capsys.readouterr().err.splitlines() if "error" in e]
    assert len(err) == 1 and message in err[0], err
    assert not out.exists()


def test_an_output_folder_of_an_earlier_stream_layout_is_refused(
    files, tmp_path: Path, capsys
) -> None:
    """An output folder whose finished work was drawn under the earlier layout is refused with
    one line and exit code 2; its finished work is left as it was."""
    from synthleak.runtime import RunStore

    out = tmp_path / "rep"
    RunStore(out / "run", {"seed": 0}).put("unit", {"x": np.zeros(2)})
    code = main(_generator_audit(files, out))
    err = capsys.readouterr().err
    assert code == 2
    assert "stream layout 1, this one uses 2" in err and "Traceback" not in err
    assert (out / "run" / "catalogue.sqlite").exists() and not (out / "report.json").exists()


def test_demo_says_where_it_writes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    seen: dict[str, object] = {}

    def run(options: object, **kw: object) -> tuple[Path, None]:
        seen.update(kw, options=options)
        return Path(str(kw["out"])) / "report.html", None

    monkeypatch.setattr(importlib.import_module("synthleak.cli.audit_cmds"), "_run_audit", run)
    monkeypatch.chdir(tmp_path)
    assert main(["demo"]) == 0
    out, err = capsys.readouterr()
    folder = (tmp_path / "synthleak-demo").absolute()
    assert f"writes its report into {folder}; choose the folder with --out-dir" in err
    assert out.strip() == str(folder / "report.html")
    (tmp_path / "mine" / "run").mkdir(parents=True)
    assert main(["demo", "--out-dir", "mine"]) == 0
    assert seen["out"] == Path("mine") and seen["original"] == "adult"
    assert f"into {tmp_path / 'mine'} (resuming the finished work there)" in capsys.readouterr().err


def test_audit_records_special_values_in_its_options(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: dict[str, object] = {}

    def run(options: object, **kw: object) -> tuple[Path, None]:
        seen["options"] = options
        return tmp_path / "report.html", None

    monkeypatch.setattr(importlib.import_module("synthleak.cli.audit_cmds"), "_run_audit", run)
    args = ["audit", "--original", "o.csv", "--synthetic", "s.csv", "--out-dir", str(tmp_path)]
    special = ["--special-values", "age=-8", "--special-values", "hours=-9,-1"]
    assert main([*args, *special]) == 0
    assert seen["options"].special_values == ("age=-8", "hours=-9,-1")  # type: ignore[attr-defined]


SDV_METADATA = {
    "tables": {
        "person": {
            "primary_key": "pid",
            "columns": {
                "pid": {"sdtype": "id"},
                "age": {"sdtype": "numerical"},
                "region": {"sdtype": "categorical"},
            },
        },
        "visit": {
            "primary_key": "vid",
            "columns": {
                "vid": {"sdtype": "id"},
                "pid": {"sdtype": "id"},
                "amount": {"sdtype": "numerical"},
                "kind": {"sdtype": "categorical"},
            },
        },
    },
    "relationships": [
        {
            "parent_table_name": "person",
            "parent_primary_key": "pid",
            "child_table_name": "visit",
            "child_foreign_key": "pid",
        }
    ],
}


def test_audit_reads_a_relational_release_from_folders(
    tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    import functools

    from tests.stages.test_person_membership import parts, replay

    import synthleak.games.person as person

    # one view attack (dcr) keeps the test fast; the game's attacks are tested in games/
    game = functools.partial(person.PersonMembershipGame, attacks=("dcr",))
    monkeypatch.setattr(person, "PersonMembershipGame", game)
    original, control, _ = parts(1)
    dirs = {}
    for name, data in (
        ("original", original),
        ("synthetic", replay(original, 9000)),
        ("control", control),
    ):
        dirs[name] = tmp_path / name
        dirs[name].mkdir()
        for table, frame in data.frames.items():
            frame.to_csv(dirs[name] / f"{table}.csv", index=False)
    meta = tmp_path / "metadata.json"
    meta.write_text(json.dumps(SDV_METADATA))
    args = ["audit", "--relational", str(meta), "--budget", "quick"]
    args += [x for n, d in dirs.items() for x in (f"--{n}", str(d))]
    out = tmp_path / "out"
    assert main([*args, "--out-dir", str(out)]) == 0
    doc = json.loads((out / "report.json").read_text())
    pm = doc["result"]["person_membership"] if "result" in doc else doc["person_membership"]
    keys = {int(k) for k in original.frames["person"]["pid"]}
    assert pm["exposed"] and {p["key"] for p in pm["exposed"]} <= keys
    md = (out / "report.md").read_text()
    assert "Membership inference of persons" in md and "person (person key)" in md
    capsys.readouterr()

    # an orphaned foreign key in one folder: exit 2, one line, no report folder
    bad = pd.read_csv(dirs["control"] / "visit.csv")
    bad.loc[0, "pid"] = 123456
    bad.to_csv(dirs["control"] / "visit.csv", index=False)
    assert main([*args, "--out-dir", str(tmp_path / "bad")]) == 2
    err = capsys.readouterr().err.strip()
    assert "orphaned" in err and "123456" in err and len(err.splitlines()) == 1
    assert not (tmp_path / "bad").exists()
    only = ["--original", str(dirs["original"]), "--out-dir", str(tmp_path / "none")]
    assert main([*args[:5], *only]) == 2
    assert "--synthetic DIR" in capsys.readouterr().err


def test_shadow_releases_must_be_a_folder(files, tmp_path: Path, capsys) -> None:
    out = tmp_path / "out"
    args = ["audit", "--original", str(files["ori"]), "--synthetic", str(files["syn"])]
    code = main([*args, "--shadow-releases", str(tmp_path / "none"), "--out-dir", str(out)])
    assert code == 2
    err = capsys.readouterr().err
    assert "--shadow-releases" in err and "is not a folder" in err and "Traceback" not in err


def test_relational_audit_takes_a_relational_generator_spec(tmp_path: Path, capsys) -> None:
    """--generator with --relational names a relational generator: a single-table spec is
    refused before any work, in one line, with no report folder."""
    from tests.stages.test_person_membership import parts

    original, control, others = parts(2)
    args = ["audit", "--relational", str(tmp_path / "metadata.json")]
    (tmp_path / "metadata.json").write_text(json.dumps(SDV_METADATA))
    for name, data in (("original", original), ("synthetic", others), ("control", control)):
        (tmp_path / name).mkdir()
        for table, frame in data.frames.items():
            frame.to_csv(tmp_path / name / f"{table}.csv", index=False)
        args += [f"--{name}", str(tmp_path / name)]
    out = tmp_path / "out"
    assert main([*args, "--generator", "baynet:k=2", "--out-dir", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert "unknown relational generator 'baynet'" in err and len(err.splitlines()) == 1
    assert not out.exists()


def test_generator_beside_the_release_attacks_it_with_shadow_releases(
    adult_df: pd.DataFrame, tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--generator beside --synthetic makes --shadows shadow releases from half the control
    records: a release that copies its original is flagged, the report has the section, the
    finding is in the audit's family of tests, and 1 or 2 workers give the same figures."""
    import synthleak.pipeline as pipeline

    # the stages this test reads (the generator-level games would run too, and take longest)
    kept = {"split", "release", "vulnerability", "copies", "membership_release"}
    monkeypatch.setattr(pipeline, "STAGES", tuple(s for s in pipeline.STAGES if s.name in kept))
    rows = np.random.default_rng(3).choice(len(adult_df), 1100, replace=False)
    ori, ctl = tmp_path / "ori.csv", tmp_path / "ctl.csv"
    adult_df.iloc[rows[:300]].to_csv(ori, index=False, na_rep="?")
    adult_df.iloc[rows[300:]].to_csv(ctl, index=False, na_rep="?")
    args = ["audit", "--original", str(ori), "--synthetic", str(ori), "--control", str(ctl)]
    args += ["--generator", "baynet:k=1", "--shadows", "3", "--na-values", "?"]
    args += ["--budget", "quick"]
    docs = []
    for workers in ("1", "2"):
        out = tmp_path / f"rep{workers}"
        assert main([*args, "--workers", workers, "--out-dir", str(out)]) == 0
        docs.append(json.loads((out / "report.json").read_text()))
    err = capsys.readouterr().err
    assert "making 3 shadow releases with 'baynet:k=1'" in err and "projected time" in err
    doc = docs[0]
    (f,) = [f for f in doc["findings"] if f["key"] == "membership.release"]
    # the copies are found, in the audit's family of tests: the shadows never copy, so the
    # verbatim check finds the members the release holds and scores them first
    assert f["verdict"] in ("measurable leakage", "severe leakage") and f["n_tests"] > 1
    assert f["estimate"]["ci_low"] > 0.95
    sec = doc["membership_release"]
    assert sec["verbatim"]["applied"] and sec["verbatim"]["shadow_found"] == 0
    md = (tmp_path / "rep1" / "report.md").read_text()
    assert "copies records significantly more often than the shadow releases" in md
    assert sec["shadows_from"] == "generator baynet:k=1" and sec["n_shadows"] == 3
    assert doc["config"]["n_shadows"] == 3
    assert "Membership inference on the release" in md
    # the non-members are control records no shadow release was trained on
    assert sec["n_dropped"] == 0 and max(sec["non_member_rows"]) < 800
    drop = ("fit_seconds", "score_seconds")
    from synthleak.serde import without_timings

    one, two = (without_timings(d["membership_release"], drop) for d in docs)
    assert one == two
    # the shadows are kept in the run directory, one unit each
    units = tmp_path / "rep1" / "run" / "membership-release" / "shadow-releases" / "units"
    assert len(list(units.iterdir())) == 3


def test_log_lines_are_printed_as_written(capsys: pytest.CaptureFixture[str]) -> None:
    # a candidate's lines start with its name in brackets, which rich would read as markup
    from synthleak.cli.audit_cmds import _logger

    _logger()("[baynet:k=1@seed0] audited [bold]")
    assert "[baynet:k=1@seed0] audited [bold]" in capsys.readouterr().err
