"""Terminal progress with a projection, as a callback for :func:`synthleak.runtime.run_units`.

The projection counts only the work left and the work done in this run: units read back from a
run directory (finished by an earlier, interrupted run) are neither work left nor evidence of
this run's speed (:class:`Projection`). On a terminal a Rich bar shows it; without one (a log
file, a pipe) a plain line on stderr says it every :data:`PLAIN_EVERY` seconds once a run of
units has taken that long, so that no stage over half a minute is silent.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
)

from synthleak.runtime.executor import ProgressFn

#: Seconds between two plain progress lines (and before the first) without a terminal.
PLAIN_EVERY = 30.0


def _seconds(seconds: float) -> str:
    """``"42 s"``, ``"3.5 min"``, ``"2.1 h"`` (as ``games.cost.format_seconds``)."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.1f} min"
    return f"{seconds / 3600:.1f} h"


class Projection:
    """Seconds left of a run of ``total`` units, from the units this run finished.

    The first :meth:`update` gives the units already finished when the run began (read back from
    a run directory: ``resumed``); the clock starts then. The time left is this run's seconds
    per unit it finished itself, times the units not finished yet. ``clock`` is a function
    returning seconds (``time.monotonic`` by default; a fake one in tests).
    """

    def __init__(self, total: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.total = int(total)
        self.clock = clock
        self.resumed: int | None = None
        self.done = 0
        self.started = 0.0

    def update(self, done: int, total: int | None = None) -> None:
        if total is not None:
            self.total = int(total)
        if self.resumed is None:
            self.resumed, self.started = int(done), self.clock()
        self.done = int(done)

    @property
    def elapsed(self) -> float:
        return 0.0 if self.resumed is None else self.clock() - self.started

    @property
    def finished_here(self) -> int:
        """Units this run finished (not those read back)."""
        return 0 if self.resumed is None else self.done - self.resumed

    def seconds_left(self) -> float | None:
        """Projected seconds until every unit is finished; ``None`` before this run has
        finished one (nothing to project from), 0 when none is left."""
        left = self.total - self.done
        if left <= 0:
            return 0.0
        if self.finished_here <= 0:
            return None
        return self.elapsed / self.finished_here * left

    def sentence(self) -> str:
        """``"12 of 40 units (8 kept from an earlier run), 1.2 min, about 3.0 min left"``."""
        kept = f" ({self.resumed} kept from an earlier run)" if self.resumed else ""
        left = self.seconds_left()
        when = "projection after the first unit" if left is None else f"about {_seconds(left)} left"
        if left == 0:
            when = "done"
        return f"{self.done} of {self.total} units{kept}, {_seconds(self.elapsed)}, {when}"


@contextmanager
def progress_bar(
    description: str,
    *,
    enabled: bool = True,
    clock: Callable[[], float] = time.monotonic,
    terminal: bool | None = None,
    heartbeat: float | None = 1.0,
) -> Iterator[ProgressFn]:
    """A ``progress(done, total)`` callback showing :class:`Projection` on stderr: a Rich bar on
    a terminal, else a plain line every :data:`PLAIN_EVERY` seconds once the run has taken that
    long (and a last one when it ends, if it did).

    A no-op callback when ``enabled`` is false. ``terminal`` overrides whether stderr is one;
    without one, a thread wakes every ``heartbeat`` seconds (``None``: never) to say where the
    run stands between units.
    """
    if not enabled:
        yield lambda done, total: None
        return
    projection = Projection(0, clock)
    if not (sys.stderr.isatty() if terminal is None else terminal):
        last = [0.0]
        lock = threading.Lock()

        def say(final: bool = False) -> None:
            with lock:
                elapsed = projection.elapsed
                if projection.resumed is None or elapsed < PLAIN_EVERY:
                    return
                if elapsed - last[0] >= PLAIN_EVERY or (final and last[0] < elapsed):
                    last[0] = elapsed
                    print(f"{description}: {projection.sentence()}", file=sys.stderr, flush=True)

        def plain(done: int, total: int) -> None:
            with lock:
                projection.update(done, total)
            say()

        # a unit may take minutes: a heartbeat says where the run stands between units
        stop = threading.Event()

        def beat() -> None:
            while heartbeat is not None and not stop.wait(heartbeat):
                say()

        thread = threading.Thread(target=beat, daemon=True) if heartbeat else None
        if thread is not None:
            thread.start()
        try:
            yield plain
        finally:
            stop.set()
            if thread is not None:
                thread.join()
        say(final=True)
        return
    bar = Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.fields[left]}"),
        console=Console(stderr=True),
        transient=False,
    )
    task = bar.add_task(description, total=None, left="")
    with bar:

        def update(done: int, total: int) -> None:
            projection.update(done, total)
            left = projection.seconds_left()
            kept = f"{projection.resumed} kept, " if projection.resumed else ""
            text = kept + ("" if left is None else f"about {_seconds(left)} left")
            bar.update(task, completed=done, total=total, left=text)

        yield update
