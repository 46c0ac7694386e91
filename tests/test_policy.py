from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from synthleak.errors import InputError
from synthleak.metrics.epsilon import EpsilonVerdict, empirical_epsilon
from synthleak.metrics.privacy import RiskEstimate
from synthleak.policy import (
    EXIT_POLICY_FAILED,
    METRICS,
    Check,
    CheckStatus,
    Metric,
    NotMeasured,
    Operator,
    Policy,
    PolicyResult,
    Statistic,
    default_policy,
    default_statistic,
    epsilon_metrics,
    evaluate_policy,
    load_policy,
    parse_check,
    parse_fail_on,
    policy_from_toml,
)

NUMERIC = [n for n, i in METRICS.items() if not i.boolean]


def _status(policy: Policy, metrics: dict) -> list[CheckStatus]:
    return [c.status for c in evaluate_policy(policy, metrics).checks]


# --- metric names --------------------------------------------------------------------------


def test_canonical_metric_names_are_documented() -> None:
    required = {
        "membership.auc",
        "membership.nobox.auc",
        "singling_out.risk",
        "linkability.risk",
        "attribute.accuracy",
        "attribute.advantage",
        "copies.rate",
        "epsilon.lower_bound",
        "epsilon.violation",
    }
    assert required <= set(METRICS)
    for name, info in METRICS.items():
        assert info.name == name and info.description and info.needs
        assert "\n" not in info.description and "--" not in info.description + info.needs
    assert [n for n, i in METRICS.items() if i.boolean] == ["epsilon.violation"]


def test_metric_helpers() -> None:
    est = RiskEstimate(0.8, 0.7, 0.9, 0.95, 100, 0.5)
    m = Metric.from_estimate(est)
    assert (m.value, m.ci_low, m.ci_high, m.baseline) == (0.8, 0.7, 0.9, 0.5)
    adv = m.advantage()
    assert adv.value == pytest.approx(0.3) and adv.ci_low == pytest.approx(0.2)
    assert adv.baseline == 0.0
    with pytest.raises(InputError, match="baseline"):
        Metric(0.5).advantage()
    assert m.get(Statistic.CI_HIGH) == 0.9


# --- expressions ---------------------------------------------------------------------------


def test_expressions_parse_with_the_evidence_default() -> None:
    p = parse_fail_on("membership.auc>0.6, singling_out.risk.value >= 5e-2 ,epsilon.violation")
    a, b, c = p.checks
    assert (a.metric, a.operator, a.threshold, a.statistic) == (
        "membership.auc",
        Operator.GT,
        0.6,
        Statistic.CI_LOW,
    )
    assert (b.statistic, b.operator, b.threshold) == (Statistic.VALUE, Operator.GE, 0.05)
    assert c.metric == "epsilon.violation" and c.operator is None
    assert parse_check("attribute.accuracy < .5").statistic is Statistic.CI_HIGH
    assert default_statistic(Operator.LE) is Statistic.CI_HIGH
    assert p.on_not_measured is NotMeasured.FAIL
    assert parse_fail_on(["copies.rate>0.01", "epsilon.violation"]).checks[1] == c


@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from(NUMERIC),
    st.sampled_from(list(Operator)),
    st.floats(-10, 10, allow_nan=False),
    st.sampled_from([*Statistic, None]),
)
def test_canonical_expression_parses_back(
    name: str, op: Operator, threshold: float, stat: Statistic | None
) -> None:
    chk = Check(name, op, threshold, stat)
    again = parse_check(chk.expression)
    assert again.metric == chk.metric and again.operator is chk.operator
    assert again.statistic is chk.statistic
    assert again.threshold == pytest.approx(chk.threshold, rel=1e-5, abs=1e-12)


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("membership.acu>0.6", "unknown metric 'membership.acu'.*membership.auc"),
        ("membership.auc>>0.6", "cannot read the check"),
        ("membership.auc>", "cannot read the check"),
        ("membership.auc>inf", "cannot read the check"),
        ("membership.auc", "is a number: give an operator"),
        ("epsilon.violation>0.5", "yes/no"),
        ("epsilon.violation.value>0", "yes/no"),
        ("membership.auc.median>0.6", "unknown metric 'membership.auc.median'"),
        ("membership.auc>0.6,,copies.rate>0", "empty check"),
        ("", "empty check"),
    ],
)
def test_bad_expressions_are_input_errors(text: str, match: str) -> None:
    with pytest.raises(InputError, match=match):
        parse_fail_on(text)


def test_unknown_metric_error_lists_the_known_names() -> None:
    with pytest.raises(InputError) as err:
        parse_check("risk>0.1")
    assert all(name in str(err.value) for name in METRICS)
    assert "\n" not in str(err.value)


# --- evaluation ----------------------------------------------------------------------------


def test_gate_fails_on_evidence_by_default() -> None:
    m = {"membership.auc": Metric(0.65, 0.55, 0.75, 0.5)}
    assert _status(parse_fail_on("membership.auc>0.6"), m) == [CheckStatus.PASS]
    assert _status(parse_fail_on("membership.auc.value>0.6"), m) == [CheckStatus.FAIL]
    assert _status(parse_fail_on("membership.auc.ci_high>0.6"), m) == [CheckStatus.FAIL]
    assert _status(parse_fail_on("membership.auc>0.5"), m) == [CheckStatus.FAIL]
    # below-threshold checks look at the upper end
    assert _status(parse_fail_on("membership.auc<0.8"), m) == [CheckStatus.FAIL]
    assert _status(parse_fail_on("membership.auc<0.7"), m) == [CheckStatus.PASS]
    # boundaries
    assert _status(parse_fail_on("membership.auc>=0.55"), m) == [CheckStatus.FAIL]
    assert _status(parse_fail_on("membership.auc>0.55"), m) == [CheckStatus.PASS]
    assert _status(parse_fail_on("membership.auc<=0.75"), m) == [CheckStatus.FAIL]


def test_not_measured_fails_the_gate_unless_the_policy_says_otherwise() -> None:
    p = parse_fail_on("membership.auc>0.6,epsilon.violation,singling_out.risk>0.05")
    nan_ci = {"singling_out.risk": Metric(0.3), "epsilon.violation": None}
    res = evaluate_policy(p, nan_ci)
    assert [c.status for c in res.checks] == [CheckStatus.NOT_MEASURED] * 3
    assert not res.passed and res.exit_code == EXIT_POLICY_FAILED == 3
    assert "needs a membership game" in res.checks[0].message
    assert "no confidence interval" in res.checks[2].message
    lenient = parse_fail_on("membership.auc>0.6,epsilon.violation", on_not_measured="pass")
    res2 = evaluate_policy(lenient, {})
    assert res2.passed and res2.exit_code == 0
    assert all(c.status is CheckStatus.NOT_MEASURED and not c.fails_gate for c in res2.checks)
    # a single check can override the policy either way
    strict = Policy(
        (Check("copies.rate", ">", 0.1, on_not_measured="fail"),), NotMeasured.PASS, "x"
    )
    assert not evaluate_policy(strict, {}).passed


def test_booleans_and_types() -> None:
    p = parse_fail_on("epsilon.violation")
    assert not evaluate_policy(p, {"epsilon.violation": True}).passed
    ok = evaluate_policy(p, {"epsilon.violation": False})
    assert ok.passed and ok.checks[0].status is CheckStatus.PASS and ok.checks[0].observed == 0.0
    with pytest.raises(InputError, match="must be yes/no"):
        evaluate_policy(p, {"epsilon.violation": Metric(1.0)})
    with pytest.raises(InputError, match="must be a Metric"):
        evaluate_policy(parse_fail_on("copies.rate>0"), {"copies.rate": True})
    with pytest.raises(InputError, match="unknown metric name"):
        evaluate_policy(p, {"membership.AUC": Metric(0.5)})


def test_check_and_policy_validation() -> None:
    with pytest.raises(InputError, match="operator"):
        Check("copies.rate", "=", 0.1)
    with pytest.raises(InputError, match="finite"):
        Check("copies.rate", ">", math.inf)
    with pytest.raises(InputError, match="must be a number"):
        Check("copies.rate", ">", "0.1")  # type: ignore[arg-type]
    with pytest.raises(InputError, match="on_not_measured"):
        Check("epsilon.violation", on_not_measured="maybe")
    with pytest.raises(InputError, match="at least one check"):
        Policy(())


# --- TOML ----------------------------------------------------------------------------------

TOML = """
name = "release gate"
on_not_measured = "pass"
fail_on = ["membership.auc > 0.6", "epsilon.violation"]

[[checks]]
metric = "singling_out.risk"
operator = ">"
threshold = 0.05
on_not_measured = "fail"
reason = "data-sharing agreement, clause 4"

[[checks]]
expr = "attribute.advantage > 0.1"
statistic = "value"
"""


def test_toml_policy(tmp_path: Path) -> None:
    path = tmp_path / "policy.toml"
    path.write_text(TOML)
    p = load_policy(path)
    assert p.name == "release gate" and p.on_not_measured is NotMeasured.PASS
    assert [c.expression for c in p.checks] == [
        "membership.auc.ci_low > 0.6",
        "epsilon.violation",
        "singling_out.risk.ci_low > 0.05",
        "attribute.advantage.value > 0.1",
    ]
    assert p.checks[2].on_not_measured is NotMeasured.FAIL
    assert p.checks[2].reason.startswith("data-sharing")
    res = p.evaluate({"membership.auc": Metric(0.7, 0.62, 0.78, 0.5)})
    assert [c.status for c in res.checks] == [
        CheckStatus.FAIL,
        CheckStatus.NOT_MEASURED,
        CheckStatus.NOT_MEASURED,
        CheckStatus.NOT_MEASURED,
    ]
    assert [c.fails_gate for c in res.checks] == [True, False, True, False]
    # the same checks as expressions
    same = parse_fail_on("membership.auc>0.6,epsilon.violation")
    assert same.checks == p.checks[:2]
    assert Policy.from_json(p.to_json()).same_as(p)


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("name = ", "not valid TOML"),
        ('fail_ob = ["copies.rate>0"]', "unknown key.*fail_ob"),
        ('[[checks]]\nmetric = "copies.rate"\nop = ">"\nthreshold = 0.1', "unknown key.*op"),
        ("[[checks]]\nreason = 'x'", "needs expr or metric"),
        ('[[checks]]\nexpr = "copies.rate>0"\nmetric = "copies.rate"', "both expr and metric"),
        ('[[checks]]\nmetric = "copies.rate"\noperator = ">"\nthreshold = "high"', "number"),
        ('[[checks]]\nexpr = "epsilon.violation"\nstatistic = "value"', "yes/no"),
        ('name = "empty"', "no checks"),
        ('on_not_measured = "skip"\nfail_on = ["copies.rate>0"]', "on_not_measured"),
    ],
)
def test_bad_toml_is_an_input_error(text: str, match: str) -> None:
    with pytest.raises(InputError, match=match):
        policy_from_toml(text)


def test_missing_policy_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="does not exist"):
        load_policy(tmp_path / "nope.toml")


# --- default policy ------------------------------------------------------------------------


def test_default_policy_reasons_and_rules() -> None:
    p = default_policy()
    assert p.name == "default" and p.on_not_measured is NotMeasured.FAIL
    for c in p.checks:
        assert c.reason and ("judgement" in c.reason or "(" in c.reason)
    required = {c.metric for c in p.checks if c.on_not_measured is None}
    assert required == {"membership.nobox.auc", "singling_out.risk", "linkability.risk"}
    assert "copies.rate" not in {c.metric for c in p.checks}
    # a gate must not pass on nothing
    nothing = evaluate_policy(p, {})
    assert not nothing.passed
    low = Metric(0.01, -0.01, 0.03, 0.0)
    clean = {
        "membership.nobox.auc": Metric(0.52, 0.47, 0.57, 0.5),
        "singling_out.risk": low,
        "linkability.risk": low,
    }
    assert evaluate_policy(p, clean).passed
    assert not evaluate_policy(p, {**clean, "epsilon.violation": True}).passed
    leaky = {**clean, "membership.auc": Metric(0.9, 0.82, 0.97, 0.5)}
    assert not evaluate_policy(p, leaky).passed


# --- reports -------------------------------------------------------------------------------


def _mixed_result() -> PolicyResult:
    p = parse_fail_on(
        "membership.auc>0.6,singling_out.risk>0.05,epsilon.violation,copies.rate>0.01"
    )
    p = Policy(
        (*p.checks[:3], Check("copies.rate", ">", 0.01, on_not_measured="pass")),
        NotMeasured.FAIL,
        "ci",
    )
    return evaluate_policy(
        p,
        {
            "membership.auc": Metric(0.9, 0.8, 0.95, 0.5),
            "singling_out.risk": Metric(0.0, -0.02, 0.02, 0.0),
        },
    )


def test_text_block_and_round_trip() -> None:
    res = _mixed_result()
    text = res.to_text()
    lines = text.splitlines()
    assert lines[0].startswith("Policy 'ci': FAILED (1 of 4 checks failed, 2 not measured")
    assert len(lines) == 5
    assert lines[1].split()[0] == "FAIL" and "0.8 > 0.6" in lines[1]
    assert lines[2].split()[0] == "pass"
    assert lines[3].startswith("  NOT MEASURED") and "fails the gate" in lines[3]
    assert lines[4].startswith("  not measured") and "does not fail the gate" in lines[4]
    back = PolicyResult.from_json(res.to_json())
    assert back.same_as(res) and back.checks[0].status is CheckStatus.FAIL
    assert back.checks[0].metric == Metric(0.9, 0.8, 0.95, 0.5)


def test_junit_xml_parses_with_the_expected_counts(tmp_path: Path) -> None:
    res = _mixed_result()
    path = tmp_path / "policy.xml"
    text = res.to_junit_xml(path)
    assert path.read_text().strip() == text.strip()
    root = ET.fromstring(text.split("\n", 1)[1])
    suite = root.find("testsuite")
    assert suite is not None
    for el in (root, suite):
        assert el.get("tests") == "4" and el.get("failures") == "2"
        assert el.get("skipped") == "1" and el.get("errors") == "0"
    cases = suite.findall("testcase")
    assert [c.get("name") for c in cases] == [c.check.expression for c in res.checks]
    assert sum(c.find("failure") is not None for c in cases) == 2
    assert sum(c.find("skipped") is not None for c in cases) == 1
    assert cases[2].find("failure").get("type") == "NotMeasured"  # type: ignore[union-attr]
    assert cases[0].find("failure").get("type") == "PolicyCheckFailed"  # type: ignore[union-attr]


# --- epsilon -------------------------------------------------------------------------------


def test_epsilon_metrics_feed_the_policy() -> None:
    rng = np.random.default_rng(0)
    y = rng.permutation(np.r_[np.ones(200), np.zeros(200)]).astype(bool)
    leak = empirical_epsilon(y.astype(float), y, rng=rng, claimed=0.5, neighbouring="substitute")
    assert leak.verdict is EpsilonVerdict.VIOLATION
    m = epsilon_metrics(leak)
    assert m["epsilon.violation"] is True
    assert m["epsilon.lower_bound"].ci_low == leak.lower_bound  # type: ignore[union-attr]
    assert m["epsilon.lower_bound"].ci_high == math.inf  # type: ignore[union-attr]
    assert m["membership.auc"].baseline == 0.5  # type: ignore[union-attr]
    res = evaluate_policy(parse_fail_on("epsilon.violation,epsilon.lower_bound>0.5"), m)
    assert [c.status for c in res.checks] == [CheckStatus.FAIL, CheckStatus.FAIL]
    # a claim above the ceiling cannot be shown violated: not measured, never a pass
    big = empirical_epsilon(y.astype(float), y, rng=rng, claimed=10.0)
    assert big.verdict is EpsilonVerdict.INCONCLUSIVE
    assert epsilon_metrics(big)["epsilon.violation"] is None
    res = evaluate_policy(parse_fail_on("epsilon.violation"), epsilon_metrics(big))
    assert res.checks[0].status is CheckStatus.NOT_MEASURED and not res.passed
    none = empirical_epsilon(y.astype(float), y, rng=rng)
    assert epsilon_metrics(none)["epsilon.violation"] is None
