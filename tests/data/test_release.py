"""A release's data bundles: DataFrames and Tables welcome, one schema, clear errors."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import synthleak as sl
from synthleak.data.release import Release, as_table, check_same_columns, encode_parts
from synthleak.errors import InputError


@pytest.fixture(scope="module")
def frame() -> pd.DataFrame:
    return sl.datasets.load_adult().sample(600, random_state=0).reset_index(drop=True)


def test_as_table_accepts_frames_and_tables(frame: pd.DataFrame) -> None:
    t = as_table(frame)
    assert len(t) == 600 and as_table(t) is t


@pytest.mark.parametrize("bad", [None, [1, 2], "adult", np.zeros((2, 2))])
def test_as_table_names_the_parameter(bad: object) -> None:
    with pytest.raises(InputError, match="original must be a pandas DataFrame"):
        as_table(bad, name="original")  # type: ignore[arg-type]


def test_release_encodes_frames_with_one_widened_schema(frame: pd.DataFrame) -> None:
    syn = frame.iloc[200:400].copy()
    syn.loc[syn.index[0], "workclass"] = "Only-in-synthetic"
    enc = Release(frame.iloc[:200], syn, frame.iloc[400:]).encode()
    assert enc.original.schema == enc.synthetic.schema == enc.control.schema == enc.schema
    assert "Only-in-synthetic" in enc.schema["workclass"].categories
    assert (len(enc.original), len(enc.synthetic), len(enc.control)) == (200, 200, 200)


def test_release_of_tables_keeps_them(frame: pd.DataFrame, monkeypatch: pytest.MonkeyPatch) -> None:
    t = as_table(frame)
    enc = Release(t, t).encode()
    assert enc.original is t and enc.control is None

    def decoded(self: sl.Table) -> pd.DataFrame:
        raise AssertionError("an encoded table was decoded")

    # tables sharing one schema are used as they are, never decoded (an audit's tables hold
    # millions of records)
    monkeypatch.setattr(sl.Table, "to_frame", decoded)
    parts = t.take(np.arange(100)), t.take(np.arange(100, 300)), t.take(np.arange(300, 600))
    enc = Release(*parts, t.schema).encode()
    assert (enc.original, enc.synthetic, enc.control) == parts and enc.schema == t.schema
    with pytest.raises(InputError, match="no records"):
        Release(parts[0], t.take(np.arange(0))).encode()


def test_release_keeps_a_tables_column_kinds(frame: pd.DataFrame) -> None:
    schema = sl.infer_schema(frame, categorical=["age"])
    t = sl.Table.from_frame(frame, schema)
    enc = Release(t, frame.iloc[:50]).encode()
    assert enc.schema["age"].is_categorical


def test_release_rejects_different_columns(frame: pd.DataFrame) -> None:
    with pytest.raises(InputError, match=r"synthetic data: missing column.*age"):
        Release(frame, frame.drop(columns=["age"])).encode()
    with pytest.raises(InputError, match="control data has no records"):
        Release(frame, frame, frame.iloc[:0]).encode()


def test_check_same_columns_lists_every_difference(frame: pd.DataFrame) -> None:
    with pytest.raises(InputError) as exc:
        check_same_columns(original=frame, synthetic=frame.drop(columns=["age", "sex"]))
    assert "age" in str(exc.value) and "sex" in str(exc.value)


def test_encode_parts_applies_special_values_to_every_part() -> None:
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"age": rng.integers(17, 90, 50), "sex": rng.choice(["F", "M"], 50)})
    df.loc[:9, "age"] = -8
    enc = encode_parts({"original": df, "synthetic": df.iloc[5:]}, special_values=("age=-8",))
    assert list(enc.schema.names[:2]) == ["age", "age (special)"]
    assert enc.tables["synthetic"].column("age (special)").tolist()[:5] == [0] * 5
    assert enc.schema["age"].low >= 17
