"""What a family adapter gives the attack contract suite (``tests/attacks/test_contract.py``).

One module per attack family in this folder defines ``ADAPTER = FamilyAdapter(...)``; the suite
imports every module here, so a family's adapter is written once and every attack registered in
that family is held to the contract with no test edit.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from synthleak.attacks.base import Attack, AttackFamily


@dataclass(frozen=True)
class FamilyAdapter:
    """How to exercise the attacks of one family.

    Attributes
    ----------
    family : AttackFamily
    params : callable
        ``params(name) -> dict``: small, fast hyperparameters for the attack ``name``.
    fit : callable
        ``fit(attack, case, rng) -> return value of attack.fit(...)`` on the data of ``case``
        (``"copy"``: the release copies the data; ``"independent"``: it carries no information).
    output : callable
        ``output(fitted_attack, case, rng) -> output`` (scores, predicates, links), computed
        deterministically from ``rng``.
    check_output : callable
        ``check_output(output, case)``: asserts types and shapes.
    same : callable
        ``same(a, b) -> bool``: two outputs are identical.
    signal : callable
        ``signal(name, output, case) -> float``: the family's strength of attack (AUC, risk, ...).
    copy_at_least, independent_at_most : float
        Oracle thresholds on ``signal``: a copy gives a strong signal, independent data the
        baseline.
    skip : callable
        ``skip(name) -> str | None``: a reason to skip an attack (a missing optional extra).
    weak_on_copies : dict of str to str
        Attacks that see a copy only faintly by design, with the reason: on a copy they must
        beat ``independent_at_most`` (a signal the independent case cannot reach), not
        ``copy_at_least``.
    """

    family: AttackFamily
    params: Callable[[str], dict[str, Any]]
    fit: Callable[[Attack, str, np.random.Generator], Any]
    output: Callable[[Attack, str, np.random.Generator], Any]
    check_output: Callable[[Any, str], None]
    same: Callable[[Any, Any], bool]
    signal: Callable[[str, Any, str], float]
    copy_at_least: float
    independent_at_most: float
    skip: Callable[[str], str | None] = field(default=lambda name: None)
    weak_on_copies: dict[str, str] = field(default_factory=dict)
