from __future__ import annotations

import re
from pathlib import Path

import pytest

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
