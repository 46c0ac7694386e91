"""``synthleak singling-out`` and ``synthleak linkability``: Article 29 WP risks of a release.

Both commands read three files — the ``--original`` records the synthetic data came from, the
``--synthetic`` data, and ``--control`` records the generator never saw — with the common data
options (``--categorical/--continuous/--schema/--na-values``, applied to all three). The schema is
inferred on the original (or read from ``--schema``) and widened with categories that only the
synthetic or control data hold (:func:`synthleak.data.schema.widen`); files whose columns differ
are rejected with one line listing the differences (exit 2).

Output (``--format json``): a JSON list with one object per attack, holding ``risk``, ``ci``,
the rates (``attack_rate``, ``control_rate``, ``baseline_rate``), the counts, the table sizes and
size correction, and for singling out where the successes are (``columns``: per column, the
predicates constraining it, their successes and mean excess over the control) and a few example
predicates; for linkability the auxiliary columns.

References
----------
Giomi et al. (2023), "A unified framework for quantifying privacy risk in synthetic data", PoPETs
(Anonymeter), Sec. 3, 4.1 and 4.2. Article 29 Data Protection Working Party (2014), Opinion
05/2014 on Anonymisation Techniques. Plasencia Palacios (2024), "Contrastive Learning-Based
privacy metrics in Tabular Synthetic Datasets" (contrastive singling out).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from importlib.util import find_spec
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from synthleak.cli.app import app
from synthleak.cli.common import (
    CategoricalOpt,
    ContinuousOpt,
    ControlOpt,
    FormatOpt,
    NaValuesOpt,
    OriginalOpt,
    OutOpt,
    SchemaOpt,
    SeedOpt,
    SpecialValuesOpt,
    SyntheticOpt,
    TextFormat,
    check_out_path,
    emit,
    load_cli_tables,
    split_list,
    to_json,
)
from synthleak.errors import BaselineWarning, InputError

if TYPE_CHECKING:
    from synthleak.data.table import Table
    from synthleak.games.linkability import LinkabilityResult
    from synthleak.games.singling_out import SinglingOutResult

RECORD_ATTACKS = ("multivariate", "contrastive")  # the attacks that take --n-cols
PANEL = "Privacy games (one attack family each)"
NAttacksOpt = Annotated[
    int,
    typer.Option(
        "--n-attacks",
        help="Attack guesses per attack: predicates (singling out) or targets (linkability).",
    ),
]


def _require(original: str | None, synthetic: str | None, control: str | None) -> None:
    missing = [
        flag
        for flag, value in (
            ("--original", original),
            ("--synthetic", synthetic),
            ("--control", control),
        )
        if value is None
    ]
    if missing:
        raise InputError(
            f"missing {', '.join(missing)}: these risks compare the original and a control of "
            "real records the generator never saw against the synthetic release"
        )


def _load(
    original: str | None,
    synthetic: str | None,
    control: str | None,
    categorical: str | None,
    continuous: str | None,
    schema: Path | None,
    na_values: str | None,
    special_values: Sequence[str] | None = None,
) -> tuple[Table, Table, Table]:
    assert original is not None and synthetic is not None and control is not None  # _require
    _, data = load_cli_tables(
        {"original": original, "synthetic": synthetic, "control": control},
        categorical=categorical,
        continuous=continuous,
        schema=schema,
        na_values=na_values,
        special_values=tuple(special_values or ()),
    )
    return data["original"].table, data["synthetic"].table, data["control"].table


def _check_positive(flag: str, value: int) -> None:
    if value < 1:
        raise InputError(f"{flag} {value} must be at least 1")


def _fmt(x: float) -> str:
    return "   n/a" if x != x else f"{x:.4f}"


def _caught(fn: Any) -> tuple[Any, list[str]]:
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always", BaselineWarning)
        result = fn()
    return result, [str(w.message) for w in rec if issubclass(w.category, BaselineWarning)]


def render_singling_out(result: SinglingOutResult) -> str:
    """Plain-text table of a singling-out result."""
    d = result.design
    conf = f"{100 * result.confidence:.0f}%"
    lines = [
        f"Singling-out risk ({conf} CI); original {d.n_original:,}, control {d.n_control:,}, "
        f"synthetic {d.n_synthetic:,} records",
        f"  size correction: {d.note}",
        f"  {'attack':<14}{'risk':>8}  {conf + ' CI':<18}{'attack':>8}{'control':>9}"
        f"{'baseline':>10}  predicates",
    ]
    for a in result.attacks:
        ci = f"[{_fmt(a.risk.ci_low)}, {_fmt(a.risk.ci_high)}]"
        made = f"{a.n_attacks}" + (f" of {a.n_requested}" if a.n_attacks != a.n_requested else "")
        lines.append(
            f"  {a.attack:<14}{_fmt(a.risk.value):>8}  {ci:<18}{_fmt(a.attack_rate.value):>8}"
            f"{_fmt(a.control_rate.value):>9}{_fmt(a.baseline_rate.value):>10}  {made}"
        )
    for a in result.attacks:
        if not a.risk.ci_low > 0:  # no leak shown: per-column excesses are noise
            continue
        top = [c for c in a.columns if c.excess > 0][:5]
        if top:
            where = ", ".join(
                f"{c.column} ({c.n_success} of {c.n_predicates} single out, excess "
                f"{c.excess:.3f} ± {c.excess_se:.3f})"
                for c in top
            )
            lines.append(f"  where ({a.attack}): {where}")
        for ex in a.examples[:3]:
            lines.append(f"  example ({a.attack}): {ex}")
        if a.note:
            lines.append(f"  note ({a.attack}): {a.note}")
    lines.append(
        "  rates: share of predicates singling out one person among the original records, the "
        "control (at the original's size) and random guessing"
    )
    return "\n".join(lines)


def render_linkability(result: LinkabilityResult) -> str:
    """Plain-text table of a linkability result."""
    conf = f"{100 * result.confidence:.0f}%"
    lines = [
        f"Linkability risk ({conf} CI); original {result.n_original:,}, control "
        f"{result.n_control:,}, synthetic {result.n_synthetic:,} records",
        f"  {'attack':<19}{'risk':>8}  {conf + ' CI':<18}{'attack':>8}{'control':>9}"
        f"{'baseline':>10}  targets",
    ]
    for a in result.attacks:
        ci = f"[{_fmt(a.risk.ci_low)}, {_fmt(a.risk.ci_high)}]"
        lines.append(
            f"  {a.attack:<19}{_fmt(a.risk.value):>8}  {ci:<18}{_fmt(a.attack_rate.value):>8}"
            f"{_fmt(a.control_rate.value):>9}{_fmt(a.baseline_rate.value):>10}  "
            f"{a.n_attacks} + {a.n_control_attacks}"
        )
        lines.append(
            f"  aux A: {', '.join(a.aux_a)}; aux B: {', '.join(a.aux_b)}; "
            f"{a.n_neighbors} neighbour(s)"
        )
        if a.note:
            lines.append(f"  note ({a.attack}): {a.note}")
    return "\n".join(lines)


@app.command("singling-out", rich_help_panel=PANEL)
def singling_out_cmd(
    original: OriginalOpt = None,
    synthetic: SyntheticOpt = None,
    control: ControlOpt = None,
    attacks: Annotated[
        str,
        typer.Option(
            "--attacks",
            help="Comma-separated singling-out attacks: univariate, multivariate, contrastive.",
        ),
    ] = "univariate,multivariate",
    n_attacks: NAttacksOpt = 500,
    n_cols: Annotated[
        int, typer.Option("--n-cols", help="Columns per multivariate/contrastive predicate.")
    ] = 3,
    categorical: CategoricalOpt = None,
    continuous: ContinuousOpt = None,
    schema: SchemaOpt = None,
    na_values: NaValuesOpt = None,
    special_values: SpecialValuesOpt = None,
    seed: SeedOpt = 0,
    fmt: FormatOpt = TextFormat.TABLE,
    out: OutOpt = None,
) -> None:
    """Singling-out risk: predicates learnt from SYNTHETIC that isolate one ORIGINAL person."""
    from synthleak.attacks.base import AttackFamily, attack_info
    from synthleak.data.release import Release
    from synthleak.stages.singling_out import play_singling_out

    _require(original, synthetic, control)
    names = split_list(attacks)
    if not names:
        raise InputError("--attacks is empty: give univariate, multivariate and/or contrastive")
    for name in names:
        info = attack_info(AttackFamily.SINGLING_OUT, name)
        if info.extra and find_spec(info.extra) is None:
            raise InputError(
                f"--attacks {name} needs the optional package {info.extra!r}: "
                f"install it with pip install 'synthleak[{info.extra}]'"
            )
    _check_positive("--n-attacks", n_attacks)
    _check_positive("--n-cols", n_cols)
    if seed < 0:
        raise InputError(f"--seed {seed} must be 0 or more")
    if out is not None:
        check_out_path(out)
    o, s, c = _load(
        original, synthetic, control, categorical, continuous, schema, na_values, special_values
    )
    if n_cols > len(o.schema):
        raise InputError(f"--n-cols {n_cols} is out of range: the data has {len(o.schema)} columns")
    params = {n: {"n_cols": n_cols} for n in names if n in RECORD_ATTACKS}
    result, _ = _caught(
        lambda: play_singling_out(
            Release(o, s, c), attacks=names, n_attacks=n_attacks, seed=seed, attack_params=params
        )
    )
    if fmt is TextFormat.JSON:
        d = result.design.to_dict()
        text = to_json([{**a.summary(), "design": d} for a in result.attacks])
    else:
        text = render_singling_out(result)
    emit(text, out)


@app.command("linkability", rich_help_panel=PANEL)
def linkability_cmd(
    aux_a: Annotated[
        str, typer.Option("--aux-a", help="Comma-separated columns of the first auxiliary source.")
    ],
    aux_b: Annotated[
        str,
        typer.Option("--aux-b", help="Comma-separated columns of the second auxiliary source."),
    ],
    original: OriginalOpt = None,
    synthetic: SyntheticOpt = None,
    control: ControlOpt = None,
    neighbours: Annotated[
        int, typer.Option("--n-neighbours", help="Nearest synthetic neighbours per half (k).")
    ] = 1,
    n_attacks: NAttacksOpt = 500,
    categorical: CategoricalOpt = None,
    continuous: ContinuousOpt = None,
    schema: SchemaOpt = None,
    na_values: NaValuesOpt = None,
    special_values: SpecialValuesOpt = None,
    seed: SeedOpt = 0,
    fmt: FormatOpt = TextFormat.TABLE,
    out: OutOpt = None,
) -> None:
    """Linkability risk: re-link the --aux-a and --aux-b halves of people through SYNTHETIC."""
    from synthleak.data.release import Release
    from synthleak.stages.linkability import play_linkability

    _require(original, synthetic, control)
    cols_a, cols_b = split_list(aux_a), split_list(aux_b)
    for flag, cols in (("--aux-a", cols_a), ("--aux-b", cols_b)):
        if not cols:
            raise InputError(f"{flag} is empty: give at least one column")
    _check_positive("--n-attacks", n_attacks)
    _check_positive("--n-neighbours", neighbours)
    if seed < 0:
        raise InputError(f"--seed {seed} must be 0 or more")
    if out is not None:
        check_out_path(out)
    o, s, c = _load(
        original, synthetic, control, categorical, continuous, schema, na_values, special_values
    )
    for flag, cols in (("--aux-a", cols_a), ("--aux-b", cols_b)):
        unknown = [col for col in cols if col not in o.schema]
        if unknown:
            raise InputError(
                f"{flag} names unknown column(s) {unknown}: the columns are "
                f"{', '.join(o.schema.names)}"
            )
    result, _ = _caught(
        lambda: play_linkability(
            Release(o, s, c),
            aux_a=cols_a,
            aux_b=cols_b,
            n_attacks=n_attacks,
            n_neighbors=neighbours,
            seed=seed,
        )
    )
    if fmt is TextFormat.JSON:
        sizes = {"n_original": result.n_original, "n_control": result.n_control}
        sizes["n_synthetic"] = result.n_synthetic
        text = to_json([{**a.summary(), **sizes} for a in result.attacks])
    else:
        text = render_linkability(result)
    emit(text, out)
