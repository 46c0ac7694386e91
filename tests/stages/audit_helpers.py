"""What the tests of the audit's stages and of ``audit()`` share: a tiny budget, the findings
by key, the figures of a result without its timings."""

from __future__ import annotations

import json

from synthleak.pipeline import BudgetPlan
from synthleak.results import AuditResult
from synthleak.verdicts import Finding

#: The small audit budget the audit tests share (tests/stages, test_pipeline, test_partitioned).
TINY = BudgetPlan(
    n_attacks=150,
    mia_targets=1,
    mia_controls=1,
    shadows=40,
    tests=40,
    n=150,
    mia_attacks=("distance",),
    aia_games=6,
)


def by_key(r: AuditResult) -> dict[str, Finding]:
    """The audit's findings by key."""
    return {f.key: f for f in r.findings}


def figures(r: AuditResult) -> object:
    """The result's JSON without what measures the machine (times, clock)."""
    from synthleak.serde import without_timings

    return without_timings(json.loads(r.to_json()))
