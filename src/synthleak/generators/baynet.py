"""Bayesian-network generators: ``baynet`` (GreedyBayes, no noise) and ``privbayes`` (epsilon-DP).

Both learn a Bayesian network of degree ``k`` with GreedyBayes (Zhang et al., PrivBayes, TODS
2017, Algorithm 2/4) on the discretised table, estimate the conditional distribution of every
attribute given its parents, and sample records ancestrally in network order.

Network learning (GreedyBayes)
------------------------------
The first attribute is drawn uniformly at random. Then, while attributes remain, every pair
``(X, Pi)`` with ``X`` not yet in the network ``V`` and ``Pi`` a subset of ``V`` of size
``min(k, |V|)`` is a candidate; ``baynet`` adds the candidate with the highest mutual information
``I(X; Pi)`` (ties: first candidate), ``privbayes`` draws one with the exponential mechanism.
Parent sets have exactly ``min(k, |V|)`` members, as in the paper and in DataSynthesizer (mutual
information never decreases when a parent is added, so the noiseless search loses nothing).

Mutual information is computed from the contingency table of child codes and parent-configuration
codes, all candidates that share a parent set in one ``np.bincount``; each ``(X, Pi)`` score is
computed once and reused while ``X`` is still outside the network (it does not change).

Conditionals
------------
Counts over the full (schema) domain of ``(Pi_i, X_i)``. The first ``k`` attributes' conditionals
are derived from the joint of the first ``k + 1`` attributes (their parents are all earlier
attributes), so ``d - k`` joint tables are measured. Each conditional is the joint normalised per
parent configuration. A parent configuration with no (or, after noise, only zero) mass falls back
to the attribute's marginal taken from the same joint table; a zero marginal falls back to the
uniform distribution.

Continuous columns are cut into ``bins`` uniform bins over the schema range
(:class:`~synthleak.data.encoding.Discretiser`) and sampled uniformly inside the drawn bin.

Differential privacy (``privbayes``)
------------------------------------
The budget ``epsilon`` is split as ``epsilon1 = beta * epsilon`` for the network and
``epsilon2 = (1 - beta) * epsilon`` for the conditionals (``beta = 0.3`` by default, the paper's
recommendation; DataSynthesizer uses ``beta = 0.5``). Neighbouring datasets differ in one record
(the paper's replace-one relation; ``n`` is public).

* Network: each of the ``d - 1`` selections is an exponential mechanism with budget
  ``epsilon1 / (d - 1)`` over the score ``I(X; Pi)``, whose sensitivity ``S(n)`` is that of
  PrivBayes Lemma 1 (:func:`mi_sensitivity`): candidate ``(X, Pi)`` has probability proportional
  to ``exp(I / (2 * Delta))`` with ``Delta = (d - 1) * S / epsilon1`` (:func:`exponential_logits`).
  ``S`` depends on the candidate (smaller when ``X`` or ``Pi`` has a binary domain); dividing each
  score by its own sensitivity gives scores of sensitivity 1, so this is a valid exponential
  mechanism.
* Conditionals: each of the ``d - k`` joint distributions ``Pr[X_i, Pi_i]`` has L1 sensitivity
  ``2 / n``; PrivBayes Algorithm 1 adds ``Lap(2 (d - k) / (n * epsilon2))`` to every cell of each
  distribution. We add the equivalent ``Lap(2 (d - k) / epsilon2)`` to the counts
  (:func:`laplace_count_scale`), clip negatives to zero and normalise. (DataSynthesizer adds
  ``Lap((d - k) / epsilon2)`` to counts, the add/remove-one sensitivity.)

The domain of every attribute comes from the schema: categories of categorical columns and
uniform bins over the schema range of continuous columns; nothing about the domain is read from
the private data (reading it leaks, reprosyn issue #38). The guarantee therefore holds only when
the schema itself is public: with a finite ``epsilon`` supply a schema written without looking at
the private records (``--schema``), not one inferred from them.

``epsilon = inf`` turns off both mechanisms: ``privbayes:epsilon=inf,k=K`` is ``baynet:k=K`` and
gives identical output for the same seed.

References
----------
Zhang et al. (2017), "PrivBayes: Private data release via Bayesian networks", ACM TODS
42(4): Algorithm 1 (NoisyConditionals), Algorithm 2 (GreedyBayes),
Lemma 1 (sensitivity of mutual information), Section 4 (budget split ``beta``).
Meeus et al. (2023), "Achilles' heels: vulnerable record identification in synthetic data
publishing", ESORICS, Sec. 5.3 (BayNet and PrivBayes).
Annamalai et al. (2024a), "A linear reconstruction approach for attribute inference attacks
against synthetic data", USENIX Security, Sec. 5.2 and Appendix A (BayNet, PrivBayes).
Ping et al. (2017), DataSynthesizer (correlated attribute mode), the implementation the papers
used.
"""

from __future__ import annotations

import math
from itertools import combinations

import numpy as np

from synthleak.constraints import Interval, constraints
from synthleak.data.encoding import Discretiser
from synthleak.data.table import Table
from synthleak.errors import InputError
from synthleak.generators.base import BaseGenerator, GeneratorInfo, params_of, register_generator

#: Largest conditional table (cells) a network may hold; beyond it fitting raises InputError.
MAX_TABLE_CELLS = 20_000_000
#: Rows x candidates processed per mutual-information batch (bounds memory).
_MI_BATCH_ELEMENTS = 2_000_000


# --------------------------------------------------------------------------------------------
# privacy calibration (pure functions)
# --------------------------------------------------------------------------------------------
def mi_sensitivity(n: int, binary: bool) -> float:
    """Sensitivity of the mutual information ``I(X; Pi)`` over ``n`` records (PrivBayes Lemma 1).

    Parameters
    ----------
    n : int
        Number of records (public).
    binary : bool
        ``X`` or ``Pi`` has a domain of size 2.

    Returns
    -------
    float
        ``log(n)/n + (n-1)/n * log(n/(n-1))`` when ``binary``, else
        ``2/n * log((n+1)/2) + (n-1)/n * log((n+1)/(n-1))`` (natural logarithms, the unit of the
        mutual information computed here).
    """
    if n < 2:
        raise InputError(f"PrivBayes needs at least 2 records to calibrate its noise, got {n}")
    if binary:
        return math.log(n) / n + (n - 1) / n * math.log(n / (n - 1))
    return 2.0 / n * math.log((n + 1) / 2.0) + (n - 1) / n * math.log((n + 1) / (n - 1))


def exponential_logits(
    mi: np.ndarray, sensitivity: np.ndarray, n_attributes: int, epsilon1: float
) -> np.ndarray:
    """Log-weights of the exponential mechanism choosing one GreedyBayes candidate.

    Candidate ``j`` is drawn with probability proportional to ``exp(mi[j] / (2 * Delta[j]))`` with
    ``Delta[j] = (n_attributes - 1) * sensitivity[j] / epsilon1`` (PrivBayes Section 4.2: each of
    the ``d - 1`` choices spends ``epsilon1 / (d - 1)``).
    """
    if n_attributes < 2:
        raise ValueError("the exponential mechanism needs at least 2 attributes")
    delta = (n_attributes - 1) * np.asarray(sensitivity, dtype=np.float64) / epsilon1
    return np.asarray(mi, dtype=np.float64) / (2.0 * delta)


def laplace_count_scale(n_attributes: int, k: int, epsilon2: float) -> float:
    """Laplace scale added to every count of the ``d - k`` measured joint tables.

    PrivBayes Algorithm 1 adds ``Lap(2 (d - k) / (n * epsilon2))`` to distributions over ``n``
    records; on counts (``n`` times the distribution) that is ``Lap(2 (d - k) / epsilon2)``.
    ``k`` is the effective degree ``min(k, d - 1)``.
    """
    k_eff = min(k, n_attributes - 1)
    return 2.0 * (n_attributes - k_eff) / epsilon2


# --------------------------------------------------------------------------------------------
# counting helpers
# --------------------------------------------------------------------------------------------
def _config_codes(codes: np.ndarray, sizes: np.ndarray, parents: tuple[int, ...]) -> np.ndarray:
    """Mixed-radix parent-configuration index of every row (first parent most significant)."""
    out = np.zeros(codes.shape[1], dtype=np.int64)
    for p in parents:
        out *= int(sizes[p])
        out += codes[p]
    return out


def _mean_log_counts(code: np.ndarray, size: int, log_table: np.ndarray) -> float:
    """Mean over rows of log(count of the row's value)."""
    counts = np.bincount(code, minlength=size)
    return float(log_table[counts[code]].mean())


def mutual_information(x: np.ndarray, x_size: int, p: np.ndarray, p_size: int) -> float:
    """Empirical mutual information (nats) between two code vectors (reference implementation).

    ``I = sum_{x,p} c(x,p)/n * log(n c(x,p) / (c(x) c(p)))``.
    """
    n = x.shape[0]
    joint = np.bincount(x.astype(np.int64) * p_size + p, minlength=x_size * p_size).reshape(
        x_size, p_size
    )
    cx = joint.sum(axis=1, keepdims=True).astype(np.float64)
    cp = joint.sum(axis=0, keepdims=True).astype(np.float64)
    nz = joint > 0
    ratio = n * joint / np.where(cx * cp > 0, cx * cp, 1.0)
    return float((joint[nz] / n * np.log(ratio[nz])).sum())


def _cell_counts(cells: np.ndarray) -> np.ndarray:
    """For each element of ``cells`` (non-negative cell numbers), how many elements share its
    cell. A count table over every cell (``np.bincount``) when the cells are few beside the
    elements; otherwise the occupied cells alone (sorted), so a wide joint domain (a
    4,000-level child under many parent configurations) never allocates a table of every
    possible cell. The counts, and so the mutual information, are the same either way."""
    flat = cells.ravel()
    if flat.size == 0 or int(flat.max()) < 4 * flat.size:
        return np.bincount(flat)[cells]
    _, inverse, counts = np.unique(flat, return_inverse=True, return_counts=True)
    return counts[inverse.reshape(-1)].reshape(cells.shape)


class _MIScorer:
    """Mutual information of many (child, parent set) candidates, batched per parent set."""

    def __init__(self, codes: np.ndarray, sizes: np.ndarray) -> None:
        self.codes = codes  # (d, n) int64
        self.sizes = sizes
        self.n = codes.shape[1]
        self.log_table = np.log(np.maximum(np.arange(self.n + 1, dtype=np.float64), 1.0))
        self.child_mean_log = np.array(
            [
                _mean_log_counts(codes[f], int(sizes[f]), self.log_table)
                for f in range(codes.shape[0])
            ]
        )

    def _dense_configs(self, parents: tuple[int, ...]) -> tuple[np.ndarray, int]:
        """Parent-configuration codes relabelled to ``0 .. #seen - 1`` and their number."""
        cfg = _config_codes(self.codes, self.sizes, parents)
        p_size = int(np.prod(self.sizes[list(parents)]))
        if p_size > 4 * self.n:
            uniq, inverse = np.unique(cfg, return_inverse=True)
            return inverse.reshape(-1), int(uniq.size)
        seen = np.zeros(p_size, dtype=np.int64)
        seen[cfg] = 1
        relabel = np.cumsum(seen) - 1
        return relabel[cfg], int(relabel[-1] + 1)

    def scores(self, children: np.ndarray, parents: tuple[int, ...]) -> np.ndarray:
        """``I(X; Pi)`` for every ``X`` in ``children`` and the parent set ``parents``."""
        return self.scores_many(children, [parents])[0]

    def scores_many(self, children: np.ndarray, parent_sets: list[tuple[int, ...]]) -> np.ndarray:
        """``I(X; Pi)`` for every parent set (rows) and child (columns): shape (m, r).

        Uses ``I = log n + mean log c(x,p) - mean log c(x) - mean log c(p)`` (means over rows,
        ``c`` the count of the row's cell), with parent configurations relabelled densely so the
        tables stay small; all (set, child) tables of a batch share one ``np.bincount``.
        """
        n = self.n
        out = np.empty((len(parent_sets), children.size), dtype=np.float64)
        if children.size == 0 or not parent_sets:
            return out
        per_set = max(1, _MI_BATCH_ELEMENTS // max(n * children.size, 1))
        child_codes = self.codes[children]  # (r, n)
        child_max = int(self.sizes[children].max())
        for lo in range(0, len(parent_sets), per_set):
            batch = parent_sets[lo : lo + per_set]
            dense = [self._dense_configs(ps) for ps in batch]
            cfg = np.stack([c for c, _ in dense])  # (m, n)
            p_sizes = np.array([s for _, s in dense], dtype=np.int64)  # (m,)
            # mean log c(p) per set, one bincount with per-set offsets
            p_off = np.concatenate([[0], np.cumsum(p_sizes)[:-1]])
            cfg_off = cfg + p_off[:, None]
            p_counts = np.bincount(cfg_off.ravel())
            p_mean_log = self.log_table[p_counts[cfg_off]].mean(axis=1)  # (m,)
            # mean log c(x, p) per (set, child)
            cells = np.repeat(p_sizes * child_max, children.size)  # (m * r,)
            j_off = np.concatenate([[0], np.cumsum(cells)[:-1]]).reshape(len(batch), -1)
            joint = (
                j_off[:, :, None]
                + child_codes[None, :, :] * p_sizes[:, None, None]
                + cfg[:, None, :]
            )
            mean_log_joint = self.log_table[_cell_counts(joint)].mean(axis=2)  # (m, r)
            out[lo : lo + len(batch)] = (
                math.log(n)
                + mean_log_joint
                - self.child_mean_log[children][None, :]
                - p_mean_log[:, None]
            )
        return np.maximum(out, 0.0)


# --------------------------------------------------------------------------------------------
# GreedyBayes
# --------------------------------------------------------------------------------------------
def greedy_bayes(
    codes: np.ndarray,
    sizes: np.ndarray,
    k: int,
    epsilon1: float,
    rng: np.random.Generator,
) -> tuple[list[int], list[tuple[int, ...]]]:
    """Learn the network order and parent sets (PrivBayes Algorithm 2, GreedyBayes).

    Parameters
    ----------
    codes : ndarray of shape (d, n), int64
        Attribute codes, one row per attribute.
    sizes : ndarray of shape (d,)
        Domain sizes (from the schema).
    k : int
        Degree (maximum number of parents), >= 1.
    epsilon1 : float
        Budget of the structure search; ``inf`` takes the best candidate (no noise).
    rng : numpy.random.Generator

    Returns
    -------
    order : list of int
        Attributes in network order.
    parents : list of tuple of int
        ``parents[i]`` are the parents of ``order[i]``, in network order.
    """
    d, n = codes.shape
    root = int(rng.integers(d))
    order = [root]
    parents: list[tuple[int, ...]] = [()]
    if d == 1:
        return order, parents
    scorer = _MIScorer(codes, sizes)
    in_net = np.zeros(d, dtype=bool)
    in_net[root] = True
    private = math.isfinite(epsilon1)
    sens_binary = mi_sensitivity(n, True) if private else 1.0
    sens_other = mi_sensitivity(n, False) if private else 1.0
    cand_child = np.zeros(0, dtype=np.int64)
    cand_set = np.zeros(0, dtype=np.int64)
    cand_mi = np.zeros(0, dtype=np.float64)
    cand_sens = np.zeros(0, dtype=np.float64)
    sets: list[tuple[int, ...]] = []
    newest = root
    while len(order) < d:
        remaining = np.flatnonzero(~in_net)
        if len(order) <= k:
            new_sets = [tuple(order)]
            cand_child = cand_child[:0]
            cand_set = cand_set[:0]
            cand_mi = cand_mi[:0]
            cand_sens = cand_sens[:0]
        else:
            prev = order[:-1]
            new_sets = [
                tuple(sorted((*rest, newest), key=order.index))
                for rest in combinations(prev, k - 1)
            ]
            keep = ~np.isin(cand_child, order)
            cand_child, cand_set = cand_child[keep], cand_set[keep]
            cand_mi, cand_sens = cand_mi[keep], cand_sens[keep]
        mi_new = scorer.scores_many(remaining, new_sets)  # (len(new_sets), len(remaining))
        sid0 = len(sets)
        sets.extend(new_sets)
        set_binary = np.array([int(np.prod(sizes[list(ps)])) == 2 for ps in new_sets])
        binary = (sizes[remaining] == 2)[None, :] | set_binary[:, None]
        cand_child = np.concatenate([cand_child, np.tile(remaining, len(new_sets))])
        cand_set = np.concatenate(
            [cand_set, np.repeat(np.arange(sid0, sid0 + len(new_sets)), remaining.size)]
        )
        cand_mi = np.concatenate([cand_mi, mi_new.ravel()])
        cand_sens = np.concatenate([cand_sens, np.where(binary, sens_binary, sens_other).ravel()])
        if private:
            logits = exponential_logits(cand_mi, cand_sens, d, epsilon1)
            pick = int(np.argmax(logits + rng.gumbel(size=logits.size)))
        else:
            pick = int(np.argmax(cand_mi))
        newest = int(cand_child[pick])
        order.append(newest)
        parents.append(sets[int(cand_set[pick])])
        in_net[newest] = True
    return order, parents


# --------------------------------------------------------------------------------------------
# conditionals and sampling
# --------------------------------------------------------------------------------------------
def _joint_counts(codes: np.ndarray, sizes: np.ndarray, attrs: tuple[int, ...]) -> np.ndarray:
    """Dense count table over ``attrs`` (axes in that order)."""
    shape = tuple(int(sizes[a]) for a in attrs)
    cells = int(np.prod(shape))
    if cells > MAX_TABLE_CELLS:
        names = ", ".join(str(a) for a in attrs)
        raise InputError(
            f"the Bayesian network needs a table of {cells:,} cells over attributes [{names}]: "
            "lower k or the number of bins (e.g. baynet:k=2,bins=10)"
        )
    cfg = _config_codes(codes, sizes, attrs)
    return np.bincount(cfg, minlength=cells).astype(np.float64).reshape(shape)


def _conditional_cdf(joint: np.ndarray) -> np.ndarray:
    """Row-offset cumulative table (configs * size,) from a joint with the child on the last axis.

    Row ``r`` holds ``r + CDF(child | config r)``, so one ``searchsorted`` of ``r + u`` samples
    every row. Empty configurations use the child's marginal from the same joint.
    """
    size = joint.shape[-1]
    table = joint.reshape(-1, size)
    marginal = table.sum(axis=0)
    total = marginal.sum()
    marginal = marginal / total if total > 0 else np.full(size, 1.0 / size)
    row_sum = table.sum(axis=1, keepdims=True)
    empty = row_sum[:, 0] <= 0
    probs = table / np.where(row_sum > 0, row_sum, 1.0)
    probs[empty] = marginal
    cdf = np.cumsum(probs, axis=1)
    cdf[:, -1] = 1.0
    cdf += np.arange(table.shape[0], dtype=np.float64)[:, None]
    return cdf.ravel()


class _BayesianNetwork(BaseGenerator):
    """Shared fit/sample of ``baynet`` and ``privbayes`` (see the module docstring)."""

    _parameter_constraints = constraints(
        k=Interval(int, 1, None),
        bins=Interval(int, 1, None),
        epsilon=Interval(float, 0, None, closed="neither"),  # inf: no noise
        beta=Interval(float, 0, 1, closed="neither"),
    )

    def __init__(
        self, k: int = 2, bins: int = 20, epsilon: float = math.inf, beta: float = 0.3
    ) -> None:
        super().__init__()
        self.k = k
        self.bins = bins
        self.epsilon = epsilon
        self.beta = beta

    def fit(self, table: Table, *, rng: np.random.Generator) -> _BayesianNetwork:
        if len(table) < 2:
            raise InputError(
                f"{self.spec or 'baynet'} needs at least 2 training records, got {len(table)}"
            )
        disc = Discretiser(table.schema, int(self.bins), "uniform")
        codes = np.ascontiguousarray(disc.transform(table).T, dtype=np.int64)
        sizes = disc.sizes.astype(np.int64)
        d = codes.shape[0]
        k_eff = min(int(self.k), d - 1)
        eps1 = self.beta * self.epsilon
        eps2 = (1.0 - self.beta) * self.epsilon
        order, parents = greedy_bayes(codes, sizes, int(self.k), eps1, rng)
        noise = laplace_count_scale(d, k_eff, eps2) if math.isfinite(eps2) else 0.0

        def measure(attrs: tuple[int, ...]) -> np.ndarray:
            joint = _joint_counts(codes, sizes, attrs)
            if noise > 0:
                joint += rng.laplace(0.0, noise, size=joint.shape)
                np.maximum(joint, 0.0, out=joint)
            return joint

        cdfs: list[np.ndarray] = []
        first = measure(tuple(order[: k_eff + 1]))
        for i in range(k_eff + 1):
            cdfs.append(_conditional_cdf(first.sum(axis=tuple(range(i + 1, k_eff + 1)))))
        for i in range(k_eff + 1, d):
            cdfs.append(_conditional_cdf(measure((*parents[i], order[i]))))
        self.discretiser_ = disc
        self.sizes_ = sizes
        self.order_ = order
        self.parents_ = parents
        self.cdfs_ = cdfs
        self.schema_ = table.schema
        return self

    @property
    def claimed_epsilon(self) -> float | None:  # type: ignore[override]
        """The budget ``epsilon`` (pure DP) when finite; ``None`` for ``baynet`` (no privacy)."""
        return float(self.epsilon) if math.isfinite(self.epsilon) else None

    @property
    def claimed_delta(self) -> float | None:  # type: ignore[override]
        """``0.0`` (pure epsilon-DP) when an epsilon is claimed, else ``None``."""
        return 0.0 if self.claimed_epsilon is not None else None

    @property
    def network_(self) -> list[tuple[str, tuple[str, ...]]]:
        """The learnt network as ``(attribute, parents)`` names, in sampling order."""
        self._check_fitted()
        names = self.schema_.names
        return [
            (names[a], tuple(names[p] for p in ps))
            for a, ps in zip(self.order_, self.parents_, strict=True)
        ]

    def _sample(self, n: int, *, rng: np.random.Generator) -> Table:
        d = len(self.order_)
        out = np.empty((d, n), dtype=np.int64)
        u = rng.random((d, n))
        for i, (attr, ps) in enumerate(zip(self.order_, self.parents_, strict=True)):
            size = int(self.sizes_[attr])
            cfg = _config_codes(out, self.sizes_, ps) if ps else np.zeros(n, dtype=np.int64)
            idx = np.searchsorted(self.cdfs_[i], cfg + u[i], side="right") - cfg * size
            out[attr] = np.clip(idx, 0, size - 1)
        return self.discretiser_.inverse(out.T, rng=rng)


class BayNet(_BayesianNetwork):
    """Bayesian network of degree ``k`` learnt by GreedyBayes without noise (PrivBayes at eps=inf).

    Parameters
    ----------
    k : int, default 2
        degree: number of parents per attribute.
        Every attribute has ``min(k, #earlier attributes)`` parents.
    bins : int, default 20
        uniform bins per continuous column.
        Over the schema range.

    Notes
    -----
    See :mod:`synthleak.generators.baynet` for the algorithm. No privacy guarantee: the
    conditionals are exact counts, so rare combinations of the training data are reproduced.
    Unseen parent configurations are sampled from the attribute's marginal.

    References
    ----------
    Zhang et al. (2017), PrivBayes (ACM TODS), Algorithm 2; Meeus et al. (2023), Sec. 5.3;
    Annamalai et al. (2024a), Sec. 5.2 and Appendix A.
    """

    # epsilon (inf) and beta are fixed here, not parameters
    _parameter_constraints = constraints(
        {n: _BayesianNetwork._parameter_constraints[n] for n in ("k", "bins")}
    )

    def __init__(self, k: int = 2, bins: int = 20) -> None:
        super().__init__(k=k, bins=bins, epsilon=math.inf)


class PrivBayes(_BayesianNetwork):
    """epsilon-differentially private Bayesian network
    (PrivBayes with the mutual-information score).

    Parameters
    ----------
    epsilon : float, default 1.0
        privacy budget (inf: no noise, same as baynet).
        The total budget, > 0; ``inf`` is :class:`BayNet`.
    k : int, default 2
        degree: number of parents per attribute.
    bins : int, default 20
        uniform bins per continuous column (schema range).
        Never read from the data.
    beta : float, default 0.3
        share of epsilon spent on the network structure.
        The rest goes to the conditionals.

    Notes
    -----
    The domain (categories, ranges) comes from the schema only; the guarantee holds when the
    schema is public (supply it with ``--schema`` rather than inferring it from the private data).
    Calibration: :func:`mi_sensitivity`, :func:`exponential_logits`, :func:`laplace_count_scale`.

    References
    ----------
    Zhang et al. (2017), PrivBayes (ACM TODS), Algorithms 1-2, Lemma 1; Meeus et al. (2023),
    Sec. 5.3; Annamalai et al. (2024a), Appendix A.
    """

    def __init__(self, epsilon: float = 1.0, k: int = 2, bins: int = 20, beta: float = 0.3) -> None:
        super().__init__(k=k, bins=bins, epsilon=epsilon, beta=beta)


register_generator(
    GeneratorInfo(
        "baynet",
        BayNet,
        params_of(BayNet),
        "Bayesian network learnt by GreedyBayes (PrivBayes without noise)",
    )
)
register_generator(
    GeneratorInfo(
        "privbayes",
        PrivBayes,
        params_of(PrivBayes),
        "epsilon-DP Bayesian network (PrivBayes, mutual-information score)",
        differentially_private=True,
    )
)
