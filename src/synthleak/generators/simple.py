"""The two reference generators: ``nonprivate`` and ``indhist``.

``nonprivate`` releases a resample of the training records (no privacy at all: the oracle that pins
attacks at their maximum). ``indhist`` samples every column independently from its one-way histogram
(Annamalai, Gadotti and Rocher (2024), Sec. 5.2, IndHist): it keeps no correlations, so record-level
attacks should do no better than their baselines against it.
"""

from __future__ import annotations

import numpy as np

from synthleak.constraints import Interval, constraints
from synthleak.data.encoding import Discretiser
from synthleak.data.table import Table
from synthleak.generators.base import BaseGenerator, GeneratorInfo, params_of, register_generator


class NonPrivate(BaseGenerator):
    """Resample the training data with replacement.

    Notes
    -----
    Releasing m records from n resamples each training record with probability
    ``1 - (1 - 1/n)^m`` (about 0.63 when m = n).
    """

    def fit(self, table: Table, *, rng: np.random.Generator) -> NonPrivate:
        self.schema_ = table.schema
        self.data_ = table
        return self

    def _sample(self, n: int, *, rng: np.random.Generator) -> Table:
        if len(self.data_) == 0:
            raise ValueError("nonprivate was fitted on an empty table")
        return self.data_.take(rng.integers(0, len(self.data_), n))


class IndHist(BaseGenerator):
    """Independent per-column histograms (continuous columns in ``bins`` uniform bins).

    Parameters
    ----------
    bins : int, default 20
        uniform bins per continuous column.

    References
    ----------
    Annamalai, Gadotti and Rocher, "A linear reconstruction approach for attribute inference
    attacks against synthetic data", USENIX Security 2024, Sec. 5.2.
    """

    _parameter_constraints = constraints(bins=Interval(int, 1, None))

    def __init__(self, bins: int = 20) -> None:
        super().__init__()
        self.bins = bins

    def fit(self, table: Table, *, rng: np.random.Generator) -> IndHist:
        self.schema_ = table.schema
        self.disc_ = Discretiser(table.schema, self.bins)
        codes = self.disc_.transform(table)
        self.probs_ = []
        for f, size in enumerate(self.disc_.sizes):
            counts = np.bincount(codes[:, f].astype(np.int64), minlength=int(size)).astype(
                np.float64
            )
            self.probs_.append(np.cumsum(counts / counts.sum()))
        return self

    def _sample(self, n: int, *, rng: np.random.Generator) -> Table:
        u = rng.random((n, len(self.probs_)))
        codes = np.empty((n, len(self.probs_)), dtype=np.int64)
        for f, cdf in enumerate(self.probs_):
            codes[:, f] = np.minimum(np.searchsorted(cdf, u[:, f], side="right"), len(cdf) - 1)
        return self.disc_.inverse(codes, rng=rng)


register_generator(
    GeneratorInfo(
        "nonprivate", NonPrivate, (), "resample the training records with replacement (no privacy)"
    )
)
register_generator(
    GeneratorInfo(
        "indhist",
        IndHist,
        params_of(IndHist),
        "independent one-way histograms per column",
    )
)
