from __future__ import annotations

import numpy as np
import pytest

from synthleak import InputError, Table
from synthleak.attacks.base import (
    AttackFamily,
    AttackInfo,
    MembershipAttack,
    list_attacks,
    make_attack,
    register_attack,
)


def test_every_family_has_registered_attacks() -> None:
    import synthleak.attacks.aia_dcr
    import synthleak.attacks.aia_inference
    import synthleak.attacks.aia_reconstruction
    import synthleak.attacks.singling_out  # noqa: F401
    from synthleak.games.membership import load_membership_attacks

    load_membership_attacks()

    names = {f: {i.name for i in list_attacks(f)} for f in AttackFamily}
    assert {"query", "distance", "groundhog"} <= names[AttackFamily.MEMBERSHIP]
    assert {"recon", "dcr", "infer"} <= names[AttackFamily.ATTRIBUTE]
    assert {"univariate", "multivariate"} <= names[AttackFamily.SINGLING_OUT]


def test_duplicates_and_unknown_names() -> None:
    info = AttackInfo("_dup_test", AttackFamily.LINKABILITY, dict)
    register_attack(info)
    with pytest.raises(ValueError, match="already registered"):
        register_attack(info)
    assert make_attack(AttackFamily.LINKABILITY, "_dup_test") == {}
    with pytest.raises(InputError, match="unknown linkability attack"):
        make_attack(AttackFamily.LINKABILITY, "nope")


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
