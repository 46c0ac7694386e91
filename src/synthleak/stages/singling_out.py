"""The ``singling_out`` stage: Anonymeter's singling-out risks against the control set
(Giomi et al. (2023)), compared at equal size.
"""

from __future__ import annotations

import numpy as np

from synthleak import partitioned
from synthleak.attacks.base import AttackFamily
from synthleak.runtime.seeding import game_seed
from synthleak.stages.base import Context, Stage, needs_control, release_tables, risk_finding
from synthleak.threat import threat_model


def _singling_out(ctx: Context, rng: np.random.Generator) -> None:
    from synthleak.games.singling_out import SinglingOutGame

    n = ctx.plan.n_attacks
    ctx.log(f"singling out (univariate, multivariate; {n} predicates each)")
    game = SinglingOutGame(("univariate", "multivariate"), n_attacks=n)
    result = game.run(
        release_tables(ctx),
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
        ctx.findings.append(risk_finding(ctx, f"singling_out.{res.attack}", title, res, threat))


STAGE = Stage("singling_out", "Singling out", needs_control, _singling_out, kept=True)
