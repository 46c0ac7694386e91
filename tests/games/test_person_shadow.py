"""Person-level shadow-model membership: null and copy oracles, design, errors."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from synthleak.data.relational import RelationalData, RelationalSchema
from synthleak.errors import GeneratorFailure, InputError
from synthleak.games.person_shadow import (
    FEATURES,
    PersonShadowGame,
    PersonShadowResult,
    play_person_shadow,
    subset_persons,
)

SCHEMA = RelationalSchema.build(
    {"person": "pid", "visit": "vid"},
    [("visit", "pid", "person")],
    categorical={"person": ["region"], "visit": ["kind"]},
)


def population(n: int, seed: int, first_key: int) -> RelationalData:
    rng = np.random.default_rng(seed)
    pid = np.arange(first_key, first_key + n)
    person = pd.DataFrame(
        {"pid": pid, "age": rng.integers(18, 90, n), "region": rng.choice(list("abcd"), n)}
    )
    owner = np.repeat(pid, rng.poisson(3, n) + 1)
    m = len(owner)
    visit = pd.DataFrame(
        {
            "vid": np.arange(m) + 10 * first_key,
            "pid": owner,
            "amount": np.round(rng.lognormal(3, 1, m), 2),
            "kind": rng.choice(list("xyz"), m),
        }
    )
    return RelationalData(SCHEMA, {"person": person, "visit": visit})


POP = population(120, 0, 0)
OTHERS = population(200, 1, 100_000)  # other people: never in any training set


class Replayer:
    """Copy oracle: releases its training persons' histories verbatim (new keys)."""

    def fit(self, data: RelationalData, *, rng: np.random.Generator) -> Replayer:
        self.data = data
        return self

    def sample(self, n: int, *, rng: np.random.Generator) -> RelationalData:
        person = self.data.frames["person"].iloc[:n].copy()
        new = dict(zip(person["pid"], 500_000 + np.arange(len(person)), strict=True))
        person["pid"] = person["pid"].map(new)
        visit = self.data.frames["visit"]
        visit = visit[visit["pid"].isin(new)].copy()
        visit["pid"] = visit["pid"].map(new)
        return RelationalData(SCHEMA, {"person": person, "visit": visit})


class OtherPeople:
    """Null oracle: ignores its training data, releases persons of another sample."""

    def fit(self, data: RelationalData, *, rng: np.random.Generator) -> OtherPeople:
        return self

    def sample(self, n: int, *, rng: np.random.Generator) -> RelationalData:
        rows = rng.choice(len(OTHERS.frames["person"]), n, replace=False)
        return subset_persons(OTHERS, "person", rows)


class Failing:
    def fit(self, data: RelationalData, *, rng: np.random.Generator) -> Failing:
        raise GeneratorFailure("this generator always fails")


GAME = PersonShadowGame(n_targets=6, n_shadows=8, n_tests=8, train_size=20)


@pytest.fixture(scope="module")
def copied() -> PersonShadowResult:
    return GAME.run(POP, Replayer, seed=0)


def test_copy_oracle_is_caught(copied: PersonShadowResult) -> None:
    res = copied
    assert isinstance(res, PersonShadowResult)
    assert set(res.attacks) == {*FEATURES, "combined"}
    a = res.primary_attack.auc
    assert a.value > 0.95 and a.ci_low > 0.85
    assert res.attacks["child-exact"].auc.value > 0.95
    assert res.primary_attack.tpr_at_fpr["0.1"].value > 0.8
    assert len(res.target_keys) == 6 and set(res.target_keys) <= set(POP.frames["person"]["pid"])
    assert res.n_shadows == 8 and res.n_tests == 8 and res.failed == 0
    # each target's AUC over the test releases comes with its bootstrap interval, high for
    # a generator that replays its training persons
    assert res.target_ci_low is not None and res.target_ci_high is not None
    for v, lo, hi in zip(res.target_auc, res.target_ci_low, res.target_ci_high, strict=True):
        assert lo <= v <= hi and lo >= 0.0 and hi <= 1.0
    assert np.nanmedian(res.target_ci_low) > 0.5


def test_null_oracle_is_not_a_leak() -> None:
    excluded = 0
    values = []
    covered, defined = 0, 0
    for seed in range(3):
        res = GAME.run(POP, OtherPeople, seed=seed)
        a = res.primary_attack.auc
        values.append(a.value)
        excluded += not (a.ci_low <= 0.5 <= a.ci_high)
        assert res.target_ci_low is not None and res.target_ci_high is not None
        for lo, hi in zip(res.target_ci_low, res.target_ci_high, strict=True):
            if not np.isnan(lo):
                defined += 1
                covered += lo <= 0.5 <= hi
    assert excluded <= 1
    assert 0.35 < float(np.mean(values)) < 0.65
    # the targets' own intervals cover the null about as often as they claim (18 targets)
    assert defined >= 15 and covered >= defined - 3


def test_same_seed_same_result(copied: PersonShadowResult) -> None:
    a = copied
    b = GAME.run(POP, Replayer, seed=0)
    assert a.to_json() == b.to_json()
    assert PersonShadowResult.from_json(a.to_json()).to_json() == a.to_json()


def test_subset_persons_keeps_whole_histories() -> None:
    sub = subset_persons(POP, "person", np.array([5, 2]))
    assert sub.frames["person"]["pid"].tolist() == [5, 2]
    visit = POP.frames["visit"]
    assert len(sub.frames["visit"]) == int(visit["pid"].isin([5, 2]).sum())
    sub.validate()


def test_failures_are_counted_then_refused() -> None:
    with pytest.raises(GeneratorFailure, match="fewer than"):
        GAME.run(POP, Failing, seed=0)


@pytest.mark.parametrize(
    ("options", "match"),
    [
        ({"n_targets": 1}, "n_targets"),
        ({"n_shadows": 3}, "n_shadows"),
        ({"train_size": 500}, "too small to measure"),
        ({"train_size": 6}, "too small to measure"),
        ({"root": "nope"}, "not a table"),
        ({"bogus": 1}, "unknown option"),
    ],
)
def test_bad_options(options: dict[str, object], match: str) -> None:
    opts = {"n_targets": 6, "n_shadows": 8, "n_tests": 8, "train_size": 20, **options}
    with pytest.raises(InputError, match=match):
        play_person_shadow(POP, Replayer, seed=0, **opts)


def test_bad_spec_fails_before_work() -> None:
    with pytest.raises(InputError, match="unknown relational generator"):
        GAME.run(POP, "baynet", seed=0)
