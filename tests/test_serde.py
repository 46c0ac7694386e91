"""The generic result serialiser: lossless JSON round trips, strict JSON, short repr."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from enum import Enum

import numpy as np
import pytest

from synthleak.serde import FloatArray, IntArray, Result, dumps, jsonable


class Colour(str, Enum):
    RED = "red"
    BLUE = "blue"


@dataclass(frozen=True, repr=False)
class Inner(Result):
    x: float
    colour: Colour = Colour.RED


@dataclass(frozen=True, repr=False, eq=False)
class Outer(Result):
    name: str
    inner: Inner
    items: tuple[Inner, ...] = ()
    values: FloatArray = field(default_factory=lambda: np.zeros(0))
    rows: IntArray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    maybe: Inner | None = None
    by_name: dict[str, float] = field(default_factory=dict)
    by_row: dict[int, str] = field(default_factory=dict)
    pair: tuple[int, str] = (0, "")


def _outer() -> Outer:
    return Outer(
        "n",
        Inner(math.nan, Colour.BLUE),
        (Inner(1.0), Inner(-2.5)),
        np.array([1.0, np.nan, 3.0]),
        np.array([3, 4], dtype=np.int64),
        None,
        {"a": math.nan, "b": 1.0},
        {7: "x"},
        (2, "y"),
    )


def test_round_trip_is_lossless() -> None:
    o = _outer()
    back = Outer.from_json(o.to_json())
    assert back.same_as(o)
    assert back.values.dtype == np.float64 and np.isnan(back.values[1])
    assert back.rows.dtype == np.int64 and back.rows.tolist() == [3, 4]
    assert back.by_row == {7: "x"} and back.pair == (2, "y")
    assert back.inner.colour is Colour.BLUE and math.isnan(back.inner.x)
    assert isinstance(back.items, tuple) and back.items[1] == Inner(-2.5)


def test_json_is_strict() -> None:
    text = _outer().to_json()
    assert "NaN" not in text
    json.loads(text)  # strict parser accepts it


def test_from_json_reads_a_file(tmp_path) -> None:
    path = tmp_path / "r.json"
    _outer().to_json(path)
    assert Outer.from_json(path).same_as(_outer())


def test_repr_is_short() -> None:
    big = Outer("n", Inner(1.0), tuple(Inner(float(i)) for i in range(10_000)))
    text = repr(big)
    assert len(text) < 200 and "<10000 items>" in text


def test_same_as_tells_results_apart() -> None:
    a, b = _outer(), Outer("other", Inner(1.0))
    assert a.same_as(a) and not a.same_as(b) and not a.same_as("text")


def test_jsonable_handles_numpy_and_timestamps() -> None:
    import pandas as pd

    out = jsonable({"a": np.float32(1.5), "b": np.arange(2), "t": pd.Timestamp("2024-01-02")})
    assert out == {"a": 1.5, "b": [0, 1], "t": "2024-01-02T00:00:00"}
    assert json.loads(dumps({"x": float("inf")})) == {"x": None}


def _all_result_classes() -> list[type[Result]]:
    import importlib
    import pkgutil

    import synthleak

    for mod in pkgutil.walk_packages(synthleak.__path__, "synthleak."):
        if not mod.name.startswith("synthleak.cli"):
            importlib.import_module(mod.name)
    out, todo = [], list(Result.__subclasses__())
    while todo:
        cls = todo.pop()
        out.append(cls)
        todo.extend(cls.__subclasses__())
    return sorted(
        {c for c in out if c.__module__.startswith("synthleak.")}, key=lambda c: c.__qualname__
    )


@pytest.mark.parametrize("cls", _all_result_classes(), ids=lambda c: c.__qualname__)
def test_every_result_class_keeps_a_short_repr(cls: type[Result]) -> None:
    assert "__create_fn__" not in cls.__repr__.__qualname__, (
        f"{cls.__name__} must be declared with repr=False (dataclass reprs print every field)"
    )


def test_jsonable_handles_every_value_a_data_cell_can_hold() -> None:
    import datetime as dt
    from decimal import Decimal

    import pandas as pd

    cells = {
        "na": pd.NA,
        "nat": pd.NaT,
        "ts": pd.Timestamp("2024-01-02 03:04:05", tz="UTC"),
        "date": dt.date(2024, 1, 2),
        "time": dt.time(3, 4),
        "dt64": np.datetime64("2024-01-02T03:04"),
        "nat64": np.datetime64("NaT"),
        "td": pd.Timedelta(minutes=2),
        "td64": np.timedelta64(3, "s"),
        "dec": Decimal("1.25"),
        "dec_int": Decimal("3"),
        "dec_nan": Decimal("NaN"),
        "i64": np.int64(7),
        "b": np.bool_(True),
        "bytes": b"caf\xc3\xa9",
        "set": {3, 1},
        "dates": np.array(["2024-01-02", "NaT"], dtype="datetime64[D]"),
        "row": pd.Series([pd.Timestamp("2024-01-02"), pd.NaT]).to_list(),
    }
    out = json.loads(dumps(cells))  # strict JSON: no TypeError, no NaN
    assert out == {
        "na": None,
        "nat": None,
        "ts": "2024-01-02T03:04:05+00:00",
        "date": "2024-01-02",
        "time": "03:04:00",
        "dt64": "2024-01-02T03:04",
        "nat64": None,
        "td": 120.0,
        "td64": 3.0,
        "dec": 1.25,
        "dec_int": 3,
        "dec_nan": None,
        "i64": 7,
        "b": True,
        "bytes": "café",
        "set": [1, 3],
        "dates": ["2024-01-02", None],
        "row": ["2024-01-02T00:00:00", None],
    }


def test_a_frame_record_with_datetimes_serialises() -> None:
    """A record taken from a Parquet frame with a datetime column (audit's record dump)."""
    import pandas as pd

    df = pd.DataFrame({"when": pd.to_datetime(["2024-01-02", None]), "x": [1.5, None]})
    df["n"] = pd.array([1, None], dtype="Int64")
    recs = [df.iloc[i].to_dict() for i in range(2)]
    assert json.loads(dumps(recs)) == [
        {"when": "2024-01-02T00:00:00", "x": 1.5, "n": 1},
        {"when": None, "x": None, "n": None},
    ]


def test_jsonable_gives_enum_values_not_members() -> None:
    out = jsonable({"c": Colour.BLUE, Colour.RED: [Colour.RED]})
    assert out == {"c": "blue", "red": ["red"]}
    assert type(out["c"]) is str and type(out["red"][0]) is str


def test_split_bulky_moves_long_arrays_out_and_join_puts_them_back() -> None:
    from synthleak.serde import SIDE_REF, join_bulky, split_bulky

    doc = {
        "a": list(range(300)),
        "b": {"short": [1, 2, 3], "x/y": [[0.5] * 20] * 20, "names": ["r"] * 400},
        "c": [{"scores": [0.1] * 500}, 7],
        "d": None,
    }
    main, side = split_bulky(doc, limit=256)
    assert main["a"] == {SIDE_REF: "/a", "length": 300}
    assert main["b"]["short"] == [1, 2, 3]
    assert main["b"]["x/y"] == {SIDE_REF: "/b/x~1y", "length": 20}  # 400 numbers, nested
    assert main["c"][0]["scores"][SIDE_REF] == "/c/0/scores" and main["c"][1] == 7
    assert set(side) == {"/a", "/b/x~1y", "/b/names", "/c/0/scores"}
    assert join_bulky(main, side) == doc
    assert split_bulky({"a": [1, 2]})[1] == {}


def test_without_timings_drops_what_measures_the_machine_at_any_depth() -> None:
    from synthleak.serde import without_timings

    doc = {"seconds": 1.5, "a": [{"created": "t", "b": 1, "measured_seconds": 2}], "c": "x"}
    assert without_timings(doc) == {"a": [{"b": 1}], "c": "x"}
    assert without_timings(doc, drop=("c",)) == {"a": [{"b": 1}]}
