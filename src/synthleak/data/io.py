"""Reading user data: CSV, CSV.GZ, Parquet and the bundled ``adult``.

:func:`load_data` is the single entry point the CLI and :func:`synthleak.audit` use. It validates
the input (missing/empty file, header only, duplicate columns, unknown override columns, ...) and
raises :class:`~synthleak.errors.InputError` with a message that says what to do.
"""

from __future__ import annotations

import csv
import gzip
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from synthleak.data.schema import DEFAULT_MAX_CATEGORIES, Schema, column_differences, infer_schema
from synthleak.data.table import Table
from synthleak.errors import InputError

#: Bundled dataset names a data argument may give, with their ``load_adult`` options.
BUNDLED = {"adult": {"complete_cases": False}, "adult-complete": {"complete_cases": True}}


def _header(path: Path) -> list[str]:
    try:
        with (
            gzip.open(path, "rt", newline="")
            if path.name.endswith(".gz")
            else open(path, newline="")
        ) as fh:
            return next(csv.reader(fh), [])
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(
            f"cannot read {path} as CSV ({exc}): give a CSV, CSV.GZ or Parquet file"
        ) from exc


def read_frame(source: str | Path, *, na_values: Sequence[str] = ()) -> pd.DataFrame:
    """Read a DataFrame from a path or a bundled dataset name.

    Parameters
    ----------
    source : str or Path
        ``*.csv``, ``*.csv.gz`` (any other name is read as CSV), ``*.parquet``/``*.pq``,
        or ``adult`` for the bundled UCI Adult (``adult-complete``: its 45,222 rows without a
        missing value, the Adult of Meeus et al. (2023)).
    na_values : sequence of str
        Extra strings read as missing (empty cells are always missing).
    """
    if str(source) in BUNDLED:
        from synthleak.data.datasets import load_adult

        return load_adult(**BUNDLED[str(source)])
    path = Path(source)
    if not path.exists():
        raise InputError(f"data file {path} does not exist: check the path (or use 'adult')")
    if path.is_dir():
        raise InputError(f"{path} is a directory: give a CSV, CSV.GZ or Parquet file")
    if path.stat().st_size == 0:
        raise InputError(f"data file {path} is empty: give a file with a header and records")
    if path.suffix.lower() in (".parquet", ".pq"):
        try:
            df = pd.read_parquet(path)
        except Exception as exc:
            raise InputError(f"cannot read {path} as Parquet ({exc})") from exc
        if na_values:
            df = df.replace(list(na_values), pd.NA)
    else:
        header = _header(path)
        dup = sorted({h for h in header if header.count(h) > 1})
        if dup:
            raise InputError(
                f"{path} has duplicate column names {dup}: rename them so every column is unique"
            )
        try:
            df = pd.read_csv(
                path, na_values=list(na_values), keep_default_na=True, low_memory=False
            )
        except pd.errors.EmptyDataError as exc:
            raise InputError(
                f"data file {path} is empty: give a file with a header and records"
            ) from exc
        except (pd.errors.ParserError, UnicodeDecodeError) as exc:
            raise InputError(f"cannot parse {path} as CSV: {str(exc).splitlines()[0]}") from exc
    if len(df.columns) == 0:
        raise InputError(f"data file {path} has no columns: give a file with a header row")
    if len(df) == 0:
        raise InputError(f"data file {path} has a header but no rows: give a file with records")
    return df


@dataclass(frozen=True)
class LoadedData:
    """A dataset as read from the user: its frame, schema and encoded table."""

    frame: pd.DataFrame
    schema: Schema
    table: Table


def load_data(
    source: str | Path,
    *,
    categorical: Sequence[str] = (),
    continuous: Sequence[str] = (),
    schema: Schema | str | Path | None = None,
    na_values: Sequence[str] = (),
    max_categories: int = DEFAULT_MAX_CATEGORIES,
    min_rows: int = 1,
) -> LoadedData:
    """Read, validate, infer (or apply) the schema and encode a dataset.

    ``schema`` wins over inference; ``categorical``/``continuous`` override inferred kinds.
    """
    df = read_frame(source, na_values=na_values)
    if len(df) < min_rows:
        raise InputError(
            f"{source} has {len(df)} record(s) but at least {min_rows} are needed: give more data"
        )
    if schema is not None:
        sch = schema if isinstance(schema, Schema) else Schema.from_json(schema)
        if categorical or continuous:
            raise InputError("give either --schema or --categorical/--continuous, not both")
    else:
        sch = infer_schema(
            df, categorical=categorical, continuous=continuous, max_categories=max_categories
        )
    table = Table.from_frame(df, sch)
    return LoadedData(df, sch, table)


def encode_frames(
    frames: dict[str, pd.DataFrame],
    *,
    categorical: Sequence[str] = (),
    continuous: Sequence[str] = (),
    schema: Schema | str | Path | None = None,
) -> tuple[Schema, dict[str, Table]]:
    """Encode several datasets that must share one schema (the first one is the reference).

    With ``schema`` every frame is encoded with it. Otherwise the column kinds are inferred on
    the first frame (with the overrides) and the domains are widened over all frames (union of
    categories and ranges), so a category that occurs only in, say, the synthetic or control
    data is not an error. Frames whose columns differ from the first get one error that lists
    every difference, naming the datasets.
    """
    from synthleak.data.schema import widen

    (_, first), *rest = frames.items()
    ref = [str(c) for c in first.columns]
    problems = []
    for name, df in rest:
        problems += [f"the {name} data: {p}" for p in column_differences(ref, list(df.columns))]
    if problems:
        raise InputError(
            f"the {', '.join(frames)} data must have the same columns: {'; '.join(problems)}; "
            "give files with identical columns"
        )
    if schema is not None:
        if categorical or continuous:
            raise InputError("give either --schema or --categorical/--continuous, not both")
        sch = schema if isinstance(schema, Schema) else Schema.from_json(schema)
    else:
        sch = infer_schema(first, categorical=categorical, continuous=continuous)
        for _, df in rest:
            df = df.rename(columns=str)[sch.names]
            sch = widen(
                sch,
                infer_schema(
                    df, categorical=sch.categorical_names, continuous=sch.continuous_names
                ),
            )
    return sch, {
        name: Table.from_frame(df.rename(columns=str)[sch.names], sch)
        for name, df in frames.items()
    }
