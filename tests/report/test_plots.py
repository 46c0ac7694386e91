from __future__ import annotations

from synthleak.report import plots
from synthleak.results import AuditResult

PNG = b"\x89PNG\r\n\x1a\n"


def test_every_plot_is_a_png(sample_result: AuditResult) -> None:
    v = sample_result.vulnerability
    mem = sample_result.membership
    assert v is not None and mem is not None
    roc = mem.targets[0].attacks["query"].roc()
    for png in (
        plots.vulnerability_distribution(v.scores, [r.score for r in v.top]),
        plots.roc_curves([("row 17", roc.fpr, roc.tpr, 0.9)], "query"),
        plots.auc_boxplots([(t.selected_by, "query", 0.7) for t in mem.targets]),
        plots.privacy_utility(sample_result.privacy_utility),
    ):
        assert png.startswith(PNG) and len(png) > 5000


def test_riskmap_plots_are_pngs() -> None:
    aucs = [0.5, 0.6, 0.7, 0.9]
    assert plots.auc_distribution(aucs).startswith(PNG)
    assert plots.auc_vs_score(aucs, [0.1, 0.2, 0.3, 0.4], "V_k").startswith(PNG)


def test_record_exposure_is_a_png() -> None:
    records = [
        {"row": 3, "v_k": 0.2, "scores": {"dcr": {"score": -0.1, "percentile": 97.5}}},
        {
            "row": 8,
            "v_k": None,
            "scores": {
                "dcr": {"score": -0.3, "percentile": 12.0},
                "domias": {"score": 0.4, "percentile": 55.0},
            },
        },
    ]
    png = plots.record_exposure(records)
    assert png.startswith(b"\x89PNG") and len(png) > 1000
    assert plots.record_exposure([]).startswith(b"\x89PNG")
