"""``synthleak aia`` (attribute-inference privacy game) and ``synthleak utility`` (MRE_{>10}, 3-TVD).

References
----------
Annamalai et al. (2024a), "A linear reconstruction approach for attribute inference attacks
against synthetic data", USENIX Security, Sec. 4.1 (game), Sec. 4.2-4.3 (attacks), Sec. 5.3
(utility), Sec. 6.3-6.4 (sweep over m, privacy-utility table).
"""

from __future__ import annotations

from typing import Annotated, Any

import typer

from synthleak.attacks.aia_inference import InferenceModel
from synthleak.attacks.aia_reconstruction import QueryMode
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
    load_cli_tables,
    make_rng,
    split_list,
    to_json,
)
from synthleak.errors import InputError
from synthleak.games.attribute import AttributeGame, AttributeGameResult, BinStrategy
from synthleak.metrics.utility import utility_report


def _parse_ints(value: str, option: str) -> list[int]:
    try:
        out = [int(float(v)) for v in split_list(value)]
    except ValueError:
        raise InputError(
            f"{option} takes comma-separated integers such as 100,1000, got {value!r}"
        ) from None
    if not out:
        raise InputError(f"{option} needs at least one value")
    return out


def _fmt(v: Any, spec: str = ".3f") -> str:
    return "-" if v is None else format(v, spec)


def render_table(result: AttributeGameResult) -> str:
    """The sweep as a text table: accuracy [CI] and AUC per attack, utility and Acc_max per m."""
    cfg = result.config
    attacks = cfg["attacks"]
    lines = [
        f"Attribute inference game: generator {cfg['generator']}, secret {cfg['secret']} "
        f"({len(cfg['secret_classes'])} classes, baseline {1 / len(cfg['secret_classes']):.3f}), "
        f"n={cfg['n']}, {cfg['games']} games x {cfg['targets_per_game']} target(s), queries {cfg['queries']}",
        "",
    ]
    head = (
        ["m"]
        + [f"{a} acc [95% CI]" for a in attacks]
        + [f"{a} AUC" for a in attacks]
        + ["Acc_max", "MRE>10", "3-TVD"]
    )
    rows = []
    for e in result.results:
        row = [str(e["m"])]
        for a in attacks:
            r = e["attacks"][a]
            ci = r["accuracy_ci"]
            row.append(f"{_fmt(r['accuracy'])} [{_fmt(ci[0], '.2f')}, {_fmt(ci[1], '.2f')}]")
        row += [_fmt(e["attacks"][a]["auc"]) for a in attacks]
        row += [_fmt(e["acc_max"]), _fmt(e["utility"]["mre_gt10"]), _fmt(e["utility"]["tvd3"])]
        rows.append(row)
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(head)]
    lines.append("  ".join(h.ljust(w) for h, w in zip(head, widths, strict=True)))
    lines.extend("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) for r in rows)
    pairs = [(e["m"], c) for e in result.results for c in e.get("comparisons", [])]
    if pairs:
        lines.append("")
        lines.append(
            "Paired comparisons (accuracy difference a - b on the same secrets, 95% CI over games, McNemar p):"
        )
        for m_, c in pairs:
            ci = c["difference_ci"]
            lines.append(
                f"  m={m_}: {c['a']} - {c['b']} = {c['difference']:+.3f} [{ci[0]:+.3f}, {ci[1]:+.3f}], "
                f"p={c['p_value']:.3g} ({c['n_targets']} secrets)"
            )
    if result.failures:
        lines.append("")
        lines.append(f"{len(result.failures)} failure(s):")
        for f in result.failures[:10]:
            where = f"game {f['game']}" + (
                f", m={f['m']}, {f['attack']}" if f["m"] is not None else ""
            )
            lines.append(f"  {where}: {f['reason']}")
        if len(result.failures) > 10:
            lines.append(f"  ... and {len(result.failures) - 10} more (see --format json)")
    return "\n".join(lines)


@app.command("aia")
def aia_cmd(
    data: Annotated[
        str, typer.Argument(help="CSV, CSV.GZ or Parquet file, or 'adult'/'adult-complete'.")
    ],
    secret: Annotated[
        str, typer.Option("--secret", help="The secret column the adversary infers.")
    ],
    generator: Annotated[
        str, typer.Option("--generator", help="Generator spec, e.g. nonprivate, baynet:k=3, rap.")
    ],
    quasi_ids: Annotated[
        str | None,
        typer.Option(
            "--quasi-ids", help="Comma-separated quasi-identifiers (default: all other columns)."
        ),
    ] = None,
    n: Annotated[int, typer.Option("--n", help="Records in each original dataset D.")] = 1000,
    m: Annotated[
        str, typer.Option("--m", help="Synthetic size(s), comma-separated for a sweep.")
    ] = "100000",
    games: Annotated[int, typer.Option("--games", help="Number of games.")] = 500,
    attacks: Annotated[
        str, typer.Option("--attacks", help="Comma-separated: recon,dcr,infer.")
    ] = "recon,dcr,infer",
    queries: Annotated[
        QueryMode, typer.Option("--queries", help="Adv_recon query answers.")
    ] = QueryMode.CONDITIONAL,
    order: Annotated[int, typer.Option("--order", help="k of Adv_recon's k-way queries.")] = 3,
    max_queries: Annotated[
        int | None,
        typer.Option("--max-queries", help="Random subset of Adv_recon's queries (default all)."),
    ] = None,
    time_limit: Annotated[
        float, typer.Option("--time-limit", help="Seconds per linear program.")
    ] = 600.0,
    targets_per_game: Annotated[
        int,
        typer.Option("--targets-per-game", help="Unique targets randomised per game (paper: 1)."),
    ] = 1,
    bins: Annotated[int, typer.Option("--bins", help="Bins per continuous column.")] = 10,
    bin_strategy: Annotated[BinStrategy, typer.Option("--bin-strategy")] = BinStrategy.UNIFORM,
    infer_model: Annotated[InferenceModel, typer.Option("--infer-model")] = InferenceModel.RF,
    workers: WorkersOpt = 1,
    cluster: ClusterOpt = None,
    run_dir: RunDirOpt = None,
    seed: SeedOpt = 0,
    categorical: CategoricalOpt = None,
    continuous: ContinuousOpt = None,
    schema: SchemaOpt = None,
    na_values: NaValuesOpt = None,
    fmt: Annotated[
        OutputFormat, typer.Option("--format", help="table or json.")
    ] = OutputFormat.TABLE,
    out: OutOpt = None,
) -> None:
    """Run the attribute inference privacy game (randomised secret) against GENERATOR on DATA.

    Method: Annamalai et al. (2024a), Sec. 4 (game and attacks) and Sec. 6.
    """
    if fmt is OutputFormat.CSV:
        raise InputError("--format csv is not offered by 'aia': use table or json")
    loaded = load_cli_data(
        data, categorical=categorical, continuous=continuous, schema=schema, na_values=na_values
    )
    game = AttributeGame(
        generator,
        secret,
        split_list(quasi_ids) or None,
        n=n,
        m=_parse_ints(m, "--m"),
        games=games,
        attacks=split_list(attacks),
        queries=queries,
        order=order,
        max_queries=max_queries,
        time_limit=time_limit,
        targets_per_game=targets_per_game,
        bins=bins,
        bin_strategy=bin_strategy,
        infer_model=infer_model,
    )
    from synthleak.runtime.progress import progress_bar

    with progress_bar("attribute games") as progress:
        result = game.run(
            loaded.table,
            seed=seed,
            workers=workers,
            cluster=cluster,
            run_dir=run_dir,
            progress=progress,
        )
    text = to_json(result.to_dict()) if fmt is OutputFormat.JSON else render_table(result)
    emit(text, out)


@app.command("utility")
def utility_cmd(
    original: Annotated[
        str,
        typer.Option(
            "--original", help="The original data (CSV, CSV.GZ, Parquet, 'adult'/'adult-complete')."
        ),
    ],
    synthetic: Annotated[
        str, typer.Option("--synthetic", help="The synthetic data, same columns.")
    ],
    marginals: Annotated[
        int, typer.Option("--marginals", help="Random 3-way marginals to average over.")
    ] = 100,
    threshold: Annotated[
        float, typer.Option("--threshold", help="MRE counts only cells above this count.")
    ] = 10.0,
    bins: Annotated[int, typer.Option("--bins", help="Bins per continuous column.")] = 20,
    seed: SeedOpt = 0,
    categorical: CategoricalOpt = None,
    continuous: ContinuousOpt = None,
    schema: SchemaOpt = None,
    na_values: NaValuesOpt = None,
    fmt: Annotated[
        OutputFormat, typer.Option("--format", help="table or json.")
    ] = OutputFormat.TABLE,
    out: OutOpt = None,
) -> None:
    """Utility of SYNTHETIC against ORIGINAL: MRE over 3-way marginal cells > 10 and average 3-TVD.

    Measures: Annamalai et al. (2024a), Sec. 5.3.
    """
    if fmt is OutputFormat.CSV:
        raise InputError("--format csv is not offered by 'utility': use table or json")
    _, data = load_cli_tables(
        {"original": original, "synthetic": synthetic},
        categorical=categorical,
        continuous=continuous,
        schema=schema,
        na_values=na_values,
    )
    ori, syn = data["original"], data["synthetic"]
    rep = utility_report(
        ori.table,
        syn.table,
        n_marginals=marginals,
        threshold=threshold,
        bins=bins,
        rng=make_rng(seed),
    )
    if fmt is OutputFormat.JSON:
        emit(to_json(rep), out)
    else:
        emit(
            "\n".join(
                f"{k:<12} {v:.4f}" if isinstance(v, float) else f"{k:<12} {v}"
                for k, v in rep.items()
            ),
            out,
        )
