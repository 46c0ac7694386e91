"""The 'Membership inference without the generator' section (stage ``membership_nobox``)."""

from __future__ import annotations

from synthleak.harm import FindingKey
from synthleak.references import cite
from synthleak.report import plots
from synthleak.report.blocks import (
    Figure,
    Paragraph,
    Section,
    attack_table,
    finding,
    fmt,
    span,
    verdict_text,
)
from synthleak.report.sections.membership import tpr_sentence
from synthleak.results import AuditResult


def section(result: AuditResult) -> Section | None:
    nb = result.nobox
    if nb is None:
        return None
    sec = Section("Membership inference without the generator", "nobox")
    sec.blocks.append(
        Paragraph(
            f"Each attack scored {nb.member_rows.size} training records (members) and "
            f"{nb.non_member_rows.size} control records (non-members), using only the release and "
            f"{nb.n_reference} other control records as a reference sample of the population "
            f"({cite('vanbreugel2023')}; {cite('houssiau2022')}; {cite('hayes2019')}). No single "
            f"attack is best everywhere ({cite('ward2025synthmia')}), so the strongest is chosen "
            "on half of the records and its AUC reported on the other half."
        )
    )
    sec.blocks.append(
        attack_table(
            (
                (
                    (name,),
                    o.auc,
                    (*(fmt(o.tpr_at_fpr.get(k)) for k in ("0.1", "0.01", "0.001")), o.error or ""),
                )
                for name, o in nb.attacks.items()
            ),
            lead=("attack",),
            tail=("TPR@FPR 0.1", "TPR@FPR 0.01", "TPR@FPR 0.001", "error"),
            caption="Every attack on all scored records (n/a: too few non-members for that FPR).",
        )
    )
    if nb.best is not None:
        b = nb.best
        sec.blocks.append(
            Paragraph(
                f"Strongest attack: '{b.attack}', AUC {fmt(b.auc.value)} (95% CI "
                f"{span(b.auc.ci_low, b.auc.ci_high)}) on {b.evaluated_on} held-out "
                f"records, chosen on {b.selected_on} others (AUC there {fmt(b.selection_auc)}, "
                "biased upwards as the best of several). This is the figure of the finding "
                "'Membership inference without the generator'; the table above shows every attack "
                "on all scored records. " + tpr_sentence(b.tpr_at_fpr) + " Verdict: "
                f"{verdict_text(finding(result, FindingKey.MEMBERSHIP_NOBOX))}."
            )
        )
    if nb.ensemble is not None:
        ens = nb.ensemble
        sec.blocks.append(
            Paragraph(
                f"All {len(ens.attacks)} attacks combined ({cite('wolpert1992')}: weights fitted "
                f"on the {ens.selected_on} selection records only): AUC {fmt(ens.auc.value)} "
                f"(95% CI {span(ens.auc.ci_low, ens.auc.ci_high)}) on the "
                f"{ens.evaluated_on} held-out records. " + tpr_sentence(ens.tpr_at_fpr)
            )
        )
    if nb.records:
        summary = nb.summary()
        sec.blocks.append(
            Figure(
                "record_exposure",
                plots.record_exposure(summary["records"]),
                "Exposure of the most vulnerable records: each attack's score as a percentile of "
                "the non-members' scores (100: the record outscores every real non-member).",
            )
        )
    return sec
