"""Contract adapter of the no-box membership family: a release, a reference sample, candidates.

"copy": the release is the members themselves (a generator that copies its training data);
"independent": the release is an independent sample of the same population (no information
about the members). Candidates are 300 members and 300 non-members; the reference is 600 other
real records.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np
from tests.attacks.contracts.common import FamilyAdapter

import synthleak as sl
from synthleak.attacks.base import Attack, AttackFamily
from synthleak.metrics.privacy import auc

N = 300


@cache
def _data(case: str) -> tuple[sl.Table, sl.Table, sl.Table, np.ndarray]:
    df = sl.datasets.load_adult().iloc[:4000]
    table = sl.Table.from_frame(df, sl.infer_schema(df))
    perm = np.random.default_rng(0).permutation(len(table))
    members, non_members = table.take(perm[:N]), table.take(perm[N : 2 * N])
    reference = table.take(perm[2 * N : 4 * N])
    synthetic = members if case == "copy" else table.take(perm[4 * N : 6 * N])
    records = sl.Table.concat([members, non_members])
    return synthetic, reference, records, np.r_[np.ones(N), np.zeros(N)]


def _params(name: str) -> dict[str, Any]:
    return {"classifier": {"max_iter": 50}}.get(name, {})


def _fit(attack: Attack, case: str, rng: np.random.Generator) -> Any:
    synthetic, reference, _, _ = _data(case)
    return attack.fit(synthetic, reference, rng=rng)  # type: ignore[attr-defined]


def _output(attack: Attack, case: str, rng: np.random.Generator) -> np.ndarray:
    _, _, records, _ = _data(case)
    return np.asarray(attack.score(records))  # type: ignore[attr-defined]


def _check(out: np.ndarray, case: str) -> None:
    assert out.shape == (2 * N,) and out.dtype == np.float64 and np.isfinite(out).all()


def _signal(name: str, out: np.ndarray, case: str) -> float:
    return auc(_data(case)[3], out)


ADAPTER = FamilyAdapter(
    family=AttackFamily.NOBOX_MEMBERSHIP,
    params=_params,
    fit=_fit,
    output=_output,
    check_output=_check,
    same=lambda a, b: bool(np.array_equal(a, b)),
    signal=_signal,
    # 300 members against 300 non-members: an uninformed AUC has s.d. about 0.024. On a copy the
    # weakest attack (neighbourhood: a quarter of non-members also have a synthetic record in
    # its radius) reaches about 0.8, the others 0.95 and above.
    copy_at_least=0.75,
    independent_at_most=0.5 + 3 * 0.024,
    weak_on_copies={
        # one exact copy among the k = 20 pooled neighbours moves the share of synthetic ones
        # by 1/20 (AUC about 0.59 here); DPI targets releases dense around their training data
        "dpi": "a single copy is one neighbour in twenty",
        # a discriminator learns where the release's distribution differs from the
        # population's; an exact copy of the members has the population's distribution, so
        # only memorising single records helps it (AUC about 0.6 here)
        "logan": "a copy has the population's distribution",
    },
)
