"""Open report.html in headless Chromium: no console errors, no broken images; keep a screenshot."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from synthleak.report import write_report
from synthleak.results import AuditResult

from tests.report.browser import artifacts_dir, check_page, chromium_path


@pytest.mark.skipif(
    chromium_path() is None and not os.environ.get("CI"), reason="chromium not installed (CI installs it)"
)
def test_report_renders_in_chromium(sample_result: AuditResult, tmp_path: Path) -> None:
    paths = write_report(sample_result, tmp_path)
    page = check_page(paths["html"].resolve().as_uri())
    (artifacts_dir() / "report_sample_screenshot.png").write_bytes(page.screenshot)
    assert page.console_errors == []
    assert page.n_images >= 4 and page.broken_images == 0
    assert page.title == "synthleak privacy audit"
    assert len(page.screenshot) > 10000
