"""Where and how a game runs: :class:`Runtime` (workers, cluster, run directory, progress).

Every game takes ``runtime=None`` (inline, no run directory, no progress bars). Results never
depend on the runtime: randomness comes from the seed alone (:mod:`synthleak.runtime.seeding`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from synthleak.errors import InputError
from synthleak.runtime.executor import UnitFn, UnitResult, WorkUnit, run_units
from synthleak.runtime.store import RunStore


@dataclass(frozen=True)
class Runtime:
    """Execution settings shared by every game.

    Parameters
    ----------
    workers : int, default 1
        Local worker processes (1 runs inline). Ignored when ``cluster`` is given.
    cluster : str or distributed.Client, optional
        Dask scheduler address (``tcp://host:8786``) or a connected client.
    run_dir : path, optional
        Resumable run directory: finished work units are kept there and a re-run with the same
        configuration skips them.
    progress : bool, default False
        Rich progress bars with ETA on stderr (only when stderr is a terminal).
    """

    workers: int = 1
    cluster: str | Any | None = None
    run_dir: Path | None = None
    progress: bool = False

    def __post_init__(self) -> None:
        if isinstance(self.workers, bool) or int(self.workers) != self.workers or self.workers < 1:
            raise InputError(f"workers must be a whole number of at least 1, got {self.workers!r}")
        if self.run_dir is not None and not isinstance(self.run_dir, Path):
            object.__setattr__(self, "run_dir", Path(self.run_dir))

    def start(self) -> Runtime:
        """Start the local worker processes now, in the background, so that they have imported
        the library when the first units come (:func:`~synthleak.runtime.executor.start_pool`);
        nothing to do inline or on a cluster. Returns the runtime."""
        if self.cluster is None and self.workers > 1:
            from synthleak.runtime.executor import start_pool

            start_pool(self.workers)
        return self

    def sub(self, name: str) -> Runtime:
        """The same runtime with the run directory's subfolder ``name``
        (for a stage of an audit).
        """
        return replace(self, run_dir=None if self.run_dir is None else self.run_dir / name)

    def store(self, config: Mapping[str, Any]) -> RunStore | None:
        """The run store of ``config`` in :attr:`run_dir` (``None`` without a run directory)."""
        return None if self.run_dir is None else RunStore(self.run_dir, dict(config))

    def run(
        self,
        fn: UnitFn,
        units: Sequence[WorkUnit],
        *,
        shared: Any = None,
        store: RunStore | None = None,
        description: str = "work units",
    ) -> dict[str, UnitResult]:
        """Run ``units`` with these settings (see :func:`synthleak.runtime.run_units`)."""
        from synthleak.runtime.progress import progress_bar

        with progress_bar(description, enabled=self.progress) as bar:
            return run_units(
                fn,
                units,
                shared=shared,
                workers=self.workers,
                cluster=self.cluster,
                store=store,
                progress=bar,
            )


def as_runtime(runtime: Runtime | None) -> Runtime:
    """``runtime`` or the default (inline) runtime; anything else is an :class:`InputError`."""
    if runtime is None:
        return Runtime()
    if not isinstance(runtime, Runtime):
        raise InputError(
            f"runtime must be a synthleak.Runtime (workers, cluster, run_dir, progress), "
            f"got {type(runtime).__name__}"
        )
    return runtime
