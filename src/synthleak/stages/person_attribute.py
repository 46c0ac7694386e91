"""The ``person_attribute`` stage: attribute inference of a person's attribute (a column of the
root table, ``--secret``) from their child rows and a relational release, against the control's
persons (:func:`~synthleak.games.person_attribute.play_person_attribute`).

It runs only on relational input with a named secret; persons inferred are named by root key.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from synthleak.attacks.base import AttackFamily
from synthleak.harm import person_attribute_key
from synthleak.results import SWEEP_ALL
from synthleak.runtime.seeding import game_seed
from synthleak.stages.attribute_release import aia_part_size
from synthleak.stages.base import (
    SECRET_NEEDED,
    Context,
    Sections,
    Skip,
    Stage,
    StageOutput,
    needs_person_release,
    release_tables,
)
from synthleak.threat import threat_model
from synthleak.verdicts import Finding, MetricKind


def _needs(ctx: Context) -> Skip | None:
    skip = needs_person_release(ctx)
    if skip is not None:
        return skip
    if ctx.options.secret is None:
        return Skip(needs=SECRET_NEEDED)
    if ctx.options.secret == SWEEP_ALL:
        return Skip(reason="secret 'all': person-level attribute inference needs one named column")
    return None


def _person_attribute(ctx: Context, rng: np.random.Generator) -> StageOutput:
    findings: list[Finding] = []
    notes: list[str] = []
    from synthleak.games.person_attribute import play_person_attribute

    assert ctx.relational is not None and ctx.root is not None and ctx.frame is not None
    secret = ctx.options.secret
    assert secret is not None
    root = ctx.root
    params: dict[str, Any] = {"time_limit": 120.0}
    if ctx.plan.aia_queries is not None:
        params["n_queries"] = ctx.plan.aia_queries
    n_records = None if ctx.plan.aia_records is None else min(ctx.plan.aia_records, len(ctx.train))
    ctx.log(f"attribute inference of persons' '{secret}' from their child rows")
    res = play_person_attribute(
        release_tables(ctx),
        ctx.frame.index.to_numpy(),  # the person-level view: one row per root key
        root=root,
        child_tables=ctx.relational["original"].schema.descendants(root),
        secret=secret,
        attack_params=params,
        n_targets=n_records,
        part_size=aia_part_size(n_records),
        secret_rule=ctx.options.secret_rule,
        seed=game_seed(rng),
        runtime=ctx.runtime.sub("person-attribute"),
        log=ctx.log,
    )
    section = res
    g = res.game
    threat = threat_model(AttackFamily.ATTRIBUTE, "attribute_release", secret=secret)
    details: dict[str, Any] = {
        "root": root,
        "accuracy": g.accuracy.value,
        "control_accuracy": g.control_accuracy.value,
        "majority_rate": g.majority_rate,
        "status": g.status.value,
        "persons_attacked": g.config["n_targets"],
        "control_persons_attacked": g.config["n_control_targets"],
        "known": f"{len(res.known)} summaries of the child rows",
        "n_persons_inferred": res.n_inferred,
    }
    if ctx.options.secret_rule is not None:
        details["success_rule"] = ctx.options.secret_rule.describe()
    if g.reason:
        details["not_measured"] = g.reason
    findings.append(
        Finding(
            person_attribute_key(secret),
            f"Attribute inference of persons' '{secret}' from their child rows (released data)"
            + (
                ""
                if ctx.options.secret_rule is None
                else f", right when {ctx.options.secret_rule.success()}"
            ),
            MetricKind.ADVANTAGE,
            g.advantage,
            threat,
            details,
        )
    )
    return StageOutput(
        findings=tuple(findings), notes=tuple(notes), sections=Sections(person_attribute=section)
    )


STAGE = Stage(
    "person_attribute",
    "Attribute inference of persons (relational)",
    _needs,
    _person_attribute,
    kept=True,
)
