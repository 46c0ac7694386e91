from __future__ import annotations

from synthleak.runtime.progress import progress_bar


def test_progress_bar_is_silent_without_a_terminal(capsys) -> None:
    with progress_bar("shadow models") as update:
        update(1, 10)
        update(10, 10)
    assert capsys.readouterr().err == ""
