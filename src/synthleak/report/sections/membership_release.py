"""The 'Membership inference on the release' section (stage ``membership_release``)."""

from __future__ import annotations

from synthleak.harm import FindingKey
from synthleak.references import cite
from synthleak.report.blocks import Paragraph, Section, TableBlock, finding, fmt, span, verdict_text
from synthleak.report.sections.membership import tpr_sentence
from synthleak.results import AuditResult


def section(result: AuditResult) -> Section | None:
    mr = result.membership_release
    if mr is None:
        return None
    sec = Section("Membership inference on the release (shadow releases)", "membership_release")
    sec.blocks.append(
        Paragraph(
            "This attack scores the published release itself: which of the training records "
            f"does this synthetic file expose? It learned from {mr.n_shadows} shadow releases "
            f"of the same generator ({mr.shadows_from}; {mr.n_examples} labelled examples) what "
            "sets a member of a release apart, each record's signal compared with its values on "
            f"the shadow releases it was not in ({cite('carlini2022')}; "
            f"{cite('zarifzadeh2024')}; the setting of {cite('midst2025')}), then scored "
            f"{len(mr.member_rows)} training records (members) and {len(mr.non_member_rows)} "
            "control records (non-members) on the release. It differs from the generator-level "
            "game ('Membership inference per target'), which trains the generator "
            "many times on datasets it draws itself and measures how much the generator leaks "
            "chosen targets: that game attacks the generator, this one the one release that is "
            "published."
            + (
                f" {mr.n_dropped} candidate records that a shadow release was trained on were "
                "left out: their signals cannot be calibrated like the others'."
                if mr.n_dropped
                else ""
            )
        )
    )
    sec.blocks.append(
        Paragraph(
            f"AUC {fmt(mr.auc.value)} (95% CI {span(mr.auc.ci_low, mr.auc.ci_high)}; a random "
            "guess scores 0.5). "
            + tpr_sentence(mr.tpr_at_fpr())
            + f" Verdict: {verdict_text(finding(result, FindingKey.MEMBERSHIP_RELEASE))}."
            + (
                f" {mr.verbatim.sentence()}"
                if mr.verbatim is not None and mr.verbatim.found
                else ""
            )
        )
    )
    if mr.records:
        sec.blocks.append(
            TableBlock(
                ("row", "score", "share of non-members scoring as high"),
                tuple((str(r.row), fmt(r.score), f"{r.p_value:.2g}") for r in mr.records),
                "The training records the attack ranks highest (rows of the original). The "
                "share is (1 + non-members at least as high) / (1 + non-members): small means "
                "the record stands out from records known not to be in the training data.",
            )
        )
    return sec
