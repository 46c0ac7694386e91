"""Null and leak oracles for the singling-out and linkability games on real datasets.

Shared by ``tests/games/test_singling_out.py``, ``tests/games/test_linkability.py`` and
``benchmarks/calibration_singling_out.py``. A population is a real dataset of
``../shared/datasets`` (read at run time, never copied); one draw splits it at random into
disjoint parts:

* ``original`` (``n_original`` rows): the generator's training data;
* ``control`` (``n_control`` rows): real records the generator never saw;
* ``oracle_control`` (``n_original`` rows): a control as large as the original, which defines
  the equal-size truth of a leak;
* ``independent`` (``n_original`` rows): a "synthetic" release that is a disjoint real sample, so
  nothing can leak (the null oracle).

Leak oracles: ``copy`` (the release is the original) and ``noisy`` (every cell of the original
is replaced, with probability ``p``, by the same column's cell of a random original record).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

import synthleak as sl
from synthleak.data.table import Table

COMPAS_COLUMNS = [
    "sex",
    "age",
    "race",
    "juv_fel_count",
    "juv_misd_count",
    "juv_other_count",
    "priors_count",
    "c_charge_degree",
    "decile_score",
    "score_text",
    "v_decile_score",
    "two_year_recid",
    "days_b_screening_arrest",
]
DATASETS = ("adult", "acs", "acs-2years", "census", "compas", "census-dup", "german")


def load_population(name: str, directory: Path) -> Table:
    """A real dataset as an encoded table (``census-dup``: 11 census columns, 72 % of the rows
    of a 2,000-row sample repeat another row; ``acs-2years``: the 2019 and 2018 ACS excerpts of
    Massachusetts pooled)."""
    d = Path(directory)
    if name == "adult":
        df = pd.read_csv(d / "adult.csv.gz", na_values="?")
    elif name == "acs":
        df = pd.read_csv(d / "nist_acs_ma2019.csv", na_values="N")
    elif name == "acs-2years":  # Massachusetts 2019 and 2018 pooled (14,878 rows)
        years = [pd.read_csv(d / f"nist_acs_ma{y}.csv", na_values="N") for y in (2019, 2018)]
        df = pd.concat(years, ignore_index=True)
    elif name in ("census", "census-dup"):
        df = pd.read_csv(d / "uk_census2011_teaching_50k.csv").drop(columns=["Person ID"])
        df = df.astype(str)  # every column is a code
        if name == "census-dup":
            df = df.iloc[:, :11]
    elif name == "compas":
        df = pd.read_csv(d / "compas_two_years_noids.csv")[COMPAS_COLUMNS]
    elif name == "german":
        df = pd.read_csv(d / "german_credit.csv")
    else:
        raise ValueError(f"unknown dataset {name!r}: one of {DATASETS}")
    return Table.from_frame(df, sl.infer_schema(df))


@dataclass(frozen=True)
class Draw:
    original: Table
    control: Table
    oracle_control: Table
    independent: Table


def draw(population: Table, n_original: int, n_control: int, rng: np.random.Generator) -> Draw:
    """Disjoint random parts of ``population`` (see the module docstring)."""
    need = 3 * n_original + n_control
    if need > len(population):
        raise ValueError(f"{need} rows needed, the population has {len(population)}")
    idx = rng.permutation(len(population))
    cut = np.cumsum([n_original, n_control, n_original, n_original])
    o, c, oc, ind = np.split(idx[: cut[-1]], cut[:-1])
    return Draw(population.take(o), population.take(c), population.take(oc), population.take(ind))


def noisy_copy(table: Table, p: float, rng: np.random.Generator) -> Table:
    """``table`` with each cell replaced, with probability ``p``, by the same column's cell of
    a random row (a release that copies most of every record)."""
    n = len(table)
    codes, values = table.codes.copy(), table.values.copy()
    for m in (codes, values):
        for j in range(m.shape[1]):
            sel = np.flatnonzero(rng.random(n) < p)
            m[sel, j] = m[rng.integers(0, n, sel.size), j]
    return Table.from_arrays(table.schema, codes, values)


def release(d: Draw, scenario: str, rng: np.random.Generator) -> Table:
    """The synthetic data of a scenario: ``null``, ``copy`` or ``noisy<p>`` (e.g. ``noisy0.1``)."""
    if scenario == "null":
        return d.independent
    if scenario == "copy":
        return d.original
    if scenario.startswith("noisy"):
        return noisy_copy(d.original, float(scenario[5:]), rng)
    raise ValueError(f"unknown scenario {scenario!r}")
