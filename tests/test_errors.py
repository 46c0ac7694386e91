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
