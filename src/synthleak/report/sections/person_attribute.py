"""The 'Attribute inference of persons' section (stage ``person_attribute``)."""

from __future__ import annotations

from synthleak.games.person_attribute import MAX_KEYS
from synthleak.harm import person_attribute_key
from synthleak.report.blocks import (
    Paragraph,
    Section,
    TableBlock,
    finding,
    fmt,
    persons_table,
    span,
    verdict_text,
)
from synthleak.results import AuditResult

#: Root keys the report lists (report.json holds up to the result's cap).


def section(result: AuditResult) -> Section | None:
    pa = result.person_attribute
    if pa is None:
        return None
    g, root = pa.game, pa.root
    sec = Section("Attribute inference of persons (linked tables)", "person-attribute")
    sec.blocks.append(
        Paragraph(
            f"The attacker knows a person's child rows ({len(pa.known)} summaries of them: "
            f"counts, statistics, value counts) and infers their '{pa.secret}', a column of "
            f"table '{root}', from the release. The same attack on persons of the control "
            "swapped in for training persons is the baseline: what histories like theirs say "
            "about anybody. The excess accuracy on the training persons is what the release "
            "reveals about the people in it."
        )
    )
    a, c, d = g.accuracy, g.control_accuracy, g.advantage
    sec.blocks.append(
        TableBlock(
            ("persons", "attacked", "accuracy", "95% CI"),
            (
                (
                    "original (training)",
                    str(g.config["n_targets"]),
                    fmt(a.value),
                    span(a.ci_low, a.ci_high),
                ),
                (
                    "control (baseline)",
                    str(g.config["n_control_targets"]),
                    fmt(c.value),
                    span(c.ci_low, c.ci_high),
                ),
                ("excess", "", fmt(d.value), span(d.ci_low, d.ci_high)),
            ),
            f"Attack '{g.attack}'; always guessing the most common value is right for "
            f"{fmt(g.majority_rate)} of the training persons. Verdict: "
            f"{verdict_text(finding(result, person_attribute_key(pa.secret)))}.",
        )
    )
    if pa.inferred:
        sec.blocks.append(
            persons_table(
                pa.inferred,
                pa.n_inferred,
                root,
                MAX_KEYS,
                f"Training persons whose '{pa.secret}' the attack infers right while a classifier "
                "trained on the control's persons alone does not, by their root key",
                ". Some are inferred by chance, as control persons are: read the list with the "
                "verdict above.",
            )
        )
    if g.reason:
        sec.blocks.append(Paragraph(f"Note: {g.reason}"))
    return sec
