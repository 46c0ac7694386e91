"""What an audit found: :class:`Finding` per attack outcome, :class:`AuditResult` per audit.

Every section is a typed, frozen result (:class:`~synthleak.serde.Result`) and the whole audit
round-trips through JSON losslessly; reports are built from it alone.

A finding's verdict, its wording and the harm order of findings are :mod:`synthleak.verdicts`.
"""

from __future__ import annotations

import functools
import math
import platform
from collections.abc import Sequence
from dataclasses import dataclass, field, fields, replace
from enum import StrEnum
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from synthleak.data.domain import DomainReport
from synthleak.data.profile import DataProfile, DataWarning
from synthleak.data.schema import Schema
from synthleak.data.shadow_releases import MIN_SHADOWS
from synthleak.errors import InputError
from synthleak.games.attribute import AttributeGameResult
from synthleak.games.attribute_release import ReleaseAttributeResult
from synthleak.games.cost import Power
from synthleak.games.linkability import LinkabilityResult
from synthleak.games.membership import AttackSummary, MembershipConfig, MembershipResult
from synthleak.games.membership_release import MembershipReleaseResult
from synthleak.games.nobox import NoBoxMembershipResult
from synthleak.games.person import PersonMembershipResult
from synthleak.games.person_attribute import PersonAttributeResult
from synthleak.games.person_copies import PersonCopiesResult
from synthleak.games.person_risks import PersonRisksResult
from synthleak.games.person_shadow import PersonShadowResult
from synthleak.games.riskmap import RiskMapResult
from synthleak.games.secret import SecretRule
from synthleak.games.shadow import GeneratorFailures
from synthleak.games.sweep import AttributeSweepResult
from synthleak.metrics.copies import CopyReport
from synthleak.metrics.epsilon import EpsilonEstimate
from synthleak.modes import AUDIT_SELECTORS, Budget, Neighbouring, TargetMethod
from synthleak.policy import PolicyResult
from synthleak.serde import FloatArray, Result
from synthleak.verdicts import Finding, Verdict, harm_order

RESULT_VERSION = 2


def _finite(x: float | None) -> bool:
    return x is not None and isinstance(x, int | float) and math.isfinite(x)


class StageStatus(StrEnum):
    """What happened to a stage of the audit."""

    MEASURED = "measured"
    NOT_MEASURED = "not measured"
    NOT_APPLICABLE = "not applicable"
    FAILED = "failed"


@dataclass(frozen=True, repr=False)
class StageRecord(Result):
    """One stage of an audit: whether it ran, and if not, why and what input it needs."""

    name: str
    title: str
    status: StageStatus
    reason: str = ""
    needs: str = ""
    seconds: float = math.nan

    def sentence(self) -> str:
        """The stage in one line for the report."""
        if self.status is StageStatus.MEASURED:
            return f"{self.title}: measured."
        text = f"{self.title}: {self.status.value}"
        if self.reason:
            text += f" ({self.reason})"
        if self.needs:
            text += f"; needs {self.needs}"
        return text + "."


@dataclass(frozen=True, repr=False, kw_only=True)
class BudgetPlan(Result):
    """Sizes behind a budget (see :data:`BUDGETS`); every field is given by name."""

    n_attacks: int  # singling-out predicates, linkability targets, no-box members/non-members
    mia_targets: int  # most vulnerable records attacked with shadow models
    mia_controls: int  # random records attacked as a control
    shadows: int
    tests: int
    # most training records per shadow dataset: the game's datasets hold as many as the
    # release was trained on, up to this (pipeline.game_train_size)
    n: int
    mia_attacks: tuple[str, ...]
    aia_games: int
    screen_datasets: int = 100  # shadow (and test) datasets of the two-stage screen
    # shadow datasets of the game after a two-stage screen (default: shadows), sized so the
    # screen and the game together take about the time of the game alone (BENCHMARKS.md)
    screened_shadows: int | None = None
    # release attribute inference: training records attacked (None: all) and counting queries
    # per linear program (None: all); its cost grows with records x queries
    aia_records: int | None = None
    aia_queries: int | None = None
    # seconds the randomised-secret attribute game may take without max_time (None: all
    # aia_games, the named budgets' choice, so their figures do not depend on the machine's
    # speed); games beyond the first AIA_MIN_GAMES are played only if a pilot projects they fit
    aia_seconds: float | None = None


#: The sizes behind each named budget (``audit(budget=...)``, ``--budget``).
BUDGETS: dict[Budget, BudgetPlan] = {
    Budget.QUICK: BudgetPlan(
        n_attacks=300,
        mia_targets=3,
        mia_controls=2,
        shadows=200,
        tests=100,
        n=500,
        mia_attacks=("query", "distance"),
        aia_games=60,
        screen_datasets=50,
        screened_shadows=200,
        aia_records=1000,
        aia_queries=20_000,
    ),
    Budget.STANDARD: BudgetPlan(
        n_attacks=1000,
        mia_targets=5,
        mia_controls=5,
        shadows=1000,
        tests=200,
        n=1000,
        mia_attacks=("query", "lira", "meta", "distance", "groundhog"),
        aia_games=100,
        screen_datasets=100,
        screened_shadows=600,
        aia_records=5000,
        aia_queries=60_000,
    ),
    Budget.PAPER: BudgetPlan(
        n_attacks=2000,
        mia_targets=10,
        mia_controls=10,
        shadows=4000,
        tests=200,
        n=1000,
        mia_attacks=("query", "lira", "meta", "distance", "groundhog", "attention"),
        aia_games=500,
        screen_datasets=100,
        screened_shadows=4000,
    ),
}


def package_versions() -> dict[str, str]:
    """Versions of Python and of the packages behind a result (recorded in its config)."""
    return dict(_package_versions())


@functools.cache
def _package_versions() -> tuple[tuple[str, str], ...]:
    """:func:`package_versions`, read once per process (each reading of the installed
    packages' metadata took about 40 ms, several per audit and kept stage)."""
    out = {"python": platform.python_version()}
    for pkg in ("synthleak", "numpy", "pandas", "scikit-learn", "scipy", "torch", "dask"):
        try:
            out[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            continue
    return tuple(out.items())


@dataclass(frozen=True, repr=False)
class DataSection(Result):
    """How the data was read: the columns analysed and left out, warnings, the domain check.

    Attributes
    ----------
    profile : DataProfile
        Roles of the original's columns (feature, identifier, free text) and reading warnings.
    domain : DomainReport
        Per column, the share of synthetic (and control) values outside the original's domain.
        (Copies of identifier and free-text values are in :attr:`AuditResult.copies`.)
    """

    profile: DataProfile
    domain: DomainReport

    def warnings(self) -> tuple[DataWarning, ...]:
        """Every warning about the data, reading and domain."""
        return tuple(self.profile.warnings) + tuple(self.domain.warnings)

    def without_values(self) -> DataSection:
        """The section without data values fewer than
        :data:`~synthleak.data.profile.MIN_SHARED` records hold (warning details, tokens and
        domain examples): what a report may carry when it does not show records."""
        return replace(
            self,
            profile=replace(
                self.profile, warnings=tuple(w.without_values() for w in self.profile.warnings)
            ),
            domain=self.domain.without_values(),
        )


@dataclass(frozen=True, repr=False)
class BudgetRecord(Result):
    """The shadow-model budget an audit actually used, what it was projected to cost, what it
    cost, and what it can show.

    Attributes
    ----------
    n_shadows, n_tests : int
        Shadow and test datasets of the membership game (after fitting a time limit).
    projected_seconds, measured_seconds : float
        The pilot's projection and the game's wall time.
    power : Power
        The smallest detectable AUC effect and the largest certifiable epsilon of ``n_tests``.
    screen_seconds : float
        Wall time of the two-stage screen that chose the targets (0 without one).
    train_size : int
        Training records of each of the game's datasets (0: not recorded, an older result).
    release_train_size : int
        Records the release was trained on (0: not recorded). Smaller training sets leak
        more: a game on fewer records than this may overstate the release's risk.
    resumed : tuple of str
        The parts (``"screen"``, ``"game"``) an earlier run of the same audit in the same run
        directory worked on (one that was interrupted, or the same audit run again): their
        seconds are those of every run together, as kept in the run directory.
    """

    n_shadows: int
    n_tests: int
    projected_seconds: float
    measured_seconds: float
    power: Power
    screen_seconds: float = 0.0
    train_size: int = 0
    release_train_size: int = 0
    resumed: tuple[str, ...] = ()


#: ``AuditOptions.secret`` that sweeps every column of the release (``--secret all``).
SWEEP_ALL = "all"
#: ``AuditOptions.budget`` of a report rebuilt from a run of ``mia`` or ``riskmap``, whose
#: sizes were chosen by hand (``plan``), not by a named budget.
CUSTOM_BUDGET = "custom"


def check_claim(claimed_epsilon: float | None, delta: float, neighbouring: str) -> None:
    """Check a differential-privacy claim's parameters (cheap; before any work)."""
    from synthleak.modes import Neighbouring

    try:
        Neighbouring(neighbouring)
    except ValueError:
        choices = ", ".join(n.value for n in Neighbouring)
        raise InputError(f"unknown neighbouring relation {neighbouring!r}: use {choices}") from None
    if not (isinstance(delta, int | float) and 0 <= delta < 1):
        raise InputError(f"delta must lie in [0, 1), got {delta!r}")
    if claimed_epsilon is not None and not (
        isinstance(claimed_epsilon, int | float)
        and math.isfinite(claimed_epsilon)
        and claimed_epsilon >= 0
    ):
        raise InputError(f"claimed_epsilon must be a number >= 0, got {claimed_epsilon!r}")


@dataclass(frozen=True, repr=False)
class TargetAttackLine(Result):
    """One attack against one target in :class:`MembershipDocument` (its test scores are in
    the run directory's ``result.json``)."""

    auc: float
    auc_ci: tuple[float, float]
    accuracy: float
    tpr_at_fpr: dict[str, float]
    n_tests: int
    error: str | None = None


@dataclass(frozen=True, repr=False)
class TargetLine(Result):
    """One target record in :class:`MembershipDocument`: its row, how it was selected and
    every attack's figures."""

    row: int
    selected_by: str
    attacks: dict[str, TargetAttackLine]


@dataclass(frozen=True, repr=False, kw_only=True)
class MembershipDocument(Result):
    """What ``synthleak mia`` (black-box) prints as JSON: the game's configuration, every
    target's figures, the summaries per attack and per selector, the generator failures, the
    empirical epsilon and the policy outcome. Written and read through serde like every
    result (the keys are documented in :mod:`synthleak.cli.mia`)."""

    mode: str = "black-box"
    config: MembershipConfig
    targets: tuple[TargetLine, ...]
    summary: dict[str, AttackSummary]
    summary_by_selector: dict[str, dict[str, AttackSummary]]
    failures: GeneratorFailures
    epsilon: EpsilonEstimate
    policy: PolicyResult | None = None

    @classmethod
    def of(
        cls,
        result: MembershipResult,
        epsilon: EpsilonEstimate,
        policy: PolicyResult | None = None,
    ) -> MembershipDocument:
        """The document of a membership game's result, its epsilon and policy outcome."""
        targets = tuple(
            TargetLine(
                t.row,
                t.selected_by,
                {
                    name: TargetAttackLine(
                        o.auc.value,
                        (o.auc.ci_low, o.auc.ci_high),
                        o.accuracy,
                        dict(o.tpr_at_fpr),
                        o.n_tests,
                        o.error,
                    )
                    for name, o in t.attacks.items()
                },
            )
            for t in result.targets
        )
        return cls(
            config=result.config,
            targets=targets,
            summary=result.summary(),
            summary_by_selector=result.summary_by_selector(),
            failures=result.failures,
            epsilon=epsilon,
            policy=policy,
        )


@dataclass(frozen=True, repr=False, kw_only=True)
class AuditOptions(Result):
    """What an audit is asked to do: every setting of :func:`synthleak.audit` that is not the
    data itself, the run's machinery (workers, run directory, progress) or its provenance.

    The command line builds one from its flags, :func:`synthleak.audit` takes it as
    ``options=`` (or builds it from its keyword arguments), the stages read it, and the report
    records it as the leading fields of :class:`AuditConfig`; the option set is stated here
    only. Constructing it checks every value on its own (a bad one raises
    :class:`~synthleak.errors.InputError` naming the parameter), before any data is read.

    Attributes
    ----------
    generator : str, optional
        Generator spec; enables the shadow-model games.
    secret : str, optional
        Column to infer, or :data:`SWEEP_ALL` for every column in turn.
    quasi_ids : tuple of str
        Columns the attacker knows (default: every other column).
    secret_rule : SecretRule, optional
        When a guess of a numeric secret counts as right.
    budget : str
        A :class:`~synthleak.modes.Budget` value (:data:`CUSTOM_BUDGET` with an explicit
        ``plan`` only).
    plan : BudgetPlan
        The sizes; given, it overrides ``budget``'s (after construction it is never ``None``).
    seed : int
        Same seed, same result.
    control_fraction, k, show_records, keep, claimed_epsilon, delta, neighbouring, max_time,
    selector, special_values, root, shadow_releases, n_shadows
        As :func:`synthleak.audit` documents them.
    """

    generator: str | None = None
    secret: str | None = None
    quasi_ids: tuple[str, ...] = ()
    secret_rule: SecretRule | None = None
    budget: str = Budget.STANDARD.value
    plan: BudgetPlan | None = None
    seed: int = 0
    control_fraction: float = 0.5
    k: int = 5
    show_records: bool = False
    keep: tuple[str, ...] = ()
    claimed_epsilon: float | None = None
    delta: float = 1e-5
    neighbouring: str = Neighbouring.ADD_REMOVE.value
    max_time: float | None = None
    selector: str = TargetMethod.SCREEN.value
    special_values: tuple[str, ...] = ()
    root: str | None = None
    shadow_releases: str | None = None
    n_shadows: int | None = None

    def __post_init__(self) -> None:
        from synthleak.data.values import parse_special_values, special_specs

        object.__setattr__(
            self, "special_values", special_specs(parse_special_values(self.special_values))
        )
        budget = self.budget
        if budget == CUSTOM_BUDGET and self.plan is not None:
            resolved: Budget | None = None
        else:
            try:
                resolved = Budget(budget)
            except ValueError:
                raise InputError(
                    f"unknown budget {budget!r}: use quick, standard or paper", parameter="budget"
                ) from None
            object.__setattr__(self, "budget", resolved.value)
        max_time = self.max_time
        if resolved is Budget.AUTO and max_time is None:
            raise InputError("budget 'auto' sizes the shadow-model game to max_time: give max_time")
        if max_time is not None and not (
            isinstance(max_time, int | float) and not isinstance(max_time, bool) and max_time > 0
        ):
            raise InputError(f"max_time must be a positive number of seconds, got {max_time!r}")
        choices = [s.value for s in AUDIT_SELECTORS]
        if self.selector not in choices:
            raise InputError(
                f"unknown selector {self.selector!r}: use {', '.join(choices)}",
                parameter="selector",
            )
        object.__setattr__(self, "selector", TargetMethod(self.selector).value)
        cf = self.control_fraction
        if not (isinstance(cf, int | float) and 0 < cf < 1):
            raise InputError(f"control_fraction must lie in (0, 1), got {cf}")
        k = self.k
        if isinstance(k, bool) or not isinstance(k, int | np.integer) or k < 1:
            raise InputError(f"k must be a whole number >= 1, got {k!r}", parameter="k")
        if isinstance(self.quasi_ids, str) or isinstance(self.keep, str):
            raise InputError("quasi_ids and keep are lists of column names, not one string")
        object.__setattr__(self, "quasi_ids", tuple(self.quasi_ids))
        object.__setattr__(self, "keep", tuple(self.keep))
        object.__setattr__(self, "seed", int(self.seed))
        object.__setattr__(self, "k", int(k))
        if self.shadow_releases is not None:  # a Path given in Python: recorded as text
            object.__setattr__(self, "shadow_releases", str(self.shadow_releases))
        n_shadows = self.n_shadows
        if n_shadows is not None:
            if isinstance(n_shadows, bool) or not isinstance(n_shadows, int | np.integer):
                raise InputError(
                    f"n_shadows must be a whole number, got {n_shadows!r}", parameter="n_shadows"
                )
            if n_shadows < MIN_SHADOWS:
                raise InputError(
                    f"n_shadows must be at least {MIN_SHADOWS}, got {n_shadows}",
                    parameter="n_shadows",
                )
            if self.generator is None or self.shadow_releases is not None:
                raise InputError(
                    "n_shadows sizes the shadow releases the generator makes for the "
                    "release's membership stage: give generator and no shadow_releases, or drop "
                    "n_shadows",
                    parameter="n_shadows",
                )
            object.__setattr__(self, "n_shadows", int(n_shadows))
        check_claim(self.claimed_epsilon, self.delta, self.neighbouring)
        object.__setattr__(self, "neighbouring", Neighbouring(self.neighbouring).value)
        if self.secret == SWEEP_ALL:
            if self.quasi_ids:
                raise InputError(
                    "secret 'all' takes every other column as the quasi-identifiers of each "
                    "column: drop quasi_ids",
                    parameter="quasi_ids",
                )
            if self.secret_rule is not None and self.secret_rule.bins is None:
                raise InputError(
                    "secret 'all' judges every numeric column by the right quantile bin: give "
                    "secret_bins or nothing, not a tolerance in one column's units",
                    parameter="secret_rule",
                )
        if self.plan is None:
            assert resolved is not None
            object.__setattr__(
                self, "plan", BUDGETS[Budget.STANDARD if resolved is Budget.AUTO else resolved]
            )

    @property
    def sizes(self) -> BudgetPlan:
        """The budget's sizes: ``plan`` (filled from ``budget`` when it was not given)."""
        assert self.plan is not None  # __post_init__ fills it
        return self.plan


@dataclass(frozen=True, repr=False, kw_only=True)
class AuditConfig(AuditOptions):
    """The options of an audit (:class:`AuditOptions`, the leading fields) and its provenance
    (the inputs' names, sizes, command line, versions, time), for the reproducibility
    section. Reports written before the options had their own type load unchanged: missing
    fields take their defaults (``selector`` then reads ``"distance"``, what those audits
    used)."""

    original: str
    synthetic: str | None
    control: str | None
    confidence: float
    command_line: str
    versions: dict[str, str]
    created: str
    n_original: int
    n_synthetic: int
    n_control: int

    @classmethod
    def of(cls, options: AuditOptions, **provenance: Any) -> AuditConfig:
        """The config recording ``options`` with the run's ``provenance`` fields."""
        return cls(**{f.name: getattr(options, f.name) for f in fields(AuditOptions)}, **provenance)

    @property
    def options(self) -> AuditOptions:
        """The audit's options alone (to run the same audit again)."""
        return AuditOptions(**{f.name: getattr(self, f.name) for f in fields(AuditOptions)})

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> AuditConfig:
        return super().from_dict({"selector": TargetMethod.DISTANCE.value} | d)


@dataclass(frozen=True, repr=False)
class RecordAtRisk(Result):
    """A record ranked among the most vulnerable.

    ``values`` holds the record only when the audit was asked to show records; otherwise it is
    empty and ``rare_columns`` says where the record stands out (columns whose value is shared by
    less than 1 % of the records) without disclosing it.
    """

    rank: int
    row: int
    score: float
    rare_columns: tuple[str, ...] = ()
    values: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True, repr=False, eq=False)
class VulnerabilitySection(Result):
    """The ranking of the training records by vulnerability, from the data alone.

    ``method`` is ``"distance"`` (``V_k`` with ``k`` neighbours and ``metric``) or ``"rarity"``
    (cell rarity; ``k`` 0 and ``metric`` empty). ``scores`` is indexed by row of the original as
    given (NaN for the rows held out as control), ``top`` names rows of the original, like every
    record number of an audit.
    """

    method: str
    k: int
    metric: str
    n_records: int
    scores: FloatArray
    top: tuple[RecordAtRisk, ...] = ()


@dataclass(frozen=True, repr=False)
class ScreenedRecord(Result):
    """A record's rank by the two-stage screen and by ``V_k``, and its screened AUC.

    ``screen_rank`` is 0 (and the AUC nan) when the prefilter did not screen the record.
    ``vk_rank`` is its rank by ``V_k`` among the candidates (1 = most isolated).
    ``rare_columns`` are the columns where its value is shared by less than 1 % of the training
    records (where it stands out), as for the vulnerability ranking's records.
    """

    row: int
    screen_rank: int
    vk_rank: int
    auc: float
    ci_low: float
    ci_high: float
    rare_columns: tuple[str, ...] = ()


@dataclass(frozen=True, repr=False)
class ScreeningSection(Result):
    """Stage 1 of the two-stage audit: which records a cheap shadow-model screen ranks riskiest.

    Attributes
    ----------
    generator : str
    n_candidates : int
        Records the screen could pick from (the records the release was trained on).
    n_screened : int
        Records screened: the rarest candidates by cell rarity.
    n_shadows, n_tests, n_queries : int
        Shadow and test datasets of each pool (shared by the records it screens), and counting
        queries per record of the full attack.
    top : tuple of ScreenedRecord
        The records with the highest screened AUC, riskiest first.
    vk_top : tuple of ScreenedRecord
        The records ``V_k`` ranks first, most isolated first, with what the screen found.
    second_pool : int
        Records screened again, with the full attack, on a second pool (0: one pool); their
        AUC is the mean of both pools'.
    first_queries : int
        Counting queries per record of the first pool's attack (0 in results written before
        the second pool existed: ``n_queries``).
    """

    generator: str
    n_candidates: int
    n_screened: int
    n_shadows: int
    n_tests: int
    n_queries: int
    top: tuple[ScreenedRecord, ...] = ()
    vk_top: tuple[ScreenedRecord, ...] = ()
    second_pool: int = 0
    first_queries: int = 0


_NAN2 = (math.nan, math.nan)


@dataclass(frozen=True, repr=False)
class UtilitySection(Result):
    """Utility of the release: MRE over 3-way marginal counts above 10 and 3-TVD, with intervals
    over the choice of marginals and the score of real people the generator never saw as the
    reference (:func:`synthleak.metrics.utility.utility_estimate`).

    Attributes
    ----------
    mre_gt10, tvd3 : float
        The release against the original (lower is better).
    n_marginals : int
        Random 3-way marginals both are averaged over (of ``marginal_space`` possible ones).
    mre_ci, tvd3_ci : (float, float)
        Bootstrap intervals over the marginals at ``confidence``.
    reference_mre_gt10, reference_tvd3 : float
        The same measures, on the same marginals, between the original and ``n_reference``
        control records (NaN without a control set): what a perfect release of new people scores.
    reference_mre_ci, reference_tvd3_ci : (float, float)
    n_synthetic, n_reference, n_boot : int
    """

    mre_gt10: float
    tvd3: float
    n_marginals: int = 0
    mre_ci: tuple[float, float] = _NAN2
    tvd3_ci: tuple[float, float] = _NAN2
    reference_mre_gt10: float = math.nan
    reference_tvd3: float = math.nan
    reference_mre_ci: tuple[float, float] = _NAN2
    reference_tvd3_ci: tuple[float, float] = _NAN2
    marginal_space: int = 0
    n_synthetic: int = 0
    n_reference: int = 0
    n_boot: int = 0
    confidence: float = 0.95

    @classmethod
    def from_estimate(cls, u: dict[str, Any]) -> UtilitySection:
        """The section from :func:`synthleak.metrics.utility.utility_estimate`'s output."""

        def pair(key: str) -> tuple[float, float]:
            lo, hi = u[key]
            return (float(lo), float(hi))

        return cls(
            mre_gt10=float(u["mre_gt10"]),
            tvd3=float(u["tvd3"]),
            n_marginals=int(u["marginals"]),
            mre_ci=pair("mre_ci"),
            tvd3_ci=pair("tvd_ci"),
            reference_mre_gt10=float(u["reference_mre_gt10"]),
            reference_tvd3=float(u["reference_tvd"]),
            reference_mre_ci=pair("reference_mre_ci"),
            reference_tvd3_ci=pair("reference_tvd_ci"),
            marginal_space=int(u["marginal_space"]),
            n_synthetic=int(u["n_synthetic"]),
            n_reference=int(u["n_reference"]),
            n_boot=int(u["n_boot"]),
            confidence=float(u["confidence"]),
        )

    @property
    def has_reference(self) -> bool:
        return self.n_reference > 0 and _finite(self.reference_tvd3)


@dataclass(frozen=True, repr=False)
class PrivacyUtilityPoint(Result):
    """One point of the privacy-utility plot."""

    label: str
    privacy: float
    privacy_metric: str
    mre_gt10: float | None = None
    tvd3: float | None = None


@dataclass(frozen=True, repr=False, kw_only=True)
class AuditSections(Result):
    """The sections of an audit that its stages measure: each declared once, here, as an
    optional field (``None`` until measured) of :class:`AuditResult`, which derives from this.

    A stage returns the sections it measured as this class
    (:class:`synthleak.stages.base.Sections` is its name there) in its
    :class:`~synthleak.stages.base.StageOutput`; ``pipeline._assemble`` carries every field
    into the result by name, and the JSON and :func:`load_result` carry it with no other edit.

    Attributes
    ----------
    vulnerability : VulnerabilitySection, optional
    screening : ScreeningSection, optional
        The two-stage screen that chose the membership game's targets (``selector="screen"``).
    membership : MembershipResult, optional
        Black-box shadow-model membership inference (when the generator is known).
    nobox : NoBoxMembershipResult, optional
        Membership inference on the release against the control set. Its record rows
        (``member_rows``, ``records``) are rows of the original as given, like every row number
        of the audit; ``non_member_rows`` are rows of the control set (of the original when the
        control was held out of it).
    membership_release : MembershipReleaseResult, optional
        Membership inference on the release, learned from shadow releases (``shadow_releases``).
    linkability : LinkabilityResult, optional
        The linkability game against the control set (its finding is ``linkability``), with
        each target's outcome; ``target_rows`` and ``linked_rows`` are rows of the original as
        given, the control rows rows of the control set (of the original when the control was
        held out of it).
    person_membership, person_copies, person_risks, person_attribute : optional
        Person-level games of a relational release (membership, histories copied, singling out
        and linkability, attribute inference) against the control's persons, by root key.
    person_shadow : PersonShadowResult, optional
        Shadow-model membership inference of persons against a relational generator (the
        generator given with relational parts); targets are named by their root key.
    copies : CopyReport, optional
        Verbatim copies of training records and of the values of every high-cardinality column
        (identifiers and free text included), against the control's rates; ``copied_rows`` are
        rows of the original.
    attribute : AttributeGameResult, optional
        The randomised-secret attribute-inference game against the generator.
    attribute_release : ReleaseAttributeResult, optional
        Attribute inference on the release, training records against control records.
    attribute_sweep : AttributeSweepResult, optional
        Attribute inference of every column of the release (``secret="all"``), ranked by
        excess risk; its record rows are rows of the original.
    utility : UtilitySection, optional
    epsilon : EpsilonEstimate, optional
        Empirical epsilon of the black-box membership game, with the verdict on a claimed one.
    budget : BudgetRecord, optional
        The shadow-model budget used, its projected and measured cost, and its power.
    """

    vulnerability: VulnerabilitySection | None = None
    screening: ScreeningSection | None = None
    membership: MembershipResult | None = None
    nobox: NoBoxMembershipResult | None = None
    # left out of the repr, which stays short
    membership_release: MembershipReleaseResult | None = field(default=None, repr=False)
    linkability: LinkabilityResult | None = field(default=None, repr=False)
    person_membership: PersonMembershipResult | None = field(default=None, repr=False)
    person_copies: PersonCopiesResult | None = field(default=None, repr=False)
    person_risks: PersonRisksResult | None = field(default=None, repr=False)
    person_attribute: PersonAttributeResult | None = field(default=None, repr=False)
    person_shadow: PersonShadowResult | None = field(default=None, repr=False)
    copies: CopyReport | None = None
    attribute: AttributeGameResult | None = None
    attribute_release: ReleaseAttributeResult | None = None
    attribute_sweep: AttributeSweepResult | None = field(default=None, repr=False)
    utility: UtilitySection | None = None
    epsilon: EpsilonEstimate | None = None
    budget: BudgetRecord | None = None

    def measured(self) -> dict[str, Any]:
        """The sections set (not ``None``), by name."""
        return {
            f.name: getattr(self, f.name)
            for f in fields(AuditSections)
            if getattr(self, f.name) is not None
        }


@dataclass(frozen=True, repr=False, eq=False)
class _AuditHead(Result):
    """The fields an audit's JSON starts with (:class:`AuditResult` derives from this and from
    :class:`AuditSections`, in this order, so that its JSON reads config, schema, data, stages
    and findings first, then the sections)."""

    config: AuditConfig
    schema: Schema
    data: DataSection | None = None
    stages: tuple[StageRecord, ...] = ()
    findings: tuple[Finding, ...] = ()


@dataclass(frozen=True, repr=False, eq=False)
class AuditResult(AuditSections, _AuditHead):
    """Everything an audit found; the report is built from this alone.

    Attributes
    ----------
    config : AuditConfig
    schema : Schema
    data : DataSection, optional
        Columns analysed and left out, reading warnings and the domain check.
    stages : tuple of StageRecord
        Every stage of the audit, measured or not (and why not, and what it needs).
    findings : tuple of Finding
        One per attack outcome, with verdicts corrected for multiple testing.
    vulnerability, screening, membership, ..., utility, epsilon, budget : optional
        The sections the stages measure, declared on :class:`AuditSections`.
    riskmap : RiskMapResult, optional
        A membership risk map of every record (``synthleak riskmap`` results).
    privacy_utility : tuple of PrivacyUtilityPoint
    policy : PolicyResult, optional
        The pass/fail policy the audit was checked against.
    notes : tuple of str
        What else the reader should know (skipped extras, held-out records), in plain words.
    version : int
        Result format version.
    """

    result_kind = "audit"
    # compared by identity, as before it derived from AuditSections (whose equality, by value,
    # a stage's output uses)
    __eq__ = object.__eq__
    __hash__ = object.__hash__

    riskmap: RiskMapResult | None = None
    privacy_utility: tuple[PrivacyUtilityPoint, ...] = ()
    policy: PolicyResult | None = None
    notes: tuple[str, ...] = ()
    version: int = RESULT_VERSION

    def by_harm(self) -> tuple[Finding, ...]:
        """The findings in the harm order (:func:`harm_order`): the report's findings table,
        its first finding and ``report.json``'s ``harm_order``."""
        return harm_order(self.findings)

    def first_finding(self) -> Finding | None:
        """The finding the report names first: the first measured one in the harm order (a
        copy finding whenever one shows a leak), or None when none was measured."""
        return next((f for f in self.by_harm() if f.verdict is not Verdict.NOT_MEASURED), None)

    def not_measured(self) -> tuple[StageRecord, ...]:
        """The stages that could not run (an input missing) or failed."""
        return tuple(
            s for s in self.stages if s.status in (StageStatus.NOT_MEASURED, StageStatus.FAILED)
        )

    def findings_frame(self) -> pd.DataFrame:
        """One row per finding: key, title, value, interval, baseline, verdict."""
        return pd.DataFrame(
            [
                {
                    "key": f.key,
                    "title": f.title,
                    "metric": f.metric.value,
                    "value": f.estimate.value,
                    "ci_low": f.estimate.ci_low,
                    "ci_high": f.estimate.ci_high,
                    "baseline": f.baseline,
                    "verdict": f.verdict.value if f.verdict else None,
                    "p_value": f.p_value,
                    "p_holm": f.p_holm,
                    "n_tests": f.n_tests,
                }
                for f in self.findings
            ]
        )

    def to_frame(self) -> pd.DataFrame:
        """The findings table (:meth:`findings_frame`)."""
        return self.findings_frame()


def as_float_array(values: Sequence[float]) -> np.ndarray:
    """``values`` as a float64 array (for :class:`VulnerabilitySection` scores)."""
    return np.asarray(values, dtype=np.float64)


def result_kinds() -> dict[str, type[Result]]:
    """The results a command writes on its own, by their ``kind``."""
    from synthleak.serde import Result as _Result

    kinds: dict[str, type[_Result]] = {}
    todo = list(_Result.__subclasses__())
    while todo:
        cls = todo.pop()
        todo.extend(cls.__subclasses__())
        if cls.result_kind:
            kinds[cls.result_kind] = cls
    return kinds


def load_result(source: str | Path | dict[str, Any]) -> Result:
    """A result written by a command (``result.json``, ``report.json``), by its ``kind``.

    A ``report.json`` that names a ``records_file`` (its per-record arrays, kept beside it) is
    read with that file (:func:`synthleak.serde.join_bulky`).
    """
    import json

    doc = source if isinstance(source, dict) else json.loads(Path(source).read_text())
    side_name = doc.get("records_file")
    if side_name is not None:
        import gzip

        from synthleak.serde import join_bulky

        if isinstance(source, dict):
            raise InputError(
                "this report document keeps its per-record arrays in a side file: load it from "
                "its path, with the side file beside it"
            )
        side_path = Path(source).parent / Path(str(side_name)).name
        if not side_path.exists():
            raise InputError(
                f"{side_path.name} (the per-record arrays of {Path(source).name}) is missing: "
                "keep it in the same folder as the report"
            )
        try:
            doc = join_bulky(doc, json.loads(gzip.decompress(side_path.read_bytes())))
        except (OSError, ValueError, KeyError) as exc:
            raise InputError(
                f"{side_path.name} does not hold the per-record arrays of {Path(source).name} "
                f"({type(exc).__name__}): rebuild the report from its run"
            ) from None
    kinds = result_kinds()
    kind = doc.get("kind")
    if kind not in kinds:
        raise InputError(
            f"the result file holds no known result (kind {kind!r}; known: "
            f"{', '.join(sorted(kinds))}): give a result written by synthleak"
        )
    return kinds[kind].from_dict(doc)
