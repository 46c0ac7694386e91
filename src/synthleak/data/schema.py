"""Column kinds, the :class:`Schema` and its inference rules.

Inference rules (each overridable with ``categorical=``/``continuous=`` or a schema file):

1. ``bool``, ``object``, ``string`` and ``category`` columns are **categorical**.
2. Numeric columns whose non-missing values are all integers and that take at most
   ``max_categories`` (default 15) distinct values are **categorical** (codes such as the UK
   Census variables); every other numeric column is **continuous** (Adult ``age``, ``fnlwgt``,
   ``education-num`` with 16 values, ...).
3. A column whose every value is missing is an error: there is nothing to learn from it.

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

import json
import math
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from enum import Enum
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from synthleak.errors import InputError

DEFAULT_MAX_CATEGORIES = 15
SCHEMA_VERSION = 1


class ColumnKind(str, Enum):
    """Kind of a column."""

    CATEGORICAL = "categorical"
    CONTINUOUS = "continuous"


def _json_value(v: Any) -> Any:
    """A category value as a plain JSON value (numpy scalars become Python ones)."""
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
        Continuous only: the range used for min-max scaling and discretisation.
    integer : bool
        Continuous only: values are whole numbers (generators round their output).
    """

    name: str
    kind: ColumnKind
    categories: tuple[Any, ...] = ()
    has_missing: bool = False
    low: float = 0.0
    high: float = 1.0
    integer: bool = False

    @property
    def is_categorical(self) -> bool:
        return self.kind is ColumnKind.CATEGORICAL

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
                "('categorical' or 'continuous')"
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


@dataclass(frozen=True)
class Schema:
    """Ordered columns of a tabular dataset."""

    columns: tuple[Column, ...]
    _index: dict[str, int] = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        names = [c.name for c in self.columns]
        dup = sorted({n for n in names if names.count(n) > 1})
        if dup:
            raise InputError(f"duplicate column names {dup}: rename them so every column is unique")
        if not names:
            raise InputError("the schema has no columns: the data needs at least one column")
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

    def position(self, name: str) -> tuple[ColumnKind, int]:
        """Kind of column ``name`` and its index among the columns of that kind."""
        col = self[name]
        group = self.categorical_names if col.is_categorical else self.continuous_names
        return col.kind, group.index(name)

    def select(self, names: Sequence[str]) -> Schema:
        """A schema with only ``names``, in that order."""
        return Schema(tuple(self[n] for n in names))

    def replace_column(self, column: Column) -> Schema:
        return Schema(tuple(column if c.name == column.name else c for c in self.columns))

    # --- JSON -------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        return {"version": SCHEMA_VERSION, "columns": [c.to_dict() for c in self.columns]}

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
        return cls(tuple(Column.from_dict(c) for c in cols))

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


def infer_column(
    s: pd.Series,
    name: str,
    kind: ColumnKind | None = None,
    *,
    max_categories: int = DEFAULT_MAX_CATEGORIES,
) -> Column:
    """Infer one column (see the module docstring for the rules)."""
    missing = _is_missing(s)
    present = s[~missing]
    if present.empty:
        raise InputError(
            f"column {name!r} has only missing values: drop it or fill it before auditing"
        )
    numeric = pd.api.types.is_numeric_dtype(s) and not pd.api.types.is_bool_dtype(s)
    if kind is None:
        if numeric:
            vals = present.to_numpy(dtype=float)
            integral = bool(np.all(np.isfinite(vals)) and np.all(vals == np.round(vals)))
            kind = (
                ColumnKind.CATEGORICAL
                if integral and present.nunique() <= max_categories
                else ColumnKind.CONTINUOUS
            )
        else:
            kind = ColumnKind.CATEGORICAL
    if kind is ColumnKind.CATEGORICAL:
        return Column(
            name,
            kind,
            categories=_sorted_categories(present.unique()),
            has_missing=bool(missing.any()),
        )
    numbers = pd.Series(pd.to_numeric(present, errors="coerce"), index=present.index)
    bad = present[numbers.isna()]
    if not bad.empty:
        raise InputError(
            f"column {name!r} is continuous but holds non-numeric values such as {bad.iloc[0]!r}: "
            "declare it --categorical or mark the value with --na-values"
        )
    arr = numbers.to_numpy(dtype=float)
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


def infer_schema(
    df: pd.DataFrame,
    *,
    categorical: Sequence[str] = (),
    continuous: Sequence[str] = (),
    max_categories: int = DEFAULT_MAX_CATEGORIES,
) -> Schema:
    """Infer a :class:`Schema` from a DataFrame.

    Parameters
    ----------
    df : DataFrame
    categorical, continuous : sequence of str
        Columns forced to that kind, overriding the rules of :mod:`synthleak.data.schema`.
    max_categories : int
        An integer-valued numeric column with at most this many distinct values is categorical.

    Returns
    -------
    Schema
    """
    cols = [str(c) for c in df.columns]
    dup = sorted({c for c in cols if cols.count(c) > 1})
    if dup:
        raise InputError(f"duplicate column names {dup}: rename them so every column is unique")
    for opt, names in (("--categorical", categorical), ("--continuous", continuous)):
        unknown = [n for n in names if n not in cols]
        if unknown:
            raise InputError(
                f"{opt} names unknown column(s) {unknown}: the columns are {', '.join(cols)}"
            )
    both = sorted(set(categorical) & set(continuous))
    if both:
        raise InputError(f"column(s) {both} are declared both categorical and continuous: pick one")
    if len(df) == 0:
        raise InputError("the data has a header but no rows: give a file with records")
    out = []
    for c in df.columns:
        name = str(c)
        kind = (
            ColumnKind.CATEGORICAL
            if name in categorical
            else ColumnKind.CONTINUOUS
            if name in continuous
            else None
        )
        out.append(infer_column(df[c], name, kind, max_categories=max_categories))
    return Schema(tuple(out))


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
    """A schema covering both: union of categories, union of ranges (same columns and kinds)."""
    cols = []
    for a in schema.columns:
        b = other[a.name]
        if a.kind is not b.kind:
            raise InputError(
                f"column {a.name!r} is {a.kind.value} in one dataset and {b.kind.value} in the other: "
                "declare its kind with --categorical or --continuous"
            )
        if a.is_categorical:
            extra = [c for c in b.categories if c not in set(a.categories)]
            cols.append(
                replace(
                    a,
                    categories=_sorted_categories([*a.categories, *extra]),
                    has_missing=a.has_missing or b.has_missing,
                )
            )
        else:
            cols.append(
                replace(
                    a,
                    low=min(a.low, b.low),
                    high=max(a.high, b.high),
                    integer=a.integer and b.integer,
                    has_missing=a.has_missing or b.has_missing,
                )
            )
    return Schema(tuple(cols))
