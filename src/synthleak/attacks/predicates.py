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
needs ``cap=2``. Match sets are returned as packed row bitsets (for subsample counts). Anonymeter
instead builds one query expression per predicate and has the dataframe engine evaluate every
expression over every row (Giomi et al. (2023), Sec. 4.1).

Null semantics follow SQL three-valued logic, as dataframe engines do: a comparison with a
missing cell is not a match (so ``x != 3`` does not match a missing ``x``); ``ISNULL`` and
``NOTNULL`` test missingness. A categorical missing value is the column's missing code, so
``EQ missing_code`` means "is null" and ``NE missing_code`` means "is not null".

References
----------
Giomi et al. (2023), "A unified framework for quantifying privacy risk in synthetic data",
PoPETs (Anonymeter), Sec. 4.1 (singling out).
Plasencia Palacios (2024), Sec. 2 (singling-out queries from records).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import IntEnum

import numba
import numpy as np

from synthleak.data.schema import Schema
from synthleak.data.table import Table
from synthleak.errors import InputError


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


def encoded_matrix(table: Table) -> np.ndarray:
    """All columns in schema order as float64 (codes as exact small integers, NaN = missing)."""
    out = np.empty((len(table), len(table.schema)), dtype=np.float64)
    for j, col in enumerate(table.schema.columns):
        out[:, j] = table.column(col.name)
    return out


@dataclass(frozen=True, eq=False)
class TableIndex:
    """A table prepared for predicate scans: its matrix and every column's sort order.

    Attributes
    ----------
    x : ndarray (n, n_columns) float64
        :func:`encoded_matrix` of the table.
    perm : ndarray (n_columns, n) int64
        Row order sorting each column (missing last).
    sorted : ndarray (n_columns, n) float64
        Each column's values in that order.
    n_present : ndarray (n_columns,)
        Non-missing values per column.
    """

    x: np.ndarray
    perm: np.ndarray
    sorted: np.ndarray
    n_present: np.ndarray

    @property
    def n(self) -> int:
        return int(self.x.shape[0])

    @classmethod
    def build(cls, table: Table) -> TableIndex:
        x = encoded_matrix(table)
        perm = np.ascontiguousarray(np.argsort(x, axis=0, kind="stable").T.astype(np.int64))
        srt = np.ascontiguousarray(np.take_along_axis(x, perm.T, axis=0).T)
        return cls(x, perm, srt, (~np.isnan(x)).sum(axis=0))


def _pack(mask: np.ndarray) -> np.ndarray:
    """Pack a boolean matrix (a, n) into uint64 bitsets (a, ceil(n / 64)), little bit order."""
    a, n = mask.shape
    words = (n + 63) // 64
    packed = np.packbits(mask, axis=1, bitorder="little")
    if packed.shape[1] != words * 8:
        packed = np.concatenate(
            [packed, np.zeros((a, words * 8 - packed.shape[1]), dtype=np.uint8)], axis=1
        )
    return np.ascontiguousarray(packed).view(np.uint64)


def full_bitset(n: int) -> np.ndarray:
    """A bitset (1, ceil(n / 64)) with the first ``n`` bits set."""
    return _pack(np.ones((1, n), dtype=bool))


def sample_bitsets(n: int, sizes: Sequence[int], *, rng: np.random.Generator) -> np.ndarray:
    """Bitsets (len(sizes), words) of random row subsets of the given sizes (no replacement)."""
    mask = np.zeros((len(sizes), n), dtype=bool)
    for i, s in enumerate(sizes):
        mask[i, rng.choice(n, size=int(s), replace=False)] = True
    return _pack(mask)


def popcount(bits: np.ndarray) -> np.ndarray:
    """Number of set bits along the last axis."""
    return np.bitwise_count(bits).sum(axis=-1, dtype=np.int64)


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
            npres = int(index.n_present[j])
            srt = index.sorted[j, :npres]
            o = self.ops[active, j]
            v = np.nan_to_num(self.values[active, j], nan=0.0)
            left = np.searchsorted(srt, v, side="left")
            right = np.searchsorted(srt, v, side="right")
            zero = np.zeros_like(left)
            full_p = np.full_like(left, npres)
            full_n = np.full_like(left, n)
            lo[active, j] = np.select(
                [
                    o == Op.EQ,
                    o == Op.LT,
                    o == Op.LE,
                    o == Op.GT,
                    o == Op.GE,
                    o == Op.ISNULL,
                    o == Op.NOTNULL,
                ],
                [left, zero, zero, right, left, full_p, zero],
                zero,
            )
            hi[active, j] = np.select(
                [
                    o == Op.EQ,
                    o == Op.LT,
                    o == Op.LE,
                    o == Op.GT,
                    o == Op.GE,
                    o == Op.ISNULL,
                    o == Op.NOTNULL,
                ],
                [right, left, right, full_p, full_p, full_n, full_p],
                full_n,
            )
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
        _scan_kernel(
            idx.x,
            idx.perm,
            col,
            lo,
            hi,
            cols,
            ops,
            vals,
            _missing_codes(self.schema),
            int(cap),
            out,
            np.zeros((1, 1), dtype=np.bool_),
            False,
        )
        return out

    def match_bitsets(self, table: Table, *, index: TableIndex | None = None) -> np.ndarray:
        """Row bitsets (q, ceil(n / 64)) uint64 of the rows each predicate matches."""
        self._check_table(table)
        if len(self) == 0:
            return np.zeros((0, (len(table) + 63) // 64), dtype=np.uint64)
        idx = TableIndex.build(table) if index is None else index
        cols, ops, vals = self._compact()
        col, lo, hi = self._plan(idx)
        out = np.zeros(len(self), dtype=np.int64)
        mask = np.zeros((len(self), len(table)), dtype=np.bool_)
        _scan_kernel(
            idx.x,
            idx.perm,
            col,
            lo,
            hi,
            cols,
            ops,
            vals,
            _missing_codes(self.schema),
            0,
            out,
            mask,
            True,
        )
        return _pack(mask)

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


@numba.njit(cache=True, inline="always")
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


@numba.njit(cache=True)
def _scan_kernel(
    x, perm, col, lo, hi, cols, ops, vals, miss, cap, out, mask, write_mask
):  # pragma: no cover
    q, width = cols.shape
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
                c += 1
                if write_mask:
                    mask[i, r] = True
                elif cap > 0 and c >= cap:
                    break
        out[i] = c
