"""synthleak: audit the privacy of synthetic tabular data.

Finds the real people a synthetic release exposes most and measures the leak with the strongest
published attacks, run as formal privacy games. Every game is constructed with its parameters and
played with ``game.run(data, *, seed, runtime=None)``; ``audit`` runs them all.
"""

from importlib import import_module
from importlib.metadata import PackageNotFoundError, version
from typing import TYPE_CHECKING, Any

# The public API is imported lazily (PEP 562): "import synthleak" and the command line's start-up
# stay fast, and the heavy numerical libraries load on first use of the name that needs them.
_LAZY = {
    "AdversaryGoal": "synthleak.threat",
    "AttackFamily": "synthleak.attacks.base",
    "AttributeGame": "synthleak.games.attribute",
    "AttributeGameResult": "synthleak.games.attribute",
    "AuditOptions": "synthleak.results",
    "AuditResult": "synthleak.results",
    "BUDGETS": "synthleak.pipeline",
    "BaselineWarning": "synthleak.errors",
    "Budget": "synthleak.pipeline",
    "BudgetPlan": "synthleak.results",
    "ComparisonResult": "synthleak.comparison",
    "Column": "synthleak.data",
    "ColumnKind": "synthleak.data",
    "DistanceMetric": "synthleak.vulnerability",
    "Finding": "synthleak.results",
    "Game": "synthleak.games.base",
    "Generator": "synthleak.generators",
    "GeneratorAccess": "synthleak.threat",
    "InputError": "synthleak.errors",
    "LinkabilityGame": "synthleak.games.linkability",
    "LinkabilityResult": "synthleak.games.linkability",
    "MembershipGame": "synthleak.games.membership",
    "MembershipResult": "synthleak.games.membership",
    "MetricKind": "synthleak.results",
    "MissingExtraError": "synthleak.errors",
    "NoBoxMembershipGame": "synthleak.games.nobox",
    "NoBoxMembershipResult": "synthleak.games.nobox",
    "NotFittedError": "synthleak.errors",
    "PoolMode": "synthleak.games.membership",
    "Release": "synthleak.data.release",
    "ReleaseAttributeGame": "synthleak.games.attribute_release",
    "ReleaseAttributeResult": "synthleak.games.attribute_release",
    "RiskEstimate": "synthleak.metrics.privacy",
    "RiskMap": "synthleak.games.riskmap",
    "RiskMapResult": "synthleak.games.riskmap",
    "Runtime": "synthleak.runtime",
    "Schema": "synthleak.data",
    "SecretRule": "synthleak.games.secret",
    "SinglingOutGame": "synthleak.games.singling_out",
    "SinglingOutResult": "synthleak.games.singling_out",
    "StageRecord": "synthleak.results",
    "StageStatus": "synthleak.results",
    "SynthleakError": "synthleak.errors",
    "Table": "synthleak.data",
    "TargetMethod": "synthleak.vulnerability",
    "Targets": "synthleak.games.targets",
    "ThreatModel": "synthleak.threat",
    "Verdict": "synthleak.results",
    "audit": "synthleak.pipeline",
    "compare": "synthleak.comparison",
    "datasets": "synthleak.datasets",
    "infer_schema": "synthleak.data",
    "list_attacks": "synthleak.attacks.base",
    "list_generators": "synthleak.generators",
    "load_data": "synthleak.data",
    "load_result": "synthleak.results",
    "make_attack": "synthleak.attacks.base",
    "make_generator": "synthleak.generators",
    "rank_records": "synthleak.vulnerability",
    "select_targets": "synthleak.vulnerability",
    "vulnerability_scores": "synthleak.vulnerability",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'synthleak' has no attribute {name!r}")
    value = (
        import_module(module)
        if module == f"synthleak.{name}"
        else getattr(import_module(module), name)
    )
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs
    from synthleak import datasets
    from synthleak.attacks.base import AttackFamily, list_attacks, make_attack
    from synthleak.comparison import ComparisonResult, compare
    from synthleak.data import Column, ColumnKind, Schema, Table, infer_schema, load_data
    from synthleak.data.release import Release
    from synthleak.errors import (
        BaselineWarning,
        InputError,
        MissingExtraError,
        NotFittedError,
        SynthleakError,
    )
    from synthleak.games.attribute import AttributeGame, AttributeGameResult
    from synthleak.games.attribute_release import ReleaseAttributeGame, ReleaseAttributeResult
    from synthleak.games.base import Game
    from synthleak.games.linkability import LinkabilityGame, LinkabilityResult
    from synthleak.games.membership import MembershipGame, MembershipResult, PoolMode
    from synthleak.games.nobox import NoBoxMembershipGame, NoBoxMembershipResult
    from synthleak.games.riskmap import RiskMap, RiskMapResult
    from synthleak.games.secret import SecretRule
    from synthleak.games.singling_out import SinglingOutGame, SinglingOutResult
    from synthleak.games.targets import Targets
    from synthleak.generators import Generator, list_generators, make_generator
    from synthleak.metrics.privacy import RiskEstimate
    from synthleak.pipeline import BUDGETS, Budget, audit
    from synthleak.results import (
        AuditOptions,
        AuditResult,
        BudgetPlan,
        StageRecord,
        StageStatus,
        load_result,
    )
    from synthleak.runtime import Runtime
    from synthleak.threat import AdversaryGoal, GeneratorAccess, ThreatModel
    from synthleak.verdicts import Finding, MetricKind, Verdict
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
    "AttributeGameResult",
    "AuditOptions",
    "AuditResult",
    "BaselineWarning",
    "Budget",
    "BudgetPlan",
    "Column",
    "ColumnKind",
    "ComparisonResult",
    "DistanceMetric",
    "Finding",
    "Game",
    "Generator",
    "GeneratorAccess",
    "InputError",
    "LinkabilityGame",
    "LinkabilityResult",
    "MembershipGame",
    "MembershipResult",
    "MetricKind",
    "MissingExtraError",
    "NoBoxMembershipGame",
    "NoBoxMembershipResult",
    "NotFittedError",
    "PoolMode",
    "Release",
    "ReleaseAttributeGame",
    "ReleaseAttributeResult",
    "RiskEstimate",
    "RiskMap",
    "RiskMapResult",
    "Runtime",
    "Schema",
    "SecretRule",
    "SinglingOutGame",
    "SinglingOutResult",
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
    "compare",
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
