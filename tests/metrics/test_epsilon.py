from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import ndtr
from scipy.stats import beta, norm

from synthleak.errors import InputError
from synthleak.metrics.epsilon import (
    CONFIDENCES,
    EpsilonEstimate,
    EpsilonVerdict,
    Neighbouring,
    ScoreDirection,
    best_threshold,
    clopper_pearson,
    empirical_epsilon,
    epsilon_ceiling,
    epsilon_lower_bound,
    epsilon_verdict,
    gdp_delta,
    gdp_epsilon,
    gdp_mu_from_auc,
    gdp_mu_interval,
    selection_split,
    trials_needed,
)

SUB = Neighbouring.SUBSTITUTE


def _balanced(rng: np.random.Generator, n: int) -> np.ndarray:
    return rng.permutation(np.r_[np.ones(n // 2), np.zeros(n - n // 2)]).astype(bool)


def _shared_pool(rng: np.random.Generator, n_targets: int, n_attacks: int, n_test: int, shift=0.0):
    """Scores of a shared pool as the membership game has them: one label column per target."""
    y = np.stack([_balanced(rng, n_test) for _ in range(n_targets)])
    scores, labels = {}, {}
    for t in range(n_targets):
        for a in range(n_attacks):
            scores[f"row {t} / attack {a}"] = rng.normal(size=n_test) + shift * y[t]
            labels[f"row {t} / attack {a}"] = y[t]
    return scores, labels


# --- Clopper-Pearson -----------------------------------------------------------------------


@pytest.mark.parametrize("confidence", CONFIDENCES)
def test_clopper_pearson_matches_beta_quantiles(confidence: float) -> None:
    n = 37
    k = np.arange(n + 1)
    lo, hi = clopper_pearson(k, n, confidence)
    a = (1 - confidence) / 2
    ref_lo = np.where(k == 0, 0.0, beta.ppf(a, np.maximum(k, 1), n - k + 1))
    ref_hi = np.where(k == n, 1.0, beta.ppf(1 - a, k + 1, np.maximum(n - k, 1)))
    np.testing.assert_allclose(lo, ref_lo, rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(hi, ref_hi, rtol=1e-10, atol=1e-14)
    # closed forms at the edges: (a)^(1/n) and 1 - (a)^(1/n)
    assert clopper_pearson(n, n, confidence)[0] == pytest.approx(a ** (1 / n), rel=1e-12)
    assert clopper_pearson(0, n, confidence)[1] == pytest.approx(1 - a ** (1 / n), rel=1e-12)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 400), st.data())
def test_clopper_pearson_is_ordered_and_nested(n: int, data: st.DataObject) -> None:
    k = data.draw(st.integers(0, n))
    lo90, hi90 = clopper_pearson(k, n, 0.9)
    lo99, hi99 = clopper_pearson(k, n, 0.99)
    assert 0 <= lo99 <= lo90 <= k / n <= hi90 <= hi99 <= 1
    if k < n:  # more successes, higher interval
        assert clopper_pearson(k + 1, n, 0.95)[0] > clopper_pearson(k, n, 0.95)[0]


def test_clopper_pearson_rejects_bad_counts() -> None:
    for k, n in ((3, 2), (-1, 5), (1, 0), (0.5, 3)):
        with pytest.raises(InputError):
            clopper_pearson(k, n)
    with pytest.raises(InputError, match="confidence"):
        clopper_pearson(1, 2, 1.0)


# --- lower bound and ceiling ---------------------------------------------------------------


def test_ceiling_closed_form() -> None:
    for n in (10, 100, 1000, 5000):
        a = 0.025
        closed = math.log(a ** (1 / n) / (1 - a ** (1 / n)))
        assert epsilon_ceiling(n, n) == pytest.approx(closed, rel=1e-12)
    assert epsilon_ceiling(100, 100) == pytest.approx(3.28, abs=0.01)  # "about 3.3"
    assert epsilon_ceiling(1000, 1000) == pytest.approx(5.60, abs=0.01)  # "about 5.6"
    # unequal classes and delta: the larger of the two ratios
    n1, n2, d, c = 80, 300, 1e-3, 0.99
    a = (1 - c) / 2
    closed = max(
        math.log((a ** (1 / n1) - d) / (1 - a ** (1 / n2))),
        math.log((a ** (1 / n2) - d) / (1 - a ** (1 / n1))),
    )
    assert epsilon_ceiling(n1, n2, confidence=c, delta=d) == pytest.approx(closed, rel=1e-12)
    # an add/remove claim tested on substitution trials: half, exactly so at delta = 0
    assert epsilon_ceiling(
        100, 100, neighbouring="add_remove", game_neighbouring="substitute"
    ) == pytest.approx(epsilon_ceiling(100, 100) / 2, rel=1e-12)


def test_lower_bound_formula_with_delta() -> None:
    tp, n_pos, fp, n_neg, d = 90, 100, 20, 100, 0.01
    tpr_lb = clopper_pearson(tp, n_pos)[0]
    fpr_ub = clopper_pearson(fp, n_neg)[1]
    expected = max(
        0.0,
        math.log((tpr_lb - d) / fpr_ub),
        math.log((1 - fpr_ub - d) / (1 - tpr_lb)),
    )
    assert epsilon_lower_bound(tp, n_pos, fp, n_neg, delta=d) == pytest.approx(expected)
    # vectorised over counts
    out = epsilon_lower_bound(np.array([50, 90]), 100, np.array([50, 20]), 100, delta=d)
    assert out.shape == (2,) and out[0] == 0.0 and out[1] == pytest.approx(expected)


def test_add_remove_conversion_is_the_fixed_point() -> None:
    tp, n, fp, d = 98, 200, 2, 1e-3
    e = epsilon_lower_bound(tp, n, fp, n, delta=d, neighbouring="add_remove")
    raw = epsilon_lower_bound(tp, n, fp, n, delta=(1 + math.exp(e)) * d)
    assert 0 < e < epsilon_lower_bound(tp, n, fp, n, delta=d) / 2
    assert 2 * e == pytest.approx(raw, abs=1e-9)
    with pytest.raises(InputError, match="add/remove trials"):
        epsilon_lower_bound(tp, n, fp, n, neighbouring="substitute", game_neighbouring="add_remove")
    with pytest.raises(InputError, match="neighbouring"):
        epsilon_lower_bound(tp, n, fp, n, neighbouring="swap")


@settings(max_examples=80, deadline=None)
@given(
    st.integers(2, 300),
    st.integers(2, 300),
    st.data(),
    st.sampled_from([0.0, 1e-5, 1e-2]),
    st.sampled_from(["substitute", "add_remove"]),
)
def test_lower_bound_monotone(
    n_pos: int, n_neg: int, data: st.DataObject, delta: float, nb: str
) -> None:
    tp = data.draw(st.integers(0, n_pos - 1))
    fp = data.draw(st.integers(1, n_neg))

    def lb(tp=tp, fp=fp, confidence=0.95, delta=delta) -> float:
        return float(
            epsilon_lower_bound(
                tp, n_pos, fp, n_neg, confidence=confidence, delta=delta, neighbouring=nb
            )
        )

    base = lb()
    assert 0.0 <= base <= epsilon_ceiling(n_pos, n_neg, delta=delta, neighbouring=nb) + 1e-12
    assert lb(tp=tp + 1) >= base - 1e-12  # more true positives: larger bound
    assert lb(fp=fp - 1) >= base - 1e-12  # fewer false positives: larger bound
    assert lb(delta=delta + 0.01) <= base + 1e-12  # larger delta: smaller bound
    assert lb(confidence=0.99) <= base + 1e-12 <= lb(confidence=0.9) + 2e-12


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 3000), st.integers(1, 3000))
def test_ceiling_grows_with_trials(n1: int, n2: int) -> None:
    assert epsilon_ceiling(n1 + 1, n2) >= epsilon_ceiling(n1, n2)
    assert epsilon_ceiling(n1, n2 + 1) >= epsilon_ceiling(n1, n2)


def test_trials_needed_is_the_smallest_count() -> None:
    for eps in (0.5, 1.0, 3.0):
        n = trials_needed(eps)
        assert n is not None
        assert epsilon_ceiling(n, n) > eps >= epsilon_ceiling(n - 1, n - 1)
    n_ar = trials_needed(1.0, neighbouring="add_remove", delta=1e-5)
    assert n_ar is not None and n_ar > trials_needed(1.0, delta=1e-5)
    assert trials_needed(25.0) is None  # beyond the ceiling of a billion trials per class


# --- selection split -----------------------------------------------------------------------


def test_split_is_stratified_seeded_and_ignores_scores() -> None:
    y = np.r_[np.ones(101), np.zeros(60)].astype(bool)
    m = selection_split(y, rng=np.random.default_rng(3))["attack"]
    assert m[y].sum() == 50 and m[~y].sum() == 30
    again = selection_split(y, rng=np.random.default_rng(3))["attack"]
    np.testing.assert_array_equal(m, again)
    other = selection_split(y, rng=np.random.default_rng(4))["attack"]
    assert not np.array_equal(m, other)


def test_split_keeps_each_shared_dataset_in_one_split() -> None:
    rng = np.random.default_rng(0)
    _, labels = _shared_pool(rng, n_targets=4, n_attacks=2, n_test=100)
    masks = selection_split(labels, rng=np.random.default_rng(1))
    first = next(iter(masks.values()))
    assert all(np.array_equal(first, m) for m in masks.values())  # position = dataset
    assert 45 <= first.sum() <= 55
    # own pools: trial ids keep the datasets of different targets apart
    ids = {k: np.arange(100) + 100 * int(k.split()[1]) for k in labels}
    own = selection_split(labels, rng=np.random.default_rng(1), trial_ids=ids)
    for k, y in labels.items():
        assert own[k][y].sum() == 25 and own[k][~y].sum() == 25  # one label per dataset: exact


def test_split_errors() -> None:
    with pytest.raises(InputError, match="trial_ids"):
        selection_split({"a": np.ones(4), "b": np.ones(5)}, rng=np.random.default_rng(0))
    with pytest.raises(InputError, match="fraction"):
        selection_split(np.ones(4), rng=np.random.default_rng(0), fraction=1.0)
    with pytest.raises(InputError, match="repeat"):
        selection_split(np.ones(3), rng=np.random.default_rng(0), trial_ids=[1, 1, 2])


# --- empirical epsilon ---------------------------------------------------------------------


def test_perfect_attack_reaches_the_ceiling_and_shows_a_violation() -> None:
    y = _balanced(np.random.default_rng(0), 400)
    est = empirical_epsilon(
        y.astype(float), y, rng=np.random.default_rng(1), claimed=1.0, neighbouring=SUB, delta=0
    )
    assert est.n_evaluation_in == est.n_evaluation_out == 100
    assert est.lower_bound == pytest.approx(est.ceiling) == pytest.approx(epsilon_ceiling(100, 100))
    assert est.tp == 100 and est.fp == 0
    assert est.verdict is EpsilonVerdict.VIOLATION and est.violation is True
    assert "Violation" in est.message and "3.28" in est.message
    assert est.mu == math.inf and est.mu_ci[0] > 3 and est.mu_ci[1] == math.inf
    for c in CONFIDENCES:
        assert est.bounds[f"{c:g}"] == pytest.approx(epsilon_ceiling(100, 100, confidence=c))


def test_claim_above_the_ceiling_is_inconclusive() -> None:
    y = _balanced(np.random.default_rng(0), 200)
    est = empirical_epsilon(y.astype(float), y, rng=np.random.default_rng(1), claimed=4.0)
    # add/remove claim on replace-one trials: the ceiling is half that of 50 trials per class
    assert est.ceiling == pytest.approx(
        epsilon_ceiling(50, 50, delta=1e-5, neighbouring="add_remove")
    )
    assert est.ceiling < 4.0 and est.verdict is EpsilonVerdict.INCONCLUSIVE
    assert est.violation is None
    need = trials_needed(4.0, delta=1e-5, neighbouring="add_remove")
    assert need is not None and f"About {need} evaluation trials" in est.message


def test_consistent_and_no_claim() -> None:
    rng = np.random.default_rng(5)
    y = _balanced(rng, 2000)
    s = rng.normal(size=y.size) + 0.5 * y
    est = empirical_epsilon(s, y, rng=np.random.default_rng(6), claimed=2.0)
    assert est.verdict is EpsilonVerdict.CONSISTENT and est.violation is False
    assert est.lower_bound <= 2.0 < est.ceiling and "does not prove the claim" in est.message
    none = empirical_epsilon(s, y, rng=np.random.default_rng(6))
    assert none.verdict is EpsilonVerdict.NO_CLAIM and none.claimed is None
    assert none.lower_bound == est.lower_bound


def test_random_attacks_give_no_false_alarms_at_the_cli_shapes() -> None:
    # the null at the shapes the membership game runs: shared pool of 200 test datasets,
    # 5 targets x 3 attacks, selection among all 15 candidates (and every threshold)
    alarms = []
    for seed in range(100):
        scores, labels = _shared_pool(np.random.default_rng(seed), 5, 3, 200)
        est = empirical_epsilon(
            scores, labels, rng=np.random.default_rng(10_000 + seed), neighbouring=SUB
        )
        alarms.append(est.lower_bound > 0)
        assert est.n_candidates == 15
    assert sum(alarms) <= 5  # at most the nominal 5 %


def test_selecting_on_the_evaluation_trials_would_inflate() -> None:
    # the same null, but the threshold and candidate chosen on the very trials of the bound:
    # the maximum of many 95 % bounds is no 95 % bound (the reason for the split)
    naive, honest = [], []
    for seed in range(100):
        scores, labels = _shared_pool(np.random.default_rng(seed), 5, 3, 200)
        best = max(best_threshold(scores[k], labels[k]).lower_bound for k in scores)
        naive.append(best > 0)
        est = empirical_epsilon(
            scores, labels, rng=np.random.default_rng(10_000 + seed), neighbouring=SUB, delta=0
        )
        honest.append(est.lower_bound > 0)
    assert sum(naive) >= 30  # measured: about 70 of 100 false alarms
    assert sum(honest) <= 5


def test_bound_holds_for_a_true_dp_mechanism() -> None:
    # the Laplace mechanism on a count (sensitivity 1, replace-one) is exactly eps-DP:
    # the 95 % lower bound may exceed the true eps in at most about 5 % of runs, and has power
    eps, n = 2.0, 2000
    over, bounds = 0, []
    for seed in range(60):
        rng = np.random.default_rng(seed)
        y = _balanced(rng, n)
        s = y + rng.laplace(0.0, 1.0 / eps, n)
        est = empirical_epsilon(s, y, rng=rng, neighbouring=SUB, delta=0)
        over += est.lower_bound > eps
        bounds.append(est.lower_bound)
    assert over <= 3
    assert np.mean(bounds) > 1.0


def test_strong_candidate_among_random_ones_is_chosen() -> None:
    rng = np.random.default_rng(2)
    scores, labels = _shared_pool(rng, 4, 3, 400)
    y = labels["row 2 / attack 1"]
    scores["row 2 / attack 1"] = rng.normal(size=400) + 3.0 * y
    est = empirical_epsilon(scores, labels, rng=np.random.default_rng(3), neighbouring=SUB)
    assert est.attack == est.mu_attack == "row 2 / attack 1"
    assert est.lower_bound > 1.0 and est.auc > 0.95
    assert est.auc_ci[0] <= est.auc <= est.auc_ci[1]


def test_lower_scores_for_members_are_found() -> None:
    rng = np.random.default_rng(4)
    y = _balanced(rng, 600)
    s = rng.normal(size=600) - 3.0 * y  # a distance: members are closer
    est = empirical_epsilon(s, y, rng=np.random.default_rng(5), neighbouring=SUB)
    assert est.direction is ScoreDirection.LOWER and est.lower_bound > 1.0


def test_bound_is_reproducible_and_independent_of_candidate_order() -> None:
    scores, labels = _shared_pool(np.random.default_rng(7), 3, 2, 200, shift=0.8)
    a = empirical_epsilon(scores, labels, rng=np.random.default_rng(8))
    b = empirical_epsilon(scores, labels, rng=np.random.default_rng(8))
    assert a.same_as(b)
    rev = {k: scores[k] for k in reversed(list(scores))}
    c = empirical_epsilon(rev, labels, rng=np.random.default_rng(8))
    assert c.lower_bound == a.lower_bound and c.attack == a.attack


def test_json_shape_and_round_trip() -> None:
    rng = np.random.default_rng(0)
    y = _balanced(rng, 300)
    est = empirical_epsilon(rng.normal(size=300) + y, y, rng=rng, claimed=1.0)
    doc = json.loads(est.to_json())
    for key in ("lower_bound", "confidence", "ceiling", "claimed", "verdict", "mu", "delta"):
        assert key in doc
    assert doc["confidence"] == 0.95 and doc["verdict"] in {v.value for v in EpsilonVerdict}
    assert set(doc["bounds"]) == {"0.9", "0.95", "0.99"}
    for key in ("attack", "threshold", "n_selection_in", "n_evaluation_out", "mu_ci", "auc"):
        assert key in doc
    back = EpsilonEstimate.from_json(est.to_json())
    assert back.same_as(est) and back.verdict is est.verdict
    assert "EpsilonEstimate(lower_bound=" in repr(est) and len(repr(est)) < 1200


def test_empirical_epsilon_input_errors() -> None:
    rng = np.random.default_rng(0)
    y = _balanced(rng, 20)
    with pytest.raises(InputError, match="NaN"):
        empirical_epsilon(np.r_[np.nan, np.zeros(19)], y, rng=rng)
    with pytest.raises(InputError, match="one label per score"):
        empirical_epsilon(np.zeros(19), y, rng=rng)
    with pytest.raises(InputError, match="0/1"):
        empirical_epsilon(np.zeros(20), np.full(20, 2), rng=rng)
    with pytest.raises(InputError, match="too few trials"):
        empirical_epsilon(np.zeros(3), [1, 0, 0], rng=rng)
    with pytest.raises(InputError, match="claimed"):
        empirical_epsilon(np.zeros(20), y, rng=rng, claimed=-1)
    with pytest.raises(InputError, match="delta"):
        empirical_epsilon(np.zeros(20), y, rng=rng, delta=1.0)
    with pytest.raises(InputError, match="same candidates"):
        empirical_epsilon({"a": np.zeros(20)}, {"b": y}, rng=rng)
    with pytest.raises(InputError, match="no scores"):
        empirical_epsilon({}, y, rng=rng)


def test_verdict_sentences() -> None:
    v, text = epsilon_verdict(0.5, 3.0, None)
    assert v is EpsilonVerdict.NO_CLAIM and "No epsilon was claimed" in text
    v, text = epsilon_verdict(0.5, 0.8, 1.0, n_in=50, n_out=50)
    assert v is EpsilonVerdict.INCONCLUSIVE and "50 IN and 50 OUT" in text
    v, _ = epsilon_verdict(1.5, 3.0, 1.0)
    assert v is EpsilonVerdict.VIOLATION
    v, _ = epsilon_verdict(1.0, 3.0, 1.0)  # equal is not above
    assert v is EpsilonVerdict.CONSISTENT


# --- Gaussian DP ---------------------------------------------------------------------------


def test_gdp_conversion() -> None:
    # Dong, Roth and Su (2022), Cor. 2.13 at mu = 1, eps = 1
    expected = norm.cdf(-0.5) - math.e * norm.cdf(-1.5)
    assert gdp_delta(1.0, 1.0) == pytest.approx(expected, rel=1e-12)
    for mu in (0.3, 1.0, 2.5):
        for d in (1e-5, 1e-3):
            e = gdp_epsilon(mu, d)
            assert gdp_delta(mu, e) == pytest.approx(d, rel=1e-6)
    assert gdp_epsilon(1.0, 0.0) == math.inf and gdp_epsilon(0.0, 1e-5) == 0.0
    assert gdp_epsilon(0.1, 0.5) == 0.0  # delta above delta(0): eps 0
    assert gdp_epsilon(1.0, 1e-5) < gdp_epsilon(2.0, 1e-5)


def test_mu_from_auc_inverts_the_gaussian_auc() -> None:
    for mu in (0.0, 0.5, 1.0, 3.0):
        assert gdp_mu_from_auc(float(ndtr(mu / math.sqrt(2)))) == pytest.approx(mu, abs=1e-9)
    assert gdp_mu_from_auc(0.3) == 0.0 and gdp_mu_from_auc(1.0) == math.inf


def test_mu_interval_null_variance_and_coverage() -> None:
    # at AUC 1/2 the interval is the Mann-Whitney null: AUC 1/2 +- z sqrt((n1+n2+1)/(12 n1 n2))
    lo, hi = gdp_mu_interval(0.5, 60, 80)
    half = 1.959963984540054 * math.sqrt((60 + 80 + 1) / (12 * 60 * 80))
    assert ndtr(hi / math.sqrt(2)) - 0.5 == pytest.approx(half, rel=0.05)
    assert lo == pytest.approx(-hi, rel=1e-6)
    # coverage on exactly Gaussian trials (the model of the interval)
    from synthleak.metrics.privacy import auc

    mu, n, covered = 1.0, 100, 0
    for seed in range(200):
        rng = np.random.default_rng(seed)
        a = auc(np.r_[np.ones(n), np.zeros(n)], np.r_[rng.normal(mu, 1, n), rng.normal(0, 1, n)])
        lo, hi = gdp_mu_interval(a, n, n)
        covered += lo <= mu <= hi
    assert 180 <= covered <= 199  # nominal 190


def test_mu_estimate_on_a_gaussian_mechanism() -> None:
    rng = np.random.default_rng(11)
    y = _balanced(rng, 4000)
    s = rng.normal(size=4000) + 1.0 * y  # exactly 1-GDP (replace-one)
    est = empirical_epsilon(s, y, rng=rng, neighbouring=SUB, delta=1e-5)
    assert est.mu == pytest.approx(1.0, abs=0.12)
    assert est.mu_ci[0] <= est.mu <= est.mu_ci[1]
    assert est.mu_epsilon == pytest.approx(gdp_epsilon(est.mu, 1e-5))
    assert est.mu_epsilon_ci[0] <= est.mu_epsilon <= est.mu_epsilon_ci[1]
    # the direct bound never exceeds the truth's eps at this delta
    assert est.lower_bound <= gdp_epsilon(1.0, 1e-5)
    # add/remove claim: mu halves (group privacy)
    ar = empirical_epsilon(s, y, rng=np.random.default_rng(12), delta=1e-5)
    assert ar.mu == pytest.approx(gdp_mu_from_auc(ar.auc) / 2)


def test_binormal_auc_variance_matches_the_bivariate_normal() -> None:
    from scipy.stats import multivariate_normal

    from synthleak.metrics.epsilon import _binormal_auc_var

    for mu in (-3.0, -0.5, 0.0, 1.0, 4.0):
        h = mu / math.sqrt(2)
        q = multivariate_normal(mean=[0, 0], cov=[[1, 0.5], [0.5, 1]]).cdf([h, h])
        a = norm.cdf(h)
        ref = (a * (1 - a) + (40 - 1 + 90 - 1) * (q - a * a)) / (40 * 90)
        got_a, got_v = _binormal_auc_var(mu, 40, 90)
        assert got_a == pytest.approx(a, rel=1e-12)
        assert got_v == pytest.approx(ref, rel=1e-5)


# --- rules fixed in advance ------------------------------------------------------------------
def _randomized_response(rng: np.random.Generator, y: np.ndarray, eps: float) -> np.ndarray:
    """A score in {0, 1} that is exactly eps-DP for the trials' relation (randomised response):
    P(1 | IN) = e^eps / (1 + e^eps), P(1 | OUT) = 1 / (1 + e^eps)."""
    p = np.where(y, math.exp(eps) / (1 + math.exp(eps)), 1 / (1 + math.exp(eps)))
    return (rng.random(y.size) < p).astype(float)


def test_fixed_rules_keep_the_level_beside_selected_candidates() -> None:
    """The null at the membership game's shapes (shared pool of 200 test datasets, 5 targets x
    3 attacks chosen among, plus each target's fixed rule on all trials): false alarms at most
    the nominal 5 %; and on an exactly eps-DP rule the bound exceeds eps as rarely."""
    alarms = over = 0
    for seed in range(100):
        rng = np.random.default_rng(seed)
        scores, labels = _shared_pool(rng, 5, 3, 200)
        fixed = {}
        for t in range(5):
            key = f"row {t} / rule"
            labels[key] = labels[f"row {t} / attack 0"]
            scores[key] = _randomized_response(rng, labels[key], 0.0 if t else 1.0)
            fixed[key] = 0.5
        est = empirical_epsilon(
            scores,
            labels,
            rng=np.random.default_rng(10_000 + seed),
            neighbouring=SUB,
            game_neighbouring=SUB,
            delta=0,
            fixed_rules=fixed,
        )
        assert est.n_fixed_rules == 5 and est.n_candidates == 20
        alarms += est.lower_bound > 1.0  # row 0's rule is 1-DP, every other signal is null
        over += est.bounds["0.9"] > 1.0
    assert alarms <= 5 and over <= 10


def test_a_fixed_rule_is_tested_on_every_trial() -> None:
    """A perfect rule fixed in advance reaches the ceiling of all the trials (the selected test
    only that of half of them), and says so: no selection counts, the bound from all trials."""
    rng = np.random.default_rng(3)
    y = _balanced(rng, 64)
    scores = {"row 1 / novelty": y.astype(float), "row 1 / query": rng.normal(size=64)}
    base = dict(rng=np.random.default_rng(0), neighbouring=SUB, game_neighbouring=SUB, delta=0)
    plain = empirical_epsilon(scores, y, **base)
    base["rng"] = np.random.default_rng(0)
    est = empirical_epsilon(scores, y, fixed_rules={"row 1 / novelty": 0.5}, **base)
    assert est.fixed_rule and est.attack == "row 1 / novelty" and est.threshold == 0.5
    assert (est.tp, est.fp, est.n_evaluation_in, est.n_evaluation_out) == (32, 0, 32, 32)
    assert est.n_selection_in == 0 and math.isnan(est.selection_lower_bound)
    # all 32 per class at error 0.05 / 2, against 16 per class at 0.05
    top, _ = clopper_pearson(32, 32, 1 - 0.025)
    _, zero = clopper_pearson(0, 32, 1 - 0.025)
    assert est.lower_bound == pytest.approx(math.log(top / zero)) == est.ceiling
    assert est.ceiling > plain.ceiling
    back = EpsilonEstimate.from_json(est.to_json())
    assert back.fixed_rule and math.isnan(back.selection_lower_bound)
    # a fixed rule that loses leaves the selected test's figures, at half the error
    base["rng"] = np.random.default_rng(0)
    weak = {"row 1 / novelty": np.zeros(64), "row 1 / query": y + 0.0}
    est = empirical_epsilon(weak, y, fixed_rules={"row 1 / novelty": 0.5}, **base)
    assert not est.fixed_rule and est.attack == "row 1 / query" and est.n_selection_in == 16
    with pytest.raises(InputError, match="not candidates"):
        empirical_epsilon(scores, y, fixed_rules={"row 9 / novelty": 0.5}, **base)
