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
        plots.privacy_utility(sample_result.privacy_utility, (0.233, 0.08)),
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


def test_legends_sit_beside_the_axes_not_on_the_curves(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A strong attack's ROC curve and the random-guess line run through every corner of a
    log-scale plot: the legend goes outside the axes, where it covers nothing."""
    import numpy as np

    figures = []
    real = plots._png

    def keep(fig):  # type: ignore[no-untyped-def]
        fig.canvas.draw()
        figures.append(
            [
                (ax.get_window_extent(), ax.get_legend().get_window_extent())
                for ax in fig.axes
                if ax.get_legend() is not None
            ]
        )
        return real(fig)

    monkeypatch.setattr(plots, "_png", keep)
    grid = np.linspace(0, 1, 50)
    plots.roc_curves([("row 1", grid, np.sqrt(grid), 0.8), ("row 2", grid, grid, 0.5)], "t")
    plots.vulnerability_distribution(np.random.default_rng(0).random(500), [0.9, 0.95])
    plots.auc_distribution([0.5, 0.6, 0.7])
    assert len(figures) == 3 and all(len(f) == 1 for f in figures)
    for ((axes, legend),) in figures:
        assert legend.x0 >= axes.x1  # entirely to the right of the plotting area
