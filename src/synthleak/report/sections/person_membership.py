"""The 'Membership inference of persons' section (stage ``person_membership``)."""

from __future__ import annotations

from synthleak.harm import FindingKey
from synthleak.references import cite
from synthleak.report.blocks import (
    Paragraph,
    Section,
    TableBlock,
    attack_table,
    finding,
    fmt,
    span,
    verdict_text,
)
from synthleak.results import AuditResult


def section(result: AuditResult) -> Section | None:
    pm = result.person_membership
    if pm is None:
        return None
    root = result.config.root
    sec = Section("Membership inference of persons (linked tables)", "person-membership")
    where = f"a row of table '{root}'" if root else "a row of the root table"
    sec.blocks.append(
        Paragraph(
            f"Here a person is {where} with all their child rows in the linked tables, and a "
            "member is a person whose rows trained the generator. Each attack scored "
            f"{len(pm.member_keys)} persons of the original (members) and "
            f"{len(pm.non_member_keys)} persons of the control (non-members), using only the "
            f"release ({pm.n_synthetic_persons} synthetic persons) and {pm.n_reference} other "
            "control persons as a reference sample of the population. Unlike the row-level "
            "section 'Membership inference without the generator', which scores one row per "
            "person (the person-level view: the root row with their child rows summarised), "
            "the attacks here also see each person's child rows themselves (child-*: how close "
            "each of their child rows comes to a released child row; a history replayed by the "
            "generator puts every one of them near a released row) and the root row alone "
            f"(root:*, the row-level figure of the parent table) ({cite('ward2026mtmia')}). The "
            "strongest attack is chosen on half of the persons and its figures reported on the "
            "other half."
        )
    )
    rows = []
    for name, a in pm.attacks.items():
        t = a.tpr_at_fpr.get("0.1")
        cells = (fmt(t.value), span(t.ci_low, t.ci_high)) if t is not None else ("n/a", "n/a")
        rows.append(((name,), a.auc, cells))
    sec.blocks.append(
        attack_table(
            rows,
            lead=("attack",),
            tail=("TPR@FPR 0.1", "95% CI"),
            caption="Every attack on all scored persons (baseline: AUC 0.5, TPR = FPR).",
        )
    )
    b = pm.best_attack
    e, t = b.evaluation_auc, b.evaluation_tpr.get("0.1")
    tpr = (
        f"; TPR at FPR 0.1 {fmt(t.value)} (95% CI {span(t.ci_low, t.ci_high)})"
        if t is not None
        else ""
    )
    sec.blocks.append(
        Paragraph(
            f"Strongest attack: '{pm.best}', AUC {fmt(e.value)} (95% CI "
            f"{span(e.ci_low, e.ci_high)}) on {e.n_trials} held-out persons{tpr}, chosen by "
            f"{pm.select_by} on the others (AUC there {fmt(b.selection_auc)}, biased upwards as "
            "the best of several). This is the figure of the finding 'Membership inference of "
            "persons across the linked tables'. Verdict: "
            f"{verdict_text(finding(result, FindingKey.MEMBERSHIP_PERSON))}."
        )
    )
    if pm.exposed:
        sec.blocks.append(
            TableBlock(
                (f"person ({root or 'root'} key)", "score", "percentile among non-members"),
                tuple((str(p.key), fmt(p.score), fmt(p.percentile, 1)) for p in pm.exposed),
                f"The persons of the original the strongest attack ('{pm.best}') ranks most "
                "member-like, by their root key (100: the person outscores every real "
                "non-member). A high rank alone is not proof that a person leaked: read it with "
                "the verdict above.",
            )
        )
    return sec
