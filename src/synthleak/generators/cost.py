"""The measured cost of one generator fit + sample, for budget planning.

Shadow modelling repeats "fit a generator on ``train_size`` records, release
``synthetic_size``" hundreds or thousands of times, so what an audit costs is that unit's
cost times the number of shadow datasets. :func:`measure_cost` measures the unit on the
user's own data: each repeat draws a fresh training set (without replacement) from the table,
makes the generator anew from its spec, and times ``fit`` and ``sample`` separately with a
monotonic wall clock.

Notes
-----
Wall-clock seconds on this machine under its current load: a planner should re-measure rather
than reuse figures across machines. The first repeat may include one-off costs (imports, JIT
compilation: numba, JAX); ``repeats >= 2`` shows them in the spread, and
:attr:`GeneratorCost.median_seconds` is robust to them.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from synthleak.data.table import Table
from synthleak.errors import InputError
from synthleak.generators.base import make_generator
from synthleak.serde import FloatArray, Result


@dataclass(frozen=True, repr=False)
class GeneratorCost(Result):
    """Seconds per fit + sample of one generator spec, measured ``repeats`` times.

    Attributes
    ----------
    spec : str
        The generator spec.
    train_size, synthetic_size : int
        Training records per fit and records released per sample.
    fit_seconds, sample_seconds : ndarray of float
        Per repeat.
    """

    spec: str
    train_size: int
    synthetic_size: int
    fit_seconds: FloatArray
    sample_seconds: FloatArray

    @property
    def seconds(self) -> np.ndarray:
        """Fit + sample seconds per repeat."""
        return np.asarray(self.fit_seconds) + np.asarray(self.sample_seconds)

    @property
    def repeats(self) -> int:
        return len(self.fit_seconds)

    @property
    def mean_seconds(self) -> float:
        return float(np.mean(self.seconds))

    @property
    def median_seconds(self) -> float:
        return float(np.median(self.seconds))

    @property
    def min_seconds(self) -> float:
        return float(np.min(self.seconds))

    @property
    def max_seconds(self) -> float:
        return float(np.max(self.seconds))

    @property
    def std_seconds(self) -> float:
        """Sample standard deviation (0 with one repeat)."""
        s = self.seconds
        return float(np.std(s, ddof=1)) if len(s) > 1 else 0.0

    def summary(self) -> dict[str, float | int | str]:
        """Plain figures: spec, sizes, repeats, mean/median/min/max/std seconds."""
        return {
            "spec": self.spec,
            "train_size": self.train_size,
            "synthetic_size": self.synthetic_size,
            "repeats": self.repeats,
            "mean_seconds": self.mean_seconds,
            "median_seconds": self.median_seconds,
            "min_seconds": self.min_seconds,
            "max_seconds": self.max_seconds,
            "std_seconds": self.std_seconds,
        }


def measure_cost(
    spec: str,
    table: Table,
    *,
    train_size: int,
    synthetic_size: int,
    rng: np.random.Generator,
    repeats: int = 1,
) -> GeneratorCost:
    """Measure the seconds of one fit + sample of ``spec`` (see the module docstring).

    Parameters
    ----------
    spec : str
        Generator spec (``baynet:k=2``, ``sdv:ctgan:epochs=10``, ...).
    table : Table
        Data to draw the training sets from.
    train_size : int
        Training records per fit (at most ``len(table)``; drawn without replacement).
    synthetic_size : int
        Records sampled after each fit.
    rng : numpy.random.Generator
        Draws the training sets and seeds the generator.
    repeats : int, default 1
        Independent fit + sample runs.

    Returns
    -------
    GeneratorCost

    Raises
    ------
    InputError
        For a bad spec or sizes (checked before any fit).
    """
    if repeats < 1:
        raise InputError(f"repeats={repeats} must be >= 1")
    if train_size < 1 or train_size > len(table):
        raise InputError(
            f"train_size={train_size} must be between 1 and the number of records ({len(table)})"
        )
    if synthetic_size < 0:
        raise InputError(f"synthetic_size={synthetic_size} must be >= 0")
    make_generator(spec)  # a bad spec fails before any work
    fit_s = np.empty(repeats)
    sample_s = np.empty(repeats)
    for r in range(repeats):
        train = table.sample(train_size, rng=rng)
        gen = make_generator(spec)
        t0 = time.perf_counter()
        gen.fit(train, rng=rng)
        t1 = time.perf_counter()
        gen.sample(synthetic_size, rng=rng)
        t2 = time.perf_counter()
        fit_s[r], sample_s[r] = t1 - t0, t2 - t1
    return GeneratorCost(
        spec=spec.strip(),
        train_size=int(train_size),
        synthetic_size=int(synthetic_size),
        fit_seconds=fit_s,
        sample_seconds=sample_s,
    )
