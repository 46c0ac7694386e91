"""One contract suite over every registered attack of every family (scikit-learn common checks).

Each family has an adapter in ``tests/attacks/contracts/<family>.py`` (how to fit it on a copy and
on independent data, what its output looks like); every attack registered in the package is
picked up from the registry with no test edit:

* construction stores hyperparameters only (no fitted attribute exists before ``fit``);
* the attack implements its family's contract (an instance of the family's base class);
* using it before ``fit`` raises :class:`~synthleak.errors.NotFittedError`;
* ``fit`` returns the attack itself;
* the same ``rng`` gives the same output; the output has the family's type and shape;
* oracles: a release that copies the data gives a strong signal, independent data the baseline.
"""

from __future__ import annotations

import importlib
from pathlib import Path

import numpy as np
import pytest
from tests.attacks.contracts.common import FamilyAdapter

from synthleak.attacks.base import FAMILY_BASE, list_attacks, make_attack
from synthleak.errors import NotFittedError

_HERE = Path(__file__).resolve().parent / "contracts"
ADAPTERS: dict[str, FamilyAdapter] = {}
for _path in sorted(_HERE.glob("*.py")):
    if _path.stem == "common":
        continue
    _mod = importlib.import_module(f"tests.attacks.contracts.{_path.stem}")
    ADAPTERS[_mod.ADAPTER.family.value] = _mod.ADAPTER

# the package's own attacks (test modules may register throw-away ones)
INFOS = [
    i
    for i in list_attacks()
    if getattr(i.factory, "__module__", "").startswith("synthleak.") and i.family.value in ADAPTERS
]
IDS = [f"{i.family.value}:{i.name}" for i in INFOS]


def _adapter(info) -> FamilyAdapter:  # type: ignore[no-untyped-def]
    adapter = ADAPTERS[info.family.value]
    reason = adapter.skip(info.name)
    if reason:
        pytest.skip(reason)
    return adapter


def _make(info, adapter: FamilyAdapter):  # type: ignore[no-untyped-def]
    return make_attack(info.family, info.name, **adapter.params(info.name))


@pytest.fixture(params=INFOS, ids=IDS)
def info(request: pytest.FixtureRequest):  # type: ignore[no-untyped-def]
    return request.param


def test_construction_stores_parameters_only(info) -> None:  # type: ignore[no-untyped-def]
    adapter = _adapter(info)
    attack = _make(info, adapter)
    fitted = [k for k, v in vars(attack).items() if k.endswith("_") and v is not None]
    assert not fitted, f"{info.name} sets fitted attributes in __init__: {fitted}"
    assert isinstance(attack, FAMILY_BASE[info.family])
    assert attack.family is info.family


def test_use_before_fit_raises(info) -> None:  # type: ignore[no-untyped-def]
    adapter = _adapter(info)
    with pytest.raises(NotFittedError):
        adapter.output(_make(info, adapter), "copy", np.random.default_rng(0))


def test_fit_returns_self_and_same_rng_same_output(info) -> None:  # type: ignore[no-untyped-def]
    adapter = _adapter(info)
    outs = []
    for _ in range(2):
        attack = _make(info, adapter)
        assert adapter.fit(attack, "copy", np.random.default_rng(7)) is attack
        out = adapter.output(attack, "copy", np.random.default_rng(8))
        adapter.check_output(out, "copy")
        outs.append(out)
    assert adapter.same(outs[0], outs[1])


@pytest.mark.parametrize("case", ["copy", "independent"])
def test_oracles(info, case: str) -> None:  # type: ignore[no-untyped-def]
    adapter = _adapter(info)
    attack = _make(info, adapter)
    adapter.fit(attack, case, np.random.default_rng(3))
    value = adapter.signal(info.name, adapter.output(attack, case, np.random.default_rng(4)), case)
    if case == "copy":
        bar = (
            adapter.independent_at_most
            if info.name in adapter.weak_on_copies
            else adapter.copy_at_least
        )
        assert value >= bar, f"{info.name}: {value:.3f} on a copy"
    else:
        assert value <= adapter.independent_at_most, f"{info.name}: {value:.3f} on independent data"


def test_every_family_has_an_adapter_and_every_builtin_attack_is_covered() -> None:
    """A new family (or an attack of one) cannot slip past the suite for want of an adapter."""
    from synthleak.attacks.base import AttackFamily

    assert set(ADAPTERS) == {f.value for f in AttackFamily}
    builtin = [
        i for i in list_attacks() if getattr(i.factory, "__module__", "").startswith("synthleak.")
    ]
    assert builtin and {(i.family, i.name) for i in builtin} == {(i.family, i.name) for i in INFOS}
    assert {i.family for i in builtin} == set(AttackFamily)
