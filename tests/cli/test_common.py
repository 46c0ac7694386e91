from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from synthleak import InputError
from synthleak.cli.common import atomic_write, emit, parse_targets, split_list, to_json


def test_split_list() -> None:
    assert split_list(None) == [] and split_list(" a, b,,c ") == ["a", "b", "c"]


def test_atomic_write_leaves_nothing_on_failure(tmp_path: Path) -> None:
    target = tmp_path / "out.txt"

    class Boom(str):
        def encode(self, *a, **k):  # type: ignore[override]
            raise RuntimeError("disk full")

    with pytest.raises(RuntimeError):
        atomic_write(target, Boom("x"))
    assert list(tmp_path.iterdir()) == []
    atomic_write(target, "ok")
    assert target.read_text() == "ok"
    with pytest.raises(InputError, match="does not exist"):
        atomic_write(tmp_path / "no" / "x.txt", "x")


def test_to_json_is_strict(tmp_path: Path) -> None:
    text = to_json({"a": float("nan"), "b": np.float32(1.5), "c": np.arange(2)})
    assert json.loads(text) == {"a": None, "b": 1.5, "c": [0, 1]}
    emit(text, tmp_path / "o.json")
    assert json.loads((tmp_path / "o.json").read_text())["b"] == 1.5


def test_targets_name_every_selector() -> None:
    """``--targets`` parts: ``top`` is ``V_k``; every other selector goes by its method name."""
    spec = parse_targets("top:2+rarity:3+rare:1+loglik:1+random:2+rows:4,7", k=3)
    assert [p.method for p in spec.parts] == [
        "distance",
        "rarity",
        "rare",
        "loglik",
        "random",
        "rows",
    ]
    assert spec.k == 3
    with pytest.raises(InputError, match="rarity:N"):
        parse_targets("rarity")
