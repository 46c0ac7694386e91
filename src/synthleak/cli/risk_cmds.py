"""``synthleak singling-out`` and ``synthleak linkability``: Article 29 WP risks of a release.

Both commands read three files — the ORIGINAL records the synthetic data came from, the
SYNTHETIC data, and CONTROL records the generator never saw — with the common data options
(``--categorical/--continuous/--schema/--na-values``, applied to all three). The schema is
inferred on the original (or read from ``--schema``) and applied to the others; when the synthetic
or control data hold categories the original lacks (a rare country in the control split, say),
the schema is widened with those categories (:func:`synthleak.data.schema.widen`; continuous
ranges are widened likewise, which changes no risk figure) rather than rejecting the file — a category can be real without appearing in the original. Files whose columns
differ are rejected with one line listing the differences (exit 2).

Output (``--format json``)::

    {"mode": str, "risk": float, "ci": [lo, hi], "attack_rate": float, "control_rate": float,
     "baseline_rate": float, "n_attacks": int, "n_success": int}

References
----------
Giomi et al. (2023), "A unified framework for quantifying privacy risk in synthetic data", PoPETs
(Anonymeter), Sec. 3, 4.1 and 4.2. Article 29 Data Protection Working Party (2014), Opinion
05/2014 on Anonymisation Techniques. Plasencia Palacios (2024), "Contrastive Learning-Based
privacy metrics in Tabular Synthetic Datasets" (contrastive singling out).
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Annotated, Any

import typer

from synthleak.attacks.linkability import LinkabilityAttack
from synthleak.attacks.singling_out import SinglingOutMode, make_singling_out_attack
from synthleak.cli.app import app
from synthleak.cli.common import (
    CategoricalOpt,
    ContinuousOpt,
    NaValuesOpt,
    OutOpt,
    OutputFormat,
    SchemaOpt,
    SeedOpt,
    emit,
    load_cli_tables,
    make_rng,
    split_list,
    to_json,
)
from synthleak.data.table import Table
from synthleak.errors import BaselineWarning, InputError
from synthleak.games.singling_out import LinkabilityGame, RiskResult, SinglingOutGame


def _load(
    original: str,
    synthetic: str,
    control: str,
    categorical: str | None,
    continuous: str | None,
    schema: Path | None,
    na_values: str | None,
) -> tuple[Table, Table, Table]:
    _, data = load_cli_tables(
        {"original": original, "synthetic": synthetic, "control": control},
        categorical=categorical,
        continuous=continuous,
        schema=schema,
        na_values=na_values,
    )
    return data["original"].table, data["synthetic"].table, data["control"].table


def _render(result: RiskResult, fmt: OutputFormat, caught: list[str]) -> str:
    summary: dict[str, Any] = result.summary()
    if fmt is OutputFormat.JSON:
        return to_json(summary)
    if fmt is OutputFormat.CSV:
        raise InputError("--format csv is not offered by this command: use table or json")
    lines = [
        f"{result.mode} risk: {result.risk.value:.4f}  "
        f"({100 * result.risk.confidence:.0f}% CI {result.risk.ci_low:.4f} to {result.risk.ci_high:.4f})",
        f"  attack rate   {result.attack_rate.value:.4f}  ({result.n_success} of {result.n_attacks} attacks"
        + (f"; {result.n_requested} requested" if result.n_requested != result.n_attacks else "")
        + ")",
        f"  control rate  {result.control_rate.value:.4f}",
        f"  baseline rate {result.baseline_rate.value:.4f}  (random guessing)",
    ]
    lines += [f"  warning: {w}" for w in caught]
    return "\n".join(lines)


def _run(game_fn: Any) -> tuple[RiskResult, list[str]]:
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always", BaselineWarning)
        result = game_fn()
    caught = [str(w.message) for w in rec if issubclass(w.category, BaselineWarning)]
    return result, caught


FormatOpt = Annotated[OutputFormat, typer.Option("--format", help="Output format: table or json.")]


@app.command("singling-out")
def singling_out_cmd(
    original: Annotated[
        str,
        typer.Option(
            "--original",
            help="Original records (CSV, CSV.GZ, Parquet or 'adult'/'adult-complete').",
        ),
    ],
    synthetic: Annotated[
        str, typer.Option("--synthetic", help="Synthetic data released from the original.")
    ],
    control: Annotated[
        str, typer.Option("--control", help="Real records the generator never saw.")
    ],
    mode: Annotated[
        SinglingOutMode, typer.Option("--mode", help="How predicates are generated.")
    ] = SinglingOutMode.MULTIVARIATE,
    attacks: Annotated[int, typer.Option("--attacks", help="Predicates to generate.")] = 500,
    n_cols: Annotated[
        int, typer.Option("--n-cols", help="Columns per multivariate/contrastive predicate.")
    ] = 3,
    categorical: CategoricalOpt = None,
    continuous: ContinuousOpt = None,
    schema: SchemaOpt = None,
    na_values: NaValuesOpt = None,
    seed: SeedOpt = 0,
    fmt: FormatOpt = OutputFormat.TABLE,
    out: OutOpt = None,
) -> None:
    """Singling-out risk: predicates learnt from SYNTHETIC that isolate one ORIGINAL record.

    Method: Giomi et al. (2023) (Anonymeter), Sec. 4.1; contrastive mode after Plasencia Palacios
    (2024).
    """
    if attacks < 1:
        raise InputError(f"--attacks {attacks} must be at least 1")
    o, s, c = _load(original, synthetic, control, categorical, continuous, schema, na_values)
    params: dict[str, Any] = {} if mode is SinglingOutMode.UNIVARIATE else {"n_cols": n_cols}
    attack = make_singling_out_attack(mode, **params)
    rng = make_rng(seed)
    result, caught = _run(
        lambda: SinglingOutGame(o, s, c, n_attacks=attacks).run(attack, rng=rng, mode=mode.value)
    )
    emit(_render(result, fmt, caught), out)


@app.command("linkability")
def linkability_cmd(
    original: Annotated[
        str,
        typer.Option(
            "--original",
            help="Original records (CSV, CSV.GZ, Parquet or 'adult'/'adult-complete').",
        ),
    ],
    synthetic: Annotated[
        str, typer.Option("--synthetic", help="Synthetic data released from the original.")
    ],
    control: Annotated[
        str, typer.Option("--control", help="Real records the generator never saw.")
    ],
    aux_a: Annotated[
        str, typer.Option("--aux-a", help="Comma-separated columns of the first auxiliary dataset.")
    ],
    aux_b: Annotated[
        str,
        typer.Option("--aux-b", help="Comma-separated columns of the second auxiliary dataset."),
    ],
    neighbors: Annotated[
        int, typer.Option("--neighbors", help="k nearest synthetic neighbours per half.")
    ] = 1,
    attacks: Annotated[int, typer.Option("--attacks", help="Target records attacked.")] = 500,
    categorical: CategoricalOpt = None,
    continuous: ContinuousOpt = None,
    schema: SchemaOpt = None,
    na_values: NaValuesOpt = None,
    seed: SeedOpt = 0,
    fmt: FormatOpt = OutputFormat.TABLE,
    out: OutOpt = None,
) -> None:
    """Linkability risk: re-link the --aux-a and --aux-b halves of records through SYNTHETIC.

    Method: Giomi et al. (2023) (Anonymeter), Sec. 4.2.
    """
    if attacks < 1:
        raise InputError(f"--attacks {attacks} must be at least 1")
    o, s, c = _load(original, synthetic, control, categorical, continuous, schema, na_values)
    attack = LinkabilityAttack(split_list(aux_a), split_list(aux_b), n_neighbors=neighbors)
    rng = make_rng(seed)
    result, caught = _run(lambda: LinkabilityGame(o, s, c, n_attacks=attacks).run(attack, rng=rng))
    emit(_render(result, fmt, caught), out)
