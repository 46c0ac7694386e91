"""The ``membership`` stage of the audit (:mod:`synthleak.stages.membership`)."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest
from tests.stages.audit_helpers import TINY, figures

from synthleak import InputError
from synthleak.pipeline import audit
from synthleak.results import AuditResult


def test_selector_distance_is_the_papers_v_k(split) -> None:
    train, _, _ = split
    plan = replace(TINY, screened_shadows=20)
    a = audit(train, generator="indhist", plan=plan, seed=3, selector="distance")
    assert a.membership is not None and a.screening is None
    assert [t.selected_by for t in a.membership.targets] == ["distance", "random"]
    assert a.membership.targets[0].row == a.vulnerability.top[0].row  # type: ignore[union-attr]
    assert a.vulnerability.method == "distance"  # type: ignore[union-attr]
    assert a.membership.config.n_shadows == 40 and a.config.selector == "distance"
    b = audit(train, generator="indhist", plan=plan, seed=3)  # screened: the plan's smaller pool
    assert b.membership is not None and b.membership.config.n_shadows == 20
    with pytest.raises(InputError, match="unknown selector 'vk'"):
        audit(train, generator="indhist", plan=plan, selector="vk")
    # with a control given, every record of train is a training record: the game's first target
    # is the one with the highest cell rarity
    from synthleak.vulnerability import cell_rarity_scores

    c = audit(train, generator="indhist", control=split[1], plan=plan, seed=3, selector="rarity")
    assert c.membership is not None and c.membership.targets[0].selected_by == "rarity"
    assert c.membership.targets[0].row == int(np.argmax(cell_rarity_scores(train)))


def test_a_time_limit_skips_a_screen_it_cannot_pay_for(split, monkeypatch) -> None:
    """With max_time the generator is measured before the two-stage screen: a screen that, with
    the smallest useful game, would overrun the limit, or that would take more than its share
    of it, is not started (targets by cell rarity, a note saying why); one that fits runs, and
    the game reuses the same measurement."""
    import synthleak.stages.membership as membership_stage
    from synthleak.games.cost import MembershipCost

    real_measure = membership_stage.measure_membership_cost
    measured: list[float] = []

    def measure(seconds: float):  # type: ignore[no-untyped-def]
        def fake(game, data, *, rng, runtime=None):  # type: ignore[no-untyped-def]
            real_measure(game, data, rng=rng)  # the same draws as a real pilot
            measured.append(seconds)
            return MembershipCost(game.generator, game.train_size, game.synthetic_size, seconds, 3)

        return fake

    train, _, _ = split
    plan = replace(TINY, screened_shadows=20, screen_datasets=20)
    # 2 x 20 screen runs of 100 s and the smallest game (100 runs): > 12,000 s
    monkeypatch.setattr(membership_stage, "measure_membership_cost", measure(100.0))
    slow = audit(train, generator="indhist", plan=plan, seed=3, max_time=12_000)
    assert slow.screening is None and slow.membership is not None
    assert [t.selected_by for t in slow.membership.targets] == ["rarity", "random"]
    (note,) = [n for n in slow.notes if "two-stage screen was not run" in n]
    assert "its 20 shadow and 20 test datasets through 'indhist'" in note
    assert "two pools" not in note and "would take about 66.7 min" in note
    assert "smallest useful game about 2.8 h" in note and "time limit (3.3 h)" in note
    # the game is sized to the limit from that one measurement (12,000 s / 100 s a run)
    assert slow.membership.config.n_shadows + slow.membership.config.n_tests == 120
    assert measured == [100.0]
    # a screen that would fit beside the smallest game, but take more than its share of the
    # limit (a fifth: its share of the standard budget's runs), leaves the limit to the game
    monkeypatch.setattr(membership_stage, "measure_membership_cost", measure(70.0))
    greedy = audit(train, generator="indhist", plan=plan, seed=3, max_time=12_000)
    assert greedy.screening is None
    (note,) = [n for n in greedy.notes if "two-stage screen was not run" in n]
    assert "would take about 46.7 min (70.0 s a run" in note
    assert "more than 20% of the 3.3 h the time limit leaves" in note
    assert greedy.membership is not None
    assert greedy.membership.config.n_shadows + greedy.membership.config.n_tests == 12_000 // 70
    # a screen that fits runs, and the game gets what it leaves
    monkeypatch.setattr(membership_stage, "measure_membership_cost", measure(0.001))
    fast = audit(train, generator="indhist", plan=plan, seed=3, max_time=12_000)
    assert fast.screening is not None and measured == [100.0, 70.0, 0.001]
    assert not [n for n in fast.notes if "two-stage screen was not run" in n]


def test_a_timed_audit_run_again_resumes_the_same_game(split, monkeypatch, tmp_path) -> None:
    """A time limit sizes the game from measured times; run again in its run directory (after
    an interruption), the audit keeps the first run's choices, so the game's run directory
    accepts it and the report is the same, whatever the new pilot measured."""
    import synthleak.stages.membership as membership_stage
    from synthleak.games.cost import MembershipCost
    from synthleak.runtime import Runtime

    real_measure = membership_stage.measure_membership_cost

    def measure(seconds: float):  # type: ignore[no-untyped-def]
        def fake(game, data, *, rng, runtime=None):  # type: ignore[no-untyped-def]
            real_measure(game, data, rng=rng)
            return MembershipCost(game.generator, game.train_size, game.synthetic_size, seconds, 3)

        return fake

    train, _, _ = split
    plan = replace(TINY, screened_shadows=20, screen_datasets=20)
    run_dir = tmp_path / "run"

    def run(seconds: float) -> AuditResult:
        monkeypatch.setattr(membership_stage, "measure_membership_cost", measure(seconds))
        rt = Runtime(run_dir=run_dir)
        return audit(train, generator="indhist", plan=plan, seed=3, max_time=12_000, runtime=rt)

    first = run(100.0)  # no screen, a game of 120 datasets, in units of 1 (100 s a run)
    assert first.membership is not None and first.screening is None
    kept = json.loads((run_dir / "timed-plan.json").read_text())
    assert kept["batch_size"] == 1 and kept["n_shadows"] == first.membership.config.n_shadows
    assert MembershipCost.from_dict(kept["cost"]).fit_seconds == 100.0
    # run again, the audit takes the kept cost: no new pilot, whether before the screen (which
    # would measure 0.001 s a run, screen and size another game) or in the game's own plan
    import synthleak.games.cost as cost_module

    real_plan_measure = cost_module.measure_membership_cost

    def no_pilot(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise AssertionError("a resumed timed audit ran a new pilot")

    monkeypatch.setattr(cost_module, "measure_membership_cost", no_pilot)
    again = run(0.001)
    monkeypatch.setattr(cost_module, "measure_membership_cost", real_plan_measure)
    assert again.membership is not None and again.screening is None
    assert again.budget is not None and first.budget is not None
    assert again.budget.projected_seconds == first.budget.projected_seconds
    assert again.membership.config.n_shadows == first.membership.config.n_shadows
    assert figures(again) == figures(first)
    # the game's time is what every run spent on it, kept with the stage, never the seconds
    # of reading its finished work back
    assert first.budget.resumed == () and again.budget.resumed == ("game",)
    assert again.budget.measured_seconds > first.budget.measured_seconds
    times = json.loads((run_dir / "stage-times.json").read_text())
    assert times["seconds"]["game"] == pytest.approx(again.budget.measured_seconds)
    # without the kept choices, the new sizes meet the game's own run directory: the game is
    # lost ("not measured"), as it was before they were kept
    (run_dir / "timed-plan.json").unlink()
    lost = run(0.001)
    assert lost.membership is None
    (stage,) = [st for st in lost.stages if st.name == "membership"]
    assert "holds a different run" in stage.reason
    # another audit (another seed) in the same folder does not take them
    monkeypatch.setattr(membership_stage, "measure_membership_cost", measure(100.0))
    other = audit(
        train,
        generator="indhist",
        plan=plan,
        seed=4,
        max_time=12_000,
        runtime=Runtime(run_dir=tmp_path / "other"),
    )
    assert other.membership is not None


def test_generator_audit_reports_empirical_epsilon_against_the_declared_claim(split) -> None:
    train, _, _ = split
    r = audit(train, generator="nonprivate", plan=TINY, seed=0, claimed_epsilon=1.0)
    assert r.epsilon is not None and r.epsilon.claimed == 1.0
    assert r.epsilon.ceiling > 0 and r.epsilon.lower_bound <= r.epsilon.ceiling
    # the power the report states is the estimate's own ceiling: one figure for it
    assert r.budget is not None and r.budget.power.epsilon_ceiling == r.epsilon.ceiling
    assert f"at most {r.epsilon.ceiling:.2f}" in r.budget.power.sentence()
    with pytest.raises(InputError, match="neighbouring"):
        audit(train, generator="nonprivate", plan=TINY, neighbouring="sideways")


def test_the_game_is_sized_like_the_release_where_the_budget_and_data_allow() -> None:
    """The game's datasets hold as many records as the release was trained on; fewer only when
    the budget or the original's three disjoint pools cannot supply them, with the reason
    (issue: 812 records against a release of 2,447, compared with the budget's 1,000)."""
    from synthleak.stages.membership import game_train_size

    assert game_train_size(300, 1000, 10, 1000) == (300, "")  # the release's own size
    assert game_train_size(330, 1000, 10, 1000) == (330, "")  # exactly the pools' third
    n, why = game_train_size(2447, 2447, 10, 1000)  # the original cannot supply more
    assert n == (2447 - 10) // 3 == 812
    assert "2447 records" in why and "three disjoint pools" in why and "at most 812" in why
    n, why = game_train_size(24421, 48842, 10, 1000)  # the budget's most
    assert n == 1000 and why == "the budget's datasets hold at most 1000 records"
    n, why = game_train_size(2447, 2447, 10, 500)  # both bind: the smaller one is named
    assert n == 500 and "budget" in why


def test_play_membership_is_the_black_box_game_and_its_epsilon(split) -> None:
    """``play_membership`` (what ``synthleak mia DATA --generator`` plays) is the
    MembershipGame of its parameters, run on the seed, with the epsilon bound drawn from the
    mia epsilon stream; it tells ``log`` the projection and the time the game took."""
    from synthleak.findings import membership_epsilon
    from synthleak.games.membership import MIA_EPSILON, MembershipGame
    from synthleak.games.targets import Targets
    from synthleak.runtime import Runtime
    from synthleak.serde import without_timings
    from synthleak.stages.membership import play_membership

    train, _, _ = split
    sizes = {"train_size": 40, "synthetic_size": 80, "n_shadows": 10, "n_tests": 10}
    lines: list[str] = []
    res, eps = play_membership(
        train,
        generator="indhist",
        targets=Targets.top(1),
        attacks=["distance", "query"],
        n_queries=500,
        claimed=1.0,
        delta=1e-5,
        seed=7,
        runtime=Runtime(),
        log=lines.append,
        **sizes,
    )
    game = MembershipGame(
        "indhist",
        targets=Targets.top(1),
        attacks=["distance", "query"],
        attack_params={"query": {"n_queries": 500}},
        **sizes,
    )
    direct = game.run(train, seed=7)
    assert without_timings(res.to_dict()) == without_timings(direct.to_dict())
    bound = membership_epsilon(direct, rng=MIA_EPSILON.rng(7), claimed=1.0, delta=1e-5)
    assert eps.to_json() == bound.to_json()
    assert any(x.startswith("measuring one run of 'indhist'") for x in lines)
    assert any(x.startswith("power: ") for x in lines)
    assert any(x.startswith("the game took ") for x in lines)
    with pytest.raises(InputError):  # checked before any run: more training records than data
        play_membership(
            train,
            generator="indhist",
            targets=None,
            attacks=["distance"],
            n_queries=500,
            claimed=None,
            delta=1e-5,
            seed=7,
            runtime=Runtime(),
            log=lines.append,
            **{**sizes, "train_size": 10**6},
        )
