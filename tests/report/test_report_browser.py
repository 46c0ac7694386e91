"""Open a real audit's report.html in headless Chromium at 1,280 px: no console errors, no broken
images, no table wider than the page; keep a screenshot as a test artifact
(artifacts/report_screenshot.png)."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from tests.report.browser import artifacts_dir, check_page, chromium_path

from synthleak import Table
from synthleak.pipeline import BudgetPlan, audit
from synthleak.report import write_report

TINY = BudgetPlan(
    n_attacks=150,
    mia_targets=2,
    mia_controls=1,
    shadows=30,
    tests=30,
    n=150,
    mia_attacks=("distance",),
    aia_games=4,
)


@pytest.mark.skipif(
    chromium_path() is None and not os.environ.get("CI"),
    reason="chromium not installed (CI installs it)",
)
def test_audit_report_renders_in_chromium(adult_table: Table, tmp_path: Path) -> None:
    rows = np.random.default_rng(2).choice(len(adult_table), 2000, replace=False)
    result = audit(
        adult_table.take(rows[:1000]),
        generator="baynet:k=2",
        secret="income",
        control=adult_table.take(rows[1000:]),
        plan=TINY,
        seed=0,
    )
    paths = write_report(result, tmp_path)
    page = check_page(paths["html"].resolve().as_uri())
    (artifacts_dir() / "report_screenshot.png").write_bytes(page.screenshot)
    assert page.console_errors == []
    assert page.n_images >= 5 and page.broken_images == 0
    assert page.title == "synthleak privacy audit"
    assert len(page.screenshot) > 10000
    assert page.clipped_tables == 0  # every column, the verdict too, in view at 1,280 px
