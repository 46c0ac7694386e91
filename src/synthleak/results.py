"""What an audit found: :class:`Finding` per attack outcome, :class:`AuditResult` per audit.

Every section is a typed, frozen result (:class:`~synthleak.serde.Result`) and the whole audit
round-trips through JSON losslessly; reports are built from it alone.

Verdicts
--------
A finding's verdict reads its confidence interval against its baseline. :class:`Verdict` holds
the one wording of each state and :data:`VERDICT_MEANING` its one plain sentence; every part of
the report (summary, findings, section tables, JSON, Markdown) prints these and nothing else:

* ``not measured`` — there is no estimate or no baseline (the stage could not run, or nothing
  to compare with); never "no evidence";
* ``measurable leakage`` / ``severe leakage`` — the whole interval lies above the baseline (severe:
  its lower bound also clears :data:`SEVERE_THRESHOLD`), and the finding stays significant after
  Holm's correction over all findings of the audit (:func:`assess`);
* ``too small to measure`` — no evidence, but the interval is wider than :data:`MAX_WIDTH` (or
  than the stricter limit of the game that measured it, which then says ``too small to measure``
  in the finding's ``details["status"]``), or a proportion rests on fewer trials than
  :func:`min_trials` (62 at 95 %: fewer could not resolve a rate near one half, however narrow
  the interval of a rate near 0 happens to be): the data (or the budget) cannot tell "no leak"
  from a serious one;
* ``no evidence of leakage`` — otherwise.

Copies of real people are severe by their count, not by a rate: a copy finding of whole records
(``copies.exact``) whose excess over chance (or over the control) is significant publishes real
people verbatim, and one published real record is enough for a statistical office to block a
release; it reads ``severe leakage`` whatever the size of the rate. (Values only one real person
holds, ``copies.rare_values``, rank with the copies but keep the rules of every rate: a lone value
is not a whole person.) An interval that lies above its baseline but is wider than
:data:`MAX_WIDTH` and clears the baseline by less than a tenth of its width (0.000 to 0.916
against 0) cannot tell a slight leak from a serious one: it reads ``too small to measure``
(unless its lower bound alone clears the severity threshold, or it counts published people); a
wide interval well clear of its baseline (AUC 0.60 to 0.99) stays a leak.

Harm ordering
-------------
Findings are ordered by the harm they show to people (:func:`harm_order`), and this one order
decides the report's first finding, its verdict sentence, the findings table and the
``harm_order`` list of ``report.json``. :class:`~synthleak.harm.Harm` has three classes, most
harmful first:

1. real people published verbatim (the copy findings ``copies.*``: whole records, values only one
   real person holds, copied column values);
2. records singled out, linked or inferred (singling out, linkability, attribute inference);
3. aggregate membership signals (membership AUCs without and with the generator, the risk map):
   the release tells the training records from others as a group, no record is named.

Findings that show a leak come first, by class (so a copy of real people that the release holds
more often than chance is named first, with its count, whatever the other figures); within a
class by verdict (severe first), then by how far the interval's lower bound clears its baseline
(relative to the scale); the rest follow in the same order. Real people found verbatim no more
often than chance (:meth:`Finding.people_published`) are named with their count in the summary's
verdict sentence, not first: a release of real people who were not in the data holds such chance
matches too.

Multiple testing: an audit reads many findings, so the chance that at least one interval clears
its baseline by accident grows with their number. Every finding carries a one-sided p-value of
"no leak" from its estimator's own null distribution or an exact test
(:attr:`~synthleak.metrics.privacy.RiskEstimate.p_value`: DeLong/Hanley-McNeil for an AUC, the
exact binomial test for an accuracy against a fixed chance rate, Fisher's exact test for a rate
over the control's, the score test for an attribute advantage, the null-variance normal test of
the singling-out excess), never one read from an interval that may be clipped at 0;
:func:`one_sided_p` is the fallback for an estimate without one (older reports, the risk map).
:func:`assess` applies Holm's step-down procedure at 5 % to them: the probability that any "leak"
verdict of the audit is a false alarm is then at most 5 % (the exact tests are conservative, the
normal ones approximate). The price is that a finding's verdict depends on how many tests the
audit made, so every finding keeps both figures: ``p_value`` (the test alone) and ``p_holm``
(Holm-adjusted over the ``n_tests`` findings of the audit; the corrected test rejects when it is
at most 5 %), and the report prints both beside the verdict.

References
----------
Holm (1979), "A simple sequentially rejective multiple test procedure"; Giomi et al. (2023),
Sec. 3 (risks against a baseline).
"""

from __future__ import annotations

import math
import platform
from collections.abc import Sequence
from dataclasses import dataclass, field, fields, replace
from enum import StrEnum
from importlib import metadata
from pathlib import Path
from statistics import NormalDist
from typing import Any

import numpy as np
import pandas as pd

from synthleak.data.domain import DomainReport
from synthleak.data.profile import DataProfile, DataWarning
from synthleak.data.schema import Schema
from synthleak.errors import InputError
from synthleak.games.attribute import AttributeGameResult
from synthleak.games.attribute_release import ReleaseAttributeResult
from synthleak.games.cost import Power
from synthleak.games.membership import AttackSummary, MembershipConfig, MembershipResult
from synthleak.games.membership_release import MembershipReleaseResult
from synthleak.games.nobox import NoBoxMembershipResult
from synthleak.games.person import PersonMembershipResult
from synthleak.games.person_attribute import PersonAttributeResult
from synthleak.games.person_copies import PersonCopiesResult
from synthleak.games.person_risks import PersonRisksResult
from synthleak.games.person_shadow import PersonShadowResult
from synthleak.games.riskmap import RiskMapResult
from synthleak.games.secret import Measurement, SecretRule
from synthleak.games.shadow import GeneratorFailures
from synthleak.games.sweep import AttributeSweepResult
from synthleak.harm import PEOPLE_COPIES, PUBLISHED_WORDS, FindingKey, Harm, harm_class
from synthleak.metrics.copies import CopyReport
from synthleak.metrics.epsilon import EpsilonEstimate
from synthleak.metrics.privacy import RiskEstimate, holm_adjusted
from synthleak.modes import AUDIT_SELECTORS, Budget, Neighbouring, TargetMethod
from synthleak.policy import PolicyResult
from synthleak.serde import FloatArray, Result
from synthleak.threat import ThreatModel

RESULT_VERSION = 2


class MetricKind(StrEnum):
    """The scale a finding is measured on."""

    RISK = "risk"  # Anonymeter-style risk in [0, 1], 0 = no better than the control set
    AUC = "auc"  # membership AUC, 0.5 = guessing
    ACCURACY = "accuracy"  # attribute-inference accuracy against its baseline
    RATE = "rate"  # a proportion (copies) against the rate expected by chance
    ADVANTAGE = "advantage"  # accuracy on training records minus on unseen records, 0 = none


class Verdict(StrEnum):
    """How a finding reads against its baseline (module docstring)."""

    NOT_MEASURED = "not measured"
    TOO_SMALL = "too small to measure"
    NO_EVIDENCE = "no evidence of leakage"
    LEAK = "measurable leakage"
    SEVERE = "severe leakage"


#: The one plain sentence of each verdict (the report's "How to read" section and glossary).
VERDICT_MEANING: dict[Verdict, str] = {
    Verdict.NOT_MEASURED: (
        "the attack could not run (an input was missing, or it failed), so nothing is concluded"
    ),
    Verdict.TOO_SMALL: (
        "the interval is too wide to tell no leakage from serious leakage (or to say how large "
        "a leak is): more records (or a larger budget) are needed for a verdict"
    ),
    Verdict.NO_EVIDENCE: (
        "the interval includes the baseline or lies below it, or clears it by less than the "
        "correction for the audit's other tests requires: this attack showed no leak at this "
        "budget"
    ),
    Verdict.LEAK: (
        "the whole interval lies above the baseline and stays significant after Holm's "
        "correction over all the audit's tests: the release leaks"
    ),
    Verdict.SEVERE: (
        "measurable leakage that publishes real people's whole records verbatim (one is "
        "enough), or whose interval also lies above the severity "
        "threshold (AUC or accuracy 0.8, risk or advantage 0.2, rate 0.05): the release leaks "
        "badly"
    ),
}


#: Lower CI bounds at or above these values read as severe
#: (a strong, not merely detectable, attack).
SEVERE_THRESHOLD = {
    MetricKind.RISK: 0.2,
    MetricKind.AUC: 0.8,
    MetricKind.ACCURACY: 0.8,
    MetricKind.RATE: 0.05,
    MetricKind.ADVANTAGE: 0.2,
}
#: Intervals wider than this (a quarter to a third of the scale) cannot tell "no leak" from a
#: serious one: without evidence of a leak, such a finding reads "too small to measure".
MAX_WIDTH = {
    MetricKind.RISK: 0.25,
    MetricKind.AUC: 0.3,
    MetricKind.ACCURACY: 0.3,
    MetricKind.RATE: 0.25,
    MetricKind.ADVANTAGE: 0.2,
}
#: Family-wise false-alarm rate of the verdicts of one audit.
ALPHA = 0.05


def _finite(x: float | None) -> bool:
    return x is not None and isinstance(x, int | float) and math.isfinite(x)


def _p(p: float, alpha: float | None = None) -> str:
    """A p-value for the report: ``p = 0.012``, small ones as ``p < 0.001``.

    With ``alpha`` (the level a decision compares it with), a value above ``alpha`` that three
    decimals would round onto it reads ``p > 0.050``: the printed number never contradicts the
    decision (0.0500001 is not significant at 5 %).
    """
    return "p " + p_text(p, alpha)


def p_text(p: float, alpha: float | None = None) -> str:
    """The number part of :func:`_p`: ``= 0.012``, ``< 0.001``, or ``> 0.050`` just above
    ``alpha``."""
    if p < 0.001:
        return "< 0.001"
    if alpha is not None and p > alpha and round(p, 3) <= alpha:
        return f"> {alpha:.3f}"
    return f"= {p:.3f}"


#: The status a game writes in a finding's details when its interval is too wide to read
#: (:class:`synthleak.games.secret.Measurement`).
TOO_SMALL_STATUS = Measurement.TOO_SMALL.value


def default_baseline(metric: MetricKind) -> float:
    """The baseline of a scale when the estimate does not give one (0 risk, 0.5 AUC)."""
    return 0.5 if metric is MetricKind.AUC else 0.0


def individual_verdict(
    metric: MetricKind,
    estimate: RiskEstimate,
    baseline: float | None,
    *,
    too_wide: bool = False,
    published: bool = False,
) -> Verdict:
    """The verdict of one finding on its own (before the correction for multiple testing).

    ``too_wide`` says that the game which measured the estimate judged its interval too wide to
    read (a stricter limit than :data:`MAX_WIDTH`): without evidence of a leak, the finding is then
    "too small to measure" too, so the game's table and the finding never disagree.
    ``published`` says that the finding counts real people found verbatim in the release
    (:data:`~synthleak.harm.PEOPLE_COPIES`): above its baseline it is severe whatever the rate.
    An interval above its baseline but wider than :data:`MAX_WIDTH` whose lower bound clears the
    baseline by less than a tenth of its width (and not severe) is "too small to measure".
    """
    e = estimate
    if not (_finite(baseline) and _finite(e.value) and _finite(e.ci_low) and _finite(e.ci_high)):
        return Verdict.NOT_MEASURED
    assert baseline is not None
    if e.ci_low > baseline:
        if e.ci_low >= SEVERE_THRESHOLD[metric] or published:
            return Verdict.SEVERE
        width = e.ci_high - e.ci_low
        if width > MAX_WIDTH[metric] and e.ci_low - baseline < width / 10:
            return Verdict.TOO_SMALL  # a leak of any size from none up (0.000 to 0.916)
        return Verdict.LEAK
    return _no_leak(metric, e, too_wide)


#: Scales that are proportions of trials (a success rate, an accuracy, an excess risk over the
#: control's rate): their interval's width depends on where the estimate falls, not only on the
#: number of trials.
PROPORTIONS = frozenset({MetricKind.RISK, MetricKind.RATE, MetricKind.ACCURACY})


def min_trials(metric: MetricKind, confidence: float = 0.95) -> int:
    """The fewest trials that resolve a proportion to :data:`MAX_WIDTH` wherever it falls.

    A proportion's interval is widest at one half: about ``2 z sqrt(1/4n) = z / sqrt(n)`` wide.
    An estimate of 0 out of 20 has a narrow interval (0 to 0.16) only because nothing happened
    to succeed; 20 trials could not have told 0.3 from 0.6 either, so they cannot tell "no
    leak" from a serious one. Below this many trials a finding without evidence of a leak is
    "too small to measure". 0 for the scales that are not proportions.
    """
    if metric not in PROPORTIONS:
        return 0
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    return math.ceil((z / MAX_WIDTH[metric]) ** 2)


def _digits(e: RiskEstimate, baseline: float, least: int) -> int:
    """Decimals that print an interval's ends on the same side of the baseline as they are
    (``least`` or more, up to 6): a lower bound of 0.0004 above 0 is not printed as 0.000."""
    k = least
    for end in (e.ci_low, e.ci_high):
        while k < 6 and end != baseline and round(end, k) == round(baseline, k):
            k += 1
    return k


def _too_few_trials(metric: MetricKind, e: RiskEstimate) -> bool:
    return 0 < e.n_trials < min_trials(metric, e.confidence)


def _no_leak(metric: MetricKind, e: RiskEstimate, too_wide: bool) -> Verdict:
    """ "too small to measure" or "no evidence", for a finding without evidence of a leak."""
    if too_wide or e.ci_high - e.ci_low > MAX_WIDTH[metric] or _too_few_trials(metric, e):
        return Verdict.TOO_SMALL
    return Verdict.NO_EVIDENCE


def one_sided_p(estimate: RiskEstimate, baseline: float) -> float:
    """One-sided p-value of "the true value is at most the baseline".

    The estimator's own p-value (:attr:`RiskEstimate.p_value`) when it has one. Otherwise
    (an older report, or an estimator that keeps no null distribution, as the risk map's
    Bonferroni intervals) a normal approximation from the interval whose standard error is read
    from the **wider** half-interval: an interval clipped at a bound of its scale (a risk at 0)
    has a short half on that side, and reading the standard error from it would give
    ``p = (1 - confidence) / 2`` whatever the estimate. A degenerate interval gives 0 or 1; NaN
    when nothing was measured.
    """
    e = estimate
    if not (_finite(e.value) and _finite(e.ci_low) and _finite(e.ci_high)):
        return math.nan
    if _finite(e.p_value):
        return float(e.p_value)
    z_conf = NormalDist().inv_cdf(0.5 + e.confidence / 2)
    half = max(e.value - e.ci_low, e.ci_high - e.value)
    if half <= 0:
        return 0.0 if e.value > baseline else 1.0
    return 1.0 - NormalDist().cdf((e.value - baseline) / (half / z_conf))


def holm(p_values: Sequence[float], alpha: float = ALPHA) -> list[bool]:
    """Holm's step-down rejections (``True`` = significant); NaN p-values are never rejected."""
    idx = [i for i, p in enumerate(p_values) if _finite(p)]
    order = sorted(idx, key=lambda i: p_values[i])
    out = [False] * len(p_values)
    m = len(order)
    for rank, i in enumerate(order):
        if p_values[i] > alpha / (m - rank):
            break
        out[i] = True
    return out


@dataclass(frozen=True, repr=False)
class Finding(Result):
    """One attack outcome with its threat model and verdict.

    Attributes
    ----------
    key : str
        Stable identifier, e.g. ``singling_out.multivariate``.
    title : str
        Plain-words title.
    metric : MetricKind
    estimate : RiskEstimate
        Value, confidence interval and baseline.
    threat : ThreatModel
    details : dict
        Attack-specific numbers (counts, rates, configuration).
    where : tuple of str
        Where the leak is, in words (columns, example predicates); never a real record.
    verdict : Verdict
        Set by :func:`assess` over all findings of an audit; on its own a finding gets its
        individual verdict.
    p_value : float
        One-sided p-value against the baseline, the test on its own: the estimator's own
        (:attr:`RiskEstimate.p_value`), else :func:`one_sided_p`'s fallback (NaN when not
        measured).
    p_holm : float
        The p-value adjusted by Holm's procedure over the ``n_tests`` findings of the audit (set
        by :func:`assess`; NaN before). The corrected test rejects when it is at most 5 %.
    n_tests : int
        Findings with a p-value in the audit's family (0 before :func:`assess`).
    """

    key: str
    title: str
    metric: MetricKind
    estimate: RiskEstimate
    threat: ThreatModel
    details: dict[str, Any] = field(default_factory=dict)
    where: tuple[str, ...] = ()
    verdict: Verdict | None = None
    p_value: float = math.nan
    p_holm: float = math.nan
    n_tests: int = 0

    def __post_init__(self) -> None:
        if self.verdict is None:
            object.__setattr__(self, "verdict", self.verdict_alone())
        if not _finite(self.p_value) and _finite(self.baseline):
            object.__setattr__(self, "p_value", one_sided_p(self.estimate, self.baseline))

    @property
    def too_wide(self) -> bool:
        """Whether the game that measured the estimate judged its interval too wide to read."""
        return self.details.get("status") == TOO_SMALL_STATUS

    def verdict_alone(self) -> Verdict:
        """The verdict of this test on its own, before the correction for multiple testing."""
        return individual_verdict(
            self.metric,
            self.estimate,
            self.baseline,
            too_wide=self.too_wide,
            published=self.key in PEOPLE_COPIES and self.people_published() > 0,
        )

    @property
    def harm(self) -> Harm:
        """The harm class of this finding (:func:`~synthleak.harm.harm_class`)."""
        return harm_class(self.key)

    def people_published(self) -> int:
        """Distinct real (training) records this copy finding found verbatim in the release; 0
        for the other findings.

        Read from ``details["people_published"]``; a finding written before that count existed
        gives its copied training records (``n_copied``) or training records whose lone value
        the release holds (``released``).
        """
        if self.harm is not Harm.PUBLISHED:
            return 0
        d = self.details
        n = d.get("people_published", d.get("n_copied", d.get("released", 0)))
        return int(n) if _finite(n) else 0

    def compared_with(self) -> str:
        """What a rate finding's baseline is: ``"control"`` (the same rate among real people the
        generator never saw), ``"chance"`` (the rate expected by chance without a control) or
        ``"none"`` (nothing to compare with); read from ``details["compared_with"]``, else from
        which rate the baseline was (``baseline_of``)."""
        d = self.details
        if "compared_with" in d:
            return str(d["compared_with"])
        if d.get("baseline_of") == "original records":  # duplicates within the original
            return "chance"
        return "control"

    def position(self) -> str | None:
        """Where the interval lies against the baseline: ``"above"`` (its lower bound clears
        it), ``"below"`` (its upper bound is under it), ``"across"`` (it includes it), or None
        without an interval."""
        e = self.estimate
        if not (_finite(e.ci_low) and _finite(e.ci_high) and _finite(self.baseline)):
            return None
        if e.ci_low > self.baseline:
            return "above"
        if e.ci_high < self.baseline:
            return "below"
        return "across"

    def clearance(self) -> float:
        """How far the interval's lower bound lies above the baseline, relative to the scale
        (negative below it; -inf without an interval)."""
        lo = self.estimate.ci_low
        if not (_finite(lo) and _finite(self.baseline)):
            return -math.inf
        scale = 1.0 - self.baseline if self.baseline < 1 else 1.0
        return (lo - self.baseline) / scale

    def corrected_away(self) -> bool:
        """Whether the test alone shows a leak that Holm's correction does not confirm."""
        return self.verdict_alone() in (Verdict.LEAK, Verdict.SEVERE) and self.verdict not in (
            Verdict.LEAK,
            Verdict.SEVERE,
        )

    def significance(self) -> str:
        """The test alone and after Holm's correction, in one line (empty when not measured)."""
        if self.verdict is Verdict.NOT_MEASURED or not _finite(self.p_value):
            return ""
        alone = f"{_p(self.p_value)} alone"
        if not _finite(self.p_holm) or self.n_tests <= 1:
            return alone
        rejects = "significant" if self.p_holm <= ALPHA else "not significant"
        return (
            f"{alone}; {_p(self.p_holm, ALPHA)} after Holm's correction over {self.n_tests} "
            f"tests ({rejects} at 5%)"
        )

    @property
    def baseline(self) -> float:
        b = self.estimate.baseline
        return default_baseline(self.metric) if b is None else b

    def explanation(self) -> str:
        """What the number means, in plain words: the figure with its interval, then one
        sentence chosen by where the interval lies against the baseline (above, across, below),
        then the verdict. Each state has one wording; the baseline is always printed."""
        e = self.estimate
        if self.verdict is Verdict.NOT_MEASURED:
            why = self.details.get("not_measured", "there was no estimate or no baseline")
            return f"Not measured: {why}."
        k = _digits(e, self.baseline, 4 if self.metric is MetricKind.RATE else 3)
        ci = f"{e.ci_low:.{k}f} to {e.ci_high:.{k}f}"
        conf = f"{round(100 * e.confidence)}%"
        b = f"{self.baseline:.{k}f}"
        compared = self.compared_with()
        if self.metric is MetricKind.AUC:
            head = (
                f"AUC {e.value:.{k}f} ({conf} CI {ci}); 0.5 means the attacker cannot tell members "
                "from non-members, 1.0 means they always can."
            )
            less = "the attack scores the people in the data lower than people who were not"
        elif self.metric is MetricKind.ACCURACY:
            head = f"accuracy {e.value:.{k}f} ({conf} CI {ci}) against a baseline of {b}."
            less = "the attack does worse than the baseline"
        elif self.metric is MetricKind.ADVANTAGE:
            ci = f"{e.ci_low:+.{k}f} to {e.ci_high:+.{k}f}"
            head = (
                f"advantage {e.value:+.{k}f} ({conf} CI {ci}): "
                "accuracy on the training records minus accuracy on people the generator never "
                "saw; 0 means the release teaches the attacker nothing about the people in it."
            )
            less = "the attack does worse on the people in the data than on people it never saw"
        elif self.metric is MetricKind.RATE and self.baseline == 0.0:
            ci = f"{e.ci_low:+.{k}f} to {e.ci_high:+.{k}f}"
            if compared == "control":
                head = (
                    f"excess over control {e.value:+.{k}f} ({conf} CI {ci}): the rate among the "
                    "people in the data minus the same rate among people who were not (the "
                    "control set); 0 means the release treats them alike."
                )
                less = "the release does this less for the people in the data than for the control"
            elif compared == "chance":
                head = (
                    f"excess over chance {e.value:+.{k}f} ({conf} CI {ci}): the rate among the "
                    "people in the data minus the rate expected by chance (no control set was "
                    "given); 0 means the release does this no more than chance would."
                )
                less = "the release does this less than chance would"
            else:
                head = (
                    f"excess {e.value:+.{k}f} ({conf} CI {ci}) over the rate expected without "
                    "leakage; no control set was given to measure that rate on real people."
                )
                less = "the release does this less than expected without leakage"
        elif self.metric is MetricKind.RATE:
            head = f"rate {e.value:.{k}f} ({conf} CI {ci}) against {b} expected by chance."
            less = "the release does this less than chance would"
        else:
            head = (
                f"risk {e.value:.{k}f} ({conf} CI {ci}); 0 means the attack does no better on the "
                "real records than on records that were never used (the control set), 1 means "
                "every attempt succeeds because of the release."
            )
            less = "the attack does worse on the real records than on the control records"
        d = self.details
        if self.metric is MetricKind.RISK and "attack_rate" in d and "baseline_rate" in d:
            head += (
                f" Success rates: {d['attack_rate']:.3f} on the real records, "
                f"{d.get('control_rate', float('nan')):.3f} on the control records, "
                f"{d['baseline_rate']:.3f} for random guesses."
            )
        people = self.people_published()
        if people:
            if self.key in PEOPLE_COPIES:
                one, many = PUBLISHED_WORDS[FindingKey(self.key)]
                head += (
                    f" 1 real person's {one} appears verbatim in the release."
                    if people == 1
                    else f" {people} real people's {many} appear verbatim in the release."
                )
            else:
                head += (
                    f" The release holds values that only {people} real "
                    f"{'person holds' if people == 1 else 'people hold'}."
                )
        return f"{head} {self._reading(b, less, people)}"

    def _reading(self, b: str, less: str, people: int) -> str:
        """The sentence of the interval's position against the baseline ``b``, and the verdict."""
        e, where = self.estimate, self.position()
        if self.verdict is Verdict.TOO_SMALL:
            if self.too_wide:
                width = self.details.get(
                    "too_small", "the game that measured it judged its interval too wide to read"
                )
            elif _too_few_trials(self.metric, e):
                width = (
                    f"it rests on {e.n_trials} trials; at least "
                    f"{min_trials(self.metric, e.confidence)} are needed for an interval no "
                    f"wider than {MAX_WIDTH[self.metric]:.2f} wherever the rate falls"
                )
            else:
                width = f"the interval is wider than {MAX_WIDTH[self.metric]:.2f}"
            lies = {"above": "lies wholly above", "below": "lies wholly below"}.get(
                str(where), "includes"
            )
            return (
                f"{width[0].upper()}{width[1:]}: too few records or attacks to tell no or slight "
                f"leakage from serious leakage (the interval {lies} the baseline of {b}); more "
                f"data (or a larger budget) is needed. Verdict: {Verdict.TOO_SMALL.value}."
            )
        if self.verdict is Verdict.SEVERE:
            if people and self.key in PEOPLE_COPIES:
                return (
                    f"The whole interval lies above the baseline of {b}: the release publishes "
                    f"{people} real {'person' if people == 1 else 'people'} verbatim, and one "
                    f"is enough to block a release. Verdict: {Verdict.SEVERE.value}."
                )
            return (
                f"The whole interval lies above the baseline of {b} and above the severity "
                f"threshold of {SEVERE_THRESHOLD[self.metric]}. Verdict: "
                f"{Verdict.SEVERE.value}: the release leaks badly."
            )
        if self.verdict is Verdict.LEAK:
            return (
                f"The whole interval lies above the baseline of {b}. Verdict: "
                f"{Verdict.LEAK.value}: the release leaks."
            )
        if where == "above":  # a leak alone that Holm's correction does not confirm
            return (
                f"The whole interval lies above the baseline of {b} ({_p(self.p_value)} for "
                "this test alone), but not by enough once the audit's other tests are "
                f"accounted for ({_p(self.p_holm, ALPHA)} after Holm's correction over "
                f"{self.n_tests} tests, above 5%). Verdict: {Verdict.NO_EVIDENCE.value}."
            )
        if where == "below":
            return (
                f"The whole interval lies below the baseline of {b}: {less}. Verdict: "
                f"{Verdict.NO_EVIDENCE.value} at this budget."
            )
        return (
            f"The interval includes the baseline of {b}. Verdict: "
            f"{Verdict.NO_EVIDENCE.value} at this budget."
        )


def at_least_sentence(entry: dict[str, object]) -> str:
    """ "At least k of the n targets have a membership AUC above L (95 % confidence): rows ...",
    or that none is shown to when ``k`` is 0."""
    k, n, lv = entry["k"], entry["n_targets"], entry["level"]
    conf = f"{round(100 * float(entry['confidence']))}%"  # type: ignore[arg-type]
    rows = list(entry["rows"])  # type: ignore[call-overload]
    word = "row" if len(rows) == 1 else "rows"
    listed = f": {word} {', '.join(str(r) for r in rows)}" if rows else ""
    if not k:  # "at least 0" would read as a finding
        return (
            f"none of the {n} targets is shown to have a membership AUC above {lv} "
            f"({conf} confidence)"
        )
    verb = "has" if k == 1 else "have"
    return (
        f"at least {k} of the {n} targets {verb} a membership AUC above {lv} "
        f"({conf} confidence){listed}"
    )


def assess(findings: Sequence[Finding], alpha: float = ALPHA) -> tuple[Finding, ...]:
    """Verdicts of a family of findings with Holm's correction (module docstring).

    Each finding keeps its p-value alone and gets its Holm-adjusted p-value and the number of
    tests; a leak the correction does not confirm reads "no evidence of leakage" (or "too small
    to measure" when its interval is too wide to read).
    """
    p = [f.p_value for f in findings]
    significant = holm(p, alpha)
    adjusted = holm_adjusted(p)
    n_tests = sum(1 for x in p if _finite(x))
    out = []
    for f, sig, adj in zip(findings, significant, adjusted, strict=True):
        v = f.verdict_alone()
        if v in (Verdict.LEAK, Verdict.SEVERE) and not sig:
            v = _no_leak(f.metric, f.estimate, f.too_wide)
        out.append(replace(f, verdict=v, p_holm=adj, n_tests=n_tests))
    return tuple(out)


#: Verdicts from the most to the least alarming (the order within a harm class).
VERDICT_ORDER = (
    Verdict.SEVERE,
    Verdict.LEAK,
    Verdict.NO_EVIDENCE,
    Verdict.TOO_SMALL,
    Verdict.NOT_MEASURED,
)


def alarming(f: Finding) -> bool:
    """Whether a finding heads the harm order: it shows a leak (after Holm's correction).

    Copies of real people that the release holds no more often than chance are not: on a
    release of real people who were not in the data they occur by chance too (common records,
    values), and heading the report with them would be a false alarm; the summary still names
    their count (:func:`synthleak.report.document._headline`).
    """
    return f.verdict in (Verdict.LEAK, Verdict.SEVERE)


def harm_order(findings: Sequence[Finding]) -> tuple[Finding, ...]:
    """Findings ordered by harm to people (module docstring, "Harm ordering").

    First the alarming ones (:func:`alarming`), then the rest; each group by :class:`Harm`
    class, then by verdict (:data:`VERDICT_ORDER`), then by how far the interval clears its
    baseline (:meth:`Finding.clearance`, furthest first); ties keep the audit's order.
    """

    def rank(i: int) -> tuple[int, int, int, float, int]:
        f = findings[i]
        v = f.verdict or Verdict.NOT_MEASURED
        return (0 if alarming(f) else 1, int(f.harm), VERDICT_ORDER.index(v), -f.clearance(), i)

    return tuple(findings[i] for i in sorted(range(len(findings)), key=rank))


class StageStatus(StrEnum):
    """What happened to a stage of the audit."""

    MEASURED = "measured"
    NOT_MEASURED = "not measured"
    NOT_APPLICABLE = "not applicable"
    FAILED = "failed"


@dataclass(frozen=True, repr=False)
class StageRecord(Result):
    """One stage of an audit: whether it ran, and if not, why and what input it needs."""

    name: str
    title: str
    status: StageStatus
    reason: str = ""
    needs: str = ""
    seconds: float = math.nan

    def sentence(self) -> str:
        """The stage in one line for the report."""
        if self.status is StageStatus.MEASURED:
            return f"{self.title}: measured."
        text = f"{self.title}: {self.status.value}"
        if self.reason:
            text += f" ({self.reason})"
        if self.needs:
            text += f"; needs {self.needs}"
        return text + "."


@dataclass(frozen=True, repr=False, kw_only=True)
class BudgetPlan(Result):
    """Sizes behind a budget (see :data:`BUDGETS`); every field is given by name."""

    n_attacks: int  # singling-out predicates, linkability targets, no-box members/non-members
    mia_targets: int  # most vulnerable records attacked with shadow models
    mia_controls: int  # random records attacked as a control
    shadows: int
    tests: int
    # most training records per shadow dataset: the game's datasets hold as many as the
    # release was trained on, up to this (pipeline.game_train_size)
    n: int
    mia_attacks: tuple[str, ...]
    aia_games: int
    screen_datasets: int = 100  # shadow (and test) datasets of the two-stage screen
    # shadow datasets of the game after a two-stage screen (default: shadows), sized so the
    # screen and the game together take about the time of the game alone (BENCHMARKS.md)
    screened_shadows: int | None = None
    # release attribute inference: training records attacked (None: all) and counting queries
    # per linear program (None: all); its cost grows with records x queries
    aia_records: int | None = None
    aia_queries: int | None = None
    # seconds the randomised-secret attribute game may take without max_time (None: all
    # aia_games, the named budgets' choice, so their figures do not depend on the machine's
    # speed); games beyond the first AIA_MIN_GAMES are played only if a pilot projects they fit
    aia_seconds: float | None = None


#: The sizes behind each named budget (``audit(budget=...)``, ``--budget``).
BUDGETS: dict[Budget, BudgetPlan] = {
    Budget.QUICK: BudgetPlan(
        n_attacks=300,
        mia_targets=3,
        mia_controls=2,
        shadows=200,
        tests=100,
        n=500,
        mia_attacks=("query", "distance"),
        aia_games=60,
        screen_datasets=50,
        screened_shadows=200,
        aia_records=1000,
        aia_queries=20_000,
    ),
    Budget.STANDARD: BudgetPlan(
        n_attacks=1000,
        mia_targets=5,
        mia_controls=5,
        shadows=1000,
        tests=200,
        n=1000,
        mia_attacks=("query", "lira", "meta", "distance", "groundhog"),
        aia_games=100,
        screen_datasets=100,
        screened_shadows=600,
        aia_records=5000,
        aia_queries=60_000,
    ),
    Budget.PAPER: BudgetPlan(
        n_attacks=2000,
        mia_targets=10,
        mia_controls=10,
        shadows=4000,
        tests=200,
        n=1000,
        mia_attacks=("query", "lira", "meta", "distance", "groundhog", "attention"),
        aia_games=500,
        screen_datasets=100,
        screened_shadows=4000,
    ),
}


def package_versions() -> dict[str, str]:
    """Versions of Python and of the packages behind a result (recorded in its config)."""
    out = {"python": platform.python_version()}
    for pkg in ("synthleak", "numpy", "pandas", "scikit-learn", "scipy", "torch", "dask"):
        try:
            out[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            continue
    return out


@dataclass(frozen=True, repr=False)
class DataSection(Result):
    """How the data was read: the columns analysed and left out, warnings, the domain check.

    Attributes
    ----------
    profile : DataProfile
        Roles of the original's columns (feature, identifier, free text) and reading warnings.
    domain : DomainReport
        Per column, the share of synthetic (and control) values outside the original's domain.
        (Copies of identifier and free-text values are in :attr:`AuditResult.copies`.)
    """

    profile: DataProfile
    domain: DomainReport

    def warnings(self) -> tuple[DataWarning, ...]:
        """Every warning about the data, reading and domain."""
        return tuple(self.profile.warnings) + tuple(self.domain.warnings)

    def without_values(self) -> DataSection:
        """The section without data values fewer than
        :data:`~synthleak.data.profile.MIN_SHARED` records hold (warning details, tokens and
        domain examples): what a report may carry when it does not show records."""
        return replace(
            self,
            profile=replace(
                self.profile, warnings=tuple(w.without_values() for w in self.profile.warnings)
            ),
            domain=self.domain.without_values(),
        )


@dataclass(frozen=True, repr=False)
class BudgetRecord(Result):
    """The shadow-model budget an audit actually used, what it was projected to cost, what it
    cost, and what it can show.

    Attributes
    ----------
    n_shadows, n_tests : int
        Shadow and test datasets of the membership game (after fitting a time limit).
    projected_seconds, measured_seconds : float
        The pilot's projection and the game's wall time.
    power : Power
        The smallest detectable AUC effect and the largest certifiable epsilon of ``n_tests``.
    screen_seconds : float
        Wall time of the two-stage screen that chose the targets (0 without one).
    train_size : int
        Training records of each of the game's datasets (0: not recorded, an older result).
    release_train_size : int
        Records the release was trained on (0: not recorded). Smaller training sets leak
        more: a game on fewer records than this may overstate the release's risk.
    resumed : tuple of str
        The parts (``"screen"``, ``"game"``) an earlier run of the same audit in the same run
        directory worked on (one that was interrupted, or the same audit run again): their
        seconds are those of every run together, as kept in the run directory.
    """

    n_shadows: int
    n_tests: int
    projected_seconds: float
    measured_seconds: float
    power: Power
    screen_seconds: float = 0.0
    train_size: int = 0
    release_train_size: int = 0
    resumed: tuple[str, ...] = ()


#: ``AuditOptions.secret`` that sweeps every column of the release (``--secret all``).
SWEEP_ALL = "all"
#: ``AuditOptions.budget`` of a report rebuilt from a run of ``mia`` or ``riskmap``, whose
#: sizes were chosen by hand (``plan``), not by a named budget.
CUSTOM_BUDGET = "custom"


def check_claim(claimed_epsilon: float | None, delta: float, neighbouring: str) -> None:
    """Check a differential-privacy claim's parameters (cheap; before any work)."""
    from synthleak.modes import Neighbouring

    try:
        Neighbouring(neighbouring)
    except ValueError:
        choices = ", ".join(n.value for n in Neighbouring)
        raise InputError(f"unknown neighbouring relation {neighbouring!r}: use {choices}") from None
    if not (isinstance(delta, int | float) and 0 <= delta < 1):
        raise InputError(f"delta must lie in [0, 1), got {delta!r}")
    if claimed_epsilon is not None and not (
        isinstance(claimed_epsilon, int | float)
        and math.isfinite(claimed_epsilon)
        and claimed_epsilon >= 0
    ):
        raise InputError(f"claimed_epsilon must be a number >= 0, got {claimed_epsilon!r}")


@dataclass(frozen=True, repr=False)
class TargetAttackLine(Result):
    """One attack against one target in :class:`MembershipDocument` (its test scores are in
    the run directory's ``result.json``)."""

    auc: float
    auc_ci: tuple[float, float]
    accuracy: float
    tpr_at_fpr: dict[str, float]
    n_tests: int
    error: str | None = None


@dataclass(frozen=True, repr=False)
class TargetLine(Result):
    """One target record in :class:`MembershipDocument`: its row, how it was selected and
    every attack's figures."""

    row: int
    selected_by: str
    attacks: dict[str, TargetAttackLine]


@dataclass(frozen=True, repr=False, kw_only=True)
class MembershipDocument(Result):
    """What ``synthleak mia`` (black-box) prints as JSON: the game's configuration, every
    target's figures, the summaries per attack and per selector, the generator failures, the
    empirical epsilon and the policy outcome. Written and read through serde like every
    result (the keys are documented in :mod:`synthleak.cli.mia`)."""

    mode: str = "black-box"
    config: MembershipConfig
    targets: tuple[TargetLine, ...]
    summary: dict[str, AttackSummary]
    summary_by_selector: dict[str, dict[str, AttackSummary]]
    failures: GeneratorFailures
    epsilon: EpsilonEstimate
    policy: PolicyResult | None = None

    @classmethod
    def of(
        cls,
        result: MembershipResult,
        epsilon: EpsilonEstimate,
        policy: PolicyResult | None = None,
    ) -> MembershipDocument:
        """The document of a membership game's result, its epsilon and policy outcome."""
        targets = tuple(
            TargetLine(
                t.row,
                t.selected_by,
                {
                    name: TargetAttackLine(
                        o.auc.value,
                        (o.auc.ci_low, o.auc.ci_high),
                        o.accuracy,
                        dict(o.tpr_at_fpr),
                        o.n_tests,
                        o.error,
                    )
                    for name, o in t.attacks.items()
                },
            )
            for t in result.targets
        )
        return cls(
            config=result.config,
            targets=targets,
            summary=result.summary(),
            summary_by_selector=result.summary_by_selector(),
            failures=result.failures,
            epsilon=epsilon,
            policy=policy,
        )


@dataclass(frozen=True, repr=False, kw_only=True)
class AuditOptions(Result):
    """What an audit is asked to do: every setting of :func:`synthleak.audit` that is not the
    data itself, the run's machinery (workers, run directory, progress) or its provenance.

    The command line builds one from its flags, :func:`synthleak.audit` takes it as
    ``options=`` (or builds it from its keyword arguments), the stages read it, and the report
    records it as the leading fields of :class:`AuditConfig`; the option set is stated here
    only. Constructing it checks every value on its own (a bad one raises
    :class:`~synthleak.errors.InputError` naming the parameter), before any data is read.

    Attributes
    ----------
    generator : str, optional
        Generator spec; enables the shadow-model games.
    secret : str, optional
        Column to infer, or :data:`SWEEP_ALL` for every column in turn.
    quasi_ids : tuple of str
        Columns the attacker knows (default: every other column).
    secret_rule : SecretRule, optional
        When a guess of a numeric secret counts as right.
    budget : str
        A :class:`~synthleak.modes.Budget` value (:data:`CUSTOM_BUDGET` with an explicit
        ``plan`` only).
    plan : BudgetPlan
        The sizes; given, it overrides ``budget``'s (after construction it is never ``None``).
    seed : int
        Same seed, same result.
    control_fraction, k, show_records, keep, claimed_epsilon, delta, neighbouring, max_time,
    selector, special_values, root, shadow_releases
        As :func:`synthleak.audit` documents them.
    """

    generator: str | None = None
    secret: str | None = None
    quasi_ids: tuple[str, ...] = ()
    secret_rule: SecretRule | None = None
    budget: str = Budget.STANDARD.value
    plan: BudgetPlan | None = None
    seed: int = 0
    control_fraction: float = 0.5
    k: int = 5
    show_records: bool = False
    keep: tuple[str, ...] = ()
    claimed_epsilon: float | None = None
    delta: float = 1e-5
    neighbouring: str = Neighbouring.ADD_REMOVE.value
    max_time: float | None = None
    selector: str = TargetMethod.SCREEN.value
    special_values: tuple[str, ...] = ()
    root: str | None = None
    shadow_releases: str | None = None

    def __post_init__(self) -> None:
        from synthleak.data.values import parse_special_values, special_specs

        object.__setattr__(
            self, "special_values", special_specs(parse_special_values(self.special_values))
        )
        budget = self.budget
        if budget == CUSTOM_BUDGET and self.plan is not None:
            resolved: Budget | None = None
        else:
            try:
                resolved = Budget(budget)
            except ValueError:
                raise InputError(
                    f"unknown budget {budget!r}: use quick, standard or paper", parameter="budget"
                ) from None
            object.__setattr__(self, "budget", resolved.value)
        max_time = self.max_time
        if resolved is Budget.AUTO and max_time is None:
            raise InputError("budget 'auto' sizes the shadow-model game to max_time: give max_time")
        if max_time is not None and not (
            isinstance(max_time, int | float) and not isinstance(max_time, bool) and max_time > 0
        ):
            raise InputError(f"max_time must be a positive number of seconds, got {max_time!r}")
        choices = [s.value for s in AUDIT_SELECTORS]
        if self.selector not in choices:
            raise InputError(
                f"unknown selector {self.selector!r}: use {', '.join(choices)}",
                parameter="selector",
            )
        object.__setattr__(self, "selector", TargetMethod(self.selector).value)
        cf = self.control_fraction
        if not (isinstance(cf, int | float) and 0 < cf < 1):
            raise InputError(f"control_fraction must lie in (0, 1), got {cf}")
        k = self.k
        if isinstance(k, bool) or not isinstance(k, int | np.integer) or k < 1:
            raise InputError(f"k must be a whole number >= 1, got {k!r}", parameter="k")
        if isinstance(self.quasi_ids, str) or isinstance(self.keep, str):
            raise InputError("quasi_ids and keep are lists of column names, not one string")
        object.__setattr__(self, "quasi_ids", tuple(self.quasi_ids))
        object.__setattr__(self, "keep", tuple(self.keep))
        object.__setattr__(self, "seed", int(self.seed))
        object.__setattr__(self, "k", int(k))
        if self.shadow_releases is not None:  # a Path given in Python: recorded as text
            object.__setattr__(self, "shadow_releases", str(self.shadow_releases))
        check_claim(self.claimed_epsilon, self.delta, self.neighbouring)
        object.__setattr__(self, "neighbouring", Neighbouring(self.neighbouring).value)
        if self.secret == SWEEP_ALL:
            if self.quasi_ids:
                raise InputError(
                    "secret 'all' takes every other column as the quasi-identifiers of each "
                    "column: drop quasi_ids",
                    parameter="quasi_ids",
                )
            if self.secret_rule is not None and self.secret_rule.bins is None:
                raise InputError(
                    "secret 'all' judges every numeric column by the right quantile bin: give "
                    "secret_bins or nothing, not a tolerance in one column's units",
                    parameter="secret_rule",
                )
        if self.plan is None:
            assert resolved is not None
            object.__setattr__(
                self, "plan", BUDGETS[Budget.STANDARD if resolved is Budget.AUTO else resolved]
            )

    @property
    def sizes(self) -> BudgetPlan:
        """The budget's sizes: ``plan`` (filled from ``budget`` when it was not given)."""
        assert self.plan is not None  # __post_init__ fills it
        return self.plan


@dataclass(frozen=True, repr=False, kw_only=True)
class AuditConfig(AuditOptions):
    """The options of an audit (:class:`AuditOptions`, the leading fields) and its provenance
    (the inputs' names, sizes, command line, versions, time), for the reproducibility
    section. Reports written before the options had their own type load unchanged: missing
    fields take their defaults (``selector`` then reads ``"distance"``, what those audits
    used)."""

    original: str
    synthetic: str | None
    control: str | None
    confidence: float
    command_line: str
    versions: dict[str, str]
    created: str
    n_original: int
    n_synthetic: int
    n_control: int

    @classmethod
    def of(cls, options: AuditOptions, **provenance: Any) -> AuditConfig:
        """The config recording ``options`` with the run's ``provenance`` fields."""
        return cls(**{f.name: getattr(options, f.name) for f in fields(AuditOptions)}, **provenance)

    @property
    def options(self) -> AuditOptions:
        """The audit's options alone (to run the same audit again)."""
        return AuditOptions(**{f.name: getattr(self, f.name) for f in fields(AuditOptions)})

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> AuditConfig:
        return super().from_dict({"selector": TargetMethod.DISTANCE.value} | d)


@dataclass(frozen=True, repr=False)
class RecordAtRisk(Result):
    """A record ranked among the most vulnerable.

    ``values`` holds the record only when the audit was asked to show records; otherwise it is
    empty and ``rare_columns`` says where the record stands out (columns whose value is shared by
    less than 1 % of the records) without disclosing it.
    """

    rank: int
    row: int
    score: float
    rare_columns: tuple[str, ...] = ()
    values: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True, repr=False, eq=False)
class VulnerabilitySection(Result):
    """The ranking of the training records by vulnerability, from the data alone.

    ``method`` is ``"distance"`` (``V_k`` with ``k`` neighbours and ``metric``) or ``"rarity"``
    (cell rarity; ``k`` 0 and ``metric`` empty). ``scores`` is indexed by row of the original as
    given (NaN for the rows held out as control), ``top`` names rows of the original, like every
    record number of an audit.
    """

    method: str
    k: int
    metric: str
    n_records: int
    scores: FloatArray
    top: tuple[RecordAtRisk, ...] = ()


@dataclass(frozen=True, repr=False)
class ScreenedRecord(Result):
    """A record's rank by the two-stage screen and by ``V_k``, and its screened AUC.

    ``screen_rank`` is 0 (and the AUC nan) when the prefilter did not screen the record.
    ``vk_rank`` is its rank by ``V_k`` among the candidates (1 = most isolated).
    ``rare_columns`` are the columns where its value is shared by less than 1 % of the training
    records (where it stands out), as for the vulnerability ranking's records.
    """

    row: int
    screen_rank: int
    vk_rank: int
    auc: float
    ci_low: float
    ci_high: float
    rare_columns: tuple[str, ...] = ()


@dataclass(frozen=True, repr=False)
class ScreeningSection(Result):
    """Stage 1 of the two-stage audit: which records a cheap shadow-model screen ranks riskiest.

    Attributes
    ----------
    generator : str
    n_candidates : int
        Records the screen could pick from (the records the release was trained on).
    n_screened : int
        Records screened: the rarest candidates by cell rarity.
    n_shadows, n_tests, n_queries : int
        Shadow and test datasets of each pool (shared by the records it screens), and counting
        queries per record of the full attack.
    top : tuple of ScreenedRecord
        The records with the highest screened AUC, riskiest first.
    vk_top : tuple of ScreenedRecord
        The records ``V_k`` ranks first, most isolated first, with what the screen found.
    second_pool : int
        Records screened again, with the full attack, on a second pool (0: one pool); their
        AUC is the mean of both pools'.
    first_queries : int
        Counting queries per record of the first pool's attack (0 in results written before
        the second pool existed: ``n_queries``).
    """

    generator: str
    n_candidates: int
    n_screened: int
    n_shadows: int
    n_tests: int
    n_queries: int
    top: tuple[ScreenedRecord, ...] = ()
    vk_top: tuple[ScreenedRecord, ...] = ()
    second_pool: int = 0
    first_queries: int = 0


_NAN2 = (math.nan, math.nan)


@dataclass(frozen=True, repr=False)
class UtilitySection(Result):
    """Utility of the release: MRE over 3-way marginal counts above 10 and 3-TVD, with intervals
    over the choice of marginals and the score of real people the generator never saw as the
    reference (:func:`synthleak.metrics.utility.utility_estimate`).

    Attributes
    ----------
    mre_gt10, tvd3 : float
        The release against the original (lower is better).
    n_marginals : int
        Random 3-way marginals both are averaged over (of ``marginal_space`` possible ones).
    mre_ci, tvd3_ci : (float, float)
        Bootstrap intervals over the marginals at ``confidence``.
    reference_mre_gt10, reference_tvd3 : float
        The same measures, on the same marginals, between the original and ``n_reference``
        control records (NaN without a control set): what a perfect release of new people scores.
    reference_mre_ci, reference_tvd3_ci : (float, float)
    n_synthetic, n_reference, n_boot : int
    """

    mre_gt10: float
    tvd3: float
    n_marginals: int = 0
    mre_ci: tuple[float, float] = _NAN2
    tvd3_ci: tuple[float, float] = _NAN2
    reference_mre_gt10: float = math.nan
    reference_tvd3: float = math.nan
    reference_mre_ci: tuple[float, float] = _NAN2
    reference_tvd3_ci: tuple[float, float] = _NAN2
    marginal_space: int = 0
    n_synthetic: int = 0
    n_reference: int = 0
    n_boot: int = 0
    confidence: float = 0.95

    @classmethod
    def from_estimate(cls, u: dict[str, Any]) -> UtilitySection:
        """The section from :func:`synthleak.metrics.utility.utility_estimate`'s output."""

        def pair(key: str) -> tuple[float, float]:
            lo, hi = u[key]
            return (float(lo), float(hi))

        return cls(
            mre_gt10=float(u["mre_gt10"]),
            tvd3=float(u["tvd3"]),
            n_marginals=int(u["marginals"]),
            mre_ci=pair("mre_ci"),
            tvd3_ci=pair("tvd_ci"),
            reference_mre_gt10=float(u["reference_mre_gt10"]),
            reference_tvd3=float(u["reference_tvd"]),
            reference_mre_ci=pair("reference_mre_ci"),
            reference_tvd3_ci=pair("reference_tvd_ci"),
            marginal_space=int(u["marginal_space"]),
            n_synthetic=int(u["n_synthetic"]),
            n_reference=int(u["n_reference"]),
            n_boot=int(u["n_boot"]),
            confidence=float(u["confidence"]),
        )

    @property
    def has_reference(self) -> bool:
        return self.n_reference > 0 and _finite(self.reference_tvd3)


@dataclass(frozen=True, repr=False)
class PrivacyUtilityPoint(Result):
    """One point of the privacy-utility plot."""

    label: str
    privacy: float
    privacy_metric: str
    mre_gt10: float | None = None
    tvd3: float | None = None


@dataclass(frozen=True, repr=False, eq=False)
class AuditResult(Result):
    """Everything an audit found; the report is built from this alone.

    Attributes
    ----------
    config : AuditConfig
    schema : Schema
    data : DataSection, optional
        Columns analysed and left out, reading warnings and the domain check.
    stages : tuple of StageRecord
        Every stage of the audit, measured or not (and why not, and what it needs).
    findings : tuple of Finding
        One per attack outcome, with verdicts corrected for multiple testing.
    vulnerability : VulnerabilitySection, optional
    screening : ScreeningSection, optional
        The two-stage screen that chose the membership game's targets (``selector="screen"``).
    membership : MembershipResult, optional
        Black-box shadow-model membership inference (when the generator is known).
    nobox : NoBoxMembershipResult, optional
        Membership inference on the release against the control set. Its record rows
        (``member_rows``, ``records``) are rows of the original as given, like every row number
        of the audit; ``non_member_rows`` are rows of the control set (of the original when the
        control was held out of it).
    membership_release : MembershipReleaseResult, optional
        Membership inference on the release, learned from shadow releases (``shadow_releases``).
    person_membership, person_copies, person_risks, person_attribute : optional
        Person-level games of a relational release (membership, histories copied, singling out
        and linkability, attribute inference) against the control's persons, by root key.
    person_shadow : PersonShadowResult, optional
        Shadow-model membership inference of persons against a relational generator (the
        generator given with relational parts); targets are named by their root key.
    copies : CopyReport, optional
        Verbatim copies of training records and of the values of every high-cardinality column
        (identifiers and free text included), against the control's rates; ``copied_rows`` are
        rows of the original.
    attribute : AttributeGameResult, optional
        The randomised-secret attribute-inference game against the generator.
    attribute_release : ReleaseAttributeResult, optional
        Attribute inference on the release, training records against control records.
    attribute_sweep : AttributeSweepResult, optional
        Attribute inference of every column of the release (``secret="all"``), ranked by
        excess risk; its record rows are rows of the original.
    riskmap : RiskMapResult, optional
        A membership risk map of every record (``synthleak riskmap`` results).
    utility : UtilitySection, optional
    privacy_utility : tuple of PrivacyUtilityPoint
    epsilon : EpsilonEstimate, optional
        Empirical epsilon of the black-box membership game, with the verdict on a claimed one.
    budget : BudgetRecord, optional
        The shadow-model budget used, its projected and measured cost, and its power.
    policy : PolicyResult, optional
        The pass/fail policy the audit was checked against.
    notes : tuple of str
        What else the reader should know (skipped extras, held-out records), in plain words.
    version : int
        Result format version.
    """

    result_kind = "audit"

    config: AuditConfig
    schema: Schema
    data: DataSection | None = None
    stages: tuple[StageRecord, ...] = ()
    findings: tuple[Finding, ...] = ()
    vulnerability: VulnerabilitySection | None = None
    screening: ScreeningSection | None = None
    membership: MembershipResult | None = None
    nobox: NoBoxMembershipResult | None = None
    membership_release: MembershipReleaseResult | None = field(default=None, repr=False)
    # left out of the repr, which stays short
    person_membership: PersonMembershipResult | None = field(default=None, repr=False)
    person_copies: PersonCopiesResult | None = field(default=None, repr=False)
    person_risks: PersonRisksResult | None = field(default=None, repr=False)
    person_attribute: PersonAttributeResult | None = field(default=None, repr=False)
    person_shadow: PersonShadowResult | None = field(default=None, repr=False)
    copies: CopyReport | None = None
    attribute: AttributeGameResult | None = None
    attribute_release: ReleaseAttributeResult | None = None
    # left out of the repr, which stays short
    attribute_sweep: AttributeSweepResult | None = field(default=None, repr=False)
    riskmap: RiskMapResult | None = None
    utility: UtilitySection | None = None
    privacy_utility: tuple[PrivacyUtilityPoint, ...] = ()
    epsilon: EpsilonEstimate | None = None
    budget: BudgetRecord | None = None
    policy: PolicyResult | None = None
    notes: tuple[str, ...] = ()
    version: int = RESULT_VERSION

    def by_harm(self) -> tuple[Finding, ...]:
        """The findings in the harm order (:func:`harm_order`): the report's findings table,
        its first finding and ``report.json``'s ``harm_order``."""
        return harm_order(self.findings)

    def first_finding(self) -> Finding | None:
        """The finding the report names first: the first measured one in the harm order (a
        copy finding whenever one shows a leak), or None when none was measured."""
        return next((f for f in self.by_harm() if f.verdict is not Verdict.NOT_MEASURED), None)

    def not_measured(self) -> tuple[StageRecord, ...]:
        """The stages that could not run (an input missing) or failed."""
        return tuple(
            s for s in self.stages if s.status in (StageStatus.NOT_MEASURED, StageStatus.FAILED)
        )

    def findings_frame(self) -> pd.DataFrame:
        """One row per finding: key, title, value, interval, baseline, verdict."""
        return pd.DataFrame(
            [
                {
                    "key": f.key,
                    "title": f.title,
                    "metric": f.metric.value,
                    "value": f.estimate.value,
                    "ci_low": f.estimate.ci_low,
                    "ci_high": f.estimate.ci_high,
                    "baseline": f.baseline,
                    "verdict": f.verdict.value if f.verdict else None,
                    "p_value": f.p_value,
                    "p_holm": f.p_holm,
                    "n_tests": f.n_tests,
                }
                for f in self.findings
            ]
        )

    def to_frame(self) -> pd.DataFrame:
        """The findings table (:meth:`findings_frame`)."""
        return self.findings_frame()


def as_float_array(values: Sequence[float]) -> np.ndarray:
    """``values`` as a float64 array (for :class:`VulnerabilitySection` scores)."""
    return np.asarray(values, dtype=np.float64)


def result_kinds() -> dict[str, type[Result]]:
    """The results a command writes on its own, by their ``kind``."""
    from synthleak.serde import Result as _Result

    kinds: dict[str, type[_Result]] = {}
    todo = list(_Result.__subclasses__())
    while todo:
        cls = todo.pop()
        todo.extend(cls.__subclasses__())
        if cls.result_kind:
            kinds[cls.result_kind] = cls
    return kinds


def load_result(source: str | Path | dict[str, Any]) -> Result:
    """A result written by a command (``result.json``, ``report.json``), by its ``kind``.

    A ``report.json`` that names a ``records_file`` (its per-record arrays, kept beside it) is
    read with that file (:func:`synthleak.serde.join_bulky`).
    """
    import json

    doc = source if isinstance(source, dict) else json.loads(Path(source).read_text())
    side_name = doc.get("records_file")
    if side_name is not None:
        import gzip

        from synthleak.serde import join_bulky

        if isinstance(source, dict):
            raise InputError(
                "this report document keeps its per-record arrays in a side file: load it from "
                "its path, with the side file beside it"
            )
        side_path = Path(source).parent / Path(str(side_name)).name
        if not side_path.exists():
            raise InputError(
                f"{side_path.name} (the per-record arrays of {Path(source).name}) is missing: "
                "keep it in the same folder as the report"
            )
        try:
            doc = join_bulky(doc, json.loads(gzip.decompress(side_path.read_bytes())))
        except (OSError, ValueError, KeyError) as exc:
            raise InputError(
                f"{side_path.name} does not hold the per-record arrays of {Path(source).name} "
                f"({type(exc).__name__}): rebuild the report from its run"
            ) from None
    kinds = result_kinds()
    kind = doc.get("kind")
    if kind not in kinds:
        raise InputError(
            f"the result file holds no known result (kind {kind!r}; known: "
            f"{', '.join(sorted(kinds))}): give a result written by synthleak"
        )
    return kinds[kind].from_dict(doc)
