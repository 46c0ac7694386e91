"""Linkability attack: re-link two halves of a record through the synthetic data.

The adversary holds two auxiliary datasets about the same people, one with the columns ``A`` and
one with the columns ``B``. For a target record it looks up its ``k`` nearest synthetic
neighbours on ``A`` and, separately, on ``B``; the two halves are *linked* when the two neighbour
sets share a synthetic record (:class:`NearestNeighbourLinkability`, registered as the
``nearest-neighbour`` attack of the ``linkability`` family). The game
(:class:`synthleak.games.linkability.LinkabilityGame`) draws the targets from the original and the
control data and turns link counts into a risk.

Distance: the Gower-like mixed-type distance of Anonymeter — the number of categorical columns
that differ plus the L1 distance of the continuous columns, each divided by its range over the
synthetic data and the targets (so one continuous column contributes at most 1). A categorical
missing value is a category like any other. For a continuous column, two missing cells are at
distance 0 and a missing cell is at distance 1 from any value (Anonymeter's kernel instead counts
1 when both are missing and gives NaN, i.e. "never a neighbour", when one is; Adult has no
missing continuous values, so the two agree there).

The search is exact and brute force in a compiled (numba) kernel: one pass over the synthetic
records per target with a running top-``k`` buffer, no distance matrix in memory; candidates are
ordered by (distance, synthetic index), so ties go to the lower index (deterministic, and the rule
that lets a search split over partitions of the release give the same neighbours:
:func:`synthleak.partitioned.neighbours_by_partition`). Every term is non-negative, so a candidate's
sum stops as soon as it passes the current ``k``-th distance, and one continuous column's term
alone bounds the distance: the candidates are visited outward from the target's value on the
most spread continuous column, and the walk ends when both sides are farther than the current
``k``-th distance. Neither changes a result; at the audit's shapes the search visits a small
part of the release.

Notes
-----
Threat model: no-box. The adversary holds the release and, for each target, its two halves (the
``aux_a`` and ``aux_b`` columns) from two separate sources.

References
----------
Giomi et al. (2023), Sec. 4.2 (linkability) and Sec. 5 (distance). Article 29 Data Protection
Working Party (2014), linkability. Gower (1971) (mixed-type distance).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numba
import numpy as np

from synthleak.attacks.base import AttackFamily, AttackInfo, LinkabilityAttack, register_attack
from synthleak.constraints import InstanceOf, Interval, SequenceOf, constraints
from synthleak.data.table import Table
from synthleak.errors import InputError, check_fitted
from synthleak.runtime.jit import njit


@njit(cache=True, parallel=True)
def _knn_gower(tc, sc, tv, sv, k):  # pragma: no cover - compiled
    """Distances and indices ``(t, k)`` of each target's ``k`` nearest candidates, ordered by
    (distance, index): one pass over the candidates in index order."""
    t, m = tc.shape[0], sc.shape[0]
    dist = np.empty((t, k), dtype=np.float64)
    idx = np.empty((t, k), dtype=np.int64)
    for i in numba.prange(t):
        best = np.empty(k, dtype=np.float64)
        filled = 0
        for r in range(m):
            # every term is >= 0: stop summing once the candidate cannot enter the top k
            # (not strictly closer than the current k-th: ties keep the lower index)
            bound = best[k - 1] if filled == k else np.inf
            d = 0.0
            for j in range(tc.shape[1]):
                if tc[i, j] != sc[r, j]:
                    d += 1.0
            if d >= bound:
                continue
            for j in range(tv.shape[1]):
                a, b = tv[i, j], sv[r, j]
                an, bn = np.isnan(a), np.isnan(b)
                if an or bn:
                    if an != bn:
                        d += 1.0
                else:
                    d += abs(a - b)
                if d >= bound:
                    break
            if d >= bound:
                continue
            p = filled if filled < k else k - 1
            while p > 0 and best[p - 1] > d:
                best[p] = best[p - 1]
                idx[i, p] = idx[i, p - 1]
                p -= 1
            best[p] = d
            idx[i, p] = r
            if filled < k:
                filled += 1
        for p in range(k):
            dist[i, p] = best[p]
    return dist, idx


@njit(cache=True, inline="always")
def _offer(i, r, tc, sc, tv, sv, best, bidx, filled):  # pragma: no cover - compiled
    """Offer candidate ``r`` to target ``i``'s top-k buffer, ordered by (distance, index);
    returns the new fill count. The sum stops once it exceeds the current k-th distance."""
    k = best.shape[0]
    bound = best[k - 1] if filled == k else np.inf
    d = 0.0
    for j in range(tc.shape[1]):
        if tc[i, j] != sc[r, j]:
            d += 1.0
    if d > bound:
        return filled
    for j in range(tv.shape[1]):
        a, b = tv[i, j], sv[r, j]
        an, bn = np.isnan(a), np.isnan(b)
        if an or bn:
            if an != bn:
                d += 1.0
        else:
            d += abs(a - b)
        if d > bound:
            return filled
    if filled == k and (d > best[k - 1] or (d == best[k - 1] and r > bidx[k - 1])):
        return filled
    p = filled if filled < k else k - 1
    while p > 0 and (best[p - 1] > d or (best[p - 1] == d and bidx[p - 1] > r)):
        best[p] = best[p - 1]
        bidx[p] = bidx[p - 1]
        p -= 1
    best[p] = d
    bidx[p] = r
    return filled + 1 if filled < k else filled


@njit(cache=True, parallel=True)
def _knn_gower_sorted(tc, sc, tv, sv, k, col, order, keys, n_present):  # pragma: no cover
    """The same search, candidates visited outward from the target's value on the continuous
    column ``col`` (``order``: candidates sorted by it, the ``n_present`` non-missing first;
    ``keys``: their sorted values). That column's term alone bounds the distance, so the walk
    stops once both sides are farther than the current k-th distance; candidates missing the
    column are always visited, and a target missing it visits every candidate."""
    t, m = tc.shape[0], sc.shape[0]
    dist = np.empty((t, k), dtype=np.float64)
    idx = np.empty((t, k), dtype=np.int64)
    for i in numba.prange(t):
        best = np.full(k, np.inf)
        bidx = np.full(k, -1, dtype=np.int64)
        filled = 0
        q = tv[i, col]
        if np.isnan(q):
            for r in range(m):
                filled = _offer(i, r, tc, sc, tv, sv, best, bidx, filled)
        else:
            for p in range(n_present, m):
                filled = _offer(i, order[p], tc, sc, tv, sv, best, bidx, filled)
            hi = np.searchsorted(keys, q)
            lo = hi - 1
            while True:
                gl = q - keys[lo] if lo >= 0 else np.inf
                gh = keys[hi] - q if hi < n_present else np.inf
                g = min(gl, gh)
                if g == np.inf or (filled == k and g > best[k - 1]):
                    break
                if gl <= gh:
                    filled = _offer(i, order[lo], tc, sc, tv, sv, best, bidx, filled)
                    lo -= 1
                else:
                    filled = _offer(i, order[hi], tc, sc, tv, sv, best, bidx, filled)
                    hi += 1
        for p in range(k):
            dist[i, p] = best[p]
            idx[i, p] = bidx[p]
    return dist, idx


#: A nearest-neighbour search with the signature of :func:`gower_knn`:
#: ``search(targets, candidates, k, ranges) -> (len(targets), min(k, len(candidates)))`` indices.
NeighbourSearch = Callable[[Table, Table, int, np.ndarray], np.ndarray]


def gower_knn_distances(
    targets: Table, candidates: Table, k: int, ranges: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Distances (float64) and indices (int64), both ``(len(targets), min(k, len(candidates)))``,
    of each target's ``k`` nearest candidates, ordered by (distance, candidate index).

    Gower-like distance (module docstring); ``ranges`` scales each continuous column (schema
    order). Ties go to the lower candidate index. With a continuous column, the candidates are
    walked outward from each target's value on the most spread one (exact: that column's term
    alone bounds the distance); without, every candidate is scanned. A candidate's distance is
    summed in one fixed order from the target, the candidate and ``ranges`` alone, so it is the
    same float64 value whichever other candidates are searched with it: the ``k`` best of a
    table are the ``k`` best, by (distance, index), of its partitions' ``k`` best
    (:func:`synthleak.partitioned.neighbours_by_partition`).
    """
    k = min(k, len(candidates))
    tv = targets.values.astype(np.float64) / ranges[None, :]
    sv = candidates.values.astype(np.float64) / ranges[None, :]
    spread = [
        float(np.nanstd(sv[:, j])) if np.isfinite(sv[:, j]).any() else -1.0
        for j in range(sv.shape[1])
    ]
    if spread and max(spread) > 0:
        col = int(np.argmax(spread))
        x = sv[:, col]
        present = np.flatnonzero(~np.isnan(x))
        order = np.concatenate(
            [present[np.argsort(x[present], kind="stable")], np.flatnonzero(np.isnan(x))]
        ).astype(np.int64)
        return _knn_gower_sorted(
            np.ascontiguousarray(targets.codes, dtype=np.int64),
            np.ascontiguousarray(candidates.codes, dtype=np.int64),
            np.ascontiguousarray(tv),
            np.ascontiguousarray(sv),
            k,
            col,
            order,
            np.ascontiguousarray(x[order[: present.size]]),
            int(present.size),
        )
    return _knn_gower(
        np.ascontiguousarray(targets.codes, dtype=np.int64),
        np.ascontiguousarray(candidates.codes, dtype=np.int64),
        np.ascontiguousarray(tv),
        np.ascontiguousarray(sv),
        k,
    )


def gower_knn(targets: Table, candidates: Table, k: int, ranges: np.ndarray) -> np.ndarray:
    """Indices (len(targets), k) of each target's ``k`` nearest candidates, nearest first, ties
    to the lower candidate index (:func:`gower_knn_distances` without the distances)."""
    return gower_knn_distances(targets, candidates, k, ranges)[1]


class NearestNeighbourLinkability(LinkabilityAttack):
    """Link the ``A`` and ``B`` halves of target records through their synthetic neighbours.

    Parameters
    ----------
    aux_a, aux_b : sequence of str
        The two auxiliary column sets (non-empty; they may overlap, as in Anonymeter).
    n_neighbors : int, default 1
        ``k``: the halves are linked when their ``k`` nearest synthetic neighbours intersect.

    Notes
    -----
    Threat model: no-box; the adversary links two separately held pieces of information about a
    person through the release.

    References
    ----------
    Giomi et al. (2023), Sec. 4.2.
    """

    name = "nearest-neighbour"
    # aux_a and aux_b must also name columns of the release: checked when fit starts
    _parameter_constraints = constraints(
        aux_a=SequenceOf(InstanceOf(str), min_len=1),
        aux_b=SequenceOf(InstanceOf(str), min_len=1),
        n_neighbors=Interval(int, 1, None),
    )

    def __init__(self, aux_a: Sequence[str], aux_b: Sequence[str], n_neighbors: int = 1) -> None:
        self.aux_a = aux_a
        self.aux_b = aux_b
        self.n_neighbors = n_neighbors
        self.synthetic_: Table | None = None

    def fit(
        self, synthetic: Table, *, rng: np.random.Generator | None = None
    ) -> NearestNeighbourLinkability:
        """Store the synthetic table (``rng`` unused: the attack is deterministic)."""
        if not isinstance(synthetic, Table):
            raise InputError(
                f"synthetic must be a synthleak Table, got {type(synthetic).__name__}: "
                "encode it with Table.from_frame"
            )
        for name, cols in (("aux_a", self.aux_a), ("aux_b", self.aux_b)):
            unknown = [c for c in cols if c not in synthetic.schema]
            if unknown:
                raise InputError(
                    f"{name} names unknown column(s) {unknown}: the columns are "
                    f"{', '.join(synthetic.schema.names)}"
                )
        if len(synthetic) == 0:
            raise InputError("the synthetic data has no records: give a non-empty table")
        self.synthetic_ = synthetic
        return self

    def neighbors(
        self, targets: Table, columns: Sequence[str], *, search: NeighbourSearch | None = None
    ) -> np.ndarray:
        """The ``n_neighbors`` nearest synthetic records (indices) of each target on ``columns``.

        ``search`` replaces the local :func:`gower_knn` (same signature, same answer), e.g. with
        :func:`synthleak.partitioned.neighbours_by_partition` on a cluster; the ranges that
        scale the continuous columns are computed here, over the whole release and the targets.
        """
        check_fitted(self, "synthetic_")
        assert self.synthetic_ is not None
        syn = self.synthetic_.select(list(columns))
        tgt = targets.select(list(columns))
        ranges = np.ones(tgt.values.shape[1])
        for j in range(tgt.values.shape[1]):
            both = np.concatenate([syn.values[:, j], tgt.values[:, j]]).astype(np.float64)
            if np.isfinite(both).any():
                r = float(np.nanmax(both) - np.nanmin(both))
                ranges[j] = r if r > 0 else 1.0
        return (gower_knn if search is None else search)(tgt, syn, int(self.n_neighbors), ranges)

    def links(self, targets: Table, *, search: NeighbourSearch | None = None) -> np.ndarray:
        """Boolean (len(targets),): the target's two halves share a synthetic neighbour
        (``search``: see :meth:`neighbors`)."""
        check_fitted(self, "synthetic_")
        return sets_intersect(
            self.neighbors(targets, list(self.aux_a), search=search),
            self.neighbors(targets, list(self.aux_b), search=search),
        )


def sets_intersect(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Row-wise: do the index sets ``a[i]`` and ``b[i]`` share an element?"""
    return (a[:, :, None] == b[:, None, :]).any(axis=(1, 2))


def random_neighbors(
    n_candidates: int, n_targets: int, k: int, *, rng: np.random.Generator
) -> np.ndarray:
    """``k`` distinct random candidate indices per target (the random-guess baseline).

    Draws with replacement and redraws the rows that hold a repeat (uniform over k-subsets).
    """
    k = min(k, n_candidates)
    out = rng.integers(0, n_candidates, size=(n_targets, k))
    while True:
        srt = np.sort(out, axis=1)
        bad = (
            np.flatnonzero((srt[:, 1:] == srt[:, :-1]).any(axis=1))
            if k > 1
            else np.zeros(0, dtype=np.intp)
        )
        if bad.size == 0:
            return out.astype(np.intp)
        out[bad] = rng.integers(0, n_candidates, size=(bad.size, k))


register_attack(
    AttackInfo(
        "nearest-neighbour",
        AttackFamily.LINKABILITY,
        NearestNeighbourLinkability,
        "halves linked when their nearest synthetic neighbours coincide (Anonymeter)",
        references=("giomi2023",),
    )
)
