from __future__ import annotations

import os
import time
from pathlib import Path

import numpy as np
import pytest
import sklearn.linear_model  # noqa: F401  (the OpenMP runtime a game's attacks load)

from synthleak import InputError
from synthleak.runtime import RunStore, WorkUnit, executor, run_units, unit_rng


def _unit(shared: float, i: int) -> dict[str, np.ndarray]:
    if i == 3:
        raise RuntimeError("generator exploded")
    return {"x": unit_rng(11, i).random(5) + shared}


UNITS = [WorkUnit(f"u{i}", (i,)) for i in range(6)]


def test_inline_equals_processes_and_failures_are_reported() -> None:
    seen: list[tuple[int, int]] = []
    a = run_units(_unit, UNITS, shared=2.0, progress=lambda d, t: seen.append((d, t)))
    b = run_units(_unit, UNITS, shared=2.0, workers=2)
    assert not a["u3"].ok and "generator exploded" in (a["u3"].error or "")
    for k in ("u0", "u1", "u2", "u4", "u5"):
        np.testing.assert_array_equal(a[k].arrays["x"], b[k].arrays["x"])  # type: ignore[index]
    assert seen[-1] == (6, 6)


def _thread_counts(shared: int, i: int) -> dict[str, np.ndarray]:
    """The BLAS and OpenMP thread counts the unit runs with (scikit-learn's OpenMP runtime loaded
    with this module, as a game's attacks load it; scipy's BLAS loaded here, first in a worker),
    after raising them to ``shared`` threads for good when ``shared`` is positive (as a library
    that sets its own thread count and never restores it)."""
    import scipy.linalg  # noqa: F401
    from threadpoolctl import threadpool_info, threadpool_limits

    if shared > 0:
        threadpool_limits(shared)
    info = threadpool_info()
    return {
        "threads": np.array([p["num_threads"] for p in info]),
        "libraries": np.array([p["filepath"] for p in info]),
    }


@pytest.mark.skipif(
    (os.cpu_count() or 1) < 2, reason="one core: every thread pool has one thread anyway"
)
def test_every_unit_runs_with_one_thread_inline_as_in_a_worker() -> None:
    """A reduction over threads adds its parts in the order they finish, so an inline run with
    the machine's threads gave a cross-fitted attack other last bits (and, through a tie, another
    AUC) than the same run in one-thread workers. Every path runs each unit with one thread,
    whatever an earlier unit in the same (kept) worker did to its thread pools; the inline run
    gives the caller's threads back afterwards; a process a unit starts (a generator's worker in
    another environment) is told to use one thread."""
    import subprocess
    import sys

    from threadpoolctl import threadpool_info

    units = [WorkUnit(f"u{i}", (i,)) for i in range(4)]
    for workers in (1, 2):
        run_units(_thread_counts, units, shared=2, workers=workers)  # raise them for good
        out = run_units(_thread_counts, units, shared=0, workers=workers)
        for r in out.values():
            assert r.ok and set(r.arrays["threads"].tolist()) == {1}, (workers, r)  # type: ignore[index]
    assert max(p["num_threads"] for p in threadpool_info()) > 1
    child = subprocess.run(
        [sys.executable, "-c", "import os; print(os.environ['OMP_NUM_THREADS'])"],
        env=executor.one_thread_environ(),
        capture_output=True,
        text=True,
        check=True,
    )
    assert child.stdout.strip() == "1"


def test_store_skips_finished_units(tmp_path: Path) -> None:
    calls: list[int] = []

    def counted(shared: None, i: int) -> dict[str, np.ndarray]:
        calls.append(i)
        return {"i": np.array([i])}

    with RunStore(tmp_path, {"k": 1}) as s:
        run_units(counted, UNITS[:2], store=s)
    with RunStore(tmp_path, {"k": 1}) as s:
        out = run_units(counted, UNITS, store=s)
    assert calls == [0, 1, 2, 3, 4, 5]  # the second run did only units 2..5
    assert [int(out[u.key].arrays["i"][0]) for u in UNITS] == list(range(6))  # type: ignore[index]


def test_bad_arguments() -> None:
    with pytest.raises(InputError, match="workers must be at least 1"):
        run_units(_unit, UNITS, workers=0)
    with pytest.raises(ValueError, match="unique"):
        run_units(_unit, [UNITS[0], UNITS[0]])


def _nested_loky_unit(shared: None, i: int) -> dict[str, np.ndarray]:
    """A unit that, like ctgan's column transformer, leaves joblib's loky pool running."""
    from joblib import Parallel, delayed

    Parallel(n_jobs=2, backend="loky")(delayed(abs)(-x) for x in range(4))
    return {"x": np.array([i])}


def test_worker_pool_shuts_down_despite_a_nested_loky_pool() -> None:
    """A worker joins its children on exit; loky's idle workers linger for 300 s, so without
    stopping them every process pool that ran ctgan hung for five minutes after its last unit.
    The bound below detects that hang (it is not a speed requirement)."""
    import threading

    out: dict[str, object] = {}

    def play() -> None:
        units = [WorkUnit(f"u{i}", (i,)) for i in range(2)]
        out["results"] = run_units(_nested_loky_unit, units, shared=None, workers=2)
        executor.close_pool()  # what the interpreter does at exit

    thread = threading.Thread(target=play, daemon=True)
    thread.start()
    thread.join(timeout=150)
    assert not thread.is_alive(), "the worker pool hung on a unit's leftover joblib pool"
    results = out["results"]
    assert isinstance(results, dict) and sorted(results) == ["u0", "u1"]


def _pid_unit(shared: float, i: int) -> dict[str, np.ndarray]:
    import os
    import time

    time.sleep(0.2)  # long enough that both workers take units
    return {"pid": np.array([os.getpid()]), "shared": np.array([shared])}


def _dying_unit(shared: None, i: int) -> dict[str, np.ndarray]:
    import os

    os._exit(3)


def test_worker_processes_are_reused_and_each_run_sees_its_own_shared_object() -> None:
    units = [WorkUnit(f"u{i}", (i,)) for i in range(4)]
    first = run_units(_pid_unit, units, shared=1.0, workers=2)
    second = run_units(_pid_unit, units, shared=2.0, workers=2)
    pids = [{int(r.arrays["pid"][0]) for r in out.values()} for out in (first, second)]  # type: ignore[index]
    assert len(pids[1]) == 2 and pids[1] <= pids[0]  # no new process was started
    assert {float(r.arrays["shared"][0]) for r in first.values()} == {1.0}  # type: ignore[index]
    assert {float(r.arrays["shared"][0]) for r in second.values()} == {2.0}  # type: ignore[index]


def test_a_ctrl_c_between_runs_does_not_stop_the_next_run() -> None:
    """A Ctrl-C at an idle Python prompt reaches the kept workers too (one process group): it
    stops nothing, and the next run is served in full by the same workers."""
    import os
    import signal
    import time

    units = [WorkUnit(f"u{i}", (i,)) for i in range(4)]
    first = run_units(_pid_unit, units, shared=1.0, workers=2)
    assert executor._POOL is not None
    pids = {int(r.arrays["pid"][0]) for r in first.values()}  # type: ignore[index]
    for pid in pids:
        os.kill(pid, signal.SIGINT)
    time.sleep(0.5)
    out = run_units(_pid_unit, units, shared=2.0, workers=2)
    assert all(r.ok for r in out.values())
    assert {int(r.arrays["pid"][0]) for r in out.values()} <= pids  # type: ignore[index]
    assert {float(r.arrays["shared"][0]) for r in out.values()} == {2.0}  # type: ignore[index]


def test_a_pool_that_lost_a_worker_or_was_interrupted_is_replaced() -> None:
    from concurrent.futures.process import BrokenProcessPool

    with pytest.raises(BrokenProcessPool):
        run_units(_dying_unit, [WorkUnit("d0", (0,)), WorkUnit("d1", (1,))], workers=2)

    def interrupt(done: int, total: int) -> None:
        if done == 1:
            raise KeyboardInterrupt

    units = [WorkUnit(f"u{i}", (i,)) for i in range(4)]
    with pytest.raises(KeyboardInterrupt):
        run_units(_pid_unit, units, shared=1.0, workers=2, progress=interrupt)
    assert executor._POOL is None  # shut down, not left running the cancelled units
    out = run_units(_pid_unit, units, shared=3.0, workers=2)
    assert {float(r.arrays["shared"][0]) for r in out.values()} == {3.0}  # type: ignore[index]


_INTERRUPTED_RUN = """
import sys, time
from pathlib import Path
import numpy as np
from synthleak.runtime import WorkUnit, run_units

def slow(marker, i):
    Path(marker + str(i)).touch()
    time.sleep(120)
    return {"x": np.array([i])}

if __name__ == "__main__":
    try:
        run_units(slow, [WorkUnit(f"u{i}", (i,)) for i in range(4)], shared=sys.argv[1], workers=2)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        sys.exit(130)
"""


@pytest.mark.parametrize("to", ["process group", "parent only"])
def test_ctrl_c_stops_running_units_at_once_without_worker_tracebacks(
    tmp_path: Path, to: str
) -> None:
    """A terminal's Ctrl-C reaches the parent and its workers (one process group); a notebook's
    interrupt reaches the parent only, which passes it on. Either way the units in flight stop
    now rather than after their 120 s, the units queued behind them never start, and no worker
    prints a traceback."""
    import os
    import signal
    import subprocess
    import sys
    import time

    script = tmp_path / "run.py"
    script.write_text(_INTERRUPTED_RUN)
    marker = str(tmp_path / "started-")
    proc = subprocess.Popen(
        [sys.executable, str(script), marker],
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    deadline = time.monotonic() + 120
    while len(list(tmp_path.glob("started-*"))) < 2 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert len(list(tmp_path.glob("started-*"))) == 2, "the units never started"
    t0 = time.monotonic()
    if to == "process group":
        os.killpg(proc.pid, signal.SIGINT)
    else:
        proc.send_signal(signal.SIGINT)
    try:
        _, err = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        pytest.fail("the run did not stop within 60 s of Ctrl-C")
    assert proc.returncode == 130 and err.strip() == "interrupted", err
    assert time.monotonic() - t0 < 60
    assert len(list(tmp_path.glob("started-*"))) == 2  # the queued units were refused


_KILLED_RUN = """
import os, sys, time
from pathlib import Path
import numpy as np
from synthleak.runtime import WorkUnit, run_units

def slow(marker, i):
    Path(f"{marker}{i}-{os.getpid()}").touch()
    time.sleep(120)
    return {"x": np.array([i])}

if __name__ == "__main__":
    run_units(slow, [WorkUnit(f"u{i}", (i,)) for i in range(6)], shared=sys.argv[1], workers=2)
"""


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as fh:  # an exited child not yet reaped is a zombie
        return fh.read().split(")")[-1].split()[0] != "Z"


def test_workers_of_a_killed_parent_stop(tmp_path: Path) -> None:
    """``kill -9`` of the parent gives it no chance to stop its pool: the workers notice that
    their parent is gone and end within seconds, without running the units queued to them."""
    import signal
    import subprocess
    import sys
    import time

    script = tmp_path / "run.py"
    script.write_text(_KILLED_RUN)
    proc = subprocess.Popen([sys.executable, str(script), str(tmp_path / "started-")])
    deadline = time.monotonic() + 120
    while len(list(tmp_path.glob("started-*"))) < 2 and time.monotonic() < deadline:
        time.sleep(0.1)
    started = list(tmp_path.glob("started-*"))
    assert len(started) == 2, "the units never started"
    pids = [int(p.name.rsplit("-", 1)[1]) for p in started]
    proc.send_signal(signal.SIGKILL)
    proc.wait()

    deadline = time.monotonic() + 30
    while any(_alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not any(_alive(p) for p in pids), "a worker outlived its parent"
    assert len(list(tmp_path.glob("started-*"))) == 2  # no queued unit started


def _library_loaded(shared: None, i: int) -> dict[str, np.ndarray]:
    import sys

    return {
        "loaded": np.array(["synthleak.pipeline" in sys.modules]),
        "pid": np.array([os.getpid()]),
        "nice": np.array([os.getpriority(os.PRIO_PROCESS, 0)]),
        "parent": np.array([os.getppid()]),
        "probe": np.array([os.environ.get("SYNTHLEAK_TEST_PROBE", "")]),
    }


def _cold_start(workers: int = 2) -> None:
    """A new pool started as a command starts it, with a fork server that has not imported the
    library yet (a later pool of this process would find it ready)."""
    from synthleak.runtime import Runtime

    executor.close_pool()
    executor._stop_forkserver()
    Runtime(workers=workers).start()


def _ready() -> None:
    for warm in list(executor._WARMING):
        warm.result(timeout=300)


def test_started_workers_have_imported_the_library_when_the_units_come() -> None:
    """``Runtime.start`` starts the workers at once, in the background, and the run that
    follows is served by those same processes, the library imported; inline or on a cluster
    it starts none."""
    from synthleak.runtime import Runtime

    executor.close_pool()
    Runtime(workers=1).start()
    Runtime(workers=2, cluster="tcp://127.0.0.1:1").start()
    assert executor._POOL is None
    _cold_start()
    assert executor._POOL is not None
    _ready()
    started = {p.pid for p in executor._POOL._processes.values()}
    units = [WorkUnit(f"u{i}", (i,)) for i in range(4)]
    out = run_units(_library_loaded, units, workers=2)
    assert all(bool(r.arrays["loaded"][0]) for r in out.values())  # type: ignore[index]
    assert {int(r.arrays["pid"][0]) for r in out.values()} <= started  # type: ignore[index]
    # forked by the fork server, which imported the library once for every worker
    assert {int(r.arrays["parent"][0]) for r in out.values()} == {executor._forkserver_pid()}  # type: ignore[index]
    # imported at a lower priority where it could be raised back: the units run at the caller's
    nice = {int(r.arrays["nice"][0]) for r in out.values()}  # type: ignore[index]
    assert nice == {os.getpriority(os.PRIO_PROCESS, 0)}
    executor.close_pool()


def test_workers_of_a_new_pool_see_the_environment_of_its_making(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A forked worker would have the fork server's environment, from when the server
    started; a spawned one had its parent's at the pool's making, and so does a forked one."""
    units = [WorkUnit(f"u{i}", (i,)) for i in range(2)]
    run_units(_library_loaded, units, workers=2)
    server = executor._forkserver_pid()
    executor.close_pool()
    monkeypatch.setenv("SYNTHLEAK_TEST_PROBE", "set later")
    out = run_units(_library_loaded, units, workers=2)
    assert executor._forkserver_pid() == server  # forked by the server started before
    assert {str(r.arrays["probe"][0]) for r in out.values()} == {"set later"}  # type: ignore[index]
    executor.close_pool()


def _pid_square(shared: float, i: int) -> dict[str, np.ndarray]:
    return {"x": np.array([shared * i * i]), "pid": np.array([os.getpid()])}


def test_units_run_here_while_the_started_workers_import() -> None:
    """On two cores a short run waited seconds for workers importing at a lower priority; the
    main process now runs the units itself until they are ready, and the workers take the
    units not begun yet: the same results either way."""
    _cold_start()  # importing the library takes seconds: still under way below
    units = [WorkUnit(f"u{i}", (i,)) for i in range(6)]
    early = run_units(_pid_square, units, shared=2.0, workers=2)
    assert int(early["u0"].arrays["pid"][0]) == os.getpid()  # type: ignore[index]
    _ready()
    ready = run_units(_pid_square, units, shared=2.0, workers=2)
    assert os.getpid() not in {int(r.arrays["pid"][0]) for r in ready.values()}  # type: ignore[index]
    for u in units:
        assert early[u.key].arrays["x"][0] == ready[u.key].arrays["x"][0] == 2.0 * u.args[0] ** 2  # type: ignore[index]
    executor.close_pool()


def _until_ready(shared: float, i: int) -> dict[str, np.ndarray]:
    """In the main process, wait for the started workers to be ready (and the units not begun
    to be handed to them); in a worker, at once."""
    for warm in list(executor._WARMING):
        warm.result(timeout=300)
    if executor._WARMING:
        time.sleep(0.5)
    return _pid_square(shared, i)


def test_the_workers_take_the_units_not_begun_the_moment_they_are_ready() -> None:
    _cold_start()
    units = [WorkUnit(f"u{i}", (i,)) for i in range(6)]
    out = run_units(_until_ready, units, shared=3.0, workers=2)
    pids = [int(out[u.key].arrays["pid"][0]) for u in units]  # type: ignore[index]
    assert pids[0] == os.getpid() and os.getpid() not in pids[1:]
    assert [float(out[u.key].arrays["x"][0]) for u in units] == [3.0 * i * i for i in range(6)]  # type: ignore[index]
    executor.close_pool()


def test_a_pool_closed_while_its_workers_import_ends_them() -> None:
    """A command that fails on its input right after starting its workers exits without
    waiting for their imports: the fork server importing the library is ended with the workers
    it forked, and the next run starts a fresh pool (and server)."""
    import multiprocessing as mp

    _cold_start()
    server = executor._forkserver_pid()
    warming = list(executor._WARMING)
    assert server is not None and warming and not warming[0].done()
    executor.close_pool()
    for f in warming:  # the start that waited for the server gave up
        f.exception(timeout=60)
    assert not executor._WARMING and not mp.active_children() and not _alive(server)
    out = run_units(_unit, UNITS, shared=2.0, workers=2)
    assert out["u0"].ok and not out["u3"].ok
    executor.close_pool()
