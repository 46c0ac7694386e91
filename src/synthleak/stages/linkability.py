"""The ``linkability`` stage: Anonymeter's linkability risk against the control set
(Giomi et al. (2023)).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

from synthleak import partitioned
from synthleak.attacks.base import AttackFamily
from synthleak.data.release import Release
from synthleak.data.schema import Schema
from synthleak.runtime import Runtime
from synthleak.runtime.seeding import game_seed
from synthleak.stages.base import (
    Context,
    Sections,
    Stage,
    StageOutput,
    needs_control_of_records,
    release_tables,
    risk_finding,
)
from synthleak.threat import threat_model

if TYPE_CHECKING:
    from synthleak.games.linkability import LinkabilityAttackResult, LinkabilityResult


def _default_link_columns(schema: Schema, quasi_ids: Sequence[str]) -> tuple[list[str], list[str]]:
    """Split the columns into two halves for linkability (quasi-identifiers first when given)."""
    names = list(quasi_ids) + [c for c in schema.names if c not in set(quasi_ids)]
    half = max(1, len(names) // 2)
    return names[:half], names[half:] or names[:1]


def play_linkability(
    release: Release,
    *,
    aux_a: Sequence[str],
    aux_b: Sequence[str],
    n_attacks: int,
    n_neighbors: int = 1,
    seed: int,
    runtime: Runtime | None = None,
) -> LinkabilityResult:
    """Play the linkability game on ``release`` (original, synthetic and control), as the
    audit's ``linkability`` stage and ``synthleak linkability`` do.

    ``n_attacks`` targets have their ``aux_a`` and ``aux_b`` halves linked through their
    ``n_neighbors`` nearest synthetic records. The nearest-neighbour search runs by partition
    of the release when ``runtime`` has a cluster, else in this process; the result depends on
    ``seed`` alone (Giomi et al. (2023), Sec. 4.2).
    """
    from synthleak.games.linkability import LinkabilityGame

    game = LinkabilityGame(list(aux_a), list(aux_b), n_attacks=n_attacks, n_neighbors=n_neighbors)
    return game.run(
        release,
        seed=seed,
        search=partitioned.link_search(runtime or Runtime()),  # by partition on a cluster
    )


def _linkability(ctx: Context, rng: np.random.Generator) -> StageOutput:
    ctx.log("linkability")
    aux_a, aux_b = _default_link_columns(ctx.train.schema, ctx.options.quasi_ids)
    game = play_linkability(
        release_tables(ctx),
        aux_a=aux_a,
        aux_b=aux_b,
        n_attacks=ctx.plan.n_attacks,
        seed=game_seed(rng),
        runtime=ctx.runtime.sub("linkability"),
    )
    # one record identity everywhere: rows of the user's original and control, not of the
    # training split (the section keeps each target's outcome: a comparison pairs them)
    game = replace(game, attacks=tuple(_as_given_rows(ctx, a) for a in game.attacks))
    res = game.attacks[0]
    threat = threat_model(
        AttackFamily.LINKABILITY,
        "linkability",
        {"aux_a": aux_a, "aux_b": aux_b, "n_neighbors": 1},
        aux_a=aux_a,
        aux_b=aux_b,
    )
    return StageOutput(
        findings=(risk_finding(ctx, "linkability", "Linkability", res, threat),),
        sections=Sections(linkability=game),
    )


def _as_given_rows(ctx: Context, res: LinkabilityAttackResult) -> LinkabilityAttackResult:
    """``res`` with its row numbers as rows of the original and of the control as given."""

    def rows(given: np.ndarray | None, of: tuple[int, ...]) -> tuple[int, ...]:
        return of if given is None else tuple(int(given[r]) for r in of)

    return replace(
        res,
        linked_rows=tuple(sorted(rows(ctx.train_rows, res.linked_rows))),
        target_rows=rows(ctx.train_rows, res.target_rows),
        control_rows=rows(ctx.control_rows, res.control_rows),
        control_linked_rows=tuple(sorted(rows(ctx.control_rows, res.control_linked_rows))),
    )


STAGE = Stage("linkability", "Linkability", needs_control_of_records, _linkability, kept=True)
