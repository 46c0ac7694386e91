"""``synthleak mia``: membership inference against a generator, as a shadow-modelling privacy game.

JSON output::

    {"config": {...},
     "targets": [{"row": int, "selected_by": str,
                  "attacks": {"query": {"auc": f, "auc_ci": [lo, hi], "accuracy": f,
                                        "tpr_at_fpr": {"0.1": f, "0.01": f}}, ...}}],
     "summary": {"query": {"auc_mean": f, "auc_sd": f}, ...},
     "summary_by_selector": {...}, "failures": {...}}

References
----------
Meeus et al. (2023), "Achilles' heels: vulnerable record identification in synthetic data
publishing", ESORICS, Sec. 2.3, 5.1 and 5.5, Tables 1-2.
"""

from __future__ import annotations

import json
import math
import warnings
from typing import Annotated, Any

import typer

from synthleak.cli.app import app
from synthleak.cli.common import (
    CategoricalOpt,
    ClusterOpt,
    ContinuousOpt,
    NaValuesOpt,
    OutOpt,
    OutputFormat,
    RunDirOpt,
    SchemaOpt,
    SeedOpt,
    WorkersOpt,
    emit,
    load_cli_data,
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


@app.command("mia")
def mia_cmd(
    data: Annotated[
        str,
        typer.Argument(
            help="CSV, CSV.GZ or Parquet file, or 'adult'/'adult-complete' (the full dataset Omega)."
        ),
    ],
    generator: Annotated[
        str, typer.Option("--generator", help="Generator spec, e.g. synthpop or baynet:k=2.")
    ],
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
        str,
        typer.Option(
            "--attacks",
            help="Comma-separated membership attacks (query, distance, groundhog, attention).",
        ),
    ] = "query,distance,groundhog",
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
    k: Annotated[
        int, typer.Option("--k", help="Neighbours of the vulnerability score V_k (top:N).")
    ] = 5,
    batch_size: Annotated[int, typer.Option("--batch-size", help="Datasets per work unit.")] = 50,
    workers: WorkersOpt = 1,
    cluster: ClusterOpt = None,
    run_dir: RunDirOpt = None,
    seed: SeedOpt = 0,
    fmt: Annotated[
        OutputFormat, typer.Option("--format", help="table or json.")
    ] = OutputFormat.TABLE,
    out: OutOpt = None,
    categorical: CategoricalOpt = None,
    continuous: ContinuousOpt = None,
    schema: SchemaOpt = None,
    na_values: NaValuesOpt = None,
) -> None:
    """Membership inference on target records of DATA against a generator (shadow modelling).

    Method: Meeus et al. (2023), Sec. 2.3 (game) and Sec. 5.1 (query-based attack).
    """
    if fmt is OutputFormat.CSV:
        raise InputError("mia writes --format table or json, not csv")
    if workers < 1:
        raise InputError(f"--workers must be at least 1, got {workers}")
    attack_names = split_list(attacks)
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
        emit(to_json(doc) if fmt is OutputFormat.JSON else render_table(doc), out)
    finally:
        if client is not None:
            client.close()
