"""The report as a small document model, built from an :class:`~synthleak.results.AuditResult`.

:func:`build_document` decides what the report says (executive summary, how to read it, findings,
records at risk, membership per target, utility, assumptions, notes, glossary, references,
reproducibility); the HTML, Markdown and JSON writers only lay it out. Every verdict is printed
with the wording of :class:`~synthleak.results.Verdict` (the same in every section), and a
section's own table shows the verdict of the finding it backs, never a second judgement. The
text cites works by author and year (:func:`synthleak.references.cite`); the References section
lists the full entries of exactly the works the text cites (:func:`cited_references`).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from synthleak.games.cost import format_seconds
from synthleak.metrics.privacy import RiskEstimate, TprAtFpr
from synthleak.references import REFERENCES, Reference, cite
from synthleak.report import plots
from synthleak.report.blocks import (  # the document model, shared with the section modules
    Bullets,
    Document,
    Figure,
    Paragraph,
    Section,
    TableBlock,
)
from synthleak.report.sections import person_membership
from synthleak.results import (
    ALPHA,
    HARM_MEANING,
    PEOPLE_COPIES,
    VERDICT_MEANING,
    AuditResult,
    Finding,
    Harm,
    MetricKind,
    Verdict,
    VulnerabilitySection,
    at_least_sentence,
    p_text,
)


def _fmt(x: Any, digits: int = 3) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "n/a"
    if isinstance(x, float):
        return f"{x:.{digits}f}"
    return str(x)


def _span(low: Any, high: Any, digits: int = 3) -> str:
    """An interval as ``low – high``; ``n/a`` once when neither end is defined."""
    if _fmt(low) == _fmt(high) == "n/a":
        return "n/a"
    return f"{_fmt(low, digits)} – {_fmt(high, digits)}"


def _ci(f: Finding) -> str:
    return _span(f.estimate.ci_low, f.estimate.ci_high)


def _finite(x: Any) -> bool:
    return isinstance(x, int | float) and math.isfinite(x)


def _finding(result: AuditResult, key: str) -> Finding | None:
    """The finding of ``key`` (a section's table shows its verdict, not a judgement of its own)."""
    return next((f for f in result.findings if f.key == key), None)


def _verdict(f: Finding | None) -> str:
    """The wording of a finding's verdict (:class:`Verdict`), or "not measured" without one."""
    return (f.verdict or Verdict.NOT_MEASURED).value if f is not None else "not measured"


def _p_cell(f: Finding) -> str:
    """ "alone / after Holm" p-values of a finding, for the findings table; the Holm value is
    printed so that it agrees with the decision (``> 0.050`` when just above 5 %)."""
    if f.verdict is Verdict.NOT_MEASURED or not _finite(f.p_value):
        return "n/a"
    holm = _pv(f.p_holm, ALPHA) if _finite(f.p_holm) else "n/a"
    return f"{_pv(f.p_value)} / {holm}"


def _pv(p: float, alpha: float | None = None) -> str:
    text = p_text(p, alpha)
    return text[2:] if text.startswith("= ") else text


def headline_note(result: AuditResult, f: Finding) -> str:
    """Why a finding's figure differs from the figure of the same attack in its section's
    table, or "" when they are the same number.

    The membership findings report the strongest attack measured on the trials that did not
    choose it (no winner's curse); the tables show every attack on all trials.
    """
    d = f.details
    if f.key == "membership.black_box" and _finite(d.get("auc_all_tests")):
        n_sel, n_ev = int(d.get("n_selection", 0)), int(d.get("n_evaluation", 0))
        return (
            f"The per-target table shows AUC {d['auc_all_tests']:.3f} for this record and "
            f"attack: that is measured on all {n_sel + n_ev} test datasets, including the "
            f"{n_sel} used to pick this pair as the most exposed, so it is biased upwards; the "
            f"figure here ({f.estimate.value:.3f}) uses only the other {n_ev}."
        )
    nb = result.nobox
    if f.key == "membership.nobox" and nb is not None:
        o = nb.attacks.get(str(d.get("attack")))
        split = d.get("selected_on") is not None and d.get("evaluated_on") is not None
        if o is not None and _finite(o.auc.value) and split:
            return (
                f"The attack table of 'Membership inference without the generator' shows AUC "
                f"{o.auc.value:.3f} for '{d.get('attack')}': that is measured on all scored "
                f"records, including the {d.get('selected_on')} used to pick it as the "
                f"strongest, so it is biased upwards; the figure here ({f.estimate.value:.3f}) "
                f"uses only the other {d.get('evaluated_on')}."
            )
    rm = result.riskmap
    if f.key == "membership.riskmap" and rm is not None and "row" in d:
        idx = np.flatnonzero(rm.rows == int(d["row"]))
        if idx.size:
            b = rm.best()[int(idx[0])]
            return (
                f"The risk map's table shows this record's own interval ({_fmt(float(b[1]))} – "
                f"{_fmt(float(b[2]))}); the interval here is widened to hold for all "
                f"{d.get('n_records')} records at once, since it was picked as the highest."
            )
    return ""


def game_size_sentence(result: AuditResult) -> str:
    """The shadow-model game's training size against the release's, and the direction of the
    bias when they differ ("" when not recorded)."""
    b = result.budget
    if b is None or not b.train_size or not b.release_train_size:
        return ""
    if b.train_size >= b.release_train_size:
        return (
            f"Measured on datasets of {b.train_size:,} records, as many as the release was "
            "trained on."
        )
    return (
        f"Measured at {b.train_size:,} records, fewer than the release's "
        f"{b.release_train_size:,}: smaller training sets leak more, so this figure may "
        "overstate the release's risk."
    )


def _finding_text(result: AuditResult, f: Finding) -> str:
    """A finding in words: its explanation, how it relates to its section's table, and its
    test alone and after the correction for multiple testing."""
    parts = [f"{f.title}: {f.explanation()}"]
    note = headline_note(result, f)
    if note:
        parts.append(note)
    if f.key == "membership.black_box" and game_size_sentence(result):
        parts.append(game_size_sentence(result))
    sig = f.significance()
    if sig:
        parts.append(f"Test: {sig}.")
    return " ".join(parts)


def _released(result: AuditResult) -> str:
    cfg = result.config
    if cfg.synthetic:
        return f"the synthetic release '{cfg.synthetic}'"
    if cfg.generator:
        return f"data generated by '{cfg.generator}'"
    return "the synthetic release"


def _exposed(cfg: Any) -> str:
    """Whom the release can expose: the records its generator was fit on (the audit's own split
    holds the control set out of the original), else every original record."""
    if not cfg.synthetic and cfg.generator and 0 < cfg.n_control < cfg.n_original:
        return (
            f"{cfg.n_original - cfg.n_control:,} real people of '{cfg.original}' it was trained "
            f"on (the other {cfg.n_control:,} were held out as the control set)"
        )
    return f"{cfg.n_original:,} real people in '{cfg.original}'"


def _summary(result: AuditResult) -> Section:
    sec = Section("Executive summary", "summary")
    cfg = result.config
    if result.policy is not None:
        p = result.policy
        failed = [c for c in p.checks if c.fails_gate]
        sec.blocks.append(
            Paragraph(
                f"{'PASS' if p.passed else 'FAIL'}: the release "
                f"{'meets' if p.passed else 'fails'} the policy '{p.name}' "
                f"({len(p.checks) - len(failed)} of {len(p.checks)} checks passed).",
                emphasis=True,
            )
        )
        sec.blocks.append(
            Bullets(
                tuple(f"{c.status.value}: {c.check.expression} ({c.message})" for c in p.checks)
            )
        )
    u = result.utility
    utility = ""
    if u is not None:
        utility = (
            " Utility figures come with an interval and, as their reference, the score of real "
            "people the generator never saw (the control set)."
            if u.has_reference
            else " Utility figures come with an interval but no reference: that needs a control "
            "set of real records the generator never saw."
            if u.marginal_space
            else " Utility figures have neither interval nor reference (an older result)."
        )
    sec.blocks.append(
        Paragraph(
            f"This audit measures how much {_released(result)} exposes the {_exposed(cfg)}. "
            "Every privacy figure that was measured comes with a "
            f"{round(100 * cfg.confidence)}% confidence interval and its baseline (what an "
            "attacker gets by guessing, or on people who were not in the data); what could not "
            f"be measured says so.{utility}"
        )
    )
    missing = list(result.not_measured())
    if missing:
        sec.blocks.append(
            Paragraph(
                "Not measured (these parts of the audit could not run; nothing is concluded "
                "about them):",
                emphasis=True,
            )
        )
        sec.blocks.append(Bullets(tuple(s.sentence() for s in missing)))
    counts = {v: sum(1 for f in result.findings if f.verdict is v) for v in Verdict}
    if result.findings:
        sec.blocks.append(Paragraph(_headline(result), emphasis=True))
        sec.blocks.append(
            Bullets(
                tuple(
                    f"{counts[v]} finding(s): {v.value}"
                    for v in Verdict
                    if counts[v] or v in (Verdict.SEVERE, Verdict.LEAK, Verdict.NO_EVIDENCE)
                )
            )
        )
    else:
        sec.blocks.append(
            Paragraph(
                "No attack could run on the inputs given, so this audit says nothing about the "
                "privacy of the release: see what each part needs above.",
                emphasis=True,
            )
        )
    first = result.first_finding()
    if first is not None:
        sec.blocks.append(
            Paragraph(
                f"First finding, by harm to people ({HARM_MEANING[first.harm]}): "
                f"{_finding_text(result, first)}",
                emphasis=True,
            )
        )
    head = _finding(result, "membership.black_box")
    found = [e for e in (head.details.get("at_least") or []) if e["k"]] if head else []
    if found:  # the most severe level any record clears
        sec.blocks.append(
            Paragraph(
                f"Records exposed: {at_least_sentence(found[-1])} (the shadow-model game; "
                "'Membership inference' says how).",
                emphasis=True,
            )
        )
    v, sc = result.vulnerability, result.screening
    why, label = "", "Records most at risk"
    if sc is not None and sc.top:
        rows = [r.row for r in sc.top[:5]]
        why = (
            "A cheap membership attack on the rarest records through the generator ranked them "
            f"riskiest{_screened_measured(result, rows)} ('Records at risk' sets this ranking "
            "beside the records furthest from everybody else)."
        )
    elif v is not None and v.top:
        rows = [r.row for r in v.top[:5]]
        traces = (
            "the kind a generator that learns its data leaves traces of ('Records at risk' says "
            "where they stand out)."
        )
        if v.method == "rarity":
            label = "Records rarest in the data"
            why = (
                f"Few other records share their values, column by column and pair by pair: {traces}"
            )
        else:
            if result.membership is None:
                label = "Records most isolated"
            why = (
                f"They are the records furthest from everybody else ({cite('meeus2023')}), {traces}"
            )
        if result.membership is None:
            why += f" {_data_only_ranking(v.method)}"
    if why:
        listed = ", ".join(str(r) for r in rows)
        sec.blocks.append(
            Paragraph(f"{label}: rows {listed} of the original data (0-based). {why}")
        )
    return sec


def _people(n: int) -> str:
    return f"{n} real {'person' if n == 1 else 'people'}"


def _harm_clause(harm: Harm, found: list[Finding]) -> str:
    """One harm class of the headline: its findings with their count or size."""
    if harm is Harm.PUBLISHED:
        named = [
            f"{f.title} ({_people(f.people_published())})" if f.people_published() else f.title
            for f in found
        ]
    else:
        named = [f"{f.title} ({f.metric.value} {f.estimate.value:.3f}, CI {_ci(f)})" for f in found]
    return f"{HARM_MEANING[harm]}: {', '.join(named)}"


def _headline(result: AuditResult) -> str:
    """The audit in one sentence, in the verdicts' words: the worst state any finding reached,
    its leaks by harm to people (:func:`~synthleak.results.harm_order`), and never "no evidence"
    when findings were too small to measure or not measured. Real people found verbatim in the
    release are named with their count whatever the verdicts; a release whose only leaks are
    aggregate membership signals says so."""
    ordered = result.by_harm()
    counts = {v: sum(1 for f in ordered if f.verdict is v) for v in Verdict}
    total = len(ordered)
    leaks = [f for f in ordered if f.verdict in (Verdict.LEAK, Verdict.SEVERE)]
    small, none = counts[Verdict.TOO_SMALL], counts[Verdict.NOT_MEASURED]
    unread = small + none
    published = [  # whole records of real people at chance level: counted, not a leak
        f
        for f in ordered
        if f.key in PEOPLE_COPIES
        and f.people_published()
        and f.verdict not in (Verdict.LEAK, Verdict.SEVERE)
    ]
    also = "".join(
        f" {f.title}: {_people(f.people_published())} of the data found verbatim in the "
        "release, though not significantly more often than "
        + (
            "among people who were not in the data (the control)."
            if f.compared_with() == "control"
            else "chance would give."
        )
        for f in published
    )
    if leaks:
        word = Verdict.SEVERE if counts[Verdict.SEVERE] else Verdict.LEAK
        verb = "shows" if len(leaks) == 1 else "show"
        classes = [h for h in Harm if any(f.harm is h for f in leaks)]
        by_harm = "; ".join(_harm_clause(h, [f for f in leaks if f.harm is h]) for h in classes)
        text = (
            f"Verdict: {word.value} ({len(leaks)} of {total} findings {verb} a leak). By harm "
            f"to people: {by_harm}."
        )
        if classes == [Harm.MEMBERSHIP]:
            text += (
                " These are aggregate signals: the release tells the people in the data from "
                "others as a group, and no record is shown published, singled out or inferred."
            )
        return text + also
    if counts[Verdict.NO_EVIDENCE] == 0:
        word = Verdict.TOO_SMALL if small else Verdict.NOT_MEASURED
        return (
            f"Verdict: {word.value}: no finding could tell no leakage from serious leakage, so "
            "this audit cannot say the release is safe." + also
        )
    if unread:
        verb, pron = ("is", "it says") if unread == 1 else ("are", "they say")
        return (
            f"Verdict: {Verdict.NO_EVIDENCE.value} in {counts[Verdict.NO_EVIDENCE]} of {total} "
            f"findings; the other {unread} {verb} {Verdict.TOO_SMALL.value} or "
            f"{Verdict.NOT_MEASURED.value}, so {pron} nothing either way." + also
        )
    if total == 1:
        return (
            f"Verdict: {Verdict.NO_EVIDENCE.value} in the audit's one finding, at this budget."
            + also
        )
    return f"Verdict: {Verdict.NO_EVIDENCE.value} in all {total} findings, at this budget." + also


def _how_to_read(result: AuditResult) -> Section | None:
    """What each verdict means and how the correction for multiple testing enters it."""
    if not result.findings:
        return None
    sec = Section("How to read this report", "how-to-read")
    n = max((f.n_tests for f in result.findings), default=0)
    sec.blocks.append(
        Paragraph(
            "Each finding is one attack's figure with its 95% confidence interval, read against "
            "its baseline. Its verdict is one of five, worded the same everywhere in this report "
            "and in report.json:"
        )
    )
    sec.blocks.append(Bullets(tuple(f"{v.value}: {VERDICT_MEANING[v]}." for v in Verdict)))
    sec.blocks.append(
        Paragraph(
            "Order: the findings are ranked by the harm they show to people, in three classes: "
            + "; ".join(f"({h.value}) {HARM_MEANING[h]}" for h in Harm)
            + ". Findings that show a leak come first, by class (real people copied verbatim "
            "more often than chance are named first, with their count, whatever the other "
            "figures); within a class by verdict, then by how far the interval clears its "
            "baseline; the rest follow. The executive summary names the first; the findings "
            "table follows this order. A copy of a real person's whole record that the release "
            "holds more often than chance reads 'severe leakage' whatever the rate: "
            "one published record is enough to block a release. Membership signals come last: "
            "they show that the release tells the people in the data from others as a group, "
            "without naming anyone."
        )
    )
    changed = [f for f in result.findings if f.corrected_away()]
    sec.blocks.append(
        Paragraph(
            f"Multiple testing: this audit makes {n} tests. The more tests, the likelier that one "
            "interval clears its baseline by chance, so a finding reads 'measurable leakage' "
            "only when it stays significant after Holm's correction over all the findings "
            f"({cite('holm1979')}): the chance that any 'leak' verdict here is a false alarm is "
            f"then at most {ALPHA:.0%}. The price is that the same figure can read 'measurable "
            "leakage' in an audit that ran few tests and 'no evidence of leakage' in one that "
            "ran many. So the findings table shows both p-values beside each verdict: the test "
            "alone, and after the correction (a leak needs the second at most 5%)."
            + (
                f" Here the correction turned {len(changed)} finding(s) that clear their "
                "baseline alone into 'no evidence of leakage' or 'too small to measure': "
                + "; ".join(f"{f.title} ({f.significance()})" for f in changed)
                + "."
                if changed
                else ""
            )
        )
    )
    return sec


def _findings(result: AuditResult) -> Section:
    sec = Section("Findings", "findings")
    rows = []
    ordered = result.by_harm()
    for f in ordered:
        rows.append(
            (
                f.title,
                f.metric.value,
                _fmt(f.estimate.value),
                _ci(f),
                _fmt(f.baseline),
                str(f.estimate.n_trials),
                _p_cell(f),
                _verdict(f),
            )
        )
    if not rows:
        sec.blocks.append(Paragraph("No attack was run."))
        return sec
    n = max((f.n_tests for f in result.findings), default=0)
    sec.blocks.append(
        TableBlock(
            (
                "attack",
                "metric",
                "value",
                "95% CI",
                "baseline",
                "trials",
                "p alone / after Holm",
                "verdict",
            ),
            tuple(rows),
            "Ordered by harm to people (see 'How to read this report'). p alone: the one-sided "
            "test of this finding against its baseline; after Holm: the same test corrected for "
            f"the audit's {n} tests (a leak needs it at most 5%).",
        )
    )
    for f in ordered:
        method = _method(f.key)
        text = _finding_text(result, f)
        sec.blocks.append(Paragraph(f"{text} Method: {method}." if method else text))
        if f.where:
            sec.blocks.append(Bullets(tuple(f"where: {w}" for w in f.where)))
        roc = f.details.get("roc")
        if roc:
            sec.blocks.append(
                Figure(
                    f"roc_{f.key.replace('.', '_')}",
                    plots.roc_curves(
                        [("all candidates", roc["fpr"], roc["tpr"], f.estimate.value)], f.title
                    ),
                    f"ROC curve of '{f.title}' (false-positive rate on a log scale).",
                )
            )
    return sec


def _data(result: AuditResult) -> Section | None:
    d = result.data
    if d is None:
        return None
    excluded = [c for c in d.profile.columns if c.role.value != "feature"]
    warnings = d.warnings()
    if not excluded and not warnings:
        return None
    sec = Section("Data", "data")
    if excluded:
        sec.blocks.append(
            TableBlock(
                ("column", "left out as", "why"),
                tuple((c.name, c.role.value, c.reason) for c in excluded),
                "Columns left out of the attacks (identifiers are fresh in any release and free "
                "text has no distance; both are still checked for verbatim copies). Name them "
                "to keep them in the analysis.",
            )
        )
    if warnings:
        show = result.config.show_records
        sec.blocks.append(Bullets(tuple(w.text(show) for w in warnings)))
    return sec


def _stages(result: AuditResult) -> Section | None:
    if not result.stages:
        return None
    sec = Section("What was measured", "stages")
    sec.blocks.append(
        TableBlock(
            ("stage", "status", "why not / needs"),
            tuple(
                (
                    s.title,
                    s.status.value,
                    "; ".join(x for x in (s.reason, f"needs {s.needs}" if s.needs else "") if x),
                )
                for s in result.stages
            ),
        )
    )
    return sec


#: The work (and location) each attack of a finding follows, by the prefix of the finding key.
_METHODS: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = (
    ("singling_out.contrastive", (("plasencia2024", "Sec. 2"), ("giomi2023", "Sec. 4.1"))),
    ("singling_out", (("giomi2023", "Sec. 4.1"),)),
    ("linkability", (("giomi2023", "Sec. 4.2"),)),
    ("copies.rare_values", (("giomi2023", ""),)),
    ("copies", (("yao2025", ""),)),
    ("membership.nobox", (("vanbreugel2023", ""), ("houssiau2022", ""), ("yao2025", ""))),
    ("membership.groundhog", (("stadler2022", ""), ("meeus2023", "Sec. 2.3"))),
    ("membership.lira", (("carlini2022", ""), ("meeus2023", "Sec. 2.3"))),
    ("membership.rmia", (("zarifzadeh2024", ""), ("meeus2023", "Sec. 2.3"))),
    (
        "membership.meta",
        (("midst2025", ""), ("carlini2022", ""), ("zarifzadeh2024", ""), ("meeus2023", "Sec. 2.3")),
    ),
    ("membership.attention", (("meeus2023", "appendix A"),)),
    ("membership.query", (("meeus2023", "Sec. 5.1"),)),
    ("membership", (("meeus2023", "Sec. 2.3"),)),
    ("attribute.recon", (("annamalai2024linear", "Sec. 4.2"),)),
    ("attribute.sweep", (("annamalai2024linear", "Sec. 4.2"),)),
    ("aia.recon", (("annamalai2024linear", "Sec. 4.2"),)),
    ("attribute", (("annamalai2024linear", "Sec. 4.1 and 4.3"),)),
    ("aia", (("annamalai2024linear", "Sec. 4.1 and 4.3"),)),
)


def _method(key: str) -> str:
    """Author-year citation of the method behind a finding, or "" for an unknown attack."""
    for prefix, works in _METHODS:
        if key == prefix or key.startswith(prefix + "."):
            return "; ".join(cite(k, where or None) for k, where in works)
    return ""


# What a ranking from the data alone is worth, measured against risk maps (every record
# attacked with shadow models, 4 datasets x 2 generators; REPRODUCTION.md): rank correlation with
# the per-record membership AUC 0.27 to 0.72 for V_k, 0.56 to 0.79 for cell rarity.
_DATA_ONLY_CORRELATION = {"distance": "0.3 to 0.7", "rarity": "0.6 to 0.8"}


def _screened_measured(result: AuditResult, rows: list[int]) -> str:
    """Which of the screen's first ``rows`` the shadow-model game measured in full."""
    if result.membership is None or not result.membership.targets:
        return (
            "; the shadow-model game that would measure them in full did not run (see 'What was "
            "measured'), so this ranking is no measurement of their risk"
        )
    in_game = {t.row for t in result.membership.targets}
    measured = [r for r in rows if r in in_game]
    if len(measured) == len(rows):
        return ", and the shadow-model game measured them in full"
    if not measured:
        return (
            "; the shadow-model game measured none of them, so this ranking is no measurement of "
            "their risk"
        )
    return (
        f", and the shadow-model game measured {len(measured)} of them in full (rows "
        f"{', '.join(map(str, measured))}); the others are ranked by the cheap attack only"
    )


def _data_only_ranking(method: str) -> str:
    """The caveat of a ranking from the data alone, with its measured worth."""
    return (
        "This ranking comes from the data alone and is not a measurement of their risk, which "
        "needs the generator (shadow models); against risk measured record by record it is a "
        f"guide (rank correlation {_DATA_ONLY_CORRELATION.get(method, 'unknown')} on four "
        "datasets, two generators each)."
    )


def _vulnerability_method(v: VulnerabilitySection) -> str:
    """How the vulnerability section's score is defined, with its source."""
    if v.method == "rarity":
        return (
            "Rarity score (cell rarity): the sum, over every column and every pair of columns, "
            "of 1 / the number of records that share the record's values there (continuous "
            "columns in 5 quantile bins). Higher means rarer. Of the scores computed from the "
            "data alone it tracked measured risk best on most validation risk maps, and better "
            f"than the vulnerability score V_k ({cite('meeus2023')}) on all of them."
        )
    where = "Sec. 6.4, eq. 6" if v.metric == "minkowski" else "eq. 5"
    return (
        f"Vulnerability score: method '{v.method}', k = {v.k}, metric '{v.metric}' "
        f"({cite('meeus2023', where)}): the mean distance from a record to its k nearest "
        "neighbours. Higher means more isolated and more at risk."
    )


def _records(result: AuditResult) -> Section | None:
    v = result.vulnerability
    if v is None:
        return None
    sec = Section("Records at risk", "records")
    sec.blocks.append(
        Paragraph(
            _vulnerability_method(v)
            + ("" if result.membership is not None else f" {_data_only_ranking(v.method)}")
        )
    )
    if v.scores.size:
        sec.blocks.append(
            Figure(
                "vulnerability",
                plots.vulnerability_distribution(v.scores, [r.score for r in v.top]),
                "Distribution of vulnerability scores; red lines mark the top records.",
            )
        )
    if not v.top:
        return sec
    shown = any(r.values for r in v.top)
    if shown:
        cols = list(v.top[0].values)
        sec.blocks.append(
            Paragraph(
                "Warning: this report prints the values of the most exposed real records (the "
                "audit was asked to show them). It contains personal data: do not share it "
                "beyond the people allowed to see the original data.",
                emphasis=True,
            )
        )
        header: tuple[str, ...] = ("rank", "row", "score", *cols)
        body = tuple(
            (str(r.rank), str(r.row), _fmt(r.score, 4), *(r.values.get(c, "") for c in cols))
            for r in v.top
        )
        caption = "The most exposed records and their values."
    else:
        header = ("rank", "row", "score", "stands out in")
        body = tuple(
            (
                str(r.rank),
                str(r.row),
                _fmt(r.score, 4),
                ", ".join(r.rare_columns) if r.rare_columns else "(the combination of values)",
            )
            for r in v.top
        )
        caption = (
            "The most exposed records by row number (0-based) and the columns where their value "
            "is shared by less than 1% of the records. Values are not shown, so this report can "
            "be shared; ask for them explicitly (show records) to print them."
        )
    sec.blocks.append(TableBlock(header, body, caption))
    if result.screening is not None:
        spent = result.budget.screen_seconds if result.budget is not None else math.nan
        resumed = result.budget is not None and "screen" in result.budget.resumed
        sec.blocks.extend(_screening_blocks(result.screening, spent, resumed=resumed))
    return sec


def _rank(r: int) -> str:
    return str(r) if r > 0 else "not screened"


#: What the screen's ranking is worth, measured on ground-truth risk maps
#: (benchmarks/RESULTS_selectors.md).
_SCREEN_EVIDENCE = (
    "On ground-truth risk maps (every record attacked through the generator) of data and "
    "generators it was not chosen on, the records it picked reached 0.958 of the true ten "
    "riskiest records' mean membership AUC on four maps (against 0.895 for V_k) and 0.940 on "
    "four others; a screen with a second pool, at twice the generator runs, did no better "
    "(0.965 and 0.941)."
)


def _took(seconds: float, resumed: bool) -> str:
    """A part's wall time; with ``resumed``, said to be that of every run together."""
    if not math.isfinite(seconds):
        return "a time not recorded"
    if resumed:
        return (
            f"{format_seconds(seconds)} (this run's and an earlier run's together: the work the "
            "earlier run finished was kept from it and read back)"
        )
    return format_seconds(seconds)


def _screening_blocks(sc: Any, seconds: float, *, resumed: bool = False) -> list[Any]:
    """The two-stage screen's ranking beside ``V_k``'s: which records each ranks first."""
    cited = cite("meeus2023", "Sec. 4 and 5.1")
    pool = f"{sc.n_shadows} shadow and {sc.n_tests} test datasets"
    if sc.second_pool:
        how = (
            f"{pool} shared by every record, {sc.first_queries} counting queries per record "
            f"({cited}); the {sc.second_pool} it ranked riskiest were attacked again, "
            f"with {sc.n_queries} queries, on a second pool of {pool}, and are ranked by the "
            "mean of their two AUCs"
        )
    else:
        how = f"{pool} shared by every record, {sc.n_queries} counting queries per record ({cited})"
    blocks: list[Any] = [
        Paragraph(
            f"Two-stage ranking: the {sc.n_screened} rarest of the {sc.n_candidates} training "
            "records (by how rarely their values occur together in pairs of columns) were "
            f"attacked cheaply through generator '{sc.generator}': {how}, in "
            f"{_took(seconds, resumed)}. The membership game below attacks the records this "
            f"screen ranks riskiest. {_SCREEN_EVIDENCE} Screened AUCs come from few datasets: "
            "they rank records, they are not risk figures."
        )
    ]
    n = max(len(sc.top), len(sc.vk_top))
    body = []
    for i in range(n):
        a = sc.top[i] if i < len(sc.top) else None
        b = sc.vk_top[i] if i < len(sc.vk_top) else None
        body.append(
            (
                str(i + 1),
                str(a.row) if a else "",
                f"{_fmt(a.auc)} ({_span(a.ci_low, a.ci_high)})" if a else "",
                str(a.vk_rank) if a else "",
                (", ".join(a.rare_columns) or "(the combination)") if a else "",
                str(b.row) if b else "",
                _fmt(b.auc) if b and b.screen_rank else "",
                _rank(b.screen_rank) if b else "",
            )
        )
    blocks.append(
        TableBlock(
            (
                "rank",
                "screen: row",
                "screened AUC (95% CI)",
                "its V_k rank",
                "stands out in",
                "V_k: row",
                "screened AUC",
                "its screen rank",
            ),
            tuple(body),
            "The records the screen ranks riskiest beside those V_k ranks most isolated, each "
            "with its rank by the other, and the columns where the screen's record has a value "
            "shared by less than 1% of the records (records the rarity prefilter did not keep "
            "were not screened).",
        )
    )
    return blocks


def _screen_budget(result: AuditResult) -> str:
    b, plan = result.budget, result.config.sizes
    if b is None or result.screening is None:
        return ""
    fewer = ""
    if plan.screened_shadows and plan.screened_shadows < plan.shadows:
        fewer = (
            f"; the game then trains on {plan.screened_shadows} rather than {plan.shadows} "
            "shadow datasets, so that screen and game together take about the time of the "
            "budget's game alone"
        )
    took = _took(b.screen_seconds, "screen" in b.resumed)
    return f" The two-stage screen took {took} before it{fewer}."


_SELECTED = {
    "screen": "the records the two-stage screen ranks riskiest (see Records at risk)",
    "distance": "the most vulnerable records by V_k",
    "rare": "the records with the rarest values",
    "loglik": "the records with the lowest log-likelihood under the columns' marginals",
}


def _targets_sentence(result: AuditResult) -> str:
    chosen = _SELECTED.get(result.config.selector, result.config.selector)
    return f"Targets are {chosen} and, as a control, randomly chosen ones."


def _membership(result: AuditResult) -> Section | None:
    mem = result.membership
    if mem is None or not mem.targets:
        return None
    sec = Section("Membership inference per target", "membership")
    cfg = mem.config
    sec.blocks.append(
        Paragraph(
            f"Black-box shadow modelling against generator '{cfg.generator}': {cfg.n_shadows} "
            f"shadow datasets and {cfg.n_tests} test datasets of {cfg.train_size} records, "
            f"releasing {cfg.synthetic_size} synthetic records "
            f"({cite('meeus2023', 'Sec. 2.3 and 4')}). {_targets_sentence(result)}"
        )
    )
    size = game_size_sentence(result)
    if size:
        sec.blocks.append(Paragraph(size, emphasis=size.startswith("Measured at")))
    if result.budget is not None:
        b = result.budget
        sec.blocks.append(
            Paragraph(
                f"Budget: {b.n_shadows} shadow and {b.n_tests} test datasets; projected "
                f"{format_seconds(b.projected_seconds)} from a measured pilot, took "
                f"{_took(b.measured_seconds, 'game' in b.resumed)}.{_screen_budget(result)} "
                "Power: "
                f"{b.power.sentence()}."
            )
        )
    head = _finding(result, "membership.black_box")
    picked = (
        (head.details.get("row"), head.details.get("attack")) if head is not None else (None, None)
    )
    if head is not None and picked[0] is not None:
        sec.blocks.append(
            Paragraph(
                f"The Findings' figure for this game is row {picked[0]}, attack '{picked[1]}' "
                "(marked * below). " + headline_note(result, head)
            )
        )
        at_least = head.details.get("at_least") or []
        if at_least:
            said = "; ".join(at_least_sentence(e) for e in reversed(at_least))
            sec.blocks.append(
                Paragraph(
                    f"How many records are exposed: {said}. Each target's attack is chosen on "
                    "half of its test datasets and tested on the other half; the targets are "
                    "tested in the order of their AUC on the first half, from the Findings' "
                    "record on, until the first that is not shown above the level, which keeps "
                    "the chance that any listed record is a false alarm below "
                    f"{100 - round(100 * at_least[0]['confidence'])}%."
                )
            )
        tprs = head.details.get("tpr_at_fpr") or {}
        if tprs:
            sec.blocks.append(
                Paragraph(
                    "On the same held-out test datasets (the OUT ones are its non-members): "
                    + _tpr_sentence({k: TprAtFpr.from_dict(v) for k, v in tprs.items()})
                )
            )
    rows = []
    for t in mem.targets:
        for a in cfg.attacks:
            o = t.attacks.get(a)
            if o is None:
                continue
            mark = "*" if (t.row, a) == picked else ""
            rows.append(
                (
                    f"{t.row}{mark}",
                    t.selected_by,
                    a,
                    _fmt(o.auc.value),
                    _span(o.auc.ci_low, o.auc.ci_high),
                    _fmt(o.accuracy),
                    *(_tpr_cell(o, k) for k in ("0.1", "0.01", "0.001")),
                )
            )
    sec.blocks.append(
        TableBlock(
            (
                "row",
                "selected by",
                "attack",
                "AUC",
                "95% CI",
                "accuracy",
                "TPR@FPR 0.1 (95% CI)",
                "TPR@FPR 0.01 (95% CI)",
                "TPR@FPR 0.001 (95% CI)",
            ),
            tuple(rows),
            "TPR at a false-positive rate: the share of IN test datasets caught when at most "
            "that share of OUT test datasets is wrongly flagged; its interval includes the "
            "uncertainty of the threshold. 'not resolvable': fewer OUT test datasets than "
            "1 / FPR.",
        )
    )
    for a in cfg.attacks:
        curves = []
        for t in mem.targets:
            o = t.attacks.get(a)
            if o is not None and o.error is None and o.labels.size:
                roc = o.roc()
                curves.append((f"row {t.row}", roc.fpr, roc.tpr, o.auc.value))
        if curves:
            sec.blocks.append(
                Figure(
                    f"roc_{a}",
                    plots.roc_curves(curves, f"membership attack '{a}'"),
                    f"ROC curves of attack '{a}' per target.",
                )
            )
    sec.blocks.append(
        Figure(
            "auc_boxplots",
            plots.auc_boxplots(
                [(t.selected_by, a, o.auc.value) for t in mem.targets for a, o in t.attacks.items()]
            ),
            "Membership AUC per selection method and attack (as "
            f"{cite('meeus2023', 'Fig. 1')}); the dashed line is a coin flip.",
        )
    )
    return sec


def _tpr_cell(outcome: Any, key: str) -> str:
    """A per-target table's TPR at one FPR: value and interval, or why it has none."""
    t = outcome.tpr_intervals.get(key)
    if t is None:  # results written before the intervals
        return _fmt(outcome.tpr_at_fpr.get(key))
    if t.value is None:
        return "not resolvable"
    return f"{_fmt(t.value)} ({_span(t.ci_low, t.ci_high)})"


def _tpr_sentence(tprs: dict[str, TprAtFpr]) -> str:
    """Held-out TPR at each FPR with its interval, or why it could not be resolved."""
    parts = [
        f"at FPR {k}: {_fmt(t.value)} (95% CI {_span(t.ci_low, t.ci_high)}, "
        f"{t.n_non_members} non-members)"
        if t.value is not None
        else f"at FPR {k}: not resolvable at this size ({t.n_non_members} non-members)"
        for k, t in tprs.items()
    ]
    return ("True-positive rate " + "; ".join(parts) + ".") if parts else ""


def _nobox(result: AuditResult) -> Section | None:
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
    rows = []
    for name, o in nb.attacks.items():
        t = o.tpr_at_fpr
        rows.append(
            (
                name,
                _fmt(o.auc.value),
                _span(o.auc.ci_low, o.auc.ci_high),
                _fmt(t.get("0.1")),
                _fmt(t.get("0.01")),
                _fmt(t.get("0.001")),
                o.error or "",
            )
        )
    sec.blocks.append(
        TableBlock(
            ("attack", "AUC", "95% CI", "TPR@FPR 0.1", "TPR@FPR 0.01", "TPR@FPR 0.001", "error"),
            tuple(rows),
            "Every attack on all scored records (n/a: too few non-members for that FPR).",
        )
    )
    if nb.best is not None:
        b = nb.best
        sec.blocks.append(
            Paragraph(
                f"Strongest attack: '{b.attack}', AUC {_fmt(b.auc.value)} (95% CI "
                f"{_span(b.auc.ci_low, b.auc.ci_high)}) on {b.evaluated_on} held-out "
                f"records, chosen on {b.selected_on} others (AUC there {_fmt(b.selection_auc)}, "
                "biased upwards as the best of several). This is the figure of the finding "
                "'Membership inference without the generator'; the table above shows every attack "
                "on all scored records. " + _tpr_sentence(b.tpr_at_fpr) + " Verdict: "
                f"{_verdict(_finding(result, 'membership.nobox'))}."
            )
        )
    if nb.ensemble is not None:
        ens = nb.ensemble
        sec.blocks.append(
            Paragraph(
                f"All {len(ens.attacks)} attacks combined ({cite('wolpert1992')}: weights fitted "
                f"on the {ens.selected_on} selection records only): AUC {_fmt(ens.auc.value)} "
                f"(95% CI {_span(ens.auc.ci_low, ens.auc.ci_high)}) on the "
                f"{ens.evaluated_on} held-out records. " + _tpr_sentence(ens.tpr_at_fpr)
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


def _copies(result: AuditResult) -> Section | None:
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


#: Verdicts from the least to the most telling of a leak: a secret measured several ways (on the
#: release, in the game against the generator) reads as the most telling of its findings.
_SECRET_ORDER = (
    Verdict.NOT_MEASURED,
    Verdict.NO_EVIDENCE,
    Verdict.TOO_SMALL,
    Verdict.LEAK,
    Verdict.SEVERE,
)


def _classes(config: dict[str, Any]) -> str:
    """The classes an attribute game guesses among, in words (a numeric secret's quantile bins
    and, when the secret is missing somewhere, the missing values as a class of their own)."""
    labels = [str(x) for x in config.get("secret_classes") or ()]
    rule = config.get("secret_rule") or {}
    missing = "<missing>" in labels
    if rule:
        bins = len(labels) - int(missing)
        text = f"{len(labels)} classes: {bins} quantile bins of the secret"
    else:
        text = f"{len(labels)} classes of the secret"
    if missing:
        text += (
            ", and its missing values as a class of their own (some records have no value; a "
            "guess of 'missing' is right only for them)"
        )
    return text


def _attribute(result: AuditResult) -> Section | None:
    """The secret's one verdict (the most telling of its findings), then each measurement with
    its finding's verdict and its baseline explained."""
    ga, rel = result.attribute, result.attribute_release
    if ga is None and rel is None:
        return None
    sec = Section("Attribute inference", "attribute")
    keys = (["attribute.recon.release"] if rel is not None else []) + (
        [f"attribute.{a.attack}.m{a.synthetic_size}" for a in ga.accuracies]
        if ga is not None
        else []
    )
    found = [f for f in (_finding(result, k) for k in keys) if f is not None]
    secret = str(
        (rel.config if rel is not None else ga.config if ga is not None else {}).get("secret", "")
    )
    if found:
        worst = max(found, key=lambda f: _SECRET_ORDER.index(f.verdict or Verdict.NOT_MEASURED))
        text = f"Verdict for the secret '{secret}': {_verdict(worst)}"
        if len(found) > 1:
            text += (
                f", the most telling of its {len(found)} findings (from '{worst.title}'). Each "
                "measurement below prints its own finding's verdict: attribute inference on the "
                "release measures what this release reveals about its training records; the game "
                "against the generator measures what the generator reveals about a training set "
                "of the game's size, so the two can differ."
            )
        else:
            text += "."
        sec.blocks.append(Paragraph(text))
    if rel is not None:
        sec.blocks.append(
            Paragraph(
                "On the release: the reconstruction attack "
                f"({cite('annamalai2024linear', 'Sec. 4.2')}) guessed the secret of the training "
                f"records with accuracy {_fmt(rel.accuracy.value)} and of people the generator "
                "never saw (control records swapped in) with accuracy "
                f"{_fmt(rel.control_accuracy.value)}, the baseline: the figure is the excess of "
                f"the first over the second. The attack guesses among {_classes(rel.config)}; "
                f"always guessing the most common class gives {_fmt(rel.majority_rate)}. This "
                f"finding's verdict: {_verdict(_finding(result, 'attribute.recon.release'))}"
                + (f" ({rel.reason})." if rel.reason else ".")
            )
        )
    if ga is not None:
        tolerance = (ga.config.get("secret_rule") or {}).get("rule") in ("absolute", "relative")
        baseline = (
            "the baseline is the best constant guess against the randomised secret under the "
            "tolerance"
            if tolerance
            else "the baseline is a uniform guess among them, 1/"
            f"{len(ga.config.get('secret_classes') or ()) or 'C'}"
        )
        sec.blocks.append(
            TableBlock(
                ("attack", "synthetic records", "accuracy", "95% CI", "baseline", "AUC", "verdict"),
                tuple(
                    (
                        a.attack,
                        str(a.synthetic_size),
                        _fmt(a.accuracy.value),
                        _span(a.accuracy.ci_low, a.accuracy.ci_high),
                        _fmt(a.accuracy.baseline),
                        _fmt(a.auc),
                        _verdict(_finding(result, f"attribute.{a.attack}.m{a.synthetic_size}")),
                    )
                    for a in ga.accuracies
                ),
                "The randomised-secret game against the generator "
                f"({cite('annamalai2024linear', 'Sec. 4.1')}): the secret of one person per game "
                f"is replaced by a class drawn uniformly among the {_classes(ga.config)}; "
                f"{baseline}.",
            )
        )
    return sec


#: Row numbers of the records inferred beyond baseline printed per column (all in report.json).
SWEEP_ROWS_SHOWN = 20


def _attribute_sweep(result: AuditResult) -> Section | None:
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
        f = _finding(result, f"attribute.sweep.{c.column}")
        e = c.excess
        rows.append(
            (
                str(i + 1),
                c.column,
                c.rule,
                _fmt(c.accuracy),
                _fmt(c.control_accuracy),
                _fmt(c.population_accuracy),
                _fmt(e.value),
                _span(e.ci_low, e.ci_high),
                _p_cell(f) if f is not None else "n/a",
                (str(c.beyond_population().size) if c.population_right.size else "n/a")
                if f is not None and f.verdict in (Verdict.LEAK, Verdict.SEVERE)
                else "not listed",
                _verdict(f),
            )
        )
    if rows:
        sec.blocks.append(
            TableBlock(
                (
                    "rank",
                    "column",
                    "a guess is right when it names",
                    "accuracy (training)",
                    "baseline (control)",
                    "control-trained classifier",
                    "excess",
                    "95% CI",
                    "p alone / after Holm",
                    "records beyond baseline",
                    "verdict",
                ),
                tuple(rows),
                "accuracy (training): the attack on the training records; baseline (control): "
                "the same attack on control records swapped in (the excess's baseline); "
                "control-trained classifier: a random forest trained on the control records "
                "alone, on the same training records (what the population's statistics give, "
                "without the release); records beyond baseline: training records the attack "
                "inferred right where that classifier was wrong, counted for the columns that "
                "leak only (elsewhere such right guesses cannot be told from chance).",
            )
        )
    if sw.skipped:
        sec.blocks.append(
            Bullets(tuple(f"'{col}' not swept: {why}" for col, why in sw.skipped.items()))
        )
    leaks = []
    for c in sw.columns:
        f = _finding(result, f"attribute.sweep.{c.column}")
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


def _riskmap(result: AuditResult) -> Section | None:
    rm = result.riskmap
    if rm is None or not rm.rows.size:
        return None
    cfg = rm.config
    sec = Section("Membership risk map (every record)", "riskmap")
    sec.blocks.append(
        Paragraph(
            f"Every one of the {rm.rows.size} records of the private dataset was attacked with "
            f"shadow models of generator '{cfg.generator}' ({cfg.n_shadows} shadow and "
            f"{cfg.n_tests} test datasets; each record IN about half of them, after "
            f"{cite('carlini2022')}). Mean AUC {_fmt(rm.auc_mean())} (s.d. {_fmt(rm.auc_sd())})."
        )
    )
    best = rm.best()
    aucs = best[:, 0]
    sec.blocks.append(
        Figure("riskmap_auc", plots.auc_distribution(aucs), "Per-record membership AUC.")
    )
    if "vulnerability" in rm.scores:
        sec.blocks.append(
            Figure(
                "riskmap_auc_vs_vk",
                plots.auc_vs_score(aucs, rm.scores["vulnerability"], "vulnerability score V_k"),
                "Per-record AUC against the vulnerability score V_k "
                f"({cite('meeus2023', 'eq. 5')}).",
            )
        )
    val = rm.validation
    rows = []
    for key, name in (
        ("vulnerability", "V_k (distance)"),
        ("rare_value", "rare value"),
        ("log_likelihood", "log-likelihood"),
    ):
        agr = val.selectors.get(key)
        if agr:
            rows.append(
                (
                    name,
                    _fmt(agr.spearman),
                    _span(agr.spearman_ci[0], agr.spearman_ci[1]),
                    _fmt(agr.precision_at_k),
                )
            )
    if rows:
        sec.blocks.append(
            TableBlock(
                ("score", "Spearman with AUC", "95% CI", f"precision of top-{val.top_k}"),
                tuple(rows),
                "How well each score predicts the measured risk (chance precision "
                f"{_fmt(val.chance_precision)}).",
            )
        )
    order = np.argsort(-np.nan_to_num(aucs, nan=-1.0), kind="stable")[:10]
    vk = rm.scores.get("vulnerability")
    sec.blocks.append(
        TableBlock(
            ("row", "AUC", "95% CI", "V_k"),
            tuple(
                (
                    str(int(rm.rows[i])),
                    _fmt(float(best[i, 0])),
                    _span(float(best[i, 1]), float(best[i, 2])),
                    _fmt(float(vk[i]) if vk is not None else None, 4),
                )
                for i in order
            ),
            "The ten records with the highest measured membership AUC.",
        )
    )
    return sec


def _epsilon(result: AuditResult) -> Section | None:
    e = result.epsilon
    if e is None:
        return None
    sec = Section("Differential privacy: empirical epsilon", "epsilon")
    sec.blocks.append(
        Paragraph(
            "The membership attacks give a lower bound on the epsilon of any differential-privacy "
            "guarantee the generator could have: it cannot be more private than the attacks "
            f"show ({cite('jagielski2020')}; {cite('annamalai2024auditing')}). "
            + (
                f"The bound comes from a rule fixed before any test dataset was seen ({e.attack}: "
                "a release holding a combination of the target's values that no other training "
                "record holds is called IN), tested on every test dataset with Clopper-Pearson "
                "intervals; its error is shared with the attack chosen on half of them."
                if e.fixed_rule
                else "The attack and its threshold were chosen on half of the test datasets and "
                "the bound computed on the other half, with Clopper-Pearson intervals."
            )
        )
    )
    sec.blocks.append(
        TableBlock(
            ("figure", "value"),
            (
                ("epsilon lower bound", f"{_fmt(e.lower_bound)} ({e.confidence:.0%} confidence)"),
                ("largest epsilon this budget can show", _fmt(e.ceiling)),
                ("claimed epsilon", _fmt(e.claimed)),
                ("verdict", e.verdict.value if hasattr(e.verdict, "value") else str(e.verdict)),
                ("Gaussian-DP mu", f"{_fmt(e.mu)} ({_span(e.mu_ci[0], e.mu_ci[1])})"),
                ("delta", f"{e.delta:g}"),
            ),
        )
    )
    sec.blocks.append(Paragraph(e.message))
    return sec


def _interval(ci: tuple[float, float], digits: int = 4) -> str:
    return _span(ci[0], ci[1], digits)


def _utility(result: AuditResult) -> Section | None:
    if result.utility is None and not result.privacy_utility:
        return None
    sec = Section("Utility", "utility")
    if result.utility is not None:
        u = result.utility
        conf = f"{round(100 * u.confidence)}%"
        every = u.marginal_space and u.n_marginals >= u.marginal_space
        sec.blocks.append(
            Paragraph(
                "How well the synthetic data keeps the statistics of the original "
                f"({cite('annamalai2024linear', 'Sec. 5.3')}): MRE>10 is the mean relative error "
                "of 3-way marginal counts above 10, 3-TVD the average total variation distance "
                "of 3-way marginals. Lower is better for both. "
                + (
                    "This result was written without intervals (an older synthleak)."
                    if not u.marginal_space
                    else f"Both are averaged over all {u.n_marginals} 3-way marginals, so they "
                    "hold no sampling of marginals and their interval is the figure itself."
                    if every
                    else f"Both are averaged over {u.n_marginals} random 3-way marginals of the "
                    f"{u.marginal_space} possible; the {conf} interval (bootstrap over the "
                    f"marginals, {u.n_boot} replicates) is where the figure over all of them "
                    "lies."
                )
            )
        )
        if u.has_reference:
            smaller = (
                f" The control set has fewer records ({u.n_reference}) than the release "
                f"({u.n_synthetic}), so the reference is somewhat pessimistic: a perfect release "
                f"of {u.n_synthetic} new people would score a little lower."
                if u.n_reference < u.n_synthetic
                else ""
            )
            sec.blocks.append(
                Paragraph(
                    f"Reference: the same measures, on the same marginals, between the original "
                    f"and {u.n_reference} records of the control set, real people the generator "
                    "never saw. That is what a perfect release of new people from the same "
                    "population scores: sampling alone keeps it above 0. A release near the "
                    "reference keeps the statistics about as well as new real data would; one "
                    "well below it (closer to the original than new data) fits its training "
                    "records more closely than a sample of the population does, a sign of "
                    "memorisation to weigh with the privacy findings. The intervals cover the "
                    "choice of marginals, not the sampling of records, so they do not test "
                    f"whether the release differs from the reference.{smaller}"
                )
            )
        else:
            sec.blocks.append(
                Paragraph(
                    "Reference: not measured (it needs a control set of real records the "
                    "generator never saw), so these figures cannot be compared with what a "
                    "perfect release of new people would score."
                )
            )
        rows: list[tuple[str, ...]] = [
            (
                "MRE>10",
                _fmt(u.mre_gt10, 4),
                _interval(u.mre_ci),
                _fmt(u.reference_mre_gt10, 4) if u.has_reference else "not measured",
                _interval(u.reference_mre_ci) if u.has_reference else "",
            ),
            (
                "3-TVD",
                _fmt(u.tvd3, 4),
                _interval(u.tvd3_ci),
                _fmt(u.reference_tvd3, 4) if u.has_reference else "not measured",
                _interval(u.reference_tvd3_ci) if u.has_reference else "",
            ),
        ]
        sec.blocks.append(
            TableBlock(
                ("measure", "release", f"{conf} CI", "reference (control)", f"{conf} CI"),
                tuple(rows),
                "Release: the synthetic data against the original. Reference: real people the "
                "generator never saw against the original, on the same marginals.",
            )
        )
    if result.privacy_utility:
        own = result.utility
        release = None if own is None else (own.mre_gt10, own.tvd3)
        sec.blocks.append(
            Figure(
                "privacy_utility",
                plots.privacy_utility(result.privacy_utility, release),
                _privacy_utility_caption(result),
            )
        )
    return sec


def _privacy_utility_caption(result: AuditResult) -> str:
    """What each point of the privacy-utility plot is, and how it relates to the release."""
    cited = cite("annamalai2024linear", "Fig. 5")
    a = result.attribute
    if a is not None and "train_size" in a.config:
        n = int(a.config["train_size"])
        points = (
            "Each point is one synthetic size m of the attribute-inference game: releases of m "
            f"records generated by '{result.config.generator}' from {n} random records of the "
            "original, their best attack's accuracy against their utility, averaged over the "
            f"game's {a.config.get('n_games', 'played')} games"
        )
    else:
        points = "Each point is labelled with what it measures"
    if result.utility is None:
        release = (
            "The release's own utility was not measured, so it is not on the plot: the points "
            "are not the release."
        )
    else:
        u = result.utility
        release = (
            "The dashed lines mark the release's own utility, the figures of the table above "
            f"(MRE>10 {_fmt(u.mre_gt10, 4)}, 3-TVD {_fmt(u.tvd3, 4)}); the points are other "
            "datasets, so their utility differs from it."
        )
    return f"Privacy against utility (as {cited}). {points}. {release}"


def _assumptions(result: AuditResult) -> Section:
    sec = Section("Assumptions (threat model)", "assumptions")
    seen = set()
    for f in result.findings:
        key = (f.threat.goal, f.threat.generator_access, f.threat.data_knowledge)
        if key in seen:
            continue
        seen.add(key)
        sec.blocks.append(Paragraph(f"{f.title}:", emphasis=True))
        sec.blocks.append(Bullets(tuple(f.threat.assumptions())))
    if not sec.blocks:
        sec.blocks.append(Paragraph("No attack was run, so no threat model applies."))
    return sec


def _notes(result: AuditResult) -> Section | None:
    if not result.notes:
        return None
    sec = Section("Notes", "notes")
    sec.blocks.append(Bullets(tuple(result.notes)))
    return sec


def _glossary_terms(result: AuditResult) -> list[tuple[str, str]]:
    """One plain sentence per term the report uses (the Glossary section), for the terms this
    report's sections use."""
    keys = {f.key.split(".")[0] for f in result.findings}
    mem = result.membership is not None or result.riskmap is not None
    shadow = mem or result.attribute is not None or result.screening is not None
    v = result.vulnerability
    terms: list[tuple[str, str, bool]] = [
        (
            "baseline",
            "what an attacker scores without learning anything from the release: guessing (AUC "
            "0.5, the most common or a random class), or the same attack on people who were not "
            "in the data (risk 0).",
            True,
        ),
        (
            "control set",
            "real records from the same population that the generator never saw; attacks on "
            "them show what the release tells about anybody, so only the excess over them is "
            "leakage.",
            True,
        ),
        (
            "excess over control",
            "a rate on the real records minus the same rate on the control records: 0 means the "
            "release exposes the people in it no more than people who were never in it.",
            True,
        ),
        (
            "confidence interval (95% CI)",
            "the range the true value lies in with 95% probability, given the number of trials.",
            True,
        ),
        (
            "AUC",
            "the probability that the attack scores a randomly chosen member above a randomly "
            "chosen non-member: 0.5 is guessing, 1.0 tells them apart every time.",
            True,
        ),
        (
            "TPR@FPR",
            "the share of members the attack finds (true-positive rate) when it may wrongly "
            "accuse only the given share of non-members (false-positive rate), e.g. 0.01: what "
            "an attacker who must rarely be wrong achieves.",
            mem or result.nobox is not None,
        ),
        (
            "p alone / after Holm",
            "the p-value of a finding's test on its own, and corrected for all the tests of the "
            "audit; a small p-value means the figure is unlikely if the release does not leak.",
            True,
        ),
        (
            "Holm correction",
            f"a way to test many findings at once ({cite('holm1979')}) so that the chance of any "
            "false alarm among them stays at 5%: each p-value is compared with a stricter "
            "threshold the more tests there are.",
            True,
        ),
        (
            "V_k",
            f"the vulnerability score of {cite('meeus2023')}: a record's mean distance to its k "
            "nearest records; isolated records are the ones a generator is likeliest to reveal.",
            (v is not None and v.method == "distance") or result.screening is not None,
        ),
        (
            "cell rarity",
            "a rarity score: how few records share a record's values, column by column and pair "
            "by pair.",
            (v is not None and v.method == "rarity") or result.screening is not None,
        ),
        (
            "shadow models",
            "copies of the generator trained by the auditor on datasets with and without a "
            "target record, so that an attack learns what the target's presence changes in a "
            "release.",
            shadow,
        ),
        (
            "singling out",
            "a description learnt from the release that matches exactly one real person.",
            "singling_out" in keys,
        ),
        (
            "linkability",
            "matching two separate pieces of information about the same person through the "
            "release.",
            "linkability" in keys,
        ),
        (
            "Clopper-Pearson interval",
            "an exact confidence interval for a proportion (such as the attack's true- and "
            "false-positive rates), never narrower than the data allow.",
            result.epsilon is not None,
        ),
        (
            "empirical epsilon",
            "the smallest differential-privacy epsilon consistent with how well the attacks "
            "did: the generator cannot be more private than that.",
            result.epsilon is not None,
        ),
        (
            "Gaussian-DP mu",
            f"the privacy level of Gaussian differential privacy ({cite('dong2022')}) that the "
            "attacks' success implies: 0 is perfect privacy, and around 1 an attacker can tell "
            "members from non-members noticeably better than guessing.",
            result.epsilon is not None,
        ),
        (
            "MRE>10 and 3-TVD",
            "utility: the mean relative error of 3-way marginal counts above 10, and the "
            "average total variation distance of 3-way marginals, between the release and the "
            "original.",
            result.utility is not None or bool(result.privacy_utility),
        ),
    ]
    return [(t, text) for t, text, used in terms if used]


#: Plain sentences for the built-in attacks, by family; other attacks use their registry line.
ATTACK_GLOSSARY: dict[str, dict[str, str]] = {
    "nobox-membership": {
        "dcr": "distance to the closest synthetic record: records the release copies closely "
        "are taken for members.",
        "dcr-diff": "the distance to the closest record of a real reference sample minus the "
        "distance to the closest synthetic record: closer to the release than to the "
        "population means member.",
        "domias": "how much denser the release is than the population around the record "
        f"({cite('vanbreugel2023')}): a generator that memorises puts extra density on its "
        "training records.",
        "neighbourhood": "how many synthetic against reference records lie within a small "
        "radius of the record.",
        "classifier": "a classifier trained to tell synthetic from reference records; records "
        "it finds most 'synthetic-like' are taken for members.",
    },
    "membership": {
        "query": "counts of synthetic records matching subsets of the target's values, learnt "
        f"on shadow models ({cite('meeus2023')}).",
        "distance": "distances from the target to its closest synthetic records, learnt on "
        "shadow models.",
        "groundhog": "summary statistics of the release, learnt on shadow models "
        f"({cite('stadler2022')}).",
        "attention": "a neural network that looks at the synthetic records closest to the "
        "target, learnt on shadow models.",
        "lira": "how much likelier the release's counts and distances around the target are "
        f"when the target was in the training data than when it was not, learnt on shadow "
        f"models ({cite('carlini2022')}).",
        "rmia": "whether the release favours the target, compared with shadow models, more than "
        "it favours other real people of the population (relative membership inference, "
        f"{cite('zarifzadeh2024')}).",
        "meta": "a classifier that weighs the lira, rmia and query signals and the target's "
        "distances together, each learnt on shadow models it did not see when they were "
        f"weighed (as the winning attacks of {cite('midst2025')}).",
    },
    "attribute": {
        "recon": "linear reconstruction: solves for the secrets that best explain the release's "
        f"counts ({cite('annamalai2024linear')}).",
        "dcr": "copies the secret of the closest synthetic record.",
        "infer": "a classifier trained on the release predicts the secret.",
    },
}
_FAMILY_WORDS = {
    "nobox-membership": "membership without the generator",
    "membership": "membership with shadow models",
    "attribute": "attribute inference",
}


def _attacks_used(result: AuditResult) -> list[tuple[str, str]]:
    """(family, attack name) of every attack the report shows, in order of first appearance."""
    out: list[tuple[str, str]] = []
    if result.nobox is not None:
        out += [("nobox-membership", a) for a in result.nobox.attacks]
    if result.membership is not None:
        out += [("membership", a) for a in result.membership.config.attacks]
    if result.attribute is not None:
        out += [("attribute", a.attack) for a in result.attribute.accuracies]
    if result.attribute_release is not None or result.attribute_sweep is not None:
        out.append(("attribute", "recon"))
    return list(dict.fromkeys(out))


def _attack_sentence(family: str, name: str) -> str:
    known = ATTACK_GLOSSARY.get(family, {}).get(name)
    if known:
        return known
    from synthleak.attacks.base import attack_info

    try:
        doc = attack_info(family, name).doc
    except Exception:  # an attack no longer registered: say what it was, not why
        doc = ""
    return (doc[0].lower() + doc[1:] + ".") if doc else "an attack of this family."


def _glossary(result: AuditResult) -> Section | None:
    if not result.findings:
        return None
    sec = Section("Glossary", "glossary")
    items = [f"{term}: {text}" for term, text in _glossary_terms(result)]
    items += [f"{v.value} (verdict): {VERDICT_MEANING[v]}." for v in Verdict]
    used = _attacks_used(result)
    names = [n for _, n in used]
    for family, name in used:
        label = f"{name} ({_FAMILY_WORDS.get(family, family)})" if names.count(name) > 1 else name
        items.append(f"{label}: {_attack_sentence(family, name)}")
    sec.blocks.append(Bullets(tuple(items)))
    return sec


def _footer(result: AuditResult) -> Section:
    cfg = result.config
    sec = Section("Reproducibility", "reproducibility")
    items = [f"command: {cfg.command_line}", f"seed: {cfg.seed}"]
    items += [f"{k} {v}" for k, v in sorted(cfg.versions.items())]
    items.append(f"budget: {cfg.budget}; created: {cfg.created or 'n/a'}")
    sec.blocks.append(Bullets(tuple(items)))
    return sec


def _texts(sections: list[Section]) -> list[str]:
    out: list[str] = []
    for sec in sections:
        out.append(sec.title)
        for b in sec.blocks:
            if isinstance(b, Paragraph):
                out.append(b.text)
            elif isinstance(b, Bullets):
                out.extend(b.items)
            elif isinstance(b, TableBlock):
                out += [b.caption, *b.header, *(c for r in b.rows for c in r)]
            elif isinstance(b, Figure):
                out.append(b.caption)
    return out


def cited_references(sections: list[Section]) -> tuple[Reference, ...]:
    """The works whose author-year form (:attr:`Reference.short`) the text of ``sections`` uses.

    Sorted by author and year, as :func:`synthleak.references.entries`. Scanning the text (rather
    than keeping a separate list) keeps the References section in step with what the report says,
    including citations in text that other modules write (finding explanations, notes).
    """
    text = "\n".join(_texts(sections))
    refs = [r for r in REFERENCES.values() if r.short in text]
    return tuple(sorted(refs, key=lambda r: (r.short, r.key)))


def _references(refs: tuple[Reference, ...]) -> Section | None:
    if not refs:
        return None
    sec = Section("References", "references")
    sec.blocks.append(Bullets(tuple(f"{r.short}: {r.entry()}" for r in refs)))
    return sec


def build_document(result: AuditResult) -> Document:
    """The report's content, in reading order; the References section lists the works cited."""
    parts = [
        _summary(result),
        _how_to_read(result),
        _findings(result),
        _stages(result),
        _data(result),
        _records(result),
        _copies(result),
        _nobox(result),
        person_membership.section(result),
        _attribute(result),
        _attribute_sweep(result),
        _membership(result),
        _riskmap(result),
        _epsilon(result),
        _utility(result),
        _assumptions(result),
        _notes(result),
        _glossary(result),
    ]
    body = [p for p in parts if p is not None]
    refs = cited_references(body)
    sections = [*body, _references(refs), _footer(result)]
    return Document(
        "synthleak privacy audit", [s for s in sections if s is not None], references=refs
    )


__all__ = [
    "Bullets",
    "Document",
    "Figure",
    "MetricKind",
    "Paragraph",
    "Section",
    "TableBlock",
    "build_document",
    "cited_references",
]
