from __future__ import annotations

from synthleak.report.document import Bullets, Figure, Paragraph, TableBlock, build_document
from synthleak.results import AuditResult


def test_summary_names_the_records_at_risk_and_the_first_finding(
    sample_result: AuditResult,
) -> None:
    doc = build_document(sample_result)
    titles = [s.title for s in doc.sections]
    assert titles[0] == "Executive summary" and "Reproducibility" in titles[-1]
    summary = " ".join(b.text for b in doc.sections[0].blocks if isinstance(b, Paragraph))
    assert sample_result.vulnerability is not None
    top_rows = [str(r.row) for r in sample_result.vulnerability.top]
    assert all(r in summary for r in top_rows)
    assert (
        "First finding, by harm to people (records singled out, linked or inferred): Linkability"
        in summary
    )
    assert "CI" in summary
    assert "Holm" in summary and "3 tests" in summary  # the multiple-testing note
    # what could not run is said first, with what it needs; never "no evidence"
    bullets = [b for b in doc.sections[0].blocks if isinstance(b, Bullets)]
    assert "needs a control set" in bullets[0].items[0]


def test_sections_have_tables_and_figures(sample_result: AuditResult) -> None:
    doc = build_document(sample_result)
    blocks = [b for s in doc.sections for b in s.blocks]
    names = {b.name for b in blocks if isinstance(b, Figure)}
    assert {"vulnerability", "roc_query", "auc_boxplots", "privacy_utility"} <= names
    assert any(isinstance(b, TableBlock) and "verdict" in b.header for b in blocks)
    assumptions = next(s for s in doc.sections if s.anchor == "assumptions")
    assert len(assumptions.blocks) >= 6  # one title + three assumptions per distinct threat model


def test_minimal_result_still_renders(sample_result: AuditResult) -> None:
    import dataclasses

    bare = dataclasses.replace(
        sample_result,
        stages=(),
        findings=(),
        vulnerability=None,
        membership=None,
        utility=None,
        privacy_utility=(),
        notes=(),
    )
    doc = build_document(bare)
    assert [s.anchor for s in doc.sections] == [
        "summary",
        "findings",
        "assumptions",
        "reproducibility",
    ]
    summary = " ".join(b.text for b in doc.sections[0].blocks if isinstance(b, Paragraph))
    assert "No attack could run" in summary and "no evidence" not in summary


def test_references_are_the_works_the_text_cites(sample_result: AuditResult) -> None:
    from synthleak.references import get
    from synthleak.report.document import Bullets, Section, cited_references

    doc = build_document(sample_result)
    assert [r.key for r in doc.references] == [
        "annamalai2024linear",
        "giomi2023",
        "holm1979",
        "houssiau2022",  # the query attack's second work, from its registry entry
        "meeus2023",
    ]
    refs = next(s for s in doc.sections if s.anchor == "references")
    (items,) = [b.items for b in refs.blocks if isinstance(b, Bullets)]
    assert items == tuple(f"{r.short}: {r.entry()}" for r in doc.references)
    assert [s.anchor for s in doc.sections][-2:] == ["references", "reproducibility"]
    # a citation anywhere in the text (here a table cell) enters the list; none gives no section
    cell = Section("x", "x", [TableBlock(("a",), ((f"see {get('carlini2022').short}",),))])
    assert [r.key for r in cited_references([cell])] == ["carlini2022"]
    assert cited_references([Section("x", "x", [Paragraph("no citation")])]) == ()


def test_findings_name_the_method_they_follow(sample_result: AuditResult) -> None:
    from synthleak.report.document import _method

    assert _method("singling_out.univariate") == "Giomi et al. (2023), Sec. 4.1"
    assert _method("singling_out.contrastive").startswith("Plasencia Palacios (2024), Sec. 2")
    assert _method("attribute.recon.release") == "Annamalai et al. (2024a), Sec. 4.2"
    assert _method("attribute.infer.m1000").startswith("Annamalai et al. (2024a), Sec. 4.1")
    assert _method("membership.query") == "Meeus et al. (2023), Sec. 5.1"
    assert _method("membership.groundhog").startswith("Stadler et al. (2022); ")
    assert _method("membershipx") == "" and _method("something.new") == ""
    doc = build_document(sample_result)
    findings = next(s for s in doc.sections if s.anchor == "findings")
    texts = [b.text for b in findings.blocks if isinstance(b, Paragraph)]
    # the findings follow the harm order: the leak (Linkability) first
    assert texts[0].startswith("Linkability:") and texts[0].endswith(
        "Giomi et al. (2023), Sec. 4.2."
    )


def test_every_verdict_reads_the_same_in_every_section_and_format() -> None:
    """One wording per state: the summary's counts, the findings table, the explanation, the
    attribute game's own table, the HTML, the Markdown and the JSON all say the same verdict
    of every finding, and no verdict column holds another word."""
    import html as _html
    import json

    from tests.report.conftest import make_every_state_result

    from synthleak.report.writers import to_html, to_json, to_markdown
    from synthleak.verdicts import Verdict

    result = make_every_state_result()
    by_key = {f.key: f for f in result.findings}
    assert {f.verdict for f in result.findings} == set(Verdict)  # every state is rendered
    # the game's "too small to measure" is the finding's, though its width is under MAX_WIDTH
    assert by_key["attribute.recon.m500"].verdict is Verdict.TOO_SMALL
    assert by_key["singling_out.univariate"].corrected_away()
    doc = build_document(result)
    words = {v.value for v in Verdict}
    # every verdict column of every table holds one of the five wordings
    for sec in doc.sections:
        for b in sec.blocks:
            if isinstance(b, TableBlock) and "verdict" in b.header:
                col = b.header.index("verdict")
                assert {r[col] for r in b.rows} <= words, sec.title
    summary = doc.sections[0]
    counts = next(
        b for b in summary.blocks if isinstance(b, Bullets) and "finding(s)" in b.items[0]
    )
    for v in Verdict:
        n = sum(1 for f in result.findings if f.verdict is v)
        if n:
            assert f"{n} finding(s): {v.value}" in counts.items
    findings = next(s for s in doc.sections if s.anchor == "findings")
    table = next(b for b in findings.blocks if isinstance(b, TableBlock))
    attribute = next(s for s in doc.sections if s.anchor == "attribute")
    game_table = next(b for b in attribute.blocks if isinstance(b, TableBlock))
    sweep = next(s for s in doc.sections if s.anchor == "attribute-sweep")
    sweep_table = next(b for b in sweep.blocks if isinstance(b, TableBlock))
    texts = [b.text for b in findings.blocks if isinstance(b, Paragraph)]
    page, md = to_html(doc), to_markdown(doc)
    data = json.loads(to_json(result, doc))
    for f in result.findings:
        word = f.verdict.value  # type: ignore[union-attr]
        others = words - {word}
        (row,) = [r for r in table.rows if r[0] == f.title]
        assert row[-1] == word
        (text,) = [t for t in texts if t.startswith(f"{f.title}:")]
        if f.verdict is Verdict.NOT_MEASURED:
            assert text.startswith(f"{f.title}: Not measured")
            assert row[table.header.index("95% CI")] == "n/a"  # once, not "n/a – n/a"
        else:
            assert f"Verdict: {word}" in text and not any(f"Verdict: {o}" in text for o in others)
        if f.key.startswith("attribute.sweep."):
            (srow,) = [r for r in sweep_table.rows if r[1] == f.key.split(".")[2]]
            assert srow[-1] == word
            # records are listed (by row of the original, no values) for leaking columns only
            leaks = f.verdict in (Verdict.LEAK, Verdict.SEVERE)
            assert srow[-2] == ("5" if leaks else "not listed")
        elif f.key.startswith("attribute."):
            (grow,) = [r for r in game_table.rows if r[0] == f.key.split(".")[1]]
            assert grow[-1] == word
        # the same row in HTML and Markdown
        (hrow,) = [
            r
            for r in page.split("<tr>")
            if f"<td>{_html.escape(f.title)}</td>" in r
            or (f'<td class="n">{_html.escape(f.title)}</td>' in r)
        ]
        assert f">{word}</td>" in hrow and not any(f">{o}</td>" in hrow for o in others)
        (mrow,) = [line for line in md.splitlines() if line.startswith(f"| {f.title} |")]
        assert mrow.endswith(f"| {word} |")
        (jf,) = [x for x in data["findings"] if x["key"] == f.key]
        assert jf["verdict"] == word
    # the multiple-testing correction is visible beside the verdict and explained
    uni = by_key["singling_out.univariate"]
    (row,) = [r for r in table.rows if r[0] == uni.title]
    alone, corrected = row[-2].split(" / ")
    assert float(alone) < 0.05 < float(corrected)
    how = next(s for s in doc.sections if s.anchor == "how-to-read")
    how_text = " ".join(b.text for b in how.blocks if isinstance(b, Paragraph))
    n_tests = sum(1 for f in result.findings if f.verdict is not Verdict.NOT_MEASURED)
    assert f"{n_tests} tests" in how_text and uni.title in how_text and "Holm" in how_text
    listed = [b for b in sweep.blocks if isinstance(b, Bullets) and "rows" in b.items[0]]
    assert [b.items for b in listed] == [("'income': 5 record(s), rows 10, 12, 14, 16, 18",)]
    assert "'id' not swept: an id" in str(sweep.blocks)
    # the first finding of the summary is the top column of the sweep's table
    assert result.first_finding().key == "attribute.sweep.income"  # type: ignore[union-attr]
    assert sweep_table.rows[0][1] == "income"
    assert all(
        any(
            item.startswith(f"{v.value}:")
            for b in how.blocks
            if isinstance(b, Bullets)
            for item in b.items
        )
        for v in Verdict
    )


def test_the_headline_and_its_table_agree_or_say_why_not(sample_result: AuditResult) -> None:
    """The membership finding is measured on the half of the test datasets that did not pick
    it; the per-target table shows all of them: the report states both numbers beside each
    other, and marks the headline's row."""
    import dataclasses

    import numpy as np

    from synthleak.findings import membership_finding
    from synthleak.verdicts import assess, at_least_sentence

    mem = sample_result.membership
    assert mem is not None
    f = membership_finding(mem, rng=np.random.default_rng(0))
    result = dataclasses.replace(sample_result, findings=assess([*sample_result.findings, f]))
    doc = build_document(result)
    text = " ".join(b.text for s in doc.sections for b in s.blocks if isinstance(b, Paragraph))
    table_auc = f"{f.details['auc_all_tests']:.3f}"
    assert f"The per-target table shows AUC {table_auc}" in text
    assert f"figure here ({f.estimate.value:.3f})" in text
    sec = next(s for s in doc.sections if s.anchor == "membership")
    table = next(b for b in sec.blocks if isinstance(b, TableBlock))
    (marked,) = [r for r in table.rows if r[0].endswith("*")]
    assert marked[0] == f"{f.details['row']}*" and marked[2] == f.details["attack"]
    assert marked[3] == table_auc
    # how many records are exposed, with confidence, by the rows the table uses
    severe, exposed = reversed(f.details["at_least"])
    assert "How many records are exposed: " + at_least_sentence(severe) in text
    assert (
        at_least_sentence(exposed) in text
        and "tested in the order of their AUC on the first half" in text
    )
    assert set(exposed["rows"]) <= {t.row for t in mem.targets}
    summary = " ".join(b.text for b in doc.sections[0].blocks if isinstance(b, Paragraph))
    assert ("Records exposed: " in summary) == bool(exposed["k"])


def test_summary_claims_only_what_was_measured(sample_result: AuditResult) -> None:
    """The screen's records are called measured in full only when the shadow-model game
    measured them (those it did are named when it measured some), and utility is said to have a
    reference only when it has one."""
    import dataclasses

    from synthleak.results import ScreenedRecord, ScreeningSection, UtilitySection

    screened = dataclasses.replace(
        sample_result,
        screening=ScreeningSection(
            "baynet:k=2", 800, 50, 100, 100, 1000, (ScreenedRecord(7, 1, 3, 0.9, 0.8, 0.95),)
        ),
    )

    def summary(result: AuditResult) -> str:
        sec = build_document(result).sections[0]
        return " ".join(b.text for b in sec.blocks if isinstance(b, Paragraph))

    # the game measured only some of the screen's first records: it names them
    game_rows = [t.row for t in sample_result.membership.targets]  # type: ignore[union-attr]
    outside = max(game_rows) + 1

    def screen_top(rows: list[int]) -> AuditResult:
        top = tuple(ScreenedRecord(r, i + 1, 3, 0.9, 0.8, 0.95) for i, r in enumerate(rows))
        return dataclasses.replace(
            screened, screening=dataclasses.replace(screened.screening, top=top)
        )

    partly = summary(screen_top([game_rows[0], outside]))
    assert "measured them in full" not in partly
    assert f"measured 1 of them in full (rows {game_rows[0]}); the others are ranked" in partly
    assert "measured none of them" in summary(screen_top([outside]))
    assert "measured them in full" in summary(screen_top(game_rows[:2]))
    no_game = summary(dataclasses.replace(screened, membership=None))
    assert "measured them in full" not in no_game and "did not run" in no_game
    assert "but no reference" in no_game  # the sample's utility has no control reference
    old = dataclasses.replace(sample_result, utility=UtilitySection(0.12, 0.08, 100))
    assert "neither interval nor reference (an older result)" in summary(old)
    with_ref = dataclasses.replace(
        sample_result,
        utility=UtilitySection(
            0.12,
            0.08,
            100,
            (0.1, 0.14),
            (0.07, 0.09),
            0.1,
            0.07,
            (0.09, 0.11),
            (0.06, 0.08),
            455,
            800,
            200,
            1000,
        ),
    )
    assert "as their reference, the score of real people" in summary(with_ref)
    util = next(s for s in build_document(with_ref).sections if s.anchor == "utility")
    table = next(b for b in util.blocks if isinstance(b, TableBlock))
    assert table.rows[0] == ("MRE>10", "0.1200", "0.1000 – 0.1400", "0.1000", "0.0900 – 0.1100")
    text = " ".join(b.text for b in util.blocks if isinstance(b, Paragraph))
    assert "fewer records (200) than the release (800)" in text


def test_glossary_explains_the_terms_the_report_uses(sample_result: AuditResult) -> None:
    doc = build_document(sample_result)
    sec = next(s for s in doc.sections if s.anchor == "glossary")
    items = [i for b in sec.blocks if isinstance(b, Bullets) for i in b.items]
    terms = {i.split(":")[0] for i in items}
    assert {"AUC", "TPR@FPR", "V_k", "baseline", "control set", "Holm correction"} <= terms
    assert {"excess over control", "query"} <= terms  # the membership attack of the sample
    assert "Gaussian-DP mu" not in terms  # no epsilon section in the sample
    assert all(i.endswith(".") and len(i) < 400 for i in items)  # one sentence each
    assert [s.anchor for s in doc.sections][-3:] == ["glossary", "references", "reproducibility"]


def test_the_glossary_reads_each_attack_from_the_registry() -> None:
    """An attack's glossary line is its registry line (one description per attack) with the
    works the registry names; an attack no longer registered says only what it was."""
    from synthleak.attacks.base import AttackFamily, list_attacks
    from synthleak.references import cite
    from synthleak.report.document import _attack_sentence

    for family in (AttackFamily.NOBOX_MEMBERSHIP, AttackFamily.MEMBERSHIP, AttackFamily.ATTRIBUTE):
        for info in list_attacks(family):
            text = _attack_sentence(family, info.name)
            assert text.startswith(info.doc[0].lower() + info.doc[1:]) and text.endswith(".")
            assert all(cite(k) in text for k in info.references)
    no_such = _attack_sentence(AttackFamily.NOBOX_MEMBERSHIP, "no-such-attack")
    assert no_such == "an attack of this family."


def test_the_summary_headline_never_reads_no_evidence_on_unreadable_findings(
    sample_result: AuditResult,
) -> None:
    """A tiny audit whose findings are too small to measure heads its summary with that, not
    with "no evidence"; a leak anywhere heads it with the worst leak; counts agree in number."""
    import dataclasses

    from synthleak.report.document import _headline
    from synthleak.verdicts import Verdict

    base = sample_result.findings[0]

    def headline(**kw: int) -> str:
        findings = tuple(
            dataclasses.replace(base, key=f"k{v.name}{i}", verdict=v)
            for v in Verdict
            for i in range(kw.get(v.name, 0))
        )
        return _headline(dataclasses.replace(sample_result, findings=findings))

    tiny = headline(TOO_SMALL=3)
    assert tiny.startswith("Verdict: too small to measure") and "no evidence" not in tiny
    assert headline(NOT_MEASURED=2).startswith("Verdict: not measured")
    mixed = headline(NO_EVIDENCE=2, TOO_SMALL=1)
    assert mixed.startswith("Verdict: no evidence of leakage in 2 of 3")
    assert "the other 1 is too small" in mixed and "so it says nothing" in mixed
    assert "the other 2 are too small" in headline(NO_EVIDENCE=2, TOO_SMALL=2)
    one = headline(NO_EVIDENCE=2, LEAK=1)
    assert one.startswith("Verdict: measurable leakage (1 of 3 findings shows a leak)")
    assert headline(LEAK=1, SEVERE=1).startswith("Verdict: severe leakage (2 of 2 findings show")
    assert headline(NO_EVIDENCE=4) == (
        "Verdict: no evidence of leakage in all 4 findings, at this budget."
    )
    assert headline(NO_EVIDENCE=1) == (
        "Verdict: no evidence of leakage in the audit's one finding, at this budget."
    )


def test_glossary_explains_the_likelihood_ratio_attacks() -> None:
    from synthleak.attacks.base import AttackFamily
    from synthleak.report.document import _attack_sentence

    assert "Carlini" in _attack_sentence(AttackFamily.MEMBERSHIP, "lira")
    rmia = _attack_sentence(AttackFamily.MEMBERSHIP, "rmia")
    assert "Zarifzadeh" in rmia and "population" in rmia and rmia.endswith(".")
    meta = _attack_sentence(AttackFamily.MEMBERSHIP, "meta")
    assert "Vector Institute (2025)" in meta and "lira" in meta and meta.endswith(".")


def test_findings_table_prints_p_values_that_agree_with_the_verdict() -> None:
    """The table's "p alone / after Holm" cell: a Holm p-value one float above 5 % (not
    significant) reads "> 0.050", never "0.050" beside "a leak needs at most 5%"; the caption
    gives the number of tests."""
    import dataclasses
    import math

    from tests.report.conftest import make_result

    base = make_result()
    f0 = base.findings[1]
    assert f0.n_tests >= 2
    just_above = dataclasses.replace(f0, p_value=0.025, p_holm=math.nextafter(0.05, 1.0))
    res = dataclasses.replace(base, findings=(just_above, *base.findings[2:]))
    tables = [
        b
        for s in build_document(res).sections
        if s.anchor == "findings"
        for b in s.blocks
        if isinstance(b, TableBlock)
    ]
    (table,) = tables
    col = table.header.index("p alone / after Holm")
    cells = [r[col] for r in table.rows]
    assert cells[0] == "0.025 / > 0.050", cells
    assert f"audit's {f0.n_tests} tests" in table.caption


def test_summary_counts_the_people_a_generated_release_was_trained_on(
    sample_result: AuditResult,
) -> None:
    import dataclasses

    def opening(result: AuditResult) -> str:
        sec = build_document(result).sections[0]
        return next(b.text for b in sec.blocks if isinstance(b, Paragraph) and "exposes" in b.text)

    cfg = sample_result.config
    given = opening(
        dataclasses.replace(sample_result, config=dataclasses.replace(cfg, synthetic="s.csv"))
    )
    assert f"exposes the {cfg.n_original:,} real people in '{cfg.original}'" in given
    generated = dataclasses.replace(
        sample_result,
        config=dataclasses.replace(
            cfg, synthetic=None, control=None, generator="baynet", n_original=48842, n_control=24421
        ),
    )
    text = opening(generated)
    assert "exposes the 24,421 real people of" in text and "it was trained on" in text
    assert "the other 24,421 were held out as the control set" in text
    assert "48,842" not in text


def test_membership_signals_alone_read_as_aggregate_signals_ranked_last(
    sample_result: AuditResult,
) -> None:
    """A release whose only flags are no-box AUCs barely above 0.5 that survive Holm (chance
    alarms on null releases look like this) is headed as an aggregate membership signal with its
    size, not as a record a reader must act on; with a record-level leak beside it, it comes
    last."""
    import dataclasses

    from synthleak.metrics.privacy import RiskEstimate
    from synthleak.report.document import _headline
    from synthleak.verdicts import Finding, MetricKind, Verdict, assess

    tm = sample_result.findings[0].threat

    def f(key: str, lo: float, hi: float, metric: MetricKind) -> Finding:
        b = 0.5 if metric is MetricKind.AUC else 0.0
        return Finding(key, key, metric, RiskEstimate((lo + hi) / 2, lo, hi, 0.95, 2000, b), tm)

    calm = [
        f("linkability", -0.02, 0.02, MetricKind.RISK),
        f("copies.exact", -0.01, 0.01, MetricKind.RATE),
    ]
    nobox = f("membership.nobox", 0.535, 0.613, MetricKind.AUC)
    alone = dataclasses.replace(sample_result, findings=assess([nobox, *calm]))
    assert alone.findings[0].verdict is Verdict.LEAK  # it survives Holm
    text = _headline(alone)
    assert "By harm to people: aggregate membership signals: membership.nobox (auc 0.574" in text
    assert "no record is shown published, singled out or inferred" in text
    doc = build_document(alone)
    summary = " ".join(b.text for b in doc.sections[0].blocks if isinstance(b, Paragraph))
    assert "First finding, by harm to people (aggregate membership signals)" in summary
    single = f("singling_out.univariate", 0.05, 0.1, MetricKind.RISK)
    both = dataclasses.replace(sample_result, findings=assess([nobox, *calm, single]))
    assert [x.key for x in both.by_harm()][:2] == ["singling_out.univariate", "membership.nobox"]
    assert "aggregate signals: the release" not in _headline(both)
    # real records found verbatim as often as among the control are counted, not led with
    chance = dataclasses.replace(calm[1], details={"people_published": 2})
    quiet = dataclasses.replace(sample_result, findings=assess([calm[0], chance]))
    assert quiet.first_finding().verdict is Verdict.NO_EVIDENCE  # type: ignore[union-attr]
    assert (
        "copies.exact: 2 real people of the data found verbatim in the release, though not "
        "significantly more often than among people who were not in the data"
    ) in _headline(quiet)


def test_a_new_stage_and_its_section_reach_the_audit_and_the_report(split, monkeypatch) -> None:
    """Adding a stage with a section is its stage, its section module and one line of the stage
    list: a throwaway stage placed before ``utility`` and a module
    ``synthleak.report.sections.<its name>`` appear in the audit and, at the stage's place, in
    the report, with no other edit."""
    import importlib.machinery
    import sys
    import types

    from tests.stages.audit_helpers import TINY

    import synthleak.pipeline as pipeline
    from synthleak.report.blocks import Section
    from synthleak.results import StageStatus
    from synthleak.stages.base import Stage, StageOutput

    def run(ctx, rng):  # type: ignore[no-untyped-def]
        return StageOutput(notes=(f"probe saw {len(ctx.train)} training records",))

    probe = Stage("probe_stage", "A throwaway stage", lambda ctx: None, run)
    module = types.ModuleType("synthleak.report.sections.probe_stage")
    module.__spec__ = importlib.machinery.ModuleSpec(module.__name__, None)

    def section(result):  # type: ignore[no-untyped-def]
        by = {s.name: s for s in result.stages}
        if by["probe_stage"].status is not StageStatus.MEASURED:
            return None
        # the audit's own notes (an optional package missing, ...) may come first
        seen = next(n for n in result.notes if n.startswith("probe saw"))
        return Section("Probe section", "probe", [Paragraph(seen)])

    module.section = section  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, module.__name__, module)
    stages = [st for st in pipeline.STAGES if st.name in ("copies", "utility")]
    monkeypatch.setattr(pipeline, "STAGES", (stages[0], probe, stages[1]))
    train, ctl, other = split
    r = pipeline.audit(train, synthetic=other, control=ctl, plan=TINY, seed=2)
    assert [s.name for s in r.stages if s.name in ("copies", "probe_stage", "utility")] == [
        "copies",
        "probe_stage",
        "utility",
    ]
    doc = build_document(r)
    titles = [s.title for s in doc.sections]
    assert "Probe section" in titles
    # at its stage's place: after the copies section, before utility (read last)
    assert titles.index("Verbatim copies") < titles.index("Probe section") < titles.index("Utility")
    text = next(s for s in doc.sections if s.title == "Probe section").blocks[0]
    assert isinstance(text, Paragraph) and "probe saw 1000 training records" in text.text


def test_every_section_module_is_reached_from_the_stage_list() -> None:
    """Each module of report/sections is a stage's (named after it, or shared through
    SECTION_MODULE): a module named after no stage would never be read."""
    from pathlib import Path

    import synthleak.pipeline as pipeline
    import synthleak.report.sections as sections_pkg
    from synthleak.report.document import SECTION_MODULE, stage_sections

    folder = Path(sections_pkg.__file__).parent
    modules = {p.stem for p in folder.glob("*.py")} - {"__init__"}
    reached = {SECTION_MODULE.get(st.name, st.name) for st in pipeline.STAGES}
    assert modules <= reached, f"section modules no stage reaches: {modules - reached}"
    assert {f.__module__.rsplit(".", 1)[-1] for f in stage_sections()} == modules
