"""The utility section (report/sections/utility.py)."""

from __future__ import annotations

from synthleak.report.blocks import Figure
from synthleak.report.document import build_document
from synthleak.results import AuditResult


def test_the_privacy_utility_plot_says_what_its_points_are(sample_result: AuditResult) -> None:
    """The plot's points are other datasets than the release: its caption says what each is
    and marks the release's own utility, the table's figures (the issue: the game's datasets
    at MRE>10 0.188 beside a table of the release at 0.233, uncaptioned)."""
    import dataclasses

    def caption(result: AuditResult) -> str:
        sec = next(s for s in build_document(result).sections if s.anchor == "utility")
        return next(b.caption for b in sec.blocks if isinstance(b, Figure))

    u = sample_result.utility
    assert u is not None
    text = caption(sample_result)
    assert f"MRE>10 {u.mre_gt10:.4f}, 3-TVD {u.tvd3:.4f}" in text
    assert "the release's own utility" in text and "the points are other datasets" in text
    text = caption(dataclasses.replace(sample_result, utility=None))
    assert "release's own utility was not measured" in text and "not the release" in text
