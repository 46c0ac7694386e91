"""One thread for arithmetic around a block of work, with threadpoolctl.

A ``threadpool_limits(1)`` searches the process's loaded libraries for their thread pools each
time it is made (about 6 ms with scikit-learn, SciPy and numba loaded), and an audit limits its
threads around every work unit and every fit of a classifier: hundreds of times in a comparison
of candidates. The search is kept here, one per process, and made again when the process has
imported modules since (a library's thread pool is loaded with the module that links it), so a
limit costs tens of microseconds.
"""

from __future__ import annotations

import contextlib
import signal
import sys
from collections.abc import Iterator
from typing import Any

#: The process's threadpoolctl controller and the number of modules loaded when it was made.
_CONTROLLER: tuple[int, Any] | None = None


@contextlib.contextmanager
def _sigint_deferred() -> Iterator[None]:
    """Hold a Ctrl-C (SIGINT) back until the block ends; it is then handled as usual."""
    if not hasattr(signal, "pthread_sigmask"):  # pragma: no cover - the suite runs on POSIX
        yield
        return
    before = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


def _controller() -> Any:
    """This process's ``ThreadpoolController``, made again when modules were imported since.

    The controller finds the loaded libraries in a ctypes callback: a Ctrl-C raised there would
    be printed with a traceback and lost, so it waits until the search is done.
    """
    global _CONTROLLER
    loaded = len(sys.modules)
    if _CONTROLLER is None or _CONTROLLER[0] != loaded:
        from threadpoolctl import ThreadpoolController

        with _sigint_deferred():
            _CONTROLLER = (len(sys.modules), ThreadpoolController())
    return _CONTROLLER[1]


def one_thread_limit() -> Any:
    """One BLAS and one OpenMP thread until the block ends, as ``threadpool_limits(1)``: use as
    a context manager; the thread counts found at its start are restored at its end."""
    return _controller().limit(limits=1)
