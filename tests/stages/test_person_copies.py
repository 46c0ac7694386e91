"""The ``person_copies`` stage of the audit (:mod:`synthleak.stages.person_copies`)."""

from __future__ import annotations

import pytest
from tests.games.person_parts import parts, replay

from synthleak.harm import FindingKey, Harm
from synthleak.pipeline import BudgetPlan, audit
from synthleak.results import AuditResult, StageStatus
from synthleak.verdicts import MetricKind, Verdict

PLAN = BudgetPlan(
    n_attacks=60,
    mia_targets=1,
    mia_controls=1,
    shadows=4,
    tests=4,
    n=60,
    mia_attacks=("distance",),
    aia_games=2,
)


@pytest.fixture
def only_person_copies(monkeypatch: pytest.MonkeyPatch) -> None:
    """The audit with this stage alone (the others are tested in their own files)."""
    import synthleak.pipeline as pipeline

    stages = tuple(s for s in pipeline.STAGES if s.name == "person_copies")
    monkeypatch.setattr(pipeline, "STAGES", stages)


def run(original, synthetic, control) -> AuditResult:
    return audit(original, synthetic=synthetic, control=control, plan=PLAN, seed=0)


@pytest.mark.usefixtures("only_person_copies")
def test_null_release_is_no_evidence_and_copy_release_publishes_persons() -> None:
    original, control, others = parts(0)
    r = run(original, others, control)
    f = {x.key: x for x in r.findings}
    whole, share = f[FindingKey.COPIES_PERSON_HISTORY], f[FindingKey.COPIES_PERSON_ROWS]
    assert whole.metric is MetricKind.RATE and whole.harm is Harm.PUBLISHED
    assert whole.verdict is Verdict.NO_EVIDENCE and share.verdict is Verdict.NO_EVIDENCE
    assert whole.details["baseline_of"] == "control persons" and whole.details["root"] == "person"
    assert whole.people_published() == 0 and share.people_published() == 0
    assert r.person_copies is not None and r.person_copies.whole is whole.estimate

    c = run(original, replay(original, 10**7), control)
    f = {x.key: x for x in c.findings}
    whole = f[FindingKey.COPIES_PERSON_HISTORY]
    assert whole.verdict is Verdict.SEVERE  # real persons published verbatim
    assert whole.people_published() == c.person_copies.n_whole > 300  # type: ignore[union-attr]
    assert "whole histories of child rows appear verbatim" in whole.explanation()
    assert "root keys" in whole.where[0]
    again = AuditResult.from_json(c.to_json())
    assert again.person_copies is not None and again.person_copies.same_as(c.person_copies)


@pytest.mark.usefixtures("only_person_copies")
def test_single_table_and_no_control_are_not_measured_with_the_input_they_need() -> None:
    original, _, others = parts(2, n_control=20)
    r = run(original, others, None)
    rec = next(s for s in r.stages if s.name == "person_copies")
    assert rec.status is StageStatus.NOT_MEASURED and "--relational" in rec.needs
    flat = run(
        original.frames["person"].drop(columns="pid"),
        others.frames["person"].drop(columns="pid"),
        None,
    )
    rec = next(s for s in flat.stages if s.name == "person_copies")
    assert rec.status is StageStatus.NOT_APPLICABLE and flat.person_copies is None
