"""The ``singling_out`` stage: Anonymeter's singling-out risks against the control set
(Giomi et al. (2023)), compared at equal size.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from synthleak import partitioned
from synthleak.attacks.base import AttackFamily
from synthleak.data.release import Release
from synthleak.runtime import Runtime
from synthleak.runtime.seeding import game_seed
from synthleak.stages.base import (
    Context,
    Stage,
    StageOutput,
    needs_control_of_records,
    release_tables,
    risk_finding,
)
from synthleak.threat import threat_model

if TYPE_CHECKING:
    from synthleak.games.singling_out import SinglingOutResult

#: The singling-out attacks the audit plays.
AUDIT_ATTACKS = ("univariate", "multivariate")


def play_singling_out(
    release: Release,
    *,
    attacks: Sequence[str] = AUDIT_ATTACKS,
    n_attacks: int,
    seed: int,
    attack_params: Mapping[str, Mapping[str, Any]] | None = None,
    runtime: Runtime | None = None,
) -> SinglingOutResult:
    """Play the singling-out game on ``release`` (original, synthetic and control), as the
    audit's ``singling_out`` stage and ``synthleak singling-out`` do.

    ``attacks`` names the singling-out attacks, each making ``n_attacks`` predicates
    (``attack_params`` their parameters by attack name). The predicates are counted in the
    original and the control by partition when ``runtime`` has a cluster, else in this process;
    the result depends on ``seed`` alone (Giomi et al. (2023), Sec. 4.1).
    """
    from synthleak.games.singling_out import SinglingOutGame

    params = None if attack_params is None else {k: dict(v) for k, v in attack_params.items()}
    game = SinglingOutGame(tuple(attacks), n_attacks=n_attacks, attack_params=params)
    return game.run(
        release,
        seed=seed,
        counter=partitioned.predicate_counter(runtime or Runtime()),  # by partition
    )


def _singling_out(ctx: Context, rng: np.random.Generator) -> StageOutput:
    n = ctx.plan.n_attacks
    ctx.log(f"singling out (univariate, multivariate; {n} predicates each)")
    result = play_singling_out(
        release_tables(ctx),
        n_attacks=n,
        seed=game_seed(rng),
        runtime=ctx.runtime.sub("singling-out"),
    )
    notes, findings = [], []
    if result.design.correction != "none":
        notes.append(f"Singling out: {result.design.note}")
    for res in result.attacks:
        title = f"Singling out ({res.attack})"
        if not res.measured:
            notes.append(f"{title} was not measured: {res.note}")
            continue
        threat = threat_model(
            AttackFamily.SINGLING_OUT, "singling_out", {"attack": res.attack, "n_attacks": n}
        )
        findings.append(risk_finding(ctx, f"singling_out.{res.attack}", title, res, threat))
    return StageOutput(findings=tuple(findings), notes=tuple(notes))


STAGE = Stage("singling_out", "Singling out", needs_control_of_records, _singling_out, kept=True)
