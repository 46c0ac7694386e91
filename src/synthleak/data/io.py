"""Reading user data: CSV, CSV.GZ, Parquet and the bundled ``adult``.

:func:`load_data` is the single entry point the CLI and :func:`synthleak.audit` use. It validates
the input (missing/empty file, header only, duplicate columns, unknown override columns, ...) and
raises :class:`~synthleak.errors.InputError` with a message that says what to do.
"""

from __future__ import annotations

import csv
import gzip
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from synthleak.data.domain import DomainReport, domain_report
from synthleak.data.profile import DataProfile, DataWarning, check_stray_values, profile_frame
from synthleak.data.schema import (
    DEFAULT_MAX_CATEGORIES,
    Schema,
    column_differences,
    infer_column,
    widen,
)
from synthleak.data.table import Table
from synthleak.data.values import parse_special_values, split_special
from synthleak.errors import InputError

#: Bundled dataset names a data argument may give, with their ``load_adult`` options.
BUNDLED = {"adult": {"complete_cases": False}, "adult-complete": {"complete_cases": True}}


#: Field separators :func:`read_frame` recognises, in order of preference on ties.
DELIMITERS = (",", ";", "\t", "|")
_SAMPLE_BYTES = 1 << 16
_SAMPLE_LINES = 200
#: Key of ``DataFrame.attrs`` where :func:`read_frame` records how it read a CSV file.
READ_ATTRS = "synthleak_read"
#: Key of ``DataFrame.attrs`` where :func:`read_frame` records the path it read (for errors).
SOURCE_ATTRS = "synthleak_source"

_DECIMAL_COMMA = re.compile(r"^[-+]?\d+,\d+$")
_DECIMAL_POINT = re.compile(r"^[-+]?\d*\.\d+$")


def _open_text(path: Path) -> Any:
    if path.name.lower().endswith(".gz"):
        return gzip.open(path, "rt", newline="", encoding="utf-8-sig", errors="replace")
    return open(path, newline="", encoding="utf-8-sig", errors="replace")


def _sample_lines(path: Path) -> list[str]:
    """The first lines of a text file (at most 64 KiB; a cut last line is dropped)."""
    try:
        with _open_text(path) as fh:
            text = fh.read(_SAMPLE_BYTES)
            complete = len(text) < _SAMPLE_BYTES
    except (OSError, EOFError, UnicodeDecodeError) as exc:
        raise InputError(
            f"cannot read {path} as CSV ({exc}): give a CSV, CSV.GZ or Parquet file"
        ) from exc
    lines = text.splitlines(keepends=True)
    if not complete and len(lines) > 1:
        lines = lines[:-1]
    return [ln for ln in lines[:_SAMPLE_LINES] if ln.strip()]


def _field_counts(lines: list[str], delimiter: str) -> list[int]:
    try:
        return [len(row) for row in csv.reader(lines, delimiter=delimiter) if row]
    except csv.Error:
        return []


def sniff_delimiter(lines: Sequence[str]) -> str | None:
    """The separator of CSV text from its first lines, or ``None`` when no candidate fits.

    A candidate of :data:`DELIMITERS` fits when it splits the header into more than one field and
    at least 90% of the sampled rows into as many fields as the header (quoted fields are
    respected). Among fitting candidates the one giving the most fields wins; ties go to the
    earlier candidate (comma first). A file with one column has no separator to find: the result
    is then ``None`` and the file is read as comma-separated.
    """
    lines = list(lines)
    best: tuple[int, int] | None = None
    chosen = None
    for rank, delim in enumerate(DELIMITERS):
        counts = _field_counts(lines, delim)
        if not counts or counts[0] < 2:
            continue
        agree = sum(c == counts[0] for c in counts) / len(counts)
        if agree < 0.9:
            continue
        score = (counts[0], -rank)
        if best is None or score > best:
            best, chosen = score, delim
    return chosen


def _decimal_comma(lines: list[str], delimiter: str) -> bool:
    """Numbers in the sample are written with a decimal comma (and none with a point)."""
    if delimiter == ",":
        return False
    commas = points = 0
    for row in csv.reader(lines[1:], delimiter=delimiter):
        for cell in row:
            cell = cell.strip()
            commas += bool(_DECIMAL_COMMA.match(cell))
            points += bool(_DECIMAL_POINT.match(cell))
    return commas > 0 and points == 0


def _describe(delimiter: str) -> str:
    return {"\t": "tab", ",": "comma", ";": "semicolon", "|": "pipe"}.get(
        delimiter, repr(delimiter)
    )


def read_frame(
    source: str | Path,
    *,
    na_values: Sequence[str] = (),
    delimiter: str | None = None,
    decimal: str | None = None,
) -> pd.DataFrame:
    """Read a DataFrame from a path or a bundled dataset name.

    Parameters
    ----------
    source : str or Path
        ``*.csv``, ``*.csv.gz``, ``*.tsv`` (any other name is read as CSV), ``*.parquet``/``*.pq``,
        a directory of Parquet parts (read in name order),
        or ``adult`` for the bundled UCI Adult (``adult-complete``: its 45,222 rows without a
        missing value, the Adult of the membership experiments of Meeus et al. (2023)).
    na_values : sequence of str
        Extra strings read as missing (empty cells are always missing).
    delimiter : str, optional
        Field separator of a CSV file. By default it is detected among comma, semicolon, tab and
        pipe (:func:`sniff_delimiter`).
    decimal : str, optional
        Decimal mark of a CSV file. By default ``","`` when the separator is not a comma and the
        numbers of the first lines are written with a decimal comma (``3,5``) and none with a
        point, else ``"."``.

    Returns
    -------
    DataFrame
        For CSV files, ``df.attrs["synthleak_read"]`` records ``{"delimiter", "decimal"}`` as
        used, so :func:`~synthleak.data.profile.profile_frame` can note a detected separator or
        decimal comma.

    Raises
    ------
    InputError
        Missing, empty or unreadable file; duplicate column names; a file that reads as one
        column although its header holds separators.
    """
    if str(source) in BUNDLED:
        from synthleak.data.datasets import load_adult

        return load_adult(**BUNDLED[str(source)])
    path = check_source(source)
    if path.is_dir():
        df = _read_parquet_parts(path)
        if na_values:
            df = df.replace(list(na_values), pd.NA)
    elif path.suffix.lower() in (".parquet", ".pq"):
        try:
            df = pd.read_parquet(path)
        except Exception as exc:
            raise InputError(f"cannot read {path} as Parquet ({exc})") from exc
        if na_values:
            df = df.replace(list(na_values), pd.NA)
    else:
        df = _read_csv(path, na_values=na_values, delimiter=delimiter, decimal=decimal)
    if len(df.columns) == 0:
        raise InputError(f"data file {path} has no columns: give a file with a header row")
    if len(df) == 0:
        raise InputError(f"data file {path} has a header but no rows: give a file with records")
    df.attrs[SOURCE_ATTRS] = str(path)
    return df


def data_label(name: str, df: pd.DataFrame | None = None) -> str:
    """How an error names a part: ``the synthetic data (path)`` when ``df`` was read from a
    file (:func:`read_frame`), else ``the synthetic data``."""
    source = df.attrs.get(SOURCE_ATTRS) if df is not None else None
    return f"the {name} data ({source})" if source else f"the {name} data"


def _categorical_names(schema: Schema | str | Path | None, categorical: Sequence[str]) -> list[str]:
    """Columns declared categorical, by ``categorical`` or a given schema."""
    if schema is None:
        return list(categorical)
    sch = schema if isinstance(schema, Schema) else Schema.from_json(schema)
    return [*sch.categorical_names, *sch.excluded]


def check_source(source: str | Path) -> Path:
    """The path of a data argument that names a file or directory, checked before any reading
    (so that several arguments fail on a missing or empty file before the others are read).

    Raises
    ------
    InputError
        The path does not exist, or is an empty file.
    """
    path = Path(source)
    if str(source) in BUNDLED:
        return path
    if not path.exists():
        raise InputError(f"data file {path} does not exist: check the path (or use 'adult')")
    if path.is_file() and path.stat().st_size == 0:
        raise InputError(f"data file {path} is empty: give a file with a header and records")
    return path


def _read_parquet_parts(path: Path) -> pd.DataFrame:
    """The Parquet parts of directory ``path`` (``*.parquet``/``*.pq``, in name order) as one
    frame, read part by part (as a partitioned writer such as Dask or Spark leaves them)."""
    parts = sorted(
        p for p in path.iterdir() if p.is_file() and p.suffix.lower() in (".parquet", ".pq")
    )
    if not parts:
        raise InputError(
            f"{path} is a directory with no Parquet parts: give a CSV, CSV.GZ or Parquet file, "
            "or a directory of *.parquet parts"
        )
    frames = []
    for p in parts:
        try:
            frames.append(pd.read_parquet(p))
        except Exception as exc:
            raise InputError(f"cannot read {p} as Parquet ({exc})") from exc
    names = list(frames[0].columns)
    for p, f in zip(parts, frames, strict=True):
        if list(f.columns) != names:
            raise InputError(
                f"{p} has other columns than {parts[0].name}: every part of {path} must have "
                "the same columns in the same order"
            )
    return pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]


def _read_csv(
    path: Path, *, na_values: Sequence[str], delimiter: str | None, decimal: str | None
) -> pd.DataFrame:
    lines = _sample_lines(path)
    if not lines:
        raise InputError(f"data file {path} is empty: give a file with a header and records")
    detected = delimiter is None
    if delimiter is None:
        delimiter = sniff_delimiter(lines) or (
            "\t" if path.name.lower().endswith((".tsv", ".tsv.gz", ".tab")) else ","
        )
    header = next(csv.reader(lines[:1], delimiter=delimiter), [])
    if len(header) <= 1 and detected:
        found = [d for d in DELIMITERS if d != delimiter and d in lines[0]]
        if found:
            raise InputError(
                f"{path} reads as one column although its first line holds "
                f"{_describe(found[0])}s: the rows do not split into the same number of fields "
                f"with the {_describe(delimiter)} separator; check the file's separator "
                "and quoting (or pass delimiter)"
            )
    dup = sorted({h for h in header if header.count(h) > 1})
    if dup:
        raise InputError(
            f"{path} has duplicate column names {dup}: rename them so every column is unique"
        )
    if decimal is None:
        decimal = "," if _decimal_comma(lines, delimiter) else "."
    try:
        df = pd.read_csv(
            path,
            sep=delimiter,
            decimal=decimal,
            na_values=list(na_values),
            keep_default_na=True,
            low_memory=False,
            encoding="utf-8-sig",
        )
    except pd.errors.EmptyDataError as exc:
        raise InputError(
            f"data file {path} is empty: give a file with a header and records"
        ) from exc
    except (pd.errors.ParserError, UnicodeDecodeError, ValueError) as exc:
        raise InputError(f"cannot parse {path} as CSV: {str(exc).splitlines()[0]}") from exc
    df.attrs[READ_ATTRS] = {"delimiter": delimiter, "decimal": decimal}
    return df


@dataclass(frozen=True)
class LoadedData:
    """A dataset as read from the user: its frame, schema, encoded table and profile.

    ``profile`` (:class:`~synthleak.data.profile.DataProfile`) says which columns were left out
    (identifiers, free text, empty columns) and carries the typed warnings to show the user.
    """

    frame: pd.DataFrame
    schema: Schema
    table: Table
    profile: DataProfile | None = None


def _schema_arg(
    schema: Schema | str | Path,
    categorical: Sequence[str],
    continuous: Sequence[str],
    keep: Sequence[str],
) -> Schema:
    if categorical or continuous:
        raise InputError("give either schema or categorical/continuous, not both")
    sch = schema if isinstance(schema, Schema) else Schema.from_json(schema)
    dropped = [c for c in keep if c not in sch]
    if dropped:
        raise InputError(
            f"keep names column(s) {dropped} that the schema does not analyse: add them to the "
            "schema (a schema lists every column to analyse)"
        )
    return sch


def load_data(
    source: str | Path,
    *,
    categorical: Sequence[str] = (),
    continuous: Sequence[str] = (),
    keep: Sequence[str] = (),
    schema: Schema | str | Path | None = None,
    na_values: Sequence[str] = (),
    max_categories: int = DEFAULT_MAX_CATEGORIES,
    min_rows: int = 1,
    delimiter: str | None = None,
    decimal: str | None = None,
    special_values: Any = None,
) -> LoadedData:
    """Read, validate, profile, infer (or apply) the schema and encode a dataset.

    Parameters
    ----------
    source : str or Path
        See :func:`read_frame`.
    categorical, continuous : sequence of str
        Columns forced to that kind (always analysed).
    keep : sequence of str
        Columns analysed even when they look like identifiers or free text
        (:func:`~synthleak.data.profile.profile_frame`).
    schema : Schema, str or Path, optional
        A schema (or its JSON text or file) that wins over inference; its ``excluded`` columns
        are dropped. Exclusive with ``categorical``/``continuous``/``keep``.
    na_values, delimiter, decimal
        See :func:`read_frame`.
    max_categories : int
        See :func:`~synthleak.data.schema.infer_schema`.
    min_rows : int
        Fewest records accepted.
    special_values : dict or sequence of str, optional
        Codes of numeric columns that are not numbers (``{"age": [-8]}`` or ``["age=-8,-9"]``):
        each is taken out of its column into a categorical ``"<column> (special)"`` column
        (:func:`~synthleak.data.values.split_special`).

    Returns
    -------
    LoadedData
        With ``profile`` set (with a schema, the schema's columns count as kept).
    """
    df = read_frame(source, na_values=na_values, delimiter=delimiter, decimal=decimal)
    df = split_special(df, parse_special_values(special_values))
    if len(df) < min_rows:
        raise InputError(
            f"{source} has {len(df)} record(s) but at least {min_rows} are needed: give more data"
        )
    check_stray_values(df, f"data file {source}", exempt=_categorical_names(schema, categorical))
    if schema is not None:
        sch = _schema_arg(schema, categorical, continuous, keep)
        profile = profile_frame(
            df,
            keep=[n for n in sch.names if n in set(map(str, df.columns))],
            max_categories=max_categories,
        )
    else:
        profile = profile_frame(
            df,
            keep=keep,
            categorical=categorical,
            continuous=continuous,
            max_categories=max_categories,
        )
        sch = profile.schema(df, max_categories=max_categories)
    table = Table.from_frame(df, sch)
    return LoadedData(df, sch, table, profile)


@dataclass(frozen=True)
class EncodedFrames:
    """Several datasets encoded with one schema (see :func:`encode_frames`).

    Unpacks as ``schema, tables = encode_frames(...)`` (the two first attributes).

    Attributes
    ----------
    schema : Schema
    tables : dict of str to Table
        By the names of the frames given.
    profile : DataProfile
        The profile of the first (reference) frame.
    domain : DomainReport
        Values of every other frame outside the reference's domain.
    frames : dict of str to DataFrame
        The frames the tables were encoded from, by name (compacted when
        :func:`encode_frames` was asked to; empty for :meth:`of_tables`).
    inferred : bool
        Whether the schema (its column kinds and domains) was read from the data rather than
        given.
    """

    schema: Schema
    tables: dict[str, Table]
    profile: DataProfile
    domain: DomainReport
    frames: dict[str, pd.DataFrame] = field(default_factory=dict, compare=False, repr=False)
    inferred: bool = field(default=False, compare=False)

    def __iter__(self) -> Iterator[Any]:
        return iter((self.schema, self.tables))

    @classmethod
    def of_tables(cls, tables: dict[str, Table]) -> EncodedFrames:
        """Tables already encoded with one schema: their profile and domain report are empty
        (nothing was read or inferred)."""
        (_, first), *rest = tables.items()
        profile = profile_frame(
            first.to_frame().head(0),
            categorical=first.schema.categorical_names,
            continuous=first.schema.continuous_names,
        )
        domain = domain_report(first, parts={name: t for name, t in rest})
        return cls(first.schema, dict(tables), profile, domain)

    @property
    def warnings(self) -> list[DataWarning]:
        """The profile's warnings, then the domain check's."""
        return [*self.profile.warnings, *self.domain.warnings]


@contextmanager
def _naming(label: str) -> Iterator[None]:
    """Errors about the values of one part name it first (``the synthetic data (s.csv): ...``)."""
    try:
        yield
    except InputError as exc:
        if str(exc).startswith("the "):
            raise
        raise InputError(f"{label}: {exc}") from exc


#: A frame, or a function that reads it (so that :func:`encode_frames` reads one at a time).
FrameSource = pd.DataFrame | Callable[[], pd.DataFrame]


def _compact_column(s: pd.Series) -> pd.Series:
    """``s`` with the same values in less memory, or ``s`` itself (see :func:`compact_frame`)."""
    dtype = s.dtype
    if isinstance(dtype, np.dtype) and dtype.kind in "iu" and len(s):
        lo, hi = s.min(), s.max()
        for small in (np.int8, np.int16, np.int32):
            info = np.iinfo(small)
            if np.dtype(small).itemsize < dtype.itemsize and info.min <= lo and hi <= info.max:
                return s.astype(small)
        return s
    if not (pd.api.types.is_object_dtype(dtype) or isinstance(dtype, pd.StringDtype)):
        return s
    codes, uniques = pd.factorize(s, use_na_sentinel=True)
    # strings only: factorize matches 1, 1.0 and True as one value, which a category would merge
    if len(uniques) > len(s) // 2 or not all(type(u) is str for u in uniques):
        return s
    cats = pd.Index(np.asarray(uniques, dtype=object), dtype=object)
    return pd.Series(pd.Categorical.from_codes(codes, categories=cats), index=s.index, name=s.name)


def compact_frame(df: pd.DataFrame) -> pd.DataFrame:
    """``df`` with the same values in less memory, for an audit that keeps the parts it read.

    Text columns of strings with at most one distinct value per two cells become categoricals
    (a small code per cell instead of a Python object of about 60 bytes), and whole-number
    columns take the smallest integer type that holds them. Floats, datetimes, booleans, free
    text and identifiers are left as they are. Every later reader of the frame reads values, not
    dtypes (the encoding, the copy check's keys, the records shown in a report), and gets the
    same ones; a profile must be made before, since it reads dtypes. Built as a new frame, one
    column at a time: ``df`` is not changed.
    """
    out = pd.DataFrame({c: _compact_column(df[c]) for c in df.columns}, index=df.index)
    out.attrs = dict(df.attrs)
    return out


def _str_columns(df: pd.DataFrame) -> pd.DataFrame:
    """``df`` with string column names (a renamed copy only when some name is not one)."""
    return df if all(isinstance(c, str) for c in df.columns) else df.rename(columns=str)


def encode_frames(
    frames: Mapping[str, FrameSource],
    *,
    categorical: Sequence[str] = (),
    continuous: Sequence[str] = (),
    keep: Sequence[str] = (),
    schema: Schema | str | Path | None = None,
    max_categories: int = DEFAULT_MAX_CATEGORIES,
    compact: bool = False,
    special_values: Any = None,
) -> EncodedFrames:
    """Encode several datasets that must share one schema (the first one is the reference).

    With ``schema`` every frame is encoded with it. Otherwise the first frame is profiled
    (:func:`~synthleak.data.profile.profile_frame`, with ``keep`` and the kind overrides), its
    identifier, free-text and empty columns are excluded, the kinds of the others are inferred
    on it, and the domains are widened over all frames (union of categories and ranges), so a
    category that occurs only in, say, the synthetic or control data is not an error; the
    domain check (:func:`~synthleak.data.domain.domain_report`) measures how many records of the
    other frames lie outside the reference's domain and warns above 1%. Frames whose columns
    differ from the first get one error that lists every difference, naming the datasets; a
    column excluded from the analysis may be absent from the other frames.

    A frame may be given as a function that reads it: the frames are then read one after the
    other, each used for the profile or the widening as soon as it is read. With ``compact``,
    each is replaced by :func:`compact_frame` of it at that point, before the next is read, so
    the raw form of at most one frame is held at a time (an audit of millions of rows keeps its
    parts for the copy check); the tables are the same.

    Every frame is checked for stray values the same way
    (:func:`~synthleak.data.profile.check_stray_values`: a column of numbers but for a few other
    values stops, naming the part, the column and the rows), and ``special_values`` (see
    :func:`load_data`) is applied to every frame as it is read.

    Returns
    -------
    EncodedFrames
        ``schema, tables, profile, domain`` and the ``frames`` encoded; unpacks as
        ``(schema, tables)``.
    """
    if not frames:
        raise InputError("no data to encode: give at least one frame")

    special = parse_special_values(special_values)

    def read(name: str) -> pd.DataFrame:
        given = frames[name]
        df = _str_columns(given if isinstance(given, pd.DataFrame) else given())
        with _naming(data_label(name, df)):
            return split_special(df, special)

    def keep_frame(df: pd.DataFrame) -> pd.DataFrame:
        return compact_frame(df) if compact else df

    first_name, *rest = frames
    first = read(first_name)
    declared = _categorical_names(schema, categorical)
    check_stray_values(first, data_label(first_name, first), exempt=declared)
    if schema is not None:
        sch = _schema_arg(schema, categorical, continuous, keep)
        profile = profile_frame(
            first,
            keep=[n for n in sch.names if n in set(first.columns)],
            max_categories=max_categories,
        )
    else:
        profile = profile_frame(
            first,
            keep=keep,
            categorical=categorical,
            continuous=continuous,
            max_categories=max_categories,
        )
        sch = profile.schema(first, max_categories=max_categories)
    optional = set(sch.excluded)
    ref = [c for c in first.columns if c not in optional]
    held = {first_name: keep_frame(first)}
    del first
    problems: list[str] = []
    inferred: list[Schema] = []
    labels = {first_name: data_label(first_name, held[first_name])}
    for name in rest:
        df = read(name)
        labels[name] = data_label(name, df)
        cols = [c for c in df.columns if c not in optional]
        found = [f"the {name} data: {p}" for p in column_differences(ref, cols)]
        problems += found
        if not found:
            check_stray_values(df, labels[name], exempt=[*declared, *optional])
        if schema is None and not found:
            with _naming(labels[name]):
                inferred.append(
                    Schema(
                        tuple(
                            infer_column(df[c.name], c.name, c.kind, max_categories=max_categories)
                            for c in sch.columns
                        )
                    )
                )
        held[name] = keep_frame(df)
        del df
    if problems:
        raise InputError(
            f"the {', '.join(frames)} data must have the same columns: {'; '.join(problems)}; "
            "give files with identical columns"
        )
    for other in inferred:
        sch = widen(sch, other)
    for name, df in held.items():
        missing = [c for c in sch.names if c not in df.columns]
        if missing:
            raise InputError(
                f"the schema names column(s) {missing} that the {name} data does not have: "
                "give a schema of the data's own columns"
            )
    tables = {}
    for name, df in held.items():
        with _naming(labels[name]):
            tables[name] = Table.from_frame(df[sch.names], sch)
    domain = domain_report(tables[first_name], parts={name: tables[name] for name in rest})
    return EncodedFrames(sch, tables, profile, domain, held, inferred=schema is None)
