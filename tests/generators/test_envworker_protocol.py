"""The worker file on its own: hello line, one-line errors, the version check, table formats."""

from __future__ import annotations

import ast
import csv
import io
import json
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
    assert top - {"pandas"} <= set(sys.stdlib_module_names)  # pandas only when the env has it
    assert "synthleak" not in top


def test_hello_then_one_line_errors() -> None:
    hello, bad_op, bad_version, missing = run(
        {"op": "frobnicate", "id": 1},
        {"op": "drop", "id": 2, "version": 2, "model": "m"},
        {"op": "sample", "id": 3, "model": "m9", "n": 1, "seed": 0, "out": "x.csv"},
    )
    assert hello == {
        "protocol": protocol.PROTOCOL,
        "version": protocol.VERSION,
        "python": sys.version.split()[0],
    }
    assert bad_op == {"id": 1, "ok": False, "error": "ValueError: unknown op 'frobnicate'"}
    assert bad_version["id"] == 2 and "protocol version 2 requested" in bad_version["error"]
    assert not missing["ok"] and "no fitted model 'm9'" in missing["error"]


def test_fit_sample_records_and_shutdown(tmp_path: Path) -> None:
    data = tmp_path / "in.csv"
    data.write_text("colour,height\nred,1.5\n,\nblue,1.25\n")
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
    out = tmp_path / "out.csv"
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
    with open(out, newline="") as fh:
        rows = list(csv.reader(fh))
    assert rows == [
        ["colour", "height"],
        ["red", "1.5"],
        ["", ""],
        ["blue", "1.25"],
        ["red", "1.5"],
    ]


def test_records_are_typed(tmp_path: Path) -> None:
    data = tmp_path / "in.csv"
    data.write_text("colour,height\nred,1.5\n,\n")
    assert protocol._read_records(str(data), COLUMNS) == [
        {"colour": "red", "height": 1.5},
        {"colour": None, "height": None},
    ]


def test_pandas_frame_keeps_categories_as_text(tmp_path: Path) -> None:
    pd = pytest.importorskip("pandas")
    data = tmp_path / "in.csv"
    data.write_text("colour,height\n01,1.5\n,\n")
    frame = protocol._read_frame(str(data), COLUMNS)
    assert frame["colour"].iloc[0] == "01" and pd.isna(frame["colour"].iloc[1])
    assert frame["height"].dtype == float and pd.isna(frame["height"].iloc[1])


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

    data = tmp_path / "in.csv"
    data.write_text("colour,height\nred,1.5\n")
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
