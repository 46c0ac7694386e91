"""The ``person_risks`` stage of the audit (:mod:`synthleak.stages.person_risks`)."""

from __future__ import annotations

import pytest
from tests.games.person_parts import parts, replay
from tests.stages.test_person_copies import PLAN

from synthleak.harm import FindingKey, Harm, person_singling_out_key
from synthleak.pipeline import audit
from synthleak.results import AuditResult, StageStatus
from synthleak.verdicts import MetricKind, Verdict

STAGES = {"singling_out", "linkability", "person_risks"}


@pytest.fixture
def only_these(monkeypatch: pytest.MonkeyPatch) -> None:
    """The audit with the singling-out and linkability stages alone."""
    import synthleak.pipeline as pipeline

    monkeypatch.setattr(pipeline, "STAGES", tuple(s for s in pipeline.STAGES if s.name in STAGES))


def run(original, synthetic, control) -> AuditResult:
    return audit(original, synthetic=synthetic, control=control, plan=PLAN, seed=0)


@pytest.mark.usefixtures("only_these")
def test_persons_replace_records_and_a_copy_release_is_found_and_named() -> None:
    original, control, others = parts(0, n_control=50)
    r = run(original, others, control)
    status = {s.name: s for s in r.stages}
    # on relational input the record-level games give way to the person-level ones
    for name in ("singling_out", "linkability"):
        assert status[name].status is StageStatus.NOT_APPLICABLE
        assert "person_risks" in status[name].reason
    assert status["person_risks"].status is StageStatus.MEASURED
    f = {x.key: x for x in r.findings}
    assert set(f) == {
        person_singling_out_key("univariate"),
        person_singling_out_key("multivariate"),
        FindingKey.LINKABILITY_PERSONS,
    }
    for x in f.values():
        assert x.metric is MetricKind.RISK and x.harm is Harm.SINGLED_OUT
        assert "persons" in x.title and x.details["root"] == "person"
        assert x.verdict in (Verdict.NO_EVIDENCE, Verdict.TOO_SMALL)
    pr = r.person_risks
    assert pr is not None and pr.singling_out.root_rows is not None  # the row-level figures
    assert pr.linkability is not None and pr.linkability.root_rows is not None
    assert pr.linkability.root_rows.attacks[0].risk.ci_low == 0.0  # other people's root rows

    c = run(original, replay(original, 10**7), control)
    f = {x.key: x for x in c.findings}
    keys = set(original.frames["person"]["pid"])
    assert f[person_singling_out_key("univariate")].estimate.ci_low > 0.9
    assert f[FindingKey.LINKABILITY_PERSONS].estimate.ci_low > 0.3
    pr = c.person_risks
    assert pr is not None and pr.linkability is not None
    assert set(pr.singling_out.singled_out["univariate"]) <= keys
    assert set(pr.linkability.linked) <= keys and pr.linkability.linked
    assert f[FindingKey.LINKABILITY_PERSONS].details["n_persons_linked"] == pr.linkability.n_linked
    assert pr.linkability.root_rows is not None
    assert pr.linkability.root_rows.attacks[0].risk.ci_low > 0.3  # the root rows copied link
    again = AuditResult.from_json(c.to_json())
    assert again.person_risks is not None and again.person_risks.same_as(pr)


@pytest.mark.usefixtures("only_these")
def test_single_table_keeps_the_record_level_games() -> None:
    original, control, others = parts(2, n_control=50)
    flat = run(
        original.frames["person"].drop(columns="pid"),
        others.frames["person"].drop(columns="pid"),
        control.frames["person"].drop(columns="pid"),
    )
    status = {s.name: s.status for s in flat.stages}
    assert status["person_risks"] is StageStatus.NOT_APPLICABLE
    assert status["singling_out"] is StageStatus.MEASURED
    assert status["linkability"] is StageStatus.MEASURED
    assert flat.person_risks is None
