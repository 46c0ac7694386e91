"""The ctgan adapter: encoding round trip, missing values, seeding, validation, missing extra."""

from __future__ import annotations

import importlib.util

import numpy as np
import pandas as pd
import pytest

from synthleak.data.profile import infer_schema
from synthleak.data.table import Table
from synthleak.errors import InputError, MissingExtraError
from synthleak.generators import ctgan as ctgan_mod
from synthleak.generators import make_generator

needs_ctgan = pytest.mark.skipif(
    importlib.util.find_spec("ctgan") is None, reason="the ctgan extra is not installed"
)


@pytest.fixture(scope="module")
def table() -> Table:
    rng = np.random.default_rng(0)
    n = 120
    colour = rng.choice(["red", "blue"], n)
    df = pd.DataFrame(
        {
            "colour": colour,
            "grade": rng.choice(["a", "b", "c"], n).astype(object),
            "age": np.where(colour == "red", rng.integers(20, 30, n), rng.integers(60, 70, n)),
            "score": rng.normal(0.0, 1.0, n),
        }
    )
    df.loc[:9, "grade"] = None  # nullable categorical
    df.loc[10:29, "score"] = np.nan  # nullable continuous: CTGAN itself rejects NaN
    return Table.from_frame(df, infer_schema(df))


@pytest.fixture(scope="module")
def fitted(table: Table) -> ctgan_mod.CTGANGenerator:
    gen = make_generator("ctgan:epochs=2,batch_size=60")
    return gen.fit(table, rng=np.random.default_rng(7))


@needs_ctgan
def test_output_has_training_schema_and_missing_values(table: Table, fitted) -> None:  # type: ignore[no-untyped-def]
    out = fitted.sample(400, rng=np.random.default_rng(1))
    assert out.schema == table.schema and len(out) == 400
    for j, col in enumerate(table.schema.categorical):
        assert out.codes[:, j].min() >= 0 and out.codes[:, j].max() < col.size
    age = out.column("age")
    assert np.all((age >= 20) & (age <= 69)) and np.all(age == np.round(age))
    score = out.column("score")
    ok = score[~np.isnan(score)]
    col = table.schema["score"]
    assert np.all((ok >= col.low) & (ok <= col.high))
    # the indicator column brings missing values back; 20/120 in training, allow a wide margin
    frac = np.isnan(score).mean()
    assert 0.0 < frac < 0.6
    assert np.isnan(table.column("score")).any()  # the training data really had them


@needs_ctgan
def test_same_seed_same_output_and_global_state_untouched(table: Table, fitted) -> None:  # type: ignore[no-untyped-def]
    import torch

    np_before = np.random.get_state()[1].copy()  # noqa: NPY002
    torch_before = torch.random.get_rng_state().clone()
    a = fitted.sample(50, rng=np.random.default_rng(3))
    b = fitted.sample(50, rng=np.random.default_rng(3))
    c = fitted.sample(50, rng=np.random.default_rng(4))
    assert a.equals(b)
    assert not a.equals(c)
    assert np.array_equal(np_before, np.random.get_state()[1])  # noqa: NPY002
    assert torch.equal(torch_before, torch.random.get_rng_state())
    # refitting with the same seed reproducing the model is checked by test_contract.py


@needs_ctgan
def test_sample_zero(table: Table, fitted) -> None:  # type: ignore[no-untyped-def]
    out = fitted.sample(0, rng=np.random.default_rng(0))
    assert len(out) == 0 and out.schema == table.schema


@needs_ctgan
@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (
            "ctgan:epochs=0",
            "generator 'ctgan': epochs=0 is invalid: epochs must be an integer >= 1",
        ),
        ("ctgan:batch_size=55", "multiple of pac"),
        ("ctgan:batch_size=15,pac=5", "must be even"),
        ("ctgan:generator_lr=0", "generator_lr must be a number > 0"),
    ],
)
def test_bad_parameters(spec: str, message: str) -> None:
    with pytest.raises(InputError, match=message):
        make_generator(spec)


def test_missing_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.util.find_spec

    def fake(name: str, *args, **kwargs):  # type: ignore[no-untyped-def]
        return None if name == "ctgan" else real(name, *args, **kwargs)

    monkeypatch.setattr(importlib.util, "find_spec", fake)
    with pytest.raises(MissingExtraError) as info:
        make_generator("ctgan:epochs=1")
    assert info.value.extra == "ctgan"
    assert "synthleak[ctgan]" in str(info.value)
