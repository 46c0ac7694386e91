from __future__ import annotations

import html
import math
import re
from pathlib import Path

import numpy as np
import pytest

from synthleak import Table
from synthleak.report import write_report
from synthleak.report.document import build_document
from synthleak.report.writers import to_html, to_markdown
from synthleak.results import AuditResult, load_result


def test_html_is_self_contained(sample_result: AuditResult) -> None:
    page = to_html(build_document(sample_result))
    assert page.startswith("<!DOCTYPE html>")
    assert not re.search(r"(src|href)=\"(https?:)?//", page)  # no network resources
    assert page.count("data:image/png;base64,") >= 4


def test_markdown_writes_figures(sample_result: AuditResult, tmp_path: Path) -> None:
    md = to_markdown(build_document(sample_result), tmp_path)
    assert "| attack | metric |" in md and "![" in md
    assert (tmp_path / "vulnerability.png").exists()


def test_write_report_is_all_or_nothing(
    sample_result: AuditResult, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    paths = write_report(sample_result, tmp_path / "out")
    assert load_result(paths["json"]).to_json() == sample_result.to_json()
    import synthleak.report as rep

    def boom(doc, *a, **k):  # type: ignore[no-untyped-def]
        raise RuntimeError("disk full")

    monkeypatch.setattr(rep, "to_markdown", boom)
    with pytest.raises(RuntimeError):
        write_report(sample_result, tmp_path / "fresh")
    assert list((tmp_path / "fresh").iterdir()) == []


def test_json_adds_the_cited_references_and_reads_back(sample_result: AuditResult) -> None:
    import json

    from synthleak.references import get
    from synthleak.report.writers import to_json

    doc = build_document(sample_result)
    text = to_json(sample_result, doc)
    data = json.loads(text)
    assert [r["key"] for r in data["references"]] == [r.key for r in doc.references]
    assert data["references"][0] == get(data["references"][0]["key"]).to_dict()
    assert {"key", "entry", "title", "authors", "year"} <= set(data["references"][0])
    assert AuditResult.from_json(text).to_json() == sample_result.to_json()


def test_html_and_markdown_end_with_the_references(sample_result: AuditResult) -> None:
    import html

    doc = build_document(sample_result)
    page, md = to_html(doc), to_markdown(doc)
    for r in doc.references:
        assert html.escape(r.entry()) in page and r.entry() in md
    assert md.index("## References") < md.index("## Reproducibility")
    assert '<section id="references">' in page


def test_report_json_keeps_per_record_arrays_in_a_side_file(
    sample_result: AuditResult, tmp_path: Path
) -> None:
    """report.json stays small: every long array (here the 1,000 vulnerability scores) is in
    report-records.json.gz, and the two files read back as the whole result."""
    import gzip
    import json

    from synthleak.errors import InputError
    from synthleak.report import RECORDS_FILE
    from synthleak.serde import BULKY_LIMIT

    paths = write_report(sample_result, tmp_path)
    doc = json.loads(paths["json"].read_text())
    assert doc["records_file"] == RECORDS_FILE
    assert doc["vulnerability"]["scores"] == {"$side": "/vulnerability/scores", "length": 1000}
    side = json.loads(gzip.decompress((tmp_path / RECORDS_FILE).read_bytes()))
    assert len(side["/vulnerability/scores"]) == 1000
    assert load_result(paths["json"]).same_as(sample_result)
    assert paths["json"].stat().st_size < len(to_json_whole(sample_result)) - 10_000

    def longest(x):  # type: ignore[no-untyped-def]
        if isinstance(x, dict):
            return max((longest(v) for v in x.values()), default=0)
        if isinstance(x, list):
            return max([len(x), *(longest(v) for v in x)])
        return 0

    assert longest(doc) <= BULKY_LIMIT  # no long array is left in the main document
    (tmp_path / RECORDS_FILE).unlink()
    with pytest.raises(InputError, match="is missing"):
        load_result(paths["json"])


def to_json_whole(result: AuditResult) -> str:
    from synthleak.report.writers import to_json

    return to_json(result, build_document(result))


def test_long_cells_wrap_and_short_ones_do_not(sample_result: AuditResult) -> None:
    page = to_html(build_document(sample_result))
    assert "white-space:nowrap}" in page and '<td class="n">0.310</td>' in page
    assert "<td>Attribute inference (reconstruction)</td>" in page  # long: may wrap


def test_a_report_without_records_carries_no_data_values(tmp_path: Path) -> None:
    """Data warnings quote real values only when the audit shows records: the HTML, Markdown
    and JSON of a default report name the column and count the records."""
    import dataclasses

    import numpy as np
    import pandas as pd
    from tests.report.conftest import make_result

    from synthleak.data.io import encode_frames
    from synthleak.results import DataSection

    rng = np.random.default_rng(0)
    ori = pd.DataFrame({"income": rng.integers(100, 1000, 500).astype(float)})
    ctl = ori.head(100).copy()
    ctl.loc[:9, "income"] = [1700.0, 1500.0] * 5
    enc = encode_frames({"original": ori, "control": ctl})
    data = DataSection(enc.profile, enc.domain)
    for show in (False, True):
        result = dataclasses.replace(make_result(show_records=show), data=data)
        paths = write_report(result, tmp_path / str(show))
        for kind in ("html", "md", "json"):
            text = paths[kind].read_text()
            assert "'income'" in text or "income" in text
            assert ("1700" in text) is show, (kind, show)


# --- Every interval sentence of rendered reports against its own numbers (issue 51) ---------

_NUM = r"[+-]?\d+\.\d+"
_CI = re.compile(rf"({_NUM}) \(\d+% CI ({_NUM}) to ({_NUM})\)")
_CLAIM = re.compile(
    rf"The (?:whole )?interval (lies above|includes|lies below) the baseline of ({_NUM})"
    rf"|the interval (lies wholly above|includes|lies wholly below) the baseline of ({_NUM})"
)
_WIDTH = re.compile(rf"interval is wider than ({_NUM})")
_VERDICT = re.compile(
    r"Verdict: (severe leakage|measurable leakage|no evidence of leakage|too small to measure)"
)
_CLAUSE = re.compile(rf"\((auc|risk|rate|accuracy|advantage) ({_NUM}), CI ({_NUM}) – ({_NUM})\)")


def interval_claims(text: str) -> list[str]:
    """Check each finding sentence of a rendered report (one per paragraph or line) against
    the numbers it prints; returns the contradictions found (empty when there are none)."""
    bad = []
    for line in re.split(r"\n|</p>|</li>", text):
        for m in _CLAUSE.finditer(line):  # the headline's leaks, with their figure
            metric, v, lo, hi = m[1], float(m[2]), float(m[3]), float(m[4])
            if not (lo <= v <= hi and lo > (0.5 if metric == "auc" else 0.0)):
                bad.append(f"leak clause {m[0]!r}")
        ci = _CI.search(line)
        if ci is None:
            continue
        v, lo, hi = (float(x) for x in ci.groups())
        claim, verdict = _CLAIM.search(line), _VERDICT.search(line)
        if not (lo <= v <= hi) or claim is None or verdict is None:
            bad.append(f"unparsed or value outside its interval: {line[:160]!r}")
            continue
        where = claim[1] or claim[3]
        b = float(claim[2] or claim[4])
        ok = {
            "lies above": lo > b,
            "lies wholly above": lo > b,
            "includes": lo <= b <= hi,
            "lies below": hi < b,
            "lies wholly below": hi < b,
        }[where]
        said = verdict[1]
        if said in ("severe leakage", "measurable leakage"):
            ok = ok and "above" in where
        elif said == "no evidence of leakage" and "above" in where:
            ok = ok and "Holm's correction" in line  # a leak alone that the correction undoes
        elif said == "too small to measure":
            width = _WIDTH.search(line)
            ok = ok and (width is None or hi - lo > float(width[1]) - 2e-3)
        if "below" in where and said != "too small to measure":
            ok = ok and said == "no evidence of leakage"
        if not ok:
            bad.append(f"'{where} {b}' / {said} vs CI {lo} to {hi}: {line[:160]!r}")
    for wrong in ("the other 1 are", "all 1 findings", "1 of 1 findings", "1 findings show"):
        if wrong in text:
            bad.append(f"plural agreement: {wrong!r}")
    return bad


def test_the_claim_check_finds_a_contradiction() -> None:
    wrong = (
        "Copies: excess over control -0.0012 (95% CI -0.0016 to -0.0007): x. The interval "
        "includes the baseline of 0.0000. Verdict: no evidence of leakage at this budget."
    )
    assert interval_claims(wrong)
    assert not interval_claims(
        wrong.replace("The interval includes", "The whole interval lies below")
    )
    leak = (
        "AUC 0.550 (95% CI 0.400 to 0.700); y. The whole interval lies above the baseline of "
        "0.500. Verdict: measurable leakage"
    )
    assert interval_claims(leak)
    assert interval_claims("Verdict: no evidence of leakage in 2 of 3 findings; the other 1 are")


_PLAN_N = 300  # records per part: training, control, release


@pytest.fixture(scope="module")
def planted(adult_table: Table) -> dict[str, AuditResult]:
    """Audits of small releases of bundled Adult (300 training records, fastest budget): a
    baynet release (the demo's generator), the same without a control set, and three planted
    releases: 5 % verbatim copies of the training records, one copied column (fnlwgt), and a
    null release (a disjoint real sample)."""
    from synthleak.data.table import Table as T
    from synthleak.generators.base import make_generator
    from synthleak.pipeline import BudgetPlan, audit

    plan = BudgetPlan(
        n_attacks=120,
        mia_targets=1,
        mia_controls=1,
        shadows=40,
        tests=40,
        n=150,
        mia_attacks=("distance",),
        aia_games=6,
    )
    n = _PLAN_N
    rows = np.random.default_rng(5).choice(len(adult_table), 3 * n, replace=False)
    train, ctl, other = (adult_table.take(rows[i * n : (i + 1) * n]) for i in range(3))
    k = n // 20
    copies = T.concat([other.take(np.arange(n - k)), train.take(np.arange(k))])
    frame = other.to_frame()
    frame["fnlwgt"] = train.to_frame()["fnlwgt"].to_numpy()
    column = T.from_frame(frame, other.schema)
    rng = np.random.default_rng(0)
    demo = make_generator("baynet:k=2").fit(train, rng=rng).sample(n, rng=rng)
    releases = {
        "demo": (demo, ctl),
        "no control": (demo, None),
        "copies": (copies, ctl),
        "column": (column, ctl),
        "null": (other, ctl),
    }
    return {
        name: audit(train, synthetic=syn, control=c, plan=plan, seed=1)
        for name, (syn, c) in releases.items()
    }


def _rendered(result: AuditResult) -> dict[str, str]:
    doc = build_document(result)
    return {"markdown": to_markdown(doc), "html": html.unescape(to_html(doc))}


def test_every_interval_sentence_agrees_with_its_numbers(planted: dict[str, AuditResult]) -> None:
    for name, result in planted.items():
        # one Holm family holds every finding of the audit, whatever its stage
        tested = [f for f in result.findings if math.isfinite(f.p_value)]
        assert all(f.n_tests == len(tested) for f in tested), name
        for fmt, text in _rendered(result).items():
            assert _CI.search(text), (name, fmt)  # there are sentences to check
            assert interval_claims(text) == [], (name, fmt)


_FIRST = re.compile(r"First finding, by harm to people \(([^)]*)\): ([^\n<]*)")


def test_the_summary_names_first_the_finding_that_harms_people_most(
    planted: dict[str, AuditResult],
) -> None:
    from synthleak.verdicts import Verdict

    firsts = {}
    for name, result in planted.items():
        for fmt, text in _rendered(result).items():
            m = _FIRST.search(text)  # the executive summary's, the only one
            assert m is not None, (name, fmt)
            first = result.first_finding()
            assert first is not None and m[2].startswith(f"{first.title}: "), (name, fmt)
            firsts[name, fmt] = (m[1], first.title)
    # copies of real people lead, with their count, whatever the other figures
    assert firsts["copies", "html"] == (
        "real people published verbatim",
        "Exact copies of training records",
    )
    copies = planted["copies"].first_finding()
    assert copies is not None and copies.verdict is Verdict.SEVERE
    assert copies.people_published() == _PLAN_N // 20
    head = _rendered(planted["copies"])["markdown"]
    assert f"Exact copies of training records ({_PLAN_N // 20} real people)" in head
    assert firsts["column", "html"] == (
        "real people published verbatim",
        "Column values copied verbatim (worst column: 'fnlwgt')",
    )
    # a null release leads with no leak, and its headline says so
    for name in ("null", "no control"):
        first = planted[name].first_finding()
        assert first is not None and first.verdict not in (Verdict.LEAK, Verdict.SEVERE)
        assert "**Verdict: no evidence of leakage" in _rendered(planted[name])["markdown"]
    # without a control set the rate is not worded as against one
    nc = next(f for f in planted["no control"].findings if f.key == "copies.exact")
    said = nc.explanation()
    assert "expected by chance" in said and "control" not in said
