"""The ``person_attribute`` stage of the audit (:mod:`synthleak.stages.person_attribute`)."""

from __future__ import annotations

import pytest
from tests.games.person_parts import parts, replay
from tests.stages.test_person_copies import PLAN

from synthleak.harm import Harm, person_attribute_key
from synthleak.pipeline import audit
from synthleak.results import AuditResult, StageStatus
from synthleak.verdicts import MetricKind, Verdict


@pytest.fixture
def only_person_attribute(monkeypatch: pytest.MonkeyPatch) -> None:
    import synthleak.pipeline as pipeline

    stages = tuple(s for s in pipeline.STAGES if s.name == "person_attribute")
    monkeypatch.setattr(pipeline, "STAGES", stages)


def run(original, synthetic, control, **kw) -> AuditResult:
    return audit(original, synthetic=synthetic, control=control, plan=PLAN, seed=0, **kw)


@pytest.mark.usefixtures("only_person_attribute")
def test_a_copy_release_reveals_persons_attribute_and_names_them() -> None:
    original, control, _ = parts(0)
    r = run(original, replay(original, 10**7), control, secret="region")
    f = next(x for x in r.findings if x.key == person_attribute_key("region"))
    assert f.metric is MetricKind.ADVANTAGE and f.harm is Harm.SINGLED_OUT
    assert f.verdict in (Verdict.LEAK, Verdict.SEVERE) and f.details["root"] == "person"
    pa = r.person_attribute
    assert pa is not None and f.estimate == pa.game.advantage
    assert set(pa.inferred) <= set(original.frames["person"]["pid"])
    again = AuditResult.from_json(r.to_json())
    assert again.person_attribute is not None and again.person_attribute.same_as(pa)


@pytest.mark.usefixtures("only_person_attribute")
def test_without_secret_or_relational_input_it_says_what_it_needs() -> None:
    original, control, others = parts(2, n_control=50)
    r = run(original, others, control)
    rec = next(s for s in r.stages if s.name == "person_attribute")
    assert rec.status is StageStatus.NOT_MEASURED and "--secret" in rec.needs
    flat = run(
        original.frames["person"].drop(columns="pid"),
        others.frames["person"].drop(columns="pid"),
        control.frames["person"].drop(columns="pid"),
        secret="region",
    )
    rec = next(s for s in flat.stages if s.name == "person_attribute")
    assert rec.status is StageStatus.NOT_APPLICABLE
