"""``synthleak aia`` (attribute inference) and ``synthleak utility`` (MRE_{>10}, 3-TVD).

``synthleak aia DATA --generator SPEC --secret COL`` plays the attribute-inference privacy game
with a randomised secret against the generator (records sampled from DATA). ``synthleak aia
--original O --synthetic S --control C --secret COL`` audits a release without its generator:
the attacks infer the secret of the training records from the release, and the same attacks on
control records (real records the generator never saw) give the baseline.

JSON output (``--format json``), game::

    {"config": {"game": "attribute", "generator", "secret", "secret_classes", "quasi_ids",
                "train_size", "synthetic_size": [m, ...], "n_games", "attacks", ...},
     "accuracies": [{"attack", "synthetic_size",
                     "accuracy": {"value", "ci_low", "ci_high", "confidence", "n_trials",
                                  "baseline"},
                     "auc", "n_games", "n_failed", "ci_width", "max_ci_width",
                     "status": "measured" | "too small to measure" | "not measured",
                     "reason"}, ...],
     "comparisons": [{"synthetic_size", "a", "b",
                      "comparison": {"difference", "ci_low", "ci_high", "p_value", "n",
                                     "a_only", "b_only", "confidence"}}, ...],
     "sizes": [{"synthetic_size", "mre_gt10", "tvd3", "acc_max", "best_attack"}, ...],
     "failures": [{"game", "synthetic_size", "attack", "reason"}, ...],
     "outcomes": [{"attack", "synthetic_size", "game", "target", "truth", "guess",
                   "scores"}, ...]}

release audit (one entry per attack)::

    {"results": [{"config", "attack", "synthetic_size", "status", "reason",
                  "accuracy": {...}, "control_accuracy": {...},
                  "difference": {"difference", "ci_low", "ci_high", "p_value", "n_a", "n_b",
                                 "confidence"},
                  "auc", "control_auc", "ci_width", "max_ci_width", "n_classes",
                  "majority_rate", "mre_gt10", "tvd3", "failures", "training", "control"},
                 ...]}

Undefined numbers are ``null``.

References
----------
Annamalai, Gadotti and Rocher (2024), Sec. 4.1 (game), 4.2-4.3 (attacks), 5.3 (utility),
6.3-6.4 (sweep over the synthetic size, privacy-utility table).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from synthleak.cli.app import app
from synthleak.cli.common import (
    CategoricalOpt,
    ClusterOpt,
    ContinuousOpt,
    ControlOpt,
    FormatOpt,
    GameTrainSizeOpt,
    NaValuesOpt,
    NQueriesOpt,
    NTargetsOpt,
    OriginalOpt,
    OutOpt,
    QuasiIdsOpt,
    RelationalOpt,
    RootOpt,
    RunDirOpt,
    SchemaOpt,
    SecretBinsOpt,
    SecretOpt,
    SecretToleranceOpt,
    SeedOpt,
    SpecialValuesOpt,
    SyntheticOpt,
    SyntheticSizeOpt,
    TextFormat,
    ToleranceKindOpt,
    WorkersOpt,
    check_out_path,
    emit,
    load_cli_data,
    load_cli_tables,
    make_rng,
    refuse_given,
    refuse_root_alone,
    refuse_single_table_flags,
    secret_rule,
    split_list,
    to_json,
)
from synthleak.errors import InputError
from synthleak.modes import BinStrategy, InferenceModel, QueryMode, ToleranceKind

if TYPE_CHECKING:
    from synthleak.games.attribute import AttributeGameResult
    from synthleak.games.attribute_release import ReleaseAttributeResult
    from synthleak.games.person_attribute import PersonAttributeResult
    from synthleak.runtime import Runtime


def _parse_ints(value: str | None, option: str) -> list[int]:
    try:
        out = [int(v) for v in split_list(value)]
    except ValueError:
        raise InputError(
            f"{option} takes comma-separated whole numbers such as 1000,100000, got {value!r}"
        ) from None
    if not out:
        raise InputError(f"{option} needs at least one value")
    return out


def _fmt(v: Any, spec: str = ".3f") -> str:
    return "-" if v is None or (isinstance(v, float) and math.isnan(v)) else format(v, spec)


def _table(head: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(head)]
    return [
        "  ".join(h.ljust(w) for h, w in zip(head, widths, strict=True)),
        *("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) for r in rows),
    ]


def _rule_lines(cfg: dict[str, Any]) -> list[str]:
    """A numeric secret's success rule and its bins (with the value each stands for)."""
    rule = cfg.get("secret_rule")
    if not rule:
        return []
    kind = rule["rule"]
    if kind == "bin":
        said = f"the right one of {rule['bins']} quantile bins"
    elif kind == "relative":
        said = f"within {rule['tolerance']:.1%} of the true value"
    else:
        said = f"within {rule['tolerance']:g} of the true value"
    values = cfg.get("secret_values") or [None] * len(cfg["secret_classes"])
    bins = ", ".join(
        b if v is None or kind == "bin" else f"{b} ~ {v:.6g}"
        for b, v in zip(cfg["secret_classes"], values, strict=True)
    )
    return [f"A guess is right when it is {said}; the attacks guess among the bins {bins}"]


def _majority_name(cfg: dict[str, Any]) -> str:
    rule = cfg.get("secret_rule")
    return "best constant guess" if rule and rule["rule"] != "bin" else "most common class"


def render_game(result: AttributeGameResult) -> str:
    """The sweep as text: accuracy [CI], AUC and status per attack and size, utility, Acc_max."""
    cfg = result.config
    C = len(cfg["secret_classes"])
    base = float(cfg.get("baseline", 1 / C))
    lines = [
        f"Attribute inference game: generator {cfg['generator']}, secret {cfg['secret']} "
        f"({C} classes, baseline {base:.3f}), {cfg['train_size']} training records, "
        f"{cfg['n_games']} games x {cfg['targets_per_game']} target(s)",
        *_rule_lines(cfg),
        "",
    ]
    rows = []
    for a in result.accuracies:
        e = a.accuracy
        rows.append(
            [
                str(a.synthetic_size),
                a.attack,
                f"{_fmt(e.value)} [{_fmt(e.ci_low, '.2f')}, {_fmt(e.ci_high, '.2f')}]",
                _fmt(a.auc),
                str(e.n_trials),
                a.status.value,
            ]
        )
    lines += _table(
        ["synthetic size", "attack", "accuracy [95% CI]", "AUC", "secrets", "status"], rows
    )
    lines.append("")
    lines += _table(
        ["synthetic size", "Acc_max", "best attack", "MRE>10", "3-TVD"],
        [
            [
                str(s.synthetic_size),
                _fmt(s.acc_max),
                s.best_attack or "-",
                _fmt(s.mre_gt10),
                _fmt(s.tvd3),
            ]
            for s in result.sizes
        ],
    )
    if result.comparisons:
        lines.append("")
        lines.append(
            "Paired comparisons (accuracy difference a - b on the same secrets, "
            "95% CI over games, McNemar p):"
        )
        for c in result.comparisons:
            p = c.comparison
            lines.append(
                f"  synthetic size {c.synthetic_size}: {c.a} - {c.b} = {p.difference:+.3f} "
                f"[{p.ci_low:+.3f}, {p.ci_high:+.3f}], p={p.p_value:.3g} ({p.n} secrets)"
            )
    notes = [a for a in result.accuracies if a.reason]
    if notes:
        lines += ["", "Not a measurement:"]
    for a in notes:
        lines.append(f"  {a.attack} at synthetic size {a.synthetic_size}: {a.reason}")
    if result.failures:
        lines.append("")
        lines.append(f"{len(result.failures)} failure(s):")
        for f in result.failures[:10]:
            where = f"game {f.game}" + (
                f", synthetic size {f.synthetic_size}, {f.attack}"
                if f.synthetic_size is not None
                else ""
            )
            lines.append(f"  {where}: {f.reason}")
        if len(result.failures) > 10:
            lines.append(f"  ... and {len(result.failures) - 10} more (see --format json)")
    return "\n".join(lines)


def render_release(results: list[ReleaseAttributeResult]) -> str:
    """The release audit as text: training vs control accuracy and their difference."""
    first = results[0]
    cfg = first.config
    lines = [
        f"Attribute inference on the release: secret {cfg['secret']} ({first.n_classes} "
        f"classes, {_majority_name(cfg)} "
        f"{first.majority_rate:.3f}), {cfg['n_original']} training, "
        f"{cfg['n_synthetic']} synthetic and {cfg['n_control']} control records",
        *_rule_lines(cfg),
        "",
    ]
    rows = []
    for r in results:
        d = r.difference
        rows.append(
            [
                r.attack,
                f"{_fmt(r.accuracy.value)} ({r.accuracy.n_trials})",
                f"{_fmt(r.control_accuracy.value)} ({r.control_accuracy.n_trials})",
                f"{_fmt(d.difference, '+.3f')} [{_fmt(d.ci_low, '+.3f')}, "
                f"{_fmt(d.ci_high, '+.3f')}]",
                _fmt(d.p_value, ".3g"),
                r.status.value,
            ]
        )
    lines += _table(
        [
            "attack",
            "training accuracy (n)",
            "control accuracy (n)",
            "difference [95% CI]",
            "p",
            "status",
        ],
        rows,
    )
    for r in results:
        if r.reason:
            lines.append(f"  {r.attack}: {r.reason}")
    lines.append(f"Utility of the release: MRE>10 {_fmt(first.mre_gt10)}, 3-TVD {_fmt(first.tvd3)}")
    return "\n".join(lines)


def _attack_params(
    attacks: list[str],
    *,
    query_mode: QueryMode | None,
    n_queries: int | None,
    order: int | None,
    time_limit: float | None,
    infer_model: InferenceModel | None,
) -> dict[str, dict[str, Any]]:
    recon: dict[str, Any] = {
        k: v
        for k, v in {
            "query_mode": query_mode,
            "n_queries": n_queries,
            "order": order,
            "time_limit": time_limit,
        }.items()
        if v is not None
    }
    infer: dict[str, Any] = {"model": infer_model} if infer_model is not None else {}
    flags: dict[str, tuple[str, dict[str, Any]]] = {
        "recon": ("--query-mode/--n-queries/--order/--time-limit", recon),
        "infer": ("--infer-model", infer),
    }
    out: dict[str, dict[str, Any]] = {}
    for name, (flag, params) in flags.items():
        if not params:
            continue
        if name not in attacks:
            raise InputError(f"{flag} apply to the {name} attack: add {name} to --attacks")
        out[name] = params
    return out


def _stderr_log(line: str) -> None:
    """Projected time and progress of a game, on stderr (the result goes to stdout)."""
    typer.echo(f"synthleak: {line}", err=True)


def _left_out(profile: Any) -> dict[str, str]:
    """Columns the data profile left out of the analysis, with what they were left out as."""
    if profile is None:
        return {}
    out = {c: "an identifier" for c in profile.identifiers}
    out.update({c: "free text" for c in profile.text_columns})
    return out


@app.command("aia", rich_help_panel="Privacy games (one attack family each)")
def aia_cmd(
    ctx: typer.Context,
    secret: SecretOpt,
    data: Annotated[
        str | None,
        typer.Argument(
            help="Population to sample training datasets from for the game (CSV, CSV.GZ, "
            "Parquet, 'adult'/'adult-complete'). Omit it to audit a release with --original, "
            "--synthetic and --control."
        ),
    ] = None,
    generator: Annotated[
        str | None,
        typer.Option("--generator", help="Generator spec for the game, e.g. baynet:k=3, rap."),
    ] = None,
    original: OriginalOpt = None,
    synthetic: SyntheticOpt = None,
    control: ControlOpt = None,
    quasi_ids: QuasiIdsOpt = None,
    secret_tolerance: SecretToleranceOpt = None,
    tolerance_kind: ToleranceKindOpt = ToleranceKind.ABSOLUTE,
    secret_bins: SecretBinsOpt = None,
    train_size: GameTrainSizeOpt = 1000,
    synthetic_size: SyntheticSizeOpt = "100000",
    n_games: Annotated[int, typer.Option("--n-games", help="Game: number of games.")] = 500,
    targets_per_game: Annotated[
        int,
        typer.Option(
            "--targets-per-game",
            help="Game: unique targets whose secret is randomised per game (the paper: 1).",
        ),
    ] = 1,
    n_targets: NTargetsOpt = None,
    attacks: Annotated[
        str | None,
        typer.Option(
            "--attacks",
            help="Comma-separated attack names: recon, dcr, infer (game default: all three; "
            "release audit default: recon).",
        ),
    ] = None,
    query_mode: Annotated[
        QueryMode | None,
        typer.Option("--query-mode", help="recon: conditional (the paper) or marginal answers."),
    ] = None,
    n_queries: NQueriesOpt = None,
    order: Annotated[
        int | None, typer.Option("--order", help="recon: k of its k-way queries (default 3).")
    ] = None,
    time_limit: Annotated[
        float | None,
        typer.Option(
            "--time-limit",
            help="recon: seconds per linear program (default 600; 120 with --relational, as "
            "the audit).",
        ),
    ] = None,
    infer_model: Annotated[
        InferenceModel | None,
        typer.Option("--infer-model", help="infer: the classifier (default rf)."),
    ] = None,
    bins: Annotated[int, typer.Option("--bins", help="Bins per continuous column.")] = 10,
    bin_strategy: Annotated[
        BinStrategy | None,
        typer.Option(
            "--bin-strategy",
            help="uniform over the range or quantile of the data (game default uniform, "
            "release audit default quantile).",
        ),
    ] = None,
    workers: WorkersOpt = 1,
    cluster: ClusterOpt = None,
    run_dir: RunDirOpt = None,
    seed: SeedOpt = 0,
    categorical: CategoricalOpt = None,
    continuous: ContinuousOpt = None,
    schema: SchemaOpt = None,
    na_values: NaValuesOpt = None,
    special_values: SpecialValuesOpt = None,
    fmt: FormatOpt = TextFormat.TABLE,
    out: OutOpt = None,
    relational: RelationalOpt = None,
    root: RootOpt = None,
) -> None:
    """Attribute inference: the privacy game against a generator on DATA, or the audit of a
    release (--original, --synthetic, --control).

    With --relational, the release audit is played on persons (a root row with their child
    rows): the attacker knows a person's child rows and infers --secret, a column of the root
    table, as the audit's person_attribute stage does; the persons inferred are named by root
    key.
    """
    if secret is None:  # typer requires --secret; this narrows its type
        raise InputError("missing option --secret: name the column the attacker infers")
    if relational is not None:
        _refuse_for_persons(ctx, data is not None)
        refuse_single_table_flags(
            {"--categorical": categorical, "--continuous": continuous, "--schema": schema}
        )
        if out is not None:
            check_out_path(out)
        recon = _attack_params(
            ["recon"],
            query_mode=query_mode,
            n_queries=n_queries,
            order=order,
            time_limit=time_limit,
            infer_model=None,
        ).get("recon", {})
        from synthleak.runtime import Runtime

        text = _release_persons(
            relational,
            {"original": original, "synthetic": synthetic, "control": control},
            root=root,
            secret=secret,
            rule=secret_rule(secret_tolerance, tolerance_kind, secret_bins, secret=secret),
            params={"time_limit": 120.0, **recon},
            n_targets=n_targets,
            seed=seed,
            runtime=Runtime(
                workers=workers, cluster=cluster, run_dir=run_dir, progress=True
            ).start(),
            fmt=fmt,
            na_values=na_values,
            special_values=special_values,
        )
        emit(text, out)
        return
    refuse_root_alone(root)
    release_mode = original is not None or synthetic is not None or control is not None
    if release_mode:
        if data is not None:
            raise InputError(
                "give either DATA (the game) or --original/--synthetic/--control (a release "
                "audit), not both"
            )
        if original is None or synthetic is None:
            raise InputError("a release audit needs --original and --synthetic (and --control)")
        if generator is not None:
            raise InputError(
                "--generator runs the game on DATA; a release is audited without its generator"
            )
    else:
        if data is None:
            raise InputError(
                "give DATA and --generator (the game), or --original, --synthetic and "
                "--control (a release audit)"
            )
        if generator is None:
            raise InputError("the game needs --generator (e.g. nonprivate, baynet:k=3)")
        if secret == "all":
            raise InputError(
                "--secret all sweeps the columns of a release (--original, --synthetic, "
                "--control); the game against a generator takes one secret column"
            )
        if n_targets is not None:
            raise InputError("--n-targets is for a release audit; the game uses --n-games")
    if out is not None:
        check_out_path(out)
    rule = secret_rule(secret_tolerance, tolerance_kind, secret_bins, secret=secret)
    names = split_list(attacks) or (["recon"] if release_mode else ["recon", "dcr", "infer"])
    params = _attack_params(
        names,
        query_mode=query_mode,
        n_queries=n_queries,
        order=order,
        time_limit=time_limit,
        infer_model=infer_model,
    )
    from synthleak.runtime import Runtime

    runtime = Runtime(workers=workers, cluster=cluster, run_dir=run_dir, progress=True).start()
    if release_mode:
        text = _release(
            original,  # type: ignore[arg-type]
            synthetic,  # type: ignore[arg-type]
            control,
            secret=secret,
            quasi_ids=split_list(quasi_ids) or None,
            names=names,
            params=params,
            n_targets=n_targets,
            bins=bins,
            bin_strategy=bin_strategy or BinStrategy.QUANTILE,
            rule=rule,
            seed=seed,
            runtime=runtime,
            fmt=fmt,
            overrides=(categorical, continuous, schema, na_values, tuple(special_values or ())),
        )
        emit(text, out)
        return
    loaded = load_cli_data(
        data,  # type: ignore[arg-type]
        categorical=categorical,
        continuous=continuous,
        schema=schema,
        na_values=na_values,
        special_values=tuple(special_values or ()),
    )
    from synthleak.games.attribute import AttributeGame
    from synthleak.games.secret import validate_secret

    validate_secret(
        loaded.schema,
        secret,
        split_list(quasi_ids) or None,
        data=loaded.table,
        rule=rule,
        left_out=_left_out(loaded.profile),
    )
    game = AttributeGame(
        generator,  # type: ignore[arg-type]
        secret,
        split_list(quasi_ids) or None,
        train_size=train_size,
        synthetic_size=_parse_ints(synthetic_size, "--synthetic-size"),
        n_games=n_games,
        attacks=names,
        attack_params=params,
        targets_per_game=targets_per_game,
        bins=bins,
        bin_strategy=bin_strategy or BinStrategy.UNIFORM,
        secret_rule=rule,
        log=_stderr_log,
    )
    result = game.run(loaded.table, seed=seed, runtime=runtime)
    emit(result.to_json() if fmt is TextFormat.JSON else render_game(result), out)


#: ``aia`` options that the person-level game does not take (flag, parameter name).
_NOT_FOR_PERSONS = (
    ("--generator", "generator"),
    ("--quasi-ids", "quasi_ids"),
    ("--train-size", "train_size"),
    ("--synthetic-size", "synthetic_size"),
    ("--n-games", "n_games"),
    ("--targets-per-game", "targets_per_game"),
    ("--attacks", "attacks"),
    ("--infer-model", "infer_model"),
    ("--bins", "bins"),
    ("--bin-strategy", "bin_strategy"),
)


def _refuse_for_persons(ctx: typer.Context, data_given: bool) -> None:
    """``aia --relational``: one line naming every option given that the game on persons does
    not take (it plays the recon attack on every child-row summary, as the audit does)."""
    refuse_given(
        ctx,
        _NOT_FOR_PERSONS,
        "aia --relational (attribute inference of persons from their child rows: --relational "
        "META --original DIR --synthetic DIR --control DIR --secret COLUMN)",
        data=True if data_given else None,
    )


def _span(lo: Any, hi: Any, spec: str = ".3f") -> str:
    return f"{_fmt(lo, spec)} - {_fmt(hi, spec)}"


def render_person_release(result: PersonAttributeResult, what: str, key: str) -> str:
    """Plain text of :func:`~synthleak.games.person_attribute.play_person_attribute`: the
    training and control persons' accuracies, the excess with its interval (baseline 0), and
    the persons inferred by root key."""
    g = result.game
    a, c, d = g.accuracy, g.control_accuracy, g.advantage
    lines = [
        f"Attribute inference of {what}: the attacker knows {len(result.known)} summaries of a "
        f"person's child rows and infers their {result.secret!r} from the release "
        f"(attack {g.attack!r}; {g.n_classes} classes, {_majority_name(g.config)} "
        f"{_fmt(g.majority_rate)} of the training persons)",
        *_rule_lines(g.config),
    ]
    lines += _table(
        ["persons", "attacked", "accuracy", "95% CI"],
        [
            ["original (training)", str(a.n_trials), _fmt(a.value), _span(a.ci_low, a.ci_high)],
            ["control (baseline)", str(c.n_trials), _fmt(c.value), _span(c.ci_low, c.ci_high)],
            ["excess", "", _fmt(d.value, "+.3f"), _span(d.ci_low, d.ci_high, "+.3f")],
        ],
    )
    lines.append(
        f"excess over the control persons (baseline 0): {g.status.value}, one-sided p "
        f"{_fmt(g.difference.p_value, '.3g')}"
    )
    if g.reason:
        lines.append(f"  {g.reason}")
    n, keys = result.n_inferred, result.inferred
    more = f" (the first {len(keys)} shown)" if n > len(keys) else ""
    shown = ": " + ", ".join(str(k) for k in keys) if keys else ""
    lines.append(
        f"persons inferred beyond the population's statistics, by {key!r}: {n}{more}{shown}"
    )
    lines.append(
        "  their secret is inferred right while a classifier trained on the control persons "
        "alone gets it wrong; some are inferred by chance, as control persons are: read the list "
        "with the excess's interval"
    )
    return "\n".join(lines)


def _release_persons(
    relational: Path,
    folders: dict[str, str | None],
    *,
    root: str | None,
    secret: str,
    rule: Any,
    params: dict[str, Any],
    n_targets: int | None,
    seed: int,
    runtime: Runtime,
    fmt: TextFormat,
    na_values: str | None,
    special_values: list[str] | None,
) -> str:
    """``aia --relational``: :func:`~synthleak.games.person_attribute.play_person_attribute`
    on the release's persons, with the parameters the audit's ``person_attribute`` stage gives
    it (``n_targets`` in the place of the budget's records)."""
    from synthleak.cli.risk_cmds import PersonParts
    from synthleak.data.table import Table
    from synthleak.games.person_attribute import play_person_attribute
    from synthleak.games.secret import validate_secret
    from synthleak.stages.attribute_release import aia_part_size

    missing = [f"--{k}" for k, v in folders.items() if v is None]
    if missing:
        raise InputError(
            f"aia --relational needs {', '.join(missing)} too: --original, --synthetic and "
            "--control, each a folder of one file per table"
        )
    if secret == "all":
        raise InputError(
            "--secret all sweeps the columns of one table; aia --relational infers one column "
            "of the table of persons: name it"
        )
    p = PersonParts(
        relational, folders, root=root, na_values=na_values, special_values=special_values
    )
    ori = p.release.original
    assert isinstance(ori, Table)  # encoded by PersonParts
    validate_secret(
        ori.schema,
        secret,
        None,
        data=ori,
        rule=rule,
        left_out=_left_out(p.profile),
    )
    n_records = None if n_targets is None else min(n_targets, len(p.keys))
    result = play_person_attribute(
        p.release,
        p.keys,
        root=p.root,
        child_tables=p.children,
        secret=secret,
        attack_params=params,
        n_targets=n_records,
        part_size=aia_part_size(n_records),
        secret_rule=rule,
        seed=seed,
        runtime=runtime.sub("person-attribute"),
        log=_stderr_log,
    )
    if fmt is TextFormat.JSON:
        return to_json({"level": "persons", "root": p.root, "key": p.key, **result.to_dict()})
    return render_person_release(result, p.what, p.key)


def _release(
    original: str,
    synthetic: str,
    control: str | None,
    *,
    secret: str,
    quasi_ids: list[str] | None,
    names: list[str],
    params: dict[str, dict[str, Any]],
    n_targets: int | None,
    bins: int,
    bin_strategy: BinStrategy,
    rule: Any,
    seed: int,
    runtime: Runtime,
    fmt: TextFormat,
    overrides: tuple[str | None, str | None, Path | None, str | None, tuple[str, ...]],
) -> str:
    categorical, continuous, schema, na_values, special_values = overrides
    if len(set(names)) != len(names):
        raise InputError("--attacks lists an attack more than once: list each attack once")
    sch, data = load_cli_tables(
        {"original": original, "synthetic": synthetic, "control": control},
        categorical=categorical,
        continuous=continuous,
        schema=schema,
        na_values=na_values,
        special_values=special_values,
    )
    if secret == "all":
        return _sweep(data, names, params, n_targets, bins, rule, seed, runtime, fmt, quasi_ids)
    from synthleak.data.release import Release
    from synthleak.games.secret import validate_secret
    from synthleak.stages.attribute_release import play_attribute_release

    validate_secret(
        sch,
        secret,
        quasi_ids,
        data=data["original"].table,
        rule=rule,
        left_out=_left_out(data["original"].profile),
    )
    release = Release(
        data["original"].table,
        data["synthetic"].table,
        data["control"].table if "control" in data else None,
    )
    results = [
        play_attribute_release(
            release,
            secret=secret,
            quasi_ids=quasi_ids,
            attack=name,
            attack_params=params.get(name),
            n_targets=n_targets,
            bins=bins,
            bin_strategy=bin_strategy,
            secret_rule=rule,
            seed=seed,
            runtime=runtime.sub(f"aia-{name}"),
            log=_stderr_log,
        )
        for name in names
    ]
    if fmt is TextFormat.JSON:
        return to_json({"results": [r.to_dict() for r in results]})
    return render_release(results)


def _sweep(
    data: dict[str, Any],
    names: list[str],
    params: dict[str, dict[str, Any]],
    n_targets: int | None,
    bins: int,
    rule: Any,
    seed: int,
    runtime: Runtime,
    fmt: TextFormat,
    quasi_ids: list[str] | None,
) -> str:
    """``--secret all``: every column of the release as the secret, ranked by excess risk."""
    from synthleak.data.release import Release
    from synthleak.stages.attribute_sweep import play_attribute_sweep

    if "control" not in data:
        raise InputError(
            "--secret all needs --control: real records the generator never saw give each "
            "column's baseline"
        )
    if len(names) != 1:
        raise InputError("--secret all runs one attack per column: give one name in --attacks")
    if quasi_ids or rule is not None:
        raise InputError(
            "--secret all takes every other column as quasi-identifiers and judges numeric "
            "columns by --bins quantile bins: drop --quasi-ids, --secret-tolerance and "
            "--secret-bins"
        )
    release = Release(data["original"].table, data["synthetic"].table, data["control"].table)
    res = play_attribute_sweep(
        release,
        attack=names[0],
        attack_params=params.get(names[0]),
        n_targets=n_targets,
        bins=bins,
        left_out=_left_out(data["original"].profile),
        seed=seed,
        runtime=runtime,
        log=_stderr_log,
    )
    if fmt is TextFormat.JSON:
        return res.to_json()
    return render_sweep(res)


def _holm_p(p: float) -> str:
    """A Holm p-value printed so that it agrees with the flag at 5 % ("> 0.050" just above)."""
    from synthleak.verdicts import ALPHA, p_text

    return "-" if not math.isfinite(p) else p_text(p, ALPHA).removeprefix("= ")


def render_sweep(res: Any) -> str:
    """The sweep as text: one line per column, most exposed first."""
    lines = [
        f"Attribute inference of every column ('{res.attack}'; numeric columns: the right one of "
        "the quantile bins), excess accuracy on training over control records, Holm-corrected "
        f"over {sum(1 for c in res.columns if c.p_value == c.p_value)} columns:"
    ]
    for c in res.columns:
        e = c.excess
        verdict = "INFERRED BEYOND BASELINE" if c.flagged else c.status
        lines.append(
            f"  {c.column:<24} {_fmt(e.value)} ({_fmt(e.ci_low)} - {_fmt(e.ci_high)})  "
            f"train {_fmt(c.accuracy)} control {_fmt(c.control_accuracy)}  "
            f"p(Holm) {_holm_p(c.p_holm)}  {verdict}"
        )
    for col, why in res.skipped.items():
        lines.append(f"  {col:<24} not swept: {why}")
    return "\n".join(lines)


@app.command("utility", rich_help_panel="Data, generators and utility")
def utility_cmd(
    original: OriginalOpt,
    synthetic: SyntheticOpt,
    n_marginals: Annotated[
        int, typer.Option("--n-marginals", help="Random 3-way marginals to average over.")
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
    fmt: FormatOpt = TextFormat.TABLE,
    out: OutOpt = None,
    control: ControlOpt = None,
    relational: RelationalOpt = None,
    root: RootOpt = None,
) -> None:
    """Utility of --synthetic against --original: MRE over 3-way marginal cells above a count
    and the average 3-way total variation distance.

    With --relational, --original, --synthetic and --control are folders of one file per table,
    and the figures are the audit's utility stage's: measured on one row per person (the root
    row with their child rows summarised, encoded as the audit encodes it), with bootstrap
    intervals over the marginals and, with --control, the control's figures as the reference.

    JSON: {"mre_gt10", "tvd3", "marginals", "threshold", ...}; with --relational also "level",
    "root", "key", the intervals and the reference.
    """
    if out is not None:
        check_out_path(out)
    if n_marginals < 1:
        raise InputError(f"--n-marginals must be at least 1, got {n_marginals}")
    if relational is not None:
        refuse_single_table_flags(
            {"--categorical": categorical, "--continuous": continuous, "--schema": schema}
        )
        text = _relational_utility(
            relational,
            {"original": original, "synthetic": synthetic, "control": control},
            root=root,
            na_values=na_values,
            n_marginals=n_marginals,
            threshold=threshold,
            bins=bins,
            seed=seed,
            fmt=fmt,
        )
        emit(text, out)
        return
    refuse_root_alone(root)
    if control is not None:
        raise InputError(
            "--control gives the reference of utility --relational: leave it out for one table"
        )
    _, data = load_cli_tables(
        {"original": original, "synthetic": synthetic},
        categorical=categorical,
        continuous=continuous,
        schema=schema,
        na_values=na_values,
    )
    from synthleak.metrics.utility import utility_report

    ori, syn = data["original"], data["synthetic"]
    rep = utility_report(
        ori.table,
        syn.table,
        n_marginals=n_marginals,
        threshold=threshold,
        bins=bins,
        rng=make_rng(seed),
    )
    if fmt is TextFormat.JSON:
        emit(to_json(rep), out)
    else:
        emit(
            "\n".join(
                f"{k:<12} {v:.4f}" if isinstance(v, float) else f"{k:<12} {v}"
                for k, v in rep.items()
            ),
            out,
        )


def _relational_utility(
    relational: Path,
    folders: dict[str, str | None],
    *,
    root: str | None,
    na_values: str | None,
    n_marginals: int,
    threshold: float,
    bins: int,
    seed: int,
    fmt: TextFormat,
) -> str:
    """``utility --relational``: the audit's ``utility`` stage on the persons of the folders
    (:func:`~synthleak.metrics.utility.utility_estimate` on the person-level views, encoded as
    the audit encodes them, with the stage's random stream), as JSON or text."""
    from synthleak.cli.risk_cmds import PersonParts
    from synthleak.data.table import Table
    from synthleak.metrics.utility import utility_estimate
    from synthleak.stages.base import STAGE_STREAM

    p = PersonParts(relational, folders, root=root, na_values=na_values, special_values=None)
    rel = p.release
    assert isinstance(rel.original, Table) and isinstance(rel.synthetic, Table)
    assert rel.control is None or isinstance(rel.control, Table)
    rep = utility_estimate(
        rel.original,
        rel.synthetic,
        rel.control,
        n_marginals=n_marginals,
        threshold=threshold,
        bins=bins,
        rng=STAGE_STREAM.sub("utility").rng(seed),  # the audit's utility stage's stream
    )
    if fmt is TextFormat.JSON:
        return to_json({"level": "persons", "root": p.root, "key": p.key, **rep})
    children = ", ".join(repr(t) for t in p.children) or "no other table"
    lines = [
        f"Measured on one row per person: the rows of table {p.root!r} (key {p.key!r}), each "
        f"with their child rows in {children} summarised (counts, aggregates)."
    ]
    for k, v in rep.items():
        if k.startswith("reference_") and not rep["n_reference"]:
            continue
        if isinstance(v, tuple):
            lines.append(f"{k:<18} {_fmt(v[0], '.4f')} - {_fmt(v[1], '.4f')}")
        elif isinstance(v, float):
            lines.append(f"{k:<18} {_fmt(v, '.4f')}")
        else:
            lines.append(f"{k:<18} {v}")
    if not rep["n_reference"]:
        lines.append(
            "reference          not measured: needs --control DIR (real persons the generator "
            "never saw)"
        )
    return "\n".join(lines)
