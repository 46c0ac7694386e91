"""The one-call audit: ``audit(original, synthetic=None, control=None, generator=None, ...)``.

An audit is a pipeline of named stages (:data:`STAGES`). Each stage states what it needs; a stage
whose input is missing is recorded as "not measured" with the input it needs, never as "no
evidence". A stage that fails is recorded as failed with its reason and the audit goes on: the
report is always written with what was computed. Each stage draws its randomness from its own
stream, derived from the seed and the stage's *name* (``audit/stage``), so adding, removing or
skipping a stage changes no other stage's numbers; a stage that runs a game seeds it with the
first draw of that stream (:func:`~synthleak.runtime.seeding.game_seed`), so no two stages' games
ever share a seed, except the two release attribute-inference stages, which never run together
(one named secret, or ``"all"``): ``attribute_sweep`` seeds each column's game as
``attribute_release`` does, so a column has one figure whichever of the two measures it.

Stages, in order:

1. ``split`` — when only a generator is given, hold out ``control_fraction`` of the original as
   the control set;
2. ``release`` — fit the generator on the training part and release as many records;
3. ``vulnerability`` — rank the training records by ``V_k`` (Meeus et al. (2023), Sec. 4), or
   by cell rarity for a release audited without its generator;
4. ``copies`` — verbatim copies of whole records and of every high-cardinality or left-out
   column's values, against the control's rates (needs only the release);
5. ``singling_out``, ``linkability`` — Anonymeter risks against the control set (Giomi et al.
   (2023));
6. ``membership_nobox`` — membership signal of the release against the control set;
7. ``attribute_release`` — reconstruction attribute inference on the release (Annamalai et al.
   (2024a), Sec. 4.2), with the control set as baseline; ``attribute_sweep`` — the same with
   every column in turn as the secret (``secret="all"``), one finding per column;
8. ``utility`` — MRE over 3-way marginal counts above 10 and 3-TVD (Annamalai et al. (2024a),
   Sec. 5.3);
9. ``attribute_game`` — the randomised-secret attribute-inference game against the generator;
10. ``membership`` — black-box shadow-model membership inference against the generator, on the
    most vulnerable records plus random records as a control group.

Every row number a stage reports is a row of the original as given.

Findings get their verdicts together (:func:`synthleak.results.assess`): Holm's correction over
all findings keeps the chance of any false "leak" verdict at 5 %.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import math
import time
import typing
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, fields, replace
from importlib.util import find_spec
from typing import Any

import numpy as np
import pandas as pd

from synthleak import partitioned
from synthleak.attacks.base import AttackFamily
from synthleak.data.io import EncodedFrames
from synthleak.data.release import Release, encode_parts
from synthleak.data.schema import Schema
from synthleak.data.table import Table
from synthleak.errors import BaselineWarning, InputError, raise_if_interrupted
from synthleak.findings import (
    audit_metrics,
    finding_rng,
    membership_epsilon,
    membership_finding,
)
from synthleak.games.attribute import AttributeGameResult
from synthleak.games.attribute_release import ReleaseAttributeResult
from synthleak.games.cost import (
    MembershipCost,
    format_seconds,
    measure_membership_cost,
    plan_membership,
    power,
    shared_pool,
    smallest_game_seconds,
    unit_datasets,
)
from synthleak.games.membership import MembershipGame, MembershipResult
from synthleak.games.nobox import NoBoxMembershipResult
from synthleak.games.shadow import table_fingerprint
from synthleak.games.sweep import AttributeSweepResult
from synthleak.generators import claimed_epsilon as claimed_epsilon_of
from synthleak.generators import make_generator
from synthleak.generators.base import domain_note
from synthleak.metrics.copies import (
    LONG_TEXT_CHARS,
    LONG_TEXT_LETTERS,
    CopyReport,
    LoneText,
    RareValues,
)
from synthleak.metrics.epsilon import EpsilonEstimate
from synthleak.metrics.privacy import RiskEstimate, binomial_p, rate_excess, wilson_interval
from synthleak.metrics.utility import utility_estimate
from synthleak.modes import AUDIT_SELECTORS
from synthleak.modes import Budget as Budget  # re-exported (synthleak.Budget)
from synthleak.policy import Policy
from synthleak.results import (
    ALPHA,
    MAX_WIDTH,
    SWEEP_ALL,
    TOO_SMALL_STATUS,
    AuditConfig,
    AuditOptions,
    AuditResult,
    BudgetPlan,
    BudgetRecord,
    DataSection,
    Finding,
    MetricKind,
    PrivacyUtilityPoint,
    RecordAtRisk,
    ScreenedRecord,
    ScreeningSection,
    StageRecord,
    StageStatus,
    UtilitySection,
    VulnerabilitySection,
    assess,
    min_trials,
    package_versions,
)
from synthleak.results import (
    BUDGETS as BUDGETS,  # re-exported (synthleak.BUDGETS)
)
from synthleak.runtime import Runtime, as_runtime
from synthleak.runtime.seeding import STREAMS_VERSION, game_seed, stream
from synthleak.runtime.store import (
    RunStore,
    check_interrupted,
    check_layout,
    interrupts_noticed,
    write_atomic,
)
from synthleak.serde import decode, jsonable
from synthleak.threat import ThreatModel, threat_model
from synthleak.vulnerability import Ranking, rank_records

#: One stream per stage, keyed by the stage's name.
_STAGE = stream("audit/stage", labelled="audit.{}")

Log = Callable[[str], None]


#: Share of ``max_time`` the randomised-secret attribute-inference game may take.
AIA_GAME_SHARE = 0.25
#: Games the attribute game plays under a budget's time allowance (``BudgetPlan.aia_seconds``)
#: whatever a pilot projects: about 100 one-target games keep the accuracy interval within
#: ``games.attribute.MAX_CI_WIDTH`` at an accuracy of 0.5. A user's ``max_time`` is a hard cap.
AIA_MIN_GAMES = 100
#: Synthetic and control rows (at most, each) whose distance to the closest original record
#: the copies stage measures for near copies; every original record stays in the search.
NEAR_COPY_SAMPLE = 2_000

#: How ``audit(selector=...)`` chooses the membership game's targets (the first is the default).
SELECTORS = tuple(s.value for s in AUDIT_SELECTORS)

OPTIONAL = {"torch": "torch", "ctgan": "ctgan", "distributed": "dask", "mbi": "mbi"}

CONTROL_NEEDED = (
    "a control set: real records of the same population that the generator never saw "
    "(give --control, control= in Python, or hold some records out before generating)"
)
SECRET_NEEDED = (
    "a secret column to infer (--secret COLUMN, or --secret all for every column; secret= in "
    "Python)"
)
#: Share of ``max_time`` the attribute sweep may take.
AIA_SWEEP_SHARE = 0.25
GENERATOR_NEEDED = (
    "the generator, as a spec the audit can run many times for shadow models (--generator; "
    "generator= in Python); a release alone is audited without it"
)


@dataclass
class _Sections:
    """The report sections the stages measure, one typed field per stage-written section of
    :class:`~synthleak.results.AuditResult` (same name, same type; ``None`` until measured).

    A stage sets its field (``ctx.sections.utility = ...``); :func:`_assemble` carries every
    field into the result. ``tests/test_pipeline.py`` checks that the names and types match
    :class:`~synthleak.results.AuditResult` and that none is dropped on the way.
    """

    vulnerability: VulnerabilitySection | None = None
    screening: ScreeningSection | None = None
    membership: MembershipResult | None = None
    nobox: NoBoxMembershipResult | None = None
    copies: CopyReport | None = None
    attribute: AttributeGameResult | None = None
    attribute_release: ReleaseAttributeResult | None = None
    attribute_sweep: AttributeSweepResult | None = None
    utility: UtilitySection | None = None
    epsilon: EpsilonEstimate | None = None
    budget: BudgetRecord | None = None


@dataclass
class _Context:
    """What the stages share: the options, the inputs, and what earlier stages produced."""

    options: AuditOptions
    log: Log
    runtime: Runtime
    schema: Schema
    original: Table
    frame: pd.DataFrame | None
    synthetic: Table | None
    control: Table | None
    frames: dict[str, pd.DataFrame] = field(default_factory=dict)
    identifiers: tuple[str, ...] = ()
    domain_from_data: bool = False  # the schema's domains were read from the data
    train: Table = field(init=False)
    train_rows: np.ndarray = field(init=False)
    control_rows: np.ndarray | None = None  # rows of the original held out as control, if any
    ranking: Ranking | None = None  # the vulnerability stage's ranking (V_k or cell rarity)
    sections: _Sections = field(default_factory=_Sections)
    findings: list[Finding] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    privacy_utility: list[PrivacyUtilityPoint] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.train = self.original
        self.train_rows = np.arange(len(self.original))

    @property
    def plan(self) -> BudgetPlan:
        """The budget's sizes (``options.plan``, or the named budget's)."""
        return self.options.sizes


@dataclass(frozen=True)
class Skip:
    """Why a stage does not run: an input is missing (``needs``), or it does not apply."""

    needs: str = ""
    reason: str = ""


@dataclass(frozen=True)
class Stage:
    """A named stage: why it cannot run (``None`` when it can) and what it does."""

    name: str
    title: str
    needs: Callable[[_Context], Skip | None]
    run: Callable[[_Context, np.random.Generator], None]
    #: Whether a finished run of the stage is kept in the run directory (:class:`_Kept`): only
    #: for stages that leave nothing but findings, notes, privacy-utility points and sections.
    kept: bool = False


# --- stages -------------------------------------------------------------------------------------


def _needs_split(ctx: _Context) -> Skip | None:
    if ctx.synthetic is not None or ctx.control is not None:
        return Skip(reason="the release or the control set was given")
    return None


def _split(ctx: _Context, rng: np.random.Generator) -> None:
    n = len(ctx.original)
    perm = rng.permutation(n)
    n_ctl = max(1, round(ctx.options.control_fraction * n))
    ctx.control_rows = np.sort(perm[:n_ctl])
    ctx.control = ctx.original.take(ctx.control_rows)
    ctx.train_rows = np.sort(perm[n_ctl:])
    ctx.train = ctx.original.take(ctx.train_rows)
    ctx.notes.append(
        f"{n_ctl} original records ({ctx.options.control_fraction:.0%}) were held out as the "
        f"control set; '{ctx.options.generator}' was fit on the other {len(ctx.train)} records"
    )


def _needs_release(ctx: _Context) -> Skip | None:
    return Skip(reason="the release was given") if ctx.synthetic is not None else None


def _release(ctx: _Context, rng: np.random.Generator) -> None:
    ctx.log(
        f"fitting {ctx.options.generator} on {len(ctx.train)} records and generating "
        f"{len(ctx.train)} synthetic records"
    )
    assert ctx.options.generator is not None
    generator = make_generator(ctx.options.generator)
    ctx.synthetic = generator.fit(ctx.train, rng=rng).sample(len(ctx.train), rng=rng)
    note = domain_note(generator, ctx.options.generator, inferred=ctx.domain_from_data, game=True)
    if note is not None:
        ctx.notes.append(note)


def _rare_columns(table: Table, row: int) -> tuple[str, ...]:
    """Columns where the record's value is shared by less than 1 % of the records (a value of
    a categorical column, or a tail of a continuous one), in schema order."""
    out = []
    for col in table.schema.columns:
        x = table.column(col.name)
        if col.is_categorical:
            share = float(np.mean(x == x[row]))
        else:
            v = x[row]
            if np.isnan(v):
                share = float(np.mean(np.isnan(x)))
            else:
                present = x[~np.isnan(x)]
                share = min(float(np.mean(present <= v)), float(np.mean(present >= v)))
        if share < 0.01:
            out.append(col.name)
    return tuple(out)


def _vulnerability(ctx: _Context, rng: np.random.Generator) -> None:
    """Rank the training records from the data alone. With the generator, by ``V_k`` (Meeus et
    al. 2023), which the report sets beside the two-stage screen; a release audited without it
    has no measured ranking, so the records are ranked by cell rarity, the data-only score that
    tracked measured per-record risk better than ``V_k`` on every validation risk map."""
    method = "distance" if ctx.options.generator is not None else "rarity"
    how = f"V_{ctx.options.k}, cosine" if method == "distance" else "cell rarity"
    ctx.log(f"ranking {len(ctx.train)} records by vulnerability ({how})")
    # cell rarity runs by partition on a cluster (synthleak.partitioned), with the same scores
    ranking = partitioned.rank(
        ctx.train, method, k=ctx.options.k, runtime=ctx.runtime.sub("vulnerability")
    )
    assert ranking.scores is not None
    # indexed by row of the original, like every record number of the audit (NaN: held out)
    scores = np.full(len(ctx.original), np.nan)
    scores[ctx.train_rows[ranking.rows]] = ranking.scores
    ctx.ranking = ranking
    top = []
    for i, r in enumerate(ranking.rows[: min(10, len(ctx.train))]):
        row = int(ctx.train_rows[r])
        values: dict[str, str] = {}
        if ctx.options.show_records:
            rec = (
                ctx.frame.iloc[row]
                if ctx.frame is not None
                else ctx.original.take([row]).to_frame().iloc[0]
            ).to_dict()
            values = {str(k): ("" if pd.isna(v) else str(v)) for k, v in rec.items()}
        top.append(
            RecordAtRisk(
                i + 1, row, float(ranking.scores[i]), _rare_columns(ctx.train, int(r)), values
            )
        )
    ctx.sections.vulnerability = VulnerabilitySection(
        method,
        ctx.options.k if method == "distance" else 0,
        "cosine" if method == "distance" else "",
        len(ctx.train),
        scores,
        tuple(top),
    )


def _needs_control(ctx: _Context) -> Skip | None:
    if ctx.synthetic is None:
        return _no_release_skip(ctx)
    return None if ctx.control is not None else Skip(needs=CONTROL_NEEDED)


def _no_release_skip(ctx: _Context) -> Skip:
    """Why a stage that needs the release cannot run: it was not given, or the generator failed
    to make it (that stage's record says why)."""
    if ctx.options.generator is not None:
        return Skip(needs="a release: the generator failed to make one (see its stage)")
    return Skip(needs="the synthetic release (or a generator to make one)")


def _risk_finding(ctx: _Context, key: str, title: str, res: Any, threat: ThreatModel) -> Finding:
    """A risk finding; its baseline is 0 (an attack that does no better on the real records than
    on the control records). The random-guess success rate stays in the details.

    Its trials are predicates or link attempts, but they are all about the records of the
    training and control parts: however many trials there are, fewer records than
    :func:`~synthleak.results.min_trials` cannot tell "no leak" from a serious one, and the
    finding then says "too small to measure" with the size it needs.
    """
    r = res.risk
    # the game's own p-value (against no excess over the control, as this baseline of 0)
    est = RiskEstimate(r.value, r.ci_low, r.ci_high, r.confidence, r.n_trials, 0.0, r.p_value)
    details = res.summary()
    assert ctx.control is not None
    n_records = min(len(ctx.train), len(ctx.control))
    need = min_trials(MetricKind.RISK, r.confidence)
    if n_records < need:
        details["status"] = TOO_SMALL_STATUS
        details["too_small"] = (
            f"it concerns {n_records} records (the smaller of the training part and the "
            f"control), and a rate is resolved to {MAX_WIDTH[MetricKind.RISK]:.2f} only from "
            f"{need} records on"
        )
    return Finding(key, title, MetricKind.RISK, est, threat, details)


def _singling_out(ctx: _Context, rng: np.random.Generator) -> None:
    from synthleak.games.singling_out import SinglingOutGame

    n = ctx.plan.n_attacks
    ctx.log(f"singling out (univariate, multivariate; {n} predicates each)")
    game = SinglingOutGame(("univariate", "multivariate"), n_attacks=n)
    result = game.run(
        _release_tables(ctx),
        seed=game_seed(rng),
        counter=partitioned.predicate_counter(ctx.runtime.sub("singling-out")),  # by partition
    )
    if result.design.correction != "none":
        ctx.notes.append(f"Singling out: {result.design.note}")
    for res in result.attacks:
        title = f"Singling out ({res.attack})"
        if not res.measured:
            ctx.notes.append(f"{title} was not measured: {res.note}")
            continue
        threat = threat_model(
            AttackFamily.SINGLING_OUT, "singling_out", {"attack": res.attack, "n_attacks": n}
        )
        ctx.findings.append(_risk_finding(ctx, f"singling_out.{res.attack}", title, res, threat))


def _default_link_columns(schema: Schema, quasi_ids: Sequence[str]) -> tuple[list[str], list[str]]:
    """Split the columns into two halves for linkability (quasi-identifiers first when given)."""
    names = list(quasi_ids) + [c for c in schema.names if c not in set(quasi_ids)]
    half = max(1, len(names) // 2)
    return names[:half], names[half:] or names[:1]


def _linkability(ctx: _Context, rng: np.random.Generator) -> None:
    from synthleak.games.linkability import LinkabilityGame

    ctx.log("linkability")
    aux_a, aux_b = _default_link_columns(ctx.train.schema, ctx.options.quasi_ids)
    game = LinkabilityGame(aux_a, aux_b, n_attacks=ctx.plan.n_attacks, n_neighbors=1)
    res = game.run(
        _release_tables(ctx),
        seed=game_seed(rng),
        search=partitioned.link_search(ctx.runtime.sub("linkability")),  # by partition on a cluster
    ).attacks[0]
    threat = threat_model(
        AttackFamily.LINKABILITY,
        "linkability",
        {"aux_a": aux_a, "aux_b": aux_b, "n_neighbors": 1},
        aux_a=aux_a,
        aux_b=aux_b,
    )
    ctx.findings.append(_risk_finding(ctx, "linkability", "Linkability", res, threat))


def _membership_nobox(ctx: _Context, rng: np.random.Generator) -> None:
    """No-box membership attacks on the release, calibrated against the control set."""
    seed = game_seed(rng)  # the stage's game draws from its own seed
    from synthleak.games.nobox import NoBoxMembershipGame

    assert ctx.synthetic is not None and ctx.control is not None
    from synthleak.games.nobox import AUDIT_NON_MEMBERS_PER_MEMBER, MIN_NON_MEMBERS, MIN_REFERENCE

    n = min(ctx.plan.n_attacks, len(ctx.train))
    # scored non-members: at most two per member, the rest of the control is the reference
    n_non = max(MIN_NON_MEMBERS, min(len(ctx.control) // 2, AUDIT_NON_MEMBERS_PER_MEMBER * n))
    if n < MIN_NON_MEMBERS or len(ctx.control) < MIN_NON_MEMBERS + MIN_REFERENCE:
        raise InputError(
            f"too small to measure: the no-box attacks need at least {MIN_NON_MEMBERS} training "
            f"records and {MIN_NON_MEMBERS + MIN_REFERENCE} control records ({MIN_NON_MEMBERS} "
            f"scored, {MIN_REFERENCE} as the population's reference); there are {len(ctx.train)} "
            f"and {len(ctx.control)}"
        )
    ctx.log(
        f"membership inference without the generator ({n} members and {n_non} non-members "
        "against the control set)"
    )
    # the exposure of the records the report ranks first: V_k's top records (the game's own
    # ranking), or, for a release audited without its generator, those cell rarity ranks first
    ranked = ctx.ranking
    if ranked is not None and ranked.method != "distance":
        game = NoBoxMembershipGame(
            n_members=n,
            n_exposed=0,
            rows=[int(r) for r in ranked.rows[:10]],
            k=ctx.options.k,
            copies=False,
            n_non_members=n_non,
        )
    else:
        game = NoBoxMembershipGame(
            n_members=n, n_non_members=n_non, n_exposed=10, k=ctx.options.k, copies=False
        )
    # the encoded tables: V_k of the exposure records on the same table as the ranking's
    res = game.run(
        _release_tables(ctx),
        seed=seed,
        runtime=partitioned.driver_runtime(ctx.runtime.sub("nobox")),
    )
    # one record identity everywhere: rows of the user's original, not of the training split
    res = replace(
        res,
        member_rows=ctx.train_rows[res.member_rows].astype(np.int64),
        non_member_rows=(
            res.non_member_rows
            if ctx.control_rows is None
            else ctx.control_rows[res.non_member_rows].astype(np.int64)
        ),
        records=tuple(replace(r, row=int(ctx.train_rows[r.row])) for r in res.records),
    )
    ctx.sections.nobox = res
    threat = threat_model(
        AttackFamily.NOBOX_MEMBERSHIP,
        "nobox_membership",
        {"n_members": int(res.member_rows.size), "n_non_members": int(res.non_member_rows.size)},
    )
    if res.best is not None:
        b = res.best
        ctx.findings.append(
            Finding(
                "membership.nobox",
                f"Membership inference without the generator (strongest attack: '{b.attack}')",
                MetricKind.AUC,
                b.auc,
                threat,
                {
                    "attack": b.attack,
                    "selection_auc": b.selection_auc,
                    "selected_on": b.selected_on,
                    "evaluated_on": b.evaluated_on,
                },
            )
        )


def _columns_of(frame: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    """``frame[columns]`` with a default index, without copying a frame that is already so
    (at census scale a copy of every part is gigabytes)."""
    if list(frame.columns) != list(columns):
        frame = frame[columns]
    index = frame.index
    default = isinstance(index, pd.RangeIndex) and index.start == 0 and index.step == 1
    return frame if default else frame.reset_index(drop=True)


def _copy_frames(ctx: _Context) -> tuple[dict[str, pd.DataFrame], bool]:
    """The parts compared for verbatim copies, and whether they are the user's own values.

    When every part was given as a DataFrame (the command line always gives them so), the
    values are compared as the files hold them, every column included. Otherwise (a release
    the audit generated, or Tables given in Python) every part is decoded from its encoded
    table, so that all of them pass through the same float32 encoding and a copied value
    compares equal to its original.
    """
    names = ["original", "synthetic"] + (["control"] if ctx.control is not None else [])
    if all(n in ctx.frames for n in names):
        ori = ctx.frames["original"]
        if len(ctx.train) != len(ctx.original):
            ori = ori.iloc[ctx.train_rows]
        parts = {"original": ori} | {n: ctx.frames[n] for n in names[1:]}
        shared = [c for c in ori.columns if all(c in f.columns for f in parts.values())]
        return {n: _columns_of(f, shared) for n, f in parts.items()}, True
    assert ctx.synthetic is not None
    tables = {"original": ctx.train, "synthetic": ctx.synthetic, "control": ctx.control}
    return {n: t.to_frame() for n, t in tables.items() if t is not None}, False


def _copies(ctx: _Context, rng: np.random.Generator) -> None:
    """Verbatim copies in the release: whole records (on the analysed columns) and the values
    of every high-cardinality column, left-out identifiers and free text included, each
    against the rate of the control's real non-members (columns at equal size); the long text
    one training record alone holds, with or without a control."""
    from synthleak.metrics.copies import copy_report, lone_text, rare_values

    frames, raw = _copy_frames(ctx)
    left_out = [c for c in ctx.schema.excluded if c in frames["original"].columns]
    ctx.log(
        f"verbatim copies: {len(frames['synthetic'])} synthetic records and the values of "
        f"{'every column' if raw else 'the analysed columns'}"
    )
    rep = copy_report(
        frames["original"],
        frames["synthetic"],
        frames.get("control"),
        row_columns=list(ctx.schema.names),
        value_columns=left_out,
        schema=ctx.schema,
        near_sample=NEAR_COPY_SAMPLE,
        rng=rng,
        counter=partitioned.copies_counter(ctx.runtime.sub("copies")),  # by key range on a cluster
        nearest=partitioned.near_search(ctx.runtime.sub("near-copies")),  # by partition on one
    )
    rep = replace(rep, copied_rows=ctx.train_rows[rep.copied_rows].astype(np.int64))
    if "control" in frames:  # values one record holds: the control's lone values are the chance
        rv = rare_values(
            frames["original"], frames["synthetic"], frames["control"], ctx.schema.categorical_names
        )
        rows = ctx.train_rows[rv.released_rows].astype(np.int64)
        rep = replace(rep, rare_values=replace(rv, released_rows=rows))
    if left_out:  # long text one record holds: unambiguous, needs no control
        lt = lone_text(frames["original"], frames["synthetic"], left_out)
        rows = ctx.train_rows[lt.released_rows].astype(np.int64)
        rep = replace(rep, lone_text=replace(lt, released_rows=rows))
    ctx.sections.copies = rep
    roles = {c: "left out of the attacks" for c in left_out}
    ctx.findings += copy_findings(rep, roles)


def copy_findings(rep: CopyReport, roles: dict[str, str] | None = None) -> list[Finding]:
    """The copy findings of a copy report.

    * ``copies.exact``: synthetic records identical to a training record; with a control, the
      excess over the share of control records identical to a training record (Newcombe);
      without one, the rate against a conservative chance rate, the upper end of the 95%
      interval of the duplicate rate within the original;
    * ``copies.columns``: with a control, the column whose values are found among ``m``
      training records most beyond how often they are found among ``m`` control records (equal
      size, :mod:`synthleak.metrics.copies`), with intervals simultaneous over every column
      checked (Bonferroni), so that picking the worst column does not inflate the figure; it is
      named only when it exceeds chance, and every column copied beyond chance is listed with
      both rates. Without a control, the share of the training records holding a long text one
      record alone holds that the release reproduces, against the stated chance rate
      (:data:`~synthleak.metrics.copies.LONE_TEXT_CHANCE`); the other columns are not measured;
    * ``copies.rare_values`` (with a control set): the share of the training records holding a
      categorical value no other record holds whose value the release holds, over the same
      share of the control records (:func:`synthleak.metrics.copies.rare_values`).

    Every finding's details hold ``people_published`` (distinct training records the finding's
    evidence shows verbatim in the release: whole records for ``copies.exact``, records whose
    lone long text is reproduced for ``copies.columns``, 0 for ``copies.rare_values``, whose
    values may be released by chance at the control's rate) and ``compared_with``
    (``"control"``, ``"chance"`` or ``"none"`` when not measured). Whole records of data with
    few distinct values match by chance, so ``copies.exact`` also holds
    ``copies_expected_by_chance``: the synthetic records a release of other people would hold
    identical to a training record (the baseline rate times the synthetic records).
    """
    roles = roles or {}
    threat = threat_model(AttackFamily.NOBOX_MEMBERSHIP, "copies")
    e = rep.synthetic_in_original
    where = []
    if rep.copied_rows.size:
        where.append(
            f"{rep.copied_rows.size} training record(s) appear verbatim in the release "
            "(their row numbers are in report.json)"
        )
    common = {
        "rate": e.value,
        "n_copied": int(rep.copied_rows.size),
        "people_published": int(np.unique(rep.copied_rows).size),
    }
    if rep.control_in_original is not None:
        base = rep.control_in_original
        exact = rate_excess(_count(e), e.n_trials, _count(base), base.n_trials)
        details: dict[str, Any] = common | {
            "copies_expected_by_chance": base.value * e.n_trials,
            "baseline_rate": base.value,
            "baseline_of": "control records",
            "compared_with": "control",
            "excess": "rate minus the baseline rate (Newcombe interval)",
        }
    else:
        chance = rep.chance_duplicate
        exact = replace(
            e,
            baseline=chance.ci_high,
            p_value=binomial_p(_count(e), e.n_trials, chance.ci_high),
        )
        details = common | {
            "copies_expected_by_chance": chance.value * e.n_trials,
            "baseline_rate": chance.ci_high,
            "baseline_of": "original records",
            "compared_with": "chance",
            "baseline": (
                f"the upper end of the 95% interval of the share of original records identical "
                f"to another original record ({chance.value:.4f} measured): a fresh record of "
                "the population equals a training record about as often as a training record "
                "equals another; the upper end keeps the test conservative without a control"
            ),
        }
    out = [
        Finding(
            "copies.exact",
            "Exact copies of training records",
            MetricKind.RATE,
            exact,
            threat,
            details,
            where=tuple(where),
        )
    ]
    if rep.columns:
        out.append(_column_finding(rep, roles, threat))
    if rep.rare_values is not None:
        out.append(_rare_value_finding(rep.rare_values, threat))
    return out


def _column_finding(rep: CopyReport, roles: dict[str, str], threat: ThreatModel) -> Finding:
    """``copies.columns``: equal-size rates with a control; long text one record holds
    without one (:func:`copy_findings`)."""
    lt = rep.lone_text
    published = 0 if lt is None else int(np.unique(lt.released_rows).size)
    lone_lines: list[str] = []
    if lt is not None and lt.released:
        lone_lines.append(
            f"{lt.released} training record(s) hold a long text that no other training record "
            f"holds and the release reproduces verbatim (columns "
            f"{', '.join(lt.released_columns)}; the training rows are in report.json)"
        )
    cols = [c for c in rep.columns if c.synthetic_in_original_m and c.synthetic_in_control_m]
    if not cols:
        return _column_finding_without_control(rep, lt, published, lone_lines, threat)
    conf = 1 - ALPHA / len(cols)
    excess = {}
    for c in cols:
        ori, ctl = c.synthetic_in_original_m, c.synthetic_in_control_m
        assert ori is not None and ctl is not None
        excess[c.column] = rate_excess(
            _count(ori), ori.n_trials, _count(ctl), ctl.n_trials, confidence=conf
        )
    lines = []
    for c in cols:
        ori, ctl = c.synthetic_in_original_m, c.synthetic_in_control_m
        assert ori is not None and ctl is not None
        if excess[c.column].ci_low > 0:
            role = f" ({roles[c.column]})" if c.column in roles else ""
            lines.append(
                f"column '{c.column}'{role}: {ori.value:.1%} of the synthetic values are found "
                f"among {c.equal_size} training records, against {ctl.value:.1%} among "
                f"{c.equal_size} control records (equal size)"
            )
    worst = max(excess, key=lambda k: (excess[k].ci_low, k))
    w = excess[worst]
    # "some column is copied beyond chance": Bonferroni over the columns, as the simultaneous
    # intervals (each column's exact test, the smallest p times the number of columns)
    ps = [e.p_value for e in excess.values() if math.isfinite(e.p_value)]
    p_any = min(1.0, len(cols) * min(ps)) if ps else math.nan
    est = RiskEstimate(w.value, w.ci_low, w.ci_high, 0.95, w.n_trials, 0.0, p_any)
    above = w.value > 0
    details: dict[str, Any] = {
        "columns_checked": len(cols),
        "interval": f"simultaneous over {len(cols)} column(s) (Bonferroni)",
        "compared_with": "control",
        "people_published": published,
        "equal_size": cols[0].equal_size,
        "excess": (
            "share of the synthetic values found among m training records minus the share found "
            "among m control records, m the smaller part's size (Newcombe interval)"
        ),
    }
    if above:
        details["column"] = worst
    title = "Column values copied verbatim" + (
        f" (worst column: '{worst}')" if above else " (no column exceeds chance)"
    )
    return Finding(
        "copies.columns", title, MetricKind.RATE, est, threat, details, where=(*lines, *lone_lines)
    )


def _column_finding_without_control(
    rep: CopyReport,
    lt: LoneText | None,
    published: int,
    lone_lines: list[str],
    threat: ThreatModel,
) -> Finding:
    """``copies.columns`` without a control: the long text one record holds, against the
    stated chance rate; every other column is not measured."""
    other = [c.column for c in rep.columns if lt is None or c.column not in lt.columns]
    details: dict[str, Any] = {"people_published": published}
    if other:
        details["not_measured_columns"] = other
    if lt is None or lt.n_original == 0:
        nan = float("nan")
        details |= {
            "compared_with": "none",
            "not_measured": (
                "needs a control set to give each column's chance rate (no column left out of "
                "the attacks as an identifier or free text holds a long text that one record "
                "alone holds, the one copy that is unambiguous without it)"
            ),
        }
        return Finding(
            "copies.columns",
            "Column values copied verbatim",
            MetricKind.RATE,
            RiskEstimate(nan, nan, nan, 0.95, 0, 0.0),
            threat,
            details,
        )
    lo, hi = wilson_interval(lt.released, lt.n_original)
    p = binomial_p(lt.released, lt.n_original, lt.chance_rate)
    est = RiskEstimate(lt.released / lt.n_original, lo, hi, 0.95, lt.n_original, lt.chance_rate, p)
    details |= {
        "compared_with": "chance",
        "records": lt.n_original,
        "released": lt.released,
        "columns": list(lt.columns),
        "assumption": (
            f"a generator that never saw a record reproduces a long text that record alone holds "
            f"(at least {LONG_TEXT_CHARS} characters, {LONG_TEXT_LETTERS} of them letters, not a "
            f"date) with probability at most {lt.chance_rate:g}; without a control this is the "
            "only column check with a chance rate"
        ),
    }
    return Finding(
        "copies.columns",
        "Long text one training record holds, copied verbatim",
        MetricKind.RATE,
        est,
        threat,
        details,
        where=tuple(lone_lines),
    )


def copy_checks_not_measured(findings: Sequence[Finding]) -> tuple[StageRecord, ...]:
    """The copy checks that ran without an answer, as records for the summary's not-measured
    list: a copy finding that is not measured, and the columns that a no-control audit cannot
    compare (``details["not_measured_columns"]``)."""
    out = []
    for f in findings:
        if not f.key.startswith("copies."):
            continue
        if f.details.get("not_measured") and not math.isfinite(f.estimate.value):
            no_rate = f.key == "copies.columns"
            reason = (
                "no column has a chance rate without a control, and no column left out as an "
                "identifier or free text holds a long text that one record alone holds"
                if no_rate
                else str(f.details["not_measured"])
            )
            out.append(
                StageRecord(
                    f.key,
                    f.title,
                    StageStatus.NOT_MEASURED,
                    reason,
                    CONTROL_NEEDED if no_rate else "",
                )
            )
        elif f.details.get("not_measured_columns"):
            cols = ", ".join(f"'{c}'" for c in f.details["not_measured_columns"])
            out.append(
                StageRecord(
                    f.key,
                    f"Verbatim copies of the values of column(s) {cols}",
                    StageStatus.NOT_MEASURED,
                    "no chance rate for these columns without a control",
                    CONTROL_NEEDED,
                )
            )
    return tuple(out)


def _rare_value_finding(rv: RareValues, threat: ThreatModel) -> Finding:
    """``copies.rare_values``: lone training values in the release, over the control's rate."""
    est = rate_excess(rv.released_original, rv.n_original, rv.released_control, rv.n_control)
    details: dict[str, Any] = {
        "records": rv.n_original,
        "released": rv.released_original,
        "control_records": rv.n_control,
        "control_released": rv.released_control,
        "columns": list(rv.released_columns),
        "excess": "rate minus the control's rate (Newcombe interval)",
        "compared_with": "control",
        "people_published": 0,  # a value, not a record; the control releases lone values too
    }
    if not (rv.n_original and rv.n_control):
        details["compared_with"] = "none"
        details["not_measured"] = (
            "needs records holding a categorical value that no other record holds, in the "
            f"original and in the control (found {rv.n_original} and {rv.n_control}): a "
            "larger control set, or data with rarer values"
        )
    where: tuple[str, ...] = ()
    if rv.released_original:
        where = (
            f"{rv.released_original} of the {rv.n_original} training records holding a value no "
            f"other record holds find it in the release, against {rv.released_control} of the "
            f"{rv.n_control} control records, the chance rate (columns "
            f"{', '.join(rv.released_columns)}; the training rows are in report.json, or in "
            "report-records.json.gz beside it when the list is long)",
        )
    return Finding(
        "copies.rare_values",
        "Values only one record holds, found in the release",
        MetricKind.RATE,
        est,
        threat,
        details,
        where=where,
    )


def _count(e: RiskEstimate) -> int:
    """The successes behind a rate estimate."""
    return round(e.value * e.n_trials) if e.n_trials else 0


def _release_tables(ctx: _Context) -> Release:
    """The release as the encoded tables: the analysed columns only (no identifiers, no text)."""
    assert ctx.synthetic is not None and ctx.control is not None
    return Release(ctx.train, ctx.synthetic, ctx.control, ctx.schema)


#: Most training records in one part of the audit's release attribute-inference games.
AIA_PART_SIZE = 2000


def _aia_part_size(n_records: int | None) -> int:
    """The parts of the release games, as large as the budget's records (at most
    :data:`AIA_PART_SIZE`): a part's linear programs hold all its records, so a budget below a
    part keeps its programs that small (both attribute stages, so a column has one game)."""
    return AIA_PART_SIZE if n_records is None else max(1, min(AIA_PART_SIZE, n_records))


def _attribute_seed(ctx: _Context) -> int:
    """The seed of every release attribute-inference game of the audit: the first draw of the
    ``attribute_release`` stage's stream, shared by ``attribute_sweep``, so the game of a column
    draws the same records, control swaps and attack streams in both stages (one figure per
    column and rule)."""
    return game_seed(_STAGE.sub("attribute_release").rng(ctx.options.seed))


def _needs_release_aia(ctx: _Context) -> Skip | None:
    if ctx.options.secret is None:
        return Skip(needs=SECRET_NEEDED)
    if ctx.options.secret == SWEEP_ALL:
        return Skip(
            reason="secret 'all': every column is swept (attribute inference of every column)"
        )
    return _needs_control(ctx)


def _needs_sweep(ctx: _Context) -> Skip | None:
    if ctx.options.secret != SWEEP_ALL:
        return Skip(reason="asked for with secret 'all' (--secret all)")
    return _needs_control(ctx)


def _attribute_sweep(ctx: _Context, rng: np.random.Generator) -> None:
    """Attribute inference with every column in turn as the secret, on the release, each
    column's figure the excess over control records swapped in (:func:`attribute_sweep`).

    One finding per swept column, in the audit's family of tests (Holm over all findings, as
    the two singling-out attacks are): a column reads "measurable leakage" only when its excess
    stays significant after the correction. Bounded by the budget (``plan.aia_records``
    records per column, ``plan.aia_queries`` queries per linear program) and, with
    ``max_time``, by :data:`AIA_SWEEP_SHARE` of it; every column keeps its finished parts in
    the run directory, so an interrupted audit resumes them.

    A column's game is the one ``attribute_release`` plays with that column as the secret (same
    seed, records, control swaps, attack and rule; :func:`_attribute_seed`), so a column has
    one figure whether it was named (``secret=COL``) or swept (``secret="all"``)."""
    del rng  # the game's seed is the attribute stages' shared one
    seed = _attribute_seed(ctx)
    from synthleak.games.sweep import attribute_sweep

    assert ctx.synthetic is not None and ctx.control is not None
    params: dict[str, Any] = {"time_limit": 120.0}
    if ctx.plan.aia_queries is not None:
        params["n_queries"] = ctx.plan.aia_queries
    n_records = None if ctx.plan.aia_records is None else min(ctx.plan.aia_records, len(ctx.train))
    max_seconds = None if ctx.options.max_time is None else AIA_SWEEP_SHARE * ctx.options.max_time
    rule = ctx.options.secret_rule
    bins = 5 if rule is None or rule.bins is None else int(rule.bins)
    left_out = {
        c: "an identifier" if c in ctx.identifiers else "free text" for c in ctx.schema.excluded
    }
    ctx.log(
        f"attribute inference of every column: {len(ctx.schema.names)} columns, "
        f"{n_records or len(ctx.train)} training records each"
        + ("" if max_seconds is None else f", within {max_seconds:.0f} s")
    )
    res = attribute_sweep(
        _release_tables(ctx),
        seed=seed,
        attack="recon",
        attack_params=params,
        n_targets=n_records,
        bins=bins,
        left_out=left_out,
        runtime=partitioned.driver_runtime(ctx.runtime.sub("aia-sweep")),
        log=ctx.log,
        max_seconds=max_seconds,
        population_baseline=True,
        part_size=_aia_part_size(n_records),
    )
    # one record identity: rows of the user's original, not of the training split
    columns = []
    for c in res.columns:
        rows = ctx.train_rows[c.rows].astype(np.int64)
        c = replace(c, rows=rows)
        if ctx.options.show_records:
            c = replace(c, values=_values_of(ctx, c.column, c.beyond_population()))
        columns.append(c)
    res = replace(res, columns=tuple(columns))
    ctx.sections.attribute_sweep = res
    short = [c.column for c in res.columns if n_records and 0 < c.n_attacked < n_records]
    if short:
        ctx.notes.append(
            f"attribute sweep: the time limit ({max_seconds:.0f} s, a {AIA_SWEEP_SHARE:.0%} "
            f"share of max_time) let the attack reach fewer than the budget's {n_records} "
            f"records in {len(short)} column(s) ({', '.join(short)}); their intervals are as "
            "wide as that makes them"
        )
    for c in res.columns:
        threat = threat_model(
            AttackFamily.ATTRIBUTE, "attribute_sweep", {"secret": c.column}, secret=c.column
        )
        details: dict[str, Any] = {
            "column": c.column,
            "success_rule": c.rule,
            "accuracy": c.accuracy,
            "control_accuracy": c.control_accuracy,
            "population_accuracy": c.population_accuracy,
            "status": c.status,
            "records_attacked": c.n_attacked,
            "records_beyond_population": int(c.beyond_population().size),
            "queries_per_program": "all" if ctx.plan.aia_queries is None else ctx.plan.aia_queries,
        }
        if c.reason:
            details["not_measured"] = c.reason
        ctx.findings.append(
            Finding(
                f"attribute.sweep.{c.column}",
                f"Attribute inference of '{c.column}' by reconstruction (every column swept)",
                MetricKind.ADVANTAGE,
                c.excess,
                threat,
                details,
                p_value=c.p_value,
            )
        )


def _values_of(ctx: _Context, column: str, rows: np.ndarray) -> tuple[str, ...]:
    """The values of ``column`` in rows of the original, as the user's file holds them."""
    if ctx.frame is not None and column in ctx.frame.columns:
        vals = ctx.frame[column].iloc[rows]
    else:
        vals = ctx.original.take(rows).to_frame()[column]
    return tuple("" if pd.isna(v) else str(v) for v in vals)


def _attribute_release(ctx: _Context, rng: np.random.Generator) -> None:
    """Reconstruction attribute inference on the release, training against control records.

    Bounded by the budget: ``plan.aia_records`` training records are attacked (a random
    subset; all when ``None``) with at most ``plan.aia_queries`` counting queries per linear
    program; the records and queries used are stated in the finding. The game is seeded as
    ``attribute_sweep`` seeds each column's (:func:`_attribute_seed`)."""
    del rng  # the game's seed is the attribute stages' shared one
    seed = _attribute_seed(ctx)
    from synthleak.games.attribute_release import ReleaseAttributeGame

    assert ctx.synthetic is not None and ctx.control is not None and ctx.options.secret is not None
    params: dict[str, Any] = {"time_limit": 120.0}
    if ctx.plan.aia_queries is not None:
        params["n_queries"] = ctx.plan.aia_queries
    n_records = None if ctx.plan.aia_records is None else min(ctx.plan.aia_records, len(ctx.train))
    game = ReleaseAttributeGame(
        ctx.options.secret,
        list(ctx.options.quasi_ids) or None,
        attack_params=params,
        n_targets=n_records,
        log=ctx.log,
        secret_rule=ctx.options.secret_rule,
        part_size=_aia_part_size(n_records),
    )
    res = game.run(
        _release_tables(ctx),  # the sweep's encoded tables
        seed=seed,
        runtime=partitioned.driver_runtime(ctx.runtime.sub("aia-release")),
    )
    ctx.sections.attribute_release = res
    threat = threat_model(AttackFamily.ATTRIBUTE, "attribute_release", secret=ctx.options.secret)
    details: dict[str, Any] = {
        "accuracy": res.accuracy.value,
        "control_accuracy": res.control_accuracy.value,
        "majority_rate": res.majority_rate,
        "status": res.status.value,
        "records_attacked": res.config["n_targets"],
        "control_records_attacked": res.config["n_control_targets"],
        "training_records": res.config["n_original"],
        "queries_per_program": "all" if ctx.plan.aia_queries is None else ctx.plan.aia_queries,
    }
    if ctx.options.secret_rule is not None:
        details["success_rule"] = ctx.options.secret_rule.describe()
        details["secret_bins"] = res.config["secret_classes"]
    if res.reason:
        details["not_measured"] = res.reason
    est = res.advantage
    ctx.findings.append(
        Finding(
            "attribute.recon.release",
            f"Attribute inference of '{ctx.options.secret}' by reconstruction (released data)"
            + (
                ""
                if ctx.options.secret_rule is None
                else f", right when {ctx.options.secret_rule.success()}"
            ),
            MetricKind.ADVANTAGE,
            est,
            threat,
            details,
        )
    )


def _needs_synthetic(ctx: _Context) -> Skip | None:
    return None if ctx.synthetic is not None else _no_release_skip(ctx)


def _utility(ctx: _Context, rng: np.random.Generator) -> None:
    """MRE>10 and 3-TVD of the release with bootstrap intervals over the marginals, and the
    same measures between the training records and the control set as the reference."""
    assert ctx.synthetic is not None
    ref = " and of the control set (reference)" if ctx.control is not None else ""
    ctx.log(f"utility: MRE over 3-way marginals and 3-TVD of the release{ref}")
    counter = partitioned.utility_counter(ctx.runtime.sub("utility"))  # by partition on a cluster
    u = utility_estimate(ctx.train, ctx.synthetic, ctx.control, rng=rng, counter=counter)
    ctx.sections.utility = UtilitySection.from_estimate(u)


def _needs_generator_and_secret(ctx: _Context) -> Skip | None:
    if ctx.options.secret is None:
        return Skip(needs=SECRET_NEEDED)
    if ctx.options.secret == SWEEP_ALL:
        return Skip(
            needs="one named secret column (--secret COLUMN): the game against the generator "
            "infers one column; 'all' sweeps the release"
        )
    return None if ctx.options.generator is not None else Skip(needs=GENERATOR_NEEDED)


def _attribute_game(ctx: _Context, rng: np.random.Generator) -> None:
    """The randomised-secret attribute-inference game against the generator."""
    seed = game_seed(rng)  # the stage's game draws from its own seed
    from synthleak.games.attribute import AttributeGame
    from synthleak.games.secret import Measurement

    assert ctx.options.generator is not None and ctx.options.secret is not None
    n = min(ctx.plan.n, len(ctx.original) // 2)
    # with a time limit the game takes at most its share of it (the membership game, sized to
    # max_time after its own pilot, follows); without one, the budget's allowance bounds it
    # above its floor of games (each game solves one linear program per secret class)
    games = ctx.plan.aia_games
    min_games = 1
    max_seconds: float | None = None
    limit = ""
    if ctx.options.max_time is not None:
        max_seconds = AIA_GAME_SHARE * ctx.options.max_time
        limit = f"the time limit ({max_seconds:.0f} s, a {AIA_GAME_SHARE:.0%} share of max_time)"
    elif ctx.plan.aia_seconds is not None:
        max_seconds = float(ctx.plan.aia_seconds)
        min_games = min(AIA_MIN_GAMES, games)
        limit = (
            f"the budget's time for this stage ({max_seconds:.0f} s, at least {min_games} "
            "games played)"
        )
    ctx.log(
        f"attribute inference of '{ctx.options.secret}': up to {games} games of {n} records "
        f"through '{ctx.options.generator}'"
        + ("" if max_seconds is None else f", within {max_seconds:.0f} s")
    )
    recon: dict[str, Any] = {"time_limit": 120.0}
    if ctx.plan.aia_queries is not None:  # the budget's bound on one linear program
        recon["n_queries"] = ctx.plan.aia_queries
    game = AttributeGame(
        ctx.options.generator,
        ctx.options.secret,
        list(ctx.options.quasi_ids) or None,
        train_size=n,
        synthetic_size=(n,),
        n_games=games,
        attacks=("recon", "dcr", "infer"),
        attack_params={"recon": recon},
        max_seconds=max_seconds,
        min_games=min_games,
        log=ctx.log,
        secret_rule=ctx.options.secret_rule,
    )
    res = game.run(ctx.original, seed=seed, runtime=ctx.runtime.sub("aia"))
    ctx.sections.attribute = res
    played = int(res.config["n_games"])
    if played < games:
        ctx.notes.append(
            f"attribute inference game: {played} of the budget's {games} games fit {limit}; "
            + _aia_power(res, games)
        )
    # the game's attacks see the synthetic data only (no-box, as the game of Annamalai et al.
    # (2024a), Sec. 3): the generator is run by the challenger, never by the attacker
    threat = threat_model(
        AttackFamily.ATTRIBUTE,
        "attribute_game",
        {"n_games": played, "train_size": n},
        secret=ctx.options.secret,
    )
    for a in res.accuracies:
        details: dict[str, Any] = {
            "synthetic_size": a.synthetic_size,
            "auc": a.auc,
            "n_games": a.n_games,
            "status": a.status.value,
        }
        if ctx.options.secret_rule is not None:
            details["success_rule"] = ctx.options.secret_rule.describe()
            details["secret_bins"] = res.config["secret_classes"]
        if a.status is Measurement.NOT_MEASURED:
            details["not_measured"] = a.reason
        ctx.findings.append(
            Finding(
                f"attribute.{a.attack}.m{a.synthetic_size}",
                f"Attribute inference '{a.attack}' (m = {a.synthetic_size} synthetic records)",
                MetricKind.ACCURACY,
                a.accuracy,
                threat,
                details,
            )
        )
    for size in res.sizes:
        if math.isfinite(size.acc_max):
            ctx.privacy_utility.append(
                PrivacyUtilityPoint(
                    f"{ctx.options.generator} (AIA, m={size.synthetic_size})",
                    size.acc_max,
                    "attribute-inference accuracy (best attack)",
                    size.mre_gt10,
                    size.tvd3,
                )
            )
    if res.failures:
        ctx.notes.append(
            f"attribute inference: {len(res.failures)} game/attack runs failed and were left out "
            f"(first reason: {res.failures[0].reason})"
        )


def _aia_power(res: Any, requested: int) -> str:
    """The power the played games buy: the widest accuracy interval of the attacks measured,
    against the width the requested games would give at the same accuracy (Wilson)."""
    from synthleak.metrics.privacy import wilson_interval

    done = [a for a in res.accuracies if a.accuracy.n_trials]
    if not done:
        return "no attack was measured"
    widest = max(done, key=lambda a: a.ci_width)
    acc = widest.accuracy
    per_game = acc.n_trials / max(widest.n_games, 1)
    full = max(round(per_game * requested), acc.n_trials)
    lo, hi = wilson_interval(round(acc.value * full), full)
    return (
        f"the widest accuracy interval ('{widest.attack}', {acc.n_trials} secrets) is "
        f"{widest.ci_width:.2f} wide, against about {hi - lo:.2f} with all {requested} games"
    )


def _needs_generator(ctx: _Context) -> Skip | None:
    return None if ctx.options.generator is not None else Skip(needs=GENERATOR_NEEDED)


def _ranked(ctx: _Context, method: str) -> np.ndarray:
    """Training records (positions in ``ctx.train``) by ``method``, most at risk first; the
    vulnerability stage's ranking when it ranked by ``method``."""
    if ctx.ranking is not None and ctx.ranking.method == method:
        return ctx.ranking.rows
    return rank_records(ctx.train, method, k=ctx.options.k).rows


#: Records shown in the report's comparison of the screen's ranking with V_k's.
SCREEN_SHOWN = 10


def _screen_pools(ctx: _Context) -> int:
    """Shadow (and test) datasets of the two-stage screen."""
    return max(4, min(ctx.plan.screen_datasets, ctx.plan.shadows))


def _screen(ctx: _Context, n_top: int, train_size: int, seed: int) -> tuple[list[int], float]:
    """Stage 1 of the two-stage audit: screen the rarest training records, return the ``n_top``
    rows of the original it ranks riskiest and its wall time; the screening section records
    its ranking beside ``V_k``'s."""
    from synthleak.games.twostage import screen_design, screen_records

    assert ctx.options.generator is not None
    candidates = ctx.train_rows
    design = screen_design(n_top, candidates.size)
    pools = _screen_pools(ctx)
    again = (
        f", then the {design['second_pool']} it ranks riskiest again, each"
        if design["second_pool"]
        else ""
    )
    ctx.log(
        f"two-stage screen: the {design['n_screened']} rarest of {candidates.size} training "
        f"records{again} on {pools} shadow and {pools} test datasets through "
        f"'{ctx.options.generator}'"
    )
    started = time.perf_counter()
    res = screen_records(
        ctx.original,
        ctx.options.generator,
        seed=seed,
        runtime=ctx.runtime.sub("screen"),
        candidates=candidates,
        train_size=train_size,
        n_shadows=pools,
        n_tests=pools,
        **design,
    )
    seconds = time.perf_counter() - started
    ranked = _ranked(ctx, "distance")
    vk_rank = {int(ctx.train_rows[r]): i + 1 for i, r in enumerate(ranked)}
    order = res.order()
    screen_rank = {int(res.rows[p]): i + 1 for i, p in enumerate(order)}
    where = {int(r): i for i, r in enumerate(res.rows)}

    def record(row: int) -> ScreenedRecord:
        i = where.get(row)
        auc = (np.nan, np.nan, np.nan) if i is None else (res.auc[i], res.ci_low[i], res.ci_high[i])
        position = int(np.searchsorted(ctx.train_rows, row))  # its row in ctx.train
        return ScreenedRecord(
            row,
            screen_rank.get(row, 0),
            vk_rank.get(row, 0),
            float(auc[0]),
            float(auc[1]),
            float(auc[2]),
            _rare_columns(ctx.train, position),
        )

    shown = min(SCREEN_SHOWN, res.rows.size)
    ctx.sections.screening = ScreeningSection(
        ctx.options.generator,
        int(candidates.size),
        int(res.rows.size),
        res.n_shadows,
        res.n_tests,
        res.n_queries,
        tuple(record(int(res.rows[p])) for p in order[:shown]),
        tuple(record(int(ctx.train_rows[r])) for r in ranked[:shown]),
        second_pool=res.second_pool,
        first_queries=res.stage1_queries if res.second_pool else res.n_queries,
    )
    if res.failed_datasets:
        ctx.notes.append(
            f"two-stage screen: {res.failed_datasets} of {res.total_datasets} generator runs "
            "failed and their datasets were left out"
        )
    return res.top(n_top).tolist(), seconds


def _run_identity(ctx: _Context, seed: int) -> str:
    """What identifies one audit across its runs in a run directory: its options, the
    original's values and the game's seed."""
    text = json.dumps([ctx.options.to_json(), table_fingerprint(ctx.original), int(seed)])
    return hashlib.sha256(text.encode()).hexdigest()[:24]


class _StageTimes:
    """Wall seconds each part of the membership stage (``screen``, ``game``) has taken over
    the runs of one audit, kept in the run directory (``RUN_DIR/stage-times.json``, keyed as
    :class:`_TimedPlan`): a run that resumes an earlier one adds its own seconds to those
    the earlier runs spent, so that the report states what the part took, not the seconds of
    reading finished work back. Without a run directory nothing is kept (nothing is resumed)."""

    def __init__(self, ctx: _Context, seed: int) -> None:
        run_dir = ctx.runtime.run_dir
        self.path = None if run_dir is None else run_dir / "stage-times.json"
        self.identity = _run_identity(ctx, seed)
        self.seconds: dict[str, float] = {}
        self.earlier: dict[str, float] = {}
        if self.path is not None and self.path.is_file():
            try:
                doc = json.loads(self.path.read_text())
            except (OSError, ValueError):
                doc = None
            if isinstance(doc, dict) and doc.get("identity") == self.identity:
                kept = doc.get("seconds")
                if isinstance(kept, dict):
                    self.earlier = {str(k): float(v) for k, v in kept.items()}
        self.seconds = dict(self.earlier)

    def kept(self, part: str) -> bool:
        """Whether an earlier run of this audit spent time on ``part``."""
        return self.earlier.get(part, 0.0) > 0

    @contextmanager
    def timed(self, part: str) -> Iterator[None]:
        """Time ``part``, adding to the earlier runs' seconds; kept even when interrupted."""
        before = self.earlier.get(part, 0.0)
        started = time.perf_counter()
        try:
            yield
        finally:
            self.seconds[part] = before + (time.perf_counter() - started)
            if self.path is not None:
                doc = {"identity": self.identity, "seconds": self.seconds}
                self.path.parent.mkdir(parents=True, exist_ok=True)
                write_atomic(self.path, (json.dumps(doc, indent=1) + "\n").encode())


class _TimedPlan:
    """What a time limit made an audit's black-box game choose from measured times (whether
    the two-stage screen ran, its notes, the game's sizes and work units, the measured cost),
    kept in the run directory (``RUN_DIR/timed-plan.json``) so that the same audit run again
    after an interruption plays the same game and resumes its finished work without a new
    pilot (which would choose other sizes, and the game's run directory refuses another
    configuration). Keyed by the options, the original's
    values and the game's seed; without a run directory nothing is kept."""

    def __init__(self, ctx: _Context, seed: int) -> None:
        run_dir = ctx.runtime.run_dir
        self.path = None if run_dir is None else run_dir / "timed-plan.json"
        self.identity = _run_identity(ctx, seed)
        self.notes: list[str] = []
        self.earlier: dict[str, Any] | None = None
        if self.path is not None and self.path.is_file():
            try:
                doc = json.loads(self.path.read_text())
            except (OSError, ValueError):
                doc = None
            if isinstance(doc, dict) and doc.get("identity") == self.identity:
                self.earlier = doc

    def save(self, selector: str, game: MembershipGame, cost: MembershipCost) -> None:
        if self.path is None:
            return
        doc = {
            "identity": self.identity,
            "selector": selector,
            "notes": self.notes,
            "n_shadows": int(game.n_shadows),
            "n_tests": int(game.n_tests),
            "batch_size": int(game.batch_size),
            "cost": cost.to_dict(),
        }
        self.path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(self.path, (json.dumps(doc, indent=1) + "\n").encode())


#: The membership pilot's stream (its number of runs depends on the machine's speed, so it
#: draws from none that anything else reads).
_PILOT = stream("audit/membership-pilot")

#: What the audit's black-box game ranks targets by when a time limit leaves no room for the
#: two-stage screen: cell rarity, the screen's own prefilter (the best selector from the data
#: alone on the ground-truth risk maps, benchmarks/RESULTS_selectors.md).
SCREEN_FALLBACK = "rarity"


def _screen_share() -> float:
    """The share of a time limit the two-stage screen may take: its share of the ``standard``
    budget's generator runs (its pool, or pools, against the game behind it, which the budget
    measured as costing together about the game without a screen), so that a timed audit keeps
    that balance instead of spending the limit on the screen and leaving the smallest game."""
    from synthleak.games.twostage import screen_design, screen_generator_runs

    b = BUDGETS[Budget.STANDARD]
    screen = screen_generator_runs(screen_design(b.mia_targets, b.n), b.screen_datasets)
    return screen / (screen + (b.screened_shadows or b.shadows) + b.tests)


def _screen_or_not(ctx: _Context, cost: MembershipCost, n_targets: int, shared: bool) -> str:
    """``"screen"`` when the two-stage screen (its generator runs, projected from ``cost``)
    takes at most :func:`_screen_share` of the time the limit leaves after the pilot, and the
    smallest useful game fits after it; else :data:`SCREEN_FALLBACK`, with a note saying why."""
    from synthleak.games.twostage import screen_design, screen_generator_runs

    assert ctx.options.max_time is not None
    workers = ctx.runtime.workers
    pools = _screen_pools(ctx)
    design = screen_design(n_targets, ctx.train_rows.size)
    screen = cost.generation_seconds(screen_generator_runs(design, pools), workers)
    # the smallest game as a timed audit would run it: in balanced work units
    smallest = smallest_game_seconds(
        cost,
        n_targets=n_targets,
        workers=workers,
        shared=shared,
        batch=unit_datasets(cost.fit_seconds),
    )
    available = ctx.options.max_time - cost.pilot_seconds
    share = _screen_share()
    fits = screen + smallest <= available
    if fits and screen <= share * available:
        return "screen"
    pooled = (
        f"its two pools of {pools} shadow and {pools} test datasets"
        if design["second_pool"]
        else f"its {pools} shadow and {pools} test datasets"
    )
    took = (
        f"The two-stage screen was not run: {pooled} through '{ctx.options.generator}' "
        f"would take about {format_seconds(screen)} "
        f"({cost.fit_seconds:.1f} s a run, measured, on {workers} worker(s))"
    )
    if not fits:
        why = (
            f" and the smallest useful game about {format_seconds(smallest)}: with the pilot's "
            f"{format_seconds(cost.pilot_seconds)}, more than the time limit "
            f"({format_seconds(ctx.options.max_time)})."
        )
    else:
        why = (
            f", more than {share:.0%} of the {format_seconds(available)} the time limit leaves "
            f"after the pilot (the screen's share of the standard budget's generator runs), so "
            f"the game keeps the larger part of the limit."
        )
    ctx.notes.append(
        took + why + f" The game's targets are the records {SCREEN_FALLBACK!r} ranks riskiest "
        "(cell rarity, the screen's own prefilter)."
    )
    ctx.log("two-stage screen skipped: it would take more of the time limit than it may")
    return SCREEN_FALLBACK


def game_train_size(release: int, original: int, n_targets: int, budget: int) -> tuple[int, str]:
    """Training records of each dataset of the audit's shadow-model game, and why it is fewer
    than ``release`` ("" when it is not).

    A release's membership risk depends on how many records it was trained on (smaller
    training sets leak more), so the game's datasets hold as many records as the release was
    trained on (``release``), unless the budget's ``budget`` (:attr:`BudgetPlan.n`) is smaller
    or the ``original`` records cannot supply them: the ``n_targets`` targets aside, the other
    records are split into three disjoint pools (shadow, test and known records), so a dataset
    holds at most a third of them.
    """
    limit = max(2, (int(original) - int(n_targets)) // 3)
    n = min(int(release), int(budget), limit)
    if n >= release:
        return n, ""
    if n == limit and limit < budget:
        return n, (
            f"the original's {original} records supply the {n_targets} targets and three "
            f"disjoint pools of shadow, test and known records, at most {limit} each"
        )
    return n, f"the budget's datasets hold at most {budget} records"


def _membership(ctx: _Context, rng: np.random.Generator) -> None:
    seed = game_seed(rng)  # the stage's game draws from its own seed
    from synthleak.attacks.base import make_attack
    from synthleak.games.targets import Targets

    assert ctx.options.generator is not None
    attacks = []
    for a in ctx.plan.mia_attacks:
        try:
            make_attack(AttackFamily.MEMBERSHIP, a)
        except InputError as exc:  # MissingExtraError included: a note, never a crash
            ctx.notes.append(f"membership attack '{a}' was skipped: {exc}")
            continue
        attacks.append(a)
    if not attacks:
        raise InputError("no membership attack could run (see the notes)")
    n_top = min(ctx.plan.mia_targets, len(ctx.train))
    n_controls = min(ctx.plan.mia_controls, len(ctx.original) - n_top)
    n_targets = n_top + n_controls
    release = len(ctx.train)  # what the release was trained on (the original, or the split)
    n, why = game_train_size(release, len(ctx.original), n_targets, ctx.plan.n)
    if n <= n_targets:  # a shared pool's dataset holds every target and known records
        needed = n_targets + 3 * (n_targets + 1)
        raise InputError(
            f"too small to measure: every shadow dataset holds the {n_targets} targets and "
            f"known records, drawn from three disjoint pools of the original's other records; "
            f"{len(ctx.original)} original records allow datasets of {n} records only (it needs "
            f"at least {needed} original records, or a budget with fewer targets)"
        )
    if why:
        ctx.notes.append(
            f"The shadow-model game used datasets of {n} records, fewer than the {release} the "
            f"release was trained on ({why}): smaller training sets leak more, so its figures "
            "may overstate the release's risk."
        )
    generator = ctx.options.generator

    def make_game(selector: str, targets: Targets) -> MembershipGame:
        return MembershipGame(
            generator,
            targets=targets,
            train_size=n,
            synthetic_size=n,
            # a screened audit gives the screen's share of the budget back (a fixed plan size,
            # so the result does not depend on the machine's speed)
            n_shadows=(ctx.plan.screened_shadows or ctx.plan.shadows)
            if selector == "screen"
            else ctx.plan.shadows,
            n_tests=ctx.plan.tests,
            attacks=attacks,
        )

    # the pilot draws from its own stream: how many runs it makes depends on the machine's speed
    pilot_rng = _PILOT.rng(seed)
    selector = ctx.options.selector
    measured = None
    # a time limit's choices (screen or not, the game's sizes) come from measured times: an
    # interrupted run keeps them, so that running it again resumes the same game
    plan = _TimedPlan(ctx, seed) if ctx.options.max_time is not None else None
    if plan is not None and plan.earlier is not None:
        selector = plan.earlier["selector"]
        ctx.notes.extend(plan.earlier["notes"])
        if "cost" in plan.earlier:  # the projection of the interrupted run, not a new pilot
            measured = MembershipCost.from_dict(plan.earlier["cost"])
    elif selector == "screen" and plan is not None:
        # measure the generator first: a screen the time limit cannot pay for is not started
        pilot = make_game(selector, Targets.rows([int(ctx.train_rows[0])]))
        measured = measure_membership_cost(pilot, ctx.original, rng=pilot_rng, runtime=ctx.runtime)
        notes = len(ctx.notes)
        selector = _screen_or_not(ctx, measured, n_targets, shared_pool(pilot))
        plan.notes = ctx.notes[notes:]
    times = _StageTimes(ctx, seed)
    screen_seconds = 0.0  # this run's
    if selector == "screen":
        with times.timed("screen"):
            top, screen_seconds = _screen(ctx, n_top, n, seed)
    else:
        top = [int(ctx.train_rows[r]) for r in _ranked(ctx, selector)[:n_top]]
    pool = np.setdiff1d(np.arange(len(ctx.original)), top)
    controls = [int(r) for r in rng.choice(pool, min(n_controls, pool.size), replace=False)]
    ctx.log(
        f"black-box membership inference: {len(top) + len(controls)} targets, datasets of "
        f"{n} records through '{ctx.options.generator}'"
    )
    targets = Targets.rows(top, label=selector)
    if controls:
        targets = targets + Targets.rows(controls, label="random")
    game = make_game(selector, targets)
    n_targets = len(top) + len(controls)
    workers = ctx.runtime.workers
    # the plan's sizes are a default: a time limit (less the screen's and the pilot's time)
    # may raise them
    max_seconds = None if plan is None else ctx.options.max_time - screen_seconds  # type: ignore[operator]
    if plan is not None and plan.earlier is not None:
        game.n_shadows, game.n_tests = plan.earlier["n_shadows"], plan.earlier["n_tests"]
        game.batch_size = plan.earlier.get("batch_size", game.batch_size)
        max_seconds = None
        ctx.log("the game's sizes and targets are those of the interrupted run (time limit)")
    cost, projected = plan_membership(
        game,
        ctx.original,
        n_targets=n_targets,
        rng=pilot_rng,
        workers=workers,
        max_seconds=max_seconds,
        cap=False,
        cost=measured,
        runtime=ctx.runtime,
        # a slow generator's runs in short work units, so that the last leave no worker idle
        # long (the units' size is kept with the plan: units of another size share their keys,
        # not their datasets, and the game's run directory refuses them)
        balance=plan is not None and plan.earlier is None,
    )
    if plan is not None and plan.earlier is None:
        plan.save(selector, game, cost)
    ctx.log(
        cost.summary(
            n_shadows=game.n_shadows,
            n_tests=game.n_tests,
            n_targets=n_targets,
            workers=workers,
            batch=game.batch_size,
        )
    )
    with times.timed("game"), warnings.catch_warnings():
        warnings.simplefilter("ignore", BaselineWarning)
        res = game.run(ctx.original, seed=seed, runtime=ctx.runtime)
    ctx.sections.membership = res
    ctx.findings.append(membership_finding(res, rng=finding_rng(res)))
    claimed, neighbouring = ctx.options.claimed_epsilon, ctx.options.neighbouring
    if claimed is None:  # the generator's own claim, for the relation its library states
        gen = make_generator(ctx.options.generator)
        claimed = claimed_epsilon_of(gen)
        declared = getattr(gen, "claimed_neighbouring", None)
        if claimed is not None and declared is not None and declared != neighbouring:
            ctx.notes.append(
                f"'{ctx.options.generator}' states its epsilon for {declared.replace('_', '/')} "
                f"neighbours; the claim is tested for that relation"
            )
            neighbouring = declared
    ctx.sections.epsilon = membership_epsilon(
        res,
        rng=rng,
        claimed=claimed,
        delta=ctx.options.delta,
        neighbouring=neighbouring,
    )
    # the power the budget bought; its epsilon ceiling is the estimate's own (the trials that
    # came back, in the claim's relation), so the report states one figure for it
    bought = power(game.n_tests, neighbouring=neighbouring)
    bought = replace(bought, epsilon_ceiling=ctx.sections.epsilon.ceiling)
    ctx.sections.budget = BudgetRecord(
        game.n_shadows,
        game.n_tests,
        projected,
        times.seconds["game"],
        bought,
        times.seconds.get("screen", 0.0),
        train_size=n,
        release_train_size=release,
        resumed=tuple(p for p in ("screen", "game") if times.kept(p)),
    )


STAGES: tuple[Stage, ...] = (
    Stage("split", "Control set held out", _needs_split, _split),
    Stage("release", "Synthetic release generated", _needs_release, _release),
    Stage("vulnerability", "Vulnerability ranking", lambda ctx: None, _vulnerability),
    Stage("copies", "Verbatim copies", _needs_synthetic, _copies, kept=True),
    Stage("singling_out", "Singling out", _needs_control, _singling_out, kept=True),
    Stage("linkability", "Linkability", _needs_control, _linkability, kept=True),
    Stage(
        "membership_nobox",
        "Membership inference without the generator",
        _needs_control,
        _membership_nobox,
        kept=True,
    ),
    Stage(
        "attribute_release",
        "Attribute inference on the release",
        _needs_release_aia,
        _attribute_release,
        kept=True,
    ),
    Stage(
        "attribute_sweep",
        "Attribute inference of every column",
        _needs_sweep,
        _attribute_sweep,
        kept=True,
    ),
    Stage("utility", "Utility", _needs_synthetic, _utility, kept=True),
    Stage(
        "attribute_game",
        "Attribute-inference game against the generator",
        _needs_generator_and_secret,
        _attribute_game,
    ),
    Stage("membership", "Membership inference with shadow models", _needs_generator, _membership),
)


def audit(
    original: pd.DataFrame | Table,
    *,
    synthetic: pd.DataFrame | Table | None = None,
    control: pd.DataFrame | Table | None = None,
    options: AuditOptions | None = None,
    schema: Schema | None = None,
    runtime: Runtime | None = None,
    policy: Policy | None = None,
    log: Log | None = None,
    sources: dict[str, str] | None = None,
    command_line: str | None = None,
    encoded: EncodedFrames | None = None,
    **settings: Any,
) -> AuditResult:
    """Audit a synthetic release (or a generator) against the real records behind it.

    Parameters
    ----------
    original : DataFrame or Table
        The real records the synthetic data was (or will be) generated from.
    synthetic : DataFrame or Table, optional
        The released synthetic data. Without it, ``generator`` is fit on the original.
    control : DataFrame or Table, optional
        Real records from the same population that the generator never saw.
    options : AuditOptions, optional
        What to audit and how (:class:`~synthleak.results.AuditOptions`). Without it, the
        keyword arguments below (``settings``: any of its fields) build it; give one or the
        other. The result records it as the leading fields of ``result.config``, and
        ``result.config.options`` gives it back to run the same audit again.
    generator : str, optional
        Generator spec (``baynet:k=2``, ...). Enables the black-box shadow-model attacks.
    secret : str, optional
        A sensitive column: enables attribute inference. ``"all"`` sweeps every column of the
        release in turn (:func:`synthleak.games.sweep.attribute_sweep`), each ranked by its
        excess over the control baseline, one finding per column.
    quasi_ids : sequence of str
        Columns the attacker knows about people (default: every other column).
    secret_rule : SecretRule, optional
        When a guess of a numeric secret counts as right (required for one): within an
        absolute or relative tolerance, or the right quantile bin
        (:class:`synthleak.games.attribute.SecretRule`).
    budget : Budget
        ``quick``, ``standard`` or ``paper`` (see :data:`BUDGETS`).
    plan : BudgetPlan, optional
        Explicit sizes, overriding ``budget``.
    schema : Schema, optional
        Defaults to the schema inferred on the original (with ``encoded``, its schema).
    seed : int
        Same seed, same result (whatever the runtime's workers or cluster).
    runtime : Runtime, optional
        Workers, Dask cluster, resumable run directory, progress bars.
    control_fraction : float, default 0.5
        Share of the original held out as control when a generator is fit here. Half keeps the
        control as large as the training part, so singling out and linkability compare the two
        at equal size (their intervals widen about ``n_train / n_control`` times otherwise).
    k : int
        Neighbours of the vulnerability score.
    show_records : bool
        Keep the values of the most exposed records in the result (the report then contains
        personal data); by default only their row numbers and the columns where they stand out.
    keep : sequence of str
        Columns to analyse although they look like identifiers or free text (which are left
        out of the attacks by default, with a note; free text is still checked for copies).
    special_values : dict or sequence of str, default none
        Codes of numeric columns that are not numbers, such as a -8 "not applicable"
        (``{"age": [-8]}`` or ``["age=-8,-9"]``): each is its own category in a
        ``"<column> (special)"`` column beside the numbers
        (:func:`~synthleak.data.values.split_special`), so a generator cannot turn it into
        another number and attacks and copy checks treat it as a value.
    claimed_epsilon : float, optional
        The differential-privacy epsilon the generator claims (default: what the generator
        declares, if anything); the membership game's empirical epsilon is checked against it.
    delta, neighbouring : float, str
        The claim's delta and neighbouring relation (``add_remove`` or ``substitute``).
    policy : Policy, optional
        Pass/fail checks (:mod:`synthleak.policy`) evaluated on the audit's metrics.
    max_time : float, optional
        Wall-time limit in seconds for the shadow-model game: its shadow and test datasets are
        sized to fit it after a measured pilot. Required by ``budget="auto"``. The
        randomised-secret attribute game (:data:`AIA_GAME_SHARE`) and the attribute sweep
        (:data:`AIA_SWEEP_SHARE`) take at most a share of it.
    selector : {"screen", "distance", "rare", "loglik"}
        How the membership game's targets are chosen among the training records. ``screen``
        (default): the two-stage audit, a cheap shadow-model screen of the rarest records
        (:func:`synthleak.games.twostage.screen_records`) ranks them by measured risk, and its
        wall time is taken from the game's shadow datasets so the audit keeps its budget's
        time. ``distance``: the paper's ``V_k`` (Meeus et al. 2023); ``rare`` and ``loglik``:
        its baselines.
    log : callable, optional
        Receives one line per stage (the CLI prints them).
    sources : dict, optional
        Names of the inputs (paths) for the report.
    command_line : str, optional
        The command that ran the audit, for the reproducibility section.
    encoded : EncodedFrames, optional
        What :func:`~synthleak.data.io.encode_frames` returned for exactly the DataFrames given
        (its ``frames`` are them): the audit then uses its schema, tables and profile instead of
        profiling and encoding the data again. The command line passes its own, with the
        frames compacted (:func:`~synthleak.data.io.compact_frame`).

    Returns
    -------
    AuditResult

    References
    ----------
    Meeus et al. (2023) (vulnerability, membership inference); Annamalai et al. (2024a)
    (attribute inference, utility); Giomi et al. (2023) (singling out, linkability).
    """
    say: Log = log or (lambda _msg: None)
    if options is None:
        try:
            options = AuditOptions(**settings)
        except TypeError:
            known = {f.name for f in fields(AuditOptions)}
            bad = sorted(set(settings) - known)
            raise InputError(
                f"audit() got unknown argument(s) {', '.join(bad)}: the options are "
                f"{', '.join(sorted(known))}"
            ) from None
    elif settings:
        raise InputError(
            f"give the options either as options= or as keyword arguments, not both (got "
            f"{', '.join(sorted(settings))} beside options)"
        )
    opts = options
    rt = as_runtime(runtime)
    if synthetic is None and opts.generator is None:
        raise InputError(
            "nothing to audit: give the released synthetic data (synthetic) or a generator"
        )
    frame = original if isinstance(original, pd.DataFrame) else None
    parts = {"original": original, "synthetic": synthetic, "control": control}
    given = {k: v for k, v in parts.items() if v is not None}
    if encoded is None:
        enc = encode_parts(given, schema=schema, keep=opts.keep, special_values=opts.special_values)
    elif list(encoded.tables) != list(given) or any(
        encoded.frames.get(k) is not v for k, v in given.items()
    ):
        raise InputError(
            "encoded was made from other data than the parts given: encode the frames in the "
            "order original, synthetic, control and pass the frames it holds (encoded.frames) "
            "as those parts, or leave encoded out"
        )
    elif schema is not None and schema != encoded.schema:
        raise InputError(
            "schema differs from the schema encoded was made with: leave schema out (encoded "
            "carries its own)"
        )
    else:
        enc = encoded
    sch = enc.schema
    ori, syn, ctl = enc.tables["original"], enc.tables.get("synthetic"), enc.tables.get("control")
    frames = {k: v for k, v in given.items() if isinstance(v, pd.DataFrame)}
    secret, quasi_ids = opts.secret, opts.quasi_ids
    if secret is not None and secret != SWEEP_ALL:
        from synthleak.games.secret import validate_secret

        left_out = {c: "an identifier" for c in enc.profile.identifiers}
        left_out.update({c: "free text" for c in enc.profile.text_columns})
        validate_secret(  # before any attack
            sch, secret, list(quasi_ids) or None, data=ori, rule=opts.secret_rule, left_out=left_out
        )
    unknown = [q for q in quasi_ids if q not in sch]
    if unknown:
        raise InputError(
            f"quasi_ids names unknown column(s) {unknown}: the columns are {', '.join(sch.names)}"
        )
    if len(ori) <= opts.k:
        raise InputError(
            f"the original has {len(ori)} records: an audit needs more than k = {opts.k}"
        )
    if opts.generator is not None:
        make_generator(opts.generator)  # an unknown or bad spec fails before any work

    ctx = _Context(
        options=opts,
        log=say,
        runtime=rt,
        schema=sch,
        original=ori,
        frame=frame,
        synthetic=syn,
        control=ctl,
        frames=frames,
        identifiers=tuple(enc.profile.identifiers),
        domain_from_data=enc.inferred,
    )
    for mod, extra in OPTIONAL.items():
        if find_spec(mod) is None:
            ctx.notes.append(
                f"optional package '{mod}' is not installed: the parts that need it are skipped "
                f"(install with pip install 'synthleak[{extra}]')"
            )
    if rt.run_dir is not None:  # never resume numbers drawn under another layout
        check_layout(rt.run_dir, STREAMS_VERSION)
    records = run_stages(ctx, STAGES)
    sources = sources or {}
    config = AuditConfig.of(
        opts,
        original=sources.get("original", "original"),
        synthetic=sources.get("synthetic") or None,
        control=sources.get("control") or None,
        confidence=0.95,
        command_line=command_line or "python API",
        versions=package_versions(),
        created=_dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        n_original=len(ori),
        n_synthetic=len(ctx.synthetic) if ctx.synthetic is not None else 0,
        n_control=len(ctx.control) if ctx.control is not None else 0,
    )
    result = _assemble(ctx, config, sch, DataSection(enc.profile, enc.domain), records)
    if policy is not None:
        result = replace(result, policy=policy.evaluate(audit_metrics(result)))
    return result


def _assemble(
    ctx: _Context,
    config: AuditConfig,
    schema: Schema,
    data: DataSection,
    records: Sequence[StageRecord],
) -> AuditResult:
    """The audit's result from what the stages left in ``ctx``: every section of
    ``ctx.sections``, the findings (with their verdicts, :func:`~synthleak.results.assess`) and
    the notes."""
    sec = ctx.sections
    return AuditResult(
        config=config,
        schema=schema,
        data=data,
        stages=(*records, *copy_checks_not_measured(ctx.findings)),
        findings=assess(ctx.findings),
        vulnerability=sec.vulnerability,
        screening=sec.screening,
        membership=sec.membership,
        utility=sec.utility,
        privacy_utility=tuple(ctx.privacy_utility),
        nobox=sec.nobox,
        copies=sec.copies,
        attribute=sec.attribute,
        attribute_release=sec.attribute_release,
        attribute_sweep=sec.attribute_sweep,
        epsilon=sec.epsilon,
        budget=sec.budget,
        notes=tuple(ctx.notes),
    )


#: The context fields a kept stage may change (``Stage.kept``).
_KEPT_FIELDS = ("findings", "notes", "privacy_utility", "sections")


class _Kept:
    """The finished stages of an audit, kept in its run directory (``RUN_DIR/stages``).

    A stage marked ``kept`` that finishes stores what it added to the context (findings, notes,
    privacy-utility points, sections) as one JSON document, written atomically; a re-run of the
    same audit takes it back instead of running the stage again, so an audit stopped by Ctrl-C
    or ``kill -9`` keeps every stage it finished, however long each took. The document's key
    holds a digest of everything the stage's output depends on: the versions of synthleak and
    of the packages it computes with, the random stream layout, the options (and so the seed),
    the schema, the values of the three parts (the encoded tables, and the frames as read,
    whose left-out columns the copy check reads) and what happened to every earlier stage.
    Another audit in the same directory has other keys and runs every stage. Results
    round-trip through JSON losslessly (:mod:`synthleak.serde`), so a resumed audit reports
    what an uninterrupted one does.
    """

    def __init__(self, ctx: _Context) -> None:
        assert ctx.runtime.run_dir is not None
        self.ctx = ctx
        self.store = RunStore(ctx.runtime.run_dir / "stages", {"kept": "audit stages"})
        self._base: str | None = None

    def _part(self, name: str) -> str:
        ctx = self.ctx
        table = {"original": ctx.original, "synthetic": ctx.synthetic, "control": ctx.control}[name]
        if table is None:
            return "-"
        h = hashlib.sha256(table_fingerprint(table).encode())
        frame = ctx.frames.get(name)
        if frame is not None:
            h.update(json.dumps([str(c) for c in frame.columns]).encode())
            try:
                rows = pd.util.hash_pandas_object(frame, index=False)
            except (TypeError, ValueError):  # values pandas cannot hash as they are (lists)
                rows = pd.util.hash_pandas_object(frame.astype(str), index=False)
            h.update(np.ascontiguousarray(rows.to_numpy(dtype=np.uint64)).data)
        return h.hexdigest()

    def key(self, st: Stage, records: Sequence[StageRecord]) -> str:
        """The key of ``st``'s output, after the stages ``records`` describe."""
        if self._base is None:  # at the first kept stage: after the release exists
            ctx = self.ctx
            parts = [self._part(n) for n in ("original", "synthetic", "control")]
            self._base = json.dumps(
                [
                    package_versions(),  # synthleak, numpy, scikit-learn, ...: same numbers
                    STREAMS_VERSION,
                    ctx.options.to_json(),
                    ctx.schema.to_json(),
                    list(ctx.identifiers),
                    parts,
                ]
            )
        before = [[r.name, r.status.value, r.reason, r.needs] for r in records]
        text = json.dumps([self._base, before]).encode()
        return f"{st.name}-{hashlib.sha256(text).hexdigest()[:24]}"

    def get(self, key: str) -> tuple[dict[str, Any], float] | None:
        """The stored output of ``key`` and the seconds the stage took, if it finished."""
        if key not in self.store:
            return None
        return self.store.get_document(key), float(self.store.meta(key).get("seconds", math.nan))

    def put(self, key: str, doc: dict[str, Any], seconds: float) -> None:
        self.store.put_document(key, doc, {"seconds": seconds})

    @staticmethod
    def mark(ctx: _Context) -> dict[str, Any]:
        """What the context holds before a stage runs (:meth:`output` compares with it)."""
        held = {f.name: getattr(ctx, f.name) for f in fields(_Context)}
        held["_sizes"] = {n: len(getattr(ctx, n)) for n in _KEPT_FIELDS if n != "sections"}
        held["_sections"] = {f.name: getattr(ctx.sections, f.name) for f in fields(_Sections)}
        return held

    @staticmethod
    def output(ctx: _Context, mark: dict[str, Any]) -> dict[str, Any] | None:
        """What the stage added to the context, as JSON (``None`` when it changed anything
        else, which cannot be kept)."""
        if any(
            getattr(ctx, f.name) is not mark[f.name]
            for f in fields(_Context)
            if f.name not in _KEPT_FIELDS
        ):
            return None
        sizes = mark["_sizes"]
        return {
            "findings": jsonable(ctx.findings[sizes["findings"] :]),
            "notes": ctx.notes[sizes["notes"] :],
            "privacy_utility": jsonable(ctx.privacy_utility[sizes["privacy_utility"] :]),
            "sections": {
                name: jsonable(value)
                for name, value in ((n, getattr(ctx.sections, n)) for n in mark["_sections"])
                if value is not mark["_sections"][name]
            },
        }

    @staticmethod
    def restore(ctx: _Context, doc: dict[str, Any]) -> None:
        """Add a stored output to the context, as the stage did."""
        ctx.findings.extend(Finding.from_dict(d) for d in doc["findings"])
        ctx.notes.extend(doc["notes"])
        ctx.privacy_utility.extend(PrivacyUtilityPoint.from_dict(d) for d in doc["privacy_utility"])
        hints = typing.get_type_hints(_Sections)
        for name, value in doc["sections"].items():
            setattr(ctx.sections, name, decode(hints[name], value))


def run_stages(ctx: _Context, stages: Sequence[Stage]) -> list[StageRecord]:
    """Run every stage that has its inputs; record what happened to each. With a run directory,
    a stage marked ``kept`` that an earlier run of the same audit finished is taken from it
    (:class:`_Kept`)."""
    kept = _Kept(ctx) if ctx.runtime.run_dir is not None else None
    try:
        with interrupts_noticed():
            return _run_stages(ctx, stages, kept)
    finally:
        if kept is not None:
            kept.store.close()


def _run_stages(ctx: _Context, stages: Sequence[Stage], kept: _Kept | None) -> list[StageRecord]:
    records: list[StageRecord] = []
    for st in stages:
        skip = st.needs(ctx)
        if skip is not None:
            status = StageStatus.NOT_MEASURED if skip.needs else StageStatus.NOT_APPLICABLE
            records.append(StageRecord(st.name, st.title, status, skip.reason, skip.needs))
            continue
        key = kept.key(st, records) if kept is not None and st.kept else None
        stored = kept.get(key) if kept is not None and key is not None else None
        if stored is not None:
            _Kept.restore(ctx, stored[0])
            ctx.log(f"{st.title}: finished in an earlier run, kept")
            records.append(StageRecord(st.name, st.title, StageStatus.MEASURED, "", "", stored[1]))
            continue
        mark = _Kept.mark(ctx) if key is not None else None
        t0 = time.perf_counter()
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", BaselineWarning)  # the verdict carries it
                st.run(ctx, _STAGE.sub(st.name).rng(ctx.options.seed))
        except InputError as exc:
            check_interrupted()
            ctx.log(f"{st.title}: not measured ({exc})")
            records.append(
                StageRecord(
                    st.name,
                    st.title,
                    StageStatus.NOT_MEASURED,
                    str(exc),
                    "",
                    time.perf_counter() - t0,
                )
            )
            continue
        except Exception as exc:  # a failing stage never loses the others' work
            raise_if_interrupted(exc)
            check_interrupted()
            msg = str(exc).splitlines()[0] if str(exc) else ""
            ctx.log(f"{st.title}: failed ({type(exc).__name__}: {msg})")
            records.append(
                StageRecord(
                    st.name,
                    st.title,
                    StageStatus.FAILED,
                    f"{type(exc).__name__}: {msg}",
                    "",
                    time.perf_counter() - t0,
                )
            )
            continue
        seconds = time.perf_counter() - t0
        check_interrupted()  # a Ctrl-C that the stage's code swallowed: nothing is kept
        doc = _Kept.output(ctx, mark) if mark is not None else None
        if kept is not None and key is not None and doc is not None:
            kept.put(key, doc, seconds)
        records.append(StageRecord(st.name, st.title, StageStatus.MEASURED, "", "", seconds))
    return records
