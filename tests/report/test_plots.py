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


def test_riskmap_plots_are_pngs() -> None:
    aucs = [0.5, 0.6, 0.7, 0.9]
    assert plots.auc_distribution(aucs).startswith(PNG)
    assert plots.auc_vs_score(aucs, [0.1, 0.2, 0.3, 0.4], "V_k").startswith(PNG)
