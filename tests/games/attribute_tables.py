"""Small tables for the attribute-inference tests (test_secret, test_attribute,
test_attribute_release)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from synthleak.data.profile import infer_schema
from synthleak.data.table import Table


def population_table(n: int = 3000, seed: int = 0, classes: int = 2) -> Table:
    rng = np.random.default_rng(seed)
    qi = rng.integers(0, 6, size=(n, 6))
    secret = (qi[:, 0] + qi[:, 1] + rng.integers(0, 2, n)) % classes
    df = pd.DataFrame(qi, columns=[f"q{j}" for j in range(6)]).astype(str)
    df["age"] = rng.random(n) * 80  # continuous quasi-identifier, discretised by the game
    df["s"] = secret.astype(str)
    return Table.from_frame(df, infer_schema(df))


def split_release(
    table: Table, n_train: int, n_control: int, seed: int
) -> tuple[Table, Table, Table]:
    """Disjoint training, control and independent ("synthetic") samples of ``table``."""
    perm = np.random.default_rng(seed).permutation(len(table))
    a, b = n_train, n_train + n_control
    return table.take(perm[:a]), table.take(perm[a:b]), table.take(perm[b : b + n_train])


def numeric_population(n: int = 3000, seed: int = 0) -> Table:
    rng = np.random.default_rng(seed)
    qi = rng.integers(0, 6, size=(n, 6))
    df = pd.DataFrame(qi, columns=[f"q{j}" for j in range(6)]).astype(str)
    df["income"] = np.round(1000 * (qi[:, 0] + qi[:, 1]) + rng.gamma(2.0, 2000.0, n), 0)
    df["zero"] = 0.0
    df["id"] = np.arange(n, dtype=float) * 1.5
    return Table.from_frame(df, infer_schema(df))
