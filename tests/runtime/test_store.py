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
