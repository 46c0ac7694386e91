"""The ``singling_out`` stage of the audit (:mod:`synthleak.stages.singling_out`)."""

from __future__ import annotations

import numpy as np

from synthleak.pipeline import BUDGETS, Budget, audit
from synthleak.results import StageStatus, Verdict


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
