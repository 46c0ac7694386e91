"""``synthleak compare``: audit candidate releases on the same draws and compare them."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from synthleak.cli.app import app
from synthleak.cli.audit_cmds import BudgetOpt, _check_out_dir, _has_finished_work, _logger
from synthleak.cli.common import (
    CategoricalOpt,
    ContinuousOpt,
    ControlOpt,
    FailOnOpt,
    KeepOpt,
    NaValuesOpt,
    OriginalOpt,
    PolicyOpt,
    QuasiIdsOpt,
    RelationalOpt,
    RootOpt,
    SchemaOpt,
    SecretOpt,
    SeedOpt,
    ShadowReleasesOpt,
    SpecialValuesOpt,
    WorkersOpt,
    load_cli_policy,
    load_relational_parts,
    make_runtime,
    read_cli_parts,
    refuse_root_alone,
    refuse_single_table_flags,
    split_list,
)
from synthleak.errors import InputError
from synthleak.modes import Budget

if TYPE_CHECKING:
    from synthleak.comparison import ComparisonResult
    from synthleak.data.relational import RelationalData
    from synthleak.policy import Policy
    from synthleak.results import AuditOptions
    from synthleak.runtime import Runtime

#: Exit code when no candidate passes the policy (as ``audit``'s failed policy).
NONE_PASSES = 3


def parse_releases(values: list[str]) -> dict[str, str]:
    """``NAME=PATH`` options as ``{name: path}`` (names unique, both sides non-empty)."""
    out: dict[str, str] = {}
    for v in values:
        name, eq, path = v.partition("=")
        name, path = name.strip(), path.strip()
        if not eq or not name or not path:
            raise InputError(f"--release {v!r}: write it as NAME=PATH (e.g. ctgan=ctgan.csv)")
        if name in out:
            raise InputError(f"--release names {name!r} twice: give each candidate its own name")
        out[name] = path
    return out


@app.command("compare", rich_help_panel="Audit a release")
def compare_cmd(
    original: OriginalOpt,
    out_dir: Annotated[
        Path,
        typer.Option(
            "--out-dir",
            help="Directory for comparison.html, .json, .md and every candidate's report.",
        ),
    ],
    control: ControlOpt = None,
    release: Annotated[
        list[str] | None,
        typer.Option(
            "--release",
            help="A candidate release as NAME=PATH (repeat the option). Names NAME@seedN mark "
            "candidates that differ only by seed.",
        ),
    ] = None,
    generator: Annotated[
        list[str] | None,
        typer.Option(
            "--generator",
            help="A generator to fit on --original, with a grid of values "
            "(privbayes:epsilon=1,4,10; seed=0,1,2 gives one candidate per seed); with "
            "--relational a relational generator (sdv:hma, python:..., command:...). Repeatable.",
        ),
    ] = None,
    secret: SecretOpt = None,
    quasi_ids: QuasiIdsOpt = None,
    budget: BudgetOpt = Budget.STANDARD,
    fail_on: FailOnOpt = None,
    policy: PolicyOpt = None,
    keep: KeepOpt = None,
    shadow_releases: ShadowReleasesOpt = None,
    workers: WorkersOpt = 1,
    seed: SeedOpt = 0,
    categorical: CategoricalOpt = None,
    continuous: ContinuousOpt = None,
    schema: SchemaOpt = None,
    na_values: NaValuesOpt = None,
    special_values: SpecialValuesOpt = None,
    relational: RelationalOpt = None,
    root: RootOpt = None,
) -> None:
    """Compare candidate releases of --original: every candidate audited with the same draws,
    paired differences with intervals, a privacy-utility frontier, the Article 29 criteria.

    With --policy or --fail-on the passing candidate with the best utility is recommended, and
    the command exits with code 3 when no candidate passes (after writing the reports).

    With --relational METADATA.json, --original, --control and every --release are folders of
    one file per table: each candidate is audited as 'audit --relational' audits one, and the
    candidates are compared person by person.
    """
    if original is None:  # typer requires --original; this narrows its type
        raise InputError("missing option --original: give the real records of the releases")
    if control is None:
        raise InputError(
            "missing option --control: compare measures every candidate against real records "
            "that no candidate's generator saw"
        )
    # the workers import the library while this process imports it and reads the files
    runtime = make_runtime(workers=workers, run_dir=out_dir / "run")
    from synthleak.comparison import expand_grid
    from synthleak.generators import make_generator
    from synthleak.results import AuditOptions

    releases = parse_releases(release or [])
    specs = list(generator or [])
    if relational is not None:
        refuse_single_table_flags(
            {"--categorical": categorical, "--continuous": continuous, "--schema": schema}
        )
    else:
        refuse_root_alone(root)
    n = len(releases) + sum(len(expand_grid(s)) for s in specs)
    if n < 2:
        raise InputError(
            f"compare needs at least two candidates (--release NAME=PATH or --generator SPEC); "
            f"got {n}"
        )
    from synthleak.generators.relational import make_relational_generator

    make: Callable[[str], object] = make_generator
    if relational is not None:
        make = make_relational_generator
    for s in specs:
        for one, _ in expand_grid(s):
            make(one)  # an unknown or bad spec fails before any file is read
    options = AuditOptions(
        secret=secret,
        quasi_ids=tuple(split_list(quasi_ids)),
        budget=budget,
        seed=seed,
        keep=tuple(split_list(keep)),
        special_values=tuple(special_values or ()),
        shadow_releases=None if shadow_releases is None else str(shadow_releases),
        root=root,
    )
    _check_out_dir(out_dir)
    pol = load_cli_policy(fail_on, policy, None)
    sources = {"original": original, "control": control}
    if relational is not None:
        _compare_relational(
            relational,
            sources,
            releases,
            specs,
            options=options,
            policy=pol,
            out_dir=out_dir,
            runtime=runtime,
            na_values=na_values,
        )
        return
    enc = read_cli_parts(
        {**sources, **{f"release:{k}": v for k, v in releases.items()}},
        categorical=categorical,
        continuous=continuous,
        schema=schema,
        na_values=na_values,
        keep=keep,
        min_rows=2,
        special_values=options.special_values,
    )
    _compare_and_write(
        out_dir,
        _logger(),
        runtime,
        original=enc.frames["original"],
        control=enc.frames["control"],
        releases={k: enc.frames[f"release:{k}"] for k in releases},
        generator_specs=specs,
        policy=pol,
        options=options,
        schema=enc.schema,
        sources={**sources, **releases},
    )


def _read_relational_candidates(
    metadata: Path, sources: dict[str, str], releases: dict[str, str], na_values: str | None
) -> tuple[dict[str, RelationalData], dict[str, RelationalData]]:
    """The relational parts of ``compare --relational``: the original's and control's tables
    and each candidate's, each folder read and validated; an error names the option of the
    folder at fault."""
    parts: dict[str, RelationalData] = {}
    for role, folder in sources.items():
        parts[role] = _read_folder(metadata, f"--{role}", folder, na_values)
    cands = {
        name: _read_folder(metadata, f"--release {name}=", folder, na_values)
        for name, folder in releases.items()
    }
    return parts, cands


def _read_folder(metadata: Path, option: str, folder: str, na_values: str | None) -> RelationalData:
    try:
        return load_relational_parts(metadata, {"part": folder}, na_values=na_values)["part"]
    except InputError as exc:
        sep = "" if option.endswith("=") else " "
        raise InputError(
            f"{option}{sep}{folder}: {exc}" if folder not in str(exc) else str(exc),
            parameter=exc.parameter,
        ) from None


def _compare_relational(
    metadata: Path,
    sources: dict[str, str],
    releases: dict[str, str],
    specs: list[str],
    *,
    options: AuditOptions,
    policy: Policy | None,
    out_dir: Path,
    runtime: Runtime,
    na_values: str | None,
) -> None:
    """``compare --relational``: every part a folder of tables, compared person by person
    (:func:`synthleak.comparison.compare` with relational parts; ``specs`` relational
    generators fitted on the original's persons)."""
    parts, cands = _read_relational_candidates(metadata, sources, releases, na_values)
    log = _logger()
    tables = ", ".join(parts["original"].schema.tables)
    log(f"comparing {len(cands)} relational candidates: tables {tables}")
    _compare_and_write(
        out_dir,
        log,
        runtime,
        original=parts["original"],
        control=parts["control"],
        releases=cands,
        generator_specs=specs,
        policy=policy,
        options=options,
        sources={**sources, **releases},
    )


def _compare_and_write(
    out_dir: Path, log: Callable[[str], None], runtime: Runtime, **parts: Any
) -> None:
    """:func:`synthleak.comparison.compare` of ``parts`` (its arguments) with its candidates'
    stages kept in ``out_dir/run``, and the reports written; a new ``out_dir`` is removed
    again when the comparison fails before any stage finished."""
    from synthleak.comparison import compare
    from synthleak.report.comparison import write_comparison_report

    created = not out_dir.exists()
    try:
        result = compare(runtime=runtime, log=log, **parts)
        paths = write_comparison_report(result, out_dir, runtime=runtime)
    except BaseException:
        if created and out_dir.exists() and not _has_finished_work(out_dir / "run"):
            shutil.rmtree(out_dir, ignore_errors=True)
        raise
    _report_written(log, paths["html"], result)


def _report_written(log: Callable[[str], None], html: Path, result: ComparisonResult) -> None:
    """Say where the comparison is and what it recommends; exit 3 when no candidate passes."""
    log(f"comparison written: {html}")
    typer.echo(str(html))
    rec = result.recommendation
    if rec is not None:
        typer.echo(
            f"recommended: {rec.best} ({rec.reason})" if rec.best else f"none: {rec.reason}",
            err=True,
        )
        if not rec.passing:
            raise typer.Exit(NONE_PASSES)
