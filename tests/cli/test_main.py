from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import synthleak
from synthleak.cli.app import app
from synthleak.cli.main import interrupted_message, main
from synthleak.runtime.store import finished_units


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"synthleak {synthleak.__version__}"


def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["no-such-command"]) == 2
    assert main(["schema"]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err


def test_internal_error_exit_1(capsys: pytest.CaptureFixture[str]) -> None:
    @app.command("_boom", hidden=True)
    def boom() -> None:
        raise RuntimeError("kaboom")

    try:
        assert main(["_boom"]) == 1
    finally:
        app.registered_commands = [c for c in app.registered_commands if c.name != "_boom"]
    err = capsys.readouterr().err
    assert "internal error: RuntimeError: kaboom" in err and "Traceback" not in err


def test_console_script_bad_input_is_one_line(tmp_path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "synthleak.cli.main", "schema", str(tmp_path / "missing.csv")],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 2
    assert proc.stderr.strip().count("\n") == 0 and "does not exist" in proc.stderr


#: The environment with the standard streams buffered, as they are by default.
_BUFFERED = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}


def test_console_script_output_is_whole_and_its_exit_code_kept() -> None:
    """The console script ends without the interpreter's teardown: what it printed is all
    there (a JSON document through a pipe, block-buffered), with the command's exit code."""
    import json

    proc = subprocess.run(
        [sys.executable, "-m", "synthleak.cli.main", "schema", "adult"],
        capture_output=True,
        text=True,
        env=_BUFFERED,
    )
    assert proc.returncode == 0, proc.stderr
    assert len(json.loads(proc.stdout)["columns"]) == 15


_EXIT_NOW = """
import atexit, pathlib, sys, threading, time
from synthleak.cli.main import exit_now
out = pathlib.Path(sys.argv[1])
atexit.register(lambda: (out / "handler").write_text("ran"))
if sys.argv[2] == "thread":  # a thread that is not a daemon: the usual exit waits for it
    threading.Thread(target=lambda: (time.sleep(0.5), (out / "thread").write_text("ran"))).start()
sys.stdout.write("x" * 100)  # no newline: still in the buffer
exit_now(3)
"""


@pytest.mark.parametrize("case", ["plain", "thread"])
def test_exit_now_runs_the_exit_handlers_and_flushes(tmp_path: Path, case: str) -> None:
    proc = subprocess.run(
        [sys.executable, "-c", _EXIT_NOW, str(tmp_path), case],
        capture_output=True,
        text=True,
        env=_BUFFERED,
    )
    assert proc.returncode == 3, proc.stderr
    assert proc.stdout == "x" * 100
    assert (tmp_path / "handler").read_text() == "ran"
    assert (tmp_path / "thread").exists() == (case == "thread")


def _finished_units(run_dir: Path) -> int:
    """Finished units in every run store under ``run_dir`` (an audit's stages keep theirs in
    subfolders: the two-stage screen's are the first an audit finishes)."""
    return finished_units(run_dir)


@pytest.mark.parametrize("command", ["mia", "mia-workers", "audit", "compare-workers"])
def test_ctrl_c_exits_130_with_the_resume_hint(tmp_path: Path, command: str) -> None:
    """SIGINT in the middle of a long run: exit 130, one line naming the kept run directory.
    The audit is interrupted once it has kept its first finished work (a stage, or a unit of
    one), which must survive (units were once deleted with the output folder). A comparison
    on two workers keeps each candidate's stages as they finish on the workers.

    As from a terminal, the signal goes to the whole process group: with ``--workers 2`` the
    worker processes receive it too, and must stop without a traceback of their own.
    """
    if command.startswith("mia"):
        run_dir = tmp_path / "run"
        args = ["mia", "adult", "--generator", "indhist", "--targets", "rows:0,1,2,3,4,5"]
        args += ["--shadows", "400", "--tests", "100", "--batch-size", "2"]
        args += ["--run-dir", str(run_dir)]
        args += ["--workers", "2"] if command == "mia-workers" else []
    elif command == "audit":
        run_dir = tmp_path / "out" / "run"
        args = ["audit", "--original", "adult", "--generator", "indhist", "--budget", "standard"]
        args += ["--out-dir", str(tmp_path / "out")]
    else:
        run_dir = tmp_path / "out" / "run"
        adult = synthleak.datasets.load_adult()
        ori, ctl = tmp_path / "original.csv", tmp_path / "control.csv"
        adult.iloc[:24_000].to_csv(ori, index=False)
        adult.iloc[24_000:].to_csv(ctl, index=False)
        args = ["compare", "--original", str(ori), "--control", str(ctl), "--workers", "2"]
        args += ["--generator", "indhist:seed=0,1,2", "--budget", "standard"]
        args += ["--out-dir", str(tmp_path / "out")]
    proc = subprocess.Popen(
        [sys.executable, "-m", "synthleak.cli.main", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # a terminal's Ctrl-C: the default SIGINT disposition, whatever the test worker inherited
        # (an ignored signal stays ignored across exec, and Python then installs no handler)
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        start_new_session=True,  # its own process group, which the signal goes to
    )
    deadline = time.monotonic() + 240
    while _finished_units(run_dir) == 0 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.2)
    assert proc.poll() is None, "the run finished before it could be interrupted"
    os.killpg(proc.pid, signal.SIGINT)
    try:
        _, err = proc.communicate(timeout=180)
    except subprocess.TimeoutExpired:
        proc.kill()
        _, err = proc.communicate()
        pytest.fail(f"no exit within 180 s of SIGINT; stderr:\n{err[-2000:]}")
    assert proc.returncode == 130, err
    lines = [ln for ln in err.splitlines() if ln.startswith("synthleak:")]
    assert lines[-1] == (
        f"synthleak: interrupted; finished work is kept in {run_dir}: "
        "run the same command again to resume it"
    ), err
    assert "Traceback" not in err and _finished_units(run_dir) > 0


_BLOCK_NOBOX = """
import sys, time
from dataclasses import replace
import synthleak.pipeline as p

def wait(ctx, rng):
    time.sleep(600)

p.STAGES = tuple(replace(s, run=wait) if s.name == "membership_nobox" else s for s in p.STAGES)
from synthleak.cli.main import main
sys.exit(main(sys.argv[1:]))
"""


def test_kill_9_keeps_the_finished_stages_of_a_release_audit(tmp_path: Path, capsys) -> None:
    """``kill -9`` in the middle of a release audit (here while the no-box stage runs) keeps
    the stages it finished: the same command run again takes them and reports what an audit
    never killed does."""
    import json

    import numpy as np

    from synthleak.serde import without_timings

    df = synthleak.datasets.load_adult()
    rows = np.random.default_rng(0).permutation(len(df))
    files = {}
    for name, part in (("ori", rows[:4000]), ("syn", rows[4000:8000]), ("ctl", rows[8000:9000])):
        files[name] = tmp_path / f"{name}.csv"
        df.iloc[part].to_csv(files[name], index=False)

    def args(out: Path) -> list[str]:
        return [
            "audit",
            "--original",
            str(files["ori"]),
            "--synthetic",
            str(files["syn"]),
            "--control",
            str(files["ctl"]),
            "--budget",
            "quick",
            "--out-dir",
            str(out),
        ]

    out = tmp_path / "killed"
    proc = subprocess.Popen(
        [sys.executable, "-c", _BLOCK_NOBOX, *args(out)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    stages = out / "run" / "stages"
    deadline = time.monotonic() + 240
    while _finished_units(stages) < 3 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.1)
    assert proc.poll() is None, proc.communicate()[1]
    proc.kill()
    proc.communicate()
    assert not (out / "report.json").exists()

    assert main(args(out)) == 0
    err = capsys.readouterr().err
    for title in ("Verbatim copies", "Singling out", "Linkability"):
        assert f"{title}: finished in an earlier run, kept" in err
    assert "membership inference without the generator (" in err  # not kept: it ran now
    assert main(args(tmp_path / "whole")) == 0

    def figures(path: Path) -> object:
        return without_timings(json.loads(path.read_text()), drop=("command_line",))

    killed, whole = (figures(tmp_path / d / "report.json") for d in ("killed", "whole"))
    assert killed["findings"] == whole["findings"] and killed == whole


def test_interrupted_message_without_a_run_directory(tmp_path: Path) -> None:
    assert "add --run-dir DIR" in interrupted_message(["mia", "adult"])
    gone = str(tmp_path / "never")
    assert interrupted_message(["audit", "--out-dir", gone]).endswith("run the same command again")
    kept = tmp_path / "cmp" / "run"
    kept.mkdir(parents=True)
    said = interrupted_message(["compare", "--out-dir", str(tmp_path / "cmp")])
    assert said == (
        f"synthleak: interrupted; finished work is kept in {kept}: "
        "run the same command again to resume it"
    )


def test_a_renamed_option_names_its_new_name(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["generate", "adult", "--generator", "indhist", "--n", "5", "--out", "x.csv"])
    err = capsys.readouterr().err
    assert (
        code == 2 and err == "synthleak: error: No such option: --n: it is now --synthetic-size\n"
    )


@pytest.mark.parametrize(
    ("argv", "hint"),
    [
        (["mia", "adult", "--n", "5"], "--train-size (in mia, --n was the training records"),
        (["mia", "adult", "--m", "5"], "--synthetic-size (in mia, --m was the synthetic"),
        (["aia", "adult", "--n", "5"], "--train-size (in aia, --n was the records of each"),
        (["aia", "adult", "--m", "5"], "--synthetic-size (in aia, --m was the synthetic sizes"),
        (["linkability", "--neighbors", "2"], "--n-neighbours"),
    ],
)
def test_a_renamed_option_says_what_it_meant_in_its_command(
    argv: list[str], hint: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """In mia and aia --n was the training size, not the synthetic size: following the hint
    must keep the experiment."""
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert f"No such option: {argv[-2]}: it is now {hint}" in err
