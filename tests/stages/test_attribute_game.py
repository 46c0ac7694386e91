"""The ``attribute_game`` stage of the audit (:mod:`synthleak.stages.attribute_game`)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from tests.stages.audit_helpers import TINY

from synthleak.pipeline import BudgetPlan
from synthleak.stages.base import StageOutput


def test_budget_time_allowance_bounds_the_attribute_game_and_states_its_power(
    split, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without max_time the budget's allowance (aia_seconds) bounds the attribute game above
    its floor of games; the note says how many were played and what interval width they buy.
    The stage runs alone on a minimal context (a whole generator audit takes a minute)."""
    from types import SimpleNamespace

    import synthleak.games.attribute as attribute
    import synthleak.stages.attribute_game as attribute_stage
    from synthleak.results import AuditOptions
    from synthleak.runtime import as_runtime

    real = attribute._play_game

    def slow(shared, g):  # type: ignore[no-untyped-def]
        import time

        time.sleep(0.2)
        return real(shared, g)

    monkeypatch.setattr(attribute, "_play_game", slow)
    monkeypatch.setattr(attribute_stage, "AIA_MIN_GAMES", 3)
    train, _, _ = split
    lines: list[str] = []

    def stage(plan: BudgetPlan, max_time: float | None = None) -> StageOutput:
        options = AuditOptions(generator="indhist", secret="sex", plan=plan, max_time=max_time)
        ctx = SimpleNamespace(
            options=options,
            original=train,
            plan=plan,
            runtime=as_runtime(None),
            log=lines.append,
        )
        return attribute_stage._attribute_game(ctx, np.random.default_rng(0))  # type: ignore[arg-type]

    plan = replace(TINY, n=100, aia_games=8, aia_seconds=0.01)
    out = stage(plan)
    res = out.sections.attribute
    assert res is not None
    assert res.config["n_games"] == 3 and res.config["n_games_requested"] == 8
    (note,) = out.notes
    assert "3 of the budget's 8 games fit the budget's time for this stage (0 s" in note
    widest = max(a.ci_width for a in res.accuracies)
    assert f"is {widest:.2f} wide, against about" in note and "with all 8 games" in note
    assert any("up to 8 games" in x and "within 0 s" in x for x in lines)
    # a user's max_time is a hard cap: no floor beyond the first game
    capped = stage(plan, max_time=0.01)
    assert capped.sections.attribute.config["n_games"] == 1
    assert "a 25% share of max_time" in capped.notes[0]
    # no allowance: every game of the budget, no note
    full = stage(replace(plan, aia_games=4, aia_seconds=None))
    assert full.sections.attribute.config["n_games"] == 4 and not full.notes
