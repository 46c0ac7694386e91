"""Contract adapter of the linkability family: link the two halves of targets through a release.

"copy": the release is the original records; "independent": a disjoint sample of the same
population. The output is the pair (links of 200 original targets, links of 200 control
targets); the signal is the difference of the two link rates.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np
from tests.attacks.contracts.common import FamilyAdapter

import synthleak as sl
from synthleak.attacks.base import Attack, AttackFamily

# both halves hold the near-unique fnlwgt: a copy links them
AUX_A = ["age", "workclass", "fnlwgt", "education"]
AUX_B = ["fnlwgt", "hours-per-week", "occupation", "race"]
T = 200


@cache
def _tables() -> dict[str, sl.Table]:
    df = sl.datasets.load_adult().iloc[:2400]
    t = sl.Table.from_frame(df, sl.infer_schema(df))
    return {
        "original": t.take(np.arange(0, 800)),
        "control": t.take(np.arange(800, 1600)),
        "independent": t.take(np.arange(1600, 2400)),
    }


def _params(name: str) -> dict[str, Any]:
    return {"aux_a": AUX_A, "aux_b": AUX_B}


def _fit(attack: Attack, case: str, rng: np.random.Generator) -> Any:
    t = _tables()
    syn = t["original"] if case == "copy" else t["independent"]
    return attack.fit(syn, rng=rng)  # type: ignore[attr-defined]


def _output(attack: Attack, case: str, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    t = _tables()
    return (
        np.asarray(attack.links(t["original"].take(np.arange(T)))),  # type: ignore[attr-defined]
        np.asarray(attack.links(t["control"].take(np.arange(T)))),  # type: ignore[attr-defined]
    )


def _check(out: tuple[np.ndarray, np.ndarray], case: str) -> None:
    for links in out:
        assert links.shape == (T,) and links.dtype == bool


def _signal(name: str, out: tuple[np.ndarray, np.ndarray], case: str) -> float:
    return float(out[0].mean() - out[1].mean())


ADAPTER = FamilyAdapter(
    family=AttackFamily.LINKABILITY,
    params=_params,
    fit=_fit,
    output=_output,
    check_output=_check,
    same=lambda a, b: all(np.array_equal(x, y) for x, y in zip(a, b, strict=True)),
    signal=_signal,
    # a copy links nearly every original target; independent data: two link rates of 200
    # targets, their difference has s.d. below 0.05
    copy_at_least=0.5,
    independent_at_most=0.15,
)
