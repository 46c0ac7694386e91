"""Shared fixtures: the bundled Adult table, small mixed tables and the ../shared datasets."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import synthleak as sl

REPO = Path(__file__).resolve().parents[1]


def shared_datasets_dir() -> Path:
    """``../shared/datasets`` beside the repository (or $SYNTHLEAK_SHARED_DATASETS)."""
    env = os.environ.get("SYNTHLEAK_SHARED_DATASETS")
    return Path(env) if env else REPO.parent / "shared" / "datasets"


@pytest.fixture(scope="session")
def shared_datasets() -> Path:
    path = shared_datasets_dir()
    if not path.is_dir():
        pytest.skip(f"shared datasets not found at {path}")
    return path


@pytest.fixture(scope="session")
def adult_df() -> pd.DataFrame:
    return sl.datasets.load_adult()


@pytest.fixture(scope="session")
def adult_table(adult_df: pd.DataFrame) -> sl.Table:
    return sl.Table.from_frame(adult_df, sl.infer_schema(adult_df))


@pytest.fixture(scope="session")
def adult_1000(adult_table: sl.Table) -> sl.Table:
    """1,000 Adult records (fixed seed)."""
    return adult_table.sample(1000, rng=np.random.default_rng(0))


def make_mixed_frame(n: int, rng: np.random.Generator, *, missing: bool = False) -> pd.DataFrame:
    """A small random mixed-type frame: 3 categorical and 2 continuous columns."""
    df = pd.DataFrame(
        {
            "colour": rng.choice(["red", "green", "blue"], n),
            "size": rng.choice(["S", "M", "L", "XL"], n),
            "flag": rng.integers(0, 2, n),
            "height": rng.normal(170, 10, n).round(1),
            "weight": rng.integers(40, 120, n).astype(float),
        }
    )
    if missing:
        df.loc[rng.random(n) < 0.1, "colour"] = np.nan
        df.loc[rng.random(n) < 0.1, "height"] = np.nan
    return df


@pytest.fixture
def mixed_frame() -> pd.DataFrame:
    return make_mixed_frame(200, np.random.default_rng(42), missing=True)


@pytest.fixture
def temporary_generators(monkeypatch: pytest.MonkeyPatch):
    """Register throw-away generators for one test only (the registry is restored after it).

    Usage: ``temporary_generators(GeneratorInfo("name", Class, (), "doc"), ...)``.
    """
    from synthleak.generators import base

    def register(*infos: object) -> None:
        for info in infos:
            monkeypatch.setitem(base._REGISTRY, info.name, info)  # type: ignore[attr-defined]

    return register


@pytest.fixture(scope="module")
def split(adult_table: sl.Table) -> tuple[sl.Table, sl.Table, sl.Table]:
    """Three disjoint 1,000-record samples of Adult (original, control, other people): the
    inputs of the audit's stage tests and of ``audit()``'s."""
    rng = np.random.default_rng(5)
    rows = rng.choice(len(adult_table), 3000, replace=False)
    return (
        adult_table.take(rows[:1000]),
        adult_table.take(rows[1000:2000]),
        adult_table.take(rows[2000:]),
    )
