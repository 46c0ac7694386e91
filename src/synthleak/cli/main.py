"""Entry point of the ``synthleak`` command.

Errors: :class:`~synthleak.errors.InputError` (and usage errors) print one line and exit 2;
anything else prints one line and exits 1 (set ``SYNTHLEAK_DEBUG=1`` for the traceback).
"""

from __future__ import annotations

import os
import sys
from typing import Annotated

import typer

from synthleak import __version__
from synthleak.cli import (
    aia,  # noqa: F401
    attacks_cmd,  # noqa: F401
    audit_cmds,  # noqa: F401
    data_cmds,  # noqa: F401  (registers commands)
    generate,  # noqa: F401
    mia,  # noqa: F401
    risk_cmds,  # noqa: F401
    riskmap,  # noqa: F401
    vulnerable,  # noqa: F401
)
from synthleak.cli.app import app
from synthleak.errors import InputError

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


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; returns the exit code (0 ok, 2 bad input, 3 the release failed its policy,
    1 internal error, 130 interrupted)."""
    from synthleak.cli.common import flush_notes

    flush_notes(show=False)
    try:
        code = app(args=argv, standalone_mode=False)
        if isinstance(code, int) and code:  # typer.Exit(code) inside a command is returned
            if code == 3:  # the release failed its policy: the run itself succeeded
                flush_notes()
            return code
        flush_notes()
    except typer.Exit as exc:
        return exc.exit_code
    except typer.Abort:
        sys.stderr.write("synthleak: interrupted; finished work in the run directory is kept\n")
        return 130
    except click_exc.ClickException as exc:
        sys.stderr.write(f"synthleak: error: {exc.format_message()}\n")
        return 2
    except InputError as exc:
        from synthleak.cli.common import flag_message

        sys.stderr.write(f"synthleak: error: {flag_message(exc)}\n")
        return 2
    except KeyboardInterrupt:
        sys.stderr.write("synthleak: interrupted; finished work in the run directory is kept\n")
        return 130
    except Exception as exc:
        if os.environ.get("SYNTHLEAK_DEBUG"):
            raise
        msg = str(exc).splitlines()[0] if str(exc) else ""
        sys.stderr.write(
            f"synthleak: internal error: {type(exc).__name__}: {msg} "
            "(set SYNTHLEAK_DEBUG=1 for the traceback and report it)\n"
        )
        return 1
    return 0


def run() -> None:  # pragma: no cover
    sys.exit(main())


if __name__ == "__main__":  # pragma: no cover
    run()
