"""The linear reconstruction attribute-inference attack (Adv_recon).

Given the quasi-identifiers ``X`` of the original dataset (the partially informed adversary's
knowledge) and a synthetic dataset ``S``, the adversary

1. builds every k-way counting query made of ``k - 1`` quasi-identifier values that occur in ``X``
   plus "secret = c" (``order = k``, 3 by default: two quasi-identifier values plus the secret);
2. answers them on ``S``: as *conditional* queries rescaled by the counts in ``X``
   (``r_j = |S(v) & y=c| / |S(v)| * |X(v)|``) or as plain *marginal* queries rescaled to ``n``
   (``r_j = |S(v) & y=c| * n / m``);
3. solves the L1 linear program ``min_t sum_j |r_j - (A t)_j|`` subject to ``0 <= t <= 1``,
   where ``A`` is the sparse 0/1 query-by-record matrix, with HiGHS;
4. scores the target by ``t_u`` and guesses ``round(t_u)``.

Non-binary secrets (our extension, sketched but not evaluated in §7.6): one linear program per
class ``c`` (one-vs-rest indicator ``y = c``); the class with the highest ``t_u^c`` wins.

Everything is vectorised: the query matrix is built from one ``np.unique`` over mixed-radix keys
of all attribute combinations at once, and queries are answered on ``S`` with one ``bincount`` per
attribute combination (``O(m * #combinations)``), never per query or per record.

References
----------
Annamalai et al. (2024a), "A linear reconstruction approach for attribute inference attacks
against synthetic data", USENIX Security, Sec. 4.2 (attack, linear program, conditional
queries), Sec. 6.6 (conditional vs marginal queries, number of queries), Sec. 6.7 (cost),
Sec. 7.6 (non-binary secrets).
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass
from enum import Enum
from typing import Any

import numpy as np
import scipy.sparse as sp

from synthleak.attacks.base import AttackFamily, AttackInfo, register_attack
from synthleak.errors import InputError, NotFittedError

_prange: Any = range  # numba.prange once the kernel is compiled


_HIST_MAX = 1 << 27  # cells of all per-combination histograms counted at once (1 GiB int64)


class QueryMode(str, Enum):
    """How query answers are read off the synthetic data (§4.2, §6.6)."""

    CONDITIONAL = "conditional"
    MARGINAL = "marginal"


class ReconstructionFailure(RuntimeError):
    """The linear program was not solved (time limit, numerical trouble)."""


@dataclass(frozen=True)
class QuerySet:
    """The k-way queries an adversary builds from the quasi-identifiers ``X``.

    Attributes
    ----------
    combos : ndarray (n_combos, k - 1)
        Attribute combinations (column indices of ``X``).
    combo : ndarray (q,)
        Index into ``combos`` of each query.
    key : ndarray (q,)
        Mixed-radix key of the query's quasi-identifier values within its combination.
    matrix : scipy.sparse.csr_matrix (q, n)
        ``matrix[j, i] = 1`` when record ``i`` of ``X`` matches query ``j``.
    counts_x : ndarray (q,)
        Records of ``X`` matching each query (row sums of ``matrix``).
    sizes : ndarray (F,)
        Domain size of every quasi-identifier.
    """

    combos: np.ndarray
    combo: np.ndarray
    key: np.ndarray
    matrix: sp.csr_matrix
    counts_x: np.ndarray
    sizes: np.ndarray

    @property
    def n_queries(self) -> int:
        return int(self.combo.size)

    @property
    def n_records(self) -> int:
        return int(self.matrix.shape[1])


def _radix(sizes: np.ndarray, combos: np.ndarray) -> tuple[np.ndarray, int]:
    """Per-combination multipliers (n_combos, k-1) and the largest key-space size."""
    sub = sizes[combos].astype(np.int64)  # (C, k-1)
    mult = np.ones_like(sub)
    for j in range(sub.shape[1] - 2, -1, -1):
        mult[:, j] = mult[:, j + 1] * sub[:, j + 1]
    space = int((mult[:, 0] * sub[:, 0]).max()) if sub.size else 1
    if space * max(len(combos), 1) >= 2**62:
        raise InputError(
            "the quasi-identifier domains are too large for the query keys: "
            "use fewer bins (--bins) or a lower query order"
        )
    return mult, space


def _combo_keys(codes: np.ndarray, combos: np.ndarray, mult: np.ndarray) -> np.ndarray:
    """Keys (n_combos, n) of every record under every combination."""
    keys = np.zeros((len(combos), codes.shape[0]), dtype=np.int64)
    for j in range(combos.shape[1]):
        keys += codes[:, combos[:, j]].T.astype(np.int64) * mult[:, j : j + 1]
    return keys


def build_queries(
    quasi_ids: np.ndarray,
    sizes: np.ndarray,
    *,
    order: int = 3,
    max_queries: int | None = None,
    rng: np.random.Generator | None = None,
) -> QuerySet:
    """All ``order``-way queries (``order - 1`` quasi-identifier values + secret) occurring in ``X``.

    Parameters
    ----------
    quasi_ids : ndarray (n, F) of int
        Codes of the quasi-identifiers ``X``.
    sizes : ndarray (F,)
        Domain size of each quasi-identifier (codes are ``0 .. size - 1``).
    order : int
        ``k`` of the k-way queries (the secret counts as one attribute); 3 in the paper.
    max_queries : int, optional
        Keep a uniformly random subset of this many queries (needs ``rng``); all by default.
    rng : numpy.random.Generator, optional

    References
    ----------
    Annamalai et al. (2024a), Sec. 4.2 (queries Q), Sec. 6.6 (number of queries).
    """
    X = np.asarray(quasi_ids)
    sizes = np.asarray(sizes, dtype=np.int64)
    n, F = X.shape
    if order < 2:
        raise InputError(
            f"the query order must be at least 2 (secret + 1 quasi-identifier), got {order}"
        )
    if order - 1 > F:
        raise InputError(
            f"{order}-way queries need at least {order - 1} quasi-identifiers, got {F}: "
            "add quasi-identifiers or lower the order"
        )
    combos = np.array(list(itertools.combinations(range(F), order - 1)), dtype=np.int64).reshape(
        -1, order - 1
    )
    mult, space = _radix(sizes, combos)
    keys = _combo_keys(X, combos, mult)  # (C, n)
    glob = keys + np.arange(len(combos), dtype=np.int64)[:, None] * space
    uniq, inverse = np.unique(glob.ravel(), return_inverse=True)
    q = uniq.size
    rows = inverse.astype(np.int64)
    cols = np.tile(np.arange(n, dtype=np.int64), len(combos))
    A = sp.csr_matrix((np.ones(rows.size), (rows, cols)), shape=(q, n))
    combo = uniq // space
    key = uniq % space
    if max_queries is not None and max_queries < q:
        if rng is None:
            raise ValueError("max_queries needs rng")
        keep = np.sort(rng.choice(q, size=int(max_queries), replace=False))
        A = A[keep]
        combo, key = combo[keep], key[keep]
    counts_x = np.asarray(A.sum(axis=1)).ravel()
    return QuerySet(combos, combo, key, A.tocsr(), counts_x, sizes)


def build_queries_dense(
    quasi_ids: np.ndarray, sizes: np.ndarray, *, order: int = 3
) -> tuple[list[tuple[tuple[int, ...], tuple[int, ...]]], np.ndarray]:
    """Naive reference: queries by Python loops and a dense matrix (for tests and benchmarks).

    Returns the list of queries ``(attrs, values)`` in the same order as :func:`build_queries`
    and the dense (q, n) matrix.
    """
    X = np.asarray(quasi_ids)
    n, F = X.shape
    queries: list[tuple[tuple[int, ...], tuple[int, ...]]] = []
    for attrs in itertools.combinations(range(F), order - 1):
        vals = sorted({tuple(int(X[i, a]) for a in attrs) for i in range(n)})
        queries.extend((attrs, v) for v in vals)
    A = np.zeros((len(queries), n))
    for j, (attrs, v) in enumerate(queries):
        for i in range(n):
            if all(X[i, a] == x for a, x in zip(attrs, v, strict=True)):
                A[j, i] = 1.0
    return queries, A


_KERNEL: list = []


def _count_kernel(*args: object) -> None:
    """Compile (once, cached on disk) and run :func:`_count_kernel_py` with numba.

    numba is imported lazily so that importing synthleak stays fast.
    """
    global _prange
    if not _KERNEL:
        import numba

        _prange = numba.prange  # the kernel's loop over combinations becomes parallel
        _KERNEL.append(numba.njit(parallel=True, cache=True)(_count_kernel_py))
    _KERNEL[0](*args)


def _count_kernel_py(
    ST, y, w, combos, mult, offsets, n_classes, out
):  # pragma: no cover - compiled
    """out[offsets[c] + key_c(record i) * C + y[i]] += w[i] for every record i and combination c.

    ``ST`` is the transposed (F, m) code matrix, so each combination streams its own
    contiguous columns; combinations run in parallel and write disjoint histograms (no races).
    """
    n_combos, width = combos.shape
    m = ST.shape[1]
    for c in _prange(n_combos):
        base = offsets[c]
        for i in range(m):
            k = 0
            for j in range(width):
                k += np.int64(ST[combos[c, j], i]) * mult[c, j]
            out[base + k * n_classes + y[i]] += w[i]


def _compress(S: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Distinct rows of ``[S | y]`` with their multiplicities (a synthetic dataset often repeats rows)."""
    arr = np.ascontiguousarray(
        np.column_stack([S, y]).astype(np.int16 if S.max(initial=0) < 32000 else np.int64)
    )
    view = arr.view(np.dtype((np.void, arr.dtype.itemsize * arr.shape[1]))).ravel()
    _, first, counts = np.unique(view, return_index=True, return_counts=True)
    rows = arr[first]
    return rows[:, :-1], rows[:, -1].astype(np.int64), counts.astype(np.int64)


def count_answers(
    qs: QuerySet, syn_qi: np.ndarray, syn_secret: np.ndarray, n_classes: int
) -> tuple[np.ndarray, np.ndarray]:
    """Counts on ``S`` of every query: per secret class (q, C) and in total (q,).

    ``S`` is first reduced to its distinct rows with multiplicities; then one pass over them
    per attribute combination used by the queries, all combinations in parallel (numba), fills
    one flat array of per-combination histograms, from which each query reads its cells. Falls
    back to one ``np.unique`` per combination when the histograms would be too large.
    """
    S = np.asarray(syn_qi)
    y = np.asarray(syn_secret).astype(np.int64)
    C = int(n_classes)
    per_class = np.zeros((qs.n_queries, C), dtype=np.float64)
    if S.shape[0] == 0 or qs.n_queries == 0:
        return per_class, per_class.sum(axis=1)
    w = np.ones(S.shape[0], dtype=np.int64)
    if S.shape[0] > 4 * qs.n_records:
        S, y, w = _compress(S, y)
    used, combo_idx = np.unique(qs.combo, return_inverse=True)
    combos = qs.combos[used]
    mult, _ = _radix(qs.sizes, combos)
    spaces = mult[:, 0] * qs.sizes[combos[:, 0]] * C
    offsets = np.concatenate([[0], np.cumsum(spaces)]).astype(np.int64)
    if offsets[-1] <= _HIST_MAX:
        hist = np.zeros(int(offsets[-1]), dtype=np.int64)
        ST = np.ascontiguousarray(S.T, dtype=np.int16 if int(qs.sizes.max()) < 32000 else np.int64)
        _count_kernel(ST, y, w, combos, mult, offsets, C, hist)
        cells = offsets[combo_idx][:, None] + qs.key[:, None] * C + np.arange(C)[None, :]
        per_class[:] = hist[cells]
        return per_class, per_class.sum(axis=1)
    for u in range(len(combos)):
        rows = np.flatnonzero(combo_idx == u)
        k = np.zeros(S.shape[0], dtype=np.int64)
        for j, a in enumerate(combos[u]):
            k += S[:, a].astype(np.int64) * mult[u, j]
        uk, inv = np.unique(k * C + y, return_inverse=True)
        cnt = np.bincount(inv.ravel(), weights=w)
        for cls in range(C):
            want = qs.key[rows] * C + cls
            pos = np.clip(np.searchsorted(uk, want), 0, uk.size - 1)
            per_class[rows, cls] = np.where(uk[pos] == want, cnt[pos], 0)
    return per_class, per_class.sum(axis=1)


def count_answers_naive(
    queries: list, syn_qi: np.ndarray, syn_secret: np.ndarray, n_classes: int
) -> tuple[np.ndarray, np.ndarray]:
    """Naive reference: one boolean mask over ``S`` per query (tests and benchmarks)."""
    S = np.asarray(syn_qi)
    y = np.asarray(syn_secret)
    per_class = np.zeros((len(queries), n_classes))
    for j, (attrs, vals) in enumerate(queries):
        mask = np.ones(S.shape[0], dtype=bool)
        for a, v in zip(attrs, vals, strict=True):
            mask &= S[:, a] == v
        per_class[j] = np.bincount(y[mask], minlength=n_classes)
    return per_class, per_class.sum(axis=1)


def answer_queries(
    qs: QuerySet,
    per_class: np.ndarray,
    total: np.ndarray,
    cls: int,
    mode: QueryMode,
    m: int,
) -> np.ndarray:
    """Answers ``r`` (counts on the scale of ``X``) for class ``cls``; NaN where undefined.

    A conditional query whose quasi-identifier values never occur in ``S`` is undefined (NaN)
    and left out of the linear program.
    """
    mode = QueryMode(mode)
    if mode is QueryMode.CONDITIONAL:
        with np.errstate(invalid="ignore", divide="ignore"):
            r = np.where(total > 0, per_class[:, cls] / total, np.nan) * qs.counts_x
        return r
    if m <= 0:
        return np.full(qs.n_queries, np.nan)
    return per_class[:, cls] * (qs.n_records / m)


def _highs_lp(
    M: sp.csc_matrix,
    cost: np.ndarray,
    lb: np.ndarray,
    ub: np.ndarray,
    rl: np.ndarray,
    ru: np.ndarray,
) -> Any:
    import highspy

    lp = highspy.HighsLp()
    lp.num_col_, lp.num_row_ = M.shape[1], M.shape[0]
    lp.col_cost_, lp.col_lower_, lp.col_upper_ = cost, lb, ub
    lp.row_lower_, lp.row_upper_ = rl, ru
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_ = M.indptr
    lp.a_matrix_.index_ = M.indices
    lp.a_matrix_.value_ = M.data
    return lp


def solve_l1(A: sp.spmatrix, r: np.ndarray, *, time_limit: float | None = None) -> np.ndarray:
    """Solve ``min_t ||A t - r||_1`` subject to ``0 <= t <= 1`` with HiGHS (sparse).

    The LP of §4.2 (variables ``t`` and ``e``) is solved through its dual, which has one row
    per *record* instead of one per query::

        max  r.lam - sum(s)   s.t.  A^T lam - s <= 0,  -1 <= lam <= 1,  s >= 0

    with HiGHS's interior-point solver (no crossover). The reconstruction ``t`` is minus the
    row duals of the ``n`` constraints. On a 2-core machine this is 25-50x faster than the
    primal simplex on the same sparse matrix (``benchmarks/bench_recon.py``).

    Raises
    ------
    ReconstructionFailure
        When HiGHS stops without an optimal solution (time limit, numerical trouble).

    References
    ----------
    Annamalai et al. (2024a), Sec. 4.2 (linear program).
    """
    import highspy

    A = sp.csr_matrix(A, dtype=np.float64)
    q, n = A.shape
    if q == 0:
        return np.full(n, 0.5)
    r = np.asarray(r, dtype=np.float64)
    inf = highspy.kHighsInf
    M = sp.hstack([A.T.tocsc(), -sp.identity(n, format="csc")], format="csc")
    M.sort_indices()
    lp = _highs_lp(
        M,
        np.concatenate([-r, np.ones(n)]),
        np.concatenate([-np.ones(q), np.zeros(n)]),
        np.concatenate([np.ones(q), np.full(n, inf)]),
        np.full(n, -inf),
        np.zeros(n),
    )
    status = highspy.HighsModelStatus.kNotset
    h = highspy.Highs()
    for crossover in ("off", "on"):
        h = highspy.Highs()
        h.setOptionValue("output_flag", False)
        h.setOptionValue("solver", "ipm")
        h.setOptionValue("run_crossover", crossover)
        h.setOptionValue("random_seed", 0)
        if time_limit is not None:
            h.setOptionValue("time_limit", float(time_limit))
        h.passModel(lp)
        h.run()
        status = h.getModelStatus()
        if status == highspy.HighsModelStatus.kOptimal:
            t = -np.asarray(h.getSolution().row_dual, dtype=np.float64)
            return np.clip(t, 0.0, 1.0)
        if status == highspy.HighsModelStatus.kTimeLimit:
            break
    raise ReconstructionFailure(
        f"linear program not solved ({h.modelStatusToString(status)}"
        + (f", time limit {time_limit:g} s" if time_limit is not None else "")
        + ")"
    )


def solve_l1_dense(A: np.ndarray, r: np.ndarray) -> np.ndarray:
    """Naive reference: the same LP with a dense constraint matrix (tests and benchmarks)."""
    from scipy.optimize import linprog

    q, n = A.shape
    M = np.hstack([A, np.eye(q), -np.eye(q)])
    cost = np.concatenate([np.zeros(n), np.ones(2 * q)])
    bounds = [(0.0, 1.0)] * n + [(0.0, None)] * (2 * q)
    res = linprog(cost, A_eq=M, b_eq=r, bounds=bounds, method="highs")
    if res.status != 0:
        raise ReconstructionFailure(res.message)
    return np.clip(res.x[:n], 0.0, 1.0)


class ReconstructionAttack:
    """Adv_recon: linear reconstruction of the secret column from k-way (conditional) queries.

    Parameters
    ----------
    order : int
        k of the k-way queries (``order - 1`` quasi-identifiers plus the secret); 3 in the paper.
    queries : QueryMode
        ``conditional`` (the paper's attack) or ``marginal`` (the answers of Kasiviswanathan
        et al. (2013)).
    max_queries : int, optional
        Use a random subset of this many queries (all by default).
    time_limit : float, optional
        Seconds HiGHS may spend on one linear program; beyond it the attack fails
        (:class:`ReconstructionFailure`), which games report per game.

    Notes
    -----
    Threat model: no-box (only the synthetic data), partially informed (all quasi-identifiers
    ``X`` of the original dataset, none of its secrets). ``fit`` takes ``X``; ``score`` takes the
    synthetic data and the target rows of ``X``. Scores are ``t_u`` per class (binary: the
    columns are ``1 - t_u`` and ``t_u``); non-binary secrets solve one LP per class
    (one-vs-rest, our extension of §7.6).

    References
    ----------
    Annamalai et al. (2024a), Sec. 4.2, 6.6 and 7.6.
    """

    name = "recon"

    def __init__(
        self,
        order: int = 3,
        queries: QueryMode | str = QueryMode.CONDITIONAL,
        max_queries: int | None = None,
        time_limit: float | None = 600.0,
    ) -> None:
        self.order = order
        self.queries = queries
        self.max_queries = max_queries
        self.time_limit = time_limit

    def fit(
        self, quasi_ids: np.ndarray, sizes: np.ndarray, *, rng: np.random.Generator
    ) -> ReconstructionAttack:
        """Build the queries from the adversary's quasi-identifiers ``X`` (n, F)."""
        self.mode_ = QueryMode(self.queries)
        self.queries_ = build_queries(
            quasi_ids, sizes, order=self.order, max_queries=self.max_queries, rng=rng
        )
        return self

    def reconstruct(self, syn_qi: np.ndarray, syn_secret: np.ndarray, n_classes: int) -> np.ndarray:
        """Reconstructed secrets ``t`` (n, n_classes): column ``c`` is the LP solution for ``y = c``.

        For a binary secret only one LP is solved and column 0 is ``1 - t``.
        """
        if not hasattr(self, "queries_"):
            raise NotFittedError(
                "the reconstruction attack is not fitted: call fit(X, sizes, rng=...) first"
            )
        qs = self.queries_
        per_class, total = count_answers(qs, syn_qi, syn_secret, n_classes)
        m = int(np.asarray(syn_qi).shape[0])
        classes = [1] if n_classes == 2 else list(range(n_classes))
        t = np.zeros((qs.n_records, n_classes))
        self.solve_seconds_ = 0.0
        for cls in classes:
            r = answer_queries(qs, per_class, total, cls, self.mode_, m)
            ok = np.isfinite(r)
            A = qs.matrix if ok.all() else qs.matrix[np.flatnonzero(ok)]
            t0 = time.perf_counter()
            t[:, cls] = solve_l1(A, r[ok], time_limit=self.time_limit)
            self.solve_seconds_ += time.perf_counter() - t0
        if n_classes == 2:
            t[:, 0] = 1.0 - t[:, 1]
        self.n_queries_used_ = int(qs.n_queries)
        return t

    def score(
        self,
        syn_qi: np.ndarray,
        syn_secret: np.ndarray,
        targets: np.ndarray,
        n_classes: int,
        *,
        rng: np.random.Generator,
    ) -> np.ndarray:
        """Scores (k, n_classes) of the target rows ``targets`` (indices into ``X``)."""
        return self.reconstruct(syn_qi, syn_secret, n_classes)[np.asarray(targets, dtype=np.intp)]


register_attack(
    AttackInfo(
        "recon",
        AttackFamily.ATTRIBUTE,
        ReconstructionAttack,
        "linear reconstruction from 3-way conditional queries solved as an L1 LP (HiGHS)",
    )
)
