"""The 'Verbatim copies of persons' histories' section (stage ``person_copies``)."""

from __future__ import annotations

from synthleak.games.person_copies import MAX_KEYS, PersonCopiesResult
from synthleak.harm import FindingKey
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

#: Root keys of replayed persons the report lists (report.json holds up to the result's cap).


def section(result: AuditResult) -> Section | None:
    pc = result.person_copies
    if pc is None:
        return None
    root = result.config.root or "root"
    sec = Section("Verbatim copies of persons' histories (linked tables)", "person-copies")
    tables = ", ".join(f"'{t}'" for t in pc.tables)
    sec.blocks.append(
        Paragraph(
            f"A person is a row of table '{root}' with their child rows in {tables}. A generator "
            "that replays a person publishes their child rows as they are under a new key. Each "
            "person's child rows (their own columns, without keys) were looked up in the "
            "release: a person's whole history is replayed when one synthetic person holds "
            f"exactly their child rows (persons with at least {pc.min_rows} child rows), and a "
            f"share of it is copied when at least {pc.share_threshold:.0%} of their child rows "
            "are found verbatim among the release's child rows. Child rows with few distinct "
            "values recur by chance, so each rate among the persons of the original is compared "
            "with the same rate among the persons of the control, who were never shown to the "
            "generator."
        )
    )
    rows = (
        (
            "whole history replayed",
            f"{pc.n_whole} of {pc.n_persons}",
            fmt(pc.whole_rate),
            f"{pc.n_whole_control} of {pc.n_control_persons}",
            fmt(pc.whole_control_rate),
            fmt(pc.whole.value),
            span(pc.whole.ci_low, pc.whole.ci_high),
        ),
        (
            f"at least {pc.share_threshold:.0%} of the child rows copied",
            f"{pc.n_share} of {pc.n_persons_with_rows}",
            fmt(pc.share_rate),
            f"{pc.n_share_control} of {pc.n_control_persons_with_rows}",
            fmt(pc.share_control_rate),
            fmt(pc.share.value),
            span(pc.share.ci_low, pc.share.ci_high),
        ),
    )
    sec.blocks.append(
        TableBlock(
            (
                "persons",
                "original",
                "rate",
                "control",
                "rate",
                "excess over control",
                "95% CI",
            ),
            rows,
            "Persons of the original (training) and of the control (baseline), the excess with "
            "Newcombe's interval (continuity-corrected); the release holds "
            f"{pc.n_synthetic_persons} synthetic persons.",
        )
    )
    sec.blocks.append(
        Paragraph(
            f"Row level: {fmt(pc.row_copy_rate)} of the original's child rows and "
            f"{fmt(pc.row_copy_control_rate)} of the control's are found verbatim in the "
            f"release{_root_rows(pc, root)}. Verdicts: whole histories "
            f"{verdict_text(finding(result, FindingKey.COPIES_PERSON_HISTORY))}; shares of a "
            f"history {verdict_text(finding(result, FindingKey.COPIES_PERSON_ROWS))}."
        )
    )
    if pc.replayed_keys:
        sec.blocks.append(
            persons_table(
                pc.replayed_keys,
                pc.n_whole,
                root,
                MAX_KEYS,
                "Persons of the original whose whole history the release replays, by their "
                "root key",
                ". A history of few, common child rows can be replayed by chance: read the list "
                "with the verdict above.",
            )
        )
    return sec


def _root_rows(pc: PersonCopiesResult, root: str) -> str:
    """The root table's row-level copy figure, as a clause of the row-level sentence."""
    if pc.root_copy is None:
        return f" (rows of '{root}' not compared: the table has no column of its own)"
    e = pc.root_copy
    return (
        f"; of the rows of '{root}' (their own columns), {fmt(pc.root_copy_rate)} of the "
        f"original's and {fmt(pc.root_copy_control_rate)} of the control's are, an excess of "
        f"{fmt(e.value)} (95% CI {span(e.ci_low, e.ci_high)}; row-level figure, no finding)"
    )
