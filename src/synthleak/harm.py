"""What each finding is about: its key, and the harm to people it measures.

A finding's key names the attack and what it measured (``copies.exact``, ``membership.nobox``,
``attribute.sweep.income``): the stages write it, the report and the policy read it, and the JSON
records it as text. The keys that are fixed are the members of :class:`FindingKey`; those that
carry a name are built by :func:`singling_out_key`, :func:`person_singling_out_key`,
:func:`person_attribute_key`, :func:`attribute_game_key` and :func:`sweep_key`. The harm class
of a key (:func:`harm_class`) orders an audit's findings by harm to people
(``verdicts.harm_order``): real people published verbatim, then records singled out, linked or
inferred, then aggregate membership signals.
"""

from __future__ import annotations

from enum import IntEnum, StrEnum


class Harm(IntEnum):
    """The harm a finding shows to people, most harmful first (module docstring)."""

    PUBLISHED = 1
    SINGLED_OUT = 2
    MEMBERSHIP = 3


#: The plain words of each harm class (the report's summary and "How to read").
HARM_MEANING: dict[Harm, str] = {
    Harm.PUBLISHED: "real people published verbatim",
    Harm.SINGLED_OUT: "records singled out, linked or inferred",
    Harm.MEMBERSHIP: "aggregate membership signals",
}


class FindingKey(StrEnum):
    """The key of every finding whose key is fixed: the value ``Finding.key`` holds (and the
    JSON records), named once for the stages that write findings and the report that reads
    them. The keys that carry a name (an attack, a column, a game's size) are built by
    :func:`singling_out_key`, :func:`attribute_game_key` and :func:`sweep_key`."""

    LINKABILITY = "linkability"
    LINKABILITY_PERSONS = "linkability.persons"
    COPIES_EXACT = "copies.exact"
    COPIES_COLUMNS = "copies.columns"
    COPIES_RARE_VALUES = "copies.rare_values"
    MEMBERSHIP_BLACK_BOX = "membership.black_box"
    MEMBERSHIP_NOBOX = "membership.nobox"
    MEMBERSHIP_RISKMAP = "membership.riskmap"
    MEMBERSHIP_PERSON = "membership.person"
    MEMBERSHIP_RELEASE = "membership.release"
    COPIES_PERSON_HISTORY = "copies.person_history"
    COPIES_PERSON_ROWS = "copies.person_rows"
    MEMBERSHIP_PERSON_SHADOW = "membership.person_shadow"
    ATTRIBUTE_RELEASE = "attribute.recon.release"


def singling_out_key(attack: str) -> str:
    """The key of the singling-out finding of ``attack`` (``univariate``, ...)."""
    return f"singling_out.{attack}"


def person_singling_out_key(attack: str) -> str:
    """The key of the singling-out finding of persons (relational release) of ``attack``."""
    return f"singling_out.persons.{attack}"


def person_attribute_key(secret: str) -> str:
    """The key of the attribute-inference finding of persons' ``secret`` (relational release)."""
    return f"attribute.persons.{secret}"


def attribute_game_key(attack: str, synthetic_size: int) -> str:
    """The key of the attribute game's finding of ``attack`` on releases of ``synthetic_size``."""
    return f"attribute.{attack}.m{synthetic_size}"


def sweep_key(column: str) -> str:
    """The key of the attribute sweep's finding of ``column`` as the secret."""
    return f"attribute.sweep.{column}"


#: Copy findings whose copies are real people's whole records (or a person's whole history of
#: child rows in a relational release): significant, they read severe whatever the rate (module
#: docstring).
PEOPLE_COPIES = frozenset({FindingKey.COPIES_EXACT, FindingKey.COPIES_PERSON_HISTORY})
#: What each of :data:`PEOPLE_COPIES` publishes of a person, in the singular and the plural.
PUBLISHED_WORDS = {
    FindingKey.COPIES_EXACT: ("record", "records"),
    FindingKey.COPIES_PERSON_HISTORY: (
        "whole history of child rows",
        "whole histories of child rows",
    ),
}


def harm_class(key: str) -> Harm:
    """The harm class of a finding's key: ``copies.*``, then ``membership.*`` as aggregate
    signals; every other attack (singling out, linkability, attribute inference) singles out,
    links or infers records."""
    if key.startswith("copies."):
        return Harm.PUBLISHED
    if key.startswith("membership."):
        return Harm.MEMBERSHIP
    return Harm.SINGLED_OUT
