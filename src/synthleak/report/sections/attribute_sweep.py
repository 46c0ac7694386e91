"""The 'Attribute inference of every column' section (stage ``attribute_sweep``)."""

from __future__ import annotations

from synthleak.harm import sweep_key
from synthleak.references import cite
from synthleak.report.blocks import (
    Bullets,
    Paragraph,
    Section,
    attack_table,
    finding,
    fmt,
    p_cell,
    verdict_text,
)
from synthleak.results import AuditResult
from synthleak.verdicts import Verdict

#: Row numbers of the records inferred beyond baseline printed per column (all in report.json).
SWEEP_ROWS_SHOWN = 20


def section(result: AuditResult) -> Section | None:
    """Every column as the secret, ranked by the lower end of the excess's interval; each row
    prints its finding's verdict,
    and the records inferred beyond baseline are listed for the columns that leak."""
    sw = result.attribute_sweep
    if sw is None:
        return None
    sec = Section("Attribute inference of every column", "attribute-sweep")
    n_records = max((c.n_attacked for c in sw.columns), default=0)
    sec.blocks.append(
        Paragraph(
            "Each column in turn was the secret and every other column what the attacker knows "
            f"of each training record: the reconstruction attack "
            f"({cite('annamalai2024linear', 'Sec. 4.2')}) guessed the secret of up to "
            f"{n_records} training records from the release, and of control records (people the "
            "generator never saw) swapped into the same knowledge. The excess is the first "
            "accuracy minus the second, with Newcombe's 95% interval "
            f"({cite('newcombe1998')}): what the population's statistics let anyone infer "
            "('age predicts marital status') is in both and cancels. Numeric columns count a "
            "guess as right in the right quantile bin of the release. The columns are ranked by "
            "the lower end of their interval; each column is one test among all the audit's "
            f"findings (Holm's correction, {cite('holm1979')}), and its verdict is that of its "
            "finding."
        )
    )
    rows = []
    for i, c in enumerate(sw.columns):
        f = finding(result, sweep_key(c.column))
        e = c.excess
        lead = (
            str(i + 1),
            c.column,
            c.rule,
            fmt(c.accuracy),
            fmt(c.control_accuracy),
            fmt(c.population_accuracy),
        )
        beyond = (
            (str(c.beyond_population().size) if c.population_right.size else "n/a")
            if f is not None and f.verdict in (Verdict.LEAK, Verdict.SEVERE)
            else "not listed"
        )
        rows.append((lead, e, (p_cell(f) if f is not None else "n/a", beyond, verdict_text(f))))
    if rows:
        sec.blocks.append(
            attack_table(
                rows,
                lead=(
                    "rank",
                    "column",
                    "a guess is right when it names",
                    "accuracy (training)",
                    "baseline (control)",
                    "control-trained classifier",
                ),
                metric="excess",
                tail=("p alone / after Holm", "records beyond baseline", "verdict"),
                caption=(
                    "accuracy (training): the attack on the training records; baseline (control): "
                    "the same attack on control records swapped in (the excess's baseline); "
                    "control-trained classifier: a random forest trained on the control records "
                    "alone, on the same training records (what the population's statistics give, "
                    "without the release); records beyond baseline: training records the attack "
                    "inferred right where that classifier was wrong, counted for the columns that "
                    "leak only (elsewhere such right guesses cannot be told from chance)."
                ),
            )
        )
    if sw.skipped:
        sec.blocks.append(
            Bullets(tuple(f"'{col}' not swept: {why}" for col, why in sw.skipped.items()))
        )
    leaks = []
    for c in sw.columns:
        f = finding(result, sweep_key(c.column))
        if f is None or f.verdict not in (Verdict.LEAK, Verdict.SEVERE):
            continue
        found = c.beyond_population()
        shown = [
            f"{r} ({c.values[j]})" if j < len(c.values) else str(r)
            for j, r in enumerate(found[:SWEEP_ROWS_SHOWN].tolist())
        ]
        more = f" and {found.size - len(shown)} more" if found.size > len(shown) else ""
        leaks.append(
            f"'{c.column}': {found.size} record(s), rows {', '.join(shown) or 'none'}{more}"
        )
    if leaks:
        sec.blocks.append(
            Paragraph(
                "Records whose secret the attack inferred from the release while the "
                "control-trained classifier did not, in the columns that leak (0-based rows of "
                "the original; every row is in report.json"
                + ("" if result.config.show_records else "; values only with --show-records")
                + "). About the excess times the records attacked owe their right guess to the "
                "release; the rest of a list may be lucky guesses.",
                emphasis=True,
            )
        )
        sec.blocks.append(Bullets(tuple(leaks)))
    elif sw.columns:
        sec.blocks.append(
            Paragraph(
                "No record is listed: no column's excess is a measurable leak, so no right "
                "guess can be told from what the population's statistics give."
            )
        )
    return sec
