from __future__ import annotations

import pickle
from types import MappingProxyType
from typing import Any

import pytest

from synthleak.constraints import (
    Constrained,
    InstanceOf,
    Interval,
    Options,
    SequenceOf,
    allows,
    constraints,
)
from synthleak.errors import InputError, MissingExtraError
from synthleak.testing.contract import (
    PARAMETER_CLAUSES,
    ContractError,
    check_parameters,
    clause,
    constructor_parameters,
    invalid_value,
)


def test_a_contract_error_is_an_assertion_naming_the_clause() -> None:
    err = ContractError("MyAttack attack", "fit returns self", "fit returned None")
    assert isinstance(err, AssertionError)
    assert (
        str(err)
        == "MyAttack attack breaks the contract clause 'fit returns self': fit returned None"
    )
    back = pickle.loads(pickle.dumps(err))
    assert (back.subject, back.clause, back.detail) == (err.subject, err.clause, err.detail)


def test_clause_turns_failures_and_errors_into_contract_errors() -> None:
    with pytest.raises(ContractError, match="'shape'") as info, clause("G", "shape"):
        raise AssertionError("3 columns, not 4")
    assert info.value.clause == "shape" and info.value.detail == "3 columns, not 4"
    with pytest.raises(ContractError, match="raised KeyError") as info, clause("G", "fit"):
        {}["x"]
    assert isinstance(info.value.__cause__, KeyError)
    with clause("G", "nothing wrong"):
        pass


def test_a_missing_extra_is_not_a_breach() -> None:
    with pytest.raises(MissingExtraError), clause("G", "fit returns self"):
        raise MissingExtraError("torch", "torch", "the attention attack")


@pytest.mark.parametrize(
    ("allowed", "expected"),
    [
        (Interval(int, 1, None), 0),
        (Interval(float, 0, 1, closed="neither"), 0),
        (Interval(float, None, 5), 5.5),
        (Interval(int, None, None), 1.5),
        (Options(("a", "b")), "not-one-of-the-options"),
        (InstanceOf(bool), 1.5),
        (SequenceOf(Interval(float, 0, None)), [-0.5]),
        ((Interval(int, 1, None), None), 0),
        ((Interval(int, 1, None), Options((-1,))), 0),
    ],
)
def test_invalid_value_is_just_outside_the_constraint(allowed: Any, expected: Any) -> None:
    value = invalid_value(allowed)
    assert value == expected and not allows(allowed, value)


class Knob(Constrained):
    """One declared parameter, one listed as free with its reason."""

    _parameter_constraints = constraints(k=Interval(int, 1, None))
    _unconstrained_parameters = MappingProxyType({"options": "handed on unread"})

    def __init__(self, k: int = 2, options: dict[str, str] | None = None) -> None:
        self.k, self.options = k, options

    def fit(self) -> Knob:
        return self


class NoReason(Knob):
    _unconstrained_parameters = MappingProxyType({"options": " "})


class StoresUnderAnotherName(Knob):
    def __init__(self, k: int = 2, options: dict[str, str] | None = None) -> None:
        self.degree, self.options = k, options


class VagueError(Knob):
    """Checks by hand in ``__init__``, with a message that names no parameter."""

    def __init__(self, k: int = 2, options: dict[str, str] | None = None) -> None:
        if k < 1:
            raise InputError("something is wrong")
        super().__init__(k, options)


def test_check_parameters_accepts_declared_and_reasoned_parameters() -> None:
    assert constructor_parameters(Knob) == ("k", "options")
    check_parameters(Knob(), "Knob", lambda obj: obj.fit())


@pytest.mark.parametrize(
    ("obj", "clause_name", "detail"),
    [
        (NoReason(), PARAMETER_CLAUSES[0], "give no reason"),
        (StoresUnderAnotherName(), PARAMETER_CLAUSES[1], "stores no attribute"),
        (VagueError(), PARAMETER_CLAUSES[1], "does not name k"),
    ],
)
def test_check_parameters_names_what_is_wrong(obj: Any, clause_name: str, detail: str) -> None:
    with pytest.raises(ContractError, match=detail) as info:
        check_parameters(obj, type(obj).__name__, lambda o: o.fit())
    assert info.value.clause == clause_name
