from __future__ import annotations

import pytest

from synthleak.errors import InputError, MissingExtraError, NotFittedError, check_fitted


def test_missing_extra_message_names_the_install_command() -> None:
    err = MissingExtraError("torch", "torch", "the attention attack")
    assert isinstance(err, InputError) and isinstance(err, ImportError)
    assert "pip install 'synthleak[torch]'" in str(err)


def test_check_fitted() -> None:
    class Est:
        model_ = None

    e = Est()
    with pytest.raises(NotFittedError, match="call fit"):
        check_fitted(e, "model_")
    e.model_ = 1  # type: ignore[assignment]
    check_fitted(e, "model_")


def _raised(exc: BaseException) -> BaseException:
    """``exc`` as raised (with its traceback and chain)."""
    try:
        raise exc
    except BaseException as caught:
        return caught


def test_an_interrupt_inside_a_failure_is_raised_as_an_interrupt() -> None:
    """Compiled code interrupted by Ctrl-C returns a SystemError caused by the interrupt, and
    wrappers chain it again: every such failure is a Ctrl-C, never a failure to record."""
    from synthleak.errors import GeneratorFailure, raise_if_interrupted

    def chained() -> BaseException:
        try:
            try:
                raise KeyboardInterrupt
            except KeyboardInterrupt as ki:
                raise SystemError("CPUDispatcher returned a result with an exception set") from ki
        except SystemError as se:
            try:
                raise GeneratorFailure("fit failed") from se
            except GeneratorFailure as gf:
                return gf

    for exc in (chained(), chained().__cause__):
        assert exc is not None
        with pytest.raises(KeyboardInterrupt):
            raise_if_interrupted(exc)
    raise_if_interrupted(_raised(ValueError("a real failure")))  # not an interrupt: returns
    loop = ValueError("x")
    loop.__context__ = RuntimeError("y")
    loop.__context__.__context__ = loop  # a cycle ends the walk
    raise_if_interrupted(loop)


def test_ctrl_c_in_a_library_callback_is_raised_once_the_callback_returns() -> None:
    """A KeyboardInterrupt raised inside a ctypes callback (threadpoolctl's search of the loaded
    libraries, which every thread limit runs) is printed and lost; the command line's handler
    sends the Ctrl-C again and raises it after the callback."""
    import os
    import signal
    import time

    from synthleak.errors import interrupt_outside_callbacks

    def match_library_callback() -> float:  # the callback's name, as threadpoolctl's
        os.kill(os.getpid(), signal.SIGINT)
        t0 = time.monotonic()
        while time.monotonic() - t0 < 0.02:  # the handler runs here, between bytecodes
            pass
        return t0

    before = signal.signal(signal.SIGINT, interrupt_outside_callbacks)
    try:
        match_library_callback()  # not raised inside
        with pytest.raises(KeyboardInterrupt):
            time.sleep(5)  # sent again after the callback, raised here
    finally:
        signal.signal(signal.SIGINT, before)


def test_a_worker_defers_a_ctrl_c_that_arrives_in_a_library_callback(monkeypatch) -> None:
    import sys

    from synthleak.runtime import executor

    sent: list[float] = []
    monkeypatch.setattr(executor, "redeliver_sigint", lambda delay=0.05: sent.append(delay))
    monkeypatch.setattr(executor, "_IN_UNIT", True)
    monkeypatch.setattr(executor, "_CURRENT_RUN", "run")
    monkeypatch.setattr(executor, "_STOPPED_RUN", None)

    def match_library_callback() -> None:
        executor._on_sigint(2, sys._getframe())

    match_library_callback()
    assert sent and executor._STOPPED_RUN is None  # not counted: it comes again
    with pytest.raises(KeyboardInterrupt):
        executor._on_sigint(2, sys._getframe())
    assert executor._STOPPED_RUN == "run"
