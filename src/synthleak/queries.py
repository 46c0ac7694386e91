"""Counting queries over conjunctions of one target record's attribute values.

A counting query ``Q^A(x_T)`` counts the records of a dataset that match the target ``x_T`` on
every attribute of the subset ``A`` (``=`` on categorical attributes, ``<=`` on continuous ones).
All ``2^F`` answers for one dataset come from one histogram of per-record *match masks* (bit ``f``
set when the record matches the target on attribute ``f``) followed by a superset-sum (zeta)
transform: ``Q^A = #{records whose mask contains A}``. That costs ``O(m·F + F·2^F)`` instead of
``O(m·F·2^F)`` for evaluating every query separately. When ``F`` is too large for a dense
``2^F`` array (``F > 20``), sampled queries are answered with bitsets instead: one bit row of
matches per attribute, AND-ed over the attributes of the query and popcounted (numba).

Attribute ``f`` (bit ``f`` of a mask) is the ``f``-th categorical column for
``f < n_categorical`` and the ``(f - n_categorical)``-th continuous column otherwise.

This module also holds :class:`TableStack`, the compact form of many synthetic datasets of the
same size (one 3-d code array and one 3-d value array) that every membership attack computes its
features from at once.

References
----------
Meeus et al. (2023), "Achilles' heels: vulnerable record identification in synthetic data
publishing", ESORICS, Sec. 5.1 (query-based attack; ``<=`` on continuous attributes).
Houssiau et al. (2022), "TAPAS: a toolbox for adversarial privacy auditing of synthetic data"
(ref. [19] of Meeus et al. (2023)).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import overload

import numpy as np

from synthleak.data.schema import Schema
from synthleak.data.table import Table
from synthleak.errors import InputError
from synthleak.runtime.jit import njit

MAX_DENSE_BITS = 20
"""Largest number of attributes answered with a dense ``2^F`` histogram (above: bitsets)."""

MAX_QUERY_BITS = 64
"""Queries are ``uint64`` attribute masks: at most 64 attributes."""


class TableStack(Sequence[Table]):
    """Many tables with one schema and the same number of rows, stored as two 3-d arrays.

    Parameters
    ----------
    schema : Schema
    codes : ndarray of shape (B, m, n_categorical)
    values : ndarray of shape (B, m, n_continuous), float32

    Indexing with an integer gives a :class:`Table` (views); with a slice or an index array,
    another :class:`TableStack`.
    """

    def __init__(self, schema: Schema, codes: np.ndarray, values: np.ndarray) -> None:
        if codes.ndim != 3 or values.ndim != 3 or codes.shape[:2] != values.shape[:2]:
            raise ValueError(
                "codes and values must be (B, m, .) arrays of matching B and m, "
                f"got {codes.shape} and {values.shape}"
            )
        if codes.shape[2] != len(schema.categorical) or values.shape[2] != len(schema.continuous):
            raise ValueError("the stacked arrays do not match the schema's columns")
        self.schema = schema
        self.codes = codes
        self.values = values

    @classmethod
    def from_tables(cls, tables: Sequence[Table]) -> TableStack:
        """Stack tables that share a schema and a row count."""
        if isinstance(tables, TableStack):
            return tables
        if len(tables) == 0:
            raise InputError("no datasets given: an attack needs at least one synthetic dataset")
        schema = tables[0].schema
        n = len(tables[0])
        for t in tables:
            if t.schema != schema:
                raise InputError("all synthetic datasets must share one schema")
            if len(t) != n:
                raise InputError(
                    f"synthetic datasets have different sizes ({len(t)} and {n} rows): "
                    "give datasets of one size"
                )
        return cls(
            schema, np.stack([t.codes for t in tables]), np.stack([t.values for t in tables])
        )

    @property
    def n_rows(self) -> int:
        """Rows per table."""
        return int(self.codes.shape[1])

    def __len__(self) -> int:
        return int(self.codes.shape[0])

    @overload
    def __getitem__(self, index: int) -> Table: ...

    @overload
    def __getitem__(self, index: slice) -> TableStack: ...

    def __getitem__(self, index: int | slice | np.integer) -> Table | TableStack:
        if isinstance(index, int | np.integer):
            return Table(self.schema, self.codes[index], self.values[index])
        return TableStack(self.schema, self.codes[index], self.values[index])

    def take(self, index: np.ndarray | Sequence[int]) -> TableStack:
        """Tables ``index`` (an integer or boolean index array)."""
        idx = np.asarray(index)
        return TableStack(self.schema, self.codes[idx], self.values[idx])

    def __iter__(self) -> Iterator[Table]:
        for i in range(len(self)):
            yield self[i]


def stack_tables(datasets: Sequence[Table]) -> TableStack:
    """``datasets`` as a :class:`TableStack` (no copy when it already is one)."""
    return TableStack.from_tables(datasets)


def n_attributes(schema: Schema) -> int:
    """Number of query attributes (every column of the schema)."""
    return len(schema.categorical) + len(schema.continuous)


def match_matrix(stack: TableStack, target: Table) -> np.ndarray:
    """Boolean ``(B, m, F)``: record matches the target on attribute ``f``.

    ``=`` on categorical codes (missing is a code like any other); ``<=`` on continuous values,
    where a missing target value matches exactly the missing values.
    """
    if len(target) != 1:
        raise InputError(f"counting queries need one target record, got {len(target)}")
    if target.schema != stack.schema:
        raise InputError("the target record does not have the synthetic datasets' schema")
    cat = stack.codes == target.codes[0][None, None, :]
    tv = target.values[0]
    with np.errstate(invalid="ignore"):
        cont = stack.values <= tv[None, None, :]
    nan_t = np.isnan(tv)
    if nan_t.any():
        cont[:, :, nan_t] = np.isnan(stack.values[:, :, nan_t])
    return np.concatenate([cat, cont], axis=2)


def match_masks(stack: TableStack, target: Table) -> np.ndarray:
    """Per-record match masks ``(B, m)`` as ``uint64`` (bit ``f`` = matches on attribute ``f``)."""
    f = n_attributes(stack.schema)
    if f > MAX_QUERY_BITS:
        raise InputError(
            f"counting queries support at most {MAX_QUERY_BITS} attributes, the data has {f}: "
            "select fewer columns"
        )
    match = match_matrix(stack, target)
    weights = np.left_shift(np.uint64(1), np.arange(f, dtype=np.uint64))
    return _pack_masks(match.reshape(-1, f), weights).reshape(match.shape[:2])


@njit(cache=True)
def _pack_masks(
    match: np.ndarray, weights: np.ndarray
) -> np.ndarray:  # pragma: no cover - compiled
    out = np.zeros(match.shape[0], dtype=np.uint64)
    for i in range(match.shape[0]):
        acc = np.uint64(0)
        for j in range(match.shape[1]):
            if match[i, j]:
                acc |= weights[j]
        out[i] = acc
    return out


@njit(cache=True)
def _zeta_low3(flat: np.ndarray) -> None:  # pragma: no cover - compiled
    # superset sums over bits 0..2 inside every aligned block of 8 entries (registers only)
    for r in range(flat.shape[0]):
        row = flat[r]
        for base in range(0, row.shape[0], 8):
            a0, a1, a2, a3 = row[base], row[base + 1], row[base + 2], row[base + 3]
            a4, a5, a6, a7 = row[base + 4], row[base + 5], row[base + 6], row[base + 7]
            a0 += a1
            a2 += a3
            a4 += a5
            a6 += a7
            a0 += a2
            a1 += a3
            a4 += a6
            a5 += a7
            a0 += a4
            a1 += a5
            a2 += a6
            a3 += a7
            row[base], row[base + 1], row[base + 2], row[base + 3] = a0, a1, a2, a3
            row[base + 4], row[base + 5], row[base + 6], row[base + 7] = a4, a5, a6, a7


def superset_sums(hist: np.ndarray, n_bits: int) -> np.ndarray:
    """Superset-sum (zeta) transform along the last axis, in place; returns ``hist``.

    After the call ``hist[..., A] = sum of the input over all B ⊇ A`` (bit masks of ``n_bits``).
    Bits 0-2 are done in registers (numba), higher bits as contiguous numpy block additions.
    """
    size = 1 << n_bits
    if hist.shape[-1] != size:
        raise ValueError(f"last axis must have 2^{n_bits} = {size} entries, got {hist.shape[-1]}")
    lead = hist.shape[:-1]
    first = 0
    if (
        n_bits >= 3
        and hist.flags.c_contiguous
        and hist.dtype in (np.int32, np.int64, np.float32, np.float64)
    ):
        _zeta_low3(hist.reshape(-1, size))
        first = 3
    for f in range(first, n_bits):
        view = hist.reshape(*lead, size >> (f + 1), 2, 1 << f)
        np.add(view[..., 0, :], view[..., 1, :], out=view[..., 0, :])
    return hist


def all_subset_counts(stack: TableStack, target: Table, *, chunk: int = 256) -> np.ndarray:
    """Answers to all ``2^F`` counting queries of ``target`` on every table: ``(B, 2^F)`` int32.

    Entry ``A`` (an attribute bit mask) counts the records matching the target on every attribute
    in ``A``; entry 0 (no condition) is the table size.
    """
    f = n_attributes(stack.schema)
    if f > MAX_DENSE_BITS:
        raise InputError(
            f"all 2^F counting queries need F <= {MAX_DENSE_BITS} attributes, the data has {f}: "
            "sample queries instead (subset_counts)"
        )
    size = 1 << f
    out = np.empty((len(stack), size), dtype=np.int32)
    for lo in range(0, len(stack), chunk):
        sub = stack[lo : lo + chunk]
        masks = match_masks(sub, target).astype(np.int64)
        b = masks.shape[0]
        flat = (masks + (np.arange(b, dtype=np.int64) * size)[:, None]).ravel()
        hist = np.bincount(flat, minlength=b * size).astype(np.int32).reshape(b, size)
        out[lo : lo + b] = superset_sums(hist, f)
    return out


@njit(cache=True)
def _popcount64(x: np.uint64) -> np.int64:  # pragma: no cover - compiled
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((x * np.uint64(0x0101010101010101)) >> np.uint64(56))


@njit(cache=True)
def _bitset_counts(
    bits: np.ndarray, queries: np.ndarray, n_rows: int
) -> np.ndarray:  # pragma: no cover
    n_sets, n_attr, n_words = bits.shape
    n_q = queries.shape[0]
    out = np.empty((n_sets, n_q), dtype=np.int32)
    acc = np.empty(n_words, dtype=np.uint64)
    for b in range(n_sets):
        for q in range(n_q):
            mask = queries[q]
            if mask == 0:
                out[b, q] = n_rows
                continue
            for w in range(n_words):
                acc[w] = ~np.uint64(0)
            for f in range(n_attr):
                if (mask >> np.uint64(f)) & np.uint64(1):
                    for w in range(n_words):
                        acc[w] &= bits[b, f, w]
            total = np.int64(0)
            for w in range(n_words):
                total += _popcount64(acc[w])
            out[b, q] = total
    return out


def match_bitsets(stack: TableStack, target: Table) -> np.ndarray:
    """Per-attribute bitsets of matching records: ``(B, F, ceil(m / 64))`` uint64."""
    match = match_matrix(stack, target)  # (B, m, F)
    b, m, f = match.shape
    packed = np.packbits(
        np.transpose(match, (0, 2, 1)), axis=2, bitorder="little"
    )  # (B, F, ceil(m/8))
    n_words = (m + 63) // 64
    pad = n_words * 8 - packed.shape[2]
    if pad:
        packed = np.concatenate([packed, np.zeros((b, f, pad), dtype=np.uint8)], axis=2)
    return np.ascontiguousarray(packed).view("<u8").reshape(b, f, n_words).astype(np.uint64)


def subset_counts(
    stack: TableStack,
    target: Table,
    subsets: np.ndarray,
    *,
    chunk: int = 256,
    dtype: np.dtype | type = np.int32,
) -> np.ndarray:
    """Answers to the counting queries ``subsets`` (uint64 attribute masks):
    ``(B, N)`` of ``dtype``.

    Uses the dense histogram + zeta transform (all ``2^F`` answers of a dataset at once) when
    ``F <= MAX_DENSE_BITS`` and the queries are many, bitsets otherwise. Per dataset, bitsets
    cost about ``N * F * ceil(m / 64)`` word operations and the transform ``F * 2^F``, at about
    the same cost per operation; measured on Adult (F = 15) and UK Census (F = 17) datasets of
    500 and 2,000 records, bitsets stay faster up to ``N * ceil(m / 64)`` of 1.3 to 3 times
    ``2^F``, so the transform is used from twice ``2^F`` on. The risk maps' 1,000 queries on
    500 records: bitsets 4x (Adult) to 18x (UK Census) faster (``benchmarks/bench_queries.py``).
    Both give the same answers.
    """
    q = np.asarray(subsets, dtype=np.uint64)
    f = n_attributes(stack.schema)
    if q.size and int(q.max()) >> f:
        raise InputError(f"a query mask uses an attribute beyond the data's {f} attributes")
    out = np.empty((len(stack), q.size), dtype=dtype)
    words = -(-int(stack.n_rows) // 64)
    dense = f <= MAX_DENSE_BITS and q.size * words >= 2 << f  # see the docstring
    idx = q.astype(np.int64)
    for lo in range(0, len(stack), chunk):
        sub = stack[lo : lo + chunk]
        if dense:
            out[lo : lo + len(sub)] = all_subset_counts(sub, target, chunk=chunk)[:, idx]
        else:
            out[lo : lo + len(sub)] = _bitset_counts(match_bitsets(sub, target), q, sub.n_rows)
    return out


def sample_subsets(n_attr: int, n_queries: int, *, rng: np.random.Generator) -> np.ndarray:
    """``n_queries`` distinct non-empty attribute subsets drawn uniformly (uint64 masks, sorted).

    All ``2^F - 1`` non-empty subsets when ``n_queries`` reaches that number.
    """
    if n_queries < 1:
        raise InputError(f"the number of queries must be at least 1, got {n_queries}")
    if n_attr < 1:
        raise InputError("counting queries need at least one attribute")
    if n_attr > MAX_QUERY_BITS:
        raise InputError(
            f"counting queries support at most {MAX_QUERY_BITS} attributes, got {n_attr}"
        )
    if n_attr <= 62 and n_queries >= (1 << n_attr) - 1:
        return np.arange(1, 1 << n_attr, dtype=np.uint64)
    if n_attr <= 30:
        picked = rng.choice((1 << n_attr) - 1, size=n_queries, replace=False) + 1
        return np.sort(picked.astype(np.uint64))
    found: set[int] = set()
    while len(found) < n_queries:
        bits = rng.integers(0, 2, size=(2 * (n_queries - len(found)), n_attr), dtype=np.uint64)
        masks = (bits << np.arange(n_attr, dtype=np.uint64)).sum(axis=1, dtype=np.uint64)
        for v in masks[masks != 0].tolist():
            found.add(int(v))
            if len(found) == n_queries:
                break
    return np.sort(np.fromiter(found, dtype=np.uint64, count=len(found)))
