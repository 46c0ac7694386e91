from __future__ import annotations

import numpy as np
import pytest

from synthleak.metrics.privacy import RiskEstimate, roc_curve
from synthleak.results import AuditResult, Finding, MetricKind
from synthleak.threat import AdversaryGoal, GeneratorAccess, ThreatModel


def make_result() -> AuditResult:
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
    targets = []
    for i, (row, sel) in enumerate([(17, "distance"), (4, "distance"), (250, "random")]):
        y = rng.integers(0, 2, 200)
        s = y * (1.0 - 0.3 * i) + rng.normal(0, 1, 200)
        fpr, tpr = roc_curve(y, s)
        targets.append(
            {
                "row": row,
                "selected_by": sel,
                "attacks": {
                    "query": {
                        "auc": 0.9 - 0.2 * i,
                        "auc_ci": [0.85 - 0.2 * i, 0.95 - 0.2 * i],
                        "accuracy": 0.8,
                        "tpr_at_fpr": {"0.1": 0.6, "0.01": 0.2},
                        "roc": {"fpr": fpr.tolist(), "tpr": tpr.tolist()},
                    }
                },
            }
        )
    scores = rng.random(1000).tolist()
    top = sorted(range(1000), key=lambda r: -scores[r])[:5]
    return AuditResult(
        config={
            "original": "adult",
            "generator": "baynet:k=2",
            "seed": 0,
            "budget": "quick",
            "command_line": "synthleak audit --original adult",
            "versions": {"synthleak": "0.1.0"},
        },
        schema={"version": 1, "columns": []},
        vulnerability={
            "method": "distance",
            "k": 5,
            "metric": "cosine",
            "n_records": 1000,
            "scores": scores,
            "top": [
                {"rank": i + 1, "row": r, "score": scores[r], "record": {"age": 30 + i, "sex": "F"}}
                for i, r in enumerate(top)
            ],
        },
        findings=findings,
        membership={
            "generator": "baynet:k=2",
            "config": {"shadows": 100, "tests": 200, "n": 1000, "m": 1000},
            "targets": targets,
            "summary": {},
            "threat": ThreatModel(
                AdversaryGoal.MEMBERSHIP, GeneratorAccess.BLACK_BOX, "auxiliary data"
            ).to_dict(),
        },
        utility={"mre_gt10": 0.12, "tvd3": 0.08},
        privacy_utility=(
            {
                "label": "baynet",
                "privacy": 0.61,
                "privacy_metric": "AIA accuracy",
                "mre_gt10": 0.12,
                "tvd3": 0.08,
            },
        ),
        notes=("ctgan skipped: install synthleak[ctgan]",),
    )


@pytest.fixture
def sample_result() -> AuditResult:
    return make_result()
