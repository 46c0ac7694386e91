"""``synthleak singling-out`` and ``synthleak linkability``: Article 29 WP risks of a release.

Both commands read three files — the ``--original`` records the synthetic data came from, the
``--synthetic`` data, and ``--control`` records the generator never saw — with the common data
options (``--categorical/--continuous/--schema/--na-values``, applied to all three). The schema is
inferred on the original (or read from ``--schema``) and widened with categories that only the
synthetic or control data hold (:func:`synthleak.data.schema.widen`); files whose columns differ
are rejected with one line listing the differences (exit 2).

With ``--relational METADATA.json`` (SDV multi-table metadata) the three are folders of one file
per table, read as ``audit --relational`` reads them
(:func:`synthleak.cli.common.load_relational_parts`), and each command plays the audit's
``person_risks`` game (:func:`~synthleak.games.person_risks.play_person_singling_out`,
:func:`~synthleak.games.person_risks.play_person_linkability`) on the person-level view, encoded
as the audit encodes it: the persons' figures, the persons singled out or linked by root key,
and the same game on the root table's own columns (the row-level figure). The JSON objects then
also hold ``level`` ("persons"), ``root``, ``key``, ``n_persons_singled_out`` and
``persons_singled_out`` (or ``n_persons_linked`` and ``persons_linked``), ``root_rows`` (the
row-level figure's object, or null) and ``root_rows_note``.

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
    RelationalOpt,
    RootOpt,
    SchemaOpt,
    SeedOpt,
    SpecialValuesOpt,
    SyntheticOpt,
    TextFormat,
    check_out_path,
    emit,
    load_cli_tables,
    load_relational_parts,
    refuse_root_alone,
    refuse_single_table_flags,
    split_list,
    to_json,
)
from synthleak.errors import BaselineWarning, InputError

if TYPE_CHECKING:
    from synthleak.data.release import Release
    from synthleak.data.table import Table
    from synthleak.games.linkability import LinkabilityResult
    from synthleak.games.person_risks import PersonLinkabilityResult, PersonSinglingOutResult
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


def render_singling_out(result: SinglingOutResult, *, unit: str = "records") -> str:
    """Plain-text table of a singling-out result (``unit``: what its rows are)."""
    d = result.design
    conf = f"{100 * result.confidence:.0f}%"
    lines = [
        f"Singling-out risk ({conf} CI); original {d.n_original:,}, control {d.n_control:,}, "
        f"synthetic {d.n_synthetic:,} {unit}",
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
        f"  rates: share of predicates singling out one person among the original {unit}, the "
        "control (at the original's size) and random guessing"
    )
    return "\n".join(lines)


def render_linkability(result: LinkabilityResult, *, unit: str = "records") -> str:
    """Plain-text table of a linkability result (``unit``: what its rows are)."""
    conf = f"{100 * result.confidence:.0f}%"
    lines = [
        f"Linkability risk ({conf} CI); original {result.n_original:,}, control "
        f"{result.n_control:,}, synthetic {result.n_synthetic:,} {unit}",
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


class PersonParts:
    """A relational release read for a person-level game: the person-level views
    (:func:`synthleak.data.relational.person_views`) of the parts given (original and
    synthetic, and the control when its folder is given), encoded with one schema as the audit
    encodes them, and what the games need to name persons."""

    def __init__(
        self,
        metadata: Path,
        folders: dict[str, str | None],
        *,
        root: str | None,
        na_values: str | None,
        special_values: Sequence[str] | None,
    ) -> None:
        from synthleak.data.relational import person_views
        from synthleak.data.release import Release, encode_parts

        parts = load_relational_parts(metadata, folders, na_values=na_values)
        sch = parts["original"].schema
        self.root = sch.person_table(root)
        self.key = sch.key_of(self.root)
        self.children = sch.descendants(self.root)
        views = person_views(parts, root=self.root)
        self.keys = views["original"].index.to_numpy()
        enc = encode_parts(
            {k: views[k] for k in ("original", "synthetic", "control") if k in views},
            special_values=tuple(special_values or ()),
        )
        self.release: Release = Release(  # without a control folder, no control
            enc.tables["original"], enc.tables["synthetic"], enc.tables.get("control"), enc.schema
        )
        self.columns: list[str] = list(enc.schema.names)
        self.profile = enc.profile

    @property
    def what(self) -> str:
        return f"persons (rows of table {self.root!r} with their child rows, key {self.key!r})"


def _relational(
    relational: Path,
    original: str | None,
    synthetic: str | None,
    control: str | None,
    *,
    root: str | None,
    na_values: str | None,
    special_values: Sequence[str] | None,
    categorical: str | None,
    continuous: str | None,
    schema: Path | None,
) -> PersonParts:
    """The persons of the three folders of a ``--relational`` command, the flags that describe
    one table refused."""
    refuse_single_table_flags(
        {"--categorical": categorical, "--continuous": continuous, "--schema": schema}
    )
    folders = {"original": original, "synthetic": synthetic, "control": control}
    return PersonParts(
        relational, folders, root=root, na_values=na_values, special_values=special_values
    )


def _keys_line(verb: str, what: str, keys: list[Any], n: int, key: str) -> str:
    shown = ", ".join(str(k) for k in keys)
    more = f" (the first {len(keys)} shown)" if n > len(keys) else ""
    return f"  persons {verb} ({what}), by {key!r}: {n}{more}" + (f": {shown}" if keys else "")


def _root_rows_lines(rendered: str | None, root: str, note: str) -> list[str]:
    if rendered is None:
        return [f"Row-level figure of table {root!r}: not measured ({note})"]
    return [f"Row-level figure: the same game on the columns of table {root!r} alone", rendered]


def render_person_singling_out(result: PersonSinglingOutResult, persons: PersonParts) -> str:
    """Plain-text report of :func:`~synthleak.games.person_risks.play_person_singling_out`:
    the persons' figures, the persons singled out by root key, and the root table's row-level
    figures beside them."""
    lines = [
        f"Singling out of {persons.what}",
        render_singling_out(result.persons, unit="persons"),
    ]
    for attack, keys in result.singled_out.items():
        n = result.n_singled_out.get(attack, 0)
        lines.append(_keys_line("singled out", attack, keys, n, persons.key))
    lines.append(
        "  a person is singled out when a predicate matches them alone among the original's "
        "persons and no control person; a predicate can do so by chance: read the list with the "
        "risk's interval"
    )
    rr = result.root_rows
    unit = f"rows of {result.root!r}"
    rendered = None if rr is None else render_singling_out(rr, unit=unit)
    return "\n".join(lines + _root_rows_lines(rendered, result.root, result.root_rows_note))


def render_person_linkability(result: PersonLinkabilityResult, persons: PersonParts) -> str:
    """Plain-text report of :func:`~synthleak.games.person_risks.play_person_linkability`:
    the persons' figure, the persons linked by root key, and the root table's row-level figure
    beside it."""
    lines = [
        f"Linkability of {persons.what}",
        render_linkability(result.persons, unit="persons"),
        _keys_line("linked", "aux A to aux B", result.linked, result.n_linked, persons.key),
        "  a person is linked when the synthetic neighbours of their two halves meet; that can "
        "happen by chance: read the list with the risk's interval",
    ]
    rr = result.root_rows
    unit = f"rows of {result.root!r}"
    rendered = None if rr is None else render_linkability(rr, unit=unit)
    return "\n".join(lines + _root_rows_lines(rendered, result.root, result.root_rows_note))


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
    relational: RelationalOpt = None,
    root: RootOpt = None,
) -> None:
    """Singling-out risk: predicates learnt from SYNTHETIC that isolate one ORIGINAL person.

    With --relational, the game is played on persons (a root row with their child rows, one
    row each in the person-level view) and the persons singled out are named by root key;
    the same game on the root table's own columns is shown beside it (the row-level figure).
    """
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
    params = {n: {"n_cols": n_cols} for n in names if n in RECORD_ATTACKS}
    if relational is not None:
        _singling_out_persons(
            _relational(
                relational,
                original,
                synthetic,
                control,
                root=root,
                na_values=na_values,
                special_values=special_values,
                categorical=categorical,
                continuous=continuous,
                schema=schema,
            ),
            names=names,
            n_attacks=n_attacks,
            n_cols=n_cols,
            params=params,
            seed=seed,
            fmt=fmt,
            out=out,
        )
        return
    refuse_root_alone(root)
    o, s, c = _load(
        original, synthetic, control, categorical, continuous, schema, na_values, special_values
    )
    if n_cols > len(o.schema):
        raise InputError(f"--n-cols {n_cols} is out of range: the data has {len(o.schema)} columns")
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


def _singling_out_persons(
    p: PersonParts,
    *,
    names: list[str],
    n_attacks: int,
    n_cols: int,
    params: dict[str, dict[str, Any]],
    seed: int,
    fmt: TextFormat,
    out: Path | None,
) -> None:
    """``singling-out --relational``: :func:`play_person_singling_out` on the release's persons,
    as the audit's ``person_risks`` stage plays it."""
    from synthleak.games.person_risks import play_person_singling_out

    if n_cols > len(p.columns):
        raise InputError(
            f"--n-cols {n_cols} is out of range: the person-level view has {len(p.columns)} columns"
        )
    result, _ = _caught(
        lambda: play_person_singling_out(
            p.release,
            p.keys,
            root=p.root,
            child_tables=p.children,
            attacks=names,
            n_attacks=n_attacks,
            seed=seed,
            attack_params=params,
        )
    )
    if fmt is TextFormat.JSON:
        d = result.persons.design.to_dict()
        rows = {a.attack: a for a in (result.root_rows.attacks if result.root_rows else ())}
        rd = result.root_rows.design.to_dict() if result.root_rows is not None else None
        text = to_json(
            [
                {
                    **a.summary(),
                    "design": d,
                    "level": "persons",
                    "root": p.root,
                    "key": p.key,
                    "n_persons_singled_out": result.n_singled_out.get(a.attack, 0),
                    "persons_singled_out": result.singled_out.get(a.attack, []),
                    "root_rows": (
                        {**rows[a.attack].summary(), "design": rd} if a.attack in rows else None
                    ),
                    "root_rows_note": result.root_rows_note,
                }
                for a in result.persons.attacks
            ]
        )
    else:
        text = render_person_singling_out(result, p)
    emit(text, out)


def _linkability_persons(
    p: PersonParts,
    *,
    cols_a: list[str] | None,
    cols_b: list[str] | None,
    n_attacks: int,
    neighbours: int,
    seed: int,
    fmt: TextFormat,
    out: Path | None,
) -> None:
    """``linkability --relational``: :func:`play_person_linkability` on the release's persons,
    as the audit's ``person_risks`` stage plays it (by default a person's root row linked to
    their child-row summaries)."""
    from synthleak.games.person_risks import play_person_linkability

    _check_columns(cols_a, cols_b, p.columns, "the person-level view's columns")
    result, _ = _caught(
        lambda: play_person_linkability(
            p.release,
            p.keys,
            root=p.root,
            child_tables=p.children,
            aux_a=cols_a,
            aux_b=cols_b,
            n_attacks=n_attacks,
            n_neighbors=neighbours,
            seed=seed,
        )
    )
    if fmt is TextFormat.JSON:
        res = result.persons
        sizes = {"n_original": res.n_original, "n_control": res.n_control}
        sizes["n_synthetic"] = res.n_synthetic
        rr = result.root_rows
        root_rows = None
        if rr is not None and rr.attacks:
            root_rows = {**rr.attacks[0].summary(), "n_original": rr.n_original}
            root_rows |= {"n_control": rr.n_control, "n_synthetic": rr.n_synthetic}
        text = to_json(
            [
                {
                    **a.summary(),
                    **sizes,
                    "level": "persons",
                    "root": p.root,
                    "key": p.key,
                    "n_persons_linked": result.n_linked,
                    "persons_linked": result.linked,
                    "root_rows": root_rows,
                    "root_rows_note": result.root_rows_note,
                }
                for a in res.attacks
            ]
        )
    else:
        text = render_person_linkability(result, p)
    emit(text, out)


def _check_columns(
    cols_a: list[str] | None, cols_b: list[str] | None, columns: Sequence[str], where: str
) -> None:
    for flag, cols in (("--aux-a", cols_a), ("--aux-b", cols_b)):
        unknown = [col for col in cols or () if col not in columns]
        if unknown:
            raise InputError(
                f"{flag} names unknown column(s) {unknown}: {where} are {', '.join(columns)}"
            )


@app.command("linkability", rich_help_panel=PANEL)
def linkability_cmd(
    aux_a: Annotated[
        str | None,
        typer.Option(
            "--aux-a",
            help="Comma-separated columns of the first auxiliary source (with --relational, by "
            "default the root table's own columns).",
        ),
    ] = None,
    aux_b: Annotated[
        str | None,
        typer.Option(
            "--aux-b",
            help="Comma-separated columns of the second auxiliary source (with --relational, by "
            "default the person-level view's child-row summaries).",
        ),
    ] = None,
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
    relational: RelationalOpt = None,
    root: RootOpt = None,
) -> None:
    """Linkability risk: re-link the --aux-a and --aux-b halves of people through SYNTHETIC.

    With --relational, the game is played on persons: by default a person's row of the root
    table (--aux-a) is linked to their child rows' summaries (--aux-b), the persons linked are
    named by root key, and the same game on the root table's own columns is shown beside it.
    """
    from synthleak.data.release import Release
    from synthleak.stages.linkability import play_linkability

    _require(original, synthetic, control)
    given = {"--aux-a": aux_a, "--aux-b": aux_b}
    missing = [flag for flag, value in given.items() if value is None]
    if missing and relational is None:
        raise InputError(
            f"missing {' and '.join(missing)}: name the columns of the two auxiliary sources"
        )
    cols_a = None if aux_a is None else split_list(aux_a)
    cols_b = None if aux_b is None else split_list(aux_b)
    for flag, cols in (("--aux-a", cols_a), ("--aux-b", cols_b)):
        if cols is not None and not cols:
            raise InputError(f"{flag} is empty: give at least one column")
    _check_positive("--n-attacks", n_attacks)
    _check_positive("--n-neighbours", neighbours)
    if seed < 0:
        raise InputError(f"--seed {seed} must be 0 or more")
    if out is not None:
        check_out_path(out)
    if relational is not None:
        _linkability_persons(
            _relational(
                relational,
                original,
                synthetic,
                control,
                root=root,
                na_values=na_values,
                special_values=special_values,
                categorical=categorical,
                continuous=continuous,
                schema=schema,
            ),
            cols_a=cols_a,
            cols_b=cols_b,
            n_attacks=n_attacks,
            neighbours=neighbours,
            seed=seed,
            fmt=fmt,
            out=out,
        )
        return
    refuse_root_alone(root)
    assert cols_a is not None and cols_b is not None  # given without --relational
    o, s, c = _load(
        original, synthetic, control, categorical, continuous, schema, na_values, special_values
    )
    _check_columns(cols_a, cols_b, o.schema.names, "the columns")
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
