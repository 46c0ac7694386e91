"""The ``attribute_release`` stage: reconstruction attribute inference on the release
(Annamalai et al. (2024a), Sec. 4.2), with the control set as baseline.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from synthleak import partitioned
from synthleak.attacks.base import AttackFamily
from synthleak.data.release import Release
from synthleak.modes import BinStrategy
from synthleak.results import SWEEP_ALL
from synthleak.runtime import Runtime
from synthleak.runtime.seeding import game_seed
from synthleak.stages.base import (
    SECRET_NEEDED,
    STAGE_STREAM,
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
    from synthleak.games.attribute_release import ReleaseAttributeResult
    from synthleak.games.secret import SecretRule

#: Most training records in one part of the audit's release attribute-inference games.
AIA_PART_SIZE = 2000


def aia_part_size(n_records: int | None) -> int:
    """The parts of the release games, as large as the budget's records (at most
    :data:`AIA_PART_SIZE`): a part's linear programs hold all its records, so a budget below a
    part keeps its programs that small (both attribute stages, so a column has one game)."""
    return AIA_PART_SIZE if n_records is None else max(1, min(AIA_PART_SIZE, n_records))


def attribute_seed(ctx: Context) -> int:
    """The seed of every release attribute-inference game of the audit: the first draw of the
    ``attribute_release`` stage's stream, shared by ``attribute_sweep``, so the game of a column
    draws the same records, control swaps and attack streams in both stages (one figure per
    column and rule)."""
    return game_seed(STAGE_STREAM.sub("attribute_release").rng(ctx.options.seed))


def play_attribute_release(
    release: Release,
    *,
    secret: str,
    quasi_ids: Sequence[str] | None = None,
    attack: str = "recon",
    attack_params: Mapping[str, Any] | None = None,
    n_targets: int | None = None,
    bins: int = 10,
    bin_strategy: BinStrategy = BinStrategy.QUANTILE,
    secret_rule: SecretRule | None = None,
    part_size: int = AIA_PART_SIZE,
    seed: int,
    runtime: Runtime | None = None,
    log: Callable[[str], None] | None = None,
) -> ReleaseAttributeResult:
    """Play attribute inference of ``secret`` on ``release`` with ``attack``, the control
    records as baseline, as the audit's ``attribute_release`` stage and ``synthleak aia
    --original ... --secret COL`` do (:class:`~synthleak.games.attribute_release.
    ReleaseAttributeGame`, whose parameters these are).

    The game's work units share the whole release, so they run in this process and
    ``runtime``'s local workers, never on its cluster
    (:func:`synthleak.partitioned.driver_runtime`); the result depends on ``seed`` alone.
    """
    from synthleak.games.attribute_release import ReleaseAttributeGame

    game = ReleaseAttributeGame(
        secret,
        quasi_ids,
        attack=attack,
        attack_params=attack_params,
        n_targets=n_targets,
        bins=bins,
        bin_strategy=bin_strategy,
        secret_rule=secret_rule,
        part_size=part_size,
        log=log,
    )
    return game.run(release, seed=seed, runtime=partitioned.driver_runtime(runtime or Runtime()))


def _needs_release_aia(ctx: Context) -> Skip | None:
    if ctx.options.secret is None:
        return Skip(needs=SECRET_NEEDED)
    if ctx.options.secret == SWEEP_ALL:
        return Skip(
            reason="secret 'all': every column is swept (attribute inference of every column)"
        )
    return needs_control(ctx)


def values_of(ctx: Context, column: str, rows: np.ndarray) -> tuple[str, ...]:
    """The values of ``column`` in rows of the original, as the user's file holds them."""
    if ctx.frame is not None and column in ctx.frame.columns:
        vals = ctx.frame[column].iloc[rows]
    else:
        vals = ctx.original.take(rows).to_frame()[column]
    return tuple("" if pd.isna(v) else str(v) for v in vals)


def _attribute_release(ctx: Context, rng: np.random.Generator) -> StageOutput:
    """Reconstruction attribute inference on the release, training against control records.

    Bounded by the budget: ``plan.aia_records`` training records are attacked (a random
    subset; all when ``None``) with at most ``plan.aia_queries`` counting queries per linear
    program; the records and queries used are stated in the finding. The game is seeded as
    ``attribute_sweep`` seeds each column's (:func:`attribute_seed`)."""
    del rng  # the game's seed is the attribute stages' shared one
    seed = attribute_seed(ctx)
    assert ctx.synthetic is not None and ctx.control is not None and ctx.options.secret is not None
    params: dict[str, Any] = {"time_limit": 120.0}
    if ctx.plan.aia_queries is not None:
        params["n_queries"] = ctx.plan.aia_queries
    n_records = None if ctx.plan.aia_records is None else min(ctx.plan.aia_records, len(ctx.train))
    res = play_attribute_release(
        release_tables(ctx),  # the sweep's encoded tables
        secret=ctx.options.secret,
        quasi_ids=list(ctx.options.quasi_ids) or None,
        attack_params=params,
        n_targets=n_records,
        secret_rule=ctx.options.secret_rule,
        part_size=aia_part_size(n_records),
        seed=seed,
        runtime=ctx.runtime.sub("aia-release"),
        log=ctx.log,
    )
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
    finding = Finding(
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
    return StageOutput(findings=(finding,), sections=Sections(attribute_release=res))


STAGE = Stage(
    "attribute_release",
    "Attribute inference on the release",
    _needs_release_aia,
    _attribute_release,
    kept=True,
)
