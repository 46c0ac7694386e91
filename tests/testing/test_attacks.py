"""``check_attack`` passes an attack that keeps its family's contract and names the clause a
broken one breaks (one broken attack per clause)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from synthleak.attacks.base import NoBoxMembershipAttack
from synthleak.constraints import Interval, constraints
from synthleak.data.table import Table
from synthleak.errors import InputError, check_fitted
from synthleak.testing import ATTACK_CLAUSES, ContractError, check_attack
from synthleak.testing.attacks import ADAPTERS


class ExactMatch(NoBoxMembershipAttack):
    """Scores a candidate 1 when the release holds a copy of it: keeps the contract."""

    name = "exact-match"
    _parameter_constraints = constraints(weight=Interval(float, 0, None, closed="neither"))

    def __init__(self, weight: float = 1.0) -> None:
        self.weight = weight
        self.keys_: set[Any] | None = None

    def fit(self, synthetic: Table, reference: Table, *, rng: np.random.Generator) -> Any:
        self.keys_ = set(synthetic.row_keys().tolist())
        return self

    def score(self, records: Table) -> np.ndarray:
        check_fitted(self, "keys_")
        assert self.keys_ is not None
        keys = self.keys_
        return self.weight * np.array([float(k in keys) for k in records.row_keys().tolist()])


class FittedInInit(ExactMatch):
    def __init__(self, weight: float = 1.0) -> None:
        super().__init__(weight)
        self.keys_ = set()


class NoNotFitted(ExactMatch):
    def score(self, records: Table) -> np.ndarray:
        if self.keys_ is None:
            return np.zeros(len(records))
        return super().score(records)


class FitReturnsNone(ExactMatch):
    def fit(self, synthetic: Table, reference: Table, *, rng: np.random.Generator) -> Any:
        super().fit(synthetic, reference, rng=rng)
        return None


class IntegerScores(ExactMatch):
    def score(self, records: Table) -> np.ndarray:
        return super().score(records).astype(np.int64)


class Unseeded(ExactMatch):
    def score(self, records: Table) -> np.ndarray:
        return super().score(records) + np.random.default_rng().random(len(records))


class Reversed(ExactMatch):
    """Higher for non-members: scores oriented the wrong way round."""

    def score(self, records: Table) -> np.ndarray:
        return -super().score(records)


class ByPosition(ExactMatch):
    """Reads membership off the candidates' order (a leak of the labels, not of the release)."""

    def score(self, records: Table) -> np.ndarray:
        super().score(records)
        return np.linspace(1.0, 0.0, len(records))


class Faint(ExactMatch):
    """Sees a copy faintly: only a third of the copied members score."""

    def score(self, records: Table) -> np.ndarray:
        s = super().score(records)
        return np.where(np.arange(len(s)) % 3 == 0, s, 0.0)


class NotAnAttack:
    family = "nobox-membership"


class UndeclaredParameter(ExactMatch):
    """Takes a ``floor`` it declares no constraint for."""

    def __init__(self, weight: float = 1.0, floor: float = 0.0) -> None:
        super().__init__(weight)
        self.floor = floor


class ChecksNothing(ExactMatch):
    """Declares ``weight`` but its ``fit`` skips the declared checks (a hand-made wrapper)."""


ChecksNothing.fit = ExactMatch.fit.__wrapped__  # type: ignore[attr-defined]


def test_an_attack_that_keeps_the_contract_passes_and_is_not_fitted() -> None:
    attack = ExactMatch()
    check_attack(attack)
    assert attack.keys_ is None  # the check fits copies


@pytest.mark.parametrize(
    ("attack", "clause"),
    [
        (NotAnAttack(), "is an attack of a family"),
        (UndeclaredParameter(), "constraints declare every parameter"),
        (ChecksNothing(), "an invalid value raises InputError"),
        (FittedInInit(), "__init__ stores hyperparameters only"),
        (NoNotFitted(), "use before fit raises NotFittedError"),
        (FitReturnsNone(), "fit returns self"),
        (IntegerScores(), "output has the family's type and shape"),
        (Unseeded(), "same rng, same output"),
        (Reversed(), "a copy gives a strong signal"),
        (ByPosition(), "independent data gives the baseline"),
    ],
)
def test_a_broken_attack_fails_its_clause(attack: Any, clause: str) -> None:
    with pytest.raises(ContractError) as info:
        check_attack(attack)
    assert info.value.clause == clause and clause in str(info.value)
    assert clause in ATTACK_CLAUSES


def test_oracles_can_be_left_out_and_weak_attacks_say_why() -> None:
    check_attack(Reversed(), oracles=False)
    with pytest.raises(ContractError, match="'a copy gives a strong signal'"):
        check_attack(Faint())
    check_attack(Faint(), weak_on_copies="one member in three is scored")
    with pytest.raises(ContractError, match="weak on copies: a reason"):
        check_attack(Reversed(), weak_on_copies="a reason")
    with pytest.raises(InputError, match="weak_on_copies"):
        check_attack(ExactMatch(), weak_on_copies=True)  # type: ignore[arg-type]


def test_every_family_has_an_adapter() -> None:
    assert {a.family for a in ADAPTERS.values()} == set(ADAPTERS)
    for adapter in ADAPTERS.values():
        assert adapter.independent_at_most < adapter.copy_at_least
