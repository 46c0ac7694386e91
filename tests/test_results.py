from __future__ import annotations

import json
import math

from tests.report.conftest import make_result

from synthleak.metrics.privacy import RiskEstimate
from synthleak.results import AuditResult, Finding, MetricKind, Verdict, jsonable
from synthleak.threat import AdversaryGoal, GeneratorAccess, ThreatModel

TM = ThreatModel(AdversaryGoal.MEMBERSHIP, GeneratorAccess.BLACK_BOX, "auxiliary data")


def _finding(lo: float, hi: float, metric: MetricKind = MetricKind.AUC) -> Finding:
    return Finding("k", "t", metric, RiskEstimate((lo + hi) / 2, lo, hi, 0.95, 10, None), TM)


def test_verdicts_follow_the_interval() -> None:
    assert _finding(0.45, 0.6).verdict is Verdict.NO_EVIDENCE
    assert _finding(0.55, 0.7).verdict is Verdict.LEAK
    assert _finding(0.85, 0.95).verdict is Verdict.SEVERE
    assert _finding(-0.01, 0.05, MetricKind.RISK).verdict is Verdict.NO_EVIDENCE
    assert "no evidence" in _finding(0.45, 0.6).explanation()


def test_json_round_trip_is_lossless() -> None:
    r = make_result()
    text = r.to_json()
    again = AuditResult.from_json(text)
    assert again.to_json() == text
    assert again.worst_finding().key == "linkability"  # type: ignore[union-attr]


def test_nan_becomes_null_and_back() -> None:
    f = Finding(
        "k", "t", MetricKind.AUC, RiskEstimate(float("nan"), float("nan"), float("nan")), TM
    )
    r = AuditResult({}, {}, {}, findings=(f,))
    doc = json.loads(r.to_json())
    assert doc["findings"][0]["estimate"]["value"] is None
    assert math.isnan(AuditResult.from_json(r.to_json()).findings[0].estimate.value)
    assert jsonable({"a": (1, float("inf"))}) == {"a": [1, None]}
