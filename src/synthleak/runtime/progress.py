"""Terminal progress with ETA (Rich), as a callback for :func:`synthleak.runtime.run_units`."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from synthleak.runtime.executor import ProgressFn


@contextmanager
def progress_bar(description: str, *, enabled: bool = True) -> Iterator[ProgressFn]:
    """A ``progress(done, total)`` callback drawing a Rich bar with ETA on stderr.

    Disabled (a no-op callback) when ``enabled`` is false or stderr is not a terminal.
    """
    console = Console(stderr=True)
    if not enabled or not sys.stderr.isatty():
        yield lambda done, total: None
        return
    bar = Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        console=console,
        transient=False,
    )
    task = bar.add_task(description, total=None)
    with bar:

        def update(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        yield update
