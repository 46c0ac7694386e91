"""Parallel execution (local processes or a Dask cluster), the resumable run store, seeding and
progress.
"""

from synthleak.runtime.context import Runtime, as_runtime
from synthleak.runtime.executor import UnitResult, WorkUnit, run_units
from synthleak.runtime.seeding import (
    STREAMS_VERSION,
    Stream,
    game_seed,
    stream,
    stream_rng,
    unit_rng,
    unit_seed,
)
from synthleak.runtime.store import RunStore

__all__ = [
    "STREAMS_VERSION",
    "RunStore",
    "Runtime",
    "Stream",
    "UnitResult",
    "WorkUnit",
    "as_runtime",
    "game_seed",
    "run_units",
    "stream",
    "stream_rng",
    "unit_rng",
    "unit_seed",
]
