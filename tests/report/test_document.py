from __future__ import annotations

from synthleak.report.document import Bullets, Figure, Paragraph, TableBlock, build_document
from synthleak.results import AuditResult


def test_summary_names_the_records_at_risk_and_the_first_finding(
    sample_result: AuditResult,
) -> None:
    doc = build_document(sample_result)
    titles = [s.title for s in doc.sections]
    assert titles[0] == "Executive summary" and "Reproducibility" in titles[-1]
    summary = " ".join(b.text for b in doc.sections[0].blocks if isinstance(b, Paragraph))
    assert sample_result.vulnerability is not None
    top_rows = [str(r.row) for r in sample_result.vulnerability.top]
    assert all(r in summary for r in top_rows)
    assert (
        "First finding, by harm to people (records singled out, linked or inferred): Linkability"
        in summary
    )
    assert "CI" in summary
    assert "Holm" in summary and "3 tests" in summary  # the multiple-testing note
    # what could not run is said first, with what it needs; never "no evidence"
    bullets = [b for b in doc.sections[0].blocks if isinstance(b, Bullets)]
    assert "needs a control set" in bullets[0].items[0]


def test_without_the_generator_the_ranking_is_not_called_a_measured_risk(
    sample_result: AuditResult,
) -> None:
    """A release audited without its generator ranks its records from the data alone: the
    summary calls them the most isolated, not the most at risk, and says the ranking is no
    measurement; with the shadow-model game behind it, they are the records at risk."""
    import dataclasses

    def summary(result: AuditResult) -> str:
        sec = build_document(result).sections[0]
        return " ".join(b.text for b in sec.blocks if isinstance(b, Paragraph))

    assert sample_result.membership is not None and sample_result.screening is None
    measured = summary(sample_result)
    assert "Records most at risk" in measured and "not a measurement" not in measured
    release_only = dataclasses.replace(sample_result, membership=None)
    text = summary(release_only)
    assert "Records most isolated" in text and "Records most at risk" not in text
    assert "not a measurement of their risk, which needs the generator" in text
    records = next(s for s in build_document(release_only).sections if s.anchor == "records")
    assert any("not a measurement" in b.text for b in records.blocks if isinstance(b, Paragraph))
    assert "0.3 to 0.7" in text  # V_k's measured worth
    # a release audited without its generator is ranked by cell rarity, and says so
    assert release_only.vulnerability is not None
    rarity = dataclasses.replace(
        release_only,
        vulnerability=dataclasses.replace(
            release_only.vulnerability, method="rarity", k=0, metric=""
        ),
    )
    text = summary(rarity)
    assert "Records rarest in the data" in text and "0.6 to 0.8" in text
    records = next(s for s in build_document(rarity).sections if s.anchor == "records")
    first = next(b.text for b in records.blocks if isinstance(b, Paragraph))
    assert first.startswith("Rarity score (cell rarity)") and "k = " not in first


def test_sections_have_tables_and_figures(sample_result: AuditResult) -> None:
    doc = build_document(sample_result)
    blocks = [b for s in doc.sections for b in s.blocks]
    names = {b.name for b in blocks if isinstance(b, Figure)}
    assert {"vulnerability", "roc_query", "auc_boxplots", "privacy_utility"} <= names
    assert any(isinstance(b, TableBlock) and "verdict" in b.header for b in blocks)
    assumptions = next(s for s in doc.sections if s.anchor == "assumptions")
    assert len(assumptions.blocks) >= 6  # one title + three assumptions per distinct threat model


def test_minimal_result_still_renders(sample_result: AuditResult) -> None:
    import dataclasses

    bare = dataclasses.replace(
        sample_result,
        stages=(),
        findings=(),
        vulnerability=None,
        membership=None,
        utility=None,
        privacy_utility=(),
        notes=(),
    )
    doc = build_document(bare)
    assert [s.anchor for s in doc.sections] == [
        "summary",
        "findings",
        "assumptions",
        "reproducibility",
    ]
    summary = " ".join(b.text for b in doc.sections[0].blocks if isinstance(b, Paragraph))
    assert "No attack could run" in summary and "no evidence" not in summary


def test_records_are_masked_unless_asked(sample_result: AuditResult) -> None:
    from tests.report.conftest import make_result

    def records(result: AuditResult):  # type: ignore[no-untyped-def]
        return next(s for s in build_document(result).sections if s.anchor == "records")

    masked = records(make_result(show_records=False))
    table = next(b for b in masked.blocks if isinstance(b, TableBlock))
    assert table.header == ("rank", "row", "score", "stands out in")
    assert all("F" not in row for row in table.rows)  # no value of a real record
    shown = records(sample_result)
    assert any("personal data" in b.text for b in shown.blocks if isinstance(b, Paragraph))


def test_riskmap_section_from_a_risk_map_result() -> None:
    import numpy as np

    from synthleak.data.schema import Schema
    from synthleak.findings import audit_result_from
    from synthleak.games.riskmap import RiskMapConfig, RiskMapResult
    from synthleak.metrics.ranking import RankValidation, SelectorAgreement

    n = 50
    i = np.arange(n)
    auc = np.stack([0.5 + 0.004 * i, 0.4 + 0.004 * i, 0.6 + 0.004 * i], axis=1)
    cfg = RiskMapConfig(
        "baynet:k=2", 50, 50, None, 100, 50, ("query",), {"query": {}}, 5, 100, 0, "x", "y", 500
    )
    rm = RiskMapResult(
        cfg,
        i + 100,
        {"query": auc},
        {"vulnerability": 0.01 * i, "rare_value": np.ones(n), "log_likelihood": 2 * np.ones(n)},
        RankValidation(n, 10, 0.2, {"vulnerability": SelectorAgreement(1.0, (0.9, 1.0), 1.0)}),
    )
    result = audit_result_from(
        rm,
        schema=Schema.from_json(
            '{"version": 1, "columns": [{"name": "a", "kind": "categorical", "categories": [0]}]}'
        ),
        source="run",
        command_line="synthleak report run",
    )
    assert result.findings[0].details["row"] == 149
    d = build_document(result)
    sec = next(s for s in d.sections if s.anchor == "riskmap")
    names = {b.name for b in sec.blocks if isinstance(b, Figure)}
    assert names == {"riskmap_auc", "riskmap_auc_vs_vk"}
    tables = [b for b in sec.blocks if isinstance(b, TableBlock)]
    assert tables[0].rows[0][1] == "1.000" and tables[1].rows[0][0] == "149"


def test_references_are_the_works_the_text_cites(sample_result: AuditResult) -> None:
    from synthleak.references import get
    from synthleak.report.document import Bullets, Section, cited_references

    doc = build_document(sample_result)
    assert [r.key for r in doc.references] == [
        "annamalai2024linear",
        "giomi2023",
        "holm1979",
        "meeus2023",
    ]
    refs = next(s for s in doc.sections if s.anchor == "references")
    (items,) = [b.items for b in refs.blocks if isinstance(b, Bullets)]
    assert items == tuple(f"{r.short}: {r.entry()}" for r in doc.references)
    assert [s.anchor for s in doc.sections][-2:] == ["references", "reproducibility"]
    # a citation anywhere in the text (here a table cell) enters the list; none gives no section
    cell = Section("x", "x", [TableBlock(("a",), ((f"see {get('carlini2022').short}",),))])
    assert [r.key for r in cited_references([cell])] == ["carlini2022"]
    assert cited_references([Section("x", "x", [Paragraph("no citation")])]) == ()


def test_findings_name_the_method_they_follow(sample_result: AuditResult) -> None:
    from synthleak.report.document import _method

    assert _method("singling_out.univariate") == "Giomi et al. (2023), Sec. 4.1"
    assert _method("singling_out.contrastive").startswith("Plasencia Palacios (2024), Sec. 2")
    assert _method("attribute.recon.release") == "Annamalai et al. (2024a), Sec. 4.2"
    assert _method("attribute.infer.m1000").startswith("Annamalai et al. (2024a), Sec. 4.1")
    assert _method("membership.query") == "Meeus et al. (2023), Sec. 5.1"
    assert _method("membership.groundhog").startswith("Stadler et al. (2022); ")
    assert _method("membershipx") == "" and _method("something.new") == ""
    doc = build_document(sample_result)
    findings = next(s for s in doc.sections if s.anchor == "findings")
    texts = [b.text for b in findings.blocks if isinstance(b, Paragraph)]
    # the findings follow the harm order: the leak (Linkability) first
    assert texts[0].startswith("Linkability:") and texts[0].endswith(
        "Giomi et al. (2023), Sec. 4.2."
    )


def test_vulnerability_paragraph_cites_the_equation_of_its_metric(
    sample_result: AuditResult,
) -> None:
    import dataclasses

    def records_text(result: AuditResult) -> str:
        sec = next(s for s in build_document(result).sections if s.anchor == "records")
        return sec.blocks[0].text  # type: ignore[union-attr]

    assert "(Meeus et al. (2023), eq. 5)" in records_text(sample_result)
    assert sample_result.vulnerability is not None
    mink = dataclasses.replace(
        sample_result,
        vulnerability=dataclasses.replace(sample_result.vulnerability, metric="minkowski"),
    )
    assert "(Meeus et al. (2023), Sec. 6.4, eq. 6)" in records_text(mink)


def test_a_screened_audit_shows_the_screens_ranking_beside_v_k(
    sample_result: AuditResult,
) -> None:
    """Two-stage audit: the summary names the screen's riskiest records, 'Records at risk' sets
    its ranking beside V_k's, and the membership section says how its targets were chosen."""
    import dataclasses
    import math

    from synthleak.games.cost import power
    from synthleak.results import BudgetRecord, ScreenedRecord, ScreeningSection

    assert sample_result.vulnerability is not None
    vk = [r.row for r in sample_result.vulnerability.top]
    top = (
        ScreenedRecord(700, 1, 37, 0.91, 0.85, 0.97, ("age", "race")),  # 37th by V_k
        ScreenedRecord(vk[2], 2, 3, 0.88, 0.80, 0.95),
    )
    vk_top = (
        ScreenedRecord(vk[0], 0, 1, math.nan, math.nan, math.nan),  # not screened
        ScreenedRecord(vk[1], 5, 2, 0.70, 0.60, 0.80),
        ScreenedRecord(vk[2], 2, 3, 0.88, 0.80, 0.95),
    )
    plan = dataclasses.replace(sample_result.config.plan, screened_shadows=120)
    result = dataclasses.replace(
        sample_result,
        config=dataclasses.replace(sample_result.config, selector="screen", plan=plan),
        screening=ScreeningSection("baynet:k=2", 800, 50, 100, 100, 1000, top, vk_top),
        budget=BudgetRecord(120, 100, 30.0, 35.0, power(100), 12.0),
    )
    doc = build_document(result)
    summary = " ".join(b.text for b in doc.sections[0].blocks if isinstance(b, Paragraph))
    assert f"rows 700, {vk[2]} of the original" in summary
    records = next(s for s in doc.sections if s.anchor == "records")
    table = next(b for b in records.blocks if isinstance(b, TableBlock) and "V_k: row" in b.header)
    assert table.header[1] == "screen: row" and len(table.rows) == 3
    assert table.rows[0][:5] == ("1", "700", "0.910 (0.850 – 0.970)", "37", "age, race")
    assert table.rows[0][5:] == (str(vk[0]), "", "not screened")
    assert table.rows[1][4:] == ("(the combination)", str(vk[1]), "0.700", "5")
    assert table.rows[2][1:2] == ("",)
    text = " ".join(b.text for s in doc.sections for b in s.blocks if isinstance(b, Paragraph))
    assert "the 50 rarest of the 800 training records" in text
    assert "Targets are the records the two-stage screen ranks riskiest" in text
    assert "trains on 120 rather than 200 shadow datasets" in text
    assert AuditResult.from_json(result.to_json()).to_json() == result.to_json()


def _every_state_result() -> AuditResult:
    """An audit whose findings take every verdict, with the attribute game's table behind some
    of them (the game judges one interval too wide that the audit's own limit would read)."""
    import dataclasses
    import math

    import numpy as np
    from tests.report.conftest import make_result

    from synthleak.games.attribute import AttackAccuracy, AttributeGameResult, Measurement
    from synthleak.games.sweep import AttributeSweepResult, SweptColumn
    from synthleak.metrics.privacy import RiskEstimate
    from synthleak.results import Finding, MetricKind, assess
    from synthleak.threat import AdversaryGoal, GeneratorAccess, ThreatModel

    nan = math.nan
    tm = ThreatModel(AdversaryGoal.ATTRIBUTE, GeneratorAccess.BLACK_BOX, "quasi-identifiers")
    specs = [
        # key, title, metric, (value, lo, hi, baseline), game status
        ("attribute.infer.m500", "AIA infer", MetricKind.ACCURACY, (nan, nan, nan, 0.5), "nm"),
        ("attribute.recon.m500", "AIA recon", MetricKind.ACCURACY, (0.55, 0.43, 0.67, 0.5), "ts"),
        ("attribute.dcr.m500", "AIA dcr", MetricKind.ACCURACY, (0.52, 0.45, 0.59, 0.5), "m"),
        ("linkability", "Linkability", MetricKind.RISK, (0.10, 0.06, 0.14, 0.0), ""),
        ("singling_out.multivariate", "SO multi", MetricKind.RISK, (0.4, 0.3, 0.5, 0.0), ""),
        # clears its baseline alone, not after Holm's correction over the five measured tests
        ("singling_out.univariate", "SO uni", MetricKind.RISK, (0.02, 0.001, 0.04, 0.0), ""),
    ]
    # the attribute sweep: one finding per column, every state among them
    specs += [
        ("attribute.sweep.income", "Sweep income", MetricKind.ADVANTAGE, (0.6, 0.5, 0.7, 0.0), "m"),
        ("attribute.sweep.age", "Sweep age", MetricKind.ADVANTAGE, (0.01, -0.03, 0.05, 0.0), "m"),
        ("attribute.sweep.race", "Sweep race", MetricKind.ADVANTAGE, (0.1, -0.2, 0.4, 0.0), "ts"),
        ("attribute.sweep.sex", "Sweep sex", MetricKind.ADVANTAGE, (nan, nan, nan, 0.0), "nm"),
    ]
    status = {"nm": Measurement.NOT_MEASURED, "ts": Measurement.TOO_SMALL, "m": "measured"}
    findings, accuracies, swept = [], [], []
    for key, title, metric, (v, lo, hi, b), st in specs:
        est = RiskEstimate(v, lo, hi, 0.95, 100, b)
        details = {"status": Measurement(status[st]).value} if st else {}
        findings.append(Finding(key, title, metric, est, tm, details))
        if key.startswith("attribute.sweep."):
            rows = np.arange(10, 20, dtype=np.int64)
            swept.append(
                SweptColumn(
                    key.split(".")[2],
                    "the exact class",
                    Measurement(status[st]).value,
                    0.8,
                    0.5,
                    est,
                    nan,
                    n_attacked=10,
                    rows=rows,
                    right=np.ones(10, dtype=np.int64),
                    population_right=(rows % 2).astype(np.int64),
                )
            )
        elif key.startswith("attribute."):
            accuracies.append(
                AttackAccuracy(
                    key.split(".")[1], 500, est, nan, 10, 0, hi - lo, 0.2, Measurement(status[st])
                )
            )
    base = make_result()
    return dataclasses.replace(
        base,
        findings=assess(findings),
        attribute=AttributeGameResult({}, tuple(accuracies), (), ()),
        attribute_sweep=AttributeSweepResult("recon", 10, 0.05, tuple(swept), {"id": "an id"}),
    )


def test_every_verdict_reads_the_same_in_every_section_and_format() -> None:
    """One wording per state: the summary's counts, the findings table, the explanation, the
    attribute game's own table, the HTML, the Markdown and the JSON all say the same verdict
    of every finding, and no verdict column holds another word."""
    import html as _html
    import json

    from synthleak.report.writers import to_html, to_json, to_markdown
    from synthleak.results import Verdict

    result = _every_state_result()
    by_key = {f.key: f for f in result.findings}
    assert {f.verdict for f in result.findings} == set(Verdict)  # every state is rendered
    # the game's "too small to measure" is the finding's, though its width is under MAX_WIDTH
    assert by_key["attribute.recon.m500"].verdict is Verdict.TOO_SMALL
    assert by_key["singling_out.univariate"].corrected_away()
    doc = build_document(result)
    words = {v.value for v in Verdict}
    # every verdict column of every table holds one of the five wordings
    for sec in doc.sections:
        for b in sec.blocks:
            if isinstance(b, TableBlock) and "verdict" in b.header:
                col = b.header.index("verdict")
                assert {r[col] for r in b.rows} <= words, sec.title
    summary = doc.sections[0]
    counts = next(
        b for b in summary.blocks if isinstance(b, Bullets) and "finding(s)" in b.items[0]
    )
    for v in Verdict:
        n = sum(1 for f in result.findings if f.verdict is v)
        if n:
            assert f"{n} finding(s): {v.value}" in counts.items
    findings = next(s for s in doc.sections if s.anchor == "findings")
    table = next(b for b in findings.blocks if isinstance(b, TableBlock))
    attribute = next(s for s in doc.sections if s.anchor == "attribute")
    game_table = next(b for b in attribute.blocks if isinstance(b, TableBlock))
    sweep = next(s for s in doc.sections if s.anchor == "attribute-sweep")
    sweep_table = next(b for b in sweep.blocks if isinstance(b, TableBlock))
    texts = [b.text for b in findings.blocks if isinstance(b, Paragraph)]
    page, md = to_html(doc), to_markdown(doc)
    data = json.loads(to_json(result, doc))
    for f in result.findings:
        word = f.verdict.value  # type: ignore[union-attr]
        others = words - {word}
        (row,) = [r for r in table.rows if r[0] == f.title]
        assert row[-1] == word
        (text,) = [t for t in texts if t.startswith(f"{f.title}:")]
        if f.verdict is Verdict.NOT_MEASURED:
            assert text.startswith(f"{f.title}: Not measured")
            assert row[table.header.index("95% CI")] == "n/a"  # once, not "n/a – n/a"
        else:
            assert f"Verdict: {word}" in text and not any(f"Verdict: {o}" in text for o in others)
        if f.key.startswith("attribute.sweep."):
            (srow,) = [r for r in sweep_table.rows if r[1] == f.key.split(".")[2]]
            assert srow[-1] == word
            # records are listed (by row of the original, no values) for leaking columns only
            leaks = f.verdict in (Verdict.LEAK, Verdict.SEVERE)
            assert srow[-2] == ("5" if leaks else "not listed")
        elif f.key.startswith("attribute."):
            (grow,) = [r for r in game_table.rows if r[0] == f.key.split(".")[1]]
            assert grow[-1] == word
        # the same row in HTML and Markdown
        (hrow,) = [
            r
            for r in page.split("<tr>")
            if f"<td>{_html.escape(f.title)}</td>" in r
            or (f'<td class="n">{_html.escape(f.title)}</td>' in r)
        ]
        assert f">{word}</td>" in hrow and not any(f">{o}</td>" in hrow for o in others)
        (mrow,) = [line for line in md.splitlines() if line.startswith(f"| {f.title} |")]
        assert mrow.endswith(f"| {word} |")
        (jf,) = [x for x in data["findings"] if x["key"] == f.key]
        assert jf["verdict"] == word
    # the multiple-testing correction is visible beside the verdict and explained
    uni = by_key["singling_out.univariate"]
    (row,) = [r for r in table.rows if r[0] == uni.title]
    alone, corrected = row[-2].split(" / ")
    assert float(alone) < 0.05 < float(corrected)
    how = next(s for s in doc.sections if s.anchor == "how-to-read")
    how_text = " ".join(b.text for b in how.blocks if isinstance(b, Paragraph))
    n_tests = sum(1 for f in result.findings if f.verdict is not Verdict.NOT_MEASURED)
    assert f"{n_tests} tests" in how_text and uni.title in how_text and "Holm" in how_text
    listed = [b for b in sweep.blocks if isinstance(b, Bullets) and "rows" in b.items[0]]
    assert [b.items for b in listed] == [("'income': 5 record(s), rows 10, 12, 14, 16, 18",)]
    assert "'id' not swept: an id" in str(sweep.blocks)
    # the first finding of the summary is the top column of the sweep's table
    assert result.first_finding().key == "attribute.sweep.income"  # type: ignore[union-attr]
    assert sweep_table.rows[0][1] == "income"
    assert all(
        any(
            item.startswith(f"{v.value}:")
            for b in how.blocks
            if isinstance(b, Bullets)
            for item in b.items
        )
        for v in Verdict
    )


def test_the_headline_and_its_table_agree_or_say_why_not(sample_result: AuditResult) -> None:
    """The membership finding is measured on the half of the test datasets that did not pick
    it; the per-target table shows all of them: the report states both numbers beside each
    other, and marks the headline's row."""
    import dataclasses

    import numpy as np

    from synthleak.findings import membership_finding
    from synthleak.results import assess, at_least_sentence

    mem = sample_result.membership
    assert mem is not None
    f = membership_finding(mem, rng=np.random.default_rng(0))
    result = dataclasses.replace(sample_result, findings=assess([*sample_result.findings, f]))
    doc = build_document(result)
    text = " ".join(b.text for s in doc.sections for b in s.blocks if isinstance(b, Paragraph))
    table_auc = f"{f.details['auc_all_tests']:.3f}"
    assert f"The per-target table shows AUC {table_auc}" in text
    assert f"figure here ({f.estimate.value:.3f})" in text
    sec = next(s for s in doc.sections if s.anchor == "membership")
    table = next(b for b in sec.blocks if isinstance(b, TableBlock))
    (marked,) = [r for r in table.rows if r[0].endswith("*")]
    assert marked[0] == f"{f.details['row']}*" and marked[2] == f.details["attack"]
    assert marked[3] == table_auc
    # how many records are exposed, with confidence, by the rows the table uses
    severe, exposed = reversed(f.details["at_least"])
    assert "How many records are exposed: " + at_least_sentence(severe) in text
    assert (
        at_least_sentence(exposed) in text
        and "tested in the order of their AUC on the first half" in text
    )
    assert set(exposed["rows"]) <= {t.row for t in mem.targets}
    summary = " ".join(b.text for b in doc.sections[0].blocks if isinstance(b, Paragraph))
    assert ("Records exposed: " in summary) == bool(exposed["k"])


def test_summary_claims_only_what_was_measured(sample_result: AuditResult) -> None:
    """The screen's records are called measured in full only when the shadow-model game
    measured them (those it did are named when it measured some), and utility is said to have a
    reference only when it has one."""
    import dataclasses

    from synthleak.results import ScreenedRecord, ScreeningSection, UtilitySection

    screened = dataclasses.replace(
        sample_result,
        screening=ScreeningSection(
            "baynet:k=2", 800, 50, 100, 100, 1000, (ScreenedRecord(7, 1, 3, 0.9, 0.8, 0.95),)
        ),
    )

    def summary(result: AuditResult) -> str:
        sec = build_document(result).sections[0]
        return " ".join(b.text for b in sec.blocks if isinstance(b, Paragraph))

    # the game measured only some of the screen's first records: it names them
    game_rows = [t.row for t in sample_result.membership.targets]  # type: ignore[union-attr]
    outside = max(game_rows) + 1

    def screen_top(rows: list[int]) -> AuditResult:
        top = tuple(ScreenedRecord(r, i + 1, 3, 0.9, 0.8, 0.95) for i, r in enumerate(rows))
        return dataclasses.replace(
            screened, screening=dataclasses.replace(screened.screening, top=top)
        )

    partly = summary(screen_top([game_rows[0], outside]))
    assert "measured them in full" not in partly
    assert f"measured 1 of them in full (rows {game_rows[0]}); the others are ranked" in partly
    assert "measured none of them" in summary(screen_top([outside]))
    assert "measured them in full" in summary(screen_top(game_rows[:2]))
    no_game = summary(dataclasses.replace(screened, membership=None))
    assert "measured them in full" not in no_game and "did not run" in no_game
    assert "but no reference" in no_game  # the sample's utility has no control reference
    old = dataclasses.replace(sample_result, utility=UtilitySection(0.12, 0.08, 100))
    assert "neither interval nor reference (an older result)" in summary(old)
    with_ref = dataclasses.replace(
        sample_result,
        utility=UtilitySection(
            0.12,
            0.08,
            100,
            (0.1, 0.14),
            (0.07, 0.09),
            0.1,
            0.07,
            (0.09, 0.11),
            (0.06, 0.08),
            455,
            800,
            200,
            1000,
        ),
    )
    assert "as their reference, the score of real people" in summary(with_ref)
    util = next(s for s in build_document(with_ref).sections if s.anchor == "utility")
    table = next(b for b in util.blocks if isinstance(b, TableBlock))
    assert table.rows[0] == ("MRE>10", "0.1200", "0.1000 – 0.1400", "0.1000", "0.0900 – 0.1100")
    text = " ".join(b.text for b in util.blocks if isinstance(b, Paragraph))
    assert "fewer records (200) than the release (800)" in text


def test_glossary_explains_the_terms_the_report_uses(sample_result: AuditResult) -> None:
    doc = build_document(sample_result)
    sec = next(s for s in doc.sections if s.anchor == "glossary")
    items = [i for b in sec.blocks if isinstance(b, Bullets) for i in b.items]
    terms = {i.split(":")[0] for i in items}
    assert {"AUC", "TPR@FPR", "V_k", "baseline", "control set", "Holm correction"} <= terms
    assert {"excess over control", "query"} <= terms  # the membership attack of the sample
    assert "Gaussian-DP mu" not in terms  # no epsilon section in the sample
    assert all(i.endswith(".") and len(i) < 400 for i in items)  # one sentence each
    assert [s.anchor for s in doc.sections][-3:] == ["glossary", "references", "reproducibility"]


def test_glossary_names_every_no_box_attack() -> None:
    from synthleak.attacks.base import AttackFamily, list_attacks
    from synthleak.report.document import ATTACK_GLOSSARY, _attack_sentence

    for info in list_attacks(AttackFamily.NOBOX_MEMBERSHIP):
        assert _attack_sentence("nobox-membership", info.name).endswith(".")
    assert {"dcr", "dcr-diff", "domias"} <= set(ATTACK_GLOSSARY["nobox-membership"])
    assert _attack_sentence("nobox-membership", "no-such-attack") == "an attack of this family."


def test_the_summary_headline_never_reads_no_evidence_on_unreadable_findings(
    sample_result: AuditResult,
) -> None:
    """A tiny audit whose findings are too small to measure heads its summary with that, not
    with "no evidence"; a leak anywhere heads it with the worst leak; counts agree in number."""
    import dataclasses

    from synthleak.report.document import _headline
    from synthleak.results import Verdict

    base = sample_result.findings[0]

    def headline(**kw: int) -> str:
        findings = tuple(
            dataclasses.replace(base, key=f"k{v.name}{i}", verdict=v)
            for v in Verdict
            for i in range(kw.get(v.name, 0))
        )
        return _headline(dataclasses.replace(sample_result, findings=findings))

    tiny = headline(TOO_SMALL=3)
    assert tiny.startswith("Verdict: too small to measure") and "no evidence" not in tiny
    assert headline(NOT_MEASURED=2).startswith("Verdict: not measured")
    mixed = headline(NO_EVIDENCE=2, TOO_SMALL=1)
    assert mixed.startswith("Verdict: no evidence of leakage in 2 of 3")
    assert "the other 1 is too small" in mixed and "so it says nothing" in mixed
    assert "the other 2 are too small" in headline(NO_EVIDENCE=2, TOO_SMALL=2)
    one = headline(NO_EVIDENCE=2, LEAK=1)
    assert one.startswith("Verdict: measurable leakage (1 of 3 findings shows a leak)")
    assert headline(LEAK=1, SEVERE=1).startswith("Verdict: severe leakage (2 of 2 findings show")
    assert headline(NO_EVIDENCE=4) == (
        "Verdict: no evidence of leakage in all 4 findings, at this budget."
    )
    assert headline(NO_EVIDENCE=1) == (
        "Verdict: no evidence of leakage in the audit's one finding, at this budget."
    )


def test_glossary_explains_the_likelihood_ratio_attacks() -> None:
    from synthleak.report.document import _attack_sentence

    assert "Carlini" in _attack_sentence("membership", "lira")
    rmia = _attack_sentence("membership", "rmia")
    assert "Zarifzadeh" in rmia and "population" in rmia and rmia.endswith(".")
    meta = _attack_sentence("membership", "meta")
    assert "Vector Institute (2025)" in meta and "lira" in meta and meta.endswith(".")


def test_the_epsilon_section_says_which_trials_the_bound_rests_on() -> None:
    """A bound from a rule fixed in advance rests on every test dataset; a selected attack's on
    the half it was not chosen on. The section says which."""
    from types import SimpleNamespace

    import numpy as np

    from synthleak.metrics.epsilon import empirical_epsilon
    from synthleak.report.sections.membership import epsilon_section as _epsilon

    y = np.arange(64) % 2 == 1
    scores = {"row 1 / novelty": y.astype(float), "row 1 / query": np.where(y, 0.9, 0.1)}
    texts = []
    for fixed in ({"row 1 / novelty": 0.5}, {}):
        est = empirical_epsilon(
            scores, y, rng=np.random.default_rng(0), claimed=1.0, fixed_rules=fixed
        )
        sec = _epsilon(SimpleNamespace(epsilon=est))  # type: ignore[arg-type]
        assert sec is not None
        texts.append(" ".join(b.text for b in sec.blocks if isinstance(b, Paragraph)))
    assert "fixed before any test dataset was seen (row 1 / novelty" in texts[0]
    assert "chosen on half of the test datasets" in texts[1]


def test_the_membership_figure_states_its_size_against_the_release(
    sample_result: AuditResult,
) -> None:
    """A game on fewer records than the release was trained on says so, with the direction of
    the bias, in its section and beside its figure wherever the figure is quoted (the issue:
    812 records against a release of 2,447, the note comparing them with the budget's 1,000)."""
    import dataclasses

    from synthleak.games.cost import power
    from synthleak.metrics.privacy import RiskEstimate
    from synthleak.report.document import _finding_text
    from synthleak.results import BudgetRecord, Finding, MetricKind
    from synthleak.threat import AdversaryGoal, GeneratorAccess, ThreatModel

    black_box = Finding(
        "membership.black_box",
        "Membership inference (shadow models)",
        MetricKind.AUC,
        RiskEstimate(0.86, 0.78, 0.93, 0.95, 100, 0.5),
        ThreatModel(AdversaryGoal.MEMBERSHIP, GeneratorAccess.BLACK_BOX, "the generator"),
    )

    def texts(budget: BudgetRecord | None) -> tuple[str, str]:
        r = dataclasses.replace(sample_result, budget=budget)
        sec = next(s for s in build_document(r).sections if s.anchor == "membership")
        body = " ".join(b.text for b in sec.blocks if isinstance(b, Paragraph))
        return body, _finding_text(r, black_box)

    smaller = BudgetRecord(
        200, 100, 10.0, 12.0, power(100), train_size=812, release_train_size=2447
    )
    body, headline = texts(smaller)
    said = (
        "Measured at 812 records, fewer than the release's 2,447: smaller training sets leak "
        "more, so this figure may overstate the release's risk."
    )
    assert said in body and said in headline
    same = dataclasses.replace(smaller, train_size=2447)
    body, headline = texts(same)
    assert "as many as the release was trained on" in body and "overstate" not in body
    assert "as many as the release was trained on" in headline
    # an older result that did not record the sizes states neither
    body, headline = texts(dataclasses.replace(smaller, train_size=0, release_train_size=0))
    assert "Measured" not in body and "Measured" not in headline


def test_the_privacy_utility_plot_says_what_its_points_are(sample_result: AuditResult) -> None:
    """The plot's points are other datasets than the release: its caption says what each is
    and marks the release's own utility, the table's figures (the issue: the game's datasets
    at MRE>10 0.188 beside a table of the release at 0.233, uncaptioned)."""
    import dataclasses

    def caption(result: AuditResult) -> str:
        sec = next(s for s in build_document(result).sections if s.anchor == "utility")
        return next(b.caption for b in sec.blocks if isinstance(b, Figure))

    u = sample_result.utility
    assert u is not None
    text = caption(sample_result)
    assert f"MRE>10 {u.mre_gt10:.4f}, 3-TVD {u.tvd3:.4f}" in text
    assert "the release's own utility" in text and "the points are other datasets" in text
    text = caption(dataclasses.replace(sample_result, utility=None))
    assert "release's own utility was not measured" in text and "not the release" in text


def test_a_resumed_part_states_the_time_of_every_run(sample_result: AuditResult) -> None:
    """A part resumed from an earlier, interrupted run states the seconds of every run
    together and says so (the issue: a resumed screen "took 0 s")."""
    import dataclasses

    from synthleak.games.cost import power
    from synthleak.results import BudgetRecord

    def budget_text(resumed: tuple[str, ...]) -> str:
        b = BudgetRecord(200, 100, 300.0, 280.0, power(100), 0.0, resumed=resumed)
        r = dataclasses.replace(sample_result, budget=b)
        sec = next(s for s in build_document(r).sections if s.anchor == "membership")
        return next(b.text for b in sec.blocks if b.text.startswith("Budget:"))  # type: ignore[union-attr]

    fresh = budget_text(())
    assert "took 4.7 min." in fresh and "earlier" not in fresh
    resumed = budget_text(("game",))
    assert "took 4.7 min (this run's and an earlier run's together: the work the" in resumed
    assert "kept from it and read back" in resumed


def test_findings_table_prints_p_values_that_agree_with_the_verdict() -> None:
    """The table's "p alone / after Holm" cell: a Holm p-value one float above 5 % (not
    significant) reads "> 0.050", never "0.050" beside "a leak needs at most 5%"; the caption
    gives the number of tests."""
    import dataclasses
    import math

    from tests.report.conftest import make_result

    base = make_result()
    f0 = base.findings[1]
    assert f0.n_tests >= 2
    just_above = dataclasses.replace(f0, p_value=0.025, p_holm=math.nextafter(0.05, 1.0))
    res = dataclasses.replace(base, findings=(just_above, *base.findings[2:]))
    tables = [
        b
        for s in build_document(res).sections
        if s.anchor == "findings"
        for b in s.blocks
        if isinstance(b, TableBlock)
    ]
    (table,) = tables
    col = table.header.index("p alone / after Holm")
    cells = [r[col] for r in table.rows]
    assert cells[0] == "0.025 / > 0.050", cells
    assert f"audit's {f0.n_tests} tests" in table.caption


def test_the_attribute_section_states_one_verdict_per_secret_and_its_baseline() -> None:
    """A secret measured several ways reads as the most telling of its findings, once, at the
    top of its section (each row keeps its finding's verdict); the game's baseline names its
    classes, a numeric secret's missing values among them."""
    import dataclasses

    from synthleak.results import Verdict

    result = _every_state_result()
    labels = ["[1, 2)", "[2, 3)", "[3, 4)", "[4, 5)", "[5, 6]", "<missing>"]
    config = {
        "secret": "income",
        "secret_classes": labels,
        "secret_rule": {"rule": "bin", "tolerance": None, "bins": 5},
    }
    result = dataclasses.replace(
        result, attribute=dataclasses.replace(result.attribute, config=config)
    )
    doc = build_document(result)
    sec = next(s for s in doc.sections if s.anchor == "attribute")
    texts = [b.text for b in sec.blocks if isinstance(b, Paragraph)]
    order = [Verdict.NOT_MEASURED, Verdict.NO_EVIDENCE, Verdict.TOO_SMALL, Verdict.LEAK]
    order.append(Verdict.SEVERE)
    game = [f for f in result.findings if f.key.startswith("attribute.") and ".m500" in f.key]
    worst = max(game, key=lambda f: order.index(f.verdict))
    assert texts[0].startswith(f"Verdict for the secret 'income': {worst.verdict.value}, ")
    assert f"'{worst.title}'" in texts[0]
    assert sum("Verdict for the secret" in t for t in texts) == 1
    (table,) = [b for b in sec.blocks if isinstance(b, TableBlock)]
    assert "6 classes: 5 quantile bins" in table.caption and "missing values" in table.caption
    assert "1/6" in table.caption


def test_summary_counts_the_people_a_generated_release_was_trained_on(
    sample_result: AuditResult,
) -> None:
    import dataclasses

    def opening(result: AuditResult) -> str:
        sec = build_document(result).sections[0]
        return next(b.text for b in sec.blocks if isinstance(b, Paragraph) and "exposes" in b.text)

    cfg = sample_result.config
    given = opening(
        dataclasses.replace(sample_result, config=dataclasses.replace(cfg, synthetic="s.csv"))
    )
    assert f"exposes the {cfg.n_original:,} real people in '{cfg.original}'" in given
    generated = dataclasses.replace(
        sample_result,
        config=dataclasses.replace(
            cfg, synthetic=None, control=None, generator="baynet", n_original=48842, n_control=24421
        ),
    )
    text = opening(generated)
    assert "exposes the 24,421 real people of" in text and "it was trained on" in text
    assert "the other 24,421 were held out as the control set" in text
    assert "48,842" not in text


def test_membership_signals_alone_read_as_aggregate_signals_ranked_last(
    sample_result: AuditResult,
) -> None:
    """A release whose only flags are no-box AUCs barely above 0.5 that survive Holm (chance
    alarms on null releases look like this) is headed as an aggregate membership signal with its
    size, not as a record a reader must act on; with a record-level leak beside it, it comes
    last."""
    import dataclasses

    from synthleak.metrics.privacy import RiskEstimate
    from synthleak.report.document import _headline
    from synthleak.results import Finding, MetricKind, Verdict, assess

    tm = sample_result.findings[0].threat

    def f(key: str, lo: float, hi: float, metric: MetricKind) -> Finding:
        b = 0.5 if metric is MetricKind.AUC else 0.0
        return Finding(key, key, metric, RiskEstimate((lo + hi) / 2, lo, hi, 0.95, 2000, b), tm)

    calm = [
        f("linkability", -0.02, 0.02, MetricKind.RISK),
        f("copies.exact", -0.01, 0.01, MetricKind.RATE),
    ]
    nobox = f("membership.nobox", 0.535, 0.613, MetricKind.AUC)
    alone = dataclasses.replace(sample_result, findings=assess([nobox, *calm]))
    assert alone.findings[0].verdict is Verdict.LEAK  # it survives Holm
    text = _headline(alone)
    assert "By harm to people: aggregate membership signals: membership.nobox (auc 0.574" in text
    assert "no record is shown published, singled out or inferred" in text
    doc = build_document(alone)
    summary = " ".join(b.text for b in doc.sections[0].blocks if isinstance(b, Paragraph))
    assert "First finding, by harm to people (aggregate membership signals)" in summary
    single = f("singling_out.univariate", 0.05, 0.1, MetricKind.RISK)
    both = dataclasses.replace(sample_result, findings=assess([nobox, *calm, single]))
    assert [x.key for x in both.by_harm()][:2] == ["singling_out.univariate", "membership.nobox"]
    assert "aggregate signals: the release" not in _headline(both)
    # real records found verbatim as often as among the control are counted, not led with
    chance = dataclasses.replace(calm[1], details={"people_published": 2})
    quiet = dataclasses.replace(sample_result, findings=assess([calm[0], chance]))
    assert quiet.first_finding().verdict is Verdict.NO_EVIDENCE  # type: ignore[union-attr]
    assert (
        "copies.exact: 2 real people of the data found verbatim in the release, though not "
        "significantly more often than among people who were not in the data"
    ) in _headline(quiet)
