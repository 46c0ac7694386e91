from __future__ import annotations

from synthleak.report.document import Figure, Paragraph, TableBlock, build_document
from synthleak.results import AuditResult


def test_summary_names_the_records_at_risk_and_the_worst_outcome(
    sample_result: AuditResult,
) -> None:
    doc = build_document(sample_result)
    titles = [s.title for s in doc.sections]
    assert titles[0] == "Executive summary" and "Reproducibility" in titles[-1]
    summary = " ".join(b.text for b in doc.sections[0].blocks if isinstance(b, Paragraph))
    top_rows = [str(r["row"]) for r in sample_result.vulnerability["top"]]
    assert all(r in summary for r in top_rows)
    assert "Worst attack outcome: Linkability" in summary and "CI" in summary
    assert "row 17" in summary  # the most exposed record under membership inference


def test_sections_have_tables_and_figures(sample_result: AuditResult) -> None:
    doc = build_document(sample_result)
    blocks = [b for s in doc.sections for b in s.blocks]
    names = {b.name for b in blocks if isinstance(b, Figure)}
    assert {"vulnerability", "roc_query", "auc_boxplots", "privacy_utility"} <= names
    assert any(isinstance(b, TableBlock) and "verdict" in b.header for b in blocks)
    assumptions = next(s for s in doc.sections if s.anchor == "assumptions")
    assert len(assumptions.blocks) >= 6  # one title + three assumptions per distinct threat model


def test_minimal_result_still_renders() -> None:
    doc = build_document(AuditResult({}, {}, {"n_records": 3}))
    assert [s.anchor for s in doc.sections] == [
        "summary",
        "findings",
        "records",
        "assumptions",
        "references",  # the vulnerability paragraph cites Meeus et al. (2023)
        "reproducibility",
    ]


def test_riskmap_section_from_a_risk_map_result() -> None:
    from synthleak.results import from_run_result

    recs = [
        {
            "row": i,
            "auc": 0.5 + 0.004 * i,
            "auc_ci_low": 0.4 + 0.004 * i,
            "auc_ci_high": 0.6 + 0.004 * i,
            "vulnerability": 0.01 * i,
            "rare_value": 1.0,
            "log_likelihood": 2.0,
        }
        for i in range(50)
    ]
    doc = {
        "config": {"generator": "baynet:k=2", "n_shadow": 100, "n_test": 50, "k": 5},
        "records": recs,
        "summary": {
            "auc_mean": 0.6,
            "auc_sd": 0.05,
            "validation": {
                "top_k": 10,
                "chance_precision": 0.2,
                "vulnerability": {
                    "spearman": 1.0,
                    "spearman_ci": [0.9, 1.0],
                    "precision_at_10": 1.0,
                },
            },
        },
    }
    result = from_run_result(doc, source="run", command_line="synthleak report run")
    assert result.findings[0].details["row"] == 49
    assert result.vulnerability["top"][0]["row"] == 49
    d = build_document(result)
    sec = next(s for s in d.sections if s.anchor == "riskmap")
    names = {b.name for b in sec.blocks if isinstance(b, Figure)}
    assert names == {"riskmap_auc", "riskmap_auc_vs_vk"}
    tables = [b for b in sec.blocks if isinstance(b, TableBlock)]
    assert tables[0].rows[0][1] == "1.000" and tables[1].rows[0][0] == "49"


def test_references_are_the_works_the_text_cites(sample_result: AuditResult) -> None:
    from synthleak.references import get
    from synthleak.report.document import Bullets, Section, cited_references

    doc = build_document(sample_result)
    assert [r.key for r in doc.references] == ["annamalai2024linear", "giomi2023", "meeus2023"]
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
    mink = dataclasses.replace(
        sample_result, vulnerability={**sample_result.vulnerability, "metric": "minkowski"}
    )
    assert "(Meeus et al. (2023), Sec. 6.4, eq. 6)" in records_text(mink)
