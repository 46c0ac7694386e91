"""The ``singling_out`` stage of the audit (:mod:`synthleak.stages.singling_out`)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
import pytest
from tests.stages.audit_helpers import TINY

import synthleak.pipeline as pipeline
from synthleak.data.release import Release
from synthleak.games.singling_out import SinglingOutResult
from synthleak.pipeline import BUDGETS, Budget, audit
from synthleak.results import StageStatus
from synthleak.stages import singling_out
from synthleak.verdicts import Verdict


def test_small_data_says_too_small_with_the_size_it_needs(split) -> None:
    """20 records: the membership stages say "too small to measure" with the sizes they need,
    in the audit's words (no API parameter names), instead of a game's parameter error."""
    r = audit(split[0].take(np.arange(20)), generator="indhist", plan=BUDGETS[Budget.QUICK])
    by = {s.name: s for s in r.stages}
    for name in ("membership_nobox", "membership"):
        assert by[name].status is StageStatus.NOT_MEASURED
        assert by[name].reason.startswith("too small to measure"), by[name].reason
        assert "n_members" not in by[name].reason and "train_size" not in by[name].reason
    assert "20 original records" in by["membership"].reason
    # and no finding on 20 records reads as reassuring (a linkability interval of 0-0.17 is
    # narrow only because nothing succeeded)
    assert r.findings and all(f.verdict is not Verdict.NO_EVIDENCE for f in r.findings), [
        (f.key, f.verdict) for f in r.findings
    ]


def test_play_singling_out_is_the_stages_game(split, monkeypatch: pytest.MonkeyPatch) -> None:
    """``play_singling_out`` plays the stage's game: the stage's findings are its result's
    figures, and on the original itself the predicates single out far more than on others."""
    train, ctl, other = (t.take(np.arange(300)) for t in split)
    played: list[SinglingOutResult] = []
    play = singling_out.play_singling_out

    def spy(*args: Any, **kwargs: Any) -> SinglingOutResult:
        played.append(play(*args, **kwargs))
        return played[-1]

    monkeypatch.setattr(pipeline, "STAGES", (singling_out.STAGE,))
    monkeypatch.setattr(singling_out, "play_singling_out", spy)
    plan = replace(TINY, n_attacks=60)
    r = audit(train, synthetic=train, control=ctl, plan=plan, seed=0)
    (res,) = played
    assert [a.attack for a in res.attacks] == list(singling_out.AUDIT_ATTACKS)
    figures = [(f.estimate.value, f.estimate.ci_low, f.estimate.ci_high) for f in r.findings]
    assert figures == [(a.risk.value, a.risk.ci_low, a.risk.ci_high) for a in res.attacks]
    monkeypatch.undo()
    leak = singling_out.play_singling_out(
        Release(train, train, ctl), attacks=("univariate",), n_attacks=60, seed=1
    )
    none = singling_out.play_singling_out(
        Release(train, other, ctl), attacks=("univariate",), n_attacks=60, seed=1
    )
    assert leak.attacks[0].risk.value > none.attacks[0].risk.value
