"""synthleak: audit the privacy of synthetic tabular data.

Finds the real people a synthetic release exposes most and measures the leak with the strongest
published attacks, run as formal privacy games.
"""

from importlib.metadata import PackageNotFoundError, version

from synthleak import datasets
from synthleak.data import Column, ColumnKind, Schema, Table, infer_schema, load_data
from synthleak.errors import (
    BaselineWarning,
    InputError,
    MissingExtraError,
    NotFittedError,
    SynthleakError,
)
from synthleak.generators import Generator, list_generators, make_generator
from synthleak.metrics.privacy import RiskEstimate

try:
    __version__ = version("synthleak")
except PackageNotFoundError:  # pragma: no cover - running from a source tree
    __version__ = "0.0.0"

__all__ = [
    "BaselineWarning",
    "Column",
    "ColumnKind",
    "Generator",
    "InputError",
    "MissingExtraError",
    "NotFittedError",
    "RiskEstimate",
    "Schema",
    "SynthleakError",
    "Table",
    "__version__",
    "datasets",
    "infer_schema",
    "list_generators",
    "load_data",
    "make_generator",
]
