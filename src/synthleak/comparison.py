"""Compare candidate releases side by side, on the same draws.

``compare(original, control=..., releases={name: table}, generator_specs=[...])`` audits every
candidate with :func:`synthleak.pipeline.audit`, with one seed and one original and control
set, so each stage draws the same numbers for every candidate (a stage's stream depends on the
seed and the stage's name alone, :mod:`synthleak.runtime.seeding`): the no-box membership game
scores the same members and non-members with the same selection and evaluation halves, and the
copy check asks of the same original records whether the release publishes them. The parts are
encoded once, with one schema whose domains cover every candidate, so every candidate's audit
reads the original and the control set the same way.

A difference between two candidates is then *paired*, over the same records:

* **copies** — per original record, whether the release publishes it verbatim: the difference
  of the two shares, with a paired bootstrap interval and McNemar's exact test on the records
  only one of the two publishes (:func:`~synthleak.metrics.paired.paired_share_difference`;
  McNemar (1947)); each bootstrap resample is drawn as one multinomial draw (how many records
  that only one candidate publishes it draws), the same distribution as resampling the
  records one by one without drawing 10,000 records per resample for 10,000 records;
* **no-box membership** — the AUC of one attack on the same evaluation half: the attack is the
  one with the highest AUC against either candidate on the *selection* half (chosen without
  the records it is measured on), and the difference has DeLong's interval and test for
  correlated ROC curves (:func:`~synthleak.metrics.paired.paired_auc_difference`;
  DeLong et al. (1988));
* **linkability** — per target of the linkability game (the same training and control targets
  for every candidate: they are drawn from the seed and the parts' sizes alone), whether the
  attack on the release linked its two halves: the difference of the two candidates' excess
  link rates (training targets minus control targets), with a paired bootstrap interval over
  each set of targets and an exact sign-flip test, McNemar's exact test when no control
  target tells the two apart (:func:`~synthleak.metrics.paired.paired_excess_difference`).
  The frontier's linkability figure is the stage's residual risk, the excess divided by one
  minus the control rate; the paired figure is the excess itself, linear in the outcomes;
* **shadow-release membership** — with shadow releases (``options.shadow_releases``): the
  attack learned from them scores the same members and non-members of every candidate (they
  are drawn from the seed, the parts and the shadows alone), so the AUCs pair as the no-box
  one does (DeLong). The same shadow releases serve every candidate: they stand for the
  candidates' generator, which suits candidates of one generator (seeds, privacy budgets);
* **attribute inference** — with a secret column and no generator, per attacked training
  record, whether the release attribute game guessed its secret right (the same records, in
  the same parts, for every candidate): the difference of the two accuracies, McNemar's exact
  test and a paired bootstrap interval that resamples the game's parts (the records of one
  part share one linear program, so their outcomes are clustered).

Relational candidates (every part a :class:`~synthleak.data.relational.RelationalData`) are
each audited as :func:`~synthleak.pipeline.audit` audits one relational release, with one seed,
so the person-level games draw the same persons for every candidate; a candidate's figures are
its findings of persons (:data:`PERSON_FAMILIES`), and the pairs are person by person
(:func:`_person_pair_rows`): membership of persons (DeLong, as no-box membership), whole
histories and half-histories copied per training person (McNemar, as copies), linkability and
attribute inference of persons (as their record-level games); singling out of persons is
compared by its intervals (:data:`PERSON_NOT_PAIRED`).

Holm's correction (Holm (1979)) runs over every paired test of the comparison (every pair of
candidates, every family), so the chance of calling any two candidates different when none is
stays at 5 %. Singling out and the every-column attribute sweep are compared by their
intervals only (singling-out predicates are drawn from each release, so they are not the same
across candidates; the sweep keeps no per-record outcomes): :data:`NOT_PAIRED` says why.
Utility (MRE over 3-way marginal counts) is each candidate's own figure with its bootstrap
interval.

With two workers or more (or a cluster) the candidates are audited side by side, one work unit
each (:func:`_audit_candidates`); every candidate's audit runs with one thread for arithmetic,
wherever it runs, so the comparison is the same whatever the workers.

Candidates named ``BASE@seedN`` (the generated ones are named so) differ only by seed: they form
one group, whose spread across seeds is reported (:class:`SeedSpread`), so a lucky seed is not
taken for a safer generator. A generator spec may hold a grid, ``privbayes:epsilon=1,4,10`` or
``baynet:k=2,seed=0,1,2`` (:func:`expand_grid`); each generator is fit on the original (the
training records) and releases as many records, from its own seed, drawn from a stream of its
own, so that the audits' draws stay shared.

Each candidate is answered against the three criteria of the Article 29 Working Party's Opinion
05/2014 on anonymisation (singling out, linkability, inference) by the finding behind each
(:data:`CRITERIA`). Under a policy (:mod:`synthleak.policy`) each candidate's audit evaluates it;
the recommendation is the passing candidate with the lowest MRE.
"""

from __future__ import annotations

import itertools
import math
import pickle
import re
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from synthleak.data.io import EncodedFrames
from synthleak.data.relational import RelationalData
from synthleak.data.release import encode_parts
from synthleak.data.schema import Schema
from synthleak.data.table import Table
from synthleak.errors import InputError
from synthleak.findings import audit_metrics
from synthleak.games.attribute_release import ReleaseAttributeResult
from synthleak.games.linkability import LinkabilityResult
from synthleak.generators import make_generator
from synthleak.generators.base import SPEC_PARAMS, split_spec
from synthleak.metrics.paired import (
    paired_auc_difference,
    paired_excess_difference,
    paired_share_difference,
)
from synthleak.metrics.privacy import auc, holm_adjusted, paired_accuracy_difference
from synthleak.pipeline import STAGES, audit_context, audit_result
from synthleak.policy import Metric, Policy
from synthleak.results import AuditOptions, AuditResult, StageRecord
from synthleak.runtime import Runtime, WorkUnit, as_runtime
from synthleak.runtime.seeding import stream, stream_key
from synthleak.runtime.threads import one_thread_limit
from synthleak.serde import Result
from synthleak.stages.base import Context, Played, play_inputs, play_stage, run_stages
from synthleak.verdicts import ALPHA, Finding, Verdict
from synthleak.vulnerability import Ranking

_RELEASE = stream("compare/release")
_PAIRED = stream("compare/paired")

#: The privacy figures of the frontier: each candidate's worst finding of the family (the highest
#: lower confidence bound, as the policy reads it: :func:`synthleak.findings.audit_metrics`).
FAMILIES: dict[str, str] = {
    "copies.rate": "copies",
    "singling_out.risk": "singling out",
    "linkability.risk": "linkability",
    "membership.nobox.auc": "no-box membership",
    "attribute.accuracy": "attribute inference",
}

#: The families compared record by record, and the figure each difference is about.
PAIRED: dict[str, str] = {
    "copies.rate": "share of the original records the release publishes verbatim",
    "linkability.risk": (
        "linkability excess: the share of the same training targets linked minus the share of "
        "the same control targets linked"
    ),
    "membership.nobox.auc": "no-box membership AUC (one attack, evaluation half)",
    "membership.release.auc": (
        "shadow-release membership AUC (the same shadow releases, members and non-members)"
    ),
    "attribute.accuracy": (
        "release attribute-inference accuracy on the same attacked training records"
    ),
    "membership.person.auc": (
        "no-box membership AUC of persons (one attack, evaluation half, the same members and "
        "non-members)"
    ),
    "copies.person_history": (
        "share of the training persons whose whole history of child rows the release replays"
    ),
    "copies.person_rows": (
        "share of the training persons with at least half of their child rows in the release "
        "verbatim"
    ),
    "linkability.persons": (
        "linkability excess of persons: the share of the same training persons linked minus "
        "the share of the same control persons linked"
    ),
    "attribute.persons": (
        "attribute-inference accuracy of persons on the same attacked training persons"
    ),
}

#: Why the other families are compared by their intervals only.
NOT_PAIRED: dict[str, str] = {
    "singling_out.risk": (
        "each release draws its own predicates and the stage keeps no per-predicate outcomes: "
        "compare the intervals"
    ),
    "attribute.accuracy": (
        "paired for the release attribute game of one secret column, whose result keeps each "
        "attacked record's outcome; the every-column sweep (secret 'all') keeps none: compare "
        "its intervals"
    ),
}

#: The Article 29 Working Party's three criteria (Opinion 05/2014) and the findings
#: that answer each (finding-key prefixes), with what is needed when none was measured.
CRITERIA: tuple[tuple[str, tuple[str, ...], str], ...] = (
    ("singling out", ("singling_out",), "a control set"),
    ("linkability", ("linkability",), "a control set"),
    ("inference", ("attribute",), "a secret column: secret"),
)

_SEEDED = re.compile(r"^(?P<base>.+)@seed(?P<seed>\d+)$")
_FOLDER = re.compile(r"[^A-Za-z0-9._-]+")

Log = Callable[[str], None]
Part = pd.DataFrame | Table


@dataclass(frozen=True, repr=False)
class CriterionAnswer(Result):
    """One Article 29 criterion for one candidate, answered by the finding behind it.

    ``verdict`` is the finding's verdict (``"not measured"`` with ``needs`` when no finding
    answers it); ``figure`` its estimate with interval and baseline."""

    criterion: str
    verdict: str
    finding: str = ""
    title: str = ""
    figure: Metric | None = None
    needs: str = ""


@dataclass(frozen=True, repr=False)
class Candidate(Result):
    """One candidate's headline figures.

    Attributes
    ----------
    name : str
    group : str
        Candidates that differ only by seed share it (``BASE`` of ``BASE@seedN``).
    source : str
        The release's path or the generator spec it was generated with.
    folder : str
        Its folder name under the comparison's ``candidates/`` (full report, run directory).
    worst : dict of str to Metric
        Per family of :data:`FAMILIES` measured, the worst finding's figure.
    worst_finding : dict of str to str
        The key of that finding.
    utility_mre, utility_ci : float, tuple
        MRE over 3-way marginal counts above 10 and its bootstrap interval (NaN: not measured).
    passed : bool or None
        Whether the candidate passed the policy (``None`` without one).
    criteria : tuple of CriterionAnswer
    """

    name: str
    group: str
    source: str
    folder: str
    worst: dict[str, Metric]
    worst_finding: dict[str, str]
    utility_mre: float
    utility_ci: tuple[float, float]
    passed: bool | None
    criteria: tuple[CriterionAnswer, ...]


@dataclass(frozen=True, repr=False)
class PairedDifference(Result):
    """Candidate ``a``'s figure minus candidate ``b``'s, paired over the same records.

    ``p_holm`` is Holm-adjusted over every paired test of the comparison; ``significant`` is
    ``p_holm <= alpha``. ``n`` counts the paired records; ``attack`` names the no-box attack
    compared (empty for copies)."""

    family: str
    a: str
    b: str
    difference: float
    ci_low: float
    ci_high: float
    p_value: float
    p_holm: float
    significant: bool
    n: int
    method: str
    attack: str = ""
    confidence: float = 0.95


@dataclass(frozen=True, repr=False)
class SeedSpread(Result):
    """The candidates of one group (the same generator, other seeds): the range of each
    family's worst figure and of the MRE across them."""

    group: str
    members: tuple[str, ...]
    worst: dict[str, tuple[float, float]]
    utility: tuple[float, float]


@dataclass(frozen=True, repr=False)
class Recommendation(Result):
    """Under a policy: the candidates that pass it and, among them, the one with the lowest MRE
    (``best`` empty when none passes, or none that passes had its utility measured)."""

    policy: str
    passing: tuple[str, ...]
    best: str
    reason: str


@dataclass(frozen=True, repr=False)
class ComparisonResult(Result):
    """What :func:`compare` found (JSON round trip: :meth:`to_json`).

    Attributes
    ----------
    options : AuditOptions
        The options every candidate was audited with (one seed: the same draws).
    candidates : tuple of Candidate
    differences : tuple of PairedDifference
        Every pair of candidates (in the order given), every family of :data:`PAIRED` measured
        for both.
    spreads : tuple of SeedSpread
        One per group of two candidates or more.
    recommendation : Recommendation or None
    notes : tuple of str
    sources : dict of str to str
        The original's and control's names (paths).
    audits : dict of str to AuditResult
        Every candidate's full audit, by name (the report writes each as its own report).
    """

    options: AuditOptions
    candidates: tuple[Candidate, ...]
    differences: tuple[PairedDifference, ...]
    spreads: tuple[SeedSpread, ...]
    recommendation: Recommendation | None = None
    notes: tuple[str, ...] = ()
    sources: dict[str, str] = field(default_factory=dict)
    audits: dict[str, AuditResult] = field(default_factory=dict)

    def candidate(self, name: str) -> Candidate:
        """The candidate called ``name``."""
        for c in self.candidates:
            if c.name == name:
                return c
        raise KeyError(f"no candidate {name!r}: the candidates are {self.names}")

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.candidates)


def group_of(name: str) -> str:
    """The group of a candidate name: ``BASE`` of ``BASE@seedN``, else the name itself."""
    m = _SEEDED.match(name)
    return m.group("base") if m else name


def expand_grid(spec: str) -> list[tuple[str, int | None]]:
    """The generator specs of a grid, each with its seed (``None``: the comparison's seed).

    A parameter with several values separated by commas spans them
    (``privbayes:epsilon=1,4,10,k=2`` gives three specs); ``seed=0,1,2`` is not passed to the
    generator but seeds its fit and sample, one candidate per seed."""
    name, joiner, rest = split_spec(spec)
    if not name:
        raise InputError(f"generator spec {spec!r} names no generator (e.g. privbayes:epsilon=1)")
    params: list[tuple[str, list[str]]] = []
    tokens = [t.strip() for t in rest.split(",")] if rest.strip() else []
    for i, token in enumerate(tokens):
        key, eq, value = token.partition("=")
        if eq and key.strip().lower() in SPEC_PARAMS:  # a spec as value: the rest of the spec
            params.append((key.strip(), [",".join([value, *tokens[i + 1 :]]).strip()]))
            break
        if eq:
            params.append((key.strip(), [value.strip()]))
        elif token and params:
            params[-1][1].append(token)
        else:
            raise InputError(
                f"generator spec {spec!r}: write its parameters as key=value, several values of "
                "one key separated by commas (privbayes:epsilon=1,4,10)"
            )
    seeds: list[int | None] = [None]
    grid: list[tuple[str, list[str]]] = []
    for key, values in params:
        if key == "seed":
            try:
                seeds = [int(v) for v in values]
            except ValueError:
                raise InputError(
                    f"generator spec {spec!r}: seed takes whole numbers (seed=0,1,2)"
                ) from None
        else:
            grid.append((key, values))
    out: list[tuple[str, int | None]] = []
    for combo in itertools.product(*(values for _, values in grid)):
        one = ",".join(f"{k}={v}" for (k, _), v in zip(grid, combo, strict=True))
        text = f"{name}{joiner}{one}" if one else name
        out.extend((text, s) for s in seeds)
    return out


def _candidate_sources(
    sources: Mapping[str, str], names: Sequence[str]
) -> dict[str, dict[str, str]]:
    """Each candidate's audit's names of its inputs (for its report): the original's, its
    release's and the control's."""
    return {
        name: {
            "original": sources.get("original", "original"),
            "synthetic": sources.get(name, name),
            "control": sources.get("control", "control"),
        }
        for name in names
    }


def _folder_names(names: Sequence[str]) -> list[str]:
    out: list[str] = []
    for i, name in enumerate(names):
        base = _FOLDER.sub("_", name).strip("._") or "candidate"
        out.append(base if base not in out else f"{base}-{i + 1}")
    return out


def compare(
    original: Part | RelationalData,
    *,
    control: Part | RelationalData | None,
    releases: Mapping[str, Part | RelationalData] | None = None,
    generator_specs: Sequence[str] = (),
    seed: int | None = None,
    policy: Policy | None = None,
    options: AuditOptions | None = None,
    schema: Schema | None = None,
    runtime: Runtime | None = None,
    log: Log | None = None,
    sources: Mapping[str, str] | None = None,
) -> ComparisonResult:
    """Audit several candidate releases of ``original`` with the same draws and compare them.

    Parameters
    ----------
    original : DataFrame, Table or RelationalData
        The real records every candidate was generated from (the training records). As
        :class:`~synthleak.data.relational.RelationalData` (linked tables: persons and their
        child rows), every part is relational and every candidate is audited as
        :func:`~synthleak.pipeline.audit` audits one relational release, its figures those of
        persons (:func:`_compare_relational`).
    control : DataFrame, Table or RelationalData
        Real records of the same population that no candidate's generator saw (required: the
        copy, singling-out, linkability and no-box membership figures are measured against it).
    releases : mapping of str to DataFrame, Table or RelationalData, optional
        The candidate releases by name. Names ``BASE@seedN`` mark candidates that differ only by
        seed (one group).
    generator_specs : sequence of str
        Generators to fit on ``original`` here, each releasing as many records; a spec may hold
        a grid (:func:`expand_grid`). A spec with seeds gives candidates ``SPEC@seedN``.
    seed : int, optional
        The audits' seed (default ``options.seed``): the same for every candidate.
    policy : Policy, optional
        Evaluated on every candidate's audit; gives the recommendation.
    options : AuditOptions, optional
        What every audit measures (budget, secret, ...); ``generator`` must be left out (give
        ``generator_specs``).
    schema : Schema, optional
        Single tables only (relational parts carry their own schema).
    runtime : Runtime, optional
        With a run directory, candidate ``c``'s stages are kept in ``candidates/<folder>``
        under it and resumed as :func:`~synthleak.pipeline.audit` does.
    log : callable, optional
    sources : mapping, optional
        Names of the inputs for the reports: ``original``, ``control`` and each release's name.

    Returns
    -------
    ComparisonResult
    """
    say: Log = log or (lambda _msg: None)
    opts = options or AuditOptions()
    if opts.generator is not None:
        raise InputError(
            "options.generator is one generator: give the candidates' generators as "
            "generator_specs",
            parameter="generator_specs",
        )
    if seed is not None:
        opts = replace(opts, seed=seed)
    if control is None:
        raise InputError(
            "compare needs control: real records of the same population that no candidate's "
            "generator saw (the figures are measured against it)",
            parameter="control",
        )
    releases = dict(releases or {})
    specs = [(s, gs) for spec in generator_specs for s, gs in expand_grid(spec)]
    names = list(releases) + [s if gs is None else f"{s}@seed{gs}" for s, gs in specs]
    if len(names) < 2:
        raise InputError(
            f"compare needs at least two candidates (releases or generator specs); got "
            f"{len(names)}",
            parameter="releases",
        )
    if len(set(names)) != len(names):
        dup = sorted({n for n in names if names.count(n) > 1})
        raise InputError(
            f"candidate names must be unique: {', '.join(dup)} given twice", parameter="releases"
        )
    single, relational = _parts_by_kind(original, control, releases)
    if relational is not None:  # relational candidates: each audited as audit() audits one
        return _compare_relational(
            *relational,
            names,
            specs=specs,
            opts=opts,
            policy=policy,
            schema=schema,
            runtime=runtime,
            say=say,
            sources=dict(sources or {}),
        )
    assert single is not None
    original, control, releases = single
    for s, _ in specs:
        make_generator(s)  # an unknown or bad spec fails before any work
    sources = dict(sources or {})
    rt = as_runtime(runtime)

    # one encoding for every part: one schema whose domains cover every candidate
    parts: dict[str, Part] = {"original": original, "control": control}
    parts.update({f"release:{n}": r for n, r in releases.items()})
    enc = encode_parts(parts, schema=schema, keep=opts.keep, special_values=opts.special_values)
    ori_t = enc.tables["original"]
    tables = {n: enc.tables[f"release:{n}"] for n in releases}
    frames: dict[str, pd.DataFrame] = {
        n: enc.frames[f"release:{n}"] for n in releases if f"release:{n}" in enc.frames
    }
    for s, gs in specs:
        name = s if gs is None else f"{s}@seed{gs}"
        rng = _RELEASE.rng(opts.seed if gs is None else gs, stream_key(s))
        say(f"{name}: fitting on {len(ori_t)} records and generating as many")
        tables[name] = make_generator(s).fit(ori_t, rng=rng).sample(len(ori_t), rng=rng)
        if "original" in enc.frames:
            frames[name] = tables[name].to_frame()
        sources.setdefault(name, s)

    folders = _folder_names(names)
    shared = _Shared(
        enc,
        tables,
        frames,
        opts,
        policy,
        _candidate_sources(sources, names),
    )
    audits = _audit_candidates(shared, names, folders, rt, say)
    candidates = tuple(
        _candidate(name, folder, sources.get(name, name), audits[name])
        for name, folder in zip(names, folders, strict=True)
    )
    notes: list[str] = []
    differences = _differences(audits, names, opts.seed, notes)
    spreads = _spreads(candidates)
    return ComparisonResult(
        options=opts,
        candidates=candidates,
        differences=differences,
        spreads=spreads,
        recommendation=None if policy is None else _recommend(policy, candidates),
        notes=tuple(notes),
        sources={k: sources.get(k, k) for k in ("original", "control")},
        audits=audits,
    )


def _parts_by_kind(
    original: Part | RelationalData,
    control: Part | RelationalData,
    releases: Mapping[str, Part | RelationalData],
) -> tuple[
    tuple[Part, Part, dict[str, Part]] | None,
    tuple[RelationalData, RelationalData, dict[str, RelationalData]] | None,
]:
    """The parts as single tables (first) or, when every part is relational, as relational
    data (second); a mix is refused."""
    parts: dict[str, Part | RelationalData] = {"original": original, "control": control}
    parts.update({f"release {n!r}": r for n, r in releases.items()})
    rel = [k for k, v in parts.items() if isinstance(v, RelationalData)]
    if not rel:
        single = {n: r for n, r in releases.items() if not isinstance(r, RelationalData)}
        assert not isinstance(original, RelationalData) and not isinstance(control, RelationalData)
        return (original, control, single), None
    if len(rel) != len(parts):
        single_names = [k for k in parts if k not in rel]
        raise InputError(
            f"{', '.join(rel)} relational but {', '.join(single_names)} a single table: give "
            "every part as relational data (one folder of tables each) or every part as one "
            "table",
            parameter="releases",
        )
    rels = {n: r for n, r in releases.items() if isinstance(r, RelationalData)}
    assert isinstance(original, RelationalData) and isinstance(control, RelationalData)
    return None, (original, control, rels)


#: Per family of :data:`FAMILIES`, the findings of persons that give a relational candidate's
#: figure (the person-level findings of :func:`~synthleak.pipeline.audit`).
PERSON_FAMILIES: dict[str, tuple[str, ...]] = {
    "copies.rate": ("copies.person_history", "copies.person_rows"),
    "singling_out.risk": ("singling_out.persons",),
    "linkability.risk": ("linkability.persons",),
    "membership.nobox.auc": ("membership.person",),
    "attribute.accuracy": ("attribute.persons",),
}

#: Why the person-level families not paired are compared by their intervals only.
PERSON_NOT_PAIRED: dict[str, str] = {
    "singling_out.risk": (
        "singling out of persons: each release draws its own predicates and the stage keeps "
        "no per-predicate outcomes: compare the intervals"
    ),
}


def _compare_relational(
    original: RelationalData,
    control: RelationalData,
    releases: Mapping[str, RelationalData],
    names: Sequence[str],
    *,
    specs: Sequence[tuple[str, int | None]],
    opts: AuditOptions,
    policy: Policy | None,
    schema: Schema | None,
    runtime: Runtime | None,
    say: Log,
    sources: dict[str, str],
) -> ComparisonResult:
    """:func:`compare` of relational candidates: every candidate audited as
    :func:`~synthleak.pipeline.audit` audits one relational release (with one seed: the
    person-level games draw the same members, non-members and selection half for every
    candidate), its figures those of persons (:data:`PERSON_FAMILIES`), and the differences
    paired person by person (:func:`_person_pair_rows`)."""
    if schema is not None:
        raise InputError(
            "schema describes one table: relational parts carry their own schema, so leave "
            "schema out",
            parameter="schema",
        )
    sch = original.schema
    for label, part in (
        ("control", control),
        *((f"release {n!r}", r) for n, r in releases.items()),
    ):
        if part.schema != sch:
            raise InputError(
                f"{label} has other tables or keys than original: every part of a relational "
                "comparison must share one schema",
                parameter="releases",
            )
    for label, part in (
        ("original", original),
        ("control", control),
        *((f"release {n!r}", r) for n, r in releases.items()),
    ):
        try:
            part.validate()
        except InputError as exc:
            raise InputError(f"{label}: {exc}", parameter=exc.parameter) from None
    root = sch.person_table(opts.root)
    from synthleak.generators.relational import make_relational_generator

    for s, _ in specs:
        make_relational_generator(s)  # an unknown or bad spec fails before any work
    releases = dict(releases)
    for s, gs in specs:
        name = s if gs is None else f"{s}@seed{gs}"
        rng = _RELEASE.rng(opts.seed if gs is None else gs, stream_key(s))
        say(f"{name}: fitting on the original's persons and generating as many")
        gen: Any = make_relational_generator(s)
        releases[name] = gen.fit(original, rng=rng).sample_like(rng=rng)
        sources.setdefault(name, s)
    rt = as_runtime(runtime)
    folders = _folder_names(names)
    shared = _Shared(
        None,
        {},
        {},
        opts,
        policy,
        _candidate_sources(sources, names),
        relational=(original, control, dict(releases)),
    )
    audits = _audit_candidates(shared, names, folders, rt, say)
    candidates = tuple(
        _candidate(name, folder, sources.get(name, name), audits[name], person=True)
        for name, folder in zip(names, folders, strict=True)
    )
    notes: list[str] = [
        f"The candidates are relational releases (persons: rows of table {root!r} with their "
        "child rows). Each family's figure is the worst finding of persons: membership.person, "
        "copies.person_history and copies.person_rows, singling_out.persons, "
        "linkability.persons, attribute.persons; the row-level figures of the person-level "
        "view are in each candidate's own report."
    ]
    notes += [
        f"{FAMILIES[f]}: not paired ({why})."
        for f, why in PERSON_NOT_PAIRED.items()
        if any(f in c.worst for c in candidates)
    ]
    raw: list[dict[str, object]] = []
    for (i, na), (j, nb) in itertools.combinations(enumerate(names), 2):
        raw += _person_pair_rows(audits[na], audits[nb], na, nb, opts.seed, (i, j), notes)
    return ComparisonResult(
        options=replace(opts, root=root),
        candidates=candidates,
        differences=_holm(raw),
        spreads=_spreads(candidates),
        recommendation=None if policy is None else _recommend(policy, candidates),
        notes=tuple(notes),
        sources={k: sources.get(k, k) for k in ("original", "control")},
        audits=audits,
    )


#: Stages whose work units go first when the candidates' stages run side by side: those that
#: usually take longest, so that the workers finish together (the rest follow in audit order).
_LONGEST_FIRST = (
    "membership",
    "person_shadow",
    "attribute_game",
    "membership_release",
    "attribute_sweep",
    "membership_nobox",
    "person_membership",
    "singling_out",
    "person_risks",
    "attribute_release",
    "person_attribute",
)

#: Each process's contexts of the candidates whose stages it ran, by run token and name:
#: the context and its input stages are made once per candidate and process.
_CONTEXTS: dict[tuple[str, str], tuple[Context, EncodedFrames, dict[str, Played]]] = {}


@dataclass(frozen=True)
class _Shared:
    """What every candidate's audit reads (sent once to each worker)."""

    enc: EncodedFrames | None  # the single-table parts' encoding, None for relational parts
    tables: dict[str, Table]
    frames: dict[str, pd.DataFrame]
    opts: AuditOptions
    policy: Policy | None
    sources: dict[str, dict[str, str]]
    #: Relational parts (original, control, releases by name), audited as given.
    relational: tuple[RelationalData, RelationalData, dict[str, RelationalData]] | None = None
    #: The vulnerability ranking of the original, the same for every candidate: made with the
    #: first candidate's context and set on every other's (:meth:`with_ranking`).
    ranking: Ranking | None = None
    token: str = field(default_factory=lambda: uuid.uuid4().hex)

    def context(
        self, name: str, runtime: Runtime, log: Log
    ) -> tuple[Context, EncodedFrames, dict[str, Played]]:
        """Candidate ``name``'s audit context with its input stages played, with one thread for
        arithmetic (as every work unit: :mod:`synthleak.runtime.executor`, so that a stage finds
        the same whether it runs here or in a worker)."""
        ctx, enc = audit_context(
            **self._parts(name),
            options=self.opts,
            runtime=runtime,
            log=log,
            settings={},
        )
        ctx.ranking = self.ranking  # the vulnerability stage takes it as it is, when given
        with one_thread_limit():
            return ctx, enc, play_inputs(ctx, STAGES)

    def result(
        self, name: str, ctx: Context, enc: EncodedFrames, records: list[StageRecord]
    ) -> AuditResult:
        """Candidate ``name``'s audit from its context and its stages' records."""
        return audit_result(
            ctx, enc, records, policy=self.policy, sources=self.sources[name], command_line=None
        )

    def with_ranking(self, ctx: Context) -> _Shared:
        """This, with the ranking ``ctx``'s vulnerability stage made (the same token)."""
        return replace(self, ranking=ctx.ranking)

    def _parts(self, name: str) -> dict[str, Any]:
        """The data arguments of candidate ``name``'s audit on the shared encoding: its frames
        when the data came as DataFrames (the encoding given with them), else its tables, or
        the relational parts as given."""
        if self.relational is not None:
            original, control, releases = self.relational
            return {
                "original": original,
                "synthetic": releases[name],
                "control": control,
                "encoded": None,
                "schema": None,
            }
        enc, release, frame = self.enc, self.tables[name], self.frames.get(name)
        assert enc is not None
        ori, ctl = enc.tables["original"], enc.tables["control"]
        if frame is not None and "original" in enc.frames:
            one = EncodedFrames(
                enc.schema,
                {"original": ori, "synthetic": release, "control": ctl},
                enc.profile,
                enc.domain,
                frames={
                    "original": enc.frames["original"],
                    "synthetic": frame,
                    "control": enc.frames["control"],
                },
                inferred=enc.inferred,
            )
            frames = one.frames
            return {
                "original": frames["original"],
                "synthetic": frames["synthetic"],
                "control": frames["control"],
                "encoded": one,
                "schema": None,
            }
        return {
            "original": ori,
            "synthetic": release,
            "control": ctl,
            "encoded": None,
            "schema": enc.schema,
        }


def _stage_unit(
    shared: _Shared, name: str, stage: str, run_dir: str | None
) -> dict[str, np.ndarray]:
    """Work unit: stage ``stage`` of candidate ``name``'s audit, inline in a worker (the
    stage's own units too), its record and output returned pickled (a unit returns arrays).
    The candidate's context is made on the worker's first stage of it; with a run directory
    the stage is kept in the candidate's, as its whole audit keeps it."""
    key = (shared.token, name)
    if key not in _CONTEXTS:
        for old in [k for k in _CONTEXTS if k[0] != shared.token]:  # an earlier run's
            del _CONTEXTS[old]
        runtime = Runtime(run_dir=None if run_dir is None else Path(run_dir))
        _CONTEXTS[key] = shared.context(name, runtime, lambda _msg: None)
    ctx, _, inputs = _CONTEXTS[key]
    played = play_stage(ctx, STAGES, stage, inputs)
    return {
        "played": np.frombuffer(pickle.dumps(played, protocol=pickle.HIGHEST_PROTOCOL), np.uint8)
    }


def _audit_candidates(
    shared: _Shared, names: Sequence[str], folders: Sequence[str], rt: Runtime, say: Log
) -> dict[str, AuditResult]:
    """Every candidate's audit, by name. The vulnerability ranking, which reads the original
    alone, is made with the first candidate's context and given to every other. With one local
    worker, the audits run one after the other, each audit's stages on the runtime. With more
    (or a cluster), every stage of every candidate is a work unit of its own, run inline in its
    worker, the longest first: once its inputs exist (the split, the release, the ranking: made
    here, and again in each worker, which takes the ranking as made) a stage reads nothing
    another made, and units finer than a candidate keep every worker busy to the end. Each
    audit is then assembled here from its stages' outputs. The results are the same either way
    (same seed, one thread for arithmetic in both)."""
    subs = {n: rt.sub(f"candidates/{f}") for n, f in zip(names, folders, strict=True)}
    first = names[0]
    contexts = {first: shared.context(first, subs[first], _prefixed(say, first))}
    shared = shared.with_ranking(contexts[first][0])  # the original is ranked once
    if rt.cluster is None and (rt.workers == 1 or len(names) == 1):
        audits: dict[str, AuditResult] = {}
        for name in names:
            say(f"auditing candidate {name}")
            made = contexts.pop(name) if name in contexts else None  # the first candidate's
            ctx, enc, inputs = made or shared.context(name, subs[name], _prefixed(say, name))
            with one_thread_limit():
                records = run_stages(ctx, STAGES, played=inputs)
            audits[name] = shared.result(name, ctx, enc, records)
        return audits
    contexts.update({n: shared.context(n, subs[n], _prefixed(say, n)) for n in names[1:]})
    todo = [
        (name, st.name)
        for name in names
        for st in STAGES
        if not st.input and st.needs(contexts[name][0]) is None
    ]
    order = {s: i for i, s in enumerate(_LONGEST_FIRST)}
    todo.sort(key=lambda u: order.get(u[1], len(order)))  # stable: candidates in order
    where = "on the cluster" if rt.cluster is not None else f"on {rt.workers} workers"
    say(f"auditing {len(names)} candidates side by side {where}: {len(todo)} stages")
    run_dirs = {n: None if r.run_dir is None else str(r.run_dir) for n, r in subs.items()}
    units = [WorkUnit(f"{name}/{stage}", (name, stage, run_dirs[name])) for name, stage in todo]
    done = replace(rt, run_dir=None).run(
        _stage_unit, units, shared=shared, description="candidates' stages, side by side"
    )
    played: dict[str, dict[str, Played]] = {n: dict(contexts[n][2]) for n in names}
    for unit, (name, stage) in zip(units, todo, strict=True):
        res = done[unit.key]
        if res.arrays is None:  # the unit's machinery failed, not the stage
            raise RuntimeError(f"stage {stage} of candidate {name} did not finish: {res.error}")
        played[name][stage] = pickle.loads(res.arrays["played"].tobytes())
    audits = {}
    for name in names:
        ctx, enc, _ = contexts[name]
        audits[name] = shared.result(name, ctx, enc, run_stages(ctx, STAGES, played=played[name]))
        say(f"[{name}] audited")
    _CONTEXTS.clear()  # this process's, when a lone unit ran here
    return audits


def _prefixed(say: Log, name: str) -> Log:
    """``say`` with each line prefixed by the candidate's name."""
    return lambda msg: say(f"[{name}] {msg}")


def _worst(result: AuditResult, prefixes: tuple[str, ...]) -> Finding | None:
    """The measured finding of the prefixes with the highest lower confidence bound."""
    found = [
        f
        for f in result.findings
        if any(f.key == p or f.key.startswith(p + ".") for p in prefixes)
        and f.verdict is not Verdict.NOT_MEASURED
    ]
    return max(found, key=lambda f: f.estimate.ci_low) if found else None


_FAMILY_PREFIX = {
    "copies.rate": ("copies",),
    "singling_out.risk": ("singling_out",),
    "linkability.risk": ("linkability",),
    "membership.nobox.auc": ("membership.nobox",),
    "attribute.accuracy": ("attribute",),
}


def _candidate(
    name: str, folder: str, source: str, result: AuditResult, *, person: bool = False
) -> Candidate:
    """A candidate's headline figures; ``person``: a relational candidate's, from its findings
    of persons (:data:`PERSON_FAMILIES`)."""
    metrics = audit_metrics(result)
    worst: dict[str, Metric] = {}
    keys: dict[str, str] = {}
    for fam in FAMILIES:
        m = metrics.get(fam)
        f = _worst(result, (PERSON_FAMILIES if person else _FAMILY_PREFIX)[fam])
        if person and f is not None:  # the policy's metric reads every finding of the family
            m = Metric.from_estimate(replace(f.estimate, baseline=f.baseline))
        if isinstance(m, Metric) and f is not None:
            worst[fam], keys[fam] = m, f.key
    u = result.utility
    criteria = []
    for criterion, prefixes, needs in CRITERIA:
        if person:
            prefixes = tuple(p + ".persons" for p in prefixes)
        f = _worst(result, prefixes)
        if f is None:
            criteria.append(CriterionAnswer(criterion, Verdict.NOT_MEASURED.value, needs=needs))
        else:
            criteria.append(
                CriterionAnswer(
                    criterion,
                    (f.verdict or Verdict.NOT_MEASURED).value,
                    f.key,
                    f.title,
                    Metric.from_estimate(replace(f.estimate, baseline=f.baseline)),
                )
            )
    return Candidate(
        name=name,
        group=group_of(name),
        source=source,
        folder=folder,
        worst=worst,
        worst_finding=keys,
        utility_mre=u.mre_gt10 if u is not None else math.nan,
        utility_ci=tuple(u.mre_ci) if u is not None else (math.nan, math.nan),  # type: ignore[arg-type]
        passed=None if result.policy is None else bool(result.policy.passed),
        criteria=tuple(criteria),
    )


def _copied(result: AuditResult) -> np.ndarray | None:
    """Per original record, whether the release publishes it verbatim (``None``: not measured)."""
    c = result.copies
    if c is None:
        return None
    out = np.zeros(c.n_original, dtype=bool)
    out[np.asarray(c.copied_rows, dtype=np.int64)] = True
    return out


def _same_draws(a: AuditResult, b: AuditResult) -> bool:
    x, y = a.nobox, b.nobox
    return (
        x is not None
        and y is not None
        and np.array_equal(x.member_rows, y.member_rows)
        and np.array_equal(x.non_member_rows, y.non_member_rows)
        and np.array_equal(x.selection, y.selection)
    )


def _nobox_pair(a: AuditResult, b: AuditResult) -> tuple[str, np.ndarray, np.ndarray, np.ndarray]:
    """The attack compared (the highest selection-half AUC against either candidate) and, on
    the evaluation half, the labels and both candidates' scores."""
    assert a.nobox is not None and b.nobox is not None
    return _auc_pair(a.nobox.labels, a.nobox.selection, a.nobox.scores, b.nobox.scores)


def _auc_pair(
    labels: np.ndarray,
    selection: np.ndarray,
    scores_a: Mapping[str, np.ndarray],
    scores_b: Mapping[str, np.ndarray],
) -> tuple[str, np.ndarray, np.ndarray, np.ndarray]:
    """Of two candidates' scores of the same records (``labels``, ``selection`` half): the
    attack with the highest selection-half AUC against either, and on the evaluation half the
    labels and both candidates' scores by it."""
    sel = np.asarray(selection).astype(bool)
    best: tuple[float, str] | None = None
    for name in sorted(set(scores_a) & set(scores_b)):
        sa, sb = scores_a[name], scores_b[name]
        if sa.size != labels.size or sb.size != labels.size:
            continue
        if not (np.isfinite(sa).all() and np.isfinite(sb).all()):
            continue
        top = max(auc(labels[sel], sa[sel]), auc(labels[sel], sb[sel]))
        if math.isfinite(top) and (best is None or top > best[0]):
            best = (top, name)
    if best is None:
        raise ValueError("no attack scored every record of both candidates")
    ev = ~sel
    name = best[1]
    return name, labels[ev], scores_a[name][ev], scores_b[name][ev]


def _linkability_pair(
    a: AuditResult, b: AuditResult
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
    """Per training target and per control target of the linkability game, whether the attack
    on ``a`` and on ``b`` linked it, when both games attacked the same targets with the same
    columns; else ``None``."""
    return _linked_outcomes(a.linkability, b.linkability)


def _linked_outcomes(
    la: LinkabilityResult | None, lb: LinkabilityResult | None
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
    """:func:`_linkability_pair` of two linkability games (of records or of persons)."""
    if la is None or lb is None or not la.attacks or not lb.attacks:
        return None
    x, y = la.attacks[0], lb.attacks[0]
    same = (
        x.attack == y.attack
        and (x.aux_a, x.aux_b, x.n_neighbors) == (y.aux_a, y.aux_b, y.n_neighbors)
        and x.target_rows == y.target_rows
        and x.control_rows == y.control_rows
    )
    if not same or not x.target_rows or not x.control_rows:
        return None
    t, c = np.asarray(x.target_rows), np.asarray(x.control_rows)
    return (
        np.isin(t, x.linked_rows),
        np.isin(t, y.linked_rows),
        np.isin(c, x.control_linked_rows),
        np.isin(c, y.control_linked_rows),
    )


def _release_mia_pair(
    a: AuditResult, b: AuditResult
) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """The labels of the shadow-release membership game's candidates and both releases' scores,
    when both games learned from the same shadow releases and scored the same records; else
    ``None``."""
    x, y = a.membership_release, b.membership_release
    if x is None or y is None or x.shadows_from != y.shadows_from:
        return None
    if (x.member_rows, x.non_member_rows) != (y.member_rows, y.non_member_rows):
        return None
    sizes = (len(x.member_rows), len(x.non_member_rows))
    if (len(x.member_scores), len(x.non_member_scores)) != sizes or (
        len(y.member_scores),
        len(y.non_member_scores),
    ) != sizes:
        return None  # scores not kept (a stage kept by an earlier version)
    labels = np.r_[np.ones(sizes[0], dtype=bool), np.zeros(sizes[1], dtype=bool)]
    return (
        labels,
        np.r_[x.member_scores, x.non_member_scores],
        np.r_[y.member_scores, y.non_member_scores],
    )


def _attribute_pair(
    a: AuditResult, b: AuditResult
) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Per attacked training record, whether the release attribute game of ``a`` and of ``b``
    guessed its secret right, and the game's part of each record (its outcomes are clustered
    by part), when both games attacked the same records of the same secret in the same parts;
    else ``None``."""
    return _guessed_outcomes(a.attribute_release, b.attribute_release)


def _guessed_outcomes(
    ga: ReleaseAttributeResult | None, gb: ReleaseAttributeResult | None
) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """:func:`_attribute_pair` of two release attribute games (of records or of persons)."""
    if ga is None or gb is None or ga.training is None or gb.training is None:
        return None
    ta, tb = ga.training, gb.training
    if ta.right is None or tb.right is None or ta.part is None or tb.part is None:
        return None
    if ga.config.get("secret") != gb.config.get("secret"):
        return None
    same = (
        np.array_equal(ta.rows, tb.rows)
        and np.array_equal(ta.truth, tb.truth)
        and np.array_equal(ta.part, tb.part)
    )
    if not same or ta.rows.size == 0:
        return None
    return ta.right.astype(bool), tb.right.astype(bool), np.asarray(ta.part)


def _differences(
    audits: Mapping[str, AuditResult], names: Sequence[str], seed: int, notes: list[str]
) -> tuple[PairedDifference, ...]:
    raw: list[dict[str, object]] = []
    for (i, na), (j, nb) in itertools.combinations(enumerate(names), 2):
        a, b = audits[na], audits[nb]
        raw += _pair_rows(
            a,
            b,
            na,
            nb,
            _PAIRED.rng(seed, i, j),
            _PAIRED.rng(seed, i, j, 1),
            notes,
            rng_linkability=_PAIRED.rng(seed, i, j, 2),
        )
    return _holm(raw)


def _holm(raw: Sequence[dict[str, object]]) -> tuple[PairedDifference, ...]:
    """The paired differences of ``raw`` (rows of :func:`_pair_rows`), Holm-adjusted over all."""
    adjusted = holm_adjusted([float(r["p_value"]) for r in raw])  # type: ignore[arg-type]
    return tuple(
        PairedDifference(
            p_holm=p,
            significant=bool(math.isfinite(p) and p <= ALPHA),
            **r,  # type: ignore[arg-type]
        )
        for r, p in zip(raw, adjusted, strict=True)
    )


def _rows_of(na: str, nb: str) -> tuple[list[dict[str, object]], Callable[..., None]]:
    """The paired-difference rows of candidates ``na`` and ``nb`` (empty), and the function
    that adds one: ``row(family, d, n, method, **more)`` with ``d`` a paired difference."""
    rows: list[dict[str, object]] = []

    def row(family: str, d: Any, n: int, method: str, **more: object) -> None:
        rows.append(
            dict(
                family=family,
                a=na,
                b=nb,
                difference=d.difference,
                ci_low=d.ci_low,
                ci_high=d.ci_high,
                p_value=d.p_value,
                n=n,
                method=method,
                **more,
            )
        )

    return rows, row


def _pair_rows(
    a: AuditResult,
    b: AuditResult,
    na: str,
    nb: str,
    rng_copies: np.random.Generator,
    rng_attribute: np.random.Generator,
    notes: list[str],
    *,
    rng_linkability: np.random.Generator,
) -> list[dict[str, object]]:
    """The paired differences of two candidates, one row per family both measured on the
    same records (before Holm's correction)."""
    rows, row = _rows_of(na, nb)

    ca, cb = _copied(a), _copied(b)
    if ca is not None and cb is not None and ca.size == cb.size:
        d = paired_share_difference(ca, cb, rng=rng_copies)
        row(
            "copies.rate",
            d,
            d.n,
            "McNemar's exact test; paired bootstrap interval over the records",
        )
    links = _linkability_pair(a, b)
    if links is not None:
        d4 = paired_excess_difference(*links, rng=rng_linkability)
        row(
            "linkability.risk",
            d4,
            d4.n_targets + d4.n_controls,
            "exact sign-flip test (McNemar's on the training targets, less the control "
            "targets' discordance); paired bootstrap interval over the training and the "
            "control targets apart",
        )
    if a.nobox is not None and b.nobox is not None:
        if not _same_draws(a, b):
            notes.append(
                f"No-box membership of {na} and {nb} was not compared: their games scored "
                "different records"
            )
        else:
            try:
                attack, y, sa, sb = _nobox_pair(a, b)
                d2 = paired_auc_difference(y, sa, sb)
            except ValueError as exc:
                notes.append(f"No-box membership of {na} and {nb} was not compared: {exc}")
            else:
                row(
                    "membership.nobox.auc",
                    d2,
                    d2.n_positive + d2.n_negative,
                    "DeLong's test for correlated ROC curves",
                    attack=attack,
                )
    mia = _release_mia_pair(a, b)
    if mia is not None:
        try:
            d5 = paired_auc_difference(*mia)
        except ValueError as exc:
            notes.append(f"Shadow-release membership of {na} and {nb} was not compared: {exc}")
        else:
            row(
                "membership.release.auc",
                d5,
                d5.n_positive + d5.n_negative,
                "DeLong's test for correlated ROC curves",
            )
    pair = _attribute_pair(a, b)
    if pair is not None:
        ra, rb, parts = pair
        d3 = paired_accuracy_difference(ra, rb, clusters=parts, rng=rng_attribute)
        row(
            "attribute.accuracy",
            d3,
            d3.n,
            "McNemar's exact test; paired bootstrap interval over the attacked records, "
            "resampling the game's parts",
        )
    return rows


def _person_draws_shared(a: AuditResult, b: AuditResult) -> bool:
    """Whether the person-level membership games of ``a`` and ``b`` scored the same members and
    non-members with the same selection half (and kept their scores)."""
    x, y = a.person_membership, b.person_membership
    return (
        x is not None
        and y is not None
        and x.selection is not None
        and y.selection is not None
        and x.scores is not None
        and y.scores is not None
        and x.member_keys == y.member_keys
        and x.non_member_keys == y.non_member_keys
        and np.array_equal(x.selection, y.selection)
    )


def _person_copied(a: AuditResult, b: AuditResult) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Per family of the person copies (``copies.person_history``, ``copies.person_rows``), two
    outcome vectors over the same training persons (those the figure counts), whether ``a``'s
    and ``b``'s release copies each; empty when the two games did not count the same persons
    or did not keep the outcomes. Persons neither release copies stand last: neither McNemar's
    test nor the bootstrap of two shares depends on the persons' order."""
    x, y = a.person_copies, b.person_copies
    if x is None or y is None:
        return {}
    same = (x.n_persons, x.n_persons_with_rows, x.min_rows, x.share_threshold, x.tables) == (
        y.n_persons,
        y.n_persons_with_rows,
        y.min_rows,
        y.share_threshold,
        y.tables,
    )
    out: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for family, ra, rb, n in (
        ("copies.person_history", x.whole_rows, y.whole_rows, x.n_persons),
        ("copies.person_rows", x.share_rows, y.share_rows, x.n_persons_with_rows),
    ):
        if not same or ra is None or rb is None or n == 0:
            continue
        ids = np.union1d(ra, rb)  # rows of the one original's root table
        va, vb = np.zeros(n, dtype=bool), np.zeros(n, dtype=bool)
        va[: ids.size], vb[: ids.size] = np.isin(ids, ra), np.isin(ids, rb)
        out[family] = (va, vb)
    return out


def _person_pair_rows(
    a: AuditResult,
    b: AuditResult,
    na: str,
    nb: str,
    seed: int,
    ij: tuple[int, int],
    notes: list[str],
) -> list[dict[str, object]]:
    """The paired differences of two relational candidates, person by person, one row per
    family both measured on the same persons (before Holm's correction): membership of persons
    (DeLong on the same members and non-members, the attack chosen on the selection half),
    histories and shares of histories copied (McNemar on the same training persons),
    linkability and attribute inference of persons (as the record-level families)."""
    rows, row = _rows_of(na, nb)

    i, j = ij
    copied = _person_copied(a, b)
    for k, (family, (ca, cb)) in enumerate(sorted(copied.items())):
        d = paired_share_difference(ca, cb, rng=_PAIRED.rng(seed, i, j, 3 + k))
        row(family, d, d.n, "McNemar's exact test; paired bootstrap interval over the persons")
    if not copied and a.person_copies is not None and b.person_copies is not None:
        notes.append(
            f"Copies of persons' histories of {na} and {nb} were not compared: their games "
            "counted other persons or kept no per-person outcomes: compare the intervals"
        )
    if a.person_membership is not None and b.person_membership is not None:
        pa, pb = a.person_membership, b.person_membership
        if not _person_draws_shared(a, b):
            notes.append(
                f"Membership of persons of {na} and {nb} was not compared: their games scored "
                "different persons (or kept no scores)"
            )
        else:
            assert pa.selection is not None and pa.scores is not None and pb.scores is not None
            labels = np.r_[
                np.ones(len(pa.member_keys), dtype=bool),
                np.zeros(len(pa.non_member_keys), dtype=bool),
            ]
            try:
                attack, y, sa, sb = _auc_pair(labels, pa.selection, pa.scores, pb.scores)
                d2 = paired_auc_difference(y, sa, sb)
            except ValueError as exc:
                notes.append(f"Membership of persons of {na} and {nb} was not compared: {exc}")
            else:
                row(
                    "membership.person.auc",
                    d2,
                    d2.n_positive + d2.n_negative,
                    "DeLong's test for correlated ROC curves",
                    attack=attack,
                )
    ra, rb = a.person_risks, b.person_risks
    la = ra.linkability.persons if ra is not None and ra.linkability is not None else None
    lb = rb.linkability.persons if rb is not None and rb.linkability is not None else None
    links = _linked_outcomes(la, lb)
    if links is not None:
        d4 = paired_excess_difference(*links, rng=_PAIRED.rng(seed, i, j, 5))
        row(
            "linkability.persons",
            d4,
            d4.n_targets + d4.n_controls,
            "exact sign-flip test (McNemar's on the training persons, less the control "
            "persons' discordance); paired bootstrap interval over the training and the "
            "control persons apart",
        )
    elif la is not None and lb is not None:
        notes.append(
            f"Linkability of persons of {na} and {nb} was not compared: their games attacked "
            "other persons or other columns: compare the intervals"
        )
    ga = a.person_attribute.game if a.person_attribute is not None else None
    gb = b.person_attribute.game if b.person_attribute is not None else None
    pair = _guessed_outcomes(ga, gb)
    if pair is not None:
        xa, xb, parts = pair
        d3 = paired_accuracy_difference(xa, xb, clusters=parts, rng=_PAIRED.rng(seed, i, j, 6))
        row(
            "attribute.persons",
            d3,
            d3.n,
            "McNemar's exact test; paired bootstrap interval over the attacked persons, "
            "resampling the game's parts",
        )
    elif ga is not None and gb is not None:
        notes.append(
            f"Attribute inference of persons of {na} and {nb} was not compared: their games "
            "attacked other persons or kept no outcomes: compare the intervals"
        )
    return rows


def _spreads(candidates: Sequence[Candidate]) -> tuple[SeedSpread, ...]:
    groups: dict[str, list[Candidate]] = {}
    for c in candidates:
        groups.setdefault(c.group, []).append(c)
    out = []
    for group, members in groups.items():
        if len(members) < 2:
            continue
        worst: dict[str, tuple[float, float]] = {}
        for fam in FAMILIES:
            vals = [c.worst[fam].value for c in members if fam in c.worst]
            if vals:
                worst[fam] = (min(vals), max(vals))
        mre = [c.utility_mre for c in members if math.isfinite(c.utility_mre)]
        out.append(
            SeedSpread(
                group,
                tuple(c.name for c in members),
                worst,
                (min(mre), max(mre)) if mre else (math.nan, math.nan),
            )
        )
    return tuple(out)


def _recommend(policy: Policy, candidates: Sequence[Candidate]) -> Recommendation:
    passing = tuple(c.name for c in candidates if c.passed)
    if not passing:
        return Recommendation(policy.name, (), "", "no candidate passes the policy")
    scored = [c for c in candidates if c.passed and math.isfinite(c.utility_mre)]
    if not scored:
        return Recommendation(
            policy.name, passing, "", "no passing candidate had its utility measured"
        )
    best = min(scored, key=lambda c: c.utility_mre)
    return Recommendation(
        policy.name,
        passing,
        best.name,
        f"the lowest MRE ({best.utility_mre:.3f}) among the {len(passing)} candidate(s) that "
        "pass the policy",
    )
