"""Contract adapter of the singling-out family: predicates learnt from a release.

"copy": the release is the original records; "independent": the release is a disjoint sample of
the same population. The signal is the share of predicates that single out one original record
minus the share that single out one control record, with original and control of the same size
(so "independent" is exactly 0 in expectation).
"""

from __future__ import annotations

from functools import cache
from importlib.util import find_spec
from typing import Any

import numpy as np
from tests.attacks.contracts.common import FamilyAdapter

import synthleak as sl
from synthleak.attacks.base import Attack, AttackFamily
from synthleak.attacks.predicates import PredicateSet, unique_rows

N = 100  # predicates asked for


@cache
def _tables() -> dict[str, sl.Table]:
    df = sl.datasets.load_adult().iloc[:3000]
    t = sl.Table.from_frame(df, sl.infer_schema(df))
    return {
        "original": t.take(np.arange(0, 1000)),
        "control": t.take(np.arange(1000, 2000)),
        "independent": t.take(np.arange(2000, 3000)),
    }


def _synthetic(case: str) -> sl.Table:
    t = _tables()
    return t["original"] if case == "copy" else t["independent"]


def _params(name: str) -> dict[str, Any]:
    tiny = {"hidden": 16, "n_layers": 1, "epochs": 1, "batch_size": 250, "embed_dim": 8}
    return {"contrastive": {"encoder": tiny}}.get(name, {})


def _fit(attack: Attack, case: str, rng: np.random.Generator) -> Any:
    return attack.fit(_synthetic(case), rng=rng)  # type: ignore[attr-defined]


def _output(attack: Attack, case: str, rng: np.random.Generator) -> PredicateSet:
    return attack.predicates(N, rng=rng)  # type: ignore[attr-defined]


def _check(out: PredicateSet, case: str) -> None:
    assert isinstance(out, PredicateSet)
    assert 1 <= len(out) <= N
    assert len(out.first_unique()) == len(out)  # distinct
    assert np.all(out.n_atoms >= 1)
    # each singles out one distinct synthetic record
    np.testing.assert_array_equal(out.count(unique_rows(_synthetic(case))), 1)


def _signal(name: str, out: PredicateSet, case: str) -> float:
    t = _tables()
    return float(np.mean(out.count(t["original"]) == 1) - np.mean(out.count(t["control"]) == 1))


def _skip(name: str) -> str | None:
    return "needs the torch extra" if name == "contrastive" and find_spec("torch") is None else None


ADAPTER = FamilyAdapter(
    family=AttackFamily.SINGLING_OUT,
    params=_params,
    fit=_fit,
    output=_output,
    check_output=_check,
    same=lambda a, b: len(a) == len(b) and bool(np.array_equal(a.keys(), b.keys())),
    signal=_signal,
    # a copy: every predicate singles out its original record, the control far less often;
    # independent data: a difference of two shares of 100 predicates, s.d. about 0.06
    copy_at_least=0.5,
    independent_at_most=0.2,
    skip=_skip,
)
