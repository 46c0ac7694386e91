"""The ``person_shadow`` stage: shadow-model membership of persons against a relational
generator (:class:`~synthleak.games.person_shadow.PersonShadowGame`).

It runs on relational input with a relational generator spec (``audit --relational META
--generator SPEC``: ``sdv:hma``, ``python:...``, ``command:...``; see
:mod:`synthleak.generators.relational`). The population is the original's persons; the game
fits the generator on shadow training sets with and without each target person.

Sizes: ``mia_targets + mia_controls`` target persons drawn at random, the budget's shadow and
test releases capped at :data:`MAX_SHADOWS` and :data:`MAX_TESTS` (a relational generator
costs far more per run than the single-table ones the budgets were sized for), training sets
of at most the budget's ``n`` persons.
"""

from __future__ import annotations

import numpy as np

from synthleak.attacks.base import AttackFamily
from synthleak.harm import FindingKey
from synthleak.runtime.seeding import game_seed
from synthleak.stages.base import Context, Sections, Skip, Stage, StageOutput
from synthleak.threat import threat_model
from synthleak.verdicts import Finding, MetricKind

#: The key of the stage's finding (the report's section reads it by this name).
KEY = FindingKey.MEMBERSHIP_PERSON_SHADOW
#: Most shadow (attacker) and test (challenger) releases of the person-level game.
MAX_SHADOWS = 32
MAX_TESTS = 16

RELATIONAL_GENERATOR_NEEDED = (
    "a relational generator the audit can run many times (--generator sdv:hma, "
    'python:MODULE:CLASS or command:"CMD {input} {output} {n}" with --relational; '
    "generator= in Python)"
)


def _needs(ctx: Context) -> Skip | None:
    if ctx.relational is None:
        return Skip(reason="the input is one table: the person-level game needs relational data")
    if ctx.options.generator is None:
        return Skip(needs=RELATIONAL_GENERATOR_NEEDED)
    return None


def _person_shadow(ctx: Context, rng: np.random.Generator) -> StageOutput:
    seed = game_seed(rng)
    from synthleak.games.person_shadow import PersonShadowGame

    assert ctx.relational is not None and ctx.options.generator is not None
    plan = ctx.plan
    population = ctx.relational["original"]
    root = ctx.root
    n_targets = plan.mia_targets + plan.mia_controls
    n = len(ctx.original)  # the person-level view: one row per person
    pool = (n - n_targets) // 2
    game = PersonShadowGame(
        n_targets=n_targets,
        n_shadows=min(plan.shadows, MAX_SHADOWS),
        n_tests=min(plan.tests, MAX_TESTS),
        train_size=min(pool // 2, plan.n),
        root=root,
    )
    ctx.log(
        f"shadow-model membership of {n_targets} persons through '{ctx.options.generator}' "
        f"({game.n_shadows} shadow and {game.n_tests} test releases of {game.train_size} "
        "persons each)"
    )
    res = game.run(population, ctx.options.generator, seed=seed)
    threat = threat_model(
        AttackFamily.MEMBERSHIP,
        "person_shadow",
        {"n_targets": len(res.target_keys), "n_shadows": res.n_shadows, "n_tests": res.n_tests},
        aux_size=pool,
        train_size=res.train_size,
    )
    a = res.primary_attack
    finding = Finding(
        KEY,
        f"Membership inference of persons through the relational generator "
        f"'{ctx.options.generator}' (shadow models)",
        MetricKind.AUC,
        a.auc,
        threat,
        {
            "attack": res.primary,
            "targets": len(res.target_keys),
            "test_releases": res.n_tests,
            "root": root,
        },
    )
    return StageOutput(
        findings=(finding,), notes=tuple(res.notes), sections=Sections(person_shadow=res)
    )


STAGE = Stage(
    "person_shadow",
    "Shadow-model membership inference of persons (relational generator)",
    _needs,
    _person_shadow,
    kept=True,
)
