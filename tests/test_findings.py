"""Headline findings: the strongest (target, attack) without winner's curse."""

from __future__ import annotations

import warnings

import numpy as np

from synthleak.errors import BaselineWarning
from synthleak.findings import membership_finding, records_above
from synthleak.games.membership import (
    MembershipConfig,
    MembershipResult,
    PoolMode,
    TargetOutcome,
    attack_outcome,
)
from synthleak.verdicts import Verdict, at_least_sentence


def _game(
    rng: np.random.Generator,
    n_targets: int,
    *,
    leaky: int,
    signal: float,
    leaky_attacks: tuple[str, ...],
    first_row: int,
    n_boot: int,
) -> MembershipResult:
    """Targets x 3 attacks scored on 200 test datasets; the first ``leaky`` targets get
    ``signal`` in ``leaky_attacks``, everything else is noise."""
    y = rng.permutation(np.arange(200) % 2)
    targets = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", BaselineWarning)
        for t in range(n_targets):
            attacks = {}
            for a in ("query", "distance", "groundhog"):
                lift = signal * y if (t < leaky and a in leaky_attacks) else 0.0
                attacks[a] = attack_outcome(y, rng.normal(size=200) + lift, rng=rng, n_boot=n_boot)
            targets.append(TargetOutcome(first_row + t, "distance", attacks))
    cfg = MembershipConfig(
        "nonprivate", "top:1", 100, 100, 100, 200, PoolMode.SHARED, 1000, 1000,
        ("query", "distance", "groundhog"), {}, 0, "x", 5000,
    )  # fmt: skip
    return MembershipResult(cfg, tuple(targets))


def _result(rng: np.random.Generator, n_targets: int, signal: float = 0.0) -> MembershipResult:
    """Target 0 gets ``signal`` in every attack, the others noise."""
    every = ("query", "distance", "groundhog")
    return _game(
        rng, n_targets, leaky=1, signal=signal, leaky_attacks=every, first_row=0, n_boot=100
    )


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


def _planted(rng: np.random.Generator, n_targets: int, leaky: int, signal: float):
    """The first ``leaky`` targets (rows 100, 101, ...) get ``signal`` in the query attack."""
    return _game(
        rng, n_targets, leaky=leaky, signal=signal, leaky_attacks=("query",), first_row=100,
        n_boot=20,
    )  # fmt: skip


def test_at_least_k_is_calibrated_on_releases_that_leak_nothing() -> None:
    """40 null games of 10 targets: "at least 1 record above 0.5" is a false alarm at most at
    about the stated 5 % (targets tested in the order of their AUC on the other half, each
    target's attack chosen there too)."""
    false = 0
    for seed in range(40):
        rng = np.random.default_rng(seed)
        above = records_above(_planted(rng, 10, 0, 0.0), rng=rng)
        assert [e["level"] for e in above] == [0.5, 0.8]
        assert all(e["n_tested"] == 10 and e["n_targets"] == 10 for e in above)
        false += above[0]["k"] > 0
        assert above[1]["k"] == 0
    assert false <= 4  # nominal 5 % of 40 = 2


def test_at_least_k_finds_the_planted_records_by_row() -> None:
    rng = np.random.default_rng(3)
    res = _planted(rng, 10, 3, 3.0)  # AUC about 0.98 on the leaky targets
    low, high = records_above(res, rng=rng)
    assert sorted(low["rows"]) == [100, 101, 102] and sorted(high["rows"]) == [100, 101, 102]
    assert at_least_sentence(high).startswith(
        "at least 3 of the 10 targets have a membership AUC above 0.8 (95% confidence): rows 10"
    )
    # weaker leaks: above chance, not above 0.8
    low, high = records_above(_planted(rng, 10, 3, 0.9), rng=rng)  # AUC about 0.74
    assert low["k"] == 3 and high["k"] == 0
    assert at_least_sentence(high) == (
        "none of the 10 targets is shown to have a membership AUC above 0.8 (95% confidence)"
    )
    f = membership_finding(res, rng=rng)
    assert sorted(f.details["at_least"][1]["rows"]) == [100, 101, 102]


def test_the_count_starts_from_the_headline_record() -> None:
    """The count tests the headline's record and attack first, on the same held-out halves: a
    headline whose interval lies above 0.8 is counted above 0.8 (over many games, one leaky
    target among null ones, where a correction over the targets could miss it)."""
    counted = severe = 0
    for seed in range(20):
        rng = np.random.default_rng(seed)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", BaselineWarning)
            f = membership_finding(_planted(rng, 10, 1, 1.6), rng=rng)
        low, high = f.details["at_least"]
        if low["rows"]:
            assert low["rows"][0] == f.details["row"]
        if f.estimate.ci_low > 0.8:
            severe += 1
            assert high["rows"][:1] == [f.details["row"]]
            counted += 1
    assert severe >= 5  # the check above was exercised


def test_at_least_k_on_real_games_a_copy_and_a_generator_that_ignores_its_data(
    temporary_generators,
) -> None:
    """A release that copies its training data (m = 3n) exposes every target severely; a
    generator that ignores its training data lists a record in about 5 % of games."""
    from tests.games.test_membership import FAST, FixedSource, make_omega

    from synthleak.games.membership import MembershipGame
    from synthleak.generators.base import GeneratorInfo

    temporary_generators(GeneratorInfo("test-at-least-fixed", FixedSource, (), "test oracle"))
    FixedSource.reference = make_omega(n=500, seed=99)

    def game(generator: str, seed: int, data_seed: int):
        g = MembershipGame(
            generator,
            targets=[0, 5, 7],
            train_size=60,
            synthetic_size=180,
            n_shadows=20,
            n_tests=80,
            attacks=("query", "distance"),
            attack_params=FAST,
            aux_size=400,
            test_size=300,
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", BaselineWarning)
            return g.run(make_omega(seed=data_seed), seed=seed)

    _, severe = records_above(game("nonprivate", 3, 0), rng=np.random.default_rng(0))
    assert sorted(severe["rows"]) == [0, 5, 7]
    false = 0
    for seed in range(12):  # 5 % nominal: 3 or more of 12 happens about 2 % of the time
        exposed, _ = records_above(
            game("test-at-least-fixed", seed, 1), rng=np.random.default_rng(0)
        )
        assert exposed["n_tested"] == 3
        false += exposed["k"] > 0
    assert false <= 2


def test_the_details_of_a_finding_read_back_typed_as_they_were_written() -> None:
    """The typed details are the finding's details dict, key for key, and a finding that holds
    only ``not_measured`` reads as the defaults (no row, a NaN AUC)."""
    import dataclasses
    import math

    from tests.report.conftest import make_membership

    from synthleak.findings import BlackBoxDetails, NoBoxDetails, RiskMapDetails
    from synthleak.verdicts import Finding

    f = membership_finding(make_membership(np.random.default_rng(1)), rng=np.random.default_rng(2))
    d = BlackBoxDetails.of(f)
    assert d.as_details() == f.details and list(d.as_details()) == list(f.details)
    assert d.row in (17, 4, 250) and d.attack == "query" and d.n_evaluation > 0
    back = Finding.from_json(f.to_json())
    assert BlackBoxDetails.of(back) == d
    empty = dataclasses.replace(f, details={"not_measured": "too few test datasets"})
    e = BlackBoxDetails.of(empty)
    assert e.row is None and math.isnan(e.auc_all_tests) and e.at_least == []
    assert RiskMapDetails.of(empty).row is None and NoBoxDetails.of(empty).attack is None
    nb = NoBoxDetails("dcr", 0.61, 100, 100)
    assert NoBoxDetails.of(dataclasses.replace(f, details=nb.as_details())) == nb
