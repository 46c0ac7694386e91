from __future__ import annotations

import pickle

import pytest

from synthleak.errors import MissingExtraError
from synthleak.testing.contract import ContractError, clause


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
