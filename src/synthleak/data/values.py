"""Values of cells: the one home of parsing numbers and dates and of datetime arithmetic.

Every layer that turns cells into numbers goes through this module: schema inference
(:mod:`synthleak.data.schema`), profiling (:mod:`synthleak.data.profile`), encoding
(:meth:`Table.from_frame <synthleak.data.table.Table.from_frame>`) and the domain check. It imports
nothing else from the package but :mod:`synthleak.errors`; a column is read through its
``kind``/``unit``/``tz`` attributes. Declared special codes of numeric columns are split off
here too (:func:`split_special`).
"""

from __future__ import annotations

import datetime as _dt
import re
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

if TYPE_CHECKING:
    from synthleak.data.schema import Column

DATE_FORMATS = (
    "YYYY-MM-DD",
    "YYYY-MM-DD hh:mm",
    "YYYY-MM-DD hh:mm:ss[.ffffff]",
    "YYYY-MM-DDThh:mm[:ss[.ffffff]]",
    "any of these with a Z or +hh:mm / -hh:mm offset",
    "YYYY/MM/DD in place of YYYY-MM-DD",
)
"""Date and time text read as dates (ISO 8601; two-digit month and day)."""

DATE_TEXT = re.compile(
    r"^\d{4}([-/])\d{2}\1\d{2}"
    r"([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?)?"
    r"(Z|[+-]\d{2}:?\d{2})?$"
)
"""Text in one of the :data:`DATE_FORMATS`."""

DATETIME_UNITS = {"D": 86_400.0, "s": 1.0}
"""Units of datetime columns, in seconds: days or seconds since 1970-01-01 (UTC)."""
EPOCH = np.datetime64(0, "s")
"""1970-01-01T00:00 UTC, the origin of datetime values."""

THOUSANDS = re.compile(r"^[-+]?\d{1,3}(,\d{3})+(\.\d+)?$")
"""A number written with comma thousands separators (``"1,234"``, ``"-12,345.5"``)."""


def canonical_datetime(value: Any) -> str:
    """A timestamp as text: ``YYYY-MM-DD`` at midnight without zone, else ISO 8601."""
    ts = pd.Timestamp(value)
    if ts.tzinfo is None and ts == ts.normalize():
        return ts.strftime("%Y-%m-%d")
    return ts.isoformat()


def parse_numbers(s: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """Numbers of a column: ``(values, bad)``, float64 with NaN for missing and unparseable cells,
    and the mask of present cells that are not numbers.

    Text is parsed with ``pd.to_numeric``; a value with comma thousands separators
    (``"1,234"``, ``"-12,345.5"``) is read as its number. Booleans are not numbers here.
    """
    if pd.api.types.is_bool_dtype(s):
        vals = np.full(len(s), np.nan)
        return vals, s.notna().to_numpy()
    if pd.api.types.is_numeric_dtype(s):
        return s.to_numpy(dtype=np.float64, na_value=np.nan), np.zeros(len(s), dtype=bool)
    present = s.notna().to_numpy()
    codes, uniq = pd.factorize(s.astype(object), use_na_sentinel=True)
    texts = pd.Series([str(u).strip() for u in uniq], dtype=object)
    nums = pd.to_numeric(texts, errors="coerce")
    sep = texts.str.match(THOUSANDS) & nums.isna()
    if sep.any():
        nums[sep] = pd.to_numeric(texts[sep].str.replace(",", "", regex=False), errors="coerce")
    is_bool = np.array([isinstance(u, bool | np.bool_) for u in uniq], dtype=bool)
    lut = np.append(nums.to_numpy(dtype=np.float64), np.nan)
    lut[:-1][is_bool] = np.nan
    vals = lut[np.where(codes < 0, len(uniq), codes)]
    return vals, present & np.isnan(vals)


def parse_datetimes(s: pd.Series) -> tuple[pd.Series, str, np.ndarray]:
    """Datetimes of a column: ``(values, tz, bad)``.

    ``values`` is a naive ``datetime64`` Series in UTC (``NaT`` for missing and unparseable
    cells), ``tz`` the time zone of time-zone aware input (``""`` otherwise) and ``bad`` the mask
    of present cells that are not datetimes. Text is read as ISO 8601 (see
    :data:`DATE_FORMATS`); ``YYYY/MM/DD`` is read as ``YYYY-MM-DD``.
    Python ``date``/``datetime`` objects and ``pd.Timestamp`` are taken as they are.
    """
    tz = ""
    if isinstance(s.dtype, pd.DatetimeTZDtype):
        tz = str(s.dtype.tz)
        out = s.dt.tz_convert("UTC").dt.tz_localize(None)
    elif pd.api.types.is_datetime64_dtype(s):
        out = s
    else:
        obj = s.astype(object)
        codes, uniq = pd.factorize(obj, use_na_sentinel=True)
        parsed, aware = _parse_datetime_values(list(uniq))
        lut = np.append(parsed.to_numpy(dtype="datetime64[ns]"), np.datetime64("NaT", "ns"))
        out = pd.Series(lut[np.where(codes < 0, len(uniq), codes)], index=s.index)
        if aware:
            tz = "UTC"
    bad = s.notna().to_numpy() & out.isna().to_numpy()
    return out, tz, bad


def _parse_datetime_values(values: list[Any]) -> tuple[pd.DatetimeIndex, bool]:
    """Naive UTC datetimes of distinct values (NaT where a value is not a datetime), and whether
    any value carried a time zone or an offset."""
    ser = pd.Series(values, dtype=object)
    if pd.api.types.infer_dtype(ser, skipna=True) == "string":
        texts = ser.str.strip()
        slash = (texts.str.slice(4, 5) == "/").to_numpy(dtype=bool)
        if slash.any():
            texts[slash] = texts[slash].str.replace(_SLASH_DATE, r"\1-\2-\3", regex=True)
        aware = bool(texts.str.contains(_TZ_SUFFIX, regex=True).any())
    else:
        texts = pd.Series(
            [
                pd.Timestamp(v).isoformat()
                if isinstance(v, _dt.datetime | _dt.date | np.datetime64)
                else _SLASH_DATE.sub(r"\1-\2-\3", v.strip())
                if isinstance(v, str)
                else ""
                for v in values
            ],
            dtype=object,
        )
        aware = any(getattr(v, "tzinfo", None) is not None for v in values) or bool(
            texts.str.contains(_TZ_SUFFIX, regex=True).any()
        )
    # values with and without an offset are parsed apart: in one call pandas' ISO 8601 parser
    # (2.x) reads a value without an offset at the offset of the value before it
    offset = texts.str.contains(_TZ_SUFFIX, regex=True).to_numpy(dtype=bool)
    parts = [
        pd.to_datetime(texts[mask], format="ISO8601", errors="coerce", utc=True)
        for mask in (offset, ~offset)
        if mask.any()
    ]
    parsed = pd.concat(parts).reindex(texts.index) if len(parts) > 1 else parts[0]
    return pd.DatetimeIndex(parsed.dt.tz_localize(None)), aware


_SLASH_DATE = re.compile(r"^(\d{4})/(\d{2})/(\d{2})")
_TZ_SUFFIX = re.compile(r"[T ]\d{2}:\d{2}(?::[\d.]+)?(?:Z|[+-]\d{2}:?\d{2})$")


def datetimes_to_numbers(values: pd.Series, unit: str) -> np.ndarray:
    """Naive UTC datetimes as float64 ``unit`` since 1970-01-01 (NaN for ``NaT``)."""
    arr = values.to_numpy(dtype="datetime64[ns]")
    seconds = (arr - EPOCH.astype("datetime64[ns]")) / np.timedelta64(1, "s")
    return np.asarray(seconds, dtype=np.float64) / DATETIME_UNITS[unit]


def numbers_to_datetimes(values: np.ndarray, col: Column) -> pd.DatetimeIndex:
    """The inverse of :func:`datetimes_to_numbers` for column ``col`` (aware when ``col.tz``)."""
    v = np.asarray(values, dtype=np.float64) * DATETIME_UNITS[col.unit or "s"]
    if col.unit == "D":
        v = np.round(v)
    missing = np.isnan(v)
    stamps = (np.where(missing, 0, np.round(v * 1e6)).astype(np.int64) * 1000).astype(
        "datetime64[ns]"
    )
    stamps[missing] = np.datetime64("NaT")
    out = pd.DatetimeIndex(stamps)
    if col.tz:
        out = out.tz_localize("UTC").tz_convert(col.tz)
    return out


def column_numbers(s: pd.Series, col: Column) -> tuple[np.ndarray, np.ndarray]:
    """The values of a continuous or datetime column ``col`` as float64 numbers in the column's
    units, and the mask of present cells that are not numbers (datetime: not datetimes).

    The one converter from cells to :attr:`Table.values <synthleak.data.table.Table.values>`:
    :meth:`Table.from_frame <synthleak.data.table.Table.from_frame>` uses it, and so should any
    code reading a generator's output frame (datetime columns come back as ``datetime64`` or
    ISO text, not numbers).
    """
    if col.is_categorical:
        raise TypeError(f"column {col.name!r} is categorical: it has codes, not numbers")
    if col.is_datetime:
        when, _, bad = parse_datetimes(s)
        return datetimes_to_numbers(when, col.unit or "s"), bad
    return parse_numbers(s)


SPECIAL_SUFFIX = " (special)"
"""Name suffix of the categorical column holding a numeric column's declared special codes."""


def parse_special_values(given: Any) -> dict[str, tuple[str, ...]]:
    """Declared special codes by column: from ``{"col": [-8, -9]}`` or specs ``"col=-8,-9"``
    (several specs of one column add up). Codes are kept as text."""
    from synthleak.errors import InputError

    if not given:
        return {}
    items: list[tuple[str, Any]]
    if isinstance(given, dict):
        items = list(given.items())
    else:
        if isinstance(given, str):
            given = [given]
        items = []
        for spec in given:
            col, sep, codes = str(spec).partition("=")
            if not sep or not col.strip() or not codes.strip():
                raise InputError(
                    f"special_values {spec!r}: write COLUMN=CODE[,CODE...], e.g. age=-8,-9"
                )
            items.append((col.strip(), codes.split(",")))
    out: dict[str, tuple[str, ...]] = {}
    for col, given_codes in items:
        listed: list[Any] = (
            [given_codes] if isinstance(given_codes, str | int | float) else list(given_codes)
        )
        texts = tuple(dict.fromkeys(str(c).strip() for c in listed if str(c).strip()))
        if not texts:
            raise InputError(f"special_values for column {col!r} lists no code")
        out[str(col)] = tuple(dict.fromkeys((*out.get(str(col), ()), *texts)))
    return out


def special_specs(special: dict[str, tuple[str, ...]]) -> tuple[str, ...]:
    """:func:`parse_special_values` inverted: one ``"col=code,code"`` spec per column."""
    return tuple(f"{col}={','.join(codes)}" for col, codes in special.items())


def split_special(df: pd.DataFrame, special: dict[str, tuple[str, ...]]) -> pd.DataFrame:
    """``df`` with each declared special code taken out of its numeric column.

    A cell holding a declared code (compared as a number when both are numbers, else as text)
    becomes missing in its column, and the code goes to a categorical column named
    ``"<column> (special)"`` placed right after it, missing where the column holds a number.
    Generators then model the codes as categories beside the numbers (a -8 "not applicable"
    cannot turn into -6 or -1), and attacks and copy checks see the code as a value of its own.
    Every declared column gets its special column, in every frame (all missing where no cell
    holds a code), so all parts keep the same columns. :func:`join_special` undoes it.
    """
    from synthleak.errors import InputError

    if not special:
        return df
    cols = [str(c) for c in df.columns]
    wanted = dict(special)
    unknown = [c for c in wanted if c not in cols]
    if unknown:
        raise InputError(
            f"special_values names unknown column(s) {unknown}: the columns are {', '.join(cols)}"
        )
    out: dict[Any, pd.Series] = {}
    for c in df.columns:
        name, s = str(c), df[c]
        if name not in wanted:
            out[c] = s
            continue
        hit = _special_cells(s, wanted[name])
        extra = name + SPECIAL_SUFFIX
        if extra in cols:
            raise InputError(
                f"column {extra!r} exists already: rename it to declare special_values of {name!r}"
            )
        text = s.astype(object).map(lambda v: str(v).strip())
        out[c] = s.mask(hit)
        if not pd.api.types.is_numeric_dtype(out[c]):
            nums, _ = parse_numbers(out[c])
            if not np.isnan(nums[~hit & s.notna().to_numpy()]).any():
                out[c] = pd.Series(nums, index=s.index, name=c)
        special_codes = np.full(len(s), None, dtype=object)
        special_codes[hit] = [_canonical_code(t) for t in text[hit]]
        out[extra] = pd.Series(special_codes, index=s.index)
    res = pd.DataFrame(out, index=df.index)
    res.attrs = dict(df.attrs)
    return res


def _canonical_code(text: str) -> str:
    """``-8.0`` and ``-8`` as one code (``"-8"``); text codes as they are."""
    num = pd.to_numeric(pd.Series([text]), errors="coerce").iloc[0]
    return str(int(num)) if pd.notna(num) and float(num).is_integer() else text


def _special_cells(s: pd.Series, codes: tuple[str, ...]) -> np.ndarray:
    nums, _ = parse_numbers(s)
    text = s.astype(object).map(lambda v: str(v).strip()).to_numpy(dtype=object)
    hit = np.zeros(len(s), dtype=bool)
    for code in codes:
        value = pd.to_numeric(pd.Series([code]), errors="coerce").iloc[0]
        hit |= text == code
        if pd.notna(value):
            hit |= nums == float(value)
    return hit & s.notna().to_numpy()


def join_special(df: pd.DataFrame) -> pd.DataFrame:
    """:func:`split_special` undone: each ``"<column> (special)"`` column's codes written back
    into its column (a code wins over a number in the same record) and the column dropped."""
    extras = [c for c in df.columns if str(c).endswith(SPECIAL_SUFFIX)]
    if not extras:
        return df
    out = df.copy()
    for extra in extras:
        base = str(extra)[: -len(SPECIAL_SUFFIX)]
        if base not in out.columns:
            continue
        code = out[extra]
        has = code.notna().to_numpy()
        if has.any():
            numeric = pd.to_numeric(code[has], errors="coerce")
            values = numeric if numeric.notna().all() else code[has]
            out[base] = out[base].astype(object)
            out.loc[has, base] = values.to_numpy()
        out = out.drop(columns=[extra])
    return out
