"""A finding (:class:`Finding`) and its verdict: the one wording of each state, the harm
order of findings, and the multiple-testing correction over an audit.

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
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from statistics import NormalDist
from typing import Any

from synthleak.games.secret import Measurement
from synthleak.harm import PEOPLE_COPIES, PUBLISHED_WORDS, FindingKey, Harm, harm_class
from synthleak.metrics.privacy import RiskEstimate, holm_adjusted
from synthleak.serde import Result
from synthleak.threat import ThreatModel


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
