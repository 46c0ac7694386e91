from __future__ import annotations

import json
import math
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from synthleak import InputError, Table
from synthleak.pipeline import BUDGETS, STAGES, Budget, BudgetPlan, audit
from synthleak.results import AuditResult, StageStatus, Verdict

TINY = BudgetPlan(
    n_attacks=150,
    mia_targets=1,
    mia_controls=1,
    shadows=40,
    tests=40,
    n=150,
    mia_attacks=("distance",),
    aia_games=6,
)


@pytest.fixture(scope="module")
def split(adult_table: Table) -> tuple[Table, Table, Table]:
    rng = np.random.default_rng(5)
    rows = rng.choice(len(adult_table), 3000, replace=False)
    return (
        adult_table.take(rows[:1000]),
        adult_table.take(rows[1000:2000]),
        adult_table.take(rows[2000:]),
    )


def _by_key(r: AuditResult) -> dict:
    return {f.key: f for f in r.findings}


def test_release_equal_to_original_is_maximal_risk(split) -> None:
    train, ctl, _ = split
    r = audit(train, synthetic=train, control=ctl, plan=TINY, seed=1, secret="income")
    f = _by_key(r)
    assert f["membership.nobox"].estimate.value > 0.95
    assert f["membership.nobox"].verdict is Verdict.SEVERE
    assert f["singling_out.multivariate"].estimate.ci_low > 0.2
    assert f["linkability"].estimate.ci_low > 0.2
    aia = f["attribute.recon.release"]  # accuracy on training records minus on unseen ones
    assert aia.verdict in (Verdict.LEAK, Verdict.SEVERE) and aia.estimate.ci_low > 0
    assert aia.details["accuracy"] > aia.details["control_accuracy"]
    assert f["copies.exact"].verdict is Verdict.SEVERE
    assert r.utility is not None and r.utility.tvd3 < 1e-9
    assert r.first_finding().verdict is Verdict.SEVERE  # type: ignore[union-attr]


def test_independent_release_shows_no_leak(split) -> None:
    train, ctl, other = split
    r = audit(train, synthetic=other, control=ctl, plan=TINY, seed=1)
    f = _by_key(r)
    for key in ("membership.nobox", "singling_out.multivariate", "linkability", "copies.exact"):
        e = f[key].estimate
        assert e.ci_low <= f[key].baseline + 0.02, key
    # one-sided: on a null release the AUC's interval covers 0.5 in about 95 % of the seeds
    # (tests/games/test_nobox.py); no seed may show a leak
    assert f["membership.nobox"].estimate.value < 0.58
    # without the generator the records are ranked by cell rarity, and the no-box game reports
    # the exposure of the same records the ranking puts first
    from synthleak.vulnerability import cell_rarity_scores

    v = r.vulnerability
    assert v is not None and v.method == "rarity" and (v.k, v.metric) == (0, "")
    expected = np.argsort(-cell_rarity_scores(train), kind="stable")[: len(v.top)]
    assert [t.row for t in v.top] == expected.tolist()
    assert r.nobox is not None
    assert [e.row for e in r.nobox.records] == [t.row for t in v.top]
    # at most two scored non-members per member, the rest of the control as the reference,
    # and the sizes stated
    assert r.nobox.member_rows.size == 150 and r.nobox.non_member_rows.size == 300
    assert r.nobox.n_reference == len(ctl) - 300
    assert any("150 of 1000 original records as members and 300" in n for n in r.nobox.notes)


def test_generator_audit_runs_every_stage_and_is_seeded(split) -> None:
    train, _, _ = split
    lines: list[str] = []
    a = audit(train, generator="indhist", secret="sex", plan=TINY, seed=3, log=lines.append)
    # the attribute game says what it will take and how far it is
    assert any("attribute inference games of 'sex': projected time" in x for x in lines)
    assert any("attribute inference games of 'sex': 6 of 6 games done" in x for x in lines)
    keys = set(_by_key(a))
    assert {
        "singling_out.univariate",
        "linkability",
        "membership.nobox",
        "membership.black_box",
    } <= keys
    assert any(k.startswith("attribute.recon.m") for k in keys)
    assert a.membership is not None and len(a.membership.targets) == 2
    assert [t.selected_by for t in a.membership.targets] == ["screen", "random"]
    sc = a.screening  # the two-stage screen chose the target, beside V_k's ranking
    assert sc is not None and sc.n_candidates == 1000 - 500 and len(sc.top) == 10
    assert a.membership.targets[0].row == sc.top[0].row and sc.top[0].screen_rank == 1
    assert [r.vk_rank for r in sc.vk_top] == list(range(1, 11))
    assert sc.vk_top[0].row == a.vulnerability.top[0].row  # type: ignore[union-attr]
    assert a.budget is not None and a.budget.screen_seconds > 0
    assert a.privacy_utility and a.utility is not None
    assert a.vulnerability is not None
    assert len(a.vulnerability.top) == 10 and a.vulnerability.top[0].rank == 1
    assert not a.vulnerability.top[0].values  # records are masked by default
    measured = {s.name for s in a.stages if s.status is StageStatus.MEASURED}
    assert measured == {s.name for s in STAGES} - {"attribute_sweep"}  # secret="all" only
    b = audit(train, generator="indhist", secret="sex", plan=TINY, seed=3)

    def strip(r: AuditResult) -> dict:
        # config, stages and budget hold wall-clock times; everything else is seeded
        return {k: v for k, v in r.to_dict().items() if k not in ("config", "stages", "budget")}

    assert strip(a) == strip(b)
    assert AuditResult.from_json(a.to_json()).to_json() == a.to_json()


# The default audit's shadow-model path at a small size: a two-stage screen picks 2 targets.
ORACLE_PLAN = replace(
    TINY, mia_targets=2, shadows=60, tests=60, screen_datasets=30, screened_shadows=60
)


@pytest.fixture
def disjoint_generator(adult_table: Table, monkeypatch: pytest.MonkeyPatch) -> str:
    """A generator whose releases carry no information about its training data: it ignores
    them and samples real records of the population that are not in the training data (every
    Adult record outside ``split``'s first part; registered for one test, inline runs only).

    The pool is the whole rest of the population, not a small fixed sample: drawn with
    replacement from 1,000 fixed records, every seed's release shares that one sample's chance
    overlap with the training data (e.g. of ``fnlwgt`` values), so the seeds are not
    independent draws of the null."""
    from synthleak.generators.base import _REGISTRY, BaseGenerator, GeneratorInfo

    train_rows = np.random.default_rng(5).choice(len(adult_table), 3000, replace=False)[:1000]
    reference = adult_table.take(np.setdiff1d(np.arange(len(adult_table)), train_rows))

    class Disjoint(BaseGenerator):
        def fit(self, table: Table, *, rng: np.random.Generator) -> Disjoint:
            self.schema_ = table.schema
            return self

        def sample(self, n: int, *, rng: np.random.Generator) -> Table:
            return reference.take(rng.choice(len(reference), n, replace=True))

    name = "test-disjoint-sample"
    monkeypatch.setitem(_REGISTRY, name, GeneratorInfo(name, Disjoint, (), "test only"))
    return name


def test_default_audit_null_and_copy_oracles(split, disjoint_generator: str) -> None:
    """The whole default audit (two-stage screen, then the game) on a generator that releases a
    disjoint real sample: over six seeds no finding is a leak, the membership interval covers
    0.5 and its estimate is not biased upwards by the screen having picked the targets (the
    game measures them on its own datasets). A generator that resamples its training data is
    found leaking."""
    train = split[0]
    leaks, covered, aucs = 0, 0, []
    for seed in range(6):
        r = audit(train, generator=disjoint_generator, plan=ORACLE_PLAN, seed=seed)
        by = _by_key(r)
        leaks += any(f.verdict in (Verdict.LEAK, Verdict.SEVERE) for f in r.findings)
        m = by["membership.black_box"].estimate
        covered += m.ci_low <= 0.5 <= m.ci_high
        aucs.append(m.value)
    assert leaks <= 1  # Holm over the findings: a false alarm in at most 5 % of audits
    assert covered >= 5
    assert abs(float(np.mean(aucs)) - 0.5) < 0.1  # six estimates of sd ~0.1 around 0.5
    # a copy puts a member in the release about 0.63 of the time (m draws from n records):
    # AUC about 0.8, which 60 test datasets (30 held out of the selection) cannot always show
    copy = audit(train, generator="nonprivate", plan=replace(ORACLE_PLAN, tests=120), seed=0)
    assert _by_key(copy)["membership.black_box"].verdict in (Verdict.LEAK, Verdict.SEVERE)


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
    import synthleak.pipeline as pipeline
    from synthleak.games.cost import MembershipCost

    real_measure = pipeline.measure_membership_cost
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
    monkeypatch.setattr(pipeline, "measure_membership_cost", measure(100.0))
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
    monkeypatch.setattr(pipeline, "measure_membership_cost", measure(70.0))
    greedy = audit(train, generator="indhist", plan=plan, seed=3, max_time=12_000)
    assert greedy.screening is None
    (note,) = [n for n in greedy.notes if "two-stage screen was not run" in n]
    assert "would take about 46.7 min (70.0 s a run" in note
    assert "more than 20% of the 3.3 h the time limit leaves" in note
    assert greedy.membership is not None
    assert greedy.membership.config.n_shadows + greedy.membership.config.n_tests == 12_000 // 70
    # a screen that fits runs, and the game gets what it leaves
    monkeypatch.setattr(pipeline, "measure_membership_cost", measure(0.001))
    fast = audit(train, generator="indhist", plan=plan, seed=3, max_time=12_000)
    assert fast.screening is not None and measured == [100.0, 70.0, 0.001]
    assert not [n for n in fast.notes if "two-stage screen was not run" in n]


def test_a_timed_audit_run_again_resumes_the_same_game(split, monkeypatch, tmp_path) -> None:
    """A time limit sizes the game from measured times; run again in its run directory (after
    an interruption), the audit keeps the first run's choices, so the game's run directory
    accepts it and the report is the same, whatever the new pilot measured."""
    import synthleak.pipeline as pipeline
    from synthleak.games.cost import MembershipCost
    from synthleak.runtime import Runtime

    real_measure = pipeline.measure_membership_cost

    def measure(seconds: float):  # type: ignore[no-untyped-def]
        def fake(game, data, *, rng, runtime=None):  # type: ignore[no-untyped-def]
            real_measure(game, data, rng=rng)
            return MembershipCost(game.generator, game.train_size, game.synthetic_size, seconds, 3)

        return fake

    train, _, _ = split
    plan = replace(TINY, screened_shadows=20, screen_datasets=20)
    run_dir = tmp_path / "run"

    def run(seconds: float) -> AuditResult:
        monkeypatch.setattr(pipeline, "measure_membership_cost", measure(seconds))
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
    assert _figures(again) == _figures(first)
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
    monkeypatch.setattr(pipeline, "measure_membership_cost", measure(100.0))
    other = audit(
        train,
        generator="indhist",
        plan=plan,
        seed=4,
        max_time=12_000,
        runtime=Runtime(run_dir=tmp_path / "other"),
    )
    assert other.membership is not None


def test_stage_streams_do_not_depend_on_other_stages(split, monkeypatch) -> None:
    """Skipping a stage changes no other stage's numbers (streams are keyed by stage name)."""
    import synthleak.pipeline as audit_module

    train, ctl, other = split
    full = audit(train, synthetic=other, control=ctl, plan=TINY, seed=2)
    without = tuple(s for s in STAGES if s.name != "singling_out")
    monkeypatch.setattr(audit_module, "STAGES", without)
    part = audit(train, synthetic=other, control=ctl, plan=TINY, seed=2)
    f, g = _by_key(full), _by_key(part)
    assert "singling_out.multivariate" in f and "singling_out.multivariate" not in g
    for key in ("linkability", "membership.nobox"):
        assert f[key].estimate == g[key].estimate, key


def test_options_object_and_keywords_are_one_audit(split) -> None:
    """``options=`` and the keyword arguments build the same audit; the result records the
    options as its config, and they run the same audit again."""
    from synthleak.results import AuditOptions

    train, ctl, other = split
    opts = AuditOptions(plan=TINY, seed=2, secret="sex", quasi_ids=("age", "race"))
    a = audit(train, synthetic=other, control=ctl, options=opts)
    b = audit(
        train,
        synthetic=other,
        control=ctl,
        plan=TINY,
        seed=2,
        secret="sex",
        quasi_ids=["age", "race"],
    )
    assert a.config.options == opts == b.config.options
    assert [f.estimate for f in a.findings] == [f.estimate for f in b.findings]
    again = audit(train, synthetic=other, control=ctl, options=a.config.options)
    assert [f.estimate for f in again.findings] == [f.estimate for f in a.findings]
    with pytest.raises(InputError, match="not both"):
        audit(train, synthetic=other, options=opts, seed=3)
    with pytest.raises(InputError, match=r"unknown argument.*sead"):
        audit(train, synthetic=other, sead=3)


def test_a_failing_stage_is_recorded_and_the_others_run(split, monkeypatch) -> None:
    import synthleak.pipeline as audit_module

    def boom(ctx, rng):  # type: ignore[no-untyped-def]
        raise MemoryError("simulated")

    stages = tuple(
        audit_module.Stage(s.name, s.title, s.needs, boom) if s.name == "utility" else s
        for s in STAGES
    )
    monkeypatch.setattr(audit_module, "STAGES", stages)
    train, ctl, other = split
    r = audit(train, synthetic=other, control=ctl, plan=TINY, seed=2)
    by = {s.name: s for s in r.stages}
    assert by["utility"].status is StageStatus.FAILED and "MemoryError" in by["utility"].reason
    assert by["linkability"].status is StageStatus.MEASURED and r.utility is None


def test_sections_are_the_results_fields_of_the_same_type() -> None:
    """Every section a stage writes is a field of AuditResult with the same name and type."""
    from dataclasses import fields

    from synthleak.pipeline import _Sections

    result_types = {f.name: f.type for f in fields(AuditResult)}
    for f in fields(_Sections):
        assert f.name in result_types, f"AuditResult has no field {f.name!r}"
        assert f.type == result_types[f.name], f.name
        assert f.default is None


def test_every_section_reaches_the_result(split, monkeypatch) -> None:
    """What a stage leaves in ctx.sections is what the result holds, field by field."""
    from dataclasses import fields

    import synthleak.pipeline as audit_module

    marks = {f.name: object() for f in fields(audit_module._Sections)}

    def fill(ctx, rng):  # type: ignore[no-untyped-def]
        for name, mark in marks.items():
            setattr(ctx.sections, name, mark)

    stage = audit_module.Stage("fill", "fill every section", lambda ctx: None, fill)
    monkeypatch.setattr(audit_module, "STAGES", (stage,))
    train, ctl, other = split
    r = audit(train, synthetic=other, control=ctl, plan=TINY, seed=2)
    for name, mark in marks.items():
        assert getattr(r, name) is mark, name


def test_release_only_audit_says_what_is_missing(split) -> None:
    train, _, other = split
    r = audit(train, synthetic=other, plan=TINY)
    missing = {s.name: s for s in r.not_measured()}
    assert {"singling_out", "linkability", "membership_nobox", "membership"} <= set(missing)
    assert "control set" in missing["membership_nobox"].needs
    # nothing measured is never "no evidence": only the exact-copy check runs without a control
    # (against the duplicates within the original); column copies need the control's rates
    by = _by_key(r)
    assert set(by) == {"copies.exact", "copies.columns"}
    assert by["copies.exact"].details["baseline_of"] == "original records"
    assert by["copies.columns"].verdict is Verdict.NOT_MEASURED
    assert "control" in by["copies.columns"].details["not_measured"]
    # each names the input by its flag and its Python argument, as reports go to both users
    for stage, name in [("linkability", "control"), ("membership", "generator")]:
        assert f"--{name}" in missing[stage].needs and f"{name}=" in missing[stage].needs
    assert "--secret" in missing["attribute_release"].needs


def test_bad_input(split) -> None:
    train, _, _ = split
    with pytest.raises(InputError, match="nothing to audit"):
        audit(train)
    with pytest.raises(InputError, match="secret 'nope' is not a column") as exc:
        audit(train, synthetic=train, secret="nope")
    assert exc.value.parameter == "secret"
    with pytest.raises(InputError, match="quasi_ids"):
        audit(train, synthetic=train, quasi_ids=["nope"])
    with pytest.raises(InputError, match="unknown budget"):
        audit(train, synthetic=train, budget="huge")
    with pytest.raises(InputError, match="original must be a pandas DataFrame"):
        audit([1, 2, 3], synthetic=train)  # type: ignore[arg-type]


def test_budgets_grow() -> None:
    q, s, p = (BUDGETS[b] for b in (Budget.QUICK, Budget.STANDARD, Budget.PAPER))
    assert q.shadows < s.shadows < p.shadows and q.n_attacks < s.n_attacks <= p.n_attacks
    assert p.shadows == 4000 and p.tests == 200 and p.n == 1000  # Table 1 of Meeus et al. (2023)
    # the meta classifier runs wherever lira does (as strong on the measured Adult games)
    assert [("lira" in b.mia_attacks, "meta" in b.mia_attacks) for b in (q, s, p)] == [
        (False, False),
        (True, True),
        (True, True),
    ]


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


def test_fail_on_fails_a_copy_and_passes_a_disjoint_sample(split) -> None:
    from synthleak.policy import parse_fail_on

    train, ctl, other = split
    policy = parse_fail_on("membership.nobox.auc>0.6,singling_out.risk>0.05,linkability.risk>0.05")
    leaky = audit(train, synthetic=train, control=ctl, plan=TINY, seed=1, policy=policy)
    clean = audit(train, synthetic=other, control=ctl, plan=TINY, seed=1, policy=policy)
    assert leaky.policy is not None and not leaky.policy.passed and leaky.policy.exit_code == 3
    assert clean.policy is not None and clean.policy.passed, clean.policy.to_text()
    assert AuditResult.from_json(leaky.to_json()).policy == leaky.policy


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


def test_identifier_and_text_columns_are_left_out_but_still_checked_for_copies(split) -> None:
    """A person_id column made a GaussianCopula release read "SEVERE"; names became categoricals
    with one level per row. Both are now left out of the attacks with a note, fresh identifiers in
    the release do not hide copied rows, and copied identifiers are measured."""
    train, ctl, other = (t.to_frame() for t in split)
    for i, df in enumerate((train, ctl, other)):
        df.insert(0, "person_id", np.arange(len(df)) + 10_000 * i)
        df["name"] = [f"Person {j} of street {7 * j + i}" for j in range(len(df))]
    release = train.copy()
    release["person_id"] = np.arange(len(release)) + 50_000  # fresh identifiers
    r = audit(train, synthetic=release, control=ctl, plan=TINY, seed=0)
    assert r.data is not None
    assert set(r.data.profile.excluded) == {"person_id", "name"}
    assert "person_id" not in r.schema.names and "name" not in r.schema.names
    assert any("identifier" in w.message for w in r.data.warnings())
    copies = _by_key(r)["copies.exact"]
    assert copies.verdict is Verdict.SEVERE  # rows copied verbatim although the ids are new
    assert r.copies is not None
    rates = {c.column: c.synthetic_in_original.value for c in r.copies.columns}
    assert rates["person_id"] == 0.0 and rates["name"] == 1.0  # the copied names are counted
    cols = _by_key(r)["copies.columns"]
    assert cols.verdict is Verdict.SEVERE and cols.details["column"] == "name"
    assert any("'name' (left out of the attacks)" in w for w in cols.where)
    assert not any("person_id" in w for w in cols.where)
    leaked = release.assign(person_id=train["person_id"].to_numpy())
    r2 = audit(train, synthetic=leaked, control=ctl, plan=TINY, seed=0)
    assert r2.copies is not None
    assert {c.column: c.synthetic_in_original.value for c in r2.copies.columns}["person_id"] == 1.0
    assert any("'person_id'" in w for w in _by_key(r2)["copies.columns"].where)
    # a disjoint sample of other people is not flagged through these columns
    clean = audit(train, synthetic=other, control=ctl, plan=TINY, seed=0)
    assert _by_key(clean)["copies.exact"].verdict is Verdict.NO_EVIDENCE
    assert _by_key(clean)["copies.columns"].verdict is Verdict.NO_EVIDENCE


def test_one_record_identity_across_sections(split) -> None:
    """With a control held out of the original, every section names a record by its row in the
    original as given: the ranking's top records, their scores, the no-box exposure records and
    members, the copies (the issue: rows 6433 / 6590 in one table, 3266 / 3348 in another)."""
    train = split[0]
    r = audit(train, generator="nonprivate", plan=TINY, seed=4)
    assert r.vulnerability is not None and r.nobox is not None and r.copies is not None
    v, nb = r.vulnerability, r.nobox
    held_out = np.flatnonzero(np.isnan(v.scores))
    assert v.scores.size == len(train) and held_out.size == r.config.n_control
    top = {t.row for t in v.top}
    assert not top & set(held_out.tolist())
    for t in v.top:
        assert v.scores[t.row] == pytest.approx(t.score)
    exposed = {rec.row for rec in nb.records if rec.selected_by == "v_k"}
    assert exposed == top  # the same V_k ranking, the same people, the same numbers
    assert not set(nb.member_rows.tolist()) & set(held_out.tolist())
    assert set(nb.non_member_rows.tolist()) <= set(held_out.tolist())
    assert not set(r.copies.copied_rows.tolist()) & set(held_out.tolist())
    # the screen's records say where they stand out, the same as the ranking's same records
    assert r.screening is not None
    cols = {t.row: t.rare_columns for t in v.top}
    for t in (*r.screening.top, *r.screening.vk_top):
        assert t.row not in held_out
        if t.row in cols:
            assert t.rare_columns == cols[t.row]
    assert any(t.rare_columns for t in r.screening.vk_top)
    # the audit's screen (screen_design's default): one pool, the full attack
    from synthleak.games.twostage import screen_design

    want = screen_design(r.config.sizes.mia_targets, len(train) - r.config.n_control)
    assert r.screening.n_screened == want["n_screened"]
    assert r.screening.second_pool == 0 and want["second_pool"] is None
    assert r.screening.first_queries == r.screening.n_queries == want["n_queries"]
    screened = {t.row for t in r.screening.top}
    assert r.membership is not None
    chosen = {t.row for t in r.membership.targets if t.selected_by == "screen"}
    assert chosen and chosen <= screened
    # the game's datasets beside what the release was trained on (the audit's split)
    assert r.budget is not None
    assert r.budget.train_size == r.membership.config.train_size
    assert r.budget.release_train_size == len(train) - r.config.n_control
    assert r.budget.train_size < r.budget.release_train_size
    assert any(f"fewer than the {r.budget.release_train_size} the release" in n for n in r.notes)


def test_the_game_is_sized_like_the_release_where_the_budget_and_data_allow() -> None:
    """The game's datasets hold as many records as the release was trained on; fewer only when
    the budget or the original's three disjoint pools cannot supply them, with the reason
    (issue: 812 records against a release of 2,447, compared with the budget's 1,000)."""
    from synthleak.pipeline import game_train_size

    assert game_train_size(300, 1000, 10, 1000) == (300, "")  # the release's own size
    assert game_train_size(330, 1000, 10, 1000) == (330, "")  # exactly the pools' third
    n, why = game_train_size(2447, 2447, 10, 1000)  # the original cannot supply more
    assert n == (2447 - 10) // 3 == 812
    assert "2447 records" in why and "three disjoint pools" in why and "at most 812" in why
    n, why = game_train_size(24421, 48842, 10, 1000)  # the budget's most
    assert n == 1000 and why == "the budget's datasets hold at most 1000 records"
    n, why = game_train_size(2447, 2447, 10, 500)  # both bind: the smaller one is named
    assert n == 500 and "budget" in why


def test_small_data_says_too_small_with_the_size_it_needs(split) -> None:
    """20 records: the membership stages say "too small to measure" with the sizes they need,
    in the audit's words (no API parameter names), instead of a game's parameter error."""
    r = audit(split[0].take(np.arange(20)), generator="indhist", plan=BUDGETS[Budget.QUICK])
    by = {s.name: s for s in r.stages}
    for name in ("membership_nobox", "membership"):
        assert by[name].status is StageStatus.NOT_MEASURED
        assert by[name].reason.startswith("too small to measure"), by[name].reason
        assert "n_members" not in by[name].reason and "train_size" not in by[name].reason
    assert "20 original records" in by["membership"].reason
    # and no finding on 20 records reads as reassuring (a linkability interval of 0-0.17 is
    # narrow only because nothing succeeded)
    assert r.findings and all(f.verdict is not Verdict.NO_EVIDENCE for f in r.findings), [
        (f.key, f.verdict) for f in r.findings
    ]


def test_release_attribute_inference_is_bounded_by_the_plan(split) -> None:
    train, ctl, _ = split
    plan = replace(TINY, aia_records=120, aia_queries=500)
    lines: list[str] = []
    r = audit(
        train,
        synthetic=train,
        control=ctl,
        plan=plan,
        seed=1,
        secret="income",
        log=lines.append,
    )
    aia = _by_key(r)["attribute.recon.release"]
    # whole parts of at most the budget's 120 records (they share quasi-identifier values)
    # until at least 120 are attacked, and as many control records holding their values
    attacked = aia.details["records_attacked"]
    assert 120 <= attacked < 240
    assert aia.details["training_records"] == len(train)
    assert aia.details["queries_per_program"] == 500
    assert aia.estimate.n_trials == attacked + aia.details["control_records_attacked"]
    # 120 records and 500 queries per program are far below every budget: the copy's leak is
    # seen in only a few seeds out of forty at this size (it is at the budgets' sizes, above)
    assert any("projected time" in line and "release" in line for line in lines)
    assert any("of 1000 training records" in line for line in lines)


def test_budgets_bound_release_attribute_inference() -> None:
    assert BUDGETS[Budget.QUICK].aia_records is not None
    assert BUDGETS[Budget.QUICK].aia_queries is not None
    q, s = BUDGETS[Budget.QUICK], BUDGETS[Budget.STANDARD]
    assert q.aia_records <= s.aia_records and q.aia_queries <= s.aia_queries  # type: ignore[operator]


def test_numeric_secret_release_stage(split) -> None:
    from synthleak.games.secret import SecretRule

    train, ctl, other = split
    rule = SecretRule(tolerance=5.0)
    r = audit(
        train, synthetic=train, control=ctl, plan=TINY, seed=1, secret="age", secret_rule=rule
    )
    aia = _by_key(r)["attribute.recon.release"]
    assert (
        aia.estimate.ci_low > 0
        and "right when the guess is within 5 of the true value" in aia.title
    )
    assert aia.details["success_rule"] == rule.describe() and len(aia.details["secret_bins"]) == 10
    null = audit(
        train, synthetic=other, control=ctl, plan=TINY, seed=1, secret="age", secret_rule=rule
    )
    assert _by_key(null)["attribute.recon.release"].estimate.ci_low <= 0
    with pytest.raises(InputError, match="numeric column"):
        audit(train, synthetic=train, control=ctl, plan=TINY, secret="age")


def test_budget_time_allowance_bounds_the_attribute_game_and_states_its_power(
    split, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without max_time the budget's allowance (aia_seconds) bounds the attribute game above
    its floor of games; the note says how many were played and what interval width they buy.
    The stage runs alone on a minimal context (a whole generator audit takes a minute)."""
    from types import SimpleNamespace

    import synthleak.games.attribute as attribute
    import synthleak.pipeline as pipeline
    from synthleak.results import AuditOptions
    from synthleak.runtime import as_runtime

    real = attribute._play_game

    def slow(shared, g):  # type: ignore[no-untyped-def]
        import time

        time.sleep(0.2)
        return real(shared, g)

    monkeypatch.setattr(attribute, "_play_game", slow)
    monkeypatch.setattr(pipeline, "AIA_MIN_GAMES", 3)
    train, _, _ = split
    lines: list[str] = []

    def stage(plan: BudgetPlan, max_time: float | None = None) -> SimpleNamespace:
        options = AuditOptions(generator="indhist", secret="sex", plan=plan, max_time=max_time)
        ctx = SimpleNamespace(
            options=options,
            original=train,
            plan=plan,
            runtime=as_runtime(None),
            log=lines.append,
            sections=pipeline._Sections(),
            notes=[],
            findings=[],
            privacy_utility=[],
        )
        pipeline._attribute_game(ctx, np.random.default_rng(0))  # type: ignore[arg-type]
        return ctx

    plan = replace(TINY, n=100, aia_games=8, aia_seconds=0.01)
    ctx = stage(plan)
    res = ctx.sections.attribute
    assert res.config["n_games"] == 3 and res.config["n_games_requested"] == 8
    (note,) = ctx.notes
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


def test_an_audit_refuses_a_run_directory_of_another_stream_layout(split, tmp_path) -> None:
    """Finished work drawn under the earlier layout (games seeded from the run seed) is never
    mixed into a run whose games draw from their stages' streams."""
    from synthleak.runtime import RunStore, Runtime

    train, ctl, other = split
    old = tmp_path / "run"
    RunStore(old / "nobox", {"seed": 1}).put("attack-dcr", {"x": np.zeros(2)})
    with pytest.raises(InputError, match="stream layout 1, this one uses 2"):
        audit(train, synthetic=other, control=ctl, plan=TINY, seed=1, runtime=Runtime(run_dir=old))
    fresh = tmp_path / "fresh"
    audit(train, synthetic=other, control=ctl, plan=TINY, seed=1, runtime=Runtime(run_dir=fresh))
    assert (fresh / "layout.json").exists()


def _figures(r: AuditResult) -> object:
    """The result's JSON without what measures the machine (times, clock)."""
    import json

    from synthleak.serde import without_timings

    return without_timings(json.loads(r.to_json()))


def test_an_audit_of_compact_parts_encoded_once_is_the_same_audit(split) -> None:
    """The command line reads each part, profiles it and keeps it compact (categoricals,
    small integers), and hands its encoding to the audit: the same result, records shown."""
    from synthleak.data.io import encode_frames

    train, ctl, other = (t.to_frame() for t in split)
    for i, df in enumerate((train, ctl, other)):
        df.insert(0, "person_id", np.arange(len(df)) + 10_000 * i)
        df["name"] = [f"Person {j} of street {7 * j + i}" for j in range(len(df))]
    release = train.copy()
    release.loc[release.index[:200], "name"] = other["name"].iloc[:200].to_numpy()
    parts = {"original": train, "synthetic": release, "control": ctl}
    enc = encode_frames({k: (lambda v=v: v) for k, v in parts.items()}, compact=True)
    assert isinstance(enc.frames["original"]["workclass"].dtype, pd.CategoricalDtype)
    kw = {"plan": TINY, "seed": 3, "show_records": True}
    plain = audit(train, synthetic=release, control=ctl, **kw)
    frames = enc.frames
    once = audit(
        frames["original"],
        synthetic=frames["synthetic"],
        control=frames["control"],
        encoded=enc,
        **kw,
    )
    assert _figures(once) == _figures(plain)
    assert once.vulnerability is not None and once.vulnerability.top[0].values
    with pytest.raises(InputError, match="encoded was made from other data"):
        audit(train, synthetic=release, control=ctl, encoded=enc, **kw)
    with pytest.raises(InputError, match="schema differs from the schema encoded"):
        audit(
            frames["original"],
            synthetic=frames["synthetic"],
            control=frames["control"],
            schema=enc.schema.select(list(enc.schema.names[:3])),
            encoded=enc,
            **kw,
        )


class _Stopped(KeyboardInterrupt):
    """Ctrl-C, raised by a test in the middle of an audit."""


def _stages_with(calls: list[str], stop_at: str | None = None) -> tuple:
    """The audit's stages, each recording its name in ``calls`` when it runs; ``stop_at``
    raises Ctrl-C there (after the stages before it finished)."""

    def wrap(st):  # type: ignore[no-untyped-def]
        def run(ctx, rng):  # type: ignore[no-untyped-def]
            calls.append(st.name)
            if st.name == stop_at:
                raise _Stopped
            st.run(ctx, rng)

        return replace(st, run=run)

    return tuple(wrap(st) for st in STAGES)


def test_an_interrupted_audit_keeps_its_finished_stages(split, tmp_path, monkeypatch) -> None:
    """Ctrl-C (or kill -9) in the middle of an audit keeps every stage it finished: the same
    audit run again takes them from the run directory and reports exactly what an audit never
    interrupted does; another audit in the same directory runs every stage itself."""
    import synthleak.pipeline as audit_module
    from synthleak.runtime import Runtime

    train, ctl, other = (t.to_frame() for t in split)
    other.insert(0, "name", [f"Person {j}" for j in range(len(other))])  # a left-out column
    train.insert(0, "name", [f"Person {j}" for j in range(len(train))])
    ctl.insert(0, "name", [f"Someone {j}" for j in range(len(ctl))])
    kw = {"plan": TINY, "seed": 4, "secret": "income", "show_records": True}
    whole = audit(train, synthetic=other, control=ctl, **kw)
    rt = Runtime(run_dir=tmp_path / "run")
    calls: list[str] = []
    monkeypatch.setattr(audit_module, "STAGES", _stages_with(calls, stop_at="membership_nobox"))
    with pytest.raises(_Stopped):
        audit(train, synthetic=other, control=ctl, runtime=rt, **kw)
    assert calls[-4:] == ["copies", "singling_out", "linkability", "membership_nobox"]

    calls.clear()
    monkeypatch.setattr(audit_module, "STAGES", _stages_with(calls))
    lines: list[str] = []
    resumed = audit(train, synthetic=other, control=ctl, runtime=rt, log=lines.append, **kw)
    assert not {"copies", "singling_out", "linkability"} & set(calls)
    assert {"membership_nobox", "attribute_release", "utility"} <= set(calls)
    assert "Linkability: finished in an earlier run, kept" in lines
    assert _figures(resumed) == _figures(whole)
    assert resumed.copies is not None and resumed.copies.same_as(whole.copies)

    calls.clear()  # every kept stage is now stored: nothing runs again
    again = audit(train, synthetic=other, control=ctl, runtime=rt, **kw)
    assert not {st.name for st in STAGES if st.kept} & set(calls)
    assert _figures(again) == _figures(whole)

    calls.clear()  # other values in a left-out column: another audit, every stage runs
    other2 = other.assign(name=ctl["name"].to_numpy())
    changed = audit(train, synthetic=other2, control=ctl, runtime=rt, **kw)
    assert {"copies", "singling_out", "linkability", "membership_nobox"} <= set(calls)
    assert _figures(changed) == _figures(audit(train, synthetic=other2, control=ctl, **kw))
    calls.clear()  # another seed: another audit
    audit(train, synthetic=other, control=ctl, runtime=rt, **{**kw, "seed": 5})
    assert "copies" in calls
    calls.clear()  # another numpy (scikit-learn, ...) may compute other numbers: run again
    monkeypatch.setattr(audit_module, "package_versions", lambda: {"numpy": "0.0"})
    audit(train, synthetic=other, control=ctl, runtime=rt, **kw)
    assert "copies" in calls


def test_every_kept_stage_is_stored(split, tmp_path) -> None:
    """A stage marked kept stores its output; one that changed anything but findings, notes,
    privacy-utility points and sections would not be (and would run again on every resume)."""
    from synthleak.runtime import RunStore, Runtime

    train, ctl, other = split
    r = audit(
        train,
        synthetic=other,
        control=ctl,
        plan=TINY,
        seed=1,
        secret="income",
        runtime=Runtime(run_dir=tmp_path / "run"),
    )
    measured = {s.name for s in r.stages if s.status is StageStatus.MEASURED}
    kept = {st.name for st in STAGES if st.kept} & measured
    assert kept >= {"copies", "singling_out", "membership_nobox", "attribute_release", "utility"}
    with RunStore(tmp_path / "run" / "stages", {"kept": "audit stages"}) as store:
        assert {k.rsplit("-", 1)[0] for k in store.done()} == kept
    swept = audit(
        train,
        synthetic=other,
        control=ctl,
        plan=replace(TINY, aia_records=200, aia_queries=2000),  # the sweep's cost is not tested
        seed=1,
        secret="all",
        runtime=Runtime(run_dir=tmp_path / "sweep"),
    )
    assert any(
        s.name == "attribute_sweep" and s.status is StageStatus.MEASURED for s in swept.stages
    )
    with RunStore(tmp_path / "sweep" / "stages", {"kept": "audit stages"}) as store:
        assert any(k.startswith("attribute_sweep-") for k in store.done())


def test_a_ctrl_c_swallowed_inside_a_stage_stops_the_audit(split, tmp_path, monkeypatch) -> None:
    """Code a stage runs may swallow a Ctrl-C (numpy clears errors raised while it looks up an
    attribute): the audit stops after that stage anyway, and keeps nothing the stage did."""
    import os
    import signal
    import time

    import synthleak.pipeline as audit_module
    from synthleak.runtime import RunStore, Runtime

    def swallowing(st):  # type: ignore[no-untyped-def]
        def run(ctx, rng):  # type: ignore[no-untyped-def]
            st.run(ctx, rng)
            if st.name == "singling_out":
                try:
                    os.kill(os.getpid(), signal.SIGINT)
                    time.sleep(1)
                except KeyboardInterrupt:
                    pass

        return replace(st, run=run)

    train, ctl, other = split
    monkeypatch.setattr(audit_module, "STAGES", tuple(swallowing(st) for st in STAGES))
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            audit(
                train,
                synthetic=other,
                control=ctl,
                plan=TINY,
                seed=1,
                runtime=Runtime(run_dir=tmp_path / "run"),
            )
    finally:
        signal.signal(signal.SIGINT, previous)
    with RunStore(tmp_path / "run" / "stages", {"kept": "audit stages"}) as store:
        assert {k.rsplit("-", 1)[0] for k in store.done()} == {"copies"}


def test_a_dp_generator_given_a_domain_read_from_the_data_is_noted(split) -> None:
    """The generator's epsilon claim does not cover a domain read from the private data, and
    the shadow-model game cannot see it: the audit says so when it inferred the schema."""
    train = split[0].take(np.arange(400))
    frame = train.to_frame()
    plan = replace(TINY, mia_targets=0, mia_controls=0, aia_games=0)
    inferred = audit(frame, generator="privbayes:epsilon=1", plan=plan, seed=0)
    (note,) = [n for n in inferred.notes if "the domain it was given" in n]
    assert "claims epsilon = 1" in note and "shadow-model game does not measure" in note
    given = audit(frame, generator="privbayes:epsilon=1", plan=plan, seed=0, schema=train.schema)
    assert not [n for n in given.notes if "the domain it was given" in n]


def test_null_oracle_copy_findings_p_values_are_valid() -> None:
    """Copies (exact rows and the worst of 8 columns) on null counts at the CLI's shapes: 2,000
    synthetic records, 500 control records, each found in the original at the same rate (the
    columns at equal size: the release's values among 500 training and 500 control records).
    Fisher's exact test (Bonferroni over the columns) is discrete: ``P(p <= a) <= a`` at several
    levels over 300 draws (3 binomial standard errors), and not pinned at 1; a p read from the
    interval clipped at the excess's -1..1 scale or at 0 fails that."""
    from synthleak.metrics.copies import ColumnCopies, CopyReport
    from synthleak.metrics.privacy import RiskEstimate
    from synthleak.pipeline import copy_findings
    from synthleak.results import one_sided_p

    rng = np.random.default_rng(51)
    nan = float("nan")

    def rate(k: int, n: int) -> RiskEstimate:
        return RiskEstimate(k / n, nan, nan, 0.95, n, None)

    col_rates = np.array([0.01, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6])
    exact, columns = [], []
    for _ in range(300):
        cols = tuple(
            ColumnCopies(
                f"c{i}",
                0.9,
                rate(rng.binomial(2000, r), 2000),
                None,
                500,  # the equal-size comparison: the release's values among 500 of each part
                rate(rng.binomial(2000, r), 2000),
                rate(rng.binomial(2000, r), 2000),
            )
            for i, r in enumerate(col_rates)
        )
        rep = CopyReport(
            4000, 2000, 500,
            rate(rng.binomial(2000, 0.05), 2000), rate(0, 4000),
            rate(rng.binomial(500, 0.05), 500), None,
            np.zeros(0, dtype=np.int64), cols, None, 0.05, None, None,
        )  # fmt: skip
        found = {f.key: f for f in copy_findings(rep)}
        exact.append(found["copies.exact"].p_value)
        columns.append(found["copies.columns"].p_value)
        assert found["copies.columns"].p_value == one_sided_p(found["copies.columns"].estimate, 0.0)
    for p in (np.array(exact), np.array(columns)):
        assert np.isfinite(p).all()
        for lv in (0.01, 0.025, 0.05, 0.1, 0.25, 0.5):
            assert float(np.mean(p <= lv)) <= lv + 3 * math.sqrt(lv * (1 - lv) / p.size), lv
    assert float(np.mean(np.array(exact) <= 0.05)) >= 0.02
    assert float(np.mean(np.array(columns) <= 0.5)) >= 0.25


def test_a_column_has_one_figure_named_or_swept(split, monkeypatch) -> None:
    """A column's attribute-inference figure under a rule is the same whether the audit names
    it as the secret or sweeps every column: the same game (seed, records, control swaps,
    attack, quasi-identifiers), a categorical and a numeric secret alike."""
    import synthleak.pipeline as audit_module
    from synthleak.games.secret import SecretRule

    cols = ["age", "education", "sex", "race", "income"]
    train, ctl, other = (t.to_frame()[cols].iloc[:400] for t in split)
    monkeypatch.setattr(
        audit_module,
        "STAGES",
        tuple(st for st in STAGES if st.name in {"attribute_release", "attribute_sweep"}),
    )
    kw = {"plan": replace(TINY, aia_records=100, aia_queries=1000), "seed": 2}
    swept = audit(train, synthetic=other, control=ctl, secret="all", **kw)
    every = {f.key: f for f in swept.findings}
    for secret, rule in (("income", None), ("age", SecretRule(bins=5))):
        named = audit(train, synthetic=other, control=ctl, secret=secret, secret_rule=rule, **kw)
        (one,) = [f for f in named.findings if f.key == "attribute.recon.release"]
        two = every[f"attribute.sweep.{secret}"]
        a, b = one.estimate, two.estimate
        assert np.isfinite(a.value)
        assert (a.value, a.ci_low, a.ci_high, a.n_trials) == (
            b.value,
            b.ci_low,
            b.ci_high,
            b.n_trials,
        )


def _titles(n: int, seed: int) -> pd.DataFrame:
    """Records with a free-text title each (long, held by one record) and two features."""
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "title": [f"Notes on the winter harvest of field {seed}-{i}" for i in range(n)],
            "age": rng.integers(18, 90, n),
            "weight": rng.lognormal(11, 0.5, n).round(-2),
        }
    )


def test_copy_findings_carry_people_and_what_they_are_compared_with() -> None:
    """Issue 51 (items 2, 11b): every copy finding says how many people it shows published
    and what it is compared with; a column copied less than chance is never named worst."""
    from synthleak.metrics.copies import copy_report, lone_text, rare_values
    from synthleak.pipeline import copy_findings

    ori, ctl = _titles(800, 1), _titles(200, 2)
    syn = _titles(600, 3)
    syn.iloc[:30] = ori.iloc[10:40].to_numpy()  # 30 whole records copied
    rep = copy_report(ori, syn, ctl, near_quantile=0, value_columns=["title"])
    rep = replace(
        rep,
        lone_text=lone_text(ori, syn, ["title"]),
        rare_values=rare_values(ori, syn, ctl, ["age"]),
    )
    by = {f.key: f for f in copy_findings(rep, {"title": "left out of the attacks"})}
    assert set(by) == {"copies.exact", "copies.columns", "copies.rare_values"}
    assert by["copies.exact"].details["people_published"] == 30
    assert by["copies.columns"].details["people_published"] == 30  # their titles
    assert by["copies.rare_values"].details["people_published"] == 0
    assert by["copies.exact"].details["compared_with"] == "control"
    assert by["copies.columns"].details["compared_with"] == "control"
    # no age is held by one record alone: not measured, and compared with nothing
    assert by["copies.rare_values"].details["compared_with"] == "none"
    cols = by["copies.columns"]
    assert cols.details["column"] == "title" and "worst column: 'title'" in cols.title
    assert not any("weight" in w for w in cols.where)
    # a release whose weights are the control's: copied less than chance, never named worst
    w_only = pd.DataFrame({"weight": ctl["weight"].sample(600, replace=True, random_state=0)})
    low = copy_report(ori[["weight"]], w_only, ctl[["weight"]], value_columns=["weight"])
    w = {c.column: c for c in low.columns}["weight"]
    assert w.synthetic_in_original_m is not None and w.synthetic_in_control_m is not None
    assert w.synthetic_in_original_m.value < w.synthetic_in_control_m.value
    f = {f.key: f for f in copy_findings(low)}["copies.columns"]
    assert "column" not in f.details and f.title.endswith("(no column exceeds chance)")
    assert f.verdict is Verdict.NO_EVIDENCE


def test_copy_findings_without_a_control() -> None:
    """Issue 51 (11b): a release copying its free-text titles is flagged with no control
    (long text one record holds, against the stated chance rate), the columns with no chance
    rate are listed as not measured with the input they need, and no sentence speaks of a
    control; a release of other titles is not flagged."""
    from synthleak.metrics.copies import copy_report, lone_text
    from synthleak.pipeline import copy_checks_not_measured, copy_findings

    ori = _titles(800, 1)
    for planted, syn in ((800, ori.sample(800, random_state=0)), (0, _titles(800, 4))):
        syn = syn.assign(age=np.random.default_rng(5).integers(18, 90, 800))  # rows differ
        rep = copy_report(ori, syn.reset_index(drop=True), near_quantile=0, value_columns=["title"])
        rep = replace(rep, lone_text=lone_text(ori, syn, ["title"]))
        by = {f.key: f for f in copy_findings(rep, {"title": "left out of the attacks"})}
        cols, exact = by["copies.columns"], by["copies.exact"]
        assert cols.details["compared_with"] == exact.details["compared_with"] == "chance"
        assert cols.details["people_published"] == planted
        assert cols.estimate.baseline == 0.01 and "probability at most 0.01" in str(
            cols.details["assumption"]
        )
        assert cols.verdict is (Verdict.SEVERE if planted else Verdict.NO_EVIDENCE)
        for f in by.values():
            assert "control" not in f.explanation(), f.explanation()
        missing = copy_checks_not_measured(list(by.values()))
        assert [m.name for m in missing] == ["copies.columns"]
        assert "'weight'" in missing[0].title and "control set" in missing[0].needs
    # whole records without a control: 40 planted copies flagged and counted, none otherwise
    for planted in (40, 0):
        syn = pd.concat([ori.iloc[:planted], _titles(800 - planted, 8)], ignore_index=True)
        exact = {f.key: f for f in copy_findings(copy_report(ori, syn, near_quantile=0))}[
            "copies.exact"
        ]
        assert exact.details["people_published"] == planted
        assert exact.details["copies_expected_by_chance"] == 0.0  # no duplicates in the original
        assert exact.estimate.baseline == exact.details["baseline_rate"] > 0  # upper end
        leak = exact.verdict in (Verdict.LEAK, Verdict.SEVERE)
        assert leak if planted else exact.verdict is Verdict.NO_EVIDENCE
    # no text column at all: the column check is not measured, and listed so
    rep = copy_report(ori.drop(columns="title"), _titles(300, 6).drop(columns="title"))
    f = {f.key: f for f in copy_findings(rep)}["copies.columns"]
    assert f.verdict is Verdict.NOT_MEASURED and f.details["compared_with"] == "none"
    (m,) = copy_checks_not_measured([f])
    assert m.status is StageStatus.NOT_MEASURED and "control set" in m.needs


def test_copied_free_text_without_a_control_is_flagged_and_the_rest_listed() -> None:
    """Issue 51 (11b), end to end: a release copying its free-text titles, audited with no
    control, reads a leak with the count of people whose text is published, and the column
    check it cannot make is in the summary's not-measured list (report included)."""
    from synthleak.report.document import build_document
    from synthleak.report.writers import to_markdown

    ori = _titles(600, 1)
    syn = _titles(600, 7)
    syn["title"] = ori["title"].sample(600, random_state=1).to_numpy()
    r = audit(ori, synthetic=syn, plan=TINY, seed=0)
    assert r.data is not None and "title" in r.data.profile.excluded
    cols = _by_key(r)["copies.columns"]
    assert cols.verdict is Verdict.SEVERE and cols.details["compared_with"] == "chance"
    assert cols.details["people_published"] == 600
    missing = {s.name: s for s in r.not_measured()}
    assert "copies.columns" in missing and "'weight'" in missing["copies.columns"].title
    md = to_markdown(build_document(r))
    assert "Verbatim copies of the values of column(s) 'weight'" in md
    assert "the release reproduces 600 of them verbatim" in md
    for f in r.findings:  # no copy sentence speaks of a control the audit does not have
        assert "control" not in f.explanation(), f.explanation()


def test_a_daily_table_split_by_rows_is_not_flagged(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 51 (11a), end to end: one row per day, the days split by rows into original and
    control, a release drawing its dates from the whole calendar: no copy finding flags it
    (the copies stage alone, to keep the test fast)."""
    import synthleak.pipeline as audit_module

    monkeypatch.setattr(audit_module, "STAGES", tuple(s for s in STAGES if s.name == "copies"))
    rng = np.random.default_rng(0)
    days = pd.date_range("2000-01-01", periods=1500, freq="D").strftime("%Y-%m-%d")
    cal = pd.DataFrame(
        {"date": days, "temp": rng.normal(12, 6, 1500).round(1), "rain": rng.integers(0, 40, 1500)}
    )
    perm = rng.permutation(1500)
    ori, ctl = cal.iloc[perm[:1200]], cal.iloc[perm[1200:]]
    # every day once, in another order: the release's dates fall on training and control days
    # exactly in proportion (the chance alarms of dates drawn at random are measured in
    # tests/metrics/test_copies.py)
    syn = cal.assign(date=rng.permutation(days), temp=rng.normal(12, 6, 1500).round(1))
    r = audit(ori, synthetic=syn, control=ctl, plan=TINY, seed=0)
    assert r.copies is not None
    date = {c.column: c for c in r.copies.columns}["date"]
    assert date.control_in_original is not None and date.control_in_original.value == 0.0
    assert date.synthetic_in_original.value == pytest.approx(0.8)  # the old false alarm
    assert date.synthetic_in_original_m == replace(date.synthetic_in_control_m, baseline=0.2)
    for f in r.findings:
        if f.key.startswith("copies."):
            assert f.verdict not in (Verdict.LEAK, Verdict.SEVERE), f.key
