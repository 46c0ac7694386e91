"""The ``copies`` stage of the audit (:mod:`synthleak.stages.copies`)."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
from tests.stages.audit_helpers import TINY, by_key

from synthleak.pipeline import STAGES, audit
from synthleak.results import AuditResult, StageStatus
from synthleak.verdicts import Verdict


def test_fail_on_fails_a_copy_and_passes_a_disjoint_sample(split) -> None:
    from synthleak.policy import parse_fail_on

    train, ctl, other = split
    policy = parse_fail_on("membership.nobox.auc>0.6,singling_out.risk>0.05,linkability.risk>0.05")
    leaky = audit(train, synthetic=train, control=ctl, plan=TINY, seed=1, policy=policy)
    clean = audit(train, synthetic=other, control=ctl, plan=TINY, seed=1, policy=policy)
    assert leaky.policy is not None and not leaky.policy.passed and leaky.policy.exit_code == 3
    assert clean.policy is not None and clean.policy.passed, clean.policy.to_text()
    assert AuditResult.from_json(leaky.to_json()).policy == leaky.policy


def test_identifier_and_text_columns_are_left_out_but_still_checked_for_copies(split) -> None:
    """A person_id column made a GaussianCopula release read "SEVERE"; names became categoricals
    with one level per row. Both are now left out of the attacks with a note, fresh identifiers in
    the release do not hide copied rows, and copied identifiers are measured."""
    train, ctl, other = (t.to_frame() for t in split)
    for i, df in enumerate((train, ctl, other)):
        df.insert(0, "person_id", np.arange(len(df)) + 10_000 * i)
        df["name"] = [f"Person {j} of street {7 * j + i}" for j in range(len(df))]
    release = train.copy()
    release["person_id"] = np.arange(len(release)) + 50_000  # fresh identifiers
    r = audit(train, synthetic=release, control=ctl, plan=TINY, seed=0)
    assert r.data is not None
    assert set(r.data.profile.excluded) == {"person_id", "name"}
    assert "person_id" not in r.schema.names and "name" not in r.schema.names
    assert any("identifier" in w.message for w in r.data.warnings())
    copies = by_key(r)["copies.exact"]
    assert copies.verdict is Verdict.SEVERE  # rows copied verbatim although the ids are new
    assert r.copies is not None
    rates = {c.column: c.synthetic_in_original.value for c in r.copies.columns}
    assert rates["person_id"] == 0.0 and rates["name"] == 1.0  # the copied names are counted
    cols = by_key(r)["copies.columns"]
    assert cols.verdict is Verdict.SEVERE and cols.details["column"] == "name"
    assert any("'name' (left out of the attacks)" in w for w in cols.where)
    assert not any("person_id" in w for w in cols.where)
    leaked = release.assign(person_id=train["person_id"].to_numpy())
    r2 = audit(train, synthetic=leaked, control=ctl, plan=TINY, seed=0)
    assert r2.copies is not None
    assert {c.column: c.synthetic_in_original.value for c in r2.copies.columns}["person_id"] == 1.0
    assert any("'person_id'" in w for w in by_key(r2)["copies.columns"].where)
    # a disjoint sample of other people is not flagged through these columns
    clean = audit(train, synthetic=other, control=ctl, plan=TINY, seed=0)
    assert by_key(clean)["copies.exact"].verdict is Verdict.NO_EVIDENCE
    assert by_key(clean)["copies.columns"].verdict is Verdict.NO_EVIDENCE


def test_null_oracle_copy_findings_p_values_are_valid() -> None:
    """Copies (exact rows and the worst of 8 columns) on null counts at the CLI's shapes: 2,000
    synthetic records, 500 control records, each found in the original at the same rate (the
    columns at equal size: the release's values among 500 training and 500 control records).
    Fisher's exact test (Bonferroni over the columns) is discrete: ``P(p <= a) <= a`` at several
    levels over 300 draws (3 binomial standard errors), and not pinned at 1; a p read from the
    interval clipped at the excess's -1..1 scale or at 0 fails that."""
    from synthleak.metrics.copies import ColumnCopies, CopyReport
    from synthleak.metrics.privacy import RiskEstimate
    from synthleak.stages.copies import copy_findings
    from synthleak.verdicts import one_sided_p

    rng = np.random.default_rng(51)
    nan = float("nan")

    def rate(k: int, n: int) -> RiskEstimate:
        return RiskEstimate(k / n, nan, nan, 0.95, n, None)

    col_rates = np.array([0.01, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6])
    exact, columns = [], []
    for _ in range(300):
        cols = tuple(
            ColumnCopies(
                f"c{i}",
                0.9,
                rate(rng.binomial(2000, r), 2000),
                None,
                500,  # the equal-size comparison: the release's values among 500 of each part
                rate(rng.binomial(2000, r), 2000),
                rate(rng.binomial(2000, r), 2000),
            )
            for i, r in enumerate(col_rates)
        )
        rep = CopyReport(
            4000, 2000, 500,
            rate(rng.binomial(2000, 0.05), 2000), rate(0, 4000),
            rate(rng.binomial(500, 0.05), 500), None,
            np.zeros(0, dtype=np.int64), cols, None, 0.05, None, None,
        )  # fmt: skip
        found = {f.key: f for f in copy_findings(rep)}
        exact.append(found["copies.exact"].p_value)
        columns.append(found["copies.columns"].p_value)
        assert found["copies.columns"].p_value == one_sided_p(found["copies.columns"].estimate, 0.0)
    for p in (np.array(exact), np.array(columns)):
        assert np.isfinite(p).all()
        for lv in (0.01, 0.025, 0.05, 0.1, 0.25, 0.5):
            assert float(np.mean(p <= lv)) <= lv + 3 * math.sqrt(lv * (1 - lv) / p.size), lv
    assert float(np.mean(np.array(exact) <= 0.05)) >= 0.02
    assert float(np.mean(np.array(columns) <= 0.5)) >= 0.25


def test_every_copy_excess_has_newcombes_continuity_corrected_interval() -> None:
    """Each copy finding's interval is Newcombe's method 11 (the one the person-level figures
    use, ``benchmarks/RESULTS_copies.md``): against his published worked examples (Newcombe
    1998, Table II) for the whole records, the one column checked (Bonferroni over one column
    is the 95 % interval) and the values one record holds; the uncorrected interval (method 10,
    0.0524 to 0.3339 and 0.1705 to 0.8090) is narrower and fails this."""
    from synthleak.metrics.copies import ColumnCopies, CopyReport, RareValues
    from synthleak.metrics.privacy import RiskEstimate
    from synthleak.stages.copies import copy_findings

    nan = float("nan")

    def rate(k: int, n: int) -> RiskEstimate:
        return RiskEstimate(k / n, nan, nan, 0.95, n, None)

    examples = {(56, 70, 48, 80): (0.0428, 0.3422), (9, 10, 3, 10): (0.1013, 0.8387)}
    for (k1, n1, k2, n2), want in examples.items():
        column = ColumnCopies("c", 0.9, rate(k1, n1), None, 10, rate(k1, n1), rate(k2, n2))
        rv = RareValues(("c",), n1, k1, n2, k2, np.arange(k1, dtype=np.int64), ("c",))
        rep = CopyReport(
            n1 + n2, n1, n2, rate(k1, n1), rate(0, n1), rate(k2, n2), None,
            np.arange(k1, dtype=np.int64), (column,), None, 0.0, None, None, rare_values=rv,
        )  # fmt: skip
        found = {f.key: f for f in copy_findings(rep)}
        for key in ("copies.exact", "copies.columns", "copies.rare_values"):
            e = found[key].estimate
            assert e.value == pytest.approx(k1 / n1 - k2 / n2), key
            assert (e.ci_low, e.ci_high) == pytest.approx(want, abs=5e-5), (key, k1, n1)
            assert "continuity-corrected" in found[key].details["excess"], key


def _titles(n: int, seed: int) -> pd.DataFrame:
    """Records with a free-text title each (long, held by one record) and two features."""
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "title": [f"Notes on the winter harvest of field {seed}-{i}" for i in range(n)],
            "age": rng.integers(18, 90, n),
            "weight": rng.lognormal(11, 0.5, n).round(-2),
        }
    )


def test_copy_findings_carry_people_and_what_they_are_compared_with() -> None:
    """Issue 51 (items 2, 11b): every copy finding says how many people it shows published
    and what it is compared with; a column copied less than chance is never named worst."""
    from synthleak.metrics.copies import copy_report, lone_text, rare_values
    from synthleak.stages.copies import copy_findings

    ori, ctl = _titles(800, 1), _titles(200, 2)
    syn = _titles(600, 3)
    syn.iloc[:30] = ori.iloc[10:40].to_numpy()  # 30 whole records copied
    rep = copy_report(ori, syn, ctl, near_quantile=0, value_columns=["title"])
    rep = replace(
        rep,
        lone_text=lone_text(ori, syn, ["title"]),
        rare_values=rare_values(ori, syn, ctl, ["age"]),
    )
    by = {f.key: f for f in copy_findings(rep, {"title": "left out of the attacks"})}
    assert set(by) == {"copies.exact", "copies.columns", "copies.rare_values"}
    assert by["copies.exact"].details["people_published"] == 30
    assert by["copies.columns"].details["people_published"] == 30  # their titles
    assert by["copies.rare_values"].details["people_published"] == 0
    assert by["copies.exact"].details["compared_with"] == "control"
    assert by["copies.columns"].details["compared_with"] == "control"
    # no age is held by one record alone: not measured, and compared with nothing
    assert by["copies.rare_values"].details["compared_with"] == "none"
    cols = by["copies.columns"]
    assert cols.details["column"] == "title" and "worst column: 'title'" in cols.title
    assert not any("weight" in w for w in cols.where)
    # a release whose weights are the control's: copied less than chance, never named worst
    w_only = pd.DataFrame({"weight": ctl["weight"].sample(600, replace=True, random_state=0)})
    low = copy_report(ori[["weight"]], w_only, ctl[["weight"]], value_columns=["weight"])
    w = {c.column: c for c in low.columns}["weight"]
    assert w.synthetic_in_original_m is not None and w.synthetic_in_control_m is not None
    assert w.synthetic_in_original_m.value < w.synthetic_in_control_m.value
    f = {f.key: f for f in copy_findings(low)}["copies.columns"]
    assert "column" not in f.details and f.title.endswith("(no column exceeds chance)")
    assert f.verdict is Verdict.NO_EVIDENCE


def test_copy_findings_without_a_control() -> None:
    """Issue 51 (11b): a release copying its free-text titles is flagged with no control
    (long text one record holds, against the stated chance rate), the columns with no chance
    rate are listed as not measured with the input they need, and no sentence speaks of a
    control; a release of other titles is not flagged."""
    from synthleak.metrics.copies import copy_report, lone_text
    from synthleak.stages.copies import copy_checks_not_measured, copy_findings

    ori = _titles(800, 1)
    for planted, syn in ((800, ori.sample(800, random_state=0)), (0, _titles(800, 4))):
        syn = syn.assign(age=np.random.default_rng(5).integers(18, 90, 800))  # rows differ
        rep = copy_report(ori, syn.reset_index(drop=True), near_quantile=0, value_columns=["title"])
        rep = replace(rep, lone_text=lone_text(ori, syn, ["title"]))
        by = {f.key: f for f in copy_findings(rep, {"title": "left out of the attacks"})}
        cols, exact = by["copies.columns"], by["copies.exact"]
        assert cols.details["compared_with"] == exact.details["compared_with"] == "chance"
        assert cols.details["people_published"] == planted
        assert cols.estimate.baseline == 0.01 and "probability at most 0.01" in str(
            cols.details["assumption"]
        )
        assert cols.verdict is (Verdict.SEVERE if planted else Verdict.NO_EVIDENCE)
        for f in by.values():
            assert "control" not in f.explanation(), f.explanation()
        missing = copy_checks_not_measured(list(by.values()))
        assert [m.name for m in missing] == ["copies.columns"]
        assert "'weight'" in missing[0].title and "control set" in missing[0].needs
    # whole records without a control: 40 planted copies flagged and counted, none otherwise
    for planted in (40, 0):
        syn = pd.concat([ori.iloc[:planted], _titles(800 - planted, 8)], ignore_index=True)
        exact = {f.key: f for f in copy_findings(copy_report(ori, syn, near_quantile=0))}[
            "copies.exact"
        ]
        assert exact.details["people_published"] == planted
        assert exact.details["copies_expected_by_chance"] == 0.0  # no duplicates in the original
        assert exact.estimate.baseline == exact.details["baseline_rate"] > 0  # upper end
        leak = exact.verdict in (Verdict.LEAK, Verdict.SEVERE)
        assert leak if planted else exact.verdict is Verdict.NO_EVIDENCE
    # no text column at all: the column check is not measured, and listed so
    rep = copy_report(ori.drop(columns="title"), _titles(300, 6).drop(columns="title"))
    f = {f.key: f for f in copy_findings(rep)}["copies.columns"]
    assert f.verdict is Verdict.NOT_MEASURED and f.details["compared_with"] == "none"
    (m,) = copy_checks_not_measured([f])
    assert m.status is StageStatus.NOT_MEASURED and "control set" in m.needs


def test_copied_free_text_without_a_control_is_flagged_and_the_rest_listed() -> None:
    """Issue 51 (11b), end to end: a release copying its free-text titles, audited with no
    control, reads a leak with the count of people whose text is published, and the column
    check it cannot make is in the summary's not-measured list (report included)."""
    from synthleak.report.document import build_document
    from synthleak.report.writers import to_markdown

    ori = _titles(600, 1)
    syn = _titles(600, 7)
    syn["title"] = ori["title"].sample(600, random_state=1).to_numpy()
    r = audit(ori, synthetic=syn, plan=TINY, seed=0)
    assert r.data is not None and "title" in r.data.profile.excluded
    cols = by_key(r)["copies.columns"]
    assert cols.verdict is Verdict.SEVERE and cols.details["compared_with"] == "chance"
    assert cols.details["people_published"] == 600
    missing = {s.name: s for s in r.not_measured()}
    assert "copies.columns" in missing and "'weight'" in missing["copies.columns"].title
    md = to_markdown(build_document(r))
    assert "Verbatim copies of the values of column(s) 'weight'" in md
    assert "the release reproduces 600 of them verbatim" in md
    for f in r.findings:  # no copy sentence speaks of a control the audit does not have
        assert "control" not in f.explanation(), f.explanation()


def test_a_daily_table_split_by_rows_is_not_flagged(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 51 (11a), end to end: one row per day, the days split by rows into original and
    control, a release drawing its dates from the whole calendar: no copy finding flags it
    (the copies stage alone, to keep the test fast)."""
    import synthleak.pipeline as audit_module

    monkeypatch.setattr(audit_module, "STAGES", tuple(s for s in STAGES if s.name == "copies"))
    rng = np.random.default_rng(0)
    days = pd.date_range("2000-01-01", periods=1500, freq="D").strftime("%Y-%m-%d")
    cal = pd.DataFrame(
        {"date": days, "temp": rng.normal(12, 6, 1500).round(1), "rain": rng.integers(0, 40, 1500)}
    )
    perm = rng.permutation(1500)
    ori, ctl = cal.iloc[perm[:1200]], cal.iloc[perm[1200:]]
    # every day once, in another order: the release's dates fall on training and control days
    # exactly in proportion (the chance alarms of dates drawn at random are measured in
    # tests/metrics/test_copies.py)
    syn = cal.assign(date=rng.permutation(days), temp=rng.normal(12, 6, 1500).round(1))
    r = audit(ori, synthetic=syn, control=ctl, plan=TINY, seed=0)
    assert r.copies is not None
    date = {c.column: c for c in r.copies.columns}["date"]
    assert date.control_in_original is not None and date.control_in_original.value == 0.0
    assert date.synthetic_in_original.value == pytest.approx(0.8)  # the old false alarm
    assert date.synthetic_in_original_m == replace(date.synthetic_in_control_m, baseline=0.2)
    for f in r.findings:
        if f.key.startswith("copies."):
            assert f.verdict not in (Verdict.LEAK, Verdict.SEVERE), f.key
