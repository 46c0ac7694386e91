"""Runtime: validation, run-directory subfolders, running units with the executor."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from synthleak.errors import InputError
from synthleak.runtime import Runtime, WorkUnit, as_runtime


def _square(shared: int, x: int) -> dict[str, np.ndarray]:
    return {"y": np.array([shared * x * x])}


@pytest.mark.parametrize("workers", [0, -1, 1.5, True])
def test_workers_must_be_a_positive_whole_number(workers: object) -> None:
    with pytest.raises(InputError, match="workers"):
        Runtime(workers=workers)  # type: ignore[arg-type]


def test_sub_names_a_subfolder(tmp_path: Path) -> None:
    rt = Runtime(run_dir=str(tmp_path))  # type: ignore[arg-type]
    assert rt.run_dir == tmp_path and rt.sub("aia").run_dir == tmp_path / "aia"
    assert Runtime().sub("aia").run_dir is None and Runtime().store({"a": 1}) is None


def test_run_gives_the_same_results_inline_and_in_processes() -> None:
    units = [WorkUnit(f"u{i}", (i,)) for i in range(6)]
    inline = Runtime().run(_square, units, shared=2)
    procs = Runtime(workers=2).run(_square, units, shared=2)
    assert {k: v.arrays["y"].tolist() for k, v in inline.items()} == {
        k: v.arrays["y"].tolist() for k, v in procs.items()
    }


def test_as_runtime_rejects_other_objects() -> None:
    assert as_runtime(None) == Runtime()
    with pytest.raises(InputError, match="runtime must be"):
        as_runtime({"workers": 2})  # type: ignore[arg-type]
