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
from dataclasses import asdict, dataclass, field, fields
from typing import TYPE_CHECKING, Any, Self

import numpy as np

from synthleak.attacks.base import AttackFamily, attack_info
from synthleak.data.schema import Schema
from synthleak.errors import BaselineWarning, InputError
from synthleak.games.membership import MembershipResult
from synthleak.games.nobox import NoBoxMembershipResult
from synthleak.games.riskmap import RiskMapResult
from synthleak.harm import FindingKey
from synthleak.metrics.epsilon import EpsilonEstimate
from synthleak.metrics.privacy import (
    RiskEstimate,
    auc,
    auc_above_p,
    auc_estimate,
    tpr_estimates,
)
from synthleak.modes import Budget, Knowledge, Neighbouring
from synthleak.results import (
    BUDGETS,
    CUSTOM_BUDGET,
    AuditConfig,
    AuditResult,
    StageRecord,
    StageStatus,
    package_versions,
)
from synthleak.runtime.seeding import stream, stream_key
from synthleak.threat import ThreatModel, threat_model
from synthleak.verdicts import Finding, MetricKind, assess

_FINDINGS = stream("report/findings", key=stream_key("report.findings"))

if TYPE_CHECKING:
    from synthleak.policy import Metric

NAN = math.nan


def membership_threat(result: MembershipResult) -> ThreatModel:
    """The threat model of the black-box membership game (its attacker's knowledge)."""
    cfg = result.config
    return threat_model(
        AttackFamily.MEMBERSHIP,
        "membership_exact" if cfg.knowledge is Knowledge.EXACT else "membership",
        {
            "train_size": cfg.train_size,
            "n_shadows": cfg.n_shadows,
            "n_tests": cfg.n_tests,
            "generator": cfg.generator,
        },
        aux_size=cfg.aux_size,
        train_size=cfg.train_size,
    )


#: AUC levels of the "at least k records" statement: exposed at all, and severely.
EXPOSURE_LEVELS = (0.5, 0.8)


def _best_per_target(
    result: MembershipResult, rng: np.random.Generator
) -> list[tuple[int, float, str, np.ndarray]]:
    """Per target with enough test datasets: its index, the attack with the highest AUC on the
    selection half, that AUC, and the evaluation half. Each target's test datasets are split in
    half at random once; the split serves every attack, the headline and the count."""
    seed = int(rng.integers(2**32))
    out: list[tuple[int, float, str, np.ndarray]] = []
    for t_idx, t in enumerate(result.targets):
        best: tuple[int, float, str, np.ndarray] | None = None
        perm: np.ndarray | None = None
        for name, o in t.attacks.items():
            if o.error or o.labels.size < 8:
                continue
            if perm is None:
                perm = np.random.default_rng([seed, t_idx]).permutation(o.labels.size)
            if o.labels.size != perm.size:
                continue
            sel, ev = perm[: perm.size // 2], perm[perm.size // 2 :]
            y = o.labels.astype(bool)
            if y[sel].all() or not y[sel].any() or y[ev].all() or not y[ev].any():
                continue
            a_sel = auc(y[sel], o.scores[sel])
            if best is None or a_sel > best[1]:
                best = (t_idx, a_sel, name, ev)
        if best is not None:
            out.append(best)
    return out


def records_above(
    result: MembershipResult,
    *,
    rng: np.random.Generator,
    levels: tuple[float, ...] = EXPOSURE_LEVELS,
    alpha: float = 0.05,
) -> list[dict[str, object]]:
    """How many of the game's targets have a membership AUC above each level, with confidence.

    Each target's test datasets are split in half at random; the attack with the highest AUC
    on the first half is tested on the second ("its AUC is at most the level",
    :func:`~synthleak.metrics.privacy.auc_above_p`). The targets are tested in the order of
    that first-half AUC, highest first, each at ``alpha``, until the first that is not shown
    above the level (fixed-sequence testing: the order comes from data the tests do not use,
    so no correction is needed for the records before it). With probability at least
    ``1 - alpha`` every target listed has an AUC above the level, so "at least k of the n
    targets" holds at that confidence; the first target tested is the headline's record and
    attack (:func:`membership_finding`, on the same halves). The targets were chosen by the
    screen before the game drew its test datasets. Returns one entry per level: ``level``,
    ``k``, ``n_targets``, ``n_tested`` (targets with both members and non-members in both
    halves), ``rows`` (the k records, rows of the original, in the order tested) and
    ``confidence``.
    """
    return _records_above(result, _best_per_target(result, rng), levels, alpha)


def _records_above(
    result: MembershipResult,
    best: list[tuple[int, float, str, np.ndarray]],
    levels: tuple[float, ...],
    alpha: float,
) -> list[dict[str, object]]:
    tested: list[tuple[int, dict[float, float]]] = []
    for t_idx, _, name, ev in sorted(best, key=lambda b: -b[1]):  # stable: ties by target
        t = result.targets[t_idx]
        o = t.attacks[name]
        y_ev, s_ev = o.labels[ev].astype(bool), o.scores[ev]
        tested.append((t.row, {lv: auc_above_p(y_ev, s_ev, lv) for lv in levels}))
    out: list[dict[str, object]] = []
    for lv in levels:
        rows: list[int] = []
        for row, p in tested:
            if not p[lv] < alpha:
                break
            rows.append(row)
        out.append(
            {
                "level": lv,
                "k": len(rows),
                "n_targets": len(result.targets),
                "n_tested": len(tested),
                "rows": rows,
                "confidence": 1 - alpha,
            }
        )
    return out


@dataclass(frozen=True)
class _Details:
    """The details of one kind of finding, typed: the field names are the keys ``Finding.details``
    holds (and the JSON records), written by :meth:`as_details` and read back by :meth:`of`; a
    key the finding lacks (one not measured holds only ``not_measured``) reads as its default."""

    def as_details(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def of(cls, f: Finding) -> Self:
        names = {x.name for x in fields(cls)}
        return cls(**{k: v for k, v in f.details.items() if k in names})


@dataclass(frozen=True)
class BlackBoxDetails(_Details):
    """Details of the shadow-model finding (:func:`membership_finding`): the most exposed
    target's row and attack, how it was selected, its AUC on all test datasets (biased upwards:
    the selection half chose it), the sizes of the two halves, its TPRs at low FPR and the
    count of records exposed at each level (:func:`records_above`)."""

    row: int | None = None
    attack: str | None = None
    selected_by: str = ""
    auc_on_selection_half: float = NAN
    auc_all_tests: float = NAN
    n_selection: int = 0
    n_evaluation: int = 0
    n_targets: int = 0
    n_attacks: int = 0
    tpr_at_fpr: dict[str, Any] = field(default_factory=dict)
    at_least: list[dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True)
class RiskMapDetails(_Details):
    """Details of the risk map's finding (:func:`riskmap_finding`): the most exposed record and
    the number of records its simultaneous interval holds for."""

    row: int | None = None
    n_records: int = 0
    interval: str = ""


@dataclass(frozen=True)
class NoBoxDetails(_Details):
    """Details of the no-box membership finding (the audit's ``membership_nobox`` stage): the
    strongest attack, its AUC on the selection records, and how many records chose it and how
    many measured it."""

    attack: str | None = None
    selection_auc: float = NAN
    selected_on: int | None = None
    evaluated_on: int | None = None


def finding_rng(result: MembershipResult | RiskMapResult) -> np.random.Generator:
    """The random stream of a game's finding (its selection split and bootstrap), keyed by the
    game's own seed: an audit and ``synthleak report`` of the game's run directory give the
    same figures."""
    return _FINDINGS.rng(int(result.config.seed))


def membership_finding(
    result: MembershipResult, *, rng: np.random.Generator, confidence: float = 0.95
) -> Finding:
    """The most exposed (target, attack) pair, selected and measured on disjoint test datasets.

    The test datasets of every target are split in half at random; the pair with the highest AUC
    on the selection half is reported with its AUC and bootstrap interval on the evaluation half,
    and :func:`records_above` counts the exposed records on the same halves.
    """
    threat = membership_threat(result)
    candidates = _best_per_target(result, rng)
    if not candidates:
        nan_est = RiskEstimate(NAN, NAN, NAN, confidence, 0, 0.5)
        return Finding(
            FindingKey.MEMBERSHIP_BLACK_BOX,
            "Membership inference with shadow models",
            MetricKind.AUC,
            nan_est,
            threat,
            {"not_measured": "too few test datasets with both members and non-members"},
        )
    t_idx, a_sel, name, ev = max(candidates, key=lambda b: b[1])  # the first of ties
    target = result.targets[t_idx]
    o = target.attacks[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", BaselineWarning)
        est = auc_estimate(o.labels[ev].astype(bool), o.scores[ev], rng=rng, confidence=confidence)
    # the headline's TPR at low FPR, on the same held-out test datasets as its AUC
    tprs = tpr_estimates(o.labels[ev].astype(bool), o.scores[ev])
    at_least = _records_above(result, candidates, EXPOSURE_LEVELS, 1 - confidence)
    return Finding(
        FindingKey.MEMBERSHIP_BLACK_BOX,
        f"Membership inference with shadow models: most exposed record (row {target.row}), "
        f"attack '{name}'",
        MetricKind.AUC,
        est,
        threat,
        BlackBoxDetails(
            row=target.row,
            attack=name,
            selected_by=target.selected_by,
            auc_on_selection_half=a_sel,
            auc_all_tests=o.auc.value,
            n_selection=int(o.labels.size - ev.size),
            n_evaluation=int(ev.size),
            n_targets=len(result.targets),
            n_attacks=len(result.config.attacks),
            tpr_at_fpr={k: t.to_dict() for k, t in tprs.items()},
            at_least=at_least,
        ).as_details(),
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
    threat = threat_model(
        AttackFamily.MEMBERSHIP,
        "riskmap",
        {"train_size": result.config.train_size, "n_shadows": result.config.n_shadows},
    )
    ok = ~np.isnan(best[:, 0])
    if not ok.any():
        return Finding(
            FindingKey.MEMBERSHIP_RISKMAP,
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
        FindingKey.MEMBERSHIP_RISKMAP,
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
        RiskMapDetails(row, n, "Bonferroni-simultaneous over all records").as_details(),
        where=(f"row {row} of the data",),
    )


def audit_result_from(
    result: MembershipResult | RiskMapResult,
    *,
    schema: Schema,
    source: str,
    command_line: str,
    epsilon: EpsilonEstimate | None = None,
) -> AuditResult:
    """An :class:`AuditResult` holding one game's result (``synthleak report RUN_DIR``), and
    the epsilon audit of a membership game when it was made (``epsilon``)."""
    rng = finding_rng(result)
    if isinstance(result, MembershipResult):
        finding = membership_finding(result, rng=rng)
        sections: dict[str, object] = {"membership": result}
        if epsilon is not None:
            sections["epsilon"] = epsilon
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
        budget=CUSTOM_BUDGET,
        plan=BUDGETS[Budget.STANDARD],
        seed=int(result.config.seed),
        selector="distance",
        confidence=0.95,
        command_line=command_line,
        versions=package_versions(),
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


def membership_epsilon(
    result: MembershipResult,
    *,
    rng: np.random.Generator,
    claimed: float | None = None,
    delta: float = 1e-5,
    neighbouring: Neighbouring | str = Neighbouring.ADD_REMOVE,
    confidence: float = 0.95,
) -> EpsilonEstimate:
    """Empirical epsilon of a membership game from its stored test scores.

    Every (target, attack) pair is a candidate; the candidate and its threshold are chosen on a
    selection split of the test datasets and the Clopper-Pearson bound is computed on the other
    split (:func:`synthleak.metrics.epsilon.empirical_epsilon`); the rule of an unfitted attack
    that fixes it in advance (``fixed_threshold``: ``novelty``) is also tested on every test
    dataset, sharing the error with the selected test. The game's own relation between
    IN and OUT datasets (substitution, or addition/removal with exact knowledge) is converted to
    the claim's ``neighbouring`` relation.
    """
    from synthleak.games.membership import PoolMode
    from synthleak.metrics.epsilon import empirical_epsilon

    def rule(name: str) -> float | None:
        try:
            factory = attack_info(AttackFamily.MEMBERSHIP, name).factory
        except InputError:  # an attack object of the caller's, not registered: no rule known
            return None
        return getattr(factory, "fixed_threshold", None)

    scores, labels, ids = {}, {}, {}
    fixed: dict[str, float] = {}
    for t_idx, t in enumerate(result.targets):
        for name, o in t.attacks.items():
            if o.error is not None or o.labels.size == 0:
                continue
            key = f"row {t.row} / {name}"
            scores[key], labels[key] = o.scores, o.labels
            threshold = rule(name)
            if threshold is not None:
                fixed[key] = float(threshold)
            # a shared pool tests every target on the same datasets; single pools do not
            offset = 0 if result.config.pool is PoolMode.SHARED else t_idx * 1_000_000
            ids[key] = offset + np.arange(o.labels.size)
    if not scores:
        raise InputError("the membership game has no attack scores to bound epsilon with")
    return empirical_epsilon(
        scores,
        labels,
        rng=rng,
        claimed=claimed,
        delta=delta,
        neighbouring=neighbouring,
        game_neighbouring=result.config.neighbouring,
        confidence=confidence,
        trial_ids=ids,
        fixed_rules=fixed,
    )


def audit_metrics(result: AuditResult) -> dict[str, Metric | bool | None]:
    """The policy metrics of an audit (:data:`synthleak.policy.METRICS`); ``None`` = not measured.

    For a family with several findings (singling out univariate and multivariate, attribute
    inference per attack) the metric is the finding with the highest lower confidence bound:
    the worst case the evidence supports.
    """
    from synthleak.policy import Metric, epsilon_metrics
    from synthleak.verdicts import Verdict

    def worst(prefix: str) -> Finding | None:
        cands = [
            f
            for f in result.findings
            if (f.key == prefix or f.key.startswith(prefix + "."))
            and f.verdict is not Verdict.NOT_MEASURED
        ]
        return max(cands, key=lambda f: f.estimate.ci_low) if cands else None

    def metric(f: Finding | None) -> Metric | None:
        return (
            None
            if f is None
            else Metric.from_estimate(
                RiskEstimate(
                    f.estimate.value,
                    f.estimate.ci_low,
                    f.estimate.ci_high,
                    f.estimate.confidence,
                    f.estimate.n_trials,
                    f.baseline,
                )
            )
        )

    out: dict[str, Metric | bool | None] = {name: None for name in _metric_names()}
    out["membership.auc"] = metric(worst(FindingKey.MEMBERSHIP_BLACK_BOX))
    out["membership.nobox.auc"] = metric(worst(FindingKey.MEMBERSHIP_NOBOX))
    out["membership.release.auc"] = metric(worst(FindingKey.MEMBERSHIP_RELEASE))
    out["singling_out.risk"] = metric(worst("singling_out"))
    out["linkability.risk"] = metric(worst(FindingKey.LINKABILITY))
    out["copies.rate"] = metric(worst("copies"))
    acc = metric(worst("attribute"))
    out["attribute.accuracy"] = acc
    out["attribute.advantage"] = None if acc is None else acc.advantage()
    eps = getattr(result, "epsilon", None)
    if eps is not None:
        for k, v in epsilon_metrics(eps).items():
            if k != "membership.auc" or out[k] is None:
                out[k] = v
    return out


def _metric_names() -> list[str]:
    from synthleak.policy import METRICS

    return list(METRICS)


def nobox_metrics(result: NoBoxMembershipResult) -> dict[str, Metric | bool | None]:
    """Policy metrics of a no-box membership game: the strongest attack (evaluation half) and
    the exact-copy rate against its chance rate."""
    from synthleak.policy import Metric

    out: dict[str, Metric | bool | None] = {"membership.nobox.auc": None, "copies.rate": None}
    if result.best is not None:
        out["membership.nobox.auc"] = Metric.from_estimate(result.best.auc)
    if result.copies is not None:
        out["copies.rate"] = Metric.from_estimate(result.copies.synthetic_in_original)
    return out
