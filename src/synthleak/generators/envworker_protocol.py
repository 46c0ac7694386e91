"""The worker that runs a generator in another Python environment (``env:`` generators).

This file is run *by path* with the other environment's interpreter
(``/path/to/venv/bin/python envworker_protocol.py``). It uses the standard library only (and
numpy and pandas when the class takes DataFrames, which need them anyway), so that environment
needs no synthleak install; synthleak imports it for the protocol constants and the table files.

Protocol (version 2)
--------------------
One JSON object per line on the worker's stdin (requests) and stdout (replies). The worker
first writes a hello line, ``{"protocol": "synthleak-envworker", "version": 2, "python": ...}``;
the parent checks the version before sending anything. Each request has an ``op`` and an
``id``; each reply repeats the ``id`` with ``"ok": true`` and the op's fields, or with
``"ok": false`` and ``"error"``, one line naming the exception and its message. Ops:

``fit``
    ``target`` (``module:Class`` or ``/path/file.py:Class``), ``kwargs`` (JSON values for the
    class), ``data`` (path of a table file, below), ``columns`` (the schema: ``name``, ``kind``
    ``"categorical"``, ``"continuous"`` or ``"datetime"`` (ISO text), ``categories`` as text,
    ``low``/``high``/``integer`` for continuous columns, ``nullable``),
    ``seed`` (int), optionally ``model`` (the key to keep it under). Makes the object, fits it,
    keeps it; reply ``{"model": KEY}``.
``sample``
    ``model``, ``n``, ``seed``, ``out`` (path of the table file to write). Reply ``{"rows": n}``.
``drop``
    ``model``: forget a fitted object. Any request may also carry ``"drop": [KEY, ...]``,
    objects to forget before the op runs (the parent sends the models it no longer holds with
    its next request rather than waiting for a reply of its own). Forgetting calls the
    object's ``close()`` when it has one (a failure there goes to stderr only), then runs
    Python's cycle collector: fitted torch models often sit in reference cycles, which the
    collector, counting objects rather than bytes, would otherwise reach only after several
    hundred MB per forgotten model had piled up. A collection is skipped while less than
    ``GC_SPACING`` times the last one's duration has passed since it ended, so it costs at
    most about 5 % of the worker's time (a slow fit is followed by a collection every time;
    light fits of a few ms share one).
``status``
    Reply ``{"models": COUNT, "pid": PID}`` (fitted objects held, the worker's process id).
``shutdown``
    Reply, then exit (forgetting, as ``drop`` does, every object still held; so does the end
    of input).

Table files
-----------
Tables travel as files named by the parent, columns in binary: a first line of JSON,
``{"rows": N, "columns": [COLUMN, ...]}``, then each column's ``N`` values in that order,
little-endian. A ``COLUMN`` is ``{"name": NAME, "type": TYPE}``:

* ``"number"``: float64 values, NaN for a missing value;
* ``"integer"``: int64 values (no missing value);
* ``"text"``: int32 codes into the column's ``"values"`` (a list of strings), -1 for a missing
  value.

The parent writes categorical and datetime columns (ISO text) as ``"text"`` and continuous
columns as ``"number"``; the worker writes a sample's float columns as ``"number"``, its integer
columns as ``"integer"`` and any other column as ``"text"`` (each value's ``str``). Reading and
writing a few hundred records costs well under a millisecond a side (CSV cost several), which is
most of what this route adds to a light generator's fit. Nothing is pickled, so the two
interpreters may have different Python, numpy or pandas versions.

The generator class
-------------------
``Class(**kwargs)`` must have ``fit(data)`` and ``sample(n)``. What ``data`` is depends on the
class attribute ``synthleak_format``:

* ``"pandas"`` (the default when pandas imports): a DataFrame with categorical (and datetime)
  columns as text (``object``) and continuous columns as floats, missing values as ``NaN``
  (a pandas environment has numpy, which then reads and writes the table files);
  ``sample`` returns a DataFrame with the same columns;
* ``"records"``: a list of dicts (categories as ``str``, continuous values as ``float``,
  missing values as ``None``); ``sample`` returns a list of dicts (or of lists in column
  order).

``fit`` and ``sample`` also receive ``columns=`` (the schema above) when they accept it, and
``seed=`` when they accept it. Before each call the worker seeds ``random`` and, when imported,
numpy's global generator and torch from the request's seed, so a class that draws from global
state is reproducible. Anything the generator prints goes to the worker's stderr (the protocol
has its own copy of stdout), which the parent shows in error messages. The worker exits at the
end of its input, on ``shutdown``, or (POSIX) within a second of its parent's death.
"""

from __future__ import annotations

import array
import gc
import importlib
import importlib.util
import inspect
import io
import json
import math
import os
import random
import sys
import time
import traceback
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the worker imports numpy and pandas only for the "pandas" format
    import pandas as pd

PROTOCOL = "synthleak-envworker"
VERSION = 2
#: The longest error message a reply carries.
MAX_ERROR = 2000
#: A forget's cycle collection waits this many times the last one's duration (``drop``).
GC_SPACING = 20.0


def _one_line(exc: BaseException) -> str:
    text = f"{type(exc).__name__}: {exc}".strip()
    text = " ".join(text.split())
    return text if len(text) <= MAX_ERROR else text[: MAX_ERROR - 3] + "..."


def _load_target(target: str) -> object:
    """The class named by ``module:Class`` or ``/path/to/file.py:Class``."""
    module_name, sep, attr = target.rpartition(":")
    if not sep or not module_name or not attr:
        raise ValueError(f"target {target!r} is not 'module:Class' or 'file.py:Class'")
    if module_name.endswith(".py"):
        path = os.path.abspath(module_name)
        name = "_synthleak_env_" + os.path.splitext(os.path.basename(path))[0]
        module = sys.modules.get(name)
        if module is None:
            spec = importlib.util.spec_from_file_location(name, path)
            if spec is None or spec.loader is None:
                raise ImportError(f"cannot load {path}")
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module
            spec.loader.exec_module(module)
    else:
        module = importlib.import_module(module_name)
    obj = getattr(module, attr, None)
    if obj is None:
        raise AttributeError(f"module {module_name!r} has no attribute {attr!r}")
    return obj


def _accepts(method: object, name: str) -> bool:
    try:
        params = inspect.signature(method).parameters  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return False
    return name in params or any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())


def _seed_globals(seed: int) -> None:
    random.seed(seed)
    np = sys.modules.get("numpy")
    if np is not None:
        np.random.seed(seed % (2**32))
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.manual_seed(seed)


def _int_code(size: int) -> str:
    """The ``array`` type code of a ``size``-byte signed integer."""
    return next(code for code in "ilq" if array.array(code).itemsize == size)


def _table_head(raw: bytes) -> tuple[int, list[dict], int]:
    """A table file's row count, columns and the offset of its first column's values."""
    end = raw.index(b"\n")
    head = json.loads(raw[:end].decode("utf-8"))
    return int(head["rows"]), list(head["columns"]), end + 1


_WIDTH = {"number": 8, "integer": 8, "text": 4}


def _read_columns(path: str) -> tuple[int, list[tuple[dict, list]]]:
    """A table file as ``(rows, [(column, values), ...])`` with the standard library only:
    numbers as floats (NaN when missing), integers as ints, text as strings or None."""
    with open(path, "rb") as fh:
        raw = fh.read()
    n, columns, offset = _table_head(raw)
    out: list[tuple[dict, list]] = []
    for col in columns:
        kind = col["type"]
        values = array.array({"number": "d", "integer": _int_code(8)}.get(kind, _int_code(4)))
        size = _WIDTH[kind] * n
        values.frombytes(raw[offset : offset + size])
        offset += size
        if sys.byteorder == "big":
            values.byteswap()
        if kind == "text":
            labels = [str(v) for v in col["values"]]
            out.append((col, [labels[c] if c >= 0 else None for c in values]))
        else:
            out.append((col, values.tolist()))
    return n, out


def _read_records(path: str) -> list[dict]:
    """The table file as a list of dicts (text as ``str``, numbers as ``float``, missing values
    as ``None``)."""
    n, cols = _read_columns(path)
    names = [col["name"] for col, _ in cols]
    rows = [
        [None if isinstance(v, float) and math.isnan(v) else v for v in values]
        if col["type"] == "number"
        else values
        for col, values in cols
    ]
    # zip without strict=: the worker runs under any Python 3 (the lengths are n by construction)
    return [dict(zip(names, rec)) for rec in zip(*rows)] if rows else [{} for _ in range(n)]  # noqa: B905


def _read_frame(path: str) -> pd.DataFrame:
    """The table file as a DataFrame: text columns as ``object`` (``NaN`` when missing),
    numbers as float64."""
    import numpy as np
    import pandas as pd

    with open(path, "rb") as fh:
        raw = fh.read()
    n, head, offset = _table_head(raw)
    data = []
    for col in head:
        kind = col["type"]
        if kind == "text":
            codes = np.frombuffer(raw, dtype="<i4", count=n, offset=offset)
            labels = np.array([*(str(v) for v in col["values"]), np.nan], dtype=object)
            data.append(labels[codes])  # code -1: the NaN at the end
        else:
            dtype = "<f8" if kind == "number" else "<i8"
            values = np.frombuffer(raw, dtype=dtype, count=n, offset=offset)
            data.append(values.astype(np.float64 if kind == "number" else np.int64))
        offset += _WIDTH[kind] * n
    frame = pd.DataFrame(dict(enumerate(data)), index=pd.RangeIndex(n))
    frame.columns = [str(c["name"]) for c in head]  # as written, repeated names kept
    return frame


def _write_table(path: str, n: int, columns: list[tuple[dict, bytes]]) -> None:
    """Write a table file from ``(column, little-endian values)`` pairs."""
    head = {"rows": n, "columns": [col for col, _ in columns]}
    with open(path, "wb") as fh:
        fh.write(json.dumps(head, allow_nan=False).encode("utf-8") + b"\n")
        for _, payload in columns:
            fh.write(payload)


def _little(values: array.array) -> bytes:
    if sys.byteorder == "big":
        values.byteswap()
    return values.tobytes()


def _missing(value: object) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _list_column(name: str, values: list) -> tuple[dict, bytes]:
    """One column of a sample given as Python values: numbers when every present value is an
    int or a float (integers when none is missing or a float and each fits 64 bits), else
    text."""
    present = [v for v in values if not _missing(v)]
    numeric = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in present)
    if (
        numeric
        and present
        and len(present) == len(values)
        and all(isinstance(v, int) and -(2**63) <= v < 2**63 for v in present)
    ):
        return {"name": name, "type": "integer"}, _little(array.array(_int_code(8), values))
    if numeric and present:
        floats = [math.nan if _missing(v) else float(v) for v in values]
        return {"name": name, "type": "number"}, _little(array.array("d", floats))
    labels: dict[str, int] = {}
    codes = [-1 if _missing(v) else labels.setdefault(str(v), len(labels)) for v in values]
    return {"name": name, "type": "text", "values": list(labels)}, _little(
        array.array(_int_code(4), codes)
    )


def _frame_column(name: str, series: object) -> tuple[dict, bytes]:
    """One column of a sample given as a pandas Series (see the module docstring)."""
    import numpy as np
    import pandas as pd

    s: pd.Series = series  # type: ignore[assignment]
    kind = s.dtype.kind
    if kind in "iu" and not (kind == "u" and len(s) and s.max() > np.iinfo(np.int64).max):
        if not s.isna().any():
            return {"name": name, "type": "integer"}, s.to_numpy(dtype="<i8").tobytes()
        kind = "f"  # a nullable integer column with missing values
    if kind == "f":
        values = s.to_numpy(dtype="<f8", na_value=np.nan)
        return {"name": name, "type": "number"}, values.tobytes()
    codes, uniques = pd.factorize(s, use_na_sentinel=True)
    labels = [str(u) for u in uniques]
    return {"name": name, "type": "text", "values": labels}, codes.astype("<i4").tobytes()


def _write_output(out: object, path: str, names: list[str]) -> int:
    """Write a sample (DataFrame, list of dicts or list of lists) as a table file; the row
    count."""
    pd = sys.modules.get("pandas")
    if pd is not None and isinstance(out, pd.DataFrame):
        cols = [_frame_column(str(name), out.iloc[:, j]) for j, name in enumerate(out.columns)]
        _write_table(path, len(out), cols)
        return len(out)
    if not isinstance(out, (list, tuple)):
        raise TypeError(
            f"sample returned {type(out).__name__}; return a DataFrame or a list of records"
        )
    rows = list(out)
    if rows and isinstance(rows[0], dict):
        header = list(rows[0].keys())
        grid = [[rec.get(k) for k in header] for rec in rows]
    else:
        header, grid = names, [list(rec) for rec in rows]
    width = len(header)
    for i, rec in enumerate(grid):
        if len(rec) != width:
            raise ValueError(f"sample record {i} has {len(rec)} values, the columns are {width}")
    columns = [[rec[j] for rec in grid] for j in range(width)]
    named = [(str(header[j]), columns[j]) for j in range(width)]
    _write_table(path, len(rows), [_list_column(name, values) for name, values in named])
    return len(rows)


def _close(model: object) -> None:
    """Call ``model.close()`` when it has one; a failure goes to stderr, not to the reply."""
    close = getattr(model, "close", None)
    if callable(close):
        try:
            close()
        except Exception:  # the object is forgotten either way; the next op must not fail
            traceback.print_exc(file=sys.stderr)
            sys.stderr.flush()


class Worker:
    """The fitted objects of one worker process and the ops on them."""

    def __init__(self) -> None:
        self.models: dict[str, tuple[object, list[dict]]] = {}
        self.counter = 0
        #: ``time.monotonic()`` before which a forget skips the cycle collection (``drop``).
        self.next_gc = 0.0

    def fit(self, req: dict) -> dict:
        cls = _load_target(req["target"])
        columns = req["columns"]
        fmt = getattr(cls, "synthleak_format", None)
        if fmt is None:
            fmt = "pandas" if importlib.util.find_spec("pandas") is not None else "records"
        if fmt not in ("pandas", "records"):
            raise ValueError(f"synthleak_format must be 'pandas' or 'records', not {fmt!r}")
        data = (_read_frame if fmt == "pandas" else _read_records)(req["data"])
        seed = int(req["seed"])
        _seed_globals(seed)
        model = cls(**req.get("kwargs", {}))  # type: ignore[operator]
        extra: dict = {}
        if _accepts(model.fit, "columns"):
            extra["columns"] = columns
        if _accepts(model.fit, "seed"):
            extra["seed"] = seed
        model.fit(data, **extra)
        self.counter += 1
        key = str(req.get("model") or f"m{self.counter}")
        self.models[key] = (model, columns)
        return {"model": key}

    def sample(self, req: dict) -> dict:
        key = req["model"]
        if key not in self.models:
            raise KeyError(f"no fitted model {key!r} in this worker (was it restarted?)")
        model, columns = self.models[key]
        seed = int(req["seed"])
        _seed_globals(seed)
        extra: dict = {}
        if _accepts(model.sample, "columns"):  # type: ignore[attr-defined]
            extra["columns"] = columns
        if _accepts(model.sample, "seed"):  # type: ignore[attr-defined]
            extra["seed"] = seed
        out = model.sample(int(req["n"]), **extra)  # type: ignore[attr-defined]
        rows = _write_output(out, req["out"], [c["name"] for c in columns])
        return {"rows": rows}

    def forget(self, keys: list[str]) -> None:
        """Drop the fitted objects ``keys`` (unknown keys are ignored); see ``drop``."""
        held = [self.models.pop(key)[0] for key in keys if key in self.models]
        if not held:
            return
        while held:
            _close(held.pop())
        start = time.monotonic()
        if start >= self.next_gc:
            gc.collect()
            end = time.monotonic()
            self.next_gc = end + GC_SPACING * (end - start)

    def drop(self, req: dict) -> dict:
        self.forget([req["model"]])
        return {}

    def status(self, req: dict) -> dict:
        return {"models": len(self.models), "pid": os.getpid()}


def serve(stdin: io.TextIOBase, stdout: io.TextIOBase) -> None:
    """Answer requests from ``stdin`` on ``stdout`` until ``shutdown`` or end of input."""

    def send(obj: dict) -> None:
        stdout.write(json.dumps(obj, allow_nan=False) + "\n")
        stdout.flush()

    send({"protocol": PROTOCOL, "version": VERSION, "python": sys.version.split()[0]})
    worker = Worker()
    ops = {"fit": worker.fit, "sample": worker.sample, "drop": worker.drop, "status": worker.status}
    for line in stdin:
        if not line.strip():
            continue
        rid = None
        try:
            req = json.loads(line)
            rid = req.get("id")
            op = req.get("op")
            if req.get("version", VERSION) != VERSION:
                raise ValueError(
                    f"protocol version {req.get('version')} requested, this worker speaks {VERSION}"
                )
            worker.forget(list(req.get("drop", ())))
            if op == "shutdown":
                send({"id": rid, "ok": True})
                break
            if op not in ops:
                raise ValueError(f"unknown op {op!r}")
            reply = ops[op](req)
            send({"id": rid, "ok": True, **reply})
        except Exception as exc:  # every failure goes back as one line
            traceback.print_exc(file=sys.stderr)
            sys.stderr.flush()
            send({"id": rid, "ok": False, "error": _one_line(exc)})
    worker.forget(list(worker.models))


def _exit_with_parent(interval: float = 1.0) -> None:
    """Exit when the parent process is gone (a killed parent cannot close our stdin mid-fit)."""
    import threading

    parent = os.getppid()

    def watch() -> None:
        while True:
            time.sleep(interval)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, name="synthleak-parent-watch", daemon=True).start()


def main() -> None:
    """Keep a private copy of stdout for the protocol; send everything else printed to stderr."""
    # Python puts a script's folder first on the path: here that is synthleak's generators
    # folder, whose mbi.py, sdv.py, ctgan.py would shadow the libraries of the same name
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != here]
    if os.name == "posix":
        _exit_with_parent()
    proto = os.fdopen(os.dup(1), "w", encoding="utf-8", newline="\n")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    stdin = io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", newline="\n")
    serve(stdin, proto)


if __name__ == "__main__":
    main()
