"""Parallel execution (local processes or a Dask cluster), the resumable run store, seeding and
progress.
"""

from synthleak.runtime.context import Runtime, as_runtime
from synthleak.runtime.executor import UnitResult, WorkUnit, run_units
from synthleak.runtime.seeding import stream_rng, unit_rng, unit_seed
from synthleak.runtime.store import RunStore

__all__ = [
    "RunStore",
    "Runtime",
    "UnitResult",
    "WorkUnit",
    "as_runtime",
    "run_units",
    "stream_rng",
    "unit_rng",
    "unit_seed",
]
