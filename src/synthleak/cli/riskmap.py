"""``synthleak riskmap``: a membership AUC for every record of a private dataset, plus validation.

Output (``--out`` ending in ``.json`` or ``.csv``, written atomically): the JSON form of
:class:`~synthleak.games.riskmap.RiskMapResult` (config, rows, per-attack AUC arrays
``[value, ci_low, ci_high]`` per record, selector scores, validation with Spearman and top-10
precision of every selector, failures, timings), or one CSV line per record with the columns of
``RiskMapResult.to_frame()``: ``row, auc, auc_ci_low, auc_ci_high, auc_<attack>..., vulnerability,
rare_value, log_likelihood``. ``auc`` is the best attack's AUC for that record. With
``--run-dir`` the JSON document is also written there (``result.json``).

With ``--relational METADATA.json`` (and ``--root``) DATA is a folder of one file per table and
the generator a relational one: the command plays
:func:`~synthleak.games.person_shadow.play_person_shadow` (the ``person_shadow`` stage's game)
with ``--n-targets``, ``--shadows``, ``--tests``, ``--train-size`` and ``--seed`` (the game's
defaults where not given). JSON: the game's :class:`PersonShadowResult` with ``level``
("persons"), ``root`` and ``key``; CSV: one line per target person, ``<root key>, auc,
auc_ci_low, auc_ci_high, game_auc, game_auc_ci_low, game_auc_ci_high`` (the person's AUC over
the test releases with its bootstrap interval, and the game's AUC with its interval). The
game runs in one process: ``--workers``, ``--cluster``, ``--run-dir`` and the single-table
options are refused.

References
----------
Meeus et al. (2023), Sec. 3, 4 and 5.2, Table 1; Carlini et al. (2022) (shared shadow models).
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

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
    NTargetsOpt,
    RelationalOpt,
    RootOpt,
    RunDirOpt,
    SchemaOpt,
    SeedOpt,
    SpecialValuesOpt,
    SyntheticSizeOpt,
    WorkersOpt,
    atomic_write,
    check_out_path,
    load_cli_data,
    load_relational_parts,
    make_runtime,
    option_given,
    parse_sizes,
    refuse_relational_spec,
    refuse_root_alone,
    refuse_single_table_flags,
    split_list,
    to_json,
)
from synthleak.errors import BaselineWarning, GeneratorFailure, InputError

if TYPE_CHECKING:
    from synthleak.games.person_shadow import PersonShadowResult

#: Options of the single-table risk map that the person-level game does not take (``--relational``).
_NOT_FOR_PERSONS = (
    ("--synthetic-size", "synthetic_size"),
    ("--population", "population"),
    ("--attacks", "attacks"),
    ("--n-queries", "n_queries"),
    ("--n-trees", "n_trees"),
    ("--k", "k"),
    ("--n-boot", "n_boot"),
    ("--chunk", "chunk"),
    ("--batch-size", "batch_size"),
    ("--workers", "workers"),
    ("--cluster", "cluster"),
    ("--run-dir", "run_dir"),
)


@app.command("riskmap", rich_help_panel="Privacy games (one attack family each)")
def riskmap_cmd(
    ctx: typer.Context,
    data: Annotated[
        str,
        typer.Argument(
            help="CSV, CSV.GZ or Parquet file, or 'adult'/'adult-complete'; with --relational, "
            "a folder of one file per table."
        ),
    ],
    generator: Annotated[
        str,
        typer.Option(
            "--generator",
            help="Generator spec, e.g. baynet or synthpop; with --relational a relational "
            "spec (sdv:hma, python:..., command:...).",
        ),
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
    relational: RelationalOpt = None,
    root: RootOpt = None,
    n_targets: NTargetsOpt = None,
) -> None:
    """Membership AUC (bootstrap CI) of every record of a sample of DATA, with V_k validation.

    Every shadow/test dataset holds a random half of the sampled records plus random fillers from
    the rest of DATA (or of a P-record population with --population), so each record is IN about
    half the datasets; one shadow pool and one test pool serve all records (after Carlini et al.
    (2022); scores of Meeus et al. (2023), Sec. 4 and 5.2).

    With --relational, DATA is a folder of one file per table and the generator a relational
    one: the audit's person-level shadow game (person_shadow; --shadows default 32, --tests 16,
    --train-size half the smaller pool, at most 1000) is played on --n-targets persons, each in
    half of the training sets. Per target person, by root key: its AUC over the test releases
    with its bootstrap interval over them (wide: few test releases); beside it,
    the game's AUC over all targets with its interval (the figure to quote; baseline 0.5).
    """
    suffix = out.suffix.lower()
    if suffix not in (".json", ".csv"):
        raise InputError(f"--out {out} must end in .json or .csv")
    check_out_path(out)
    if relational is not None:
        refuse_single_table_flags(
            {
                "--categorical": categorical,
                "--continuous": continuous,
                "--schema": schema,
                "--special-values": special_values,
            }
        )
        wrong = [flag for flag, name in _NOT_FOR_PERSONS if option_given(ctx, name)]
        if wrong:
            raise InputError(
                f"{', '.join(wrong)} do{'es' if len(wrong) == 1 else ''} not apply to riskmap "
                "--relational (the person-level shadow game in one process: --n-targets, "
                "--shadows, --tests, --train-size, --seed, --root): drop "
                f"{'it' if len(wrong) == 1 else 'them'}"
            )
        _riskmap_persons(
            relational,
            data,
            generator,
            out,
            root=root,
            na_values=na_values,
            seed=seed,
            options={
                "n_targets": n_targets,
                "n_shadows": shadows if option_given(ctx, "shadows") else None,
                "n_tests": tests if option_given(ctx, "tests") else None,
                "train_size": train_size if option_given(ctx, "train_size") else None,
            },
        )
        return
    refuse_root_alone(root)
    if n_targets is not None:
        raise InputError(
            "--n-targets is for --relational: on one table riskmap maps every record of a "
            "--train-size sample"
        )
    refuse_relational_spec(generator)
    runtime = make_runtime(workers=workers, run_dir=run_dir, start=cluster is None)
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


def shadow_persons(
    metadata: Path,
    folder: str,
    spec: str,
    *,
    root: str | None,
    na_values: str | None,
    seed: int,
    options: dict[str, int | None],
) -> tuple[PersonShadowResult, str, str]:
    """The ``person_shadow`` stage's game
    (:func:`~synthleak.games.person_shadow.play_person_shadow`) on the persons of the tables
    in ``folder`` with the relational generator ``spec`` (``riskmap`` and ``mia`` with
    ``--relational`` and ``--generator``): its result, the table of persons and its key.
    ``options`` are the game's parameters given (``None``: the game's default)."""
    from synthleak.games.person_shadow import play_person_shadow
    from synthleak.generators.relational import make_relational_generator

    make_relational_generator(spec)  # a single-table spec fails before the data is read
    data = load_relational_parts(metadata, {"data": folder}, na_values=na_values)["data"]
    person = data.schema.person_table(root)
    given = {k: v for k, v in options.items() if v is not None}
    try:
        result = play_person_shadow(data, spec, seed=seed, root=person, **given)
    except GeneratorFailure as exc:
        raise InputError(f"generator {spec!r} failed: {exc}") from exc
    return result, person, data.schema.key_of(person)


def _riskmap_persons(
    metadata: Path,
    folder: str,
    spec: str,
    out: Path,
    *,
    root: str | None,
    na_values: str | None,
    seed: int,
    options: dict[str, int | None],
) -> None:
    """``riskmap --relational``: :func:`~synthleak.games.person_shadow.play_person_shadow` (the
    ``person_shadow`` stage's game) on the persons of ``folder`` with the relational generator
    ``spec``; ``options`` are the game's parameters given (``None``: the game's default)."""
    import json

    import pandas as pd

    result, person, key = shadow_persons(
        metadata, folder, spec, root=root, na_values=na_values, seed=seed, options=options
    )
    a = result.primary_attack.auc
    if out.suffix.lower() == ".json":
        doc = {"level": "persons", "root": person, "key": key, **json.loads(result.to_json())}
        text = to_json(doc) + "\n"
    else:
        nan = [float("nan")] * len(result.target_keys)
        frame = pd.DataFrame(
            {
                key: result.target_keys,
                "auc": result.target_auc,
                "auc_ci_low": result.target_ci_low or nan,
                "auc_ci_high": result.target_ci_high or nan,
                "game_auc": a.value,
                "game_auc_ci_low": a.ci_low,
                "game_auc_ci_high": a.ci_high,
            }
        )
        text = frame.to_csv(index=False)
    atomic_write(out, text)
    for note in result.notes:
        typer.echo(f"synthleak: warning: {note}", err=True)
    typer.echo(
        f"risk map of {len(result.target_keys)} persons (rows of table {person!r}, key "
        f"{key!r}) written to {out}: AUC of the person-level shadow game {a.value:.3f} "
        f"({a.confidence:.0%} CI {a.ci_low:.3f} - {a.ci_high:.3f}, baseline 0.5) on "
        f"{result.n_tests} test releases; each person's AUC with its interval over them",
        err=True,
    )
