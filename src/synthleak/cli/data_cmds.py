"""``synthleak schema``: infer and print (or write) a dataset's schema."""

from __future__ import annotations

from typing import Annotated

import typer

from synthleak.cli.app import app
from synthleak.cli.common import (
    CategoricalOpt,
    ContinuousOpt,
    NaValuesOpt,
    OutOpt,
    SchemaOpt,
    SpecialValuesOpt,
    emit,
    load_cli_data,
)


@app.command("schema", rich_help_panel="Data, generators and utility")
def schema_cmd(
    data: Annotated[
        str, typer.Argument(help="CSV, CSV.GZ or Parquet file, or 'adult'/'adult-complete'.")
    ],
    categorical: CategoricalOpt = None,
    continuous: ContinuousOpt = None,
    schema: SchemaOpt = None,
    na_values: NaValuesOpt = None,
    out: OutOpt = None,
    special_values: SpecialValuesOpt = None,
) -> None:
    """Infer the schema of DATA and print it (or write it with --out) as JSON."""
    loaded = load_cli_data(
        data,
        categorical=categorical,
        continuous=continuous,
        schema=schema,
        na_values=na_values,
        special_values=special_values,
    )
    emit(loaded.schema.to_json(), out)
