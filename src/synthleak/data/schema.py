"""Column kinds, the :class:`Schema` and its inference rules.

Inference rules (each overridable with ``categorical=``/``continuous=``/``keep=`` or a schema
file). :func:`~synthleak.data.profile.infer_schema` first profiles the frame
(:func:`~synthleak.data.profile.profile_frame`), which sets identifier and free-text columns aside
and recognises dates and numbers written as text; the remaining columns follow these rules:

1. ``bool``, ``object``, ``string`` and ``category`` columns are **categorical**, except text
   columns the profile reads as dates (**datetime**) or as numbers with thousands separators
   (``"1,234"``, numeric rules below).
2. Numeric columns whose non-missing values are all integers and that take at most
   ``max_categories`` (default 15) distinct values are **categorical** (codes such as the UK
   Census variables); every other numeric column is **continuous** (Adult ``age``, ``fnlwgt``,
   ``education-num`` with 16 values, ...).
3. ``datetime64`` columns (Parquet timestamps and dates) and date strings are **datetime**: a
   continuous kind (:attr:`Column.is_continuous`) whose values are stored in
   :attr:`Table.values <synthleak.data.table.Table.values>` as days since 1970-01-01 (``unit``
   ``"D"``, when every value falls on midnight: exact in float32) or seconds since
   1970-01-01T00:00 UTC (``unit`` ``"s"``; float32 keeps them to about two minutes at present-day
   dates, 128 s). Time-zone aware values are converted to UTC and the zone is kept in
   :attr:`Column.tz`; :meth:`Table.to_frame` decodes back to datetimes.
4. A column whose every value is missing is an error: there is nothing to learn from it.

Missing values, per kind:

* categorical: missing is an explicit extra category (the last code). Generators reproduce it,
  attacks treat it as a value like any other (a missing occupation is information), and
  :meth:`Table.to_frame` writes it back as a missing cell.
* continuous: stored as ``NaN`` in the encoded table; the column is marked ``nullable``. Encoders
  add a missing indicator (one-hot/min-max) or a missing bin (discretisation), so missingness is
  modelled as well, and generators write missing cells back.

The range of a continuous column (``low``, ``high``) and the categories of a categorical column
are read from the data when inferred. Differentially private generators must take them from a
schema the user supplies (reading them off private data leaks); see :mod:`synthleak.generators`.
"""

from __future__ import annotations

import datetime as _dt
import json
import math
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from enum import Enum
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from synthleak.data.values import (
    DATETIME_UNITS,
    EPOCH,
    canonical_datetime,
    column_numbers,
    datetimes_to_numbers,
    numbers_to_datetimes,
    parse_datetimes,
    parse_numbers,
)
from synthleak.errors import InputError

__all__ = [
    "DATETIME_UNITS",
    "DEFAULT_MAX_CATEGORIES",
    "Column",
    "ColumnKind",
    "Schema",
    "canonical_datetime",
    "check_column_names",
    "column_differences",
    "column_numbers",
    "datetimes_to_numbers",
    "infer_column",
    "numbers_to_datetimes",
    "parse_datetimes",
    "parse_numbers",
    "widen",
]

DEFAULT_MAX_CATEGORIES = 15
SCHEMA_VERSION = 1


class ColumnKind(str, Enum):
    """Kind of a column. ``DATETIME`` is continuous everywhere (generators, encoders, attacks);
    only reading and writing values differ."""

    CATEGORICAL = "categorical"
    CONTINUOUS = "continuous"
    DATETIME = "datetime"


def _json_value(v: Any) -> Any:
    """A category value as a plain JSON value (numpy scalars become Python ones, timestamps
    their :func:`canonical_datetime` text)."""
    if isinstance(v, pd.Timestamp | np.datetime64 | _dt.date):
        return canonical_datetime(v)
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, float) and v.is_integer():
        return int(v)
    return v


@dataclass(frozen=True)
class Column:
    """One column of a :class:`Schema`.

    Attributes
    ----------
    name : str
    kind : ColumnKind
    categories : tuple
        Categorical only: the domain, sorted; code ``i`` is ``categories[i]``.
    has_missing : bool
        Categorical: a missing category exists (code ``len(categories)``).
        Continuous: values may be ``NaN``.
    low, high : float
        Continuous and datetime: the range used for min-max scaling and discretisation
        (datetime: in ``unit`` since 1970-01-01).
    integer : bool
        Continuous and datetime: values are whole numbers (generators round their output).
    unit : str
        Datetime only: ``"D"`` (days) or ``"s"`` (seconds) since 1970-01-01, UTC.
    tz : str
        Datetime only: the time zone of time-zone aware values (``""``: naive values).
    """

    name: str
    kind: ColumnKind
    categories: tuple[Any, ...] = ()
    has_missing: bool = False
    low: float = 0.0
    high: float = 1.0
    integer: bool = False
    unit: str = ""
    tz: str = ""

    @property
    def is_categorical(self) -> bool:
        return self.kind is ColumnKind.CATEGORICAL

    @property
    def is_continuous(self) -> bool:
        """Continuous or datetime: a numeric value in :attr:`Table.values`."""
        return self.kind is not ColumnKind.CATEGORICAL

    @property
    def is_datetime(self) -> bool:
        return self.kind is ColumnKind.DATETIME

    @property
    def size(self) -> int:
        """Number of codes of a categorical column, the missing code included."""
        if not self.is_categorical:
            raise TypeError(f"column {self.name!r} is continuous and has no code count")
        return len(self.categories) + int(self.has_missing)

    @property
    def missing_code(self) -> int:
        """The code that stands for a missing value (categorical with ``has_missing``)."""
        return len(self.categories)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"name": self.name, "kind": self.kind.value}
        if self.is_categorical:
            d["categories"] = [_json_value(c) for c in self.categories]
            d["missing"] = self.has_missing
        elif self.is_datetime:
            d.update(
                low=canonical_datetime(numbers_to_datetimes(np.array([self.low]), self)[0]),
                high=canonical_datetime(numbers_to_datetimes(np.array([self.high]), self)[0]),
                unit=self.unit,
                missing=self.has_missing,
            )
            if self.tz:
                d["tz"] = self.tz
        else:
            d.update(low=self.low, high=self.high, integer=self.integer, missing=self.has_missing)
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Column:
        try:
            kind = ColumnKind(d["kind"])
            name = str(d["name"])
        except (KeyError, ValueError) as exc:
            raise InputError(
                f"schema column {d!r} is invalid: each column needs 'name' and 'kind' "
                "('categorical', 'continuous' or 'datetime')"
            ) from exc
        if kind is ColumnKind.CATEGORICAL:
            cats = d.get("categories")
            if not isinstance(cats, list) or not cats:
                raise InputError(
                    f"schema column {name!r} is categorical but has no 'categories' list: add one"
                )
            if len({str(c) for c in cats}) != len(cats):
                raise InputError(
                    f"schema column {name!r} lists a category twice: remove the duplicate"
                )
            return cls(
                name, kind, categories=tuple(cats), has_missing=bool(d.get("missing", False))
            )
        if kind is ColumnKind.DATETIME:
            return _datetime_column_from_dict(name, d)
        try:
            low, high = float(d["low"]), float(d["high"])
        except (KeyError, TypeError, ValueError) as exc:
            raise InputError(
                f"schema column {name!r} is continuous and needs numeric 'low' and 'high'"
            ) from exc
        if not (math.isfinite(low) and math.isfinite(high)) or low > high:
            raise InputError(f"schema column {name!r} has an invalid range [{low}, {high}]")
        return cls(
            name,
            kind,
            has_missing=bool(d.get("missing", False)),
            low=low,
            high=high,
            integer=bool(d.get("integer", False)),
        )


def _datetime_column_from_dict(name: str, d: dict[str, Any]) -> Column:
    unit = str(d.get("unit", "D"))
    if unit not in DATETIME_UNITS:
        raise InputError(
            f"schema column {name!r} has the datetime unit {unit!r}: "
            "use 'D' (days) or 's' (seconds)"
        )
    tz = str(d.get("tz", "") or "")
    bounds = []
    for key in ("low", "high"):
        v = d.get(key)
        try:
            if isinstance(v, int | float) and not isinstance(v, bool):
                bounds.append(float(v))
            else:
                ts = pd.Timestamp(str(v))
                if ts.tzinfo is not None:
                    ts = ts.tz_convert("UTC").tz_localize(None)
                bounds.append(
                    float((ts.to_datetime64() - EPOCH) / np.timedelta64(1, "s"))
                    / DATETIME_UNITS[unit]
                )
        except (TypeError, ValueError) as exc:
            raise InputError(
                f"schema column {name!r} is datetime and needs 'low' and 'high' as ISO dates "
                f"(2024-01-31) or numbers of {unit} since 1970-01-01, got {v!r}"
            ) from exc
    low, high = bounds
    if not (math.isfinite(low) and math.isfinite(high)) or low > high:
        raise InputError(
            f"schema column {name!r} has an invalid range [{d.get('low')}, {d.get('high')}]"
        )
    return Column(
        name,
        ColumnKind.DATETIME,
        has_missing=bool(d.get("missing", False)),
        low=low,
        high=high,
        integer=unit == "D",
        unit=unit,
        tz=tz,
    )


@dataclass(frozen=True)
class Schema:
    """Ordered columns of a tabular dataset.

    Attributes
    ----------
    columns : tuple of Column
        The analysed columns.
    excluded : tuple of str
        Columns of the data that are deliberately not analysed (identifiers and free text found
        by :func:`~synthleak.data.profile.profile_frame`, or listed in a schema file).
        :meth:`Table.from_frame <synthleak.data.table.Table.from_frame>` drops them when present.
    """

    columns: tuple[Column, ...]
    excluded: tuple[str, ...] = ()
    _index: dict[str, int] = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        names = [c.name for c in self.columns]
        dup = sorted({n for n in names if names.count(n) > 1})
        if dup:
            raise InputError(f"duplicate column names {dup}: rename them so every column is unique")
        if not names:
            raise InputError("the schema has no columns: the data needs at least one column")
        object.__setattr__(self, "excluded", tuple(str(n) for n in self.excluded))
        both = sorted(set(names) & set(self.excluded))
        if both:
            raise InputError(
                f"column(s) {both} are both analysed and excluded in the schema: "
                "keep one of the two"
            )
        object.__setattr__(self, "_index", {n: i for i, n in enumerate(names)})

    # --- access -----------------------------------------------------------------
    @property
    def names(self) -> list[str]:
        return [c.name for c in self.columns]

    def __len__(self) -> int:
        return len(self.columns)

    def __iter__(self) -> Iterator[Column]:
        return iter(self.columns)

    def __getitem__(self, name: str) -> Column:
        try:
            return self.columns[self._index[name]]
        except KeyError:
            raise InputError(
                f"unknown column {name!r}: the columns are {', '.join(self.names)}"
            ) from None

    def __contains__(self, name: object) -> bool:
        return name in self._index

    @property
    def categorical(self) -> list[Column]:
        return [c for c in self.columns if c.is_categorical]

    @property
    def continuous(self) -> list[Column]:
        return [c for c in self.columns if not c.is_categorical]

    @property
    def categorical_names(self) -> list[str]:
        return [c.name for c in self.categorical]

    @property
    def continuous_names(self) -> list[str]:
        return [c.name for c in self.continuous]

    def select(self, names: Sequence[str]) -> Schema:
        """A schema with only ``names``, in that order (no excluded columns)."""
        return Schema(tuple(self[n] for n in names))

    def replace_column(self, column: Column) -> Schema:
        return Schema(
            tuple(column if c.name == column.name else c for c in self.columns), self.excluded
        )

    # --- JSON -------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "version": SCHEMA_VERSION,
            "columns": [c.to_dict() for c in self.columns],
        }
        if self.excluded:
            d["excluded"] = list(self.excluded)
        return d

    def to_json(self, path: str | Path | None = None, *, indent: int = 2) -> str:
        """The schema as JSON; also written to ``path`` when given."""
        text = json.dumps(self.to_dict(), indent=indent)
        if path is not None:
            Path(path).write_text(text + "\n")
        return text

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Schema:
        cols = d.get("columns") if isinstance(d, dict) else None
        if not isinstance(cols, list):
            raise InputError("a schema file must be a JSON object with a 'columns' list")
        excluded = d.get("excluded", [])
        if not isinstance(excluded, list) or not all(isinstance(e, str) for e in excluded):
            raise InputError("'excluded' in a schema file must be a list of column names")
        return cls(tuple(Column.from_dict(c) for c in cols), tuple(excluded))

    @classmethod
    def from_json(cls, text_or_path: str | Path) -> Schema:
        """Load a schema from a JSON string or a path to a JSON file."""
        text = str(text_or_path)
        if not text.lstrip().startswith(("{", "[")):
            path = Path(text)
            if not path.is_file():
                raise InputError(f"schema file {path} does not exist: check the path")
            text = path.read_text()
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InputError(
                f"the schema is not valid JSON ({exc.msg} at line {exc.lineno})"
            ) from exc
        return cls.from_dict(data)


def _is_missing(s: pd.Series) -> pd.Series:
    return s.isna()


def _sorted_categories(values: Iterable[Any]) -> tuple[Any, ...]:
    vals = [_json_value(v) for v in values]
    try:
        return tuple(sorted(vals))
    except TypeError:  # mixed types: order by string form, deterministic
        return tuple(sorted(vals, key=lambda v: (type(v).__name__, str(v))))


def _datetime_unit(values: pd.Series) -> str:
    """``"D"`` when every present value falls on midnight, else ``"s"``."""
    v = values.dropna()
    return "D" if bool((v == v.dt.normalize()).all()) else "s"


# --- inference ------------------------------------------------------------------------------
def _first_row(bad: Any) -> int:
    """Position (0-based) of the first flagged value: errors name rows, never values."""
    return int(np.flatnonzero(np.asarray(bad, dtype=bool))[0])


def infer_column(
    s: pd.Series,
    name: str,
    kind: ColumnKind | None = None,
    *,
    max_categories: int = DEFAULT_MAX_CATEGORIES,
) -> Column:
    """Infer one column (see the module docstring for the rules).

    ``kind=None`` applies the rules to the column's dtype alone (``datetime64`` columns are
    datetime, text is categorical); :func:`infer_schema` passes the kind the profile found.
    ``CONTINUOUS`` on a ``datetime64`` column gives a datetime column (datetimes are continuous).
    """
    missing = _is_missing(s)
    present = s[~missing]
    if present.empty:
        raise InputError(
            f"column {name!r} has only missing values: drop it or fill it before auditing"
        )
    is_dt = pd.api.types.is_datetime64_any_dtype(s)
    numeric = pd.api.types.is_numeric_dtype(s) and not pd.api.types.is_bool_dtype(s)
    if kind is None:
        if is_dt:
            kind = ColumnKind.DATETIME
        elif numeric:
            vals = present.to_numpy(dtype=float)
            integral = bool(np.all(np.isfinite(vals)) and np.all(vals == np.round(vals)))
            kind = (
                ColumnKind.CATEGORICAL
                if integral and present.nunique() <= max_categories
                else ColumnKind.CONTINUOUS
            )
        else:
            kind = ColumnKind.CATEGORICAL
    if kind is ColumnKind.CONTINUOUS and is_dt:
        kind = ColumnKind.DATETIME
    if kind is ColumnKind.CATEGORICAL:
        values = present.map(canonical_datetime) if is_dt else present
        return Column(
            name,
            kind,
            categories=_sorted_categories(values.unique()),
            has_missing=bool(missing.any()),
        )
    if kind is ColumnKind.DATETIME:
        when, tz, bad = parse_datetimes(s)
        if bad.any():
            raise InputError(
                f"column {name!r} is datetime but holds values that are not ISO dates (the "
                f"first in row {_first_row(bad)}, 0-based): declare it categorical or mark the "
                "value with na_values"
            )
        unit = _datetime_unit(when)
        arr = datetimes_to_numbers(when[~missing], unit)
        return Column(
            name,
            kind,
            has_missing=bool(missing.any()),
            low=float(arr.min()),
            high=float(arr.max()),
            integer=unit == "D",
            unit=unit,
            tz=tz,
        )
    numbers, bad = parse_numbers(s)
    if bad.any():
        raise InputError(
            f"column {name!r} is continuous but holds non-numeric values (the first in row "
            f"{_first_row(bad)}, 0-based): declare it categorical or mark the value with "
            "na_values"
        )
    arr = numbers[~missing.to_numpy()]
    if not np.all(np.isfinite(arr)):
        raise InputError(f"column {name!r} holds infinite values: replace or drop them")
    return Column(
        name,
        kind,
        has_missing=bool(missing.any()),
        low=float(arr.min()),
        high=float(arr.max()),
        integer=bool(np.all(arr == np.round(arr))),
    )


def check_column_names(columns: Sequence[Any], **named: Sequence[str]) -> None:
    """Raise one :class:`InputError` for duplicate columns or override lists naming unknown ones
    (``named`` maps the API parameter, e.g. ``categorical``, to the names it lists)."""
    cols = [str(c) for c in columns]
    dup = sorted({c for c in cols if cols.count(c) > 1})
    if dup:
        raise InputError(f"duplicate column names {dup}: rename them so every column is unique")
    for param, names in named.items():
        unknown = [n for n in names if n not in cols]
        if unknown:
            raise InputError(
                f"{param} names unknown column(s) {unknown}: the columns are {', '.join(cols)}"
            )


def column_differences(expected: Sequence[str], actual: Sequence[str]) -> list[str]:
    """What ``actual`` column names lack and add against ``expected``, as message parts
    (empty when they hold the same names)."""
    have, want = {str(c) for c in actual}, {str(c) for c in expected}
    missing = [c for c in expected if str(c) not in have]
    extra = [str(c) for c in actual if str(c) not in want]
    return ([f"missing column(s) {missing}"] if missing else []) + (
        [f"unexpected column(s) {extra}"] if extra else []
    )


def widen(schema: Schema, other: Schema) -> Schema:
    """A schema covering both: union of categories, union of ranges (same columns and kinds).

    Datetime columns in different units are widened to seconds. ``excluded`` is the reference's.
    """
    cols = []
    for a in schema.columns:
        b = other[a.name]
        if a.kind is not b.kind:
            raise InputError(
                f"column {a.name!r} is {a.kind.value} in one dataset and {b.kind.value} in the "
                "other: declare its kind with categorical or continuous"
            )
        if a.is_categorical:
            # a category is its string form, as the encoding matches values to categories
            # (Python's equality would take 1 for True and leave 1 out of the domain)
            have = {str(c) for c in a.categories}
            extra = [c for c in b.categories if str(c) not in have]
            cols.append(
                replace(
                    a,
                    categories=_sorted_categories([*a.categories, *extra]),
                    has_missing=a.has_missing or b.has_missing,
                )
            )
            continue
        if a.is_datetime and a.unit != b.unit:
            a, b = (_in_seconds(c) for c in (a, b))
        cols.append(
            replace(
                a,
                low=min(a.low, b.low),
                high=max(a.high, b.high),
                integer=a.integer and b.integer,
                has_missing=a.has_missing or b.has_missing,
                tz=a.tz or b.tz,
            )
        )
    return Schema(tuple(cols), schema.excluded)


def _in_seconds(col: Column) -> Column:
    f = DATETIME_UNITS[col.unit]
    return replace(col, unit="s", low=col.low * f, high=col.high * f, integer=False)
