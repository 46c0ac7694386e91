"""The ``linkability`` stage: Anonymeter's linkability risk against the control set
(Giomi et al. (2023)).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from synthleak import partitioned
from synthleak.attacks.base import AttackFamily
from synthleak.data.schema import Schema
from synthleak.runtime.seeding import game_seed
from synthleak.stages.base import Context, Stage, needs_control, release_tables, risk_finding
from synthleak.threat import threat_model


def _default_link_columns(schema: Schema, quasi_ids: Sequence[str]) -> tuple[list[str], list[str]]:
    """Split the columns into two halves for linkability (quasi-identifiers first when given)."""
    names = list(quasi_ids) + [c for c in schema.names if c not in set(quasi_ids)]
    half = max(1, len(names) // 2)
    return names[:half], names[half:] or names[:1]


def _linkability(ctx: Context, rng: np.random.Generator) -> None:
    from synthleak.games.linkability import LinkabilityGame

    ctx.log("linkability")
    aux_a, aux_b = _default_link_columns(ctx.train.schema, ctx.options.quasi_ids)
    game = LinkabilityGame(aux_a, aux_b, n_attacks=ctx.plan.n_attacks, n_neighbors=1)
    res = game.run(
        release_tables(ctx),
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
    ctx.findings.append(risk_finding(ctx, "linkability", "Linkability", res, threat))


STAGE = Stage("linkability", "Linkability", needs_control, _linkability, kept=True)
