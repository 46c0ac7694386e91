"""Conjunction predicates over an encoded :class:`~synthleak.data.table.Table`, counted in bulk.

A singling-out query is a conjunction of per-column conditions ("atoms"): equality or inequality
on the code of a categorical column, a comparison (``==``, ``!=``, ``<``, ``<=``, ``>``, ``>=``)
with a threshold on a continuous column, or a null test. A :class:`PredicateSet` stores ``q``
such predicates as two ``(q, n_columns)`` arrays (operator and operand per column, columns in
schema order) and counts how many rows of a table each predicate matches in bulk, in one compiled
(numba) pass over all predicates. The table is indexed once (:class:`TableIndex`: every column's
sort order); for each predicate the atom whose matching rows form the shortest run of its sorted
column is located by binary search (vectorised over predicates), and only the rows of that run
are checked against the other atoms. Counting can stop at ``cap`` matches: deciding "exactly one"
needs ``cap=2``. :meth:`PredicateSet.matches` counts exactly and lists the matching rows of the
predicates that match at most ``cap`` rows (:class:`Matches`, memory bounded by ``q * cap``): the
singling-out statistics need them for their record-level variance. Anonymeter instead builds one
query expression per predicate and has the dataframe engine evaluate every expression over every
row (Giomi et al. 2023, Sec. 4.1).

The module also holds what every record-based singling-out attack shares (multivariate in
:mod:`synthleak.attacks.singling_out`, contrastive in :mod:`synthleak.attacks.contrastive`):
predicates describing records (:func:`predicates_from_records`), random column subsets
(:func:`random_column_subsets`), continuous medians (:func:`column_medians`), the ``n_cols`` check
(:func:`check_n_cols`) and the loop drawing candidates until enough single out
(:func:`collect_singling_out`).

Null semantics follow SQL three-valued logic, as dataframe engines do: a comparison with a
missing cell is not a match (so ``x != 3`` does not match a missing ``x``); ``ISNULL`` and
``NOTNULL`` test missingness. A categorical missing value is the column's missing code, so
``EQ missing_code`` means "is null" and ``NE missing_code`` means "is not null".

References
----------
Giomi et al. (2023), Sec. 4.1 (singling out). Plasencia Palacios (2024), Sec. 2 (singling-out
queries from records).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import IntEnum

import numpy as np

from synthleak.data.schema import Schema
from synthleak.data.table import Table
from synthleak.errors import InputError
from synthleak.runtime.jit import njit


class Op(IntEnum):
    """Operator of one atom (``ANY`` = the column is not constrained)."""

    ANY = 0
    EQ = 1
    NE = 2
    LT = 3
    LE = 4
    GT = 5
    GE = 6
    ISNULL = 7
    NOTNULL = 8


_SYMBOL = {Op.EQ: "==", Op.NE: "!=", Op.LT: "<", Op.LE: "<=", Op.GT: ">", Op.GE: ">="}

# Where the rows an atom matches lie in its sorted column (missing values last), by operator:
# the run's start and stop, each one of 0, the present values' count, n, and the run of the
# atom's value from ``left`` to ``right`` (:meth:`TableIndex.bounds`): 0, 1, 2, 3, 4 below.
# An operator without a run of its own (``!=``) scans the whole column, 0 to n.
_ZERO, _PRESENT, _ALL, _LEFT, _RIGHT = range(5)
_RUN_LO = np.full(len(Op), _ZERO, dtype=np.intp)
_RUN_HI = np.full(len(Op), _ALL, dtype=np.intp)
for _op, (_lo, _hi) in {
    Op.EQ: (_LEFT, _RIGHT),
    Op.LT: (_ZERO, _LEFT),
    Op.LE: (_ZERO, _RIGHT),
    Op.GT: (_RIGHT, _PRESENT),
    Op.GE: (_LEFT, _PRESENT),
    Op.ISNULL: (_PRESENT, _ALL),
    Op.NOTNULL: (_ZERO, _PRESENT),
}.items():
    _RUN_LO[_op], _RUN_HI[_op] = _lo, _hi


def encoded_matrix(table: Table) -> np.ndarray:
    """All columns in schema order as float64 (codes as exact small integers, NaN = missing)."""
    out = np.empty((len(table), len(table.schema)), dtype=np.float64)
    for j, col in enumerate(table.schema.columns):
        out[:, j] = table.column(col.name)
    return out


@dataclass(frozen=True, eq=False)
class TableIndex:
    """A table prepared for predicate scans: its matrix and every column's sort order.

    Each column's sorted values are kept as runs (distinct values and where each starts in the
    sort order), which locate any value as a binary search on the full sorted column would, in
    memory that grows with the column's distinct values rather than its rows: 12 bytes per cell
    with the matrix and a 32-bit sort order (up to 2^31 rows), instead of 24.

    Attributes
    ----------
    x : ndarray (n, n_columns) float64
        :func:`encoded_matrix` of the table.
    perm : ndarray (n_columns, n) int32 (int64 from 2^31 rows)
        Row order sorting each column (stable; missing last).
    runs : tuple of ndarray, one per column
        The column's distinct non-missing values, ascending.
    starts : tuple of ndarray, one per column
        ``starts[j][i]`` is where ``runs[j][i]`` starts in ``perm[j]``; the last entry is the
        column's number of non-missing values.
    n_present : ndarray (n_columns,)
        Non-missing values per column.
    """

    x: np.ndarray
    perm: np.ndarray
    runs: tuple[np.ndarray, ...]
    starts: tuple[np.ndarray, ...]
    n_present: np.ndarray

    @property
    def n(self) -> int:
        return int(self.x.shape[0])

    @classmethod
    def build(cls, table: Table) -> TableIndex:
        x = encoded_matrix(table)
        n, f = x.shape
        # one column at a time: no (n, n_columns) temporary beside the results
        perm = np.empty((f, n), dtype=np.int32 if n < 2**31 else np.int64)
        runs, starts = [], []
        n_present = (~np.isnan(x)).sum(axis=0)
        for j in range(f):
            order = np.argsort(x[:, j], kind="stable")
            perm[j] = order
            present = x[order[: n_present[j]], j]
            first = np.flatnonzero(present[1:] != present[:-1]) + 1
            cut = np.concatenate([[0], first]) if present.size else np.zeros(0, dtype=np.int64)
            runs.append(present[cut])
            starts.append(np.concatenate([cut, [present.size]]).astype(np.int64))
        return cls(x, perm, tuple(runs), tuple(starts), n_present)

    def bounds(self, column: int, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Where ``values`` (no NaN) start and end in ``perm[column]``: the positions a binary
        search of the sorted column would give with ``side="left"`` and ``side="right"``."""
        runs, starts = self.runs[column], self.starts[column]
        left = starts[np.searchsorted(runs, values, side="left")]
        right = starts[np.searchsorted(runs, values, side="right")]
        return left, right


def unique_rows(table: Table) -> Table:
    """The distinct rows of ``table``, first occurrences, in their original order.

    Anonymeter evaluates singling-out queries on de-duplicated data (``DataFrame.unique``); the
    singling-out game does the same so that its figures are comparable. Rows are compared by a
    64-bit hash of their encoded values (a collision, probability about ``n**2 / 2**64``, would
    merge two distinct rows).
    """
    x = np.nan_to_num(encoded_matrix(table), nan=np.inf)  # missing cells compare equal
    h = np.full(len(table), np.uint64(0xCBF29CE484222325))
    for w in np.ascontiguousarray(x).view(np.uint64).T:  # 64-bit row hash, vectorised per column
        h = (h ^ w) * np.uint64(0x100000001B3)
        h ^= h >> np.uint64(29)
    _, first = np.unique(h, return_index=True)
    return table.take(np.sort(first))


@dataclass(frozen=True, eq=False)
class Matches:
    """Exact match counts of ``q`` predicates and the rows of those that match few rows.

    Attributes
    ----------
    counts : ndarray (q,) int64
        Rows each predicate matches.
    indptr : ndarray (q + 1,) int64
        ``rows[indptr[i]:indptr[i + 1]]`` are the rows predicate ``i`` matches, sorted, when
        ``counts[i] <= cap``; the slice is empty for the predicates matching more rows.
    rows : ndarray (indptr[-1],) int64
    cap : int
    """

    counts: np.ndarray
    indptr: np.ndarray
    rows: np.ndarray
    cap: int

    def rows_of(self, i: int) -> np.ndarray:
        """The rows predicate ``i`` matches (empty when it matches more than ``cap``)."""
        return self.rows[self.indptr[i] : self.indptr[i + 1]]

    @classmethod
    def combine(cls, parts: Sequence[Matches], offsets: Sequence[int]) -> Matches:
        """The matches in a table cut into consecutive parts, from each part's (same ``cap``;
        ``offsets[p]`` is where part ``p`` starts). Counts add up; a predicate matching at most
        ``cap`` rows in the whole table matches at most ``cap`` in each part, which listed all
        of them, so the listing is exact too: equal to :meth:`PredicateSet.matches` on the
        whole table."""
        cap = parts[0].cap
        counts = np.sum([m.counts for m in parts], axis=0).astype(np.int64)
        q = counts.size
        listed = np.where(counts <= cap, counts, 0)
        pieces, owner = [], []
        for m, off in zip(parts, offsets, strict=True):
            if m.cap != cap:
                raise ValueError("the parts were matched with different caps")
            n_rows = np.diff(m.indptr)
            pieces.append(m.rows + int(off))
            owner.append(np.repeat(np.arange(q), n_rows))
        rows = np.concatenate(pieces) if pieces else np.zeros(0, dtype=np.int64)
        who = np.concatenate(owner) if owner else np.zeros(0, dtype=np.int64)
        keep = listed[who] > 0
        rows, who = rows[keep], who[keep]
        order = np.lexsort((rows, who))  # by predicate, then row: the whole table's order
        indptr = np.concatenate([[0], np.cumsum(listed)]).astype(np.int64)
        return cls(counts, indptr, rows[order].astype(np.int64), cap)


@dataclass(frozen=True, eq=False)
class CountRequest:
    """A request to count ``predicates`` in a table: capped counts (``listed=False``, as
    :meth:`PredicateSet.count`) or exact counts with the rows of the predicates matching at most
    ``cap`` rows (``listed=True``, as :meth:`PredicateSet.matches`)."""

    predicates: PredicateSet
    cap: int
    listed: bool


#: The answer to a request on a table: an array of counts, or :class:`Matches` for a listed request.
CountAnswer = np.ndarray | Matches
#: Answers every request on one table (local: :func:`answer_requests`; on a cluster, one work unit
#: per partition of the table: :func:`synthleak.partitioned.requests_by_partition`).
RequestCounter = Callable[[Table, Sequence[CountRequest]], list[CountAnswer]]


def answer_requests(table: Table, requests: Sequence[CountRequest]) -> list[CountAnswer]:
    """Every request's answer on ``table``, the table indexed once for all of them."""
    index = TableIndex.build(table) if any(len(q.predicates) for q in requests) else None
    out: list[CountAnswer] = []
    for q in requests:
        if q.listed:
            out.append(q.predicates.matches(table, cap=q.cap, index=index))
        else:
            out.append(q.predicates.count(table, cap=q.cap, index=index))
    return out


def combine_answers(
    requests: Sequence[CountRequest], parts: Sequence[list[CountAnswer]], offsets: Sequence[int]
) -> list[CountAnswer]:
    """The whole table's answers from those of its consecutive parts (``offsets``: where each
    starts), equal to :func:`answer_requests` on the whole table: counts add up (a capped count
    stops at ``cap`` again), rows are listed by :meth:`Matches.combine`."""
    out: list[CountAnswer] = []
    for i, q in enumerate(requests):
        got = [p[i] for p in parts]
        if q.listed:
            out.append(Matches.combine([g for g in got if isinstance(g, Matches)], offsets))
        else:
            total = np.sum([np.asarray(g) for g in got], axis=0).astype(np.int64)
            out.append(np.minimum(total, q.cap) if q.cap > 0 else total)
    return out


@dataclass(frozen=True, eq=False)
class PredicateSet:
    """``q`` conjunction predicates over the columns of ``schema``.

    Attributes
    ----------
    schema : Schema
    ops : ndarray of shape (q, n_columns), int8
        :class:`Op` per predicate and column (columns in schema order; ``ANY`` = unconstrained).
    values : ndarray of shape (q, n_columns), float64
        Operand: the category code (categorical) or the threshold (continuous); NaN if unused.
    """

    schema: Schema
    ops: np.ndarray
    values: np.ndarray

    def __post_init__(self) -> None:
        f = len(self.schema)
        if self.ops.ndim != 2 or self.ops.shape[1] != f or self.values.shape != self.ops.shape:
            raise ValueError(f"ops and values must both have shape (q, {f})")

    @classmethod
    def empty(cls, schema: Schema) -> PredicateSet:
        f = len(schema)
        return cls(schema, np.zeros((0, f), dtype=np.int8), np.zeros((0, f), dtype=np.float64))

    def __len__(self) -> int:
        return int(self.ops.shape[0])

    @property
    def n_atoms(self) -> np.ndarray:
        """Number of constrained columns of each predicate."""
        return (self.ops != Op.ANY).sum(axis=1)

    def take(self, idx: np.ndarray | Sequence[int]) -> PredicateSet:
        i = np.asarray(idx, dtype=np.intp)
        return PredicateSet(self.schema, self.ops[i], self.values[i])

    @staticmethod
    def concat(sets: Sequence[PredicateSet]) -> PredicateSet:
        if not sets:
            raise ValueError("concat needs at least one PredicateSet")
        return PredicateSet(
            sets[0].schema,
            np.concatenate([s.ops for s in sets]),
            np.concatenate([s.values for s in sets]),
        )

    def keys(self) -> np.ndarray:
        """A 64-bit hash per predicate (uint64); equal predicates have equal keys.

        Collisions between different predicates have probability about ``q**2 / 2**64``.
        """
        vals = np.where(self.ops == Op.ANY, 0.0, np.nan_to_num(self.values, nan=-np.inf))
        words = np.ascontiguousarray(
            np.concatenate([self.ops.astype(np.float64), vals], axis=1)
        ).view(np.uint64)
        h = np.full(words.shape[0], np.uint64(0xCBF29CE484222325))
        for w in words.T:  # one pass per column (2 x n_columns), vectorised over predicates
            h = (h ^ w) * np.uint64(0x100000001B3)
            h ^= h >> np.uint64(29)
        return h

    def first_unique(self, seen: set[int] | None = None) -> np.ndarray:
        """Indices of the first occurrence of each predicate not already in ``seen`` (in order).

        ``seen`` (a set of :meth:`keys` values) is updated in place when given.
        """
        keys = self.keys()
        _, first = np.unique(keys, return_index=True)
        first = np.sort(first)
        if seen is None:
            return first
        fresh = keys[first].tolist()
        keep = np.fromiter((k not in seen for k in fresh), dtype=bool, count=len(fresh))
        seen.update(fresh)
        return first[keep]

    # --- evaluation -------------------------------------------------------------------
    def _check_table(self, table: Table) -> None:
        if table.schema.names != self.schema.names:
            raise InputError(
                "the predicates and the table have different columns "
                f"({self.schema.names} vs {table.schema.names}): encode both with the same schema"
            )

    def _compact(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Active atoms of each predicate moved left: (cols, ops, values), each (q, width)."""
        active = self.ops != Op.ANY
        width = max(int(active.sum(axis=1).max(initial=0)), 1)
        order = np.argsort(~active, axis=1, kind="stable")[:, :width]
        cols = order.astype(np.int64)
        ops = np.take_along_axis(self.ops, order, axis=1).astype(np.int64)
        vals = np.take_along_axis(self.values, order, axis=1)
        return cols, ops, np.ascontiguousarray(vals)

    def _plan(self, index: TableIndex) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """For each predicate, the atom whose matching rows form the shortest run of a sorted
        column: (column, start, stop) in ``index.perm[column]``. Only those rows are scanned."""
        q, f = self.ops.shape
        n = index.n
        lo = np.zeros((q, f), dtype=np.int64)
        hi = np.full((q, f), n, dtype=np.int64)
        for j in range(f):
            active = np.flatnonzero(self.ops[:, j] != Op.ANY)
            if active.size == 0:
                continue
            o = self.ops[active, j].astype(np.intp)
            v = np.nan_to_num(self.values[active, j], nan=0.0)
            left, right = index.bounds(j, v)
            # the candidate ends of the run, one row each: 0, n_present, n, left, right
            ends = np.stack(
                [
                    np.zeros_like(left),
                    np.full_like(left, int(index.n_present[j])),
                    np.full_like(left, n),
                    left,
                    right,
                ]
            )
            cols = np.arange(o.size)
            lo[active, j] = ends[_RUN_LO[o], cols]
            hi[active, j] = ends[_RUN_HI[o], cols]
        best = np.argmin(hi - lo, axis=1)
        r = np.arange(q)
        return best.astype(np.int64), lo[r, best], hi[r, best]

    def count(self, table: Table, *, cap: int = 0, index: TableIndex | None = None) -> np.ndarray:
        """Number of rows of ``table`` each predicate matches, shape (q,), int64.

        ``cap > 0`` stops counting a predicate at ``cap`` matches (enough to decide "exactly
        one" with ``cap=2``). ``index`` is :class:`TableIndex` of ``table`` when the caller
        already has it (it is built otherwise).
        """
        self._check_table(table)
        if len(self) == 0:
            return np.zeros(0, dtype=np.int64)
        idx = TableIndex.build(table) if index is None else index
        cols, ops, vals = self._compact()
        col, lo, hi = self._plan(idx)
        out = np.zeros(len(self), dtype=np.int64)
        rows = np.zeros((len(self), 0), dtype=np.int64)
        _scan_kernel(
            idx.x, idx.perm, col, lo, hi, cols, ops, vals, _missing_codes(self.schema), int(cap),
            out, rows,
        )  # fmt: skip
        return out

    def matches(self, table: Table, *, cap: int = 2, index: TableIndex | None = None) -> Matches:
        """Exact match counts, and the matching rows of every predicate with at most ``cap``.

        ``index`` is :class:`TableIndex` of ``table`` when the caller already has it.
        """
        self._check_table(table)
        if cap < 0:
            raise ValueError(f"cap={cap} must be non-negative")
        q = len(self)
        out = np.zeros(q, dtype=np.int64)
        buf = np.full((q, cap), np.iinfo(np.int64).max, dtype=np.int64)  # unused slots last
        if q:
            idx = TableIndex.build(table) if index is None else index
            cols, ops, vals = self._compact()
            col, lo, hi = self._plan(idx)
            _scan_kernel(
                idx.x, idx.perm, col, lo, hi, cols, ops, vals, _missing_codes(self.schema), 0,
                out, buf,
            )  # fmt: skip
        listed = np.where(out <= cap, out, 0)
        indptr = np.concatenate([[0], np.cumsum(listed)]).astype(np.int64)
        keep = np.arange(cap)[None, :] < listed[:, None]
        return Matches(out, indptr, np.sort(buf, axis=1)[keep], cap)

    @property
    def constrained(self) -> np.ndarray:
        """Boolean (q, n_columns): the columns each predicate constrains."""
        return self.ops != Op.ANY

    # --- display ----------------------------------------------------------------------
    def describe(self, i: int) -> str:
        """Human-readable form of predicate ``i``, e.g. ``age >= 90 & race == 'Other'``."""
        parts = []
        for j, col in enumerate(self.schema.columns):
            op = Op(int(self.ops[i, j]))
            if op is Op.ANY:
                continue
            v = self.values[i, j]
            if op in (Op.ISNULL, Op.NOTNULL):
                parts.append(f"{col.name} is {'' if op is Op.ISNULL else 'not '}null")
            elif col.is_categorical and int(v) == col.missing_code and col.has_missing:
                parts.append(f"{col.name} is {'' if op is Op.EQ else 'not '}null")
            elif col.is_categorical:
                parts.append(f"{col.name} {_SYMBOL[op]} {col.categories[int(v)]!r}")
            else:
                parts.append(f"{col.name} {_SYMBOL[op]} {float(v):g}")
        return " & ".join(parts) if parts else "(any)"


def _missing_codes(schema: Schema) -> np.ndarray:
    """Missing code of each categorical column (as float), NaN for continuous columns."""
    return np.array([float(c.missing_code) if c.is_categorical else np.nan for c in schema.columns])


@njit(cache=True, inline="always")
def _atom(xv: float, op: int, v: float, miss: float) -> bool:  # pragma: no cover - compiled
    if op == 1:
        return xv == v
    if op == 2:  # SQL semantics: a missing cell never matches "!= value"
        if np.isnan(xv):
            return False
        return xv != v and (xv != miss or v == miss)
    if op == 3:
        return xv < v
    if op == 4:
        return xv <= v
    if op == 5:
        return xv > v
    if op == 6:
        return xv >= v
    if op == 7:
        return np.isnan(xv)
    if op == 8:
        return not np.isnan(xv)
    return True


@njit(cache=True)
def _scan_kernel(x, perm, col, lo, hi, cols, ops, vals, miss, cap, out, rows):  # pragma: no cover
    """Count the matches of every predicate (stop at ``cap`` when ``cap > 0``); record the first
    ``rows.shape[1]`` matching rows of each predicate in ``rows``."""
    q, width = cols.shape
    keep = rows.shape[1]
    for i in range(q):
        c = 0
        p = perm[col[i]]
        for s in range(lo[i], hi[i]):
            r = p[s]
            ok = True
            for a in range(width):
                j = cols[i, a]
                if not _atom(x[r, j], ops[i, a], vals[i, a], miss[j]):
                    ok = False
                    break
            if ok:
                if c < keep:
                    rows[i, c] = r
                c += 1
                if cap > 0 and c >= cap:
                    break
        out[i] = c


# --- building singling-out predicates from records (shared by the record-based attacks) ----------


def check_n_cols(n_cols: int, table: Table) -> None:
    """Raise :class:`InputError` unless ``1 <= n_cols <= `` the number of columns of ``table``."""
    f = len(table.schema)
    if isinstance(n_cols, bool) or not isinstance(n_cols, int | np.integer) or not 1 <= n_cols <= f:
        raise InputError(
            f"n_cols={n_cols!r} is out of range: the data has {f} columns; pick 1 to {f}"
        )


def column_medians(table: Table) -> np.ndarray:
    """Per-column median (NaN-ignoring) of continuous columns, NaN for categorical ones."""
    med = np.full(len(table.schema), np.nan)
    for j, col in enumerate(table.schema.columns):
        if not col.is_categorical:
            v = table.column(col.name).astype(np.float64)
            if np.isfinite(v).any():
                med[j] = float(np.nanmedian(v))
    return med


def random_column_subsets(
    n: int, n_features: int, n_cols: int, *, rng: np.random.Generator
) -> np.ndarray:
    """Boolean matrix (n, n_features) with ``n_cols`` random columns set per row."""
    order = np.argsort(rng.random((n, n_features)), axis=1)[:, :n_cols]
    sel = np.zeros((n, n_features), dtype=bool)
    np.put_along_axis(sel, order, True, axis=1)
    return sel


def predicates_from_records(
    table: Table,
    rows: np.ndarray,
    columns: np.ndarray,
    medians: np.ndarray,
    matrix: np.ndarray | None = None,
) -> PredicateSet:
    """Conjunction predicates describing records ``rows`` of ``table`` on ``columns``.

    Categorical columns give ``==`` the record's code; continuous ones ``>=`` the record's value
    when it lies above the column median and ``<=`` otherwise (towards the tail, where singling out
    is likelier); a missing value gives a null test (Giomi et al. 2023, Sec. 4.1).

    Parameters
    ----------
    table : Table
        The synthetic data.
    rows : ndarray (b,)
        Record index of each predicate.
    columns : ndarray (b, n_columns) bool
        Columns each predicate constrains.
    medians : ndarray (n_columns,)
        :func:`column_medians` of ``table``.
    matrix : ndarray, optional
        :func:`encoded_matrix` of ``table`` if already computed.
    """
    x = (encoded_matrix(table) if matrix is None else matrix)[rows]
    cat = np.array([c.is_categorical for c in table.schema.columns])
    nan = np.isnan(x)
    ops = np.where(
        cat[None, :],
        Op.EQ,
        np.where(nan, Op.ISNULL, np.where(x > medians[None, :], Op.GE, Op.LE)),
    ).astype(np.int8)
    ops[~columns] = Op.ANY
    vals = np.where(columns & ~nan, x, np.nan)
    return PredicateSet(table.schema, ops, vals)


#: How many times ``batch_size`` candidates a later batch of :func:`collect_singling_out` may be.
MAX_BATCH_GROWTH = 32

#: Cells (candidates x columns) above which a batch grows no further: each of a batch's few
#: arrays of that shape then holds 32 MiB at most, whatever the table's width.
MAX_BATCH_CELLS = 1 << 22


def next_batch(batch_size: int, wanted: int, found: int, tried: int, n_columns: int = 1) -> int:
    """The size of the next batch of candidates: what the share that singled out so far
    (``found`` of ``tried``) says the ``wanted`` remaining predicates need, a fifth more; twice
    those tried when none did yet. Never below ``batch_size``, nor above :data:`MAX_BATCH_GROWTH`
    times it or :data:`MAX_BATCH_CELLS` over ``n_columns`` (when that is larger than
    ``batch_size``).

    A batch costs a fixed few milliseconds besides its candidates' own work (hashing, planning
    the scans, numpy's calls per column): at a yield of 1 % (Adult, three columns) a thousand
    predicates took 87 batches of 1,000, and half the collection's time was that fixed cost.
    """
    if tried == 0:
        return batch_size
    need = 2 * tried if found == 0 else math.ceil(1.2 * wanted * tried / found)
    cap = max(batch_size, min(MAX_BATCH_GROWTH * batch_size, MAX_BATCH_CELLS // max(n_columns, 1)))
    return int(min(max(need, batch_size), cap))


def collect_singling_out(
    table: Table,
    n: int,
    batch: Callable[[int], PredicateSet],
    *,
    max_attempts: int | None,
    batch_size: int,
) -> PredicateSet:
    """Draw candidate batches until ``n`` distinct predicates single out in ``table``.

    ``batch(size)`` proposes ``size`` candidates: ``batch_size`` first, then as many as the
    share found so far says the rest need (:func:`next_batch`). Stops after ``max_attempts``
    candidates (``None`` = no limit) and returns what it has (possibly fewer than ``n``); the
    predicates are the first that single out, in the order proposed.
    """
    kept: list[PredicateSet] = []
    seen: set[int] = set()
    index = TableIndex.build(table)
    total, found, attempts = 0, 0, 0
    while total < n and (max_attempts is None or attempts < max_attempts):
        size = next_batch(batch_size, n - total, found, attempts, len(table.schema))
        if max_attempts is not None:
            size = min(size, max_attempts - attempts)
        cand = batch(size)
        attempts += size
        cand = cand.take(cand.first_unique(seen))
        cand = cand.take(np.flatnonzero(cand.count(table, cap=2, index=index) == 1))
        found += len(cand)
        if len(cand):
            cand = cand.take(np.arange(min(len(cand), n - total)))
            kept.append(cand)
            total += len(cand)
    return PredicateSet.concat(kept) if kept else PredicateSet.empty(table.schema)
