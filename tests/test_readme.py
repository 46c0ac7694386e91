"""The README's Python examples run as written (warnings aside) and do what they promise."""

from __future__ import annotations

import re
import sys
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


def _command_table() -> list[str]:
    """The first cell of every row of the README's command table."""
    text = README.read_text(encoding="utf-8")
    section = text[text.index("## What it does") : text.index("### The audit")]
    return re.findall(r"^\| `(synthleak [^`]*)`", section, re.M)


def _cli_commands() -> dict[str, set[str]]:
    """Every CLI command and its option names."""
    import typer

    from synthleak.cli.app import app
    from synthleak.cli.main import main  # noqa: F401  (registers every command)

    group = typer.main.get_command(app)
    out = {}
    for name, cmd in group.commands.items():  # type: ignore[attr-defined]
        out[name] = {o for p in cmd.params for o in (*p.opts, *p.secondary_opts)}
    return out


def test_readme_command_table_matches_the_cli() -> None:
    """Every command is in the table, every row is a command, and every flag a row shows is an
    option of its command (``audit --out DIR`` once failed: it is ``--out-dir``)."""
    commands = _cli_commands()
    rows = _command_table()
    named = {row.split()[1] for row in rows}
    assert named == set(commands), (
        f"README's table misses {set(commands) - named} or names unknown {named - set(commands)}"
    )
    for row in rows:
        name = row.split()[1]
        flags = set(re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", row))
        unknown = flags - commands[name]
        assert not unknown, f"README's '{row}' shows {unknown}, not options of {name}"


def test_readme_lists_every_policy_metric_and_the_help_example_fits_a_release() -> None:
    from synthleak.cli.common import FailOnOpt
    from synthleak.policy import METRICS, parse_fail_on

    text = README.read_text(encoding="utf-8")
    missing = [m for m in METRICS if f"`{m}`" not in text]
    assert not missing, f"README's metric table misses {missing}"
    # the --fail-on example of --help gates only what a release audit without its generator
    # measures, so copying it does not fail closed on "not measured"
    help_text = FailOnOpt.__metadata__[0].help
    example = re.search(r"'([^']+)'", help_text).group(1)  # type: ignore[union-attr]
    release_metrics = {"membership.nobox.auc", "singling_out.risk", "linkability.risk"}
    assert {c.metric for c in parse_fail_on(example).checks} <= release_metrics


def test_quickstart_installs_the_cpu_torch_first() -> None:
    text = README.read_text(encoding="utf-8")
    quick = text[text.index("## Quickstart") : text.index("## What it does")]
    first = re.search(r"```bash\n(.*?)```", quick, re.S).group(1)  # type: ignore[union-attr]
    assert first.index("torch==2.13.0") < first.index("-e '.[all]'")


def test_report_help_and_readme_name_the_same_run_directories() -> None:
    import typer

    from synthleak.cli.app import app
    from synthleak.cli.main import main  # noqa: F401  (registers every command)

    cmd = typer.main.get_command(app).commands["report"]  # type: ignore[attr-defined]
    (arg,) = [p for p in cmd.params if p.name == "run_dir"]
    row = next(r for r in _command_table() if r.startswith("synthleak report"))
    text = README.read_text(encoding="utf-8")
    cell = text[text.index(f"`{row}`") :].split("\n", 1)[0]
    names = {"mia", "aia", "riskmap", "audit"}

    def named(s: str) -> set[str]:
        return {n for n in names if re.search(rf"\b{n}\b", s)}

    assert named(arg.help) == named(cell.split("|")[1]) == {"mia", "riskmap", "audit"}


def test_readme_contract_check_example_runs(tmp_path: Path) -> None:
    """The user's ``python:`` generator (the first block, saved as ``mysynth.py``) and custom
    attack pass the contract checks as the README shows them, and a broken generator fails."""
    from synthleak.testing import ContractError, check_generator

    text = README.read_text(encoding="utf-8")
    section = text[text.index("### Checking your own generator or attack") :]
    module, script = re.findall(r"```python\n(.*?)```", section, re.S)[:2]
    assert module.startswith("# mysynth.py")
    (tmp_path / "mysynth.py").write_text(module)
    (tmp_path / "mysynth_broken.py").write_text(
        module.replace("len(self.df), n)", "len(self.df), n + 1)")
    )
    sys.path.insert(0, str(tmp_path))
    try:
        namespace: dict[str, object] = {}
        exec(compile(script, str(README), "exec"), namespace)
        assert "ExactCopies" in namespace
        with pytest.raises(ContractError, match="output keeps the training schema"):
            check_generator("python:mysynth_broken:Bootstrap")
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("mysynth", None)
        sys.modules.pop("mysynth_broken", None)
