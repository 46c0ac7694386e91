"""The one-call audit: ``audit(original, synthetic=None, control=None, generator=None, ...)``.

An audit is a pipeline of named stages (:data:`STAGES`). Each stage states what it needs; a stage
whose input is missing is recorded as "not measured" with the input it needs, never as "no
evidence". A stage that fails is recorded as failed with its reason and the audit goes on: the
report is always written with what was computed. Each stage draws its randomness from its own
stream, derived from the seed and the stage's *name* (``audit/stage``), so adding, removing or
skipping a stage changes no other stage's numbers; a stage that runs a game seeds it with the
first draw of that stream (:func:`~synthleak.runtime.seeding.game_seed`), so no two stages' games
ever share a seed, except the two release attribute-inference stages, which never run together
(one named secret, or ``"all"``): ``attribute_sweep`` seeds each column's game as
``attribute_release`` does, so a column has one figure whichever of the two measures it.

Stages, in order, each a module of :mod:`synthleak.stages` that exports its ``STAGE``
(the machinery they share is :mod:`synthleak.stages.base`):

1. ``split`` — when only a generator is given, hold out ``control_fraction`` of the original as
   the control set;
2. ``release`` — fit the generator on the training part and release as many records;
3. ``vulnerability`` — rank the training records by ``V_k`` (Meeus et al. (2023), Sec. 4), or
   by cell rarity for a release audited without its generator;
4. ``copies`` — verbatim copies of whole records and of every high-cardinality or left-out
   column's values, against the control's rates (needs only the release);
5. ``singling_out``, ``linkability`` — Anonymeter risks against the control set (Giomi et al.
   (2023));
6. ``membership_nobox`` — membership signal of the release against the control set;
   ``membership_release`` — with shadow releases (``shadow_releases=DIR``), membership inference
   on the release itself, the attack learned from the shadow releases;
   ``person_membership`` — with relational parts, membership of persons (a root row and their
   child rows) against the control's persons; ``person_copies`` (histories replayed verbatim)
   and ``person_risks`` (singling out and linkability of persons, in place of the two
   record-level stages) likewise; the other stages then read the person-level view, one row
   per person;
7. ``attribute_release`` — reconstruction attribute inference on the release (Annamalai et al.
   (2024a), Sec. 4.2), with the control set as baseline; ``attribute_sweep`` — the same with
   every column in turn as the secret (``secret="all"``), one finding per column;
   ``person_attribute`` — with relational parts, a root column inferred from persons' child rows;
8. ``utility`` — MRE over 3-way marginal counts above 10 and 3-TVD (Annamalai et al. (2024a),
   Sec. 5.3);
9. ``attribute_game`` — the randomised-secret attribute-inference game against the generator;
10. ``membership`` — black-box shadow-model membership inference against the generator, on the
    most vulnerable records plus random records as a control group;
11. ``person_shadow`` — with relational parts and a relational generator (``sdv:hma``,
    ``python:``, ``command:``; :mod:`synthleak.generators.relational`), shadow-model
    membership of persons (:class:`~synthleak.games.person_shadow.PersonShadowGame`); the
    row-level generator games (``attribute_game``, ``membership``) do not run on relational
    parts.

Every row number a stage reports is a row of the original as given.

Findings get their verdicts together (:func:`synthleak.verdicts.assess`): Holm's correction over
all findings keeps the chance of any false "leak" verdict at 5 %.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Sequence
from dataclasses import fields, replace
from importlib.util import find_spec
from typing import Any

import pandas as pd

from synthleak.data.io import EncodedFrames
from synthleak.data.relational import RelationalData, person_views
from synthleak.data.release import encode_parts
from synthleak.data.schema import Schema
from synthleak.data.table import Table
from synthleak.errors import InputError
from synthleak.findings import (
    audit_metrics,
)
from synthleak.generators import make_generator
from synthleak.modes import AUDIT_SELECTORS
from synthleak.modes import Budget as Budget  # re-exported (synthleak.Budget)
from synthleak.policy import Policy
from synthleak.results import (
    BUDGETS as BUDGETS,  # re-exported (synthleak.BUDGETS)
)
from synthleak.results import (
    SWEEP_ALL,
    AuditConfig,
    AuditOptions,
    AuditResult,
    DataSection,
    StageRecord,
    package_versions,
)
from synthleak.results import (
    BudgetPlan as BudgetPlan,  # re-exported: the sizes audit(plan=) takes
)
from synthleak.runtime import Runtime, as_runtime
from synthleak.runtime.seeding import STREAMS_VERSION
from synthleak.runtime.store import (
    check_layout,
)
from synthleak.stages import (
    attribute_game,
    attribute_release,
    attribute_sweep,
    copies,
    linkability,
    membership,
    membership_nobox,
    membership_release,
    person_attribute,
    person_copies,
    person_membership,
    person_risks,
    person_shadow,
    release,
    singling_out,
    split,
    utility,
    vulnerability,
)
from synthleak.stages.base import Context, Log, Stage, run_stages
from synthleak.stages.copies import copy_checks_not_measured
from synthleak.verdicts import assess

#: How ``audit(selector=...)`` chooses the membership game's targets (the first is the default).
SELECTORS = tuple(s.value for s in AUDIT_SELECTORS)


OPTIONAL = {"torch": "torch", "ctgan": "ctgan", "distributed": "dask", "mbi": "mbi"}


#: The audit's stages, in the order they run: each module of synthleak.stages exports its STAGE.
STAGES: tuple[Stage, ...] = (
    split.STAGE,
    release.STAGE,
    vulnerability.STAGE,
    copies.STAGE,
    singling_out.STAGE,
    linkability.STAGE,
    membership_nobox.STAGE,
    membership_release.STAGE,
    person_membership.STAGE,
    person_copies.STAGE,
    person_risks.STAGE,
    attribute_release.STAGE,
    attribute_sweep.STAGE,
    person_attribute.STAGE,
    utility.STAGE,
    attribute_game.STAGE,
    membership.STAGE,
    person_shadow.STAGE,
)


def audit(
    original: pd.DataFrame | Table | RelationalData,
    *,
    synthetic: pd.DataFrame | Table | RelationalData | None = None,
    control: pd.DataFrame | Table | RelationalData | None = None,
    options: AuditOptions | None = None,
    schema: Schema | None = None,
    runtime: Runtime | None = None,
    policy: Policy | None = None,
    log: Log | None = None,
    sources: dict[str, str] | None = None,
    command_line: str | None = None,
    encoded: EncodedFrames | None = None,
    **settings: Any,
) -> AuditResult:
    """Audit a synthetic release (or a generator) against the real records behind it.

    Parameters
    ----------
    original : DataFrame, Table or RelationalData
        The real records the synthetic data was (or will be) generated from. A
        :class:`~synthleak.data.relational.RelationalData` (linked tables: a root table of
        persons and their child rows) audits a relational release: the given parts must all be
        relational, with one schema, and ``synthetic`` is required (a ``generator`` is then a
        relational generator, run only by the person-level shadow-model game). The
        single-table stages then audit the person-level view
        (:func:`~synthleak.data.relational.person_views`: one row per person of the root table,
        their child rows summarised), and ``person_membership`` plays membership of persons on
        the tables themselves.
    synthetic : DataFrame, Table or RelationalData, optional
        The released synthetic data. Without it, ``generator`` is fit on the original.
    control : DataFrame, Table or RelationalData, optional
        Real records from the same population that the generator never saw.
    options : AuditOptions, optional
        What to audit and how (:class:`~synthleak.results.AuditOptions`). Without it, the
        keyword arguments below (``settings``: any of its fields) build it; give one or the
        other. The result records it as the leading fields of ``result.config``, and
        ``result.config.options`` gives it back to run the same audit again.
    generator : str, optional
        Generator spec (``baynet:k=2``, ...). Enables the black-box shadow-model attacks.
        Beside ``synthetic`` it names the release's generator: the games against the generator
        (``attribute_game``, ``membership``) play it on the original as without a release, and
        ``membership_release`` attacks the given release with shadow releases it makes from
        the control records (``n_shadows``), unless ``shadow_releases`` gives them.
        With relational parts, a relational generator spec (``sdv:hma``, ``python:...``,
        ``command:...``) for the person-level shadow-model game (``person_shadow``).
    secret : str, optional
        A sensitive column: enables attribute inference. ``"all"`` sweeps every column of the
        release in turn (:func:`synthleak.games.sweep.attribute_sweep`), each ranked by its
        excess over the control baseline, one finding per column.
    quasi_ids : sequence of str
        Columns the attacker knows about people (default: every other column).
    secret_rule : SecretRule, optional
        When a guess of a numeric secret counts as right (required for one): within an
        absolute or relative tolerance, or the right quantile bin
        (:class:`synthleak.games.attribute.SecretRule`).
    budget : Budget
        ``quick``, ``standard`` or ``paper`` (see :data:`BUDGETS`).
    plan : BudgetPlan, optional
        Explicit sizes, overriding ``budget``.
    schema : Schema, optional
        Defaults to the schema inferred on the original (with ``encoded``, its schema).
    seed : int
        Same seed, same result (whatever the runtime's workers or cluster).
    runtime : Runtime, optional
        Workers, Dask cluster, resumable run directory, progress bars.
    control_fraction : float, default 0.5
        Share of the original held out as control when a generator is fit here. Half keeps the
        control as large as the training part, so singling out and linkability compare the two
        at equal size (their intervals widen about ``n_train / n_control`` times otherwise).
    k : int
        Neighbours of the vulnerability score.
    show_records : bool
        Keep the values of the most exposed records in the result (the report then contains
        personal data); by default only their row numbers and the columns where they stand out.
    keep : sequence of str
        Columns to analyse although they look like identifiers or free text (which are left
        out of the attacks by default, with a note; free text is still checked for copies).
    special_values : dict or sequence of str, default none
        Codes of numeric columns that are not numbers, such as a -8 "not applicable"
        (``{"age": [-8]}`` or ``["age=-8,-9"]``): each is its own category in a
        ``"<column> (special)"`` column beside the numbers
        (:func:`~synthleak.data.values.split_special`), so a generator cannot turn it into
        another number and attacks and copy checks treat it as a value.
    claimed_epsilon : float, optional
        The differential-privacy epsilon the generator claims (default: what the generator
        declares, if anything); the membership game's empirical epsilon is checked against it.
    delta, neighbouring : float, str
        The claim's delta and neighbouring relation (``add_remove`` or ``substitute``).
    policy : Policy, optional
        Pass/fail checks (:mod:`synthleak.policy`) evaluated on the audit's metrics.
    max_time : float, optional
        Wall-time limit in seconds for the shadow-model game: its shadow and test datasets are
        sized to fit it after a measured pilot. Required by ``budget="auto"``. The
        randomised-secret attribute game (:data:`AIA_GAME_SHARE`) and the attribute sweep
        (:data:`AIA_SWEEP_SHARE`) take at most a share of it.
    shadow_releases : str or Path, optional
        A folder of shadow releases of the release's generator (one sub-folder each, in
        synthleak's or MIDST's layout: :mod:`synthleak.data.shadow_releases`): the stage
        ``membership_release`` then attacks the release itself with an attack learned from them.
        Without a folder, ``generator`` beside a given ``synthetic`` makes them: ``n_shadows``
        runs of it (default 8), each on a random half of half the control records, whose other
        half are the non-members scored (the folder, when given, is used instead).
    n_shadows : int, optional
        The shadow releases ``generator`` makes for ``membership_release`` (at least 3; only
        with ``generator`` and no ``shadow_releases``).
    root : str, optional
        With relational parts, the table of persons; needed only when the schema has several
        root tables (default: its only one).
    selector : {"screen", "distance", "rare", "loglik"}
        How the membership game's targets are chosen among the training records. ``screen``
        (default): the two-stage audit, a cheap shadow-model screen of the rarest records
        (:func:`synthleak.games.twostage.screen_records`) ranks them by measured risk, and its
        wall time is taken from the game's shadow datasets so the audit keeps its budget's
        time. ``distance``: the paper's ``V_k`` (Meeus et al. 2023); ``rare`` and ``loglik``:
        its baselines.
    log : callable, optional
        Receives one line per stage (the CLI prints them).
    sources : dict, optional
        Names of the inputs (paths) for the report.
    command_line : str, optional
        The command that ran the audit, for the reproducibility section.
    encoded : EncodedFrames, optional
        What :func:`~synthleak.data.io.encode_frames` returned for exactly the DataFrames given
        (its ``frames`` are them): the audit then uses its schema, tables and profile instead of
        profiling and encoding the data again. The command line passes its own, with the
        frames compacted (:func:`~synthleak.data.io.compact_frame`).

    Returns
    -------
    AuditResult

    References
    ----------
    Meeus et al. (2023) (vulnerability, membership inference); Annamalai et al. (2024a)
    (attribute inference, utility); Giomi et al. (2023) (singling out, linkability).
    """
    ctx, enc = audit_context(
        original,
        synthetic=synthetic,
        control=control,
        options=options,
        schema=schema,
        runtime=runtime,
        log=log,
        encoded=encoded,
        settings=settings,
    )
    return audit_result(
        ctx, enc, run_stages(ctx, STAGES), policy=policy, sources=sources, command_line=command_line
    )


def audit_context(
    original: pd.DataFrame | Table | RelationalData,
    *,
    synthetic: pd.DataFrame | Table | RelationalData | None,
    control: pd.DataFrame | Table | RelationalData | None,
    options: AuditOptions | None,
    schema: Schema | None,
    runtime: Runtime | None,
    log: Log | None,
    encoded: EncodedFrames | None,
    settings: dict[str, Any],
) -> tuple[Context, EncodedFrames]:
    """:func:`audit`'s inputs checked and encoded: the context its stages run on, and the
    encoding (its arguments; nothing has run yet)."""
    say: Log = log or (lambda _msg: None)
    if options is None:
        try:
            options = AuditOptions(**settings)
        except TypeError:
            known = {f.name for f in fields(AuditOptions)}
            bad = sorted(set(settings) - known)
            raise InputError(
                f"audit() got unknown argument(s) {', '.join(bad)}: the options are "
                f"{', '.join(sorted(known))}"
            ) from None
    elif settings:
        raise InputError(
            f"give the options either as options= or as keyword arguments, not both (got "
            f"{', '.join(sorted(settings))} beside options)"
        )
    opts = options
    rt = as_runtime(runtime)
    if synthetic is None and opts.generator is None:
        raise InputError(
            "nothing to audit: give the released synthetic data (synthetic) or a generator"
        )
    relational, root = _relational_parts(
        {"original": original, "synthetic": synthetic, "control": control}, opts, encoded
    )
    parts: dict[str, pd.DataFrame | Table | None]
    if relational is not None:  # the single-table stages audit one row per person
        opts = replace(opts, root=root)  # recorded: the table of persons the audit used
        views = person_views(relational, root=root)
        parts = {k: views.get(k) for k in ("original", "synthetic", "control")}
        key = relational["original"].schema.key_of(root)
        say(f"relational input: {len(views['original'])} persons of table {root!r} (key {key!r})")
    else:  # _relational_parts refuses a mix: every part is a single table
        assert not isinstance(original, RelationalData)
        assert not isinstance(synthetic, RelationalData)
        assert not isinstance(control, RelationalData)
        parts = {"original": original, "synthetic": synthetic, "control": control}
    frame = parts["original"] if isinstance(parts["original"], pd.DataFrame) else None
    given = {k: v for k, v in parts.items() if v is not None}
    if encoded is None:
        enc = encode_parts(given, schema=schema, keep=opts.keep, special_values=opts.special_values)
    elif list(encoded.tables) != list(given) or any(
        encoded.frames.get(k) is not v for k, v in given.items()
    ):
        raise InputError(
            "encoded was made from other data than the parts given: encode the frames in the "
            "order original, synthetic, control and pass the frames it holds (encoded.frames) "
            "as those parts, or leave encoded out"
        )
    elif schema is not None and schema != encoded.schema:
        raise InputError(
            "schema differs from the schema encoded was made with: leave schema out (encoded "
            "carries its own)"
        )
    else:
        enc = encoded
    sch = enc.schema
    ori, syn, ctl = enc.tables["original"], enc.tables.get("synthetic"), enc.tables.get("control")
    frames = {k: v for k, v in given.items() if isinstance(v, pd.DataFrame)}
    secret, quasi_ids = opts.secret, opts.quasi_ids
    if secret is not None and secret != SWEEP_ALL:
        from synthleak.games.secret import validate_secret

        left_out = {c: "an identifier" for c in enc.profile.identifiers}
        left_out.update({c: "free text" for c in enc.profile.text_columns})
        validate_secret(  # before any attack
            sch, secret, list(quasi_ids) or None, data=ori, rule=opts.secret_rule, left_out=left_out
        )
    unknown = [q for q in quasi_ids if q not in sch]
    if unknown:
        raise InputError(
            f"quasi_ids names unknown column(s) {unknown}: the columns are {', '.join(sch.names)}"
        )
    if len(ori) <= opts.k:
        raise InputError(
            f"the original has {len(ori)} records: an audit needs more than k = {opts.k}"
        )
    if opts.generator is not None and relational is None:
        make_generator(opts.generator)  # an unknown or bad spec fails before any work

    ctx = Context(
        options=opts,
        log=say,
        runtime=rt,
        schema=sch,
        original=ori,
        frame=frame,
        synthetic=syn,
        control=ctl,
        frames=frames,
        identifiers=tuple(enc.profile.identifiers),
        domain_from_data=enc.inferred,
        release_given=syn is not None,
        relational=relational,
        root=root if relational is not None else None,
    )
    if relational is not None:
        children = relational["original"].schema.descendants(root)
        ctx.notes.append(
            f"The release is relational: each person is a row of table {root!r} with their "
            f"child rows in {', '.join(repr(t) for t in children) or 'no other table'}. "
            "The single-table stages audit the person-level view, one row per person with "
            "their child rows summarised (counts, means and ranges, value counts); a row "
            f"number there is a row of table {root!r} as given. Person-level membership plays "
            "on the tables themselves and names persons by their root key."
        )
    for mod, extra in OPTIONAL.items():
        if find_spec(mod) is None:
            ctx.notes.append(
                f"optional package '{mod}' is not installed: the parts that need it are skipped "
                f"(install with pip install 'synthleak[{extra}]')"
            )
    if rt.run_dir is not None:  # never resume numbers drawn under another layout
        check_layout(rt.run_dir, STREAMS_VERSION)
    return ctx, enc


def audit_result(
    ctx: Context,
    enc: EncodedFrames,
    records: Sequence[StageRecord],
    *,
    policy: Policy | None,
    sources: dict[str, str] | None,
    command_line: str | None,
) -> AuditResult:
    """The result of the audit whose stages ran on ``ctx`` (``records``, what happened to
    each) from :func:`audit_context`, and its policy's verdicts."""
    opts, sch, ori = ctx.options, ctx.schema, ctx.original
    sources = sources or {}
    config = AuditConfig.of(
        opts,
        original=sources.get("original", "original"),
        synthetic=sources.get("synthetic") or None,
        control=sources.get("control") or None,
        confidence=0.95,
        command_line=command_line or "python API",
        versions=package_versions(),
        created=_dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        n_original=len(ori),
        n_synthetic=len(ctx.synthetic) if ctx.synthetic is not None else 0,
        n_control=len(ctx.control) if ctx.control is not None else 0,
    )
    result = _assemble(ctx, config, sch, DataSection(enc.profile, enc.domain), records)
    if policy is not None:
        result = replace(result, policy=policy.evaluate(audit_metrics(result)))
    return result


def _relational_parts(
    parts: dict[str, Any], opts: AuditOptions, encoded: EncodedFrames | None
) -> tuple[dict[str, RelationalData] | None, str]:
    """The relational parts given (``None`` for a single-table audit) and the table of persons
    (``opts.root``, or the schema's only root); refuses a mix of relational and single-table
    parts, a generator and ``encoded`` with relational parts."""
    given = {k: v for k, v in parts.items() if v is not None}
    rel = {k: v for k, v in given.items() if isinstance(v, RelationalData)}
    if not rel:
        if opts.root is not None:
            raise InputError(
                "root names the table of persons of relational parts: the parts given are single "
                "tables, so leave root out",
                parameter="root",
            )
        return None, ""
    if len(rel) != len(given):
        single = sorted(set(given) - set(rel))
        raise InputError(
            f"{', '.join(sorted(rel))} relational but {', '.join(single)} a single table: give "
            "every part as relational data (one folder of tables each) or every part as one table"
        )
    if "synthetic" not in rel:
        raise InputError(
            "a relational release is audited from its tables: give synthetic as relational data "
            "(a generator, if given, is a relational generator for the person-level "
            "shadow-model game, not a source of the release)"
        )
    if opts.generator is not None:
        from synthleak.generators.relational import make_relational_generator

        make_relational_generator(opts.generator)  # a bad spec fails before any work
    if encoded is not None:
        raise InputError("encoded holds single tables: leave it out with relational parts")
    schema = rel["original"].schema
    if any(v.schema != schema for v in rel.values()):
        raise InputError("all parts of a relational release must share one schema")
    root = schema.person_table(opts.root)
    return rel, root


def _assemble(
    ctx: Context,
    config: AuditConfig,
    schema: Schema,
    data: DataSection,
    records: Sequence[StageRecord],
) -> AuditResult:
    """The audit's result from what the stages left in ``ctx``: every section of
    ``ctx.sections`` (each field of :class:`~synthleak.stages.base.Sections` is the
    :class:`~synthleak.results.AuditResult` field of the same name), the findings (with their
    verdicts, :func:`~synthleak.verdicts.assess`) and the notes."""
    sections = {f.name: getattr(ctx.sections, f.name) for f in fields(ctx.sections)}
    return AuditResult(
        config=config,
        schema=schema,
        data=data,
        stages=(*records, *copy_checks_not_measured(ctx.findings)),
        findings=assess(ctx.findings),
        privacy_utility=tuple(ctx.privacy_utility),
        notes=tuple(ctx.notes),
        **sections,
    )
