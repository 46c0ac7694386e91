"""Typed errors and warnings.

Every error a user can cause derives from :class:`InputError`; the command line turns it into a
one-line message and exit code 2. Messages say what is wrong *and* what to do about it.
"""

from __future__ import annotations

import os
import signal
import threading
from typing import Any


class SynthleakError(Exception):
    """Base class of every error raised by synthleak."""


class InputError(SynthleakError, ValueError):
    """Bad user input: data, schema, options or a spec string. CLI exit code 2.

    Messages name API parameters (``train_size``); the command line translates them to its
    flags (``--train-size``). ``parameter`` names the offending parameter when the message
    refers to it by a plain word (``attacks``), so the translation does not touch prose.
    """

    def __init__(self, message: str, *, parameter: str | None = None) -> None:
        super().__init__(message)
        self.parameter = parameter


class MissingExtraError(InputError, ImportError):
    """An optional dependency is not installed.

    Parameters
    ----------
    package : str
        The import name that failed.
    extra : str
        The ``pip install 'synthleak[extra]'`` extra that provides it.
    feature : str
        What needs it, for the message.
    """

    def __init__(self, package: str, extra: str, feature: str) -> None:
        self.package = package
        self.extra = extra
        self.feature = feature
        super().__init__(
            f"{feature} needs the optional package {package!r}: "
            f"install it with pip install 'synthleak[{extra}]'"
        )


class NotFittedError(SynthleakError, RuntimeError):
    """An estimator (attack or generator) was used before ``fit``."""


class GeneratorFailure(SynthleakError, RuntimeError):
    """A generator failed on one dataset (shadow modelling records and counts these)."""


class BaselineWarning(UserWarning):
    """An attack did no better than its baseline (random guess or control set)."""


def check_fitted(obj: object, attribute: str) -> None:
    """Raise :class:`NotFittedError` unless ``obj`` has the fitted ``attribute``."""
    if getattr(obj, attribute, None) is None:
        raise NotFittedError(
            f"{type(obj).__name__} is not fitted yet: call fit(...) before using it"
        )


def raise_if_interrupted(exc: BaseException) -> None:
    """Raise :class:`KeyboardInterrupt` when ``exc`` stands for a Ctrl-C.

    Compiled code (numba) interrupted by Ctrl-C returns with the interrupt pending, and Python
    reports it as a ``SystemError`` caused by the ``KeyboardInterrupt``; a wrapper may chain that
    into its own error again. Every ``except Exception`` that records a failure and goes on (a
    stage, a work unit, a generator's dataset) calls this first, so a Ctrl-C stops the run
    instead of being recorded as a failure.
    """
    seen: set[int] = set()
    link: BaseException | None = exc
    while link is not None and id(link) not in seen:
        if isinstance(link, KeyboardInterrupt):
            raise KeyboardInterrupt from exc
        seen.add(id(link))
        link = link.__cause__ or link.__context__


#: Python functions that C code calls back (ctypes), where an exception is printed with a
#: traceback and lost: threadpoolctl's search of the loaded libraries, run by every
#: ``threadpool_limits`` and by scikit-learn's first thread limit in a process.
LIBRARY_CALLBACKS = frozenset({"match_library_callback"})


def in_library_callback(frame: Any) -> bool:
    """Whether ``frame`` (a signal handler's) runs inside one of :data:`LIBRARY_CALLBACKS`."""
    while frame is not None:
        if frame.f_code.co_name in LIBRARY_CALLBACKS:
            return True
        frame = frame.f_back
    return False


def redeliver_sigint(delay: float = 0.05) -> None:
    """Send this process's Ctrl-C again shortly, when the callback it arrived in has returned."""
    timer = threading.Timer(delay, os.kill, (os.getpid(), signal.SIGINT))
    timer.daemon = True
    timer.start()


def interrupt_outside_callbacks(signum: int, frame: Any) -> None:
    """The command line's Ctrl-C: :class:`KeyboardInterrupt`, as Python's own handler raises
    it, but never inside a library's callback (:func:`in_library_callback`), where it would be
    printed and lost: there it is delivered again once the callback has returned."""
    if in_library_callback(frame):
        redeliver_sigint()
        return
    raise KeyboardInterrupt
