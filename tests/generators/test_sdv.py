"""SDV adapters: metadata from the schema, spec parameters, seeding, the python: hook."""

from __future__ import annotations

import dataclasses
import enum

import numpy as np
import pandas as pd
import pytest

import synthleak as sl
from synthleak.errors import InputError
from synthleak.generators import make_generator
from synthleak.generators.sdv import SDVGenerator, sdv_fit_data, sdv_metadata, sdv_output

from .helpers import check_output

pytest.importorskip("sdv")

TINY = {
    "sdv:gaussiancopula": "sdv:gaussiancopula",
    "sdv:ctgan": "sdv:ctgan:epochs=1,batch_size=50,pac=5",
    "sdv:tvae": "sdv:tvae:epochs=1,batch_size=50",
    "sdv:copulagan": "sdv:copulagan:epochs=1,batch_size=50,pac=5",
}


@pytest.fixture(scope="module")
def small(adult_1000: sl.Table) -> sl.Table:
    return adult_1000.take(np.arange(300))


def _columns(schema: sl.Schema, frame: pd.DataFrame | None = None) -> dict:
    return sdv_metadata(schema, frame).to_dict()["tables"]["data"]["columns"]


def test_metadata_from_schema(adult_1000: sl.Table) -> None:
    cols = _columns(adult_1000.schema)
    assert set(cols) == set(adult_1000.schema.names)
    for col in adult_1000.schema.columns:
        want = "categorical" if col.is_categorical else "numerical"
        assert cols[col.name]["sdtype"] == want, col.name
    meta = sdv_metadata(adult_1000.schema).to_dict()["tables"]["data"]
    assert "primary_key" not in meta or meta["primary_key"] is None


def test_metadata_datetime_and_unknown_kinds(adult_1000: sl.Table) -> None:
    class Kind(str, enum.Enum):  # a kind synthleak may add later
        DATETIME = "datetime"
        OTHER = "other"

    schema = adult_1000.schema
    age, hours = schema["age"], schema["hours-per-week"]
    cols = list(schema.columns)
    cols[schema.names.index("age")] = dataclasses.replace(age, kind=Kind.DATETIME)
    cols[schema.names.index("hours-per-week")] = dataclasses.replace(hours, kind=Kind.OTHER)
    odd = sl.Schema(tuple(cols))
    frame = pd.DataFrame({"age": pd.to_datetime(["2020-01-01"] * 3)})
    assert _columns(odd, frame)["age"]["sdtype"] == "datetime"
    assert _columns(odd)["age"]["sdtype"] == "numerical"  # values are not datetimes
    assert _columns(odd, frame)["hours-per-week"]["sdtype"] == "numerical"


def test_fit_data_and_output_forms() -> None:
    frame = pd.DataFrame({"a": [1, 2]})
    data = sdv_fit_data(frame)
    assert data is frame or (isinstance(data, dict) and data["data"] is frame)
    assert sdv_output({"data": frame}) is frame and sdv_output(frame) is frame


def test_spec_parameters_have_sdv_defaults() -> None:
    gen = make_generator("sdv:ctgan")
    assert isinstance(gen, SDVGenerator) and gen.model == "ctgan"
    assert gen.params["epochs"] == 300 and gen.params["batch_size"] == 500
    assert gen.params["generator_dim"] == (256, 256) and gen.params["pac"] == 10
    tvae = make_generator("sdv:tvae:epochs=2,compress_dims=64x32")
    assert tvae.params["epochs"] == 2 and tvae.params["compress_dims"] == (64, 32)
    assert make_generator("sdv:gaussiancopula").params["default_distribution"] == "beta"
    # the comma form of the same spec parses the same way
    assert (
        make_generator("sdv:ctgan,epochs=2").params == make_generator("sdv:ctgan:epochs=2").params
    )


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("sdv:", "names no sdv model"),
        ("sdv:nosuch", "unknown generator 'sdv:nosuch'"),
        ("sdv:ctgan:epochs=0", "epochs must be >= 1"),
        ("sdv:ctgan:batch_size=55", "must be a multiple of pac=10"),
        ("sdv:tvae:compress_dims=ax3", "is not a list of layer sizes"),
        ("sdv:gaussiancopula:epochs=3", "has no parameter"),
    ],
)
def test_bad_specs(spec: str, message: str) -> None:
    with pytest.raises(InputError, match=message):
        make_generator(spec)


@pytest.mark.parametrize("name", sorted(TINY))
def test_each_model_fits_samples_and_is_seeded(name: str, small: sl.Table) -> None:
    gen = make_generator(TINY[name]).fit(small, rng=np.random.default_rng(0))
    a = gen.sample(120, rng=np.random.default_rng(1))
    check_output(a, small.schema, 120)
    assert a.equals(gen.sample(120, rng=np.random.default_rng(1)))
    assert not a.equals(gen.sample(120, rng=np.random.default_rng(2)))


def test_gaussiancopula_keeps_the_categories_and_marginals(adult_1000: sl.Table) -> None:
    gen = make_generator("sdv:gaussiancopula").fit(adult_1000, rng=np.random.default_rng(0))
    out = gen.sample(2000, rng=np.random.default_rng(0))
    j = adult_1000.schema.categorical_names.index("sex")
    p = np.bincount(adult_1000.codes[:, j]) / len(adult_1000)
    q = np.bincount(out.codes[:, j], minlength=len(p)) / len(out)
    assert 0.5 * np.abs(p - q).sum() < 0.05


def test_missing_values_survive(mixed_frame: pd.DataFrame) -> None:
    table = sl.Table.from_frame(mixed_frame, sl.infer_schema(mixed_frame))
    out = make_generator("sdv:gaussiancopula").fit(table, rng=np.random.default_rng(0))
    syn = out.sample(400, rng=np.random.default_rng(0))
    check_output(syn, table.schema, 400)
    assert np.isnan(syn.column("height")).any()


def test_python_hook_passes_sdv_metadata_and_keywords(small: sl.Table) -> None:
    spec = "python:sdv.single_table:GaussianCopulaSynthesizer,enforce_min_max_values=false"
    gen = make_generator(spec)
    assert gen.kwargs == {"enforce_min_max_values": False} and gen.metadata_hook_ == "sdv"
    gen.fit(small, rng=np.random.default_rng(0))
    assert gen.model_.enforce_min_max_values is False
    a = gen.sample(80, rng=np.random.default_rng(5))
    check_output(a, small.schema, 80)
    assert a.equals(gen.sample(80, rng=np.random.default_rng(5)))


def test_python_hook_rejects_unknown_keywords() -> None:
    with pytest.raises(InputError, match=r"takes no keyword argument\(s\) \['nosuch'\]"):
        make_generator("python:sdv.single_table:GaussianCopulaSynthesizer,nosuch=1")
