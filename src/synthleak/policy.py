"""Pass/fail policies over audit results, for release gates and CI pipelines.

A policy is a list of checks. Each check names a metric (:data:`METRICS`), and either compares
one of its statistics with a threshold (``membership.auc > 0.6``) or, for a yes/no metric, fails
when it is true (``epsilon.violation``). A check FAILS the gate when its condition holds: the
expressions say what must not happen (``fail_on``). The policy is evaluated over a flat mapping
``metric name -> Metric | bool | None`` built from the results (``None`` = not measured).

Policies come from ``fail_on`` expressions (:func:`parse_fail_on`), from a TOML file
(:func:`load_policy`, same checks plus options) or from :func:`default_policy`. The outcome is a
:class:`PolicyResult`: passed or not, one :class:`CheckResult` per check (pass / fail / not
measured, with the observed figure), a text block for the terminal and a JUnit XML report for CI
systems. A failing policy is the command line's exit code :data:`EXIT_POLICY_FAILED` (3).

Expressions
-----------
``metric[.statistic] OP threshold`` or ``metric`` for a yes/no metric; several joined by commas::

    membership.auc>0.6, singling_out.risk.value>0.05, epsilon.violation

``OP`` is one of ``>``, ``>=``, ``<``, ``<=``; ``statistic`` one of ``value``, ``ci_low``,
``ci_high``.

Default statistic: evidence, not noise
--------------------------------------
Without a statistic, a check compares the END OF THE CONFIDENCE INTERVAL nearest to the threshold:
``ci_low`` for ``>`` and ``>=``, ``ci_high`` for ``<`` and ``<=``. A gate then fails only on
evidence: the whole interval lies beyond the threshold, so a release whose true risk sits exactly
at the threshold fails at most (1 - confidence) / 2 of the time (2.5 % at 95 %), instead of half
the time as with the point estimate, and re-running the audit with another seed does not flip
the gate on noise. The price is that a small audit (wide intervals) fails less easily; the text
and JUnit reports show the whole interval so a reader sees when it is wide. Ask for
``.value`` to gate on the point estimate, or ``.ci_high > t`` to demand evidence that the
metric is below ``t`` (the gate fails unless the whole interval lies at or below ``t``).

Not measured
------------
A check on a metric that was not measured (absent, ``None``, or with a NaN statistic) is reported
as ``not measured`` with what it needs, and by default FAILS the gate: a gate must not pass on
nothing. A policy (``on_not_measured = "pass"``) or a single check can say otherwise.

References
----------
Giomi et al. (2023) (singling-out and linkability risks); Meeus et al. (2023) (the most exposed
records); Annamalai et al. (2024a) (attribute inference); Annamalai et al. (2024b) and
Jagielski et al. (2020) (epsilon violations); Yao et al. (2025) (similarity metrics are no
privacy evidence).
"""

from __future__ import annotations

import math
import re
import tomllib
import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from pathlib import Path
from typing import Any

from synthleak.errors import InputError
from synthleak.metrics.epsilon import EpsilonEstimate
from synthleak.metrics.privacy import RiskEstimate
from synthleak.references import cite
from synthleak.serde import Result

EXIT_POLICY_FAILED = 3
"""Exit code of the command line when a policy fails (0 when it passes)."""


class Operator(StrEnum):
    """Comparison of a check: the gate fails when ``statistic OP threshold`` holds."""

    GT = ">"
    GE = ">="
    LT = "<"
    LE = "<="

    def holds(self, a: float, b: float) -> bool:
        return {
            Operator.GT: a > b,
            Operator.GE: a >= b,
            Operator.LT: a < b,
            Operator.LE: a <= b,
        }[self]


class Statistic(StrEnum):
    """Which figure of a :class:`Metric` a check compares."""

    VALUE = "value"
    CI_LOW = "ci_low"
    CI_HIGH = "ci_high"


class CheckStatus(StrEnum):
    """Outcome of one check."""

    PASS = "pass"
    FAIL = "fail"
    NOT_MEASURED = "not measured"


class NotMeasured(StrEnum):
    """What a check on a metric that was not measured does to the gate."""

    FAIL = "fail"
    PASS = "pass"


def default_statistic(operator: Operator) -> Statistic:
    """The confidence bound nearest the threshold: ``ci_low`` for ``>``/``>=``, else ``ci_high``."""
    return Statistic.CI_LOW if operator in (Operator.GT, Operator.GE) else Statistic.CI_HIGH


# --- metrics -----------------------------------------------------------------------------------


@dataclass(frozen=True, repr=False)
class Metric(Result):
    """One measured figure with its confidence interval and baseline.

    Attributes
    ----------
    value : float
        Point estimate.
    ci_low, ci_high : float
        Confidence interval (NaN when there is none; ``inf`` for an open end).
    baseline : float or None
        What guessing (or the control set) scores on the same scale.
    confidence : float
        Level of the interval.
    """

    value: float
    ci_low: float = math.nan
    ci_high: float = math.nan
    baseline: float | None = None
    confidence: float = 0.95

    def get(self, statistic: Statistic) -> float:
        return float(getattr(self, Statistic(statistic).value))

    @classmethod
    def from_estimate(cls, estimate: RiskEstimate) -> Metric:
        """A :class:`Metric` from a :class:`~synthleak.metrics.privacy.RiskEstimate`."""
        return cls(
            float(estimate.value),
            float(estimate.ci_low),
            float(estimate.ci_high),
            estimate.baseline,
            float(estimate.confidence),
        )

    def advantage(self) -> Metric:
        """The same figure minus its baseline (baseline 0): e.g. accuracy over guessing."""
        b = self.baseline
        if b is None:
            raise InputError("an advantage needs the metric's baseline")
        return Metric(self.value - b, self.ci_low - b, self.ci_high - b, 0.0, self.confidence)


@dataclass(frozen=True)
class MetricInfo:
    """A canonical metric name: its kind, meaning and what measuring it needs."""

    name: str
    boolean: bool
    description: str
    needs: str


def _info(name: str, description: str, needs: str, *, boolean: bool = False) -> MetricInfo:
    return MetricInfo(name, boolean, description, needs)


METRICS: dict[str, MetricInfo] = {
    m.name: m
    for m in (
        _info(
            "membership.auc",
            "black-box membership inference with shadow models: AUC of the most exposed target "
            "and attack (0.5 = guessing, 1 = always right), chosen on a selection split and "
            "measured on a disjoint evaluation split",
            "a membership game against the generator (a generator spec)",
        ),
        _info(
            "membership.nobox.auc",
            "no-box membership inference (the attacker sees only the release): AUC of the "
            "strongest no-box attack on the evaluation split (0.5 = guessing)",
            "the original and synthetic data and a control set of real records the generator "
            "never saw",
        ),
        _info(
            "membership.release.auc",
            "membership inference on the release, the attack learned from shadow releases of "
            "the same generator: AUC on training against control records (0.5 = guessing)",
            "the original and synthetic data, a control set and shadow releases",
        ),
        _info(
            "singling_out.risk",
            "singling-out risk: 0 = the attacker singles out training records no better than "
            "control records, 1 = every attempt succeeds because of the release",
            "the original and synthetic data and a control set",
        ),
        _info(
            "linkability.risk",
            "linkability risk: 0 = linking two halves of a record through the release works no "
            "better for training records than for control records, 1 = always",
            "the original and synthetic data, a control set and columns to link on",
        ),
        _info(
            "attribute.accuracy",
            "attribute inference: accuracy of the best attack at guessing the secret column "
            "from the other columns, with the accuracy of guessing as baseline",
            "a secret column (and a generator or a control set)",
        ),
        _info(
            "attribute.advantage",
            "attribute inference: accuracy of the best attack minus its baseline (0 = no better "
            "than guessing)",
            "a secret column (and a generator or a control set)",
        ),
        _info(
            "copies.rate",
            "exact copies: in an audit, the share of synthetic records that copy a training "
            "record minus the share of control records that do (0 = no more copies than real "
            "non-members show; the worst copy finding, whole records or a column's values); "
            "similarity is weak privacy evidence",
            "the original and synthetic data",
        ),
        _info(
            "epsilon.lower_bound",
            "lower confidence bound on the generator's differential-privacy epsilon proved by "
            "the membership attacks (0 = nothing proved); the interval has no upper end",
            "a membership game against the generator",
        ),
        _info(
            "epsilon.mu",
            "Gaussian differential privacy mu estimated from the whole ROC curve of the best "
            "membership attack (0 = no leakage)",
            "a membership game against the generator",
        ),
        _info(
            "epsilon.violation",
            "yes when the lower bound on epsilon exceeds the claimed epsilon at 95% confidence",
            "a claimed epsilon (claimed_epsilon) and a membership game with enough test datasets "
            "for its ceiling to exceed the claim",
            boolean=True,
        ),
    )
}
"""Canonical metric names, each with one line of meaning (``synthleak`` builds these)."""


def _known() -> str:
    return ", ".join(METRICS)


# --- checks and policies -----------------------------------------------------------------------


@dataclass(frozen=True, repr=False)
class Check(Result):
    """One condition that fails the gate when it holds.

    Attributes
    ----------
    metric : str
        A name of :data:`METRICS`.
    operator, threshold, statistic
        For a numeric metric: fail when ``statistic OP threshold``; ``None`` for a yes/no metric
        (fail when it is yes).
    on_not_measured : NotMeasured or None
        Overrides the policy's rule for this check.
    reason : str
        Why this threshold (shown in reports).
    """

    metric: str
    operator: Operator | None = None
    threshold: float | None = None
    statistic: Statistic | None = None
    on_not_measured: NotMeasured | None = None
    reason: str = ""

    def __post_init__(self) -> None:
        info = METRICS.get(self.metric)
        if info is None:
            raise InputError(f"unknown metric {self.metric!r}: use one of {_known()}")
        if self.on_not_measured is not None:
            object.__setattr__(
                self,
                "on_not_measured",
                _enum(NotMeasured, self.on_not_measured, "on_not_measured"),
            )
        if info.boolean:
            if self.operator is not None or self.threshold is not None or self.statistic:
                raise InputError(
                    f"{self.metric} is yes/no: name it alone (it fails the gate when yes), "
                    "without an operator, threshold or statistic"
                )
            return
        if self.operator is None or self.threshold is None:
            raise InputError(
                f"{self.metric} is a number: give an operator and a threshold, "
                f"e.g. {self.metric}>0.5"
            )
        object.__setattr__(self, "operator", _enum(Operator, self.operator, "operator"))
        if not isinstance(self.threshold, int | float) or isinstance(self.threshold, bool):
            raise InputError(f"threshold of {self.metric} must be a number, got {self.threshold!r}")
        if not math.isfinite(self.threshold):
            raise InputError(f"threshold of {self.metric} must be finite, got {self.threshold}")
        object.__setattr__(self, "threshold", float(self.threshold))
        stat = self.statistic or default_statistic(Operator(self.operator))
        object.__setattr__(self, "statistic", _enum(Statistic, stat, "statistic"))

    @property
    def expression(self) -> str:
        """Canonical text: ``membership.auc.ci_low > 0.6`` or ``epsilon.violation``."""
        if self.operator is None:
            return self.metric
        assert self.statistic is not None and self.threshold is not None
        return f"{self.metric}.{self.statistic.value} {self.operator.value} {self.threshold:g}"


def _enum(cls: type[StrEnum], value: Any, what: str) -> Any:
    try:
        return cls(value)
    except ValueError:
        raise InputError(
            f"unknown {what} {value!r}: use one of {', '.join(repr(m.value) for m in cls)}"
        ) from None


@dataclass(frozen=True, repr=False)
class Policy(Result):
    """Checks and the rule for metrics that were not measured."""

    checks: tuple[Check, ...]
    on_not_measured: NotMeasured = NotMeasured.FAIL
    name: str = "custom"

    def __post_init__(self) -> None:
        if not self.checks:
            raise InputError("a policy needs at least one check, e.g. membership.auc>0.6")
        object.__setattr__(
            self, "on_not_measured", _enum(NotMeasured, self.on_not_measured, "on_not_measured")
        )

    def evaluate(self, metrics: Mapping[str, Metric | bool | None]) -> PolicyResult:
        """See :func:`evaluate_policy`."""
        return evaluate_policy(self, metrics)


_EXPR = re.compile(
    r"^\s*(?P<name>[A-Za-z_][A-Za-z0-9_.]*?)\s*"
    r"(?:(?P<op>>=|<=|>|<)\s*(?P<num>[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*)?$"
)


def parse_check(text: str) -> Check:
    """One expression (``membership.auc>0.6``, ``epsilon.violation``) as a :class:`Check`."""
    m = _EXPR.match(text)
    if m is None:
        raise InputError(
            f"cannot read the check {text.strip()!r}: write metric[.statistic] OP number "
            f"(OP one of > >= < <=) or a yes/no metric alone; metrics: {_known()}"
        )
    name, op, num = m.group("name"), m.group("op"), m.group("num")
    statistic: str | None = None
    if name not in METRICS:
        base, _, stat = name.rpartition(".")
        if base in METRICS and stat in {s.value for s in Statistic}:
            name, statistic = base, stat
        else:
            raise InputError(f"unknown metric {name!r} in {text.strip()!r}: use one of {_known()}")
    return Check(
        name,
        None if op is None else Operator(op),
        None if num is None else float(num),
        None if statistic is None else Statistic(statistic),
    )


def parse_fail_on(
    expressions: str | Sequence[str],
    *,
    on_not_measured: NotMeasured | str = NotMeasured.FAIL,
    name: str = "fail_on",
) -> Policy:
    """A policy from comma-separated expressions (or a list of them)."""
    parts = [expressions] if isinstance(expressions, str) else list(expressions)
    texts = [p for e in parts for p in str(e).split(",")]
    if any(not t.strip() for t in texts) or not texts:
        raise InputError(
            "empty check in the fail_on expressions: separate checks by single commas, "
            "e.g. membership.auc>0.6,epsilon.violation"
        )
    return Policy(tuple(parse_check(t) for t in texts), NotMeasured(on_not_measured), name)


_TOP_KEYS = {"name", "on_not_measured", "fail_on", "checks"}
_CHECK_KEYS = {
    "expr",
    "metric",
    "operator",
    "threshold",
    "statistic",
    "on_not_measured",
    "reason",
}


def policy_from_toml(text: str, *, source: str = "policy") -> Policy:
    """A policy from TOML text (see :func:`load_policy`)."""
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{source} is not valid TOML: {exc}") from None
    unknown = set(doc) - _TOP_KEYS
    if unknown:
        raise InputError(
            f"{source}: unknown key(s) {', '.join(sorted(unknown))}: "
            f"use {', '.join(sorted(_TOP_KEYS))}"
        )
    checks: list[Check] = []
    fail_on = doc.get("fail_on", [])
    if isinstance(fail_on, str):
        fail_on = [fail_on]
    if not isinstance(fail_on, list) or not all(isinstance(e, str) for e in fail_on):
        raise InputError(f"{source}: fail_on must be a list of expressions")
    if fail_on:
        checks.extend(parse_fail_on(fail_on).checks)
    tables = doc.get("checks", [])
    if not isinstance(tables, list) or not all(isinstance(t, dict) for t in tables):
        raise InputError(f"{source}: write each check as a [[checks]] table")
    for i, t in enumerate(tables, 1):
        bad = set(t) - _CHECK_KEYS
        if bad:
            raise InputError(
                f"{source}: check {i} has unknown key(s) {', '.join(sorted(bad))}: "
                f"use {', '.join(sorted(_CHECK_KEYS))}"
            )
        if "expr" in t:
            if "metric" in t or "operator" in t or "threshold" in t:
                raise InputError(f"{source}: check {i} gives both expr and metric: give one")
            base = parse_check(str(t["expr"]))
            if "statistic" in t:
                if base.operator is None:
                    raise InputError(f"{source}: check {i} is yes/no and takes no statistic")
                base = replace(base, statistic=_enum(Statistic, t["statistic"], "statistic"))
        elif "metric" in t:
            base = Check(
                str(t["metric"]),
                None if t.get("operator") is None else _enum(Operator, t["operator"], "operator"),
                t.get("threshold"),
                None
                if t.get("statistic") is None
                else _enum(Statistic, t["statistic"], "statistic"),
            )
        else:
            raise InputError(f"{source}: check {i} needs expr or metric")
        checks.append(
            replace(
                base,
                on_not_measured=t.get("on_not_measured"),
                reason=str(t.get("reason", "")),
            )
        )
    if not checks:
        raise InputError(f"{source}: no checks: add fail_on = [...] or [[checks]] tables")
    return Policy(
        tuple(checks),
        doc.get("on_not_measured", NotMeasured.FAIL.value),
        str(doc.get("name", "custom")),
    )


def load_policy(path: str | Path) -> Policy:
    """A policy from a TOML file.

    Top-level keys: ``name``, ``on_not_measured`` (``"fail"``, the default, or ``"pass"``),
    ``fail_on`` (a list of expressions) and ``[[checks]]`` tables, each with either ``expr`` or
    ``metric`` / ``operator`` / ``threshold``, and optionally ``statistic``, ``on_not_measured``
    and ``reason``::

        name = "release gate"
        fail_on = ["membership.auc > 0.6", "epsilon.violation"]

        [[checks]]
        metric = "singling_out.risk"
        operator = ">"
        threshold = 0.05
        on_not_measured = "pass"
        reason = "our data-sharing agreement, clause 4"
    """
    p = Path(path)
    if not p.is_file():
        raise InputError(f"policy file {str(p)!r} does not exist: give the path of a TOML file")
    try:
        text = p.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise InputError(f"policy file {str(p)!r} is not UTF-8 text: give a TOML file") from None
    return policy_from_toml(text, source=f"policy file {p.name!r}")


# --- the default policy ------------------------------------------------------------------------


def default_policy() -> Policy:
    """The documented default policy, every threshold with its reason.

    Required (not measured fails the gate): no-box membership, singling out and linkability, which
    an audit measures whenever it has a control set. Conditional (not measured is reported but does
    not fail): black-box membership (needs a generator), attribute inference (needs a secret
    column) and the epsilon verdict (needs a claim). ``copies.rate`` is not gated: exact copies
    happen by chance in low-cardinality data and similarity is no privacy evidence
    (Yao et al. 2025).
    """
    judgement = "a judgement, not a published threshold"
    return Policy(
        (
            Check(
                "membership.auc",
                Operator.GT,
                0.6,
                on_not_measured=NotMeasured.PASS,
                reason=(
                    f"{judgement}: 0.5 is guessing; a lower confidence bound above 0.6 is "
                    "evidence that an attacker tells whether the most exposed record was in the "
                    "training data clearly better than a coin, and risk concentrates on such "
                    f"records ({cite('meeus2023')}). Measured only with a generator."
                ),
            ),
            Check(
                "membership.nobox.auc",
                Operator.GT,
                0.6,
                reason=(
                    f"{judgement}, as for membership.auc, for an attacker with the release only."
                ),
            ),
            Check(
                "singling_out.risk",
                Operator.GT,
                0.05,
                reason=(
                    f"{judgement}: risk 0 means no better on training records than on records the "
                    "generator never saw; a lower bound above 0.05 is evidence that the release "
                    f"itself lets an attacker single out real people ({cite('giomi2023')})."
                ),
            ),
            Check(
                "linkability.risk",
                Operator.GT,
                0.05,
                reason=f"{judgement}, as for singling_out.risk ({cite('giomi2023')}).",
            ),
            Check(
                "attribute.advantage",
                Operator.GT,
                0.05,
                on_not_measured=NotMeasured.PASS,
                reason=(
                    f"{judgement}: evidence that an attacker guesses a secret attribute more than "
                    "5 percentage points better than guessing allows "
                    f"({cite('annamalai2024linear')}). Measured only with a secret column."
                ),
            ),
            Check(
                "epsilon.violation",
                on_not_measured=NotMeasured.PASS,
                reason=(
                    "no threshold: a lower bound above the claimed epsilon at 95% confidence "
                    "means the generator as run does not satisfy its differential-privacy claim "
                    f"({cite('jagielski2020')}; {cite('annamalai2024auditing')}). Measured only "
                    "with a claim and enough test datasets to show a violation."
                ),
            ),
        ),
        NotMeasured.FAIL,
        "default",
    )


# --- evaluation --------------------------------------------------------------------------------


@dataclass(frozen=True, repr=False)
class CheckResult(Result):
    """One check's outcome.

    Attributes
    ----------
    check : Check
    status : CheckStatus
    observed : float or None
        The statistic compared (1.0 / 0.0 for a yes/no metric); None when not measured.
    metric : Metric or None
        The whole figure, for reports.
    fails_gate : bool
        Whether this check makes the policy fail (a failure, or not measured under "fail").
    message : str
        One line in plain words.
    """

    check: Check
    status: CheckStatus
    observed: float | None
    metric: Metric | None
    fails_gate: bool
    message: str


@dataclass(frozen=True, repr=False)
class PolicyResult(Result):
    """A policy's outcome over one set of metrics."""

    passed: bool
    name: str
    checks: tuple[CheckResult, ...]

    @property
    def exit_code(self) -> int:
        """0 when the policy passed, :data:`EXIT_POLICY_FAILED` otherwise."""
        return 0 if self.passed else EXIT_POLICY_FAILED

    def count(self, status: CheckStatus) -> int:
        return sum(c.status is status for c in self.checks)

    def to_text(self) -> str:
        """A short block for the terminal."""
        n = len(self.checks)
        failed = self.count(CheckStatus.FAIL)
        nm = self.count(CheckStatus.NOT_MEASURED)
        nm_fail = sum(c.status is CheckStatus.NOT_MEASURED and c.fails_gate for c in self.checks)
        head = f"Policy {self.name!r}: {'PASSED' if self.passed else 'FAILED'} ({failed} of {n} "
        head += "checks failed"
        if nm:
            head += f", {nm} not measured"
            if nm_fail:
                head += f" of which {nm_fail} fail{'s' if nm_fail == 1 else ''} the gate"
        head += ")"
        width = max(len(c.check.expression) for c in self.checks)
        lines = [head]
        for c in self.checks:
            label = c.status.value.upper() if c.fails_gate else c.status.value
            lines.append(f"  {label:<13} {c.check.expression:<{width}}  {c.message}")
        return "\n".join(lines)

    def to_junit_xml(self, path: str | Path | None = None) -> str:
        """JUnit XML: one testcase per check; failures, and skipped for "not measured" checks
        that do not fail the gate (as CI systems read them). Also written to ``path`` if given."""
        n = len(self.checks)
        failures = sum(c.fails_gate for c in self.checks)
        skipped = sum(
            c.status is CheckStatus.NOT_MEASURED and not c.fails_gate for c in self.checks
        )
        counts = {"tests": str(n), "failures": str(failures), "errors": "0"}
        counts["skipped"] = str(skipped)
        root = ET.Element("testsuites", {"name": "synthleak policy", **counts})
        suite = ET.SubElement(
            root, "testsuite", {"name": f"synthleak policy {self.name}", **counts}
        )
        for c in self.checks:
            case = ET.SubElement(
                suite,
                "testcase",
                {"classname": f"synthleak.policy.{c.check.metric}", "name": c.check.expression},
            )
            detail = c.message + (f"\nWhy this check: {c.check.reason}" if c.check.reason else "")
            if c.fails_gate:
                kind = (
                    "NotMeasured" if c.status is CheckStatus.NOT_MEASURED else "PolicyCheckFailed"
                )
                el = ET.SubElement(case, "failure", {"message": c.message, "type": kind})
                el.text = detail
            elif c.status is CheckStatus.NOT_MEASURED:
                ET.SubElement(case, "skipped", {"message": c.message})
            else:
                ET.SubElement(case, "system-out").text = detail
        ET.indent(root)
        text = '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, encoding="unicode")
        if path is not None:
            Path(path).write_text(text + "\n", encoding="utf-8")
        return text


def _figure(m: Metric) -> str:
    conf = f"{100 * m.confidence:g}%"
    ci = (
        f", {conf} CI {m.ci_low:.3g} to {m.ci_high:.3g}"
        if not (math.isnan(m.ci_low) and math.isnan(m.ci_high))
        else ", no interval"
    )
    base = "" if m.baseline is None else f", baseline {m.baseline:.3g}"
    return f"value {m.value:.3g}{ci}{base}"


def evaluate_policy(policy: Policy, metrics: Mapping[str, Metric | bool | None]) -> PolicyResult:
    """Evaluate every check of ``policy`` over ``metrics`` (name -> Metric, bool or None).

    A metric absent from ``metrics``, ``None``, or whose compared statistic is NaN is "not
    measured". Names not in :data:`METRICS` are an :class:`~synthleak.errors.InputError`.
    """
    unknown = [k for k in metrics if k not in METRICS]
    if unknown:
        raise InputError(f"unknown metric name(s) {', '.join(unknown)}: use {_known()}")
    out: list[CheckResult] = []
    for chk in policy.checks:
        info = METRICS[chk.metric]
        rule = chk.on_not_measured or policy.on_not_measured
        entry = metrics.get(chk.metric)
        observed: float | None = None
        metric: Metric | None = None
        if entry is not None and info.boolean != isinstance(entry, bool):
            kind = "yes/no (bool)" if info.boolean else "a Metric"
            raise InputError(f"metric {chk.metric} must be {kind}, got {type(entry).__name__}")
        if entry is None:
            status = CheckStatus.NOT_MEASURED
            message = f"not measured: needs {info.needs}"
        elif isinstance(entry, bool):
            observed = 1.0 if entry else 0.0
            status = CheckStatus.FAIL if entry else CheckStatus.PASS
            message = f"{chk.metric} is {'yes' if entry else 'no'}"
        else:
            metric = entry
            assert chk.statistic is not None and chk.operator is not None
            assert chk.threshold is not None
            x = metric.get(chk.statistic)
            if math.isnan(x):
                status = CheckStatus.NOT_MEASURED
                what = "no value" if chk.statistic is Statistic.VALUE else "no confidence interval"
                message = f"not measured: {what} ({_figure(metric)})"
            else:
                observed = x
                holds = chk.operator.holds(x, chk.threshold)
                status = CheckStatus.FAIL if holds else CheckStatus.PASS
                message = (
                    f"{chk.statistic.value} {x:.3g} {'' if holds else 'not '}"
                    f"{chk.operator.value} {chk.threshold:g} ({_figure(metric)})"
                )
        fails = status is CheckStatus.FAIL or (
            status is CheckStatus.NOT_MEASURED and rule is NotMeasured.FAIL
        )
        if status is CheckStatus.NOT_MEASURED:
            message += "; fails the gate" if fails else "; does not fail the gate"
        out.append(CheckResult(chk, status, observed, metric, fails, message))
    return PolicyResult(not any(c.fails_gate for c in out), policy.name, tuple(out))


# --- metrics from results ----------------------------------------------------------------------


def epsilon_metrics(estimate: EpsilonEstimate) -> dict[str, Metric | bool | None]:
    """``epsilon.*`` and ``membership.auc`` from an :class:`EpsilonEstimate`.

    ``epsilon.lower_bound`` is a one-sided bound: value and ``ci_low`` are the bound, ``ci_high``
    is ``inf`` (an audit never bounds epsilon from above). ``epsilon.violation`` is None (not
    measured) without a claim and when the verdict is inconclusive (the trials could never have
    shown a violation, so a "no" would be passing on nothing). ``membership.auc`` is the AUC of
    the best attack chosen on the selection split and measured on the evaluation split.
    """
    e = estimate
    return {
        "epsilon.lower_bound": Metric(e.lower_bound, e.lower_bound, math.inf, 0.0, e.confidence),
        "epsilon.mu": Metric(e.mu, e.mu_ci[0], e.mu_ci[1], 0.0, e.confidence),
        "epsilon.violation": e.violation,
        "membership.auc": Metric(e.auc, e.auc_ci[0], e.auc_ci[1], 0.5, e.confidence),
    }
