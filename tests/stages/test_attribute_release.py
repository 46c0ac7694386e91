"""The ``attribute_release`` stage of the audit (:mod:`synthleak.stages.attribute_release`)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from tests.stages.audit_helpers import TINY, by_key

import synthleak.pipeline as pipeline
from synthleak import InputError
from synthleak.data.release import Release, as_table
from synthleak.games.attribute_release import ReleaseAttributeResult
from synthleak.pipeline import BUDGETS, Budget, audit
from synthleak.runtime import Runtime
from synthleak.stages import attribute_release


def test_release_attribute_inference_is_bounded_by_the_plan(split) -> None:
    train, ctl, _ = split
    plan = replace(TINY, aia_records=120, aia_queries=500)
    lines: list[str] = []
    r = audit(
        train,
        synthetic=train,
        control=ctl,
        plan=plan,
        seed=1,
        secret="income",
        log=lines.append,
    )
    aia = by_key(r)["attribute.recon.release"]
    # whole parts of at most the budget's 120 records (they share quasi-identifier values)
    # until at least 120 are attacked, and as many control records holding their values
    attacked = aia.details["records_attacked"]
    assert 120 <= attacked < 240
    assert aia.details["training_records"] == len(train)
    assert aia.details["queries_per_program"] == 500
    assert aia.estimate.n_trials == attacked + aia.details["control_records_attacked"]
    # 120 records and 500 queries per program are far below every budget: the copy's leak is
    # seen in only a few seeds out of forty at this size (it is at the budgets' sizes, above)
    assert any("projected time" in line and "release" in line for line in lines)
    assert any("of 1000 training records" in line for line in lines)


def test_budgets_bound_release_attribute_inference() -> None:
    assert BUDGETS[Budget.QUICK].aia_records is not None
    assert BUDGETS[Budget.QUICK].aia_queries is not None
    q, s = BUDGETS[Budget.QUICK], BUDGETS[Budget.STANDARD]
    assert q.aia_records <= s.aia_records and q.aia_queries <= s.aia_queries  # type: ignore[operator]


def test_numeric_secret_release_stage(split) -> None:
    from synthleak.games.secret import SecretRule

    train, ctl, other = split
    rule = SecretRule(tolerance=5.0)
    r = audit(
        train, synthetic=train, control=ctl, plan=TINY, seed=1, secret="age", secret_rule=rule
    )
    aia = by_key(r)["attribute.recon.release"]
    assert (
        aia.estimate.ci_low > 0
        and "right when the guess is within 5 of the true value" in aia.title
    )
    assert aia.details["success_rule"] == rule.describe() and len(aia.details["secret_bins"]) == 10
    null = audit(
        train, synthetic=other, control=ctl, plan=TINY, seed=1, secret="age", secret_rule=rule
    )
    assert by_key(null)["attribute.recon.release"].estimate.ci_low <= 0
    with pytest.raises(InputError, match="numeric column"):
        audit(train, synthetic=train, control=ctl, plan=TINY, secret="age")


def test_play_attribute_release_is_the_stages_game(split, monkeypatch: pytest.MonkeyPatch) -> None:
    """``play_attribute_release`` plays the stage's game (the stage's finding is its result's
    advantage), and never on the runtime's cluster: its units share the whole release, so an
    unreachable scheduler changes nothing."""
    cols = ["age", "education", "sex", "race", "income"]
    train, ctl, _ = (t.to_frame()[cols].iloc[:300] for t in split)
    played: list[ReleaseAttributeResult] = []
    play = attribute_release.play_attribute_release

    def spy(*args: Any, **kwargs: Any) -> ReleaseAttributeResult:
        played.append(play(*args, **kwargs))
        return played[-1]

    monkeypatch.setattr(pipeline, "STAGES", (attribute_release.STAGE,))
    monkeypatch.setattr(attribute_release, "play_attribute_release", spy)
    plan = replace(TINY, aia_records=60, aia_queries=300)
    r = audit(train, synthetic=train, control=ctl, plan=plan, seed=1, secret="income")
    (res,) = played
    assert by_key(r)["attribute.recon.release"].estimate == res.advantage
    monkeypatch.undo()
    release = Release(as_table(train), as_table(train), as_table(ctl))
    kw: dict[str, Any] = {"secret": "income", "n_targets": 60, "seed": 3}
    kw["attack_params"] = {"n_queries": 300, "time_limit": 60.0}
    local = play(release, **kw)
    far = play(release, runtime=Runtime(cluster="tcp://unreachable.invalid:8786"), **kw)
    assert (far.advantage, far.accuracy) == (local.advantage, local.accuracy)
    assert local.config["n_targets"] >= 60
