"""One vocabulary across commands: an option means the same thing wherever it appears.

The option declarations are read from the command signatures (``typing.Annotated`` metadata),
so a command that spells an option its own way, gives it another type or another help text,
fails here instead of in a user's script.
"""

from __future__ import annotations

import enum
import subprocess
import sys
import typing
from collections import defaultdict

import pytest
from typer.models import OptionInfo

from synthleak.cli.main import app

# Options whose meaning depends on the command (the file written, the generator's role, the
# output formats offered); their type must still agree.
PER_COMMAND_HELP = {"--out", "--format", "--generator", "--out-dir", "--attacks"}
FORMATS = {"table", "json", "csv"}


def _commands() -> dict[str, typing.Callable[..., object]]:
    return {(c.name or c.callback.__name__): c.callback for c in app.registered_commands}


def _options(callback: typing.Callable[..., object]) -> list[tuple[str, object, str]]:
    """(flag, type, help) of every option of one command."""
    found = []
    hints = typing.get_type_hints(callback, include_extras=True)
    for pname, ann in hints.items():
        if typing.get_origin(ann) is not typing.Annotated:
            continue
        base, *meta = typing.get_args(ann)
        info = next((m for m in meta if isinstance(m, OptionInfo)), None)
        if info is None:
            continue
        decls = list(info.param_decls or ())
        if isinstance(info.default, str) and info.default.startswith("-"):
            decls.insert(0, info.default)
        flags = [d for d in decls if d.startswith("--")] or ["--" + pname.replace("_", "-")]
        args = [a for a in typing.get_args(base) if a is not type(None)] or [base]
        for flag in flags:
            found.append((flag, args[0], info.help or ""))
    return found


def _table() -> dict[str, dict[str, tuple[object, str]]]:
    table: dict[str, dict[str, tuple[object, str]]] = defaultdict(dict)
    for name, callback in _commands().items():
        for flag, kind, help_text in _options(callback):
            table[flag][name] = (kind, help_text)
    return table


def test_every_command_is_read() -> None:
    table = _table()
    assert {"mia", "audit", "aia", "riskmap", "generate"} <= set(_commands())
    assert "--seed" in table and len(table["--seed"]) >= 5


@pytest.mark.parametrize("flag", sorted(_table()))
def test_an_option_has_one_type_everywhere(flag: str) -> None:
    uses = _table()[flag]
    kinds = {}
    for command, (kind, _) in uses.items():
        # formats differ by command (csv where rows are written); the values are shared
        if flag == "--format" and isinstance(kind, type) and issubclass(kind, enum.Enum):
            assert {m.value for m in kind} <= FORMATS, command
            kind = "format"
        # a flag repeated to give several values (compare's candidates) takes the same values
        if typing.get_origin(kind) is list:
            kind = typing.get_args(kind)[0]
        kinds[command] = kind
    assert len(set(map(str, kinds.values()))) == 1, f"{flag} has several types: {kinds}"


@pytest.mark.parametrize("flag", sorted(set(_table()) - PER_COMMAND_HELP))
def test_an_option_has_one_help_text_everywhere(flag: str) -> None:
    uses = _table()[flag]
    helps = {command: help_text for command, (_, help_text) in uses.items()}
    assert len(set(helps.values())) == 1, f"{flag} is explained differently: {helps}"


def test_no_command_uses_an_abbreviated_twin() -> None:
    flags = set(_table())
    for short, long in [("--fmt", "--format"), ("--n", "--synthetic-size"), ("--dir", "--out-dir")]:
        assert not (short in flags and long in flags), f"{short} and {long} both exist"


@pytest.mark.parametrize("command", [None, *sorted(_commands())])
def test_help_loads_no_numerical_library(command: str | None) -> None:
    """``--help`` of the program and of every command stays light: no numpy, pandas, sklearn."""
    argv = ["--help"] if command is None else [command, "--help"]
    code = (
        "import sys\n"
        "from synthleak.cli.main import main\n"
        f"try:\n    main({argv!r})\nexcept SystemExit:\n    pass\n"
        "heavy = sorted(m for m in ('numpy', 'pandas', 'sklearn', 'scipy', 'torch', 'dask')"
        " if m in sys.modules)\n"
        "print('HEAVY=' + ','.join(heavy))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    lines = [ln for ln in done.stdout.splitlines() if ln.startswith("HEAVY=")]
    assert lines, done.stdout + done.stderr
    assert lines[-1] == "HEAVY=", f"{command or 'synthleak'} --help imports {lines[-1][6:]}"
