"""The comparison report (HTML, JSON, Markdown) of a ``ComparisonResult``.

First the privacy–utility frontier (one panel per privacy family: each candidate's worst figure
of the family with its interval against its MRE with its interval, the dominated candidates
marked), and the same figures as a table; then the paired differences, one sentence each; the
spread across seeds of the candidates that differ only by seed; the three criteria of the
Article 29 Working Party (singling out, linkability, inference) per candidate, each answered by
the finding behind it; the recommendation under the policy; and links to every candidate's full
report (``candidates/<folder>/report.html``, written by :func:`synthleak.report.write_report`).
"""

from __future__ import annotations

import json
import math
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import matplotlib.pyplot as plt

from synthleak.comparison import (
    FAMILIES,
    NOT_PAIRED,
    PAIRED,
    Candidate,
    ComparisonResult,
    PairedDifference,
)
from synthleak.policy import Metric
from synthleak.references import REFERENCES, cite
from synthleak.report import plots
from synthleak.report.blocks import (
    Bullets,
    Document,
    Figure,
    Links,
    Paragraph,
    Section,
    TableBlock,
    fmt,
    pv,
    span,
)
from synthleak.report.document import cited_references
from synthleak.report.writers import to_html, to_markdown
from synthleak.verdicts import ALPHA, p_text

if TYPE_CHECKING:
    from synthleak.results import AuditResult
    from synthleak.runtime import Runtime

#: Whether a higher figure means more exposure (all privacy families) and the words of a
#: paired difference's two directions, by family.
_DIRECTION = {
    "copies.rate": (
        "publishes fewer original records verbatim",
        "publishes more original records verbatim",
    ),
    "linkability.risk": (
        "links fewer training targets, net of the control targets,",
        "links more training targets, net of the control targets,",
    ),
    "membership.nobox.auc": (
        "is less exposed to no-box membership inference",
        "is more exposed to no-box membership inference",
    ),
    "membership.release.auc": (
        "is less exposed to membership inference learned from the shadow releases",
        "is more exposed to membership inference learned from the shadow releases",
    ),
    "attribute.accuracy": (
        "lets fewer secrets be inferred from the release",
        "lets more secrets be inferred from the release",
    ),
    "membership.person.auc": (
        "is less exposed to membership inference of persons",
        "is more exposed to membership inference of persons",
    ),
    "copies.person_history": (
        "replays fewer training persons' whole histories",
        "replays more training persons' whole histories",
    ),
    "copies.person_rows": (
        "copies at least half the child rows of fewer training persons",
        "copies at least half the child rows of more training persons",
    ),
    "linkability.persons": (
        "links fewer training persons, net of the control persons,",
        "links more training persons, net of the control persons,",
    ),
    "attribute.persons": (
        "lets fewer persons' secrets be inferred from the release",
        "lets more persons' secrets be inferred from the release",
    ),
}

_CITED = ("wp29_2014", "delong1988", "mcnemar1947", "holm1979", "annamalai2024linear")


def _figure(m: Metric | None) -> str:
    return "not measured" if m is None else f"{fmt(m.value)} [{span(m.ci_low, m.ci_high)}]"


def dominated(candidates: Sequence[Candidate], family: str) -> set[str]:
    """The candidates another candidate beats on both axes of ``family``'s panel: a worst
    figure and an MRE at most as high, one of them lower (point estimates)."""
    pts = [
        (c.name, c.worst[family].value, c.utility_mre)
        for c in candidates
        if family in c.worst and math.isfinite(c.utility_mre)
    ]
    out = set()
    for name, y, x in pts:
        for other, y2, x2 in pts:
            if other != name and y2 <= y and x2 <= x and (y2 < y or x2 < x):
                out.add(name)
                break
    return out


def frontier_plot(candidates: Sequence[Candidate], families: Sequence[str]) -> bytes:
    """One panel per family: worst figure (with interval) against MRE (with interval); a
    dominated candidate is drawn hollow and labelled so; the family's baseline, when the
    candidates share one, as a dashed line."""
    n = len(families)
    fig, axes = plt.subplots(1, n, figsize=(3.6 * n + 0.6, 3.6), squeeze=False)
    for ax, fam in zip(axes[0], families, strict=True):
        dom = dominated(candidates, fam)
        for i, c in enumerate(candidates):
            m = c.worst.get(fam)
            if m is None or not math.isfinite(c.utility_mre):
                continue
            lo, hi = c.utility_ci
            xerr = [[max(c.utility_mre - lo, 0.0)], [max(hi - c.utility_mre, 0.0)]]
            yerr = [[max(m.value - m.ci_low, 0.0)], [max(m.ci_high - m.value, 0.0)]]
            colour = f"C{i % 10}"
            hollow = c.name in dom
            ax.errorbar(
                c.utility_mre,
                m.value,
                xerr=xerr if all(map(math.isfinite, (lo, hi))) else None,
                yerr=yerr if all(map(math.isfinite, (m.ci_low, m.ci_high))) else None,
                fmt="o",
                color=colour,
                mfc="white" if hollow else colour,
                capsize=3,
                lw=1,
                label=c.name,
            )
        baselines = {c.worst[fam].baseline for c in candidates if fam in c.worst}
        if len(baselines) == 1:
            (b,) = baselines
            if b is not None and math.isfinite(b):
                ax.axhline(b, color="k", ls="--", lw=0.8)
        ax.set_title(FAMILIES[fam], fontsize=9)
        ax.set_xlabel("MRE > 10 (lower is better)", fontsize=8)
        ax.set_ylabel(f"worst {fam} (lower is safer)", fontsize=8)
        ax.tick_params(labelsize=7)
        ax.spines[["top", "right"]].set_visible(False)
    handles: dict[str, Any] = {}
    for ax in axes[0]:
        for h, label in zip(*ax.get_legend_handles_labels(), strict=True):
            handles.setdefault(label, h)
    axes[0][-1].legend(
        handles.values(),
        handles.keys(),
        loc="upper left",
        bbox_to_anchor=(1.02, 1.0),
        frameon=False,
        fontsize=7,
        title="hollow: dominated",
        title_fontsize=7,
    )
    fig.tight_layout()
    return plots._png(fig)


def _families(result: ComparisonResult) -> list[str]:
    return [f for f in FAMILIES if any(f in c.worst for c in result.candidates)]


def _frontier(result: ComparisonResult) -> Section:
    fams = _families(result)
    sec = Section("Privacy–utility frontier", "frontier")
    sec.blocks.append(
        Paragraph(
            f"{len(result.candidates)} candidates, audited with one seed "
            f"({result.options.seed}) on the same original ({result.sources.get('original')}) "
            f"and control set ({result.sources.get('control')}): every candidate's games drew "
            "the same members, non-members and records. Each panel is one privacy family: a "
            "candidate's worst finding of the family (the highest lower confidence bound) with "
            "its 95 % interval, against its utility (MRE over 3-way marginal counts above 10, "
            f"{cite('annamalai2024linear')}) with its 95 % interval; lower is better on both "
            "axes. A hollow marker is dominated: another candidate is at least as safe and at "
            "least as useful by the point estimates. The dashed line is the family's baseline."
        )
    )
    if fams and any(math.isfinite(c.utility_mre) for c in result.candidates):
        sec.blocks.append(
            Figure(
                "frontier",
                frontier_plot(result.candidates, fams),
                "Privacy–utility frontier: worst figure per family against MRE, 95 % intervals "
                "drawn; hollow markers are dominated; the dashed line is the family's baseline",
            )
        )
    else:
        sec.blocks.append(
            Paragraph("No frontier: no candidate had both a privacy figure and its utility.")
        )
    dom = {f: dominated(result.candidates, f) for f in fams}
    rows = []
    for c in result.candidates:
        lo, hi = c.utility_ci
        rows.append(
            (
                c.name,
                f"{fmt(c.utility_mre)} [{span(lo, hi)}]",
                *(_figure(c.worst.get(f)) for f in fams),
                ", ".join(FAMILIES[f] for f in fams if c.name in dom[f]) or "no",
                "n/a" if c.passed is None else ("passes" if c.passed else "fails"),
            )
        )
    sec.blocks.append(
        TableBlock(
            (
                "candidate",
                "MRE [95 % CI]",
                *(f"worst {FAMILIES[f]}" for f in fams),
                "dominated in",
                "policy",
            ),
            tuple(rows),
            "Each figure with its 95 % interval; 'not measured' when the audit could not "
            "measure the family (its report says what it needs).",
        )
    )
    return sec


def difference_sentence(d: PairedDifference) -> str:
    """A paired difference in words: ``A publishes fewer ... than B: -0.040 [-0.070, -0.010]``
    when significant after Holm, else that no difference was shown."""
    figs = f"{d.difference:+.3f} [{d.ci_low:+.3f}, {d.ci_high:+.3f}]"
    what = PAIRED[d.family] + (f", attack '{d.attack}'" if d.attack else "")
    test = f"p {p_text(d.p_value)}, after Holm {pv(d.p_holm, ALPHA)}"
    if d.significant:
        less, more = _DIRECTION[d.family]
        verb = less if d.difference < 0 else more
        return f"{d.a} {verb} than {d.b}: {figs} ({what}; {test})."
    return f"{d.a} and {d.b}: no significant difference in the {what}: {figs} ({test})."


def _differences(result: ComparisonResult) -> Section:
    sec = Section("Paired differences", "differences")
    sec.blocks.append(
        Paragraph(
            "Each difference is the first candidate's figure minus the second's, on the same "
            "records. Copies: per original record, whether the release publishes it verbatim; "
            f"McNemar's exact test ({cite('mcnemar1947')}) with a paired bootstrap interval. "
            "No-box membership: the AUC of one attack on the same evaluation half, the attack "
            "chosen on the selection half as the strongest against either candidate; DeLong's "
            f"test and interval for correlated ROC curves ({cite('delong1988')}). "
            "Linkability: per target of the game (the same training and control targets for "
            "every candidate), whether the release linked its two halves; the difference of "
            "the excess link rates (training minus control), an exact sign-flip test "
            "(McNemar's when no control target tells the two apart) and a bootstrap interval "
            "over each set of targets. The frontier shows the residual risk (the excess "
            "divided by one minus the control rate); the paired figure is the excess. "
            "Shadow-release membership (with shadow releases): the AUC of the attack learned "
            "from the same shadow releases on the same members and non-members; DeLong's test "
            "and interval. Attribute "
            "inference (release game, with a secret column): per attacked training record, "
            "whether the secret was guessed right; McNemar's exact test with a bootstrap "
            "interval that resamples the game's parts. Relational candidates are compared "
            "person by person in the same ways: membership of persons on the same members and "
            "non-members (DeLong), whole histories and half-histories copied per training "
            "person (McNemar), linkability and attribute inference of persons on the same "
            "targets. Holm's "
            f"correction ({cite('holm1979')}) runs over every test of this table: a difference "
            "is called significant when its Holm-adjusted p-value is at most 0.05."
        )
    )
    if result.differences:
        sec.blocks.append(Bullets(tuple(difference_sentence(d) for d in result.differences)))
    else:
        sec.blocks.append(Paragraph("No family was measured for two candidates: nothing paired."))
    sec.blocks.append(
        Bullets(
            tuple(
                f"{FAMILIES[f]}: not paired ({why})."
                for f, why in NOT_PAIRED.items()
                # relational candidates (a table of persons): the notes say what is not paired
                if f in _families(result) and result.options.root is None
            )
        )
    )
    for note in result.notes:
        sec.blocks.append(Paragraph(note))
    return sec


def _spreads(result: ComparisonResult) -> Section | None:
    if not result.spreads:
        return None
    fams = _families(result)
    rows = []
    for s in result.spreads:
        rows.append(
            (
                s.group,
                str(len(s.members)),
                span(*s.utility),
                *(span(*s.worst[f]) if f in s.worst else "not measured" for f in fams),
            )
        )
    return Section(
        "Spread across seeds",
        "seeds",
        [
            Paragraph(
                "Candidates that differ only by seed (named BASE@seedN): the range of each "
                "figure across the seeds. A difference between two generators smaller than "
                "this spread may be the luck of one seed."
            ),
            TableBlock(
                ("group", "seeds", "MRE range", *(f"worst {FAMILIES[f]} range" for f in fams)),
                tuple(rows),
            ),
        ],
    )


def _criteria(result: ComparisonResult) -> Section:
    names = [a.criterion for a in result.candidates[0].criteria] if result.candidates else []
    rows = []
    for c in result.candidates:
        cells = []
        for a in c.criteria:
            if a.figure is None:
                cells.append(f"not measured (needs {a.needs})")
            else:
                cells.append(f"{a.verdict}: {_figure(a.figure)} ({a.title})")
        rows.append((c.name, *cells))
    return Section(
        "Article 29 criteria",
        "criteria",
        [
            Paragraph(
                f"The three criteria of {cite('wp29_2014')}: can a person be "
                "singled out, can records about a person be linked, can an attribute of a "
                "person be inferred? Each is answered by the audit's finding behind it (the "
                "worst of its kind), with its verdict, figure and 95 % interval. Inference is "
                "answered by attribute inference, which needs a secret column."
            ),
            TableBlock(("candidate", *names), tuple(rows)),
        ],
    )


def _recommendation(result: ComparisonResult) -> Section | None:
    r = result.recommendation
    if r is None:
        return None
    text = (
        f"Recommended under the policy '{r.policy}': {r.best} ({r.reason})."
        if r.best
        else f"No candidate is recommended under the policy '{r.policy}': {r.reason}."
    )
    items = tuple(f"{c.name}: {'passes' if c.passed else 'fails'}" for c in result.candidates)
    return Section(
        "Recommendation", "recommendation", [Paragraph(text, emphasis=True), Bullets(items)]
    )


def _links(result: ComparisonResult) -> Section:
    return Section(
        "Candidates' reports",
        "reports",
        [
            Links(
                tuple(
                    (f"{c.name} ({c.source})", f"candidates/{c.folder}/report.html")
                    for c in result.candidates
                )
            )
        ],
    )


def build_comparison_document(result: ComparisonResult) -> Document:
    """The comparison report's sections, in order (module docstring)."""
    sections = [
        s
        for s in (
            _frontier(result),
            _differences(result),
            _spreads(result),
            _criteria(result),
            _recommendation(result),
            _links(result),
        )
        if s is not None
    ]
    refs = tuple(r for r in cited_references(sections) if r.key in REFERENCES)
    if refs:
        sections.append(
            Section("References", "references", [Bullets(tuple(r.entry() for r in refs))])
        )
    return Document("synthleak comparison", sections, refs)


def comparison_json(result: ComparisonResult, doc: Document) -> str:
    """The comparison as strict JSON, without the candidates' full audits (each is in its own
    ``candidates/<folder>/report.json``), plus ``"references"``."""
    data = result.to_dict()
    data.pop("audits")
    data["references"] = [r.to_dict() for r in doc.references]
    return json.dumps(data, indent=2, allow_nan=False)


def _write_candidate(shared: dict[str, tuple[AuditResult, Path]], name: str) -> dict[str, Any]:
    """A work unit: candidate ``name``'s full report written into its folder."""
    from synthleak.report import write_report

    result, folder = shared[name]
    write_report(result, folder)
    return {}


def write_comparison_report(
    result: ComparisonResult, out_dir: str | Path, *, runtime: Runtime | None = None
) -> dict[str, Path]:
    """Write ``comparison.html``, ``comparison.json``, ``comparison.md`` (and ``figures/``) into
    ``out_dir``, and every candidate's full report into ``candidates/<folder>/``. Rendered in a
    temporary folder first and moved into place at the end, so a failure leaves no
    half-written comparison.

    With a ``runtime`` of local workers the candidates' reports are written side by side, one
    per worker at a time (a second each, mostly their figures); on a cluster, whose workers
    write to their own disks, and without a runtime they are written here, one after the
    other. A report a worker could not write is written again here, so that the error raised
    is its own.
    """
    from synthleak.report import write_report
    from synthleak.runtime import Runtime, WorkUnit, as_runtime

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    rt = as_runtime(runtime)
    local = Runtime(workers=rt.workers if rt.cluster is None else 1)
    shared = {
        c.name: (result.audits[c.name], out / "candidates" / c.folder)
        for c in result.candidates
        if c.name in result.audits
    }
    done = local.run(
        _write_candidate,
        [WorkUnit(name, (name,)) for name in shared],
        shared=shared,
        description="candidate reports",
    )
    for name, (audit_result, folder) in shared.items():
        if not done[name].ok:
            write_report(audit_result, folder)
    doc = build_comparison_document(result)
    with tempfile.TemporaryDirectory(dir=out, prefix=".comparison-") as tmp_name:
        tmp = Path(tmp_name)
        (tmp / "figures").mkdir()
        (tmp / "comparison.html").write_text(to_html(doc), encoding="utf-8")
        (tmp / "comparison.md").write_text(to_markdown(doc, tmp / "figures"), encoding="utf-8")
        (tmp / "comparison.json").write_text(comparison_json(result, doc) + "\n", "utf-8")
        if (out / "figures").exists():
            shutil.rmtree(out / "figures")
        (tmp / "figures").replace(out / "figures")
        for name in ("comparison.json", "comparison.md", "comparison.html"):
            (tmp / name).replace(out / name)
    return {n: out / f"comparison.{n}" for n in ("html", "json", "md")}


__all__ = [
    "build_comparison_document",
    "comparison_json",
    "dominated",
    "frontier_plot",
    "write_comparison_report",
]
