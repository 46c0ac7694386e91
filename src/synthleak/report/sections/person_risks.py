"""The 'Singling out and linkability of persons' section (stage ``person_risks``)."""

from __future__ import annotations

from typing import Any

from synthleak.games.person_risks import MAX_KEYS
from synthleak.harm import FindingKey, person_singling_out_key
from synthleak.report.blocks import (
    PERSONS_SHOWN,
    Paragraph,
    Section,
    TableBlock,
    finding,
    fmt,
    span,
    verdict_text,
)
from synthleak.results import AuditResult

#: Root keys the report lists per attack (report.json holds up to the result's cap).


def _keys(keys: list, n: int) -> str:
    shown = ", ".join(str(k) for k in keys[:PERSONS_SHOWN])
    more = f" and {n - PERSONS_SHOWN} more (report.json lists up to {MAX_KEYS})"
    return shown + (more if n > PERSONS_SHOWN else "")


def section(result: AuditResult) -> Section | None:
    pr = result.person_risks
    if pr is None:
        return None
    so, link = pr.singling_out, pr.linkability
    root = so.root
    sec = Section("Singling out and linkability of persons (linked tables)", "person-risks")
    sec.blocks.append(
        Paragraph(
            f"A person is a row of table '{root}' with their child rows in the linked tables, "
            "seen as one row: their own columns and their child rows summarised (counts, "
            "statistics, value counts). Singling out asks whether descriptions written from the "
            "release match exactly one person of the original more often than one person of the "
            "control, at equal size; linkability asks whether the release lets an attacker join "
            f"a person's row of '{root}' to their child rows (two separate sources) more often "
            "for the persons of the original than for the control's. The row-level figures play "
            f"both games on the columns of '{root}' alone, without the child rows (linkability "
            f"joins one half of those columns to the other, as for a single table): what the "
            f"rows of '{root}' give away by themselves."
        )
    )
    rows = []
    for res in so.persons.attacks:
        f = finding(result, person_singling_out_key(res.attack))
        rows.append(
            (
                f"singling out ({res.attack})",
                "persons",
                fmt(res.risk.value),
                span(res.risk.ci_low, res.risk.ci_high),
                f"{res.n_success} of {res.n_attacks}",
                verdict_text(f),
            )
        )
    if link is not None:
        res_l = link.persons.attacks[0]
        rows.append(
            (
                f"linkability ({res_l.attack})",
                "persons",
                fmt(res_l.risk.value),
                span(res_l.risk.ci_low, res_l.risk.ci_high),
                f"{res_l.n_success} of {res_l.n_attacks}",
                verdict_text(finding(result, FindingKey.LINKABILITY_PERSONS)),
            )
        )

    def row_level(what: str, res: Any) -> tuple[str, str, str, str, str, str]:
        return (
            what,
            f"rows of '{root}' alone",
            fmt(res.risk.value),
            span(res.risk.ci_low, res.risk.ci_high),
            f"{res.n_success} of {res.n_attacks}",
            "row-level figure (no finding)",
        )

    for res in so.root_rows.attacks if so.root_rows is not None else ():
        rows.append(row_level(f"singling out ({res.attack})", res))
    if link is not None and link.root_rows is not None:
        res_r = link.root_rows.attacks[0]
        linked = f"linkability ({', '.join(res_r.aux_a)} to {', '.join(res_r.aux_b)})"
        rows.append(row_level(linked, res_r))
    sec.blocks.append(
        TableBlock(
            ("game", "unit", "risk", "95% CI", "successes on the original", "verdict"),
            tuple(rows),
            "Risk: the excess success on the original's persons over the control's (0: the "
            "release tells no more about the people in it than about others).",
        )
    )
    named = [
        (f"singling out ({a})", _keys(keys, so.n_singled_out[a]))
        for a, keys in so.singled_out.items()
        if keys
    ]
    if link is not None and link.linked:
        named.append((f"linkability ({res_l.attack})", _keys(link.linked, link.n_linked)))
    if named:
        sec.blocks.append(
            TableBlock(
                ("game", f"persons ({root} key)"),
                tuple(named),
                "The persons of the original a predicate singles out (matching no control "
                "person) or whose two sources were linked, by their root key. A predicate or a "
                "link succeeds on some persons by chance, as it does on the control's: read "
                "the list with the verdicts above.",
            )
        )
    link_rows_note = link.root_rows_note if link is not None else ""
    notes = [
        n
        for n in (
            so.root_rows_note and f"singling out of rows of '{root}' alone: {so.root_rows_note}",
            pr.linkability_note,
            link_rows_note and f"linkability of rows of '{root}' alone: {link_rows_note}",
        )
        if n
    ]
    if notes:
        sec.blocks.append(Paragraph("Not measured: " + "; ".join(notes) + "."))
    return sec
