"""Entry point of the ``synthleak`` command.

Errors: :class:`~synthleak.errors.InputError`, usage errors and file-system errors on the user's
paths print one line and exit 2; Ctrl-C prints where finished work is kept and exits 130;
anything else prints one line and exits 1 (set ``SYNTHLEAK_DEBUG=1`` for the traceback).
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from typing import Annotated

import typer

from synthleak import __version__
from synthleak.cli import (
    aia,  # noqa: F401
    attacks_cmd,  # noqa: F401
    audit_cmds,  # noqa: F401
    compare_cmd,  # noqa: F401
    data_cmds,  # noqa: F401  (registers commands)
    env_cmd,  # noqa: F401
    generate,  # noqa: F401
    mia,  # noqa: F401
    risk_cmds,  # noqa: F401
    riskmap,  # noqa: F401
    vulnerable,  # noqa: F401
)
from synthleak.cli.app import app
from synthleak.errors import InputError, interrupt_outside_callbacks, raise_if_interrupted

try:  # typer >= 0.20 vendors click as typer._click
    from typer._click import exceptions as click_exc
except ImportError:  # pragma: no cover
    from click import exceptions as click_exc  # type: ignore[no-redef]


def _version(value: bool) -> None:
    if value:
        typer.echo(f"synthleak {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Show the version.")
    ] = False,
) -> None:
    """Audit the privacy of synthetic tabular data."""


#: Options renamed when the command line adopted one vocabulary (CHANGELOG, Unreleased).
RENAMED = {
    "--n": "--synthetic-size",
    "--dir": "--out-dir",
    "--fmt": "--format",
    "--queries": "--n-queries",
}
#: Old options that meant something else in one command (the paper's n and m: training and
#: synthetic records): the hint says what the option meant there, so following it keeps the
#: experiment.
RENAMED_IN: dict[tuple[str, str], str] = {
    ("mia", "--n"): "--train-size (in mia, --n was the training records per dataset)",
    ("mia", "--m"): "--synthetic-size (in mia, --m was the synthetic records released)",
    ("aia", "--n"): "--train-size (in aia, --n was the records of each original dataset)",
    ("aia", "--m"): "--synthetic-size (in aia, --m was the synthetic sizes, comma-separated)",
    ("riskmap", "--n"): "--train-size (in riskmap, --n was the records of the private dataset)",
    ("riskmap", "--m"): "--synthetic-size (in riskmap, --m was the synthetic records per dataset)",
    # one spelling family with --neighbouring, and counts named n_...
    ("linkability", "--neighbors"): "--n-neighbours (the same count, k)",
}


def rename_hint(args: list[str], option: str) -> str | None:
    """The new name of a retired option in the command of ``args`` (``None`` if unknown)."""
    command = next((a for a in args if not a.startswith("-")), "")
    return RENAMED_IN.get((command, option)) or RENAMED.get(option)


def _flag_value(args: list[str], flag: str) -> str | None:
    for i, arg in enumerate(args):
        if arg == flag and i + 1 < len(args):
            return args[i + 1]
        if arg.startswith(flag + "="):
            return arg.split("=", 1)[1]
    return None


def interrupted_message(args: list[str]) -> str:
    """The line printed on Ctrl-C: where finished work is kept and how to resume."""
    command = args[0] if args else ""
    run_dir = _flag_value(args, "--run-dir")
    if command in {"audit", "compare", "demo"}:  # their stages are kept in OUT_DIR/run
        out = _flag_value(args, "--out-dir") or ("synthleak-demo" if command == "demo" else None)
        run_dir = None if out is None else os.path.join(out, "run")
    if run_dir is not None and os.path.isdir(run_dir):
        return (
            f"synthleak: interrupted; finished work is kept in {run_dir}: "
            "run the same command again to resume it"
        )
    if command in {"mia", "aia", "riskmap"} and run_dir is None:
        return "synthleak: interrupted; no work was kept: add --run-dir DIR to make it resumable"
    return "synthleak: interrupted before any work finished: run the same command again"


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; returns the exit code (0 ok, 2 bad input, 3 the release failed its policy,
    1 internal error, 130 interrupted)."""
    from synthleak.cli.common import flush_notes

    flush_notes(show=False)
    args = list(sys.argv[1:] if argv is None else argv)
    before = signal.getsignal(signal.SIGINT)
    if (
        before is signal.default_int_handler
        and threading.current_thread() is threading.main_thread()
    ):
        signal.signal(signal.SIGINT, interrupt_outside_callbacks)  # Python's, but not in a callback
    try:
        code = app(args=argv, standalone_mode=False)
        if isinstance(code, int) and code:  # typer.Exit(code) inside a command is returned
            if code == 3:  # the release failed its policy: the run itself succeeded
                flush_notes()
            if code == 130:  # typer turns KeyboardInterrupt into Exit(130)
                sys.stderr.write(interrupted_message(args) + "\n")
            return code
        flush_notes()
    except typer.Exit as exc:
        if exc.exit_code == 130:
            sys.stderr.write(interrupted_message(args) + "\n")
        return exc.exit_code
    except (typer.Abort, KeyboardInterrupt):
        sys.stderr.write(interrupted_message(args) + "\n")
        return 130
    except click_exc.ClickException as exc:
        msg = exc.format_message()
        unknown = msg.split()[3].rstrip(".") if msg.startswith("No such option: ") else ""
        hint = rename_hint(args, unknown) if unknown else None
        if hint:
            msg = f"No such option: {unknown}: it is now {hint}"
        sys.stderr.write(f"synthleak: error: {msg}\n")
        return 2
    except InputError as exc:
        from synthleak.cli.common import flag_message

        sys.stderr.write(f"synthleak: error: {flag_message(exc)}\n")
        return 2
    except Exception as exc:
        try:
            raise_if_interrupted(exc)
        except KeyboardInterrupt:
            sys.stderr.write(interrupted_message(args) + "\n")
            return 130
        if os.environ.get("SYNTHLEAK_DEBUG"):
            raise
        if isinstance(exc, OSError) and exc.filename is not None:  # the user's file system
            sys.stderr.write(
                f"synthleak: error: {exc.filename}: {exc.strerror or exc}: check the path, its "
                "permissions and the free disk space\n"
            )
            return 2
        msg = str(exc).splitlines()[0] if str(exc) else ""
        sys.stderr.write(
            f"synthleak: internal error: {type(exc).__name__}: {msg} "
            "(set SYNTHLEAK_DEBUG=1 for the traceback and report it)\n"
        )
        return 1
    finally:
        if signal.getsignal(signal.SIGINT) is interrupt_outside_callbacks:
            signal.signal(signal.SIGINT, before)
    return 0


def run() -> None:  # pragma: no cover
    code = main()
    # the workers now, before the interpreter's exit would wait for those still importing
    executor = sys.modules.get("synthleak.runtime.executor")
    if executor is not None:
        executor.close_pool()
    exit_now(code)


def exit_now(code: int) -> None:
    """End the command with ``code`` without the interpreter's teardown, which frees every
    module and object one by one: after an audit, 2,500 modules (scipy, scikit-learn, numba,
    matplotlib) and their objects, 1.3-2.2 s of a 10 s command on two cores. What the teardown
    would do that matters is done first: the exit handlers run (temporary folders, the
    workers, logging) and the standard streams are flushed. Where a thread that is not a
    daemon still runs, or the interpreter has no way to run the handlers, the usual exit."""
    import atexit

    run_handlers = getattr(atexit, "_run_exitfuncs", None)
    others = [t for t in threading.enumerate() if t is not threading.main_thread()]
    if run_handlers is None or any(not t.daemon for t in others):
        sys.exit(code)
    run_handlers()
    for stream in (sys.stdout, sys.stderr):
        # a reader that went away (a pipe closed by ``head``): nothing to do
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(code)


if __name__ == "__main__":  # pragma: no cover
    run()
