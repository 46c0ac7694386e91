"""``check_generator``: the generator contract, run on any generator or spec string.

The project runs it on every registered generator (``tests/generators/test_contract.py``); run it
on your own (a ``python:`` spec, or an object with ``fit``/``sample``) before a long audit.
"""

from __future__ import annotations

import copy
import inspect
from functools import cache
from typing import Any

import numpy as np
import pandas as pd

from synthleak.data.profile import infer_schema
from synthleak.data.table import Table
from synthleak.errors import InputError, NotFittedError
from synthleak.generators.base import Generator, make_generator
from synthleak.testing.contract import PARAMETER_CLAUSES, ContractError, check_parameters, clause

GENERATOR_CLAUSES = (
    "is a generator",
    *PARAMETER_CLAUSES,
    "sample before fit raises NotFittedError",
    "fit returns self",
    "output keeps the training schema",
    "sample(0) is an empty table with the schema",
    "a negative n raises InputError",
    "same rng, same output",
    "fit does not modify the training table",
)
"""The clauses :func:`check_generator` checks, in order."""


@cache
def _frame() -> pd.DataFrame:
    rng = np.random.default_rng(42)
    n = 150
    colour = rng.choice(["red", "green", "blue"], n).astype(object)
    df = pd.DataFrame(
        {
            "colour": colour,
            "size": np.where(colour == "red", "S", rng.choice(["M", "L", "XL"], n)),
            "flag": rng.integers(0, 2, n),
            "height": rng.normal(170, 10, n).round(1),
            "weight": rng.integers(40, 120, n).astype(float),
        }
    )
    df.loc[rng.random(n) < 0.1, "colour"] = None
    df.loc[rng.random(n) < 0.1, "height"] = np.nan
    return df


def contract_table() -> Table:
    """The training table of the generator contract: 150 records, nullable categorical and
    continuous columns, an integer continuous column and integer categories (a fresh copy)."""
    df = _frame().copy()
    return Table.from_frame(df, infer_schema(df))


def check_output_schema(out: Any, train: Table, n: int) -> None:
    """Assert that ``out`` is ``n`` records of ``train``'s schema with values in its domain."""
    assert isinstance(out, Table), f"sample returned a {type(out).__name__}, not a Table"
    assert len(out) == n, f"sample({n}) returned {len(out)} records"
    schema = train.schema
    assert out.schema == schema, "the output's schema differs from the training schema"
    assert out.codes.shape[1] == len(schema.categorical)
    assert out.values.shape[1] == len(schema.continuous)
    assert out.values.dtype == np.float32, f"values are {out.values.dtype}, not float32"
    for j, col in enumerate(schema.categorical):
        c = out.codes[:, j]
        assert c.min(initial=0) >= 0 and c.max(initial=0) < col.size, (
            f"codes of {col.name!r} outside 0..{col.size - 1}"
        )
    for j, col in enumerate(schema.continuous):
        v = out.values[:, j]
        nan = np.isnan(v)
        assert col.has_missing or not nan.any(), f"missing values in non-nullable {col.name!r}"
        ok = v[~nan]
        assert np.all(ok >= np.float32(col.low)) and np.all(ok <= np.float32(col.high)), (
            f"{col.name!r} outside [{col.low}, {col.high}]"
        )
        assert not col.integer or np.all(ok == np.round(ok)), (
            f"{col.name!r} is an integer column but holds fractions"
        )


def _takes_rng(method: Any) -> bool:
    try:
        params = inspect.signature(method).parameters
    except (TypeError, ValueError):  # no signature to read (a builtin): let the calls decide
        return True
    return "rng" in params or any(p.kind is p.VAR_KEYWORD for p in params.values())


def check_generator(generator: Generator | str, *, deterministic: bool | None = None) -> None:
    """Check that ``generator`` keeps the generator contract; raise on the first broken clause.

    The same checks the project runs on every registered generator: it is a
    :class:`~synthleak.generators.Generator`; its class declares a constraint for each
    constructor parameter (``_parameter_constraints``; a parameter no constraint can state is
    named in ``_unconstrained_parameters`` with the reason) and an invalid value of each makes
    construction or ``fit`` raise :class:`~synthleak.errors.InputError` naming it
    (:func:`synthleak.testing.contract.check_parameters`); ``sample`` before ``fit`` raises
    :class:`~synthleak.errors.NotFittedError`; ``fit`` returns the generator; ``sample(n)``
    returns ``n`` records with the training table's schema, categories and ranges (nullable
    columns only hold missing values); ``sample(0)`` is empty and a negative ``n`` raises
    :class:`~synthleak.errors.InputError`; the same ``rng`` gives the same records (and refitting
    with the same ``rng`` the same model); ``fit`` leaves the training table unchanged. Trained
    on :func:`contract_table` (150 records), so a few seconds for most generators.

    Parameters
    ----------
    generator : Generator or str
        An unfitted generator object (it is copied; the object given is never fitted) or a spec
        string such as ``"python:mypkg.synth:MyGenerator,epochs=2"``.
    deterministic : bool, optional
        ``False`` skips the same-rng clause (a generator whose library cannot be seeded).
        Default: the generator's ``deterministic`` attribute, else ``True``.

    Raises
    ------
    ContractError
        An :class:`AssertionError` naming the broken clause (:data:`GENERATOR_CLAUSES`).
    InputError
        A bad spec string.
    """
    if isinstance(generator, str):
        spec = generator
        make = lambda: make_generator(spec)  # noqa: E731
    else:
        obj = generator
        make = lambda: copy.deepcopy(obj)  # noqa: E731
    first = make()
    who = (
        getattr(first, "spec", "") or generator
        if isinstance(generator, str)
        else f"{type(first).__name__} object"
    )
    if deterministic is None:
        deterministic = bool(getattr(first, "deterministic", True))
    train = contract_table()
    codes, values = train.codes.copy(), train.values.copy()

    with clause(who, "is a generator"):
        assert isinstance(first, Generator), (
            "it has no fit(table, *, rng) and sample(n, *, rng) methods"
        )
        assert _takes_rng(first.fit) and _takes_rng(first.sample), (
            "its fit and sample take no rng keyword: a DataFrame class (fit(df), sample(n)) "
            "is a generator through its spec, check_generator('python:module:Class')"
        )
    check_parameters(first, who, lambda g: g.fit(contract_table(), rng=np.random.default_rng(0)))
    with clause(who, "sample before fit raises NotFittedError"):
        try:
            first.sample(5, rng=np.random.default_rng(0))
        except NotFittedError:
            pass
        else:
            raise AssertionError("sample(5) before fit returned instead of raising")
    with clause(who, "fit returns self"):
        out = first.fit(train, rng=np.random.default_rng(0))
        assert out is first, f"fit returned {type(out).__name__}, not the generator"
    with clause(who, "output keeps the training schema"):
        check_output_schema(first.sample(120, rng=np.random.default_rng(1)), train, 120)
    with clause(who, "sample(0) is an empty table with the schema"):
        check_output_schema(first.sample(0, rng=np.random.default_rng(1)), train, 0)
    with clause(who, "a negative n raises InputError"):
        try:
            first.sample(-1, rng=np.random.default_rng(1))
        except InputError:
            pass
        else:
            raise AssertionError("sample(-1) returned instead of raising")
    if deterministic:
        with clause(who, "same rng, same output"):
            a = first.sample(60, rng=np.random.default_rng(7))
            b = first.sample(60, rng=np.random.default_rng(7))
            assert a.equals(b), "two samples with the same rng differ"
            again = make().fit(contract_table(), rng=np.random.default_rng(0))
            assert again.sample(60, rng=np.random.default_rng(7)).equals(a), (
                "refitting with the same rng gives a different model"
            )
    with clause(who, "fit does not modify the training table"):
        same = np.array_equal(codes, train.codes) and np.array_equal(
            values, train.values, equal_nan=True
        )
        assert same, "the training table's codes or values changed"


__all__ = ["GENERATOR_CLAUSES", "ContractError", "check_generator", "contract_table"]
