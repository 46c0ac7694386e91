"""synthleak: audit the privacy of synthetic tabular data.

Finds the real people a synthetic release exposes most and measures the leak with the strongest
published attacks, run as formal privacy games. Every game is constructed with its parameters and
played with ``game.run(data, *, seed, runtime=None)``; ``audit`` runs them all.
"""

from importlib.metadata import PackageNotFoundError, version

from synthleak import datasets
from synthleak.attacks.base import AttackFamily, list_attacks, make_attack
from synthleak.data import Column, ColumnKind, Schema, Table, infer_schema, load_data
from synthleak.errors import (
    BaselineWarning,
    InputError,
    MissingExtraError,
    NotFittedError,
    SynthleakError,
)
from synthleak.games.attribute import AttributeGame
from synthleak.games.base import Game, Release
from synthleak.games.membership import MembershipGame, MembershipResult, PoolMode
from synthleak.games.riskmap import RiskMap, RiskMapResult
from synthleak.games.singling_out import LinkabilityGame, RiskResult, SinglingOutGame
from synthleak.games.targets import Targets
from synthleak.generators import Generator, list_generators, make_generator
from synthleak.metrics.privacy import RiskEstimate
from synthleak.pipeline import BUDGETS, Budget, audit
from synthleak.results import (
    AuditResult,
    BudgetPlan,
    Finding,
    MetricKind,
    StageRecord,
    StageStatus,
    Verdict,
    load_result,
)
from synthleak.runtime import Runtime
from synthleak.threat import AdversaryGoal, GeneratorAccess, ThreatModel
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
    "BUDGETS",
    "AdversaryGoal",
    "AttackFamily",
    "AttributeGame",
    "AuditResult",
    "BaselineWarning",
    "Budget",
    "BudgetPlan",
    "Column",
    "ColumnKind",
    "DistanceMetric",
    "Finding",
    "Game",
    "Generator",
    "GeneratorAccess",
    "InputError",
    "LinkabilityGame",
    "MembershipGame",
    "MembershipResult",
    "MetricKind",
    "MissingExtraError",
    "NotFittedError",
    "PoolMode",
    "Release",
    "RiskEstimate",
    "RiskMap",
    "RiskMapResult",
    "RiskResult",
    "Runtime",
    "Schema",
    "SinglingOutGame",
    "StageRecord",
    "StageStatus",
    "SynthleakError",
    "Table",
    "TargetMethod",
    "Targets",
    "ThreatModel",
    "Verdict",
    "__version__",
    "audit",
    "datasets",
    "infer_schema",
    "list_attacks",
    "list_generators",
    "load_data",
    "load_result",
    "make_attack",
    "make_generator",
    "rank_records",
    "select_targets",
    "vulnerability_scores",
]
