"""Options and helpers shared by every command: data loading, output formats, atomic output."""

from __future__ import annotations

import json
import os
import sys
import tempfile
from enum import Enum
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import typer

from synthleak.data.io import LoadedData, encode_frames, load_data, read_frame
from synthleak.data.schema import Schema
from synthleak.errors import InputError
from synthleak.results import jsonable


class OutputFormat(str, Enum):
    """Output formats of the commands (not every command offers csv)."""

    TABLE = "table"
    JSON = "json"
    CSV = "csv"


# --- reusable option declarations ----------------------------------------------------------
CategoricalOpt = Annotated[
    str | None,
    typer.Option("--categorical", help="Comma-separated columns to treat as categorical."),
]
ContinuousOpt = Annotated[
    str | None, typer.Option("--continuous", help="Comma-separated columns to treat as continuous.")
]
SchemaOpt = Annotated[
    Path | None,
    typer.Option("--schema", help="Schema JSON file (as written by 'synthleak schema')."),
]
NaValuesOpt = Annotated[
    str | None,
    typer.Option("--na-values", help="Comma-separated strings read as missing (e.g. '?,N')."),
]
SeedOpt = Annotated[int, typer.Option("--seed", help="Random seed; same seed, same result.")]
OutOpt = Annotated[Path | None, typer.Option("--out", help="Write the output to this file.")]
WorkersOpt = Annotated[int, typer.Option("--workers", help="Local worker processes.")]
ClusterOpt = Annotated[
    str | None, typer.Option("--cluster", help="Dask scheduler address, e.g. tcp://host:8786.")
]
RunDirOpt = Annotated[Path | None, typer.Option("--run-dir", help="Resumable run directory.")]


def split_list(value: str | None) -> list[str]:
    """Parse a comma-separated option into a list of stripped, non-empty items."""
    if value is None:
        return []
    return [v.strip() for v in value.split(",") if v.strip()]


def load_cli_data(
    source: str,
    *,
    categorical: str | None = None,
    continuous: str | None = None,
    schema: Path | None = None,
    na_values: str | None = None,
    min_rows: int = 1,
) -> LoadedData:
    """Load a data argument with the common override options."""
    return load_data(
        source,
        categorical=split_list(categorical),
        continuous=split_list(continuous),
        schema=schema,
        na_values=split_list(na_values),
        min_rows=min_rows,
    )


def make_rng(seed: int) -> np.random.Generator:
    """The one place the CLI turns ``--seed`` into a generator."""
    return np.random.default_rng(seed)


def check_out_path(path: Path) -> None:
    """Fail with a one-line InputError unless ``--out`` names a file in an existing folder.

    Commands with long runs call it before any work, so a bad path fails fast.
    """
    path = Path(path)
    if path.is_dir():
        raise InputError(f"--out {path} is a directory: give a file path")
    if not path.absolute().parent.is_dir():
        raise InputError(f"the folder {path.parent} of --out does not exist: create it first")


def atomic_write(path: Path, data: str | bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file, so a failure leaves nothing behind."""
    path = Path(path)
    check_out_path(path)
    parent = path.absolute().parent
    fd, tmp = tempfile.mkstemp(dir=parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data.encode() if isinstance(data, str) else data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def emit(text: str, out: Path | None) -> None:
    """Print ``text`` or write it atomically to ``out``."""
    if out is None:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
    else:
        atomic_write(out, text if text.endswith("\n") else text + "\n")


def to_json(obj: Any) -> str:
    """Strict JSON: NaN written as null, numpy values converted."""
    return json.dumps(jsonable(obj), indent=2, allow_nan=False)


def load_cli_tables(
    sources: dict[str, str | None],
    *,
    categorical: str | None = None,
    continuous: str | None = None,
    schema: Path | None = None,
    na_values: str | None = None,
    min_rows: int = 1,
) -> tuple[Schema, dict[str, LoadedData]]:
    """Read several data arguments that must share one schema (the first is the reference);
    see :func:`synthleak.data.io.encode_frames`."""
    frames = {
        name: read_frame(src, na_values=split_list(na_values))
        for name, src in sources.items()
        if src is not None
    }
    for name, df in frames.items():
        if len(df) < min_rows:
            raise InputError(
                f"the {name} data has {len(df)} record(s) but at least {min_rows} are needed"
            )
    sch, tables = encode_frames(
        frames,
        categorical=split_list(categorical),
        continuous=split_list(continuous),
        schema=schema,
    )
    return sch, {name: LoadedData(frames[name], sch, tables[name]) for name in frames}
