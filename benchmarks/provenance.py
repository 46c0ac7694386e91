"""Provenance of benchmark results: one folder layout and one header for every results file.

Every results file is ``benchmarks/results/<study>/<name>.json`` and carries a ``provenance``
block: the synthleak version, the git commit of the code that ran (and whether the work tree had
uncommitted changes), the exact command line, the machine (cores, memory, CPU model), the
library versions and the start and end dates (UTC).

Usage::

    from benchmarks.provenance import Provenance

    prov = Provenance.start()              # at the start of main()
    ...
    path = prov.write("table2", "census_baynet_4000", doc)   # adds doc["provenance"]
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import platform
import shlex
import subprocess
import sys
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

#: The repository root (the parent of ``benchmarks/``).
ROOT = Path(__file__).resolve().parents[1]
#: Where every results file goes: ``RESULTS / <study> / <name>.json``.
RESULTS = ROOT / "benchmarks" / "results"

_PACKAGES = ("synthleak", "numpy", "pandas", "scipy", "scikit-learn", "numba", "torch")


def _git(*args: str) -> str | None:
    try:
        out = subprocess.run(
            ["git", "-C", str(ROOT), *args], capture_output=True, text=True, timeout=20, check=True
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip()


def _memory_bytes() -> int | None:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return None


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def machine() -> dict[str, Any]:
    """Cores, memory, CPU model, OS and Python of this machine."""
    mem = _memory_bytes()
    return {
        "cores": os.cpu_count(),
        "memory_gib": round(mem / 2**30, 1) if mem else None,
        "cpu": _cpu_model(),
        "os": platform.platform(),
        "python": platform.python_version(),
        "hostname": platform.node(),
    }


def versions() -> dict[str, str]:
    out = {}
    for pkg in _PACKAGES:
        try:
            out[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            continue
    return out


def _now() -> str:
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")


@dataclass
class Provenance:
    """What ran, where and when; :meth:`write` stamps it into a results file."""

    command: str
    started: str
    git_commit: str | None
    git_dirty: bool | None
    machine: dict[str, Any]
    versions: dict[str, str]
    extra: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def start(cls, argv: list[str] | None = None) -> Provenance:
        """Record the command line (``sys.argv`` by default) and the code's git state now."""
        args = list(sys.argv if argv is None else argv)
        if args and args[0].endswith(".py"):
            mod = Path(args[0]).resolve()
            try:  # show the module form the scripts are meant to be run with
                rel = mod.relative_to(ROOT).with_suffix("")
                args[0] = "python -m " + ".".join(rel.parts)
            except ValueError:
                args[0] = "python " + args[0]
        status = _git("status", "--porcelain", "--untracked-files=no")
        return cls(
            command=" ".join([args[0], *(shlex.quote(a) for a in args[1:])]) if args else "",
            started=_now(),
            git_commit=_git("rev-parse", "HEAD"),
            git_dirty=None if status is None else bool(status),
            machine=machine(),
            versions=versions(),
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "synthleak_version": self.versions.get("synthleak"),
            "git_commit": self.git_commit,
            "git_dirty": self.git_dirty,
            "command": self.command,
            "started": self.started,
            "finished": _now(),
            "machine": self.machine,
            "versions": self.versions,
            **self.extra,
        }

    def write(
        self, study: str, name: str, doc: dict[str, Any], *, root: Path | None = None
    ) -> Path:
        """Write ``doc`` with a ``provenance`` block to ``<root>/<study>/<name>.json``."""
        if not study or "/" in study or not name or "/" in name:
            raise ValueError(f"study and name must be plain names, got {study!r} and {name!r}")
        path = (root or RESULTS) / study / f"{name}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        out = {"provenance": self.to_dict(), **{k: v for k, v in doc.items() if k != "provenance"}}
        path.write_text(json.dumps(out, indent=1, default=_default, allow_nan=True) + "\n")
        return path


def _default(o: Any) -> Any:
    import numpy as np

    if isinstance(o, np.integer):
        return int(o)
    if isinstance(o, np.floating):
        return float(o)
    if isinstance(o, np.ndarray):
        return o.tolist()
    if isinstance(o, Path):
        return str(o)
    raise TypeError(f"not JSON serialisable: {type(o).__name__}")
