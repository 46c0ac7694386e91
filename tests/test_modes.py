"""The enums of ``synthleak.modes``: one light module, re-exported where they are used."""

from __future__ import annotations

import inspect
import subprocess
import sys
from enum import StrEnum

import pytest

from synthleak import modes


def _enums() -> list[type[StrEnum]]:
    return [
        obj
        for _, obj in inspect.getmembers(modes, inspect.isclass)
        if issubclass(obj, StrEnum) and obj.__module__ == modes.__name__
    ]


def test_modes_imports_no_numerical_library() -> None:
    code = (
        "import sys, synthleak.modes\n"
        "print(sorted(m for m in ('numpy', 'pandas', 'sklearn', 'scipy', 'torch') "
        "if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize("enum", _enums(), ids=lambda e: e.__name__)
def test_values_are_lower_case_words_and_round_trip(enum: type[StrEnum]) -> None:
    values = [m.value for m in enum]
    assert len(values) == len(set(values)) >= 2
    for member in enum:
        assert member.value == member.value.lower() and " " not in member.value
        assert enum(member.value) is member and str(member) == member.value


def test_the_modules_that_use_a_mode_re_export_it() -> None:
    from synthleak.games.membership import Knowledge, PoolMode
    from synthleak.vulnerability import DistanceMetric, TargetMethod

    assert PoolMode is modes.PoolMode and Knowledge is modes.Knowledge
    assert DistanceMetric is modes.DistanceMetric and TargetMethod is modes.TargetMethod


def test_one_enum_per_choice() -> None:
    """No two enums offer the same choice: they share at most one value."""
    enums = list({id(e): e for e in _enums()}.values())  # Selector is TargetMethod
    for i, a in enumerate(enums):
        for b in enums[i + 1 :]:
            shared = {m.value for m in a} & {m.value for m in b}
            assert len(shared) <= 1, (a.__name__, b.__name__, shared)
    assert modes.Selector is modes.TargetMethod
    assert set(modes.AUDIT_SELECTORS) | set(modes.DATA_METHODS) == set(modes.TargetMethod)


def _literal_spellings_outside_modes() -> list[str]:
    """String constants of the package that spell a mode's value (in either the API's or a
    hyphenated form), outside ``modes.py``: each concept is spelt once, by its enum."""
    import ast
    from pathlib import Path

    from synthleak.modes import Neighbouring

    src = Path(__file__).resolve().parents[1] / "src" / "synthleak"
    spellings = {v for m in Neighbouring for v in (m.value, m.value.replace("_", "-"))}
    # run by path in another interpreter, with the standard library only
    standalone = {"modes.py", "generators/envworker_protocol.py"}
    hits = []
    for path in sorted(src.rglob("*.py")):
        rel = path.relative_to(src).as_posix()
        if rel in standalone:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and node.value in spellings:
                hits.append(f"{rel}:{node.lineno}: {node.value!r}")
    return hits


def test_neighbouring_is_spelt_once_by_its_enum() -> None:
    hits = _literal_spellings_outside_modes()
    assert not hits, "spell the neighbouring relation with modes.Neighbouring:\n" + "\n".join(hits)
