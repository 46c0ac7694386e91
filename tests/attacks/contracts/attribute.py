"""Contract adapter of the attribute-inference family: secrets randomised as in the game.

The adversary knows the quasi-identifiers ``X`` of a training dataset ``D`` of Adult records
whose targets (records with unique quasi-identifiers) had their secret replaced by a uniformly
random class (Annamalai et al. (2024), Sec. 4.1). "copy": the release repeats ``D`` (with the
randomised secrets); "independent": the release is other Adult records, which say nothing about
the randomised secrets. The signal is the accuracy of the highest-scoring class on the targets.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np
from tests.attacks.contracts.common import FamilyAdapter

import synthleak as sl
from synthleak.attacks.base import Attack, AttackFamily
from synthleak.games.attribute import attribute_codes, singleton_rows

N_TRAIN, N_TARGETS, N_OTHER = 400, 100, 3000
QUASI_IDS = ["age", "workclass", "education", "marital-status", "occupation", "race", "sex"]


@cache
def _data() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``X`` of D, the domain sizes, the target rows, their randomised secret, D' (codes)."""
    df = sl.datasets.load_adult().iloc[:5000]
    table = sl.Table.from_frame(df, sl.infer_schema(df))
    prep = attribute_codes(table, "income", QUASI_IDS, bins=10)
    D = prep.codes[:N_TRAIN].copy()
    rng = np.random.default_rng(0)
    targets = np.sort(rng.choice(np.flatnonzero(singleton_rows(D[:, :-1])), N_TARGETS, False))
    D[targets, -1] = rng.integers(0, prep.n_classes, N_TARGETS)
    return D[:, :-1], prep.sizes[:-1], targets, D[targets, -1], np.vstack([D, prep.codes[N_TRAIN:]])


def _release(case: str) -> np.ndarray:
    X, _, _, _, codes = _data()
    if case == "copy":
        return np.tile(codes[: len(X)], (8, 1))
    return codes[len(X) : len(X) + N_OTHER]


def _params(name: str) -> dict[str, Any]:
    return {"recon": {"time_limit": 120}, "infer": {"n_estimators": 20}}.get(name, {})


def _fit(attack: Attack, case: str, rng: np.random.Generator) -> Any:
    X, sizes, _, _, _ = _data()
    return attack.fit(X, sizes, rng=rng)  # type: ignore[attr-defined]


def _output(attack: Attack, case: str, rng: np.random.Generator) -> np.ndarray:
    _, _, targets, _, _ = _data()
    S = _release(case)
    return np.asarray(attack.score(S[:, :-1], S[:, -1], targets, 2, rng=rng))  # type: ignore[attr-defined]


def _check(out: np.ndarray, case: str) -> None:
    assert out.shape == (N_TARGETS, 2) and np.isfinite(out).all()


def _signal(name: str, out: np.ndarray, case: str) -> float:
    _, _, _, truth, _ = _data()
    return float(np.mean(out.argmax(axis=1) == truth))


ADAPTER = FamilyAdapter(
    family=AttackFamily.ATTRIBUTE,
    params=_params,
    fit=_fit,
    output=_output,
    check_output=_check,
    same=lambda a, b: bool(np.array_equal(a, b)),
    signal=_signal,
    # 100 randomised binary secrets: a guess has s.d. 0.05 around 0.5
    copy_at_least=0.85,
    independent_at_most=0.5 + 3 * 0.05,
)
