"""``check_generator`` passes a generator that keeps the contract and names the clause a broken
one breaks (one broken generator per clause)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from synthleak.constraints import Interval, constraints
from synthleak.data.table import Table
from synthleak.generators.base import BaseGenerator
from synthleak.testing import GENERATOR_CLAUSES, ContractError, check_generator, contract_table


class Resampler(BaseGenerator):
    """Draws training records with replacement: keeps the contract."""

    def fit(self, table: Table, *, rng: np.random.Generator) -> Any:
        self.schema_, self.table_ = table.schema, table
        return self

    def sample(self, n: int, *, rng: np.random.Generator) -> Table:
        self._check_fitted()
        self._check_n(n)
        return self.table_.take(rng.integers(0, len(self.table_), int(n)))


class UndeclaredParameter(Resampler):
    """Takes a ``bins`` it declares no constraint for."""

    def __init__(self, bins: int = 20) -> None:
        super().__init__()
        self.bins = bins


class ChecksNothing(UndeclaredParameter):
    """Declares ``bins`` but its ``fit`` skips the declared checks (a hand-made wrapper)."""

    _parameter_constraints = constraints(bins=Interval(int, 1, None))


ChecksNothing.fit = Resampler.fit.__wrapped__  # type: ignore[attr-defined]


class NoNotFitted(Resampler):
    def sample(self, n: int, *, rng: np.random.Generator) -> Table:
        if getattr(self, "table_", None) is None:
            return contract_table().take(np.arange(int(n)))
        return super().sample(n, rng=rng)


class FitReturnsNone(Resampler):
    def fit(self, table: Table, *, rng: np.random.Generator) -> Any:
        super().fit(table, rng=rng)
        return None


class OutOfRange(Resampler):
    def sample(self, n: int, *, rng: np.random.Generator) -> Table:
        out = super().sample(n, rng=rng)
        values = out.values.copy()
        values[:, 0] = np.float32(1e6)
        return Table(out.schema, out.codes, values)


class ZeroFails(Resampler):
    def sample(self, n: int, *, rng: np.random.Generator) -> Table:
        if n == 0:
            raise ValueError("no records asked for")
        return super().sample(n, rng=rng)


class TakesNegativeN(Resampler):
    def sample(self, n: int, *, rng: np.random.Generator) -> Table:
        self._check_fitted()
        return self.table_.take(rng.integers(0, len(self.table_), max(int(n), 0)))


class Unseeded(Resampler):
    def sample(self, n: int, *, rng: np.random.Generator) -> Table:
        return super().sample(n, rng=np.random.default_rng())


class ModifiesItsInput(Resampler):
    def fit(self, table: Table, *, rng: np.random.Generator) -> Any:
        table.codes[0, 0] = (table.codes[0, 0] + 1) % table.schema.categorical[0].size
        return super().fit(table, rng=rng)


def test_a_generator_that_keeps_the_contract_passes_and_is_not_fitted() -> None:
    gen = Resampler()
    check_generator(gen)
    assert gen.schema_ is None  # the check fits copies


@pytest.mark.parametrize(
    ("generator", "clause"),
    [
        (object(), "is a generator"),
        (UndeclaredParameter(), "constraints declare every parameter"),
        (ChecksNothing(), "an invalid value raises InputError"),
        (NoNotFitted(), "sample before fit raises NotFittedError"),
        (FitReturnsNone(), "fit returns self"),
        (OutOfRange(), "output keeps the training schema"),
        (ZeroFails(), "sample(0) is an empty table with the schema"),
        (TakesNegativeN(), "a negative n raises InputError"),
        (Unseeded(), "same rng, same output"),
        (ModifiesItsInput(), "fit does not modify the training table"),
    ],
)
def test_a_broken_generator_fails_its_clause(generator: Any, clause: str) -> None:
    with pytest.raises(ContractError) as info:
        check_generator(generator)
    assert info.value.clause == clause and clause in str(info.value)
    assert clause in GENERATOR_CLAUSES


class DataFrameClass:
    """A DataFrame synthesizer: a generator through its ``python:`` spec, not as an object."""

    def fit(self, df: Any) -> Any:
        self.df = df
        return self

    def sample(self, n: int) -> Any:
        return self.df.sample(n, replace=True)


def test_a_dataframe_class_is_sent_to_its_spec() -> None:
    with pytest.raises(ContractError, match="python:module:Class") as info:
        check_generator(DataFrameClass())
    assert info.value.clause == "is a generator"
    check_generator("python:tests.testing.test_generators:DataFrameClass")


def test_a_declared_nondeterministic_generator_skips_the_same_rng_clause() -> None:
    check_generator(Unseeded(), deterministic=False)
    gen = Unseeded()
    gen.deterministic = False  # type: ignore[attr-defined]
    check_generator(gen)


def test_a_spec_string_is_made_fresh_for_every_fit() -> None:
    check_generator("indhist")
    with pytest.raises(ContractError, match="'output keeps the training schema'"):
        check_generator("python:tests.testing.test_generators:OutOfRange")


def test_contract_table_is_a_fresh_mixed_table() -> None:
    a, b = contract_table(), contract_table()
    assert a.equals(b) and a.codes is not b.codes and len(a) == 150
    assert {c.has_missing for c in a.schema.columns} == {True, False}
