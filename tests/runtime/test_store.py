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
