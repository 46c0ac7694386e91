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
