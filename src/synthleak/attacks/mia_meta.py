"""A black-box meta-classifier over shadow-model signals (stacking, after the MIDST winners).

The winning black-box attacks of the MIDST challenge (SaTML 2025) combine several membership
signals of one target, shadow-model likelihood ratios (LiRA, RMIA) and distances of the target to
the synthetic records, in a classifier trained on shadow models. This attack does that per
target, on the game's shadow pool, with every feature of the meta classifier **out of sample**:

* **signals.** For a synthetic dataset ``theta`` the features are any of

  - ``lira``: the log-likelihood ratio of :class:`~synthleak.attacks.mia_lira.LikelihoodRatioAttack`
    (clipped to +-50);
  - ``rmia``: the logit of the share of population records the target dominates,
    :class:`~synthleak.attacks.mia_rmia.RelativeMembershipAttack` (needs the game's population
    records);
  - ``query``: the logit of the IN probability of the counting-query random forest,
    :class:`~synthleak.attacks.mia_query.QueryAttack`;
  - ``distance``: unfitted statistics of the target against ``theta``, ``log(d + 0.001)`` of its
    ``k`` nearest distances and ``log(1 + count)`` within each radius (the features of the
    ``distance`` and ``lira`` attacks).

* **cross-fitting.** The shadow pool is split into ``n_folds`` folds, stratified by IN/OUT. The
  base attacks fitted on all folds but one score the held-out fold, so every shadow dataset gets
  features from base attacks that never saw it; the meta classifier (an L2-regularised logistic
  regression on standardised features, strength ``C``) is fitted on those out-of-fold features.
  The base attacks are then refitted on the whole pool and produce the features of the datasets
  to score. Choosing and weighting the signals thus uses the shadow pool only, never the
  challenger's test datasets, and a base attack's over-fit to its own training datasets does
  not teach the meta classifier to trust it.

Every base attack gets the same random stream in every fold (its own child of ``rng``), so the
folds differ only in their datasets; the fold split is drawn from ``rng``.

References
----------
Vector Institute (2025), "MIDST: Membership Inference over Diffusion-models-based Synthetic
Tabular data", SaTML 2025 competition (black-box attacks stacking shadow-model and distance
signals).
Carlini et al. (2022), "Membership inference attacks from first principles", IEEE S&P (LiRA).
Zarifzadeh, Liu and Shokri (2024), "Low-cost high-power membership inference attacks", ICML
(RMIA).
Meeus et al. (2023), "Achilles' heels", ESORICS, Sec. 4 eq. (5) and Sec. 5.1 (distances,
counting queries).

Notes
-----
Threat model: black-box knowledge of the generator (the game trains the shadow generators),
auxiliary data from the same population (the shadow datasets' source and, for ``rmia``, the
population records), and the target record itself.
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
from synthleak.attacks.mia_distance import DEFAULT_RADII
from synthleak.attacks.mia_lira import LikelihoodRatioAttack, distance_statistics
from synthleak.attacks.mia_query import QueryAttack, positive_proba
from synthleak.attacks.mia_rmia import RelativeMembershipAttack
from synthleak.constraints import InstanceOf, Interval, SequenceOf, constraints
from synthleak.data.table import Table
from synthleak.errors import InputError, check_fitted
from synthleak.queries import TableStack, stack_tables

SIGNALS = ("lira", "rmia", "query", "distance")
"""The signals the meta classifier may combine, in feature order."""
LLR_CLIP = 50.0
"""``lira``'s log-likelihood ratio is clipped to this magnitude (a far-off dataset's ratio is
unbounded and would dominate the standardisation)."""
PROB_EPS = 1e-3
"""Probabilities and shares are clipped to ``[eps, 1 - eps]`` before their logit."""


def _logit(p: np.ndarray) -> np.ndarray:
    q = np.clip(np.asarray(p, dtype=np.float64), PROB_EPS, 1 - PROB_EPS)
    return np.asarray(np.log(q / (1 - q)), dtype=np.float64)


def stratified_folds(labels: np.ndarray, n_folds: int, rng: np.random.Generator) -> np.ndarray:
    """A fold number in ``[0, n_folds)`` for every label, IN and OUT spread evenly at random."""
    y = np.asarray(labels)
    fold = np.empty(y.size, dtype=np.int64)
    for c in (0, 1):
        idx = np.flatnonzero(y == c)
        fold[rng.permutation(idx)] = np.arange(idx.size) % n_folds
    return fold


def parse_signals(signals: str) -> tuple[str, ...]:
    """The signals named in a comma-separated string, in :data:`SIGNALS` order."""
    names = [s.strip() for s in str(signals).split(",") if s.strip()]
    unknown = sorted(set(names) - set(SIGNALS))
    if unknown or not names or len(set(names)) != len(names):
        raise InputError(
            f"signals={signals!r} is invalid: give distinct names among {', '.join(SIGNALS)}, "
            "separated by commas",
            parameter="signals",
        )
    return tuple(s for s in SIGNALS if s in names)


class MetaMembershipAttack(PopulationMembershipAttack):
    """A logistic meta classifier over cross-fitted LiRA, RMIA, query and distance signals.

    Parameters
    ----------
    signals : str
        Comma-separated signals to combine, among ``lira``, ``rmia``, ``query`` and ``distance``.
    n_folds : int
        Folds of the shadow pool for the out-of-fold features (fewer when a class has fewer than
        ``2 * n_folds`` shadow datasets, so every base attack sees at least 2 IN and 2 OUT).
    C : float
        Inverse L2 regularisation strength of the logistic meta classifier.
    k : int
        Nearest synthetic records whose distances are ``distance`` features.
    radii : tuple of float
        Radii of the ``distance`` neighbour counts.
    query_queries : int
        Counting queries of the ``query`` base attack (its ``n_queries``).
    rmia_population : int
        Population records of the ``rmia`` base attack (its ``n_population`` and
        ``n_reference``).

    Attributes
    ----------
    signals_ : tuple of str
        The signals combined, in feature order.
    feature_names_ : list of str
    n_folds_ : int
        Folds actually used.
    oof_features_ : ndarray
        The out-of-fold features of the shadow pool the meta classifier was fitted on.
    center_, scale_ : ndarray
        Standardisation of the features (from the out-of-fold features).
    coef_ : ndarray
        The meta classifier's weights (standardised units); ``intercept_`` its intercept.
    bases_ : dict
        The base attacks refitted on the whole shadow pool.

    References
    ----------
    Vector Institute (2025); Carlini et al. (2022); Zarifzadeh et al. (2024); Meeus et al. (2023).
    """

    name = "meta"
    _parameter_constraints = constraints(
        signals=InstanceOf(str),
        n_folds=Interval(int, 2, None),
        C=Interval(float, 0, None, closed="neither"),
        k=Interval(int, 1, None),
        radii=SequenceOf(Interval(float, 0, None)),
        query_queries=Interval(int, 1, None),
        rmia_population=Interval(int, 1, None),
    )

    def __init__(
        self,
        signals: str = "lira,rmia,query,distance",
        n_folds: int = 5,
        C: float = 1.0,
        k: int = 5,
        radii: tuple[float, ...] = DEFAULT_RADII,
        query_queries: int = 100_000,
        rmia_population: int = 64,
    ) -> None:
        self.signals = signals
        self.n_folds = n_folds
        self.C = C
        self.k = k
        self.radii = radii
        self.query_queries = query_queries
        self.rmia_population = rmia_population
        self.coef_: np.ndarray | None = None

    # -- base signals ------------------------------------------------------------------------
    def _distance_features(self, stack: TableStack) -> np.ndarray:
        return distance_statistics(stack, self.target_, int(self.k), self.radii)

    def _fit_bases(
        self,
        stack: TableStack,
        y: np.ndarray,
        query_x: np.ndarray | None,
        population: Table | None,
    ) -> dict[str, object]:
        """The fitted base attacks of the signals on ``stack`` (``query``: a forest on
        ``query_x``, the answers of ``stack``)."""
        bases: dict[str, object] = {}
        target = self.target_
        if "lira" in self.signals_:
            rng = np.random.default_rng(self.seeds_["lira"])
            bases["lira"] = LikelihoodRatioAttack(k=int(self.k), radii=self.radii).fit(
                target, stack, y, rng=rng
            )
        if "rmia" in self.signals_:
            rng = np.random.default_rng(self.seeds_["rmia"])
            n = int(self.rmia_population)
            bases["rmia"] = RelativeMembershipAttack(n_population=n, n_reference=n).fit(
                target, stack, y, rng=rng, population=population
            )
        if "query" in self.signals_:
            from sklearn.ensemble import RandomForestClassifier

            assert query_x is not None
            q = self.query_base_
            bases["query"] = RandomForestClassifier(
                n_estimators=q.n_estimators,
                max_depth=q.max_depth,
                n_jobs=1,
                random_state=self.seeds_["query"],
            ).fit(query_x, y)
        return bases

    def _features(
        self, bases: dict[str, object], stack: TableStack, query_x: np.ndarray | None
    ) -> np.ndarray:
        """Meta features ``(len(stack), n_features)`` of ``stack`` from fitted ``bases``."""
        parts = []
        if "lira" in bases:
            lira = bases["lira"]
            assert isinstance(lira, LikelihoodRatioAttack)
            llr = np.clip(lira.log_likelihood_ratio(stack), -LLR_CLIP, LLR_CLIP)
            parts.append(llr[:, None])
        if "rmia" in bases:
            rmia = bases["rmia"]
            assert isinstance(rmia, RelativeMembershipAttack)
            parts.append(_logit(rmia.score(stack))[:, None])
        if "query" in bases:
            assert query_x is not None
            parts.append(_logit(positive_proba(bases["query"], query_x))[:, None])
        if "distance" in self.signals_:
            parts.append(self._distance_features(stack))
        return np.concatenate(parts, axis=1)

    def _query_answers(self, stack: TableStack) -> np.ndarray | None:
        if "query" not in self.signals_:
            return None
        return self.query_base_._columns(self.query_base_.features(stack))

    # -- the estimator -----------------------------------------------------------------------
    def fit(
        self,
        target: Table,
        datasets: Sequence[Table],
        labels: np.ndarray,
        *,
        rng: np.random.Generator,
        population: Table | None = None,
    ) -> MetaMembershipAttack:
        y = self._check_fit_input(target, datasets, labels)
        self.signals_ = parse_signals(self.signals)
        if "rmia" in self.signals_ and (population is None or len(population) == 0):
            raise InputError(
                "the meta attack's rmia signal needs population records (population): give "
                "them, or leave rmia out of signals"
            )
        n_in, n_out = int(y.sum()), int((1 - y).sum())
        folds = min(int(self.n_folds), min(n_in, n_out) // 2)
        if folds < 2:
            raise InputError(
                f"the meta attack needs at least 4 IN and 4 OUT shadow datasets (2 folds of at "
                f"least 2 each), got {n_in} IN and {n_out} OUT: give more shadow datasets "
                "(n_shadows)"
            )
        self.target_ = target
        self.n_folds_ = folds
        stack = stack_tables(datasets)
        fold = stratified_folds(y, folds, rng)
        self.seeds_ = {s: int(rng.integers(0, 2**31 - 1)) for s in SIGNALS}
        self.query_base_ = QueryAttack(n_queries=int(self.query_queries))
        query_x = None
        if "query" in self.signals_:
            # the queries are drawn without labels and answered once for the whole pool;
            # constant answers (on the whole pool: no labels involved) are dropped
            self.query_base_._prepare(target, np.random.default_rng(self.seeds_["query"]))
            query_x = self.query_base_._columns(self.query_base_.features(stack), fitting=True)
        oof: np.ndarray | None = None
        for f in range(folds):
            train, held = np.flatnonzero(fold != f), np.flatnonzero(fold == f)
            qx_train = None if query_x is None else query_x[train]
            qx_held = None if query_x is None else query_x[held]
            bases = self._fit_bases(stack.take(train), y[train], qx_train, population)
            part = self._features(bases, stack.take(held), qx_held)
            if oof is None:
                oof = np.empty((len(stack), part.shape[1]))
            oof[held] = part
        assert oof is not None
        self.oof_features_ = oof
        self.feature_names_ = self._feature_names()
        center, spread = oof.mean(axis=0), oof.std(axis=0)
        self.center_, self.scale_ = center, np.where(spread > 1e-12, spread, 1.0)
        z = (oof - self.center_) / self.scale_
        from sklearn.linear_model import LogisticRegression

        meta = LogisticRegression(C=float(self.C), max_iter=1000).fit(z, y)
        self.coef_ = np.asarray(meta.coef_[0], dtype=np.float64)
        self.intercept_ = float(meta.intercept_[0])
        self.bases_ = self._fit_bases(stack, y, query_x, population)
        return self

    def _feature_names(self) -> list[str]:
        names: list[str] = [s for s in ("lira", "rmia", "query") if s in self.signals_]
        if "distance" in self.signals_:
            names += [f"log_distance_{i + 1}" for i in range(int(self.k))]
            names += [f"log1p_count_within_{r:g}" for r in self.radii]
        return names

    def decision_function(self, datasets: Sequence[Table]) -> np.ndarray:
        """The meta classifier's log-odds of IN for every dataset."""
        check_fitted(self, "coef_")
        assert self.coef_ is not None
        stack = stack_tables(datasets)
        x = self._features(self.bases_, stack, self._query_answers(stack))
        return np.asarray(((x - self.center_) / self.scale_) @ self.coef_ + self.intercept_)

    def score(self, datasets: Sequence[Table]) -> np.ndarray:
        """Probability of IN from the meta classifier, for every dataset."""
        logit = self.decision_function(datasets)
        return np.asarray(0.5 * (1.0 + np.tanh(0.5 * logit)), dtype=np.float64)


register_attack(
    AttackInfo(
        "meta",
        AttackFamily.MEMBERSHIP,
        MetaMembershipAttack,
        "logistic meta classifier over the lira, rmia and query signals and the target's "
        "distances, fitted on out-of-fold shadow datasets (cross-fitting)",
        references=("midst2025", "carlini2022", "zarifzadeh2024", "meeus2023"),
    )
)
