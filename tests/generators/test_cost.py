"""measure_cost: seconds per fit + sample, measured, with the spread."""

from __future__ import annotations

import numpy as np
import pytest

import synthleak as sl
from synthleak.errors import InputError
from synthleak.generators.cost import GeneratorCost, measure_cost


def test_measure_cost_times_every_repeat(adult_table: sl.Table) -> None:
    cost = measure_cost(
        "indhist",
        adult_table,
        train_size=500,
        synthetic_size=300,
        rng=np.random.default_rng(0),
        repeats=3,
    )
    assert isinstance(cost, GeneratorCost)
    assert cost.spec == "indhist" and cost.repeats == 3
    assert cost.train_size == 500 and cost.synthetic_size == 300
    assert np.all(cost.fit_seconds > 0) and np.all(cost.sample_seconds > 0)
    assert np.allclose(cost.seconds, cost.fit_seconds + cost.sample_seconds)
    assert cost.min_seconds <= cost.median_seconds <= cost.max_seconds
    assert cost.min_seconds <= cost.mean_seconds <= cost.max_seconds
    assert cost.std_seconds >= 0
    s = cost.summary()
    assert s["repeats"] == 3 and s["mean_seconds"] == cost.mean_seconds
    back = GeneratorCost.from_json(cost.to_json())
    assert back.same_as(cost)


def test_one_repeat_has_no_spread(adult_table: sl.Table) -> None:
    cost = measure_cost(
        "nonprivate", adult_table, train_size=10, synthetic_size=0, rng=np.random.default_rng(0)
    )
    assert cost.repeats == 1 and cost.std_seconds == 0.0


def test_each_repeat_fits_a_fresh_generator_on_a_fresh_sample(
    adult_table: sl.Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[bytes] = []
    original_fit = sl.generators.simple.NonPrivate.fit

    def spy(self, table, *, rng):  # type: ignore[no-untyped-def]
        seen.append(table.row_keys().tobytes())
        return original_fit(self, table, rng=rng)

    monkeypatch.setattr(sl.generators.simple.NonPrivate, "fit", spy)
    measure_cost(
        "nonprivate",
        adult_table,
        train_size=50,
        synthetic_size=5,
        rng=np.random.default_rng(1),
        repeats=3,
    )
    assert len(seen) == 3 and len(set(seen)) == 3


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"train_size": 0, "synthetic_size": 5}, "train_size=0 must be between 1"),
        ({"train_size": 10**9, "synthetic_size": 5}, "must be between 1 and the number"),
        ({"train_size": 10, "synthetic_size": -1}, "synthetic_size=-1 must be >= 0"),
        ({"train_size": 10, "synthetic_size": 5, "repeats": 0}, "repeats=0 must be >= 1"),
    ],
)
def test_bad_sizes(adult_table: sl.Table, kwargs: dict, message: str) -> None:
    with pytest.raises(InputError, match=message):
        measure_cost("indhist", adult_table, rng=np.random.default_rng(0), **kwargs)


def test_bad_spec_fails_before_work(adult_table: sl.Table) -> None:
    with pytest.raises(InputError, match="unknown generator"):
        measure_cost(
            "nosuch", adult_table, train_size=10, synthetic_size=5, rng=np.random.default_rng(0)
        )
