"""The ``utility`` stage of the audit (:mod:`synthleak.stages.utility`)."""

from __future__ import annotations

import math

import pytest
from tests.stages.audit_helpers import TINY

import synthleak.pipeline as pipeline
from synthleak.pipeline import audit
from synthleak.stages import utility


def test_utility_is_measured_with_the_control_as_its_reference(
    split, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pipeline, "STAGES", (utility.STAGE,))
    train, ctl, other = split
    u = audit(train, synthetic=other, control=ctl, plan=TINY, seed=0).utility
    assert u is not None and u.has_reference
    assert math.isfinite(u.mre_gt10) and math.isfinite(u.tvd3)
    # a copy of the original is as close to it as a release can be
    copy = audit(train, synthetic=train, control=ctl, plan=TINY, seed=0).utility
    assert copy is not None and copy.tvd3 < u.tvd3
    # without a release there is nothing to measure
    r = audit(train, generator="indhist", plan=TINY, seed=0)
    (rec,) = [s for s in r.stages if s.name == "utility"]
    assert rec.status.value == "not measured" and "release" in rec.needs
