"""``synthleak mia``: membership inference, in two forms.

Black-box (shadow modelling against a generator): ``synthleak mia DATA --generator SPEC ...``::

    {"config": {...},
     "targets": [{"row": int, "selected_by": str,
                  "attacks": {"query": {"auc": f, "auc_ci": [lo, hi], "accuracy": f,
                                        "tpr_at_fpr": {"0.1": f, "0.01": f}}, ...}}],
     "summary": {"query": {"auc_mean": f, "auc_sd": f}, ...},
     "summary_by_selector": {...}, "failures": {...}}

No-box (a release without its generator):
``synthleak mia --original ORI --synthetic SYN --control CTRL [--attacks names] [--rows i,j]``::

    {"mode": "no-box",
     "attacks": {"<name>": {"auc": f, "auc_ci": [lo, hi],
                            "tpr_at_fpr": {"0.1": f, "0.01": f, "0.001": f | null}}},
     "best": {"attack": str, "auc": f, "auc_ci": [lo, hi], "selection_auc": f,
              "selected_on": int, "evaluated_on": int},
     "records": [{"row": int, "v_k": f, "selected_by": str,
                  "scores": {"<name>": {"score": f, "percentile": f, "p_value": f}}}],
     "copies": {...}, "sizes": {...}, "notes": [...]}

References
----------
Meeus et al. (2023), Sec. 2.3, Sec. 5.1, Sec. 5.5, Tables 1-2 (black-box game).
See :mod:`synthleak.games.nobox` for the no-box game.
"""

from __future__ import annotations

import json
import math
import warnings
from enum import Enum
from pathlib import Path
from typing import Annotated, Any

import click
import typer

from synthleak.cli.app import app
from synthleak.cli.common import (
    CategoricalOpt,
    ClusterOpt,
    ContinuousOpt,
    NaValuesOpt,
    OutOpt,
    RunDirOpt,
    SchemaOpt,
    SeedOpt,
    WorkersOpt,
    check_out_path,
    emit,
    load_cli_data,
    load_cli_tables,
    split_list,
    to_json,
)
from synthleak.errors import BaselineWarning, InputError
from synthleak.games.membership import MembershipGame, PoolMode, parse_targets


def _fmt(x: Any) -> str:
    return "nan" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.3f}"


def render_table(doc: dict[str, Any]) -> str:
    """A plain-text table: one line per target and attack, then the summary."""
    attacks = doc["config"]["attacks"]
    lines = [
        f"membership inference: generator {doc['config']['generator']}, n={doc['config']['n']}, "
        f"m={doc['config']['m']}, shadows={doc['config']['n_shadow']}, tests={doc['config']['n_test']}, "
        f"pool={doc['config']['pool']}",
        f"{'row':>8}  {'selected_by':<16} {'attack':<10} {'AUC':>6}  {'95% CI':<13} {'acc':>6} {'TPR@.1':>7} {'TPR@.01':>8}",
    ]
    for t in doc["targets"]:
        for a in attacks:
            o = t["attacks"].get(a)
            if o is None:
                continue
            ci = f"{_fmt(o['auc_ci'][0])}-{_fmt(o['auc_ci'][1])}"
            lines.append(
                f"{t['row']:>8}  {t['selected_by']:<16} {a:<10} {_fmt(o['auc']):>6}  {ci:<13} "
                f"{_fmt(o['accuracy']):>6} {_fmt(o['tpr_at_fpr']['0.1']):>7} {_fmt(o['tpr_at_fpr']['0.01']):>8}"
            )
    lines.append("summary (mean ± s.d. of AUC across targets):")
    for a, s in doc["summary"].items():
        lines.append(
            f"  {a:<10} {_fmt(s['auc_mean'])} ± {_fmt(s['auc_sd'])}  ({s['n_targets']} targets)"
        )
    fails = doc.get("failures", {})
    if fails.get("failed_datasets"):
        lines.append(
            f"generator failures: {fails['failed_datasets']} of {fails['total_datasets']} datasets dropped"
        )
    return "\n".join(lines)


class MiaFormat(str, Enum):
    """What ``synthleak mia`` writes."""

    TABLE = "table"
    JSON = "json"


BLACK_BOX_FORM = "synthleak mia DATA --generator SPEC"
NO_BOX_FORM = "synthleak mia --original ORI --synthetic SYN --control CTRL"
#: options of one form only (flag, parameter name)
_BLACK_BOX_ONLY = (
    ("--targets", "targets"),
    ("--n", "n"),
    ("--m", "m"),
    ("--shadows", "shadows"),
    ("--tests", "tests"),
    ("--queries", "queries"),
    ("--pool", "pool"),
    ("--aux-size", "aux_size"),
    ("--test-size", "test_size"),
    ("--batch-size", "batch_size"),
    ("--run-dir", "run_dir"),
    ("--cluster", "cluster"),
)
_NO_BOX_ONLY = (
    ("--rows", "rows"),
    ("--n-members", "n_members"),
    ("--n-non-members", "n_non_members"),
    ("--n-exposed", "n_exposed"),
)


def _given(ctx: click.Context, name: str) -> bool:
    src = ctx.get_parameter_source(name)
    return src is not None and src.name not in ("DEFAULT", "DEFAULT_MAP")


def _parse_rows(value: str | None) -> list[int]:
    rows = []
    for item in split_list(value):
        try:
            rows.append(int(item))
        except ValueError:
            raise InputError(
                f"--rows takes comma-separated 0-based row numbers of --original, got {item!r}"
            ) from None
    return rows


def render_nobox_table(doc: dict[str, Any]) -> str:
    """Plain text: one line per attack, the strongest attack, the exposed records, copies."""
    sz = doc["sizes"]
    lines = [
        f"no-box membership inference: {sz['members']} members, {sz['non_members']} "
        f"non-members, reference {sz['reference']}, synthetic {sz['synthetic']}",
        f"{'attack':<14} {'AUC':>6}  {'95% CI':<13} {'TPR@.1':>7} {'TPR@.01':>8} {'TPR@.001':>9}",
    ]
    for name, o in doc["attacks"].items():
        t = o["tpr_at_fpr"]
        ci = f"{_fmt(o['auc_ci'][0])}-{_fmt(o['auc_ci'][1])}"
        lines.append(
            f"{name:<14} {_fmt(o['auc']):>6}  {ci:<13} {_fmt(t['0.1']):>7} "
            f"{_fmt(t['0.01']):>8} {_fmt(t['0.001']):>9}"
        )
    b = doc["best"]
    if b:
        lines.append(
            f"strongest: {b['attack']}, AUC {_fmt(b['auc'])} "
            f"(95% CI {_fmt(b['auc_ci'][0])}-{_fmt(b['auc_ci'][1])}) on {b['evaluated_on']} "
            f"held-out records; chosen on {b['selected_on']} others (AUC there "
            f"{_fmt(b['selection_auc'])})"
        )
    if doc["records"]:
        lines.append("exposed records (percentile of the score among non-members):")
        for r in doc["records"]:
            parts = ", ".join(f"{a} {v['percentile']:.1f}" for a, v in r["scores"].items())
            lines.append(f"  row {r['row']:>7} ({r['selected_by']}, V_k {_fmt(r['v_k'])}): {parts}")
    c = doc.get("copies")
    if c:
        e = c["exact"]
        ctl = e["control_in_original"]
        lines.append(
            f"exact copies: {e['synthetic_in_original']['rate']:.4f} of synthetic rows equal a "
            f"training row ({e['n_copied_training_rows']} training rows copied); chance rate "
            + (f"{ctl['rate']:.4f} (control rows in the training data)" if ctl else "n/a")
        )
        nr = c["near"]
        if nr["synthetic"]:
            lines.append(
                f"near copies: {nr['synthetic']['rate']:.4f} of synthetic rows against "
                f"{nr['baseline']['rate']:.4f} of real non-members ({nr['rule']})"
            )
    for note in doc.get("notes", []):
        lines.append(f"note: {note}")
    return "\n".join(lines)


def _nobox(
    *,
    original: str,
    synthetic: str,
    control: str,
    attack_names: list[str],
    rows: list[int],
    n_members: int | None,
    n_non_members: int | None,
    n_exposed: int,
    k: int,
    workers: int,
    seed: int,
    fmt: MiaFormat,
    out: Path | None,
    categorical: str | None,
    continuous: str | None,
    schema: Path | None,
    na_values: str | None,
) -> None:
    from synthleak.games.base import Release
    from synthleak.games.nobox import DEFAULT_ATTACKS, NoBoxMembershipGame
    from synthleak.runtime import Runtime

    if out is not None:
        check_out_path(out)
    sch, loaded = load_cli_tables(
        {"original": original, "synthetic": synthetic, "control": control},
        categorical=categorical,
        continuous=continuous,
        schema=schema,
        na_values=na_values,
    )
    game = NoBoxMembershipGame(
        attacks=tuple(attack_names) or DEFAULT_ATTACKS,
        n_members=n_members,
        n_non_members=n_non_members,
        rows=tuple(rows),
        n_exposed=n_exposed,
        k=k,
    )
    release = Release(
        loaded["original"].frame, loaded["synthetic"].frame, loaded["control"].frame, sch
    )
    result = game.run(release, seed=seed, runtime=Runtime(workers=workers, progress=True))
    doc = json.loads(to_json(result.summary()))
    emit(to_json(doc) if fmt is MiaFormat.JSON else render_nobox_table(doc), out)


@app.command("mia")
def mia_cmd(
    ctx: typer.Context,
    data: Annotated[
        str | None,
        typer.Argument(
            help="Black-box form: CSV, CSV.GZ or Parquet file, or 'adult'/'adult-complete' "
            "(the full dataset Omega)."
        ),
    ] = None,
    generator: Annotated[
        str | None,
        typer.Option("--generator", help="Black-box form: generator spec, e.g. synthpop."),
    ] = None,
    original: Annotated[
        str | None,
        typer.Option("--original", help="No-box form: the real records the release was made from."),
    ] = None,
    synthetic: Annotated[
        str | None, typer.Option("--synthetic", help="No-box form: the released synthetic data.")
    ] = None,
    control: Annotated[
        str | None,
        typer.Option(
            "--control",
            help="No-box form: real records of the same population the generator never saw.",
        ),
    ] = None,
    rows: Annotated[
        str | None,
        typer.Option("--rows", help="No-box form: rows of --original to report, e.g. 3,17."),
    ] = None,
    n_members: Annotated[
        int | None,
        typer.Option("--n-members", help="No-box form: original records scored as members."),
    ] = None,
    n_non_members: Annotated[
        int | None,
        typer.Option(
            "--n-non-members",
            help="No-box form: control records scored as non-members (default half).",
        ),
    ] = None,
    n_exposed: Annotated[
        int,
        typer.Option("--n-exposed", help="No-box form: most isolated records (V_k) to report."),
    ] = 10,
    targets: Annotated[
        str,
        typer.Option(
            "--targets",
            help="top:N (distance V_k), rare:N, loglik:N, random:N or rows:i,j; join several with '+'.",
        ),
    ] = "top:10",
    n: Annotated[int, typer.Option("--n", help="Training records per dataset |D|.")] = 1000,
    m: Annotated[int, typer.Option("--m", help="Synthetic records released |D^s|.")] = 1000,
    shadows: Annotated[int, typer.Option("--shadows", help="Shadow datasets (attacker).")] = 4000,
    tests: Annotated[int, typer.Option("--tests", help="Test datasets (challenger).")] = 200,
    attacks: Annotated[
        str | None,
        typer.Option(
            "--attacks",
            help="Comma-separated attack names. Black-box: query, distance, groundhog, attention "
            "(default query,distance,groundhog). No-box: dcr, dcr-diff, domias, neighbourhood, "
            "classifier (default all).",
        ),
    ] = None,
    queries: Annotated[
        int, typer.Option("--queries", help="Counting queries N of the query attack.")
    ] = 100_000,
    pool: Annotated[
        PoolMode,
        typer.Option("--pool", help="shared: one pool for all targets; single: one per target."),
    ] = PoolMode.SHARED,
    aux_size: Annotated[
        int | None, typer.Option("--aux-size", help="|D_aux| (default as Table 1).")
    ] = None,
    test_size: Annotated[
        int | None, typer.Option("--test-size", help="|D_test| (default as Table 1).")
    ] = None,
    k: Annotated[int, typer.Option("--k", help="Neighbours of the vulnerability score V_k.")] = 5,
    batch_size: Annotated[int, typer.Option("--batch-size", help="Datasets per work unit.")] = 50,
    workers: WorkersOpt = 1,
    cluster: ClusterOpt = None,
    run_dir: RunDirOpt = None,
    seed: SeedOpt = 0,
    fmt: Annotated[MiaFormat, typer.Option("--format", help="table or json.")] = MiaFormat.TABLE,
    out: OutOpt = None,
    categorical: CategoricalOpt = None,
    continuous: ContinuousOpt = None,
    schema: SchemaOpt = None,
    na_values: NaValuesOpt = None,
) -> None:
    """Membership inference: against a generator (DATA --generator SPEC, shadow modelling) or
    against a release without its generator (--original, --synthetic, --control)."""
    nobox_given = [
        f
        for f, p in (("--original", original), ("--synthetic", synthetic), ("--control", control))
        if p is not None
    ]
    if nobox_given:
        mixed = (["DATA"] if data is not None else []) + (
            ["--generator"] if generator is not None else []
        )
        mixed += [flag for flag, name in _BLACK_BOX_ONLY if _given(ctx, name)]
        if mixed:
            raise InputError(
                f"{', '.join(mixed)} belong to the black-box form ({BLACK_BOX_FORM}); "
                f"the no-box form is {NO_BOX_FORM}: use one form"
            )
        missing = [f for f in ("--original", "--synthetic", "--control") if f not in nobox_given]
        if missing:
            raise InputError(f"the no-box form needs {', '.join(missing)} too: {NO_BOX_FORM}")
        if workers < 1:
            raise InputError(f"--workers must be at least 1, got {workers}")
        _nobox(
            original=original,  # type: ignore[arg-type]
            synthetic=synthetic,  # type: ignore[arg-type]
            control=control,  # type: ignore[arg-type]
            attack_names=split_list(attacks),
            rows=_parse_rows(rows),
            n_members=n_members,
            n_non_members=n_non_members,
            n_exposed=n_exposed,
            k=k,
            workers=workers,
            seed=seed,
            fmt=fmt,
            out=out,
            categorical=categorical,
            continuous=continuous,
            schema=schema,
            na_values=na_values,
        )
        return
    nobox_only = [flag for flag, name in _NO_BOX_ONLY if _given(ctx, name)]
    if nobox_only:
        raise InputError(
            f"{', '.join(nobox_only)} belong to the no-box form ({NO_BOX_FORM}); "
            f"the black-box form is {BLACK_BOX_FORM}: use one form"
        )
    if data is None or generator is None:
        raise InputError(
            f"give DATA and --generator ({BLACK_BOX_FORM}) or --original, --synthetic and "
            f"--control ({NO_BOX_FORM})"
        )
    if workers < 1:
        raise InputError(f"--workers must be at least 1, got {workers}")
    attack_names = split_list(attacks) or ["query", "distance", "groundhog"]
    if queries < 1:
        raise InputError(f"--queries must be at least 1, got {queries}")
    client = None
    if cluster is not None:  # fail fast on an unreachable scheduler, before any work
        from synthleak.runtime.executor import connect_cluster

        client = connect_cluster(cluster, timeout=5.0)
    try:
        loaded = load_cli_data(
            data, categorical=categorical, continuous=continuous, schema=schema, na_values=na_values
        )
        omega = loaded.table
        rows, selected_by = parse_targets(targets, omega, seed=seed, k=k)
        params: dict[str, dict[str, Any]] = {"query": {"n_queries": queries}}
        game = MembershipGame(
            generator,
            n=n,
            m=m,
            n_shadow=shadows,
            n_test=tests,
            attacks=attack_names,
            attack_params={a: params[a] for a in attack_names if a in params},
            pool=pool,
            aux_size=aux_size,
            test_size=test_size,
            batch_size=batch_size,
            workers=workers,
            cluster=client,
            run_dir=run_dir,
            progress=True,
        )
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", BaselineWarning)
            result = game.run(omega, rows, seed=seed, selected_by=selected_by)
        doc = json.loads(to_json(result.to_dict()))
        n_base = sum(1 for w in caught if issubclass(w.category, BaselineWarning))
        if n_base:
            typer.echo(
                f"synthleak: warning: {n_base} target/attack pair(s) did no better than a random guess "
                "(AUC 95% CI covers 0.5)",
                err=True,
            )
        fails = doc.get("failures", {})
        if fails.get("failed_datasets"):
            typer.echo(
                f"synthleak: warning: the generator failed on {fails['failed_datasets']} of "
                f"{fails['total_datasets']} datasets (dropped): "
                + "; ".join(list(fails.get("messages", {}))[:2]),
                err=True,
            )
        emit(to_json(doc) if fmt is MiaFormat.JSON else render_table(doc), out)
    finally:
        if client is not None:
            client.close()
