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

Non-binary secrets (our extension, sketched but not evaluated in Annamalai et al. (2024),
Sec. 7.6): one linear program per class ``c`` (one-vs-rest indicator ``y = c``); the class with
the highest ``t_u^c`` wins.

Large ``X`` (our extension). The paper's game has ``n = 1000`` records. With tens of thousands
of records the k-way queries no longer determine the secrets (fewer queries than unknowns) and
one linear program takes minutes. Above ``max_records`` records the adversary therefore splits
``X`` by quasi-identifier values into blocks of at most ``max_records`` records (a split uses
only ``X``, which the adversary knows) and reconstructs each block from the synthetic records
with the same values: the block's conditional queries are the paper's k-way queries conditioned
on the block's values. At or below ``max_records`` records there is one block, the paper's attack.

Everything is vectorised: the query matrix is built from one ``np.unique`` over mixed-radix keys
of all attribute combinations at once, and queries are answered on ``S`` with one ``bincount`` per
attribute combination (``O(m * #combinations)``), never per query or per record.

References
----------
Annamalai, Gadotti and Rocher (2024), "A Linear Reconstruction Approach for Attribute Inference
Attacks against Synthetic Data", USENIX Security: Sec. 4.2 (attack, linear program, conditional
queries), Sec. 6.6 (conditional vs marginal queries, number of queries), Sec. 6.7 (cost),
Sec. 7.6 (non-binary secrets).
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

from synthleak.attacks.base import AttackFamily, AttackInfo, AttributeAttack, register_attack
from synthleak.constraints import Interval, Options, constraints
from synthleak.errors import InputError, check_fitted
from synthleak.modes import QueryMode

_prange: Any = range  # numba.prange once the kernel is compiled


_HIST_MAX = 1 << 27  # cells of all per-combination histograms counted at once (1 GiB int64)


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
            "use fewer bins or a lower query order"
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
    n_queries: int | None = None,
    rng: np.random.Generator | None = None,
) -> QuerySet:
    """All ``order``-way queries (``order - 1`` quasi-identifier values + secret) occurring
    in ``X``.

    Parameters
    ----------
    quasi_ids : ndarray (n, F) of int
        Codes of the quasi-identifiers ``X``.
    sizes : ndarray (F,)
        Domain size of each quasi-identifier (codes are ``0 .. size - 1``).
    order : int
        ``k`` of the k-way queries (the secret counts as one attribute); 3 in the paper.
    n_queries : int, optional
        Keep a uniformly random subset of this many queries (needs ``rng``); all by default.
    rng : numpy.random.Generator, optional

    References
    ----------
    Annamalai et al. (2024), Sec. 4.2 (queries Q), Sec. 6.6 (number of queries).
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
    if n_queries is not None and n_queries < q:
        if rng is None:
            raise ValueError("n_queries needs rng")
        keep = np.sort(rng.choice(q, size=int(n_queries), replace=False))
        A = A[keep]
        combo, key = combo[keep], key[keep]
    counts_x = np.asarray(A.sum(axis=1)).ravel()
    return QuerySet(combos, combo, key, A.tocsr(), counts_x, sizes)


_KERNEL: list = []


def _count_kernel(*args: object) -> None:
    """Compile (once, cached on disk) and run :func:`_count_kernel_py` with numba.

    numba is imported lazily so that importing synthleak stays fast.
    """
    global _prange
    if not _KERNEL:
        import numba

        from synthleak.runtime.jit import njit

        _prange = numba.prange  # the kernel's loop over combinations becomes parallel
        _KERNEL.append(njit(parallel=True, cache=True)(_count_kernel_py))
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
    """Distinct rows of ``[S | y]`` with their multiplicities
    (a synthetic dataset often repeats rows).
    """
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


def answer_queries(
    qs: QuerySet,
    per_class: np.ndarray,
    total: np.ndarray,
    cls: int,
    mode: QueryMode,
    m: int,
    *,
    scale: float | None = None,
) -> np.ndarray:
    """Answers ``r`` (counts on the scale of ``X``) for class ``cls``; NaN where undefined.

    A conditional query whose quasi-identifier values never occur in ``S`` is undefined (NaN)
    and left out of the linear program. Marginal answers are rescaled by ``scale`` (``n / m``
    by default).
    """
    mode = QueryMode(mode)
    if mode is QueryMode.CONDITIONAL:
        with np.errstate(invalid="ignore", divide="ignore"):
            r = np.where(total > 0, per_class[:, cls] / total, np.nan) * qs.counts_x
        return r
    if m <= 0:
        return np.full(qs.n_queries, np.nan)
    return per_class[:, cls] * (qs.n_records / m if scale is None else scale)


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


def _quiet_highs() -> Any:
    """A HiGHS instance that prints nothing.

    highspy's ``Highs()`` enables its callbacks as it is built, which prints HiGHS's banner to
    stdout (once per process) before any option can be set (ERGO-Code/HiGHS issue 1702); the
    class it wraps takes ``output_flag`` first. Both have the methods used here.
    """
    try:
        from highspy._core import _Highs as highs_class
    except ImportError:  # pragma: no cover - a highspy without the private core class
        from highspy import Highs as highs_class
    h = highs_class()
    h.setOptionValue("output_flag", False)
    return h


def solve_l1(A: sp.spmatrix, r: np.ndarray, *, time_limit: float | None = None) -> np.ndarray:
    """Solve ``min_t ||A t - r||_1`` subject to ``0 <= t <= 1`` with HiGHS (sparse).

    The LP of the paper's Sec. 4.2 (variables ``t`` and ``e``) is solved through its dual, which
    has one row per *record* instead of one per query::

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
    Annamalai et al. (2024), Sec. 4.2 (linear program).
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
    h: Any = None
    for crossover in ("off", "on"):
        h = _quiet_highs()
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


@dataclass(frozen=True)
class Block:
    """Records of ``X`` that share the values ``fixed`` (column, code) of some quasi-identifiers.

    Attributes
    ----------
    rows : ndarray (n_b,)
        Row indices into ``X``, sorted.
    fixed : tuple of (int, int)
        The ``(column, code)`` conditions every record of the block satisfies.
    free : ndarray
        The other columns (those the block's queries are built on).
    queries : QuerySet or None
        The block's queries (``None`` when fewer than one free column is left).
    """

    rows: np.ndarray
    fixed: tuple[tuple[int, int], ...]
    free: np.ndarray
    queries: QuerySet | None


def split_blocks(quasi_ids: np.ndarray, max_records: int) -> list[tuple[np.ndarray, tuple]]:
    """Partition the rows of ``X`` into blocks of at most ``max_records`` rows by their values.

    A block that is too large is split on the column with the fewest distinct values among
    those that still vary in it (ties: the first column), recursively; a block whose rows are
    all identical cannot be split and is kept whole. The partition depends on ``X`` only and is
    deterministic. Returns ``(rows, fixed)`` pairs sorted by ``fixed``.
    """
    X = np.asarray(quasi_ids)
    n, F = X.shape
    out: list[tuple[np.ndarray, tuple]] = []
    stack: list[tuple[np.ndarray, tuple]] = [(np.arange(n, dtype=np.int64), ())]
    while stack:
        rows, fixed = stack.pop()
        if rows.size <= max_records:
            out.append((rows, fixed))
            continue
        used = {c for c, _ in fixed}
        best = None
        for j in range(F):
            if j in used:
                continue
            k = np.unique(X[rows, j]).size
            if k >= 2 and (best is None or k < best[0]):
                best = (k, j)
        if best is None:
            out.append((rows, fixed))
            continue
        j = best[1]
        col = X[rows, j]
        order = np.argsort(col, kind="stable")
        vals, starts = np.unique(col[order], return_index=True)
        for v, part in zip(vals, np.split(rows[order], starts[1:]), strict=True):
            stack.append((np.sort(part), (*fixed, (j, int(v)))))
    return sorted(out, key=lambda b: b[1])


def _block_mask(S: np.ndarray, fixed: tuple[tuple[int, int], ...]) -> np.ndarray:
    mask = np.ones(S.shape[0], dtype=bool)
    for j, v in fixed:
        mask &= S[:, j] == v
    return mask


class ReconstructionAttack(AttributeAttack):
    """Adv_recon: linear reconstruction of the secret column from k-way (conditional) queries.

    Parameters
    ----------
    order : int
        k of the k-way queries (``order - 1`` quasi-identifiers plus the secret); 3 in the paper.
    query_mode : QueryMode
        ``conditional`` (the paper's attack) or ``marginal``.
    n_queries : int, optional
        Use a random subset of this many queries per linear program (all by default).
    time_limit : float, optional
        Seconds HiGHS may spend on one linear program; beyond it the attack fails
        (:class:`ReconstructionFailure`), which games report per game.
    max_records : int
        Largest number of records reconstructed by one linear program; a larger ``X`` is split
        into blocks by quasi-identifier values (see the module docstring). The paper's game
        (``n = 1000``) is one block.

    Notes
    -----
    Threat model: no-box (only the synthetic data), partially informed (all quasi-identifiers
    ``X`` of the original dataset, none of its secrets). ``fit`` takes ``X``; ``score`` takes the
    synthetic data and the target rows of ``X``. Scores are ``t_u`` per class (binary: the
    columns are ``1 - t_u`` and ``t_u``); non-binary secrets solve one LP per class
    (one-vs-rest, our extension of the paper's Sec. 7.6).

    References
    ----------
    Annamalai et al. (2024), Sec. 4.2, 6.6, 7.6.
    """

    name = "recon"
    _parameter_constraints = constraints(
        order=Interval(int, 2, None),
        query_mode=Options(QueryMode),
        n_queries=(Interval(int, 1, None), None),
        time_limit=(Interval(float, 0, None, closed="neither"), None),
        max_records=Interval(int, 1, None),
    )

    def __init__(
        self,
        order: int = 3,
        query_mode: QueryMode | str = QueryMode.CONDITIONAL,
        n_queries: int | None = None,
        time_limit: float | None = 600.0,
        max_records: int = 2000,
    ) -> None:
        self.order = order
        self.query_mode = query_mode
        self.n_queries = n_queries
        self.time_limit = time_limit
        self.max_records = max_records

    def fit(
        self, quasi_ids: np.ndarray, sizes: np.ndarray, *, rng: np.random.Generator
    ) -> ReconstructionAttack:
        """Build the queries from the adversary's quasi-identifiers ``X`` (n, F)."""
        mode = QueryMode(self.query_mode)
        X = np.asarray(quasi_ids)
        sizes = np.asarray(sizes, dtype=np.int64)
        if self.order < 2 or self.order - 1 > X.shape[1]:
            build_queries(X[:0], sizes, order=self.order)  # raises the InputError
        blocks = []
        for rows, fixed in split_blocks(X, int(self.max_records)):
            used = {c for c, _ in fixed}
            free = np.array([j for j in range(X.shape[1]) if j not in used], dtype=np.int64)
            order = min(self.order, free.size + 1)
            qs = (
                build_queries(
                    X[np.ix_(rows, free)],
                    sizes[free],
                    order=order,
                    n_queries=self.n_queries,
                    rng=rng,
                )
                if order >= 2
                else None
            )
            blocks.append(Block(rows, fixed, free, qs))
        self.mode_ = mode
        self.n_records_ = int(X.shape[0])
        self.blocks_ = blocks
        return self

    def reconstruct(self, syn_qi: np.ndarray, syn_secret: np.ndarray, n_classes: int) -> np.ndarray:
        """Reconstructed secrets ``t`` (n, n_classes): column ``c`` is the LP solution
        for ``y = c``.

        For a binary secret only one LP is solved per block and column 0 is ``1 - t``.
        """
        check_fitted(self, "blocks_")
        S = np.asarray(syn_qi)
        ys = np.asarray(syn_secret).astype(np.int64)
        m = int(S.shape[0])
        scale = self.n_records_ / m if m else 0.0
        classes = [1] if n_classes == 2 else list(range(n_classes))
        t = np.zeros((self.n_records_, n_classes))
        self.solve_seconds_ = 0.0
        self.n_queries_used_ = 0
        whole = len(self.blocks_) == 1 and not self.blocks_[0].fixed
        for block in self.blocks_:
            if whole:
                Sb, yb = S, ys
            else:
                mask = _block_mask(S, block.fixed)
                Sb, yb = S[mask], ys[mask]
            qs = block.queries
            if qs is None:  # identical records: the share of each class among matching S
                share = np.bincount(yb, minlength=n_classes)[:n_classes] / max(yb.size, 1)
                if yb.size == 0:
                    share = np.full(n_classes, 1.0 / n_classes)
                t[block.rows] = share
                continue
            per_class, total = count_answers(qs, Sb[:, block.free], yb, n_classes)
            for cls in classes:
                r = answer_queries(qs, per_class, total, cls, self.mode_, m, scale=scale)
                ok = np.isfinite(r)
                A = qs.matrix if ok.all() else qs.matrix[np.flatnonzero(ok)]
                t0 = time.perf_counter()
                t[block.rows, cls] = solve_l1(A, r[ok], time_limit=self.time_limit)
                self.solve_seconds_ += time.perf_counter() - t0
            self.n_queries_used_ += int(qs.n_queries)
        if n_classes == 2:
            t[:, 0] = 1.0 - t[:, 1]
        return t

    def score(
        self,
        syn_quasi_ids: np.ndarray,
        syn_secret: np.ndarray,
        targets: np.ndarray,
        n_classes: int,
        *,
        rng: np.random.Generator,
    ) -> np.ndarray:
        """Scores (k, n_classes) of the target rows ``targets`` (indices into ``X``)."""
        check_fitted(self, "blocks_")
        t = self.reconstruct(syn_quasi_ids, syn_secret, n_classes)
        return t[np.asarray(targets, dtype=np.intp)]


register_attack(
    AttackInfo(
        "recon",
        AttackFamily.ATTRIBUTE,
        ReconstructionAttack,
        "linear reconstruction from 3-way conditional queries solved as an L1 LP (HiGHS)",
        references=("annamalai2024linear",),
    )
)
