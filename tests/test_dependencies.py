"""Meta-test: every third-party package the code imports is declared in pyproject.toml.

A module-level import runs on ``import synthleak``, so its package must be a core dependency; an
import inside a function may come from an optional extra (the code then raises
MissingExtraError). A package that is installed only by accident on a developer's machine passes
every other test there and breaks a clean install, so this is checked on the source, not by
importing.
"""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "synthleak"


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _requirement_names(reqs: list[str]) -> set[str]:
    """Distribution names a requirement list brings in directly, extras' names included
    (``dask[distributed]`` brings ``dask`` and ``distributed``)."""
    names: set[str] = set()
    for req in reqs:
        m = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[([^\]]*)\])?", req)
        assert m, req
        names.add(_norm(m.group(1)))
        names |= {_norm(e) for e in (m.group(2) or "").split(",") if e.strip()}
    return names


def _imports(tree: ast.Module) -> tuple[set[str], set[str]]:
    """Top-level package names imported at module level and inside functions or classes."""
    module_level: set[str] = set()
    nested: set[str] = set()

    def visit(node: ast.AST, inside: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Import | ast.ImportFrom):
                if isinstance(child, ast.ImportFrom) and (child.level or not child.module):
                    continue
                names = (
                    [a.name for a in child.names]
                    if isinstance(child, ast.Import)
                    else [child.module]
                )
                (nested if inside else module_level).update(n.split(".")[0] for n in names if n)
            elif isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                continue  # typing-only imports never run
            else:
                visit(
                    child,
                    inside
                    or isinstance(
                        child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda
                    ),
                )

    visit(tree, False)
    return module_level, nested


def _third_party(names: set[str]) -> set[str]:
    return {n for n in names if n not in sys.stdlib_module_names and n != "synthleak"}


#: Files that run in another Python environment, never in synthleak's: their imports are that
#: environment's (made by ``synthleak env create``, whose pins the README lists).
OTHER_ENVIRONMENTS = {
    "generators/env_adapters.py": "run by the env: worker in dpmm's / SmartNoise's environment",
}


def test_every_imported_package_is_declared() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    core = _requirement_names(project["dependencies"])
    extras = set().union(
        *(_requirement_names(r) for r in project["optional-dependencies"].values())
    )
    dists = packages_distributions()

    def declared(module: str, allowed: set[str]) -> bool:
        return any(_norm(d) in allowed for d in dists.get(module, [module]))

    undeclared: list[str] = []
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC).as_posix()
        module_level, nested = _imports(ast.parse(path.read_text(), filename=rel))
        for mod in sorted(_third_party(module_level)):
            if not declared(mod, core):
                undeclared.append(f"{rel}: module-level import {mod!r} is not a core dependency")
        if rel in OTHER_ENVIRONMENTS:
            nested = set()
        for mod in sorted(_third_party(nested) - module_level):
            if not declared(mod, core | extras):
                undeclared.append(
                    f"{rel}: import {mod!r} is in neither the dependencies nor an extra"
                )
    assert not undeclared, "\n".join(undeclared)


def test_the_check_sees_module_level_and_nested_imports() -> None:
    tree = ast.parse(
        "import numba as nb\nfrom scipy import sparse\nfrom . import x\n"
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import mbi\n"
        "def f():\n    import torch\n    from dask.distributed import Client\n"
    )
    module_level, nested = _imports(tree)
    assert _third_party(module_level) == {"numba", "scipy"}
    assert _third_party(nested) == {"torch", "dask"}
    assert _requirement_names(["dask[distributed]>=2024.1", "scikit_learn>=1.4"]) == {
        "dask",
        "distributed",
        "scikit-learn",
    }
