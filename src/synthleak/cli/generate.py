"""``synthleak generate`` (fit a generator and write synthetic data) and ``synthleak generators``.

``synthleak generate DATA --generator SPEC --synthetic-size N --out FILE [--train-size M]
[--seed S]`` loads DATA (with the common schema options), optionally samples ``M`` training
records without replacement, fits the generator and writes ``N`` synthetic records as CSV, or
Parquet when FILE ends with ``.parquet``/``.pq``. The file is written through a temporary file and
renamed, so a failure leaves nothing behind. A generator failure (for example an external command
exiting non-zero) is reported as one line with exit code 2.

``synthleak generate --relational METADATA.json DIR --generator SPEC --out OUTDIR
[--synthetic-size N] [--train-size M] [--seed S] [--root T]`` reads DIR as a folder of one file
per table described by the SDV multi-table metadata (checked as every ``--relational`` command
checks it), fits the relational generator SPEC (``sdv:hma``, ``python:...``, ``command:...``;
:func:`synthleak.generators.relational.make_relational_generator`) on its persons (``M`` of them
drawn without replacement, or all) and writes ``N`` persons (default: as many as DIR's root
table) to the new folder OUTDIR: one CSV per table and the metadata as ``metadata.json``, so
OUTDIR reads back with ``--relational``. The folder is written under a temporary name and
renamed at the end: an error or an interrupt leaves no folder behind.

``synthleak generators [--format table|json]`` lists the registry: each generator's parameters
(type, default), whether it is differentially private and the optional extra it needs (and whether
that is installed).
"""

from __future__ import annotations

import importlib.util
import io
import json
import os
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from synthleak.cli.app import app
from synthleak.cli.common import (
    CategoricalOpt,
    ContinuousOpt,
    FormatOpt,
    NaValuesOpt,
    RelationalOpt,
    RootOpt,
    SchemaOpt,
    SeedOpt,
    SpecialValuesOpt,
    SyntheticSizeOpt,
    TextFormat,
    TrainSizeOpt,
    atomic_write,
    check_out_path,
    check_writable,
    emit,
    load_cli_data,
    load_relational_parts,
    make_rng,
    note_inferred_domain,
    parse_sizes,
    refuse_relational_spec,
    refuse_root_alone,
    refuse_single_table_flags,
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
        str,
        typer.Argument(
            help="CSV, CSV.GZ or Parquet file, or 'adult'/'adult-complete'; with --relational, "
            "a folder of one file per table."
        ),
    ],
    generator: Annotated[
        str,
        typer.Option(
            "--generator",
            "-g",
            help=(
                "Generator spec NAME[:key=value,...], e.g. 'baynet:k=2', 'sdv:ctgan:epochs=10', "
                "'realtabformer:epochs=50', 'python:pkg.mod:Class,key=value' "
                "(see 'synthleak generators'); with --relational a relational spec: 'sdv:hma', "
                "'python:...' or 'command:\"CMD {input} {output} {n}\"'."
            ),
        ),
    ],
    out: Annotated[
        Path,
        typer.Option(
            "--out",
            help="Output file: .csv, or .parquet for Parquet; with --relational a new folder "
            "(one CSV per table and metadata.json).",
        ),
    ],
    n: SyntheticSizeOpt = None,
    train_size: TrainSizeOpt = None,
    seed: SeedOpt = 0,
    categorical: CategoricalOpt = None,
    continuous: ContinuousOpt = None,
    schema: SchemaOpt = None,
    na_values: NaValuesOpt = None,
    special_values: SpecialValuesOpt = None,
    relational: RelationalOpt = None,
    root: RootOpt = None,
) -> None:
    """Fit a generator on DATA and write N (--synthetic-size, required) synthetic records to
    --out (declared special codes written back into their columns).

    With --relational, DATA is a folder of one file per table, the generator a relational one,
    and --out a new folder that receives the release: one CSV per table with N persons in the
    root table (default as many as DATA's), and the metadata as metadata.json (read it back
    with --relational).
    """
    size = None if n is None else parse_sizes(n, "--synthetic-size", default=[], single=True)[0]
    if size is not None and size < 0:
        raise InputError(f"--synthetic-size must be >= 0, got {size}")
    if train_size is not None and train_size < 1:
        raise InputError(f"--train-size must be >= 1, got {train_size}")
    if relational is not None:
        refuse_single_table_flags(
            {
                "--categorical": categorical,
                "--continuous": continuous,
                "--schema": schema,
                "--special-values": special_values,
            }
        )
        _generate_relational(
            relational,
            data,
            generator,
            out,
            size=size,
            train_size=train_size,
            seed=seed,
            root=root,
            na_values=na_values,
        )
        return
    refuse_root_alone(root)
    if size is None:
        raise InputError("--synthetic-size is missing: give the number of records to write")
    refuse_relational_spec(generator)
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


def _generate_relational(
    metadata: Path,
    folder: str,
    spec: str,
    out: Path,
    *,
    size: int | None,
    train_size: int | None,
    seed: int,
    root: str | None,
    na_values: str | None,
) -> None:
    """``generate --relational``: fit the relational generator ``spec`` on the tables of
    ``folder`` (``train_size`` persons drawn without replacement, or all) and write ``size``
    persons (default: as many as the folder's) to the new folder ``out``, one CSV per table and
    the metadata as ``metadata.json``, through a temporary folder renamed at the end."""
    import shutil

    import numpy as np

    from synthleak.games.person_shadow import subset_persons
    from synthleak.generators.relational import make_relational_generator

    if size == 0:
        raise InputError("--synthetic-size must be >= 1 with --relational (persons to release)")
    out = Path(out)
    if out.exists():
        raise InputError(f"--out {out} exists: with --relational give a new folder")
    parent = out.absolute().parent
    if not parent.is_dir():
        raise InputError(f"the folder {out.parent} of --out does not exist: create it first")
    check_writable(parent, "--out")
    gen: Any = make_relational_generator(spec)  # a single-table spec fails before reading
    data = load_relational_parts(metadata, {"original": folder}, na_values=na_values)["original"]
    sch = data.schema
    person = sch.person_table(root)
    if len(sch.roots) == 1 and person != sch.roots[0]:
        raise InputError(
            f"--root {person!r} is a child table: the relational generator makes persons of "
            f"the root table {sch.roots[0]!r}, so name it or leave --root out"
        )
    n_persons = len(data.frames[person])
    rng = make_rng(seed)
    if train_size is not None:
        if train_size > n_persons:
            raise InputError(
                f"--train-size {train_size} is larger than the data ({n_persons} persons in "
                f"table {person!r}): ask for fewer"
            )
        data = subset_persons(data, person, np.sort(rng.choice(n_persons, train_size, False)))
    n = n_persons if size is None else size
    try:
        release = gen.fit(data, rng=rng).sample(n, rng=rng)
    except GeneratorFailure as exc:
        raise InputError(f"generator {spec!r} failed: {exc}") from exc
    tmp = Path(tempfile.mkdtemp(dir=parent, prefix=f".{out.name}.", suffix=".tmp"))
    try:
        for table in sch.tables:
            release.frames[table].to_csv(tmp / f"{table}.csv", index=False)
        if metadata.is_file():  # the user's metadata as given
            shutil.copyfile(metadata, tmp / "metadata.json")
        else:  # keys given on the command line: SDV metadata of them
            from synthleak.generators.relational import sdv_multi_table_metadata

            doc = sdv_multi_table_metadata(release)
            (tmp / "metadata.json").write_text(json.dumps(doc, indent=2) + "\n")
        os.rename(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    rows = sum(len(release.frames[t]) for t in sch.tables)
    typer.echo(
        f"wrote {n} persons ({rows} rows in {len(sch.tables)} tables) from {gen.spec!r} to {out}",
        err=True,
    )
