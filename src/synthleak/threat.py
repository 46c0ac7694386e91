"""The threat model: what the adversary wants, knows of the generator, and knows of the data.

The report's "Assumptions" section is written from these objects, one per attack, so every risk
figure states the attacker it assumes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Protocol


class AdversaryGoal(str, Enum):
    """What the adversary wants to learn."""

    MEMBERSHIP = "membership"
    ATTRIBUTE = "attribute"
    SINGLING_OUT = "singling-out"
    LINKABILITY = "linkability"


class GeneratorAccess(str, Enum):
    """What the adversary knows of the generator."""

    NO_BOX = "no-box"
    BLACK_BOX = "black-box"


_GOAL_TEXT = {
    AdversaryGoal.MEMBERSHIP: (
        "tell whether a given real person's record was used to train the generator"
    ),
    AdversaryGoal.ATTRIBUTE: (
        "infer a secret attribute of a real person from attributes they already know"
    ),
    AdversaryGoal.SINGLING_OUT: "isolate one real person with a description that fits nobody else",
    AdversaryGoal.LINKABILITY: "link two pieces of information about the same real person",
}
_ACCESS_TEXT = {
    GeneratorAccess.NO_BOX: "sees only the released synthetic data (not the generator)",
    GeneratorAccess.BLACK_BOX: (
        "knows the generation method and can run it on data of their own (shadow modelling)"
    ),
}


@dataclass(frozen=True)
class ThreatModel:
    """An attack's assumptions in three explicit parts.

    Attributes
    ----------
    goal : AdversaryGoal
    generator_access : GeneratorAccess
    data_knowledge : str
        What the adversary knows of the data, in plain words (auxiliary data, quasi-identifiers).
    details : dict
        Machine-readable specifics (sizes, columns).
    """

    goal: AdversaryGoal
    generator_access: GeneratorAccess
    data_knowledge: str
    details: dict[str, Any] = field(default_factory=dict)

    def assumptions(self) -> list[str]:
        """The assumptions in plain words, one sentence each."""
        return [
            f"The attacker wants to {_GOAL_TEXT[self.goal]}.",
            f"The attacker {_ACCESS_TEXT[self.generator_access]}.",
            f"The attacker knows {self.data_knowledge}.",
        ]

    def to_dict(self) -> dict[str, Any]:
        return {
            "goal": self.goal.value,
            "generator_access": self.generator_access.value,
            "data_knowledge": self.data_knowledge,
            "details": self.details,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> ThreatModel:
        return cls(
            AdversaryGoal(d["goal"]),
            GeneratorAccess(d["generator_access"]),
            d["data_knowledge"],
            dict(d.get("details", {})),
        )


class _Family(Protocol):
    """What a threat model takes from an attack family
    (:class:`synthleak.attacks.base.AttackFamily`)."""

    @property
    def goal(self) -> AdversaryGoal: ...

    @property
    def access(self) -> GeneratorAccess: ...


#: What the attacker knows of the data in each game the audit plays, one sentence each (after
#: "The attacker knows"); ``{name}`` fields are filled by :func:`threat_model`.
KNOWLEDGE: dict[str, str] = {
    "membership": (
        "the target record, and {aux_size} auxiliary records from the same population to "
        "train shadow models on datasets of {train_size} records"
    ),
    "membership_exact": (
        "the target record and every other record of the training data (exact knowledge, the "
        "worst case a differential-privacy guarantee covers), to train shadow models on "
        "datasets of {train_size} records"
    ),
    "riskmap": "the target record and records of the same population to train shadow models on",
    "person_shadow": (
        "the target person (their root row and all their child rows), and {aux_size} "
        "auxiliary persons from the same population to train shadow models on datasets of "
        "{train_size} persons"
    ),
    "nobox_membership": (
        "the candidate records whose membership they test, the released synthetic data, and "
        "real records of the same population known not to be in the training data"
    ),
    "release_membership": (
        "the candidate records whose membership they test, the released synthetic data, and "
        "shadow releases of the same generator with the records each was trained on"
    ),
    "copies": "the released synthetic data and the record (or value) they look for",
    "singling_out": (
        "nothing but the synthetic data; success means a predicate drawn from it matches "
        "exactly one real person"
    ),
    "linkability": (
        "two separate pieces of information about each target: columns {aux_a} and columns {aux_b}"
    ),
    "attribute_release": (
        "the quasi-identifiers of every training record (not their secret '{secret}') and the "
        "released synthetic data"
    ),
    "attribute_sweep": (
        "the other columns of every training record (not their '{secret}') and the released "
        "synthetic data"
    ),
    "attribute_game": (
        "the quasi-identifiers of every record of the training data, including the target's, "
        "but not the target's secret '{secret}'"
    ),
}


def threat_model(
    family: _Family,
    game: str,
    details: Mapping[str, Any] | None = None,
    **values: Any,
) -> ThreatModel:
    """The threat model of an attack family's adversary in one of the audit's games.

    The goal and the generator access are the family's (``AttackFamily.goal``, ``.access``), so
    a finding cannot claim an access its attacks do not use; what the attacker knows of the
    data is the game's sentence in :data:`KNOWLEDGE`, filled with ``values``; ``details`` are
    the machine-readable specifics.
    """
    return ThreatModel(
        family.goal, family.access, KNOWLEDGE[game].format(**values), dict(details or {})
    )
