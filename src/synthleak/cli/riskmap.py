"""``synthleak riskmap``: a membership AUC for every record of a private dataset, plus validation.

Output (``--out`` ending in ``.json`` or ``.csv``, written atomically)::

    {"config": {...},
     "records": [{"row": int, "auc": f, "auc_ci_low": f, "auc_ci_high": f,
                  "auc_query": f, "auc_query_ci_low": f, "auc_query_ci_high": f, ...,
                  "vulnerability": f, "rare_value": f, "log_likelihood": f}, ...],
     "summary": {"auc_mean": f, "auc_sd": f, "per_attack": {...},
                 "validation": {"vulnerability": {"spearman": f, "spearman_ci": [lo, hi],
                                                  "precision_at_10": f}, "rare_value": ..., ...}},
     "failures": {...}, "timings": {...}}

The CSV has the ``records`` columns, one line per record. ``auc`` is the best attack's AUC for
that record. With ``--run-dir`` the JSON document is also written there (``result.json``).

References
----------
Meeus et al. (2023), "Achilles' heels: vulnerable record identification in synthetic data
publishing", ESORICS, Sec. 3, 4 and 5.2, Table 1. Carlini et al. (2022), "Membership inference
attacks from first principles" (shared shadow models).
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Annotated

import typer

from synthleak.cli.app import app
from synthleak.cli.common import (
    CategoricalOpt,
    ClusterOpt,
    ContinuousOpt,
    NaValuesOpt,
    RunDirOpt,
    SchemaOpt,
    SeedOpt,
    WorkersOpt,
    atomic_write,
    check_out_path,
    load_cli_data,
    split_list,
    to_json,
)
from synthleak.errors import BaselineWarning, InputError
from synthleak.games.riskmap import RiskMap


@app.command("riskmap")
def riskmap_cmd(
    data: Annotated[
        str, typer.Argument(help="CSV, CSV.GZ or Parquet file, or 'adult'/'adult-complete'.")
    ],
    generator: Annotated[
        str, typer.Option("--generator", help="Generator spec, e.g. baynet or synthpop.")
    ],
    out: Annotated[Path, typer.Option("--out", help="Output file: .json or .csv.")],
    n: Annotated[
        int, typer.Option("--n", help="Records of the private dataset D (all audited).")
    ] = 1000,
    m: Annotated[
        int | None, typer.Option("--m", help="Synthetic records per dataset (default n).")
    ] = None,
    population: Annotated[
        int | None,
        typer.Option(
            "--population",
            help="Draw D and the fillers from a random P-record population (LiRA-style).",
        ),
    ] = None,
    shadows: Annotated[int, typer.Option("--shadows", help="Shadow datasets (attacker).")] = 200,
    tests: Annotated[int, typer.Option("--tests", help="Test datasets (challenger).")] = 100,
    attacks: Annotated[
        str, typer.Option("--attacks", help="query, distance or both (comma-separated).")
    ] = "query,distance",
    queries: Annotated[
        int, typer.Option("--queries", help="Random counting queries per record (query attack).")
    ] = 1000,
    trees: Annotated[
        int, typer.Option("--trees", help="Trees of each record's random forest.")
    ] = 100,
    k: Annotated[int, typer.Option("--k", help="Neighbours of the vulnerability score V_k.")] = 5,
    boot: Annotated[
        int, typer.Option("--boot", help="Bootstrap resamples of the AUC and Spearman CIs.")
    ] = 1000,
    chunk: Annotated[int, typer.Option("--chunk", help="Records per attack work unit.")] = 20,
    batch_size: Annotated[
        int, typer.Option("--batch-size", help="Datasets per generation work unit.")
    ] = 10,
    workers: WorkersOpt = 1,
    cluster: ClusterOpt = None,
    run_dir: RunDirOpt = None,
    seed: SeedOpt = 0,
    categorical: CategoricalOpt = None,
    continuous: ContinuousOpt = None,
    schema: SchemaOpt = None,
    na_values: NaValuesOpt = None,
) -> None:
    """Membership AUC (bootstrap CI) of every record of an n-record sample of DATA, with V_k validation.

    Every shadow/test dataset holds a random half of the n records plus random fillers from the
    rest of DATA (or of a P-record population with --population), so each record is IN about
    half the datasets; one shadow pool and one test pool serve all records (after Carlini et al.
    (2022); scores of Meeus et al. (2023), Sec. 4 and 5.2).
    """
    suffix = out.suffix.lower()
    if suffix not in (".json", ".csv"):
        raise InputError(f"--out {out} must end in .json or .csv")
    check_out_path(out)
    game = RiskMap(
        generator,
        n=n,
        m=m,
        population=population,
        n_shadow=shadows,
        n_test=tests,
        attacks=split_list(attacks),
        n_queries=queries,
        n_estimators=trees,
        k=k,
        n_boot=boot,
        chunk=chunk,
        batch_size=batch_size,
        workers=workers,
        cluster=None,
        run_dir=run_dir,
        progress=True,
    )
    loaded = load_cli_data(
        data, categorical=categorical, continuous=continuous, schema=schema, na_values=na_values
    )
    game._validate(loaded.table)  # every input error before any work (or cluster connection)
    client = None
    if cluster is not None:
        from synthleak.runtime.executor import connect_cluster

        client = connect_cluster(cluster, timeout=5.0)
        game.cluster = client
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", BaselineWarning)
            result = game.run(loaded.table, seed=seed)
    finally:
        if client is not None:
            client.close()
    fails = result.failures
    if fails.get("failed_datasets"):
        typer.echo(
            f"synthleak: warning: the generator failed on {fails['failed_datasets']} of "
            f"{fails['total_datasets']} datasets (dropped)",
            err=True,
        )
    atomic_write(out, to_json(result.to_dict()) + "\n" if suffix == ".json" else result.to_csv())
    v = result.summary.get("validation", {})
    vk = v.get("vulnerability", {})
    typer.echo(
        f"risk map of {len(result.rows)} records written to {out}: mean AUC {result.summary.get('auc_mean', float('nan')):.3f}; "
        f"Spearman(V_k, AUC) {vk.get('spearman', float('nan')):.3f}, precision@10 {vk.get('precision_at_10', float('nan')):.2f}",
        err=True,
    )
