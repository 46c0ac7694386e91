"""From game results to findings: one headline figure per attack family, without winner's curse.

A game measures many figures (every target x attack of a membership game); the audit's finding
reports the strongest one. Picking the maximum of noisy estimates and quoting its own interval
over-states the risk (the winner's curse) and raises false alarms on releases that leak nothing.
So the strongest pair is **selected on one half of the trials and measured on the other half**:
the reported interval is an honest interval for the selected attack.

References
----------
Meeus et al. (2023), Sec. 2.3 (membership game); Ward et al. (2025) (report the strongest of
several attacks); Annamalai et al. (2024b) and Jagielski et al. (2020) (selection and evaluation
on disjoint trials).
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from synthleak.data.schema import Schema
from synthleak.errors import BaselineWarning, InputError
from synthleak.games.membership import MembershipResult
from synthleak.games.riskmap import RiskMapResult
from synthleak.metrics.privacy import RiskEstimate, auc, auc_estimate
from synthleak.results import (
    AuditConfig,
    AuditResult,
    Finding,
    MetricKind,
    StageRecord,
    StageStatus,
    assess,
)
from synthleak.threat import AdversaryGoal, GeneratorAccess, ThreatModel

NAN = math.nan


def membership_threat(result: MembershipResult) -> ThreatModel:
    """The threat model of the black-box membership game."""
    cfg = result.config
    return ThreatModel(
        AdversaryGoal.MEMBERSHIP,
        GeneratorAccess.BLACK_BOX,
        f"the target record, and {cfg.aux_size} auxiliary records from the same population to "
        f"train shadow models on datasets of {cfg.train_size} records",
        {
            "train_size": cfg.train_size,
            "n_shadows": cfg.n_shadows,
            "n_tests": cfg.n_tests,
            "generator": cfg.generator,
        },
    )


def membership_finding(
    result: MembershipResult, *, rng: np.random.Generator, confidence: float = 0.95
) -> Finding:
    """The most exposed (target, attack) pair, selected and measured on disjoint test datasets.

    The test datasets of every target are split in half at random; the pair with the highest AUC
    on the selection half is reported with its AUC and bootstrap interval on the evaluation half.
    """
    threat = membership_threat(result)
    best: tuple[float, int, str, np.ndarray] | None = None
    for t_idx, t in enumerate(result.targets):
        for name, o in t.attacks.items():
            if o.error or o.labels.size < 8:
                continue
            perm = np.random.default_rng([int(rng.integers(2**32)), t_idx]).permutation(
                o.labels.size
            )
            sel, ev = perm[: perm.size // 2], perm[perm.size // 2 :]
            y = o.labels.astype(bool)
            if y[sel].all() or not y[sel].any() or y[ev].all() or not y[ev].any():
                continue
            a_sel = auc(y[sel], o.scores[sel])
            if best is None or a_sel > best[0]:
                best = (a_sel, t_idx, name, ev)
    if best is None:
        nan_est = RiskEstimate(NAN, NAN, NAN, confidence, 0, 0.5)
        return Finding(
            "membership.black_box",
            "Membership inference with shadow models",
            MetricKind.AUC,
            nan_est,
            threat,
            {"not_measured": "too few test datasets with both members and non-members"},
        )
    a_sel, t_idx, name, ev = best
    target = result.targets[t_idx]
    o = target.attacks[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", BaselineWarning)
        est = auc_estimate(o.labels[ev].astype(bool), o.scores[ev], rng=rng, confidence=confidence)
    return Finding(
        "membership.black_box",
        f"Membership inference with shadow models: most exposed record (row {target.row}), "
        f"attack '{name}'",
        MetricKind.AUC,
        est,
        threat,
        {
            "row": target.row,
            "attack": name,
            "selected_by": target.selected_by,
            "auc_on_selection_half": a_sel,
            "auc_all_tests": o.auc.value,
            "n_selection": int(o.labels.size - ev.size),
            "n_evaluation": int(ev.size),
            "n_targets": len(result.targets),
            "n_attacks": len(result.config.attacks),
        },
        where=(f"row {target.row} of the data (selected by {target.selected_by})",),
    )


def riskmap_finding(
    result: RiskMapResult, *, rng: np.random.Generator, confidence: float = 0.95
) -> Finding:
    """The most exposed record of a risk map.

    A risk map keeps per-record AUCs, not trial scores, so the selection cannot be split; the
    interval is Bonferroni-adjusted instead: the record with the highest lower bound at level
    ``1 - (1 - confidence) / n_records`` (simultaneous over all records).
    """
    best = result.best()
    threat = ThreatModel(
        AdversaryGoal.MEMBERSHIP,
        GeneratorAccess.BLACK_BOX,
        "the target record and records of the same population to train shadow models on",
        {"train_size": result.config.train_size, "n_shadows": result.config.n_shadows},
    )
    ok = ~np.isnan(best[:, 0])
    if not ok.any():
        return Finding(
            "membership.riskmap",
            "Membership risk map",
            MetricKind.AUC,
            RiskEstimate(NAN, NAN, NAN, confidence, 0, 0.5),
            threat,
            {"not_measured": "no record had an AUC"},
        )
    n = int(ok.sum())
    # widen each interval from its stated level to the simultaneous level (normal approximation)
    from statistics import NormalDist

    z95 = NormalDist().inv_cdf(0.975)
    z_sim = NormalDist().inv_cdf(1 - (1 - confidence) / (2 * n))
    lo = best[:, 0] - (best[:, 0] - best[:, 1]) * z_sim / z95
    hi = best[:, 0] + (best[:, 2] - best[:, 0]) * z_sim / z95
    i = int(np.nanargmax(np.where(ok, lo, -np.inf)))
    row = int(result.rows[i])
    return Finding(
        "membership.riskmap",
        f"Membership risk map: most exposed record (row {row})",
        MetricKind.AUC,
        RiskEstimate(
            float(best[i, 0]),
            float(max(lo[i], 0.0)),
            float(min(hi[i], 1.0)),
            confidence,
            result.config.n_tests,
            0.5,
        ),
        threat,
        {"row": row, "n_records": n, "interval": "Bonferroni-simultaneous over all records"},
        where=(f"row {row} of the data",),
    )


def audit_result_from(
    result: MembershipResult | RiskMapResult,
    *,
    schema: Schema,
    source: str,
    command_line: str,
    seed: int = 0,
) -> AuditResult:
    """An :class:`AuditResult` holding one game's result (``synthleak report RUN_DIR``)."""
    from synthleak.pipeline import BUDGETS, Budget, _versions
    from synthleak.runtime import stream_rng

    rng = stream_rng(seed, "report.findings")
    if isinstance(result, MembershipResult):
        finding = membership_finding(result, rng=rng)
        sections: dict[str, object] = {"membership": result}
        generator, n = result.config.generator, result.config.n_records
    elif isinstance(result, RiskMapResult):
        finding = riskmap_finding(result, rng=rng)
        sections = {"riskmap": result}
        generator, n = result.config.generator, result.config.n_records
    else:
        raise InputError(
            f"a {type(result).__name__} cannot be turned into a report: give the run directory "
            "of 'synthleak mia', 'riskmap' or 'audit'"
        )
    config = AuditConfig(
        original=source,
        synthetic=None,
        control=None,
        generator=generator,
        secret=None,
        quasi_ids=(),
        budget="custom",
        plan=BUDGETS[Budget.STANDARD],
        seed=int(result.config.seed),
        confidence=0.95,
        command_line=command_line,
        versions=_versions(),
        created="",
        n_original=int(n),
        n_synthetic=0,
        n_control=0,
    )
    stage = StageRecord(
        "membership" if "membership" in sections else "riskmap",
        "Membership inference with shadow models",
        StageStatus.MEASURED,
    )
    return AuditResult(
        config=config,
        schema=schema,
        stages=(stage,),
        findings=assess([finding]),
        **sections,  # type: ignore[arg-type]
    )
