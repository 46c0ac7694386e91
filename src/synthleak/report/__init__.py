"""Reports (HTML, JSON, Markdown) built from an :class:`~synthleak.results.AuditResult` only."""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import replace
from pathlib import Path

from synthleak.report.document import build_document
from synthleak.report.writers import RECORDS_FILE, to_html, to_json, to_json_parts, to_markdown
from synthleak.results import AuditResult


def write_report(result: AuditResult, out_dir: str | Path) -> dict[str, Path]:
    """Write ``report.html``, ``report.json``, ``report.md`` (and ``figures/``) into ``out_dir``.

    All three end with the full entries of the works the report cites (``"references"`` in the
    JSON, next to the fields of :class:`~synthleak.results.AuditResult`). The per-record arrays
    of the JSON (scores, row numbers) are kept in ``report-records.json.gz`` beside it
    (:func:`~synthleak.report.writers.to_json_parts`), so ``report.json`` stays small enough to
    read; :func:`synthleak.results.load_result` reads both. Unless the audit was asked to show
    records, the data warnings are written without the values they are about
    (:meth:`~synthleak.results.DataSection.without_values`).

    Everything is rendered in a temporary folder first and moved into place at the end, so a
    failure leaves no half-written report.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    if result.data is not None and not result.config.show_records:
        # a report that does not show records carries no data values in its notes either
        result = replace(result, data=result.data.without_values())
    doc = build_document(result)
    with tempfile.TemporaryDirectory(dir=out, prefix=".report-") as tmp_name:
        tmp = Path(tmp_name)
        (tmp / "figures").mkdir()
        (tmp / "report.html").write_text(to_html(doc), encoding="utf-8")
        (tmp / "report.md").write_text(to_markdown(doc, tmp / "figures"), encoding="utf-8")
        main, side = to_json_parts(result, doc)
        (tmp / "report.json").write_text(main + "\n", encoding="utf-8")
        (tmp / RECORDS_FILE).write_bytes(side)
        if (out / "figures").exists():
            shutil.rmtree(out / "figures")
        (tmp / "figures").replace(out / "figures")
        for name in (RECORDS_FILE, "report.json", "report.md", "report.html"):
            (tmp / name).replace(out / name)
    return {n: out / f"report.{n}" for n in ("html", "json", "md")}


__all__ = [
    "RECORDS_FILE",
    "build_document",
    "to_html",
    "to_json",
    "to_json_parts",
    "to_markdown",
    "write_report",
]
