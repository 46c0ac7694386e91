"""The membership attack on a given release, learned from shadow releases: its oracles (a
release of unseen candidates gives the null TPR; a release copying its training records is
found), input checks and the result's round trip."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.special import ndtri

from synthleak.attacks.mia_shadow_release import (
    REPORTED_FPRS,
    ShadowReleaseAttack,
    ShadowReleaseResult,
    _NormalScale,
    attack_release,
)
from synthleak.data.datasets import load_adult
from synthleak.data.io import encode_frames
from synthleak.data.shadow_releases import ShadowRelease
from synthleak.data.table import Table
from synthleak.errors import InputError

N_TRAIN = 400


def _world(
    seed: int, release_of
) -> tuple[list[ShadowRelease], pd.DataFrame, pd.DataFrame, np.ndarray]:
    """Five shadows trained on overlapping samples of a 1,200-record population; a target
    trained on records of the same population; 150 members and 150 records no model saw."""
    adult = load_adult().sample(frac=1.0, random_state=seed).reset_index(drop=True)
    adult = adult.iloc[:, :8]
    population = adult.iloc[:1200]
    unseen = adult.iloc[1800:1950].reset_index(drop=True)
    rng = np.random.default_rng(seed)
    shadows = []
    for j in range(5):
        train = population.iloc[rng.choice(len(population), N_TRAIN, replace=False)]
        shadows.append(ShadowRelease(f"s{j}", release_of(train, rng), train.reset_index(drop=True)))
    target_train = population.iloc[rng.choice(len(population), N_TRAIN, replace=False)]
    release = release_of(target_train, rng)
    members = target_train.iloc[:150].reset_index(drop=True)
    candidates = pd.concat([members, unseen], ignore_index=True)
    labels = np.r_[np.ones(150, bool), np.zeros(150, bool)]
    return shadows, release, candidates, labels


def _copy(train: pd.DataFrame, rng: np.random.Generator) -> pd.DataFrame:
    return train.reset_index(drop=True)


def _independent(train: pd.DataFrame, rng: np.random.Generator) -> pd.DataFrame:
    """Each column resampled on its own: no record of the training set survives."""
    return pd.DataFrame(
        {c: train[c].to_numpy()[rng.integers(0, len(train), len(train))] for c in train.columns}
    )


FAST = {"records_per_shadow": 100, "max_iter": 30, "nobox": ("dcr-diff",), "error_rounds": 10}


def test_a_release_that_copies_its_training_records_is_found() -> None:
    shadows, release, candidates, labels = _world(0, _copy)
    res = attack_release(
        shadows, release, candidates, labels=labels, seed=0, attack=ShadowReleaseAttack(**FAST)
    )
    tpr01 = res.tpr[REPORTED_FPRS.index(0.01)]
    assert tpr01.value is not None and tpr01.value >= 0.9
    assert res.auc is not None and res.auc.value > 0.95
    # the shadows copy as much as the target: the meta-classifier learned it, no override
    assert res.verbatim is not None and not res.verbatim.applied
    assert res.verbatim.shadow_found == res.verbatim.shadow_records


@pytest.mark.parametrize("seed", [0, 3])
def test_a_copy_is_found_by_an_attack_learned_on_shadows_that_never_copy(seed: int) -> None:
    # the target copies its training records, the shadows never do: the meta-classifier never
    # saw a member's distance of 0, the verbatim check finds the copies instead
    shadows, _, candidates, labels = _world(seed, _independent)
    release = candidates.iloc[:150]  # the members, verbatim (part of the target's training set)
    res = attack_release(
        shadows, release, candidates, labels=labels, seed=seed, attack=ShadowReleaseAttack(**FAST)
    )
    v = res.verbatim
    assert v is not None and v.applied and v.found == 150 and v.shadow_found == 0
    assert v.p_value < 1e-3 and "ranked above every other" in v.sentence()
    tpr01 = res.tpr[REPORTED_FPRS.index(0.01)]
    assert tpr01.value is not None and tpr01.value >= 0.9
    assert max(res.scores[150:]) < 0.5 <= min(res.scores[:150])


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_candidates_no_model_saw_give_the_null_tpr(seed: int) -> None:
    # every candidate is unseen; half are called members at random: the true TPR at 0.1 is 0.1
    shadows, release, candidates, _ = _world(seed, _independent)
    unseen = candidates.iloc[150:].reset_index(drop=True)
    more = load_adult().sample(frac=1.0, random_state=seed).iloc[1950:2100, :8]
    pool = pd.concat([unseen, more], ignore_index=True)
    labels = np.random.default_rng(seed).permutation(np.r_[np.ones(150, bool), np.zeros(150, bool)])
    res = attack_release(
        shadows, release, pool, labels=labels, seed=seed, attack=ShadowReleaseAttack(**FAST)
    )
    tpr = res.tpr[0]
    assert tpr.fpr == 0.1 and tpr.ci_low is not None and tpr.ci_high is not None
    assert tpr.ci_low <= 0.1 <= tpr.ci_high
    assert res.verbatim is not None and not res.verbatim.applied


@pytest.mark.parametrize("seed", [1, 2])
def test_the_verbatim_check_keeps_the_null_where_it_applies(seed: int) -> None:
    # categorical records repeat: a disjoint real sample holds many candidates verbatim, and
    # the shadows (columns resampled apart) hold few of their own records: the check applies,
    # yet members and non-members are found alike, so the figures stay at chance
    cols = ["workclass", "education", "marital-status", "sex", "race", "relationship"]
    adult = load_adult().sample(frac=1.0, random_state=seed).reset_index(drop=True)[cols]
    rng = np.random.default_rng(seed)
    shadows = []
    for j in range(5):
        train = adult.iloc[rng.choice(1200, N_TRAIN, replace=False)].reset_index(drop=True)
        shadows.append(ShadowRelease(f"s{j}", _independent(train, rng), train))
    release = adult.iloc[2200:2600].reset_index(drop=True)
    candidates = adult.iloc[1800:2100].reset_index(drop=True)  # no model saw them
    labels = np.random.default_rng(seed).permutation(np.r_[np.ones(150, bool), np.zeros(150, bool)])
    res = attack_release(
        shadows, release, candidates, labels=labels, seed=seed, attack=ShadowReleaseAttack(**FAST)
    )
    assert res.verbatim is not None and res.verbatim.applied
    assert res.auc is not None and res.auc.ci_low <= 0.5 <= res.auc.ci_high
    tpr = res.tpr[0]
    assert tpr.ci_low is not None and tpr.ci_high is not None
    assert tpr.ci_low <= 0.1 <= tpr.ci_high


def test_the_result_round_trips_and_scores_are_probabilities() -> None:
    shadows, release, candidates, labels = _world(4, _independent)
    res = attack_release(
        shadows, release, candidates, labels=labels, seed=4, attack=ShadowReleaseAttack(**FAST)
    )
    assert len(res.scores) == len(candidates)
    assert all(0.0 <= s <= 1.0 for s in res.scores)
    assert res.n_shadows == 5 and res.n_examples > 0
    back = ShadowReleaseResult.from_json(res.to_json())
    assert back.scores == res.scores and back.tpr == res.tpr and back.auc == res.auc


def test_same_seed_same_scores() -> None:
    shadows, release, candidates, _ = _world(5, _independent)
    a = ShadowReleaseAttack(**FAST).fit_score(shadows, release, candidates, seed=7)
    b = ShadowReleaseAttack(**FAST).fit_score(shadows, release, candidates, seed=7)
    np.testing.assert_array_equal(a, b)


def test_bad_inputs_raise_input_errors() -> None:
    shadows, release, candidates, labels = _world(6, _independent)
    with pytest.raises(InputError, match="shadow_releases"):
        attack_release(shadows[:1], release, candidates, seed=0)
    with pytest.raises(InputError, match="labels"):
        attack_release(
            shadows,
            release,
            candidates,
            labels=labels[:10],
            seed=0,
            attack=ShadowReleaseAttack(**FAST),
        )
    with pytest.raises(InputError, match="records_per_shadow"):
        ShadowReleaseAttack(records_per_shadow=0)
    with pytest.raises(InputError, match="not fitted"):
        ShadowReleaseAttack().score(release, candidates)


def test_column_errors_are_smaller_where_the_release_keeps_a_records_relations() -> None:
    # on the release, b is a function of a (b = 2a, colour follows the sign of a); a record that
    # keeps those relations is better predicted than one that breaks them
    rng = np.random.default_rng(0)
    a = rng.normal(size=2000)
    release = pd.DataFrame({"a": a, "b": 2 * a, "colour": np.where(a > 0, "red", "blue")})
    shadows = [
        ShadowRelease(f"s{j}", release, release.sample(800, random_state=j).reset_index(drop=True))
        for j in range(3)
    ]
    points = pd.DataFrame(
        {"a": [1.0, 1.0, -1.0], "b": [2.0, -2.0, -2.0], "colour": ["red", "red", "red"]}
    )
    atk = ShadowReleaseAttack(
        records_per_shadow=50, max_iter=5, nobox=(), column_errors=True, error_rounds=20
    )
    atk.fit_shadows(shadows, seed=0, targets=(points,))
    names = atk.signal_names
    assert names[-3:] == ("error:colour", "error:a", "error:b")
    table = Table.from_frame(points, atk._schema)
    err = atk._errors(table, atk._predictors[0])
    colour, b = err[:, 0], err[:, 2]
    assert b[0] > b[1] + 1.0  # b = 2a kept vs broken
    assert colour[0] > colour[2] + 1.0  # red with a > 0 kept vs red with a < 0 broken
    assert atk.feature_names[-5:] == tuple(
        f"error:b{s}" for s in ("", ":z_out", ":share_out_below", ":mean_out", ":in_gap")
    )


def test_without_column_errors_the_signals_are_the_distances_and_nobox_scores() -> None:
    shadows, release, candidates, _ = _world(8, _independent)
    atk = ShadowReleaseAttack(**(FAST | {"column_errors": False}))
    scores = atk.fit_score(shadows, release, candidates, seed=0)
    assert scores.shape == (len(candidates),)
    assert not any(n.startswith("error:") for n in atk.signal_names)
    with pytest.raises(InputError, match="error_rounds"):
        ShadowReleaseAttack(error_rounds=0)


def test_a_copying_release_is_found_with_column_errors_too() -> None:
    shadows, release, candidates, labels = _world(9, _copy)
    atk = ShadowReleaseAttack(**(FAST | {"column_errors": True}))
    res = attack_release(shadows, release, candidates, labels=labels, seed=0, attack=atk)
    tpr01 = res.tpr[REPORTED_FPRS.index(0.01)]
    assert tpr01.value is not None and tpr01.value >= 0.9
    assert any(f.startswith("error:") for f in res.features)


def test_source_examples_add_one_member_example_per_record_with_two_shadows_left_out(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # with source examples every drawn record is also a member example of its own shadow; each
    # example's calibration leaves out exactly two shadows, so that how many shadows calibrate
    # it (the denominator of its share feature) does not reveal its label
    shadows = _world(10, _independent)[0]
    seen: list[np.ndarray] = []
    features = ShadowReleaseAttack._features

    def spy(own, others, member_of, use=None):  # type: ignore[no-untyped-def]
        if use is not None:
            seen.append(use)
        return features(own, others, member_of, use)

    monkeypatch.setattr(ShadowReleaseAttack, "_features", staticmethod(spy))
    plain = ShadowReleaseAttack(**FAST).fit_shadows(shadows, seed=0)
    more = ShadowReleaseAttack(**(FAST | {"source_examples": True})).fit_shadows(shadows, seed=0)
    drawn = FAST["records_per_shadow"] * len(shadows)
    assert 0.95 * drawn <= more.n_examples_ - plain.n_examples_ <= drawn
    assert len(seen) == 2
    for use in seen:
        assert (use.sum(axis=1) == len(shadows) - 2).all()


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_source_examples_keep_the_null_tpr(seed: int) -> None:
    shadows, release, candidates, _ = _world(seed, _independent)
    unseen = candidates.iloc[150:].reset_index(drop=True)
    more = load_adult().sample(frac=1.0, random_state=seed).iloc[1950:2100, :8]
    pool = pd.concat([unseen, more], ignore_index=True)
    labels = np.random.default_rng(seed).permutation(np.r_[np.ones(150, bool), np.zeros(150, bool)])
    atk = ShadowReleaseAttack(**(FAST | {"source_examples": True, "negatives_per_record": 4}))
    res = attack_release(shadows, release, pool, labels=labels, seed=seed, attack=atk)
    tpr = res.tpr[0]
    assert tpr.ci_low is not None and tpr.ci_high is not None
    assert tpr.ci_low <= 0.1 <= tpr.ci_high


def test_a_copying_release_is_found_with_source_examples_too() -> None:
    shadows, release, candidates, labels = _world(0, _copy)
    atk = ShadowReleaseAttack(**(FAST | {"source_examples": True, "negatives_per_record": 4}))
    res = attack_release(shadows, release, candidates, labels=labels, seed=0, attack=atk)
    tpr01 = res.tpr[REPORTED_FPRS.index(0.01)]
    assert tpr01.value is not None and tpr01.value >= 0.9


def test_marginal_signals_read_each_columns_closest_release_value() -> None:
    # on the release, a takes the values 0..99 (x 10): a record whose a is one of them is at
    # distance 0 on that column, one between two of them farther, one outside the range farthest
    release = pd.DataFrame({"a": np.arange(100) * 10.0, "b": np.r_[np.nan, np.arange(99.0)]})
    shadows = [
        ShadowRelease(f"s{j}", release, release.sample(60, random_state=j).reset_index(drop=True))
        for j in range(3)
    ]
    points = pd.DataFrame({"a": [500.0, 505.0, 5000.0], "b": [np.nan, 3.0, 3.5]})
    atk = ShadowReleaseAttack(records_per_shadow=20, max_iter=5, nobox=(), quantile=False)
    atk.fit_shadows(shadows, seed=0, targets=(points,))
    assert atk.signal_names[-2:] == ("marginal:a", "marginal:b")
    rel = atk._quantiles(Table.from_frame(release, atk._schema)).values
    pts = atk._quantiles(Table.from_frame(points, atk._schema)).values
    m = atk._marginals(pts, rel)
    assert m[0, 0] > m[1, 0] > m[2, 0]  # equal value, then between two values, then outside
    assert m[0, 0] == pytest.approx(-np.log(1e-9))  # an exact match stands apart
    assert m[0, 1] == m[0, 0]  # a missing value, and the release has missing values there
    no_missing = rel.copy()
    no_missing[:, 1] = 0.5
    assert atk._marginals(pts, no_missing)[0, 1] == pytest.approx(-np.log(1.0 + 1e-9))


def test_marginal_signals_find_a_release_that_reuses_its_records_values_column_by_column() -> None:
    # each column of the release is resampled from the training set on its own: no training
    # record survives whole, but a member's values do, one column at a time
    shadows, release, candidates, labels = _world(10, _independent)
    aucs = {}
    for marginals in (True, False):
        atk = ShadowReleaseAttack(**(FAST | {"marginals": marginals}))
        res = attack_release(shadows, release, candidates, labels=labels, seed=0, attack=atk)
        assert res.auc is not None
        aucs[marginals] = res.auc
    assert aucs[True].ci_low > 0.5 and aucs[True].value > aucs[False].value + 0.05


def test_normal_scores_are_the_inverse_normal_of_each_values_mid_rank_in_the_release() -> None:
    # a = 0.25, 10.25, ..., 990.25 on the release: a point equal to a release value takes that
    # value's score, a point between two values a score between theirs, one beyond the range
    # the bound
    b = np.random.default_rng(0).normal(size=100)
    b[0] = np.nan
    release = pd.DataFrame({"a": np.arange(100) * 10.0 + 0.25, "b": b, "c": ["x", "y"] * 50})
    points = pd.DataFrame(
        {"a": [500.25, 505.0, -7.0], "b": [np.nan, 0.1, 0.2], "c": ["y", "x", "x"]}
    )
    enc = encode_frames({"release": release, "points": points})
    rel, pts = enc.tables["release"], enc.tables["points"]
    assert [c.name for c in rel.schema.continuous] == ["a", "b"]
    scale = _NormalScale(rel)
    p, r = scale(pts), scale.release
    assert p.schema == r.schema
    bound = float(ndtri(1 - 0.5 / 100))
    a = r.schema.continuous[0]
    assert (a.low, a.high) == pytest.approx((-bound, bound))
    pa, ra = p.values[:, 0], r.values[:, 0]
    assert pa[0] == pytest.approx(ra[50]) and pa[0] == pytest.approx(ndtri(50.5 / 100))
    assert ra[50] < pa[1] < ra[51]
    assert pa[2] == pytest.approx(-bound)
    assert np.isnan(p.values[0, 1]) and np.isnan(r.values[0, 1])  # missing stays missing
    assert r.schema.continuous[1].high == pytest.approx(ndtri(1 - 0.5 / 99))  # 99 values
    assert (p.codes == pts.codes).all() and (r.codes == rel.codes).all()


def test_normal_score_distances_ignore_how_a_continuous_column_is_measured() -> None:
    # the scores depend on ranks alone, so a column recorded on another monotone scale (here
    # exp) gives the same distances; raw distances change
    rng = np.random.default_rng(0)
    release = pd.DataFrame({"a": rng.normal(size=500), "b": rng.normal(size=500)})
    points = pd.DataFrame({"a": rng.normal(size=50), "b": rng.normal(size=50)})
    atk = ShadowReleaseAttack(scales=(1, 5))
    out = []
    for f in (lambda v: v, np.exp):
        enc = encode_frames(
            {
                "release": release.assign(a=f(release["a"])),
                "points": points.assign(a=f(points["a"])),
            }
        )
        rel, pts = enc.tables["release"], enc.tables["points"]
        scale = _NormalScale(rel)
        out.append(
            (atk._scale_distances(scale(pts), scale.release), atk._scale_distances(pts, rel))
        )
    np.testing.assert_allclose(out[0][0], out[1][0], rtol=1e-5)
    assert not np.allclose(out[0][1], out[1][1], rtol=1e-3)


def test_normal_score_signals_are_named_and_can_be_left_out() -> None:
    shadows, release, candidates, _ = _world(11, _independent)
    on = ShadowReleaseAttack(**FAST).fit_shadows(shadows, seed=0)
    off = ShadowReleaseAttack(**(FAST | {"normal_scores": False})).fit_shadows(shadows, seed=0)
    assert [n for n in on.signal_names if n.startswith("normal-dist@")] == [
        "normal-dist@1",
        "normal-dist@5",
        "normal-dist@20",
    ]
    assert not any(n.startswith("normal-dist@") for n in off.signal_names)
    assert on.score(release, candidates).shape == (len(candidates),)
