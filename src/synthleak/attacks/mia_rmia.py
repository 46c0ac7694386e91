"""Relative membership inference (RMIA) adapted to synthetic data.

RMIA (Zarifzadeh et al. (2024)) tests membership of a target ``x`` in the training data of a
model ``theta`` by comparing ``x`` with records ``z`` of the population: the pairwise likelihood
ratio

    LR(x, z) = (Pr(x | theta) / Pr(x)) / (Pr(z | theta) / Pr(z))

says how much more ``theta`` favours ``x`` than ``z``, each relative to how much a typical model
(the reference models) favours it, and the score of ``x`` is the fraction of population records
it dominates, ``Pr_z[LR(x, z) >= gamma]``. A model that favours every record (a release that is
more concentrated than usual) moves both terms, so the comparison with ``z`` cancels it.

Adapted to synthetic data: ``theta`` is a synthetic dataset, the reference models are the
game's shadow datasets, and ``Pr(r | theta)`` of a record ``r`` is a composite likelihood from
the counting queries the ``lira`` and ``query`` attacks use (Meeus et al. (2023), Sec. 5.1): the
geometric mean, over attribute subsets ``A``, of the smoothed share of synthetic records that
match ``r`` on ``A``,

    log Pr(r | theta) = mean_A log((Q^A(r; theta) + alpha) / (m + alpha)),

with the subsets ``A`` chosen for the target on the shadow pool exactly as ``lira`` chooses them
(the largest Welch t of ``log(1 + Q^A)`` between IN and OUT shadow datasets among ``n_queries``
random subsets), and the same subsets used for every population record.

This is RMIA's *online* variant: ``Pr(x)`` is the average of ``Pr(x | theta')`` over the IN and
the OUT shadow datasets, weighted equally (the game gives both for every target at no extra
cost). The offline variant (OUT models only, ``Pr(x)`` corrected by the paper's ``a``) is not
implemented: its correction ``(1 + a) / 2 * Pr_OUT(x) + (1 - a) / 2`` assumes a signal on a
probability scale where members approach 1, which a share of synthetic records is not.
``Pr(z)`` is the average of ``Pr(z | theta')`` over ``n_reference`` random shadow datasets.
The population records are the attacker's auxiliary data the shadow datasets are drawn from; a
population record may be in some shadow datasets (as in the paper's reference models) and is in
none of the challenger's test datasets.

References
----------
Zarifzadeh, Liu and Shokri (2024), "Low-cost high-power membership inference attacks", ICML
(RMIA: the pairwise likelihood ratio, the score as the fraction of population records
dominated, online and offline reference models).
Meeus et al. (2023), "Achilles' heels", ESORICS, Sec. 5.1 (counting queries).

Notes
-----
Threat model: black-box knowledge of the generator (the game trains the shadow generators),
auxiliary data from the same population (the shadow datasets' source and the population
records), and the target record itself.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from synthleak.attacks.base import (
    AttackFamily,
    AttackInfo,
    PopulationMembershipAttack,
    register_attack,
)
from synthleak.attacks.mia_lira import select_queries
from synthleak.constraints import Interval, constraints
from synthleak.data.table import Table
from synthleak.errors import InputError, check_fitted
from synthleak.queries import TableStack, n_attributes, sample_subsets, stack_tables, subset_counts


def log_mean_exp(x: np.ndarray, axis: int = 0) -> np.ndarray:
    """``log(mean(exp(x)))`` along ``axis``, computed stably."""
    top = np.max(x, axis=axis, keepdims=True)
    out = np.log(np.mean(np.exp(x - top), axis=axis, keepdims=True)) + top
    return np.asarray(np.squeeze(out, axis=axis), dtype=np.float64)


class RelativeMembershipAttack(PopulationMembershipAttack):
    """RMIA: the target's likelihood ratio against those of population records.

    Parameters
    ----------
    n_queries : int
        Candidate counting queries (random attribute subsets; all of them when the data has few
        attributes).
    n_select : int
        Candidate queries kept (largest absolute Welch t between IN and OUT shadow datasets), at
        most one per 16 shadow datasets. When none separates IN from OUT, the query on every
        attribute is used.
    n_population : int
        Population records ``z`` compared with the target (drawn from ``population``).
    n_reference : int
        Shadow datasets that estimate ``Pr(z)`` (drawn from the shadow pool).
    gamma : float
        The likelihood-ratio threshold: ``x`` dominates ``z`` when ``LR(x, z) >= gamma``.
    smoothing : float
        ``alpha``, added to every count (and to the dataset size) so a record no synthetic record
        matches keeps a finite likelihood.

    Attributes
    ----------
    subsets_ : ndarray of uint64
        The counting queries of the composite likelihood (attribute masks).
    log_prior_ : float
        ``log Pr(x)``: the target's log likelihood averaged over IN and OUT shadow datasets.
    population_ : Table
        The population records ``z``.
    log_prior_population_ : ndarray
        ``log Pr(z)`` of every population record.

    References
    ----------
    Zarifzadeh et al. (2024); Meeus et al. (2023), Sec. 5.1.
    """

    name = "rmia"
    _parameter_constraints = constraints(
        n_queries=Interval(int, 1, None),
        n_select=Interval(int, 0, None),
        n_population=Interval(int, 1, None),
        n_reference=Interval(int, 1, None),
        gamma=Interval(float, 0, None, closed="right"),
        smoothing=Interval(float, 0, None, closed="right"),
    )

    def __init__(
        self,
        n_queries: int = 10_000,
        n_select: int = 32,
        n_population: int = 64,
        n_reference: int = 64,
        gamma: float = 1.0,
        smoothing: float = 1.0,
    ) -> None:
        self.n_queries = n_queries
        self.n_select = n_select
        self.n_population = n_population
        self.n_reference = n_reference
        self.gamma = gamma
        self.smoothing = smoothing
        self.log_prior_population_: np.ndarray | None = None

    def _log_likelihood(self, stack: TableStack, record: Table) -> np.ndarray:
        """``log Pr(record | theta)`` on every dataset of ``stack``: ``(B,)``."""
        alpha = float(self.smoothing)
        counts = subset_counts(stack, record, self.subsets_, dtype=np.float64)
        return np.asarray(
            np.log(counts + alpha).mean(axis=1) - np.log(stack.n_rows + alpha), dtype=np.float64
        )

    def _population_log_likelihood(self, stack: TableStack) -> np.ndarray:
        """``log Pr(z | theta)`` of every population record on every dataset: ``(B, Z)``."""
        pop = self.population_
        return np.stack(
            [self._log_likelihood(stack, pop.take([j])) for j in range(len(pop))], axis=1
        )

    def fit(
        self,
        target: Table,
        datasets: Sequence[Table],
        labels: np.ndarray,
        *,
        rng: np.random.Generator,
        population: Table | None = None,
    ) -> RelativeMembershipAttack:
        y = self._check_fit_input(target, datasets, labels)
        if population is None or len(population) == 0:
            raise InputError(
                "the rmia attack needs population records (population): real records of the "
                "attacker's population other than the target"
            )
        if population.schema != target.schema:
            raise InputError("the population records do not have the target's schema")
        n_in, n_out = int(y.sum()), int((1 - y).sum())
        if min(n_in, n_out) < 2:
            raise InputError(
                f"the rmia attack needs at least 2 IN and 2 OUT shadow datasets, got {n_in} IN "
                f"and {n_out} OUT: give more shadow datasets (n_shadows)"
            )
        self.target_ = target
        stack = stack_tables(datasets)
        f = n_attributes(target.schema)
        candidates = sample_subsets(f, int(self.n_queries), rng=rng)
        subsets, _ = select_queries(stack, target, y, candidates, int(self.n_select))
        if subsets.size == 0:  # no query separates IN from OUT: match on every attribute
            subsets = np.array([(1 << f) - 1], dtype=np.uint64)
        self.subsets_ = subsets
        log_px = self._log_likelihood(stack, target)
        # online RMIA: Pr(x) averages the IN and the OUT reference models with equal weights
        self.log_prior_ = float(
            log_mean_exp(np.array([log_mean_exp(log_px[y == c]) for c in (0, 1)]))
        )
        n_pop = min(int(self.n_population), len(population))
        self.population_ = population.take(
            np.sort(rng.choice(len(population), n_pop, replace=False))
        )
        n_ref = min(int(self.n_reference), len(stack))
        reference = stack.take(np.sort(rng.choice(len(stack), n_ref, replace=False)))
        self.log_prior_population_ = log_mean_exp(self._population_log_likelihood(reference))
        return self

    def log_ratios(self, datasets: Sequence[Table]) -> np.ndarray:
        """``log LR(x, z)`` for every dataset and population record: ``(B, Z)``."""
        check_fitted(self, "log_prior_population_")
        assert self.log_prior_population_ is not None
        stack = stack_tables(datasets)
        x = self._log_likelihood(stack, self.target_) - self.log_prior_
        z = self._population_log_likelihood(stack) - self.log_prior_population_
        return np.asarray(x[:, None] - z, dtype=np.float64)

    def score(self, datasets: Sequence[Table]) -> np.ndarray:
        """Fraction of population records the target dominates (``LR >= gamma``), ties half."""
        d = self.log_ratios(datasets) - np.log(float(self.gamma))
        tie = np.abs(d) <= 1e-9
        return np.asarray(((d > 0) & ~tie).mean(axis=1) + 0.5 * tie.mean(axis=1))


register_attack(
    AttackInfo(
        "rmia",
        AttackFamily.MEMBERSHIP,
        RelativeMembershipAttack,
        "relative membership inference: the target's likelihood ratio (release against shadow "
        "datasets) compared with those of population records, from counting queries",
        references=("zarifzadeh2024", "meeus2023"),
    )
)
