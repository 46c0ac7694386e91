"""The comparison report: frontier first, paired sentences, Article 29 table, links; Chromium."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import pytest
from tests.report.browser import artifacts_dir, check_page, chromium_path

from synthleak.comparison import (
    NOT_PAIRED,
    Candidate,
    ComparisonResult,
    CriterionAnswer,
    PairedDifference,
    Recommendation,
    SeedSpread,
)
from synthleak.policy import Metric
from synthleak.report.comparison import (
    build_comparison_document,
    difference_sentence,
    dominated,
    write_comparison_report,
)
from synthleak.report.writers import to_markdown
from synthleak.results import AuditOptions


def _candidate(name: str, copies: float, mre: float, passed: bool) -> Candidate:
    so = Metric(0.01, 0.0, 0.03, baseline=0.0)
    return Candidate(
        name=name,
        group=name.split("@")[0],
        source=f"{name}.csv",
        folder=name.replace("@", "_"),
        worst={
            "copies.rate": Metric(copies, copies - 0.01, copies + 0.01, baseline=0.0),
            "singling_out.risk": so,
            "membership.nobox.auc": Metric(0.52, 0.48, 0.56, baseline=0.5),
        },
        worst_finding={"copies.rate": "copies.exact"},
        utility_mre=mre,
        utility_ci=(mre - 0.02, mre + 0.02),
        passed=passed,
        criteria=(
            CriterionAnswer(
                "singling out", "no evidence of leakage", "singling_out.univariate", "S", so
            ),
            CriterionAnswer("linkability", "not measured", needs="a control set"),
            CriterionAnswer("inference", "not measured", needs="a secret column: secret"),
        ),
    )


@pytest.fixture
def result() -> ComparisonResult:
    cands = (
        _candidate("leaky", 0.02, 0.20, False),
        _candidate("clean@seed0", 0.0, 0.22, True),
        _candidate("clean@seed1", 0.0, 0.25, True),
    )
    diff = PairedDifference(
        "copies.rate", "leaky", "clean@seed0", 0.02, 0.01, 0.03, 1e-5, 3e-5, True, 500, "McNemar"
    )
    same = PairedDifference(
        "membership.nobox.auc",
        "clean@seed0",
        "clean@seed1",
        -0.01,
        -0.05,
        0.03,
        0.6,
        1.0,
        False,
        400,
        "DeLong",
        attack="dcr",
    )
    return ComparisonResult(
        options=AuditOptions(seed=3),
        candidates=cands,
        differences=(diff, same),
        spreads=(
            SeedSpread(
                "clean", ("clean@seed0", "clean@seed1"), {"copies.rate": (0.0, 0.0)}, (0.22, 0.25)
            ),
        ),
        recommendation=Recommendation("gate", ("clean@seed0", "clean@seed1"), "clean@seed0", "x"),
        sources={"original": "ori.csv", "control": "ctl.csv"},
    )


def test_dominated_needs_another_candidate_as_safe_and_as_useful(
    result: ComparisonResult,
) -> None:
    # clean@seed1: same copies as clean@seed0 and a worse MRE; leaky has the best MRE
    assert dominated(result.candidates, "copies.rate") == {"clean@seed1"}
    assert dominated(result.candidates, "singling_out.risk") == {"clean@seed0", "clean@seed1"}


def test_the_frontier_comes_first_and_the_sections_follow_in_order(
    result: ComparisonResult, tmp_path: Path
) -> None:
    doc = build_comparison_document(result)
    anchors = [s.anchor for s in doc.sections]
    assert anchors == [
        "frontier",
        "differences",
        "seeds",
        "criteria",
        "recommendation",
        "reports",
        "references",
    ]
    md = to_markdown(doc, tmp_path)
    assert "| candidate | MRE [95 % CI] | worst copies |" in md  # the frontier's table
    assert "(figures/frontier.png)" in md and (tmp_path / "frontier.png").stat().st_size > 5000
    assert "[leaky (leaky.csv)](candidates/leaky/report.html)" in md
    assert "Article 29 Data Protection Working Party (2014)" in md
    assert "not measured (needs a secret column: secret)" in md


def test_a_significant_difference_reads_as_a_direction_else_as_none(
    result: ComparisonResult,
) -> None:
    sig, same = (difference_sentence(d) for d in result.differences)
    assert sig.startswith(
        "leaky publishes more original records verbatim than clean@seed0: +0.020 [+0.010, +0.030]"
    )
    assert same.startswith("clean@seed0 and clean@seed1: no significant difference")
    assert "attack 'dcr'" in same


def test_a_paired_attribute_difference_reads_as_secrets_inferred() -> None:
    d = PairedDifference(
        family="attribute.accuracy",
        a="dp",
        b="plain",
        difference=-0.12,
        ci_low=-0.18,
        ci_high=-0.06,
        p_value=0.0001,
        p_holm=0.0004,
        significant=True,
        n=400,
        method="McNemar",
    )
    assert difference_sentence(d).startswith(
        "dp lets fewer secrets be inferred from the release than plain: -0.120 [-0.180, -0.060] "
        "(release attribute-inference accuracy on the same attacked training records;"
    )


def test_a_paired_linkability_difference_reads_as_targets_linked_net_of_the_control() -> None:
    d = PairedDifference(
        family="linkability.risk",
        a="copycat",
        b="clean",
        difference=0.05,
        ci_low=0.02,
        ci_high=0.08,
        p_value=0.0002,
        p_holm=0.001,
        significant=True,
        n=600,
        method="sign flip",
    )
    assert difference_sentence(d).startswith(
        "copycat links more training targets, net of the control targets, than clean: "
        "+0.050 [+0.020, +0.080] (linkability excess: the share of the same training targets "
        "linked minus the share of the same control targets linked;"
    )
    assert "linkability.risk" not in NOT_PAIRED and "singling_out.risk" in NOT_PAIRED


def test_the_json_leaves_the_audits_to_the_candidates_reports(
    result: ComparisonResult, tmp_path: Path
) -> None:
    paths = write_comparison_report(result, tmp_path)
    doc = json.loads(paths["json"].read_text())
    assert "audits" not in doc and doc["references"]
    assert (
        '<a href="candidates/leaky/report.html">leaky (leaky.csv)</a>' in paths["html"].read_text()
    )
    back = ComparisonResult.from_dict(doc)
    assert back.same_as(result)  # audits were empty: nothing else was left out
    assert not any(p.name.startswith(".comparison-") for p in tmp_path.iterdir())
    assert math.isclose(back.candidate("leaky").utility_mre, 0.20)


@pytest.mark.skipif(
    chromium_path() is None and not os.environ.get("CI"),
    reason="chromium not installed (CI installs it)",
)
def test_comparison_report_renders_in_chromium(result: ComparisonResult, tmp_path: Path) -> None:
    paths = write_comparison_report(result, tmp_path)
    page = check_page(paths["html"].resolve().as_uri())
    (artifacts_dir() / "comparison_screenshot.png").write_bytes(page.screenshot)
    assert page.console_errors == []
    assert page.n_images == 1 and page.broken_images == 0
    assert page.title == "synthleak comparison"
    assert page.clipped_tables == 0
