"""Groundhog membership attack (Stadler et al.): aggregate-statistics features + random forest.

The attack summarises every synthetic dataset by target-independent aggregate statistics and
learns IN/OUT from them on the shadow datasets:

* ``naive``: per continuous column mean, median and variance; per categorical column the number
  of distinct values and the frequency of the most frequent value;
* ``histogram``: per-column marginal frequencies (every category; continuous columns in
  ``n_bins`` uniform bins over the schema's range, plus missing);
* ``correlation``: the pairwise Pearson correlations between all columns (categorical columns
  as their codes).

All features are computed for a whole stack of datasets at once.

References
----------
Stadler et al. (2022), "Synthetic data - anonymisation groundhog day", USENIX Security
(feature sets F_Naive, F_Hist, F_Corr); cited as [33] in Meeus et al. (2023), Sec. 3
(aggregate-statistics shadow-modelling MIA) and Sec. 5.2.

Notes
-----
Threat model: black-box knowledge of the generator and auxiliary data (shadow modelling); the
features do not look at the target record, only the classifier is target-specific.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum

import numpy as np
from sklearn.ensemble import RandomForestClassifier

from synthleak.attacks.base import AttackFamily, AttackInfo, register_attack
from synthleak.attacks.mia_query import ForestMembershipAttack
from synthleak.constraints import N_JOBS, Interval, Options, check_params, constraints
from synthleak.data.table import Table
from synthleak.queries import TableStack, stack_tables


class FeatureSet(StrEnum):
    """Groundhog feature sets."""

    NAIVE = "naive"
    HISTOGRAM = "histogram"
    CORRELATION = "correlation"
    ALL = "all"


def naive_features(stack: TableStack) -> np.ndarray:
    """Mean/median/variance per continuous column; #distinct and top frequency per categorical."""
    b, m = len(stack), stack.n_rows
    parts: list[np.ndarray] = []
    if stack.values.shape[2]:
        v = stack.values.astype(np.float64)
        with np.errstate(all="ignore"):
            parts += [np.nanmean(v, axis=1), np.nanmedian(v, axis=1), np.nanvar(v, axis=1)]
    for j, col in enumerate(stack.schema.categorical):
        counts = _code_counts(stack.codes[:, :, j], col.size)
        parts.append((counts > 0).sum(axis=1, keepdims=True).astype(np.float64))
        parts.append(counts.max(axis=1, keepdims=True) / max(m, 1))
    if not parts:
        return np.zeros((b, 0), dtype=np.float32)
    return np.nan_to_num(np.concatenate(parts, axis=1), nan=0.0).astype(np.float32)


def _code_counts(codes: np.ndarray, size: int) -> np.ndarray:
    """Per-dataset histogram of one integer column ``(B, m)`` -> ``(B, size)``."""
    b = codes.shape[0]
    flat = codes.astype(np.int64) + (np.arange(b, dtype=np.int64) * size)[:, None]
    return np.bincount(flat.ravel(), minlength=b * size).reshape(b, size).astype(np.float64)


def histogram_features(stack: TableStack, n_bins: int = 10) -> np.ndarray:
    """Marginal frequencies of every column (continuous: ``n_bins`` bins + a missing bin)."""
    m = max(stack.n_rows, 1)
    parts = [
        _code_counts(stack.codes[:, :, j], c.size) / m
        for j, c in enumerate(stack.schema.categorical)
    ]
    for j, c in enumerate(stack.schema.continuous):
        v = stack.values[:, :, j]
        span = (c.high - c.low) or 1.0
        with np.errstate(invalid="ignore"):
            binned = np.clip(np.floor((v - c.low) / span * n_bins), 0, n_bins - 1)
        codes = np.where(np.isnan(v), n_bins, binned).astype(np.int64)
        parts.append(_code_counts(codes, n_bins + 1) / m)
    return np.concatenate(parts, axis=1).astype(np.float32)


def correlation_features(stack: TableStack) -> np.ndarray:
    """Pearson correlations of every pair of columns (upper triangle), per dataset."""
    x = np.concatenate(
        [stack.codes.astype(np.float64), np.nan_to_num(stack.values.astype(np.float64), nan=0.0)],
        axis=2,
    )
    f = x.shape[2]
    if f < 2:
        return np.zeros((len(stack), 0), dtype=np.float32)
    x = x - x.mean(axis=1, keepdims=True)
    cov = np.einsum("bmi,bmj->bij", x, x)
    sd = np.sqrt(np.einsum("bii->bi", cov))
    with np.errstate(invalid="ignore", divide="ignore"):
        corr = cov / (sd[:, :, None] * sd[:, None, :])
    iu = np.triu_indices(f, 1)
    return np.nan_to_num(corr[:, iu[0], iu[1]], nan=0.0).astype(np.float32)


class GroundhogAttack(ForestMembershipAttack):
    """Aggregate statistics of the synthetic data + random forest (Stadler et al. 2022).

    Parameters
    ----------
    feature_set : FeatureSet or str
        ``naive``, ``histogram``, ``correlation`` or ``all`` (their concatenation, default).
    n_bins : int
        Bins per continuous column in the histogram features.
    n_estimators, max_depth : int
        Random forest size.

    References
    ----------
    Stadler et al. (2022); Meeus et al. (2023), Sec. 3.
    """

    name = "groundhog"
    _parameter_constraints = constraints(
        feature_set=Options(FeatureSet),
        n_bins=Interval(int, 1, None),
        n_estimators=Interval(int, 1, None),
        max_depth=(Interval(int, 1, None), None),
        n_jobs=N_JOBS,
    )

    def __init__(
        self,
        feature_set: FeatureSet | str = FeatureSet.ALL,
        n_bins: int = 10,
        n_estimators: int = 100,
        max_depth: int | None = 10,
        n_jobs: int = 1,
    ) -> None:
        self.feature_set = feature_set
        self.n_bins = n_bins
        self.n_estimators = n_estimators
        self.max_depth = max_depth
        self.n_jobs = n_jobs
        self.model_: RandomForestClassifier | None = None

    def features(self, datasets: Sequence[Table]) -> np.ndarray:
        """The chosen feature set for every dataset: ``(B, n_features)`` float32."""
        check_params(self, self._parameter_constraints)  # also when called before fit
        fs = FeatureSet(self.feature_set)
        stack = stack_tables(datasets)
        parts = []
        if fs in (FeatureSet.NAIVE, FeatureSet.ALL):
            parts.append(naive_features(stack))
        if fs in (FeatureSet.HISTOGRAM, FeatureSet.ALL):
            parts.append(histogram_features(stack, int(self.n_bins)))
        if fs in (FeatureSet.CORRELATION, FeatureSet.ALL):
            parts.append(correlation_features(stack))
        return np.concatenate(parts, axis=1)


register_attack(
    AttackInfo(
        "groundhog",
        AttackFamily.MEMBERSHIP,
        GroundhogAttack,
        "aggregate statistics (naive, histogram, correlation feature sets) + random forest",
        references=("stadler2022",),
    )
)
