"""Verdicts of findings: the wording of each state, Holm's correction, the harm order."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest
from tests.report.conftest import make_result

from synthleak.metrics.privacy import RiskEstimate
from synthleak.results import StageStatus
from synthleak.threat import AdversaryGoal, GeneratorAccess, ThreatModel
from synthleak.verdicts import Finding, MetricKind, Verdict, assess, holm, min_trials, one_sided_p

TM = ThreatModel(AdversaryGoal.MEMBERSHIP, GeneratorAccess.BLACK_BOX, "auxiliary data")


def _finding(
    lo: float, hi: float, metric: MetricKind = MetricKind.AUC, base=None, n: int = 200
) -> Finding:
    return Finding("k", "t", metric, RiskEstimate((lo + hi) / 2, lo, hi, 0.95, n, base), TM)


def test_verdicts_follow_the_interval() -> None:
    assert _finding(0.45, 0.6).verdict is Verdict.NO_EVIDENCE
    assert _finding(0.55, 0.7).verdict is Verdict.LEAK
    assert _finding(0.85, 0.95).verdict is Verdict.SEVERE
    assert _finding(-0.01, 0.05, MetricKind.RISK).verdict is Verdict.NO_EVIDENCE
    assert "no evidence" in _finding(0.45, 0.6).explanation()


def test_wide_intervals_are_too_small_to_measure_but_a_clear_leak_is_not() -> None:
    # 24 training records gave intervals like 0.08-0.63: that is no verdict of "no evidence"
    f = _finding(0.08, 0.63, MetricKind.ACCURACY, base=0.5)
    assert f.verdict is Verdict.TOO_SMALL and "too few" in f.explanation()
    assert _finding(0.6, 0.99).verdict is Verdict.LEAK  # wide but entirely above the baseline


def test_a_proportion_on_too_few_trials_is_too_small_however_narrow() -> None:
    # 20 linkability targets, none linked: the interval 0-0.17 is narrow only because nothing
    # succeeded; 20 trials could not tell a risk of 0.3 from 0.6 either
    assert min_trials(MetricKind.RISK) == 62 and min_trials(MetricKind.AUC) == 0
    f = _finding(0.0, 0.17, MetricKind.RISK, n=20)
    assert f.verdict is Verdict.TOO_SMALL
    assert "rests on 20 trials; at least 62 are needed" in f.explanation()
    assert _finding(0.0, 0.17, MetricKind.RISK, n=62).verdict is Verdict.NO_EVIDENCE
    assert _finding(0.3, 0.6, MetricKind.RISK, n=20).verdict is Verdict.SEVERE  # a clear leak
    # an unknown number of trials (0) leaves the width rule alone
    assert _finding(0.0, 0.17, MetricKind.RISK, n=0).verdict is Verdict.NO_EVIDENCE


def test_no_baseline_or_no_estimate_is_not_measured() -> None:
    nan = float("nan")
    f = Finding("k", "t", MetricKind.ACCURACY, RiskEstimate(0.0, 0.0, 0.1, 0.95, 0, nan), TM)
    assert f.verdict is Verdict.NOT_MEASURED
    assert "leak" not in f.explanation() and f.explanation().startswith("Not measured")
    g = Finding("k", "t", MetricKind.AUC, RiskEstimate(nan, nan, nan), TM)
    assert g.verdict is Verdict.NOT_MEASURED


def test_holm_controls_the_family() -> None:
    assert holm([0.01, 0.04, 0.03, float("nan")]) == [True, False, False, False]
    assert holm([0.001, 0.012, 0.02]) == [True, True, True]
    # a borderline "leak" alone stays a leak; among many tests it does not survive
    border = _finding(0.501, 0.65)
    assert border.verdict is Verdict.LEAK and one_sided_p(border.estimate, 0.5) < 0.025
    family = assess([border, *[_finding(0.4, 0.6)] * 9])
    assert family[0].verdict is Verdict.NO_EVIDENCE
    assert "other tests" in family[0].explanation()
    assert assess([_finding(0.8, 0.9), *[_finding(0.4, 0.6)] * 9])[0].verdict is Verdict.SEVERE


def test_holm_adjusted_p_values_reject_exactly_where_holm_does() -> None:
    import numpy as np

    from synthleak.metrics.privacy import holm_adjusted
    from synthleak.verdicts import ALPHA

    rng = np.random.default_rng(0)
    for _ in range(200):
        p = list(rng.random(int(rng.integers(1, 12))) ** 3)
        if rng.random() < 0.3:
            p[0] = float("nan")
        adj = holm_adjusted(p)
        assert [a <= ALPHA if math.isfinite(a) else False for a in adj] == holm(p)
        assert all(a >= x for a, x in zip(adj, p, strict=True) if math.isfinite(x))
    assert holm_adjusted([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])


def test_each_finding_shows_its_test_alone_and_after_the_correction() -> None:
    """The same interval reads differently alone and among ten tests; both figures stay on the
    finding, so the report can print them beside the verdict."""
    border = _finding(0.501, 0.65)
    alone = assess([border])[0]
    assert alone.verdict is Verdict.LEAK and alone.n_tests == 1
    assert alone.p_holm == pytest.approx(alone.p_value)
    many = assess([border, *[_finding(0.4, 0.6)] * 9])[0]
    assert many.verdict is Verdict.NO_EVIDENCE and many.corrected_away()
    assert many.n_tests == 10 and many.p_value == alone.p_value and many.p_holm > ALPHA_
    line = many.significance()
    assert "alone" in line and "over 10 tests (not significant at 5%)" in line
    assert "over 10 tests" in many.explanation()
    # a corrected-away leak with a wide interval is too small to measure, not "no evidence"
    wide = _finding(0.51, 0.99)
    assert assess([wide, *[_finding(0.45, 0.55)] * 20])[0].verdict is Verdict.TOO_SMALL
    # round trip keeps both figures
    again = Finding.from_json(many.to_json())
    assert again.p_holm == many.p_holm and again.n_tests == 10


ALPHA_ = 0.05


def test_a_game_that_judges_its_interval_too_wide_makes_the_finding_too_small() -> None:
    """The attribute game reads intervals wider than 0.2 as too small to measure; the finding
    says the same (not "no evidence"), unless the interval shows a leak."""
    est = RiskEstimate(0.55, 0.43, 0.67, 0.95, 60, 0.5)  # 0.24 wide: under MAX_WIDTH 0.3
    plain = Finding("k", "t", MetricKind.ACCURACY, est, TM)
    assert plain.verdict is Verdict.NO_EVIDENCE
    game = Finding("k", "t", MetricKind.ACCURACY, est, TM, {"status": "too small to measure"})
    assert game.verdict is Verdict.TOO_SMALL and "too wide to read" in game.explanation()
    leak = RiskEstimate(0.75, 0.62, 0.88, 0.95, 60, 0.5)
    assert (
        Finding("k", "t", MetricKind.ACCURACY, leak, TM, {"status": "too small to measure"}).verdict
        is Verdict.LEAK
    )


def test_verdict_wording_is_defined_once() -> None:
    from synthleak.games.secret import Measurement
    from synthleak.verdicts import VERDICT_MEANING

    assert set(VERDICT_MEANING) == set(Verdict)
    assert [v.value for v in Verdict] == [
        "not measured",
        "too small to measure",
        "no evidence of leakage",
        "measurable leakage",
        "severe leakage",
    ]
    # the games' words for the same states are the verdicts' words
    assert Measurement.TOO_SMALL.value == Verdict.TOO_SMALL.value
    assert Measurement.NOT_MEASURED.value == Verdict.NOT_MEASURED.value
    assert StageStatus.NOT_MEASURED.value == Verdict.NOT_MEASURED.value


def test_an_excess_over_the_control_reads_as_one() -> None:
    """A rate reported as its excess over the control's rate (baseline 0) is worded as such,
    and its verdicts follow the same rules as every other finding."""
    leak = Finding(
        "copies.exact",
        "Copies",
        MetricKind.RATE,
        RiskEstimate(0.03, 0.02, 0.04, 0.95, 5000, 0.0),
        TM,
    )
    none = Finding(
        "copies.exact",
        "Copies",
        MetricKind.RATE,
        RiskEstimate(0.001, -0.002, 0.004, 0.95, 5000, 0.0),
        TM,
    )
    assert leak.verdict is Verdict.LEAK and none.verdict is Verdict.NO_EVIDENCE
    assert "excess over control +0.0300" in leak.explanation()
    assert "expected by chance" not in none.explanation()


def test_holm_keeps_the_audit_false_alarm_rate_at_5_percent_where_tests_alone_do_not() -> None:
    """Null oracle of the verdicts: ten findings of a release that leaks nothing (AUC intervals
    centred on noise around 0.5). Read alone, about one audit in five shows a "leak" somewhere
    (1 - 0.975^10); with Holm's correction at most 5% do (ARCHITECTURE, multiple testing)."""
    import numpy as np

    rng = np.random.default_rng(0)
    n_audits, se = 1000, 0.03
    alone = corrected = 0
    for _ in range(n_audits):
        values = 0.5 + se * rng.standard_normal(10)
        fs = [
            Finding("k", "t", MetricKind.AUC, RiskEstimate(v, v - 1.96 * se, v + 1.96 * se), TM)
            for v in values
        ]
        leak = (Verdict.LEAK, Verdict.SEVERE)
        alone += any(f.verdict_alone() in leak for f in fs)
        corrected += any(f.verdict in leak for f in assess(fs))
    assert 0.17 < alone / n_audits < 0.28
    assert corrected / n_audits < 0.065


def test_a_finding_takes_its_estimators_p_value_not_the_intervals() -> None:
    # a risk clipped at 0 (value 0.01, interval 0 to 0.05): the estimator's own test says 0.31
    est = RiskEstimate(0.01, 0.0, 0.05, 0.95, 500, 0.0, p_value=0.31)
    f = Finding("k", "t", MetricKind.RISK, est, TM)
    assert f.p_value == 0.31 and one_sided_p(est, 0.0) == 0.31
    # an explicit p_value given to the finding (the attribute sweep's) still wins
    assert Finding("k", "t", MetricKind.RISK, est, TM, p_value=0.2).p_value == 0.2


def test_the_interval_fallback_is_not_pinned_at_a_clipped_bound() -> None:
    """Without an estimator p (older reports, the risk map) the standard error comes from the
    wider half-interval: a clipped interval no longer gives (1 - confidence) / 2 whatever the
    estimate (it gave 0.025 for all of these)."""
    ps = [one_sided_p(RiskEstimate(v, 0.0, hi, 0.95, 500, 0.0), 0.0) for v, hi in
          [(0.001, 0.04), (0.01, 0.05), (0.03, 0.08)]]  # fmt: skip
    assert all(p > 0.1 for p in ps) and ps == sorted(ps, reverse=True)
    # an unclipped, symmetric interval reads as before: estimate 1.96 standard errors above
    assert one_sided_p(RiskEstimate(0.6, 0.5, 0.7, 0.95, 500, 0.5), 0.5) == pytest.approx(0.025)


def test_a_holm_p_value_just_above_5_percent_does_not_print_as_005() -> None:
    """Holm's 2 x 0.025... lands one float above 0.05: printed 0.050 beside "not significant"
    it contradicted "a leak needs at most 5%"; it prints as ``p > 0.050``."""
    just_above = math.nextafter(0.05, 1.0)
    f = replace(_finding(0.55, 0.7), p_value=0.03, p_holm=just_above, n_tests=2)
    assert "p > 0.050 after Holm's correction over 2 tests (not significant at 5%)" in (
        f.significance()
    )
    at = replace(f, p_holm=0.05)
    assert "p = 0.050 after Holm's correction over 2 tests (significant at 5%)" in (
        at.significance()
    )


def _keyed(key: str, lo: float, hi: float, metric: MetricKind, **details: object) -> Finding:
    base = 0.5 if metric is MetricKind.AUC else 0.0
    e = RiskEstimate((lo + hi) / 2, lo, hi, 0.95, 5000, base)
    return Finding(key, key, metric, e, TM, dict(details))


def test_copies_of_real_people_are_severe_by_their_count_not_a_rate() -> None:
    """A significant excess of whole-record copies publishes real people: severe, though the
    rate's interval (0.042 to 0.058) does not clear the 5 % threshold."""
    copied = _keyed("copies.exact", 0.042, 0.058, MetricKind.RATE, people_published=122)
    assert copied.verdict is Verdict.SEVERE and copied.people_published() == 122
    assert "publishes 122 real people verbatim" in copied.explanation()
    # the count is read from the copies branch's field, else from the copied rows
    legacy = _keyed("copies.exact", 0.042, 0.058, MetricKind.RATE, n_copied=3)
    assert legacy.people_published() == 3 and legacy.verdict is Verdict.SEVERE
    # a copied column is not whole records: its severity follows the rate threshold
    col = _keyed("copies.columns", 0.042, 0.058, MetricKind.RATE, people_published=0)
    assert col.verdict is Verdict.LEAK
    # a value only one person holds is not a whole person: the rules of every rate
    rare = _keyed("copies.rare_values", 0.042, 0.058, MetricKind.RATE, released=5)
    assert rare.verdict is Verdict.LEAK and rare.people_published() == 5
    assert "values that only 5 real people hold" in rare.explanation()
    # severe by count only when the excess survives the audit's correction
    family = assess([copied, *[_keyed("linkability", -0.01, 0.05, MetricKind.RISK)] * 3])
    assert family[0].verdict is Verdict.SEVERE
    at_chance = _keyed("copies.exact", -0.002, 0.004, MetricKind.RATE, people_published=2)
    assert at_chance.verdict is Verdict.NO_EVIDENCE and at_chance.people_published() == 2


def test_harm_order_puts_published_people_first_and_membership_signals_last() -> None:
    from synthleak.harm import Harm
    from synthleak.verdicts import harm_order

    nobox = _keyed("membership.nobox", 0.9, 0.95, MetricKind.AUC)  # far above its baseline
    single = _keyed("singling_out.multivariate", 0.05, 0.1, MetricKind.RISK)
    copied = _keyed("copies.exact", 0.001, 0.01, MetricKind.RATE, people_published=5)
    col = _keyed("copies.columns", -0.01, 0.01, MetricKind.RATE)
    calm = _keyed("linkability", -0.02, 0.02, MetricKind.RISK)
    severe_single = _keyed("attribute.recon.release", 0.3, 0.4, MetricKind.ADVANTAGE)
    found = assess([nobox, calm, single, col, severe_single, copied])
    order = [f.key for f in harm_order(found)]
    assert order == [
        "copies.exact",  # severe by its count, first whatever the AUC
        "attribute.recon.release",  # severe before measurable within a class
        "singling_out.multivariate",
        "membership.nobox",  # an aggregate signal, after every leak of a record
        "copies.columns",  # then the findings without a leak, by class
        "linkability",
    ]
    assert [f.harm for f in harm_order(found)][:4] == [
        Harm.PUBLISHED,
        Harm.SINGLED_OUT,
        Harm.SINGLED_OUT,
        Harm.MEMBERSHIP,
    ]
    r = make_result()
    from dataclasses import replace

    assert replace(r, findings=found).first_finding().key == "copies.exact"  # type: ignore[union-attr]


def test_one_sentence_per_position_of_the_interval() -> None:
    """Above, across and below the baseline each read as such; never "reaches" for an
    interval wholly below it; a rate without a control is not worded against one."""
    below = _keyed("copies.exact", -0.0016, -0.0007, MetricKind.RATE)
    assert below.verdict is Verdict.NO_EVIDENCE
    text = below.explanation()
    assert "The whole interval lies below the baseline of 0.0000" in text
    assert "less for the people in the data than for the control" in text and "reach" not in text
    across = _keyed("linkability", -0.02, 0.03, MetricKind.RISK)
    assert "The interval includes the baseline of 0.000" in across.explanation()
    above = _keyed("singling_out.univariate", 0.05, 0.1, MetricKind.RISK)
    assert "The whole interval lies above the baseline of 0.000" in above.explanation()
    auc_below = _keyed("membership.nobox", 0.40, 0.48, MetricKind.AUC)
    assert "lies below the baseline of 0.500" in auc_below.explanation()
    chance = _keyed("copies.exact", -0.002, -0.001, MetricKind.RATE, compared_with="chance")
    assert "excess over chance" in chance.explanation()
    assert "control" not in chance.explanation().replace("no control set was given", "")
    legacy = _keyed("copies.exact", 0.0, 0.001, MetricKind.RATE, baseline_of="original records")
    assert legacy.compared_with() == "chance"
    none = _keyed("copies.exact", -0.002, 0.001, MetricKind.RATE, compared_with="none")
    assert "over control" not in none.explanation() and "chance" not in none.explanation()


def test_an_interval_from_nothing_to_everything_is_too_small_to_measure() -> None:
    """0.000 to 0.916 clears 0 by a hair: it cannot tell a slight leak from a serious one; a
    wide interval well clear of its baseline stays a leak."""
    hair = _keyed("singling_out.univariate", 0.0004, 0.916, MetricKind.RISK)
    assert hair.verdict is Verdict.TOO_SMALL
    assert "lies wholly above the baseline" in hair.explanation()
    assert _keyed("membership.nobox", 0.6, 0.99, MetricKind.AUC).verdict is Verdict.LEAK
    # a lower bound that clears the baseline is never printed as the baseline
    thin = _keyed("linkability", 0.0004, 0.2, MetricKind.RISK)
    assert thin.verdict is Verdict.LEAK and "CI 0.0004 to 0.2000" in thin.explanation()
