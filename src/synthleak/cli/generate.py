"""``synthleak generate`` (fit a generator and write synthetic data) and ``synthleak generators``.

``synthleak generate DATA --generator SPEC --synthetic-size N --out FILE [--train-size M]
[--seed S]`` loads DATA (with the common schema options), optionally samples ``M`` training
records without replacement, fits the generator and writes ``N`` synthetic records as CSV, or
Parquet when FILE ends with ``.parquet``/``.pq``. The file is written through a temporary file and
renamed, so a failure leaves nothing behind. A generator failure (for example an external command
exiting non-zero) is reported as one line with exit code 2.

``synthleak generators [--format table|json]`` lists the registry: each generator's parameters
(type, default), whether it is differentially private and the optional extra it needs (and whether
that is installed).
"""

from __future__ import annotations

import importlib.util
import io
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from synthleak.cli.app import app
from synthleak.cli.common import (
    CategoricalOpt,
    ContinuousOpt,
    FormatOpt,
    NaValuesOpt,
    SchemaOpt,
    SeedOpt,
    SpecialValuesOpt,
    TextFormat,
    TrainSizeOpt,
    atomic_write,
    check_out_path,
    emit,
    load_cli_data,
    make_rng,
    note_inferred_domain,
    parse_sizes,
    to_json,
)
from synthleak.errors import GeneratorFailure, InputError

if TYPE_CHECKING:
    from synthleak.generators import GeneratorInfo
    from synthleak.generators.base import Param

# import name that provides each optional extra (for the "installed" column)
EXTRA_MODULES = {
    "ctgan": "ctgan",
    "mbi": "mbi",
    "torch": "torch",
    "dask": "distributed",
    "sdv": "sdv",
    "realtabformer": "realtabformer",
}


def extra_installed(extra: str | None) -> bool:
    """Whether the optional extra ``extra`` is importable (True when none is needed)."""
    if extra is None:
        return True
    if extra.startswith("env:"):  # a named environment (synthleak env create NAME)
        from synthleak.generators.env import env_installed

        return env_installed(extra[4:])
    module = EXTRA_MODULES.get(extra, extra)
    return importlib.util.find_spec(module) is not None


def generator_record(info: GeneratorInfo) -> dict[str, Any]:
    """One registry entry as plain data (the JSON output of ``synthleak generators``)."""
    return {
        "name": info.name,
        "aliases": list(info.aliases),
        "description": info.doc,
        "differentially_private": info.differentially_private,
        "extra": info.extra,
        "installed": extra_installed(info.extra),
        "params": [_param_record(p) for p in info.params],
    }


def _param_record(p: Param) -> dict[str, Any]:
    """A parameter as plain data; an enum parameter is a string with its ``choices``."""
    if p.choices:
        return {
            "name": p.name,
            "type": "str",
            "default": str(p.default.value),
            "choices": list(p.choices),
            "doc": p.doc,
        }
    return {"name": p.name, "type": p.type.__name__, "default": p.default, "doc": p.doc}


@app.command("generators", rich_help_panel="Data, generators and utility")
def generators_cmd(
    format: FormatOpt = TextFormat.TABLE,
) -> None:
    """List the registered generators with their parameters, DP flag and required extra."""
    from synthleak.generators import list_generators

    records = [generator_record(i) for i in list_generators()]
    if format is TextFormat.JSON:
        emit(to_json(records), None)
        return
    from rich.console import Console
    from rich.table import Table as RichTable

    tab = RichTable(title="synthleak generators (spec: name:param=value,...)")
    tab.add_column("name", no_wrap=True)
    tab.add_column("parameters (type = default)")
    tab.add_column("DP")
    tab.add_column("extra")
    tab.add_column("description")
    for r in records:
        params = (
            "\n".join(
                f"{p['name']}: {p['type']} = {p['default']!r}"
                + (f" ({'|'.join(p['choices'])})" if "choices" in p else "")
                for p in r["params"]
            )
            or "-"
        )
        extra = (
            "-"
            if r["extra"] is None
            else f"{r['extra']} ({'installed' if r['installed'] else 'missing'})"
        )
        tab.add_row(
            r["name"],
            params,
            "yes" if r["differentially_private"] else "no",
            extra,
            r["description"],
        )
    Console(width=160).print(tab)


@app.command("generate", rich_help_panel="Data, generators and utility")
def generate_cmd(
    data: Annotated[
        str, typer.Argument(help="CSV, CSV.GZ or Parquet file, or 'adult'/'adult-complete'.")
    ],
    generator: Annotated[
        str,
        typer.Option(
            "--generator",
            "-g",
            help=(
                "Generator spec NAME[:key=value,...], e.g. 'baynet:k=2', 'sdv:ctgan:epochs=10', "
                "'realtabformer:epochs=50', 'python:pkg.mod:Class,key=value' "
                "(see 'synthleak generators')."
            ),
        ),
    ],
    n: Annotated[
        str,
        typer.Option(
            "--synthetic-size",
            help="Synthetic records released per fit (|D^s|); comma-separated values run a sweep "
            "where the command offers one.",
        ),
    ],
    out: Annotated[Path, typer.Option("--out", help="Output file: .csv, or .parquet for Parquet.")],
    train_size: TrainSizeOpt = None,
    seed: SeedOpt = 0,
    categorical: CategoricalOpt = None,
    continuous: ContinuousOpt = None,
    schema: SchemaOpt = None,
    na_values: NaValuesOpt = None,
    special_values: SpecialValuesOpt = None,
) -> None:
    """Fit a generator on DATA and write N synthetic records to --out (declared special codes
    written back into their columns)."""
    size = parse_sizes(n, "--synthetic-size", default=[], single=True)[0]
    if size < 0:
        raise InputError(f"--synthetic-size must be >= 0, got {size}")
    if train_size is not None and train_size < 1:
        raise InputError(f"--train-size must be >= 1, got {train_size}")
    suffix = out.suffix.lower()
    if suffix not in (".csv", ".parquet", ".pq"):
        raise InputError(f"--out {out}: the file name must end in .csv or .parquet")
    check_out_path(out)
    from synthleak.generators import make_generator

    gen = make_generator(generator)  # bad specs fail before the data is read
    loaded = load_cli_data(
        data,
        categorical=categorical,
        continuous=continuous,
        schema=schema,
        na_values=na_values,
        special_values=special_values,
    )
    note_inferred_domain(gen, generator, schema)
    rng = make_rng(seed)
    table = loaded.table
    if train_size is not None:
        if train_size > len(table):
            raise InputError(
                f"--train-size {train_size} is larger than the data ({len(table)} records): "
                "ask for fewer"
            )
        table = table.sample(train_size, rng=rng)
    try:
        synthetic = gen.fit(table, rng=rng).sample(size, rng=rng)
    except GeneratorFailure as exc:
        raise InputError(f"generator {generator!r} failed: {exc}") from exc
    frame = synthetic.to_frame()
    if special_values:
        from synthleak.data.values import join_special

        frame = join_special(frame)
    if suffix == ".csv":
        atomic_write(out, frame.to_csv(index=False))
    else:
        buf = io.BytesIO()
        frame.to_parquet(buf, index=False)
        atomic_write(out, buf.getvalue())
    typer.echo(f"wrote {len(frame)} synthetic records from {gen.spec!r} to {out}", err=True)
