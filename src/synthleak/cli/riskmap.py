"""``synthleak riskmap``: a membership AUC for every record of a private dataset, plus validation.

Output (``--out`` ending in ``.json`` or ``.csv``, written atomically): the JSON form of
:class:`~synthleak.games.riskmap.RiskMapResult` (config, rows, per-attack AUC arrays
``[value, ci_low, ci_high]`` per record, selector scores, validation with Spearman and top-10
precision of every selector, failures, timings), or one CSV line per record with the columns of
``RiskMapResult.to_frame()``: ``row, auc, auc_ci_low, auc_ci_high, auc_<attack>..., vulnerability,
rare_value, log_likelihood``. ``auc`` is the best attack's AUC for that record. With
``--run-dir`` the JSON document is also written there (``result.json``).

References
----------
Meeus et al. (2023), Sec. 3, 4 and 5.2, Table 1; Carlini et al. (2022) (shared shadow models).
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Annotated

import typer

from synthleak.cli.app import app
from synthleak.cli.common import (
    SHADOWS_HELP,
    BatchSizeOpt,
    CategoricalOpt,
    ClusterOpt,
    ContinuousOpt,
    GameTrainSizeOpt,
    KOpt,
    NaValuesOpt,
    NQueriesOpt,
    RunDirOpt,
    SchemaOpt,
    SeedOpt,
    SpecialValuesOpt,
    SyntheticSizeOpt,
    WorkersOpt,
    atomic_write,
    check_out_path,
    load_cli_data,
    make_runtime,
    parse_sizes,
    split_list,
)
from synthleak.errors import BaselineWarning, InputError


@app.command("riskmap", rich_help_panel="Privacy games (one attack family each)")
def riskmap_cmd(
    data: Annotated[
        str, typer.Argument(help="CSV, CSV.GZ or Parquet file, or 'adult'/'adult-complete'.")
    ],
    generator: Annotated[
        str, typer.Option("--generator", help="Generator spec, e.g. baynet or synthpop.")
    ],
    out: Annotated[Path, typer.Option("--out", help="Output file: .json or .csv.")],
    train_size: GameTrainSizeOpt = 1000,
    synthetic_size: SyntheticSizeOpt = None,
    population: Annotated[
        int | None,
        typer.Option(
            "--population",
            help="Draw D and the fillers from a random P-record population (LiRA-style).",
        ),
    ] = None,
    shadows: Annotated[int, typer.Option("--shadows", help=SHADOWS_HELP)] = 200,
    tests: Annotated[int, typer.Option("--tests", help="Test datasets (challenger).")] = 100,
    attacks: Annotated[
        str, typer.Option("--attacks", help="Membership attacks, comma-separated.")
    ] = "query,distance",
    n_queries: NQueriesOpt = 1000,
    n_trees: Annotated[
        int, typer.Option("--n-trees", help="Trees of each record's random forest.")
    ] = 100,
    k: KOpt = 5,
    n_boot: Annotated[
        int, typer.Option("--n-boot", help="Bootstrap resamples of the AUC and Spearman CIs.")
    ] = 1000,
    chunk: Annotated[int, typer.Option("--chunk", help="Records per attack work unit.")] = 20,
    batch_size: BatchSizeOpt = 10,
    workers: WorkersOpt = 1,
    cluster: ClusterOpt = None,
    run_dir: RunDirOpt = None,
    seed: SeedOpt = 0,
    categorical: CategoricalOpt = None,
    continuous: ContinuousOpt = None,
    schema: SchemaOpt = None,
    na_values: NaValuesOpt = None,
    special_values: SpecialValuesOpt = None,
) -> None:
    """Membership AUC (bootstrap CI) of every record of a sample of DATA, with V_k validation.

    Every shadow/test dataset holds a random half of the sampled records plus random fillers from
    the rest of DATA (or of a P-record population with --population), so each record is IN about
    half the datasets; one shadow pool and one test pool serve all records (after Carlini et al.
    (2022); scores of Meeus et al. (2023), Sec. 4 and 5.2).
    """
    suffix = out.suffix.lower()
    if suffix not in (".json", ".csv"):
        raise InputError(f"--out {out} must end in .json or .csv")
    check_out_path(out)
    runtime = make_runtime(workers=workers, run_dir=run_dir)
    from synthleak.games.riskmap import RiskMap

    game = RiskMap(
        generator,
        train_size=train_size,
        synthetic_size=(
            None
            if synthetic_size is None
            else parse_sizes(synthetic_size, "--synthetic-size", default=[], single=True)[0]
        ),
        population=population,
        n_shadows=shadows,
        n_tests=tests,
        attacks=split_list(attacks),
        n_queries=1000 if n_queries is None else n_queries,
        n_estimators=n_trees,
        k=k,
        n_boot=n_boot,
        chunk=chunk,
        batch_size=batch_size,
    )
    loaded = load_cli_data(
        data,
        categorical=categorical,
        continuous=continuous,
        schema=schema,
        na_values=na_values,
        special_values=tuple(special_values or ()),
    )
    game.validate(loaded.table)  # every input error before any work (or cluster connection)
    client = None
    if cluster is not None:
        from synthleak.runtime.executor import connect_cluster

        client = connect_cluster(cluster, timeout=5.0)
        runtime = make_runtime(workers=workers, cluster=client, run_dir=run_dir)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", BaselineWarning)
            result = game.run(loaded.table, seed=seed, runtime=runtime)
    finally:
        if client is not None:
            client.close()
    fails = result.failures
    if fails.failed_datasets:
        typer.echo(
            f"synthleak: warning: the generator failed on {fails.failed_datasets} of "
            f"{fails.total_datasets} datasets (dropped)",
            err=True,
        )
    atomic_write(out, result.to_json() + "\n" if suffix == ".json" else result.to_csv())
    vk = result.validation.selectors.get("vulnerability")
    typer.echo(
        f"risk map of {len(result.rows)} records written to {out}: mean AUC "
        f"{result.auc_mean():.3f}; Spearman(V_k, AUC) "
        f"{vk.spearman if vk else float('nan'):.3f}, precision@10 "
        f"{vk.precision_at_k if vk else float('nan'):.2f}",
        err=True,
    )
