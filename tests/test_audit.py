from __future__ import annotations

import numpy as np
import pytest

from synthleak import InputError, Table
from synthleak.audit import BUDGETS, Budget, BudgetPlan, audit
from synthleak.results import AuditResult, Verdict

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


@pytest.fixture(scope="module")
def split(adult_table: Table) -> tuple[Table, Table, Table]:
    rng = np.random.default_rng(5)
    rows = rng.choice(len(adult_table), 3000, replace=False)
    return (
        adult_table.take(rows[:1000]),
        adult_table.take(rows[1000:2000]),
        adult_table.take(rows[2000:]),
    )


def _by_key(r: AuditResult) -> dict:
    return {f.key: f for f in r.findings}


def test_release_equal_to_original_is_maximal_risk(split) -> None:
    train, ctl, _ = split
    r = audit(train, synthetic=train, control=ctl, plan=TINY, seed=1, secret="income")
    f = _by_key(r)
    assert f["membership.closest_record"].estimate.value > 0.95
    assert f["membership.closest_record"].verdict is Verdict.SEVERE
    assert f["singling_out.multivariate"].estimate.ci_low > 0.2
    assert f["linkability"].estimate.ci_low > 0.2
    assert (
        f["attribute.recon.release"].estimate.value
        > f["attribute.recon.release"].details["control_accuracy"]
    )
    assert r.utility is not None and r.utility["tvd3"] < 1e-9
    assert r.worst_finding().verdict is Verdict.SEVERE  # type: ignore[union-attr]


def test_independent_release_shows_no_leak(split) -> None:
    train, ctl, other = split
    r = audit(train, synthetic=other, control=ctl, plan=TINY, seed=1)
    f = _by_key(r)
    for key in ("membership.closest_record", "singling_out.multivariate", "linkability"):
        e = f[key].estimate
        assert e.ci_low <= f[key].baseline + 0.02, key
    assert abs(f["membership.closest_record"].estimate.value - 0.5) < 0.08


def test_generator_audit_runs_every_stage_and_is_seeded(split) -> None:
    train, _, _ = split
    a = audit(train, generator="indhist", secret="sex", plan=TINY, seed=3)
    keys = set(_by_key(a))
    assert {
        "singling_out.univariate",
        "linkability",
        "membership.closest_record",
        "membership.distance",
    } <= keys
    assert any(k.startswith("attribute.recon.m") for k in keys)
    assert a.membership is not None and len(a.membership["targets"]) == 2
    assert a.privacy_utility and a.utility is not None
    assert len(a.vulnerability["top"]) == 10 and a.vulnerability["top"][0]["rank"] == 1
    b = audit(train, generator="indhist", secret="sex", plan=TINY, seed=3)
    strip = lambda r: {k: v for k, v in r.to_dict().items() if k != "config"}  # noqa: E731
    assert strip(a) == strip(b)
    assert AuditResult.from_json(a.to_json()).to_json() == a.to_json()


def test_bad_input(split) -> None:
    train, _, _ = split
    with pytest.raises(InputError, match="nothing to audit"):
        audit(train)
    with pytest.raises(InputError, match="--secret"):
        audit(train, synthetic=train, secret="nope")
    with pytest.raises(InputError, match="--quasi-ids"):
        audit(train, synthetic=train, quasi_ids=["nope"])
    with pytest.raises(InputError, match="unknown budget"):
        audit(train, synthetic=train, budget="huge")
    r = audit(train, synthetic=train, plan=TINY)
    assert any("no control set" in n for n in r.notes)


def test_budgets_grow() -> None:
    q, s, p = (BUDGETS[b] for b in (Budget.QUICK, Budget.STANDARD, Budget.PAPER))
    assert q.shadows < s.shadows < p.shadows and q.n_attacks < s.n_attacks <= p.n_attacks
    assert p.shadows == 4000 and p.tests == 200 and p.n == 1000  # Table 1 of Meeus et al. (2023)


def test_missing_torch_skips_the_attention_attack_with_a_note(
    split, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "torch", None)  # import torch -> ImportError
    train, _, _ = split
    plan = BudgetPlan(100, 1, 1, 20, 20, 100, ("distance", "attention"), 4)
    r = audit(train, generator="indhist", plan=plan, seed=0)
    assert any("'attention' was skipped" in n and "synthleak[torch]" in n for n in r.notes)
    assert r.membership is not None
    assert {a for t in r.membership["targets"] for a in t["attacks"]} == {"distance"}
