"""The membership attack on a given release, learned from shadow releases: its oracles (a
release of unseen candidates gives the null TPR; a release copying its training records is
found), input checks and the result's round trip."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from synthleak.attacks.mia_shadow_release import (
    REPORTED_FPRS,
    ShadowReleaseAttack,
    ShadowReleaseResult,
    attack_release,
)
from synthleak.data.datasets import load_adult
from synthleak.data.shadow_releases import ShadowRelease
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


FAST = {"records_per_shadow": 100, "max_iter": 30, "nobox": ("dcr-diff",)}


def test_a_release_that_copies_its_training_records_is_found() -> None:
    shadows, release, candidates, labels = _world(0, _copy)
    res = attack_release(
        shadows, release, candidates, labels=labels, seed=0, attack=ShadowReleaseAttack(**FAST)
    )
    tpr01 = res.tpr[REPORTED_FPRS.index(0.01)]
    assert tpr01.value is not None and tpr01.value >= 0.9
    assert res.auc is not None and res.auc.value > 0.95


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
