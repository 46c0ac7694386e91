from __future__ import annotations

import subprocess
import sys

import pytest

import synthleak
from synthleak.cli.app import app
from synthleak.cli.main import main


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
