"""The secret of attribute inference: its success rule, checks and discrete codes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from tests.games.attribute_tables import numeric_population, population_table, split_release

import synthleak
from synthleak.data.profile import infer_schema
from synthleak.data.release import Release
from synthleak.data.table import Table
from synthleak.errors import InputError
from synthleak.games.attribute import AttributeGame
from synthleak.games.attribute_release import ReleaseAttributeGame
from synthleak.games.secret import (
    SecretRule,
    attribute_codes,
    discretise,
    singleton_rows,
    validate_secret,
)


@pytest.fixture(scope="module")
def population() -> Table:
    return population_table()


def test_discretise_and_singleton_rows(population: Table) -> None:
    codes, schema = discretise(population, 5)
    assert codes.shape == (len(population), len(population.schema))
    assert all(c.is_categorical for c in schema.columns)
    assert codes[:, population.schema.names.index("age")].max() <= 4
    np.testing.assert_array_equal(
        singleton_rows(np.array([[1, 2], [1, 2], [3, 4]])), [False, False, True]
    )
    prep = attribute_codes(population, "s", bins=4)
    assert prep.quasi_ids == [f"q{j}" for j in range(6)] + ["age"]
    assert prep.n_classes == 2 and prep.labels == ["0", "1"] and prep.codes.shape[1] == 8


def test_unique_rows_has_one_meaning_in_the_package() -> None:
    # "unique_rows" is the de-duplication of attacks.predicates; the attribute game's mask of
    # rows that occur once is singleton_rows
    src = Path(synthleak.__file__).parent
    defs = [p for p in src.rglob("*.py") if "def unique_rows(" in p.read_text()]
    assert [p.name for p in defs] == ["predicates.py"]


# --- validate_secret --------------------------------------------------------------------------
def test_validate_secret(population: Table) -> None:
    sch = population.schema
    assert validate_secret(sch, "s") == [f"q{j}" for j in range(6)] + ["age"]
    assert validate_secret(sch, "s", ["q1", "q0"]) == ["q1", "q0"]
    cases = [
        (("nope",), {}, "secret 'nope' is not a column"),
        (("age",), {}, "numeric column: state when a guess counts as right"),
        (("s",), {"rule": SecretRule(bins=3)}, "'s' is categorical: secret_tolerance"),
        (("s",), {"left_out": {"s": "an identifier"}}, "left out as an identifier"),
        (("s", ["q0", "s"]), {}, "cannot also be a quasi-identifier"),
        (("s", ["q0", "zz"]), {}, "quasi_ids names unknown column"),
        (("s", ["q0", "q0"]), {}, "listed twice"),
        (("q0",), {"max_classes": 5}, "6 classes, more than the 5"),
    ]
    for args, kw, match in cases:
        with pytest.raises(InputError, match=match):
            validate_secret(sch, *args, **kw)
    one = pd.DataFrame({"a": ["x", "y", "z"], "s": ["k", "k", "k"]})
    with pytest.raises(InputError, match="single value"):
        validate_secret(infer_schema(one), "s")
    # a declared second category that the data never takes
    sch2 = infer_schema(pd.DataFrame({"a": ["x", "y", "z"], "s": ["j", "k", "k"]}))
    two = Table.from_frame(one, sch2)
    assert validate_secret(sch2, "s") == ["a"]
    with pytest.raises(InputError, match="single value"):
        validate_secret(sch2, "s", data=two)


# --- numeric secrets ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({}, "needs a success rule"),
        ({"tolerance": 1.0, "bins": 4}, "not both"),
        ({"tolerance": -2.0}, "must be positive, got -2"),
        ({"tolerance": 0.0}, "must be positive"),
        ({"tolerance": float("nan")}, "positive number"),
        ({"tolerance": "5"}, "positive number"),
        ({"tolerance": 1.0, "kind": "relative"}, "accepts a guess of 0 for every value"),
        ({"tolerance": 1.0, "kind": "sideways"}, "tolerance_kind must be absolute or relative"),
        ({"bins": 1}, "secret_bins must be a whole number from 2"),
        ({"bins": 50}, "secret_bins must be a whole number from 2"),
        ({"bins": 2.5}, "secret_bins must be a whole number from 2"),
    ],
)
def test_secret_rule_bad_input(kwargs: dict, match: str) -> None:
    with pytest.raises(InputError, match=match):
        SecretRule(**kwargs)


def test_secret_rule_hits_and_constant_guess() -> None:
    v = np.array([10.0, 20.0, 30.0, np.nan])
    absolute, relative = SecretRule(tolerance=5), SecretRule(tolerance=0.1, kind="relative")
    assert absolute.hits(np.array([14.0, 26.0, 30.0, np.nan]), v).tolist() == [
        True,
        False,
        True,
        True,
    ]
    assert relative.hits(np.array([11.0, 22.5, 27.0, 1.0]), v).tolist() == [
        True,
        False,
        True,
        False,
    ]
    # the best constant guess: 20 is within 10 of three of the four values
    assert SecretRule(tolerance=10).constant_rate(v) == pytest.approx(0.75)
    assert SecretRule(bins=4).mode == "bin" and relative.mode == "relative"
    assert "10.0%" in relative.describe() and "5" in absolute.describe()
    # the clause after "right when" reads as a sentence under either rule
    assert SecretRule(bins=5).success() == "the guess names the right one of 5 quantile bins"
    assert absolute.success() == f"the guess is {absolute.describe()}"


def test_numeric_secret_bad_input() -> None:
    table = numeric_population(400)
    train, control, other = split_release(table, 200, 100, 0)
    release = Release(train, other, control)
    with pytest.raises(InputError, match="numeric column: state when"):
        ReleaseAttributeGame("income").run(release, seed=0)
    with pytest.raises(InputError, match="single value"):
        ReleaseAttributeGame("zero", secret_rule=SecretRule(bins=4)).run(release, seed=0)
    with pytest.raises(InputError, match="meaningless for 'income'"):
        ReleaseAttributeGame("income", secret_rule=SecretRule(tolerance=1e6)).run(release, seed=0)
    with pytest.raises(InputError, match="meaningless"):
        AttributeGame(
            "indhist", "income", secret_rule=SecretRule(tolerance=0.99, kind="relative")
        ).run(table, seed=0)
    with pytest.raises(InputError, match="numeric column"):
        AttributeGame("indhist", "income").run(table, seed=0)
