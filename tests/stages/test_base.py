"""The audit's stage machinery (:mod:`synthleak.stages.base`): stage streams, failures, the
sections every stage writes, kept stages and interrupts, played through ``audit()``."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from tests.stages.audit_helpers import TINY, by_key, figures

from synthleak import InputError
from synthleak.pipeline import STAGES, audit
from synthleak.results import AuditResult, StageStatus
from synthleak.stages import base as stage_base
from synthleak.stages.base import Sections, Stage, StageOutput


def test_stage_streams_do_not_depend_on_other_stages(split, monkeypatch) -> None:
    """Skipping a stage changes no other stage's numbers (streams are keyed by stage name)."""
    import synthleak.pipeline as audit_module

    train, ctl, other = split
    full = audit(train, synthetic=other, control=ctl, plan=TINY, seed=2)
    without = tuple(s for s in STAGES if s.name != "singling_out")
    monkeypatch.setattr(audit_module, "STAGES", without)
    part = audit(train, synthetic=other, control=ctl, plan=TINY, seed=2)
    f, g = by_key(full), by_key(part)
    assert "singling_out.multivariate" in f and "singling_out.multivariate" not in g
    for key in ("linkability", "membership.nobox"):
        assert f[key].estimate == g[key].estimate, key


def test_a_failing_stage_is_recorded_and_the_others_run(split, monkeypatch) -> None:
    import synthleak.pipeline as audit_module

    def boom(ctx, rng):  # type: ignore[no-untyped-def]
        raise MemoryError("simulated")

    stages = tuple(
        Stage(s.name, s.title, s.needs, boom) if s.name == "utility" else s for s in STAGES
    )
    monkeypatch.setattr(audit_module, "STAGES", stages)
    train, ctl, other = split
    r = audit(train, synthetic=other, control=ctl, plan=TINY, seed=2)
    by = {s.name: s for s in r.stages}
    assert by["utility"].status is StageStatus.FAILED and "MemoryError" in by["utility"].reason
    assert by["linkability"].status is StageStatus.MEASURED and r.utility is None


def test_each_section_is_declared_once() -> None:
    """A stage's section type is declared once, on AuditSections: the stages' Sections is that
    class, AuditResult derives from it and redeclares none of its fields, and every section is
    optional (None until a stage measures it)."""
    from dataclasses import fields

    from synthleak.results import AuditSections

    assert Sections is AuditSections and issubclass(AuditResult, AuditSections)
    own = set(AuditResult.__annotations__)
    for f in fields(Sections):
        assert f.name not in own, f"AuditResult declares the section {f.name!r} again"
        assert f.default is None, f.name
    result_fields = [f.name for f in fields(AuditResult)]
    assert result_fields[:5] == ["config", "schema", "data", "stages", "findings"]


def test_every_section_reaches_the_result(split, monkeypatch) -> None:
    """The sections a stage returns are what the result holds, field by field."""
    from dataclasses import fields

    import synthleak.pipeline as audit_module

    marks = {f.name: object() for f in fields(Sections)}

    def fill(ctx, rng):  # type: ignore[no-untyped-def]
        return StageOutput(sections=Sections(**marks))

    stage = Stage("fill", "fill every section", lambda ctx: None, fill)
    monkeypatch.setattr(audit_module, "STAGES", (stage,))
    train, ctl, other = split
    r = audit(train, synthetic=other, control=ctl, plan=TINY, seed=2)
    for name, mark in marks.items():
        assert getattr(r, name) is mark, name


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


def test_the_store_keeps_what_a_stage_returns(split, tmp_path, monkeypatch) -> None:
    """A stage's StageOutput is what the audit adds to the context and what a kept stage
    stores: the stored document decodes to the same output; a stage that returns anything
    else is recorded as failed."""
    import synthleak.pipeline as audit_module
    from synthleak.runtime import RunStore, Runtime

    outputs: dict[str, StageOutput] = {}

    def spy(st):  # type: ignore[no-untyped-def]
        def run(ctx, rng):  # type: ignore[no-untyped-def]
            outputs[st.name] = st.run(ctx, rng)
            return outputs[st.name]

        return replace(st, run=run)

    def nothing(ctx, rng):  # type: ignore[no-untyped-def]
        return None  # the interface before stages returned their output

    stages = tuple(replace(st, run=nothing) if st.name == "utility" else spy(st) for st in STAGES)
    monkeypatch.setattr(audit_module, "STAGES", stages)
    train, ctl, other = split
    rt = Runtime(run_dir=tmp_path / "run")
    r = audit(train, synthetic=other, control=ctl, plan=TINY, seed=1, runtime=rt)
    by = {s.name: s for s in r.stages}
    assert by["utility"].status is StageStatus.FAILED and "not StageOutput" in by["utility"].reason
    assert r.utility is None
    assert [f.key for f in outputs["linkability"].findings] == ["linkability"]
    assert set(outputs["linkability"].sections.measured()) == {"linkability"}
    assert set(outputs["copies"].sections.measured()) == {"copies"}
    with RunStore(tmp_path / "run" / "stages", {"kept": "audit stages"}) as store:
        done = store.done()
        assert {k.rsplit("-", 1)[0] for k in done} >= {"copies", "linkability", "singling_out"}
        for key in done:
            stored = StageOutput.from_dict(store.get_document(key))
            assert stored.to_json() == outputs[key.rsplit("-", 1)[0]].to_json(), key
    expected = [f.key for out in outputs.values() for f in out.findings]
    assert [f.key for f in r.findings] == expected  # in stage order, as the stages returned them


def test_a_document_kept_before_stages_returned_their_output_reads_back() -> None:
    """Run directories written when the store diffed the context hold the same four keys, with
    only the sections the stage set: they read back as that stage's output."""
    old = {"findings": [], "notes": ["a note"], "privacy_utility": [], "sections": {}}
    out = StageOutput.from_dict(old)
    assert out.notes == ("a note",) and out.findings == () and out.sections.measured() == {}
    assert StageOutput.from_dict(out.to_dict()) == out


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
            return st.run(ctx, rng)

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
    assert figures(resumed) == figures(whole)
    assert resumed.copies is not None and resumed.copies.same_as(whole.copies)

    calls.clear()  # every kept stage is now stored: nothing runs again
    again = audit(train, synthetic=other, control=ctl, runtime=rt, **kw)
    assert not {st.name for st in STAGES if st.kept} & set(calls)
    assert figures(again) == figures(whole)

    calls.clear()  # other values in a left-out column: another audit, every stage runs
    other2 = other.assign(name=ctl["name"].to_numpy())
    changed = audit(train, synthetic=other2, control=ctl, runtime=rt, **kw)
    assert {"copies", "singling_out", "linkability", "membership_nobox"} <= set(calls)
    assert figures(changed) == figures(audit(train, synthetic=other2, control=ctl, **kw))
    calls.clear()  # another seed: another audit
    audit(train, synthetic=other, control=ctl, runtime=rt, **{**kw, "seed": 5})
    assert "copies" in calls
    calls.clear()  # another numpy (scikit-learn, ...) may compute other numbers: run again
    monkeypatch.setattr(stage_base, "package_versions", lambda: {"numpy": "0.0"})
    audit(train, synthetic=other, control=ctl, runtime=rt, **kw)
    assert "copies" in calls


def test_every_kept_stage_is_stored(split, tmp_path) -> None:
    """Every stage marked kept that was measured stores its output (and no other stage)."""
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
            out = st.run(ctx, rng)
            if st.name == "singling_out":
                try:
                    os.kill(os.getpid(), signal.SIGINT)
                    time.sleep(1)
                except KeyboardInterrupt:
                    pass
            return out

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


def test_a_kept_stage_key_follows_the_shadow_release_files(tmp_path) -> None:
    from synthleak.stages.base import _folder_digest

    assert _folder_digest(None) == []
    (tmp_path / "s1").mkdir()
    (tmp_path / "s1" / "release.csv").write_text("a\n1\n")
    before = _folder_digest(str(tmp_path))
    assert _folder_digest(str(tmp_path)) == before
    (tmp_path / "s1" / "release.csv").write_text("a\n2\n")
    assert _folder_digest(str(tmp_path)) != before
