"""Profiling the data people bring, before any analysis: column roles, kinds and typed warnings.

:func:`profile_frame` looks at every column of a DataFrame and decides

* its **role**: a *feature* (analysed), an *identifier* (a record number, a code unique to each
  person, the pandas index saved by ``to_csv``) or *free text* (names, titles, addresses).
  Identifiers and free text are excluded from the analysed schema by default: a distance or an
  attack on a per-record code measures the code, not the data (a record number made a
  GaussianCopula release look "SEVERE", distance AUC 0.97), and a categorical with one level per
  record makes every record unique. ``keep`` (and any column named in ``categorical`` or
  ``continuous``) overrides the exclusion. The profile still lists the excluded columns, so a
  verbatim-copy check can test them on the raw frames;
* its **kind** (:class:`~synthleak.data.schema.ColumnKind`), with dates and numbers written as
  text recognised;
* **warnings** (:class:`DataWarning`: a code, the column, a one-line message), never printed here:
  the audit and the report show them.

A column with only missing values stays a feature here; building the schema rejects it
(:func:`~synthleak.data.schema.infer_column`: drop it or fill it).

Rules (``n`` = present values of the column, ``d`` = distinct values; the identifier and text
rules need ``n >= MIN_ROWS_FOR_ROLES``, 20):

Identifiers
    * a column named like a pandas index leftover (``Unnamed: 0``, ``index``, ``level_0``) whose
      values are all distinct;
    * an integer column whose values are all distinct and either monotone (a sequence numbering
      the records) or a permutation of a range (``max - min + 1 == n``);
    * a column whose name has an identifier word (``id``, ``uuid``, ``key``, ``index``,
      ``serial``, ... as a word of the name: ``person_id``, ``PersonID``, ``Person ID``) and
      ``d >= 0.5 n`` (household numbers repeat a few times);
    * a text column with ``d >= 0.95 n`` whose values are short codes (no spaces).
    An integer column with all values distinct and none of these signs is kept, with an
    ``unique_values`` warning (``fnlwgt`` in a sample of Adult is a measurement, not an id).
Free text
    A text column whose values mostly hold spaces or are long (at least half of the distinct
    values contain whitespace, or their median length is at least 20 characters) and that has
    ``d >= 0.5 n`` or more than 1,000 distinct values.
Dates (:data:`DATE_FORMATS`)
    ``datetime64`` columns (Parquet timestamps and dates, time-zone aware or not), columns of
    Python ``date``/``datetime`` objects, and text columns whose every value is an ISO 8601
    date or date-time become ``datetime`` columns.
Numbers written as text
    A text column whose every value is a number and some use comma thousands separators
    (``"1,234"``) is numeric (a ``thousands_separator`` note). A text column of numbers
    interrupted by at most 5 distinct other tokens (``N``, ``refused``, ``?``) while holding at
    least ``max(3, 2 x tokens)`` distinct numbers gets a ``numeric_as_text`` warning naming the
    tokens: read the data again with ``na_values`` set to them. The same holds for dates
    (``dates_as_text``).
High cardinality
    A categorical feature with more than 100 levels and ``d >= 0.05 n`` gets a
    ``high_cardinality`` warning.

Notes
-----
Threat assumptions: excluding a column is a statement that the adversary's view of the release
does not include it (identifiers are not released) or that the analysis cannot use it (free
text). If the synthetic data does publish such a column, keep it (``keep``) and check it for
verbatim copies; the profile names every column it set aside so nothing is dropped silently.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from enum import Enum

import numpy as np
import pandas as pd

from synthleak.data.schema import (
    DEFAULT_MAX_CATEGORIES,
    ColumnKind,
    Schema,
    check_column_names,
    infer_column,
)
from synthleak.data.values import DATE_FORMATS as DATE_FORMATS  # documented here too
from synthleak.data.values import DATE_TEXT, THOUSANDS, parse_datetimes
from synthleak.errors import InputError
from synthleak.serde import Result

MIN_ROWS_FOR_ROLES = 20
"""Identifier and free-text rules need at least this many present values in the column."""
ID_NAMED_UNIQUE_SHARE = 0.5
"""A column named like an identifier is one when at least this share of its values differ."""
ID_CODE_UNIQUE_SHARE = 0.95
"""A text column of short codes is an identifier when at least this share of its values differ."""
TEXT_UNIQUE_SHARE = 0.5
"""Text-like values with at least this share distinct (or over 1,000 levels) are free text."""
TEXT_MIN_LEVELS = 1000
TEXT_MEDIAN_LENGTH = 20
MAX_NA_TOKENS = 5
"""At most this many distinct non-numeric tokens for a ``numeric_as_text`` warning."""
MIN_SHARED = 10
"""A data value appears in a warning's ``message`` only when at least this many records hold it
(it then describes a group, not a person, like a missing-value marker ``?``); rarer values are
only in ``detail``, which is shown when records may be shown (``show_records``)."""
HIGH_CARDINALITY_LEVELS = 100
HIGH_CARDINALITY_SHARE = 0.05

_INDEX_LEFTOVER = re.compile(r"^(Unnamed: \d+|index|level_\d+)$")
_UNNAMED = re.compile(r"^Unnamed: \d+$")
_NAME_WORDS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
ID_WORDS = frozenset(
    {
        "id",
        "ids",
        "uuid",
        "guid",
        "identifier",
        "index",
        "idx",
        "key",
        "pk",
        "serial",
        "serialno",
        "rowid",
        "rownum",
    }
)
"""Words that make a column name look like an identifier (``person_id``, ``PersonID``)."""


class Role(str, Enum):
    """What a column is for the analysis."""

    FEATURE = "feature"
    IDENTIFIER = "identifier"
    TEXT = "text"
    EMPTY = "empty"  # only missing values: nothing to attack, learn or copy


class Level(str, Enum):
    """How much a :class:`DataWarning` matters: a note says what was done, a warning asks the
    user to check something that can change the verdict."""

    NOTE = "note"
    WARNING = "warning"


class WarningCode(str, Enum):
    """Stable codes of :class:`DataWarning` (the report and tests key on them)."""

    IDENTIFIER = "identifier"
    FREE_TEXT = "free_text"
    UNIQUE_VALUES = "unique_values"
    NO_HEADER = "no_header"
    DATETIME = "datetime"
    DATES_AS_TEXT = "dates_as_text"
    NUMERIC_AS_TEXT = "numeric_as_text"
    THOUSANDS_SEPARATOR = "thousands_separator"
    HIGH_CARDINALITY = "high_cardinality"
    CONSTANT = "constant"
    EMPTY = "empty"
    DELIMITER = "delimiter"
    DECIMAL_COMMA = "decimal_comma"
    OUT_OF_DOMAIN = "out_of_domain"
    SPELLING = "spelling"


@dataclass(frozen=True, repr=False)
class DataWarning(Result):
    """One finding about the data.

    Attributes
    ----------
    code : WarningCode
    column : str
        The column it is about (``""`` for the whole file).
    message : str
        One line in plain words, naming API parameters (``keep``, ``na_values``).
    level : Level
    tokens : tuple of str
        The values at stake: tokens to declare missing (``numeric_as_text``), unseen
        categories (``out_of_domain``), ...
    detail : str
        The same line with the data values it is about; empty when ``message`` quotes none it
        leaves out. ``message`` never quotes a value fewer than :data:`MIN_SHARED` records
        hold, so it can be printed and logged by default.
    shared : tuple of str
        The ``tokens`` that at least :data:`MIN_SHARED` records hold (safe to print).
    """

    code: WarningCode
    column: str
    message: str
    level: Level = Level.WARNING
    tokens: tuple[str, ...] = ()
    detail: str = ""
    shared: tuple[str, ...] = ()

    def text(self, show_values: bool = False) -> str:
        """The line to print: with the data values only when ``show_values``."""
        return self.detail if show_values and self.detail else self.message

    def without_values(self) -> DataWarning:
        """The warning without the values fewer than :data:`MIN_SHARED` records hold."""
        return replace(self, tokens=self.shared, detail="")


@dataclass(frozen=True, repr=False)
class ColumnProfile(Result):
    """The profile of one column.

    Attributes
    ----------
    name : str
    role : Role
    kind : ColumnKind or None
        The kind it is analysed with (``None`` for an excluded column).
    dtype : str
        The pandas dtype it was read with.
    n_missing, n_distinct : int
    reason : str
        Why it was excluded, or kept against the rules (empty for plain features).
    """

    name: str
    role: Role
    kind: ColumnKind | None
    dtype: str
    n_missing: int
    n_distinct: int
    reason: str = ""


@dataclass(frozen=True, repr=False)
class DataProfile(Result):
    """Roles, kinds and warnings of a DataFrame (see :func:`profile_frame`).

    Attributes
    ----------
    n_rows : int
    columns : tuple of ColumnProfile
        In the frame's column order.
    warnings : tuple of DataWarning
    read : dict
        How a CSV file was read (``{"delimiter", "decimal"}``), when known.
    """

    n_rows: int
    columns: tuple[ColumnProfile, ...]
    warnings: tuple[DataWarning, ...] = ()
    read: dict[str, str] = field(default_factory=dict)

    def column(self, name: str) -> ColumnProfile:
        for c in self.columns:
            if c.name == name:
                return c
        raise KeyError(name)

    @property
    def features(self) -> list[str]:
        """Analysed columns."""
        return [c.name for c in self.columns if c.role is Role.FEATURE]

    @property
    def identifiers(self) -> list[str]:
        return [c.name for c in self.columns if c.role is Role.IDENTIFIER]

    @property
    def text_columns(self) -> list[str]:
        """Free-text columns (excluded from the analysis; test them for verbatim copies)."""
        return [c.name for c in self.columns if c.role is Role.TEXT]

    @property
    def excluded(self) -> list[str]:
        """Identifier, free-text and empty columns, in column order."""
        return [c.name for c in self.columns if c.role is not Role.FEATURE]

    @property
    def suggested_na_values(self) -> list[str]:
        """Tokens the ``numeric_as_text`` and ``dates_as_text`` warnings suggest as missing."""
        return self._na_tokens(shared_only=False)

    @property
    def shared_na_values(self) -> list[str]:
        """The suggested tokens that at least :data:`MIN_SHARED` records hold (safe to print)."""
        return self._na_tokens(shared_only=True)

    def _na_tokens(self, *, shared_only: bool) -> list[str]:
        out: list[str] = []
        for w in self.warnings:
            if w.code in (WarningCode.NUMERIC_AS_TEXT, WarningCode.DATES_AS_TEXT):
                out += [t for t in (w.shared if shared_only else w.tokens) if t not in out]
        return out

    def warnings_for(self, column: str) -> list[DataWarning]:
        return [w for w in self.warnings if w.column == column]

    def with_warnings(self, warnings: Sequence[DataWarning]) -> DataProfile:
        """The same profile with ``warnings`` appended."""
        return replace(self, warnings=(*self.warnings, *warnings))

    def schema(self, df: pd.DataFrame, *, max_categories: int = DEFAULT_MAX_CATEGORIES) -> Schema:
        """The schema of the features of ``df`` (the frame this profile describes), with the
        identifier, free-text and empty columns in :attr:`Schema.excluded`."""
        if len(df) == 0:
            raise InputError("the data has a header but no rows: give a file with records")
        feats = [c for c in self.columns if c.role is Role.FEATURE]
        if not feats:
            empty = [c.name for c in self.columns if c.role is Role.EMPTY]
            if len(empty) == len(self.columns):
                raise InputError(
                    f"every column has only missing values ({', '.join(empty)}): give a file "
                    "with data (check na_values and the delimiter)"
                )
            raise InputError(
                "every column looks like an identifier, free text or is empty "
                f"({', '.join(self.excluded)}): pass keep with the columns to analyse"
            )
        frame = df.rename(columns=str)
        cols = tuple(
            infer_column(frame[c.name], c.name, c.kind, max_categories=max_categories)
            for c in feats
        )
        return Schema(cols, tuple(self.excluded))


def profile_frame(
    df: pd.DataFrame,
    *,
    keep: Sequence[str] = (),
    categorical: Sequence[str] = (),
    continuous: Sequence[str] = (),
    max_categories: int = DEFAULT_MAX_CATEGORIES,
) -> DataProfile:
    """Profile ``df``: the role and kind of every column, with typed warnings.

    Parameters
    ----------
    df : DataFrame
        As read (:func:`~synthleak.data.io.read_frame` records in ``df.attrs`` how a CSV was
        read; the profile turns a detected separator or decimal comma into notes).
    keep : sequence of str
        Columns analysed even when they look like identifiers or free text.
    categorical, continuous : sequence of str
        Columns forced to that kind (and so analysed). ``continuous`` on a date column gives a
        datetime column.
    max_categories : int
        An integer-valued numeric column with at most this many distinct values is categorical.

    Returns
    -------
    DataProfile

    Raises
    ------
    InputError
        Duplicate column names, or ``keep``/``categorical``/``continuous`` naming unknown
        columns or a column both categorical and continuous.

    Notes
    -----
    Cost: one pass per column over its distinct values (``pd.factorize``), vectorised; memory
    O(rows).
    """
    check_column_names(list(df.columns), keep=keep, categorical=categorical, continuous=continuous)
    both = sorted(set(categorical) & set(continuous))
    if both:
        raise InputError(f"column(s) {both} are declared both categorical and continuous: pick one")
    forced = {**dict.fromkeys(keep, None)}
    forced.update(dict.fromkeys(continuous, ColumnKind.CONTINUOUS))
    forced.update(dict.fromkeys(categorical, ColumnKind.CATEGORICAL))
    warnings: list[DataWarning] = []
    read = {str(k): str(v) for k, v in dict(df.attrs.get("synthleak_read", {}) or {}).items()}
    delim = read.get("delimiter", ",")
    if delim != ",":
        name = {"\t": "tab", ";": "semicolon", "|": "pipe"}.get(delim, repr(delim))
        warnings.append(
            DataWarning(WarningCode.DELIMITER, "", f"read as a {name}-separated file", Level.NOTE)
        )
    if read.get("decimal") == ",":
        warnings.append(
            DataWarning(
                WarningCode.DECIMAL_COMMA,
                "",
                "numbers read with a decimal comma (3,5 is three and a half)",
                Level.NOTE,
            )
        )
    columns = []
    for c in df.columns:
        name = str(c)
        col, found = _profile_column(
            df[c], name, name in forced, forced.get(name), max_categories=max_categories
        )
        columns.append(col)
        warnings += found
    return DataProfile(len(df), tuple(columns), tuple(warnings), read)


def infer_schema(
    df: pd.DataFrame,
    *,
    categorical: Sequence[str] = (),
    continuous: Sequence[str] = (),
    keep: Sequence[str] = (),
    max_categories: int = DEFAULT_MAX_CATEGORIES,
) -> Schema:
    """Infer a :class:`Schema` from a DataFrame.

    The frame is profiled first (:func:`profile_frame`): identifier and free-text columns are
    excluded (listed in :attr:`Schema.excluded`), dates become datetime columns and numbers with
    thousands separators numeric ones. Use :func:`profile_frame` to see why, with its typed
    warnings.

    Parameters
    ----------
    df : DataFrame
    categorical, continuous : sequence of str
        Columns forced to that kind, overriding the rules of :mod:`synthleak.data.schema`
        (a forced column is always analysed).
    keep : sequence of str
        Columns analysed even when they look like identifiers or free text.
    max_categories : int
        An integer-valued numeric column with at most this many distinct values is categorical.

    Returns
    -------
    Schema
    """
    profile = profile_frame(
        df,
        categorical=categorical,
        continuous=continuous,
        keep=keep,
        max_categories=max_categories,
    )
    return profile.schema(df, max_categories=max_categories)


# --- one column -----------------------------------------------------------------------------
def _name_words(name: str) -> set[str]:
    return {w.lower() for w in _NAME_WORDS.findall(name)}


def _looks_like_id_name(name: str) -> bool:
    return bool(_name_words(name) & ID_WORDS)


def _quote(tokens: Sequence[str]) -> str:
    return ", ".join(repr(t) for t in tokens)


def _profile_column(
    s: pd.Series,
    name: str,
    is_forced: bool,
    forced_kind: ColumnKind | None,
    *,
    max_categories: int,
) -> tuple[ColumnProfile, list[DataWarning]]:
    missing = s.isna()
    n_missing = int(missing.sum())
    present = s[~missing]
    n = len(present)
    codes, uniq = pd.factorize(present, use_na_sentinel=True)
    d = len(uniq)
    counts = np.bincount(codes, minlength=d) if d else np.zeros(0, dtype=np.int64)
    out: list[DataWarning] = []
    # --- the kind the column has as a feature -------------------------------------------------
    is_bool = pd.api.types.is_bool_dtype(s)
    is_num = pd.api.types.is_numeric_dtype(s) and not is_bool
    is_cat_dtype = isinstance(s.dtype, pd.CategoricalDtype)
    plain_text = False  # a text column of words or codes (not numbers or dates)
    texts: pd.Series | None = None
    late: list[DataWarning] = []  # warnings that only hold if the column stays a feature
    if pd.api.types.is_datetime64_any_dtype(s) or (
        not (is_num or is_bool or is_cat_dtype)
        and d > 0
        and pd.api.types.infer_dtype(uniq, skipna=True) in ("date", "datetime", "datetime64")
    ):
        detected = ColumnKind.DATETIME
        out.append(
            DataWarning(
                WarningCode.DATETIME,
                name,
                f"column {name!r} holds dates and times: analysed as a continuous datetime",
                Level.NOTE,
            )
        )
    elif is_num:
        detected = _numeric_kind(present, d, max_categories)
    elif is_bool or is_cat_dtype or d == 0:
        detected = ColumnKind.CATEGORICAL
    else:
        texts = pd.Series(uniq, dtype=object).astype(str).str.strip()
        detected, notes, late, plain_text = _text_kind(name, texts, counts, n, max_categories)
        out += notes
    if forced_kind is ColumnKind.CONTINUOUS and detected is ColumnKind.DATETIME:
        kind = ColumnKind.DATETIME
    else:
        kind = forced_kind or detected

    def result(role: Role, reason: str = "") -> ColumnProfile:
        return ColumnProfile(
            name, role, kind if role is Role.FEATURE else None, str(s.dtype), n_missing, d, reason
        )

    if n == 0 and not is_forced:
        out = [
            DataWarning(
                WarningCode.EMPTY,
                name,
                f"column {name!r} has only missing values and is left out of the analysis "
                "(it holds nothing to attack or copy)",
                Level.NOTE,
            )
        ]
        return result(Role.EMPTY, "only missing values"), out

    # --- roles: identifiers and free text -----------------------------------------------------
    role, why = _role(name, present, texts if plain_text else None, is_num, d, n, max_categories)
    if role is not Role.FEATURE:
        code = WarningCode.IDENTIFIER if role is Role.IDENTIFIER else WarningCode.FREE_TEXT
        what = "an identifier" if role is Role.IDENTIFIER else "free text"
        if not is_forced:
            out.append(
                DataWarning(
                    code,
                    name,
                    f"column {name!r} is left out of the attacks as {what} ({why}) and "
                    "checked for verbatim copies only; name it in --keep (keep= in Python) to "
                    "analyse it",
                    Level.NOTE,
                )
            )
            return result(role, why), out
        out.append(
            DataWarning(
                code,
                name,
                f"column {name!r} looks like {what} ({why}) but is analysed as asked",
                Level.NOTE,
            )
        )
    elif why and not is_forced:  # unique integers without the signs of an identifier
        out.append(DataWarning(WarningCode.UNIQUE_VALUES, name, why))

    # --- warnings about a feature --------------------------------------------------------------
    out += late
    if _UNNAMED.match(name):
        out.append(
            DataWarning(
                WarningCode.NO_HEADER,
                name,
                f"column {name!r} has no header in the file: check that it is data",
            )
        )
    if d == 1 and n_missing == 0:
        out.append(
            DataWarning(
                WarningCode.CONSTANT,
                name,
                f"column {name!r} holds a single value: it carries no information",
                Level.NOTE,
            )
        )
    if (
        kind is ColumnKind.CATEGORICAL
        and not late
        and d > HIGH_CARDINALITY_LEVELS
        and d >= HIGH_CARDINALITY_SHARE * n
    ):
        out.append(
            DataWarning(
                WarningCode.HIGH_CARDINALITY,
                name,
                f"column {name!r} is categorical with {d:,} levels for {n:,} records: many "
                "records are unique on it alone; group its values or declare it continuous "
                "if it is a number",
            )
        )
    return result(
        Role.FEATURE, "kept as asked" if is_forced and role is not Role.FEATURE else ""
    ), out


def _role(
    name: str,
    present: pd.Series,
    texts: pd.Series | None,
    is_num: bool,
    d: int,
    n: int,
    max_categories: int,
) -> tuple[Role, str]:
    """The role a column's values and name suggest, with the reason. A feature with a reason is
    a column of distinct integers without the signs of an identifier (a warning)."""
    if n < MIN_ROWS_FOR_ROLES or not (is_num or texts is not None):
        return Role.FEATURE, ""
    share, unique = d / n, d == n
    if _INDEX_LEFTOVER.match(name) and unique:
        return Role.IDENTIFIER, "the row numbers of a saved pandas index"
    named = _looks_like_id_name(name) and share >= ID_NAMED_UNIQUE_SHARE
    if is_num:
        vals = present.to_numpy(dtype=np.float64)
        if not bool(np.all(np.isfinite(vals)) and np.all(vals == np.round(vals))):
            return Role.FEATURE, ""
        if unique:
            diffs = np.diff(vals)
            if bool(np.all(diffs > 0) or np.all(diffs < 0)):
                return Role.IDENTIFIER, "a sequence numbering the records"
            if vals.max() - vals.min() + 1 == n:
                return Role.IDENTIFIER, "the numbers of the records in some order"
        if named:
            return Role.IDENTIFIER, f"its name, and {d:,} distinct values for {n:,} records"
        if unique and d > max_categories:
            return Role.FEATURE, (
                f"column {name!r} has a different value in every record: if it identifies "
                "people, leave it out (it makes every record unique to the attacks); it is "
                "analysed"
            )
        return Role.FEATURE, ""
    assert texts is not None
    spaced = float(texts.str.contains(r"\s", regex=True).mean())
    long_ = float(texts.str.len().median()) >= TEXT_MEDIAN_LENGTH
    if (spaced >= 0.5 or long_) and (share >= TEXT_UNIQUE_SHARE or d > TEXT_MIN_LEVELS):
        return Role.TEXT, f"{d:,} distinct values for {n:,} records, mostly words"
    if share >= ID_CODE_UNIQUE_SHARE:
        return Role.IDENTIFIER, f"a code that differs in {share:.0%} of the records"
    if named:
        return Role.IDENTIFIER, f"its name, and {d:,} distinct values for {n:,} records"
    return Role.FEATURE, ""


def _numeric_kind(present: pd.Series, d: int, max_categories: int) -> ColumnKind:
    vals = present.to_numpy(dtype=np.float64)
    integral = bool(np.all(np.isfinite(vals)) and np.all(vals == np.round(vals)))
    return ColumnKind.CATEGORICAL if integral and d <= max_categories else ColumnKind.CONTINUOUS


def _text_kind(
    name: str, texts: pd.Series, counts: np.ndarray, n: int, max_categories: int
) -> tuple[ColumnKind, list[DataWarning], list[DataWarning], bool]:
    """Kind of a text column from its distinct values (stripped text): dates, numbers or
    categories.

    Returns the kind, notes, warnings that hold only if the column stays a feature, and whether
    the values are plain text (neither numbers nor dates, with or without missing markers), the
    only columns the free-text and code-identifier rules apply to.
    """
    notes: list[DataWarning] = []
    is_date = texts.str.match(DATE_TEXT).to_numpy(dtype=bool)
    if is_date.all() and not parse_datetimes(texts)[2].any():
        timed = texts.str.len().max() > 10
        notes.append(
            DataWarning(
                WarningCode.DATETIME,
                name,
                f"column {name!r} holds ISO 8601 {'date-times' if timed else 'dates'}: "
                "analysed as a continuous datetime",
                Level.NOTE,
            )
        )
        return ColumnKind.DATETIME, notes, [], False
    seps = texts.str.match(THOUSANDS).to_numpy(dtype=bool)
    numeric = pd.to_numeric(texts, errors="coerce").notna().to_numpy() | seps
    d = len(texts)
    if numeric.all():
        if seps.any():
            notes.append(
                DataWarning(
                    WarningCode.THOUSANDS_SEPARATOR,
                    name,
                    f"column {name!r} holds numbers with thousands separators: read as numbers",
                    Level.NOTE,
                    detail=f"column {name!r} holds numbers with thousands separators (such as "
                    f"{texts[seps].iloc[0]!r}): read as numbers",
                )
            )
            vals = pd.to_numeric(texts.str.replace(",", "", regex=False), errors="coerce")
            integral = bool((vals == vals.round()).all())
            kind = (
                ColumnKind.CATEGORICAL
                if integral and d <= max_categories
                else ColumnKind.CONTINUOUS
            )
            return kind, notes, [], False
        late = []
        if d > max_categories:
            late.append(
                DataWarning(
                    WarningCode.NUMERIC_AS_TEXT,
                    name,
                    f"column {name!r} holds {d:,} distinct numbers stored as text: they are "
                    "analysed as categories; declare the column continuous to analyse them "
                    "as numbers",
                )
            )
        return ColumnKind.CATEGORICAL, notes, late, False
    for mask, code, what in (
        (numeric, WarningCode.NUMERIC_AS_TEXT, "numbers"),
        (is_date, WarningCode.DATES_AS_TEXT, "dates"),
    ):
        other = ~mask
        if _interrupted(mask):
            order = np.argsort(-counts[other], kind="stable")
            tokens = tuple(texts[other].iloc[order].tolist())
            held = counts[other][order]
            shared = tuple(t for t, c in zip(tokens, held, strict=True) if c >= MIN_SHARED)
            share = counts[other].sum() / max(n, 1)
            tail = (
                f"({share:.0%} of the values), so it is analysed as {d:,} categories: if these "
                "mark missing values, pass them in na_values"
            )
            detail = f"column {name!r} holds {what} except for {_quote(tokens)} {tail}"
            rare = len(tokens) - len(shared)
            if rare:
                held_by = f"{rare} other value(s) held by fewer than {MIN_SHARED} records each"
                listed = f"{_quote(shared)} and {held_by}" if shared else held_by
                message = f"column {name!r} holds {what} except for {listed} {tail}"
            else:
                message = detail
            warn = DataWarning(code, name, message, tokens=tokens, detail=detail, shared=shared)
            return ColumnKind.CATEGORICAL, notes, [warn], False
    return ColumnKind.CATEGORICAL, notes, [], True


def _interrupted(mask: np.ndarray) -> bool:
    """Distinct values that are numbers (or dates) where ``mask``, interrupted by at most
    :data:`MAX_NA_TOKENS` other values and holding at least ``max(3, 2 x others)`` numbers: the
    others are typos or undeclared codes, not the column's categories."""
    n_other = int((~mask).sum())
    return 1 <= n_other <= MAX_NA_TOKENS and int(mask.sum()) >= max(3, 2 * n_other)


MAX_ROWS_NAMED = 3
"""An error about stray values names at most this many of the rows holding them."""


def check_stray_values(df: pd.DataFrame, data: str, *, exempt: Sequence[str] = ()) -> None:
    """Stop on the first column of ``df`` that holds numbers (or ISO dates) written as text
    except for a few other values: a typo or an undeclared missing or special code.

    The rule is the ``numeric_as_text`` / ``dates_as_text`` rule of :func:`profile_frame` (at
    most :data:`MAX_NA_TOKENS` other distinct values among at least ``max(3, 2 x others)``
    numbers), applied the same way to every file an analysis reads (original, synthetic,
    control, auxiliary): a column that one file holds as numbers must not become categories, or
    fail later, because of one stray cell. Columns in ``exempt`` (declared categorical, or with
    declared special values) are not checked; numeric and datetime dtypes cannot hold strays.

    Parameters
    ----------
    df : DataFrame
    data : str
        The file or part the frame is, as the error names it (``"the synthetic data (s.csv)"``).
    exempt : sequence of str
        Columns not checked.

    Raises
    ------
    InputError
        Naming the data, the column, how many records hold the stray values, the first rows
        (0-based) and what to pass: ``na_values`` (missing), ``special_values`` (a code kept as
        its own value) or ``categorical``. A value is quoted only when at least
        :data:`MIN_SHARED` records hold it (a shared marker, not a person's value).
    """
    skip = set(map(str, exempt))
    for c in df.columns:
        name = str(c)
        s = df[c]
        if name in skip or not (
            pd.api.types.is_object_dtype(s.dtype)
            or isinstance(s.dtype, pd.StringDtype | pd.CategoricalDtype)
        ):
            continue
        codes, uniq = pd.factorize(s.astype(object), use_na_sentinel=True)
        if len(uniq) == 0:
            continue
        texts = pd.Series(uniq, dtype=object).astype(str).str.strip()
        numeric = pd.to_numeric(texts, errors="coerce").notna().to_numpy()
        numeric |= texts.str.match(THOUSANDS).to_numpy(dtype=bool)
        is_date = texts.str.match(DATE_TEXT).to_numpy(dtype=bool)
        for mask, what in ((numeric, "numbers"), (is_date, "ISO dates")):
            if not _interrupted(mask):
                continue
            counts = np.bincount(codes[codes >= 0], minlength=len(uniq))
            stray = np.flatnonzero(~mask)
            cells = np.isin(codes, stray)
            rows = np.flatnonzero(cells)[:MAX_ROWS_NAMED].tolist()
            n_cells = int(cells.sum())
            shared = [texts.iloc[i] for i in stray if counts[i] >= MIN_SHARED]
            which = (
                f"{len(stray)} other value(s) ({_quote(shared)}"
                + (
                    f" and values held by fewer than {MIN_SHARED} records"
                    if len(shared) < len(stray)
                    else ""
                )
                + ")"
                if shared
                else f"{len(stray)} other value(s)"
            )
            where = ", ".join(map(str, rows)) + (", ..." if n_cells > len(rows) else "")
            raise InputError(
                f"{data}: column {name!r} holds {what} except for {which} in {n_cells:,} "
                f"record(s) (row(s) {where}, 0-based), most likely a typo or an undeclared "
                "code: mark the value missing with na_values, keep it as its own value with "
                "special_values, or declare the column categorical"
            )
