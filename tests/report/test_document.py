from __future__ import annotations

from synthleak.report.document import Bullets, Figure, Paragraph, TableBlock, build_document
from synthleak.results import AuditResult


def test_summary_names_the_records_at_risk_and_the_worst_outcome(
    sample_result: AuditResult,
) -> None:
    doc = build_document(sample_result)
    titles = [s.title for s in doc.sections]
    assert titles[0] == "Executive summary" and "Reproducibility" in titles[-1]
    summary = " ".join(b.text for b in doc.sections[0].blocks if isinstance(b, Paragraph))
    assert sample_result.vulnerability is not None
    top_rows = [str(r.row) for r in sample_result.vulnerability.top]
    assert all(r in summary for r in top_rows)
    assert "Worst attack outcome: Linkability" in summary and "CI" in summary
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
    assert texts[1].startswith("Linkability:") and texts[1].endswith(
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
        ScreenedRecord(700, 1, 37, 0.91, 0.85, 0.97),  # 37th by V_k: not among its top shown
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
    assert table.rows[0][:4] == ("1", "700", "0.910 (0.850 – 0.970)", "37")
    assert table.rows[0][4:] == (str(vk[0]), "", "not screened")
    assert table.rows[1][4:] == (str(vk[1]), "0.700", "5")
    assert table.rows[2][1:2] == ("",)
    text = " ".join(b.text for s in doc.sections for b in s.blocks if isinstance(b, Paragraph))
    assert "the 50 rarest of the 800 training records" in text
    assert "Targets are the records the two-stage screen ranks riskiest" in text
    assert "trains on 120 rather than 200 shadow datasets" in text
    assert AuditResult.from_json(result.to_json()).to_json() == result.to_json()
