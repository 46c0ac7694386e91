from __future__ import annotations

import numpy as np
import pytest

from synthleak import InputError, Table
from synthleak.attacks import base
from synthleak.attacks.base import (
    AttackFamily,
    AttackInfo,
    MembershipAttack,
    list_attacks,
    make_attack,
    register_attack,
    resolve_attack,
    resolve_attacks,
)
from synthleak.threat import AdversaryGoal, GeneratorAccess


def test_every_family_has_registered_attacks() -> None:
    names = {f: {i.name for i in list_attacks(f)} for f in AttackFamily}
    assert {"query", "distance", "groundhog", "attention"} <= names[AttackFamily.MEMBERSHIP]
    assert {"recon", "dcr", "infer"} <= names[AttackFamily.ATTRIBUTE]
    assert {"univariate", "multivariate"} <= names[AttackFamily.SINGLING_OUT]


def test_families_map_to_their_threat_model() -> None:
    assert AttackFamily.MEMBERSHIP.access is GeneratorAccess.BLACK_BOX
    assert AttackFamily.NOBOX_MEMBERSHIP.access is GeneratorAccess.NO_BOX
    assert AttackFamily.NOBOX_MEMBERSHIP.goal is AdversaryGoal.MEMBERSHIP
    assert {f.goal for f in AttackFamily} == set(AdversaryGoal)


def test_duplicates_and_unknown_names(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(base, "_ATTACKS", dict(base._ATTACKS))  # restored after the test
    info = AttackInfo("_dup_test", AttackFamily.LINKABILITY, dict)
    register_attack(info)
    with pytest.raises(ValueError, match="already registered"):
        register_attack(info)
    assert make_attack(AttackFamily.LINKABILITY, "_dup_test") == {}
    with pytest.raises(InputError, match="unknown linkability attack"):
        make_attack(AttackFamily.LINKABILITY, "nope")
    with pytest.raises(InputError, match="unknown membership attack 'nope'"):
        make_attack("membership", "nope")


def test_resolve_accepts_names_and_objects_the_same_way() -> None:
    from synthleak.attacks.mia_distance import DistanceAttack

    obj = DistanceAttack(n_estimators=3)
    (n1, a1), (n2, a2) = resolve_attacks(
        AttackFamily.MEMBERSHIP, ["query", obj], {"query": {"n_queries": 7}}
    )
    assert (n1, n2) == ("query", "distance") and a1.n_queries == 7
    assert a2 is not obj and a2.n_estimators == 3  # a copy: the caller's object is never fitted
    with pytest.raises(InputError, match="more than once"):
        resolve_attacks(AttackFamily.MEMBERSHIP, ["distance", obj])
    with pytest.raises(InputError, match="MembershipAttack objects"):
        resolve_attack(AttackFamily.MEMBERSHIP, 42)  # type: ignore[arg-type]
    with pytest.raises(InputError, match="carries its own"):
        resolve_attack(AttackFamily.MEMBERSHIP, obj, {"n_estimators": 2})
    with pytest.raises(InputError, match="attacks is empty"):
        resolve_attacks(AttackFamily.MEMBERSHIP, [])
    with pytest.raises(InputError, match="n_queries"):
        make_attack(AttackFamily.MEMBERSHIP, "distance", n_queries=5)


def test_fit_input_checks(adult_1000: Table) -> None:
    target = adult_1000.take([0])
    data = [adult_1000.take(np.arange(10))] * 4
    with pytest.raises(InputError, match="one record"):
        MembershipAttack._check_fit_input(adult_1000.take([0, 1]), data, np.array([0, 1, 0, 1]))
    with pytest.raises(InputError, match="labels"):
        MembershipAttack._check_fit_input(target, data, np.array([0, 1]))
    with pytest.raises(InputError, match="both IN"):
        MembershipAttack._check_fit_input(target, data, np.ones(4))
    y = MembershipAttack._check_fit_input(target, data, np.array([0, 1, 1, 0]))
    assert y.tolist() == [0, 1, 1, 0]
