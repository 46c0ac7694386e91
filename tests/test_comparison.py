"""compare(): candidates audited on the same draws, paired differences, the oracles."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import synthleak as sl
from synthleak.comparison import ComparisonResult, compare, expand_grid, group_of
from synthleak.data.relational import RelationalData
from synthleak.errors import InputError
from synthleak.generators import make_generator
from synthleak.policy import parse_fail_on
from synthleak.report.comparison import write_comparison_report
from synthleak.results import AuditOptions, BudgetPlan

PLAN = BudgetPlan(
    n_attacks=150,
    mia_targets=1,
    mia_controls=1,
    shadows=40,
    tests=40,
    n=150,
    mia_attacks=("distance",),
    aia_games=6,
)
OPTS = AuditOptions(plan=PLAN)
COLUMNS = ["age", "workclass", "fnlwgt", "education", "marital-status", "sex", "hours-per-week"]


@pytest.fixture(scope="module")
def parts(adult_df: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(11)
    rows = rng.choice(len(adult_df), 1000, replace=False)
    df = adult_df[COLUMNS]
    return (
        df.iloc[rows[:500]].reset_index(drop=True),
        df.iloc[rows[500:]].reset_index(drop=True),
    )


def _release(original: pd.DataFrame, seed: int) -> pd.DataFrame:
    t = sl.Table.from_frame(original, sl.infer_schema(original))
    rng = np.random.default_rng(seed)
    return make_generator("baynet:k=1").fit(t, rng=rng).sample(len(t), rng=rng).to_frame()


def test_expand_grid_spans_values_and_seeds() -> None:
    assert expand_grid("privbayes:epsilon=1,4,10") == [
        ("privbayes:epsilon=1", None),
        ("privbayes:epsilon=4", None),
        ("privbayes:epsilon=10", None),
    ]
    assert expand_grid("baynet:k=2,seed=0,1") == [("baynet:k=2", 0), ("baynet:k=2", 1)]
    assert expand_grid("indhist") == [("indhist", None)]
    # the spec's head is kept whole: a namespace's model, python:'s target, command:'s line,
    # and a spec given as a parameter's value (base=) takes the rest of the spec
    assert expand_grid("sdv:ctgan,epochs=1,2") == [
        ("sdv:ctgan:epochs=1", None),
        ("sdv:ctgan:epochs=2", None),
    ]
    assert expand_grid("python:pkg.mod:Gen,k=1,seed=3") == [("python:pkg.mod:Gen,k=1", 3)]
    cmd = 'command:"prog {input} {output} {n}",timeout=60'
    assert expand_grid(f"{cmd},seed=0,1") == [(cmd, 0), (cmd, 1)]
    assert expand_grid("sdv:hma") == [("sdv:hma", None)]
    assert expand_grid("dp:epsilon=1,4,base=baynet:k=1,2") == [
        ("dp:epsilon=1,base=baynet:k=1,2", None),
        ("dp:epsilon=4,base=baynet:k=1,2", None),
    ]
    with pytest.raises(InputError, match="key=value"):
        expand_grid("baynet:2")
    with pytest.raises(InputError, match="whole numbers"):
        expand_grid("baynet:seed=a")
    # the grid reads a spec's grammar as make_generator does (generators.base.split_spec)
    with pytest.raises(InputError, match="after the quoted command line put ,key=value"):
        expand_grid('command:"prog {input}"timeout=5')
    assert group_of("ctgan@seed3") == "ctgan" and group_of("ctgan") == "ctgan"


def test_bad_input_fails_before_any_work(parts: tuple[pd.DataFrame, pd.DataFrame]) -> None:
    ori, ctl = parts
    with pytest.raises(InputError, match="at least two candidates"):
        compare(ori, control=ctl, releases={"a": ori})
    with pytest.raises(InputError, match="control"):
        compare(ori, control=None, releases={"a": ori, "b": ctl})
    with pytest.raises(InputError, match="nosuch"):
        compare(ori, control=ctl, releases={"a": ori}, generator_specs=["nosuch"])
    with pytest.raises(InputError, match="unique"):
        compare(ori, control=ctl, releases={"baynet@seed1": ori}, generator_specs=["baynet:seed=1"])


def test_every_candidate_plays_the_same_draws_and_the_result_round_trips(
    parts: tuple[pd.DataFrame, pd.DataFrame],
) -> None:
    ori, ctl = parts
    r = compare(
        ori,
        control=ctl,
        generator_specs=["baynet:k=1,seed=4,5"],
        options=OPTS,
        seed=2,
    )
    assert r.names == ("baynet:k=1@seed4", "baynet:k=1@seed5")
    a, b = (r.audits[n] for n in r.names)
    assert a.nobox is not None and b.nobox is not None
    np.testing.assert_array_equal(a.nobox.member_rows, b.nobox.member_rows)
    np.testing.assert_array_equal(a.nobox.non_member_rows, b.nobox.non_member_rows)
    np.testing.assert_array_equal(a.nobox.selection, b.nobox.selection)
    # the two seeds made two releases (the same draws scored other scores)
    assert not np.array_equal(a.nobox.scores["dcr"], b.nobox.scores["dcr"])
    assert {d.family for d in r.differences} == {
        "copies.rate",
        "linkability.risk",
        "membership.nobox.auc",
    }
    assert all((d.a, d.b) == r.names for d in r.differences)
    (spread,) = r.spreads
    assert spread.group == "baynet:k=1" and spread.members == r.names
    assert r.candidate(r.names[0]).criteria[2].verdict == "not measured"  # no secret column
    assert r.candidate(r.names[0]).criteria[2].needs == "a secret column: secret"
    assert type(r).from_json(r.to_json()).same_as(r)


def test_a_candidate_in_a_comparison_finds_what_its_lone_audit_finds(
    parts: tuple[pd.DataFrame, pd.DataFrame],
) -> None:
    # what compare shares (encoding, draws) must not move a figure: each candidate's findings
    # and measured sections equal those of its own audit() with the same seed
    ori, ctl = parts
    releases = {"a": _release(ori, 1), "b": _release(ori, 2)}
    r = compare(ori, control=ctl, releases=releases, options=OPTS, seed=2)
    for name, release in releases.items():
        lone = sl.audit(ori, synthetic=release, control=ctl, options=replace(OPTS, seed=2))
        mine = r.audits[name]
        assert [f.to_json() for f in mine.findings] == [f.to_json() for f in lone.findings]
        assert mine.nobox is not None and lone.nobox is not None
        assert mine.nobox.same_as(lone.nobox)
        assert mine.copies is not None and lone.copies is not None
        assert mine.copies.same_as(lone.copies)


def _without_timings(doc: object) -> object:
    """A result's JSON document without what changes from run to run: the stages' seconds
    and the audits' creation times."""
    if isinstance(doc, dict):
        return {k: _without_timings(v) for k, v in doc.items() if k not in ("seconds", "created")}
    if isinstance(doc, list):
        return [_without_timings(v) for v in doc]
    return doc


def test_a_comparison_finds_the_same_whatever_the_workers(
    parts: tuple[pd.DataFrame, pd.DataFrame], tmp_path: Path
) -> None:
    # with two workers the candidates are audited side by side, each in a worker: the
    # comparison's JSON must equal the one-worker comparison's, timings aside
    ori, ctl = parts
    releases = {"a": _release(ori, 1), "b": _release(ori, 2), "c": _release(ori, 3)}
    runs = [
        compare(ori, control=ctl, releases=releases, options=OPTS, seed=4, runtime=sl.Runtime(w))
        for w in (1, 2)
    ]
    one, two = (_without_timings(json.loads(r.to_json())) for r in runs)
    assert one == two
    # the timings were there to leave out
    assert any(st.seconds > 0 for st in runs[1].audits["c"].stages)
    # the candidates' reports written side by side by two workers are those written here,
    # byte for byte
    trees = []
    for w in (1, 2):
        out = tmp_path / f"workers{w}"
        write_comparison_report(runs[1], out, runtime=sl.Runtime(w))
        trees.append({p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()})
    assert trees[0] == trees[1]
    assert {Path("candidates", c, "report.html") for c in "abc"} <= set(trees[0])
    # an audit's own error is raised before any stage runs on the workers, as itself (an
    # InputError: CLI exit 2)
    bad = replace(OPTS, secret="nosuch")
    with pytest.raises(InputError, match="nosuch"):
        compare(ori, control=ctl, releases=releases, options=bad, runtime=sl.Runtime(2))


def test_a_candidate_report_a_worker_could_not_write_is_written_here(
    parts: tuple[pd.DataFrame, pd.DataFrame], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import synthleak.report.comparison as written

    ori, ctl = parts
    releases = {"a": _release(ori, 1), "b": _release(ori, 2)}
    result = compare(ori, control=ctl, releases=releases, options=OPTS, seed=4)

    def broken(shared: object, name: str) -> dict[str, object]:
        raise OSError("the worker's disk is full")

    monkeypatch.setattr(written, "_write_candidate", broken)
    write_comparison_report(result, tmp_path)
    for name in releases:
        assert (tmp_path / "candidates" / name / "report.html").is_file()


@pytest.mark.parametrize("workers", [1, 2])
def test_the_original_is_ranked_once_for_every_candidate(
    parts: tuple[pd.DataFrame, pd.DataFrame], monkeypatch: pytest.MonkeyPatch, workers: int
) -> None:
    # the vulnerability ranking reads the original alone: the comparison makes it with the
    # first candidate's context and every other context, here and in the workers, takes it as
    # it is. The workers' units run in this process here, so that their calls are counted too.
    from synthleak import partitioned
    from synthleak.runtime import Runtime

    calls: list[int] = []
    real_rank, real_run = partitioned.rank, Runtime.run

    def rank(*a: object, **kw: object) -> object:
        calls.append(1)
        return real_rank(*a, **kw)  # type: ignore[arg-type]

    def inline(self: Runtime, fn: object, units: object, **kw: object) -> object:
        return real_run(replace(self, workers=1), fn, units, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(partitioned, "rank", rank)
    monkeypatch.setattr(Runtime, "run", inline)
    ori, ctl = parts
    releases = {"a": _release(ori, 1), "b": _release(ori, 2), "c": _release(ori, 3)}
    rt = sl.Runtime(workers)
    r = compare(ori, control=ctl, releases=releases, options=OPTS, seed=4, runtime=rt)
    assert len(calls) == 1
    lone = sl.audit(ori, synthetic=releases["c"], control=ctl, options=replace(OPTS, seed=4))
    assert len(calls) == 2  # a lone audit ranks its original itself
    mine = r.audits["c"].vulnerability
    assert mine is not None and lone.vulnerability is not None
    assert mine.same_as(lone.vulnerability)


def test_stages_run_side_by_side_are_kept_under_the_whole_audits_keys(
    parts: tuple[pd.DataFrame, pd.DataFrame], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # on two workers each stage of each candidate runs alone in a worker and is kept in the
    # candidate's run directory: a later run (here on one worker, every audit whole in this
    # process) takes every stage back and runs none
    ori, ctl = parts
    releases = {"a": _release(ori, 1), "b": _release(ori, 2)}
    kw = {"control": ctl, "releases": releases, "options": OPTS, "seed": 4}
    first = compare(ori, **kw, runtime=sl.Runtime(2, run_dir=tmp_path / "run"))
    from synthleak import pipeline

    def never(ctx: object, rng: object) -> None:
        raise AssertionError("a kept stage ran again")

    monkeypatch.setattr(
        pipeline,
        "STAGES",
        tuple(st if st.input else replace(st, run=never) for st in pipeline.STAGES),
    )
    again = compare(ori, **kw, runtime=sl.Runtime(1, run_dir=tmp_path / "run"))
    assert _without_timings(json.loads(again.to_json())) == _without_timings(
        json.loads(first.to_json())
    )
    measured = [st for st in again.audits["b"].stages if st.status.value == "measured"]
    assert len(measured) >= 5


def test_release_attribute_inference_is_paired_over_the_same_attacked_records(
    parts: tuple[pd.DataFrame, pd.DataFrame],
) -> None:
    ori, ctl = parts
    releases = {"a": _release(ori, 1), "b": ori.sample(frac=1.0, random_state=0)}
    opts = replace(OPTS, secret="sex")
    r = compare(ori, control=ctl, releases=releases, options=opts, seed=3)
    ga, gb = r.audits["a"].attribute_release, r.audits["b"].attribute_release
    assert ga is not None and gb is not None and ga.training is not None
    (d,) = [d for d in r.differences if d.family == "attribute.accuracy"]
    assert d.n == ga.training.rows.size > 0
    # the paired difference is the difference of the two games' accuracies on the same records
    assert d.difference == pytest.approx(ga.accuracy.value - gb.accuracy.value)
    # the original itself as release lets far more secrets be inferred than a baynet:k=1 one
    assert d.difference < 0 and d.significant and d.ci_high < 0
    assert {x.family for x in r.differences} == {
        "copies.rate",
        "linkability.risk",
        "membership.nobox.auc",
        "attribute.accuracy",
    }
    assert type(r).from_json(r.to_json()).same_as(r)
    # a pair whose no-box games cannot be compared keeps its other paired families
    from synthleak import comparison

    notes: list[str] = []
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(comparison, "_same_draws", lambda a, b: False)
        rows = comparison._pair_rows(
            r.audits["a"],
            r.audits["b"],
            "a",
            "b",
            np.random.default_rng(0),
            np.random.default_rng(1),
            notes,
            rng_linkability=np.random.default_rng(2),
        )
    assert [x["family"] for x in rows] == ["copies.rate", "linkability.risk", "attribute.accuracy"]
    assert notes and "scored different records" in notes[0]


@pytest.mark.slow
def test_null_oracle_same_generator_other_seeds_is_rarely_called_different(
    parts: tuple[pd.DataFrame, pd.DataFrame],
) -> None:
    """Three seeds of one generator, compared under four audit seeds: 4 x 3 pairs x 3 families,
    Holm within each comparison. At most one comparison of four may call any pair different
    (each does so with probability at most 5 %: at least two in four has probability < 2 %).
    Slow (12 audits); benchmarks/bench_compare.py runs it with more comparisons."""
    ori, ctl = parts
    called = 0
    for seed in range(4):
        r = compare(
            ori,
            control=ctl,
            generator_specs=[f"baynet:k=1,seed={3 * seed},{3 * seed + 1},{3 * seed + 2}"],
            options=OPTS,
            seed=seed,
        )
        assert len(r.differences) == 9
        called += any(d.significant for d in r.differences)
    assert called <= 1


def test_positive_oracle_verbatim_copies_rank_below_the_clean_twin(
    parts: tuple[pd.DataFrame, pd.DataFrame],
) -> None:
    """A release with 2 % of its records replaced by verbatim training records publishes more
    records verbatim than its clean twin, significantly, and a copies gate never recommends it."""
    ori, ctl = parts
    clean = _release(ori, 7)
    leaky = clean.copy()
    rows = np.random.default_rng(0).choice(len(ori), round(0.02 * len(ori)), replace=False)
    leaky.iloc[rows] = ori.iloc[rows].to_numpy()
    gate = parse_fail_on("copies.rate > 0")  # any copies above the chance rate fail
    r = compare(
        ori,
        control=ctl,
        releases={"leaky": leaky, "clean": clean},
        options=OPTS,
        seed=1,
        policy=gate,
    )
    (d,) = [x for x in r.differences if x.family == "copies.rate"]
    assert (d.a, d.b) == ("leaky", "clean")
    assert d.significant and d.ci_low > 0 and d.difference == pytest.approx(0.02, abs=0.005)
    assert r.candidate("leaky").passed is False
    assert r.recommendation is not None and r.recommendation.best != "leaky"
    assert "leaky" not in r.recommendation.passing


def test_shadow_release_membership_is_paired_over_the_same_candidates(tmp_path: Path) -> None:
    # with shadow releases, every candidate's shadow-release game scores the same members and
    # non-members: the AUCs pair (DeLong); a release copying its training records is more
    # exposed than a noisy one
    from tests.stages.release_shadows import noisy, write_case

    paths = write_case(tmp_path, n_original=200, n_control=300)
    ori, ctl = pd.read_csv(paths["original"]), pd.read_csv(paths["control"])
    releases = {
        "copying": pd.read_csv(paths["synthetic"]),
        "noisy": noisy(ori, np.random.default_rng(3)),
    }
    opts = replace(OPTS, shadow_releases=str(paths["shadows"]))
    r = compare(ori, control=ctl, releases=releases, options=opts, seed=0)
    ga, gb = (r.audits[n].membership_release for n in ("copying", "noisy"))
    assert ga is not None and gb is not None
    assert (ga.member_rows, ga.non_member_rows) == (gb.member_rows, gb.non_member_rows)
    (d,) = [x for x in r.differences if x.family == "membership.release.auc"]
    assert d.n == len(ga.member_rows) + len(ga.non_member_rows)
    assert d.difference == pytest.approx(ga.auc.value - gb.auc.value)
    assert d.significant and d.ci_low > 0
    assert type(r).from_json(r.to_json()).same_as(r)


# --- relational candidates: persons compared person by person ---------------------------------
REL_OPTS = AuditOptions(plan=replace(PLAN, n_attacks=60, n=60))
N_REPLAYED = 40  # of the copy oracle's 200 persons, training persons' histories replayed
Rel = tuple[RelationalData, RelationalData, dict[str, RelationalData]]


def _relational_candidates() -> Rel:
    """The original (200 persons), the control (50) and two candidates: a release of other
    people's histories (``clean``, the null oracle) and its twin with 40 of its persons
    replaced by training persons' histories replayed under new keys (``copy``)."""
    from tests.games.person_parts import parts, replay, subset

    original, control, clean = parts(4, n_control=50)
    keys = clean.frames["person"]["pid"].to_numpy()
    members = original.frames["person"]["pid"].to_numpy()[:N_REPLAYED]
    replayed, rest = replay(subset(original, members), 5 * 10**6), subset(clean, keys[N_REPLAYED:])
    copy = RelationalData(
        original.schema,
        {
            t: pd.concat([rest.frames[t], replayed.frames[t]], ignore_index=True)
            for t in original.schema.tables
        },
    )
    return original, control, {"copy": copy, "clean": clean}


@pytest.fixture(scope="module")
def relational() -> Rel:
    return _relational_candidates()


@pytest.fixture(scope="module")
def relational_comparison(relational: Rel) -> ComparisonResult:
    original, control, releases = relational
    return compare(original, control=control, releases=releases, options=REL_OPTS, seed=0)


def test_relational_candidates_are_compared_person_by_person(
    relational_comparison: ComparisonResult,
) -> None:
    """Each relational candidate is audited as audit() audits one relational release; the
    person-level games draw the same persons for both, the figures are those of persons, and
    the copy oracle replays more training persons' histories than its clean twin, significantly."""
    r = relational_comparison
    a, b = (r.audits[n] for n in ("copy", "clean"))
    pa, pb = a.person_membership, b.person_membership
    assert pa is not None and pb is not None
    assert pa.member_keys == pb.member_keys and pa.non_member_keys == pb.non_member_keys
    np.testing.assert_array_equal(pa.selection, pb.selection)
    assert r.options.root == "person"
    assert {d.family for d in r.differences} >= {
        "copies.person_history",
        "copies.person_rows",
        "membership.person.auc",
    }
    assert all((d.a, d.b) == ("copy", "clean") for d in r.differences)
    # the figures are the findings of persons
    copy = r.candidate("copy")
    assert copy.worst_finding["membership.nobox.auc"] == "membership.person"
    assert copy.worst_finding["copies.rate"] in ("copies.person_history", "copies.person_rows")
    # the copy oracle: 40 histories replayed, the clean twin none, paired person by person
    ca, cb = a.person_copies, b.person_copies
    assert ca is not None and cb is not None and ca.whole_rows is not None
    (d,) = [x for x in r.differences if x.family == "copies.person_history"]
    assert d.n == ca.n_persons
    assert d.difference == pytest.approx(ca.whole_rate - cb.whole_rate)
    assert ca.n_whole >= 0.9 * N_REPLAYED and cb.n_whole == 0
    assert d.significant and d.ci_low > 0
    # membership of persons: DeLong on the evaluation half of the same persons
    (m,) = [x for x in r.differences if x.family == "membership.person.auc"]
    assert pa.scores is not None and m.attack in pa.scores
    assert m.n == int((pa.selection == 0).sum())
    assert any("singling out: not paired" in n for n in r.notes)
    assert type(r).from_json(r.to_json()).same_as(r)


def test_a_replayed_release_is_more_exposed_to_membership_of_persons(
    relational: Rel,
) -> None:
    """Every training person's history replayed (the copy oracle at 100 %): membership of
    persons is significantly higher than against the clean twin, on the same persons."""
    from tests.games.person_parts import replay

    from synthleak import pipeline

    original, control, releases = relational
    kept = {"person_membership", "person_copies"}
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(pipeline, "STAGES", tuple(s for s in pipeline.STAGES if s.name in kept))
        r = compare(
            original,
            control=control,
            releases={"replay": replay(original, 9000), "clean": releases["clean"]},
            options=REL_OPTS,
            seed=1,
        )
    (m,) = [x for x in r.differences if x.family == "membership.person.auc"]
    assert m.significant and m.ci_low > 0 and m.difference > 0.3


def test_relational_comparison_is_the_same_on_one_and_two_workers(
    relational: Rel, relational_comparison: ComparisonResult
) -> None:
    original, control, releases = relational
    two = compare(
        original,
        control=control,
        releases=releases,
        options=REL_OPTS,
        seed=0,
        runtime=sl.Runtime(2),
    )
    one = relational_comparison
    assert _without_timings(json.loads(one.to_json())) == _without_timings(
        json.loads(two.to_json())
    )


def test_relational_generators_are_candidates_fitted_on_the_original(
    relational: Rel, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A relational generator spec (here a python: class that draws training persons with
    replacement, whole histories) is fitted on the original's persons and releases as many;
    its seed grid gives one candidate per seed, compared with the given release."""
    from tests.generators.test_relational import USER_MODULE

    from synthleak import pipeline

    (tmp_path / "user_relgens_compare.py").write_text(USER_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    original, control, releases = relational
    spec = "python:user_relgens_compare:Resampler"
    stages = tuple(s for s in pipeline.STAGES if s.name == "person_copies")
    monkeypatch.setattr(pipeline, "STAGES", stages)
    r = compare(
        original,
        control=control,
        releases={"clean": releases["clean"]},
        generator_specs=[f"{spec},seed=0,1"],
        options=REL_OPTS,
        seed=2,
    )
    assert r.names == ("clean", f"{spec}@seed0", f"{spec}@seed1")
    a, b = (r.audits[f"{spec}@seed{s}"].person_copies for s in (0, 1))
    assert a is not None and b is not None
    # drawn with replacement: about 1 - 1/e of the training persons' histories replayed,
    # other persons with each seed
    assert 0.5 < a.whole_rate < 0.75 and 0.5 < b.whole_rate < 0.75
    assert a.whole_rows is not None and b.whole_rows is not None
    assert not np.array_equal(a.whole_rows, b.whole_rows)
    (d,) = [
        x
        for x in r.differences
        if x.family == "copies.person_history" and (x.a, x.b) == ("clean", f"{spec}@seed0")
    ]
    assert d.significant and d.ci_high < 0


def test_relational_bad_input_is_one_error_before_any_work(
    relational: Rel, parts: tuple[pd.DataFrame, pd.DataFrame]
) -> None:
    original, control, releases = relational
    clean = releases["clean"]
    ori, _ = parts
    with pytest.raises(InputError, match=r"release 'b' a single table"):
        compare(original, control=control, releases={"a": clean, "b": ori})
    with pytest.raises(InputError, match="unknown relational generator 'baynet'"):
        compare(original, control=control, releases={"a": clean}, generator_specs=["baynet"])
    no_visits = RelationalData(clean.schema, {"person": clean.frames["person"]})
    with pytest.raises(InputError, match=r"^release 'b': table\(s\) \['visit'\] .* missing"):
        compare(original, control=control, releases={"a": clean, "b": no_visits})
    visit = clean.frames["visit"].copy()
    visit.loc[visit.index[0], "pid"] = -77
    orphan = RelationalData(clean.schema, {"person": clean.frames["person"], "visit": visit})
    with pytest.raises(InputError, match=r"^release 'b': .*orphaned.*-77"):
        compare(original, control=control, releases={"a": clean, "b": orphan})
    with pytest.raises(InputError, match="leave schema out"):
        compare(
            original,
            control=control,
            releases={"a": clean, "b": clean},
            schema=sl.infer_schema(ori),
        )


def test_relational_results_without_per_person_outcomes_are_not_paired_and_said_so(
    relational_comparison: ComparisonResult,
) -> None:
    """Results kept by an earlier version (no scores, no per-person copy outcomes) are not
    paired: the comparison says so in a note, and pairs what it can."""
    from synthleak import comparison

    a, b = (relational_comparison.audits[n] for n in ("copy", "clean"))
    pm, pc = b.person_membership, b.person_copies
    assert pm is not None and pc is not None
    old = replace(
        b,
        person_membership=replace(pm, scores=None, selection=None),
        person_copies=replace(pc, whole_rows=None, share_rows=None),
    )
    notes: list[str] = []
    rows = comparison._person_pair_rows(a, old, "copy", "clean", 0, (0, 1), notes)
    assert {r["family"] for r in rows} <= {"linkability.persons", "attribute.persons"}
    assert any("Membership of persons of copy and clean was not compared" in n for n in notes)
    assert any("Copies of persons' histories of copy and clean were not" in n for n in notes)
