"""The copies section (report/sections/copies.py)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd

from synthleak.metrics.copies import copy_report
from synthleak.report.blocks import Paragraph
from synthleak.report.sections.copies import section
from synthleak.results import AuditResult


def _frames() -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    from tests.conftest import make_mixed_frame

    rng = np.random.default_rng(3)
    ori, ctl, other = (make_mixed_frame(200, rng) for _ in range(3))
    syn = pd.concat([other.iloc[:190], ori.iloc[:10]], ignore_index=True)  # 10 verbatim copies
    return ori, syn, ctl


def test_the_section_states_the_copied_records_against_control_or_chance(
    sample_result: AuditResult,
) -> None:
    ori, syn, ctl = _frames()
    with_control = copy_report(ori, syn, ctl)
    assert with_control.copied_rows.size == 10
    sec = section(dataclasses.replace(sample_result, copies=with_control))
    assert sec is not None and sec.anchor == "copies"
    first = next(b.text for b in sec.blocks if isinstance(b, Paragraph))
    e = with_control.synthetic_in_original
    assert f"Exact copies: {e.value:.2%} of the synthetic records" in first
    assert "10 training record(s) appear verbatim" in first
    assert "of the control records" in first and "chance rate" not in first
    alone = copy_report(ori, syn)
    first = next(
        b.text
        for b in section(dataclasses.replace(sample_result, copies=alone)).blocks  # type: ignore[union-attr]
        if isinstance(b, Paragraph)
    )
    assert "against a chance rate of at most" in first and "control records" not in first
    assert section(dataclasses.replace(sample_result, copies=None)) is None
