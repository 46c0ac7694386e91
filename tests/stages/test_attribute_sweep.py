"""The ``attribute_sweep`` stage of the audit (:mod:`synthleak.stages.attribute_sweep`)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
import pytest
from tests.stages.audit_helpers import TINY

import synthleak.pipeline as pipeline
from synthleak.data.release import Release, as_table
from synthleak.games.sweep import AttributeSweepResult
from synthleak.pipeline import STAGES, audit
from synthleak.runtime import Runtime
from synthleak.stages import attribute_sweep


def test_a_column_has_one_figure_named_or_swept(split, monkeypatch) -> None:
    """A column's attribute-inference figure under a rule is the same whether the audit names
    it as the secret or sweeps every column: the same game (seed, records, control swaps,
    attack, quasi-identifiers), a categorical and a numeric secret alike."""
    import synthleak.pipeline as audit_module
    from synthleak.games.secret import SecretRule

    cols = ["age", "education", "sex", "race", "income"]
    train, ctl, other = (t.to_frame()[cols].iloc[:400] for t in split)
    monkeypatch.setattr(
        audit_module,
        "STAGES",
        tuple(st for st in STAGES if st.name in {"attribute_release", "attribute_sweep"}),
    )
    kw = {"plan": replace(TINY, aia_records=100, aia_queries=1000), "seed": 2}
    swept = audit(train, synthetic=other, control=ctl, secret="all", **kw)
    every = {f.key: f for f in swept.findings}
    for secret, rule in (("income", None), ("age", SecretRule(bins=5))):
        named = audit(train, synthetic=other, control=ctl, secret=secret, secret_rule=rule, **kw)
        (one,) = [f for f in named.findings if f.key == "attribute.recon.release"]
        two = every[f"attribute.sweep.{secret}"]
        a, b = one.estimate, two.estimate
        assert np.isfinite(a.value)
        assert (a.value, a.ci_low, a.ci_high, a.n_trials) == (
            b.value,
            b.ci_low,
            b.ci_high,
            b.n_trials,
        )


def test_play_attribute_sweep_is_the_stages_game(split, monkeypatch: pytest.MonkeyPatch) -> None:
    """``play_attribute_sweep`` plays the stage's sweep (one finding per column, each its
    column's excess), and never on the runtime's cluster (an unreachable scheduler changes
    nothing)."""
    cols = ["age", "sex", "race", "income"]
    train, ctl, other = (t.to_frame()[cols].iloc[:200] for t in split)
    played: list[AttributeSweepResult] = []
    play = attribute_sweep.play_attribute_sweep

    def spy(*args: Any, **kwargs: Any) -> AttributeSweepResult:
        played.append(play(*args, **kwargs))
        return played[-1]

    monkeypatch.setattr(pipeline, "STAGES", (attribute_sweep.STAGE,))
    monkeypatch.setattr(attribute_sweep, "play_attribute_sweep", spy)
    plan = replace(TINY, aia_records=40, aia_queries=200)
    r = audit(train, synthetic=other, control=ctl, plan=plan, seed=1, secret="all")
    (res,) = played
    assert {f.key: f.estimate for f in r.findings} == {
        f"attribute.sweep.{c.column}": c.excess for c in res.columns
    }
    monkeypatch.undo()
    release = Release(as_table(train), as_table(other), as_table(ctl))
    kw: dict[str, Any] = {"n_targets": 40, "seed": 3, "attack_params": {"n_queries": 200}}
    local = play(release, **kw)
    far = play(release, runtime=Runtime(cluster="tcp://unreachable.invalid:8786"), **kw)
    assert [c.excess for c in far.columns] == [c.excess for c in local.columns]
    assert {c.column for c in local.columns} == set(cols)
