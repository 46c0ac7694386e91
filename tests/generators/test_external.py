"""The external generators: ``command:...`` (a program) and ``python:module:Class``."""

from __future__ import annotations

import shlex
import sys
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from synthleak.data.profile import infer_schema
from synthleak.data.table import Table
from synthleak.errors import GeneratorFailure, InputError, NotFittedError
from synthleak.generators import claimed_delta, claimed_epsilon, make_generator
from synthleak.generators.external import CommandGenerator, PythonGenerator

# The "external program": resamples the input CSV with numpy seeded by {seed}; MODE changes how it
# misbehaves so every failure path is exercised.
SCRIPT = textwrap.dedent(
    """
    import csv
    import random
    import sys

    inp, out, n, seed, mode = (
        sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
    )
    with open(inp, newline="") as fh:
        rows = list(csv.reader(fh))
    header, body = rows[0], rows[1:]
    rnd = random.Random(seed)
    res = [list(body[rnd.randrange(len(body))]) for _ in range(n)]
    if mode == "fail":
        sys.stderr.write("boom: the model diverged\\n")
        sys.exit(3)
    if mode == "nooutput":
        sys.exit(0)
    if mode == "sleep":
        import time
        time.sleep(30)
    col = {name: i for i, name in enumerate(header)}
    if mode == "dropcol":
        header = header[1:]
        res = [r[1:] for r in res]
    if mode == "extracol":
        header = [*header, "bogus"]
        res = [[*r, "1"] for r in res]
    if mode == "fewrows":
        res = res[: n // 2]
    if mode == "morerows":
        res = res + res
    if mode == "unknowncat":
        res[0][col["colour"]] = "purple"
    if mode == "outofrange":
        for r in res:
            r[col["size"]] = "1e9"
    if mode == "text":
        res[0][col["size"]] = "big"
    with open(out, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(header)
        w.writerows(res)
    """
)


@pytest.fixture(scope="module")
def table() -> Table:
    rng = np.random.default_rng(0)
    n = 60
    df = pd.DataFrame(
        {
            "colour": rng.choice(["red", "green", "NA"], n),  # "NA" is a real category
            "code": rng.choice(["01", "02", "10"], n),  # leading zeros must survive
            "count": rng.integers(0, 4, n),  # integer categorical
            "size": rng.normal(10, 2, n).round(3),
            "shade": rng.choice(["light", "dark"], n).astype(object),
        }
    )
    df.loc[:4, "shade"] = None  # nullable categorical
    schema = infer_schema(df, categorical=["colour", "code", "count", "shade"])
    return Table.from_frame(df, schema)


@pytest.fixture(scope="module")
def script(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("prog") / "synth.py"
    path.write_text(SCRIPT)
    return path


def command(script: Path, mode: str = "ok", timeout: float | None = None) -> str:
    cmd = (
        f"{shlex.quote(sys.executable)} {shlex.quote(str(script))} "
        f"{{input}} {{output}} {{n}} {{seed}} {mode}"
    )
    spec = f'command:"{cmd}"'
    return spec + (f",timeout={timeout}" if timeout is not None else "")


def test_command_success_has_training_schema_and_is_seeded(table: Table, script: Path) -> None:
    gen = make_generator(command(script))
    assert isinstance(gen, CommandGenerator)
    gen.fit(table, rng=np.random.default_rng(1))
    out = gen.sample(40, rng=np.random.default_rng(2))
    assert out.schema == table.schema and len(out) == 40
    # the program resamples rows, so every output row is a training row (categories mapped back)
    train_keys = set(table.row_keys().tolist())
    assert all(k in train_keys for k in out.row_keys().tolist())
    again = gen.sample(40, rng=np.random.default_rng(2))
    assert out.equals(again)
    other = gen.sample(40, rng=np.random.default_rng(3))
    assert not out.equals(other)


def test_command_keeps_special_categories(table: Table, script: Path) -> None:
    gen = make_generator(command(script)).fit(table, rng=np.random.default_rng(0))
    out = gen.sample(300, rng=np.random.default_rng(0)).to_frame()
    assert "NA" in set(out["colour"])  # not read as missing
    assert set(out["code"]) <= {"01", "02", "10"}
    assert out["shade"].isna().any()  # the missing category comes back as missing


def test_command_sample_zero_and_unfitted(table: Table, script: Path) -> None:
    gen = make_generator(command(script))
    with pytest.raises(NotFittedError):
        gen.sample(5, rng=np.random.default_rng(0))
    gen.fit(table, rng=np.random.default_rng(0))
    empty = gen.sample(0, rng=np.random.default_rng(0))
    assert len(empty) == 0 and empty.schema == table.schema


def test_command_more_rows_are_truncated(table: Table, script: Path) -> None:
    gen = make_generator(command(script, "morerows")).fit(table, rng=np.random.default_rng(0))
    assert len(gen.sample(25, rng=np.random.default_rng(0))) == 25


def test_command_out_of_range_values_are_clipped(table: Table, script: Path) -> None:
    gen = make_generator(command(script, "outofrange")).fit(table, rng=np.random.default_rng(0))
    out = gen.sample(10, rng=np.random.default_rng(0))
    col = table.schema["size"]
    assert np.all(out.column("size") == np.float32(col.high))


@pytest.mark.parametrize(
    ("mode", "message"),
    [
        ("fail", r"exit code 3.*boom: the model diverged"),
        ("nooutput", r"without writing the output file"),
        ("dropcol", r"missing column\(s\) \['colour'\]"),
        ("extracol", r"unexpected column\(s\) \['bogus'\]"),
        ("fewrows", r"wrote 10 record\(s\) but 20 were asked for"),
        ("unknowncat", r"purple"),
        ("text", r"non-numeric value 'big'"),
    ],
)
def test_command_failures_name_the_command(
    table: Table, script: Path, mode: str, message: str
) -> None:
    gen = make_generator(command(script, mode)).fit(table, rng=np.random.default_rng(0))
    with pytest.raises(GeneratorFailure, match=message) as info:
        gen.sample(20, rng=np.random.default_rng(0))
    assert "synth.py" in str(info.value)


def test_command_timeout(table: Table, script: Path) -> None:
    gen = make_generator(command(script, "sleep", timeout=1.5))
    assert gen.timeout == 1.5
    gen.fit(table, rng=np.random.default_rng(0))
    with pytest.raises(GeneratorFailure, match=r"did not finish within 1.5 s"):
        gen.sample(5, rng=np.random.default_rng(0))


def test_command_missing_program(table: Table) -> None:
    gen = make_generator('command:"no-such-program-xyz {input} {output} {n}"')
    gen.fit(table, rng=np.random.default_rng(0))
    with pytest.raises(GeneratorFailure, match="not found"):
        gen.sample(5, rng=np.random.default_rng(0))


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("command:", "needs a command line"),
        ('command:"prog {input} {n}"', r"no \{output\} placeholder"),
        ('command:"prog {output} {n}"', r"no \{input\} placeholder"),
        ("command:prog 'unbalanced {input} {output}", "check its quotes"),
        ('command:"prog {input} {output}",timeout=abc', "timeout='abc' is not a valid float"),
        ('command:"prog {input} {output}" timeout=3', "after the quoted command line"),
        ('command:"prog {input} {output}",claimed_epsilon=0', "claimed_epsilon must be a number"),
        ('command:"prog {input} {output}",timeout=0', "timeout must be a number > 0"),
    ],
)
def test_command_bad_specs(spec: str, message: str) -> None:
    with pytest.raises(InputError, match=message):
        make_generator(spec)


# --- python:module:Class -----------------------------------------------------------------------
USER_MODULE = textwrap.dedent(
    """
    import numpy as np
    import pandas as pd

    class FrameResampler:
        '''DataFrame API: fit(df) / sample(n); draws from numpy's global RNG.'''
        def fit(self, df):
            self.df = df
            return self
        def sample(self, n):
            idx = np.random.randint(0, len(self.df), n)
            return self.df.iloc[idx].reset_index(drop=True)

    class TableResampler:
        '''synthleak Table protocol.'''
        def fit(self, table, *, rng):
            self.table = table
            return self
        def sample(self, n, *, rng):
            return self.table.take(rng.integers(0, len(self.table), n))

    class WrongRows(TableResampler):
        def sample(self, n, *, rng):
            return self.table.take(rng.integers(0, len(self.table), n + 1))

    class ReturnsList(FrameResampler):
        def sample(self, n):
            return [1, 2, 3]

    class Crashes(FrameResampler):
        def fit(self, df):
            raise RuntimeError("cannot learn")

    class NoSample:
        def fit(self, df):
            return self

    class WithOptions(FrameResampler):
        # keyword arguments from the spec; SDV-style metadata parameter
        def __init__(self, metadata=None, scale=1.0, flag=False, label="x", maybe=3):
            self.metadata, self.scale, self.flag = metadata, scale, flag
            self.label, self.maybe = label, maybe

    class OwnMetadata(FrameResampler):
        # the synthleak_metadata(schema) protocol
        def __init__(self, metadata):
            self.metadata = metadata
        @staticmethod
        def synthleak_metadata(schema):
            return {"columns": schema.names}

    def make_resampler(scale=1):
        # a factory function instead of a class
        obj = FrameResampler()
        obj.scale = scale
        return obj

    NOT_A_CLASS = 3
    """
)


@pytest.fixture
def user_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    name = f"user_gens_{tmp_path.name.replace('-', '_')}"
    (tmp_path / f"{name}.py").write_text(USER_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    return name


def test_python_dataframe_class(table: Table, user_module: str) -> None:
    gen = make_generator(f"python:{user_module}:FrameResampler")
    assert isinstance(gen, PythonGenerator)
    state = np.random.get_state()  # noqa: NPY002
    gen.fit(table, rng=np.random.default_rng(0))
    assert gen.table_api_ is False
    a = gen.sample(30, rng=np.random.default_rng(5))
    b = gen.sample(30, rng=np.random.default_rng(5))
    assert a.schema == table.schema and len(a) == 30
    assert a.equals(b)  # the global RNG was seeded from rng
    assert set(a.row_keys().tolist()) <= set(table.row_keys().tolist())
    after = np.random.get_state()  # noqa: NPY002
    assert np.array_equal(state[1], after[1])  # and restored afterwards


def test_python_table_class(table: Table, user_module: str) -> None:
    gen = make_generator(f"python:{user_module}:TableResampler").fit(
        table, rng=np.random.default_rng(0)
    )
    assert gen.table_api_ is True
    out = gen.sample(12, rng=np.random.default_rng(0))
    assert out.schema == table.schema and len(out) == 12
    assert out.equals(gen.sample(12, rng=np.random.default_rng(0)))


def test_python_dotted_target(table: Table, user_module: str) -> None:
    gen = make_generator(f"python:{user_module}.TableResampler")
    assert (
        len(gen.fit(table, rng=np.random.default_rng(0)).sample(3, rng=np.random.default_rng(0)))
        == 3
    )


@pytest.mark.parametrize(
    ("cls", "message"),
    [("WrongRows", r"returned 6 record\(s\) but 5"), ("ReturnsList", "returned list")],
)
def test_python_bad_output(table: Table, user_module: str, cls: str, message: str) -> None:
    gen = make_generator(f"python:{user_module}:{cls}").fit(table, rng=np.random.default_rng(0))
    with pytest.raises(GeneratorFailure, match=message):
        gen.sample(5, rng=np.random.default_rng(0))


def test_python_fit_crash_is_generator_failure(table: Table, user_module: str) -> None:
    gen = make_generator(f"python:{user_module}:Crashes")
    with pytest.raises(GeneratorFailure, match=r"fit failed.*cannot learn"):
        gen.fit(table, rng=np.random.default_rng(0))


def test_python_unfitted(user_module: str) -> None:
    with pytest.raises(NotFittedError):
        make_generator(f"python:{user_module}:TableResampler").sample(
            3, rng=np.random.default_rng(0)
        )


@pytest.mark.parametrize(
    ("target", "message"),
    [
        ("", "is not 'package.module:Class'"),
        ("nosuchmodule_xyz:Gen", "cannot import module 'nosuchmodule_xyz'"),
        ("{mod}:Missing", "has no attribute 'Missing'"),
        ("{mod}:NoSample", r"has no sample\(\) method"),
        ("{mod}:NOT_A_CLASS", "is not a class"),
    ],
)
def test_python_bad_targets(user_module: str, target: str, message: str) -> None:
    with pytest.raises(InputError, match=message):
        make_generator("python:" + target.format(mod=user_module))


def test_python_keyword_arguments_and_sdv_metadata_hook(table: Table, user_module: str) -> None:
    pytest.importorskip("sdv")
    spec = f"python:{user_module}:WithOptions,scale=2.5,flag=true,label='a b',maybe=none"
    gen = make_generator(spec)
    assert gen.kwargs == {"scale": 2.5, "flag": True, "label": "a b", "maybe": None}
    gen.fit(table, rng=np.random.default_rng(0))
    model = gen.model_
    assert (model.scale, model.flag, model.label, model.maybe) == (2.5, True, "a b", None)
    cols = model.metadata.to_dict()["tables"]["data"]["columns"]  # SDV metadata from the schema
    assert set(cols) == set(table.schema.names)


def test_python_metadata_protocol_wins(table: Table, user_module: str) -> None:
    gen = make_generator(f"python:{user_module}:OwnMetadata").fit(
        table, rng=np.random.default_rng(0)
    )
    assert gen.metadata_hook_ == "synthleak_metadata"
    assert gen.model_.metadata == {"columns": table.schema.names}


def test_python_factory_function(table: Table, user_module: str) -> None:
    gen = make_generator(f"python:{user_module}:make_resampler,scale=4")
    gen.fit(table, rng=np.random.default_rng(0))
    assert gen.model_.scale == 4
    assert len(gen.sample(7, rng=np.random.default_rng(0))) == 7


def test_python_unknown_keyword_is_an_input_error(user_module: str) -> None:
    with pytest.raises(InputError, match=r"takes no keyword argument\(s\) \['nosuch'\]"):
        make_generator(f"python:{user_module}:WithOptions,nosuch=1")


def test_python_and_command_declare_a_claimed_epsilon(user_module: str, script: Path) -> None:
    gen = make_generator(f"python:{user_module}:TableResampler,claimed_epsilon=2")
    assert claimed_epsilon(gen) == 2.0 and claimed_delta(gen) == 0.0
    assert "claimed_epsilon" not in gen.kwargs  # not forwarded to the class
    assert claimed_epsilon(make_generator(f"python:{user_module}:TableResampler")) is None
    cmd = make_generator(command(script) + ",claimed_epsilon=0.5,claimed_delta=1e-6")
    assert claimed_epsilon(cmd) == 0.5 and claimed_delta(cmd) == 1e-6
    assert cmd.timeout == 600.0
    both = make_generator(command(script, timeout=3) + ",claimed_epsilon=inf")
    assert both.timeout == 3 and claimed_epsilon(both) is None
