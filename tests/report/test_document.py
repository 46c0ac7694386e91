from __future__ import annotations

from synthleak.report.document import Figure, Paragraph, TableBlock, build_document
from synthleak.results import AuditResult


def test_summary_names_the_records_at_risk_and_the_worst_outcome(sample_result: AuditResult) -> None:
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
    assert [s.anchor for s in doc.sections] == ["summary", "findings", "records", "assumptions", "reproducibility"]
