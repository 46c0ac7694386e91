"""synthleak: audit the privacy of synthetic tabular data.

Finds the real people a synthetic release exposes most and measures the leak with the strongest
published attacks, run as formal privacy games.
"""

from importlib.metadata import PackageNotFoundError, version

from synthleak import datasets
from synthleak.audit import audit
from synthleak.data import Column, ColumnKind, Schema, Table, infer_schema, load_data
from synthleak.errors import (
    BaselineWarning,
    InputError,
    MissingExtraError,
    NotFittedError,
    SynthleakError,
)
from synthleak.games.attribute import AttributeGame
from synthleak.games.membership import MembershipGame
from synthleak.games.singling_out import LinkabilityGame, RiskResult, SinglingOutGame
from synthleak.generators import Generator, list_generators, make_generator
from synthleak.metrics.privacy import RiskEstimate
from synthleak.vulnerability import (
    DistanceMetric,
    TargetMethod,
    rank_records,
    select_targets,
    vulnerability_scores,
)

try:
    __version__ = version("synthleak")
except PackageNotFoundError:  # pragma: no cover - running from a source tree
    __version__ = "0.0.0"

__all__ = [
    "AttributeGame",
    "BaselineWarning",
    "Column",
    "ColumnKind",
    "DistanceMetric",
    "Generator",
    "InputError",
    "LinkabilityGame",
    "MembershipGame",
    "MissingExtraError",
    "NotFittedError",
    "RiskEstimate",
    "RiskResult",
    "Schema",
    "SinglingOutGame",
    "SynthleakError",
    "Table",
    "TargetMethod",
    "__version__",
    "audit",
    "datasets",
    "infer_schema",
    "list_generators",
    "load_data",
    "make_generator",
    "rank_records",
    "select_targets",
    "vulnerability_scores",
]
