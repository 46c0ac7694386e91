"""Meta-tests of the package layout (scikit-learn style).

* every module ``src/synthleak/<path>/<mod>.py`` has its test file at ``tests/<path>/test_<mod>.py``
  (the tests mirror the package path, not just its file names);
* no module imports another in a cycle, counting imports inside functions and classes too (a lazy
  import keeps ``synthleak --help`` light, it does not make an upward import right); only imports
  under ``if TYPE_CHECKING:`` are left out, since they never run;
* imports only point down the floors of :data:`FLOORS` (the layers of docs/ARCHITECTURE.md), and
  every module is on a floor.
"""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "synthleak"
TESTS = Path(__file__).resolve().parent

# Modules whose behaviour is exercised through another module's tests (say which, and why).
COVERED_ELSEWHERE = {
    "datasets.py": "tests/data/test_datasets.py (public alias of data/datasets.py)",
    "cli/app.py": "tests/cli/test_main.py (the Typer app object)",
}


def expected_test_file(module: Path) -> Path:
    """``tests/<package path>/test_<module>.py`` for a module of the package."""
    rel = module.relative_to(SRC)
    return TESTS / rel.parent / f"test_{rel.stem}.py"


def test_every_module_has_a_test_file_at_its_mirrored_path() -> None:
    missing = []
    for mod in sorted(SRC.rglob("*.py")):
        rel = mod.relative_to(SRC).as_posix()
        if mod.name == "__init__.py" or rel in COVERED_ELSEWHERE:
            continue
        if not expected_test_file(mod).is_file():
            missing.append(f"{rel} -> {expected_test_file(mod).relative_to(TESTS.parent)}")
    assert not missing, f"modules without a test file at the mirrored path: {missing}"


def _module_name(path: Path, root: Path = SRC) -> str:
    rel = path.relative_to(root.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _imports(path: Path, known: set[str], root: Path) -> set[str]:
    """Package modules imported anywhere in a module (module level, inside functions, methods and
    classes), except under ``if TYPE_CHECKING:``."""
    tree = ast.parse(path.read_text())
    name = _module_name(path, root)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name in known)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(up + ([base] if base else []))
            for a in node.names:
                full = f"{base}.{a.name}"
                out.add(full if full in known else base)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return {m for m in out if m in known and m != name}


def import_cycles(root: Path) -> list[list[str]]:
    """Cycles of imports (function-level ones included) among the modules of the package."""
    paths = {_module_name(p, root): p for p in root.rglob("*.py")}
    known = set(paths)
    graph = {m: _imports(p, known, root) for m, p in paths.items()}
    # a package's __init__ importing its own submodules is not a cycle through the package
    for m in graph:
        graph[m] = {
            d for d in graph[m] if not (d.startswith(m + ".") and paths[m].name == "__init__.py")
        }
    cycles: list[list[str]] = []
    state: dict[str, int] = {}
    stack: list[str] = []

    def dfs(m: str) -> None:
        state[m] = 1
        stack.append(m)
        for d in sorted(graph[m]):
            if state.get(d) == 1:
                cycles.append([*stack[stack.index(d) :], d])
            elif d not in state:
                dfs(d)
        stack.pop()
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            dfs(m)
    return cycles


def test_no_import_cycles() -> None:
    cycles = import_cycles(SRC)
    assert not cycles, "import cycles:\n" + "\n".join(" -> ".join(c) for c in cycles)


def test_the_cycle_check_finds_a_cycle(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from pkg.sub import b\n")
    (pkg / "sub" / "b.py").write_text("from pkg import c\n")
    (pkg / "c.py").write_text("import pkg.a\n")
    cycles = import_cycles(pkg)
    assert len(cycles) == 1 and set(cycles[0]) == {"pkg.a", "pkg.sub.b", "pkg.c"}


def test_the_cycle_check_counts_imports_inside_functions(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "c.py").write_text("def f():\n    from pkg import d\n")
    (pkg / "d.py").write_text(
        "from typing import TYPE_CHECKING\nfrom pkg import c\n"
        "if TYPE_CHECKING:\n    from pkg import e\n"
    )
    (pkg / "e.py").write_text("class K:\n    def m(self):\n        import pkg.d\n")
    cycles = import_cycles(pkg)
    assert [set(c) for c in cycles] == [{"pkg.c", "pkg.d"}]


#: The floors of the package, lowest first (docs/ARCHITECTURE.md, "Layers"): a module may import
#: modules of its own floor or of a lower one, never of a higher one. Each entry names top-level
#: modules or packages of ``synthleak``; the package's ``__init__`` (the public API) and the public
#: alias ``datasets`` sit above every floor.
FLOORS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "foundations",
        ("data", "runtime", "serde", "errors", "modes", "references", "constraints", "threat"),
    ),
    ("engines", ("vulnerability", "queries")),
    ("statistics", ("metrics",)),
    ("generators", ("generators",)),
    ("attacks", ("attacks",)),
    ("games", ("games", "partitioned")),
    (
        "audit",
        ("stages", "pipeline", "results", "verdicts", "findings", "policy", "harm", "comparison"),
    ),
    ("report", ("report",)),
    ("command line", ("cli",)),
    ("contract checks", ("testing",)),
)
ABOVE_ALL = {"synthleak", "synthleak.datasets"}


def floor_of(module: str, floors: tuple[tuple[str, tuple[str, ...]], ...] = FLOORS) -> int | None:
    """The index of ``module``'s floor in ``floors`` (``None`` when no floor names it)."""
    parts = module.split(".")
    top = parts[1] if len(parts) > 1 else ""
    for i, (_, members) in enumerate(floors):
        if top in members:
            return i
    return None


def upward_imports(
    root: Path,
    floors: tuple[tuple[str, tuple[str, ...]], ...] = FLOORS,
    above: set[str] = ABOVE_ALL,
) -> list[str]:
    """Imports from a lower floor to a higher one (function-level ones included), and modules
    that no floor names."""
    paths = {_module_name(p, root): p for p in root.rglob("*.py")}
    known = set(paths)
    problems = []
    for m, path in sorted(paths.items()):
        if m in above:
            continue
        f = floor_of(m, floors)
        if f is None:
            problems.append(f"{m} is on no floor: add it to FLOORS")
            continue
        for d in sorted(_imports(path, known, root)):
            g = floor_of(d, floors)
            if d not in above and g is not None and g > f:
                problems.append(f"{m} ({floors[f][0]}) imports {d} ({floors[g][0]})")
    return problems


def test_imports_only_point_down() -> None:
    problems = upward_imports(SRC)
    assert not problems, "imports that point up a floor:\n" + "\n".join(problems)


def test_the_direction_check_finds_an_upward_import(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "low.py").write_text("def f():\n    from pkg import high\n")
    (pkg / "high.py").write_text("import pkg.low\n")
    (pkg / "stray.py").write_text("")
    floors = (("low", ("low",)), ("high", ("high",)))
    assert upward_imports(pkg, floors, {"pkg"}) == [
        "pkg.low (low) imports pkg.high (high)",
        "pkg.stray is on no floor: add it to FLOORS",
    ]


_FLAG = re.compile(r"(?<![\w-])--[a-z][a-z-]*")
_ERRORS = {"InputError", "MissingExtraError"}


def _error_texts(path: Path) -> list[tuple[int, str]]:
    """``(line, text)`` of the string parts of every ``InputError``/``MissingExtraError`` call."""
    out: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Call):
            continue
        name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
        if name not in _ERRORS:
            continue
        for sub in ast.walk(node):
            if isinstance(sub, ast.Constant) and isinstance(sub.value, str):
                out.append((node.lineno, sub.value))
    return out


def _flag_hits(root: Path) -> list[str]:
    hits = []
    for path in sorted(root.rglob("*.py")):
        if "cli" in path.relative_to(root).parts:
            continue
        for line, text in _error_texts(path):
            if _FLAG.search(text):
                hits.append(f"{path.relative_to(root)}:{line}: {text!r}")
    return hits


def test_api_errors_name_parameters_not_command_line_flags() -> None:
    """Outside ``cli/`` an error names the API parameter (``n_queries``), never a flag.

    The command line translates parameters to its flags (``cli.common.flag_message``); a Python
    caller told to "raise --aux-size" has no such flag to raise.
    """
    hits = _flag_hits(SRC)
    assert not hits, "API errors that speak command-line flags:\n" + "\n".join(hits)


def test_the_flag_check_finds_a_flag(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text(
        'from synthleak.errors import InputError\nraise InputError(f"raise --aux-size to {1}")\n'
    )
    (tmp_path / "cli").mkdir()
    (tmp_path / "cli" / "c.py").write_text('raise InputError("use --aux-size")\n')
    assert _flag_hits(tmp_path) == ["m.py:2: 'raise --aux-size to '"]


def test_nothing_in_the_package_imports_the_contract_checks() -> None:
    """``synthleak.testing`` sits above every layer: it is for users' and the project's tests."""
    paths = {_module_name(p, SRC): p for p in SRC.rglob("*.py")}
    known = set(paths)
    users = sorted(
        m
        for m, p in paths.items()
        if not m.startswith("synthleak.testing")
        and any(d.startswith("synthleak.testing") for d in _imports(p, known, SRC))
    )
    assert not users, f"modules importing synthleak.testing: {users}"


def test_every_audit_stage_is_a_module_of_its_own() -> None:
    """Each stage of the audit is ``synthleak.stages.<name>.STAGE``: its module is named after it
    and holds no other stage, so adding a stage is its module plus one line of the stage list."""
    import synthleak.pipeline as pipeline

    for st in pipeline.STAGES:
        module = importlib.import_module(f"synthleak.stages.{st.name}")
        assert module.STAGE is st, st.name
        assert st.run.__module__ == module.__name__, st.name
    modules = {p.stem for p in (SRC / "stages").glob("*.py")} - {"__init__", "base"}
    assert modules == {st.name for st in pipeline.STAGES}


#: The most lines a module or a function's body (its docstring left out) may hold.
MAX_MODULE_LINES, MAX_FUNCTION_LINES = 1_500, 150


def oversized(root: Path) -> list[str]:
    """Modules over :data:`MAX_MODULE_LINES` lines, and functions whose body (without its
    docstring) is over :data:`MAX_FUNCTION_LINES` lines with no ``# long: reason`` comment on the
    line above their ``def`` (or their first decorator)."""
    out = []
    for path in sorted(root.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines()
        rel = path.relative_to(root).as_posix()
        if len(lines) > MAX_MODULE_LINES:
            out.append(f"{rel}: {len(lines)} lines")
        for node in ast.walk(ast.parse(text)):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                body = body[1:]
            if not body or body[-1].end_lineno - body[0].lineno + 1 <= MAX_FUNCTION_LINES:
                continue
            first = min([node.lineno] + [d.lineno for d in node.decorator_list])
            above = lines[first - 2].strip() if first >= 2 else ""
            if not re.match(r"# long: \S", above):
                out.append(
                    f"{rel}:{node.lineno}: {node.name} has a body over {MAX_FUNCTION_LINES} lines"
                )
    return out


def test_no_module_or_function_is_oversized() -> None:
    problems = oversized(SRC)
    assert not problems, "split these, or say why beside the def (# long: ...):\n" + "\n".join(
        problems
    )


def test_the_size_check_finds_a_long_function(tmp_path: Path) -> None:
    body = "".join(f"    x{i} = {i}\n" for i in range(MAX_FUNCTION_LINES + 1))
    (tmp_path / "a.py").write_text(f'def f():\n    """Doc."""\n{body}')
    (tmp_path / "b.py").write_text(f"# long: a table of constants\ndef g():\n{body}")
    assert oversized(tmp_path) == [f"a.py:1: f has a body over {MAX_FUNCTION_LINES} lines"]
