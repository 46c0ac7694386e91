"""The Typer application object; command modules register on it (see :mod:`synthleak.cli.main`)."""

from __future__ import annotations

import typer

app = typer.Typer(
    name="synthleak",
    help="Audit the privacy of synthetic tabular data.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)
