"""The 'Shadow-model membership inference of persons' section (stage ``person_shadow``)."""

from __future__ import annotations

import math

from synthleak.harm import FindingKey
from synthleak.references import cite
from synthleak.report.blocks import Paragraph, Section, TableBlock, finding, fmt, span, verdict_text
from synthleak.results import AuditResult

#: Targets listed in the table of per-person figures (the highest AUC first).
N_LISTED = 10


def section(result: AuditResult) -> Section | None:
    ps = result.person_shadow
    if ps is None:
        return None
    root = result.config.root
    sec = Section(
        "Shadow-model membership inference of persons (relational generator)", "person-shadow"
    )
    where = f"a row of table '{root}'" if root else "a row of the root table"
    sec.blocks.append(
        Paragraph(
            f"Here a person is {where} with all their child rows, and the generator "
            f"'{ps.generator}' was run {ps.n_shadows + ps.n_tests} times on training sets of "
            f"{ps.train_size} persons of the original: {len(ps.target_keys)} target persons "
            "were each in half of the sets and out of the other half. The attacker fitted, per "
            f"target, a likelihood ratio on {ps.n_shadows} shadow releases "
            f"({cite('carlini2022')}) from what the release shows of the person: how close "
            "each of their child rows comes to a released child row (child-dcr), the share "
            "of them released verbatim (child-exact) and how close their person-level view "
            "comes to a released person (view-dcr); 'combined' sums the three and is the "
            f"figure of the finding, fixed in advance. It was scored on {ps.n_tests} other "
            "releases, trained on other persons, whose membership the attacker did not see."
        )
    )
    rows = []
    for name, a in ps.attacks.items():
        t = a.tpr_at_fpr.get("0.1")
        rows.append(
            (
                name,
                fmt(a.auc.value),
                span(a.auc.ci_low, a.auc.ci_high),
                fmt(t.value if t is not None else None),
                span(t.ci_low, t.ci_high) if t is not None else "n/a",
            )
        )
    sec.blocks.append(
        TableBlock(
            ("attack", "AUC", "95% CI", "TPR@FPR 0.1", "95% CI"),
            tuple(rows),
            f"Each attack on all {ps.primary_attack.auc.n_trials} (target, test release) "
            "trials (baseline: AUC 0.5, TPR = FPR). Trials of one target share that target, so "
            "the intervals are somewhat narrow when targets differ much.",
        )
    )
    e = ps.primary_attack.auc
    sec.blocks.append(
        Paragraph(
            f"'{ps.primary}': AUC {fmt(e.value)} (95% CI {span(e.ci_low, e.ci_high)}). This is "
            "the figure of the finding 'Membership inference of persons through the relational "
            "generator'. Verdict: "
            f"{verdict_text(finding(result, FindingKey.MEMBERSHIP_PERSON_SHADOW))}."
        )
    )
    nan = [math.nan] * len(ps.target_keys)
    listed = sorted(
        zip(
            ps.target_keys,
            ps.target_auc,
            ps.target_ci_low or nan,
            ps.target_ci_high or nan,
            strict=True,
        ),
        key=lambda kv: -kv[1] if not math.isnan(kv[1]) else math.inf,
    )[:N_LISTED]
    sec.blocks.append(
        TableBlock(
            (f"person ({root or 'root'} key)", "AUC over the test releases", "95% CI"),
            tuple((str(k), fmt(v), span(lo, hi)) for k, v, lo, hi in listed),
            f"Target persons by their root key, the most exposed first ('{ps.primary}'); each "
            f"AUC rests on the {ps.n_tests} test releases only (about half with the person, "
            "half without), so its interval is wide: read the list as a ranking, with the "
            "verdict above.",
        )
    )
    return sec
