"""The ``attribute_game`` stage: the randomised-secret attribute-inference game against the
generator.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from synthleak.attacks.base import AttackFamily
from synthleak.metrics.privacy import wilson_interval
from synthleak.results import SWEEP_ALL, PrivacyUtilityPoint
from synthleak.runtime.seeding import game_seed
from synthleak.stages.base import (
    GENERATOR_NEEDED,
    RELATIONAL_SKIP,
    SECRET_NEEDED,
    Context,
    Sections,
    Skip,
    Stage,
    StageOutput,
)
from synthleak.threat import threat_model
from synthleak.verdicts import Finding, MetricKind

#: Share of ``max_time`` the randomised-secret attribute-inference game may take.
AIA_GAME_SHARE = 0.25


#: Games the attribute game plays under a budget's time allowance (``BudgetPlan.aia_seconds``)
#: whatever a pilot projects: about 100 one-target games keep the accuracy interval within
#: ``games.attribute.MAX_CI_WIDTH`` at an accuracy of 0.5. A user's ``max_time`` is a hard cap.
AIA_MIN_GAMES = 100


def _needs_generator_and_secret(ctx: Context) -> Skip | None:
    if ctx.relational is not None:
        return Skip(reason=RELATIONAL_SKIP)
    if ctx.options.secret is None:
        return Skip(needs=SECRET_NEEDED)
    if ctx.options.secret == SWEEP_ALL:
        return Skip(
            needs="one named secret column (--secret COLUMN): the game against the generator "
            "infers one column; 'all' sweeps the release"
        )
    return None if ctx.options.generator is not None else Skip(needs=GENERATOR_NEEDED)


def _attribute_game(ctx: Context, rng: np.random.Generator) -> StageOutput:
    """The randomised-secret attribute-inference game against the generator."""
    seed = game_seed(rng)  # the stage's game draws from its own seed
    from synthleak.games.attribute import AttributeGame
    from synthleak.games.secret import Measurement

    assert ctx.options.generator is not None and ctx.options.secret is not None
    n = min(ctx.plan.n, len(ctx.original) // 2)
    # with a time limit the game takes at most its share of it (the membership game, sized to
    # max_time after its own pilot, follows); without one, the budget's allowance bounds it
    # above its floor of games (each game solves one linear program per secret class)
    games = ctx.plan.aia_games
    min_games = 1
    max_seconds: float | None = None
    limit = ""
    if ctx.options.max_time is not None:
        max_seconds = AIA_GAME_SHARE * ctx.options.max_time
        limit = f"the time limit ({max_seconds:.0f} s, a {AIA_GAME_SHARE:.0%} share of max_time)"
    elif ctx.plan.aia_seconds is not None:
        max_seconds = float(ctx.plan.aia_seconds)
        min_games = min(AIA_MIN_GAMES, games)
        limit = (
            f"the budget's time for this stage ({max_seconds:.0f} s, at least {min_games} "
            "games played)"
        )
    ctx.log(
        f"attribute inference of '{ctx.options.secret}': up to {games} games of {n} records "
        f"through '{ctx.options.generator}'"
        + ("" if max_seconds is None else f", within {max_seconds:.0f} s")
    )
    recon: dict[str, Any] = {"time_limit": 120.0}
    if ctx.plan.aia_queries is not None:  # the budget's bound on one linear program
        recon["n_queries"] = ctx.plan.aia_queries
    game = AttributeGame(
        ctx.options.generator,
        ctx.options.secret,
        list(ctx.options.quasi_ids) or None,
        train_size=n,
        synthetic_size=(n,),
        n_games=games,
        attacks=("recon", "dcr", "infer"),
        attack_params={"recon": recon},
        max_seconds=max_seconds,
        min_games=min_games,
        log=ctx.log,
        secret_rule=ctx.options.secret_rule,
    )
    res = game.run(ctx.original, seed=seed, runtime=ctx.runtime.sub("aia"))
    notes: list[str] = []
    findings: list[Finding] = []
    points: list[PrivacyUtilityPoint] = []
    played = int(res.config["n_games"])
    if played < games:
        notes.append(
            f"attribute inference game: {played} of the budget's {games} games fit {limit}; "
            + _aia_power(res, games)
        )
    # the game's attacks see the synthetic data only (no-box, as the game of Annamalai et al.
    # (2024a), Sec. 3): the generator is run by the challenger, never by the attacker
    threat = threat_model(
        AttackFamily.ATTRIBUTE,
        "attribute_game",
        {"n_games": played, "train_size": n},
        secret=ctx.options.secret,
    )
    for a in res.accuracies:
        details: dict[str, Any] = {
            "synthetic_size": a.synthetic_size,
            "auc": a.auc,
            "n_games": a.n_games,
            "status": a.status.value,
        }
        if ctx.options.secret_rule is not None:
            details["success_rule"] = ctx.options.secret_rule.describe()
            details["secret_bins"] = res.config["secret_classes"]
        if a.status is Measurement.NOT_MEASURED:
            details["not_measured"] = a.reason
        findings.append(
            Finding(
                f"attribute.{a.attack}.m{a.synthetic_size}",
                f"Attribute inference '{a.attack}' (m = {a.synthetic_size} synthetic records)",
                MetricKind.ACCURACY,
                a.accuracy,
                threat,
                details,
            )
        )
    for size in res.sizes:
        if math.isfinite(size.acc_max):
            points.append(
                PrivacyUtilityPoint(
                    f"{ctx.options.generator} (AIA, m={size.synthetic_size})",
                    size.acc_max,
                    "attribute-inference accuracy (best attack)",
                    size.mre_gt10,
                    size.tvd3,
                )
            )
    if res.failures:
        notes.append(
            f"attribute inference: {len(res.failures)} game/attack runs failed and were left out "
            f"(first reason: {res.failures[0].reason})"
        )
    return StageOutput(
        findings=tuple(findings),
        notes=tuple(notes),
        privacy_utility=tuple(points),
        sections=Sections(attribute=res),
    )


def _aia_power(res: Any, requested: int) -> str:
    """The power the played games buy: the widest accuracy interval of the attacks measured,
    against the width the requested games would give at the same accuracy (Wilson)."""

    done = [a for a in res.accuracies if a.accuracy.n_trials]
    if not done:
        return "no attack was measured"
    widest = max(done, key=lambda a: a.ci_width)
    acc = widest.accuracy
    per_game = acc.n_trials / max(widest.n_games, 1)
    full = max(round(per_game * requested), acc.n_trials)
    lo, hi = wilson_interval(round(acc.value * full), full)
    return (
        f"the widest accuracy interval ('{widest.attack}', {acc.n_trials} secrets) is "
        f"{widest.ci_width:.2f} wide, against about {hi - lo:.2f} with all {requested} games"
    )


STAGE = Stage(
    "attribute_game",
    "Attribute-inference game against the generator",
    _needs_generator_and_secret,
    _attribute_game,
)
