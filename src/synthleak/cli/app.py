"""The Typer application object; command modules register on it (see :mod:`synthleak.cli.main`).

``synthleak --help`` lists the commands grouped by task (each command names its group with
``rich_help_panel``), in plain text.
"""

from __future__ import annotations

import typer
from typer.core import TyperGroup

#: The order of the groups in ``synthleak --help``.
PANELS = (
    "Audit a release",
    "Privacy games (one attack family each)",
    "Data, generators and utility",
)


class GroupedCommands(TyperGroup):
    """A command group whose help lists its commands under a heading per task."""

    def format_commands(self, ctx: typer.Context, formatter: object) -> None:  # type: ignore[override]
        groups: dict[str, list[tuple[str, str]]] = {}
        names = [n for n in self.list_commands(ctx) if self.get_command(ctx, n) is not None]
        width = (formatter.width or 80) - max(map(len, names), default=0) - 6  # type: ignore[attr-defined]
        for name in names:
            cmd = self.get_command(ctx, name)
            if cmd is None or cmd.hidden:
                continue
            panel = getattr(cmd, "rich_help_panel", None) or "Other commands"
            groups.setdefault(panel, []).append((name, cmd.get_short_help_str(limit=width)))
        order = [p for p in PANELS if p in groups] + [p for p in groups if p not in PANELS]
        for panel in order:
            with formatter.section(panel):  # type: ignore[attr-defined]
                formatter.write_dl(groups[panel])  # type: ignore[attr-defined]


app = typer.Typer(
    name="synthleak",
    help="Audit the privacy of synthetic tabular data.",
    cls=GroupedCommands,
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)
