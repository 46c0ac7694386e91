"""Folders of tables for the commands' ``--relational`` tests."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from tests.cli.test_audit_cmds import SDV_METADATA
from tests.games.person_parts import parts, replay


def replay_folders(d: Path, seed: int, n_control: int, *, others: bool = False) -> dict[str, Path]:
    """Folders of tables (person, visit) under ``d`` of a release that replays the original's
    histories under new keys, with the control's and the metadata describing them
    (``meta``, ``original``, ``synthetic``, ``control``); with ``others``, also a release of
    other people's histories (``others``: the null oracle, as many persons as the original)."""
    original, control, other_people = parts(seed, n_control=n_control)
    out = {"meta": d / "metadata.json"}
    out["meta"].write_text(json.dumps(SDV_METADATA))
    written = [
        ("original", original),
        ("synthetic", replay(original, 9000)),
        ("control", control),
    ]
    if others:
        written.append(("others", other_people))
    for name, data in written:
        out[name] = d / name
        out[name].mkdir()
        for table, frame in data.frames.items():
            frame.to_csv(out[name] / f"{table}.csv", index=False)
    return out


def resampler_spec(d: Path, monkeypatch: pytest.MonkeyPatch, prefix: str) -> str:
    """The ``python:`` spec of the resampling relational generator of
    tests/generators/test_relational.py (training persons drawn with replacement, whole
    histories), importable from ``d`` for the test's duration."""
    from tests.generators.test_relational import USER_MODULE

    name = f"{prefix}_{d.name.replace('-', '_')}"
    (d / f"{name}.py").write_text(USER_MODULE)
    monkeypatch.syspath_prepend(str(d))
    return f"python:{name}:Resampler"


def break_folder(folder: Path, change: str) -> None:
    """Break the tables of ``folder`` in place: ``missing`` removes the visit table, ``orphan``
    points the first visit at person 123456, who does not exist."""
    visit = folder / "visit.csv"
    if change == "missing":
        visit.unlink()
    elif change == "orphan":
        frame = pd.read_csv(visit)
        frame.loc[0, "pid"] = 123456
        frame.to_csv(visit, index=False)
    else:
        raise ValueError(f"unknown change {change!r}")
