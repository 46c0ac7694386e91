"""The ``person_shadow`` stage of the audit (:mod:`synthleak.stages.person_shadow`)."""

from __future__ import annotations

import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.stages.test_person_membership import parts

import synthleak.pipeline as pipeline
from synthleak.errors import InputError
from synthleak.pipeline import BudgetPlan, audit
from synthleak.results import AuditResult, StageStatus
from synthleak.stages.person_shadow import KEY
from synthleak.verdicts import MetricKind

#: 6 targets, 8 shadow and 8 test releases: 48 trials.
PLAN = BudgetPlan(
    n_attacks=60,
    mia_targets=3,
    mia_controls=3,
    shadows=8,
    tests=8,
    n=60,
    mia_attacks=("distance",),
    aia_games=2,
)

GENERATORS = textwrap.dedent(
    """
    import numpy as np
    from synthleak.data.relational import RelationalData

    class Replayer:
        '''Replays its training persons' histories (new keys).'''
        def fit(self, data, *, rng):
            self.data = data
            return self
        def sample(self, n, *, rng):
            p = self.data.frames["person"].iloc[:n].copy()
            new = dict(zip(p["pid"], 500_000 + np.arange(len(p))))
            p["pid"] = p["pid"].map(new)
            v = self.data.frames["visit"]
            v = v[v["pid"].isin(new)].copy()
            v["pid"] = v["pid"].map(new)
            return {"person": p, "visit": v}
    """
)


@pytest.fixture
def spec(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    name = f"relgens_{tmp_path.name.replace('-', '_')}"
    (tmp_path / f"{name}.py").write_text(GENERATORS)
    monkeypatch.syspath_prepend(str(tmp_path))
    return f"python:{name}:Replayer"


@pytest.fixture
def only_person_shadow() -> Iterator[None]:
    """The audit with its person_shadow stage alone (the others are tested elsewhere)."""
    saved = pipeline.STAGES
    pipeline.STAGES = tuple(s for s in saved if s.name == "person_shadow")
    try:
        yield
    finally:
        pipeline.STAGES = saved


def test_replaying_generator_is_caught_and_round_trips(spec: str, only_person_shadow: None) -> None:
    original, control, others = parts(1)
    r = audit(original, synthetic=others, control=control, generator=spec, plan=PLAN, seed=0)
    ps = r.person_shadow
    assert ps is not None and ps.generator == spec
    f = next(f for f in r.findings if f.key == KEY)
    assert f.metric is MetricKind.AUC and f.estimate is ps.primary_attack.auc
    assert f.estimate.ci_low > 0.8
    assert f.details["root"] == "person" and f.details["targets"] == 6
    assert set(ps.target_keys) <= set(original.frames["person"]["pid"])
    again = AuditResult.from_json(r.to_json())
    assert again.person_shadow is not None and again.person_shadow.same_as(ps)


def test_without_generator_or_relational_input_it_says_what_it_needs(
    only_person_shadow: None,
) -> None:
    original, control, others = parts(2)
    r = audit(original, synthetic=others, control=control, plan=PLAN, seed=0)
    rec = next(s for s in r.stages if s.name == "person_shadow")
    assert rec.status == StageStatus.NOT_MEASURED and "sdv:hma" in rec.needs
    flat = audit(
        original.frames["person"].drop(columns="pid"),
        synthetic=others.frames["person"].drop(columns="pid"),
        plan=PLAN,
        seed=0,
    )
    rec = next(s for s in flat.stages if s.name == "person_shadow")
    assert rec.status == StageStatus.NOT_APPLICABLE


def test_row_level_generator_games_do_not_run_on_relational_parts(spec: str) -> None:
    from synthleak.stages import attribute_game, membership

    original, _, _ = parts(3)

    class Ctx:
        def __init__(self) -> None:
            self.relational = {"original": original}
            self.options = type("O", (), {"generator": spec, "secret": "age"})()

    for stage in (membership.STAGE, attribute_game.STAGE):
        skip = stage.needs(Ctx())  # type: ignore[arg-type]
        assert skip is not None and "relational" in skip.reason


def test_a_single_table_spec_with_relational_parts_is_refused() -> None:
    original, control, others = parts(4)
    with pytest.raises(InputError, match="unknown relational generator"):
        audit(original, synthetic=others, control=control, generator="baynet", plan=PLAN)
