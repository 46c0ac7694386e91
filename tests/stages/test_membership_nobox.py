"""The ``membership_nobox`` stage of the audit (:mod:`synthleak.stages.membership_nobox`)."""

from __future__ import annotations

import pytest

from synthleak.pipeline import BudgetPlan, audit


def test_missing_torch_skips_the_attention_attack_with_a_note(
    split, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "torch", None)  # import torch -> ImportError
    train, _, _ = split
    plan = BudgetPlan(
        n_attacks=100,
        mia_targets=1,
        mia_controls=1,
        shadows=20,
        tests=20,
        n=100,
        mia_attacks=("distance", "attention"),
        aia_games=4,
    )
    r = audit(train, generator="indhist", plan=plan, seed=0)
    assert any("'attention' was skipped" in n and "synthleak[torch]" in n for n in r.notes)
    assert r.membership is not None
    assert {a for t in r.membership.targets for a in t.attacks} == {"distance"}
