"""The novelty attack: releases holding combinations of the target's values no known record has.

Oracles on real Adult records at the exact-knowledge game's shapes (199 known records, releases
as large as the training data and four times larger): the null (releases of other real people,
disjoint from the known records) covers an AUC of 0.5 about as often as its interval claims; a
copy of the training data is found at both sizes; a value only the target holds is found from 8
shadow datasets, where the fitted query attack has nothing to learn from.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from tests.attacks.helpers import adult, stack, vulnerable
from tests.games.test_membership import FixedSource, make_omega, oracles  # noqa: F401  (fixture)

import synthleak as sl
from synthleak.attacks.base import fit_membership
from synthleak.attacks.mia_novelty import NoveltyAttack
from synthleak.errors import BaselineWarning, InputError
from synthleak.findings import membership_epsilon
from synthleak.games.membership import MembershipGame
from synthleak.metrics.privacy import auc_estimate
from synthleak.runtime import stream_rng

KNOWN, TESTS = 199, 64


def _table(rows: list[tuple[str, str, float]]) -> sl.Table:
    df = pd.DataFrame(rows, columns=["a", "b", "x"])
    return sl.Table.from_frame(df, sl.infer_schema(df, categorical=["a", "b"], continuous=["x"]))


def _fit(target: sl.Table, known: sl.Table, other: sl.Table | None = None) -> NoveltyAttack:
    shadows = [known, known]
    return NoveltyAttack().fit(
        target, shadows, np.array([0, 1]), rng=np.random.default_rng(0), known=known, other=other
    )


def test_the_smallest_new_combinations_are_taken() -> None:
    """Target (p, v): no known record holds v, so v alone is the new combination; with v known
    but never beside p, the pair is; continuous attributes are left out."""
    table = _table([("p", "v", 1.0), ("p", "u", 2.0), ("q", "u", 3.0), ("q", "v", 4.0)])
    target = table.take([0])
    a = _fit(target, table.take([1, 2]))
    assert a.order_ == 1 and a.subsets_.tolist() == [2]  # bit 1: column b
    b = _fit(target, table.take([1, 2, 3]))
    assert b.order_ == 2 and b.subsets_.tolist() == [3]
    # releases: none holding (p, v), one holding it twice, one holding only v
    rel = [table.take([1, 2, 2]), table.take([0, 0, 1]), table.take([3, 1, 2])]
    assert b.holding(rel).tolist() == [0.0, 2.0, 0.0]
    s = b.score(rel)
    assert s[0] == 0.0 and s[1] > 0.5 and s[2] == 0.0


def test_under_substitution_what_the_other_record_holds_is_not_new() -> None:
    table = _table([("p", "v", 1.0), ("p", "u", 2.0), ("q", "u", 3.0), ("q", "v", 4.0)])
    attack = _fit(table.take([0]), table.take([1, 2]), other=table.take([3]))
    assert attack.order_ == 2  # v is the replacing record's value too: only the pair is new


def test_a_target_equal_to_a_known_record_gives_no_power() -> None:
    table = _table([("p", "v", 1.0), ("p", "v", 9.0), ("q", "u", 3.0)])
    attack = _fit(table.take([0]), table.take([1, 2]))  # (p, v) is a known record's too
    assert attack.order_ == 0 and attack.subsets_.size == 0
    assert attack.score([table, table.take([0])]).tolist() == [0.0, 0.0]


def test_it_needs_the_known_records() -> None:
    table = _table([("p", "v", 1.0), ("q", "u", 3.0)])
    with pytest.raises(InputError, match="exact knowledge"):
        fit_membership(
            NoveltyAttack(),
            table.take([0]),
            [table, table],
            np.array([0, 1]),
            rng=np.random.default_rng(0),
            population=table,
        )
    game = MembershipGame("nonprivate", targets=[0], train_size=20, attacks=("novelty",))
    with pytest.raises(InputError, match="knowledge='exact'"):
        game.validate(make_omega(), seed=0)


def _null_auc(seed: int, m: int) -> tuple[float, float]:
    """AUC interval on releases of other real people, disjoint from the known records."""
    table = adult()
    t = vulnerable(table, 200 + 50 * seed)  # a vulnerable record of another sample per seed
    rng = np.random.default_rng(seed)
    others = rng.permutation(np.setdiff1d(np.arange(len(table)), [t]))
    known, pool = others[:KNOWN], others[KNOWN:]
    y = rng.permutation(np.arange(TESTS) % 2)
    releases = stack(table, rng.choice(pool, (TESTS, m)))
    attack = NoveltyAttack().fit(
        table.take([t]),
        releases,  # stands in for the shadow datasets, which the attack does not use
        y,
        rng=rng,
        known=table.take(known),
    )
    est = auc_estimate(y, attack.score(releases), rng=rng)
    return est.ci_low, est.ci_high


@pytest.mark.parametrize("m", [KNOWN + 1, 4 * (KNOWN + 1)])
def test_null_releases_cover_chance_as_often_as_claimed(m: int) -> None:
    """20 seeds: the 95 % interval covers 0.5 in at least 17 (a 95 % interval misses that
    often with probability 0.016)."""
    covered = sum(lo <= 0.5 <= hi for lo, hi in (_null_auc(seed, m) for seed in range(20)))
    assert covered >= 17


def _exact_game(generator: str, m: int, n_shadows: int = 8) -> MembershipGame:
    return MembershipGame(
        generator,
        targets=[0],
        knowledge="exact",
        train_size=60,
        synthetic_size=m,
        n_shadows=n_shadows,
        n_tests=80,
        attacks=("novelty", "query"),
        batch_size=8,
    )


@pytest.mark.parametrize("m", [15, 240])
def test_a_copy_of_the_training_data_is_found_at_both_sizes(m: int) -> None:
    """``nonprivate`` releases rows of its training data: row 0, the only ``c = z``, is in an IN
    release with probability 1 - (59/60)^m (0.22 at m = 15, about 1 at m = 240) and in no OUT
    release."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", BaselineWarning)
        res = _exact_game("nonprivate", m).run(make_omega(seed=4), seed=2)
    o = res.targets[0].attacks["novelty"]
    y = o.labels.astype(bool)
    assert (o.scores[~y] == 0).all()  # an OUT release never holds z
    held = float((o.scores[y] > 0.5).mean())
    if m == 240:
        assert held == 1.0 and o.auc.value == 1.0
    else:
        assert 0.05 <= held <= 0.5 and o.auc.ci_low > 0.5


def test_eight_shadow_datasets_suffice_for_a_value_only_the_target_holds() -> None:
    """The fitted query attack learns from 8 shadow datasets; the novelty attack needs none of
    them: a copy at m = 15 holds row 0's value in some IN releases only, and the claim-free
    epsilon bound of the game rests on the novelty attack."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", BaselineWarning)
        res = _exact_game("nonprivate", 30, n_shadows=8).run(make_omega(seed=4), seed=2)
    novelty = res.targets[0].attacks["novelty"]
    assert novelty.auc.ci_low > 0.5 and novelty.tpr_at_fpr["0.01"] > 0
    est = membership_epsilon(res, rng=stream_rng(0, "test"), claimed=1.0, delta=0.0)
    assert est.lower_bound > 0


@pytest.mark.usefixtures("oracles")
def test_a_data_independent_generator_is_not_called_leaky() -> None:
    """The game's null, 20 seeds: ``test-mia-fixed`` samples other people (disjoint from the
    game's data; one in 20 of them holds ``c = z`` too) whatever it is trained on. The 95 % AUC
    interval covers 0.5 in at least 17 seeds, and the one-sided 95 % epsilon bound is above 0
    in at most 3 (each has probability 0.016 of failing on a calibrated estimator)."""
    covered = positive = 0
    for seed in range(20):
        people = make_omega(n=1600, seed=seed)
        codes = people.codes[800:].copy()
        z = list(people.schema["c"].categories).index("z")
        codes[np.random.default_rng(seed).random(800) < 0.05, 2] = z
        FixedSource.reference = sl.Table(people.schema, codes, people.values[800:])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", BaselineWarning)
            res = _exact_game("test-mia-fixed", 60).run(people.take(np.arange(800)), seed=seed)
        o = res.targets[0].attacks["novelty"]
        covered += o.auc.ci_low <= 0.5 <= o.auc.ci_high
        est = membership_epsilon(res, rng=stream_rng(seed, "test"), claimed=1.0, delta=0.0)
        positive += est.lower_bound > 0
    assert covered >= 17 and positive <= 3


def test_more_attributes_than_a_query_holds_is_an_input_error() -> None:
    df = pd.DataFrame({f"c{i}": ["a", "b"] for i in range(65)})
    table = sl.Table.from_frame(df, sl.infer_schema(df, categorical=list(df.columns)))
    with pytest.raises(InputError, match="at most 64 attributes"):
        _fit(table.take([0]), table.take([1]))
