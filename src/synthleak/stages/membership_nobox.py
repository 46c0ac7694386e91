"""The ``membership_nobox`` stage: the membership signal of the release against the control
set, without the generator.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from synthleak import partitioned
from synthleak.attacks.base import AttackFamily
from synthleak.errors import InputError
from synthleak.harm import FindingKey
from synthleak.runtime.seeding import game_seed
from synthleak.stages.base import (
    Context,
    Sections,
    Stage,
    StageOutput,
    needs_control,
    release_tables,
)
from synthleak.threat import threat_model
from synthleak.verdicts import Finding, MetricKind


def _membership_nobox(ctx: Context, rng: np.random.Generator) -> StageOutput:
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
        release_tables(ctx),
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
    threat = threat_model(
        AttackFamily.NOBOX_MEMBERSHIP,
        "nobox_membership",
        {"n_members": int(res.member_rows.size), "n_non_members": int(res.non_member_rows.size)},
    )
    findings = []
    if res.best is not None:
        b = res.best
        findings.append(
            Finding(
                FindingKey.MEMBERSHIP_NOBOX,
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
    return StageOutput(findings=tuple(findings), sections=Sections(nobox=res))


STAGE = Stage(
    "membership_nobox",
    "Membership inference without the generator",
    needs_control,
    _membership_nobox,
    kept=True,
)
