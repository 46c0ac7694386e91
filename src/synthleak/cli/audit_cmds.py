"""``synthleak audit``, ``synthleak demo`` and ``synthleak report``."""

from __future__ import annotations

import shutil
import sys
import time
from collections.abc import Callable
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from synthleak.cli.app import app
from synthleak.cli.common import (
    SHADOWS_HELP,
    CategoricalOpt,
    ClaimedEpsilonOpt,
    ClusterOpt,
    ContinuousOpt,
    ControlOpt,
    DeltaOpt,
    FailOnOpt,
    JunitOpt,
    KeepOpt,
    MaxTimeOpt,
    NaValuesOpt,
    NeighbouringOpt,
    OriginalOpt,
    PolicyOpt,
    QuasiIdsOpt,
    RelationalOpt,
    RootOpt,
    SchemaOpt,
    SecretBinsOpt,
    SecretOpt,
    SecretToleranceOpt,
    SeedOpt,
    ShadowReleasesOpt,
    SpecialValuesOpt,
    SyntheticOpt,
    ToleranceKindOpt,
    WorkersOpt,
    check_writable,
    exit_for_policy,
    load_cli_policy,
    load_relational_parts,
    make_runtime,
    read_cli_parts,
    refuse_single_table_flags,
    report_policy,
    secret_rule,
    split_list,
)
from synthleak.errors import InputError
from synthleak.modes import Budget, Neighbouring, TargetMethod, ToleranceKind

if TYPE_CHECKING:
    from synthleak.results import AuditOptions, AuditResult


def _logger() -> Callable[[str], None]:
    from rich.console import Console
    from rich.markup import escape

    console = Console(stderr=True, soft_wrap=True)
    start = time.monotonic()

    def log(msg: str) -> None:
        # the message is text, not markup: "[name] ..." (a candidate's lines) stays as written
        console.print(f"[dim]{time.monotonic() - start:7.1f}s[/dim] {escape(msg)}", highlight=False)

    return log


def _check_out_dir(out: Path) -> None:
    if out.exists() and not out.is_dir():
        raise InputError(f"--out-dir {out} is a file: give a directory for the report")
    if not out.absolute().parent.is_dir():
        raise InputError(f"the folder {out.parent} of --out-dir does not exist: create it first")
    check_writable(out if out.is_dir() else out.absolute().parent, "--out-dir")


def command_line() -> str:
    """The command as typed (for the reproducibility section of reports)."""
    return " ".join(["synthleak", *sys.argv[1:]])


def _has_finished_work(run: Path) -> bool:
    """Whether any stage's run store under ``run`` holds a finished unit (the two-stage screen,
    the no-box attacks and the attribute game keep theirs in subfolders)."""
    from synthleak.runtime.store import finished_units

    return finished_units(run) > 0


def _run_audit(
    options: AuditOptions,
    *,
    original: str,
    synthetic: str | None,
    control: str | None,
    workers: int,
    cluster: str | None,
    out: Path,
    fail_on: str | None = None,
    policy_file: Path | None = None,
    junit: Path | None = None,
    keep: str | None = None,
    categorical: str | None = None,
    continuous: str | None = None,
    schema: Path | None = None,
    na_values: str | None = None,
    relational: Path | None = None,
) -> tuple[Path, Any]:
    """Run the audit ``options`` describe into ``out`` (created only for the run; removed
    again when the command fails before any work was kept, so bad input leaves no folder
    behind). The other arguments say where the data is and how to run; with ``relational``
    (SDV multi-table metadata) each part is a folder of one file per table."""
    _check_out_dir(out)
    runtime = make_runtime(workers=workers, run_dir=out / "run", start=cluster is None)
    from synthleak.pipeline import audit  # seconds of imports: the workers make theirs meanwhile

    policy = load_cli_policy(fail_on, policy_file, junit)
    if relational is not None:
        return _run_relational_audit(
            options,
            {"original": original, "synthetic": synthetic, "control": control},
            relational,
            runtime=runtime,
            policy=policy,
            out=out,
            junit=junit,
            na_values=na_values,
            single_table={
                "--keep": keep,
                "--categorical": categorical,
                "--continuous": continuous,
                "--schema": schema,
                "--cluster": cluster,
            },
        )
    enc = read_cli_parts(
        {"original": original, "synthetic": synthetic, "control": control},
        categorical=categorical,
        continuous=continuous,
        schema=schema,
        na_values=na_values,
        keep=keep,
        min_rows=2,
        show_values=options.show_records,
        special_values=options.special_values,
        compact=True,  # the audit keeps every part for the copy check: in a compact form
    )
    # every part as the file holds it (one reading path: free text and identifiers kept for
    # the copy check, values not rounded through an encoding), encoded once
    parts = enc.frames
    client = None
    if cluster is not None:  # fail fast on an unreachable scheduler, before any work
        from synthleak.runtime.executor import connect_cluster

        client = connect_cluster(cluster, timeout=5.0)
        runtime = make_runtime(workers=workers, cluster=client, run_dir=out / "run")
    log = _logger()
    log(f"auditing {original}: {len(parts['original'])} records, {len(enc.schema)} columns")
    try:
        result, paths = _write_audit(
            out,
            lambda: audit(
                parts["original"],
                synthetic=parts.get("synthetic"),
                control=parts.get("control"),
                options=options,
                encoded=enc,
                runtime=runtime,
                policy=policy,
                log=log,
                sources={
                    "original": original,
                    "synthetic": synthetic or "",
                    "control": control or "",
                },
                command_line=command_line(),
            ),
        )
    finally:
        if client is not None:
            client.close()
    log(f"report written: {paths['html']}")
    release = next((st for st in result.stages if st.name == "release"), None)
    if release is not None and release.status == "failed":
        raise InputError(
            f"--generator {options.generator} failed, so no release could be audited "
            f"({release.reason}); the report in {out} records what ran: fix the generator and "
            "run again"
        )
    report_policy(result.policy, junit)
    return paths["html"], result.policy


def _write_audit(out: Path, run: Callable[[], Any]) -> tuple[Any, dict[str, Path]]:
    """Run the audit and write its report into ``out``. A run stopped before it kept any
    finished work leaves no folder it created behind (Ctrl-C, a failure, bad input)."""
    from synthleak.report import write_report

    created = not out.exists()
    try:
        result = run()
        return result, write_report(result, out)
    except BaseException:
        if created and out.exists() and not _has_finished_work(out / "run"):
            shutil.rmtree(out, ignore_errors=True)
        raise


def _run_relational_audit(
    options: AuditOptions,
    folders: dict[str, str | None],
    metadata: Path,
    *,
    runtime: Any,
    policy: Any,
    out: Path,
    junit: Path | None,
    na_values: str | None,
    single_table: dict[str, Any],
) -> tuple[Path, Any]:
    """``synthleak audit --relational METADATA.json``: each part a folder of tables
    (:func:`~synthleak.data.relational.load_relational`), audited by :func:`synthleak.audit`
    with relational parts."""
    from synthleak.pipeline import audit

    refuse_single_table_flags(single_table)
    if folders["synthetic"] is None:
        raise InputError(
            "--relational audits a release from its tables: give --synthetic DIR (a folder of "
            "one file per table); --generator, if given, names a relational generator for the "
            "person-level shadow-model game"
        )
    if options.generator is not None:
        from synthleak.generators.relational import make_relational_generator

        make_relational_generator(options.generator)  # a bad spec fails before any reading
    parts = load_relational_parts(metadata, folders, na_values=na_values)
    log = _logger()
    tables = parts["original"].schema.tables
    log(f"auditing {folders['original']}: relational, tables {', '.join(tables)}")
    result, paths = _write_audit(
        out,
        lambda: audit(
            parts["original"],
            synthetic=parts.get("synthetic"),
            control=parts.get("control"),
            options=options,
            runtime=runtime,
            policy=policy,
            log=log,
            sources={k: v or "" for k, v in folders.items()},
            command_line=command_line(),
        ),
    )
    log(f"report written: {paths['html']}")
    report_policy(result.policy, junit)
    return paths["html"], result.policy


BudgetOpt = Annotated[
    Budget,
    typer.Option(
        "--budget",
        help="Compute spent: quick, standard, paper, or auto (standard, with the shadow-model "
        "game sized to --max-time).",
    ),
]


class SelectorChoice(StrEnum):
    """``--selector``: the audit's selectors (``modes.AUDIT_SELECTORS``), plus ``top``
    (``mia --targets top:N``) for ``distance``, so that both commands take both names."""

    SCREEN = "screen"
    DISTANCE = "distance"
    TOP = "top"
    RARE = "rare"
    LOGLIK = "loglik"
    RARITY = "rarity"

    @property
    def api(self) -> TargetMethod:
        return TargetMethod.DISTANCE if self is SelectorChoice.TOP else TargetMethod(self.value)


SelectorOpt = Annotated[
    SelectorChoice,
    typer.Option(
        "--selector",
        help="How the shadow-model game picks its targets: screen (two-stage audit: a cheap "
        "shadow-model screen of the rarest records ranks them by measured risk, within the "
        "budget's time), distance or top (V_k, Meeus et al. 2023; as top:N in mia), rare, "
        "loglik or rarity (cell rarity, from the data alone).",
    ),
]
ShowRecordsOpt = Annotated[
    bool,
    typer.Option(
        "--show-records",
        help="Print the values of the most exposed records in the report (it then contains "
        "personal data; by default only row numbers are shown).",
    ),
]


@app.command("audit", rich_help_panel="Audit a release")
def audit_cmd(
    original: OriginalOpt,
    out_dir: Annotated[
        Path,
        typer.Option("--out-dir", help="Directory for report.html, report.json, report.md."),
    ],
    synthetic: SyntheticOpt = None,
    control: ControlOpt = None,
    generator: Annotated[
        str | None,
        typer.Option(
            "--generator",
            help="Generator spec; enables black-box shadow-model attacks. Beside --synthetic: "
            "the release's generator, also run --shadows times on halves of half of --control "
            "to attack the release itself. With --relational: a relational generator (sdv:hma, "
            "python:..., command:...) for the person-level shadow-model game.",
        ),
    ] = None,
    secret: SecretOpt = None,
    quasi_ids: QuasiIdsOpt = None,
    secret_tolerance: SecretToleranceOpt = None,
    tolerance_kind: ToleranceKindOpt = ToleranceKind.ABSOLUTE,
    secret_bins: SecretBinsOpt = None,
    budget: BudgetOpt = Budget.STANDARD,
    show_records: ShowRecordsOpt = False,
    claimed_epsilon: ClaimedEpsilonOpt = None,
    delta: DeltaOpt = 1e-5,
    neighbouring: NeighbouringOpt = Neighbouring.ADD_REMOVE,
    fail_on: FailOnOpt = None,
    policy: PolicyOpt = None,
    junit: JunitOpt = None,
    max_time: MaxTimeOpt = None,
    selector: SelectorOpt = SelectorChoice.SCREEN,
    keep: KeepOpt = None,
    workers: WorkersOpt = 1,
    cluster: ClusterOpt = None,
    seed: SeedOpt = 0,
    categorical: CategoricalOpt = None,
    continuous: ContinuousOpt = None,
    schema: SchemaOpt = None,
    na_values: NaValuesOpt = None,
    special_values: SpecialValuesOpt = None,
    relational: RelationalOpt = None,
    root: RootOpt = None,
    shadow_releases: ShadowReleasesOpt = None,
    shadows: Annotated[
        int | None,
        typer.Option(
            "--shadows",
            help=SHADOWS_HELP,
        ),
    ] = None,
) -> None:
    """Audit a synthetic release (or a generator) and write a report into --out-dir.

    Re-running the same command after an interruption resumes the shadow-model stages from
    OUT_DIR/run. With --fail-on or --policy the command exits with code 3 when the release
    fails the policy (after writing the report).
    """
    if original is None:  # typer requires --original; this narrows its type
        raise InputError("missing option --original: give the real records of the release")
    from synthleak.results import AuditOptions

    options = AuditOptions(  # checked here, before any file is read
        generator=generator,
        secret=secret,
        quasi_ids=tuple(split_list(quasi_ids)),
        secret_rule=secret_rule(secret_tolerance, tolerance_kind, secret_bins, secret=secret),
        budget=budget,
        seed=seed,
        show_records=show_records,
        claimed_epsilon=claimed_epsilon,
        delta=delta,
        neighbouring=neighbouring,
        max_time=max_time,
        selector=selector.api,
        special_values=tuple(special_values or ()),
        root=root,
        shadow_releases=None if shadow_releases is None else str(shadow_releases),
        n_shadows=shadows,
    )
    if shadow_releases is not None and not shadow_releases.is_dir():
        raise InputError(
            f"--shadow-releases {shadow_releases} is not a folder: give the folder of shadow "
            "releases (one sub-folder each, as the README describes)"
        )
    html, outcome = _run_audit(
        options,
        original=original,
        synthetic=synthetic,
        control=control,
        workers=workers,
        cluster=cluster,
        out=out_dir,
        fail_on=fail_on,
        policy_file=policy,
        junit=junit,
        keep=keep,
        categorical=categorical,
        continuous=continuous,
        schema=schema,
        na_values=na_values,
        relational=relational,
    )
    typer.echo(str(html))
    exit_for_policy(outcome)


@app.command("demo", rich_help_panel="Audit a release")
def demo_cmd(
    out_dir: Annotated[Path, typer.Option("--out-dir", help="Directory for the report.")] = Path(
        "synthleak-demo"
    ),
    generator: Annotated[
        str, typer.Option("--generator", help="Built-in generator to audit.")
    ] = "baynet:k=2",
    budget: BudgetOpt = Budget.QUICK,
    workers: WorkersOpt = 2,
    seed: SeedOpt = 0,
) -> None:
    """Audit a built-in generator on the bundled UCI Adult data and print the report path.

    The generator is fit on half of Adult's 48,842 records (the other half is the control
    set); the report goes into ``--out-dir`` (``synthleak-demo`` in the current folder by
    default), which the command names before it starts. A folder holding an earlier demo's
    finished work resumes it.
    """
    from synthleak.results import AuditOptions

    options = AuditOptions(generator=generator, secret="income", budget=budget, seed=seed)
    _check_out_dir(out_dir)
    resumed = (out_dir / "run").is_dir()
    typer.echo(
        f"synthleak: the demo writes its report into {out_dir.absolute()}"
        + (" (resuming the finished work there)" if resumed else "")
        + "; choose the folder with --out-dir",
        err=True,
    )
    html, _ = _run_audit(
        options,
        original="adult",
        synthetic=None,
        control=None,
        workers=workers,
        cluster=None,
        out=out_dir,
    )
    typer.echo(str(html.absolute()))


def result_from_run_dir(run_dir: Path) -> AuditResult:
    """An :class:`AuditResult` from a run directory (of ``audit``, ``mia`` or ``riskmap``)."""
    from synthleak.data.schema import Schema
    from synthleak.findings import audit_result_from
    from synthleak.results import AuditResult, load_result

    if not run_dir.is_dir():
        raise InputError(f"{run_dir} is not a directory: give the --run-dir of a finished run")
    report = run_dir / "report.json"
    path = report if report.exists() else run_dir / "result.json"
    if not path.exists():
        raise InputError(
            f"{run_dir} holds no finished result (no result.json or report.json): "
            "re-run the original command to finish it"
        )
    result = load_result(path)
    if isinstance(result, AuditResult):
        return result
    schema_file = run_dir / "schema.json"
    schema = Schema.from_json(schema_file) if schema_file.exists() else None
    if schema is None:
        raise InputError(f"{run_dir} has no schema.json: re-run the original command to finish it")
    from synthleak.cli.mia import EPSILON_FILE
    from synthleak.metrics.epsilon import EpsilonEstimate

    eps_file = run_dir / EPSILON_FILE  # the epsilon audit 'mia' printed, with its claim
    return audit_result_from(
        result,  # type: ignore[arg-type]
        schema=schema,
        source=str(run_dir),
        command_line=command_line(),
        epsilon=EpsilonEstimate.from_json(eps_file) if eps_file.exists() else None,
    )


@app.command("report", rich_help_panel="Audit a release")
def report_cmd(
    run_dir: Annotated[
        Path,
        typer.Argument(
            help="A finished run: the --run-dir of 'synthleak mia' or 'riskmap', or the "
            "--out-dir of 'audit'."
        ),
    ],
    out_dir: Annotated[
        Path | None,
        typer.Option("--out-dir", help="Directory for the report (default: RUN_DIR)."),
    ] = None,
) -> None:
    """Rebuild report.html, report.json and report.md from a run directory."""
    from synthleak.report import write_report

    target = out_dir or run_dir
    _check_out_dir(target)
    paths = write_report(result_from_run_dir(run_dir), target)
    typer.echo(str(paths["html"]))
