from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from synthleak import InputError
from synthleak.runtime import RunStore


def test_put_get_resume_and_config_guard(tmp_path: Path) -> None:
    with RunStore(tmp_path / "run", {"seed": 1}) as s:
        s.put("a", {"x": np.arange(3)})
        s.put_failure("b", "boom")
        assert "a" in s and "b" not in s
    with RunStore(tmp_path / "run", {"seed": 1}) as s:
        assert s.done() == {"a"} and s.failures() == {"b": "boom"}
        np.testing.assert_array_equal(s.get("a")["x"], np.arange(3))
        s.write_json("result.json", {"ok": True})
    assert (tmp_path / "run" / "result.json").exists()
    assert not list((tmp_path / "run" / "units").glob(".*tmp"))
    with pytest.raises(InputError, match="holds a different run"):
        RunStore(tmp_path / "run", {"seed": 2})


def test_ctrl_c_while_a_unit_is_stored_keeps_it_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Ctrl-C in the middle of ``put`` lands after the unit is catalogued, never inside it."""
    import os
    import signal

    real_savez = np.savez

    def savez_interrupted(*args: object, **kwargs: object) -> None:
        os.kill(os.getpid(), signal.SIGINT)  # delivered while the archive is being written
        real_savez(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(np, "savez", savez_interrupted)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with RunStore(tmp_path / "run", {"a": 1}) as store:
            with pytest.raises(KeyboardInterrupt):
                store.put("u1", {"x": np.arange(5)})
            assert store.done() == {"u1"}
            np.testing.assert_array_equal(store.get("u1")["x"], np.arange(5))
            assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
        assert not list((tmp_path / "run" / "units").glob(".*.tmp"))
    finally:
        signal.signal(signal.SIGINT, previous)


def test_finished_units_counts_every_store_below_a_folder(tmp_path) -> None:
    from synthleak.runtime.store import finished_units

    assert finished_units(tmp_path / "missing") == 0
    top = RunStore(tmp_path / "run", {"a": 1})
    sub = RunStore(tmp_path / "run" / "screen", {"b": 2})
    assert finished_units(tmp_path / "run") == 0  # stores opened, nothing finished
    top.put("u1", {"x": np.zeros(2)})
    sub.put("s1", {"x": np.zeros(2)})
    sub.put("s2", {"x": np.zeros(2)})
    top.close()
    sub.close()
    assert finished_units(tmp_path / "run") == 3
    assert finished_units(tmp_path / "run" / "screen") == 2


def test_a_run_directory_of_another_stream_layout_is_refused(tmp_path: Path) -> None:
    from synthleak.runtime.store import check_layout

    fresh = tmp_path / "fresh"
    check_layout(fresh, 2)  # records the layout
    check_layout(fresh, 2)  # and resumes under the same one
    with pytest.raises(InputError, match="stream layout 2, this one uses 3"):
        check_layout(fresh, 3)
    old = tmp_path / "old"  # finished work from before layouts were recorded: layout 1
    store = RunStore(old, {"a": 1})
    store.put("u", {"x": np.arange(3)})
    with pytest.raises(InputError, match="stream layout 1, this one uses 2"):
        check_layout(old, 2)
    empty = tmp_path / "empty"  # nothing finished yet: nothing to mix
    RunStore(empty, {"a": 1})
    check_layout(empty, 2)
    assert (empty / "layout.json").exists()


@pytest.fixture
def python_sigint_handler():  # type: ignore[no-untyped-def]
    """Ctrl-C raising KeyboardInterrupt, as in a terminal (a test worker may ignore it)."""
    import signal

    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def _swallowed_ctrl_c() -> None:
    """A Ctrl-C that the interrupted code swallows, as numpy does in its attribute lookups."""
    import os
    import signal
    import time

    try:
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(1)
    except KeyboardInterrupt:
        pass


def test_a_swallowed_ctrl_c_is_noticed(python_sigint_handler) -> None:
    from synthleak.runtime.store import check_interrupted, interrupts_noticed

    with interrupts_noticed():
        check_interrupted()  # nothing pressed yet
        _swallowed_ctrl_c()
        with pytest.raises(KeyboardInterrupt):
            check_interrupted()
    with interrupts_noticed():  # a new block starts clean
        check_interrupted()
    _swallowed_ctrl_c()  # outside any block: not recorded
    check_interrupted()


def test_a_unit_run_while_ctrl_c_was_swallowed_is_not_kept(
    tmp_path: Path, python_sigint_handler
) -> None:
    from synthleak.runtime import WorkUnit, run_units

    def unit(shared: object, i: int) -> dict[str, np.ndarray]:
        if i == 1:
            _swallowed_ctrl_c()
        return {"x": np.array([i])}

    with RunStore(tmp_path, {"t": 1}) as store:
        with pytest.raises(KeyboardInterrupt):
            run_units(unit, [WorkUnit(f"u{i}", (i,)) for i in range(3)], store=store)
        assert store.done() == {"u0"}
