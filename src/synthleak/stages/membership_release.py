"""The ``membership_release`` stage: membership inference on the published release itself,
learned from shadow releases of the same generator.

:func:`play_membership_release` is the game, played by this stage (``audit(shadow_releases=
DIR)``, or ``audit(synthetic=REL, generator=SPEC)``: shadow releases made by
:func:`generator_shadows` from the control records) and by ``synthleak mia --synthetic REL
--original ORI --control CTRL --shadow-releases DIR`` (or ``--generator SPEC``, shadow releases
made by :func:`make_shadow_releases`). The
attack is :class:`~synthleak.attacks.mia_shadow_release.ShadowReleaseAttack`: it learns, on the
shadow releases' members and non-members, what distinguishes a member of a release, and scores
the original's records (members) and the control's (non-members) on the target release.

This is not the generator-level game (stage ``membership``): that one trains the generator
thousands of times on datasets it draws itself and measures how much the *generator* leaks
chosen targets; this one attacks the one release that is published, record by record.

Candidates held by a shadow release's training set are not scored: their signals would be
calibrated on fewer shadow releases than the others', and with shadows made on control records
that would set the non-members apart for a reason that has nothing to do with the release.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from synthleak.attacks.base import AttackFamily
from synthleak.attacks.mia_shadow_release import ShadowReleaseAttack, attack_release
from synthleak.data.io import encode_frames
from synthleak.data.shadow_releases import (
    MIN_SHADOWS,
    ShadowRelease,
    check_shadows,
    read_shadow_releases,
)
from synthleak.data.table import Table
from synthleak.errors import InputError
from synthleak.games.membership_release import ExposedRecord, MembershipReleaseResult
from synthleak.harm import FindingKey
from synthleak.runtime import Runtime
from synthleak.runtime.seeding import game_seed, stream
from synthleak.stages.base import (
    Context,
    Sections,
    Skip,
    Stage,
    StageOutput,
    no_release_skip,
)
from synthleak.threat import threat_model
from synthleak.verdicts import Finding, MetricKind

_SAMPLE = stream("release-membership/sample")
_SHADOWS = stream("release-membership/shadows")

#: Shadow releases :func:`make_shadow_releases` makes by default: each is one run of the
#: generator, and 8 give every record about 4 releases it was in and 4 it was not in.
DEFAULT_SHADOWS = 8
#: The fewest candidates of each kind the game scores.
MIN_CANDIDATES = 20

SHADOWS_NEEDED = (
    "shadow releases of the same generator: a folder with one sub-folder per shadow release "
    "(training.csv and release.csv, or MIDST's layout; --shadow-releases DIR, shadow_releases= "
    "in Python), or the release's generator to make them from the control records "
    "(--generator SPEC beside --synthetic; generator= in Python)"
)

Log = Callable[[str], None]


def _frame(part: pd.DataFrame | Table) -> pd.DataFrame:
    return part.to_frame() if isinstance(part, Table) else part


def _columns(shadows: Sequence[ShadowRelease], parts: dict[str, pd.DataFrame]) -> list[str]:
    """The shadow releases' columns, which every part must have."""
    cols = [str(c) for c in shadows[0].release.columns]
    for s in shadows[1:]:
        if [str(c) for c in s.release.columns] != cols:
            raise InputError(
                f"shadow release {s.name} has other columns than {shadows[0].name}: give shadow "
                "releases of one table"
            )
    for name, frame in parts.items():
        missing = [c for c in cols if c not in frame.columns]
        if missing:
            raise InputError(
                f"{name} lacks the shadow releases' column(s) {missing}: give {name} records with "
                "the columns of the shadow releases"
            )
    return cols


def default_attack(shadows: Sequence[ShadowRelease]) -> ShadowReleaseAttack:
    """The attack with its defaults, but drawing at most a quarter of the shadows' training
    records as labelled examples (``records_per_shadow``), so that the rest can serve as the
    reference sample of its no-box signals even when the shadows were trained on few records."""
    n = sum(len(s.training) for s in shadows if s.training is not None)
    per = max(10, min(500, n // (4 * len(shadows))))
    return ShadowReleaseAttack(records_per_shadow=per)


def _held_by_shadows(
    shadows: Sequence[ShadowRelease], parts: dict[str, pd.DataFrame]
) -> dict[str, np.ndarray]:
    """For every part, which of its records some shadow release's training set holds."""
    trainings = pd.concat([s.training for s in shadows], ignore_index=True)
    enc = encode_frames({"shadow training": trainings, **parts})
    held = set(enc.tables["shadow training"].row_keys().tolist())
    return {
        name: np.array([k in held for k in enc.tables[name].row_keys().tolist()], dtype=bool)
        for name in parts
    }


def _shadow_training(
    n: int, half: int, seed: int, i: int
) -> tuple[np.random.Generator, np.ndarray]:
    """Shadow release ``i``'s stream and the rows of its training set among ``n`` records."""
    rng = _SHADOWS.rng(seed, i)
    return rng, np.sort(rng.choice(n, half, replace=False))


def _shadow_unit(shared: dict[str, Any], i: int) -> dict[str, np.ndarray]:
    """Work unit: shadow release ``i`` (the generator fitted on its half of the population)."""
    from synthleak.generators import make_generator

    table: Table = shared["population"]
    rng, idx = _shadow_training(len(table), shared["half"], shared["seed"], i)
    gen = make_generator(shared["generator"]).fit(table.take(idx), rng=rng)
    release = gen.sample(shared["m"], rng=rng)
    return {"codes": release.codes, "values": release.values}


def make_shadow_releases(
    generator: str,
    population: pd.DataFrame | Table,
    *,
    n_shadows: int = DEFAULT_SHADOWS,
    synthetic_size: int | None = None,
    seed: int,
    log: Log | None = None,
    runtime: Runtime | None = None,
) -> list[ShadowRelease]:
    """Shadow releases made with ``generator``: each trained on a random half of
    ``population`` (records of the population the release's generator never saw), releasing
    ``synthetic_size`` records (default: as many as it was trained on).

    Each shadow release is one work unit of ``runtime`` (default: inline, nothing kept): its
    randomness is its own stream (``release-membership/shadows``, keyed by its number), so the
    shadows are the same on any number of workers; with a run directory a finished shadow is
    kept (``RUN_DIR/shadow-releases``) and a re-run reloads it instead of training it again.
    ``log`` receives the projected time after the first and progress lines as they finish.
    """
    from synthleak.games.secret import run_logged
    from synthleak.games.shadow import table_fingerprint
    from synthleak.generators import make_generator
    from synthleak.runtime import WorkUnit

    if n_shadows < MIN_SHADOWS:
        raise InputError(
            f"n_shadows must be at least {MIN_SHADOWS} (the attack calibrates every example on "
            f"shadows other than its own two), got {n_shadows}",
            parameter="n_shadows",
        )
    table = population if isinstance(population, Table) else None
    if table is None:
        table = encode_frames({"population": _frame(population)}).tables["population"]
    if len(table) < 2 * MIN_CANDIDATES:
        raise InputError(
            f"{len(table)} population records are too few to make shadow releases from: give at "
            f"least {2 * MIN_CANDIDATES} control records"
        )
    make_generator(generator)  # a bad spec fails before any work
    half = len(table) // 2
    m = half if synthetic_size is None else int(synthetic_size)
    rt = (runtime or Runtime()).sub("shadow-releases")
    shared = {"population": table, "half": half, "m": m, "seed": int(seed), "generator": generator}
    store = rt.store(
        {
            "kind": "shadow releases",
            "generator": generator,
            "population": table_fingerprint(table),
            "half": half,
            "m": m,
            "seed": int(seed),
        }
    )
    units = [WorkUnit(f"shadow{i}", (i,)) for i in range(n_shadows)]
    try:
        done = run_logged(
            rt,
            _shadow_unit,
            units,
            shared=shared,
            store=store,
            description=f"shadow releases made with '{generator}'",
            what="shadow releases",
            log=log,
        )
    finally:
        if store is not None:
            store.close()
    out: list[ShadowRelease] = []
    for i, unit in enumerate(units):
        res = done[unit.key]
        if not res.ok:
            raise RuntimeError(
                f"shadow release {i} could not be made with '{generator}': {res.error}"
            )
        release = Table.from_arrays(table.schema, res.arrays["codes"], res.arrays["values"])
        _, idx = _shadow_training(len(table), half, int(seed), i)
        out.append(ShadowRelease(unit.key, release.to_frame(), table.take(idx).to_frame()))
    return out


def generator_shadows(
    generator: str,
    control: pd.DataFrame | Table,
    *,
    n_shadows: int = DEFAULT_SHADOWS,
    synthetic_size: int | None = None,
    seed: int,
    log: Log | None = None,
    runtime: Runtime | None = None,
) -> tuple[list[ShadowRelease], np.ndarray]:
    """Shadow releases made with ``generator`` on half of the control records, and the rows of
    the other half (records no shadow release saw: the non-members the game scores).

    Each shadow release is trained on a random half of the first half
    (:func:`make_shadow_releases`, on ``runtime``). A :class:`Table` keeps its schema.
    """
    order = _SHADOWS.rng(seed, 2**16).permutation(len(control))
    pool, held_out = np.sort(order[: len(control) // 2]), np.sort(order[len(control) // 2 :])
    shadows = make_shadow_releases(
        generator,
        control.take(pool)
        if isinstance(control, Table)
        else control.iloc[pool].reset_index(drop=True),
        n_shadows=n_shadows,
        synthetic_size=synthetic_size,
        seed=seed,
        log=log,
        runtime=runtime,
    )
    return shadows, held_out


def play_membership_release(
    shadows: Sequence[ShadowRelease],
    original: pd.DataFrame | Table,
    synthetic: pd.DataFrame | Table,
    control: pd.DataFrame | Table,
    *,
    seed: int,
    n_members: int | None = None,
    n_non_members: int | None = None,
    n_exposed: int = 10,
    original_rows: np.ndarray | None = None,
    control_rows: np.ndarray | None = None,
    shadows_from: str = "",
    attack: ShadowReleaseAttack | None = None,
    log: Log | None = None,
) -> MembershipReleaseResult:
    """Attack the release ``synthetic`` with an attack learned on ``shadows``.

    Parameters
    ----------
    shadows : sequence of ShadowRelease
        At least three, each with its training records.
    original : DataFrame or Table
        The records the release was made from (the members).
    synthetic : DataFrame or Table
        The release.
    control : DataFrame or Table
        Records of the same population the release's generator never saw (the non-members).
    seed : int
    n_members, n_non_members : int, optional
        Records scored of each kind, drawn at random (default: all of them).
    n_exposed : int
        Members reported by row, those the attack ranks highest.
    original_rows, control_rows : array of int, optional
        The row of the user's file of every record of ``original`` and ``control`` (default:
        their positions).
    shadows_from : str
        Where the shadows came from, for the report (``"folder DIR"``, ``"generator SPEC"``).
    attack : ShadowReleaseAttack, optional
        A configured attack (default: :func:`default_attack`).
    log : callable, optional
        Receives progress lines.
    """
    check_shadows(shadows)
    parts = {
        "original": _frame(original),
        "synthetic": _frame(synthetic),
        "control": _frame(control),
    }
    cols = _columns(shadows, parts)
    parts = {k: v[cols] for k, v in parts.items()}
    held = _held_by_shadows(shadows, {"original": parts["original"], "control": parts["control"]})
    o_rows = np.arange(len(parts["original"])) if original_rows is None else original_rows
    c_rows = np.arange(len(parts["control"])) if control_rows is None else control_rows
    rng = _SAMPLE.rng(seed)

    def draw(name: str, n: int | None) -> np.ndarray:
        free = np.flatnonzero(~held[name])
        if n is not None and n < free.size:
            free = np.sort(rng.choice(free, n, replace=False))
        if free.size < MIN_CANDIDATES:
            raise InputError(
                f"too small to measure: {free.size} {name} records are held by no shadow "
                f"release's training set, at least {MIN_CANDIDATES} are needed: give more "
                f"{name} records, or shadow releases trained on other records"
            )
        return free

    mem, non = draw("original", n_members), draw("control", n_non_members)
    n_dropped = int(held["original"].sum() + held["control"].sum())
    candidates = pd.concat(
        [parts["original"].iloc[mem], parts["control"].iloc[non]], ignore_index=True
    )
    labels = np.r_[np.ones(mem.size, dtype=bool), np.zeros(non.size, dtype=bool)]
    if log is not None:
        log(
            f"membership inference on the release from {len(shadows)} shadow releases "
            f"({mem.size} members, {non.size} non-members"
            + (
                f"; {n_dropped} candidates held by a shadow's training set left out"
                if n_dropped
                else ""
            )
            + ")"
        )
    atk = attack if attack is not None else default_attack(shadows)
    res = attack_release(
        shadows, parts["synthetic"], candidates, seed=seed, labels=labels, attack=atk
    )
    assert res.auc is not None
    scores = np.asarray(res.scores)
    if np.unique(scores).size == 1:
        raise InputError(
            f"too small to measure: the attack learned from {res.n_examples} examples and gives "
            "every candidate the same score; give more shadow releases, or shadow releases "
            "trained on more records (with a generator: more control records)"
        )
    s_mem, s_non = scores[labels], scores[~labels]
    order = np.argsort(-s_mem, kind="stable")[: max(int(n_exposed), 0)]
    records = tuple(
        ExposedRecord(
            int(o_rows[mem[i]]),
            float(s_mem[i]),
            float((1 + np.sum(s_non >= s_mem[i])) / (1 + s_non.size)),
        )
        for i in order
    )
    if log is not None:
        log(
            f"learned from the shadow releases in {res.fit_seconds:.0f}s, scored "
            f"{labels.size} records in {res.score_seconds:.0f}s"
        )
    return MembershipReleaseResult(
        shadows_from=shadows_from,
        n_shadows=res.n_shadows,
        n_examples=res.n_examples,
        member_rows=tuple(int(r) for r in o_rows[mem]),
        non_member_rows=tuple(int(r) for r in c_rows[non]),
        n_dropped=n_dropped,
        auc=res.auc,
        tpr=res.tpr,
        records=records,
        fit_seconds=res.fit_seconds,
        score_seconds=res.score_seconds,
        member_scores=tuple(float(x) for x in s_mem),
        non_member_scores=tuple(float(x) for x in s_non),
        verbatim=res.verbatim,
    )


def score_candidates(
    shadows: Sequence[ShadowRelease],
    synthetic: pd.DataFrame | Table,
    candidates: pd.DataFrame | Table,
    *,
    seed: int,
    attack: ShadowReleaseAttack | None = None,
) -> np.ndarray:
    """The membership score of every record of ``candidates`` (unknown membership) on the
    release ``synthetic``, with the attack learned on ``shadows``; in input order."""
    check_shadows(shadows)
    parts = {"synthetic": _frame(synthetic), "candidates": _frame(candidates)}
    cols = _columns(shadows, parts)
    atk = attack if attack is not None else default_attack(shadows)
    atk.fit_shadows(
        shadows, seed=seed, targets=(parts["synthetic"][cols], parts["candidates"][cols])
    )
    return atk.score(parts["synthetic"][cols], parts["candidates"][cols])


def _needs(ctx: Context) -> Skip | None:
    if ctx.synthetic is None:
        return no_release_skip(ctx)
    if ctx.options.shadow_releases is None:
        if ctx.relational is not None:
            return Skip(
                needs="shadow releases of the persons' view: a folder (--shadow-releases DIR); "
                "a relational generator makes no shadow releases of it"
            )
        if ctx.options.generator is None:
            return Skip(needs=SHADOWS_NEEDED)
        if not ctx.release_given:
            return Skip(
                reason="the audit made the release with the generator: the generator-level "
                "game (stage membership) measures it; give the release (--synthetic) to "
                "attack it with shadow releases of --generator"
            )
    if ctx.control is None:
        return Skip(needs="a control set: the non-members the release is attacked on")
    return None


def _membership_release(ctx: Context, rng: np.random.Generator) -> StageOutput:
    """The game on the release (logic in :func:`play_membership_release`), with the shadow
    releases of the folder ``shadow_releases`` or, without one, made with ``generator`` on half
    the control records (:func:`generator_shadows`; the other half are the non-members)."""
    seed = game_seed(rng)
    assert ctx.synthetic is not None and ctx.control is not None
    folder = ctx.options.shadow_releases
    control, control_rows = ctx.control, ctx.control_rows
    if folder is not None:
        shadows = read_shadow_releases(folder)
        shadows_from = f"folder {Path(folder).name}"
    else:
        spec = ctx.options.generator
        assert spec is not None
        k = DEFAULT_SHADOWS if ctx.options.n_shadows is None else ctx.options.n_shadows
        ctx.log(
            f"making {k} shadow releases with '{spec}', each trained on a random half of half "
            "the control records (the other half is scored as non-members)"
        )
        shadows, held_out = generator_shadows(
            spec,
            ctx.control,
            n_shadows=k,
            seed=seed,
            log=ctx.log,
            runtime=ctx.runtime.sub("membership-release"),
        )
        control = ctx.control.take(held_out)
        control_rows = held_out if control_rows is None else control_rows[held_out]
        shadows_from = f"generator {spec}"
    n = min(ctx.plan.n_attacks, len(ctx.train))
    res = play_membership_release(
        shadows,
        ctx.train,
        ctx.synthetic,
        control,
        seed=seed,
        n_members=n,
        n_non_members=n,
        original_rows=ctx.train_rows,
        control_rows=control_rows,
        shadows_from=shadows_from,
        log=ctx.log,
    )
    threat = threat_model(
        AttackFamily.NOBOX_MEMBERSHIP,
        "release_membership",
        {"n_shadows": res.n_shadows, "n_members": len(res.member_rows)},
    )
    finding = Finding(
        FindingKey.MEMBERSHIP_RELEASE,
        f"Membership inference on the release, learned from {res.n_shadows} shadow releases",
        MetricKind.AUC,
        res.auc,
        threat,
        {
            "n_members": len(res.member_rows),
            "n_non_members": len(res.non_member_rows),
            "tpr_at_fpr": {k: t.value for k, t in res.tpr_at_fpr().items()},
        },
    )
    return StageOutput(findings=(finding,), sections=Sections(membership_release=res))


STAGE = Stage(
    "membership_release",
    "Membership inference on the release (shadow releases)",
    _needs,
    _membership_release,
    kept=True,
)
