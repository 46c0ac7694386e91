"""The utility section (stage ``utility``), with the privacy-utility plot."""

from __future__ import annotations

from synthleak.references import cite
from synthleak.report import plots
from synthleak.report.blocks import Figure, Paragraph, Section, TableBlock, fmt, span
from synthleak.results import AuditResult


def _interval(ci: tuple[float, float], digits: int = 4) -> str:
    return span(ci[0], ci[1], digits)


def section(result: AuditResult) -> Section | None:
    if result.utility is None and not result.privacy_utility:
        return None
    sec = Section("Utility", "utility")
    if result.utility is not None:
        u = result.utility
        conf = f"{round(100 * u.confidence)}%"
        every = u.marginal_space and u.n_marginals >= u.marginal_space
        sec.blocks.append(
            Paragraph(
                "How well the synthetic data keeps the statistics of the original "
                f"({cite('annamalai2024linear', 'Sec. 5.3')}): MRE>10 is the mean relative error "
                "of 3-way marginal counts above 10, 3-TVD the average total variation distance "
                "of 3-way marginals. Lower is better for both. "
                + (
                    "This result was written without intervals (an older synthleak)."
                    if not u.marginal_space
                    else f"Both are averaged over all {u.n_marginals} 3-way marginals, so they "
                    "hold no sampling of marginals and their interval is the figure itself."
                    if every
                    else f"Both are averaged over {u.n_marginals} random 3-way marginals of the "
                    f"{u.marginal_space} possible; the {conf} interval (bootstrap over the "
                    f"marginals, {u.n_boot} replicates) is where the figure over all of them "
                    "lies."
                )
            )
        )
        if u.has_reference:
            smaller = (
                f" The control set has fewer records ({u.n_reference}) than the release "
                f"({u.n_synthetic}), so the reference is somewhat pessimistic: a perfect release "
                f"of {u.n_synthetic} new people would score a little lower."
                if u.n_reference < u.n_synthetic
                else ""
            )
            sec.blocks.append(
                Paragraph(
                    f"Reference: the same measures, on the same marginals, between the original "
                    f"and {u.n_reference} records of the control set, real people the generator "
                    "never saw. That is what a perfect release of new people from the same "
                    "population scores: sampling alone keeps it above 0. A release near the "
                    "reference keeps the statistics about as well as new real data would; one "
                    "well below it (closer to the original than new data) fits its training "
                    "records more closely than a sample of the population does, a sign of "
                    "memorisation to weigh with the privacy findings. The intervals cover the "
                    "choice of marginals, not the sampling of records, so they do not test "
                    f"whether the release differs from the reference.{smaller}"
                )
            )
        else:
            sec.blocks.append(
                Paragraph(
                    "Reference: not measured (it needs a control set of real records the "
                    "generator never saw), so these figures cannot be compared with what a "
                    "perfect release of new people would score."
                )
            )
        rows: list[tuple[str, ...]] = [
            (
                "MRE>10",
                fmt(u.mre_gt10, 4),
                _interval(u.mre_ci),
                fmt(u.reference_mre_gt10, 4) if u.has_reference else "not measured",
                _interval(u.reference_mre_ci) if u.has_reference else "",
            ),
            (
                "3-TVD",
                fmt(u.tvd3, 4),
                _interval(u.tvd3_ci),
                fmt(u.reference_tvd3, 4) if u.has_reference else "not measured",
                _interval(u.reference_tvd3_ci) if u.has_reference else "",
            ),
        ]
        sec.blocks.append(
            TableBlock(
                ("measure", "release", f"{conf} CI", "reference (control)", f"{conf} CI"),
                tuple(rows),
                "Release: the synthetic data against the original. Reference: real people the "
                "generator never saw against the original, on the same marginals.",
            )
        )
    if result.privacy_utility:
        own = result.utility
        release = None if own is None else (own.mre_gt10, own.tvd3)
        sec.blocks.append(
            Figure(
                "privacy_utility",
                plots.privacy_utility(result.privacy_utility, release),
                _privacy_utility_caption(result),
            )
        )
    return sec


def _privacy_utility_caption(result: AuditResult) -> str:
    """What each point of the privacy-utility plot is, and how it relates to the release."""
    cited = cite("annamalai2024linear", "Fig. 5")
    a = result.attribute
    if a is not None and "train_size" in a.config:
        n = int(a.config["train_size"])
        points = (
            "Each point is one synthetic size m of the attribute-inference game: releases of m "
            f"records generated by '{result.config.generator}' from {n} random records of the "
            "original, their best attack's accuracy against their utility, averaged over the "
            f"game's {a.config.get('n_games', 'played')} games"
        )
    else:
        points = "Each point is labelled with what it measures"
    if result.utility is None:
        release = (
            "The release's own utility was not measured, so it is not on the plot: the points "
            "are not the release."
        )
    else:
        u = result.utility
        release = (
            "The dashed lines mark the release's own utility, the figures of the table above "
            f"(MRE>10 {fmt(u.mre_gt10, 4)}, 3-TVD {fmt(u.tvd3, 4)}); the points are other "
            "datasets, so their utility differs from it."
        )
    return f"Privacy against utility (as {cited}). {points}. {release}"
