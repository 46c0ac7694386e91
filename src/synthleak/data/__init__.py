"""Data layer: schema, encoded tables, encodings, I/O and bundled datasets."""

from synthleak.data.io import load_data, read_frame
from synthleak.data.schema import Column, ColumnKind, Schema, infer_schema
from synthleak.data.table import Table

__all__ = ["Column", "ColumnKind", "Schema", "Table", "infer_schema", "load_data", "read_frame"]
