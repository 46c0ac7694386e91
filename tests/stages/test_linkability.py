"""The ``linkability`` stage of the audit (:mod:`synthleak.stages.linkability`)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
import pytest
from tests.stages.audit_helpers import TINY

import synthleak.pipeline as pipeline
from synthleak.data.release import Release, as_table
from synthleak.games.linkability import LinkabilityResult
from synthleak.pipeline import audit
from synthleak.stages import linkability


def test_the_columns_are_split_in_two_halves_quasi_identifiers_first(split) -> None:
    train, _, _ = split
    names = list(train.schema.names)
    a, b = linkability._default_link_columns(train.schema, ["sex", "race"])
    assert a[:2] == ["sex", "race"] and set(a) | set(b) == set(names) and not set(a) & set(b)
    one = as_table(train.to_frame()[["age"]])
    assert linkability._default_link_columns(one.schema, ()) == (["age"], ["age"])


def test_linkability_is_a_risk_against_the_control(split, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pipeline, "STAGES", (linkability.STAGE,))
    train, ctl, other = split
    (f,) = audit(train, synthetic=other, control=ctl, plan=TINY, seed=0).findings
    assert f.key == "linkability" and f.baseline == 0.0
    assert f.estimate.ci_low <= 0.0 <= f.estimate.ci_high  # other people: no link beyond chance
    (g,) = audit(train, synthetic=train, control=ctl, plan=TINY, seed=0).findings
    assert g.estimate.ci_low > 0.2  # the original itself: many records linked beyond chance


def test_play_linkability_is_the_stages_game(split, monkeypatch: pytest.MonkeyPatch) -> None:
    """``play_linkability`` plays the stage's game: the stage's finding is its result's figure,
    on the default halves; on the original itself far more halves are re-linked than on others."""
    train, ctl, other = (t.take(np.arange(300)) for t in split)
    played: list[LinkabilityResult] = []
    play = linkability.play_linkability

    def spy(*args: Any, **kwargs: Any) -> LinkabilityResult:
        played.append(play(*args, **kwargs))
        return played[-1]

    monkeypatch.setattr(pipeline, "STAGES", (linkability.STAGE,))
    monkeypatch.setattr(linkability, "play_linkability", spy)
    (f,) = audit(train, synthetic=train, control=ctl, plan=replace(TINY, n_attacks=60)).findings
    (res,) = played
    a = res.attacks[0]
    assert (f.estimate.value, f.estimate.ci_low) == (a.risk.value, a.risk.ci_low)
    assert (list(a.aux_a), list(a.aux_b)) == linkability._default_link_columns(train.schema, ())
    monkeypatch.undo()
    halves = {"aux_a": ["age", "sex", "race"], "aux_b": ["occupation", "hours-per-week"]}
    leak = linkability.play_linkability(Release(train, train, ctl), n_attacks=60, seed=1, **halves)
    none = linkability.play_linkability(Release(train, other, ctl), n_attacks=60, seed=1, **halves)
    assert leak.attacks[0].risk.value > none.attacks[0].risk.value


def test_the_section_keeps_each_targets_outcome_as_rows_given(
    split, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the section holds the targets attacked and those linked (what a comparison pairs), as
    # rows of the original and of the control; two releases share the targets
    monkeypatch.setattr(pipeline, "STAGES", (linkability.STAGE,))
    train, ctl, other = split
    plan = replace(TINY, n_attacks=60)
    r = audit(train, synthetic=train, control=ctl, plan=plan, seed=0)
    s = audit(train, synthetic=other, control=ctl, plan=plan, seed=0)
    assert r.linkability is not None and s.linkability is not None
    a, b = r.linkability.attacks[0], s.linkability.attacks[0]
    assert len(a.target_rows) == len(set(a.target_rows)) == a.n_attacks == 60
    assert len(a.control_rows) == a.n_control_attacks
    assert set(a.linked_rows) <= set(a.target_rows) and len(a.linked_rows) == a.n_success
    assert set(a.control_linked_rows) <= set(a.control_rows)
    assert len(a.control_linked_rows) == a.n_control_success
    assert max(a.target_rows) < len(train) and max(a.control_rows) < len(ctl)
    assert (a.target_rows, a.control_rows) == (b.target_rows, b.control_rows)
    assert a.n_success > b.n_success  # the original itself re-links far more halves
    assert type(r).from_json(r.to_json()).linkability == r.linkability
