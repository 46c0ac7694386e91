"""Contract adapter of the black-box membership family: shadow datasets with the target planted.

"copy": IN datasets contain copies of an isolated target record (a release that copies its
training data); "independent": no dataset contains the target, the labels are arbitrary.
"""

from __future__ import annotations

from functools import cache
from importlib.util import find_spec
from typing import Any

import numpy as np
from tests.attacks.contracts.common import FamilyAdapter

import synthleak as sl
from synthleak.attacks.base import Attack, AttackFamily, fit_membership
from synthleak.metrics.privacy import auc
from synthleak.queries import TableStack

N_SHADOW, N_TEST, M = 80, 80, 60


@cache
def _data() -> tuple[sl.Table, sl.Table]:
    df = sl.datasets.load_adult().iloc[:3000]
    table = sl.Table.from_frame(df, sl.infer_schema(df))
    # the record farthest from its nearest neighbour among the first 40: copies of it stand out
    scores = sl.vulnerability_scores(table.take(np.arange(40)), k=1)
    i = int(np.argmax(scores))
    rest = table.take(np.setdiff1d(np.arange(len(table)), [i]))
    return table.take([i]), rest


@cache
def _pools(case: str) -> tuple[TableStack, np.ndarray, TableStack, np.ndarray]:
    target, rest = _data()
    rng = np.random.default_rng(0 if case == "copy" else 1)

    def pool(size: int) -> tuple[TableStack, np.ndarray]:
        labels = rng.permutation(np.arange(size) % 2)
        sets = []
        for y in labels:
            t = rest.sample(M, rng=rng)
            if case == "copy" and y:
                t = sl.Table.concat([t.take(np.arange(M - 2)), target, target])
            sets.append(t)
        return TableStack.from_tables(sets), labels

    return (*pool(N_SHADOW), *pool(N_TEST))


def _params(name: str) -> dict[str, Any]:
    return {
        "query": {"n_queries": 200, "n_estimators": 30, "max_depth": 6},
        "distance": {"n_estimators": 30},
        "groundhog": {"n_estimators": 30},
        "attention": {"top_x": 20, "epochs": 30, "patience": None},
        "rmia": {"n_queries": 200, "n_population": 32, "n_reference": 32},
    }.get(name, {})


def _fit(attack: Attack, case: str, rng: np.random.Generator) -> Any:
    target, rest = _data()
    shadow, y, _, _ = _pools(case)
    # the population: the records the datasets are drawn from (attacks that compare with it)
    return fit_membership(attack, target, shadow, y, rng=rng, population=rest)  # type: ignore[arg-type]


def _output(attack: Attack, case: str, rng: np.random.Generator) -> np.ndarray:
    _, _, test, _ = _pools(case)
    return np.asarray(attack.score(test))  # type: ignore[attr-defined]


def _check(out: np.ndarray, case: str) -> None:
    assert out.shape == (N_TEST,) and np.isfinite(out).all()


def _signal(name: str, out: np.ndarray, case: str) -> float:
    _, _, _, y = _pools(case)
    return auc(y, out)


def _skip(name: str) -> str | None:
    return "needs the torch extra" if name == "attention" and find_spec("torch") is None else None


ADAPTER = FamilyAdapter(
    family=AttackFamily.MEMBERSHIP,
    params=_params,
    fit=_fit,
    output=_output,
    check_output=_check,
    same=lambda a, b: bool(np.array_equal(a, b)),
    signal=_signal,
    # 80 IN/OUT test datasets: an uninformed AUC has s.d. about 0.065
    copy_at_least=0.9,
    independent_at_most=0.5 + 3 * 0.065,
    skip=_skip,
)
