"""Result objects: one :class:`Finding` per attack outcome, one :class:`AuditResult` per audit.

Both serialise to JSON losslessly (``AuditResult.from_json(r.to_json()) == r``); reports are built
from them only.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any

import numpy as np

from synthleak.metrics.privacy import RiskEstimate
from synthleak.threat import ThreatModel

RESULT_VERSION = 1


def jsonable(obj: Any) -> Any:
    """A JSON-ready copy: numpy scalars and arrays to Python, NaN and infinities to ``None``."""
    if isinstance(obj, dict):
        return {str(k): jsonable(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return jsonable(obj.tolist())
    if isinstance(obj, np.generic):
        obj = obj.item()
    if isinstance(obj, Enum):
        return obj.value
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    return obj


class MetricKind(str, Enum):
    """The scale a finding is measured on."""

    RISK = "risk"  # Anonymeter-style risk in [0, 1], 0 = no better than the control set
    AUC = "auc"  # membership AUC, 0.5 = guessing
    ACCURACY = "accuracy"  # attribute-inference accuracy against its baseline


class Verdict(str, Enum):
    """How a finding reads against its baseline, from its confidence interval."""

    NO_EVIDENCE = "no evidence of leakage"
    LEAK = "measurable leakage"
    SEVERE = "severe leakage"


# Lower CI bounds above these values read as severe (a strong, not merely detectable, attack).
SEVERE_THRESHOLD = {MetricKind.RISK: 0.2, MetricKind.AUC: 0.8, MetricKind.ACCURACY: 0.8}


@dataclass(frozen=True)
class Finding:
    """One attack outcome with its threat model.

    Attributes
    ----------
    key : str
        Stable identifier, e.g. ``singling_out.multivariate``.
    title : str
        Plain-words title.
    metric : MetricKind
    estimate : RiskEstimate
        Value, confidence interval and baseline.
    threat : ThreatModel
    details : dict
        Attack-specific numbers (counts, rates, configuration).
    """

    key: str
    title: str
    metric: MetricKind
    estimate: RiskEstimate
    threat: ThreatModel
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def baseline(self) -> float:
        b = self.estimate.baseline
        if b is not None:
            return b
        return 0.0 if self.metric is MetricKind.RISK else 0.5

    @property
    def verdict(self) -> Verdict:
        lo = self.estimate.ci_low
        if lo is None or (isinstance(lo, float) and math.isnan(lo)) or lo <= self.baseline:
            return Verdict.NO_EVIDENCE
        return Verdict.SEVERE if lo >= SEVERE_THRESHOLD[self.metric] else Verdict.LEAK

    def explanation(self) -> str:
        """What the number means, in plain words."""
        e = self.estimate
        ci = f"{e.ci_low:.3f} to {e.ci_high:.3f}"
        conf = f"{round(100 * e.confidence)}%"
        if self.metric is MetricKind.AUC:
            head = (
                f"AUC {e.value:.3f} ({conf} CI {ci}); 0.5 means the attacker cannot tell members from "
                "non-members, 1.0 means they always can."
            )
        elif self.metric is MetricKind.ACCURACY:
            head = (
                f"accuracy {e.value:.3f} ({conf} CI {ci}) against a baseline of {self.baseline:.3f} "
                "for guessing."
            )
        else:
            head = (
                f"risk {e.value:.3f} ({conf} CI {ci}); 0 means the attack does no better on the real "
                "records than on records that were never used (the control set), 1 means every attempt "
                "succeeds because of the release."
            )
        tail = {
            Verdict.NO_EVIDENCE: "The interval reaches the baseline: no evidence of leakage at this budget.",
            Verdict.LEAK: "The whole interval lies above the baseline: the release leaks.",
            Verdict.SEVERE: "The whole interval lies far above the baseline: the release leaks badly.",
        }[self.verdict]
        return f"{head} {tail}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "title": self.title,
            "metric": self.metric.value,
            "estimate": self.estimate.to_dict(),
            "threat": self.threat.to_dict(),
            "details": self.details,
            "verdict": self.verdict.value,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Finding:
        return cls(
            d["key"],
            d["title"],
            MetricKind(d["metric"]),
            RiskEstimate.from_dict(d["estimate"]),
            ThreatModel.from_dict(d["threat"]),
            dict(d.get("details", {})),
        )


@dataclass(frozen=True)
class AuditResult:
    """Everything an audit found; the report is built from this alone.

    Attributes
    ----------
    config : dict
        Inputs, budget, seed, command line, package versions.
    schema : dict
        The schema used (``Schema.to_dict()``).
    vulnerability : dict
        ``{"method", "k", "metric", "n_records", "scores": [...], "top": [{"rank", "row", "score", "record"}]}``.
    findings : list of Finding
    membership : dict or None
        Black-box shadow-model MIA per target: ``{"generator", "config", "targets": [...], "summary": {...}}``;
        each target ``{"row", "selected_by", "attacks": {name: {"auc", "auc_ci", "accuracy", "tpr_at_fpr", "roc"}}}``.
    utility : dict or None
        ``{"mre_gt10", "tvd3", ...}``.
    privacy_utility : list of dict
        Points ``{"label", "privacy", "privacy_metric", "mre_gt10", "tvd3"}`` for the privacy-utility plot.
    notes : list of str
        What was skipped and why (missing extras, budget), in plain words.
    """

    config: dict[str, Any]
    schema: dict[str, Any]
    vulnerability: dict[str, Any]
    findings: tuple[Finding, ...] = ()
    membership: dict[str, Any] | None = None
    utility: dict[str, Any] | None = None
    privacy_utility: tuple[dict[str, Any], ...] = ()
    notes: tuple[str, ...] = ()

    def worst_finding(self) -> Finding | None:
        """The finding whose lower CI bound sits furthest above its baseline (relative to its scale)."""
        if not self.findings:
            return None

        def excess(f: Finding) -> float:
            lo = f.estimate.ci_low
            if lo is None or math.isnan(lo):
                return -math.inf
            scale = 1.0 - f.baseline if f.baseline < 1 else 1.0
            return (lo - f.baseline) / scale

        return max(self.findings, key=excess)

    def to_dict(self) -> dict[str, Any]:
        return {
            "version": RESULT_VERSION,
            "config": self.config,
            "schema": self.schema,
            "vulnerability": self.vulnerability,
            "findings": [f.to_dict() for f in self.findings],
            "membership": self.membership,
            "utility": self.utility,
            "privacy_utility": list(self.privacy_utility),
            "notes": list(self.notes),
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> AuditResult:
        return cls(
            config=d["config"],
            schema=d["schema"],
            vulnerability=d["vulnerability"],
            findings=tuple(Finding.from_dict(f) for f in d.get("findings", [])),
            membership=d.get("membership"),
            utility=d.get("utility"),
            privacy_utility=tuple(d.get("privacy_utility", [])),
            notes=tuple(d.get("notes", [])),
        )

    def to_json(self, path: str | Path | None = None) -> str:
        """Strict JSON (undefined numbers written as null; they read back as NaN)."""
        text = json.dumps(jsonable(self.to_dict()), indent=2, allow_nan=False)
        if path is not None:
            Path(path).write_text(text + "\n")
        return text

    @classmethod
    def from_json(cls, text_or_path: str | Path) -> AuditResult:
        text = str(text_or_path)
        if not text.lstrip().startswith("{"):
            text = Path(text).read_text()
        return cls.from_dict(json.loads(text))
