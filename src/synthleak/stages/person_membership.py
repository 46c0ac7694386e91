"""The ``person_membership`` stage: membership of persons in a relational release (a root row
and all their child rows) against the control's persons, without the generator
(:class:`~synthleak.games.person.PersonMembershipGame`).

It runs only on relational input (``audit(original=RelationalData, ...)``); the members are the
original's persons, the non-members and the reference the control's.
"""

from __future__ import annotations

import numpy as np

from synthleak.attacks.base import AttackFamily
from synthleak.errors import InputError
from synthleak.harm import FindingKey
from synthleak.runtime.seeding import game_seed
from synthleak.stages.base import Context, Sections, Skip, Stage, StageOutput
from synthleak.threat import threat_model
from synthleak.verdicts import Finding, MetricKind

#: The key of the stage's finding (the report's section reads it by this name).
KEY = FindingKey.MEMBERSHIP_PERSON

PERSON_CONTROL_NEEDED = (
    "a control: the tables of persons of the same population whose rows the generator never "
    "saw (--control DIR with --relational; control= as RelationalData in Python)"
)


def _needs(ctx: Context) -> Skip | None:
    if ctx.relational is None:
        return Skip(reason="the input is one table: person-level membership needs relational data")
    if "synthetic" not in ctx.relational:
        return Skip(needs="the synthetic release's tables (--synthetic DIR with --relational)")
    if "control" not in ctx.relational:
        return Skip(needs=PERSON_CONTROL_NEEDED)
    return None


def _person_membership(ctx: Context, rng: np.random.Generator) -> StageOutput:
    """The person-level no-box game, sized as the row-level one (``membership_nobox``)."""
    seed = game_seed(rng)  # the stage's game draws from its own seed
    from synthleak.games.nobox import AUDIT_NON_MEMBERS_PER_MEMBER, MIN_NON_MEMBERS, MIN_REFERENCE
    from synthleak.games.person import PersonMembershipGame

    assert ctx.relational is not None and ctx.synthetic is not None and ctx.control is not None
    # ctx.original, ctx.control: the person-level views, one row per person
    n_persons, n_control = len(ctx.original), len(ctx.control)
    n = min(ctx.plan.n_attacks, n_persons)
    n_non = max(MIN_NON_MEMBERS, min(n_control // 2, AUDIT_NON_MEMBERS_PER_MEMBER * n))
    if n < MIN_NON_MEMBERS or n_control < MIN_NON_MEMBERS + MIN_REFERENCE:
        raise InputError(
            f"too small to measure: person-level membership needs at least {MIN_NON_MEMBERS} "
            f"persons in the original and {MIN_NON_MEMBERS + MIN_REFERENCE} in the control "
            f"({MIN_NON_MEMBERS} scored, {MIN_REFERENCE} as the population's reference); there "
            f"are {n_persons} and {n_control}"
        )
    ctx.log(
        f"membership inference of persons ({n} members and {n_non} non-members, each a root "
        "row with its child rows, against the control's persons)"
    )
    parts = ctx.relational
    res = PersonMembershipGame(root=ctx.root, n_members=n, n_non_members=n_non).run(
        parts["original"], parts["synthetic"], parts["control"], seed=seed
    )
    threat = threat_model(
        AttackFamily.NOBOX_MEMBERSHIP,
        "nobox_membership",
        {"n_members": len(res.member_keys), "n_non_members": len(res.non_member_keys)},
    )
    b = res.best_attack
    n_half = b.evaluation_auc.n_trials
    finding = Finding(
        KEY,
        f"Membership inference of persons across the linked tables (strongest attack: "
        f"'{res.best}')",
        MetricKind.AUC,
        b.evaluation_auc,  # chosen on the selection half, reported on the other
        threat,
        {
            "attack": res.best,
            "select_by": res.select_by,
            "selection_auc": b.selection_auc,
            "evaluated_on": n_half,
            "root": ctx.root,
        },
    )
    return StageOutput(findings=(finding,), sections=Sections(person_membership=res))


STAGE = Stage(
    "person_membership",
    "Membership inference of persons (relational)",
    _needs,
    _person_membership,
    kept=True,
)
