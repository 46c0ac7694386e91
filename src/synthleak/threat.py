"""The threat model: what the adversary wants, knows of the generator, and knows of the data.

The report's "Assumptions" section is written from these objects, one per attack, so every risk
figure states the attacker it assumes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any


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
