"""The membership sections: the shadow-model game per target (stage ``membership``), with
the two-stage screen that picks its targets, the risk map of every record and the empirical
epsilon.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from synthleak.findings import BlackBoxDetails, NoBoxDetails, RiskMapDetails
from synthleak.games.cost import format_seconds
from synthleak.harm import FindingKey
from synthleak.metrics.privacy import TprAtFpr
from synthleak.references import cite
from synthleak.report import plots
from synthleak.report.blocks import (
    Figure,
    Paragraph,
    Section,
    TableBlock,
    attack_table,
    finding,
    finite,
    fmt,
    span,
)
from synthleak.results import AuditResult
from synthleak.verdicts import Finding, at_least_sentence


def headline_note(result: AuditResult, f: Finding) -> str:
    """Why a finding's figure differs from the figure of the same attack in its section's
    table, or "" when they are the same number.

    The membership findings report the strongest attack measured on the trials that did not
    choose it (no winner's curse); the tables show every attack on all trials.
    """
    if f.key == FindingKey.MEMBERSHIP_BLACK_BOX:
        d = BlackBoxDetails.of(f)
        if finite(d.auc_all_tests):
            n_sel, n_ev = d.n_selection, d.n_evaluation
            return (
                f"The per-target table shows AUC {d.auc_all_tests:.3f} for this record and "
                f"attack: that is measured on all {n_sel + n_ev} test datasets, including the "
                f"{n_sel} used to pick this pair as the most exposed, so it is biased upwards; "
                f"the figure here ({f.estimate.value:.3f}) uses only the other {n_ev}."
            )
    nb = result.nobox
    if f.key == FindingKey.MEMBERSHIP_NOBOX and nb is not None:
        nd = NoBoxDetails.of(f)
        o = nb.attacks.get(str(nd.attack))
        split = nd.selected_on is not None and nd.evaluated_on is not None
        if o is not None and finite(o.auc.value) and split:
            return (
                f"The attack table of 'Membership inference without the generator' shows AUC "
                f"{o.auc.value:.3f} for '{nd.attack}': that is measured on all scored "
                f"records, including the {nd.selected_on} used to pick it as the "
                f"strongest, so it is biased upwards; the figure here ({f.estimate.value:.3f}) "
                f"uses only the other {nd.evaluated_on}."
            )
    rm = result.riskmap
    if f.key == FindingKey.MEMBERSHIP_RISKMAP and rm is not None:
        rd = RiskMapDetails.of(f)
        idx = np.flatnonzero(rm.rows == rd.row) if rd.row is not None else np.empty(0)
        if idx.size:
            b = rm.best()[int(idx[0])]
            return (
                f"The risk map's table shows this record's own interval ({fmt(float(b[1]))} – "
                f"{fmt(float(b[2]))}); the interval here is widened to hold for all "
                f"{rd.n_records} records at once, since it was picked as the highest."
            )
    return ""


def game_size_sentence(result: AuditResult) -> str:
    """The shadow-model game's training size against the release's, and the direction of the
    bias when they differ ("" when not recorded)."""
    b = result.budget
    if b is None or not b.train_size or not b.release_train_size:
        return ""
    if b.train_size >= b.release_train_size:
        return (
            f"Measured on datasets of {b.train_size:,} records, as many as the release was "
            "trained on."
        )
    return (
        f"Measured at {b.train_size:,} records, fewer than the release's "
        f"{b.release_train_size:,}: smaller training sets leak more, so this figure may "
        "overstate the release's risk."
    )


def _rank(r: int) -> str:
    return str(r) if r > 0 else "not screened"


#: What the screen's ranking is worth, measured on ground-truth risk maps
#: (benchmarks/RESULTS_selectors.md).
_SCREEN_EVIDENCE = (
    "On ground-truth risk maps (every record attacked through the generator) of data and "
    "generators it was not chosen on, the records it picked reached 0.958 of the true ten "
    "riskiest records' mean membership AUC on four maps (against 0.895 for V_k) and 0.940 on "
    "four others; a screen with a second pool, at twice the generator runs, did no better "
    "(0.965 and 0.941)."
)


def _took(seconds: float, resumed: bool) -> str:
    """A part's wall time; with ``resumed``, said to be that of every run together."""
    if not math.isfinite(seconds):
        return "a time not recorded"
    if resumed:
        return (
            f"{format_seconds(seconds)} (this run's and an earlier run's together: the work the "
            "earlier run finished was kept from it and read back)"
        )
    return format_seconds(seconds)


def screening_blocks(sc: Any, seconds: float, *, resumed: bool = False) -> list[Any]:
    """The two-stage screen's ranking beside ``V_k``'s: which records each ranks first."""
    cited = cite("meeus2023", "Sec. 4 and 5.1")
    pool = f"{sc.n_shadows} shadow and {sc.n_tests} test datasets"
    if sc.second_pool:
        how = (
            f"{pool} shared by every record, {sc.first_queries} counting queries per record "
            f"({cited}); the {sc.second_pool} it ranked riskiest were attacked again, "
            f"with {sc.n_queries} queries, on a second pool of {pool}, and are ranked by the "
            "mean of their two AUCs"
        )
    else:
        how = f"{pool} shared by every record, {sc.n_queries} counting queries per record ({cited})"
    blocks: list[Any] = [
        Paragraph(
            f"Two-stage ranking: the {sc.n_screened} rarest of the {sc.n_candidates} training "
            "records (by how rarely their values occur together in pairs of columns) were "
            f"attacked cheaply through generator '{sc.generator}': {how}, in "
            f"{_took(seconds, resumed)}. The membership game below attacks the records this "
            f"screen ranks riskiest. {_SCREEN_EVIDENCE} Screened AUCs come from few datasets: "
            "they rank records, they are not risk figures."
        )
    ]
    n = max(len(sc.top), len(sc.vk_top))
    body = []
    for i in range(n):
        a = sc.top[i] if i < len(sc.top) else None
        b = sc.vk_top[i] if i < len(sc.vk_top) else None
        body.append(
            (
                str(i + 1),
                str(a.row) if a else "",
                f"{fmt(a.auc)} ({span(a.ci_low, a.ci_high)})" if a else "",
                str(a.vk_rank) if a else "",
                (", ".join(a.rare_columns) or "(the combination)") if a else "",
                str(b.row) if b else "",
                fmt(b.auc) if b and b.screen_rank else "",
                _rank(b.screen_rank) if b else "",
            )
        )
    blocks.append(
        TableBlock(
            (
                "rank",
                "screen: row",
                "screened AUC (95% CI)",
                "its V_k rank",
                "stands out in",
                "V_k: row",
                "screened AUC",
                "its screen rank",
            ),
            tuple(body),
            "The records the screen ranks riskiest beside those V_k ranks most isolated, each "
            "with its rank by the other, and the columns where the screen's record has a value "
            "shared by less than 1% of the records (records the rarity prefilter did not keep "
            "were not screened).",
        )
    )
    return blocks


def _screen_budget(result: AuditResult) -> str:
    b, plan = result.budget, result.config.sizes
    if b is None or result.screening is None:
        return ""
    fewer = ""
    if plan.screened_shadows and plan.screened_shadows < plan.shadows:
        fewer = (
            f"; the game then trains on {plan.screened_shadows} rather than {plan.shadows} "
            "shadow datasets, so that screen and game together take about the time of the "
            "budget's game alone"
        )
    took = _took(b.screen_seconds, "screen" in b.resumed)
    return f" The two-stage screen took {took} before it{fewer}."


_SELECTED = {
    "screen": "the records the two-stage screen ranks riskiest (see Records at risk)",
    "distance": "the most vulnerable records by V_k",
    "rare": "the records with the rarest values",
    "loglik": "the records with the lowest log-likelihood under the columns' marginals",
}


def _targets_sentence(result: AuditResult) -> str:
    chosen = _SELECTED.get(result.config.selector, result.config.selector)
    return f"Targets are {chosen} and, as a control, randomly chosen ones."


def section(result: AuditResult) -> Section | None:
    mem = result.membership
    if mem is None or not mem.targets:
        return None
    sec = Section("Membership inference per target", "membership")
    cfg = mem.config
    sec.blocks.append(
        Paragraph(
            f"Black-box shadow modelling against generator '{cfg.generator}': {cfg.n_shadows} "
            f"shadow datasets and {cfg.n_tests} test datasets of {cfg.train_size} records, "
            f"releasing {cfg.synthetic_size} synthetic records "
            f"({cite('meeus2023', 'Sec. 2.3 and 4')}). {_targets_sentence(result)}"
        )
    )
    size = game_size_sentence(result)
    if size:
        sec.blocks.append(Paragraph(size, emphasis=size.startswith("Measured at")))
    if result.budget is not None:
        b = result.budget
        sec.blocks.append(
            Paragraph(
                f"Budget: {b.n_shadows} shadow and {b.n_tests} test datasets; projected "
                f"{format_seconds(b.projected_seconds)} from a measured pilot, took "
                f"{_took(b.measured_seconds, 'game' in b.resumed)}.{_screen_budget(result)} "
                "Power: "
                f"{b.power.sentence()}."
            )
        )
    head = finding(result, FindingKey.MEMBERSHIP_BLACK_BOX)
    hd = BlackBoxDetails.of(head) if head is not None else BlackBoxDetails()
    picked = (hd.row, hd.attack)
    if head is not None and picked[0] is not None:
        sec.blocks.append(
            Paragraph(
                f"The Findings' figure for this game is row {picked[0]}, attack '{picked[1]}' "
                "(marked * below). " + headline_note(result, head)
            )
        )
        at_least = hd.at_least
        if at_least:
            said = "; ".join(at_least_sentence(e) for e in reversed(at_least))
            sec.blocks.append(
                Paragraph(
                    f"How many records are exposed: {said}. Each target's attack is chosen on "
                    "half of its test datasets and tested on the other half; the targets are "
                    "tested in the order of their AUC on the first half, from the Findings' "
                    "record on, until the first that is not shown above the level, which keeps "
                    "the chance that any listed record is a false alarm below "
                    f"{100 - round(100 * at_least[0]['confidence'])}%."
                )
            )
        tprs = hd.tpr_at_fpr
        if tprs:
            sec.blocks.append(
                Paragraph(
                    "On the same held-out test datasets (the OUT ones are its non-members): "
                    + tpr_sentence({k: TprAtFpr.from_dict(v) for k, v in tprs.items()})
                )
            )
    rows = []
    for t in mem.targets:
        for a in cfg.attacks:
            o = t.attacks.get(a)
            if o is None:
                continue
            mark = "*" if (t.row, a) == picked else ""
            cells = (fmt(o.accuracy), *(_tpr_cell(o, k) for k in ("0.1", "0.01", "0.001")))
            rows.append(((f"{t.row}{mark}", t.selected_by, a), o.auc, cells))
    sec.blocks.append(
        attack_table(
            rows,
            lead=("row", "selected by", "attack"),
            tail=(
                "accuracy",
                "TPR@FPR 0.1 (95% CI)",
                "TPR@FPR 0.01 (95% CI)",
                "TPR@FPR 0.001 (95% CI)",
            ),
            caption=(
                "TPR at a false-positive rate: the share of IN test datasets caught when at most "
                "that share of OUT test datasets is wrongly flagged; its interval includes the "
                "uncertainty of the threshold. 'not resolvable': fewer OUT test datasets than "
                "1 / FPR."
            ),
        )
    )
    for a in cfg.attacks:
        curves = []
        for t in mem.targets:
            o = t.attacks.get(a)
            if o is not None and o.error is None and o.labels.size:
                roc = o.roc()
                curves.append((f"row {t.row}", roc.fpr, roc.tpr, o.auc.value))
        if curves:
            sec.blocks.append(
                Figure(
                    f"roc_{a}",
                    plots.roc_curves(curves, f"membership attack '{a}'"),
                    f"ROC curves of attack '{a}' per target.",
                )
            )
    sec.blocks.append(
        Figure(
            "auc_boxplots",
            plots.auc_boxplots(
                [(t.selected_by, a, o.auc.value) for t in mem.targets for a, o in t.attacks.items()]
            ),
            "Membership AUC per selection method and attack (as "
            f"{cite('meeus2023', 'Fig. 1')}); the dashed line is a coin flip.",
        )
    )
    return sec


def _tpr_cell(outcome: Any, key: str) -> str:
    """A per-target table's TPR at one FPR: value and interval, or why it has none."""
    t = outcome.tpr_intervals.get(key)
    if t is None:  # results written before the intervals
        return fmt(outcome.tpr_at_fpr.get(key))
    if t.value is None:
        return "not resolvable"
    return f"{fmt(t.value)} ({span(t.ci_low, t.ci_high)})"


def tpr_sentence(tprs: dict[str, TprAtFpr]) -> str:
    """Held-out TPR at each FPR with its interval, or why it could not be resolved."""
    parts = [
        f"at FPR {k}: {fmt(t.value)} (95% CI {span(t.ci_low, t.ci_high)}, "
        f"{t.n_non_members} non-members)"
        if t.value is not None
        else f"at FPR {k}: not resolvable at this size ({t.n_non_members} non-members)"
        for k, t in tprs.items()
    ]
    return ("True-positive rate " + "; ".join(parts) + ".") if parts else ""


def riskmap_section(result: AuditResult) -> Section | None:
    rm = result.riskmap
    if rm is None or not rm.rows.size:
        return None
    cfg = rm.config
    sec = Section("Membership risk map (every record)", "riskmap")
    sec.blocks.append(
        Paragraph(
            f"Every one of the {rm.rows.size} records of the private dataset was attacked with "
            f"shadow models of generator '{cfg.generator}' ({cfg.n_shadows} shadow and "
            f"{cfg.n_tests} test datasets; each record IN about half of them, after "
            f"{cite('carlini2022')}). Mean AUC {fmt(rm.auc_mean())} (s.d. {fmt(rm.auc_sd())})."
        )
    )
    best = rm.best()
    aucs = best[:, 0]
    sec.blocks.append(
        Figure("riskmap_auc", plots.auc_distribution(aucs), "Per-record membership AUC.")
    )
    if "vulnerability" in rm.scores:
        sec.blocks.append(
            Figure(
                "riskmap_auc_vs_vk",
                plots.auc_vs_score(aucs, rm.scores["vulnerability"], "vulnerability score V_k"),
                "Per-record AUC against the vulnerability score V_k "
                f"({cite('meeus2023', 'eq. 5')}).",
            )
        )
    val = rm.validation
    rows = []
    for key, name in (
        ("vulnerability", "V_k (distance)"),
        ("rare_value", "rare value"),
        ("log_likelihood", "log-likelihood"),
    ):
        agr = val.selectors.get(key)
        if agr:
            rows.append(
                (
                    name,
                    fmt(agr.spearman),
                    span(agr.spearman_ci[0], agr.spearman_ci[1]),
                    fmt(agr.precision_at_k),
                )
            )
    if rows:
        sec.blocks.append(
            TableBlock(
                ("score", "Spearman with AUC", "95% CI", f"precision of top-{val.top_k}"),
                tuple(rows),
                "How well each score predicts the measured risk (chance precision "
                f"{fmt(val.chance_precision)}).",
            )
        )
    order = np.argsort(-np.nan_to_num(aucs, nan=-1.0), kind="stable")[:10]
    vk = rm.scores.get("vulnerability")
    sec.blocks.append(
        TableBlock(
            ("row", "AUC", "95% CI", "V_k"),
            tuple(
                (
                    str(int(rm.rows[i])),
                    fmt(float(best[i, 0])),
                    span(float(best[i, 1]), float(best[i, 2])),
                    fmt(float(vk[i]) if vk is not None else None, 4),
                )
                for i in order
            ),
            "The ten records with the highest measured membership AUC.",
        )
    )
    return sec


def epsilon_section(result: AuditResult) -> Section | None:
    e = result.epsilon
    if e is None:
        return None
    sec = Section("Differential privacy: empirical epsilon", "epsilon")
    sec.blocks.append(
        Paragraph(
            "The membership attacks give a lower bound on the epsilon of any differential-privacy "
            "guarantee the generator could have: it cannot be more private than the attacks "
            f"show ({cite('jagielski2020')}; {cite('annamalai2024auditing')}). "
            + (
                f"The bound comes from a rule fixed before any test dataset was seen ({e.attack}: "
                "a release holding a combination of the target's values that no other training "
                "record holds is called IN), tested on every test dataset with Clopper-Pearson "
                "intervals; its error is shared with the attack chosen on half of them."
                if e.fixed_rule
                else "The attack and its threshold were chosen on half of the test datasets and "
                "the bound computed on the other half, with Clopper-Pearson intervals."
            )
        )
    )
    sec.blocks.append(
        TableBlock(
            ("figure", "value"),
            (
                ("epsilon lower bound", f"{fmt(e.lower_bound)} ({e.confidence:.0%} confidence)"),
                ("largest epsilon this budget can show", fmt(e.ceiling)),
                ("claimed epsilon", fmt(e.claimed)),
                ("verdict", e.verdict.value if hasattr(e.verdict, "value") else str(e.verdict)),
                ("Gaussian-DP mu", f"{fmt(e.mu)} ({span(e.mu_ci[0], e.mu_ci[1])})"),
                ("delta", f"{e.delta:g}"),
            ),
        )
    )
    sec.blocks.append(Paragraph(e.message))
    return sec


#: The membership stage's sections, in reading order (the risk map, written by ``synthleak
#: riskmap``, reads beside the game it summarises).
SECTIONS = (section, riskmap_section, epsilon_section)
