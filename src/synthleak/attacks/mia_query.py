"""The query-based membership attack (counting queries + random forest).

For a target record ``x_T`` the attack answers ``N`` random counting queries ``Q^A(x_T)`` (the
number of synthetic records matching ``x_T`` on every attribute of a random subset ``A``; ``=``
on categorical attributes, ``<=`` on continuous ones) on every shadow synthetic dataset and trains
a random forest (100 trees, depth 10) on the answers to tell IN from OUT datasets.

All answers of a dataset come at once from :func:`synthleak.queries.subset_counts` (match-mask
histogram + superset-sum transform; bitsets when the data has more than 20 attributes).

References
----------
Meeus et al. (2023), "Achilles' heels: vulnerable record identification in synthetic data
publishing", ESORICS, Sec. 5.1 (the attack) and Sec. 5.5 (N = 100,000 queries; 100 trees,
depth 10).
Houssiau et al. (2022), "TAPAS: a toolbox for adversarial privacy auditing of synthetic data"
(ref. [19] of Meeus et al. (2023)).

Notes
-----
Threat model: black-box knowledge of the generator (the game trains the shadow generators),
auxiliary data from the same distribution, and the target record itself.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from sklearn.ensemble import RandomForestClassifier

from synthleak.attacks.base import AttackFamily, AttackInfo, MembershipAttack, register_attack
from synthleak.constraints import N_JOBS, Interval, constraints
from synthleak.data.table import Table
from synthleak.errors import check_fitted
from synthleak.queries import n_attributes, sample_subsets, stack_tables, subset_counts


def forest_seed(rng: np.random.Generator) -> int:
    """A seed for scikit-learn drawn from ``rng``."""
    return int(rng.integers(0, 2**31 - 1))


def positive_proba(model: RandomForestClassifier, x: np.ndarray) -> np.ndarray:
    """P(IN) from a fitted binary classifier (classes 0/1)."""
    proba = model.predict_proba(x)
    classes = list(model.classes_)
    return proba[:, classes.index(1)] if 1 in classes else np.zeros(x.shape[0])


class ForestMembershipAttack(MembershipAttack):
    """Features of every synthetic dataset + a random-forest meta-classifier (shared lifecycle).

    Subclasses define :meth:`features` and may override :meth:`_prepare` (check
    hyperparameters, draw what the features need from ``rng``) and :meth:`_columns` (drop
    feature columns chosen at fit time).
    """

    n_estimators: int
    max_depth: int | None
    n_jobs: int
    model_: RandomForestClassifier | None

    def features(self, datasets: Sequence[Table]) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def _prepare(self, target: Table, rng: np.random.Generator) -> None:
        self.target_ = target

    def _columns(self, x: np.ndarray, *, fitting: bool = False) -> np.ndarray:
        return x

    def fit(
        self,
        target: Table,
        datasets: Sequence[Table],
        labels: np.ndarray,
        *,
        rng: np.random.Generator,
    ) -> ForestMembershipAttack:
        y = self._check_fit_input(target, datasets, labels)
        self._prepare(target, rng)
        x = self._columns(self.features(datasets), fitting=True)
        self.model_ = RandomForestClassifier(
            n_estimators=self.n_estimators,
            max_depth=self.max_depth,
            n_jobs=self.n_jobs,
            random_state=forest_seed(rng),
        ).fit(x, y)
        return self

    def score(self, datasets: Sequence[Table]) -> np.ndarray:
        check_fitted(self, "model_")
        assert self.model_ is not None
        return positive_proba(self.model_, self._columns(self.features(datasets)))


class QueryAttack(ForestMembershipAttack):
    """Counting-query features + random forest meta-classifier.

    Parameters
    ----------
    n_queries : int
        Number N of random attribute subsets (all ``2^F - 1`` non-empty ones when N reaches that).
    n_estimators, max_depth : int
        Random forest size (paper: 100 trees of depth 10).
    n_jobs : int
        Threads of the forest.

    Attributes
    ----------
    subsets_ : ndarray of uint64
        The attribute subsets (bit masks) used as queries.
    keep_ : ndarray of int
        Indices of the queries that vary on the shadow datasets (constant answers are dropped).
    model_ : RandomForestClassifier

    References
    ----------
    Meeus et al. (2023), Sec. 5.1 and 5.5.
    """

    name = "query"
    _parameter_constraints = constraints(
        n_queries=Interval(int, 1, None),
        n_estimators=Interval(int, 1, None),
        max_depth=Interval(int, 1, None),
        n_jobs=N_JOBS,
    )

    def __init__(
        self,
        n_queries: int = 100_000,
        n_estimators: int = 100,
        max_depth: int = 10,
        n_jobs: int = 1,
    ) -> None:
        self.n_queries = n_queries
        self.n_estimators = n_estimators
        self.max_depth = max_depth
        self.n_jobs = n_jobs
        self.model_: RandomForestClassifier | None = None

    def features(self, datasets: Sequence[Table]) -> np.ndarray:
        """Query answers ``(len(datasets), N)`` as float32 (all chosen queries)."""
        check_fitted(self, "subsets_")
        return subset_counts(stack_tables(datasets), self.target_, self.subsets_, dtype=np.float32)

    def _prepare(self, target: Table, rng: np.random.Generator) -> None:
        self.target_ = target
        self.subsets_ = sample_subsets(n_attributes(target.schema), int(self.n_queries), rng=rng)

    def _columns(self, x: np.ndarray, *, fitting: bool = False) -> np.ndarray:
        """Drop the queries whose answer is constant on the shadow datasets."""
        if fitting:
            varies = x.min(axis=0) != x.max(axis=0)
            self.keep_ = np.flatnonzero(varies) if varies.any() else np.arange(min(1, x.shape[1]))
        if self.keep_.size < x.shape[1]:
            x = np.ascontiguousarray(x[:, self.keep_])
        return x


register_attack(
    AttackInfo(
        "query",
        AttackFamily.MEMBERSHIP,
        QueryAttack,
        "counting queries over subsets of the target's attribute values + random forest",
        references=("meeus2023", "houssiau2022"),
    )
)
