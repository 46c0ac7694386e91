"""Singling-out and linkability games: statistics, oracles and input checks."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest

import synthleak as sl
from synthleak.attacks.linkability import LinkabilityAttack
from synthleak.attacks.predicates import PredicateSet
from synthleak.attacks.singling_out import MultivariateSinglingOut, UnivariateSinglingOut
from synthleak.errors import BaselineWarning, InputError
from synthleak.games.singling_out import (
    LinkabilityGame,
    RiskResult,
    SinglingOutGame,
    SuccessRate,
    check_same_columns,
    residual_success,
    risk_from_counts,
    size_correction,
    success_rate,
)


@pytest.fixture(scope="module")
def splits(adult_table: sl.Table) -> tuple[sl.Table, sl.Table, sl.Table]:
    """Three disjoint random Adult samples: original, control, independent 'synthetic'."""
    idx = np.random.default_rng(0).permutation(len(adult_table))
    return tuple(adult_table.take(idx[i * 1500 : (i + 1) * 1500]) for i in range(3))  # type: ignore[return-value]


# --- statistics -------------------------------------------------------------------------------


def test_success_rate_is_wilson() -> None:
    r = success_rate(30, 100, 0.95)
    z = 1.959963984540054
    assert r.value == pytest.approx((30 + z * z / 2) / (100 + z * z))
    assert r.error == pytest.approx(z / (100 + z * z) * math.sqrt(30 * 70 / 100 + z * z / 4))
    lo, hi = sl.metrics.privacy.wilson_interval(30, 100, 0.95)
    assert (r.value - r.error, r.value + r.error) == pytest.approx((lo, hi))
    with pytest.raises(InputError):
        success_rate(0, 0)


def test_residual_success_error_propagation() -> None:
    a, c = SuccessRate(0.5, 0.05), SuccessRate(0.2, 0.04)
    r = residual_success(a, c)
    assert r.value == pytest.approx(0.3 / 0.8)
    assert r.error == pytest.approx(math.hypot(0.05 / 0.8, 0.04 * 0.5 / 0.64))
    assert math.isnan(residual_success(a, SuccessRate(1.0, 0.0)).value)


def test_risk_from_counts_warns_and_round_trips() -> None:
    with pytest.warns(BaselineWarning):
        res = risk_from_counts(
            "univariate",
            n_requested=100,
            n_attacks=80,
            n_success=2,
            n_control_attacks=80,
            n_control_success=2.0,
            n_baseline_attacks=100,
            n_baseline_success=5,
        )
    assert res.attack_rate.n_trials == 80  # rates over the predicates actually generated
    assert 0.0 <= res.risk.ci_low <= res.risk.value <= res.risk.ci_high <= 1.0
    assert RiskResult.from_dict(res.to_dict()) == res
    s = res.summary()
    assert set(s) == {
        "mode",
        "risk",
        "ci",
        "attack_rate",
        "control_rate",
        "baseline_rate",
        "n_attacks",
        "n_success",
    }
    assert s["n_attacks"] == 80


def test_size_correction_identity_and_direction() -> None:
    rng = np.random.default_rng(0)
    bits = np.zeros((5, 2), dtype=np.uint64)
    assert size_correction(bits, 100, 100, rng=rng) == 1.0
    # predicates matching each record with probability w: the chance of exactly one match in a
    # population of size m is m w (1 - w)^(m - 1), rising with m while m w < 1 and falling after
    n = 2048
    for w, rises in ((1 / (8 * n), True), (2 / n, False)):
        mask = rng.random((400, n)) < w
        packed = np.packbits(mask, axis=1, bitorder="little").view(np.uint64)
        factor = size_correction(packed, n, 4 * n, rng=rng)
        assert (factor > 1.2) if rises else (factor < 0.8)


# --- oracles ------------------------------------------------------------------------------------


@pytest.mark.parametrize("attack", [UnivariateSinglingOut(), MultivariateSinglingOut(n_cols=3)])
def test_synthetic_equal_to_original_gives_high_risk(splits, attack) -> None:  # type: ignore[no-untyped-def]
    ori, ctl, _ = splits
    res = SinglingOutGame(ori, ori, ctl, n_attacks=200).run(attack, rng=np.random.default_rng(0))
    assert res.n_attacks == 200
    assert res.attack_rate.value > 0.9  # every predicate singles out a synthetic = original record
    assert res.risk.ci_low > 0.5


@pytest.mark.parametrize("attack", [UnivariateSinglingOut(), MultivariateSinglingOut(n_cols=3)])
def test_independent_synthetic_gives_risk_covering_zero(splits, attack) -> None:  # type: ignore[no-untyped-def]
    ori, ctl, indep = splits
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", BaselineWarning)
        res = SinglingOutGame(ori, indep, ctl, n_attacks=200).run(
            attack, rng=np.random.default_rng(1)
        )
    assert res.risk.ci_low == 0.0
    assert res.risk.value < 0.1


def test_same_seed_same_result(splits) -> None:  # type: ignore[no-untyped-def]
    ori, ctl, syn = splits
    runs = [
        SinglingOutGame(ori, syn, ctl, n_attacks=100).run(
            MultivariateSinglingOut(), rng=np.random.default_rng(5)
        )
        for _ in range(2)
    ]
    assert runs[0] == runs[1]


def test_linkability_oracles(splits) -> None:  # type: ignore[no-untyped-def]
    ori, ctl, indep = splits
    # both halves hold the near-unique fnlwgt, so a synthetic copy links them
    a = ["age", "workclass", "fnlwgt", "education"]
    b = ["fnlwgt", "hours-per-week", "native-country", "occupation", "race"]
    high = LinkabilityGame(ori, ori, ctl, n_attacks=200).run(
        LinkabilityAttack(a, b), rng=np.random.default_rng(0)
    )
    assert high.attack_rate.value > 0.8
    assert high.risk.ci_low > 0.5
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", BaselineWarning)
        low = LinkabilityGame(ori, indep, ctl, n_attacks=200).run(
            LinkabilityAttack(a, b, n_neighbors=5), rng=np.random.default_rng(0)
        )
    assert low.risk.ci_low == 0.0
    assert low.n_attacks == 200


# --- input checks -------------------------------------------------------------------------------


def test_column_mismatch_is_one_clear_error(splits) -> None:  # type: ignore[no-untyped-def]
    ori, ctl, syn = splits
    with pytest.raises(InputError, match=r"the synthetic data: missing column\(s\) \['income'\]"):
        check_same_columns(original=ori, synthetic=syn.select(syn.schema.names[:-1]), control=ctl)
    with pytest.raises(InputError, match="n_attacks"):
        SinglingOutGame(ori, syn, ctl, n_attacks=0)


def test_no_singling_out_predicate_is_an_input_error(splits) -> None:  # type: ignore[no-untyped-def]
    ori, ctl, syn = splits
    game = SinglingOutGame(ori, syn, ctl, n_attacks=10)
    with pytest.raises(InputError, match="no predicate"):
        game.score(
            PredicateSet.empty(ori.schema),
            PredicateSet.empty(ori.schema),
            mode="x",
            rng=np.random.default_rng(0),
        )


def test_duplicates_count_once() -> None:
    df = pd.DataFrame({"a": ["x", "x", "y", "z"], "b": [1.0, 1.0, 2.0, 3.0]})
    t = sl.Table.from_frame(df, sl.infer_schema(df))
    game = SinglingOutGame(t, t, t, n_attacks=5)
    assert len(game.original) == 3  # de-duplicated as in Anonymeter
