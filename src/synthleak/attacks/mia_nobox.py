"""No-box membership attacks: the release and a reference sample of real non-members, no generator.

The data owner (or an attacker) who holds a synthetic release but cannot re-run its generator can
still test whether a candidate record was in the training data, by comparing the release with a
**reference sample**: real records of the same population that the generator never saw. Every
attack here follows the ``nobox-membership`` contract (:class:`NoBoxMembershipAttack`):
``fit(synthetic, reference, *, rng)`` then ``score(records)``, higher meaning "more likely a
member".

=================  ==========================================================================
``dcr``            minus the distance to the closest synthetic record (no calibration)
``dcr-diff``       log distance to the closest reference record minus log distance to the
                   closest synthetic record (a nearest-neighbour density ratio)
``domias``         log density of the synthetic data over log density of the reference, both
                   from one Bayesian network structure (mixed types, discretised)
``neighbourhood``  synthetic records against reference records within a radius, each as a
                   share of its sample
``classifier``     log-odds of a gradient-boosted synthetic-vs-reference classifier
=================  ==========================================================================

:mod:`synthleak.attacks.mia_nobox_extra` adds ``gen-lra``, ``kde``, ``mc``, ``dpi`` and
``logan`` under the same contract.

Why calibrate against a reference? A record in a dense region of the population is close to
many synthetic records whether or not it was trained on; the plain distance to the closest
record (``dcr``) confuses "typical" with "member". Yao et al. (2025) show releases that pass
distance-based tests while calibrated attacks recover membership; Synth-MIA (Ward et al. 2025)
finds no single attack dominates across generators and datasets, so the no-box game reports
each attack and the strongest of them (selected on a split it does not report on).

Every distance is the generalised cosine (eq. 5) or Minkowski (eq. 6) distance of Meeus et al.
(2023), computed by the exact engine of :mod:`synthleak.vulnerability`
(:func:`~synthleak.vulnerability.nearest_neighbours`,
:func:`~synthleak.vulnerability.radius_counts`): never a dense records x synthetic matrix.

Cost at scale. Scoring searches the whole release (and the whole reference) for every scored
record, so it costs O(records x (release + reference)). What an attack derives from the two
samples alone is measured on samples of them: the radius (``neighbourhood``, ``mc``) or kernel
bandwidth (``gen-lra``, ``kde``) is a quantile of reference-to-release distances, estimated
from at most :data:`FIT_QUERIES` reference records drawn with the fit's ``rng``; the
``classifier`` trains on at most :data:`CLASSIFIER_TRAIN` records of each side, and
``domias`` learns its network's structure from at most :data:`STRUCTURE_SAMPLE` pooled records
(its counts use every record). Below those sizes the whole samples are used.

Notes
-----
Threat model: no-box. The attacker sees the released synthetic data, a reference sample of real
records known not to be in the training data (same population), and the candidate records. It
knows nothing of the generator (no shadow models). The synthetic data, reference and candidates
must share one schema (:meth:`synthleak.data.release.Release.encode`).

References
----------
Chen, Yu, Zhang and Fritz (2020) (GAN-Leaks: distance to the release, calibrated attack).
van Breugel, Sun, Qian and van der Schaar (2023) (DOMIAS: density ratio).
Houssiau et al. (2022) (TAPAS: local neighbourhood).
Hayes, Melis, Danezis and De Cristofaro (2019) (LOGAN: a classifier of the release).
Yao, Krčo, Ganev and de Montjoye (2025) (distance tests against membership attacks).
Ward, Lin, Wang and Cheng (2025) (no-box attacks benchmarked against each other).
Meeus, Guépin, Creţu and de Montjoye (2023), Sec. 4, eq. 5 (the record distance).
"""

from __future__ import annotations

import math

import numpy as np

from synthleak.attacks.base import (
    AttackFamily,
    AttackInfo,
    NoBoxMembershipAttack,
    register_attack,
)
from synthleak.constraints import Interval, Options, constraints
from synthleak.data.encoding import Discretiser, count_keys, merge_counts, mixed_keys
from synthleak.data.table import Table
from synthleak.errors import InputError, check_fitted
from synthleak.runtime.threads import one_thread_limit
from synthleak.vulnerability import (
    DistanceMetric,
    nearest_neighbours,
    radius_counts,
)

__all__ = [
    "CLASSIFIER_TRAIN",
    "FIT_QUERIES",
    "STRUCTURE_SAMPLE",
    "ClassifierAttack",
    "ClosestRecordSignal",
    "DCRDiffAttack",
    "DCRMembershipAttack",
    "DomiasAttack",
    "NeighbourhoodAttack",
    "closest_distances",
    "fit_sample",
]

FIT_QUERIES = 5_000
"""Reference records (at most) whose distances to the release set a radius or bandwidth; a
larger reference is sampled at random with the fit's ``rng``. The sample quantile of 5,000
distances sits within about 0.012 in quantile level (95 %) of the whole reference's at the
levels the attacks use (0.1 to 0.25)."""

CLASSIFIER_TRAIN = 50_000
"""Records (at most) of each side, release and reference, that ``classifier`` trains on."""

STRUCTURE_SAMPLE = 100_000
"""Pooled release and reference records (at most) from which ``domias`` learns its Bayesian
network's structure (mutual information of discretised columns); its conditional counts are
taken over every record."""


def fit_sample(part: Table, cap: int, rng: np.random.Generator | None) -> Table:
    """``part`` itself when it has at most ``cap`` records, else ``cap`` of them drawn at
    random without replacement (in their original order)."""
    if len(part) <= cap:
        return part
    if rng is None:
        raise InputError(
            f"a sample of {cap} of {len(part)} records needs a random generator: pass rng"
        )
    return part.take(np.sort(rng.choice(len(part), cap, replace=False)))


def closest_distances(
    records: Table, synthetic: Table, *, metric: DistanceMetric | str = "cosine", p: float = 2
) -> np.ndarray:
    """Distance (eq. 5, or eq. 6 for ``minkowski``) from each record to its closest synthetic
    record, with the exact engine of :func:`synthleak.vulnerability.nearest_neighbours`."""
    if len(synthetic) == 0:
        raise InputError("the synthetic data has no records: give a non-empty table")
    return nearest_neighbours(records, synthetic, k=1, metric=metric, p=p)[0][:, 0]


class ClosestRecordSignal:
    """Score records by closeness to the released synthetic data (higher = more likely a member).

    Kept for :func:`synthleak.audit.audit`; the registered ``dcr`` attack
    (:class:`DCRMembershipAttack`) is the same signal under the no-box contract.

    Notes
    -----
    Threat model: no-box. The attacker sees the released synthetic data and the candidate
    records, nothing of the generator.
    """

    def fit(self, synthetic: Table) -> ClosestRecordSignal:
        """Remember the released synthetic data; returns self."""
        if len(synthetic) == 0:
            raise InputError("the synthetic data has no records: give a non-empty table")
        self.synthetic_ = synthetic
        return self

    def score(self, records: Table) -> np.ndarray:
        """Membership score of each record: minus its distance to the closest synthetic record."""
        check_fitted(self, "synthetic_")
        return 0.0 - closest_distances(records, self.synthetic_)


# --- shared checks -----------------------------------------------------------------------------


def _check_release(synthetic: Table, reference: Table) -> None:
    for name, t in (("synthetic", synthetic), ("reference", reference)):
        if not isinstance(t, Table):
            raise InputError(f"{name} must be a synthleak Table, got {type(t).__name__}")
        if len(t) == 0:
            raise InputError(f"{name} has no records: give a non-empty table")
    if synthetic.schema != reference.schema:
        raise InputError(
            "synthetic and reference must share one schema: encode them together, "
            "e.g. with Release(original, synthetic, control).encode()"
        )


def _check_records(records: Table, schema: object) -> None:
    if not isinstance(records, Table):
        raise InputError(f"records must be a synthleak Table, got {type(records).__name__}")
    if records.schema != schema:
        raise InputError(
            "records must share the schema of the synthetic and reference data the attack was "
            "fitted on: encode them together"
        )


class _DistanceAttack(NoBoxMembershipAttack):
    """Hyperparameters shared by the distance-based attacks."""

    _parameter_constraints = constraints(metric=Options(DistanceMetric), p=Interval(float, 1, None))

    def __init__(self, metric: DistanceMetric | str = "cosine", p: float = 2) -> None:
        self.metric = metric
        self.p = p


# --- dcr ----------------------------------------------------------------------------------------


class DCRMembershipAttack(_DistanceAttack):
    """Distance to the closest synthetic record (DCR): ``score(x) = -min_s d(x, s)``.

    The reference sample is not used: this is the uncalibrated signal that distance-based
    privacy tests threshold. It is strong against releases that copy or barely perturb their
    training records and blind to everything else.

    Parameters
    ----------
    metric : {"cosine", "minkowski"}, default "cosine"
        Generalised cosine (eq. 5) or Minkowski (eq. 6) distance of Meeus et al. (2023).
    p : float, default 2
        Minkowski order.

    Notes
    -----
    Threat model: no-box; sees the synthetic data and the candidate records.

    References
    ----------
    Chen, Yu, Zhang and Fritz (2020) (full black-box attack: distance to the closest
    generated sample).
    Yao, Krčo, Ganev and de Montjoye (2025) (DCR as a privacy test).
    """

    name = "dcr"

    def fit(
        self, synthetic: Table, reference: Table, *, rng: np.random.Generator
    ) -> DCRMembershipAttack:
        _check_release(synthetic, reference)
        self.synthetic_ = synthetic
        return self

    def score(self, records: Table) -> np.ndarray:
        check_fitted(self, "synthetic_")
        _check_records(records, self.synthetic_.schema)
        return 0.0 - closest_distances(records, self.synthetic_, metric=self.metric, p=self.p)


# --- dcr-diff -----------------------------------------------------------------------------------


class DCRDiffAttack(_DistanceAttack):
    """Distance to the closest reference record against distance to the closest synthetic record.

    ``score(x) = log(d_ref(x) + floor) - log(d_syn(x) + floor)``: high when the release holds a
    record much closer to ``x`` than any real non-member is.

    The difference is taken on the log scale. A nearest-neighbour distance in a sample of size
    ``N`` from a density ``f`` behaves like ``(N f(x))^(-1/d)``, so the log ratio estimates
    ``(1/d) log(f_syn(x) / f_ref(x))`` up to a constant shared by every record: samples of
    different sizes (a large release, a small reference) shift all scores equally and leave the
    ranking, hence the AUC, unchanged. No record is thrown away to equalise the sizes.

    Parameters
    ----------
    metric : {"cosine", "minkowski"}, default "cosine"
    p : float, default 2
    floor : float, default 1e-6
        Added to both distances before the logarithm, so an exact copy (distance 0) gets a large
        finite score.

    Notes
    -----
    Threat model: no-box; sees the synthetic data, a reference sample of real non-members and
    the candidate records.

    References
    ----------
    Chen, Yu, Zhang and Fritz (2020) (attack calibration by a reference model).
    Ward, Lin, Wang and Cheng (2025) (DCR-Diff).
    Loftsgaarden and Quesenberry (1965) (nearest-neighbour density estimation).
    """

    name = "dcr-diff"
    _parameter_constraints = constraints(
        _DistanceAttack._parameter_constraints, floor=Interval(float, 0, None, closed="neither")
    )

    def __init__(
        self, metric: DistanceMetric | str = "cosine", p: float = 2, floor: float = 1e-6
    ) -> None:
        super().__init__(metric, p)
        self.floor = floor

    def fit(self, synthetic: Table, reference: Table, *, rng: np.random.Generator) -> DCRDiffAttack:
        _check_release(synthetic, reference)
        self.synthetic_ = synthetic
        self.reference_ = reference
        return self

    def score(self, records: Table) -> np.ndarray:
        check_fitted(self, "synthetic_")
        _check_records(records, self.synthetic_.schema)
        d_syn = closest_distances(records, self.synthetic_, metric=self.metric, p=self.p)
        d_ref = closest_distances(records, self.reference_, metric=self.metric, p=self.p)
        f = float(self.floor)
        return np.log(np.maximum(d_ref, 0.0) + f) - np.log(np.maximum(d_syn, 0.0) + f)


# --- domias -------------------------------------------------------------------------------------


def _lookup_counts(keys: np.ndarray, counts: np.ndarray, query: np.ndarray) -> np.ndarray:
    """Counts of ``query`` keys in a sorted unique ``keys`` array (0 when absent)."""
    if keys.size == 0:
        return np.zeros(query.size, dtype=np.float64)
    pos = np.minimum(np.searchsorted(keys, query), keys.size - 1)
    return np.where(keys[pos] == query, counts[pos], 0).astype(np.float64)


_CountTable = tuple[np.ndarray, np.ndarray]
"""Sorted unique keys and their counts (see :func:`~synthleak.data.encoding.count_keys`)."""
_Family = tuple[int, tuple[int, ...], list[tuple[_CountTable, _CountTable]]]
"""A child column, its parents, and the (configuration, family) count tables of the
synthetic, reference and pooled data."""


def _family_keys(
    codes: np.ndarray, sizes: np.ndarray, child: int, parents: tuple[int, ...]
) -> tuple[np.ndarray, np.ndarray]:
    """Parent-configuration key and (configuration, child) key of every row (int64, whatever
    the integer type of ``codes``)."""
    cfg = mixed_keys(codes, parents, sizes)
    return cfg, cfg * int(sizes[child]) + codes[:, child].astype(np.int64)


class DomiasAttack(NoBoxMembershipAttack):
    """DOMIAS: the density of the synthetic data over the density of the reference at ``x``.

    ``score(x) = log p_syn(x) - log p_ref(x)``. A generator that overfits puts more synthetic
    mass on its training records than the population has there; dividing by the reference
    density removes what is merely typical of the population.

    Density model. DOMIAS needs a density on mixed categorical and continuous records. We use a
    Bayesian network (the structure search of this package's ``baynet`` generator, PrivBayes's
    GreedyBayes without noise, degree ``k``) over all columns, continuous ones cut at ``bins``
    quantiles of the pooled synthetic and reference data. One structure is learnt on the pooled
    data and its conditional tables are counted on each side, so the two densities differ only
    through the data. Each side's conditional is shrunk towards the pooled one,
    ``p_s(c | pa) = (n_s(pa, c) + prior * p_pool(c | pa)) / (n_s(pa) + prior)``, so a
    configuration seen a few times on one side gives a ratio near 1, not noise. Why not a kernel
    density estimate on the encoded records (the DOMIAS paper's KDE): with several categorical
    columns its bandwidth is dominated by category mismatches and must be chosen per dataset,
    and it costs a sum over every synthetic record per query; a Bayesian network handles
    categories natively, is estimable from a few thousand reference records and is evaluated in
    ``O(columns)`` per record. The price is resolution: records in the same cells of every
    conditional table get the same score (continuous values matter only through their bin).

    Parameters
    ----------
    k : int, default 2
        Parents per column (the degree of the network).
    bins : int, default 20
        Quantile bins per continuous column.
    prior : float, default 2.0
        Strength of the shrinkage towards the pooled conditional (pseudo-records).

    Notes
    -----
    Threat model: no-box; sees the synthetic data, a reference sample of real non-members and
    the candidate records. ``rng`` breaks ties in the structure search (its first column).

    References
    ----------
    van Breugel, Sun, Qian and van der Schaar (2023) (the density ratio).
    Zhang, Cormode, Procopiuc, Srivastava and Xiao (2017) (GreedyBayes).
    """

    name = "domias"
    _parameter_constraints = constraints(
        k=Interval(int, 1, None),
        bins=Interval(int, 1, None),
        prior=Interval(float, 0, None, closed="neither"),
    )

    def __init__(self, k: int = 2, bins: int = 20, prior: float = 2.0) -> None:
        self.k = k
        self.bins = bins
        self.prior = prior

    def fit(self, synthetic: Table, reference: Table, *, rng: np.random.Generator) -> DomiasAttack:
        from synthleak.generators.baynet import greedy_bayes

        _check_release(synthetic, reference)
        k, bins, prior = int(self.k), int(self.bins), float(self.prior)
        # the pooled records (release, then reference) are never stacked: quantiles read them
        # column by column, the codes keep the discretiser's small integer type, and the pooled
        # counts are the sums of the two sides' (memory: at 10M rows the stacked copies took
        # gigabytes)
        disc = Discretiser(synthetic.schema, bins, "quantile", data=[synthetic, reference])
        sizes = disc.sizes.astype(np.int64)
        syn = disc.transform(synthetic)
        ref = disc.transform(reference)
        n_syn, n_both = len(syn), len(syn) + len(ref)
        d = syn.shape[1]
        order: list[int]
        parents: list[tuple[int, ...]]
        if d == 1:
            order, parents = [0], [()]
        else:
            # the structure from a sample of the pooled records; the counts below use them all
            rows = np.arange(n_both)
            if n_both > STRUCTURE_SAMPLE:
                rows = np.sort(rng.choice(n_both, STRUCTURE_SAMPLE, replace=False))
            learn = np.concatenate([syn[rows[rows < n_syn]], ref[rows[rows >= n_syn] - n_syn]])
            order, parents = greedy_bayes(
                np.ascontiguousarray(learn.T.astype(np.int64)), sizes, min(k, d - 1), math.inf, rng
            )
        families: list[_Family] = []
        for child, ps in zip(order, parents, strict=True):
            tables: list[tuple[_CountTable, _CountTable]] = []
            for part in (syn, ref):
                cfg, fam = _family_keys(part, sizes, child, ps)
                tables.append((count_keys(cfg), count_keys(fam)))
            pooled = tuple(merge_counts([tables[0][i], tables[1][i]]) for i in (0, 1))
            tables.append((pooled[0], pooled[1]))
            families.append((child, tuple(ps), tables))
        self.discretiser_ = disc
        self.sizes_ = sizes
        self.families_ = families
        self.prior_ = prior
        self.schema_ = synthetic.schema
        return self

    def log_densities(self, records: Table) -> tuple[np.ndarray, np.ndarray]:
        """``(log p_syn, log p_ref)`` of every record under the two fitted networks."""
        check_fitted(self, "families_")
        _check_records(records, self.schema_)
        codes = self.discretiser_.transform(records).astype(np.int64)
        out_syn = np.zeros(len(records))
        out_ref = np.zeros(len(records))
        lam = self.prior_
        for child, ps, tables in self.families_:
            cfg, fam = _family_keys(codes, self.sizes_, child, ps)
            n_cfg_pool = _lookup_counts(*tables[2][0], cfg)
            n_fam_pool = _lookup_counts(*tables[2][1], fam)
            size = float(self.sizes_[child])
            p_pool = (n_fam_pool + 1.0 / size) / (n_cfg_pool + 1.0)
            for side, out in ((0, out_syn), (1, out_ref)):
                n_cfg = _lookup_counts(*tables[side][0], cfg)
                n_fam = _lookup_counts(*tables[side][1], fam)
                out += np.log((n_fam + lam * p_pool) / (n_cfg + lam))
        return out_syn, out_ref

    def score(self, records: Table) -> np.ndarray:
        log_syn, log_ref = self.log_densities(records)
        return log_syn - log_ref


# --- neighbourhood ------------------------------------------------------------------------------


class NeighbourhoodAttack(_DistanceAttack):
    """Local neighbourhood: synthetic against reference records within a radius of ``x``.

    ``score(x) = log((c_syn(x) + 1/2) / N_syn) - log((c_ref(x) + 1/2) / N_ref)`` where
    ``c_syn`` and ``c_ref`` count the synthetic and reference records within ``radius_`` of
    ``x`` (inclusive) and ``N`` are the sample sizes: a fixed-radius estimate of the density
    ratio that counts every close synthetic record, not only the closest.

    The radius is set on the reference, which holds real non-members only: the ``quantile`` of
    the reference records' distances to their ``k``-th nearest synthetic record. With the
    defaults, a quarter of real non-members have a synthetic record within the radius, so the
    neighbourhood is small enough for a copied or barely perturbed record to stand out (on Adult
    a larger radius, the median distance between reference records, left copies buried among
    dozens of synthetic neighbours) and adapts to the density of the release.

    Parameters
    ----------
    k : int, default 1
        Synthetic neighbour whose distance sets the radius.
    quantile : float, default 0.25
        Quantile of the reference records' ``k``-th neighbour distances, in (0, 1].
    metric : {"cosine", "minkowski"}, default "cosine"
    p : float, default 2

    Notes
    -----
    Threat model: no-box; sees the synthetic data, a reference sample of real non-members and
    the candidate records.

    References
    ----------
    Houssiau et al. (2022) (local-neighbourhood attack of TAPAS).
    Ward, Lin, Wang and Cheng (2025) (no-box attacks compared).
    """

    name = "neighbourhood"
    _parameter_constraints = constraints(
        _DistanceAttack._parameter_constraints,
        k=Interval(int, 1, None),
        quantile=Interval(float, 0, 1, closed="right"),
    )

    def __init__(
        self,
        k: int = 1,
        quantile: float = 0.25,
        metric: DistanceMetric | str = "cosine",
        p: float = 2,
    ) -> None:
        super().__init__(metric, p)
        self.k = k
        self.quantile = quantile

    def fit(
        self, synthetic: Table, reference: Table, *, rng: np.random.Generator
    ) -> NeighbourhoodAttack:
        _check_release(synthetic, reference)
        k, q = int(self.k), float(self.quantile)
        if k > len(synthetic):
            raise InputError(
                f"k={k} neighbours need at least {k} synthetic records, got {len(synthetic)}: "
                "use a smaller k"
            )
        queries = fit_sample(reference, FIT_QUERIES, rng)
        d, _ = nearest_neighbours(queries, synthetic, k=k, metric=self.metric, p=self.p)
        self.radius_ = float(np.quantile(d[:, k - 1], q))
        self.synthetic_ = synthetic
        self.reference_ = reference
        return self

    def score(self, records: Table) -> np.ndarray:
        check_fitted(self, "radius_")
        _check_records(records, self.synthetic_.schema)
        c_syn = radius_counts(records, self.synthetic_, self.radius_, metric=self.metric, p=self.p)
        c_ref = radius_counts(records, self.reference_, self.radius_, metric=self.metric, p=self.p)
        return np.log((c_syn + 0.5) / len(self.synthetic_)) - np.log(
            (c_ref + 0.5) / len(self.reference_)
        )


# --- classifier ---------------------------------------------------------------------------------


def _features(table: Table) -> tuple[np.ndarray, np.ndarray]:
    """Codes then continuous values as float64, and the categorical mask (codes < 255 only)."""
    x = np.concatenate([table.codes.astype(np.float64), table.values.astype(np.float64)], axis=1)
    cat = np.array(
        [c.size <= 255 for c in table.schema.categorical] + [False] * table.values.shape[1],
        dtype=bool,
    )
    return x, cat


#: Bins of a numeric feature of the classifier (scikit-learn's histogram boosting's most).
_MAX_BINS = 255


def _bin_edges(x: np.ndarray, cat: np.ndarray) -> list[np.ndarray | None]:
    """Per column of ``x``, the edges that cut a numeric column of more than :data:`_MAX_BINS`
    distinct values into bins of equal counts (unweighted quantiles, as scikit-learn's own
    binning without weights), ``None`` for the other columns.

    Given bin numbers, the boosting's binning keeps them as they are (no more values than
    bins); otherwise it computes a weighted percentile per threshold when the classes are
    weighted, which took half the attack's fit on 10,000 records a side."""
    edges: list[np.ndarray | None] = []
    for j in range(x.shape[1]):
        col = x[:, j]
        col = col[~np.isnan(col)]
        if cat[j] or np.unique(col).size <= _MAX_BINS:
            edges.append(None)
            continue
        q = np.quantile(col, np.linspace(0.0, 1.0, _MAX_BINS + 1)[1:-1], method="midpoint")
        edges.append(np.unique(q))
    return edges


def _binned(x: np.ndarray, edges: list[np.ndarray | None]) -> np.ndarray:
    """``x`` with each column that has edges replaced by its bin numbers (missing stays NaN)."""
    out = x.copy()
    for j, e in enumerate(edges):
        if e is not None:
            col = x[:, j]
            out[:, j] = np.where(np.isnan(col), np.nan, np.searchsorted(e, col, side="right"))
    return out


class ClassifierAttack(NoBoxMembershipAttack):
    """A classifier trained to tell synthetic records from reference records; its log-odds.

    Where the generator put more mass than the population (its training records, if it
    overfits), a synthetic-vs-reference classifier leans towards "synthetic". The classifier is
    scikit-learn's histogram gradient boosting with native categorical columns (missing values
    handled natively), classes weighted to balance unequal sample sizes. It runs on one thread:
    OpenMP threads competing with other processes for the cores made it ten times slower in
    our benchmark (``benchmarks/bench_nobox.py``).

    Parameters
    ----------
    max_iter : int, default 100
        Boosting iterations.
    learning_rate : float, default 0.1
    max_leaf_nodes : int, default 31

    Notes
    -----
    Threat model: no-box; sees the synthetic data, a reference sample of real non-members and
    the candidate records. ``rng`` seeds the classifier.

    References
    ----------
    Hayes, Melis, Danezis and De Cristofaro (2019) (LOGAN: a discriminator scores candidate
    records).
    Ward, Lin, Wang and Cheng (2025) (no-box attacks compared).
    """

    name = "classifier"
    _parameter_constraints = constraints(
        max_iter=Interval(int, 1, None),
        learning_rate=Interval(float, 0, None, closed="neither"),
        max_leaf_nodes=Interval(int, 2, None),
    )

    def __init__(
        self, max_iter: int = 100, learning_rate: float = 0.1, max_leaf_nodes: int = 31
    ) -> None:
        self.max_iter = max_iter
        self.learning_rate = learning_rate
        self.max_leaf_nodes = max_leaf_nodes

    def fit(
        self, synthetic: Table, reference: Table, *, rng: np.random.Generator
    ) -> ClassifierAttack:
        from sklearn.ensemble import HistGradientBoostingClassifier

        _check_release(synthetic, reference)
        max_iter, leaves = int(self.max_iter), int(self.max_leaf_nodes)
        lr = float(self.learning_rate)
        seed = int(rng.integers(2**31 - 1))
        xs, cat = _features(fit_sample(synthetic, CLASSIFIER_TRAIN, rng))
        xr, _ = _features(fit_sample(reference, CLASSIFIER_TRAIN, rng))
        x = np.concatenate([xs, xr])
        self.edges_ = _bin_edges(x, cat)
        x = _binned(x, self.edges_)
        y = np.r_[np.ones(len(xs), dtype=np.int64), np.zeros(len(xr), dtype=np.int64)]
        model = HistGradientBoostingClassifier(
            max_iter=max_iter,
            learning_rate=lr,
            max_leaf_nodes=leaves,
            categorical_features=cat if cat.any() else None,
            class_weight="balanced",
            early_stopping=False,
            random_state=seed,
        )
        with one_thread_limit():
            self.model_ = model.fit(x, y)
        self.schema_ = synthetic.schema
        return self

    def score(self, records: Table) -> np.ndarray:
        check_fitted(self, "model_")
        _check_records(records, self.schema_)
        x, _ = _features(records)
        with one_thread_limit():
            return np.asarray(
                self.model_.decision_function(_binned(x, self.edges_)), dtype=np.float64
            )


# --- registry -----------------------------------------------------------------------------------

for _cls, _doc, _refs in (
    (
        DCRMembershipAttack,
        "distance to the closest synthetic record (uncalibrated)",
        ("chen2020", "yao2025"),
    ),
    (
        DCRDiffAttack,
        "log distance to the closest reference record minus that to the closest synthetic one",
        ("chen2020", "ward2025synthmia", "loftsgaarden1965"),
    ),
    (
        DomiasAttack,
        "density of the synthetic data over density of the reference (Bayesian networks)",
        ("vanbreugel2023", "zhang2017"),
    ),
    (
        NeighbourhoodAttack,
        "synthetic against reference records within a radius (local neighbourhood)",
        ("houssiau2022", "ward2025synthmia"),
    ),
    (
        ClassifierAttack,
        "log-odds of a synthetic-vs-reference gradient-boosting classifier",
        ("hayes2019", "ward2025synthmia"),
    ),
):
    register_attack(
        AttackInfo(
            name=_cls.name,
            family=AttackFamily.NOBOX_MEMBERSHIP,
            factory=_cls,
            doc=_doc,
            references=_refs,
        )
    )
