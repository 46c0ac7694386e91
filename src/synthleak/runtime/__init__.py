"""Parallel execution (local processes or a Dask cluster), the resumable run store, seeding and progress."""

from synthleak.runtime.executor import UnitResult, WorkUnit, run_units
from synthleak.runtime.seeding import unit_rng, unit_seed
from synthleak.runtime.store import RunStore

__all__ = ["RunStore", "UnitResult", "WorkUnit", "run_units", "unit_rng", "unit_seed"]
