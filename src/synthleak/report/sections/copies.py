"""The copies section (stage ``copies``): exact copies, copied columns and rare values."""

from __future__ import annotations

from synthleak.metrics.privacy import RiskEstimate
from synthleak.report.blocks import Paragraph, Section, TableBlock
from synthleak.results import AuditResult


def section(result: AuditResult) -> Section | None:
    c = result.copies
    if c is None:
        return None
    sec = Section("Verbatim copies", "copies")
    e = c.synthetic_in_original
    if c.control_in_original is not None:
        against = (
            f"against {c.control_in_original.value:.2%} of the control records. The finding is "
            "the excess over that rate."
        )
    else:
        d = c.chance_duplicate
        against = (
            f"against a chance rate of at most {d.ci_high:.2%} without a control: the upper end "
            f"of the interval of the share of training records identical to another "
            f"({d.value:.2%}), as a fresh record equals a training record about as often as a "
            "training record equals another."
        )
    sec.blocks.append(
        Paragraph(
            f"Exact copies: {e.value:.2%} of the synthetic records (95% CI {e.ci_low:.2%} – "
            f"{e.ci_high:.2%}) are identical to a training record on the analysed columns; "
            f"{c.copied_rows.size} training record(s) appear verbatim in the release (their row "
            "numbers are in report.json, or in report-records.json.gz beside it when the list "
            f"is long). The rate is measured {against}"
        )
    )
    if c.columns:
        roles = {}
        if result.data is not None:
            roles = {
                col.name: col.role.value.replace("_", " ")
                for col in result.data.profile.columns
                if col.role.value != "feature"
            }
        m = max(col.equal_size for col in c.columns)

        def pct(r: RiskEstimate | None) -> str:
            return "n/a" if r is None else f"{r.value:.1%}"

        sec.blocks.append(
            TableBlock(
                (
                    "column",
                    "left out as",
                    "synthetic values found in the training data",
                    f"found among {m} training records" if m else "among m training records",
                    f"found among {m} control records" if m else "among m control records",
                ),
                tuple(
                    (
                        col.column,
                        roles.get(col.column, ""),
                        f"{col.synthetic_in_original.value:.1%}",
                        pct(col.synthetic_in_original_m),
                        pct(col.synthetic_in_control_m),
                    )
                    for col in c.columns
                ),
                "High-cardinality columns (names, free text, identifiers, dates, fine-grained "
                "numbers), including those left out of the attacks: the share of the release's "
                "values found verbatim in the training data and, for the verdict, the share found "
                "among as many training records as control records against the share found among "
                "the control records (real people who were not trained on): a release made "
                "without the training records finds its values in either at the same rate, "
                "whether values repeat or occur once each (a date per day)."
                + (
                    ""
                    if m
                    else " Without a control these columns have no chance rate and are not "
                    "measured, except for the long text one record holds (below)."
                ),
            )
        )
    lt = c.lone_text
    if lt is not None and lt.columns:
        sec.blocks.append(
            Paragraph(
                f"Long text one record holds: {lt.n_original} training records hold a long text "
                f"(columns {', '.join(lt.columns)}) that no other training record holds; the "
                f"release reproduces {lt.released} of them verbatim. A generator that never saw "
                "a record is assumed to reproduce such a text with probability at most "
                f"{lt.chance_rate:.0%} (numbers, dates and short strings are left out, as they "
                "are produced by chance); without a control this is the column finding, with "
                "one it counts the people whose text is published."
            )
        )
    rv = c.rare_values
    if rv is not None and not (rv.n_original and rv.n_control):
        sec.blocks.append(
            Paragraph(
                f"Values one record holds: {rv.n_original} training and {rv.n_control} control "
                "records hold a categorical value that no other record holds; the release is "
                "compared on such values only when both groups have them, so this was not "
                "measured."
            )
        )
    elif rv is not None:
        sec.blocks.append(
            Paragraph(
                f"Values one record holds: {rv.released_original} of the {rv.n_original} "
                "training records holding a categorical value that no other record (training or "
                f"control) holds find that value in the release, against {rv.released_control} "
                f"of the {rv.n_control} control records holding one. The control's rate is the "
                "chance rate: a release made without the training records holds the two groups' "
                "lone values alike, while a generator that copies its records, or takes its "
                "domain from them, releases the training records' lone values only. The finding "
                "is the excess over that rate"
                + (
                    f"; the training records' row numbers are in report.json, or in "
                    "report-records.json.gz beside it when the list is long (columns "
                    f"{', '.join(rv.released_columns)})."
                    if rv.released_original
                    else "."
                )
            )
        )
    return sec
