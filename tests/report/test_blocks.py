"""The document model's shared formatting (report/blocks.py)."""

from __future__ import annotations

import math

from synthleak.metrics.privacy import RiskEstimate
from synthleak.report.blocks import attack_table, ci, finding, fmt, p_cell, span, verdict_text
from synthleak.results import AuditResult
from synthleak.verdicts import Verdict


def test_numbers_print_n_a_when_undefined_and_an_interval_once() -> None:
    assert fmt(0.12345) == "0.123" and fmt(0.12345, 4) == "0.1235" and fmt(7) == "7"
    assert fmt(None) == "n/a" and fmt(math.nan) == "n/a"
    assert span(0.1, 0.2) == "0.100 – 0.200"
    assert span(math.nan, None) == "n/a"  # once, not "n/a – n/a"
    assert span(math.nan, 0.2) == "n/a – 0.200"


def test_a_finding_is_found_by_its_key_and_reads_its_verdict(sample_result: AuditResult) -> None:
    first = sample_result.findings[0]
    assert finding(sample_result, first.key) is first
    assert finding(sample_result, "no.such.key") is None
    assert verdict_text(None) == "not measured"
    assert verdict_text(first) == (first.verdict or Verdict.NOT_MEASURED).value
    assert ci(first) == span(first.estimate.ci_low, first.estimate.ci_high)


def test_the_p_value_cell_prints_n_a_for_what_was_not_tested(sample_result: AuditResult) -> None:
    import dataclasses

    tested = next(f for f in sample_result.findings if math.isfinite(f.p_value))
    cell = p_cell(tested)
    alone, holm = cell.split(" / ")
    assert alone != "n/a" and holm != "n/a"
    untested = dataclasses.replace(
        tested, estimate=RiskEstimate(math.nan, math.nan, math.nan, 0.95, 0, 0.0), p_value=math.nan
    )
    assert p_cell(untested) == "n/a"


def test_an_attack_table_puts_the_estimate_and_its_interval_between_its_cells() -> None:
    est = RiskEstimate(0.75, 0.6, 0.9, 0.95, 40, 0.5)
    undefined = RiskEstimate(float("nan"), float("nan"), float("nan"), 0.95, 0, 0.5)
    table = attack_table(
        [(("query",), est, ("0.200",)), (("distance",), undefined, ("n/a",))],
        lead=("attack",),
        tail=("TPR@FPR 0.1",),
        caption="two attacks",
        metric="accuracy",
    )
    assert table.header == ("attack", "accuracy", "95% CI", "TPR@FPR 0.1")
    assert table.rows == (
        ("query", "0.750", "0.600 – 0.900", "0.200"),
        ("distance", "n/a", "n/a", "n/a"),
    )
    assert table.caption == "two attacks"
