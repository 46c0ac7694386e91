"""Encodings shared by generators and attacks.

* :func:`one_hot` and :func:`minmax`: the preprocessing of Meeus et al. (2023), Sec. 4 (eq. 1-3):
  one-hot categoricals (the missing code is one more category) and min-max scaled continuous
  columns (range from the schema; missing values scaled to 0, with ``minmax_missing`` giving the
  indicator).
* :class:`Discretiser`: every column as integer codes in schema order. Categorical codes pass
  through; continuous columns are cut into bins (``uniform`` over the schema range, which reads
  nothing from the data and is safe for differential privacy, or ``quantile`` over the training
  data, which is not), plus one bin for missing values when the column is nullable.
  :meth:`Discretiser.inverse` maps codes back, drawing continuous values uniformly inside the bin.
* :func:`mixed_keys`, :func:`count_keys` and :func:`merge_counts`: one integer key per row for
  its cell on some columns, the distinct keys and their counts, and the counts of several parts
  of a table added up (cell rarity and the utility marginals on a cluster, ``domias``' pooled
  release and reference).

Datetime columns are continuous here (their values are days or seconds since 1970-01-01, see
:mod:`synthleak.data.schema`).

References
----------
Matthieu Meeus, Florent Guépin, Ana-Maria Creţu and Yves-Alexandre de Montjoye. "Achilles' Heels:
Vulnerable Record Identification in Synthetic Data Publishing". ESORICS, 2023; arXiv:2306.10308.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from synthleak.data.schema import Column, Schema
from synthleak.data.table import Table, code_dtype


def mixed_keys(
    codes: np.ndarray, cols: Sequence[int], widths: Sequence[int] | np.ndarray
) -> np.ndarray:
    """Mixed-radix int64 keys of the rows of ``codes`` on the columns ``cols`` (radices: the
    columns' ``widths``, so a key means the same cell in any part of the table); 0 for every row
    when ``cols`` is empty."""
    key = np.zeros(codes.shape[0], dtype=np.int64)
    for c in cols:
        key = key * int(widths[c]) + codes[:, c].astype(np.int64)
    return key


def count_keys(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct ``keys`` in increasing order and how often each occurs (int64)."""
    uniq, counts = np.unique(keys, return_counts=True)
    return uniq.astype(np.int64), counts.astype(np.int64)


def merge_counts(parts: Sequence[tuple[np.ndarray, np.ndarray]]) -> tuple[np.ndarray, np.ndarray]:
    """Sum the ``(keys, counts)`` of parts of a table (each as :func:`count_keys` gives it) into
    the table's: what :func:`count_keys` gives on the stacked keys. Exact: integer counts below
    2^53 are added exactly in float64, in part order."""
    keys = np.concatenate([k for k, _ in parts])
    counts = np.concatenate([c for _, c in parts])
    uniq, inv = np.unique(keys, return_inverse=True)
    total = np.bincount(inv.ravel(), weights=counts, minlength=uniq.size)
    return uniq.astype(np.int64), np.rint(total).astype(np.int64)


def one_hot(table: Table) -> np.ndarray:
    """One-hot encode the categorical columns: float32 array (n, sum of code counts)."""
    sizes = [c.size for c in table.schema.categorical]
    offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    out = np.zeros((len(table), int(sum(sizes))), dtype=np.float32)
    if sizes:
        rows = np.repeat(np.arange(len(table)), len(sizes))
        cols = (table.codes.astype(np.int64) + offsets).ravel()
        out[rows, cols] = 1.0
    return out


def minmax(table: Table, schema: Schema | None = None) -> np.ndarray:
    """Min-max scale the continuous columns to [0, 1] with the schema's ranges (NaN -> 0)."""
    sch = schema or table.schema
    lows = np.array([c.low for c in sch.continuous], dtype=np.float32)
    highs = np.array([c.high for c in sch.continuous], dtype=np.float32)
    span = np.where(highs > lows, highs - lows, 1.0).astype(np.float32)
    out = (table.values - lows) / span
    return np.nan_to_num(np.clip(out, 0.0, 1.0), nan=0.0).astype(np.float32)


def minmax_missing(table: Table) -> np.ndarray:
    """Missing indicators (float32 0/1) of the nullable continuous columns, in schema order."""
    idx = [j for j, c in enumerate(table.schema.continuous) if c.has_missing]
    return np.isnan(table.values[:, idx]).astype(np.float32)


@dataclass(frozen=True)
class _Bins:
    edges: np.ndarray  # (n_bins + 1,) float64
    missing: bool

    @property
    def size(self) -> int:
        return len(self.edges) - 1 + int(self.missing)


class Discretiser:
    """Integer codes for every column (see the module docstring).

    Parameters
    ----------
    schema : Schema
    n_bins : int
        Bins per continuous column (integer columns with a smaller range get one bin per value).
    strategy : {"uniform", "quantile"}
        ``uniform`` uses only the schema range; ``quantile`` needs ``data`` and reads it.
    data : Table or sequence of Table, optional
        Training data for ``quantile`` bins (several tables are read as if stacked, one column
        at a time, without stacking them).
    """

    def __init__(
        self,
        schema: Schema,
        n_bins: int = 20,
        strategy: str = "uniform",
        data: Table | Sequence[Table] | None = None,
    ) -> None:
        if n_bins < 1:
            raise ValueError("n_bins must be >= 1")
        self.schema = schema
        self.n_bins = n_bins
        self.strategy = strategy
        self._bins: dict[str, _Bins] = {}
        parts = [] if data is None else [data] if isinstance(data, Table) else list(data)
        for j, col in enumerate(schema.continuous):
            if strategy == "uniform":
                edges = self._uniform_edges(col, n_bins)
            elif strategy == "quantile":
                if data is None:
                    raise ValueError("quantile bins need data")
                v = np.concatenate([t.values[:, j].astype(np.float64) for t in parts])
                v = v[~np.isnan(v)]
                if v.size == 0:
                    edges = self._uniform_edges(col, n_bins)
                else:
                    q = np.unique(np.quantile(v, np.linspace(0, 1, n_bins + 1)))
                    edges = q if q.size >= 2 else np.array([q[0], q[0] + 1.0])
            else:
                raise ValueError(f"unknown strategy {strategy!r}")
            self._bins[col.name] = _Bins(edges, col.has_missing)
        self.sizes = np.array(
            [c.size if c.is_categorical else self._bins[c.name].size for c in schema.columns],
            dtype=np.int64,
        )

    @staticmethod
    def _uniform_edges(col: Column, n_bins: int) -> np.ndarray:
        lo, hi = col.low, col.high
        if col.integer and hi - lo + 1 <= n_bins:
            return np.arange(lo, hi + 2, dtype=np.float64) - 0.5
        if hi <= lo:
            return np.array([lo, lo + 1.0])
        return np.linspace(lo, hi, n_bins + 1)

    def transform(self, table: Table) -> np.ndarray:
        """Codes (n, F) in schema order, dtype fitting the largest domain."""
        out = np.empty((len(table), len(self.schema)), dtype=code_dtype(int(self.sizes.max())))
        ci = {n: j for j, n in enumerate(self.schema.categorical_names)}
        vi = {n: j for j, n in enumerate(self.schema.continuous_names)}
        for f, col in enumerate(self.schema.columns):
            if col.is_categorical:
                out[:, f] = table.codes[:, ci[col.name]]
                continue
            b = self._bins[col.name]
            v = table.values[:, vi[col.name]].astype(np.float64)
            nb = len(b.edges) - 1
            code = np.clip(np.searchsorted(b.edges, v, side="right") - 1, 0, nb - 1)
            if b.missing:
                code = np.where(np.isnan(v), nb, code)
            out[:, f] = code
        return out

    def inverse(self, codes: np.ndarray, *, rng: np.random.Generator) -> Table:
        """A table from codes; continuous values drawn uniformly inside their bin."""
        n = codes.shape[0]
        cat_cols, cont_cols = [], []
        for f, col in enumerate(self.schema.columns):
            if col.is_categorical:
                cat_cols.append(codes[:, f])
                continue
            b = self._bins[col.name]
            nb = len(b.edges) - 1
            c = codes[:, f].astype(np.int64)
            miss = c >= nb
            cc = np.minimum(c, nb - 1)
            lo, hi = b.edges[cc], b.edges[cc + 1]
            u = rng.random(n)
            if col.integer:
                # a uniform integer inside [lo, hi) (the last bin includes hi), so the value
                # falls back into the same bin
                first = np.ceil(lo)
                last = np.where(cc == nb - 1, np.floor(hi), np.ceil(hi) - 1)
                count = np.maximum(last - first + 1, 1)
                v = first + np.floor(u * count)
            else:
                v = lo + (hi - lo) * u
            v = np.clip(v, col.low, col.high)
            v[miss] = np.nan
            cont_cols.append(v)
        return Table.from_arrays(
            self.schema,
            np.stack(cat_cols, axis=1) if cat_cols else np.zeros((n, 0), dtype=np.int64),
            np.stack(cont_cols, axis=1) if cont_cols else np.zeros((n, 0), dtype=np.float32),
        )

    def edges(self, name: str) -> np.ndarray:
        """Bin edges of continuous column ``name``."""
        return self._bins[name].edges.copy()
