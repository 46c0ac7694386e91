"""Report figures (matplotlib, Agg backend), returned as PNG bytes for inline embedding."""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

_DPI = 110

Floats = Sequence[float] | np.ndarray
"""One number per record: a sequence of floats or a 1-d numpy array."""


def _png(fig: Any) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=_DPI, bbox_inches="tight")
    plt.close(fig)
    return buf.getvalue()


def _legend_outside(ax: Any, fontsize: float | None = None) -> None:
    """The legend to the right of the axes, so that it never covers a curve or a bar."""
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False, fontsize=fontsize)


def vulnerability_distribution(scores: Floats, top_scores: Floats) -> bytes:
    """Histogram of vulnerability scores, the top records marked in red."""
    fig, ax = plt.subplots(figsize=(7, 3.2))
    s = np.asarray(scores, dtype=float)
    s = s[np.isfinite(s)]
    ax.hist(s, bins=60, color="#8aa4c8", edgecolor="white")
    for i, t in enumerate(top_scores):
        ax.axvline(t, color="#c0392b", lw=1, alpha=0.8, label="top records" if i == 0 else None)
    ax.set_xlabel("vulnerability score (mean distance to the k nearest records)")
    ax.set_ylabel("records")
    if len(top_scores):
        _legend_outside(ax)
    ax.spines[["top", "right"]].set_visible(False)
    return _png(fig)


def roc_curves(curves: Sequence[tuple[str, Any, Any, float]], title: str) -> bytes:
    """ROC curves ``(label, fpr, tpr, auc)``, false-positive rate on a log scale."""
    fig, ax = plt.subplots(figsize=(5.2, 4.2))
    floor = 1e-3
    for label, fpr_, tpr_, auc_ in curves:
        fpr = np.maximum(np.asarray(fpr_, dtype=float), floor)
        tpr = np.asarray(tpr_, dtype=float)
        ax.step(fpr, tpr, where="post", lw=1.2, label=f"{label} (AUC {auc_:.2f})")
    grid = np.logspace(np.log10(floor), 0, 50)
    ax.plot(grid, grid, "k--", lw=0.8, label="random guess")
    ax.set_xscale("log")
    ax.set_xlim(floor, 1)
    ax.set_ylim(0, 1.01)
    ax.set_xlabel("false positive rate (log scale)")
    ax.set_ylabel("true positive rate")
    ax.set_title(title)
    _legend_outside(ax, fontsize=7)
    return _png(fig)


def auc_boxplots(rows: Sequence[tuple[str, str, float]]) -> bytes:
    """AUC per selection method and attack, from ``(selected_by, attack, auc)`` rows (as Fig. 1
    of Meeus et al. (2023))."""
    attacks = sorted({a for _, a, _ in rows})
    methods = sorted({m for m, _, _ in rows})
    fig, ax = plt.subplots(figsize=(max(5, 1.6 * len(methods) * max(1, len(attacks))), 3.6))
    data, labels, colours = [], [], []
    palette = ["#2e86de", "#e67e22", "#27ae60", "#8e44ad", "#c0392b"]
    for m in methods:
        for ai, a in enumerate(attacks):
            vals = [v for mm, aa, v in rows if mm == m and aa == a and np.isfinite(v)]
            data.append(vals if vals else [np.nan])
            labels.append(f"{m}\n{a}")
            colours.append(palette[ai % len(palette)])
    bp = ax.boxplot(data, patch_artist=True, showfliers=True)
    for patch, c in zip(bp["boxes"], colours, strict=True):
        patch.set_facecolor(c)
        patch.set_alpha(0.55)
    ax.set_xticks(range(1, len(labels) + 1), labels, fontsize=8)
    ax.axhline(0.5, color="k", ls="--", lw=0.8)
    ax.set_ylabel("membership AUC")
    ax.set_ylim(0.3, 1.02)
    ax.spines[["top", "right"]].set_visible(False)
    return _png(fig)


def privacy_utility(
    points: Sequence[Any], release: tuple[float | None, float | None] | None = None
) -> bytes:
    """Privacy against utility (as Fig. 5 of Annamalai et al. (2024a)), one panel per metric.

    ``points`` are labelled as given; ``release`` (MRE > 10, 3-way TVD), when given, marks the
    release's own utility on each panel as a dashed vertical line labelled as such, so that
    points measured on other datasets are not read as the release.
    """
    fig, axes = plt.subplots(1, 2, figsize=(8, 3.4), sharey=True)
    for i, (ax, key, name) in enumerate(
        zip(
            axes,
            ("mre_gt10", "tvd3"),
            ("MRE > 10 (lower is better)", "3-way TVD (lower is better)"),
            strict=True,
        )
    ):
        for p in points:
            x, y = getattr(p, key), p.privacy
            if x is None or y is None:
                continue
            ax.scatter(x, y, s=40)
            ax.annotate(
                str(p.label),
                (x, y),
                fontsize=7,
                xytext=(3, 3),
                textcoords="offset points",
            )
        x_release = None if release is None else release[i]
        if x_release is not None and np.isfinite(x_release):
            ax.axvline(x_release, color="k", ls="--", lw=0.9, label="the release (table above)")
        ax.set_xlabel(name)
        ax.spines[["top", "right"]].set_visible(False)
    if release is not None and any(x is not None and np.isfinite(x) for x in release):
        _legend_outside(axes[1], fontsize=7)
    metric = points[0].privacy_metric if points else "attack success"
    axes[0].set_ylabel(metric)
    return _png(fig)


def auc_distribution(aucs: Floats) -> bytes:
    """Histogram of per-record membership AUCs (risk map)."""
    fig, ax = plt.subplots(figsize=(6.5, 3.2))
    a = np.asarray([x for x in aucs if x is not None], dtype=float)
    ax.hist(a[np.isfinite(a)], bins=40, color="#8aa4c8", edgecolor="white")
    ax.axvline(0.5, color="k", ls="--", lw=0.8, label="coin flip")
    ax.set_xlabel("membership AUC of the record")
    ax.set_ylabel("records")
    _legend_outside(ax)
    ax.spines[["top", "right"]].set_visible(False)
    return _png(fig)


def auc_vs_score(aucs: Floats, scores: Floats, label: str) -> bytes:
    """Per-record AUC against a vulnerability score (risk map)."""
    fig, ax = plt.subplots(figsize=(5.2, 4.0))
    ax.scatter(
        np.asarray(scores, dtype=float),
        np.asarray(aucs, dtype=float),
        s=8,
        alpha=0.6,
        color="#2e86de",
    )
    ax.axhline(0.5, color="k", ls="--", lw=0.8)
    ax.set_xlabel(label)
    ax.set_ylabel("membership AUC of the record")
    ax.spines[["top", "right"]].set_visible(False)
    return _png(fig)


def record_exposure(records: Sequence[dict[str, Any]]) -> bytes:
    """Per-record no-box exposure: each attack's score as a percentile of the non-member scores.

    ``records`` is the ``"records"`` list of the no-box membership JSON
    (``NoBoxMembershipResult.summary()``): one row per record (row number, ``V_k``, why it is
    shown), one column per attack; 100 means the record outscores every real non-member.
    """
    attacks = sorted({a for r in records for a in r["scores"]})
    if not records or not attacks:
        fig, ax = plt.subplots(figsize=(5, 1.2))
        ax.text(0.5, 0.5, "no record was scored", ha="center", va="center")
        ax.set_axis_off()
        return _png(fig)
    grid = np.full((len(records), len(attacks)), np.nan)
    for i, r in enumerate(records):
        for j, a in enumerate(attacks):
            if a in r["scores"] and r["scores"][a].get("percentile") is not None:
                grid[i, j] = float(r["scores"][a]["percentile"])
    fig, ax = plt.subplots(figsize=(1.2 + 1.1 * max(len(attacks), 1), 0.9 + 0.32 * len(records)))
    im = ax.imshow(grid, cmap="RdYlBu_r", vmin=0, vmax=100, aspect="auto")
    for i in range(grid.shape[0]):
        for j in range(grid.shape[1]):
            if np.isfinite(grid[i, j]):
                ax.text(j, i, f"{grid[i, j]:.0f}", ha="center", va="center", fontsize=7)
    ax.set_xticks(range(len(attacks)), attacks, rotation=30, ha="right")
    labels = []
    for r in records:
        v = r.get("v_k")
        vk = f", V_k {v:.3f}" if isinstance(v, int | float) and np.isfinite(v) else ""
        labels.append(f"row {r['row']}{vk}")
    ax.set_yticks(range(len(records)), labels, fontsize=7)
    fig.colorbar(im, ax=ax, label="percentile among non-members")
    ax.set_title("membership score of each record against real non-members", fontsize=9)
    return _png(fig)
