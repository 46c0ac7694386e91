from __future__ import annotations

import numpy as np
import pytest

from synthleak.data.schema import Column, ColumnKind, Schema
from synthleak.games.membership import (
    MembershipConfig,
    MembershipResult,
    PoolMode,
    TargetOutcome,
    attack_outcome,
)
from synthleak.metrics.privacy import RiskEstimate
from synthleak.results import (
    AuditConfig,
    AuditResult,
    BudgetPlan,
    PrivacyUtilityPoint,
    RecordAtRisk,
    StageRecord,
    StageStatus,
    UtilitySection,
    VulnerabilitySection,
)
from synthleak.threat import AdversaryGoal, GeneratorAccess, ThreatModel
from synthleak.verdicts import Finding, MetricKind, assess


def make_membership(rng: np.random.Generator) -> MembershipResult:
    """A membership result of three targets (two most vulnerable, one random control)."""
    targets = []
    for i, (row, sel) in enumerate([(17, "distance"), (4, "distance"), (250, "random")]):
        y = rng.integers(0, 2, 200)
        s = y * (1.0 - 0.3 * i) + rng.normal(0, 1, 200)
        targets.append(
            TargetOutcome(row, sel, {"query": attack_outcome(y, s, rng=rng, n_boot=100)})
        )
    cfg = MembershipConfig(
        generator="baynet:k=2",
        targets="rows:17,4,250",
        train_size=1000,
        synthetic_size=1000,
        n_shadows=100,
        n_tests=200,
        pool=PoolMode.SHARED,
        aux_size=10_000,
        test_size=5_000,
        attacks=("query",),
        attack_params={"query": {}},
        seed=0,
        data="0123456789abcdef",
        n_records=48_842,
    )
    return MembershipResult(cfg, tuple(targets))


def make_result(*, show_records: bool = True) -> AuditResult:
    rng = np.random.default_rng(0)
    no_box = ThreatModel(
        AdversaryGoal.SINGLING_OUT, GeneratorAccess.NO_BOX, "nothing but the synthetic data"
    )
    findings = (
        Finding(
            "singling_out.univariate",
            "Singling out (univariate)",
            MetricKind.RISK,
            RiskEstimate(0.02, -0.01, 0.05, 0.95, 500, 0.0),
            no_box,
            {"n_success": 12},
            where=("columns: age (12 predicates)",),
        ),
        Finding(
            "linkability",
            "Linkability",
            MetricKind.RISK,
            RiskEstimate(0.31, 0.25, 0.37, 0.95, 500, 0.0),
            ThreatModel(
                AdversaryGoal.LINKABILITY, GeneratorAccess.NO_BOX, "two column sets of the targets"
            ),
        ),
        Finding(
            "aia.recon",
            "Attribute inference (reconstruction)",
            MetricKind.ACCURACY,
            RiskEstimate(0.61, 0.55, 0.66, 0.95, 300, 0.5),
            ThreatModel(
                AdversaryGoal.ATTRIBUTE, GeneratorAccess.NO_BOX, "the quasi-identifiers of everyone"
            ),
        ),
    )
    scores = rng.random(1000)
    top = sorted(range(1000), key=lambda r: -scores[r])[:5]
    plan = BudgetPlan(
        n_attacks=300,
        mia_targets=3,
        mia_controls=2,
        shadows=200,
        tests=100,
        n=500,
        mia_attacks=("query", "distance"),
        aia_games=60,
    )
    config = AuditConfig(
        original="adult",
        synthetic=None,
        control=None,
        generator="baynet:k=2",
        secret="income",
        quasi_ids=(),
        budget="quick",
        plan=plan,
        seed=0,
        confidence=0.95,
        command_line="synthleak audit --original adult",
        versions={"synthleak": "0.1.0"},
        created="2026-11-23T00:00:00+00:00",
        n_original=1000,
        n_synthetic=800,
        n_control=200,
        show_records=show_records,
    )
    stages = (
        StageRecord("vulnerability", "Vulnerability ranking", StageStatus.MEASURED),
        StageRecord(
            "membership_nobox",
            "Membership inference without the generator",
            StageStatus.NOT_MEASURED,
            "",
            "a control set of real records the generator never saw",
        ),
    )
    return AuditResult(
        config=config,
        schema=Schema((Column("age", ColumnKind.CONTINUOUS, low=17.0, high=90.0),)),
        stages=stages,
        findings=assess(findings),
        vulnerability=VulnerabilitySection(
            "distance",
            5,
            "cosine",
            1000,
            scores,
            tuple(
                RecordAtRisk(
                    i + 1,
                    r,
                    float(scores[r]),
                    ("age",),
                    {"age": str(30 + i), "sex": "F"} if show_records else {},
                )
                for i, r in enumerate(top)
            ),
        ),
        membership=make_membership(rng),
        utility=UtilitySection(
            0.12,
            0.08,
            100,
            (0.11, 0.13),
            (0.075, 0.085),
            marginal_space=455,
            n_synthetic=800,
            n_boot=1000,
        ),
        privacy_utility=(PrivacyUtilityPoint("baynet", 0.61, "AIA accuracy", 0.12, 0.08),),
        notes=("ctgan skipped: install synthleak[ctgan]",),
    )


@pytest.fixture
def sample_result() -> AuditResult:
    return make_result()


def make_every_state_result() -> AuditResult:
    """An audit whose findings take every verdict, with the attribute game's table behind some
    of them (the game judges one interval too wide that the audit's own limit would read)."""
    import dataclasses
    import math

    import numpy as np

    from synthleak.games.attribute import AttackAccuracy, AttributeGameResult
    from synthleak.games.secret import Measurement
    from synthleak.games.sweep import AttributeSweepResult, SweptColumn
    from synthleak.metrics.privacy import RiskEstimate
    from synthleak.threat import AdversaryGoal, GeneratorAccess, ThreatModel
    from synthleak.verdicts import Finding, MetricKind, assess

    nan = math.nan
    tm = ThreatModel(AdversaryGoal.ATTRIBUTE, GeneratorAccess.BLACK_BOX, "quasi-identifiers")
    specs = [
        # key, title, metric, (value, lo, hi, baseline), game status
        ("attribute.infer.m500", "AIA infer", MetricKind.ACCURACY, (nan, nan, nan, 0.5), "nm"),
        ("attribute.recon.m500", "AIA recon", MetricKind.ACCURACY, (0.55, 0.43, 0.67, 0.5), "ts"),
        ("attribute.dcr.m500", "AIA dcr", MetricKind.ACCURACY, (0.52, 0.45, 0.59, 0.5), "m"),
        ("linkability", "Linkability", MetricKind.RISK, (0.10, 0.06, 0.14, 0.0), ""),
        ("singling_out.multivariate", "SO multi", MetricKind.RISK, (0.4, 0.3, 0.5, 0.0), ""),
        # clears its baseline alone, not after Holm's correction over the five measured tests
        ("singling_out.univariate", "SO uni", MetricKind.RISK, (0.02, 0.001, 0.04, 0.0), ""),
    ]
    # the attribute sweep: one finding per column, every state among them
    specs += [
        ("attribute.sweep.income", "Sweep income", MetricKind.ADVANTAGE, (0.6, 0.5, 0.7, 0.0), "m"),
        ("attribute.sweep.age", "Sweep age", MetricKind.ADVANTAGE, (0.01, -0.03, 0.05, 0.0), "m"),
        ("attribute.sweep.race", "Sweep race", MetricKind.ADVANTAGE, (0.1, -0.2, 0.4, 0.0), "ts"),
        ("attribute.sweep.sex", "Sweep sex", MetricKind.ADVANTAGE, (nan, nan, nan, 0.0), "nm"),
    ]
    status = {"nm": Measurement.NOT_MEASURED, "ts": Measurement.TOO_SMALL, "m": "measured"}
    findings, accuracies, swept = [], [], []
    for key, title, metric, (v, lo, hi, b), st in specs:
        est = RiskEstimate(v, lo, hi, 0.95, 100, b)
        details = {"status": Measurement(status[st]).value} if st else {}
        findings.append(Finding(key, title, metric, est, tm, details))
        if key.startswith("attribute.sweep."):
            rows = np.arange(10, 20, dtype=np.int64)
            swept.append(
                SweptColumn(
                    key.split(".")[2],
                    "the exact class",
                    Measurement(status[st]).value,
                    0.8,
                    0.5,
                    est,
                    nan,
                    n_attacked=10,
                    rows=rows,
                    right=np.ones(10, dtype=np.int64),
                    population_right=(rows % 2).astype(np.int64),
                )
            )
        elif key.startswith("attribute."):
            accuracies.append(
                AttackAccuracy(
                    key.split(".")[1], 500, est, nan, 10, 0, hi - lo, 0.2, Measurement(status[st])
                )
            )
    base = make_result()
    return dataclasses.replace(
        base,
        findings=assess(findings),
        attribute=AttributeGameResult({}, tuple(accuracies), (), ()),
        attribute_sweep=AttributeSweepResult("recon", 10, 0.05, tuple(swept), {"id": "an id"}),
    )
