"""Attack families, their contracts, and the one attack registry.

An attack family fixes what an adversary receives and what it returns (its contract); the game of
that family feeds it. Every attack follows the estimator lifecycle (scikit-learn's): ``__init__``
only stores hyperparameters, ``fit(...)`` returns ``self``, fitted attributes end in ``_``, and
using an attack before ``fit`` raises :class:`~synthleak.errors.NotFittedError`.

====================  =============================================================================
family                contract
====================  =============================================================================
``membership``        black-box shadow modelling against one target record:
                      ``fit(target, datasets, labels, *, rng)``, ``score(datasets) -> (n,)``;
                      attacks that compare the target with population records
                      (:class:`PopulationMembershipAttack`) also get ``population=`` real
                      records of the attacker's population (:func:`fit_membership`)
``nobox-membership``  the release and a reference sample of real non-members:
                      ``fit(synthetic, reference, *, rng)``, ``score(records) -> (n,)``
``attribute``         quasi-identifiers of the training data, a release, target rows:
                      ``fit(quasi_ids, sizes, *, rng)``,
                      ``score(syn_quasi_ids, syn_secret, targets, n_classes, *, rng) -> (k, C)``
``singling-out``      the release only: ``fit(synthetic, *, rng)``,
                      ``predicates(n, *, rng) -> PredicateSet``
``linkability``       the release only: ``fit(synthetic, *, rng)``, ``links(targets) -> bool (n,)``
====================  =============================================================================

Scores are oriented the same way everywhere: higher means "more likely a member" (membership) or
"more likely this class" (attribute).

Attacks are registered once, by the module that defines them (:func:`register_attack`); importing
:mod:`synthleak.attacks` registers every built-in attack. Games resolve the attacks they are given
with :func:`resolve_attack`, which accepts a registered name or an unfitted attack object, the
same way in every game.
"""

from __future__ import annotations

import copy
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from synthleak.constraints import Constrained
from synthleak.data.table import Table
from synthleak.errors import InputError
from synthleak.threat import AdversaryGoal, GeneratorAccess

if TYPE_CHECKING:
    from synthleak.attacks.predicates import PredicateSet


class AttackFamily(StrEnum):
    """The contract an attack implements (what it receives and returns)."""

    MEMBERSHIP = "membership"
    NOBOX_MEMBERSHIP = "nobox-membership"
    ATTRIBUTE = "attribute"
    SINGLING_OUT = "singling-out"
    LINKABILITY = "linkability"

    @property
    def goal(self) -> AdversaryGoal:
        """What the adversary of this family wants."""
        return {
            AttackFamily.MEMBERSHIP: AdversaryGoal.MEMBERSHIP,
            AttackFamily.NOBOX_MEMBERSHIP: AdversaryGoal.MEMBERSHIP,
            AttackFamily.ATTRIBUTE: AdversaryGoal.ATTRIBUTE,
            AttackFamily.SINGLING_OUT: AdversaryGoal.SINGLING_OUT,
            AttackFamily.LINKABILITY: AdversaryGoal.LINKABILITY,
        }[self]

    @property
    def access(self) -> GeneratorAccess:
        """What the adversary of this family knows of the generator."""
        return (
            GeneratorAccess.BLACK_BOX if self is AttackFamily.MEMBERSHIP else GeneratorAccess.NO_BOX
        )


class Attack(Constrained, ABC):
    """Root of every attack: a registered ``name`` and the ``family`` contract it implements.

    Hyperparameter constraints are declared in ``_parameter_constraints`` and checked when
    ``fit`` starts (:class:`synthleak.constraints.Constrained`).
    """

    name: ClassVar[str] = ""
    family: ClassVar[AttackFamily]


class MembershipAttack(Attack):
    """A shadow-modelling membership attack against one target record.

    ``fit(target, datasets, labels, rng=)`` learns from synthetic shadow datasets labelled 1 when
    the target was in the generator's training data; ``score(datasets)`` returns one membership
    score per synthetic dataset (higher means more likely IN; a probability where possible).

    References
    ----------
    Meeus et al. (2023), Sec. 2.3 and Sec. 3 (shadow modelling).
    """

    family = AttackFamily.MEMBERSHIP
    fixed_threshold: ClassVar[float | None] = None
    """An unfitted attack's own rule, fixed before any release is seen: a score above it calls
    the release IN. The epsilon audit tests such a rule on every test dataset
    (:func:`synthleak.metrics.epsilon.empirical_epsilon`, ``fixed_rules``)."""

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
            raise InputError(f"target must be one record, got {len(target)}")
        if len(datasets) != y.size:
            raise InputError(
                f"datasets has {len(datasets)} shadow datasets but labels has {y.size}"
            )
        if set(np.unique(y).tolist()) != {0, 1}:
            raise InputError("labels must contain both IN (1) and OUT (0) datasets")
        return y


class PopulationMembershipAttack(MembershipAttack):
    """A shadow-modelling membership attack that also compares the target with population records.

    ``fit`` takes, besides the shadow datasets, ``population``: real records of the attacker's
    population, none of them the target (the game passes the auxiliary data its shadow datasets
    are drawn from). Games give it with :func:`fit_membership`; a game that has no such records
    cannot run the attack and says so.
    """

    @abstractmethod
    def fit(
        self,
        target: Table,
        datasets: Sequence[Table],
        labels: np.ndarray,
        *,
        rng: np.random.Generator,
        population: Table | None = None,
    ) -> PopulationMembershipAttack:
        """Learn from shadow ``datasets``, their IN/OUT ``labels`` and ``population`` records."""


class KnownRecordsMembershipAttack(MembershipAttack):
    """A membership attack that also uses the other training records, known to the attacker.

    ``fit`` takes, besides the shadow datasets, ``known``: the training records of every IN and
    OUT dataset other than the target, and under substitution ``other``: the record that takes
    the target's place in OUT datasets. Only a game with exact knowledge (the worst case of a DP
    audit) has them to give (:func:`fit_membership`).
    """

    @abstractmethod
    def fit(
        self,
        target: Table,
        datasets: Sequence[Table],
        labels: np.ndarray,
        *,
        rng: np.random.Generator,
        known: Table | None = None,
        other: Table | None = None,
    ) -> KnownRecordsMembershipAttack:
        """Learn from shadow ``datasets``, their ``labels`` and the ``known`` training records."""


def needs_known_records(attack: Attack) -> bool:
    """Whether ``attack`` can only run where the attacker knows the other training records."""
    return isinstance(attack, KnownRecordsMembershipAttack)


def fit_membership(
    attack: MembershipAttack,
    target: Table,
    datasets: Sequence[Table],
    labels: np.ndarray,
    *,
    rng: np.random.Generator,
    population: Table | None,
    known: Table | None = None,
    other: Table | None = None,
) -> MembershipAttack:
    """Fit a membership attack, giving ``population`` to the attacks that take it, and the
    ``known`` training records (and the replacing ``other`` record) to those that take them."""
    if isinstance(attack, KnownRecordsMembershipAttack):
        if known is None:
            raise InputError(
                f"the {attack.name or type(attack).__name__} attack uses the other training "
                "records, which only an attacker with exact knowledge has: run the game with "
                "knowledge='exact' or choose another attack"
            )
        return attack.fit(target, datasets, labels, rng=rng, known=known, other=other)
    if isinstance(attack, PopulationMembershipAttack):
        if population is None or len(population) == 0:
            raise InputError(
                f"the {attack.name or type(attack).__name__} attack compares the target with "
                "population records, and this game has none to give: choose another attack"
            )
        return attack.fit(target, datasets, labels, rng=rng, population=population)
    return attack.fit(target, datasets, labels, rng=rng)


class NoBoxMembershipAttack(Attack):
    """A membership attack that sees only the release and a reference sample of real records.

    ``fit(synthetic, reference, rng=)`` learns from the synthetic data and from real records of
    the same population known not to be in the training data; ``score(records)`` returns one
    score per candidate record, higher meaning "more likely in the training data".
    """

    family = AttackFamily.NOBOX_MEMBERSHIP

    @abstractmethod
    def fit(
        self, synthetic: Table, reference: Table, *, rng: np.random.Generator
    ) -> NoBoxMembershipAttack:
        """Learn from the release and the reference records; returns self."""

    @abstractmethod
    def score(self, records: Table) -> np.ndarray:
        """Membership score of every candidate record (higher: more likely a member)."""


class AttributeAttack(Attack):
    """An attribute-inference attack on discrete codes (secret randomised by the game).

    ``fit(quasi_ids, sizes, rng=)`` receives the quasi-identifiers ``X`` (codes, one row per
    training record, secret excluded) and the domain size of every quasi-identifier;
    ``score(syn_quasi_ids, syn_secret, targets, n_classes, rng=)`` receives the release (its
    quasi-identifiers and secret column) and the target rows of ``X`` and returns a
    ``(len(targets), n_classes)`` array of class scores (the highest is the guess).
    """

    family = AttackFamily.ATTRIBUTE

    @abstractmethod
    def fit(
        self, quasi_ids: np.ndarray, sizes: np.ndarray, *, rng: np.random.Generator
    ) -> AttributeAttack:
        """Learn what depends on the quasi-identifiers only; returns self."""

    @abstractmethod
    def score(
        self,
        syn_quasi_ids: np.ndarray,
        syn_secret: np.ndarray,
        targets: np.ndarray,
        n_classes: int,
        *,
        rng: np.random.Generator,
    ) -> np.ndarray:
        """Class scores ``(len(targets), n_classes)`` of every target."""


class SinglingOutAttack(Attack):
    """Predicates learnt from the release that should isolate one real person."""

    family = AttackFamily.SINGLING_OUT

    @abstractmethod
    def fit(self, synthetic: Table, *, rng: np.random.Generator) -> SinglingOutAttack:
        """Learn from the synthetic data; returns self."""

    @abstractmethod
    def predicates(self, n: int, *, rng: np.random.Generator) -> PredicateSet:
        """Up to ``n`` distinct predicates that single out one synthetic record each."""

    @property
    @abstractmethod
    def baseline_n_cols(self) -> int:
        """Columns of the random-guess baseline predicates matched to this attack."""


class LinkabilityAttack(Attack):
    """Links two pieces of information about a person through the release."""

    family = AttackFamily.LINKABILITY

    @abstractmethod
    def fit(self, synthetic: Table, *, rng: np.random.Generator) -> LinkabilityAttack:
        """Learn from the synthetic data; returns self."""

    @abstractmethod
    def links(self, targets: Table) -> np.ndarray:
        """Boolean ``(len(targets),)``: the attack links the target's two halves."""


FAMILY_BASE: dict[AttackFamily, type[Attack]] = {
    AttackFamily.MEMBERSHIP: MembershipAttack,
    AttackFamily.NOBOX_MEMBERSHIP: NoBoxMembershipAttack,
    AttackFamily.ATTRIBUTE: AttributeAttack,
    AttackFamily.SINGLING_OUT: SinglingOutAttack,
    AttackFamily.LINKABILITY: LinkabilityAttack,
}


@dataclass(frozen=True)
class AttackInfo:
    """Registry entry of an attack.

    Attributes
    ----------
    name : str
        Registered name, unique within the family.
    family : AttackFamily
    factory : callable
        ``factory(**params)`` returns an unfitted attack.
    doc : str
        One line for ``synthleak attacks`` and the report.
    extra : str, optional
        The optional extra the attack needs (``torch``); the attack is listed but making it raises
        :class:`~synthleak.errors.MissingExtraError` without it.
    references : tuple of str
        Keys of :mod:`synthleak.references`.
    """

    name: str
    family: AttackFamily
    factory: Callable[..., Attack]
    doc: str = ""
    extra: str | None = None
    references: tuple[str, ...] = field(default=())


_ATTACKS: dict[tuple[AttackFamily, str], AttackInfo] = {}


def register_attack(info: AttackInfo) -> AttackInfo:
    """Register an attack; a duplicate (family, name) raises ``ValueError``."""
    key = (info.family, info.name)
    if key in _ATTACKS:
        raise ValueError(f"a {info.family.value} attack named {info.name!r} is already registered")
    _ATTACKS[key] = info
    return info


def _load_builtins() -> None:
    import synthleak.attacks  # noqa: F401  (the package imports every built-in attack module)


def list_attacks(family: AttackFamily | str | None = None) -> list[AttackInfo]:
    """Registered attacks, optionally of one family, sorted by name."""
    _load_builtins()
    fam = None if family is None else AttackFamily(family)
    return sorted(
        (i for i in _ATTACKS.values() if fam is None or i.family is fam), key=lambda i: i.name
    )


def attack_info(family: AttackFamily | str, name: str) -> AttackInfo:
    """The registry entry of ``name`` in ``family``; unknown names get an :class:`InputError`."""
    _load_builtins()
    fam = AttackFamily(family)
    info = _ATTACKS.get((fam, name))
    if info is None:
        known = ", ".join(i.name for i in list_attacks(fam)) or "none"
        raise InputError(f"unknown {fam.value} attack {name!r}: choose one of {known}")
    return info


def make_attack(family: AttackFamily | str, name: str, **params: Any) -> Attack:
    """An unfitted attack of ``family`` called ``name`` with hyperparameters ``params``."""
    info = attack_info(family, name)
    try:
        return info.factory(**params)
    except TypeError as exc:
        raise InputError(f"{info.family.value} attack {name!r}: {exc}") from None


def resolve_attack(
    family: AttackFamily | str, attack: str | Attack, params: dict[str, Any] | None = None
) -> tuple[str, Attack]:
    """``(name, unfitted attack)`` for a registered name or an attack object of ``family``.

    An object is copied (games fit their own copies; the caller's object is never fitted) and
    must implement the family's contract.
    """
    fam = AttackFamily(family)
    if isinstance(attack, str):
        return attack, make_attack(fam, attack, **(params or {}))
    base = FAMILY_BASE[fam]
    if not isinstance(attack, base):
        raise InputError(
            f"attacks must be names of registered {fam.value} attacks or {base.__name__} objects, "
            f"got {type(attack).__name__}"
        )
    if params:
        raise InputError("attack parameters go with attack names; an attack object carries its own")
    name = attack.name or type(attack).__name__
    return name, copy.deepcopy(attack)


def resolve_attacks(
    family: AttackFamily | str,
    attacks: Sequence[str | Attack],
    params: dict[str, dict[str, Any]] | None = None,
) -> list[tuple[str, Attack]]:
    """:func:`resolve_attack` for every entry; an empty list or a repeated name is an error."""
    if isinstance(attacks, str):
        attacks = [attacks]
    if not attacks:
        known = ", ".join(i.name for i in list_attacks(family))
        raise InputError(f"attacks is empty: choose some of {known}", parameter="attacks")
    out = [
        resolve_attack(family, a, (params or {}).get(a) if isinstance(a, str) else None)
        for a in attacks
    ]
    names = [n for n, _ in out]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise InputError(
            f"attacks lists {dup} more than once: list each attack once", parameter="attacks"
        )
    return out
