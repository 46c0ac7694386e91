"""Generators that run in another Python environment, in a worker process kept warm.

``env:PYTHON:module:Class`` or ``env:PYTHON:module:Class,key=value,...``
    Fits and samples ``Class`` (importable in that environment, or ``/path/file.py:Class``) in a
    worker process started with the interpreter ``PYTHON``, which is

    * the name of an environment made by ``synthleak env create NAME --packages ...`` (a
      virtual environment under :func:`envs_dir`), or
    * a path: a Python executable, or a virtual environment's folder.

    The other keys are the class's keyword arguments, read as JSON-like literals (``true``,
    ``none``, numbers, else text); ``timeout=`` (seconds per call, default 600) and
    ``claimed_epsilon=``/``claimed_delta=`` (declared only, as for ``python:``) are synthleak's.
    Example: ``env:dpmm:mypkg.synth:MyGenerator,epochs=3``.

The worker is one standard-library file, :mod:`synthleak.generators.envworker_protocol`, run by
path: the other environment needs neither synthleak nor anything pickled by this one (its
docstring documents the JSON-lines protocol and what the class must provide). A worker is started
the first time a process fits a generator with that interpreter, serves every later fit and
sample of that process (one start-up per process, so per local worker of a shadow-model pool),
and stops when the process exits. Each call has a timeout: a worker that does not answer in time
is stopped, and the next call starts a new one. ``fit`` sends the training table and returns
while the worker fits; the following ``sample`` collects the fit's outcome with its own (one wait
per shadow dataset), so a failed fit is reported by that ``sample``.

Failures are :class:`~synthleak.errors.GeneratorFailure` carrying the generator's own message:
an exception in the class (its one-line message), a worker that dies (its exit code and the tail
of what it printed), a call that times out, a protocol version that differs, and output that the
training schema rejects (wrong columns, unknown categories, missing values where the training
data had none, fewer rows than asked for; the checks of
:func:`~synthleak.generators._adapt.frame_to_table`).

Named adapters on this route (``dpmm:mst``, ``smartnoise:aim``, ...) are registered at the end
of this module with the DP claim each declares; the classes the worker runs for them live in
:mod:`synthleak.generators.env_adapters`, run by path in the library's environment.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import math
import os
import queue
import select
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import weakref
from collections.abc import Callable
from pathlib import Path
from types import MappingProxyType, SimpleNamespace
from typing import Any, ClassVar

import numpy as np

from synthleak.constraints import InstanceOf, Interval, Options, check_params, constraints
from synthleak.data.table import Table
from synthleak.errors import GeneratorFailure, InputError, MissingExtraError
from synthleak.generators import envworker_protocol as protocol
from synthleak.generators._adapt import draw_seed
from synthleak.generators.base import (
    BaseGenerator,
    GeneratorInfo,
    Param,
    params_of,
    register_generator,
)
from synthleak.generators.external import CLAIM_CONSTRAINTS
from synthleak.modes import Neighbouring
from synthleak.runtime.executor import one_thread_environ

#: The worker file run by the other interpreter.
WORKER_FILE = Path(protocol.__file__).resolve()
_ERR_TAIL = 800


def envs_dir() -> Path:
    """Where ``synthleak env create`` makes environments.

    ``$SYNTHLEAK_ENVS`` if set, else ``$XDG_CACHE_HOME/synthleak/envs`` (``~/.cache`` when
    ``XDG_CACHE_HOME`` is unset).
    """
    explicit = os.environ.get("SYNTHLEAK_ENVS")
    if explicit:
        return Path(explicit).expanduser()
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(cache) / "synthleak" / "envs"


def venv_python(folder: Path) -> Path:
    """The interpreter of the virtual environment in ``folder``."""
    if os.name == "nt":  # pragma: no cover - POSIX CI
        return folder / "Scripts" / "python.exe"
    return folder / "bin" / "python"


def resolve_python(python: str) -> str:
    """The interpreter named by an ``env:`` spec: an environment name, a venv folder or a file.

    Raises :class:`InputError` when nothing runnable is found, saying how to make it.
    """
    text = python.strip()
    if not text:
        raise InputError(
            "env generator names no Python environment: write env:NAME:module:Class "
            "(NAME from synthleak env create, or a path to a python executable or venv)"
        )
    looks_like_path = (
        os.sep in text
        or text.startswith((".", "~"))
        or (os.altsep is not None and os.altsep in text)
    )
    if looks_like_path:
        path = Path(text).expanduser()
        if path.is_dir():
            path = venv_python(path)
        if not path.is_file():
            raise InputError(
                f"env generator: no Python interpreter at {text!r}: give the path of a python "
                "executable or of a virtual environment's folder"
            )
        return str(path)
    folder = envs_dir() / text
    exe = venv_python(folder)
    if not exe.is_file():
        raise InputError(
            f"env generator: no environment named {text!r} in {envs_dir()}: create it with the "
            f"command synthleak env create {text} (or create_env({text!r}, packages=[...]) in "
            "Python), or give a path to a python"
        )
    return str(exe)


#: Environments the named adapters expect, with what ``create_env`` installs in them.
KNOWN_ENVS: dict[str, tuple[str, ...]] = {
    "dpmm": ("dpmm==0.1.9",),
    # smartnoise-synth 1.0.8 imports packaging without declaring it; torch first, so pip keeps
    # the CPU build instead of resolving opacus's torch requirement to another one
    "smartnoise": ("torch==2.13.0", "smartnoise-synth==1.0.8", "packaging"),
    # synthcity 0.2.12 pins torch < 2.3 (PyPI's build for Linux is the CUDA one, which runs on
    # the CPU) and numpy < 2; torch first so pip does not pick another build, and opacus 1.5.2,
    # the last release that imports with torch 2.2 (1.5.3+ need torch.nn.RMSNorm)
    "synthcity": ("torch==2.2.2", "opacus==1.5.2", "synthcity==0.2.12"),
}


def create_env(
    name: str,
    packages: list[str] | tuple[str, ...] | None = None,
    *,
    python: str | None = None,
    replace: bool = False,
) -> Path:
    """Make the virtual environment ``name`` under :func:`envs_dir` and install ``packages``.

    Parameters
    ----------
    name : str
        A plain name (letters, digits, ``-``, ``_``, ``.``); ``env:NAME:...`` specs find it.
    packages : list of str, optional
        pip requirements, installed in the order given (one ``pip install`` call each, so a
        pinned build such as ``torch==2.13.0`` is in place before a package that depends on
        it). Default: :data:`KNOWN_ENVS`'s list for a known name, else nothing.
    python : str, optional
        The interpreter that makes the environment (default: this one).
    replace : bool, default False
        Remove an existing environment of that name first; otherwise an existing one is kept
        and only the packages are installed into it.

    Returns
    -------
    Path
        The environment's interpreter.
    """
    import re

    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", name or ""):
        raise InputError(
            f"environment name {name!r} is not a plain name: use letters, digits, '-', '_', '.'"
        )
    if packages is None:
        packages = KNOWN_ENVS.get(name, ())
    folder = envs_dir() / name
    if replace and folder.exists():
        shutil.rmtree(folder)
    base = python or sys.executable
    if not venv_python(folder).is_file():
        folder.parent.mkdir(parents=True, exist_ok=True)
        done = subprocess.run([base, "-m", "venv", str(folder)], capture_output=True, check=False)
        if done.returncode != 0:
            raise InputError(
                f"cannot create the environment {name!r} with {base}: "
                f"{done.stderr.decode(errors='replace').strip()[-400:]}"
            )
    exe = venv_python(folder)
    for requirement in packages:
        done = subprocess.run(
            [str(exe), "-m", "pip", "install", requirement], capture_output=True, check=False
        )
        if done.returncode != 0:
            tail = (done.stderr or done.stdout).decode(errors="replace").strip()[-600:]
            raise InputError(
                f"pip could not install {requirement!r} into the environment {name!r} "
                f"({folder}): {tail}"
            )
    return exe


def list_envs() -> list[str]:
    """Names of the environments under :func:`envs_dir`."""
    root = envs_dir()
    if not root.is_dir():
        return []
    return sorted(p.name for p in root.iterdir() if venv_python(p).is_file())


# --- the worker process ------------------------------------------------------------------------
class EnvWorker:
    """One worker process speaking the protocol; calls are serialised by a lock.

    Not made directly: :func:`get_worker` keeps one per (interpreter, worker file) and process.
    """

    #: Worker processes started by this process (all interpreters), for tests and benchmarks.
    starts = 0

    def __init__(self, python: str, worker_file: Path = WORKER_FILE) -> None:
        self.python = python
        self.worker_file = Path(worker_file)
        self.lock = threading.Lock()
        self.proc: subprocess.Popen[bytes] | None = None
        self.replies: queue.Queue[bytes | None] = queue.Queue()
        self.tmp = Path(tempfile.mkdtemp(prefix="synthleak-env-"))
        self.err_path = self.tmp / "stderr.txt"
        self.next_id = 0
        self.buffer = b""
        self.hello: dict[str, Any] = {}
        #: Models to forget, sent with the next request (``drop`` field).
        self.pending_drops: list[str] = []
        #: Requests sent and not yet answered (id -> op), answers not yet collected.
        self.unanswered: dict[int, str] = {}
        self.answers: dict[int, dict[str, Any]] = {}
        #: Requests whose answers nobody will collect (their generator was dropped).
        self.ignored: set[int] = set()

    # process life ------------------------------------------------------------------------
    def _who(self) -> str:
        return f"the generator environment {self.python!r}"

    def _start(self, timeout: float) -> None:
        self.replies = queue.Queue()
        self.pending_drops = []  # a new process has no models and owes no answers
        self.unanswered, self.answers, self.ignored = {}, {}, set()
        err = open(self.err_path, "ab")  # noqa: SIM115  (kept by the child; closed below)
        try:
            self.proc = subprocess.Popen(
                [self.python, "-u", str(self.worker_file)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=err,
                cwd=self.tmp,
                env=one_thread_environ(),  # the same arithmetic inline as in a pooled worker
            )
        except OSError as exc:
            raise GeneratorFailure(
                f"{self._who()} cannot start: {type(exc).__name__}: {exc}"
            ) from None
        finally:
            err.close()
        EnvWorker.starts += 1
        proc, replies = self.proc, self.replies
        assert proc.stdout is not None
        self.buffer = b""
        if os.name == "nt":  # pragma: no cover - no select() on pipes: a reader thread

            def pump() -> None:
                assert proc.stdout is not None
                for line in proc.stdout:
                    replies.put(line)
                replies.put(None)

            threading.Thread(target=pump, name="synthleak-env-reader", daemon=True).start()
        hello = self._reply(timeout, "start")
        if hello.get("protocol") != protocol.PROTOCOL:
            self.stop()
            raise GeneratorFailure(
                f"{self._who()} did not answer as a synthleak worker (first line {hello!r})"
            )
        if hello.get("version") != protocol.VERSION:
            self.stop()
            raise GeneratorFailure(
                f"{self._who()}: the worker speaks protocol version {hello.get('version')!r} but "
                f"this synthleak speaks version {protocol.VERSION}: use the worker file shipped "
                f"with this synthleak ({WORKER_FILE})"
            )
        self.hello = hello

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def stop(self, *, force: bool = False) -> None:
        """Stop the process (politely unless ``force``); the next call starts a new one."""
        proc, self.proc = self.proc, None
        self.unanswered, self.answers, self.ignored = {}, {}, set()
        if proc is None:
            return
        if force and proc.poll() is None:
            proc.kill()
            proc.wait()
        if proc.poll() is None:
            try:
                assert proc.stdin is not None
                proc.stdin.write(b'{"op": "shutdown", "id": -1}\n')
                proc.stdin.flush()
                proc.wait(timeout=2)
            except (OSError, ValueError, subprocess.TimeoutExpired):
                proc.kill()
                proc.wait()
        for stream in (proc.stdin, proc.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()

    def close(self) -> None:
        self.stop()
        shutil.rmtree(self.tmp, ignore_errors=True)

    # calls -------------------------------------------------------------------------------
    def _err_tail(self) -> str:
        try:
            text = self.err_path.read_bytes()[-4 * _ERR_TAIL :].decode(errors="replace").strip()
        except OSError:
            return ""
        return text if len(text) <= _ERR_TAIL else "..." + text[-_ERR_TAIL:]

    def _readline(self, timeout: float) -> bytes | None:
        """The next line from the worker (``None`` at its end); ``TimeoutError`` after
        ``timeout`` s. On POSIX the calling thread waits on the pipe itself (``select``): no
        thread hand-off per reply, which costs a scheduler wake-up on a loaded machine."""
        if os.name == "nt":  # pragma: no cover
            try:
                return self.replies.get(timeout=timeout)
            except queue.Empty:
                raise TimeoutError from None
        assert self.proc is not None and self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        deadline = time.monotonic() + timeout
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                raise TimeoutError
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                return None
            self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        return line

    def _reply(self, timeout: float, what: str) -> dict[str, Any]:
        try:
            line = self._readline(timeout)
        except TimeoutError:
            self.stop(force=True)
            raise GeneratorFailure(
                f"{self._who()} did not finish {what} within {timeout:g} s and was stopped; "
                f"output tail: {self._err_tail() or '(empty)'}"
            ) from None
        if line is None:
            proc = self.proc
            code = proc.wait() if proc is not None else None
            self.stop()
            raise GeneratorFailure(
                f"{self._who()} exited (code {code}) during {what}; "
                f"output tail: {self._err_tail() or '(empty)'}"
            )
        try:
            reply = json.loads(line)
            if not isinstance(reply, dict):
                raise ValueError("not an object")
        except ValueError:
            self.stop()
            text = line.decode(errors="replace").strip()[:200]
            raise GeneratorFailure(
                f"{self._who()} wrote a line that is not protocol JSON during {what}: {text!r}"
            ) from None
        return reply

    def send(self, op: str, timeout: float, **fields: Any) -> int:
        """Send one request without waiting for its reply; its id for :meth:`receive`.

        Requests are answered in order; a reply is collected by :meth:`receive` (its ``what``
        and ``op`` name it in failures).
        """
        with self.lock:
            if not self.alive():
                self._start(timeout)
            assert self.proc is not None and self.proc.stdin is not None
            self.next_id += 1
            rid = self.next_id
            if not self.unanswered:  # the tail shown on failure is this request's
                with contextlib.suppress(OSError):
                    self.err_path.write_bytes(b"")
            request = {"op": op, "id": rid, "version": protocol.VERSION, **fields}
            if self.pending_drops:
                request["drop"], self.pending_drops = self.pending_drops, []
            try:
                self.proc.stdin.write((json.dumps(request) + "\n").encode())
                self.proc.stdin.flush()
            except (BrokenPipeError, OSError):
                code = self.proc.wait()
                self.stop()
                raise GeneratorFailure(
                    f"{self._who()} exited (code {code}) before {op}; "
                    f"output tail: {self._err_tail() or '(empty)'}"
                ) from None
            self.unanswered[rid] = op
            return rid

    def receive(self, rid: int, timeout: float) -> dict[str, Any]:
        """The reply to request ``rid``; failures as :class:`GeneratorFailure`."""
        with self.lock:
            while rid in self.unanswered and rid not in self.answers:
                expected = next(iter(self.unanswered))
                reply = self._reply(timeout, self.unanswered[expected])
                if reply.get("id") != expected:
                    self.stop()
                    raise GeneratorFailure(
                        f"{self._who()} answered request {reply.get('id')!r} instead of {expected}"
                    )
                reply["op_"] = self.unanswered.pop(expected)
                if expected in self.ignored:
                    self.ignored.discard(expected)
                else:
                    self.answers[expected] = reply
            answer = self.answers.pop(rid, None)
            if answer is None:
                raise GeneratorFailure(
                    f"{self._who()} was restarted before it answered (an earlier call failed "
                    "or timed out): fit the generator again"
                )
        if not answer.get("ok"):
            raise GeneratorFailure(
                f"{self._who()}: {answer.get('op_') or 'request'} failed: "
                f"{answer.get('error') or '(no message)'}"
            )
        return answer

    def call(self, op: str, timeout: float, **fields: Any) -> dict[str, Any]:
        """Send one request and wait for its reply; failures as :class:`GeneratorFailure`."""
        return self.receive(self.send(op, timeout, **fields), timeout)


_WORKERS: dict[tuple[str, str], EnvWorker] = {}
_WORKERS_PID = os.getpid()
_WORKERS_LOCK = threading.Lock()


def get_worker(python: str, worker_file: Path = WORKER_FILE) -> EnvWorker:
    """This process's worker for ``python`` (made on first use, started on first call)."""
    global _WORKERS_PID
    with _WORKERS_LOCK:
        if os.getpid() != _WORKERS_PID:  # a forked child must not share its parent's pipes
            _WORKERS.clear()
            _WORKERS_PID = os.getpid()
        key = (python, str(worker_file))
        worker = _WORKERS.get(key)
        if worker is None:
            worker = _WORKERS[key] = EnvWorker(python, Path(worker_file))
        return worker


def kill_workers() -> None:
    """Kill every worker of this process at once, without waiting for a lock or a reply (for a
    process whose parent died: its work is lost, the generator's run must not go on)."""
    for worker in list(_WORKERS.values()) if os.getpid() == _WORKERS_PID else []:
        proc = worker.proc
        if proc is not None:
            with contextlib.suppress(OSError):
                proc.kill()


@atexit.register
def shutdown_workers() -> None:
    """Stop every worker of this process (also run at exit)."""
    with _WORKERS_LOCK:
        workers = list(_WORKERS.values()) if os.getpid() == _WORKERS_PID else []
        _WORKERS.clear()
    for worker in workers:
        worker.close()


# --- the generator ------------------------------------------------------------------------------
def _literal(raw: str) -> Any:
    """A spec value as a JSON value: bool, None, int, finite float, else the (unquoted) string
    (``nan`` and ``inf`` stay text: JSON has no such numbers)."""
    from synthleak.generators.external import _literal as literal

    value = literal(raw)
    if isinstance(value, float) and not np.isfinite(value):
        return raw.strip()
    return value


def schema_columns(table: Table) -> list[dict[str, Any]]:
    """The protocol's ``columns``: the training schema, categories as text (datetime columns
    travel as ISO text, kind ``"datetime"``)."""
    out: list[dict[str, Any]] = []
    for col in table.schema.columns:
        entry: dict[str, Any] = {"name": col.name, "nullable": bool(col.has_missing)}
        if col.is_categorical:
            entry.update(kind="categorical", categories=[str(c) for c in col.categories])
        elif col.is_datetime:
            entry.update(kind="datetime")
        else:
            entry.update(
                kind="continuous", low=float(col.low), high=float(col.high), integer=col.integer
            )
        out.append(entry)
    return out


def write_table_file(table: Table, path: Path) -> None:
    """Write ``table`` as the protocol's table file (``envworker_protocol``): categorical
    columns as text codes (categories as in :func:`schema_columns`), datetime columns as ISO
    text, continuous columns as float64 (rounded for integer columns)."""
    import pandas as pd

    from synthleak.data.values import numbers_to_datetimes

    columns: list[tuple[dict[str, Any], bytes]] = []
    for col in table.schema.columns:
        enc = table.column(col.name)
        if col.is_categorical:
            codes = np.where(enc == col.missing_code, -1, enc).astype("<i4")
            labels = [str(c) for c in col.categories]
        elif col.is_datetime:
            stamps = pd.Series(numbers_to_datetimes(enc, col))
            codes, uniques = pd.factorize(stamps, use_na_sentinel=True)
            codes = codes.astype("<i4")
            labels = pd.Series(uniques).astype(str).tolist()  # "2020-01-31" when all are dates
        else:
            values = enc.astype("<f8")
            if col.integer:
                values = np.round(values)
            columns.append(({"name": col.name, "type": "number"}, values.tobytes()))
            continue
        columns.append(({"name": col.name, "type": "text", "values": labels}, codes.tobytes()))
    protocol._write_table(str(path), len(table), columns)


def _drop_model(worker: EnvWorker, key: str, rid: int, data: Path) -> None:
    """Forget a fitted model in the worker: sent with the worker's next request (no I/O with
    the worker here, as this runs at garbage collection); its fit reply is not kept."""
    worker.pending_drops.append(key)
    worker.ignored.add(rid)
    worker.answers.pop(rid, None)
    if rid not in worker.unanswered:
        data.unlink(missing_ok=True)


class EnvGenerator(BaseGenerator):
    """A generator class run in another Python environment (module docstring).

    Parameters
    ----------
    python : str
        environment name (synthleak env create), venv or python.
        A venv folder or an interpreter path also work; the spec fills it.
    target : str
        module:Class (or /path/file.py:Class) in that environment.
        Importable there; empty (the default) is refused: the spec fills it.
    timeout : float, default 600
        seconds per fit or sample before the worker stops.
    claimed_epsilon : float, optional
        epsilon the class claims (declared only).
        A declared DP claim is never evidence; ``None``: no claim.
    claimed_delta : float, default 0
        delta of that claim.
    options : dict of str to str, optional
        Keyword arguments for the class, as raw spec strings.
    worker_file : str, optional
        another copy of the worker file (default: shipped).
        For tests of the version check.
    """

    #: Extra keyword arguments the named adapters fix (``model`` for ``dpmm:mst``, ...).
    fixed_kwargs: ClassVar[dict[str, Any]] = {}

    # made here from the spec (the environment is resolved once), so checked here
    _parameter_constraints = constraints(
        CLAIM_CONSTRAINTS,
        python=InstanceOf(str),
        target=InstanceOf(str),
        timeout=Interval(float, 0, None, closed="neither"),
        worker_file=InstanceOf(str),
    )
    _unconstrained_parameters = MappingProxyType(
        {"options": "keyword arguments for the class in the environment, which checks them"}
    )

    def __init__(
        self,
        python: str = "",
        target: str = "",
        timeout: float = 600.0,
        claimed_epsilon: float | None = None,
        claimed_delta: float = 0.0,
        options: dict[str, str] | None = None,
        worker_file: str = "",
    ) -> None:
        super().__init__()
        from synthleak.generators.external import _check_claim

        given = SimpleNamespace(
            python=python,
            target=target,
            timeout=timeout,
            claimed_epsilon=claimed_epsilon,
            claimed_delta=claimed_delta,
            worker_file=worker_file,
        )  # the arguments (a named adapter's claim is a property read off its own parameters)
        check_params(given, EnvGenerator._parameter_constraints)
        self.options = options
        self.claimed_epsilon, self.claimed_delta = _check_claim(
            "env", claimed_epsilon, claimed_delta
        )
        target = target.strip()
        module, sep, cls = target.rpartition(":")
        if not sep or not module or not cls:
            raise InputError(
                f"env generator target {target!r} is not 'module:Class': write it as "
                "env:NAME:package.module:Class or env:NAME:/path/file.py:Class"
            )
        self.python = python.strip()
        self.target = target
        self.timeout = float(timeout)
        self.kwargs = {k: _literal(v) for k, v in (options or {}).items()}
        self.worker_file = worker_file or str(WORKER_FILE)
        self.python_ = resolve_python(self.python)

    def _worker(self) -> EnvWorker:
        return get_worker(self.python_, Path(self.worker_file))

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state.pop("_finalizer", None)
        state["fitted_pid_"] = state.get("fitted_pid_", os.getpid())
        return state

    def fit(self, table: Table, *, rng: np.random.Generator) -> EnvGenerator:
        """Send ``table`` to be fitted in the environment's worker; returns self.

        The fit runs in the worker while this process goes on; its outcome (and a failure, as
        :class:`GeneratorFailure`) is collected by the next :meth:`sample`, which is sent
        before the fit's reply is awaited (one wait for both).
        """
        worker = self._worker()
        old = getattr(self, "_finalizer", None)
        if old is not None:
            old()
        _ModelKeys.next += 1
        key = f"g{os.getpid()}-{_ModelKeys.next}"
        path = worker.tmp / f"train-{key}.table"
        write_table_file(table, path)
        try:
            rid = worker.send(
                "fit",
                self.timeout,
                target=self.target,
                kwargs={**self.kwargs, **self.fixed_kwargs},
                data=str(path),
                columns=schema_columns(table),
                seed=draw_seed(rng),
                model=key,
            )
        except GeneratorFailure:
            path.unlink(missing_ok=True)
            raise
        self.model_key_ = key
        self.fit_request_: int | None = rid
        self.fit_data_ = path
        self.fitted_pid_ = os.getpid()
        self._finalizer = weakref.finalize(self, _drop_model, worker, key, rid, path)
        self.schema_ = table.schema
        self.data_ = table
        return self

    def _collect_fit(self, worker: EnvWorker) -> None:
        """Wait for the fit's reply (once); a failed fit raises here."""
        rid, self.fit_request_ = self.fit_request_, None
        if rid is None:
            return
        try:
            worker.receive(rid, self.timeout)
        finally:
            self.fit_data_.unlink(missing_ok=True)

    def _sample(self, n: int, *, rng: np.random.Generator) -> Table:
        """``n`` records from the fitted class, checked against the training schema."""
        from synthleak.generators._adapt import frame_to_table

        seed = draw_seed(rng)
        who = f"env generator {self.target!r} in {self.python!r}"
        if getattr(self, "fitted_pid_", os.getpid()) != os.getpid():
            raise GeneratorFailure(
                f"{who} was fitted in another process; its model lives in that process's "
                "worker: fit it again here"
            )
        worker = self._worker()
        if n == 0:
            self._collect_fit(worker)
            return self.data_.take(np.zeros(0, dtype=np.intp))
        if not worker.alive():  # died since the fit was sent: its reply says how
            self._collect_fit(worker)
        out = worker.tmp / f"sample-{self.model_key_}.table"
        try:
            rid = worker.send(
                "sample", self.timeout, model=self.model_key_, n=n, seed=seed, out=str(out)
            )
            try:
                self._collect_fit(worker)
            except GeneratorFailure:
                with contextlib.suppress(GeneratorFailure):
                    worker.receive(rid, self.timeout)  # "no fitted model": the fit said why
                raise
            worker.receive(rid, self.timeout)
            if not out.is_file():
                raise GeneratorFailure(f"{who} wrote no output file")
            try:
                frame = protocol._read_frame(str(out))
            except Exception as exc:
                raise GeneratorFailure(
                    f"{who} wrote output that is not a readable table file "
                    f"({type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''})"
                ) from None
        finally:
            out.unlink(missing_ok=True)
        if len(frame) < n:
            raise GeneratorFailure(f"{who} returned {len(frame)} record(s) but {n} were asked for")
        return frame_to_table(frame.iloc[:n], self.schema_, source=who)


class _ModelKeys:
    """Model keys unique within a process."""

    next = 0


register_generator(
    GeneratorInfo(
        "env",
        EnvGenerator,
        params_of(EnvGenerator, exclude=("options",)),
        "a generator in another Python environment: env:NAME:module:Class,key=value,...",
        free_params=True,
    )
)


# --- named adapters over DP libraries, on this route -------------------------------------------
#: The file the worker runs for the named adapters (standard library + the library's pandas).
ADAPTERS_FILE = Path(__file__).resolve().with_name("env_adapters.py")


class MissingEnvError(MissingExtraError):
    """A named adapter's environment does not exist yet (say how to create it)."""

    def __init__(self, env: str, feature: str) -> None:
        InputError.__init__(
            self,
            f"{feature} runs in the Python environment {env!r}, which does not exist in "
            f"{envs_dir()}: create it with the command synthleak env create {env} "
            f"(or create_env({env!r}) in Python), or give env=PATH to an interpreter or venv",
        )
        self.package, self.extra, self.feature = env, f"env:{env}", feature


def env_installed(env: str) -> bool:
    """Whether the named environment exists (for listings; no process is started)."""
    try:
        resolve_python(env)
    except InputError:
        return False
    return True


class DpLibraryGenerator(EnvGenerator):
    """Base of the named DP-library adapters: a fixed class in ``env_adapters.py``, a claim.

    ``claimed_neighbouring`` names the relation the library's guarantee holds for
    (``add_remove``: one record added or removed; ``substitute``: one record replaced); an
    audit that takes the claim from the generator tests it for that relation.
    """

    library = ""
    # The named adapters' parameters are the library's own (the per-model Param tables below),
    # not the worker's python, target and options: each adapter declares its constraints
    # (dpmm) or lists its parameters with the reason (smartnoise and synthcity: checked by the
    # adapter's __init__ and by the library).
    _parameter_constraints = constraints()
    _unconstrained_parameters: ClassVar[MappingProxyType[str, str]] = MappingProxyType({})
    #: The neighbouring relation the library's guarantee is stated for, as its mechanisms are
    #: built (module docstring of each adapter class below).
    claimed_neighbouring = Neighbouring.ADD_REMOVE
    #: Refits with the same seed differ (measured by the contract suite): dpmm 0.1.9 makes
    #: unseeded ``RandomState()`` objects inside its binner, compressor and inference, and
    #: SmartNoise 1.0.8 draws from generators the worker's seeding does not reach.
    deterministic = False

    def __init__(self, env: str, timeout: float, model: str, kwargs: dict[str, Any]) -> None:
        feature = f"the {self.library}:{model} generator"
        try:
            python = resolve_python(env)
        except InputError:
            if os.sep in env:
                raise
            raise MissingEnvError(env, feature) from None
        super().__init__(python, f"{ADAPTERS_FILE}:{self.adapter_class}", timeout=timeout)
        self.model = model
        self.kwargs = {"model": model, **{k: v for k, v in kwargs.items() if v is not None}}

    adapter_class = ""

    def fit(self, table: Table, *, rng: np.random.Generator) -> DpLibraryGenerator:
        super().fit(table, rng=rng)
        self.n_train_ = len(table)
        return self


def _library_parameters(*names: str) -> MappingProxyType[str, str]:
    """The parameters of a named DP-library adapter, each with the reason it declares no
    constraint (:class:`DpLibraryGenerator`)."""
    reasons = {
        "model": "the library's model, fixed by the registered name (dpmm:mst, ...)",
        "env": "the environment, resolved when the generator is made (MissingEnvError if absent)",
        "timeout": "checked by EnvGenerator's declared constraints, to which it is passed",
    }
    own = "the library's parameter: checked by the adapter's __init__ and by the library"
    return MappingProxyType({**reasons, **{n: own for n in names}})


def _positive(library: str, name: str, value: float | None, *, allow_zero: bool = False) -> None:
    if value is None:
        return
    if not (value >= 0 if allow_zero else value > 0) or not np.isfinite(value):
        bound = ">= 0" if allow_zero else "> 0"
        raise InputError(f"{library}: {name} must be a finite number {bound}, got {value}")


#: The dpmm models, with their one-line docs.
DPMM_MODELS = {
    "mst": "MST (McKenna et al. 2021) from dpmm",
    "aim": "AIM (McKenna et al. 2022) from dpmm",
    "privbayes": "PrivBayes (Zhang et al. 2017) from dpmm",
}


class DpmmGenerator(DpLibraryGenerator):
    """dpmm 0.1.9 (``dpmm:mst``, ``dpmm:aim``, ``dpmm:privbayes``) in the ``dpmm`` environment.

    Claim: ``(epsilon + proc_epsilon, delta)``-DP, ``proc_epsilon`` counted only with the
    ``priv-tree`` binner (the ``uniform`` binner with the schema's bounds spends nothing). MST
    (McKenna et al. 2021) and AIM (McKenna et al. 2022) measure marginals with Gaussian noise
    under zCDP converted to ``(epsilon, delta)``, neighbours by adding or removing a record;
    dpmm's PrivBayes scores parent sets with the mutual-information sensitivity of Zhang et al.
    (2017), derived for neighbours of the same size (one record replaced), so its claim is
    declared ``substitute``.
    """

    library = "dpmm"
    adapter_class = "Dpmm"
    # made here (the environment is resolved once), so checked here, before it is used
    _parameter_constraints = constraints(
        model=Options(tuple(DPMM_MODELS)),
        epsilon=Interval(float, 0, math.inf, closed="neither"),
        delta=Interval(float, 0, 1, closed="neither"),
        n_bins=Interval(int, 2, None),
        binner_type=Options(("uniform", "priv-tree")),
        proc_epsilon=Interval(float, 0, math.inf, closed="left"),
        n_iters=(Interval(int, 1, None), None),
        env=InstanceOf(str),
        timeout=Interval(float, 0, None, closed="neither"),
    )

    def __init__(
        self,
        model: str,
        epsilon: float = 1.0,
        delta: float = 1e-5,
        n_bins: int = 20,
        binner_type: str = "uniform",
        proc_epsilon: float = 0.0,
        n_iters: int | None = None,
        env: str = "dpmm",
        timeout: float = 3600.0,
    ) -> None:
        self.model, self.epsilon, self.delta, self.n_bins = model, epsilon, delta, n_bins
        self.binner_type, self.proc_epsilon, self.n_iters = binner_type, proc_epsilon, n_iters
        self.env, self.timeout = env, timeout
        check_params(self, self._parameter_constraints)
        self._check_parameter_rules()
        spent_binning = float(proc_epsilon) if binner_type == "priv-tree" else 0.0
        kwargs = {
            "epsilon": epsilon,
            "delta": delta,
            "n_bins": n_bins,
            "binner_type": binner_type,
            "proc_epsilon": spent_binning,
            "n_iters": n_iters,
        }
        super().__init__(env, timeout, model, kwargs)
        self.claimed_epsilon = float(epsilon) + spent_binning
        self.claimed_delta = float(delta)
        self.claimed_neighbouring = (
            Neighbouring.SUBSTITUTE if model == "privbayes" else Neighbouring.ADD_REMOVE
        )

    def _check_parameter_rules(self) -> None:
        """The one rule across parameters: the priv-tree binner spends ``proc_epsilon``."""
        if self.binner_type == "priv-tree" and not self.proc_epsilon > 0:
            raise InputError(
                "dpmm: the priv-tree binner needs proc_epsilon > 0", parameter="proc_epsilon"
            )


class SmartNoiseGenerator(DpLibraryGenerator):
    """SmartNoise Synthesizers 1.0.8 (``smartnoise:mst|aim|patectgan|dpctgan``).

    Claim: ``(epsilon, delta)``-DP. ``delta`` defaults as in SmartNoise: ``1e-9`` for MST and
    AIM, ``1/(n sqrt(n))`` for the GANs (known once fitted on ``n`` records). MST and AIM are
    the mechanisms of McKenna et al. (2021, 2022) (add or remove a record); DP-CTGAN and
    PATE-CTGAN (Rosenblatt et al. 2020) are DP-SGD with Opacus 0.14's RDP accountant and PATE
    teachers on disjoint partitions, accountants stated for adding or removing a record.
    """

    library = "smartnoise"
    adapter_class = "SmartNoise"
    _unconstrained_parameters = _library_parameters(
        "epsilon", "delta", "n_bins", "epochs", "batch_size"
    )

    def __init__(
        self,
        model: str,
        epsilon: float = 1.0,
        delta: float | None = None,
        n_bins: int = 20,
        epochs: int | None = None,
        batch_size: int | None = None,
        env: str = "smartnoise",
        timeout: float = 3600.0,
    ) -> None:
        _positive("smartnoise", "epsilon", epsilon)
        if delta is not None and not 0 < delta < 1:
            raise InputError(f"smartnoise: delta must be in (0, 1), got {delta}")
        if n_bins < 2:
            raise InputError(f"smartnoise: n_bins must be >= 2, got {n_bins}")
        gan = model in ("patectgan", "dpctgan")
        if not gan and (epochs is not None or batch_size is not None):
            raise InputError(f"smartnoise:{model} takes no epochs or batch_size (GANs only)")
        if batch_size is not None and (batch_size < 2 or batch_size % 2):
            raise InputError(f"smartnoise: batch_size must be even and >= 2, got {batch_size}")
        if epochs is not None and epochs < 1:
            raise InputError(f"smartnoise: epochs must be >= 1, got {epochs}")
        kwargs = {
            "epsilon": epsilon,
            "delta": delta,
            "n_bins": n_bins,
            "epochs": epochs,
            "batch_size": batch_size,
        }
        super().__init__(env, timeout, model, kwargs)
        self.claimed_epsilon = float(epsilon)
        self.delta = delta
        self.gan = gan

    @property
    def claimed_delta(self) -> float | None:
        """The delta of the claim; for the GANs without ``delta``, known once fitted."""
        if self.delta is not None:
            return float(self.delta)
        if not self.gan:
            return 1e-9
        n = getattr(self, "n_train_", None)
        return None if n is None else 1.0 / (n * np.sqrt(n))

    @claimed_delta.setter
    def claimed_delta(self, value: float | None) -> None:  # set by EnvGenerator.__init__
        pass


def _register_env_model(
    library: str,
    model: str,
    cls: Callable[..., BaseGenerator],
    params: tuple[Param, ...],
    doc: str,
    *,
    differentially_private: bool,
    free_params: bool = False,
) -> None:
    """Register ``library:model``, a generator that runs in the environment ``env:library``."""

    def factory(**kwargs: Any) -> BaseGenerator:
        return cls(model, **kwargs)

    register_generator(
        GeneratorInfo(
            f"{library}:{model}",
            factory,
            params,
            doc,
            extra=f"env:{library}",
            differentially_private=differentially_private,
            free_params=free_params,
        )
    )


def _register_library(
    library: str,
    cls: type[DpLibraryGenerator],
    models: dict[str, str],
    params: tuple[Param, ...],
) -> None:
    for model, doc in models.items():
        _register_env_model(
            library,
            model,
            cls,
            params,
            f"{doc} ({library}, run in its own environment: synthleak env create {library})",
            differentially_private=True,
        )


_COMMON = (
    Param("timeout", float, 3600.0, "seconds per fit or sample before the worker is stopped"),
)
_register_library(
    "dpmm",
    DpmmGenerator,
    DPMM_MODELS,
    (
        Param("epsilon", float, 1.0, "epsilon of the model (dpmm's default)"),
        Param("delta", float, 1e-5, "delta (dpmm's default)"),
        Param("n_bins", int, 20, "bins per continuous column"),
        Param("binner_type", str, "uniform", "uniform (no budget) or priv-tree"),
        Param("proc_epsilon", float, 0.0, "epsilon of the priv-tree binner (added to the claim)"),
        Param("n_iters", int, None, "inference iterations (None: dpmm's default)"),
        Param("env", str, "dpmm", "environment name, venv folder or interpreter path"),
        *_COMMON,
    ),
)
_register_library(
    "smartnoise",
    SmartNoiseGenerator,
    {
        "mst": "MST (McKenna et al. 2021) from SmartNoise Synthesizers",
        "aim": "AIM (McKenna et al. 2022) from SmartNoise Synthesizers",
        "patectgan": "PATE-CTGAN (Rosenblatt et al. 2020) from SmartNoise Synthesizers",
        "dpctgan": "DP-CTGAN (Rosenblatt et al. 2020) from SmartNoise Synthesizers",
    },
    (
        Param("epsilon", float, 1.0, "epsilon of the synthesizer"),
        Param("delta", float, None, "delta (None: SmartNoise's default, see docs)"),
        Param("n_bins", int, 20, "bins per continuous column (mst, aim)"),
        Param("epochs", int, None, "training epochs (GANs; None: SmartNoise's 300)"),
        Param("batch_size", int, None, "batch size (GANs; even; None: SmartNoise's 500)"),
        Param("env", str, "smartnoise", "environment name, venv folder or interpreter path"),
        *_COMMON,
    ),
)


class SynthcityGenerator(DpLibraryGenerator):
    """synthcity 0.2.12 plugins (``synthcity:ddpm|arf|nflow|pategan|dpgan|aim``), on the CPU.

    ``ddpm`` is TabDDPM (Kotelnikov et al. 2023), ``arf`` adversarial random forests (Watson
    et al. 2023), ``nflow`` neural spline flows (Durkan et al. 2019): no DP claim. The DP
    plugins declare, as synthcity 0.2.12 implements them:

    * ``pategan`` (Jordon et al. 2019): ``epsilon`` is the target of synthcity's PATE
      moments accountant; ``delta`` is always ``1/(n sqrt(n))`` for ``n`` training records
      (synthcity's ``PATEGAN`` discards a ``delta`` it is given), known once fitted. Teachers
      on disjoint partitions: add or remove a record.
    * ``dpgan`` (Xie et al. 2018): DP-SGD on the discriminator through Opacus'
      ``make_private_with_epsilon`` for ``n_iter`` epochs; ``delta`` defaults to synthcity's
      ``1/m`` for the ``m = floor(0.8 n)`` records it trains on (it holds out the rest for
      early stopping, which the adapter switches off so that no model is chosen on records
      outside the accountant: the held-out records are unused). Opacus' RDP accountant is
      stated for adding or removing a record under Poisson sampling; synthcity draws
      fixed-size shuffled batches (``poisson_sampling=False``), a mismatch the claim inherits.
    * ``aim`` (McKenna et al. 2022): ``(epsilon, delta)`` with synthcity's ``delta = 1e-9``,
      zCDP measurements with add-or-remove sensitivity; the adapter runs the mechanism once per
      fit (synthcity's ``generate`` would run it again per call, spending the budget again).

    Outside every claim, as in synthcity: the domain is learnt from the training records
    without budget. The values of each text column (synthcity's label encoders, and its strict
    mode's filter on generated rows), the modes of a Bayesian Gaussian mixture per continuous
    column (GANs), AIM's domain sizes. So a value held by one training record alone can appear
    in a release only when that record was trained on, and for such a record no epsilon holds.
    """

    library = "synthcity"
    adapter_class = "Synthcity"
    _unconstrained_parameters = _library_parameters(
        "epsilon", "delta", "n_iter", "batch_size", "n_bins", "options"
    )
    #: How the library reads its domain from the records (docstring; ``domain_note``).
    domain_from_records = (
        "synthcity learns each column's values from the training records without budget (its "
        "encoders, the modes of its Gaussian mixtures, AIM's domain sizes)"
    )

    def __init__(
        self,
        model: str,
        env: str = "synthcity",
        timeout: float = 3600.0,
        epsilon: float | None = None,
        delta: float | None = None,
        n_iter: int | None = None,
        batch_size: int | None = None,
        n_bins: int | None = None,
        options: dict[str, str] | None = None,
    ) -> None:
        options = dict(options or {})
        for key in ("random_state", "device", "workspace", "model"):
            if key in options:
                raise InputError(f"synthcity:{model}: {key} is set by synthleak, drop it")
        # parameters a model does not declare arrive as free options: checked as named ones
        named: dict[str, float | None] = {
            "epsilon": epsilon,
            "delta": delta,
            "n_iter": n_iter,
            "batch_size": batch_size,
            "n_bins": n_bins,
        }
        for key in list(named):
            if key in options:
                value = _literal(options.pop(key))
                if not isinstance(value, (int, float)) or isinstance(value, bool):
                    raise InputError(f"synthcity:{model}: {key} must be a number, got {value!r}")
                named[key] = value

        def _int(key: str) -> int | None:
            value = named[key]
            return None if value is None else int(value)

        epsilon, delta = named["epsilon"], named["delta"]
        n_iter, batch_size, n_bins = _int("n_iter"), _int("batch_size"), _int("n_bins")
        dp = model in SYNTHCITY_DP
        if not dp and (epsilon is not None or delta is not None):
            raise InputError(f"synthcity:{model} is not differentially private: drop epsilon/delta")
        if model == "pategan" and delta is not None:
            raise InputError(
                "synthcity:pategan takes no delta: synthcity 0.2.12 ignores it and uses "
                "1/(n sqrt(n)) for n training records"
            )
        if dp:
            epsilon = 1.0 if epsilon is None else epsilon
            _positive("synthcity", "epsilon", epsilon)
        if delta is not None and not 0 < delta < 1:
            raise InputError(f"synthcity: delta must be in (0, 1), got {delta}")
        for name, value, low in (("n_iter", n_iter, 1), ("batch_size", batch_size, 2)):
            if value is not None and value < low:
                raise InputError(f"synthcity: {name} must be >= {low}, got {value}")
        if n_bins is not None and (model != "aim" or n_bins < 2):
            raise InputError(f"synthcity: n_bins (>= 2) is for aim only, got n_bins={n_bins}")
        if batch_size is not None and model in ("arf", "aim"):
            raise InputError(f"synthcity:{model} takes no batch_size")
        if n_iter is not None and model in ("arf", "aim"):
            raise InputError(f"synthcity:{model} takes no n_iter")
        n_iter = SYNTHCITY_DEFAULT_ITERS.get(model) if n_iter is None else n_iter
        kwargs: dict[str, Any] = {
            **SYNTHCITY_DEFAULT_OPTIONS.get(model, {}),
            **{k: _literal(v) for k, v in options.items()},
            "n_iter": n_iter,
            "n_bins": n_bins,
        }
        if batch_size is not None:
            kwargs["batch_size"] = batch_size
        if dp:
            kwargs["epsilon"] = float(epsilon)  # type: ignore[arg-type]
        if model == "aim":
            delta = 1e-9 if delta is None else delta
        if model in ("aim", "dpgan") and delta is not None:
            kwargs["delta"] = float(delta)
        if model == "dpgan":  # no early stopping on the held-out records (docstring)
            kwargs["n_iter_print"] = int(n_iter) + 1  # type: ignore[arg-type]
        super().__init__(env, timeout, model, kwargs)
        self.claimed_epsilon = float(epsilon) if dp else None  # type: ignore[arg-type]
        self.delta = delta
        self.dp = dp

    @property
    def claimed_delta(self) -> float | None:
        """The delta of the claim; for ``pategan`` and ``dpgan`` by default, once fitted."""
        if not self.dp:
            return 0.0
        if self.delta is not None:
            return float(self.delta)
        n = getattr(self, "n_train_", None)
        if n is None:
            return None
        if self.model == "pategan":
            return 1.0 / (n * np.sqrt(n))
        return 1.0 / int(0.8 * n)

    @claimed_delta.setter
    def claimed_delta(self, value: float | None) -> None:  # set by EnvGenerator.__init__
        pass

    def fit(self, table: Table, *, rng: np.random.Generator) -> SynthcityGenerator:
        if self.model == "dpgan" and self.delta is None:  # synthcity's default, made explicit
            self.kwargs["delta"] = 1.0 / max(int(0.8 * len(table)), 1)
        super().fit(table, rng=rng)
        return self


#: The synthcity plugins with a DP claim.
SYNTHCITY_DP = ("pategan", "dpgan", "aim")
#: Default training iterations, small enough for a CPU (synthcity's own in brackets, README):
#: ddpm epochs (1000), nflow epochs (1000), dpgan epochs (2000), pategan outer rounds (200).
SYNTHCITY_DEFAULT_ITERS = {"ddpm": 300, "nflow": 200, "dpgan": 100, "pategan": 20}
#: Other CPU defaults: TabDDPM with 100 diffusion steps (synthcity's 1000: ten times the
#: sampling time) and batches of 32 (synthcity's 1024 makes one step per epoch on small
#: tables, too few steps for its numerical columns to leave the domain's edges).
SYNTHCITY_DEFAULT_OPTIONS: dict[str, dict[str, Any]] = {
    "ddpm": {"num_timesteps": 100, "batch_size": 32},
}


_SYNTHCITY_DOCS = {
    "ddpm": ("TabDDPM, a diffusion model", "kotelnikov2023"),
    "arf": ("adversarial random forests", "watson2023"),
    "nflow": ("neural spline flows", "durkan2019"),
    "pategan": ("PATE-GAN", "jordon2019"),
    "dpgan": ("DP-GAN", "xie2018"),
    "aim": ("AIM", "mckenna2022"),
}


def _register_synthcity() -> None:
    common = (
        Param("env", str, "synthcity", "environment name, venv folder or interpreter path"),
        *_COMMON,
    )
    from synthleak.references import cite

    for model, (what, work) in _SYNTHCITY_DOCS.items():
        doc = f"{what}, {cite(work)}, from synthcity 0.2.12"
        params: list[Param] = []
        if model in SYNTHCITY_DP:
            params.append(Param("epsilon", float, 1.0, "epsilon of the plugin (synthcity's 1)"))
        if model == "aim":
            params.append(Param("delta", float, 1e-9, "delta (synthcity's default)"))
            params.append(Param("n_bins", int, None, "bins per continuous column (None: 20)"))
        if model == "dpgan":
            params.append(Param("delta", float, None, "delta (None: 1/m, m records trained on)"))
        if model in SYNTHCITY_DEFAULT_ITERS:
            what = "outer rounds" if model == "pategan" else "epochs"
            params.append(
                Param(
                    "n_iter", int, SYNTHCITY_DEFAULT_ITERS[model], f"training {what} (CPU default)"
                )
            )
        if model not in ("arf", "aim"):
            own = SYNTHCITY_DEFAULT_OPTIONS.get(model, {}).get("batch_size")
            what = "batch size (CPU default)" if own else "batch size (None: synthcity's)"
            params.append(Param("batch_size", int, own, what))

        _register_env_model(
            "synthcity",
            model,
            SynthcityGenerator,
            (*params, *common),
            f"{doc} (run in its own environment: synthleak env create synthcity); other "
            "key=value pairs go to the plugin",
            differentially_private=model in SYNTHCITY_DP,
            free_params=True,
        )


_register_synthcity()
