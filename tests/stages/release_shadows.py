"""Small populations and shadow releases for the tests of the release membership game
(:mod:`synthleak.stages.membership_release`) and of the commands that play it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

from synthleak.data.shadow_releases import ShadowRelease, write_shadow_release

Make = Callable[[pd.DataFrame, np.random.Generator], pd.DataFrame]


def population(n: int, seed: int) -> pd.DataFrame:
    """``n`` records: three continuous columns and one categorical."""
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "a": rng.normal(size=n).round(3),
            "b": rng.normal(size=n).round(3),
            "c": rng.choice(list("vwxyz"), n),
            "d": rng.exponential(size=n).round(3),
        }
    )


def copies(train: pd.DataFrame, rng: np.random.Generator) -> pd.DataFrame:
    """A release that publishes its training records, shuffled."""
    return train.iloc[rng.permutation(len(train))].reset_index(drop=True)


def noisy(train: pd.DataFrame, rng: np.random.Generator) -> pd.DataFrame:
    """A release of the training records with noise added and one column shuffled."""
    out = train.reset_index(drop=True).copy()
    out["a"] = (out["a"] + rng.normal(scale=0.5, size=len(out))).round(3)
    out["b"] = rng.permutation(out["b"].to_numpy())
    return out


def shadows(pool: pd.DataFrame, make: Make, *, k: int, size: int, seed: int) -> list[ShadowRelease]:
    """``k`` shadow releases, each ``make`` of ``size`` records drawn from ``pool``."""
    rng = np.random.default_rng(seed)
    out = []
    for j in range(k):
        train = pool.iloc[rng.choice(len(pool), size, replace=False)].reset_index(drop=True)
        out.append(ShadowRelease(f"s{j}", make(train, rng), train))
    return out


def write_case(
    folder: Path, make: Make = copies, *, n_original: int = 300, n_control: int = 500
) -> dict[str, Path]:
    """A release of ``n_original`` records, ``n_control`` control records, 50 candidates and 4
    shadow releases of 800 records (synthleak's layout) under ``folder``; the paths."""
    a, b = 1600 + n_original, 1600 + n_original + n_control
    pop = population(b + 50, 0)
    rng = np.random.default_rng(1)
    paths = {n: folder / f"{n}.csv" for n in ("original", "synthetic", "control", "candidates")}
    pop.iloc[1600:a].to_csv(paths["original"], index=False)
    make(pop.iloc[1600:a], rng).to_csv(paths["synthetic"], index=False)
    pop.iloc[a:b].to_csv(paths["control"], index=False)
    pop.iloc[b:].to_csv(paths["candidates"], index=False)
    for s in shadows(pop.iloc[:1600], make, k=4, size=800, seed=2):
        write_shadow_release(folder / "shadows", s)
    paths["shadows"] = folder / "shadows"
    return paths
