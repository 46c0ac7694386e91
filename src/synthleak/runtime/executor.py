"""Run independent work units inline, on local processes, or on a Dask cluster.

A work unit is a picklable top-level function ``fn(shared, *args) -> dict[str, ndarray]`` plus a
unique key. ``shared`` is one (possibly large) read-only object, the same for every unit: it is
pickled once per run and loaded once per worker process, or broadcast once to a Dask cluster, not
sent once per unit. Units should be coarse (tens of milliseconds at least): batch small tasks.

Local worker processes are started once and kept for the life of the calling process (one pool,
re-sized when a run asks for another number of workers). On Linux the workers are forked by a
fork server that imported the library once (seconds of scipy, scikit-learn and numba), so a
worker, and a pool made again, costs milliseconds; elsewhere each is spawned and imports it
itself (on macOS a process that loaded the system's frameworks is not safe to fork). A pool a
run was interrupted in, or that lost a worker, is shut down and replaced by the next run.

Determinism is the caller's contract: a unit's randomness must come from a
stream of :mod:`synthleak.runtime.seeding` keyed by the unit, never from scheduling, so the result
does not depend on ``workers`` or ``cluster``. The arithmetic must not either, so every unit runs
with one BLAS and one OpenMP thread, inline as in a worker: a reduction split over threads
(scikit-learn's OpenMP loss gradients, a threaded BLAS sum) adds its parts in the order the threads
finish, and would make an inline run's last bits, and through them a tie between two scores,
differ from a pooled run's. A unit that raises is reported in its
:class:`UnitResult` (``error``) and recorded as failed in the store; the other units go on.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import pickle
import shutil
import signal
import sys
import tempfile
import threading
import traceback
import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, as_completed, wait
from dataclasses import dataclass
from typing import Any

import numpy as np

from synthleak.errors import (
    InputError,
    MissingExtraError,
    in_library_callback,
    raise_if_interrupted,
    redeliver_sigint,
)
from synthleak.runtime.store import RunStore, check_interrupted, interrupts_noticed
from synthleak.runtime.threads import one_thread_limit

UnitFn = Callable[..., dict[str, np.ndarray]]
ProgressFn = Callable[[int, int], None]


@dataclass(frozen=True)
class WorkUnit:
    """One unit of work: ``fn(shared, *args)`` stored under ``key``."""

    key: str
    args: tuple[Any, ...] = ()


@dataclass(frozen=True)
class UnitResult:
    """What a unit produced (``arrays``) or why it failed (``error``)."""

    key: str
    arrays: dict[str, np.ndarray] | None
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


_SHARED: Any = None  # in a worker: the shared object of the run it last served
_SHARED_TOKEN: str | None = None


_IN_UNIT = False  # in a worker: whether a unit is running
_CURRENT_RUN: str | None = None  # in a worker: the run of the last unit it started
_STOPPED_RUN: str | None = None  # in a worker: the run a Ctrl-C stopped


def _on_sigint(signum: int, frame: object) -> None:
    """A worker's Ctrl-C (from a terminal, which signals the whole process group, or forwarded
    by its interrupted parent) stops the run it serves: the running unit stops, its
    KeyboardInterrupt going back to the parent as the unit's outcome, and the units of that run
    already queued to this worker are refused (see :func:`_call_pooled`); a later run is served
    as usual (a Ctrl-C at an idle Python prompt reaches the kept workers too). Between units
    (waiting for work, sending a result) it raises nothing: the worker must neither print a
    traceback nor die half-way through a result, which would leave the parent waiting on a
    message that never ends. Only the first Ctrl-C of a run counts."""
    global _STOPPED_RUN
    if in_library_callback(frame):
        redeliver_sigint()
        return
    if _CURRENT_RUN is not None and _STOPPED_RUN == _CURRENT_RUN:
        return
    _STOPPED_RUN = _CURRENT_RUN
    if _IN_UNIT:
        raise KeyboardInterrupt


def _watch_parent() -> None:
    """End this worker soon after the process that made its pool dies. A parent killed with
    ``kill -9`` cannot stop its pool, and the worker would otherwise run the unit in hand and
    every unit already queued to it (minutes each for a generator in another environment), for
    a run nobody collects. The worker's parent sentinel is the end of a pipe that process
    holds (whether the worker was spawned or forked by the fork server): it reads as closed
    the moment that process is gone."""
    import multiprocessing
    from multiprocessing.connection import wait as wait_for

    parent = multiprocessing.parent_process()
    if parent is None:  # pragma: no cover - a pool's worker always has one
        return
    wait_for([parent.sentinel])
    env = sys.modules.get("synthleak.generators.env")
    if env is not None:
        env.kill_workers()  # the generator processes this worker started
    os._exit(1)


def _init_worker(environ: dict[str, str]) -> None:
    """Set a new worker up: the environment of the process that made the pool (a worker forked
    by the fork server would otherwise have the server's, from when it started), Ctrl-C
    handling, the parent watch, one thread for arithmetic."""
    os.environ.clear()
    os.environ.update(environ)
    signal.signal(signal.SIGINT, _on_sigint)
    threading.Thread(target=_watch_parent, name="synthleak-parent", daemon=True).start()
    # Stop the process pools a generator left behind before the worker exits: a worker joins its
    # child processes on exit, and joblib's reusable loky executor (ctgan and rdt transform
    # columns with it) keeps its workers alive for 300 s of idleness, so every pool of ours
    # that ran ctgan took five minutes to shut down.
    from multiprocessing import util

    util.Finalize(None, _stop_nested_pools, exitpriority=100)
    _one_thread_from_now()


ONE_THREAD_VARIABLES = (
    "OMP_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
    "VECLIB_MAXIMUM_THREADS",
    "NUMEXPR_NUM_THREADS",
)
"""The variables a thread pool reads when its library is loaded: set to 1 in a worker, so a
library first loaded by a unit starts with one thread too."""
_ONE_THREAD = dict.fromkeys(ONE_THREAD_VARIABLES, "1")


def one_thread_environ() -> dict[str, str]:
    """This process's environment with :data:`ONE_THREAD_VARIABLES` at 1: the environment of a
    process a unit starts (a generator's other-environment worker), whose arithmetic must not
    depend on the number of workers either."""
    return {**os.environ, **_ONE_THREAD}


def _one_thread_from_now() -> None:
    """Set :data:`ONE_THREAD_VARIABLES` to 1 in this process (a worker's: the pool or the
    cluster already uses the cores), so that the libraries a unit loads start with one thread;
    the libraries already loaded are limited around each unit (:func:`_call`)."""
    os.environ.update(_ONE_THREAD)


def _call_on_cluster(
    fn: UnitFn, shared: Any, args: tuple[Any, ...]
) -> tuple[dict[str, np.ndarray] | None, str | None]:
    """:func:`_call` on a Dask worker, with one thread for arithmetic like every other unit."""
    _one_thread_from_now()
    return _call(fn, shared, args)


def _stop_nested_pools() -> None:
    """Shut down joblib's reusable loky executor of this process, if one was started."""
    module = sys.modules.get("joblib.externals.loky.reusable_executor")
    executor = getattr(module, "_executor", None) if module is not None else None
    if executor is not None:
        executor.shutdown(wait=True, kill_workers=True)


def _call(
    fn: UnitFn, shared: Any, args: tuple[Any, ...]
) -> tuple[dict[str, np.ndarray] | None, str | None]:
    try:
        # one thread, whatever ran before in this process (module docstring); in a worker the
        # libraries the unit loads itself start with one too (_one_thread_from_now), inline
        # they keep their default for this first unit (a game's are loaded with its module)
        with one_thread_limit():
            return fn(shared, *args), None
    except Exception as exc:  # reported per unit, the run goes on
        raise_if_interrupted(exc)
        tb = traceback.extract_tb(exc.__traceback__)
        where = f" at {tb[-1].filename.rsplit('/', 1)[-1]}:{tb[-1].lineno}" if tb else ""
        msg = str(exc).splitlines()[0] if str(exc) else ""
        return None, f"{type(exc).__name__}: {msg}{where}"


def _call_pooled(
    fn: UnitFn, token: str, path: str | None, args: tuple[Any, ...]
) -> tuple[dict[str, np.ndarray] | None, str | None]:
    """Run a unit in a pooled worker, loading the run's shared object on its first unit."""
    global _SHARED, _SHARED_TOKEN, _IN_UNIT, _CURRENT_RUN
    if token == _STOPPED_RUN:
        raise KeyboardInterrupt
    _CURRENT_RUN = token
    _IN_UNIT = True
    try:
        if token != _SHARED_TOKEN:
            _SHARED = None  # let the previous run's object go before loading the next
            if path is not None:
                with open(path, "rb") as fh:
                    _SHARED = pickle.load(fh)
            _SHARED_TOKEN = token
        return _call(fn, _SHARED, args)
    finally:
        _IN_UNIT = False


def connect_cluster(address: str, timeout: float = 10.0) -> Any:
    """A ``distributed.Client`` for ``address``, or a clear error when it cannot be reached."""
    try:
        from distributed import Client
    except ImportError as exc:
        raise MissingExtraError("distributed", "dask", "running on a Dask cluster") from exc
    try:
        return Client(address, timeout=f"{timeout}s", set_as_default=False)
    except (OSError, TimeoutError, ValueError) as exc:
        raise InputError(
            f"cannot reach the Dask scheduler at {address} ({type(exc).__name__}): "
            "check the address and that 'dask scheduler' is running there"
        ) from exc


def run_units(
    fn: UnitFn,
    units: Sequence[WorkUnit],
    *,
    shared: Any = None,
    workers: int = 1,
    cluster: str | Any | None = None,
    store: RunStore | None = None,
    progress: ProgressFn | None = None,
) -> dict[str, UnitResult]:
    """Run ``units`` and return their results by key.

    Parameters
    ----------
    fn : callable
        Top-level function ``fn(shared, *unit.args) -> dict[str, ndarray]``.
    units : sequence of WorkUnit
        Keys must be unique.
    shared : object
        Read-only data every unit needs (sent once per worker).
    workers : int
        Local worker processes (1 runs inline). Ignored with ``cluster``.
    cluster : str or distributed.Client, optional
        Scheduler address (``tcp://host:8786``) or a client.
    store : RunStore, optional
        Finished units are skipped (read back from the store) and new ones recorded.
    progress : callable, optional
        Called as ``progress(done, total)`` after every unit.
    """
    keys = [u.key for u in units]
    if len(set(keys)) != len(keys):
        raise ValueError("work unit keys must be unique")
    if workers < 1:
        raise InputError(f"workers must be at least 1, got {workers}", parameter="workers")
    results: dict[str, UnitResult] = {}
    done_keys = store.done() if store is not None else set()
    todo = [u for u in units if u.key not in done_keys]
    for u in units:
        if u.key in done_keys:
            assert store is not None
            results[u.key] = UnitResult(u.key, store.get(u.key))
    total, count = len(units), len(results)
    if progress:
        progress(count, total)

    def record(key: str, arrays: dict[str, np.ndarray] | None, error: str | None) -> None:
        nonlocal count
        check_interrupted()  # a unit run while a Ctrl-C was swallowed is not kept
        results[key] = UnitResult(key, arrays, error)
        if store is not None:
            if error is None and arrays is not None:
                store.put(key, arrays)
            else:
                store.put_failure(key, error or "no result")
        count += 1
        if progress:
            progress(count, total)

    if not todo:
        return results
    with interrupts_noticed():
        if cluster is not None:
            _run_dask(fn, todo, shared, cluster, record)
        elif workers == 1 or len(todo) == 1:
            for u in todo:
                record(u.key, *_call(fn, shared, u.args))
        else:
            _run_processes(fn, todo, shared, workers, record)
    return results


_POOL: ProcessPoolExecutor | None = None
_POOL_WORKERS = 0

#: What a worker needs imported: the stages, games and attacks whose functions the units run
#: (and, through them, numpy, pandas, scipy, scikit-learn and numba).
WARM_MODULES = ("synthleak.pipeline",)


def _forks() -> bool:
    """Whether the workers are forked by a fork server rather than spawned: on Linux. On macOS
    the server would have loaded the system's frameworks (numpy's Accelerate, through them
    libdispatch), which a forked child may not use safely."""
    import multiprocessing as mp

    return sys.platform.startswith("linux") and "forkserver" in mp.get_all_start_methods()


def _context() -> Any:
    """How the pool starts its workers: forked by a fork server that imported
    :data:`WARM_MODULES` once, on Linux (:func:`_forks`), so that a worker costs milliseconds
    instead of seconds of imports, whatever the number of workers and however often the pool
    is made again; spawned elsewhere. The server is a clean process started for it (no thread
    of this one is forked), kept for the life of this one."""
    import multiprocessing as mp

    if not _forks():  # pragma: no cover - macOS, Windows
        return mp.get_context("spawn")
    ctx = mp.get_context("forkserver")
    ctx.set_forkserver_preload(list(WARM_MODULES))
    return ctx


def _pool(workers: int) -> ProcessPoolExecutor:
    """The process's worker pool with ``workers`` processes (started on first use)."""
    global _POOL, _POOL_WORKERS
    if _POOL is not None and (workers != _POOL_WORKERS or getattr(_POOL, "_broken", False)):
        close_pool()
    if _POOL is None:
        _POOL = ProcessPoolExecutor(
            max_workers=workers,
            mp_context=_context(),
            initializer=_init_worker,
            initargs=(dict(os.environ),),
        )
        _POOL_WORKERS = workers
    return _POOL


def _forkserver_pid() -> int | None:
    """The fork server's process, if this process started one (a private attribute of
    :mod:`multiprocessing.forkserver`: none if it moved)."""
    from multiprocessing import forkserver

    return getattr(getattr(forkserver, "_forkserver", None), "_forkserver_pid", None)


def _start_forkserver() -> None:
    """Start the fork server now, from the main thread with Ctrl-C ignored: it keeps ignoring
    it, and the workers it forks start with it ignored until :func:`_init_worker` installs
    :func:`_on_sigint` (a Ctrl-C during the server's imports prints no traceback)."""
    from multiprocessing import forkserver

    with _spawning_without_sigint():
        forkserver.ensure_running()


def _stop_forkserver() -> None:
    """End the fork server (the next pool starts another): a worker it is still to fork
    fails at once instead of waiting for the server's imports."""
    pid = _forkserver_pid()
    if pid is None:
        return
    with contextlib.suppress(OSError):
        os.kill(pid, signal.SIGKILL)
        if hasattr(os, "waitid"):  # gone before the next pool asks it for workers, not reaped:
            os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT)  # multiprocessing reaps it then


#: While the workers :func:`start_pool` started are not all ready: a future that is done
#: once they are.
_WARMING: list[Future[Any]] = []


def _warm_worker() -> None:
    """Import :data:`WARM_MODULES` in this worker (already done in a worker the fork server
    forked), at a lower priority where it can be raised back afterwards: on few cores the main
    process, importing the same library and reading the inputs meanwhile, goes first (the
    workers are not needed before it is done)."""
    import importlib

    before = _priority_to_restore()
    if before is not None:
        os.setpriority(os.PRIO_PROCESS, 0, before + 10)
    try:
        for name in WARM_MODULES:
            importlib.import_module(name)
    finally:
        if before is not None:
            os.setpriority(os.PRIO_PROCESS, 0, before)


def _priority_to_restore() -> int | None:
    """This process's nice value, if it may lower it again once raised (root, or a nice limit
    that allows it); ``None`` otherwise, or off POSIX."""
    try:
        import resource

        before = os.getpriority(os.PRIO_PROCESS, 0)
        floor = 20 - resource.getrlimit(resource.RLIMIT_NICE)[0]  # the lowest nice allowed
    except (ImportError, AttributeError, OSError):  # pragma: no cover - POSIX has them
        return None
    return before if os.geteuid() == 0 or floor <= before else None


def start_pool(workers: int) -> None:
    """Start the pool's ``workers`` processes now, in the background, so that they are ready
    when the first units come rather than seconds later. The command line calls it before
    reading its inputs: the workers' imports (the fork server's, once, where there is one)
    then overlap the main process's own (and its reading, encoding and first stages). Returns
    at once; without it the pool starts on the first units, as before."""
    if workers < 2:
        return
    pool = _pool(workers)
    if not _forks():  # pragma: no cover - macOS, Windows: spawned here, they ignore Ctrl-C
        with _spawning_without_sigint():
            _WARMING[:] = [pool.submit(_warm_worker) for _ in range(workers)]
        return
    _start_forkserver()
    ready: Future[Any] = Future()
    _WARMING[:] = [ready]

    def warm() -> None:
        """Submit the warm-ups and wait for them: a worker's start waits for the fork server's
        imports, which the main thread does not."""
        try:
            wait([pool.submit(_warm_worker) for _ in range(workers)])
        except BaseException as exc:  # the pool was closed while it started
            ready.set_exception(exc)
        else:
            ready.set_result(None)

    threading.Thread(target=warm, name="synthleak-start", daemon=True).start()


def _warming() -> bool:
    """Whether workers :func:`start_pool` started are still importing the library."""
    return any(not f.done() for f in _WARMING)


def close_pool() -> None:
    """Shut the worker pool down: queued units are dropped, running ones are waited for (after
    a Ctrl-C they stop at once: see :func:`_on_sigint`). Workers still importing for
    :func:`start_pool` (a command that failed on its input at once) are ended rather than
    waited for, and so is the fork server if it is still importing."""
    global _POOL
    pool, _POOL = _POOL, None
    if pool is not None:
        if _warming():  # importing only: nothing to lose
            _stop_forkserver()
            for proc in _processes(pool):
                proc.terminate()
        _WARMING.clear()
        pool.shutdown(wait=True, cancel_futures=True)


def _processes(pool: ProcessPoolExecutor) -> list[Any]:
    """The pool's worker processes (a private attribute of the executor: none if it moved)."""
    return list((getattr(pool, "_processes", None) or {}).values())


def _interrupt_workers(pool: ProcessPoolExecutor) -> None:
    """Send the pool's workers a Ctrl-C, so that their running units stop now rather than being
    waited for (a terminal's Ctrl-C reaches them anyway; a notebook's interrupt, or an error in
    the parent, does not). POSIX only: elsewhere ``os.kill`` would terminate them."""
    if os.name != "posix":  # pragma: no cover - the suite runs on POSIX
        return
    for proc in _processes(pool):
        with contextlib.suppress(OSError, ValueError):
            if proc.pid is not None:
                os.kill(proc.pid, signal.SIGINT)


@contextlib.contextmanager
def _spawning_without_sigint() -> Iterator[None]:
    """Ignore SIGINT while workers may be spawned, so that they start with it ignored (an
    ignored signal stays ignored across exec) and a Ctrl-C during their seconds of imports,
    before :func:`_init_worker` installs :func:`_on_sigint`, prints no traceback. Main thread
    only."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


atexit.register(close_pool)


def _run_processes(
    fn: UnitFn, todo: Sequence[WorkUnit], shared: Any, workers: int, record: Callable[..., None]
) -> None:
    """Run ``todo`` on the pool. While its workers are still importing (:func:`start_pool`),
    this process runs the units itself, one after the other from the start of the list; the
    moment the workers are ready, a thread hands them every unit not begun yet. On two cores a
    short run otherwise waited seconds, idle, for workers that import at a lower priority. The
    results are the same (every unit runs with one thread, here as there)."""
    pool = _pool(workers)
    tmp = tempfile.mkdtemp(prefix="synthleak-shared-")
    left = list(todo)
    futures: dict[Future[Any], WorkUnit] = {}
    lock = threading.Lock()
    closed = False  # set once this process collects: the thread hands nothing over after
    try:
        path = None
        if shared is not None:
            path = os.path.join(tmp, "shared.pkl")
            with open(path, "wb") as fh:
                pickle.dump(shared, fh, protocol=pickle.HIGHEST_PROTOCOL)
        token = uuid.uuid4().hex

        def hand_over() -> None:
            """Give the pool the units not begun here, once its workers are ready."""
            wait(list(_WARMING))
            with lock:
                if closed:
                    return
                with _spawning_without_sigint():  # a no-op off the main thread
                    for u in left:
                        futures[pool.submit(_call_pooled, fn, token, path, u.args)] = u
                left.clear()

        try:
            if _warming():
                threading.Thread(target=hand_over, daemon=True).start()
                while True:
                    with lock:
                        if not left:
                            break
                        u = left.pop(0)
                    record(u.key, *_call(fn, shared, u.args))
            else:
                hand_over()
            with lock:
                closed = True
                pooled = dict(futures)
            for fut in as_completed(pooled):
                record(pooled[fut].key, *fut.result())
        except BaseException:
            with lock:
                closed = True
            for f in futures:
                f.cancel()
            _interrupt_workers(pool)
            close_pool()
            raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _run_dask(
    fn: UnitFn,
    todo: Iterable[WorkUnit],
    shared: Any,
    cluster: str | Any,
    record: Callable[..., None],
) -> None:
    from distributed import as_completed as dask_completed

    own = isinstance(cluster, str)
    client = connect_cluster(cluster) if isinstance(cluster, str) else cluster
    try:
        # scatter as ONE object under a fresh key: a dict would be scattered value by value under
        # its own keys ("omega", ...), which collide with (and are released by) an earlier run
        shared_f = (
            client.scatter([shared], broadcast=True, hash=False)[0] if shared is not None else None
        )
        futures = {}
        for u in todo:
            fut = client.submit(
                _call_on_cluster, fn, shared_f, u.args, key=f"synthleak-{u.key}", pure=False
            )
            futures[fut] = u.key
        try:
            with client.as_current():
                for fut in dask_completed(list(futures)):
                    record(futures[fut], *fut.result())
        except BaseException:
            client.cancel(list(futures))
            raise
    finally:
        if own:
            client.close()
