"""Attack families, the membership-attack interface and the attack registry.

Every attack follows the estimator lifecycle: ``__init__`` stores hyperparameters, ``fit``
returns ``self``, fitted attributes end in ``_``, using an unfitted attack raises
:class:`~synthleak.errors.NotFittedError`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any

import numpy as np

from synthleak.data.table import Table
from synthleak.errors import InputError


class AttackFamily(str, Enum):
    """What the adversary wants."""

    MEMBERSHIP = "membership"
    ATTRIBUTE = "attribute"
    SINGLING_OUT = "singling-out"
    LINKABILITY = "linkability"


class MembershipAttack(ABC):
    """A shadow-modelling membership attack against one target record.

    ``fit(target, datasets, labels, rng=)`` learns from synthetic shadow datasets labelled 1 when
    the target was in the generator's training data; ``score(datasets)`` returns one membership
    score per synthetic dataset (higher means more likely IN; a probability where possible).

    References
    ----------
    Meeus et al., "Achilles' heels: vulnerable record identification in synthetic data
    publishing", 000_d116d896359e1fe6.txt §2.3 and §3 (shadow modelling).
    """

    name: str = ""

    @abstractmethod
    def fit(
        self,
        target: Table,
        datasets: Sequence[Table],
        labels: np.ndarray,
        *,
        rng: np.random.Generator,
    ) -> MembershipAttack:
        """Learn from shadow synthetic ``datasets`` and their IN/OUT ``labels``; returns self."""

    @abstractmethod
    def score(self, datasets: Sequence[Table]) -> np.ndarray:
        """Membership score of the target for every synthetic dataset."""

    @staticmethod
    def _check_fit_input(
        target: Table, datasets: Sequence[Table], labels: np.ndarray
    ) -> np.ndarray:
        y = np.asarray(labels).astype(np.int64)
        if len(target) != 1:
            raise InputError(f"a membership attack targets one record, got {len(target)}")
        if len(datasets) != y.size:
            raise InputError(f"{len(datasets)} shadow datasets but {y.size} labels")
        if set(np.unique(y).tolist()) != {0, 1}:
            raise InputError("shadow labels must contain both IN (1) and OUT (0) datasets")
        return y


@dataclass(frozen=True)
class AttackInfo:
    """Registry entry for an attack."""

    name: str
    family: AttackFamily
    factory: Callable[..., Any]
    doc: str = ""
    extra: str | None = None


_ATTACKS: dict[tuple[AttackFamily, str], AttackInfo] = {}


def register_attack(info: AttackInfo) -> AttackInfo:
    """Register an attack; a duplicate (family, name) raises ``ValueError``."""
    key = (info.family, info.name)
    if key in _ATTACKS:
        raise ValueError(f"a {info.family.value} attack named {info.name!r} is already registered")
    _ATTACKS[key] = info
    return info


def list_attacks(family: AttackFamily | None = None) -> list[AttackInfo]:
    """Registered attacks, optionally of one family, sorted by name."""
    return sorted(
        (i for i in _ATTACKS.values() if family is None or i.family is family), key=lambda i: i.name
    )


def make_attack(family: AttackFamily, name: str, **params: Any) -> Any:
    """An unfitted attack of ``family`` called ``name``."""
    info = _ATTACKS.get((family, name))
    if info is None:
        known = ", ".join(i.name for i in list_attacks(family)) or "none"
        raise InputError(f"unknown {family.value} attack {name!r}: choose one of {known}")
    return info.factory(**params)
