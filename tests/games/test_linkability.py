"""Linkability game: the protocol, typed results, and calibration at unequal sizes on real data.

Whether a target's two halves link depends on the synthetic data and the target only, so no size
correction is needed: with a disjoint real sample as the release the game flags a leak (interval
excluding 0) in at most 1 run in 10 at original:control ratios 1:1, 3:1 and 4:1, and a copy of
the original is flagged at every ratio.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from tests.games.calibration import draw, load_population, release

import synthleak as sl
from synthleak.attacks.linkability import NearestNeighbourLinkability
from synthleak.data.release import Release
from synthleak.errors import BaselineWarning, InputError
from synthleak.games.linkability import LinkabilityGame, LinkabilityResult

A = ["age", "workclass", "fnlwgt", "education"]
B = ["fnlwgt", "hours-per-week", "native-country", "occupation", "race"]


@pytest.fixture(scope="module")
def parts(adult_df: pd.DataFrame) -> dict[str, pd.DataFrame]:
    idx = np.random.default_rng(1).permutation(len(adult_df))
    return {
        "original": adult_df.iloc[idx[:1200]],
        "control": adult_df.iloc[idx[1200:1500]],
        "independent": adult_df.iloc[idx[1500:2700]],
    }


def _quiet(game: LinkabilityGame, rel: Release, seed: int = 0) -> LinkabilityResult:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", BaselineWarning)
        return game.run(rel, seed=seed)


def test_copy_links_and_independent_data_does_not(parts: dict[str, pd.DataFrame]) -> None:
    game = LinkabilityGame(A, B, n_attacks=200)
    high = _quiet(game, Release(parts["original"], parts["original"], parts["control"]))
    a = high["nearest-neighbour"]
    assert a.attack_rate.value > 0.8 and a.risk.ci_low > 0.5
    assert (a.n_attacks, a.n_control_attacks, a.n_baseline_attacks) == (200, 200, 200)
    assert a.aux_a == tuple(A) and a.aux_b == tuple(B) and a.n_neighbors == 1
    low = _quiet(
        LinkabilityGame(A, B, n_attacks=200, n_neighbors=5),
        Release(parts["original"], parts["independent"], parts["control"]),
    )
    assert low.attacks[0].risk.ci_low == 0.0 and low.attacks[0].n_neighbors == 5


def test_protocol_round_trip_and_seed(parts: dict[str, pd.DataFrame]) -> None:
    rel = Release(parts["original"], parts["original"], parts["control"])
    r1 = _quiet(LinkabilityGame(A, B, n_attacks=100), rel, seed=3)
    r2 = _quiet(LinkabilityGame(A, B, n_attacks=100), rel, seed=3)
    assert r1.same_as(r2)
    assert LinkabilityResult.from_json(r1.to_json()).same_as(r1)
    assert (r1.n_original, r1.n_control, r1.n_synthetic) == (1200, 300, 1200)
    frame = r1.to_frame()
    assert list(frame.attack) == ["nearest-neighbour"] and frame.n_attacks[0] == 100
    s = r1["nearest-neighbour"].summary()
    assert s["aux_a"] == A and s["ci"] == [r1.attacks[0].risk.ci_low, r1.attacks[0].risk.ci_high]
    # small tables: every record is a target
    small = _quiet(
        LinkabilityGame(A, B, n_attacks=1000),
        Release(parts["original"], parts["original"], parts["control"]),
    )
    assert (small.attacks[0].n_attacks, small.attacks[0].n_control_attacks) == (1000, 300)


def test_attack_objects_carry_their_own_columns(parts: dict[str, pd.DataFrame]) -> None:
    rel = Release(parts["original"], parts["original"], parts["control"])
    obj = NearestNeighbourLinkability(["age", "fnlwgt"], ["fnlwgt", "race"], n_neighbors=2)
    res = _quiet(LinkabilityGame(A, B, attacks=[obj], n_attacks=50), rel)
    a = res.attacks[0]
    assert a.attack == "nearest-neighbour" and a.aux_a == ("age", "fnlwgt") and a.n_neighbors == 2
    assert obj.synthetic_ is None  # the caller's object is not fitted


def test_search_goes_to_the_attacks_that_take_it(parts: dict[str, pd.DataFrame]) -> None:
    """``run(search=)`` replaces the nearest-neighbour attack's search (two halves, targets and
    controls: four calls, the same result); an attack whose ``links`` has no ``search`` keyword
    searches as it always did."""
    from synthleak.attacks.base import LinkabilityAttack
    from synthleak.attacks.linkability import gower_knn

    calls = []

    def search(t: sl.Table, c: sl.Table, k: int, ranges: np.ndarray) -> np.ndarray:
        calls.append(len(t))
        return gower_knn(t, c, k, ranges)

    class Plain(LinkabilityAttack):
        name = "plain"

        def fit(self, synthetic: sl.Table, *, rng: np.random.Generator) -> Plain:
            return self

        def links(self, targets: sl.Table) -> np.ndarray:
            return np.zeros(len(targets), dtype=bool)

    rel = Release(parts["original"], parts["independent"], parts["control"])
    game = LinkabilityGame(A, B, attacks=["nearest-neighbour", Plain()], n_attacks=60)
    ref = _quiet(game, rel, seed=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", BaselineWarning)
        got = game.run(rel, seed=2, search=search)
    assert calls == [60, 60, 60, 60] and got.to_json() == ref.to_json()
    assert got["plain"].n_success == 0


def test_input_errors(parts: dict[str, pd.DataFrame]) -> None:
    rel = Release(parts["original"], parts["independent"], parts["control"])
    with pytest.raises(InputError, match="aux_a must be a non-empty list"):
        LinkabilityGame([], B)
    with pytest.raises(InputError, match="aux_b must be a non-empty list"):
        LinkabilityGame(A, "fnlwgt")  # type: ignore[arg-type]
    with pytest.raises(InputError, match="n_neighbors"):
        LinkabilityGame(A, B, n_neighbors=0)
    with pytest.raises(InputError, match="n_attacks"):
        LinkabilityGame(A, B, n_attacks=0)
    with pytest.raises(InputError, match="unknown linkability attack"):
        LinkabilityGame(A, B, attacks=["nope"])
    with pytest.raises(InputError, match="LinkabilityAttack"):
        LinkabilityGame(A, B, attacks=[object()])  # type: ignore[list-item]
    with pytest.raises(InputError, match=r"aux_a names unknown column\(s\) \['zip'\]"):
        LinkabilityGame(["zip"], B).run(rel, seed=0)
    with pytest.raises(InputError, match="control"):
        LinkabilityGame(A, B).run(Release(parts["original"], parts["independent"]), seed=0)
    with pytest.raises(InputError, match="Release"):
        LinkabilityGame(A, B).run(parts["original"], seed=0)  # type: ignore[arg-type]


def test_baseline_warning_and_note() -> None:
    """A release whose nearest records never coincide links nobody: no better than guessing."""
    rng = np.random.default_rng(0)
    real = pd.DataFrame({"a": rng.choice(list("xy"), 200), "b": rng.choice(list("pq"), 200)})
    syn = pd.DataFrame({"a": ["x", "y", "z", "z"], "b": ["r", "r", "p", "q"]})
    with pytest.warns(BaselineWarning, match="no better than random"):
        res = LinkabilityGame(["a"], ["b"], n_attacks=100).run(Release(real, syn, real), seed=0)
    a = res.attacks[0]
    assert a.n_success == 0 and a.baseline_rate.value > 0.1 and "random guessing" in a.note


# --- calibration on real data -----------------------------------------------------------------


@pytest.fixture(scope="module")
def populations(shared_datasets: Path) -> dict[str, sl.Table]:
    return {n: load_population(n, shared_datasets) for n in ("adult", "acs", "census", "compas")}


def _halves(table: sl.Table) -> tuple[list[str], list[str]]:
    names = list(table.schema.names)
    half = len(names) // 2
    return names[:half], [names[0], *names[half:]]


@pytest.mark.parametrize("ratio", [1.0, 3.0, 4.0])
def test_null_and_copy_oracles_at_unequal_sizes(
    populations: dict[str, sl.Table], ratio: float
) -> None:
    for name, pop in populations.items():
        a, b = _halves(pop)
        game = LinkabilityGame(a, b, n_attacks=200)
        flagged = []
        for seed in range(10):
            rng = np.random.default_rng([seed, int(10 * ratio), 4])
            d = draw(pop, 800, round(800 / ratio), rng)
            flagged.append(
                _quiet(game, Release(d.original, d.independent, d.control), seed)
                .attacks[0]
                .risk.ci_low
                > 0
            )
        assert sum(flagged) <= 1, f"{name} at {ratio}:1: {sum(flagged)} of 10 null runs flagged"
        rng = np.random.default_rng([99, int(10 * ratio)])
        d = draw(pop, 800, round(800 / ratio), rng)
        syn = release(d, "copy", rng)
        est = _quiet(game, Release(d.original, syn, d.control), 0).attacks[0].risk
        truth = _quiet(game, Release(d.original, syn, d.oracle_control), 0).attacks[0].risk
        assert est.ci_low > 0, f"{name} copy at {ratio}:1 not flagged"
        assert abs(est.value - truth.value) < 0.1
