"""Cost pilot, projections, budgets that fit a time limit, and what a budget can show."""

from __future__ import annotations

import math

import numpy as np
import pytest

import synthleak as sl
from synthleak.errors import InputError
from synthleak.games.cost import (
    MembershipCost,
    fit_budget,
    format_seconds,
    measure_membership_cost,
    plan_membership,
    power,
    unit_datasets,
)
from synthleak.games.membership import MembershipGame
from synthleak.metrics.epsilon import empirical_epsilon

COST = MembershipCost("g", 100, 100, 0.5, 4, {"query": 0.01, "distance": 0.002}, 3.0)


def test_projection_adds_generation_and_attacks() -> None:
    # 2 pools' worth? no: a shared pool of 300 datasets on 2 workers, then 2 attacks x 5 targets
    got = COST.projected_seconds(n_shadows=200, n_tests=100, n_targets=5, workers=2)
    gen = math.ceil(300 / 2) * 0.5
    atk = math.ceil(5 / 2) * 0.012 * 200
    assert got == pytest.approx(gen + atk)
    single = COST.projected_seconds(n_shadows=200, n_tests=100, n_targets=5, shared=False)
    assert single == pytest.approx(5 * 300 * 0.5 + 5 * 0.012 * 200)
    assert "projected time" in COST.summary(n_shadows=200, n_tests=100, n_targets=5, workers=2)


def test_fit_budget_is_the_largest_that_fits() -> None:
    s, t = fit_budget(COST, 600, n_targets=5)
    assert COST.projected_seconds(n_shadows=s, n_tests=t, n_targets=5) <= 600
    assert (
        COST.projected_seconds(n_shadows=s + 1, n_tests=max(50, round((s + 1) * 0.2)), n_targets=5)
        > 600
    )
    assert fit_budget(COST, 1e9, n_targets=5) == (4000, 800)
    with pytest.raises(InputError, match=r"out of reach.*no-box"):
        fit_budget(COST, 10, n_targets=5)


def test_power_matches_closed_forms() -> None:
    p = power(200)
    # Hanley and McNeil at AUC 0.5: var = (n1 + n0 + 1) / (12 n1 n0)
    assert p.auc_half_width == pytest.approx(1.959964 * math.sqrt(201 / (12 * 100 * 100)), rel=1e-4)
    assert 0 < p.epsilon_ceiling < power(2000).epsilon_ceiling
    assert "certify an epsilon" in p.sentence()


def test_power_states_the_ceiling_the_epsilon_audit_reports() -> None:
    """The power line and the audit's ceiling agree: the exact-knowledge game's add/remove
    trials against an add/remove claim, and a rule fixed in advance on every test dataset."""
    y = np.arange(40) % 2 == 1
    scores = {"row 0 / novelty": y.astype(float), "row 0 / query": np.zeros(40)}
    relation = {"neighbouring": "add_remove", "game_neighbouring": "add_remove"}
    for fixed in ({}, {"row 0 / novelty": 0.5}):
        est = empirical_epsilon(
            scores, y, rng=np.random.default_rng(0), fixed_rules=fixed, delta=0, **relation
        )
        assert power(40, fixed_rules=len(fixed), **relation).epsilon_ceiling == pytest.approx(
            est.ceiling
        )
    # substitution trials bound an add/remove claim only about half as far
    assert power(40).epsilon_ceiling < 0.6 * power(40, **relation).epsilon_ceiling


def test_pilot_measures_the_generator_and_attacks() -> None:
    df = sl.datasets.load_adult().iloc[:2000]
    game = MembershipGame(
        "indhist",
        train_size=200,
        synthetic_size=200,
        n_shadows=40,
        n_tests=20,
        attacks=("distance", "query", "rmia"),
        attack_params={
            "query": {"n_queries": 50, "n_estimators": 5},
            "rmia": {"n_queries": 50, "n_population": 8, "n_reference": 8},
        },
    )
    cost = measure_membership_cost(game, df, rng=np.random.default_rng(0), min_seconds=0.0)
    assert cost.pilot_runs >= 3 and cost.fit_seconds > 0
    assert set(cost.attack_seconds) == {"distance", "query", "rmia"}
    assert all(v > 0 for v in cost.attack_seconds.values())
    assert MembershipCost.from_json(cost.to_json()) == cost


@pytest.mark.parametrize("pool", ["shared", "single"])
def test_plan_membership_sizes_the_game_to_the_time(monkeypatch, pool: str) -> None:
    import synthleak.games.cost as cost_module

    monkeypatch.setattr(
        cost_module, "measure_membership_cost", lambda game, data, rng, runtime=None: COST
    )

    def game() -> MembershipGame:
        return MembershipGame("indhist", train_size=100, n_shadows=60, n_tests=50, pool=pool)

    shared = pool == "shared"
    rng = np.random.default_rng(0)
    g = game()  # no time limit: the game's sizes stand
    cost, projected = plan_membership(g, None, n_targets=5, rng=rng)  # type: ignore[arg-type]
    assert cost is COST and (g.n_shadows, g.n_tests) == (60, 50)
    want = COST.projected_seconds(n_shadows=60, n_tests=50, n_targets=5, shared=shared, batch=50)
    assert projected == pytest.approx(want)
    # a time limit, less the pilot's own time: the largest game that fits in the game's work
    # units, capped by the game's sizes unless cap=False
    fits = fit_budget(
        COST, 1e4 - COST.pilot_seconds, n_targets=5, workers=2, shared=shared, batch=50
    )
    assert fits[0] > 60
    g = game()
    plan_membership(g, None, n_targets=5, rng=rng, workers=2, max_seconds=1e4)  # type: ignore[arg-type]
    assert (g.n_shadows, g.n_tests) == (60, 50)
    g = game()
    _, projected = plan_membership(
        g,
        None,  # type: ignore[arg-type]
        n_targets=5,
        rng=rng,
        workers=2,
        max_seconds=1e4,
        cap=False,
    )
    assert (g.n_shadows, g.n_tests) == fits and projected <= 1e4
    assert projected == pytest.approx(
        COST.projected_seconds(
            n_shadows=fits[0], n_tests=fits[1], n_targets=5, workers=2, shared=shared, batch=50
        )
    )
    # balanced: a slow generator's runs in units of about UNIT_SECONDS
    slow = MembershipCost("g", 100, 100, 12.9, 4, {"query": 0.01}, 60.0)
    monkeypatch.setattr(
        cost_module, "measure_membership_cost", lambda game, data, rng, runtime=None: slow
    )
    g = game()
    plan_membership(
        g, None, n_targets=5, rng=rng, workers=2, max_seconds=3600, cap=False, balance=True
    )  # type: ignore[arg-type]
    assert g.batch_size == unit_datasets(12.9) == 4


def test_projection_follows_the_work_units() -> None:
    """Generator runs go in work units of one pool, each taken by the first free worker: the
    last units can leave a worker idle, and the projection says so."""
    one = MembershipCost("g", 100, 100, 1.0, 4)
    # 450 shadow + 90 test datasets in units of 50: 9 + 2 units (the last of 40) on 2 workers
    assert one.generation_seconds([450, 90], 2, batch=50) == 290
    assert one.generation_seconds([450, 90], 2) == 270  # spread evenly
    assert one.generation_seconds([450, 90], 2, batch=4) == 270  # units of 4 (and two of 2)
    assert one.generation_seconds([450, 90], 1, batch=50) == 540
    assert one.generation_seconds(100, 3, batch=100) == 100
    assert unit_datasets(0.01) == 50 and unit_datasets(12.9) == 4 and unit_datasets(500) == 1
    got = one.projected_seconds(n_shadows=450, n_tests=90, n_targets=10, workers=2, batch=50)
    assert got == pytest.approx(290)
    assert "one at a time" in one.summary(n_shadows=450, n_tests=90, n_targets=1, workers=2)


def test_pilot_measures_a_slow_generator_side_by_side(monkeypatch) -> None:
    """With several local workers, a generator slower than TOGETHER_MIN_SECONDS is measured
    again with every worker busy, and that figure is the one the projection uses."""
    import synthleak.games.cost as cost_module
    from synthleak.runtime import Runtime

    df = sl.datasets.load_adult().iloc[:600]
    game = MembershipGame(
        "indhist", train_size=100, synthetic_size=100, n_shadows=8, attacks=("distance",)
    )
    alone = measure_membership_cost(game, df, rng=np.random.default_rng(0), min_seconds=0.0)
    assert alone.together == 1
    monkeypatch.setattr(cost_module, "TOGETHER_MIN_SECONDS", 0.0)
    both = measure_membership_cost(
        game, df, rng=np.random.default_rng(0), runtime=Runtime(workers=2), min_seconds=0.0
    )
    assert both.together == 2 and both.fit_seconds > 0
    assert "2 at a time" in both.summary(n_shadows=8, n_tests=8, n_targets=1, workers=2)
    # one worker, or a fast generator: measured one at a time only
    monkeypatch.setattr(cost_module, "TOGETHER_MIN_SECONDS", 1e9)
    again = measure_membership_cost(
        game, df, rng=np.random.default_rng(0), runtime=Runtime(workers=2), min_seconds=0.0
    )
    assert again.together == 1


def test_format_seconds() -> None:
    assert [format_seconds(x) for x in (42, 300, 7200)] == ["42 s", "5.0 min", "2.0 h"]
