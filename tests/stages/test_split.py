"""The ``split`` stage of the audit (:mod:`synthleak.stages.split`)."""

from __future__ import annotations

import pytest
from tests.stages.audit_helpers import TINY

import synthleak.pipeline as pipeline
from synthleak.pipeline import audit
from synthleak.stages import release
from synthleak.stages import split as split_stage


def test_the_split_holds_out_the_control_fraction(split, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pipeline, "STAGES", (split_stage.STAGE, release.STAGE))
    train, ctl, other = split
    r = audit(train, generator="indhist", control_fraction=0.25, plan=TINY, seed=1)
    assert (r.config.n_control, r.config.n_synthetic) == (250, 750)
    assert any("250 original records (25%) were held out" in n for n in r.notes)
    # a given release or control: nothing to hold out
    given = audit(train, synthetic=other, control=ctl, generator="indhist", plan=TINY, seed=1)
    (rec,) = [s for s in given.stages if s.name == "split"]
    assert rec.status.value == "not applicable" and rec.reason
