"""Data layer: schema, profiling, domain check, encoded tables, encodings, I/O and datasets."""

from synthleak.data.domain import DomainReport, domain_report
from synthleak.data.io import EncodedFrames, LoadedData, encode_frames, load_data, read_frame
from synthleak.data.profile import (
    DataProfile,
    DataWarning,
    Role,
    WarningCode,
    infer_schema,
    profile_frame,
)
from synthleak.data.schema import Column, ColumnKind, Schema
from synthleak.data.table import Table

__all__ = [
    "Column",
    "ColumnKind",
    "DataProfile",
    "DataWarning",
    "DomainReport",
    "EncodedFrames",
    "LoadedData",
    "Role",
    "Schema",
    "Table",
    "WarningCode",
    "domain_report",
    "encode_frames",
    "infer_schema",
    "load_data",
    "profile_frame",
    "read_frame",
]
