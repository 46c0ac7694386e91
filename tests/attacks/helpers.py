"""Shadow and test datasets of real Adult records for the shadow-model membership attacks' tests.

Shared by the tests of ``lira`` and ``rmia``: the null oracle (every dataset a sample of other
real people, the target never in one) and the copy oracle (a bootstrap of the training data,
which holds the target when IN).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

import numpy as np

import synthleak as sl
from synthleak.attacks.base import MembershipAttack, fit_membership
from synthleak.metrics.privacy import auc_estimate
from synthleak.queries import TableStack


@cache
def adult() -> sl.Table:
    df = sl.datasets.load_adult().iloc[:8000]
    return sl.Table.from_frame(df, sl.infer_schema(df))


def stack(table: sl.Table, rows: np.ndarray) -> TableStack:
    """Datasets ``rows`` ``(B, m)`` of ``table`` as one stack (no per-table copies)."""
    return TableStack(table.schema, table.codes[rows], table.values[rows])


def vulnerable(table: sl.Table, n: int = 200) -> int:
    return int(np.argmax(sl.vulnerability_scores(table.take(np.arange(n)), k=5)))


def null_pools(
    seed: int, n_shadow: int, n_test: int, m: int
) -> tuple[sl.Table, TableStack, TableStack, sl.Table]:
    """Target, shadow and test datasets of other real records (the target in none), and the
    population (every other record)."""
    table = adult()
    t = vulnerable(table)
    rng = np.random.default_rng(seed)
    others = np.setdiff1d(np.arange(len(table)), [t])
    shadow = stack(table, rng.choice(others, (n_shadow, m)))
    test = stack(table, rng.choice(others, (n_test, m)))
    return table.take([t]), shadow, test, table.take(others)


def null_coverage(
    make: Callable[[], MembershipAttack], seeds: range, n_shadow: int, n_test: int, m: int
) -> tuple[int, list[float]]:
    """Seeds whose 95% AUC interval covers 0.5, and the AUCs, of ``make()`` on null pools."""
    covered, aucs = 0, []
    for seed in seeds:
        target, shadow, test, population = null_pools(seed, n_shadow, n_test, m)
        rng = np.random.default_rng(100 + seed)
        y_shadow = rng.permutation(np.arange(len(shadow)) % 2)
        y_test = rng.permutation(np.arange(len(test)) % 2)
        attack = fit_membership(make(), target, shadow, y_shadow, rng=rng, population=population)
        s = attack.score(test)
        assert np.isfinite(s).all()
        est = auc_estimate(y_test, s, rng=rng)
        covered += est.ci_low <= 0.5 <= est.ci_high
        aucs.append(est.value)
    return covered, aucs


def bootstrap_copies(
    n: int = 300, b: int = 160, seed: int = 5
) -> tuple[sl.Table, TableStack, np.ndarray, sl.Table, np.random.Generator]:
    """``b`` releases, each a bootstrap of ``n`` training records that hold the target when IN.

    Returns the target, the releases, their IN/OUT labels, the population (every other record)
    and the generator the draws came from (its state continues into the attack's fit).
    """
    table = adult()
    t = vulnerable(table)
    others = np.setdiff1d(np.arange(len(table)), [t])
    rng = np.random.default_rng(seed)
    y = rng.permutation(np.arange(b) % 2)
    train = rng.choice(others, (b, n))
    train[y == 1, 0] = t
    rows = np.take_along_axis(train, rng.integers(0, n, (b, n)), axis=1)
    return table.take([t]), stack(table, rows), y, table.take(others), rng
