"""The release membership game's result (:mod:`synthleak.games.membership_release`)."""

from __future__ import annotations

import numpy as np

from synthleak.games.membership_release import ExposedRecord, MembershipReleaseResult
from synthleak.metrics.privacy import auc_estimate, tpr_at_fpr_estimate


def example() -> MembershipReleaseResult:
    """A result measured on scores that set 40 members apart from 200 non-members."""
    rng = np.random.default_rng(0)
    y = np.r_[np.ones(40, dtype=bool), np.zeros(200, dtype=bool)]
    s = rng.normal(size=240) + 2 * y
    return MembershipReleaseResult(
        shadows_from="folder shadows",
        n_shadows=4,
        n_examples=1000,
        member_rows=tuple(range(40)),
        non_member_rows=tuple(range(200)),
        n_dropped=3,
        auc=auc_estimate(y, s, rng=rng, n_boot=200),
        tpr=tuple(tpr_at_fpr_estimate(y, s, f) for f in (0.1, 0.01, 0.001)),
        records=(ExposedRecord(7, 0.9, 1 / 201), ExposedRecord(3, 0.8, 2 / 201)),
        fit_seconds=1.5,
        score_seconds=0.5,
    )


def test_the_result_round_trips_through_json() -> None:
    r = example()
    back = MembershipReleaseResult.from_json(r.to_json())
    assert back.to_json() == r.to_json()
    assert back.records[0] == r.records[0] and back.tpr == r.tpr


def test_the_summary_keys_the_tprs_by_fpr_and_says_what_cannot_be_resolved() -> None:
    d = example().summary()
    assert list(d["tpr_at_fpr"]) == ["0.1", "0.01", "0.001"]
    assert d["tpr_at_fpr"]["0.1"]["ci"] is not None
    # 200 non-members cannot resolve an FPR of 0.001
    assert d["tpr_at_fpr"]["0.001"]["tpr"] is None and d["tpr_at_fpr"]["0.001"]["note"]
    assert d["n_members"] == 40 and d["n_non_members"] == 200 and d["n_dropped"] == 3
    assert d["records"][0] == {"row": 7, "score": 0.9, "p_value": 1 / 201}
