"""``synthleak mia``: membership inference, in two forms.

Black-box (shadow modelling against a generator): ``synthleak mia DATA --generator SPEC ...``.
JSON::

    {"mode": "black-box",
     "config": {"generator": str, "targets": str, "train_size": int, "synthetic_size": int,
                "n_shadows": int, "n_tests": int, "pool": str, "knowledge": str, ...},
     "targets": [{"row": int, "selected_by": str,
                  "attacks": {"query": {"auc": f, "auc_ci": [lo, hi], "accuracy": f,
                                        "tpr_at_fpr": {"0.1": f, "0.01": f}, "n_tests": int,
                                        "error": str|null}, ...}}],
     "summary": {"query": {"auc_mean": f, "auc_sd": f, "accuracy_mean": f, "n_targets": int}},
     "summary_by_selector": {"distance": {"query": {...}}, ...},
     "failures": {"failed_datasets": int, "total_datasets": int, "messages": {str: int}},
     "epsilon": {"lower_bound": f, "confidence": 0.95, "ceiling": f, "claimed": f|null,
                 "verdict": str, "mu": f, ...},
     "policy": {...}|null}

No-box (a release without its generator):
``synthleak mia --original ORI --synthetic SYN --control CTRL [--attacks names] [--rows i,j]``::

    {"mode": "no-box",
     "attacks": {"<name>": {"auc": f, "auc_ci": [lo, hi],
                            "tpr_at_fpr": {"0.1": f, "0.01": f, "0.001": f | null},
                            "tpr_at_fpr_ci": {"<fpr>": TPR}}},
     "best": {"attack": str, "auc": f, "auc_ci": [lo, hi], "selection_auc": f,
              "selected_on": int, "evaluated_on": int, "tpr_at_fpr": {"<fpr>": TPR}},
     "ensemble": {"attacks": [str], "weights": {"<name>": f}, "intercept": f, "auc": f,
                  "auc_ci": [lo, hi], "selection_auc": f, "selected_on": int,
                  "evaluated_on": int, "tpr_at_fpr": {"<fpr>": TPR}} | null,
     "records": [{"row": int, "v_k": f, "selected_by": str,
                  "scores": {"<name>": {"score": f, "percentile": f, "p_value": f}}}],
     "copies": {...}, "sizes": {...}, "notes": [...], "policy": {...}|null}

Release form (the shadow-release attack on the given release:
:func:`synthleak.stages.membership_release.play_membership_release`):
``synthleak mia --synthetic REL --original ORI --control CTRL (--shadow-releases DIR |
--generator SPEC [--shadows K])``::

    {"mode": "release", "shadows_from": str, "n_shadows": int, "n_examples": int,
     "n_members": int, "n_non_members": int, "n_dropped": int,
     "auc": f, "auc_ci": [lo, hi], "auc_p_value": f,
     "tpr_at_fpr": {"<fpr>": {"tpr": f | null, "ci": [lo, hi] | null, "n_non_members": int,
                              "note": str}},
     "records": [{"row": int, "score": f, "p_value": f}], "fit_seconds": f, "score_seconds": f,
     "policy": {...}|null}

No-box form on persons (a relational release, :class:`synthleak.games.person.PersonMembershipGame`
as the audit's ``person_membership`` stage plays it):
``synthleak mia --relational META.json --original DIR --synthetic DIR --control DIR``, each
folder one file per table::

    {"mode": "no-box persons", "root": str, "key": str,
     ...PersonMembershipResult.to_dict(): "attacks", "best", "select_by", "member_keys",
     "non_member_keys", "n_reference", "n_synthetic_persons", "notes", "exposed"}

Black-box form on persons (a relational generator,
:func:`synthleak.games.person_shadow.play_person_shadow` as the audit's ``person_shadow``
stage plays it): ``synthleak mia --relational META.json DIR --generator SPEC`` (``--targets
random:N``, ``--shadows``, ``--tests``, ``--train-size``)::

    {"mode": "black-box persons", "root": str, "key": str,
     ...PersonShadowResult.to_dict(): "attacks", "primary", "generator", "target_keys",
     "target_auc", "n_shadows", "n_tests", "train_size", "failed", "notes",
     "target_ci_low", "target_ci_high"}

With ``--candidates FILE`` instead of ``--original`` (and ``--control`` only for
``--generator``), it writes a CSV ``row,score``: one score per candidate record, in file order.

where ``TPR`` is ``{"tpr": f | null, "ci": [lo, hi] | null, "n_non_members": int,
"note": str}`` (``null`` and a note when too few non-members resolve that FPR; ``best`` and
``ensemble`` are measured on the evaluation half).

References
----------
Meeus et al. (2023), Sec. 2.3, Sec. 5.1, Sec. 5.5, Tables 1-2 (black-box game).
See :mod:`synthleak.games.nobox` for the no-box game.
"""

from __future__ import annotations

import json
import math
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from synthleak.cli.app import app
from synthleak.cli.common import (
    SHADOWS_HELP,
    BatchSizeOpt,
    CategoricalOpt,
    ClaimedEpsilonOpt,
    ClusterOpt,
    ContinuousOpt,
    ControlOpt,
    DeltaOpt,
    FailOnOpt,
    FormatOpt,
    GameTrainSizeOpt,
    JunitOpt,
    KOpt,
    MaxTimeOpt,
    NaValuesOpt,
    NeighbouringOpt,
    NQueriesOpt,
    OriginalOpt,
    OutOpt,
    PolicyOpt,
    RelationalOpt,
    RootOpt,
    RunDirOpt,
    SchemaOpt,
    SeedOpt,
    ShadowReleasesOpt,
    SpecialValuesOpt,
    SyntheticOpt,
    SyntheticSizeOpt,
    TextFormat,
    WorkersOpt,
    check_out_path,
    emit,
    exit_for_policy,
    load_cli_data,
    load_cli_policy,
    load_cli_tables,
    load_relational_parts,
    make_runtime,
    note_inferred_domain,
    option_given,
    parse_sizes,
    parse_targets,
    refuse_given,
    refuse_root_alone,
    refuse_single_table_flags,
    report_policy,
    screen_targets,
    split_list,
    split_screen_targets,
    to_json,
)
from synthleak.errors import InputError
from synthleak.modes import Knowledge, Neighbouring, PoolMode

if TYPE_CHECKING:
    from synthleak.games.membership import MembershipResult
    from synthleak.metrics.epsilon import EpsilonEstimate


def _fmt(x: Any) -> str:
    return "nan" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.3f}"


def render_table(result: MembershipResult, epsilon: EpsilonEstimate | None = None) -> str:
    """A plain-text table: one line per target and attack, then the summary."""
    cfg = result.config
    lines = [
        f"membership inference: generator {cfg.generator}, train size {cfg.train_size}, "
        f"synthetic size {cfg.synthetic_size}, shadows {cfg.n_shadows}, tests {cfg.n_tests}, "
        f"pool {cfg.pool.value}",
        f"{'row':>8}  {'selected_by':<16} {'attack':<10} {'AUC':>6}  {'95% CI':<13} {'acc':>6} "
        f"{'TPR@.1':>7} {'TPR@.01':>8}",
    ]
    for t in result.targets:
        for a in cfg.attacks:
            o = t.attacks.get(a)
            if o is None:
                continue
            ci = f"{_fmt(o.auc.ci_low)}-{_fmt(o.auc.ci_high)}"
            lines.append(
                f"{t.row:>8}  {t.selected_by:<16} {a:<10} {_fmt(o.auc.value):>6}  {ci:<13} "
                f"{_fmt(o.accuracy):>6} {_fmt(o.tpr_at_fpr['0.1']):>7} "
                f"{_fmt(o.tpr_at_fpr['0.01']):>8}"
            )
    lines.append("summary (mean ± s.d. of AUC across targets):")
    for a, s in result.summary().items():
        lines.append(f"  {a:<10} {_fmt(s.auc_mean)} ± {_fmt(s.auc_sd)}  ({s.n_targets} targets)")
    fails = result.failures
    if fails.failed_datasets:
        lines.append(
            f"generator failures: {fails.failed_datasets} of {fails.total_datasets} "
            "datasets dropped"
        )
    if epsilon is not None:
        lines.append(
            f"empirical epsilon: >= {_fmt(epsilon.lower_bound)} at {epsilon.confidence:.0%} "
            f"(the most this budget could show: {_fmt(epsilon.ceiling)}); {epsilon.message}"
        )
    return "\n".join(lines)


EPSILON_FILE = "epsilon.json"
"""The epsilon audit of a black-box run, kept in its run directory beside ``result.json``."""
BLACK_BOX_FORM = "synthleak mia DATA --generator SPEC"
NO_BOX_FORM = "synthleak mia --original ORI --synthetic SYN --control CTRL"
#: options of one form only (flag, parameter name)
_BLACK_BOX_ONLY = (
    ("--targets", "targets"),
    ("--train-size", "train_size"),
    ("--synthetic-size", "synthetic_size"),
    ("--shadows", "shadows"),
    ("--tests", "tests"),
    ("--n-queries", "n_queries"),
    ("--pool", "pool"),
    ("--aux-size", "aux_size"),
    ("--test-size", "test_size"),
    ("--batch-size", "batch_size"),
    ("--knowledge", "knowledge"),
    ("--claimed-epsilon", "claimed_epsilon"),
    ("--delta", "delta"),
    ("--neighbouring", "neighbouring"),
    ("--max-time", "max_time"),
    ("--run-dir", "run_dir"),
    ("--cluster", "cluster"),
)
_NO_BOX_ONLY = (
    ("--rows", "rows"),
    ("--n-members", "n_members"),
    ("--n-non-members", "n_non_members"),
    ("--n-exposed", "n_exposed"),
)


#: Options of neither form on persons (``--relational``).
_NOT_ON_PERSONS = (
    ("--shadow-releases", "shadow_releases"),
    ("--candidates", "candidates"),
    ("--k", "k"),
    ("--fail-on", "fail_on"),
    ("--policy", "policy"),
    ("--junit", "junit"),
    ("--special-values", "special_values"),
)


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
    e = doc.get("ensemble")
    if e:
        lines.append(
            f"ensemble of {len(e['attacks'])} attacks (weighted on the selection half): AUC "
            f"{_fmt(e['auc'])} (95% CI {_fmt(e['auc_ci'][0])}-{_fmt(e['auc_ci'][1])}) on "
            f"{e['evaluated_on']} held-out records"
        )
    for label, block in (("strongest", b), ("ensemble", e)):
        for f, t in ((block or {}).get("tpr_at_fpr") or {}).items():
            ci = t["ci"]
            lines.append(
                f"  {label} TPR at FPR {f}: "
                + (
                    f"{_fmt(t['tpr'])} (95% CI {_fmt(ci[0])}-{_fmt(ci[1])}, "
                    f"{t['n_non_members']} non-members)"
                    if t["tpr"] is not None
                    else f"not resolvable at this size ({t['n_non_members']} non-members)"
                )
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
    fmt: TextFormat,
    out: Path | None,
    gate: Any,
    junit: Path | None,
    categorical: str | None,
    continuous: str | None,
    schema: Path | None,
    na_values: str | None,
    special_values: tuple[str, ...] = (),
) -> None:
    from synthleak.data.release import Release
    from synthleak.findings import nobox_metrics
    from synthleak.games.nobox import DEFAULT_ATTACKS, NoBoxMembershipGame
    from synthleak.policy import METRICS
    from synthleak.runtime import Runtime

    if out is not None:
        check_out_path(out)
    sch, loaded = load_cli_tables(
        {"original": original, "synthetic": synthetic, "control": control},
        categorical=categorical,
        continuous=continuous,
        schema=schema,
        na_values=na_values,
        special_values=special_values,
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
    outcome = None
    if gate is not None:
        outcome = gate.evaluate({name: None for name in METRICS} | nobox_metrics(result))
    doc = json.loads(to_json(result.summary()))
    doc["policy"] = None if outcome is None else outcome.to_dict()
    emit(to_json(doc) if fmt is TextFormat.JSON else render_nobox_table(doc), out)
    report_policy(outcome, junit)
    exit_for_policy(outcome)


def render_person_table(result: Any, root: str, key: str) -> str:
    """Plain text of :class:`~synthleak.games.person.PersonMembershipResult`: every attack's AUC
    and TPR at FPR 0.1 with intervals, the strongest attack's held-out figures, and the most
    exposed members by root key."""

    def tpr(t: Any) -> str:
        if t.value is None:
            return "n/a"
        return f"{_fmt(t.value)} ({_fmt(t.ci_low)}-{_fmt(t.ci_high)})"

    lines = [
        f"no-box membership inference of persons (rows of table {root!r} with their child "
        f"rows, key {key!r}): {len(result.member_keys)} members, {len(result.non_member_keys)} "
        f"non-members (control persons), reference {result.n_reference}, synthetic "
        f"{result.n_synthetic_persons} persons",
        f"{'attack':<40} {'AUC':>6}  {'95% CI':<13} TPR@.1 (95% CI)",
    ]
    for name, a in result.attacks.items():
        ci = f"{_fmt(a.auc.ci_low)}-{_fmt(a.auc.ci_high)}"
        lines.append(f"{name:<40} {_fmt(a.auc.value):>6}  {ci:<13} {tpr(a.tpr_at_fpr['0.1'])}")
    b = result.best_attack
    e = b.evaluation_auc
    lines.append(
        f"strongest ({result.select_by} on a random half of the persons): {result.best}, AUC "
        f"{_fmt(e.value)} (95% CI {_fmt(e.ci_low)}-{_fmt(e.ci_high)}; baseline 0.5) on "
        f"{e.n_trials} held-out persons; on the selection half AUC {_fmt(b.selection_auc)}"
    )
    for f, t in b.evaluation_tpr.items():
        lines.append(
            f"  strongest TPR at FPR {f} (held out): "
            + (tpr(t) if t.value is not None else f"not resolvable ({t.note})")
        )
    lines.append(
        "  attacks named root:... see the root table's own columns only (the row-level figure); "
        "child-... see the child rows"
    )
    if result.exposed:
        lines.append(
            f"most exposed members by {key!r} (percentile of the score among non-members):"
        )
        for p in result.exposed:
            lines.append(f"  {p.key}: {p.percentile:.1f}")
    for note in result.notes:
        lines.append(f"note: {note}")
    return "\n".join(lines)


def _nobox_persons(
    relational: Path,
    folders: dict[str, str | None],
    *,
    root: str | None,
    attack_names: list[str],
    n_members: int | None,
    n_non_members: int | None,
    seed: int,
    fmt: TextFormat,
    out: Path | None,
    na_values: str | None,
) -> None:
    """``mia --relational``: the no-box game on persons, as the audit's ``person_membership``
    stage plays it (:class:`~synthleak.games.person.PersonMembershipGame`)."""
    from synthleak.games.nobox import DEFAULT_ATTACKS
    from synthleak.games.person import PersonMembershipGame

    missing = [f"--{k}" for k, v in folders.items() if v is None]
    if missing:
        raise InputError(
            f"mia --relational needs {', '.join(missing)} too: --original, --synthetic and "
            "--control, each a folder of one file per table"
        )
    if out is not None:
        check_out_path(out)
    parts = load_relational_parts(relational, folders, na_values=na_values)
    sch = parts["original"].schema
    person = sch.person_table(root)
    key = sch.key_of(person)
    result = PersonMembershipGame(
        attacks=tuple(attack_names) or DEFAULT_ATTACKS,
        root=person,
        n_members=n_members,
        n_non_members=n_non_members,
    ).run(parts["original"], parts["synthetic"], parts["control"], seed=seed)
    if fmt is TextFormat.JSON:
        doc = {"mode": "no-box persons", "root": person, "key": key, **result.to_dict()}
        text = to_json(doc)
    else:
        text = render_person_table(result, person, key)
    emit(text, out)


def _random_targets(value: str) -> int:
    """``--targets random:N`` of the shadow-model game on persons (its targets are drawn at
    random); any other selector is refused."""
    kind, _, n = value.partition(":")
    if kind.strip() != "random" or not n.strip().isdigit() or int(n) < 1:
        raise InputError(
            f"--targets {value}: the shadow-model game on persons draws its targets at random; "
            "give random:N (N persons) or leave --targets out"
        )
    return int(n)


def _shadow_persons(
    relational: Path,
    folder: str,
    spec: str,
    *,
    root: str | None,
    options: dict[str, int | None],
    seed: int,
    fmt: TextFormat,
    out: Path | None,
    na_values: str | None,
) -> None:
    """``mia --relational DATA --generator SPEC``: the shadow-model game on persons, as the
    audit's ``person_shadow`` stage plays it
    (:func:`~synthleak.games.person_shadow.play_person_shadow`); ``options`` are the game's
    parameters given (``None``: its default)."""
    from synthleak.cli.riskmap import shadow_persons

    if out is not None:
        check_out_path(out)
    result, person, key = shadow_persons(
        relational, folder, spec, root=root, na_values=na_values, seed=seed, options=options
    )
    if fmt is TextFormat.JSON:
        doc = {"mode": "black-box persons", "root": person, "key": key, **result.to_dict()}
        emit(to_json(doc), out)
        return
    a = result.primary_attack
    lines = [
        f"shadow-model membership inference of persons (rows of table {person!r} with their "
        f"child rows, key {key!r}), generator {result.generator}: {len(result.target_keys)} "
        f"target persons, {result.n_shadows} shadow and {result.n_tests} test releases of "
        f"{result.train_size} persons",
        f"AUC of {result.primary} {_fmt(a.auc.value)} (95% CI {_fmt(a.auc.ci_low)}-"
        f"{_fmt(a.auc.ci_high)}; baseline 0.5)",
    ]
    for f, t in a.tpr_at_fpr.items():
        lines.append(
            f"  TPR at FPR {f}: "
            + (
                f"{_fmt(t.value)} ({_fmt(t.ci_low)}-{_fmt(t.ci_high)})"
                if t.value is not None
                else f"not resolvable ({t.note})"
            )
        )
    lines.append(f"targets by {key!r}, their AUC over the test releases (95% CI):")
    nan = [float("nan")] * len(result.target_keys)
    low, high = result.target_ci_low or nan, result.target_ci_high or nan
    order = sorted(range(len(result.target_keys)), key=lambda i: -result.target_auc[i])
    lines += [
        f"  {result.target_keys[i]}: {_fmt(result.target_auc[i])} ({_fmt(low[i])}-{_fmt(high[i])})"
        for i in order
    ]
    lines += [f"note: {n}" for n in result.notes]
    emit("\n".join(lines), out)


def _check_form(
    ctx: typer.Context, *, data: str | None, generator: str | None, nobox_given: list[str]
) -> None:
    """Refuse a mix of the two forms' options, or a form missing what it needs."""
    if nobox_given:
        mixed = (["DATA"] if data is not None else []) + (
            ["--generator"] if generator is not None else []
        )
        mixed += [flag for flag, name in _BLACK_BOX_ONLY if option_given(ctx, name)]
        if mixed:
            raise InputError(
                f"{', '.join(mixed)} belong to the black-box form ({BLACK_BOX_FORM}); "
                f"the no-box form is {NO_BOX_FORM}: use one form"
            )
        missing = [f for f in ("--original", "--synthetic", "--control") if f not in nobox_given]
        if missing:
            raise InputError(f"the no-box form needs {', '.join(missing)} too: {NO_BOX_FORM}")
        return
    nobox_only = [flag for flag, name in _NO_BOX_ONLY if option_given(ctx, name)]
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


def _black_box_attacks(attacks: str | None, knowledge: Knowledge) -> list[str]:
    """The black-box form's ``--attacks`` (its default for ``knowledge``), refusing an attack
    that needs exact knowledge without ``--knowledge exact``."""
    names = split_list(attacks) or ["query", "distance", "groundhog"] + (
        ["novelty"] if knowledge is Knowledge.EXACT else []
    )
    if knowledge is not Knowledge.EXACT:
        from synthleak.attacks.base import AttackFamily, resolve_attacks
        from synthleak.games.membership import exact_knowledge_attacks

        exact_only = exact_knowledge_attacks(resolve_attacks(AttackFamily.MEMBERSHIP, names, None))
        if exact_only:
            raise InputError(
                f"the {', '.join(exact_only)} attack uses the other training records, which "
                "only an attacker with exact knowledge has: add --knowledge exact or drop it "
                "from --attacks"
            )
    return names


RELEASE_FORM = (
    "synthleak mia --synthetic REL --original ORI --control CTRL "
    "(--shadow-releases DIR | --generator SPEC)"
)
CANDIDATES_FORM = (
    "synthleak mia --synthetic REL --candidates FILE (--shadow-releases DIR | --generator SPEC "
    "--control CTRL)"
)


def render_release_table(doc: dict[str, Any]) -> str:
    """Plain text of the release form's JSON document."""
    lines = [
        f"membership inference on the release: attack learned from {doc['n_shadows']} shadow "
        f"releases ({doc['shadows_from']}), {doc['n_members']} members (--original) against "
        f"{doc['n_non_members']} non-members (--control)",
        f"  AUC {_fmt(doc['auc'])} (95% CI {_fmt(doc['auc_ci'][0])}-{_fmt(doc['auc_ci'][1])}; "
        "a random guess scores 0.5)",
    ]
    for f, t in doc["tpr_at_fpr"].items():
        ci = t["ci"]
        lines.append(
            f"  TPR at FPR {f}: "
            + (
                f"{_fmt(t['tpr'])} (95% CI {_fmt(ci[0])}-{_fmt(ci[1])}, "
                f"{t['n_non_members']} non-members)"
                if t["tpr"] is not None
                else f"not resolvable at this size ({t['n_non_members']} non-members)"
            )
        )
    if doc["n_dropped"]:
        lines.append(
            f"note: {doc['n_dropped']} records held by a shadow release's training set were not "
            "scored (their signals are calibrated on fewer shadow releases)"
        )
    verbatim = doc.get("verbatim")
    if verbatim and verbatim["found"]:
        from synthleak.attacks.mia_shadow_release import VerbatimCheck

        lines.append(f"note: {VerbatimCheck.from_dict(verbatim).sentence()}")
    if doc["records"]:
        lines.append(
            "records exposed (rows of --original; share: non-members scoring as high, "
            "(1 + k) / (1 + n)):"
        )
        for r in doc["records"]:
            lines.append(f"  row {r['row']:>7}: score {_fmt(r['score'])}, share {r['p_value']:.2g}")
    lines.append(
        "This attacks the release itself; the generator-level game (DATA --generator SPEC) "
        "measures how much the generator leaks chosen targets on datasets it draws itself."
    )
    return "\n".join(lines)


def _release_form(
    *,
    synthetic: str,
    original: str | None,
    control: str | None,
    shadow_dir: str | None,
    generator: str | None,
    candidates: str | None,
    n_shadows: int | None,
    synthetic_size: int | None,
    n_members: int | None,
    n_non_members: int | None,
    n_exposed: int,
    seed: int,
    fmt: TextFormat,
    out: Path | None,
    na_values: str | None,
    gate: Any = None,
    junit: Path | None = None,
    workers: int = 1,
) -> None:
    """The release form: the shadow-release attack on the given release
    (:func:`~synthleak.stages.membership_release.play_membership_release`), or its scores of
    records of unknown membership (``--candidates``). ``workers`` train the shadow releases
    ``--generator`` makes (the same shadows on any number)."""
    import pandas as pd

    from synthleak.data.io import check_source, read_frame
    from synthleak.data.shadow_releases import read_shadow_releases
    from synthleak.games.cost import format_seconds
    from synthleak.stages.membership_release import (
        DEFAULT_SHADOWS,
        generator_shadows,
        play_membership_release,
        score_candidates,
    )

    if shadow_dir is not None and generator is not None:
        raise InputError(
            "give --shadow-releases DIR or --generator SPEC (synthleak makes the shadow releases "
            "with it), not both"
        )
    if shadow_dir is None and generator is None:
        raise InputError(
            f"--candidates needs shadow releases to learn from: {CANDIDATES_FORM}"
            if candidates is not None
            else f"the release form needs --shadow-releases DIR or --generator SPEC: {RELEASE_FORM}"
        )
    if candidates is not None and original is not None:
        raise InputError(
            "--candidates scores records of unknown membership and --original gives the "
            f"members: use one ({CANDIDATES_FORM}, or {RELEASE_FORM})"
        )
    if candidates is None:
        missing = [f for f, p in (("--original", original), ("--control", control)) if p is None]
        if missing:
            raise InputError(f"the release form needs {', '.join(missing)} too: {RELEASE_FORM}")
    if generator is not None and control is None:
        raise InputError(
            "--generator makes the shadow releases from --control's records: give --control CTRL"
        )
    if (n_shadows is not None or synthetic_size is not None) and generator is None:
        raise InputError(
            "--shadows and --synthetic-size size the shadow releases --generator makes; a "
            "folder of shadow releases is used as it is: drop them"
        )
    if out is not None:
        check_out_path(out)
    sources = {"synthetic": synthetic, "original": original, "control": control}
    sources |= {"candidates": candidates}
    given = {k: v for k, v in sources.items() if v is not None}
    for src in given.values():
        check_source(src)
    frames = {k: read_frame(v, na_values=split_list(na_values)) for k, v in given.items()}

    def say(line: str) -> None:
        typer.echo(f"synthleak: {line}", err=True)

    started = time.perf_counter()
    control_rows = None
    if generator is not None:
        k = DEFAULT_SHADOWS if n_shadows is None else n_shadows
        say(
            f"making {k} shadow releases with '{generator}', each trained on a random half of "
            "half the control records (the other half is scored as non-members)"
        )
        shadows, control_rows = generator_shadows(
            generator,
            frames["control"],
            n_shadows=k,
            synthetic_size=synthetic_size,
            seed=seed,
            log=say,
            runtime=make_runtime(workers=workers),
        )
        shadows_from = f"generator {generator}"
    else:
        assert shadow_dir is not None
        shadows = read_shadow_releases(shadow_dir)
        shadows_from = f"folder {Path(shadow_dir).name}"
        say(f"read {len(shadows)} shadow releases from {shadow_dir}")
    if candidates is not None:
        say(
            f"learning from {len(shadows)} shadow releases, then scoring "
            f"{len(frames['candidates'])} candidates"
        )
        scores = score_candidates(shadows, frames["synthetic"], frames["candidates"], seed=seed)
        table = pd.DataFrame({"row": range(len(scores)), "score": scores})
        emit(table.to_csv(index=False), out)
        say(f"scored {len(scores)} candidates in {format_seconds(time.perf_counter() - started)}")
        return
    ctrl = frames["control"]
    if control_rows is not None:
        ctrl = ctrl.iloc[control_rows].reset_index(drop=True)
    result = play_membership_release(
        shadows,
        frames["original"],
        frames["synthetic"],
        ctrl,
        seed=seed,
        n_members=n_members,
        n_non_members=n_non_members,
        n_exposed=n_exposed,
        control_rows=control_rows,
        shadows_from=shadows_from,
        log=say,
    )
    say(f"the attack took {format_seconds(time.perf_counter() - started)}")
    outcome = None
    if gate is not None:
        from synthleak.policy import METRICS, Metric

        metrics = {name: None for name in METRICS}
        outcome = gate.evaluate(
            metrics | {"membership.release.auc": Metric.from_estimate(result.auc)}
        )
    doc = {"mode": "release"} | json.loads(to_json(result.summary()))
    doc["policy"] = None if outcome is None else outcome.to_dict()
    emit(to_json(doc) if fmt is TextFormat.JSON else render_release_table(doc), out)
    report_policy(outcome, junit)
    exit_for_policy(outcome)


# long: the command composes the black-box game itself (not yet the membership stage's)
@app.command("mia", rich_help_panel="Privacy games (one attack family each)")
def mia_cmd(
    ctx: typer.Context,
    data: Annotated[
        str | None,
        typer.Argument(
            help="Black-box form: CSV, CSV.GZ or Parquet file, or 'adult'/'adult-complete' "
            "(the full dataset the targets come from)."
        ),
    ] = None,
    generator: Annotated[
        str | None,
        typer.Option(
            "--generator",
            help="Black-box form: generator spec, e.g. synthpop. Beside --synthetic (release "
            "form): the release's generator, run --shadows times (default 8) on halves of half "
            "of --control to make shadow releases.",
        ),
    ] = None,
    original: OriginalOpt = None,
    synthetic: SyntheticOpt = None,
    control: ControlOpt = None,
    shadow_releases: ShadowReleasesOpt = None,
    candidates: Annotated[
        str | None,
        typer.Option(
            "--candidates",
            help="Release form: records of unknown membership to score on --synthetic; writes "
            "a CSV of row,score (to --out or stdout).",
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
            help="screen:N (default; two-stage audit: a cheap shadow-model screen of the "
            "rarest records ranks them by measured risk), top:N (most vulnerable by V_k, Meeus "
            "et al. 2023), rare:N, loglik:N, rarity:N (cell rarity), random:N or rows:i,j; "
            "join several with '+'.",
        ),
    ] = "screen:10",
    train_size: GameTrainSizeOpt = 1000,
    synthetic_size: SyntheticSizeOpt = None,
    shadows: Annotated[int, typer.Option("--shadows", help=SHADOWS_HELP)] = 4000,
    tests: Annotated[int, typer.Option("--tests", help="Test datasets (challenger).")] = 200,
    attacks: Annotated[
        str | None,
        typer.Option(
            "--attacks",
            help="Comma-separated attack names. Black-box: query, distance, groundhog, attention, "
            "lira, rmia, meta, novelty (exact knowledge only) (default query,distance,groundhog, "
            "and novelty with --knowledge exact). No-box: dcr, dcr-diff, domias, "
            "neighbourhood, classifier (default all).",
        ),
    ] = None,
    n_queries: NQueriesOpt = 100_000,
    pool: Annotated[
        PoolMode,
        typer.Option("--pool", help="shared: one pool for all targets; single: one per target."),
    ] = PoolMode.SHARED,
    aux_size: Annotated[
        int | None,
        typer.Option("--aux-size", help="Attacker's auxiliary records (default as Table 1)."),
    ] = None,
    test_size: Annotated[
        int | None,
        typer.Option("--test-size", help="Challenger's test records (default as Table 1)."),
    ] = None,
    k: KOpt = 5,
    batch_size: BatchSizeOpt = 50,
    knowledge: Annotated[
        Knowledge,
        typer.Option(
            "--knowledge",
            help="What the attacker knows besides the target: auxiliary records of the population "
            "(auxiliary), or every training record (exact: the worst case, for DP audits).",
        ),
    ] = Knowledge.AUXILIARY,
    claimed_epsilon: ClaimedEpsilonOpt = None,
    delta: DeltaOpt = 1e-5,
    neighbouring: NeighbouringOpt = Neighbouring.ADD_REMOVE,
    fail_on: FailOnOpt = None,
    policy: PolicyOpt = None,
    junit: JunitOpt = None,
    max_time: MaxTimeOpt = None,
    workers: WorkersOpt = 1,
    cluster: ClusterOpt = None,
    run_dir: RunDirOpt = None,
    seed: SeedOpt = 0,
    fmt: FormatOpt = TextFormat.TABLE,
    out: OutOpt = None,
    categorical: CategoricalOpt = None,
    continuous: ContinuousOpt = None,
    schema: SchemaOpt = None,
    na_values: NaValuesOpt = None,
    special_values: SpecialValuesOpt = None,
    relational: RelationalOpt = None,
    root: RootOpt = None,
) -> None:
    """Membership inference: against a generator (DATA --generator SPEC, shadow modelling),
    against a release without its generator (--original, --synthetic, --control), or against
    the release with shadow releases of its generator (add --shadow-releases DIR, or
    --generator SPEC to make them from --control; --candidates FILE scores records of unknown
    membership).

    Method: Meeus et al. (2023), Sec. 2.3 (game) and Sec. 5.1 (query-based attack); no-box
    attacks after van Breugel et al. (2023), Houssiau et al. (2022) and Hayes et al. (2019).
    """
    gate = load_cli_policy(fail_on, policy, junit)
    if relational is not None and generator is not None:  # the shadow-model game on persons
        refuse_given(
            ctx,
            (
                ("--original", "original"),
                ("--synthetic", "synthetic"),
                ("--control", "control"),
                *(
                    (f, n)
                    for f, n in _BLACK_BOX_ONLY
                    if n not in ("targets", "train_size", "shadows", "tests")
                ),
                *_NO_BOX_ONLY,
                ("--attacks", "attacks"),
                *_NOT_ON_PERSONS,
            ),
            "mia --relational with --generator (the shadow-model game on persons: --relational "
            "META DATA --generator SPEC)",
        )
        if data is None:
            raise InputError(
                "mia --relational --generator needs DATA: the folder of the persons' tables "
                "(the population the shadow training sets are drawn from)"
            )
        refuse_single_table_flags(
            {"--categorical": categorical, "--continuous": continuous, "--schema": schema}
        )
        given = {
            "n_targets": _random_targets(targets) if option_given(ctx, "targets") else None,
            "train_size": train_size if option_given(ctx, "train_size") else None,
            "n_shadows": shadows if option_given(ctx, "shadows") else None,
            "n_tests": tests if option_given(ctx, "tests") else None,
        }
        _shadow_persons(
            relational, data, generator, root=root, options=given, seed=seed, fmt=fmt, out=out,
            na_values=na_values,
        )  # fmt: skip
        return
    if relational is not None:  # the no-box form on persons
        refuse_given(
            ctx,
            (*_BLACK_BOX_ONLY, ("--rows", "rows"), ("--n-exposed", "n_exposed"), *_NOT_ON_PERSONS),
            "mia --relational (the no-box game on persons: --relational META --original DIR "
            "--synthetic DIR --control DIR)",
            data=data,
        )
        refuse_single_table_flags(
            {"--categorical": categorical, "--continuous": continuous, "--schema": schema}
        )
        _nobox_persons(
            relational,
            {"original": original, "synthetic": synthetic, "control": control},
            root=root,
            attack_names=split_list(attacks),
            n_members=n_members,
            n_non_members=n_non_members,
            seed=seed,
            fmt=fmt,
            out=out,
            na_values=na_values,
        )
        return
    refuse_root_alone(root)
    if (
        shadow_releases is not None
        or candidates is not None
        or (synthetic is not None and generator is not None)
    ):
        wrong = (["DATA"] if data is not None else []) + [
            flag
            for flag, name in (*_BLACK_BOX_ONLY, ("--rows", "rows"), ("--attacks", "attacks"))
            if option_given(ctx, name) and name not in ("synthetic_size", "shadows")
        ]
        if candidates is not None:
            wrong += [f for f, p in (("--fail-on", fail_on), ("--policy", policy)) if p is not None]
        if wrong:
            raise InputError(
                f"{', '.join(wrong)} do not apply to the release form ({RELEASE_FORM}): drop them"
            )
        if synthetic is None:
            raise InputError(f"give the release to attack with --synthetic: {RELEASE_FORM}")
        _release_form(
            synthetic=synthetic,
            original=original,
            control=control,
            shadow_dir=None if shadow_releases is None else str(shadow_releases),
            generator=generator,
            candidates=candidates,
            n_shadows=shadows if option_given(ctx, "shadows") else None,
            synthetic_size=None
            if synthetic_size is None
            else parse_sizes(synthetic_size, "--synthetic-size", default=[1000], single=True)[0],
            n_members=n_members,
            n_non_members=n_non_members,
            n_exposed=n_exposed,
            seed=seed,
            fmt=fmt,
            out=out,
            na_values=na_values,
            gate=gate,
            junit=junit,
            workers=workers,
        )
        return
    nobox_given = [
        f
        for f, p in (("--original", original), ("--synthetic", synthetic), ("--control", control))
        if p is not None
    ]
    _check_form(ctx, data=data, generator=generator, nobox_given=nobox_given)
    if nobox_given:
        make_runtime(workers=workers)  # checks --workers
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
            gate=gate,
            junit=junit,
            categorical=categorical,
            continuous=continuous,
            schema=schema,
            na_values=na_values,
            special_values=tuple(special_values or ()),
        )
        return
    assert data is not None and generator is not None  # _check_form
    from synthleak.generators import claimed_epsilon as claimed_epsilon_of
    from synthleak.generators import make_generator
    from synthleak.policy import METRICS, epsilon_metrics
    from synthleak.results import MembershipDocument, check_claim
    from synthleak.stages.membership import play_membership

    if n_queries is None or n_queries < 1:
        raise InputError(f"--n-queries must be at least 1, got {n_queries}")
    m = parse_sizes(synthetic_size, "--synthetic-size", default=[1000], single=True)[0]
    if out is not None:
        check_out_path(out)
    runtime = make_runtime(workers=workers, run_dir=run_dir, start=cluster is None)
    n_screen, rest = split_screen_targets(targets)
    spec = parse_targets(rest, k=k) if rest or not n_screen else None
    check_claim(claimed_epsilon, delta, neighbouring)
    names = _black_box_attacks(attacks, knowledge)  # before the screen and the data
    claimed = claimed_epsilon
    if claimed is None:
        claimed = claimed_epsilon_of(make_generator(generator))
    client = None
    if cluster is not None:  # fail fast on an unreachable scheduler, before any work
        from synthleak.runtime.executor import connect_cluster

        client = connect_cluster(cluster, timeout=5.0)
        runtime = make_runtime(workers=workers, cluster=client, run_dir=run_dir)
    try:
        loaded = load_cli_data(
            data,
            categorical=categorical,
            continuous=continuous,
            schema=schema,
            na_values=na_values,
            special_values=tuple(special_values or ()),
        )
        note_inferred_domain(make_generator(generator), generator, schema, game=True)
        if n_screen:
            spec = screen_targets(
                loaded.table,
                generator,
                n_screen,
                rest=spec,
                k=k,
                seed=seed,
                runtime=runtime,
                train_size=train_size,
            )
        result, eps = play_membership(
            loaded.table,
            generator=generator,
            targets=spec,
            train_size=train_size,
            synthetic_size=m,
            n_shadows=shadows,
            n_tests=tests,
            attacks=names,
            n_queries=n_queries,
            pool=pool,
            aux_size=aux_size,
            test_size=test_size,
            batch_size=batch_size,
            knowledge=knowledge,
            claimed=claimed,
            delta=delta,
            neighbouring=neighbouring,
            max_time=max_time,
            seed=seed,
            runtime=runtime,
            log=lambda message: typer.echo(f"synthleak: {message}", err=True),
        )
        if run_dir is not None:  # the verdict printed, for 'synthleak report RUN_DIR'
            from synthleak.runtime.store import write_atomic

            write_atomic(run_dir / EPSILON_FILE, eps.to_json().encode())
        outcome = None
        if gate is not None:
            metrics = {name: None for name in METRICS} | epsilon_metrics(eps)
            outcome = gate.evaluate(metrics)
        doc = MembershipDocument.of(result, eps, outcome)
        emit(to_json(doc) if fmt is TextFormat.JSON else render_table(result, eps), out)
        report_policy(outcome, junit)
    finally:
        if client is not None:
            client.close()
    exit_for_policy(outcome)
