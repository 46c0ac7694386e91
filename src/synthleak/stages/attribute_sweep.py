"""The ``attribute_sweep`` stage: attribute inference on the release with every column in
turn as the secret (``secret="all"``), one finding per column.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np

from synthleak import partitioned
from synthleak.attacks.base import AttackFamily
from synthleak.data.release import Release
from synthleak.results import SWEEP_ALL
from synthleak.runtime import Runtime
from synthleak.stages.attribute_release import (
    AIA_PART_SIZE,
    aia_part_size,
    attribute_seed,
    values_of,
)
from synthleak.stages.base import (
    Context,
    Sections,
    Skip,
    Stage,
    StageOutput,
    needs_control,
    release_tables,
)
from synthleak.threat import threat_model
from synthleak.verdicts import Finding, MetricKind

if TYPE_CHECKING:
    from synthleak.games.sweep import AttributeSweepResult

#: Share of ``max_time`` the attribute sweep may take.
AIA_SWEEP_SHARE = 0.25


def play_attribute_sweep(
    release: Release,
    *,
    attack: str = "recon",
    attack_params: Mapping[str, Any] | None = None,
    n_targets: int | None = None,
    bins: int = 5,
    left_out: Mapping[str, str] | None = None,
    max_seconds: float | None = None,
    population_baseline: bool = False,
    part_size: int = AIA_PART_SIZE,
    seed: int,
    runtime: Runtime | None = None,
    log: Callable[[str], None] | None = None,
) -> AttributeSweepResult:
    """Play attribute inference with every column of ``release`` in turn as the secret, each
    column's figure the excess over the control records, as the audit's ``attribute_sweep``
    stage and ``synthleak aia --original ... --secret all`` do
    (:func:`synthleak.games.sweep.attribute_sweep`, whose parameters these are).

    The columns' work units share the whole release, so they run in this process and
    ``runtime``'s local workers, never on its cluster
    (:func:`synthleak.partitioned.driver_runtime`); the result depends on ``seed`` alone.
    """
    from synthleak.games.sweep import attribute_sweep

    return attribute_sweep(
        release,
        seed=seed,
        attack=attack,
        attack_params=attack_params,
        n_targets=n_targets,
        bins=bins,
        left_out=left_out,
        runtime=partitioned.driver_runtime(runtime or Runtime()),
        log=log,
        max_seconds=max_seconds,
        population_baseline=population_baseline,
        part_size=part_size,
    )


def _needs_sweep(ctx: Context) -> Skip | None:
    if ctx.options.secret != SWEEP_ALL:
        return Skip(reason="asked for with secret 'all' (--secret all)")
    return needs_control(ctx)


def _attribute_sweep(ctx: Context, rng: np.random.Generator) -> StageOutput:
    """Attribute inference with every column in turn as the secret, on the release, each
    column's figure the excess over control records swapped in (:func:`attribute_sweep`).

    One finding per swept column, in the audit's family of tests (Holm over all findings, as
    the two singling-out attacks are): a column reads "measurable leakage" only when its excess
    stays significant after the correction. Bounded by the budget (``plan.aia_records``
    records per column, ``plan.aia_queries`` queries per linear program) and, with
    ``max_time``, by :data:`AIA_SWEEP_SHARE` of it; every column keeps its finished parts in
    the run directory, so an interrupted audit resumes them.

    A column's game is the one ``attribute_release`` plays with that column as the secret (same
    seed, records, control swaps, attack and rule; :func:`attribute_seed`), so a column has
    one figure whether it was named (``secret=COL``) or swept (``secret="all"``)."""
    del rng  # the game's seed is the attribute stages' shared one
    seed = attribute_seed(ctx)
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
    res = play_attribute_sweep(
        release_tables(ctx),
        attack="recon",
        attack_params=params,
        n_targets=n_records,
        bins=bins,
        left_out=left_out,
        max_seconds=max_seconds,
        population_baseline=True,
        part_size=aia_part_size(n_records),
        seed=seed,
        runtime=ctx.runtime.sub("aia-sweep"),
        log=ctx.log,
    )
    # one record identity: rows of the user's original, not of the training split
    columns = []
    for c in res.columns:
        rows = ctx.train_rows[c.rows].astype(np.int64)
        c = replace(c, rows=rows)
        if ctx.options.show_records:
            c = replace(c, values=values_of(ctx, c.column, c.beyond_population()))
        columns.append(c)
    res = replace(res, columns=tuple(columns))
    notes, findings = [], []
    short = [c.column for c in res.columns if n_records and 0 < c.n_attacked < n_records]
    if short:
        notes.append(
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
        findings.append(
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
    return StageOutput(
        findings=tuple(findings), notes=tuple(notes), sections=Sections(attribute_sweep=res)
    )


STAGE = Stage(
    "attribute_sweep",
    "Attribute inference of every column",
    _needs_sweep,
    _attribute_sweep,
    kept=True,
)
