from __future__ import annotations

from synthleak.report import plots
from synthleak.results import AuditResult

PNG = b"\x89PNG\r\n\x1a\n"


def test_every_plot_is_a_png(sample_result: AuditResult) -> None:
    v = sample_result.vulnerability
    targets = sample_result.membership["targets"]  # type: ignore[index]
    for png in (
        plots.vulnerability_distribution(v["scores"], [r["score"] for r in v["top"]]),
        plots.roc_curves(targets, "query"),
        plots.auc_boxplots(targets),
        plots.privacy_utility(sample_result.privacy_utility),
    ):
        assert png.startswith(PNG) and len(png) > 5000
