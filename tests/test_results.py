"""Audit results: verdicts (not measured, too small, Holm-corrected leaks), lossless JSON."""

from __future__ import annotations

import json
import math

import pytest
from tests.report.conftest import make_result

from synthleak.metrics.privacy import RiskEstimate
from synthleak.results import (
    AuditResult,
    Finding,
    MetricKind,
    StageRecord,
    StageStatus,
    Verdict,
    assess,
    holm,
    load_result,
    one_sided_p,
)
from synthleak.threat import AdversaryGoal, GeneratorAccess, ThreatModel

TM = ThreatModel(AdversaryGoal.MEMBERSHIP, GeneratorAccess.BLACK_BOX, "auxiliary data")


def _finding(lo: float, hi: float, metric: MetricKind = MetricKind.AUC, base=None) -> Finding:
    return Finding("k", "t", metric, RiskEstimate((lo + hi) / 2, lo, hi, 0.95, 10, base), TM)


def test_verdicts_follow_the_interval() -> None:
    assert _finding(0.45, 0.6).verdict is Verdict.NO_EVIDENCE
    assert _finding(0.55, 0.7).verdict is Verdict.LEAK
    assert _finding(0.85, 0.95).verdict is Verdict.SEVERE
    assert _finding(-0.01, 0.05, MetricKind.RISK).verdict is Verdict.NO_EVIDENCE
    assert "no evidence" in _finding(0.45, 0.6).explanation()


def test_wide_intervals_are_too_small_to_measure_but_a_clear_leak_is_not() -> None:
    # 24 training records gave intervals like 0.08-0.63: that is no verdict of "no evidence"
    f = _finding(0.08, 0.63, MetricKind.ACCURACY, base=0.5)
    assert f.verdict is Verdict.TOO_SMALL and "too few" in f.explanation()
    assert _finding(0.6, 0.99).verdict is Verdict.LEAK  # wide but entirely above the baseline


def test_no_baseline_or_no_estimate_is_not_measured() -> None:
    nan = float("nan")
    f = Finding("k", "t", MetricKind.ACCURACY, RiskEstimate(0.0, 0.0, 0.1, 0.95, 0, nan), TM)
    assert f.verdict is Verdict.NOT_MEASURED
    assert "leak" not in f.explanation() and f.explanation().startswith("Not measured")
    g = Finding("k", "t", MetricKind.AUC, RiskEstimate(nan, nan, nan), TM)
    assert g.verdict is Verdict.NOT_MEASURED


def test_holm_controls_the_family() -> None:
    assert holm([0.01, 0.04, 0.03, float("nan")]) == [True, False, False, False]
    assert holm([0.001, 0.012, 0.02]) == [True, True, True]
    # a borderline "leak" alone stays a leak; among many tests it does not survive
    border = _finding(0.501, 0.65)
    assert border.verdict is Verdict.LEAK and one_sided_p(border.estimate, 0.5) < 0.025
    family = assess([border, *[_finding(0.4, 0.6)] * 9])
    assert family[0].verdict is Verdict.NO_EVIDENCE
    assert "other tests" in family[0].explanation()
    assert assess([_finding(0.8, 0.9), *[_finding(0.4, 0.6)] * 9])[0].verdict is Verdict.SEVERE


def test_json_round_trip_is_lossless(tmp_path) -> None:
    r = make_result()
    text = r.to_json()
    again = AuditResult.from_json(text)
    assert again.to_json() == text
    assert again.worst_finding().key == "linkability"  # type: ignore[union-attr]
    assert again.membership is not None and again.membership.targets[0].row == 17
    (tmp_path / "report.json").write_text(text)
    assert load_result(tmp_path / "report.json").same_as(r)
    assert json.loads(text)["kind"] == "audit"
    assert len(repr(r)) < 400


def test_nan_becomes_null_and_back() -> None:
    r = make_result()
    f = Finding(
        "k", "t", MetricKind.AUC, RiskEstimate(float("nan"), float("nan"), float("nan")), TM
    )
    from dataclasses import replace

    r2 = replace(r, findings=(f,))
    doc = json.loads(r2.to_json())
    assert doc["findings"][0]["estimate"]["value"] is None
    assert math.isnan(AuditResult.from_json(r2.to_json()).findings[0].estimate.value)


def test_stages_and_findings_frame() -> None:
    r = make_result()
    assert [s.name for s in r.not_measured()] == ["membership_nobox"]
    assert "needs a control set" in r.not_measured()[0].sentence()
    frame = r.to_frame()
    assert list(frame["key"]) == [f.key for f in r.findings]
    assert StageRecord("x", "X", StageStatus.MEASURED).sentence() == "X: measured."


def test_load_result_rejects_unknown_documents() -> None:
    from synthleak.errors import InputError

    with pytest.raises(InputError, match="no known result"):
        load_result({"kind": "nope"})
