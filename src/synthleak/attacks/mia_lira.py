"""Likelihood-ratio shadow-model membership attack (LiRA adapted to synthetic data).

For one target record the attack summarises every synthetic dataset by a few statistics of the
target against it:

* the generalised cosine distance (Meeus et al. (2023), eq. 5) from the target to its ``k``
  nearest synthetic records, as ``log(d + 0.001)``;
* the number of synthetic records within a few radii of the target (radius 0 counts exact
  copies), as ``log(1 + count)``;
* the answers ``log(1 + Q^A(x_T))`` of the ``n_select`` counting queries (synthetic records
  matching the target on every attribute of ``A``; Meeus et al. (2023), Sec. 5.1) that separate
  IN from OUT shadow datasets best, chosen by their Welch t statistic among ``n_queries`` random
  attribute subsets (at most one query per 16 shadow datasets, so small pools do not fit more
  statistics than they can estimate).

Statistics that are constant on the shadow pool are dropped; the rest are standardised. It then
fits one Gaussian to the statistics of the IN shadow datasets and one to those of the OUT
datasets (Carlini et al. (2022): per-example IN and OUT Gaussians, here per target,
multivariate) with Ledoit-Wolf shrinkage of the covariance. With ``variance="pooled"`` the two
Gaussians share one within-class covariance (the default: the fixed-variance variant Carlini et al.
recommend for small shadow pools, and the stronger of the two on the measured Adult games,
``benchmarks/RESULTS_mia.md``); with ``"separate"`` each has its own. The score of a test
dataset is the posterior probability of IN, the logistic of the log-likelihood ratio
``log N(s; mu_in, S_in) - log N(s; mu_out, S_out)`` plus the log prior odds of the shadow pool.

Everything is vectorised over the stack of datasets; no per-dataset model is trained.

References
----------
Carlini et al. (2022), "Membership inference attacks from first principles", IEEE S&P
(LiRA: Gaussian IN/OUT score distributions, the likelihood-ratio test, fixed variance for few
shadow models).
Meeus et al. (2023), "Achilles' heels", ESORICS, Sec. 4, eq. (5) (the distance) and Sec. 5.1
(counting queries).

Notes
-----
Threat model: black-box knowledge of the generator (the game trains the shadow generators),
auxiliary data from the same distribution, and the target record itself.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from synthleak.attacks.base import AttackFamily, AttackInfo, MembershipAttack, register_attack
from synthleak.attacks.mia_distance import DEFAULT_RADII, stack_distances
from synthleak.constraints import Interval, Options, SequenceOf, constraints
from synthleak.data.table import Table
from synthleak.errors import InputError, check_fitted
from synthleak.queries import (
    TableStack,
    n_attributes,
    sample_subsets,
    stack_tables,
    subset_counts,
)

VARIANCES = ("pooled", "separate")
CHUNK = 256
"""Shadow datasets whose candidate query answers are held at once while queries are chosen."""
KEEP_ANSWERS = 1 << 25
"""Candidate answers (datasets x queries) kept from the first pass (128 MB of float32); above,
the selected queries are answered again."""
QUERIES_PER_DATASETS = 16
"""At most one selected query per this many shadow datasets (small pools keep fewer)."""
DISTANCE_OFFSET = 1e-3
"""Added to distances before the log, so an exact copy (distance 0) stays finite."""
RIDGE = 1e-6
"""Added to the diagonal of every (standardised) covariance, so it is always invertible."""


class ClassMoments:
    """Count, mean and sum of squared deviations of every column, per class, merged over chunks.

    Chunks are merged with the pairwise (parallel) update of means and squared deviations, so a
    column that is constant keeps a variance of exactly 0 (no cancellation of large sums).
    """

    def __init__(self, n_columns: int) -> None:
        self.n = np.zeros(2)
        self.mean = np.zeros((2, n_columns))
        self.m2 = np.zeros((2, n_columns))

    def add(self, x: np.ndarray, y: np.ndarray) -> None:
        """Merge the rows ``x`` with labels ``y`` (1 = IN, 0 = OUT)."""
        for c in (0, 1):
            part = x[y == c].astype(np.float64)
            nb = part.shape[0]
            if nb == 0:
                continue
            mb = part.mean(axis=0)
            m2b = ((part - mb) ** 2).sum(axis=0)
            na = self.n[c]
            delta = mb - self.mean[c]
            tot = na + nb
            self.mean[c] += delta * (nb / tot)
            self.m2[c] += m2b + delta**2 * (na * nb / tot)
            self.n[c] = tot

    def welch_t(self) -> np.ndarray:
        """Welch t of every column between IN and OUT; 0 where neither class varies."""
        n = np.maximum(self.n, 2)[:, None]
        var = self.m2 / (n - 1)
        se = np.sqrt((var / n).sum(axis=0))
        diff = self.mean[1] - self.mean[0]
        with np.errstate(divide="ignore", invalid="ignore"):
            t = np.where(se > 0, diff / se, 0.0)
        return np.asarray(t, dtype=np.float64)


def distance_statistics(
    stack: TableStack, target: Table, k: int, radii: Sequence[float]
) -> np.ndarray:
    """``(B, k + len(radii))`` distance statistics of ``target`` on every dataset of ``stack``.

    The logs of its ``k`` nearest distances (the farthest repeated when a dataset has fewer than
    ``k`` records) and ``log(1 + count)`` of the records within each radius.
    """
    d = stack_distances(stack, target).astype(np.float64)
    kk = min(k, d.shape[1])
    nearest = np.sort(np.partition(d, kk - 1, axis=1)[:, :kk], axis=1)
    if kk < k:  # fewer synthetic records than k: repeat the farthest
        nearest = np.concatenate([nearest, np.repeat(nearest[:, -1:], k - kk, 1)], 1)
    r = np.asarray(radii, dtype=np.float64)
    counts = (d[:, :, None] <= r[None, None, :] + 1e-6).sum(axis=1)
    return np.concatenate([np.log(nearest + DISTANCE_OFFSET), np.log1p(counts)], axis=1)


def welch_t(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Welch t statistic of every column of ``x`` between ``y == 1`` and ``y == 0`` rows.

    Columns without variance in either class get 0 (no evidence either way).
    """
    moments = ClassMoments(x.shape[1])
    moments.add(x, y)
    return moments.welch_t()


def shrunk_covariance(resid: np.ndarray) -> np.ndarray:
    """Ledoit-Wolf shrinkage covariance of centred rows ``resid`` ``(n, d)``, plus a small ridge."""
    from sklearn.covariance import ledoit_wolf

    d = resid.shape[1]
    if d == 0 or resid.shape[0] < 2:
        return np.eye(d)
    cov, _ = ledoit_wolf(resid, assume_centered=True)
    return np.asarray(cov, dtype=np.float64) + RIDGE * np.eye(d)


def gaussian_logpdf(x: np.ndarray, mean: np.ndarray, cov: np.ndarray) -> np.ndarray:
    """Log density of ``N(mean, cov)`` at every row of ``x``."""
    chol = np.linalg.cholesky(cov)
    z = np.linalg.solve(chol, (x - mean).T)
    log_det = 2.0 * np.log(np.diag(chol)).sum()
    return np.asarray(
        -0.5 * (z * z).sum(axis=0) - 0.5 * log_det - 0.5 * x.shape[1] * np.log(2 * np.pi)
    )


def select_queries(
    datasets: Sequence[Table],
    target: Table,
    labels: np.ndarray,
    candidates: np.ndarray,
    n_select: int,
) -> tuple[np.ndarray, np.ndarray]:
    """The candidate counting queries that separate IN from OUT shadow datasets best.

    Keeps the (at most) ``n_select`` candidates with the largest absolute Welch t of
    ``log(1 + answer)`` between IN and OUT datasets, none whose t is 0, and at most one per
    :data:`QUERIES_PER_DATASETS` datasets. Returns the selected masks (in candidate order) and
    their answers on every dataset, ``(len(datasets), n_kept)`` float64. The candidates' answers
    are computed :data:`CHUNK` datasets at a time (memory bounded whatever the pool).
    """
    y = np.asarray(labels)
    if not candidates.size or n_select < 1:
        return np.zeros(0, dtype=np.uint64), np.zeros((len(datasets), 0))
    stack = stack_tables(datasets)
    moments = ClassMoments(candidates.size)
    keep = len(stack) * candidates.size <= KEEP_ANSWERS
    kept = []
    for lo in range(0, len(stack), CHUNK):
        part = subset_counts(stack[lo : lo + CHUNK], target, candidates, dtype=np.float32)
        moments.add(np.log1p(part), y[lo : lo + CHUNK])
        if keep:
            kept.append(part)
    t = np.abs(moments.welch_t())
    order = np.argsort(-t, kind="stable")
    order = order[t[order] > 0][: min(n_select, len(y) // QUERIES_PER_DATASETS)]
    order = np.sort(order)
    # counts are integers, exact in float32: both paths give the same statistics
    counts = (
        np.concatenate([k[:, order] for k in kept])
        if keep
        else subset_counts(stack, target, candidates[order], dtype=np.float32)
    )
    return candidates[order], counts.astype(np.float64)


class LikelihoodRatioAttack(MembershipAttack):
    """Gaussian IN/OUT likelihood ratio on distance, radius-count and counting-query statistics.

    Parameters
    ----------
    k : int
        Number of nearest synthetic records whose distances are statistics.
    radii : tuple of float
        Count the synthetic records within each distance of the target (0 = exact copies).
    n_queries : int
        Candidate counting queries (random attribute subsets; all of them when the data has
        few attributes). 0 uses no query statistic.
    n_select : int
        Candidate queries kept as statistics (largest absolute Welch t between IN and OUT on the
        shadow pool), at most one per 16 shadow datasets.
    variance : {"pooled", "separate"}
        One covariance shared by the IN and OUT Gaussians (a linear score), or one each.

    Attributes
    ----------
    subsets_ : ndarray of uint64
        The selected counting queries (attribute masks).
    keep_ : ndarray of int
        Statistics that vary on the shadow pool (the others are dropped).
    center_, scale_ : ndarray
        Standardisation of the kept statistics.
    mean_in_, mean_out_, cov_in_, cov_out_ : ndarray
        The fitted Gaussians (standardised units).
    log_prior_odds_ : float
        ``log(n_in / n_out)`` of the shadow pool.
    variance_ : str
        The covariance model fitted (``variance``).

    References
    ----------
    Carlini et al. (2022); Meeus et al. (2023), eq. (5) and Sec. 5.1.
    """

    name = "lira"
    _parameter_constraints = constraints(
        k=Interval(int, 1, None),
        radii=SequenceOf(Interval(float, 0, None)),
        n_queries=Interval(int, 0, None),
        n_select=Interval(int, 0, None),
        variance=Options(VARIANCES),
    )

    def __init__(
        self,
        k: int = 5,
        radii: tuple[float, ...] = DEFAULT_RADII,
        n_queries: int = 10_000,
        n_select: int = 32,
        variance: str = "pooled",
    ) -> None:
        self.k = k
        self.radii = radii
        self.n_queries = n_queries
        self.n_select = n_select
        self.variance = variance
        self.mean_in_: np.ndarray | None = None

    def _statistics(self, datasets: Sequence[Table], subsets: np.ndarray) -> np.ndarray:
        """``(B, k + len(radii) + len(subsets))`` transformed statistics of the target."""
        stack = stack_tables(datasets)
        parts = [distance_statistics(stack, self.target_, int(self.k), self.radii)]
        if subsets.size:
            answers = subset_counts(stack, self.target_, subsets, dtype=np.float64)
            parts.append(np.log1p(answers))
        return np.concatenate(parts, axis=1)

    def fit(
        self,
        target: Table,
        datasets: Sequence[Table],
        labels: np.ndarray,
        *,
        rng: np.random.Generator,
    ) -> LikelihoodRatioAttack:
        y = self._check_fit_input(target, datasets, labels)
        n_in, n_out = int(y.sum()), int((1 - y).sum())
        if min(n_in, n_out) < 2:
            raise InputError(
                f"the lira attack needs at least 2 IN and 2 OUT shadow datasets, got {n_in} IN "
                f"and {n_out} OUT: give more shadow datasets (n_shadows)"
            )
        self.target_ = target
        f = n_attributes(target.schema)
        candidates = (
            sample_subsets(f, int(self.n_queries), rng=rng)
            if int(self.n_queries) and int(self.n_select)
            else np.zeros(0, dtype=np.uint64)
        )
        base = self._statistics(datasets, np.zeros(0, dtype=np.uint64))
        subsets, counts = select_queries(datasets, target, y, candidates, int(self.n_select))
        query_x = np.log1p(counts)
        self.subsets_ = subsets
        x = np.concatenate([base, query_x], axis=1)
        center, spread = x.mean(axis=0), x.std(axis=0)
        self.keep_ = np.flatnonzero(spread > 1e-12)
        self.center_, self.scale_ = center[self.keep_], spread[self.keep_]
        z = (x[:, self.keep_] - self.center_) / self.scale_
        zin, zout = z[y == 1], z[y == 0]
        self.mean_in_, self.mean_out_ = zin.mean(axis=0), zout.mean(axis=0)
        self.variance_ = str(self.variance)
        if self.variance == "pooled":
            pooled = shrunk_covariance(np.concatenate([zin - self.mean_in_, zout - self.mean_out_]))
            self.cov_in_ = self.cov_out_ = pooled
        else:
            self.cov_in_ = shrunk_covariance(zin - self.mean_in_)
            self.cov_out_ = shrunk_covariance(zout - self.mean_out_)
        self.log_prior_odds_ = float(np.log(n_in / n_out))
        return self

    def log_likelihood_ratio(self, datasets: Sequence[Table]) -> np.ndarray:
        """``log N(s; IN) - log N(s; OUT)`` of the target's statistics on every dataset."""
        check_fitted(self, "mean_in_")
        assert self.mean_in_ is not None and self.mean_out_ is not None
        x = self._statistics(datasets, self.subsets_)
        if self.keep_.size == 0:  # every statistic was constant on the shadow pool
            return np.zeros(x.shape[0])
        z = (x[:, self.keep_] - self.center_) / self.scale_
        return gaussian_logpdf(z, self.mean_in_, self.cov_in_) - gaussian_logpdf(
            z, self.mean_out_, self.cov_out_
        )

    def score(self, datasets: Sequence[Table]) -> np.ndarray:
        """Posterior probability that the target was IN, for every dataset."""
        logit = self.log_likelihood_ratio(datasets) + self.log_prior_odds_
        return np.asarray(0.5 * (1.0 + np.tanh(0.5 * logit)), dtype=np.float64)


register_attack(
    AttackInfo(
        "lira",
        AttackFamily.MEMBERSHIP,
        LikelihoodRatioAttack,
        "likelihood ratio of Gaussians fitted to the target's distances, neighbour counts and "
        "best counting queries on IN and OUT shadow datasets",
        references=("carlini2022", "meeus2023"),
    )
)
