"""The README's Python example runs as written (warnings aside) and prints what it promises."""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"


def _python_example() -> str:
    text = README.read_text(encoding="utf-8")
    section = text[text.index("### Python API") :]
    match = re.search(r"```python\n(.*?)```", section, re.S)
    assert match, "README's Python API section has no python example"
    return match.group(1)


def test_readme_python_example_runs(capsys: pytest.CaptureFixture[str]) -> None:
    import synthleak as sl

    namespace: dict[str, object] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec(compile(_python_example(), str(README), "exec"), namespace)
    out = capsys.readouterr().out
    assert "risk" in out and "auc_ci_low" in out
    assert isinstance(namespace["so"], sl.SinglingOutResult)
    assert isinstance(namespace["result"], sl.MembershipResult)
    assert isinstance(namespace["report"], sl.AuditResult)


def test_readme_table_lists_every_exported_game() -> None:
    import synthleak as sl

    text = README.read_text(encoding="utf-8")
    games = [n for n in sl.__all__ if n.endswith("Game") and n != "Game"] + ["RiskMap"]
    missing = [g for g in games if f"`sl.{g}`" not in text]
    assert not missing, f"README's game table misses {missing}"
