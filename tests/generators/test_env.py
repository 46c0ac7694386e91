"""``env:`` generators: a fake generator in a second environment this test creates itself.

The environment is ``python -m venv --without-pip`` (no synthleak, no numpy, no pandas in it):
the worker file is standard-library only, and so is the fake generator written below.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import synthleak as sl
from synthleak.errors import GeneratorFailure, InputError
from synthleak.generators import envworker_protocol as protocol
from synthleak.generators import make_generator, parse_spec
from synthleak.generators._adapt import frame_to_table
from synthleak.generators.env import (
    WORKER_FILE,
    EnvGenerator,
    EnvWorker,
    envs_dir,
    get_worker,
    resolve_python,
    schema_columns,
    shutdown_workers,
    write_table_file,
)

from .helpers import check_output

FAKE = textwrap.dedent(
    """
    import os, random, sys, time

    class Fake:
        synthleak_format = "records"

        def __init__(self, mode="ok", pause=0.0):
            self.mode, self.pause = mode, pause

        def fit(self, data, *, columns, seed):
            import importlib.util
            assert importlib.util.find_spec("numpy") is None, "numpy leaked into the env"
            if self.mode == "die_fit":
                print("about to die", file=sys.stderr, flush=True)
                os._exit(7)
            here = os.path.dirname(os.path.abspath(sys.modules["__main__"].__file__))
            if any(os.path.abspath(p or ".") == here for p in sys.path):
                raise RuntimeError("the worker's folder is on sys.path: it shadows libraries")
            if self.mode == "raise_fit":
                raise ValueError("the fake generator refuses this table")
            self.rows, self.columns = data, columns
            self.fit_seed = seed
            time.sleep(self.pause)

        def sample(self, n, *, seed):
            rnd = random.Random(seed * 7 + self.fit_seed)
            rows = [dict(rnd.choice(self.rows)) for _ in range(n)]
            if self.mode == "hang":
                time.sleep(30)
            if self.mode == "chatty":
                print("progress 50%")  # on stdout: must not corrupt the protocol
            if self.mode == "wrong_columns":
                rows = [{"a": 1, "b": 2} for _ in range(n)]
            if self.mode == "few_rows":
                rows = rows[:-1]
            if self.mode == "nan":
                name = [c["name"] for c in self.columns if not c["nullable"]][0]
                rows[0][name] = None
            if self.mode == "unknown_category":
                name = [c["name"] for c in self.columns if c["kind"] == "categorical"][0]
                rows[0][name] = "not-a-category"
            if self.mode == "global_random":  # draws from the global RNG the worker seeds
                rows = [dict(random.choice(self.rows)) for _ in range(n)]
            return rows
    """
)


@pytest.fixture(scope="module")
def fake_env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Path]]:
    root = tmp_path_factory.mktemp("envgen")
    venv = root / "envs" / "fake"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    (root / "fake_gen.py").write_text(FAKE)
    yield {"root": root, "venv": venv, "module": root / "fake_gen.py"}
    shutdown_workers()


@pytest.fixture(scope="module")
def table() -> sl.Table:
    rng = np.random.default_rng(3)
    n = 120
    df = pd.DataFrame(
        {
            "colour": rng.choice(["red", "green", "blue"], n).astype(object),
            "flag": rng.integers(0, 2, n),
            "height": rng.normal(170, 10, n).round(1),
            "weight": rng.integers(40, 120, n).astype(float),
        }
    )
    df.loc[rng.random(n) < 0.1, "colour"] = None
    df.loc[rng.random(n) < 0.1, "height"] = np.nan
    return sl.Table.from_frame(df, sl.infer_schema(df))


def spec(env: dict[str, Path], **kwargs: object) -> str:
    extra = "".join(f",{k}={v}" for k, v in kwargs.items())
    return f"env:{env['venv']}:{env['module']}:Fake{extra}"


def test_spec_parses_interpreter_target_and_keywords() -> None:
    name, raw = parse_spec("env:dpmm:pkg.mod:Cls,epochs=3,timeout=5")
    assert name == "env"
    assert raw == {"python": "dpmm", "target": "pkg.mod:Cls", "epochs": "3", "timeout": "5"}


def test_fit_failure_in_a_pipeline_leaves_other_generators_intact(
    fake_env: dict[str, Path], table: sl.Table
) -> None:
    good = make_generator(spec(fake_env)).fit(table, rng=np.random.default_rng(0))
    bad = make_generator(spec(fake_env, mode="raise_fit")).fit(table, rng=np.random.default_rng(0))
    check_output(good.sample(7, rng=np.random.default_rng(1)), table.schema, 7)
    with pytest.raises(GeneratorFailure, match="refuses this table"):
        bad.sample(7, rng=np.random.default_rng(1))
    with pytest.raises(GeneratorFailure, match="no fitted model"):
        bad.sample(7, rng=np.random.default_rng(1))  # a failed fit is not retried
    del bad  # an uncollected fit of a dropped generator is forgotten
    unused = make_generator(spec(fake_env)).fit(table, rng=np.random.default_rng(2))
    del unused
    check_output(good.sample(7, rng=np.random.default_rng(1)), table.schema, 7)
    worker = get_worker(good.python_)
    assert not worker.answers and not worker.unanswered


def test_fit_sample_round_trip_and_same_seed(fake_env: dict[str, Path], table: sl.Table) -> None:
    gen = make_generator(spec(fake_env))
    assert isinstance(gen, EnvGenerator)
    gen.fit(table, rng=np.random.default_rng(0))
    a = gen.sample(80, rng=np.random.default_rng(1))
    check_output(a, table.schema, 80)
    # the fake resamples training rows: every output row is a training row
    assert set(a.row_keys().tolist()) <= set(table.row_keys().tolist())
    assert a.equals(gen.sample(80, rng=np.random.default_rng(1)))
    assert not a.equals(gen.sample(80, rng=np.random.default_rng(2)))
    again = make_generator(spec(fake_env)).fit(table, rng=np.random.default_rng(0))
    assert again.sample(80, rng=np.random.default_rng(1)).equals(a)
    assert len(gen.sample(0, rng=np.random.default_rng(1))) == 0


def test_global_random_is_seeded_per_call(fake_env: dict[str, Path], table: sl.Table) -> None:
    gen = make_generator(spec(fake_env, mode="global_random"))
    gen.fit(table, rng=np.random.default_rng(0))
    a = gen.sample(50, rng=np.random.default_rng(5))
    gen.sample(50, rng=np.random.default_rng(6))  # moves the worker's global state
    assert gen.sample(50, rng=np.random.default_rng(5)).equals(a)


def test_worker_started_once_across_many_fits(fake_env: dict[str, Path], table: sl.Table) -> None:
    gen = make_generator(spec(fake_env))
    gen.fit(table, rng=np.random.default_rng(0))  # the worker is warm from here on
    before = EnvWorker.starts
    pid = get_worker(gen.python_).proc.pid  # type: ignore[union-attr]
    for seed in range(25):
        g = make_generator(spec(fake_env)).fit(table, rng=np.random.default_rng(seed))
        g.sample(10, rng=np.random.default_rng(seed))
    assert EnvWorker.starts == before
    worker = get_worker(gen.python_)
    assert worker.proc.pid == pid  # type: ignore[union-attr]
    # the generators dropped above are forgotten by the worker with the next request
    status = worker.call("status", 10)
    assert status["pid"] == pid and status["models"] <= 3


def test_interpreter_by_environment_name(
    fake_env: dict[str, Path], table: sl.Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SYNTHLEAK_ENVS", str(fake_env["venv"].parent))
    assert envs_dir() == fake_env["venv"].parent
    gen = make_generator(f"env:fake:{fake_env['module']}:Fake")
    assert Path(gen.python_) == fake_env["venv"] / "bin" / "python"
    check_output(
        gen.fit(table, rng=np.random.default_rng(0)).sample(5, rng=np.random.default_rng(0)),
        table.schema,
        5,
    )
    with pytest.raises(InputError, match="synthleak env create nope"):
        make_generator(f"env:nope:{fake_env['module']}:Fake")


def test_bad_specs(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no Python interpreter"):
        resolve_python(str(tmp_path / "missing"))
    with pytest.raises(InputError, match="names no Python environment"):
        make_generator("env::mod:Cls")
    with pytest.raises(InputError, match="is not 'module:Class'"):
        make_generator(f"env:{sys.executable}:justamodule")
    with pytest.raises(InputError, match="timeout must be a number > 0"):
        make_generator(f"env:{sys.executable}:m:C,timeout=0")


@pytest.mark.parametrize(
    ("mode", "message"),
    [
        ("raise_fit", "fit failed: ValueError: the fake generator refuses this table"),
        ("die_fit", r"exited \(code 7\) during fit; output tail: about to die"),
    ],
)
def test_fit_failures_carry_the_generator_message(
    fake_env: dict[str, Path], table: sl.Table, mode: str, message: str
) -> None:
    gen = make_generator(spec(fake_env, mode=mode))
    gen.fit(table, rng=np.random.default_rng(0))  # sent; the fit's outcome comes with sample
    with pytest.raises(GeneratorFailure, match=message):
        gen.sample(5, rng=np.random.default_rng(0))
    # the next generator still works (a dead worker is replaced)
    ok = make_generator(spec(fake_env)).fit(table, rng=np.random.default_rng(0))
    assert len(ok.sample(3, rng=np.random.default_rng(0))) == 3


@pytest.mark.parametrize(
    ("mode", "message"),
    [
        ("wrong_columns", "does not match the training columns"),
        ("few_rows", "returned 29 record"),
        ("nan", "training schema rejects"),
        ("unknown_category", "training schema rejects"),
    ],
)
def test_bad_output_is_a_generator_failure(
    fake_env: dict[str, Path], table: sl.Table, mode: str, message: str
) -> None:
    gen = make_generator(spec(fake_env, mode=mode)).fit(table, rng=np.random.default_rng(0))
    with pytest.raises(GeneratorFailure, match=message):
        gen.sample(30, rng=np.random.default_rng(0))


def test_print_on_stdout_does_not_corrupt_the_protocol(
    fake_env: dict[str, Path], table: sl.Table
) -> None:
    gen = make_generator(spec(fake_env, mode="chatty")).fit(table, rng=np.random.default_rng(0))
    check_output(gen.sample(20, rng=np.random.default_rng(0)), table.schema, 20)


def test_hang_times_out_and_the_worker_is_replaced(
    fake_env: dict[str, Path], table: sl.Table
) -> None:
    gen = make_generator(spec(fake_env, mode="hang", timeout=1))
    gen.fit(table, rng=np.random.default_rng(0))
    before = EnvWorker.starts
    with pytest.raises(GeneratorFailure, match=r"did not finish sample within 1 s"):
        gen.sample(5, rng=np.random.default_rng(0))
    ok = make_generator(spec(fake_env)).fit(table, rng=np.random.default_rng(0))
    assert len(ok.sample(3, rng=np.random.default_rng(0))) == 3
    assert EnvWorker.starts == before + 1
    with pytest.raises(GeneratorFailure, match="was it restarted"):
        gen.sample(5, rng=np.random.default_rng(0))  # its model died with the old worker


def test_protocol_version_mismatch_is_reported(
    fake_env: dict[str, Path], table: sl.Table, tmp_path: Path
) -> None:
    old = tmp_path / "old_worker.py"
    current = f"VERSION = {protocol.VERSION}\n"
    assert current in WORKER_FILE.read_text()
    old.write_text(WORKER_FILE.read_text().replace(current, "VERSION = 99\n"))
    gen = make_generator(spec(fake_env, worker_file=old))
    with pytest.raises(
        GeneratorFailure,
        match=f"protocol version 99 but this synthleak speaks version {protocol.VERSION}",
    ):
        gen.fit(table, rng=np.random.default_rng(0))


def test_schema_columns_describe_the_training_schema(table: sl.Table) -> None:
    cols = {c["name"]: c for c in schema_columns(table)}
    assert cols["colour"]["kind"] == "categorical" and cols["colour"]["nullable"]
    assert set(cols["colour"]["categories"]) == {"red", "green", "blue"}
    assert cols["weight"]["kind"] == "continuous" and cols["weight"]["integer"]
    assert not cols["weight"]["nullable"]


def test_fitted_generator_pickled_to_another_process_refuses_to_sample(
    fake_env: dict[str, Path], table: sl.Table
) -> None:
    import pickle

    gen = make_generator(spec(fake_env)).fit(table, rng=np.random.default_rng(0))
    copy = pickle.loads(pickle.dumps(gen))
    copy.fitted_pid_ = -1  # as if unpickled in another process
    with pytest.raises(GeneratorFailure, match="fitted in another process"):
        copy.sample(3, rng=np.random.default_rng(0))


def test_table_files_round_trip_every_column_kind(tmp_path: Path) -> None:
    """The parent's table file read as the worker reads it (text, NaN for missing values,
    integer columns rounded, dates as ISO text), and back through the training schema."""
    n = 40
    df = pd.DataFrame(
        {
            "colour": (["red", None, "blue", "red"] * n)[:n],
            "age": np.r_[30.0, 41.0, np.nan, np.arange(n - 3) + 20.0],
            "day": pd.to_datetime(["2020-01-31", "2020-02-29", None] * 13 + ["2021-12-01"]),
            "code": ([1, 2, 1, 3] * n)[:n],
        }
    )
    table = sl.Table.from_frame(df, sl.infer_schema(df))
    kinds = [c.kind.value for c in table.schema.columns]
    assert kinds == ["categorical", "continuous", "datetime", "categorical"]
    path = tmp_path / "t.table"
    write_table_file(table, path)
    frame = protocol._read_frame(str(path))
    assert frame["colour"].tolist()[:3:2] == ["red", "blue"] and pd.isna(frame["colour"][1])
    assert frame["age"].tolist()[:2] == [30.0, 41.0] and pd.isna(frame["age"][2])
    assert frame["day"].tolist()[:2] == ["2020-01-31", "2020-02-29"] and pd.isna(frame["day"][2])
    assert [c["name"] for c in schema_columns(table)] == list(frame.columns)
    records = protocol._read_records(str(path))
    assert records[1] == {"colour": None, "age": 41.0, "day": "2020-02-29", "code": "2"}
    back = frame_to_table(frame, table.schema, source="test")
    assert back.equals(table)
