"""The worker file on its own: hello line, one-line errors, the version check, table formats."""

from __future__ import annotations

import ast
import io
import json
import math
import struct
import sys
from pathlib import Path

import pytest

from synthleak.generators import envworker_protocol as protocol

COLUMNS = [
    {"name": "colour", "kind": "categorical", "categories": ["red", "blue"], "nullable": True},
    {
        "name": "height",
        "kind": "continuous",
        "low": 1.0,
        "high": 2.0,
        "integer": False,
        "nullable": True,
    },
]


def run(*requests: dict) -> list[dict]:
    out = io.StringIO()
    protocol.serve(io.StringIO("".join(json.dumps(r) + "\n" for r in requests)), out)
    return [json.loads(line) for line in out.getvalue().splitlines()]


def test_standard_library_only() -> None:
    tree = ast.parse(Path(protocol.__file__).read_text())
    top = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            top |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            top.add(node.module.split(".")[0])
    # numpy and pandas only when the env has them (the "pandas" format)
    assert top - {"numpy", "pandas"} <= set(sys.stdlib_module_names)
    assert "synthleak" not in top


def test_hello_then_one_line_errors() -> None:
    hello, bad_op, bad_version, missing = run(
        {"op": "frobnicate", "id": 1},
        {"op": "drop", "id": 2, "version": 99, "model": "m"},
        {"op": "sample", "id": 3, "model": "m9", "n": 1, "seed": 0, "out": "x.table"},
    )
    assert hello == {
        "protocol": protocol.PROTOCOL,
        "version": protocol.VERSION,
        "python": sys.version.split()[0],
    }
    assert bad_op == {"id": 1, "ok": False, "error": "ValueError: unknown op 'frobnicate'"}
    assert bad_version["id"] == 2 and "protocol version 99 requested" in bad_version["error"]
    assert not missing["ok"] and "no fitted model 'm9'" in missing["error"]


def hand_written_table(path: Path) -> None:
    """The documented table file, written byte by byte: colour red / missing / blue (text),
    height 1.5 / missing / 1.25 (number)."""
    head = {
        "rows": 3,
        "columns": [
            {"name": "colour", "type": "text", "values": ["red", "blue"]},
            {"name": "height", "type": "number"},
        ],
    }
    path.write_bytes(
        json.dumps(head).encode()
        + b"\n"
        + struct.pack("<3i", 0, -1, 1)
        + struct.pack("<3d", 1.5, math.nan, 1.25)
    )


def read_back(path: Path) -> tuple[list[str], list[list[object]]]:
    """A table file's column names and rows (numbers NaN-free: None when missing)."""
    _, cols = protocol._read_columns(str(path))
    names = [col["name"] for col, _ in cols]
    clean = [[None if v != v else v for v in values] for _, values in cols]
    return names, [list(rec) for rec in zip(*clean, strict=True)]


def test_fit_sample_records_and_shutdown(tmp_path: Path) -> None:
    data = tmp_path / "in.table"
    hand_written_table(data)
    (tmp_path / "gen.py").write_text(
        "class G:\n"
        "    synthleak_format = 'records'\n"
        "    def __init__(self, k=1):\n"
        "        self.k = k\n"
        "    def fit(self, data, *, columns):\n"
        "        self.data, self.names = data, [c['name'] for c in columns]\n"
        "    def sample(self, n, *, seed):\n"
        "        return [[r[c] for c in self.names] for r in (self.data * n)[:n]]\n"
    )
    out = tmp_path / "out.table"
    replies = run(
        {
            "op": "fit",
            "id": 1,
            "target": f"{tmp_path / 'gen.py'}:G",
            "kwargs": {"k": 2},
            "data": str(data),
            "columns": COLUMNS,
            "seed": 5,
        },
        {"op": "sample", "id": 2, "model": "m1", "n": 4, "seed": 1, "out": str(out)},
        {"op": "shutdown", "id": 3},
        {"op": "drop", "id": 4, "model": "m1"},  # after shutdown: never answered
    )
    assert replies[1:] == [
        {"id": 1, "ok": True, "model": "m1"},
        {"id": 2, "ok": True, "rows": 4},
        {"id": 3, "ok": True},
    ]
    assert read_back(out) == (
        ["colour", "height"],
        [["red", 1.5], [None, None], ["blue", 1.25], ["red", 1.5]],
    )
    head = json.loads(out.read_bytes().split(b"\n", 1)[0])
    assert [c["type"] for c in head["columns"]] == ["text", "number"]


def test_records_are_typed(tmp_path: Path) -> None:
    data = tmp_path / "in.table"
    hand_written_table(data)
    assert protocol._read_records(str(data)) == [
        {"colour": "red", "height": 1.5},
        {"colour": None, "height": None},
        {"colour": "blue", "height": 1.25},
    ]


def test_pandas_frame_keeps_categories_as_text(tmp_path: Path) -> None:
    pd = pytest.importorskip("pandas")
    data = tmp_path / "in.table"
    hand_written_table(data)
    frame = protocol._read_frame(str(data))
    assert list(frame["colour"].iloc[[0, 2]]) == ["red", "blue"] and pd.isna(frame["colour"][1])
    assert frame["colour"].dtype == object
    assert frame["height"].dtype == float and pd.isna(frame["height"].iloc[1])


def test_samples_keep_their_types(tmp_path: Path) -> None:
    """Floats travel as numbers, integers as integers, anything else as its text; missing values
    stay missing, repeated column names stay repeated (the parent rejects them)."""
    out = tmp_path / "out.table"
    records = [
        {"a": 1, "b": 0.5, "c": "x", "d": True, "e": 3},
        {"a": 2, "b": None, "c": None, "d": False, "e": 4.5},
    ]
    assert protocol._write_output(records, str(out), []) == 2
    head = json.loads(out.read_bytes().split(b"\n", 1)[0])
    assert [c["type"] for c in head["columns"]] == ["integer", "number", "text", "text", "number"]
    assert read_back(out)[1] == [[1, 0.5, "x", "True", 3.0], [2, None, None, "False", 4.5]]
    protocol._write_output([[2**70], [1]], str(out), ["big"])  # beyond int64: floats
    assert read_back(out)[1] == [[float(2**70)], [1.0]]
    with pytest.raises(ValueError, match="sample record 1 has 1 values, the columns are 2"):
        protocol._write_output([[1, 2], [3]], str(out), ["a", "b"])
    with pytest.raises(TypeError, match="return a DataFrame or a list of records"):
        protocol._write_output("rows", str(out), ["a"])

    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(
        {
            "a": [1, 2],
            "b": [0.5, None],
            "c": ["x", None],
            "i": pd.array([7, None], dtype="Int64"),
            "t": pd.to_datetime(["2020-01-31", "2021-02-01"]),
        }
    )
    frame.columns = ["a", "b", "c", "c", "t"]
    assert protocol._write_output(frame, str(out), []) == 2
    back = protocol._read_frame(str(out))
    assert list(back.columns) == ["a", "b", "c", "c", "t"]
    assert back.iloc[:, 0].tolist() == [1, 2] and back.iloc[:, 0].dtype == "int64"
    assert back.iloc[0, 1] == 0.5 and pd.isna(back.iloc[1, 1])
    assert back.iloc[0, 2] == "x" and pd.isna(back.iloc[1, 2])
    assert back.iloc[0, 3] == 7.0 and pd.isna(back.iloc[1, 3])
    assert back.iloc[:, 4].tolist() == ["2020-01-31 00:00:00", "2021-02-01 00:00:00"]


def test_bad_target() -> None:
    with pytest.raises(ValueError, match="is not 'module:Class'"):
        protocol._load_target("nocolon")
    with pytest.raises(AttributeError, match="has no attribute 'Nope'"):
        protocol._load_target("json:Nope")


CYCLIC = """
import weakref
ALIVE = []
CLOSED = []

class G:
    synthleak_format = 'records'
    def __init__(self, fail_close=False):
        self.me = self  # a reference cycle, as fitted torch models often hold
        self.fail_close = fail_close
        ALIVE.append(weakref.ref(self))
    def fit(self, data):
        self.data = data
    def sample(self, n):
        return self.data[:n]
    def close(self):
        CLOSED.append(id(self))
        if self.fail_close:
            raise OSError('workspace busy')
"""


def test_forgotten_models_are_closed_and_collected(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import gc

    monkeypatch.setattr(protocol, "GC_SPACING", 0.0)  # a collection at every forget

    data = tmp_path / "in.table"
    hand_written_table(data)
    (tmp_path / "cyclic.py").write_text(CYCLIC)
    fit = {"op": "fit", "target": f"{tmp_path / 'cyclic.py'}:G", "data": str(data)}
    fit.update(columns=COLUMNS, seed=0)
    enabled = gc.isenabled()
    gc.disable()  # only the worker's own collection may free the cycles
    try:
        replies = run(
            {**fit, "id": 1, "model": "a"},
            {**fit, "id": 2, "model": "b", "kwargs": {"fail_close": True}, "drop": ["a"]},
            {"op": "drop", "id": 3, "model": "b"},  # its close() fails: still forgotten
            {**fit, "id": 4, "model": "c"},
            {"op": "status", "id": 5},
        )  # end of input: "c" is forgotten too
        module = sys.modules["_synthleak_env_cyclic"]
        assert [r["ok"] for r in replies[1:]] == [True] * 5
        assert replies[5]["models"] == 1
        assert len(module.CLOSED) == 3
        assert [ref() for ref in module.ALIVE] == [None, None, None]
    finally:
        if enabled:
            gc.enable()
    assert "OSError: workspace busy" in capsys.readouterr().err


def test_collections_are_spaced_by_their_cost(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = iter([0.0, 0.5, 0.6, 9.0, 10.6, 10.7])  # the collections take 0.5 then 0.1 s
    calls = []
    monkeypatch.setattr(protocol.time, "monotonic", lambda: next(clock))
    monkeypatch.setattr(protocol.gc, "collect", lambda: calls.append(1))
    worker = protocol.Worker()
    for key in "abcd":
        worker.models[key] = (object(), [])
    worker.forget(["a"])  # collects (0.0 to 0.5): the next waits until 0.5 + 20 x 0.5 = 10.5
    worker.forget(["b"])  # 0.6: skipped
    worker.forget(["nope"])  # nothing forgotten: no clock read, no collection
    worker.forget(["c"])  # 9.0: skipped
    worker.forget(["d"])  # 10.6: collects (to 10.7)
    assert len(calls) == 2 and worker.models == {}
    assert worker.next_gc == pytest.approx(10.7 + 20 * 0.1)
