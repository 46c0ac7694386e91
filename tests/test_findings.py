"""Headline findings: the strongest (target, attack) without winner's curse."""

from __future__ import annotations

import warnings

import numpy as np

from synthleak.errors import BaselineWarning
from synthleak.findings import membership_finding
from synthleak.games.membership import (
    MembershipConfig,
    MembershipResult,
    PoolMode,
    TargetOutcome,
    attack_outcome,
)
from synthleak.results import Verdict


def _result(rng: np.random.Generator, n_targets: int, signal: float = 0.0) -> MembershipResult:
    """Targets x 3 attacks scored on 200 test datasets; target 0 gets ``signal``, others noise."""
    y = rng.permutation(np.arange(200) % 2)
    targets = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", BaselineWarning)
        for t in range(n_targets):
            attacks = {}
            for a in ("query", "distance", "groundhog"):
                s = rng.normal(size=200) + (signal * y if t == 0 else 0.0)
                attacks[a] = attack_outcome(y, s, rng=rng, n_boot=100)
            targets.append(TargetOutcome(t, "distance", attacks))
    cfg = MembershipConfig(
        "nonprivate", "top:1", 100, 100, 100, 200, PoolMode.SHARED, 1000, 1000,
        ("query", "distance", "groundhog"), {}, 0, "x", 5000,
    )  # fmt: skip
    return MembershipResult(cfg, tuple(targets))


def test_no_winners_curse_on_pure_noise() -> None:
    """30 noise pairs: quoting the best pair's own interval flags a leak in most runs; selecting
    on half the test datasets and measuring on the other half keeps false alarms near 2.5%."""
    naive = honest = 0
    runs = 40
    for seed in range(runs):
        rng = np.random.default_rng(seed)
        res = _result(rng, 10)
        best = max((o for t in res.targets for o in t.attacks.values()), key=lambda o: o.auc.value)
        naive += best.auc.ci_low > 0.5
        honest += membership_finding(res, rng=rng).estimate.ci_low > 0.5
    assert naive >= 0.3 * runs  # the winner's curse is real
    assert honest <= 0.1 * runs


def test_a_real_signal_is_found_and_named() -> None:
    rng = np.random.default_rng(1)
    f = membership_finding(_result(rng, 8, signal=2.0), rng=rng)
    assert f.details["row"] == 0 and f.verdict in (Verdict.LEAK, Verdict.SEVERE)
    assert f.details["n_selection"] + f.details["n_evaluation"] == 200
    assert f.where and "row 0" in f.where[0]


def test_too_few_test_datasets_is_not_measured() -> None:
    rng = np.random.default_rng(2)
    res = _result(rng, 2)
    tiny = MembershipResult(
        res.config,
        tuple(
            TargetOutcome(
                t.row,
                t.selected_by,
                {
                    a: attack_outcome(o.labels[:6], o.scores[:6], rng=rng, n_boot=50)
                    for a, o in t.attacks.items()
                },
            )
            for t in res.targets
        ),
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", BaselineWarning)
        assert membership_finding(tiny, rng=rng).verdict is Verdict.NOT_MEASURED


def test_the_black_box_headline_carries_its_tpr_at_low_fpr() -> None:
    """The headline finding gives TPR at FPR 0.1, 0.01 and 0.001 on the same held-out test
    datasets as its AUC, each with the non-members it rests on."""
    from synthleak.metrics.privacy import TprAtFpr

    rng = np.random.default_rng(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", BaselineWarning)
        result = _result(rng, 5, signal=2.0)
        f = membership_finding(result, rng=rng)
    tprs = {k: TprAtFpr.from_dict(v) for k, v in f.details["tpr_at_fpr"].items()}
    assert set(tprs) == {"0.1", "0.01", "0.001"}
    o = next(t for t in result.targets if t.row == f.details["row"]).attacks[f.details["attack"]]
    assert all(0 < t.n_non_members < int((o.labels == 0).sum()) for t in tprs.values())
    assert tprs["0.1"].value is not None and tprs["0.1"].ci_low is not None
    assert tprs["0.1"].ci_low > 0.1  # a strong signal is caught at low FPR, interval and all
