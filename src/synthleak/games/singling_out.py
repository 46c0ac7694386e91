"""Singling-out and linkability games (Article 29 Working Party criteria), Anonymeter style.

The challenger holds three tables: the **original** records the synthetic data was generated
from, the released **synthetic** data, and **control** records from the same population that the
generator never saw. The adversary (an attack of :mod:`synthleak.attacks.singling_out`,
:mod:`synthleak.attacks.contrastive` or :mod:`synthleak.attacks.linkability`) sees only the
synthetic data. Its guesses are scored on the original *and* on the control records: what works
equally well on the control records is inference about the population, not a privacy leak. The
risk is the excess success, normalised by the room for improvement,

    risk = (attack_rate - control_rate) / (1 - control_rate),

with Wilson-score rates and first-order error propagation, as Anonymeter's ``EvaluationResults``;
a random-guess attack gives the baseline rate and a :class:`~synthleak.errors.BaselineWarning` is
issued when the attack does no better than it.

Counting. Success rates are divided by the number of predicates the attack *actually generated*,
not by the number requested. Anonymeter divides by the number requested, which under-estimates
the rates (and the risk) whenever the synthetic data offers fewer singling-out predicates than
asked for (reported as LeakPro issue #182). When every requested predicate is generated — the
case of the benchmarks — both conventions agree.

Singling out is evaluated, as in Anonymeter, on de-duplicated tables (a predicate matching two
identical records singles out one distinct record). When the control set and the original differ
in size, the number of control successes is rescaled to the size of the original with Anonymeter's
model of singling-out probability against population size (Cohen and Nissim 2020): the number of
predicates that single out in random subsamples of the control set is fitted with
``norm * integral_0^w_eff n w (1 - w)^(n - 1) dw`` and the control count multiplied by
``f(n_original) / f(n_control)``. (Anonymeter 1.1.0 fits this model to the *number of
predicates* rather than the number that single out in each subsample, a constant, so its factor
is about ``n_control / n_original`` whatever the data; we count the predicates that single out.
We also fit by least squares with ``w_eff`` scanned on a log grid instead of a local optimiser.)

References
----------
Giomi et al. (2023), "A unified framework for quantifying privacy risk in synthetic data",
PoPETs (Anonymeter), Sec. 3 (risk estimation), Sec. 4.1 (singling out),
Sec. 4.2 (linkability).
Cohen and Nissim (2020), "Towards formalizing the GDPR's notion of singling out", PNAS.
Plasencia Palacios (2024), "Contrastive Learning-Based privacy metrics in Tabular Synthetic
Datasets" (contrastive singling out, Table 1).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import asdict, dataclass
from typing import Any, Protocol

import numpy as np
from scipy import stats

from synthleak.attacks.linkability import LinkabilityAttack, random_neighbors, sets_intersect
from synthleak.attacks.predicates import (
    PredicateSet,
    TableIndex,
    popcount,
    sample_bitsets,
    unique_rows,
)
from synthleak.attacks.singling_out import random_predicates
from synthleak.data.schema import column_differences
from synthleak.data.table import Table
from synthleak.errors import BaselineWarning, InputError
from synthleak.metrics.privacy import RiskEstimate

# --- statistics (pure functions) -------------------------------------------------------------


@dataclass(frozen=True)
class SuccessRate:
    """A success rate and the half-width of its confidence interval."""

    value: float
    error: float

    def estimate(
        self, n_trials: int, confidence: float, baseline: float | None = None
    ) -> RiskEstimate:
        lo, hi = _bound(self.value, self.error)
        return RiskEstimate(min(max(self.value, 0.0), 1.0), lo, hi, confidence, n_trials, baseline)


def _bound(value: float, error: float) -> tuple[float, float]:
    return min(max(value - error, 0.0), 1.0), min(max(value + error, 0.0), 1.0)


def success_rate(n_success: float, n_total: int, confidence: float = 0.95) -> SuccessRate:
    """Wilson-score estimate of a success rate: centre and half-width.

    ``n_success`` may be fractional (a size-corrected control count).
    """
    if n_total <= 0:
        raise InputError("a success rate needs at least one trial: run at least one attack")
    if not 0 < confidence < 1:
        raise InputError(f"confidence={confidence} must lie strictly between 0 and 1")
    z = float(stats.norm.ppf(0.5 * (1 + confidence)))
    z2 = z * z
    var = max(n_success * (n_total - n_success) / n_total, 0.0)
    denom = n_total + z2
    return SuccessRate((n_success + 0.5 * z2) / denom, z / denom * math.sqrt(var + 0.25 * z2))


def residual_success(attack: SuccessRate, control: SuccessRate) -> SuccessRate:
    """Excess of attack over control success, normalised by ``1 - control`` (error propagated)."""
    if control.value >= 1.0:
        return SuccessRate(float("nan"), float("nan"))
    one_minus = 1.0 - control.value
    value = (attack.value - control.value) / one_minus
    d_attack = 1.0 / one_minus
    d_control = (attack.value - 1.0) / one_minus**2
    return SuccessRate(value, math.hypot(attack.error * d_attack, control.error * d_control))


@dataclass(frozen=True)
class RiskResult:
    """Outcome of a singling-out or linkability game.

    Attributes
    ----------
    mode : str
        ``univariate``, ``multivariate``, ``contrastive`` or ``linkability``.
    risk : RiskEstimate
        Excess risk over the control set (clipped to [0, 1]; ``baseline`` = random-guess rate).
    attack_rate, control_rate, baseline_rate : RiskEstimate
        Success rates on the original, on the control set, and of the random-guess attack.
    n_requested : int
        Attacks asked for.
    n_attacks : int
        Attacks actually made (predicates generated / targets attacked); the denominator.
    n_success : int
        Successes on the original.
    n_control_attacks : int
    n_control_success : float
        Successes on the control set (size-corrected for singling out, hence fractional).
    n_baseline_attacks, n_baseline_success : int
    """

    mode: str
    risk: RiskEstimate
    attack_rate: RiskEstimate
    control_rate: RiskEstimate
    baseline_rate: RiskEstimate
    n_requested: int
    n_attacks: int
    n_success: int
    n_control_attacks: int
    n_control_success: float
    n_baseline_attacks: int
    n_baseline_success: int

    def summary(self) -> dict[str, Any]:
        """The command-line JSON shape."""
        return {
            "mode": self.mode,
            "risk": self.risk.value,
            "ci": [self.risk.ci_low, self.risk.ci_high],
            "attack_rate": self.attack_rate.value,
            "control_rate": self.control_rate.value,
            "baseline_rate": self.baseline_rate.value,
            "n_attacks": self.n_attacks,
            "n_success": self.n_success,
        }

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> RiskResult:
        est = {
            k: RiskEstimate.from_dict(d[k])
            for k in ("risk", "attack_rate", "control_rate", "baseline_rate")
        }
        return cls(**{**d, **est})


def risk_from_counts(
    mode: str,
    *,
    n_requested: int,
    n_attacks: int,
    n_success: int,
    n_control_attacks: int,
    n_control_success: float,
    n_baseline_attacks: int,
    n_baseline_success: int,
    confidence: float = 0.95,
) -> RiskResult:
    """Turn success counts into a :class:`RiskResult`; warn when the attack ties the baseline."""
    attack = success_rate(n_success, n_attacks, confidence)
    control = success_rate(n_control_success, n_control_attacks, confidence)
    base = success_rate(n_baseline_success, n_baseline_attacks, confidence)
    res = residual_success(attack, control)
    if base.value >= attack.value:
        warnings.warn(
            f"{mode}: the attack does no better than the random-guess baseline "
            f"(attack rate {attack.value:.4f} <= baseline rate {base.value:.4f}); "
            "the risk estimate cannot be trusted",
            BaselineWarning,
            stacklevel=3,
        )
    return RiskResult(
        mode=mode,
        risk=res.estimate(n_attacks, confidence, base.value),
        attack_rate=attack.estimate(n_attacks, confidence, base.value),
        control_rate=control.estimate(n_control_attacks, confidence, base.value),
        baseline_rate=base.estimate(n_baseline_attacks, confidence),
        n_requested=n_requested,
        n_attacks=n_attacks,
        n_success=n_success,
        n_control_attacks=n_control_attacks,
        n_control_success=float(n_control_success),
        n_baseline_attacks=n_baseline_attacks,
        n_baseline_success=n_baseline_success,
    )


def _so_integral(n: np.ndarray | float, w_max: np.ndarray | float) -> np.ndarray | float:
    """``integral_0^w_max n w (1 - w)^(n - 1) dw`` (Cohen and Nissim 2020)."""
    return (1.0 - (n * w_max + 1.0) * (1.0 - w_max) ** n) / (n + 1.0)


def size_correction(
    bits: np.ndarray,
    n_rows: int,
    n_target: int,
    *,
    rng: np.random.Generator,
    n_sizes: int = 10,
    n_repeat: int = 5,
) -> float:
    """Factor rescaling singling-out successes from ``n_rows`` records to ``n_target`` records.

    ``bits`` are the match bitsets (q, words) of the predicates on the ``n_rows`` control records.
    The number of predicates singling out in random subsamples is fitted with Anonymeter's model
    (module docstring) and the model's ratio at ``n_target`` and ``n_rows`` returned.
    """
    if n_rows == n_target or bits.shape[0] == 0:
        return 1.0
    sizes = np.repeat(np.linspace(min(1000, n_rows), n_rows, n_sizes).astype(int), n_repeat)
    samples = sample_bitsets(n_rows, sizes.tolist(), rng=rng)
    succ = np.array([int((popcount(bits & s[None, :]) == 1).sum()) for s in samples], dtype=float)

    # least squares over the model: for a fixed w_eff the best norm is closed-form, so scan
    # w_eff on a fine log grid (a local optimiser from Anonymeter's start point can stall)
    x = sizes.astype(float)
    grid = np.logspace(-9, 0, 1801)
    g = np.asarray(_so_integral(x[None, :], grid[:, None]))  # (grid, samples)
    gg = (g * g).sum(axis=1)
    norm = np.where(gg > 0, (g * succ[None, :]).sum(axis=1) / np.where(gg > 0, gg, 1.0), 0.0)
    sse = ((norm[:, None] * g - succ[None, :]) ** 2).sum(axis=1)
    best = int(np.argmin(sse))
    w_eff, nrm = float(grid[best]), float(norm[best])
    denom = nrm * float(_so_integral(float(n_rows), w_eff))
    if not np.isfinite(denom) or denom <= 0:
        return 1.0
    return nrm * float(_so_integral(float(n_target), w_eff)) / denom


# --- games ---------------------------------------------------------------------------------------


class SinglingOutPredicateAttack(Protocol):
    """What the singling-out game needs from an attack."""

    def fit(self, synthetic: Table, *, rng: np.random.Generator) -> Any: ...

    def predicates_(self, n: int, *, rng: np.random.Generator) -> PredicateSet: ...

    @property
    def baseline_n_cols(self) -> int: ...


def check_same_columns(**tables: Table) -> None:
    """Raise one :class:`InputError` listing column differences between named tables."""
    names = list(tables)
    ref = tables[names[0]].schema
    problems = []
    for other in names[1:]:
        sch = tables[other].schema
        diff = column_differences(ref.names, sch.names)
        problems += [f"the {other} data: {p}" for p in diff]
        if not diff:
            kinds = [c.name for c in ref.columns if sch[c.name].kind is not c.kind]
            if kinds:
                problems.append(f"{other} types {kinds} differently")
    if problems:
        raise InputError(
            f"the {', '.join(names)} data must have the same columns: {'; '.join(problems)}; "
            "give files with identical columns"
        )


class SinglingOutGame:
    """Singling-out privacy game (Anonymeter, Sec. 4.1).

    Parameters
    ----------
    original, synthetic, control : Table
        Same schema. ``control`` holds real records the generator never saw.
    n_attacks : int, default 500
        Predicates requested from the attack (and random baseline predicates).
    confidence : float, default 0.95
    correct_control_size : bool, default True
        Rescale control successes to the size of the original (module docstring).

    Examples
    --------
    >>> game = SinglingOutGame(ori, syn, ctrl, n_attacks=500)             # doctest: +SKIP
    >>> result = game.run(MultivariateSinglingOut(n_cols=3), rng=rng)    # doctest: +SKIP
    >>> result.risk.value                                                  # doctest: +SKIP

    Notes
    -----
    Threat model: no-box (the adversary sees only the released synthetic data); success means a
    predicate learnt from the synthetic data isolates exactly one real record.

    References
    ----------
    Giomi et al. (2023) (Anonymeter), Secs. 3 and 4.1.
    """

    def __init__(
        self,
        original: Table,
        synthetic: Table,
        control: Table,
        *,
        n_attacks: int = 500,
        confidence: float = 0.95,
        correct_control_size: bool = True,
    ) -> None:
        check_same_columns(original=original, synthetic=synthetic, control=control)
        if original.schema != synthetic.schema or original.schema != control.schema:
            raise InputError(
                "original, synthetic and control must be encoded with the same schema: "
                "infer it on the original and encode the others with it"
            )
        if n_attacks < 1:
            raise InputError(f"n_attacks={n_attacks} must be at least 1")
        for name, t in (("original", original), ("synthetic", synthetic), ("control", control)):
            if len(t) == 0:
                raise InputError(f"the {name} data has no records: give a non-empty table")
        self.original = unique_rows(original)
        self.synthetic = unique_rows(synthetic)
        self.control = unique_rows(control)
        self.n_attacks = n_attacks
        self.confidence = confidence
        self.correct_control_size = correct_control_size
        self._original_index = TableIndex.build(self.original)
        self._control_index = TableIndex.build(self.control)

    def score(
        self,
        predicates: PredicateSet,
        baseline: PredicateSet,
        *,
        mode: str,
        rng: np.random.Generator,
    ) -> RiskResult:
        """Score attack predicates and baseline predicates on the original and control data."""
        if len(predicates) == 0:
            raise InputError(
                f"the {mode} attack found no predicate that singles out a synthetic record: "
                "the synthetic data has no unique records to exploit (try another mode or more columns)"
            )
        n_success = int(
            (predicates.count(self.original, cap=2, index=self._original_index) == 1).sum()
        )
        ctrl_bits = predicates.match_bitsets(self.control, index=self._control_index)
        n_control = float((popcount(ctrl_bits) == 1).sum())
        if self.correct_control_size:
            n_control *= size_correction(ctrl_bits, len(self.control), len(self.original), rng=rng)
            n_control = min(n_control, float(len(predicates)))
        n_base = int((baseline.count(self.original, cap=2, index=self._original_index) == 1).sum())
        return risk_from_counts(
            mode,
            n_requested=self.n_attacks,
            n_attacks=len(predicates),
            n_success=n_success,
            n_control_attacks=len(predicates),
            n_control_success=n_control,
            n_baseline_attacks=len(baseline),
            n_baseline_success=n_base,
            confidence=self.confidence,
        )

    def run(
        self,
        attack: SinglingOutPredicateAttack,
        *,
        rng: np.random.Generator,
        mode: str | None = None,
    ) -> RiskResult:
        """Fit ``attack`` on the synthetic data, draw predicates and score them."""
        attack.fit(self.synthetic, rng=rng)
        preds = attack.predicates_(self.n_attacks, rng=rng)
        base = random_predicates(self.synthetic, self.n_attacks, attack.baseline_n_cols, rng=rng)
        name = mode or str(getattr(attack, "mode", type(attack).__name__))
        return self.score(preds, base, mode=name, rng=rng)


class LinkabilityGame:
    """Linkability privacy game (Anonymeter, Sec. 4.2).

    ``n_attacks`` targets are drawn without replacement from the original and (separately) from
    the control records; each is attacked with :class:`~synthleak.attacks.linkability.LinkabilityAttack`.
    The baseline draws ``k`` random synthetic records for each half.

    References
    ----------
    Giomi et al. (2023) (Anonymeter), Secs. 3 and 4.2.
    """

    def __init__(
        self,
        original: Table,
        synthetic: Table,
        control: Table,
        *,
        n_attacks: int = 500,
        confidence: float = 0.95,
    ) -> None:
        check_same_columns(original=original, synthetic=synthetic, control=control)
        if n_attacks < 1:
            raise InputError(f"n_attacks={n_attacks} must be at least 1")
        self.original, self.synthetic, self.control = original, synthetic, control
        self.n_attacks = n_attacks
        self.confidence = confidence

    def run(self, attack: LinkabilityAttack, *, rng: np.random.Generator) -> RiskResult:
        attack.fit(self.synthetic, rng=rng)
        n_ori = min(self.n_attacks, len(self.original))
        n_ctl = min(self.n_attacks, len(self.control))
        targets = self.original.take(rng.choice(len(self.original), size=n_ori, replace=False))
        controls = self.control.take(rng.choice(len(self.control), size=n_ctl, replace=False))
        k = attack.n_neighbors
        m = len(self.synthetic)
        base = sets_intersect(
            random_neighbors(m, self.n_attacks, k, rng=rng),
            random_neighbors(m, self.n_attacks, k, rng=rng),
        )
        return risk_from_counts(
            "linkability",
            n_requested=self.n_attacks,
            n_attacks=n_ori,
            n_success=int(attack.links_(targets).sum()),
            n_control_attacks=n_ctl,
            n_control_success=float(attack.links_(controls).sum()),
            n_baseline_attacks=self.n_attacks,
            n_baseline_success=int(base.sum()),
            confidence=self.confidence,
        )
