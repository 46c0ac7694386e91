"""Targets: selectors and rows joined, resolved on the data with the game's seed."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import synthleak as sl
from synthleak.errors import InputError
from synthleak.games.targets import Targets, as_targets


@pytest.fixture(scope="module")
def table() -> sl.Table:
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"a": rng.choice(["p", "q"], 300), "b": rng.choice(["u", "v", "w"], 300)})
    df.loc[0] = ["z", "u"]  # the only 'z': rarest and most isolated
    return sl.Table.from_frame(df, sl.infer_schema(df))


def test_selectors_and_rows_join(table: sl.Table) -> None:
    spec = Targets.top(2, "rare") + Targets.rows([0, 5]) + Targets.random(3)
    r = spec.resolve(table, seed=0)
    assert r.rows[0] == 0 and r.selected_by[0] == "rare+rows"  # chosen twice, one target
    assert 5 in r.rows.tolist() and len(r) == len(r.selected_by)
    assert str(spec) == "rare:2+rows:0,5+random:3"


def test_random_selection_follows_the_seed(table: sl.Table) -> None:
    a = Targets.random(5).resolve(table, seed=1).rows
    assert a.tolist() == Targets.random(5).resolve(table, seed=1).rows.tolist()
    assert a.tolist() != Targets.random(5).resolve(table, seed=2).rows.tolist()


def test_top_is_vk_by_default(table: sl.Table) -> None:
    r = Targets.top(1).resolve(table, seed=0)
    assert r.rows.tolist() == [0] and r.selected_by == ("distance",)


@pytest.mark.parametrize(
    ("make", "match"),
    [
        (lambda: Targets.top(0), "at least 1"),
        (lambda: Targets.top(3, "nope"), "unknown target selector"),
        (lambda: Targets.rows([]), "rows is empty"),
        (lambda: Targets.rows([-1]), "non-negative"),
        (lambda: as_targets("top:3"), "Targets object"),
    ],
)
def test_bad_specs(make, match: str) -> None:
    with pytest.raises(InputError, match=match):
        make()


def test_rows_outside_the_data(table: sl.Table) -> None:
    with pytest.raises(InputError, match="not in the data"):
        Targets.rows([10_000]).resolve(table, seed=0)


def test_round_trip() -> None:
    spec = Targets.top(3) + Targets.rows([1])
    assert Targets.from_json(spec.to_json()) == spec
    assert as_targets([4, 2]) == Targets.rows([4, 2])
