"""The audit's stage machinery: the context the stages share, the typed output a stage returns
(:class:`StageOutput`: findings, notes, privacy-utility points and its sections), ``Stage`` and
``Skip``, the run of the stages, and the kept (resumable) stages.

A stage is a module of this package that exports its :class:`Stage` (``STAGE``); the stage
list and ``audit()`` are in :mod:`synthleak.pipeline`.
"""

from __future__ import annotations

import hashlib
import json
import math
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from synthleak.data.relational import RelationalData
from synthleak.data.release import Release
from synthleak.data.schema import Schema
from synthleak.data.table import Table
from synthleak.errors import BaselineWarning, InputError, raise_if_interrupted
from synthleak.games.shadow import table_fingerprint
from synthleak.metrics.privacy import RiskEstimate
from synthleak.results import (
    AuditOptions,
    AuditSections,
    BudgetPlan,
    PrivacyUtilityPoint,
    StageRecord,
    StageStatus,
    package_versions,
)
from synthleak.runtime import Runtime
from synthleak.runtime.seeding import STREAMS_VERSION, stream
from synthleak.runtime.store import (
    RunStore,
    check_interrupted,
    interrupts_noticed,
)
from synthleak.serde import Result
from synthleak.threat import ThreatModel
from synthleak.verdicts import MAX_WIDTH, TOO_SMALL_STATUS, Finding, MetricKind, min_trials
from synthleak.vulnerability import Ranking

#: One stream per stage, keyed by the stage's name.
STAGE_STREAM = stream("audit/stage", labelled="audit.{}")


Log = Callable[[str], None]


CONTROL_NEEDED = (
    "a control set: real records of the same population that the generator never saw "
    "(give --control, control= in Python, or hold some records out before generating)"
)


SECRET_NEEDED = (
    "a secret column to infer (--secret COLUMN, or --secret all for every column; secret= in "
    "Python)"
)


RELATIONAL_SKIP = (
    "the input is relational: the row-level games against the generator do not apply "
    "(the person-level shadow-model game, stage person_shadow, plays membership of persons)"
)


GENERATOR_NEEDED = (
    "the generator, as a spec the audit can run many times for shadow models (--generator; "
    "generator= in Python); a release alone is audited without it"
)


#: The report sections the stages measure: :class:`~synthleak.results.AuditSections`, where each
#: section's type is declared once. A stage returns the fields it measured in its
#: :class:`StageOutput` (``Sections(utility=...)``, the others ``None``); :func:`run_stages` sets
#: them in ``ctx.sections`` and ``pipeline._assemble`` carries every field into the result, an
#: :class:`~synthleak.results.AuditResult`, which derives from it.
Sections = AuditSections


@dataclass(frozen=True, repr=False)
class StageOutput(Result):
    """What a stage measured, which :func:`run_stages` adds to the context: its findings, notes
    and privacy-utility points (after the earlier stages'), and the sections it measured (the
    fields of ``sections`` it set; the others stay ``None``). A kept stage's output is stored
    as this document (:class:`Kept`)."""

    findings: tuple[Finding, ...] = ()
    notes: tuple[str, ...] = ()
    privacy_utility: tuple[PrivacyUtilityPoint, ...] = ()
    sections: Sections = field(default_factory=Sections)

    def apply(self, ctx: Context) -> None:
        """Add the output to ``ctx``, as the audit does after the stage ran."""
        ctx.findings.extend(self.findings)
        ctx.notes.extend(self.notes)
        ctx.privacy_utility.extend(self.privacy_utility)
        ctx.sections = replace(ctx.sections, **self.sections.measured())


@dataclass
class Context:
    """What the stages share: the options, the inputs, and what earlier stages produced.

    A stage reads it and returns a :class:`StageOutput`, which :func:`run_stages` adds to
    ``sections``, ``findings``, ``notes`` and ``privacy_utility``. Only the stages that make
    the audit's inputs set fields themselves: ``split`` (``train``, ``train_rows``,
    ``control``, ``control_rows``), ``release`` (``synthetic``) and ``vulnerability``
    (``ranking``), the input stages (:attr:`Stage.input`), never kept (:attr:`Stage.kept`).
    """

    options: AuditOptions
    log: Log
    runtime: Runtime
    schema: Schema
    original: Table
    frame: pd.DataFrame | None
    synthetic: Table | None
    control: Table | None
    frames: dict[str, pd.DataFrame] = field(default_factory=dict)
    identifiers: tuple[str, ...] = ()
    domain_from_data: bool = False  # the schema's domains were read from the data
    release_given: bool = False  # the release was an input (not made by the stage release)
    #: A relational release's parts as given (``original``, ``synthetic``, ``control``), for the
    #: person stages; the single-table stages then read the person-level view (one row per
    #: person of the root table ``root``). ``None`` for a single-table audit.
    relational: dict[str, RelationalData] | None = None
    root: str | None = None
    train: Table = field(init=False)
    train_rows: np.ndarray = field(init=False)
    control_rows: np.ndarray | None = None  # rows of the original held out as control, if any
    ranking: Ranking | None = None  # the vulnerability stage's ranking (V_k or cell rarity)
    #: What every kept stage's key digests (:meth:`Kept.key`), made at its first kept stage,
    #: once the inputs exist; kept here so that each stage played alone on the same context
    #: (:func:`play_stage`) does not digest the three parts again.
    kept_base: str | None = field(default=None, repr=False)
    sections: Sections = field(default_factory=Sections)
    findings: list[Finding] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    privacy_utility: list[PrivacyUtilityPoint] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.train = self.original
        self.train_rows = np.arange(len(self.original))

    @property
    def plan(self) -> BudgetPlan:
        """The budget's sizes (``options.plan``, or the named budget's)."""
        return self.options.sizes


@dataclass(frozen=True)
class Skip:
    """Why a stage does not run: an input is missing (``needs``), or it does not apply."""

    needs: str = ""
    reason: str = ""


@dataclass(frozen=True)
class Stage:
    """A named stage: why it cannot run (``None`` when it can) and what it does."""

    name: str
    title: str
    needs: Callable[[Context], Skip | None]
    run: Callable[[Context, np.random.Generator], StageOutput]
    #: Whether a finished run of the stage is kept in the run directory (:class:`Kept`): only
    #: for stages whose whole effect is their output, never for an input stage.
    kept: bool = False
    #: Whether the stage makes an input of the audit, a field of the context that later stages
    #: read (``split``, ``release``, ``vulnerability``). Every other stage reads only the
    #: inputs, never another stage's output, so it can run alone (:func:`play_stage`).
    input: bool = False


def needs_control(ctx: Context) -> Skip | None:
    if ctx.synthetic is None:
        return no_release_skip(ctx)
    return None if ctx.control is not None else Skip(needs=CONTROL_NEEDED)


def no_release_skip(ctx: Context) -> Skip:
    """Why a stage that needs the release cannot run: it was not given, or the generator failed
    to make it (that stage's record says why)."""
    if ctx.options.generator is not None:
        return Skip(needs="a release: the generator failed to make one (see its stage)")
    return Skip(needs="the synthetic release (or a generator to make one)")


def risk_finding(ctx: Context, key: str, title: str, res: Any, threat: ThreatModel) -> Finding:
    """A risk finding; its baseline is 0 (an attack that does no better on the real records than
    on the control records). The random-guess success rate stays in the details.

    Its trials are predicates or link attempts, but they are all about the records of the
    training and control parts: however many trials there are, fewer records than
    :func:`~synthleak.verdicts.min_trials` cannot tell "no leak" from a serious one, and the
    finding then says "too small to measure" with the size it needs.
    """
    r = res.risk
    # the game's own p-value (against no excess over the control, as this baseline of 0)
    est = RiskEstimate(r.value, r.ci_low, r.ci_high, r.confidence, r.n_trials, 0.0, r.p_value)
    details = res.summary()
    assert ctx.control is not None
    n_records = min(len(ctx.train), len(ctx.control))
    need = min_trials(MetricKind.RISK, r.confidence)
    if n_records < need:
        details["status"] = TOO_SMALL_STATUS
        details["too_small"] = (
            f"it concerns {n_records} records (the smaller of the training part and the "
            f"control), and a rate is resolved to {MAX_WIDTH[MetricKind.RISK]:.2f} only from "
            f"{need} records on"
        )
    return Finding(key, title, MetricKind.RISK, est, threat, details)


def release_tables(ctx: Context) -> Release:
    """The release as the encoded tables: the analysed columns only (no identifiers, no text)."""
    assert ctx.synthetic is not None and ctx.control is not None
    return Release(ctx.train, ctx.synthetic, ctx.control, ctx.schema)


def needs_synthetic(ctx: Context) -> Skip | None:
    return None if ctx.synthetic is not None else no_release_skip(ctx)


PERSON_CONTROL_NEEDED = (
    "a control: the tables of persons of the same population whose rows the generator never "
    "saw (--control DIR with --relational; control= as RelationalData in Python)"
)


def needs_control_of_records(ctx: Context) -> Skip | None:
    """:func:`needs_control`, for the singling-out and linkability stages, which the
    ``person_risks`` stage replaces on relational input."""
    if ctx.relational is not None:
        return Skip(
            reason="the release is relational: the game is played on persons, who are named by "
            "their root key (stage person_risks)"
        )
    return needs_control(ctx)


def needs_person_release(ctx: Context) -> Skip | None:
    """What a person-level stage needs: relational parts with the release and a control."""
    if ctx.relational is None:
        return Skip(reason="the input is one table: person-level games need relational data")
    if "synthetic" not in ctx.relational:
        return Skip(needs="the synthetic release's tables (--synthetic DIR with --relational)")
    if "control" not in ctx.relational:
        return Skip(needs=PERSON_CONTROL_NEEDED)
    return None


class Kept:
    """The finished stages of an audit, kept in its run directory (``RUN_DIR/stages``).

    A stage marked ``kept`` that finishes stores its :class:`StageOutput` as one JSON document,
    written atomically; a re-run of the same audit takes it back instead of running the stage
    again, so an audit stopped by Ctrl-C or ``kill -9`` keeps every stage it finished, however
    long each took. The document's key holds a digest of everything the stage's output depends
    on: the versions of synthleak and of the packages it computes with, the random stream
    layout, the options (and so the seed), the schema, the values of the three parts (the
    encoded tables, and the frames as read, whose left-out columns the copy check reads), the
    files of the shadow releases when given, and what happened to the stages that made the
    audit's inputs (:attr:`Stage.input`: the split, the release, the ranking). A kept stage
    reads nothing another kept stage made, so its key does not depend on them, and each can
    run alone (:func:`play_stage`) under the key the whole audit uses. Another audit in the
    same directory has other keys and runs every stage. Results round-trip through JSON
    losslessly (:mod:`synthleak.serde`), so a resumed audit reports
    what an uninterrupted one does.
    """

    def __init__(self, ctx: Context) -> None:
        assert ctx.runtime.run_dir is not None
        self.ctx = ctx
        self.store = RunStore(ctx.runtime.run_dir / "stages", {"kept": "audit stages"})

    def _part(self, name: str) -> str:
        ctx = self.ctx
        table = {"original": ctx.original, "synthetic": ctx.synthetic, "control": ctx.control}[name]
        if table is None:
            return "-"
        h = hashlib.sha256(table_fingerprint(table).encode())
        frame = ctx.frames.get(name)
        if frame is not None:
            h.update(json.dumps([str(c) for c in frame.columns]).encode())
            try:
                rows = pd.util.hash_pandas_object(frame, index=False)
            except (TypeError, ValueError):  # values pandas cannot hash as they are (lists)
                rows = pd.util.hash_pandas_object(frame.astype(str), index=False)
            h.update(np.ascontiguousarray(rows.to_numpy(dtype=np.uint64)).data)
        return h.hexdigest()

    def key(self, st: Stage, records: Sequence[StageRecord]) -> str:
        """The key of ``st``'s output, after the input stages ``records`` describe."""
        ctx = self.ctx
        if ctx.kept_base is None:  # at the first kept stage: after the release exists
            parts = [self._part(n) for n in ("original", "synthetic", "control")]
            ctx.kept_base = json.dumps(
                [
                    package_versions(),  # synthleak, numpy, scikit-learn, ...: same numbers
                    STREAMS_VERSION,
                    ctx.options.to_json(),
                    ctx.schema.to_json(),
                    list(ctx.identifiers),
                    parts,
                    _relational_digest(ctx.relational),
                    # the shadow releases' files, when given (the options hold only the path)
                    *_folder_digest(ctx.options.shadow_releases),
                ]
            )
        before = [[r.name, r.status.value, r.reason, r.needs] for r in records]
        text = json.dumps([ctx.kept_base, before]).encode()
        return f"{st.name}-{hashlib.sha256(text).hexdigest()[:24]}"

    def get(self, key: str) -> tuple[StageOutput, float] | None:
        """The stored output of ``key`` and the seconds the stage took, if it finished."""
        if key not in self.store:
            return None
        doc = self.store.get_document(key)
        return StageOutput.from_dict(doc), float(self.store.meta(key).get("seconds", math.nan))

    def put(self, key: str, output: StageOutput, seconds: float) -> None:
        self.store.put_document(key, output.to_dict(), {"seconds": seconds})


def _folder_digest(folder: str | None) -> list[str]:
    """A digest of every file under ``folder`` (names and bytes), or nothing without one."""
    if folder is None:
        return []
    h = hashlib.sha256()
    root = Path(folder)
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        h.update(json.dumps(path.relative_to(root).as_posix()).encode())
        with path.open("rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                h.update(block)
    return [h.hexdigest()]


def _relational_digest(parts: dict[str, RelationalData] | None) -> str:
    """A digest of every table of every relational part (the child rows the person stages read,
    which the person-level view only summarises); ``"-"`` for a single-table audit."""
    if parts is None:
        return "-"
    h = hashlib.sha256()
    for name in sorted(parts):
        for table in sorted(parts[name].frames):
            frame = parts[name].frames[table]
            h.update(json.dumps([name, table, [str(c) for c in frame.columns]]).encode())
            try:
                rows = pd.util.hash_pandas_object(frame, index=False)
            except (TypeError, ValueError):
                rows = pd.util.hash_pandas_object(frame.astype(str), index=False)
            h.update(np.ascontiguousarray(rows.to_numpy(dtype=np.uint64)).data)
    return h.hexdigest()


#: A stage played elsewhere (in another process, by :func:`play_stage`): its record, and its
#: output when it measured something (``None`` otherwise, or for an input stage whose output
#: is already in the context).
Played = tuple[StageRecord, "StageOutput | None"]


def run_stages(
    ctx: Context, stages: Sequence[Stage], *, played: dict[str, Played] | None = None
) -> list[StageRecord]:
    """Run every stage that has its inputs; record what happened to each. With a run directory,
    a stage marked ``kept`` that an earlier run of the same audit finished is taken from it
    (:class:`Kept`). A stage in ``played`` is not run: its record is taken and its output
    added to the context (and kept), as if it had run here."""
    kept = Kept(ctx) if ctx.runtime.run_dir is not None else None
    try:
        with interrupts_noticed():
            return _run_stages(ctx, stages, kept, played or {})
    finally:
        if kept is not None:
            kept.store.close()


def play_inputs(ctx: Context, stages: Sequence[Stage]) -> dict[str, Played]:
    """Run the stages that make the audit's inputs (:attr:`Stage.input`: the split, the
    release, the vulnerability ranking) on ``ctx``; their records, to pass to
    :func:`play_stage` and, as played, to :func:`run_stages` on the same context."""
    with interrupts_noticed():
        return {st.name: (_run_one(ctx, st, None, []), None) for st in stages if st.input}


def play_stage(
    ctx: Context, stages: Sequence[Stage], name: str, inputs: dict[str, Played]
) -> Played:
    """Stage ``name`` alone on a context whose inputs :func:`play_inputs` made (``inputs`` its
    records), its output returned, not added to ``ctx``. The stages of one audit are
    independent once its inputs exist, so each can run in another process; with a run
    directory it is kept, and taken back, under the key the whole audit would use."""
    (st,) = [s for s in stages if s.name == name]
    kept = Kept(ctx) if ctx.runtime.run_dir is not None and st.kept else None
    try:
        with interrupts_noticed():
            out: list[StageOutput] = []
            record = _run_one(ctx, st, kept, [r for r, _ in inputs.values()], out)
            return record, (out[0] if out else None)
    finally:
        if kept is not None:
            kept.store.close()


def _run_stages(
    ctx: Context, stages: Sequence[Stage], kept: Kept | None, played: dict[str, Played]
) -> list[StageRecord]:
    records: list[StageRecord] = []
    inputs: list[StageRecord] = []  # the records of the input stages (what a kept key holds)
    for st in stages:
        if st.name in played:
            record, output = played[st.name]
            if output is not None:
                output.apply(ctx)
                key = kept.key(st, inputs) if kept is not None and st.kept else None
                if kept is not None and key is not None and kept.get(key) is None:
                    kept.put(key, output, record.seconds)
        else:
            record = _run_one(ctx, st, kept, inputs)
        records.append(record)
        if st.input:
            inputs.append(record)
    return records


def _run_one(
    ctx: Context,
    st: Stage,
    kept: Kept | None,
    inputs: Sequence[StageRecord],
    out: list[StageOutput] | None = None,
) -> StageRecord:
    """Stage ``st``'s record; its output is added to ``ctx``, or to ``out`` when given."""

    def done(output: StageOutput) -> None:
        if out is None:
            output.apply(ctx)
        else:
            out.append(output)

    skip = st.needs(ctx)
    if skip is not None:
        status = StageStatus.NOT_MEASURED if skip.needs else StageStatus.NOT_APPLICABLE
        return StageRecord(st.name, st.title, status, skip.reason, skip.needs)
    key = kept.key(st, inputs) if kept is not None and st.kept else None
    stored = kept.get(key) if kept is not None and key is not None else None
    if stored is not None:
        done(stored[0])
        ctx.log(f"{st.title}: finished in an earlier run, kept")
        return StageRecord(st.name, st.title, StageStatus.MEASURED, "", "", stored[1])
    t0 = time.perf_counter()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", BaselineWarning)  # the verdict carries it
            output = st.run(ctx, STAGE_STREAM.sub(st.name).rng(ctx.options.seed))
        if not isinstance(output, StageOutput):
            raise TypeError(f"stage {st.name!r} returned {type(output).__name__}, not StageOutput")
    except InputError as exc:
        check_interrupted()
        ctx.log(f"{st.title}: not measured ({exc})")
        return StageRecord(
            st.name, st.title, StageStatus.NOT_MEASURED, str(exc), "", time.perf_counter() - t0
        )
    except Exception as exc:  # a failing stage never loses the others' work
        raise_if_interrupted(exc)
        check_interrupted()
        msg = str(exc).splitlines()[0] if str(exc) else ""
        ctx.log(f"{st.title}: failed ({type(exc).__name__}: {msg})")
        return StageRecord(
            st.name,
            st.title,
            StageStatus.FAILED,
            f"{type(exc).__name__}: {msg}",
            "",
            time.perf_counter() - t0,
        )
    seconds = time.perf_counter() - t0
    check_interrupted()  # a Ctrl-C that the stage's code swallowed: nothing is kept
    done(output)
    if kept is not None and key is not None:
        kept.put(key, output, seconds)
    return StageRecord(st.name, st.title, StageStatus.MEASURED, "", "", seconds)
