"""The singling-out game (Article 29 Working Party criterion), calibrated at unequal sizes.

The challenger holds a :class:`~synthleak.data.release.Release`: the **original** records the
synthetic data was generated from, the released **synthetic** data, and **control** records of the
same population that the generator never saw. Each attack (family ``singling-out``: registered
names or :class:`~synthleak.attacks.base.SinglingOutAttack` objects) sees only the synthetic data
and proposes up to ``n_attacks`` predicates that single out one distinct synthetic record. A
predicate *succeeds* on a table when it matches exactly one of its rows (one person: the real
tables are not de-duplicated, see below). The risk is Anonymeter's excess success over the
control, normalised by the room for improvement,

    risk = (attack_rate - control_rate) / (1 - control_rate),

and the random-guess baseline (:func:`~synthleak.attacks.singling_out.random_predicates`) is
reported beside it.

Estimand and design
-------------------
The estimand is the risk an oracle control **as large as the original** would give: what the
attack achieves on the training records beyond what it achieves, at the same size, on people it
never saw. A predicate's chance of singling out depends on the table size, so the control must be
brought to the original's size. No unbiased extrapolation from a smaller control exists (the
chance is a polynomial of degree ``n_original`` in the predicate's frequency and the control is a
binomial sample of ``n_control`` rows), so the game compares the two tables **at equal size**
(:class:`~synthleak.metrics.risk.EqualSizeDesign`, exact hypergeometric expectations over every
subset):

* equal sizes: no correction;
* larger control: the control is evaluated at the original's size: the oracle itself, unbiased;
* smaller control: the original is evaluated at the control's size and the excess rescaled by
  ``n_original / n_control``. Exactly unbiased when nothing leaks, whatever the sizes (false
  alarms stay below 2.5 %); a copy's risk is exactly 1, other leaks come out somewhat low (noisy
  copies: 0.06 low on average at 4:1) and the interval is about ``n_original / n_control`` times
  wider, so weak leaks may go unflagged. Hold out a control as large as the original when you
  can (an audit that fits the generator itself should split 50/50).

The result's :class:`SizeDesign` states which case applied.

Rejected designs, measured on the same predicates against an oracle control (ACS, Adult, UK
census and COMPAS samples of 2,000 records; ``benchmarks/calibration_designs.py``, results in
``benchmarks/calibration_singling_out.md``): no correction reports the size effect as a leak
(excess +0.09 on independent data at 4:1, z = 17); Anonymeter's rescaling of the control's
successes with a model of singling-out probability against size fitted on control subsamples
over-corrects (-0.28 at 4:1; it would hide a leak) and is miscalibrated in either direction
depending on the data; an empirical-Bayes extrapolation of the control (a nonparametric prior of
predicate frequencies) is close on average but not identified by the control and came out 0.02 to
0.04 above the oracle in some settings, a bias that does not shrink with more predicates;
evaluating the original at the control's size without rescaling is exact but dilutes a copy's
excess from 0.79 to 0.13 at 4:1.

People, not rows. Anonymeter de-duplicates the original and the control. Two people with the same
values cannot be told apart by any predicate, so a predicate matching both singles out nobody:
the game counts rows, so that "exactly one match" means one person and sizes are what they are (on
duplicate-heavy data de-duplication shrinks a large table proportionally more than a small one,
which by itself biases the comparison). The attacks de-duplicate the synthetic data they draw
predicates from (a record the generator repeated is still one candidate).

Notes
-----
Threat model: no-box. The adversary sees only the synthetic data; success means a predicate it
wrote down from the synthetic data isolates exactly one real person of the training data. The
control must be real records of the same population, never seen by the generator: with a control
that is not exchangeable with the original (another region, year, or a de-duplicated file) the
comparison measures that difference.

Several attacks are several tests: each risk has its own interval; with three attacks, one
interval excluding 0 by chance happens in up to about 3 x 2.5 % of audits of a release that leaks
nothing.

References
----------
Giomi et al. (2023), Sec. 3 (risk) and Sec. 4.1 (singling out). Cohen and Nissim (2020).
Article 29 Data Protection Working Party (2014).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from synthleak.attacks.base import AttackFamily, SinglingOutAttack, resolve_attacks
from synthleak.attacks.predicates import (
    CountAnswer,
    CountRequest,
    Matches,
    PredicateSet,
    RequestCounter,
    answer_requests,
)
from synthleak.attacks.singling_out import random_predicates
from synthleak.data.release import Release
from synthleak.data.table import Table
from synthleak.errors import BaselineWarning, InputError
from synthleak.games.base import AttacksByName
from synthleak.metrics.privacy import RiskEstimate
from synthleak.metrics.risk import (
    EqualSizeDesign,
    SizeCorrection,
    rate_estimate,
    singling_out_risk,
)
from synthleak.runtime.context import Runtime, as_runtime
from synthleak.runtime.seeding import stream
from synthleak.serde import Result

_FIT = stream("singling-out/fit", labelled="singling-out/{}/fit")
_PREDICATES = stream("singling-out/predicates", labelled="singling-out/{}/predicates")
_BASELINE = stream("singling-out/baseline", labelled="singling-out/{}/baseline")

__all__ = [
    "ColumnLeak",
    "SinglingOutAttackResult",
    "SinglingOutGame",
    "SinglingOutResult",
    "SizeDesign",
    "check_attack_items",
    "check_confidence",
    "check_count",
    "check_seed",
    "column_leaks",
    "encode_release",
    "example_predicates",
]


# --- results --------------------------------------------------------------------------------


@dataclass(frozen=True, repr=False)
class SizeDesign(Result):
    """How the original and the control were compared.

    Attributes
    ----------
    n_original, n_control, n_synthetic : int
        Rows of each table (people; not de-duplicated).
    n_evaluated : int
        The size both real tables were compared at (``min(n_original, n_control)``).
    correction : SizeCorrection
        ``none``, ``control-subsampled`` (exact) or ``original-subsampled`` (rescaled).
    note : str
        The same in words, for reports.
    """

    n_original: int
    n_control: int
    n_synthetic: int
    n_evaluated: int
    correction: SizeCorrection
    note: str


@dataclass(frozen=True, repr=False)
class ColumnLeak(Result):
    """Where an attack's successes are: one column's share.

    Attributes
    ----------
    column : str
    n_predicates : int
        Predicates that constrain the column.
    n_success : int
        Of which single out one original record.
    excess : float
        Their mean excess over the control at the same size (the risk numerator restricted to
        these predicates; about 0 when the column does not leak).
    excess_se : float
        Its standard error over these predicates (a column's excess is noisy when few
        predicates use it, and ``n_original / n_control`` times noisier with a small control).
    """

    column: str
    n_predicates: int
    n_success: int
    excess: float
    excess_se: float


@dataclass(frozen=True, repr=False)
class SinglingOutAttackResult(Result):
    """The outcome of one singling-out attack.

    Attributes
    ----------
    attack : str
        Registered name (or class name of an attack object).
    measured : bool
        False when the attack could not be scored (``note`` says why; the estimates are NaN).
    note : str
    risk : RiskEstimate
        Excess risk at the original's size, clipped to [0, 1]; ``baseline`` is the random-guess
        success rate.
    attack_rate : RiskEstimate
        Share of the predicates that single out one original record.
    control_rate : RiskEstimate
        The control's success rate brought to the original's size (see the module docstring).
    observed_control_rate : RiskEstimate
        Share of the predicates that single out one control record, at the control's size.
    baseline_rate : RiskEstimate
        Share of random-guess predicates that single out one original record.
    excess : float
        ``attack_rate - control_rate`` before normalising and clipping (negative when the attack
        does better on the control).
    n_requested, n_attacks : int
        Predicates asked for and generated (rates are over the generated ones).
    n_success, n_control_success : int
        Predicates singling out one original / one control record.
    n_baseline_attacks, n_baseline_success : int
    columns : tuple of ColumnLeak
        Every column some predicate constrains, largest excess first.
    examples : tuple of str
        A few predicates that single out one original record and no control record, as text.
        They are written from the synthetic data; predicates constraining more than half of the
        columns are never shown (they would spell out most of a record).
    """

    attack: str
    measured: bool
    note: str
    risk: RiskEstimate
    attack_rate: RiskEstimate
    control_rate: RiskEstimate
    observed_control_rate: RiskEstimate
    baseline_rate: RiskEstimate
    excess: float
    n_requested: int
    n_attacks: int
    n_success: int
    n_control_success: int
    n_baseline_attacks: int
    n_baseline_success: int
    columns: tuple[ColumnLeak, ...] = ()
    examples: tuple[str, ...] = ()

    def summary(self) -> dict[str, Any]:
        """The command-line JSON object of this attack."""
        return {
            "attack": self.attack,
            "measured": self.measured,
            "note": self.note,
            "risk": self.risk.value,
            "ci": [self.risk.ci_low, self.risk.ci_high],
            "confidence": self.risk.confidence,
            "attack_rate": self.attack_rate.value,
            "control_rate": self.control_rate.value,
            "observed_control_rate": self.observed_control_rate.value,
            "baseline_rate": self.baseline_rate.value,
            "excess": self.excess,
            "n_requested": self.n_requested,
            "n_attacks": self.n_attacks,
            "n_success": self.n_success,
            "n_control_success": self.n_control_success,
            "n_baseline_attacks": self.n_baseline_attacks,
            "n_baseline_success": self.n_baseline_success,
            "columns": [c.to_dict() for c in self.columns],
            "examples": list(self.examples),
        }


@dataclass(frozen=True, repr=False)
class SinglingOutResult(Result, AttacksByName[SinglingOutAttackResult]):
    """Outcome of :meth:`SinglingOutGame.run`: one :class:`SinglingOutAttackResult` per attack.

    Attributes
    ----------
    design : SizeDesign
    attacks : tuple of SinglingOutAttackResult
    n_attacks : int
        Predicates requested per attack.
    confidence : float
    seed : int
    """

    design: SizeDesign
    attacks: tuple[SinglingOutAttackResult, ...]
    n_attacks: int
    confidence: float
    seed: int

    def to_frame(self) -> pd.DataFrame:
        """One row per attack: risk and interval, rates, counts and the design."""
        rows = []
        for a in self.attacks:
            rows.append(
                {
                    "attack": a.attack,
                    "measured": a.measured,
                    "risk": a.risk.value,
                    "ci_low": a.risk.ci_low,
                    "ci_high": a.risk.ci_high,
                    "attack_rate": a.attack_rate.value,
                    "control_rate": a.control_rate.value,
                    "observed_control_rate": a.observed_control_rate.value,
                    "baseline_rate": a.baseline_rate.value,
                    "excess": a.excess,
                    "n_attacks": a.n_attacks,
                    "n_success": a.n_success,
                    "n_control_success": a.n_control_success,
                    "n_evaluated": self.design.n_evaluated,
                    "correction": self.design.correction.value,
                    "top_column": a.columns[0].column if a.columns else None,
                    "note": a.note,
                }
            )
        return pd.DataFrame(rows)


# --- the game -------------------------------------------------------------------------------


def encode_release(release: Release, game: str) -> tuple[Table, Table, Table]:
    """``(original, synthetic, control)`` tables of a release; the control is required."""
    if not isinstance(release, Release):
        raise InputError(
            f"{game} plays on a synthleak Release(original, synthetic, control), "
            f"got {type(release).__name__}: wrap the three tables in Release(...)"
        )
    if release.control is None:
        raise InputError(
            f"{game} needs control records the generator never saw: give Release(..., control=)"
        )
    enc = release.encode()
    assert enc.control is not None
    return enc.original, enc.synthetic, enc.control


def check_count(name: str, value: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 1:
        raise InputError(f"{name}={value!r} must be a whole number of at least 1")
    return int(value)


def check_confidence(confidence: float) -> float:
    if isinstance(confidence, bool) or not isinstance(confidence, int | float):
        raise InputError(f"confidence={confidence!r} must be a number between 0 and 1")
    if not 0 < confidence < 1:
        raise InputError(f"confidence={confidence} must lie strictly between 0 and 1")
    return float(confidence)


def check_seed(seed: int) -> int:
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise InputError(f"seed={seed!r} must be a non-negative whole number")
    return int(seed)


def check_attack_items(attacks: Sequence[Any], base: type, family: str) -> None:
    """Every entry is a registered name (str) or an object of the family's base class."""
    for a in attacks:
        if not isinstance(a, str | base):
            raise InputError(
                f"attacks must be names of registered {family} attacks or {base.__name__} "
                f"objects, got {type(a).__name__}"
            )


def _design_note(d: EqualSizeDesign) -> str:
    if d.correction is SizeCorrection.NONE:
        return f"original and control have the same size ({d.n_original:,} records): no correction"
    if d.correction is SizeCorrection.CONTROL_SUBSAMPLED:
        return (
            f"the control ({d.n_control:,} records) is larger than the original "
            f"({d.n_original:,}): it was evaluated at the original's size (exact)"
        )
    return (
        f"the control ({d.n_control:,} records) is smaller than the original "
        f"({d.n_original:,}): the original was compared with it at {d.n_evaluated:,} records "
        f"and the excess rescaled by {d.n_original / d.n_control:.2f}; no false alarm from the "
        "size difference, but the interval is that much wider and the size of a leak is "
        "approximate: give a control as large as the original to measure it exactly"
    )


class SinglingOutGame:
    """Singling-out privacy game on a release (Anonymeter's, calibrated at unequal sizes).

    Parameters
    ----------
    attacks : sequence of str or SinglingOutAttack, default ("univariate", "multivariate")
        Registered singling-out attack names (``synthleak.attacks.list_attacks("singling-out")``)
        or unfitted attack objects.
    n_attacks : int, default 500
        Predicates requested from each attack (and random-guess predicates for its baseline).
    attack_params : dict, optional
        ``{name: {parameter: value}}`` for attacks given by name (e.g.
        ``{"multivariate": {"n_cols": 4}}``).
    confidence : float, default 0.95
    n_examples : int, default 5
        Example predicates kept per attack.

    Examples
    --------
    >>> from synthleak.data.release import Release
    >>> game = SinglingOutGame(n_attacks=200)                              # doctest: +SKIP
    >>> res = game.run(Release(original_df, synthetic_df, control_df), seed=0)  # doctest: +SKIP
    >>> res["multivariate"].risk                                            # doctest: +SKIP
    >>> res.to_frame()                                                      # doctest: +SKIP

    Notes
    -----
    Threat model: no-box; see the module docstring for the estimand, the equal-size design, what
    "singling out" counts on duplicate rows, and the multiple-testing note.

    References
    ----------
    Giomi et al. (2023), Secs. 3 and 4.1. Cohen and Nissim (2020).
    """

    def __init__(
        self,
        attacks: Sequence[str | SinglingOutAttack] = ("univariate", "multivariate"),
        *,
        n_attacks: int = 500,
        attack_params: dict[str, dict[str, Any]] | None = None,
        confidence: float = 0.95,
        n_examples: int = 5,
    ) -> None:
        self.n_attacks = check_count("n_attacks", n_attacks)
        self.confidence = check_confidence(confidence)
        if isinstance(n_examples, bool) or not isinstance(n_examples, int) or n_examples < 0:
            raise InputError(f"n_examples={n_examples!r} must be a whole number, 0 or more")
        self.n_examples = n_examples
        if attack_params is not None and not isinstance(attack_params, dict):
            raise InputError("attack_params must be a dict {attack name: {parameter: value}}")
        self.attack_params = dict(attack_params or {})
        self.attacks = tuple([attacks] if isinstance(attacks, str | SinglingOutAttack) else attacks)
        check_attack_items(self.attacks, SinglingOutAttack, "singling-out")
        resolved = resolve_attacks(AttackFamily.SINGLING_OUT, self.attacks, self.attack_params)
        names = {n for n, _ in resolved}
        unknown = sorted(set(self.attack_params) - names)
        if unknown:
            raise InputError(
                f"attack_params names {unknown}, which are not among the attacks {sorted(names)}"
            )

    def run(
        self,
        release: Release,
        *,
        seed: int,
        runtime: Runtime | None = None,
        counter: RequestCounter | None = None,
    ) -> SinglingOutResult:
        """Play the game on ``release`` (which must hold a control) with randomness from ``seed``.

        ``runtime`` is accepted for the common game protocol; the attacks run inline (seconds).
        ``counter`` counts the predicates in the original and the control (default
        :func:`~synthleak.attacks.predicates.answer_requests`, in this process; the audit
        passes one that counts a partition per work unit on a cluster). Every attack's
        predicates are drawn first, then counted in one pass per table.
        """
        seed = check_seed(seed)
        as_runtime(runtime)
        count = answer_requests if counter is None else counter
        original, synthetic, control = encode_release(release, "the singling-out game")
        design = EqualSizeDesign(len(original), len(control))
        cap = design.list_cap()
        drawn = []  # loops, not comprehensions: the warnings' stack levels count frames
        for name, attack in resolve_attacks(
            AttackFamily.SINGLING_OUT, self.attacks, self.attack_params
        ):
            drawn.append((name, *self._draw(name, attack, synthetic, seed)))
        on_original = [
            r
            for _, preds, base in drawn
            for r in (CountRequest(base, 2, False), CountRequest(preds, cap, True))
        ]
        counts_o = count(original, on_original)
        counts_c = count(control, [CountRequest(preds, cap, True) for _, preds, _ in drawn])
        results = []
        for i, (name, preds, base) in enumerate(drawn):
            m_o, m_c = counts_o[2 * i + 1], counts_c[i]
            results.append(self._score(name, preds, base, counts_o[2 * i], m_o, m_c, design))
        size = SizeDesign(
            design.n_original,
            design.n_control,
            len(synthetic),
            design.n_evaluated,
            design.correction,
            _design_note(design),
        )
        return SinglingOutResult(size, tuple(results), self.n_attacks, self.confidence, seed)

    def _draw(
        self, name: str, attack: Any, synthetic: Table, seed: int
    ) -> tuple[PredicateSet, PredicateSet]:
        """The attack's predicates and its random-guess baseline's, from the release alone."""
        attack.fit(synthetic, rng=_FIT.sub(name).rng(seed))
        preds = attack.predicates(self.n_attacks, rng=_PREDICATES.sub(name).rng(seed))
        base = random_predicates(
            synthetic,
            self.n_attacks,
            attack.baseline_n_cols,
            rng=_BASELINE.sub(name).rng(seed),
        )
        return preds, base

    def _score(
        self,
        name: str,
        preds: PredicateSet,
        base: PredicateSet,
        base_counts: CountAnswer,
        m_o: CountAnswer,
        m_c: CountAnswer,
        design: EqualSizeDesign,
    ) -> SinglingOutAttackResult:
        assert isinstance(m_o, Matches) and isinstance(m_c, Matches)
        conf = self.confidence
        n_base = int((np.asarray(base_counts) == 1).sum())
        base_rate = rate_estimate(n_base, len(base), conf)
        if len(preds) == 0:
            nan = RiskEstimate(float("nan"), float("nan"), float("nan"), conf, 0, base_rate.value)
            return SinglingOutAttackResult(
                attack=name,
                measured=False,
                note=(
                    "not measured: the attack found no predicate that singles out a synthetic "
                    "record (the synthetic data has no unique records it can describe); try "
                    "another attack or more columns per predicate"
                ),
                risk=nan,
                attack_rate=nan,
                control_rate=nan,
                observed_control_rate=nan,
                baseline_rate=base_rate,
                excess=float("nan"),
                n_requested=self.n_attacks,
                n_attacks=0,
                n_success=0,
                n_control_success=0,
                n_baseline_attacks=len(base),
                n_baseline_success=n_base,
            )
        est = singling_out_risk(m_o, m_c, design, confidence=conf, baseline=base_rate.value)
        notes = []
        if not np.isfinite(est.raw_risk):
            notes.append(
                "not measured: at the original's size the predicates would single out control "
                "records at a rate of 1 or more, leaving no room for an excess; the control must "
                "be real records the generator never saw (not the original itself), and not far "
                "fewer than the original"
            )
        elif est.risk.ci_high <= 0.0:
            notes.append(
                f"the predicates single out control records more often than original ones (excess "
                f"{est.excess:.3f}, its interval below 0): this happens by chance in about 2.5 % "
                "of releases that leak nothing; if it recurs, check that the control comes from "
                "the same population as the original"
            )
        if est.attack_rate.value <= base_rate.value:
            notes.append(
                f"the attack does no better than random guessing (attack rate "
                f"{est.attack_rate.value:.4f} <= baseline rate {base_rate.value:.4f}): the "
                "risk estimate says little"
            )
            warnings.warn(f"{name}: {notes[-1]}", BaselineWarning, stacklevel=3)
        note = "; ".join(notes)
        s = m_o.counts == 1
        return SinglingOutAttackResult(
            attack=name,
            measured=bool(np.isfinite(est.raw_risk)),
            note=note,
            risk=est.risk,
            attack_rate=est.attack_rate,
            control_rate=est.control_rate,
            observed_control_rate=est.observed_control_rate,
            baseline_rate=base_rate,
            excess=est.excess,
            n_requested=self.n_attacks,
            n_attacks=len(preds),
            n_success=int(s.sum()),
            n_control_success=int((m_c.counts == 1).sum()),
            n_baseline_attacks=len(base),
            n_baseline_success=n_base,
            columns=column_leaks(preds, s, est.terms),
            examples=example_predicates(preds, s & (m_c.counts == 0), self.n_examples),
        )


def column_leaks(
    preds: PredicateSet, success: np.ndarray, terms: np.ndarray
) -> tuple[ColumnLeak, ...]:
    """Per column: predicates constraining it, their successes and mean excess term."""
    used = preds.constrained
    n_pred = used.sum(axis=0)
    out = []
    for j, col in enumerate(preds.schema.columns):
        if n_pred[j] == 0:
            continue
        sel = used[:, j]
        t = terms[sel]
        se = float(t.std(ddof=1) / np.sqrt(t.size)) if t.size > 1 else float("nan")
        out.append(
            ColumnLeak(col.name, int(n_pred[j]), int(success[sel].sum()), float(t.mean()), se)
        )
    return tuple(sorted(out, key=lambda c: (-c.excess, c.column)))


def example_predicates(preds: PredicateSet, chosen: np.ndarray, k: int) -> tuple[str, ...]:
    """Up to ``k`` of the ``chosen`` predicates as text, none constraining over half the columns."""
    limit = max(1, len(preds.schema) // 2)
    ok = np.flatnonzero(chosen & (preds.n_atoms <= limit))
    return tuple(preds.describe(int(i)) for i in ok[:k])
