"""The release membership game and its audit stage (:mod:`synthleak.stages.membership_release`):
the oracles (a release that copies its training records is found; candidates no model saw give
the FPR itself), the records it leaves out, its errors, the shadow releases made with a
generator, and the stage in ``audit()``."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from tests.stages.audit_helpers import TINY, by_key
from tests.stages.release_shadows import copies, noisy, population, shadows, write_case

from synthleak.attacks.mia_shadow_release import ShadowReleaseAttack
from synthleak.data.shadow_releases import read_shadow_releases
from synthleak.errors import InputError
from synthleak.harm import FindingKey
from synthleak.stages.membership_release import (
    generator_shadows,
    play_membership_release,
    score_candidates,
)


@pytest.fixture(autouse=True)
def _one_thread() -> Iterator[None]:
    """The meta-classifier on one thread: on a shared machine its threads wait on each other."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(1):
        yield


def _attack() -> ShadowReleaseAttack:
    # no no-box signal: the distance signals alone, fast
    return ShadowReleaseAttack(nobox=(), records_per_shadow=300, reference_size=300, max_iter=50)


def test_a_release_that_copies_its_training_records_is_found() -> None:
    pop = population(2800, 0)
    rng = np.random.default_rng(1)
    original, control = pop.iloc[1600:1900], pop.iloc[1900:2400]
    res = play_membership_release(
        shadows(pop.iloc[:1600], copies, k=4, size=800, seed=2),
        original,
        copies(original, rng),
        control,
        seed=0,
        attack=_attack(),
    )
    tpr = res.tpr_at_fpr()
    assert tpr["0.01"].value is not None and tpr["0.01"].value >= 0.9
    assert res.auc.ci_low > 0.9
    assert len(res.member_rows) == 300 and len(res.non_member_rows) == 500
    # the exposed records are rows of the original, highest score first
    assert [r.score for r in res.records] == sorted((r.score for r in res.records), reverse=True)
    assert all(0 <= r.row < 300 and r.p_value <= 1 / 501 + 1e-12 for r in res.records)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_candidates_no_model_saw_give_the_fpr_itself(seed: int) -> None:
    pop = population(3100, 10 + seed)
    rng = np.random.default_rng(seed)
    # the release is made from other records: members and non-members are alike to it
    original, control, other = pop.iloc[1600:1900], pop.iloc[1900:2400], pop.iloc[2400:2700]
    res = play_membership_release(
        shadows(pop.iloc[:1600], noisy, k=4, size=800, seed=seed),
        original,
        noisy(other, rng),
        control,
        seed=seed,
        attack=_attack(),
    )
    t = res.tpr_at_fpr()["0.1"]
    assert t.ci_low is not None and t.ci_high is not None
    assert t.ci_low <= 0.1 <= t.ci_high


def test_records_a_shadow_was_trained_on_are_not_scored() -> None:
    pop = population(2400, 3)
    pool = pop.iloc[:1600]
    shs = shadows(pool, copies, k=4, size=800, seed=4)
    held = set(map(tuple, np.concatenate([s.training.to_numpy() for s in shs]).tolist()))
    control = pop.iloc[1500:2000].reset_index(drop=True)  # its first 100 rows are in the pool
    n_held = sum(tuple(r) in held for r in control.to_numpy().tolist())
    assert n_held > 0
    original = pop.iloc[2000:2300]
    res = play_membership_release(
        shs,
        original,
        copies(original, np.random.default_rng(0)),
        control,
        seed=0,
        attack=_attack(),
    )
    assert res.n_dropped == n_held
    assert len(res.non_member_rows) == 500 - n_held
    assert all(tuple(control.iloc[r]) not in held for r in res.non_member_rows)


def test_bad_inputs_are_one_line_input_errors() -> None:
    pop = population(2400, 5)
    shs = shadows(pop.iloc[:1600], copies, k=3, size=400, seed=0)
    original, control = pop.iloc[1600:1900], pop.iloc[1900:2400]
    with pytest.raises(
        InputError, match=r"^original lacks the shadow releases' column\(s\) \['d'\]"
    ):
        play_membership_release(shs, original.drop(columns="d"), original, control, seed=0)
    with pytest.raises(InputError, match="too small to measure: 10 control records"):
        play_membership_release(shs, original, original, control.iloc[:10], seed=0)
    with pytest.raises(InputError, match="at least 3 are needed"):
        play_membership_release(shs[:1], original, original, control, seed=0)


def test_shadow_releases_made_with_a_generator_find_a_copying_release() -> None:
    pop = population(2600, 6)
    original, control = pop.iloc[:300], pop.iloc[300:2600].reset_index(drop=True)
    lines: list[str] = []
    shs, held_out = generator_shadows(
        "leaky:fraction=1.0", control, n_shadows=4, seed=0, log=lines.append
    )
    assert len(shs) == 4 and len(lines) == 4 and "projected time" in lines[0]
    trained = set(map(tuple, np.concatenate([s.training.to_numpy() for s in shs]).tolist()))
    assert not any(tuple(r) in trained for r in control.iloc[held_out].to_numpy().tolist())
    res = play_membership_release(
        shs,
        original,
        copies(original, np.random.default_rng(0)),
        control.iloc[held_out],
        seed=0,
        control_rows=held_out,
        attack=_attack(),
    )
    assert res.n_dropped == 0 and set(res.non_member_rows) == set(held_out.tolist())
    assert res.tpr_at_fpr()["0.01"].value >= 0.9  # type: ignore[operator]


def test_shadow_releases_are_the_same_on_two_workers_and_resume_from_the_run_dir(
    tmp_path: Path,
) -> None:
    from synthleak.runtime import Runtime

    control = population(600, 7)
    inline, _ = generator_shadows("indhist", control, n_shadows=3, seed=1)
    pooled, _ = generator_shadows("indhist", control, n_shadows=3, seed=1, runtime=Runtime(2))
    for a, b in zip(inline, pooled, strict=True):
        assert a.name == b.name and a.release.equals(b.release) and a.training.equals(b.training)
    # a run directory keeps each finished shadow release; a longer run reloads the first three
    rt = Runtime(run_dir=tmp_path / "run")
    generator_shadows("indhist", control, n_shadows=3, seed=1, runtime=rt)
    lines: list[str] = []
    again, _ = generator_shadows(
        "indhist", control, n_shadows=4, seed=1, runtime=rt, log=lines.append
    )
    assert "3 of 4 shadow releases reloaded from the run directory" in lines[0]
    assert all(a.release.equals(b.release) for a, b in zip(inline, again[:3], strict=False))
    with pytest.raises(InputError, match="n_shadows must be at least 3"):
        generator_shadows("indhist", control, n_shadows=2, seed=1)


def test_candidates_are_scored_one_per_record_in_order(tmp_path: Path) -> None:
    import pandas as pd

    paths = write_case(tmp_path, n_original=200, n_control=300)
    shs = read_shadow_releases(paths["shadows"])
    syn = pd.read_csv(paths["synthetic"])
    # the release copies the original: its records are members, the control's are not
    members, others = pd.read_csv(paths["original"]).iloc[:25], pd.read_csv(paths["control"])
    cand = pd.concat([members, others.iloc[:25]], ignore_index=True)
    scores = score_candidates(shs, syn, cand, seed=0, attack=_attack())
    assert scores.shape == (50,)
    assert scores[:25].min() > scores[25:].max()


def test_the_audit_attacks_the_release_with_shadow_releases(tmp_path: Path) -> None:
    import pandas as pd

    from synthleak.pipeline import audit
    from synthleak.report.document import build_document
    from synthleak.stages.membership_release import STAGE

    paths = write_case(tmp_path, n_original=200, n_control=300)
    frames = {n: pd.read_csv(paths[n]) for n in ("original", "synthetic", "control")}
    r = audit(
        frames["original"],
        synthetic=frames["synthetic"],
        control=frames["control"],
        shadow_releases=paths["shadows"],
        plan=TINY,
        seed=0,
    )
    f = by_key(r)[FindingKey.MEMBERSHIP_RELEASE]
    assert f.estimate.value > 0.9 and f.n_tests > 1  # in the audit's family of tests
    assert r.membership_release is not None
    assert len(r.membership_release.member_rows) == TINY.n_attacks
    assert r.config.options.shadow_releases == str(paths["shadows"])
    titles = [s.title for s in build_document(r).sections]
    assert "Membership inference on the release (shadow releases)" in titles
    assert STAGE.kept
    # same result on 2 workers
    from synthleak.runtime import Runtime
    from synthleak.serde import without_timings

    r2 = audit(
        frames["original"],
        synthetic=frames["synthetic"],
        control=frames["control"],
        shadow_releases=paths["shadows"],
        plan=TINY,
        seed=0,
        runtime=Runtime(workers=2),
    )
    assert r2.membership_release is not None
    drop = ("fit_seconds", "score_seconds")
    one, two = (without_timings(x.membership_release.summary(), drop) for x in (r, r2))
    assert one == two
    # without shadow releases the stage is not measured, and says what it needs
    ctx = SimpleNamespace(
        synthetic=object(), control=object(), options=r.config.options, relational=None
    )
    ctx.options = replace(r.config.options, shadow_releases=None)
    skip = STAGE.needs(ctx)  # type: ignore[arg-type]
    assert skip is not None and "shadow releases" in skip.needs


def test_a_generator_makes_shadow_releases_only_for_a_given_release() -> None:
    from synthleak.results import AuditOptions
    from synthleak.stages.membership_release import STAGE

    def ctx(given: bool, relational: object = None, generator: bool = True) -> SimpleNamespace:
        opts = AuditOptions(generator="indhist", n_shadows=3) if generator else AuditOptions()
        return SimpleNamespace(
            synthetic=object(),
            control=object(),
            options=opts,
            release_given=given,
            relational=relational,
        )

    assert STAGE.needs(ctx(True)) is None  # type: ignore[arg-type]
    made = STAGE.needs(ctx(False))  # type: ignore[arg-type]
    assert made is not None and not made.needs and "generator-level game" in made.reason
    rel = STAGE.needs(ctx(True, relational={}))  # type: ignore[arg-type]
    assert rel is not None and "--shadow-releases DIR" in rel.needs
    # relational input: the folder is the one way in, whether or not a generator was named
    bare = STAGE.needs(ctx(True, relational={}, generator=False))  # type: ignore[arg-type]
    assert bare is not None and bare.needs == rel.needs and "--generator" not in bare.needs
    with pytest.raises(InputError, match="n_shadows must be at least 3"):
        AuditOptions(generator="indhist", n_shadows=2)
    with pytest.raises(InputError, match="give generator and no shadow_releases"):
        AuditOptions(n_shadows=4)
