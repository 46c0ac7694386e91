"""Named library adapters on the env route (``dpmm:*``, ``smartnoise:*``, ``synthcity:*``).

Fast tests: the claims each adapter declares, bad parameters, the message when the environment
is missing, and what the env-side classes hand the library (with a stand-in library module).
Slow tests (``-m slow``): a real fit per adapter in the environment ``synthleak env create``
makes, skipped with the reason when that environment is absent.
"""

from __future__ import annotations

import sys
import types
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import synthleak as sl
from synthleak.cli.main import main
from synthleak.errors import InputError, MissingExtraError
from synthleak.generators import claimed_delta, claimed_epsilon, make_generator
from synthleak.generators import env_adapters as adapters
from synthleak.generators.base import list_generators
from synthleak.generators.env import (
    ADAPTERS_FILE,
    SmartNoiseGenerator,
    env_installed,
    shutdown_workers,
)
from synthleak.testing.contract import check_parameters

PY = sys.executable  # any interpreter will do to build an adapter: nothing starts before fit


@pytest.mark.parametrize(
    ("spec", "eps", "delta", "relation"),
    [
        (f"dpmm:mst:env={PY}", 1.0, 1e-5, "add_remove"),
        (f"dpmm:aim:epsilon=4,delta=1e-6,env={PY}", 4.0, 1e-6, "add_remove"),
        (f"dpmm:privbayes:epsilon=2,env={PY}", 2.0, 1e-5, "substitute"),
        (
            f"dpmm:mst:epsilon=1,binner_type=priv-tree,proc_epsilon=0.1,env={PY}",
            1.1,
            1e-5,
            "add_remove",
        ),
        (f"dpmm:mst:proc_epsilon=0.5,env={PY}", 1.0, 1e-5, "add_remove"),  # uniform: unspent
        (f"smartnoise:mst:epsilon=3,env={PY}", 3.0, 1e-9, "add_remove"),
        (f"smartnoise:aim:delta=1e-7,env={PY}", 1.0, 1e-7, "add_remove"),
        (f"smartnoise:dpctgan:epsilon=5,delta=1e-6,env={PY}", 5.0, 1e-6, "add_remove"),
        (f"smartnoise:patectgan:env={PY}", 1.0, None, "add_remove"),  # delta known once fitted
        (f"synthcity:aim:env={PY}", 1.0, 1e-9, "add_remove"),
        (f"synthcity:aim:epsilon=4,delta=1e-6,env={PY}", 4.0, 1e-6, "add_remove"),
        (f"synthcity:dpgan:epsilon=3,delta=1e-5,env={PY}", 3.0, 1e-5, "add_remove"),
        (f"synthcity:dpgan:env={PY}", 1.0, None, "add_remove"),  # delta known once fitted
        (f"synthcity:pategan:epsilon=2,env={PY}", 2.0, None, "add_remove"),
    ],
)
def test_declared_claims(spec: str, eps: float, delta: float | None, relation: str) -> None:
    gen = make_generator(spec)
    assert claimed_epsilon(gen) == pytest.approx(eps)
    assert claimed_delta(gen) == (None if delta is None else pytest.approx(delta))
    assert gen.claimed_neighbouring == relation
    assert gen.deterministic is False  # same-seed refits differ in both libraries
    assert gen.target == f"{ADAPTERS_FILE}:{gen.adapter_class}"


@pytest.mark.parametrize("model", ["ddpm", "arf", "nflow"])
def test_synthcity_non_dp_models_claim_nothing(model: str) -> None:
    gen = make_generator(f"synthcity:{model}:env={PY}")
    assert claimed_epsilon(gen) is None
    infos = {info.name: info for info in list_generators()}
    assert not infos[f"synthcity:{model}"].differentially_private
    assert all(infos[f"synthcity:{m}"].differentially_private for m in ("aim", "dpgan", "pategan"))


def test_synthcity_default_deltas_once_fitted() -> None:
    pategan = make_generator(f"synthcity:pategan:env={PY}")
    dpgan = make_generator(f"synthcity:dpgan:env={PY}")
    pategan.n_train_ = dpgan.n_train_ = 400  # what fit records
    assert claimed_delta(pategan) == pytest.approx(1 / (400 * 20))  # 1/(n sqrt n)
    assert claimed_delta(dpgan) == pytest.approx(1 / 320)  # 1/m, m = 0.8 n trained on
    # dpgan: no early stopping on held-out records, so no model is chosen outside the accountant
    assert dpgan.kwargs["n_iter_print"] == dpgan.kwargs["n_iter"] + 1


def test_synthcity_options_reach_the_plugin() -> None:
    gen = make_generator(f"synthcity:ddpm:n_iter=50,num_timesteps=20,scheduler=linear,env={PY}")
    assert gen.kwargs == {
        "model": "ddpm",
        "n_iter": 50,
        "num_timesteps": 20,
        "batch_size": 32,  # the CPU default
        "scheduler": "linear",
    }
    gen = make_generator(f"synthcity:ddpm:batch_size=128,env={PY}")
    assert gen.kwargs["batch_size"] == 128 and gen.kwargs["num_timesteps"] == 100
    assert "batch_size" not in make_generator(f"synthcity:nflow:env={PY}").kwargs


def test_gan_delta_once_fitted_is_smartnoise_default() -> None:
    gen = make_generator(f"smartnoise:dpctgan:env={PY}")
    assert isinstance(gen, SmartNoiseGenerator)
    gen.n_train_ = 400  # what fit records
    assert claimed_delta(gen) == pytest.approx(1 / (400 * 20))


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("dpmm:mst:epsilon=0", r"epsilon=0.0 is invalid: epsilon must be a number in \(0, inf\)"),
        ("dpmm:mst:delta=0", r"delta must be a number in \(0, 1\)"),
        ("dpmm:aim:binner_type=quantile", "binner_type must be one of uniform, priv-tree"),
        ("dpmm:aim:binner_type=priv-tree", "priv-tree binner needs proc_epsilon > 0"),
        ("smartnoise:mst:epochs=3", "takes no epochs or batch_size"),
        ("smartnoise:dpctgan:batch_size=7", "batch_size must be even"),
        ("smartnoise:aim:n_bins=1", "n_bins must be >= 2"),
        ("synthcity:ddpm:epsilon=1", "not differentially private"),
        ("synthcity:pategan:delta=1e-5", "takes no delta"),
        ("synthcity:dpgan:epsilon=-1", "epsilon must be a finite number > 0"),
        ("synthcity:aim:delta=2", r"delta must be in \(0, 1\)"),
        ("synthcity:arf:n_iter=10", "takes no n_iter"),
        ("synthcity:aim:batch_size=10", "takes no batch_size"),
        ("synthcity:ddpm:n_bins=10", "n_bins"),
        ("synthcity:nflow:random_state=3", "random_state is set by synthleak"),
        ("synthcity:nflow:n_iter=0", "n_iter must be >= 1"),
    ],
)
def test_bad_parameters(spec: str, message: str) -> None:
    with pytest.raises(InputError, match=message):
        make_generator(f"{spec},env={PY}")


def test_missing_environment_says_how_to_create_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SYNTHLEAK_ENVS", str(tmp_path))
    assert not env_installed("dpmm")
    with pytest.raises(MissingExtraError, match="synthleak env create dpmm") as info:
        make_generator("dpmm:mst")
    assert info.value.extra == "env:dpmm"
    with pytest.raises(InputError, match="no Python interpreter"):
        make_generator(f"smartnoise:mst:env={tmp_path / 'nowhere' / 'python'}")
    with pytest.raises(MissingExtraError, match="synthleak env create synthcity"):
        make_generator("synthcity:ddpm")


# --- the env-side classes, with stand-in libraries ---------------------------------------------
COLUMNS = [
    {"name": "colour", "kind": "categorical", "categories": ["blue", "red"], "nullable": True},
    {
        "name": "age",
        "kind": "continuous",
        "low": 17.0,
        "high": 90.0,
        "integer": True,
        "nullable": False,
    },
]
FRAME = pd.DataFrame({"colour": ["red", None, "blue"], "age": [20.0, 35.0, 61.0]})


def test_dpmm_class_gives_the_schema_as_domain(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: dict[str, object] = {}

    class Pipeline:
        def __init__(self, **kwargs: object) -> None:
            seen["init"] = kwargs

        def fit(self, df: pd.DataFrame, *, domain: dict, random_state: int) -> None:
            seen["fit"] = (df.copy(), domain, random_state)

        def generate(self, *, n_records: int, random_state: int) -> pd.DataFrame:
            seen["generate"] = (n_records, random_state)
            return pd.DataFrame({"age": [30.0] * n_records, "colour": ["red"] * n_records})

    pipelines = types.ModuleType("dpmm.pipelines")
    pipelines.MSTPipeline = Pipeline  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "dpmm", types.ModuleType("dpmm"))
    monkeypatch.setitem(sys.modules, "dpmm.pipelines", pipelines)
    gen = adapters.Dpmm(model="mst", epsilon=2.0, n_iters=50)
    gen.fit(FRAME, columns=COLUMNS, seed=11)
    out = gen.sample(4, seed=12)
    assert list(out.columns) == ["colour", "age"]  # schema order
    _, domain, seed = seen["fit"]  # type: ignore[misc]
    assert domain == {
        "colour": {"categories": ["blue", "red"]},
        "age": {"lower": 17.0, "upper": 90.0},
    }
    assert seed == 11 and seen["generate"] == (4, 12)
    init = seen["init"]
    assert init["epsilon"] == 2.0 and init["n_jobs"] == 1  # type: ignore[index]
    assert init["gen_kwargs"] == {"n_iters": 50} and init["proc_epsilon"] is None  # type: ignore[index]
    with pytest.raises(ValueError, match="not one of"):
        adapters.Dpmm(model="ctgan")


def test_smartnoise_class_bounds_continuous_columns(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: dict[str, object] = {}

    class Transformer:
        def __init__(self, **kwargs: object) -> None:
            self.kwargs = kwargs

        def fit(self, values: list[object]) -> None:
            self.fitted_on = list(values)

    class Synth:
        def fit(self, df: pd.DataFrame, **kwargs: object) -> None:
            seen["fit"] = (df.copy(), kwargs)

        def sample(self, n: int) -> list[tuple[object, ...]]:
            return [("\x00missing", 40.0)] + [("blue", 50.0)] * (n - 1)

    class Synthesizer:
        @staticmethod
        def create(name: str, *, epsilon: float, **kwargs: object) -> Synth:
            seen["create"] = (name, epsilon, kwargs)
            return Synth()

    snsynth = types.ModuleType("snsynth")
    snsynth.Synthesizer = Synthesizer  # type: ignore[attr-defined]
    transform = types.ModuleType("snsynth.transform")
    transform.BinTransformer = type("BinTransformer", (Transformer,), {})  # type: ignore[attr-defined]
    transform.MinMaxTransformer = type("MinMaxTransformer", (Transformer,), {})  # type: ignore[attr-defined]
    transform.LabelTransformer = type("LabelTransformer", (Transformer,), {})  # type: ignore[attr-defined]
    transform.OneHotEncoder = type("OneHotEncoder", (Transformer,), {})  # type: ignore[attr-defined]
    transform.ChainTransformer = type(
        "ChainTransformer", (Transformer,), {"__init__": lambda self, ts: setattr(self, "ts", ts)}
    )  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "snsynth", snsynth)
    monkeypatch.setitem(sys.modules, "snsynth.transform", transform)

    gen = adapters.SmartNoise(model="dpctgan", epsilon=3.0, epochs=2)
    gen.fit(FRAME, columns=COLUMNS, seed=0)
    name, eps, kwargs = seen["create"]  # type: ignore[misc]
    assert (name, eps, kwargs) == ("dpctgan", 3.0, {"epochs": 2, "verbose": False})
    df, fit_kwargs = seen["fit"]  # type: ignore[misc]
    assert df["colour"].tolist() == ["red", "\x00missing", "blue"]  # no None for the encoder
    age = fit_kwargs["transformer"]["age"]  # type: ignore[index]
    assert type(age).__name__ == "MinMaxTransformer"
    assert age.kwargs == {"lower": 17.0, "upper": 90.0, "nullable": False}
    assert fit_kwargs["preprocessor_eps"] == 0.0  # type: ignore[index]
    colour = fit_kwargs["transformer"]["colour"]  # type: ignore[index]
    assert [type(t).__name__ for t in colour.ts] == ["LabelTransformer", "OneHotEncoder"]
    assert colour.ts[0].kwargs == {"nullable": False}  # missing is a category of its own
    # fitted on the schema's domain before SmartNoise sees the records (nothing learnt from
    # them outside the claim): the categories and the missing token, the continuous bounds
    assert colour.fitted_on == ["blue", "red", "\x00missing"]
    assert age.fitted_on == [17.0, 90.0]
    out = gen.sample(3, seed=1)
    assert out["colour"].tolist() == [None, "blue", "blue"]

    gen = adapters.SmartNoise(model="mst", n_bins=8)
    gen.fit(FRAME, columns=COLUMNS, seed=0)
    age = seen["fit"][1]["transformer"]["age"]  # type: ignore[index]
    assert type(age).__name__ == "BinTransformer" and age.kwargs["bins"] == 8
    colour = seen["fit"][1]["transformer"]["colour"]  # type: ignore[index]
    assert type(colour).__name__ == "LabelTransformer" and colour.kwargs == {"nullable": False}
    assert colour.fitted_on == ["blue", "red", "\x00missing"]  # not the data's values
    no_missing = [{**COLUMNS[0], "nullable": False}, COLUMNS[1]]
    gen.fit(FRAME.fillna("red"), columns=no_missing, seed=0)
    colour = seen["fit"][1]["transformer"]["colour"]  # type: ignore[index]
    assert colour.fitted_on == ["blue", "red"]  # no missing token where none may be


def _stand_in_synthcity(
    monkeypatch: pytest.MonkeyPatch, module: str, output: pd.DataFrame
) -> dict[str, object]:
    """A stand-in synthcity plugin module (and torch) recording what the adapter hands it."""
    seen: dict[str, object] = {"generate": []}

    class Plugin:
        def __init__(self, **kwargs: object) -> None:
            seen["init"] = kwargs

        def fit(self, df: pd.DataFrame) -> None:
            seen["fit"] = df.copy()

        def generate(self, *, count: int, random_state: int) -> types.SimpleNamespace:
            seen["generate"].append((count, random_state))  # type: ignore[attr-defined]
            return types.SimpleNamespace(dataframe=lambda: output.copy())

    plugin_module = types.ModuleType(f"synthcity.plugins.{module}")
    plugin_module.plugin = Plugin  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, f"synthcity.plugins.{module}", plugin_module)
    torch = types.ModuleType("torch")
    torch.set_num_threads = lambda n: seen.__setitem__("threads", n)  # type: ignore[attr-defined]
    torch.device = lambda name: f"device:{name}"  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "torch", torch)
    return seen


def test_synthcity_class_encodes_missing_values(monkeypatch: pytest.MonkeyPatch) -> None:
    columns = [COLUMNS[0], {**COLUMNS[1], "nullable": True}]
    frame = pd.DataFrame({"colour": ["red", None, "blue"], "age": [20.0, np.nan, 61.0]})
    flag = "age" + adapters.MISSING_FLAG
    output = pd.DataFrame(
        {
            "age": [30.0, 17.0, 44.0, 50.0],
            "colour": [adapters.MISSING, "red", "blue", "red"],
            flag: ["0", "1", "0", "0"],
        }
    )
    seen = _stand_in_synthcity(monkeypatch, "generic.plugin_ddpm", output)
    gen = adapters.Synthcity(model="ddpm", n_iter=5)
    gen.fit(frame, columns=columns, seed=2**40 + 7)
    fitted = seen["fit"]
    assert fitted["colour"].tolist() == ["red", adapters.MISSING, "blue"]  # type: ignore[index]
    assert fitted["age"].tolist() == [20.0, 17.0, 61.0]  # type: ignore[index]  # low bound
    assert fitted[flag].tolist() == ["0", "1", "0"]  # type: ignore[index]
    init = seen["init"]
    assert init["n_iter"] == 5 and init["device"] == "device:cpu"  # type: ignore[index]
    assert init["random_state"] == (2**40 + 7) % 2**31 and seen["threads"] == 1  # type: ignore[index]
    out = gen.sample(4, seed=9)
    assert list(out.columns) == ["colour", "age"]  # schema order, indicator dropped
    assert out["colour"].tolist() == [None, "red", "blue", "red"]
    assert out["age"].isna().tolist() == [False, True, False, False]
    assert seen["generate"] == [(4, 9)]
    with pytest.raises(ValueError, match="not one of"):
        adapters.Synthcity(model="ctgan")


def test_synthcity_aim_bins_and_runs_once(monkeypatch: pytest.MonkeyPatch) -> None:
    # AIM's output: bin codes as text; fewer rows than asked for (its noisy total)
    output = pd.DataFrame({"colour": ["red", "blue", "red"], "age": ["0", "9", adapters.MISSING]})
    seen = _stand_in_synthcity(monkeypatch, "privacy.plugin_aim", output)
    columns = [COLUMNS[0], {**COLUMNS[1], "nullable": True}]
    frame = pd.DataFrame({"colour": ["red", "blue", "red"], "age": [17.0, 90.0, np.nan]})
    gen = adapters.Synthcity(model="aim", n_bins=10, epsilon=1.0, delta=1e-9)
    gen.fit(frame, columns=columns, seed=1)
    fitted = seen["fit"]
    assert fitted["age"].tolist() == ["0", "9", adapters.MISSING]  # type: ignore[index]
    init = seen["init"]
    assert init["sampling_patience"] == 1 and init["strict"] is False  # type: ignore[index]
    first = gen.sample(5, seed=3)
    second = gen.sample(2, seed=4)
    assert seen["generate"] == [(5, 3)]  # the mechanism ran once for both samples
    assert len(first) == 5 and len(second) == 2
    width = (90.0 - 17.0) / 10
    for out in (first, second):
        ages = out["age"]
        assert set(out["colour"]) <= {"red", "blue"}
        low = ages[out["colour"] == "red"].dropna()  # red rows are bins 0 and missing
        assert low.between(17.0, 17.0 + width).all()
        assert ages[out["colour"] == "blue"].between(17.0 + 9 * width, 90.0).all()


# --- real fits in the real environments (slow) --------------------------------------------------
REAL = {
    "dpmm:mst": "dpmm:mst:epsilon=1,n_iters=100",
    "dpmm:aim": "dpmm:aim:epsilon=1,n_iters=100",
    "dpmm:privbayes": "dpmm:privbayes:epsilon=1,n_iters=100",
    "smartnoise:mst": "smartnoise:mst:epsilon=1",
    "smartnoise:aim": "smartnoise:aim:epsilon=1",
    "smartnoise:patectgan": "smartnoise:patectgan:epsilon=1,epochs=2,batch_size=100",
    "smartnoise:dpctgan": "smartnoise:dpctgan:epsilon=1,epochs=2,batch_size=100",
    "synthcity:ddpm": "synthcity:ddpm:n_iter=20,num_timesteps=50",
    "synthcity:arf": "synthcity:arf:num_trees=10,max_iters=2",
    "synthcity:nflow": "synthcity:nflow:n_iter=5",
    "synthcity:pategan": "synthcity:pategan:n_iter=2",
    "synthcity:dpgan": "synthcity:dpgan:n_iter=5",
    "synthcity:aim": "synthcity:aim:epsilon=1,n_bins=5",
}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(REAL))
def test_generate_adult_in_the_library_environment(
    name: str, tmp_path: Path, adult_df: pd.DataFrame
) -> None:
    env = name.split(":")[0]
    if not env_installed(env):
        pytest.skip(f"environment {env!r} absent: create it with synthleak env create {env}")
    out = tmp_path / "syn.csv"
    args = ["generate", "adult", "--generator", REAL[name], "--train-size", "500"]
    try:
        code = main([*args, "--synthetic-size", "500", "--out", str(out), "--seed", "3"])
    finally:
        shutdown_workers()
    assert code == 0
    syn = pd.read_csv(out, dtype=str, keep_default_na=False)
    assert list(syn.columns) == list(adult_df.columns) and len(syn) == 500
    # the domain is the training schema's (public, as for synthleak's own DP generators)
    schema = sl.infer_schema(adult_df)
    for col in schema.categorical:
        assert set(syn[col.name]) - {""} <= {str(c) for c in col.categories}, col.name
        if not col.has_missing:
            assert "" not in set(syn[col.name]), col.name
    for col in schema.continuous:
        values = pd.to_numeric(syn[col.name].replace("", np.nan))
        if not col.has_missing:
            assert not values.isna().any(), col.name
        assert values.dropna().between(col.low, col.high).all(), col.name


@pytest.mark.parametrize("model", ["mst", "aim", "privbayes"])
def test_dpmm_declares_every_parameter_and_refuses_an_invalid_one_when_made(model: str) -> None:
    """The parameter clauses of check_generator, without the dpmm environment: every invalid
    value is refused when the generator is made, so fit is never reached."""

    def fit(gen: object) -> None:
        raise AssertionError("an invalid value reached fit")

    check_parameters(make_generator(f"dpmm:{model}:env={PY}"), f"dpmm:{model}", fit)
