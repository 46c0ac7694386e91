"""The ``linkability`` stage of the audit (:mod:`synthleak.stages.linkability`)."""

from __future__ import annotations

import pytest
from tests.stages.audit_helpers import TINY

import synthleak.pipeline as pipeline
from synthleak.data.release import as_table
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
