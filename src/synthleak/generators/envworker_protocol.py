"""The worker that runs a generator in another Python environment (``env:`` generators).

This file is run *by path* with the other environment's interpreter
(``/path/to/venv/bin/python envworker_protocol.py``). It uses the standard library only, so that
environment needs no synthleak install; synthleak imports it only for the protocol constants.

Protocol (version 1)
--------------------
One JSON object per line on the worker's stdin (requests) and stdout (replies). The worker
first writes a hello line, ``{"protocol": "synthleak-envworker", "version": 1, "python": ...}``;
the parent checks the version before sending anything. Each request has an ``op`` and an
``id``; each reply repeats the ``id`` with ``"ok": true`` and the op's fields, or with
``"ok": false`` and ``"error"``, one line naming the exception and its message. Ops:

``fit``
    ``target`` (``module:Class`` or ``/path/file.py:Class``), ``kwargs`` (JSON values for the
    class), ``data`` (path of a CSV file: a header row, ``""`` for a missing value),
    ``columns`` (the schema: ``name``, ``kind`` ``"categorical"``, ``"continuous"`` or
    ``"datetime"`` (ISO text), ``categories`` as text, ``low``/``high``/``integer`` for
    continuous columns, ``nullable``),
    ``seed`` (int), optionally ``model`` (the key to keep it under). Makes the object, fits it,
    keeps it; reply ``{"model": KEY}``.
``sample``
    ``model``, ``n``, ``seed``, ``out`` (path of the CSV to write). Reply ``{"rows": n}``.
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

Tables travel as CSV files named by the parent; nothing is pickled, so the two interpreters
may have different Python, numpy or pandas versions.

The generator class
-------------------
``Class(**kwargs)`` must have ``fit(data)`` and ``sample(n)``. What ``data`` is depends on the
class attribute ``synthleak_format``:

* ``"pandas"`` (the default when pandas imports): a DataFrame with categorical (and datetime)
  columns as text (``object``) and continuous columns as floats, missing values as ``NaN``;
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

import csv
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

PROTOCOL = "synthleak-envworker"
VERSION = 1
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


def _read_records(path: str, columns: list[dict]) -> list[dict]:
    kinds = {c["name"]: c["kind"] for c in columns}
    out = []
    with open(path, newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            rec: dict = {}
            for key, raw in row.items():
                if raw == "":
                    rec[key] = None
                elif kinds.get(key) == "continuous":
                    rec[key] = float(raw)
                else:
                    rec[key] = raw
            out.append(rec)
    return out


def _read_frame(path: str, columns: list[dict]) -> object:
    import pandas as pd

    cats = {c["name"]: str for c in columns if c["kind"] != "continuous"}
    frame = pd.read_csv(path, dtype=cats, keep_default_na=False, na_values=[""])
    for c in columns:
        if c["kind"] == "continuous" and frame[c["name"]].dtype.kind != "f":
            frame[c["name"]] = frame[c["name"]].astype(float)
    return frame


def _cell(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and math.isnan(value):
        return ""
    return str(value)


def _write_output(out: object, path: str, names: list[str]) -> int:
    """Write a sample (DataFrame, list of dicts or list of lists) as CSV; the row count."""
    if hasattr(out, "to_csv") and hasattr(out, "columns"):
        out.to_csv(path, index=False)
        return len(out)  # type: ignore[arg-type]
    if not isinstance(out, (list, tuple)):
        raise TypeError(
            f"sample returned {type(out).__name__}; return a DataFrame or a list of records"
        )
    rows = list(out)
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        if rows and isinstance(rows[0], dict):
            header = list(rows[0].keys())
            writer.writerow(header)
            for rec in rows:
                writer.writerow([_cell(rec.get(k)) for k in header])
        else:
            writer.writerow(names)
            for rec in rows:
                writer.writerow([_cell(v) for v in rec])
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
        data = (_read_frame if fmt == "pandas" else _read_records)(req["data"], columns)
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
