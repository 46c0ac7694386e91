"""The encoded :class:`Table` used in every hot loop.

Categorical columns are integer codes (one matrix, int8/int16/int32: the smallest that fits the
largest domain), continuous and datetime columns are float32 (one matrix, ``NaN`` for missing;
datetimes as days or seconds since 1970-01-01, see :mod:`synthleak.data.schema`
and :mod:`synthleak.data.values`). DataFrames
exist only at the edges: :meth:`Table.from_frame` and :meth:`Table.to_frame`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from synthleak.data.schema import Column, Schema, column_differences
from synthleak.data.values import canonical_datetime, column_numbers, numbers_to_datetimes
from synthleak.errors import InputError


def code_dtype(max_size: int) -> np.dtype:
    """Smallest signed integer dtype holding codes ``0 .. max_size - 1``."""
    for dt in (np.int8, np.int16, np.int32):
        if max_size <= np.iinfo(dt).max + 1:
            return np.dtype(dt)
    return np.dtype(np.int64)


def _encode_categorical(s: pd.Series, col: Column) -> np.ndarray:
    missing = s.isna().to_numpy()
    lookup = {str(c): i for i, c in enumerate(col.categories)}
    # map by string form so that 1 / "1" / 1.0 written by other tools agree
    # one Python lookup per distinct value, not per cell
    inv, uniq = pd.factorize(s.astype(object), use_na_sentinel=True)
    as_str = [_canon(v) for v in uniq]
    lut = np.array([lookup.get(k, -1) for k in as_str] + [col.missing_code], dtype=np.int64)
    codes = lut[np.where(inv < 0, len(as_str), inv)]
    unknown = codes < 0
    if unknown.any():
        vals = sorted({as_str[inv[i]] for i in np.flatnonzero(unknown)[:50]})[:5]
        raise InputError(
            f"column {col.name!r} holds value(s) {vals} that are not in its schema categories: "
            "pass a schema that lists them or fix the data"
        )
    if missing.any() and not col.has_missing:
        raise InputError(
            f"column {col.name!r} has missing values but its schema allows none: "
            'set "missing": true for it in the schema'
        )
    return codes


def _decode_categorical(codes: np.ndarray, col: Column) -> object:
    cats = np.array([*col.categories, None], dtype=object)
    vals = cats[codes]
    kinds = {type(c) for c in col.categories}
    if kinds <= {int}:
        return pd.array(vals, dtype="Int64") if col.has_missing else vals.astype(np.int64)
    if kinds <= {int, float}:
        return vals.astype(np.float64) if not col.has_missing else pd.array(vals, dtype="Float64")
    return vals


def _canon(v: object) -> str:
    if isinstance(v, pd.Timestamp | np.datetime64):
        return canonical_datetime(v)
    if isinstance(v, float | np.floating) and float(v).is_integer():
        return str(int(v))
    if isinstance(v, np.generic):
        return str(v.item())
    return str(v)


def _encode_continuous(s: pd.Series, col: Column) -> np.ndarray:
    num, bad = column_numbers(s, col)
    if col.is_datetime:
        what = "datetime but holds values that are not ISO dates"
    else:
        what = "continuous but holds non-numeric values"
    if bad.any():
        raise InputError(
            f"column {col.name!r} is {what}, such as {s[bad].iloc[0]!r}: "
            "declare it categorical or mark the value with na_values"
        )
    if np.isnan(num).any() and not col.has_missing:
        raise InputError(
            f"column {col.name!r} has missing values but its schema allows none: "
            'set "missing": true for it in the schema'
        )
    return num


@dataclass(frozen=True, eq=False)
class Table:
    """An encoded dataset.

    Attributes
    ----------
    schema : Schema
    codes : ndarray of shape (n, n_categorical), integer
        Column ``j`` holds codes of ``schema.categorical[j]``.
    values : ndarray of shape (n, n_continuous), float32
        Column ``j`` holds values of ``schema.continuous[j]`` (``NaN`` = missing).
    """

    schema: Schema
    codes: np.ndarray
    values: np.ndarray

    def __post_init__(self) -> None:
        n_cat, n_cont = len(self.schema.categorical), len(self.schema.continuous)
        if self.codes.ndim != 2 or self.codes.shape[1] != n_cat:
            raise ValueError(f"codes must have shape (n, {n_cat}), got {self.codes.shape}")
        if self.values.ndim != 2 or self.values.shape[1] != n_cont:
            raise ValueError(f"values must have shape (n, {n_cont}), got {self.values.shape}")
        if self.codes.shape[0] != self.values.shape[0]:
            raise ValueError("codes and values must have the same number of rows")

    # --- construction -------------------------------------------------------------
    @classmethod
    def from_arrays(
        cls, schema: Schema, codes: np.ndarray | None, values: np.ndarray | None
    ) -> Table:
        """Build a table from code and value matrices, casting to the canonical dtypes."""
        n = codes.shape[0] if codes is not None else values.shape[0] if values is not None else 0
        sizes = [c.size for c in schema.categorical]
        dt = code_dtype(max(sizes, default=1))
        c = (
            np.ascontiguousarray(codes, dtype=dt)
            if codes is not None
            else np.zeros((n, 0), dtype=dt)
        )
        v = (
            np.ascontiguousarray(values, dtype=np.float32)
            if values is not None
            else np.zeros((n, 0), dtype=np.float32)
        )
        return cls(schema, c, v)

    @classmethod
    def from_frame(cls, df: pd.DataFrame, schema: Schema) -> Table:
        """Encode a DataFrame with ``schema`` (columns matched by name).

        Columns listed in ``schema.excluded`` are dropped when present; any other column the
        schema does not know, or a schema column the frame lacks, is an error. Continuous values
        may be written with comma thousands separators (``"1,234"``); datetime columns take
        ``datetime64`` values, dates and ISO 8601 text.
        """
        df = df.rename(columns=str)
        skip = set(schema.excluded)
        if skip:
            df = df.loc[:, [c for c in df.columns if c not in skip]]
        parts = column_differences(schema.names, list(df.columns))
        if parts:
            raise InputError(
                f"the data does not match the schema: {'; '.join(parts)}: "
                "give data with the schema's columns"
            )
        n = len(df)
        codes = np.empty((n, len(schema.categorical)), dtype=np.int64)
        for j, col in enumerate(schema.categorical):
            codes[:, j] = _encode_categorical(df[col.name], col)
        values = np.empty((n, len(schema.continuous)), dtype=np.float32)
        for j, col in enumerate(schema.continuous):
            values[:, j] = _encode_continuous(df[col.name], col)
        return cls.from_arrays(schema, codes, values)

    def to_frame(self) -> pd.DataFrame:
        """Decode to a DataFrame with the schema's column order and original category values
        (datetime columns as ``datetime64``)."""
        data: dict[str, object] = {}
        for col in self.schema.columns:
            enc = self.column(col.name)
            if col.is_categorical:
                data[col.name] = _decode_categorical(enc, col)
                continue
            if col.is_datetime:
                data[col.name] = numbers_to_datetimes(enc, col)
                continue
            v = enc.astype(np.float64)
            if col.integer:
                v = np.round(v)
                if not np.isnan(v).any():
                    data[col.name] = v.astype(np.int64)
                    continue
            data[col.name] = v
        return pd.DataFrame(data, columns=self.schema.names)

    # --- access -----------------------------------------------------------------
    def __len__(self) -> int:
        return int(self.codes.shape[0])

    @property
    def n_rows(self) -> int:
        return len(self)

    def column(self, name: str) -> np.ndarray:
        """The encoded column ``name`` (codes or float32 values; a view)."""
        col = self.schema[name]
        if col.is_categorical:
            return self.codes[:, self.schema.categorical_names.index(name)]
        return self.values[:, self.schema.continuous_names.index(name)]

    def take(self, rows: np.ndarray | Sequence[int]) -> Table:
        """Rows ``rows`` (any integer index array) as a new table."""
        idx = np.asarray(rows, dtype=np.intp)
        return Table(self.schema, self.codes[idx], self.values[idx])

    def sample(self, n: int, *, rng: np.random.Generator, replace: bool = False) -> Table:
        """``n`` random rows (without replacement unless ``replace``)."""
        if n < 0 or (not replace and n > len(self)):
            raise InputError(
                f"cannot sample {n} records from a table of {len(self)} without replacement: "
                "ask for fewer records"
            )
        return self.take(rng.choice(len(self), size=n, replace=replace))

    def select(self, names: Sequence[str]) -> Table:
        """Only the columns ``names`` (schema order follows ``names``)."""
        sub = self.schema.select(names)
        return Table.from_arrays(
            sub,
            np.stack([self.column(c.name) for c in sub.categorical], axis=1)
            if sub.categorical
            else None,
            np.stack([self.column(c.name) for c in sub.continuous], axis=1)
            if sub.continuous
            else np.zeros((len(self), 0), dtype=np.float32),
        )

    @staticmethod
    def concat(tables: Sequence[Table]) -> Table:
        """Stack tables that share a schema."""
        if not tables:
            raise ValueError("concat needs at least one table")
        schema = tables[0].schema
        for t in tables[1:]:
            if t.schema != schema:
                raise InputError("cannot stack tables with different schemas")
        return Table(
            schema,
            np.concatenate([t.codes for t in tables]),
            np.concatenate([t.values for t in tables]),
        )

    def row_keys(self) -> np.ndarray:
        """One void-typed key per row, equal iff the encoded rows are equal (for unique/isin)."""
        parts = [
            self.codes.astype(np.int32),
            np.nan_to_num(self.values, nan=-3.4e38).astype(np.float32).view(np.int32),
        ]
        arr = np.ascontiguousarray(np.concatenate(parts, axis=1))
        return arr.view(np.dtype((np.void, arr.dtype.itemsize * arr.shape[1]))).ravel()

    def equals(self, other: Table) -> bool:
        """Same schema and identical encoded contents."""
        return (
            self.schema == other.schema
            and np.array_equal(self.codes, other.codes)
            and np.array_equal(self.values, other.values, equal_nan=True)
        )
