"""Helpers shared by the adapters over third-party generators (ctgan, mbi, external programs).

* :func:`frame_to_table`: a DataFrame produced by someone else's generator, back into a
  :class:`~synthleak.data.table.Table` with the *training* schema: columns matched by name,
  categories mapped by value (``1``, ``"1"`` and ``1.0`` agree), continuous values clipped to the
  schema range and rounded for integer columns, and a clear :class:`GeneratorFailure` for
  anything that cannot be mapped (wrong columns, unknown categories, missing values where the
  schema allows none, non-numeric values in a continuous column).
* :func:`global_seed`: third-party code that draws from the *global* RNGs (``np.random.*``,
  ``random``, ``torch``) is made reproducible by seeding them from our ``rng`` inside a context
  that restores their previous state on exit, so synthleak itself never leaves global random
  state changed.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
import pandas as pd

from synthleak.data.schema import Schema, column_differences
from synthleak.data.table import Table
from synthleak.data.values import column_numbers, numbers_to_datetimes
from synthleak.errors import GeneratorFailure, InputError


def draw_seed(rng: np.random.Generator) -> int:
    """A 31-bit seed for a third-party library, drawn from ``rng``."""
    return int(rng.integers(0, 2**31 - 1))


@contextmanager
def global_seed(seed: int) -> Iterator[None]:
    """Seed numpy's legacy global RNG, ``random`` and (if imported) torch; restore them on exit.

    Parameters
    ----------
    seed : int
        Seed in ``[0, 2**31 - 1)`` (use :func:`draw_seed`).

    Notes
    -----
    Only libraries that draw from global state need this (ctgan draws from ``np.random`` and
    torch's default generator; mbi's sampler draws from ``np.random``). Torch is seeded only when
    it is already imported, so the context never imports it.
    """
    np_state = np.random.get_state()  # noqa: NPY002  (saved to be restored below)
    py_state = random.getstate()
    torch = sys.modules.get("torch")
    torch_state = torch.random.get_rng_state() if torch is not None else None
    np.random.seed(seed)  # noqa: NPY002  (third-party code reads the global RNG)
    random.seed(seed)
    if torch is not None:
        torch.manual_seed(seed)
    try:
        yield
    finally:
        np.random.set_state(np_state)  # noqa: NPY002
        random.setstate(py_state)
        if torch is not None and torch_state is not None:
            torch.random.set_rng_state(torch_state)


def _numeric_categories(categories: tuple[object, ...]) -> bool:
    return all(
        isinstance(c, int | float | np.integer | np.floating) for c in categories
    ) and not any(isinstance(c, bool) for c in categories)


def frame_to_table(df: pd.DataFrame, schema: Schema, *, source: str) -> Table:
    """Encode a generator's output frame with the training ``schema``.

    Parameters
    ----------
    df : DataFrame
        Output of a third-party generator; must have exactly the schema's columns (any order).
    schema : Schema
        The training schema.
    source : str
        Who produced ``df`` (e.g. the command line), named in error messages.

    Returns
    -------
    Table
        Continuous values are clipped to ``[low, high]`` and rounded for integer columns.

    Raises
    ------
    GeneratorFailure
        When the frame cannot be encoded with the schema.
    """
    df = df.rename(columns=str)
    parts = column_differences(schema.names, list(df.columns))
    if parts:
        raise GeneratorFailure(
            f"{source} produced data that does not match the training columns: {'; '.join(parts)}"
        )
    df = df.loc[:, schema.names].copy()
    for col in schema.continuous:  # and datetime columns: datetime64 or ISO text
        v, bad = column_numbers(df[col.name], col)
        if bad.any():
            what = "a value that is not a date," if col.is_datetime else "the non-numeric value"
            raise GeneratorFailure(
                f"{source} wrote {what} {df[col.name][bad].iloc[0]!r} "
                f"in {col.kind.value} column {col.name!r}"
            )
        v = np.clip(v, col.low, col.high)
        if col.integer:
            v = np.clip(np.round(v), np.ceil(col.low), np.floor(col.high))
        df[col.name] = numbers_to_datetimes(v, col) if col.is_datetime else v
    for col in schema.categorical:
        s = df[col.name]
        if _numeric_categories(col.categories) and not pd.api.types.is_numeric_dtype(s):
            num = pd.to_numeric(s, errors="coerce")
            # keep unparseable strings as they are so the error below names them
            df[col.name] = s.astype(object).where(num.isna(), num.astype(object))
    try:
        return Table.from_frame(df, schema)
    except InputError as exc:
        raise GeneratorFailure(
            f"{source} produced data the training schema rejects: {exc}"
        ) from None
