"""A resumable run directory: a SQLite catalogue of finished work units plus compact array files.

Layout::

    RUN_DIR/
      run.json          what the run is (its configuration fingerprint); a different config is
                        refused
      layout.json       the random-stream layout of an audit's run directory (check_layout)
      catalogue.sqlite  one row per finished (or failed) unit
      units/KEY.npz     the unit's arrays, written atomically before the unit is catalogued

A unit is recorded only after its arrays are on disk, so a run killed at any moment (even with
``kill -9``) loses at most the units in flight; re-running the same command skips every catalogued
unit and, since each unit's randomness depends only on its key (:mod:`synthleak.runtime.seeding`),
gives identical results.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import signal
import sqlite3
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from synthleak.errors import InputError


@contextlib.contextmanager
def _interrupts_deferred() -> Iterator[None]:
    """Hold Ctrl-C back for the block; one pressed meanwhile is raised as soon as it ends.

    Only the main thread receives KeyboardInterrupt, so elsewhere there is nothing to hold back.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    held: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, _frame: held.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        if held:
            if callable(previous):
                previous(signal.SIGINT, None)
            elif previous == signal.SIG_DFL:
                os.kill(os.getpid(), signal.SIGINT)


#: Whether a Ctrl-C was noticed inside :func:`interrupts_noticed` (``depth``: its nesting).
_NOTICED = {"depth": 0, "interrupted": False}


@contextlib.contextmanager
def interrupts_noticed() -> Iterator[None]:
    """Notice every Ctrl-C pressed in the block, even one the interrupted code swallows.

    Python raises ``KeyboardInterrupt`` in whatever Python code runs when the signal is handled,
    and some of that code belongs to libraries that swallow it: numpy clears any error raised
    while it looks up an attribute of an object (e.g. ``__array_ufunc__`` on an enum member),
    and compiled code returns a ``SystemError`` instead
    (:func:`~synthleak.errors.raise_if_interrupted`).
    In the block, the Ctrl-C handler also records that it ran, and :func:`check_interrupted`
    raises ``KeyboardInterrupt`` for it later: an audit calls it between its stages, a run of
    work units before it stores each unit, so neither keeps work done while a Ctrl-C was lost.
    Main thread only, and only where Ctrl-C raises ``KeyboardInterrupt`` (a Python handler).
    """
    previous = signal.getsignal(signal.SIGINT)
    if threading.current_thread() is not threading.main_thread() or not callable(previous):
        yield
        return

    def on_sigint(signum: int, frame: Any) -> None:
        _NOTICED["interrupted"] = True
        previous(signum, frame)

    if _NOTICED["depth"] == 0:
        _NOTICED["interrupted"] = False
    _NOTICED["depth"] += 1
    signal.signal(signal.SIGINT, on_sigint)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        _NOTICED["depth"] -= 1


def check_interrupted() -> None:
    """Raise ``KeyboardInterrupt`` if a Ctrl-C was pressed in :func:`interrupts_noticed`'s
    block (one that propagated, or one that the code it interrupted swallowed)."""
    if _NOTICED["interrupted"]:
        raise KeyboardInterrupt


_SCHEMA = """
CREATE TABLE IF NOT EXISTS units (
    key TEXT PRIMARY KEY,
    status TEXT NOT NULL,
    file TEXT,
    meta TEXT,
    finished REAL NOT NULL
)
"""


#: The catalogue of a run directory: one row per finished (or failed) unit.
CATALOGUE = "catalogue.sqlite"


def finished_units(root: str | Path) -> int:
    """Units recorded by every run store under ``root`` (a run directory or the folder of an
    audit's stages), read without opening the stores; 0 when there are none."""
    root = Path(root)
    total = 0
    for db in root.rglob(CATALOGUE) if root.is_dir() else ():
        try:
            with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1) as con:
                total += int(con.execute("SELECT COUNT(*) FROM units").fetchone()[0])
        except sqlite3.Error:
            continue
    return total


LAYOUT = "layout.json"


def check_layout(root: str | Path, streams: int) -> None:
    """Refuse to resume the run directory ``root`` when its finished work was drawn under
    another random-stream layout (:data:`~synthleak.runtime.seeding.STREAMS_VERSION`; a
    directory from before the layout was recorded counts as layout 1); record the layout
    otherwise. Mixing the two would put numbers from two different draws in one result."""
    root = Path(root)
    marker = root / LAYOUT
    old = json.loads(marker.read_text()).get("streams", 1) if marker.exists() else None
    if old is None and finished_units(root) > 0:
        old = 1
    if old is not None and old != streams:
        raise InputError(
            f"run directory {root} was started by a synthleak that draws other random numbers "
            f"(stream layout {old}, this one uses {streams}): its finished work cannot be "
            "resumed; use a new output or run directory"
        )
    if old is None:
        root.mkdir(parents=True, exist_ok=True)
        write_atomic(marker, json.dumps({"streams": streams}).encode())


def config_fingerprint(config: dict[str, Any]) -> str:
    """A stable hash of a JSON-able configuration."""
    return hashlib.sha256(json.dumps(config, sort_keys=True, default=str).encode()).hexdigest()[:16]


def _safe_key(key: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in key)


def write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` so that a reader (or a run killed meanwhile) sees the old
    file or the new one, never a part (a temporary file beside it, synced, then renamed)."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


class RunStore:
    """Catalogue of finished units in a run directory.

    Parameters
    ----------
    path : path-like
        The run directory (created if missing).
    config : dict
        The run's configuration. Opening an existing directory with a different configuration
        raises :class:`InputError` (resuming must not mix two experiments).
    """

    def __init__(self, path: str | Path, config: dict[str, Any]) -> None:
        self.path = Path(path)
        if self.path.exists() and not self.path.is_dir():
            raise InputError(
                f"run_dir {self.path} is a file: give a directory", parameter="run_dir"
            )
        self.path.mkdir(parents=True, exist_ok=True)
        (self.path / "units").mkdir(exist_ok=True)
        self.config = config
        meta_file = self.path / "run.json"
        fp = config_fingerprint(config)
        if meta_file.exists():
            old = json.loads(meta_file.read_text())
            if old.get("fingerprint") != fp:
                raise InputError(
                    f"run directory {self.path} holds a different run (its configuration differs): "
                    "use a new run_dir, or repeat the original run to resume it"
                )
        else:
            write_atomic(
                meta_file,
                json.dumps({"fingerprint": fp, "config": config}, indent=2, default=str).encode(),
            )
        self._db = sqlite3.connect(self.path / CATALOGUE, timeout=60)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute(_SCHEMA)
        self._db.commit()

    def done(self) -> set[str]:
        """Keys of the units finished successfully."""
        rows = self._db.execute("SELECT key FROM units WHERE status = 'ok'").fetchall()
        return {r[0] for r in rows}

    def failures(self) -> dict[str, str]:
        """Keys of the units that failed, with the reason."""
        rows = self._db.execute("SELECT key, meta FROM units WHERE status = 'failed'").fetchall()
        return {k: json.loads(m).get("reason", "") for k, m in rows}

    def __contains__(self, key: str) -> bool:
        row = self._db.execute("SELECT status FROM units WHERE key = ?", (key,)).fetchone()
        return row is not None and row[0] == "ok"

    def put(
        self, key: str, arrays: dict[str, np.ndarray], meta: dict[str, Any] | None = None
    ) -> None:
        """Store a finished unit: arrays first (atomically), then the catalogue row.

        Ctrl-C is held back while a unit is stored, so a finished unit is either kept whole or
        not at all; the archive is built in memory first, so an interrupted ``np.savez`` never
        leaves a half-written zip bound to a closed file.
        """
        fname = f"{_safe_key(key)}.npz"
        with _interrupts_deferred():
            buf = io.BytesIO()
            np.savez(buf, **arrays)  # type: ignore[arg-type]
            write_atomic(self.path / "units" / fname, buf.getvalue())
            self._db.execute(
                "INSERT OR REPLACE INTO units VALUES (?, 'ok', ?, ?, ?)",
                (key, fname, json.dumps(meta or {}, default=str), time.time()),
            )
            self._db.commit()

    def put_failure(self, key: str, reason: str) -> None:
        """Record that a unit failed (it is retried on the next run)."""
        self._db.execute(
            "INSERT OR REPLACE INTO units VALUES (?, 'failed', NULL, ?, ?)",
            (key, json.dumps({"reason": reason}), time.time()),
        )
        self._db.commit()

    def get(self, key: str) -> dict[str, np.ndarray]:
        """The arrays of a finished unit."""
        row = self._db.execute(
            "SELECT file FROM units WHERE key = ? AND status = 'ok'", (key,)
        ).fetchone()
        if row is None:
            raise KeyError(key)
        with np.load(self.path / "units" / row[0], allow_pickle=False) as z:
            return {k: z[k] for k in z.files}

    def put_document(self, key: str, doc: Any, meta: dict[str, Any] | None = None) -> None:
        """Store a finished unit whose result is a JSON document (kept as UTF-8 bytes)."""
        data = json.dumps(doc, allow_nan=False, separators=(",", ":")).encode()
        self.put(key, {"json": np.frombuffer(data, dtype=np.uint8)}, meta)

    def get_document(self, key: str) -> Any:
        """The JSON document of a unit stored with :meth:`put_document`."""
        return json.loads(self.get(key)["json"].tobytes().decode())

    def meta(self, key: str) -> dict[str, Any]:
        row = self._db.execute("SELECT meta FROM units WHERE key = ?", (key,)).fetchone()
        return json.loads(row[0]) if row else {}

    def write_json(self, name: str, obj: Any) -> None:
        """Write a JSON document (e.g. the final result) atomically into the run directory."""
        write_atomic(self.path / name, json.dumps(obj, indent=2, default=str).encode())

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> RunStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
