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
        d = self.details
        if self.metric is MetricKind.RISK and "attack_rate" in d and "baseline_rate" in d:
            head += (
                f" Success rates: {d['attack_rate']:.3f} on the real records, "
                f"{d.get('control_rate', float('nan')):.3f} on the control records, "
                f"{d['baseline_rate']:.3f} for random guesses."
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
    riskmap : dict or None
        Full-dataset membership risk map (``synthleak riskmap`` result): ``{"config", "records",
        "summary"}``, one record per row with its AUC, CI and selector scores.
    """

    config: dict[str, Any]
    schema: dict[str, Any]
    vulnerability: dict[str, Any]
    findings: tuple[Finding, ...] = ()
    membership: dict[str, Any] | None = None
    utility: dict[str, Any] | None = None
    privacy_utility: tuple[dict[str, Any], ...] = ()
    notes: tuple[str, ...] = ()
    riskmap: dict[str, Any] | None = None

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
            "riskmap": self.riskmap,
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
            riskmap=d.get("riskmap"),
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


def membership_findings(doc: dict[str, Any], threat: ThreatModel) -> list[Finding]:
    """One finding per membership attack: its most exposed target (highest AUC), with the CI."""
    out = []
    attacks = sorted({a for t in doc.get("targets", []) for a in t.get("attacks", {})})
    for name in attacks:
        cands = [
            (o["auc"], t["row"], o)
            for t in doc["targets"]
            for a, o in t.get("attacks", {}).items()
            if a == name and o.get("auc") is not None and not math.isnan(o["auc"])
        ]
        if not cands:
            continue
        auc_v, row, o = max(cands, key=lambda c: c[0])
        lo, hi = (o.get("auc_ci") or [float("nan"), float("nan")])[:2]
        out.append(
            Finding(
                f"membership.{name}",
                f"Membership inference '{name}', most exposed target (row {row})",
                MetricKind.AUC,
                RiskEstimate(
                    float(auc_v),
                    float("nan") if lo is None else float(lo),
                    float("nan") if hi is None else float(hi),
                    0.95,
                    int(o.get("n_test", 0)),
                    0.5,
                ),
                threat,
                {"row": row, "attack": name, "n_targets": len(doc["targets"])},
            )
        )
    return out


def from_run_result(doc: dict[str, Any], *, source: str, command_line: str) -> AuditResult:
    """An :class:`AuditResult` from the result document of ``synthleak mia`` or ``synthleak aia``."""
    from synthleak.threat import AdversaryGoal, GeneratorAccess

    cfg = doc.get("config", {})
    base_cfg = {
        "original": cfg.get("data", source),
        "generator": cfg.get("generator"),
        "seed": cfg.get("seed"),
        "command_line": command_line,
        "source_run": source,
        "confidence": 0.95,
    }
    vulnerability = {
        "method": "n/a",
        "k": None,
        "metric": "n/a",
        "n_records": cfg.get("n_records"),
        "top": [],
    }
    if "targets" in doc:
        threat = ThreatModel(
            AdversaryGoal.MEMBERSHIP,
            GeneratorAccess.BLACK_BOX,
            f"the target record and {cfg.get('aux_size', '?')} auxiliary records of the same population",
            {"n": cfg.get("n"), "shadows": cfg.get("n_shadow"), "tests": cfg.get("n_test")},
        )
        membership = {
            **doc,
            "generator": cfg.get("generator"),
            "config": {**cfg, "shadows": cfg.get("n_shadow"), "tests": cfg.get("n_test")},
            "threat": threat.to_dict(),
        }
        return AuditResult(
            base_cfg,
            doc.get("schema", {}),
            vulnerability,
            tuple(membership_findings(doc, threat)),
            membership,
        )
    if "results" in doc:
        return _from_aia(doc, base_cfg, vulnerability)
    if "records" in doc:
        return _from_riskmap(doc, base_cfg)
    raise ValueError(
        "the result document is neither a membership nor an attribute-inference result"
    )


def attribute_findings(
    doc: dict[str, Any], threat: ThreatModel
) -> tuple[list[Finding], list[dict[str, Any]], dict[str, Any] | None]:
    """Findings (one per attack and synthetic size m), privacy-utility points and the utility of
    the largest m, from an attribute-inference game result (``synthleak aia`` JSON)."""
    cfg = doc.get("config", {})
    findings, points = [], []
    utility = None
    for entry in doc["results"]:
        m = entry.get("m")
        accs = []
        for name, a in entry.get("attacks", {}).items():
            if a.get("accuracy") is None:
                continue
            lo, hi = (a.get("accuracy_ci") or [float("nan"), float("nan")])[:2]
            accs.append(float(a["accuracy"]))
            findings.append(
                Finding(
                    f"attribute.{name}.m{m}",
                    f"Attribute inference '{name}' (m = {m} synthetic records)",
                    MetricKind.ACCURACY,
                    RiskEstimate(
                        float(a["accuracy"]),
                        float("nan") if lo is None else float(lo),
                        float("nan") if hi is None else float(hi),
                        0.95,
                        int(a.get("n_targets", a.get("n_games", cfg.get("games", 0))) or 0),
                        float(a.get("baseline", 0.5)),
                    ),
                    threat,
                    {
                        "m": m,
                        "auc": a.get("auc"),
                        "n_games": a.get("n_games"),
                        "n_failed": a.get("n_failed"),
                    },
                )
            )
        u = entry.get("utility") or {}
        utility = u or utility
        if accs:
            points.append(
                {
                    "label": f"m={m}",
                    "privacy": max(accs),
                    "privacy_metric": "attribute-inference accuracy (best attack)",
                    "mre_gt10": u.get("mre_gt10"),
                    "tvd3": u.get("tvd3"),
                }
            )
    return findings, points, utility


def attribute_threat(cfg: dict[str, Any]) -> ThreatModel:
    """The threat model of the randomised-secret attribute-inference game.

    Annamalai et al. (2024a), Sec. 4.1.
    """
    from synthleak.threat import AdversaryGoal, GeneratorAccess

    return ThreatModel(
        AdversaryGoal.ATTRIBUTE,
        GeneratorAccess.NO_BOX,
        f"the quasi-identifiers {cfg.get('quasi_ids', 'all other columns')} of every record of the "
        f"training data, including the target's, but not the target's secret '{cfg.get('secret')}'",
        {"games": cfg.get("games"), "n": cfg.get("n")},
    )


def _from_aia(
    doc: dict[str, Any], base_cfg: dict[str, Any], vulnerability: dict[str, Any]
) -> AuditResult:
    findings, points, utility = attribute_findings(doc, attribute_threat(doc.get("config", {})))
    return AuditResult(
        base_cfg,
        doc.get("schema", {}),
        vulnerability,
        tuple(findings),
        None,
        utility,
        tuple(points),
    )


def _from_riskmap(doc: dict[str, Any], base_cfg: dict[str, Any]) -> AuditResult:
    from synthleak.threat import AdversaryGoal, GeneratorAccess

    cfg = doc.get("config", {})
    recs = doc.get("records", [])
    ranked = sorted(recs, key=lambda r: -(r.get("vulnerability") or 0.0))
    vulnerability = {
        "method": "distance",
        "k": cfg.get("k"),
        "metric": "cosine",
        "n_records": len(recs),
        "scores": [r.get("vulnerability") for r in recs],
        "top": [
            {"rank": i + 1, "row": r["row"], "score": r.get("vulnerability"), "record": {}}
            for i, r in enumerate(ranked[:10])
        ],
    }
    threat = ThreatModel(
        AdversaryGoal.MEMBERSHIP,
        GeneratorAccess.BLACK_BOX,
        "the target record and records of the same population to train shadow models on",
        {"n": cfg.get("n"), "shadows": cfg.get("n_shadow"), "tests": cfg.get("n_test")},
    )
    findings = []
    valid = [r for r in recs if r.get("auc") is not None and not math.isnan(r["auc"])]
    if valid:
        worst = max(valid, key=lambda r: r["auc"])
        findings.append(
            Finding(
                "riskmap.max",
                f"Membership inference, most exposed record of the risk map (row {worst['row']})",
                MetricKind.AUC,
                RiskEstimate(
                    worst["auc"],
                    worst["auc_ci_low"],
                    worst["auc_ci_high"],
                    0.95,
                    int(cfg.get("n_test", 0)),
                    0.5,
                ),
                threat,
                {"row": worst["row"], "n_records": len(recs)},
            )
        )
    return AuditResult(base_cfg, {}, vulnerability, tuple(findings), riskmap=doc)
