"""The linkability game (Article 29 Working Party criterion), Anonymeter's.

The adversary holds two pieces of information about each target from separate sources, the
``aux_a`` and ``aux_b`` columns, and tries to link them through the release: an attack of the
``linkability`` family (:class:`~synthleak.attacks.base.LinkabilityAttack`, by default
``nearest-neighbour``: the halves link when their nearest synthetic neighbours coincide). The
challenger draws ``n_attacks`` targets without replacement from the original and, separately,
from the control records of a :class:`~synthleak.data.release.Release`; the random-guess baseline
draws ``n_neighbors`` random synthetic records for each half. The risk is Anonymeter's residual
risk of the two link rates (:func:`~synthleak.metrics.risk.residual_risk`).

Unequal sizes need no correction here: whether a target's halves link depends on the synthetic
data and on the target only, not on how many other real records there are, so original and
control targets are exchangeable when nothing leaks whatever the two table sizes (measured
calibrated at original:control ratios 1:1 to 4:1, ``tests/games/test_linkability.py``).

Notes
-----
Threat model: no-box; the adversary knows the release and, for each target, its ``aux_a`` and
``aux_b`` values from two sources it wants to join.

References
----------
Giomi et al. (2023), Secs. 3 and 4.2. Article 29 Data Protection Working Party (2014).
"""

from __future__ import annotations

import inspect
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from synthleak.attacks.base import AttackFamily, LinkabilityAttack, make_attack, resolve_attacks
from synthleak.attacks.linkability import NeighbourSearch, random_neighbors, sets_intersect
from synthleak.data.release import Release
from synthleak.data.table import Table
from synthleak.errors import BaselineWarning, InputError
from synthleak.games.base import AttacksByName
from synthleak.games.singling_out import (
    check_attack_items,
    check_confidence,
    check_count,
    check_seed,
    encode_release,
)
from synthleak.metrics.privacy import RiskEstimate
from synthleak.metrics.risk import rate_estimate, residual_risk
from synthleak.runtime.context import Runtime, as_runtime
from synthleak.runtime.seeding import stream
from synthleak.serde import Result

_TARGETS = stream("linkability/targets")
_FIT = stream("linkability/fit", labelled="linkability/{}/fit")
_BASELINE = stream("linkability/baseline", labelled="linkability/{}/baseline")


@dataclass(frozen=True, repr=False)
class LinkabilityAttackResult(Result):
    """The outcome of one linkability attack.

    Attributes
    ----------
    attack : str
    risk : RiskEstimate
        Residual risk (clipped to [0, 1]); ``baseline`` is the random-guess link rate.
    attack_rate, control_rate, baseline_rate : RiskEstimate
        Link rates of original targets, control targets and random guessing (Wilson intervals).
    n_requested : int
        Targets asked for per table.
    n_attacks, n_success : int
        Original targets attacked and linked.
    n_control_attacks, n_control_success : int
        Control targets attacked and linked.
    n_baseline_attacks, n_baseline_success : int
    aux_a, aux_b : tuple of str
        The auxiliary columns of the two sources (where the link runs).
    n_neighbors : int
    note : str
        Set when the attack does no better than random guessing.
    linked_rows : tuple of int
        The original targets linked, as rows of the original (sorted).
    target_rows : tuple of int
        The original targets attacked, as rows of the original (in the order drawn): they
        depend on the seed and the original's size alone, so two releases of one original
        attacked with one seed share them, and each target's outcome (linked or not) pairs.
    control_rows, control_linked_rows : tuple of int
        The control targets attacked (in the order drawn) and those linked (sorted), as rows
        of the control.
    """

    attack: str
    risk: RiskEstimate
    attack_rate: RiskEstimate
    control_rate: RiskEstimate
    baseline_rate: RiskEstimate
    n_requested: int
    n_attacks: int
    n_success: int
    n_control_attacks: int
    n_control_success: int
    n_baseline_attacks: int
    n_baseline_success: int
    aux_a: tuple[str, ...]
    aux_b: tuple[str, ...]
    n_neighbors: int
    note: str = ""
    linked_rows: tuple[int, ...] = ()
    target_rows: tuple[int, ...] = ()
    control_rows: tuple[int, ...] = ()
    control_linked_rows: tuple[int, ...] = ()

    def summary(self) -> dict[str, Any]:
        """The command-line JSON object of this attack."""
        return {
            "attack": self.attack,
            "risk": self.risk.value,
            "ci": [self.risk.ci_low, self.risk.ci_high],
            "confidence": self.risk.confidence,
            "attack_rate": self.attack_rate.value,
            "control_rate": self.control_rate.value,
            "baseline_rate": self.baseline_rate.value,
            "n_requested": self.n_requested,
            "n_attacks": self.n_attacks,
            "n_success": self.n_success,
            "n_control_attacks": self.n_control_attacks,
            "n_control_success": self.n_control_success,
            "n_baseline_attacks": self.n_baseline_attacks,
            "n_baseline_success": self.n_baseline_success,
            "aux_a": list(self.aux_a),
            "aux_b": list(self.aux_b),
            "n_neighbors": self.n_neighbors,
            "note": self.note,
        }


@dataclass(frozen=True, repr=False)
class LinkabilityResult(Result, AttacksByName[LinkabilityAttackResult]):
    """Outcome of :meth:`LinkabilityGame.run`: one result per attack, and the table sizes."""

    attacks: tuple[LinkabilityAttackResult, ...]
    n_original: int
    n_control: int
    n_synthetic: int
    confidence: float
    seed: int

    def to_frame(self) -> pd.DataFrame:
        """One row per attack: risk and interval, rates and counts."""
        return pd.DataFrame(
            [
                {
                    "attack": a.attack,
                    "risk": a.risk.value,
                    "ci_low": a.risk.ci_low,
                    "ci_high": a.risk.ci_high,
                    "attack_rate": a.attack_rate.value,
                    "control_rate": a.control_rate.value,
                    "baseline_rate": a.baseline_rate.value,
                    "n_attacks": a.n_attacks,
                    "n_success": a.n_success,
                    "n_control_attacks": a.n_control_attacks,
                    "n_control_success": a.n_control_success,
                }
                for a in self.attacks
            ]
        )


def _links(attack: LinkabilityAttack, targets: Table, search: NeighbourSearch | None) -> Any:
    """``attack.links(targets)``, with ``search=`` when given and the attack takes it."""
    if search is not None and "search" in inspect.signature(attack.links).parameters:
        return attack.links(targets, search=search)  # type: ignore[call-arg]
    return attack.links(targets)


class LinkabilityGame:
    """Linkability privacy game on a release (Anonymeter, Sec. 4.2).

    Parameters
    ----------
    aux_a, aux_b : sequence of str
        Columns of the two auxiliary sources (non-empty; they may overlap).
    attacks : sequence of str or LinkabilityAttack, default ("nearest-neighbour",)
        Registered linkability attack names (made with ``aux_a``, ``aux_b`` and ``n_neighbors``)
        or unfitted attack objects (which carry their own).
    n_attacks : int, default 500
        Targets drawn from the original and from the control (fewer when a table is smaller).
    n_neighbors : int, default 1
        Synthetic neighbours per half (``k``) for attacks given by name and for the baseline.
    confidence : float, default 0.95

    Examples
    --------
    >>> from synthleak.games.base import AttacksByName
    >>> from synthleak.data.release import Release
    >>> game = LinkabilityGame(["age", "sex"], ["zip", "income"], n_attacks=500)  # doctest: +SKIP
    >>> game.run(  # doctest: +SKIP
    ...     Release(original_df, synthetic_df, control_df), seed=0
    ... ).to_frame()

    Notes
    -----
    Threat model: no-box; see the module docstring.

    References
    ----------
    Giomi et al. (2023), Secs. 3 and 4.2.
    """

    def __init__(
        self,
        aux_a: Sequence[str],
        aux_b: Sequence[str],
        *,
        attacks: Sequence[str | LinkabilityAttack] = ("nearest-neighbour",),
        n_attacks: int = 500,
        n_neighbors: int = 1,
        confidence: float = 0.95,
    ) -> None:
        for label, cols in (("aux_a", aux_a), ("aux_b", aux_b)):
            if isinstance(cols, str) or not isinstance(cols, Sequence) or not cols:
                raise InputError(f"{label} must be a non-empty list of column names, got {cols!r}")
        self.aux_a = tuple(aux_a)
        self.aux_b = tuple(aux_b)
        self.n_attacks = check_count("n_attacks", n_attacks)
        self.n_neighbors = check_count("n_neighbors", n_neighbors)
        self.confidence = check_confidence(confidence)
        self.attacks = tuple([attacks] if isinstance(attacks, str | LinkabilityAttack) else attacks)
        check_attack_items(self.attacks, LinkabilityAttack, "linkability")
        self._resolve()

    def _resolve(self) -> list[tuple[str, Any]]:
        out = []
        for a in self.attacks:
            if isinstance(a, str):
                params: dict[str, Any] = {
                    "aux_a": list(self.aux_a),
                    "aux_b": list(self.aux_b),
                    "n_neighbors": self.n_neighbors,
                }
                out.append((a, make_attack(AttackFamily.LINKABILITY, a, **params)))
            else:
                out += resolve_attacks(AttackFamily.LINKABILITY, [a])
        names = [n for n, _ in out]
        dup = sorted({n for n in names if names.count(n) > 1})
        if dup:
            raise InputError(f"attacks lists {dup} more than once: list each attack once")
        return out

    def run(
        self,
        release: Release,
        *,
        seed: int,
        runtime: Runtime | None = None,
        search: NeighbourSearch | None = None,
    ) -> LinkabilityResult:
        """Play the game on ``release`` (which must hold a control) with randomness from ``seed``.

        ``runtime`` is accepted for the common game protocol; the attacks run inline.
        ``search`` replaces the attacks' nearest-neighbour search (the signature and answer of
        :func:`~synthleak.attacks.linkability.gower_knn`; on a cluster the audit gives
        :func:`~synthleak.partitioned.neighbours_by_partition`); it goes to the attacks whose
        ``links`` takes a ``search`` keyword, the others search as they always do.
        """
        seed = check_seed(seed)
        as_runtime(runtime)
        original, synthetic, control = encode_release(release, "the linkability game")
        for label, cols in (("aux_a", self.aux_a), ("aux_b", self.aux_b)):
            unknown = [c for c in cols if c not in original.schema]
            if unknown:
                raise InputError(
                    f"{label} names unknown column(s) {unknown}: the columns are "
                    f"{', '.join(original.schema.names)}"
                )
        n_ori = min(self.n_attacks, len(original))
        n_ctl = min(self.n_attacks, len(control))
        pick = _TARGETS.rng(seed)
        target_rows = pick.choice(len(original), size=n_ori, replace=False)
        targets = original.take(target_rows)
        control_rows = pick.choice(len(control), size=n_ctl, replace=False)
        controls = control.take(control_rows)
        results = []
        for name, attack in self._resolve():
            attack.fit(synthetic, rng=_FIT.sub(name).rng(seed))
            k = int(getattr(attack, "n_neighbors", self.n_neighbors))
            brng = _BASELINE.sub(name).rng(seed)
            m = len(synthetic)
            base = sets_intersect(
                random_neighbors(m, self.n_attacks, k, rng=brng),
                random_neighbors(m, self.n_attacks, k, rng=brng),
            )
            n_base = int(base.sum())
            linked = np.asarray(_links(attack, targets, search), dtype=bool)
            n_succ = int(linked.sum())
            ctl_linked = np.asarray(_links(attack, controls, search), dtype=bool)
            n_ctl_succ = int(ctl_linked.sum())
            base_rate = rate_estimate(n_base, self.n_attacks, self.confidence)
            attack_rate = rate_estimate(n_succ, n_ori, self.confidence, base_rate.value)
            note = ""
            if attack_rate.value <= base_rate.value:
                note = (
                    f"the attack does no better than random guessing (link rate "
                    f"{attack_rate.value:.4f} <= baseline {base_rate.value:.4f}): the risk "
                    "estimate says little"
                )
                warnings.warn(f"{name}: {note}", BaselineWarning, stacklevel=2)
            results.append(
                LinkabilityAttackResult(
                    attack=name,
                    risk=residual_risk(
                        n_succ,
                        n_ori,
                        n_ctl_succ,
                        n_ctl,
                        confidence=self.confidence,
                        baseline=base_rate.value,
                    ),
                    attack_rate=attack_rate,
                    control_rate=rate_estimate(n_ctl_succ, n_ctl, self.confidence, base_rate.value),
                    baseline_rate=base_rate,
                    n_requested=self.n_attacks,
                    n_attacks=n_ori,
                    n_success=n_succ,
                    n_control_attacks=n_ctl,
                    n_control_success=n_ctl_succ,
                    n_baseline_attacks=self.n_attacks,
                    n_baseline_success=n_base,
                    aux_a=tuple(getattr(attack, "aux_a", self.aux_a)),
                    aux_b=tuple(getattr(attack, "aux_b", self.aux_b)),
                    n_neighbors=k,
                    note=note,
                    linked_rows=tuple(sorted(int(r) for r in target_rows[linked])),
                    target_rows=tuple(int(r) for r in target_rows),
                    control_rows=tuple(int(r) for r in control_rows),
                    control_linked_rows=tuple(sorted(int(r) for r in control_rows[ctl_linked])),
                )
            )
        return LinkabilityResult(
            tuple(results), len(original), len(control), len(synthetic), self.confidence, seed
        )
