"""Meta-test: every module of the package has a test file (scikit-learn style)."""

from __future__ import annotations

from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "synthleak"
TESTS = Path(__file__).resolve().parent

# Modules whose behaviour is exercised through another module's tests (say which, and why).
COVERED_ELSEWHERE = {
    "datasets.py": "tests/data/test_datasets.py (public alias of data/datasets.py)",
    "cli/app.py": "tests/cli/test_cli_main.py (the Typer app object)",
}


def test_every_module_has_a_test_file() -> None:
    test_names = {p.name for p in TESTS.rglob("test_*.py")}
    missing = []
    for mod in sorted(SRC.rglob("*.py")):
        rel = mod.relative_to(SRC).as_posix()
        if mod.name == "__init__.py" or rel in COVERED_ELSEWHERE:
            continue
        sub = mod.parent.relative_to(SRC).as_posix()
        candidates = {f"test_{mod.stem}.py"}
        if sub != ".":
            candidates |= {f"test_{sub.replace('/', '_')}_{mod.stem}.py", f"test_cli_{mod.stem}.py"}
        if not candidates & test_names:
            missing.append(rel)
    assert not missing, f"modules without a test file: {missing}"
