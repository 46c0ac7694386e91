"""``synthleak schema``: infer and print (or write) a dataset's schema, or with
``--relational`` a relational dataset's (every table's keys, links, rows and columns)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from synthleak.cli.app import app
from synthleak.cli.common import (
    CategoricalOpt,
    ContinuousOpt,
    NaValuesOpt,
    OutOpt,
    RelationalOpt,
    SchemaOpt,
    SpecialValuesOpt,
    emit,
    load_cli_data,
    load_relational_parts,
    refuse_single_table_flags,
    to_json,
    warn_data,
)
from synthleak.errors import InputError


@app.command("schema", rich_help_panel="Data, generators and utility")
def schema_cmd(
    data: Annotated[
        str,
        typer.Argument(
            help="CSV, CSV.GZ or Parquet file, or 'adult'/'adult-complete'; with --relational, "
            "a folder of one file per table."
        ),
    ],
    categorical: CategoricalOpt = None,
    continuous: ContinuousOpt = None,
    schema: SchemaOpt = None,
    na_values: NaValuesOpt = None,
    out: OutOpt = None,
    special_values: SpecialValuesOpt = None,
    relational: RelationalOpt = None,
) -> None:
    """Infer the schema of DATA and print it (or write it with --out) as JSON.

    With --relational, DATA is a folder of one file per table, validated against the metadata
    (a missing table, an orphaned foreign key, a cycle or a repeated key is an error), and the
    JSON gives the root tables (of persons) and, per table, its primary key, its foreign keys
    (column, parent table and its key), its row count and the schema of its other columns
    (inferred as for one table; null for a table of keys only).
    """
    if relational is not None:
        refuse_single_table_flags(
            {"--categorical": categorical, "--continuous": continuous, "--schema": schema}
        )
        emit(to_json(relational_schema(relational, data, na_values, special_values)), out)
        return
    loaded = load_cli_data(
        data,
        categorical=categorical,
        continuous=continuous,
        schema=schema,
        na_values=na_values,
        special_values=special_values,
    )
    emit(loaded.schema.to_json(), out)


def relational_schema(
    metadata: Path, folder: str, na_values: str | None, special_values: list[str] | None
) -> dict[str, Any]:
    """``schema --relational``: the document of the tables in ``folder`` (validated with the
    metadata): ``roots`` and, per table, ``primary_key``, ``foreign_keys``, ``n_rows`` and the
    ``schema`` of its columns other than keys, inferred as ``schema`` infers one table's (the
    metadata's categorical columns kept categorical)."""
    from synthleak.data.io import encode_frames
    from synthleak.data.values import parse_special_values

    data = load_relational_parts(metadata, {"data": folder}, na_values=na_values)["data"]
    sch = data.schema
    special = parse_special_values(special_values)
    unknown = sorted(set(special) - {str(c) for f in data.frames.values() for c in f.columns})
    if unknown:
        raise InputError(
            f"--special-values names unknown column(s) {unknown}: the columns are those of "
            "the tables in DATA"
        )
    tables: dict[str, Any] = {}
    for t in sch.tables:
        frame = data.frames[t]
        keys = {sch.primary_keys[t]} | {fk.column for fk in sch.foreign_keys if fk.child == t}
        cols = [c for c in frame.columns if c not in keys]
        inferred = None
        if cols:
            enc = encode_frames(
                {t: frame[cols]},
                categorical=[c for c in sch.categorical.get(t, ()) if c in cols],
                special_values={c: v for c, v in special.items() if c in cols},
            )
            warn_data(enc.profile.warnings, enc.profile.shared_na_values)
            inferred = enc.schema.to_dict()
        tables[t] = {
            "primary_key": sch.primary_keys[t],
            "foreign_keys": [
                {"column": fk.column, "parent": fk.parent, "parent_key": sch.key_of(fk.parent)}
                for fk in sch.foreign_keys
                if fk.child == t
            ],
            "n_rows": len(frame),
            "schema": inferred,
        }
    return {"roots": list(sch.roots), "tables": tables}
