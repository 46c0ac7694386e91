"""The ``person_membership`` stage of the audit (:mod:`synthleak.stages.person_membership`)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from synthleak.data.relational import RelationalData, RelationalSchema
from synthleak.errors import InputError
from synthleak.pipeline import BudgetPlan, audit
from synthleak.results import AuditResult, StageStatus
from synthleak.stages.person_membership import KEY
from synthleak.verdicts import MetricKind, Verdict

SCHEMA = RelationalSchema.build(
    {"person": "pid", "visit": "vid"},
    [("visit", "pid", "person")],
    categorical={"person": ["region"], "visit": ["kind"]},
)
#: Small sizes: the stages that run on the person view stay fast.
PLAN = BudgetPlan(
    n_attacks=60,
    mia_targets=1,
    mia_controls=1,
    shadows=4,
    tests=4,
    n=60,
    mia_attacks=("distance",),
    aia_games=2,
)


@pytest.fixture(autouse=True)
def _one_view_attack(monkeypatch: pytest.MonkeyPatch) -> None:
    """The stage's game with one view attack (``dcr``) instead of every registered one: the
    root-row and child-row attacks still run, and a test takes seconds, not half a minute (the
    game's attacks are tested in ``tests/games/test_person.py``)."""
    import functools

    import synthleak.games.person as person

    game = functools.partial(person.PersonMembershipGame, attacks=("dcr",))
    monkeypatch.setattr(person, "PersonMembershipGame", game)


def population(n: int, rng: np.random.Generator, first_key: int) -> RelationalData:
    """Persons with a root row and a few visits each, drawn from one population."""
    pid = np.arange(first_key, first_key + n)
    person = pd.DataFrame(
        {"pid": pid, "age": rng.integers(18, 90, n), "region": rng.choice(list("abcd"), n)}
    )
    owner = np.repeat(pid, rng.poisson(3, n) + 1)
    m = len(owner)
    visit = pd.DataFrame(
        {
            "vid": np.arange(m) + 10 * first_key,
            "pid": owner,
            "amount": np.round(rng.lognormal(3, 1, m), 2),
            "kind": rng.choice(list("xyz"), m),
        }
    )
    return RelationalData(SCHEMA, {"person": person, "visit": visit})


def subset(data: RelationalData, keys: np.ndarray) -> RelationalData:
    person, visit = data.frames["person"], data.frames["visit"]
    return RelationalData(
        SCHEMA,
        {
            "person": person[person["pid"].isin(keys)].reset_index(drop=True),
            "visit": visit[visit["pid"].isin(keys)].reset_index(drop=True),
        },
    )


def replay(data: RelationalData, first_key: int) -> RelationalData:
    """The same persons' histories under new keys (a generator that copied them)."""
    person = data.frames["person"].copy()
    new = dict(zip(person["pid"], np.arange(first_key, first_key + len(person)), strict=True))
    person["pid"] = person["pid"].map(new)
    visit = data.frames["visit"].copy()
    visit["pid"] = visit["pid"].map(new)
    visit["vid"] = np.arange(len(visit)) + 10 * first_key
    return RelationalData(SCHEMA, {"person": person, "visit": visit})


def parts(seed: int) -> tuple[RelationalData, RelationalData, RelationalData]:
    """Original (60 persons), control (120) and other people (60) of one population."""
    rng = np.random.default_rng(seed)
    everyone = population(240, rng, 0)
    keys = rng.permutation(240)
    return subset(everyone, keys[:60]), subset(everyone, keys[60:180]), subset(everyone, keys[180:])


def person_audit(original, synthetic, control, **kw) -> AuditResult:
    return audit(original, synthetic=synthetic, control=control, plan=PLAN, seed=0, **kw)


def test_null_release_of_other_people_shows_no_person_leak() -> None:
    original, control, others = parts(0)
    r = person_audit(original, others, control)
    pm = r.person_membership
    assert pm is not None
    f = next(f for f in r.findings if f.key == KEY)
    assert f.metric is MetricKind.AUC and f.estimate is pm.best_attack.evaluation_auc
    assert f.estimate.ci_low <= 0.5 <= f.estimate.ci_high
    assert f.estimate.p_value is not None and f.estimate.p_value > 0.05
    assert set(pm.member_keys) <= set(original.frames["person"]["pid"])
    assert set(pm.non_member_keys) <= set(control.frames["person"]["pid"])
    # the single-table stages read one row per person, and say so
    assert r.config.n_original == 60 and r.config.n_control == 120
    assert any("person-level view" in n for n in r.notes)
    assert r.config.root == "person"  # chosen as the schema's only root, and recorded
    assert r.nobox is not None


def test_copy_release_replaying_members_histories_is_found_and_named_by_key() -> None:
    original, control, _ = parts(1)
    r = person_audit(original, replay(original, 9000), control)
    pm = r.person_membership
    assert pm is not None
    f = next(f for f in r.findings if f.key == KEY)
    assert f.estimate.ci_low > 0.9 and f.verdict in (Verdict.LEAK, Verdict.SEVERE)
    assert f.details["root"] == "person" and f.details["attack"] == pm.best
    keys = set(original.frames["person"]["pid"])
    assert len(pm.exposed) == 10 and all(p.key in keys for p in pm.exposed)
    assert pm.exposed[0].percentile > 90
    again = AuditResult.from_json(r.to_json())
    assert again.person_membership is not None and again.person_membership.same_as(pm)


def test_single_table_and_no_control_are_not_measured_with_the_input_they_need() -> None:
    original, _, others = parts(2)
    r = person_audit(original, others, None)
    rec = next(s for s in r.stages if s.name == "person_membership")
    assert rec.status == StageStatus.NOT_MEASURED and "--relational" in rec.needs
    assert r.person_membership is None
    flat = person_audit(
        original.frames["person"].drop(columns="pid"),
        others.frames["person"].drop(columns="pid"),
        None,
    )
    rec = next(s for s in flat.stages if s.name == "person_membership")
    assert rec.status == StageStatus.NOT_APPLICABLE


def test_mixed_parts_generator_and_bad_root_are_refused() -> None:
    original, control, others = parts(3)
    with pytest.raises(InputError, match="every part as relational"):
        person_audit(original, others.frames["person"], control)
    with pytest.raises(InputError, match="give synthetic as relational data"):
        audit(original, control=control, generator="indhist", plan=PLAN)
    with pytest.raises(InputError, match="root 'nope' is not a table"):
        person_audit(original, others, control, root="nope")


def test_a_rerun_keeps_the_stage_unless_a_child_row_changed(tmp_path) -> None:
    """The kept stage's key covers the child rows, which the person-level view only summarises."""
    from synthleak.runtime import Runtime
    from synthleak.stages import person_membership

    original, control, others = parts(4)
    rt = Runtime(run_dir=tmp_path / "run")
    only = {"person_membership"}

    def run(orig: RelationalData) -> tuple[AuditResult, list[str]]:
        lines: list[str] = []
        r = audit(
            orig, synthetic=others, control=control, plan=PLAN, seed=0, runtime=rt, log=lines.append
        )
        return r, [x for x in lines if x.startswith(person_membership.STAGE.title)]

    import synthleak.pipeline as pipeline

    stages = tuple(s for s in pipeline.STAGES if s.name in only)
    saved, pipeline.STAGES = pipeline.STAGES, stages
    try:
        first, _ = run(original)
        again, kept = run(original)
        assert kept and "kept" in kept[0]
        assert again.person_membership is not None and first.person_membership is not None
        assert again.person_membership.same_as(first.person_membership)
        # two visits of one person swap their kinds: the person-level view (counts per kind,
        # amount statistics) is the same, the child rows are not
        visit = original.frames["visit"].copy()
        pair = next(
            g.index[:2]
            for _, g in visit.groupby("pid")
            if len(g) > 1 and g["kind"].iloc[0] != g["kind"].iloc[1]
        )
        visit.loc[pair, "kind"] = visit.loc[pair[::-1], "kind"].to_numpy()
        changed = RelationalData(SCHEMA, {"person": original.frames["person"], "visit": visit})
        from synthleak.data.relational import person_views

        views = [person_views({"o": d, "c": control})["o"] for d in (original, changed)]
        pd.testing.assert_frame_equal(views[0], views[1])
        _, kept = run(changed)
        assert not kept
    finally:
        pipeline.STAGES = saved
