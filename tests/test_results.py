"""Audit results: lossless JSON, stage records, options and their config."""

from __future__ import annotations

import json
import math
from dataclasses import replace

import pytest
from tests.report.conftest import make_result

from synthleak.errors import InputError
from synthleak.metrics.privacy import RiskEstimate
from synthleak.results import AuditResult, StageRecord, StageStatus, load_result
from synthleak.threat import AdversaryGoal, GeneratorAccess, ThreatModel
from synthleak.verdicts import Finding, MetricKind

TM = ThreatModel(AdversaryGoal.MEMBERSHIP, GeneratorAccess.BLACK_BOX, "auxiliary data")


def test_json_round_trip_is_lossless(tmp_path) -> None:
    r = make_result()
    text = r.to_json()
    again = AuditResult.from_json(text)
    assert again.to_json() == text
    assert again.first_finding().key == "linkability"  # type: ignore[union-attr]
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


def test_utility_section_round_trips_with_its_intervals() -> None:
    import numpy as np

    import synthleak as sl
    from synthleak.metrics.utility import utility_estimate
    from synthleak.results import UtilitySection

    rng = np.random.default_rng(0)
    df = sl.datasets.load_adult().sample(1500, random_state=0)
    t = sl.Table.from_frame(df, sl.infer_schema(df))
    u = utility_estimate(
        t.take(np.arange(500)),
        t.take(np.arange(500, 1000)),
        t.take(np.arange(1000, 1500)),
        rng=rng,
        n_boot=50,
    )
    sec = UtilitySection.from_estimate(u)
    assert sec.has_reference and sec.mre_ci[0] <= sec.mre_gt10 <= sec.mre_ci[1]
    assert UtilitySection.from_json(sec.to_json()).same_as(sec)


def test_audit_options_check_every_value_on_their_own() -> None:
    from synthleak.games.secret import SecretRule
    from synthleak.results import BUDGETS, AuditOptions, Budget

    o = AuditOptions(budget="quick", quasi_ids=["age"], secret="income")  # type: ignore[arg-type]
    assert o.sizes == BUDGETS[Budget.QUICK] and o.quasi_ids == ("age",)
    assert AuditOptions(budget="auto", max_time=60).sizes == BUDGETS[Budget.STANDARD]
    rule = SecretRule(bins=4)
    again = AuditOptions.from_json(AuditOptions(secret="age", secret_rule=rule).to_json())
    assert again.secret_rule == rule and again == AuditOptions(secret="age", secret_rule=rule)
    bad = [
        ({"budget": "huge"}, "unknown budget", "budget"),
        ({"budget": "custom"}, "unknown budget", "budget"),
        ({"selector": "vk"}, "unknown selector 'vk'", "selector"),
        ({"k": 0}, "k must be", "k"),
        ({"secret": "all", "quasi_ids": ("age",)}, "drop quasi_ids", "quasi_ids"),
        (
            {"secret": "all", "secret_rule": SecretRule(tolerance=1.0)},
            "quantile bin",
            "secret_rule",
        ),
    ]
    for kwargs, match, parameter in bad:
        with pytest.raises(InputError, match=match) as exc:
            AuditOptions(**kwargs)  # type: ignore[arg-type]
        assert exc.value.parameter == parameter
    for kwargs, match in [
        ({"budget": "auto"}, "give max_time"),
        ({"max_time": -1}, "max_time must be"),
        ({"control_fraction": 1.0}, "control_fraction"),
        ({"neighbouring": "sideways"}, "unknown neighbouring"),
        ({"delta": 2.0}, "delta must"),
        ({"claimed_epsilon": -1.0}, "claimed_epsilon"),
    ]:
        with pytest.raises(InputError, match=match):
            AuditOptions(**kwargs)  # type: ignore[arg-type]


def test_the_config_records_the_options_and_reads_reports_written_before_them() -> None:
    from synthleak.results import AuditConfig

    r = make_result()
    cfg = r.config
    assert AuditConfig.of(cfg.options, **_provenance(cfg)) == cfg
    # a report.json of an audit made before the options had their own type: no selector (the
    # audits of then chose targets by V_k), none of the options recorded since
    doc = json.loads(r.to_json())
    for key in ("selector", "control_fraction", "k", "keep", "delta", "neighbouring"):
        doc["config"].pop(key, None)
    doc["config"]["secret_rule"] = None
    old = AuditResult.from_dict(doc)
    assert old.config.selector == "distance" and old.config.k == 5
    assert old.config.plan == cfg.plan and old.config.seed == cfg.seed


def _provenance(cfg) -> dict:
    from dataclasses import fields

    from synthleak.results import AuditOptions

    names = {f.name for f in fields(AuditOptions)}
    return {f.name: getattr(cfg, f.name) for f in fields(cfg) if f.name not in names}


def test_the_estimators_p_value_round_trips_and_old_reports_still_load() -> None:
    est = RiskEstimate(0.6, 0.55, 0.65, 0.95, 100, 0.5, p_value=0.0123)
    back = RiskEstimate.from_dict(json.loads(est.to_json()))
    assert back.p_value == 0.0123
    old = est.to_dict()
    del old["p_value"]
    assert math.isnan(RiskEstimate.from_dict(old).p_value)


def test_audit_options_record_special_values_as_specs() -> None:
    from synthleak.results import AuditOptions

    o = AuditOptions(special_values={"age": [-8, -9]})  # type: ignore[arg-type]
    assert o.special_values == ("age=-8,-9",)
    assert AuditOptions(special_values=("age=-8", "age=-9")) == o
    assert AuditOptions.from_json(o.to_json()) == o
    with pytest.raises(InputError, match="special_values"):
        AuditOptions(special_values=("age",))
