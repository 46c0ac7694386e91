"""REalTabFormer adapter: trained from scratch, offline, seeded, output in the training schema."""

from __future__ import annotations

import os

import numpy as np
import pandas as pd
import pytest

import synthleak as sl
from synthleak.errors import GeneratorFailure, InputError
from synthleak.generators import make_generator
from synthleak.generators.realtabformer import OFFLINE_ENV, REaLTabFormerGenerator, offline_env

from .helpers import check_output

TINY = "realtabformer:epochs=1,n_critic=0,n_layer=1,n_embd=16,n_head=2,gen_batch=256,threads=1"


@pytest.fixture(autouse=True)
def _offline(monkeypatch: pytest.MonkeyPatch) -> None:
    for key, value in OFFLINE_ENV.items():  # belt and braces: never reach the network
        monkeypatch.setenv(key, value)


def test_spec_defaults_are_the_library_defaults() -> None:
    pytest.importorskip("realtabformer")
    gen = make_generator("realtabformer")
    assert isinstance(gen, REaLTabFormerGenerator)
    assert (gen.epochs, gen.batch_size, gen.gradient_accumulation_steps) == (1000, 8, 4)
    assert (gen.n_layer, gen.n_embd, gen.n_head, gen.n_critic) == (6, 768, 12, 5)
    assert gen.device == "cpu"


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("realtabformer:epochs=0", "epochs must be an integer >= 1"),
        ("realtabformer:n_embd=30,n_head=4", "must be a multiple of n_head"),
        ("realtabformer:n_critic=-1", "n_critic must be an integer >= 0"),
        ("realtabformer:mask_rate=1", r"mask_rate must be a number in \[0, 1\)"),
        ("realtabformer:learning_rate=0", "learning_rate must be a number > 0"),
        ("realtabformer:threads=-1", "threads must be an integer >= 0"),
    ],
)
def test_bad_specs(spec: str, message: str) -> None:
    pytest.importorskip("realtabformer")
    with pytest.raises(InputError, match=message):
        make_generator(spec)


def test_offline_env_is_restored(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HF_HUB_OFFLINE")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "0")
    with offline_env():
        assert all(os.environ[k] == v for k, v in OFFLINE_ENV.items())
    assert "HF_HUB_OFFLINE" not in os.environ and os.environ["TRANSFORMERS_OFFLINE"] == "0"


def test_fit_sample_seeded_with_training_schema(mixed_frame: pd.DataFrame) -> None:
    pytest.importorskip("realtabformer")
    # numeric-looking categories and missing values in both kinds of column
    mixed_frame = mixed_frame.assign(code=np.where(mixed_frame["flag"] == 1, 7, 12))
    schema = sl.infer_schema(mixed_frame, categorical=["code"])
    table = sl.Table.from_frame(mixed_frame, schema)
    gen = make_generator(TINY).fit(table, rng=np.random.default_rng(0))
    a = gen.sample(150, rng=np.random.default_rng(1))
    check_output(a, schema, 150)
    assert a.equals(gen.sample(150, rng=np.random.default_rng(1)))
    assert not a.equals(gen.sample(150, rng=np.random.default_rng(2)))
    again = make_generator(TINY).fit(table, rng=np.random.default_rng(0))
    assert again.sample(150, rng=np.random.default_rng(1)).equals(a)


def test_decode_rejects_unknown_codes(adult_1000: sl.Table) -> None:
    pytest.importorskip("realtabformer")
    gen = make_generator(TINY)
    gen.schema_ = adult_1000.schema
    frame = gen._frame(adult_1000.take(np.arange(3)))
    frame["c0"] = "999"
    with pytest.raises(GeneratorFailure, match="unknown category"):
        gen._decode(frame, 3)


def test_torch_threads_are_restored() -> None:
    torch = pytest.importorskip("torch")
    from synthleak.generators.realtabformer import torch_threads

    before = torch.get_num_threads()
    with torch_threads(1):
        assert torch.get_num_threads() == 1
    assert torch.get_num_threads() == before


def test_critic_fit_gets_sampling_options_and_no_periodic_save(
    adult_1000: sl.Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    """realtabformer 0.2.4 unpacks ``gen_kwargs`` (default None) in every critic round, and its
    full save every 5 critic epochs needs an id set only after fit: the adapter passes both."""
    rtf = pytest.importorskip("realtabformer")
    seen: dict[str, object] = {}

    class Stop(Exception):
        pass

    def spy(self: object, df: pd.DataFrame, device: str, **kwargs: object) -> None:
        seen.update(kwargs)
        raise Stop

    monkeypatch.setattr(rtf.REaLTabFormer, "_train_with_sensitivity", spy)
    gen = make_generator("realtabformer:epochs=7,n_critic=5,n_layer=1,n_embd=16,n_head=2")
    with pytest.raises(GeneratorFailure, match="Stop"):
        gen.fit(adult_1000.take(np.arange(50)), rng=np.random.default_rng(0))
    assert seen["gen_kwargs"] == {"gen_batch": 128}
    assert seen["save_full_every_epoch"] == 0
    assert seen["n_critic"] == 5


@pytest.mark.slow
@pytest.mark.parametrize("epochs", [1, 7])
def test_critic_fit_any_epoch_count(adult_1000: sl.Table, epochs: int) -> None:
    """A run shorter than one critic interval, and one past the library's periodic save."""
    pytest.importorskip("realtabformer")
    table = adult_1000.take(np.arange(200))
    spec = f"realtabformer:epochs={epochs},n_layer=1,n_embd=16,n_head=2,threads=1"
    gen = make_generator(spec).fit(table, rng=np.random.default_rng(0))
    check_output(gen.sample(100, rng=np.random.default_rng(1)), table.schema, 100)
