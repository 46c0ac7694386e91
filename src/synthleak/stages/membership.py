"""The ``membership`` stage: black-box shadow-model membership inference against the
generator, on the records a two-stage screen ranks riskiest (or a data-only ranking).
"""

from __future__ import annotations

import hashlib
import json
import sys
import time
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np

from synthleak.attacks.base import AttackFamily
from synthleak.errors import BaselineWarning, InputError
from synthleak.findings import (
    finding_rng,
    membership_epsilon,
    membership_finding,
)
from synthleak.games.cost import (
    MembershipCost,
    format_seconds,
    measure_membership_cost,
    plan_membership,
    power,
    shared_pool,
    smallest_game_seconds,
    unit_datasets,
)
from synthleak.games.membership import MembershipGame, MembershipResult
from synthleak.games.shadow import table_fingerprint
from synthleak.generators import claimed_epsilon as claimed_epsilon_of
from synthleak.generators import make_generator
from synthleak.modes import Budget, Knowledge, Neighbouring, PoolMode
from synthleak.results import (
    BUDGETS,
    BudgetRecord,
    ScreenedRecord,
    ScreeningSection,
)
from synthleak.runtime import Runtime
from synthleak.runtime.seeding import game_seed, stream
from synthleak.runtime.store import (
    write_atomic,
)
from synthleak.stages.base import (
    GENERATOR_NEEDED,
    RELATIONAL_SKIP,
    Context,
    Log,
    Sections,
    Skip,
    Stage,
    StageOutput,
)
from synthleak.stages.vulnerability import rare_columns
from synthleak.vulnerability import rank_records

if TYPE_CHECKING:
    from synthleak.data.table import Table
    from synthleak.games.targets import Targets
    from synthleak.metrics.epsilon import EpsilonEstimate


def _needs_generator(ctx: Context) -> Skip | None:
    if ctx.relational is not None:
        return Skip(reason=RELATIONAL_SKIP)
    return None if ctx.options.generator is not None else Skip(needs=GENERATOR_NEEDED)


def _ranked(ctx: Context, method: str) -> np.ndarray:
    """Training records (positions in ``ctx.train``) by ``method``, most at risk first; the
    vulnerability stage's ranking when it ranked by ``method``."""
    if ctx.ranking is not None and ctx.ranking.method == method:
        return ctx.ranking.rows
    return rank_records(ctx.train, method, k=ctx.options.k).rows


#: Records shown in the report's comparison of the screen's ranking with V_k's.
SCREEN_SHOWN = 10


def _screen_pools(ctx: Context) -> int:
    """Shadow (and test) datasets of the two-stage screen."""
    return max(4, min(ctx.plan.screen_datasets, ctx.plan.shadows))


def _screen(
    ctx: Context, n_top: int, train_size: int, seed: int, notes: list[str]
) -> tuple[list[int], float, ScreeningSection]:
    """Stage 1 of the two-stage audit: screen the rarest training records, return the ``n_top``
    rows of the original it ranks riskiest, its wall time and the screening section, which
    records its ranking beside ``V_k``'s (a note on failed generator runs goes to ``notes``)."""
    from synthleak.games.twostage import screen_design, screen_records

    assert ctx.options.generator is not None
    candidates = ctx.train_rows
    design = screen_design(n_top, candidates.size)
    pools = _screen_pools(ctx)
    again = (
        f", then the {design['second_pool']} it ranks riskiest again, each"
        if design["second_pool"]
        else ""
    )
    ctx.log(
        f"two-stage screen: the {design['n_screened']} rarest of {candidates.size} training "
        f"records{again} on {pools} shadow and {pools} test datasets through "
        f"'{ctx.options.generator}'"
    )
    started = time.perf_counter()
    res = screen_records(
        ctx.original,
        ctx.options.generator,
        seed=seed,
        runtime=ctx.runtime.sub("screen"),
        candidates=candidates,
        train_size=train_size,
        n_shadows=pools,
        n_tests=pools,
        **design,
    )
    seconds = time.perf_counter() - started
    ranked = _ranked(ctx, "distance")
    vk_rank = {int(ctx.train_rows[r]): i + 1 for i, r in enumerate(ranked)}
    order = res.order()
    screen_rank = {int(res.rows[p]): i + 1 for i, p in enumerate(order)}
    where = {int(r): i for i, r in enumerate(res.rows)}

    def record(row: int) -> ScreenedRecord:
        i = where.get(row)
        auc = (np.nan, np.nan, np.nan) if i is None else (res.auc[i], res.ci_low[i], res.ci_high[i])
        position = int(np.searchsorted(ctx.train_rows, row))  # its row in ctx.train
        return ScreenedRecord(
            row,
            screen_rank.get(row, 0),
            vk_rank.get(row, 0),
            float(auc[0]),
            float(auc[1]),
            float(auc[2]),
            rare_columns(ctx.train, position),
        )

    shown = min(SCREEN_SHOWN, res.rows.size)
    screening = ScreeningSection(
        ctx.options.generator,
        int(candidates.size),
        int(res.rows.size),
        res.n_shadows,
        res.n_tests,
        res.n_queries,
        tuple(record(int(res.rows[p])) for p in order[:shown]),
        tuple(record(int(ctx.train_rows[r])) for r in ranked[:shown]),
        second_pool=res.second_pool,
        first_queries=res.stage1_queries if res.second_pool else res.n_queries,
    )
    if res.failed_datasets:
        notes.append(
            f"two-stage screen: {res.failed_datasets} of {res.total_datasets} generator runs "
            "failed and their datasets were left out"
        )
    return res.top(n_top).tolist(), seconds, screening


def _run_identity(ctx: Context, seed: int) -> str:
    """What identifies one audit across its runs in a run directory: its options, the
    original's values and the game's seed."""
    text = json.dumps([ctx.options.to_json(), table_fingerprint(ctx.original), int(seed)])
    return hashlib.sha256(text.encode()).hexdigest()[:24]


class _StageTimes:
    """Wall seconds each part of the membership stage (``screen``, ``game``) has taken over
    the runs of one audit, kept in the run directory (``RUN_DIR/stage-times.json``, keyed as
    :class:`_TimedPlan`): a run that resumes an earlier one adds its own seconds to those
    the earlier runs spent, so that the report states what the part took, not the seconds of
    reading finished work back. Without a run directory nothing is kept (nothing is resumed)."""

    def __init__(self, ctx: Context, seed: int) -> None:
        run_dir = ctx.runtime.run_dir
        self.path = None if run_dir is None else run_dir / "stage-times.json"
        self.identity = _run_identity(ctx, seed)
        self.seconds: dict[str, float] = {}
        self.earlier: dict[str, float] = {}
        if self.path is not None and self.path.is_file():
            try:
                doc = json.loads(self.path.read_text())
            except (OSError, ValueError):
                doc = None
            if isinstance(doc, dict) and doc.get("identity") == self.identity:
                kept = doc.get("seconds")
                if isinstance(kept, dict):
                    self.earlier = {str(k): float(v) for k, v in kept.items()}
        self.seconds = dict(self.earlier)

    def kept(self, part: str) -> bool:
        """Whether an earlier run of this audit spent time on ``part``."""
        return self.earlier.get(part, 0.0) > 0

    @contextmanager
    def timed(self, part: str) -> Iterator[None]:
        """Time ``part``, adding to the earlier runs' seconds; kept even when interrupted."""
        before = self.earlier.get(part, 0.0)
        started = time.perf_counter()
        try:
            yield
        finally:
            self.seconds[part] = before + (time.perf_counter() - started)
            if self.path is not None:
                doc = {"identity": self.identity, "seconds": self.seconds}
                self.path.parent.mkdir(parents=True, exist_ok=True)
                write_atomic(self.path, (json.dumps(doc, indent=1) + "\n").encode())


class _TimedPlan:
    """What a time limit made an audit's black-box game choose from measured times (whether
    the two-stage screen ran, its notes, the game's sizes and work units, the measured cost),
    kept in the run directory (``RUN_DIR/timed-plan.json``) so that the same audit run again
    after an interruption plays the same game and resumes its finished work without a new
    pilot (which would choose other sizes, and the game's run directory refuses another
    configuration). Keyed by the options, the original's
    values and the game's seed; without a run directory nothing is kept."""

    def __init__(self, ctx: Context, seed: int) -> None:
        run_dir = ctx.runtime.run_dir
        self.path = None if run_dir is None else run_dir / "timed-plan.json"
        self.identity = _run_identity(ctx, seed)
        self.notes: list[str] = []
        self.earlier: dict[str, Any] | None = None
        if self.path is not None and self.path.is_file():
            try:
                doc = json.loads(self.path.read_text())
            except (OSError, ValueError):
                doc = None
            if isinstance(doc, dict) and doc.get("identity") == self.identity:
                self.earlier = doc

    def save(self, selector: str, game: MembershipGame, cost: MembershipCost) -> None:
        if self.path is None:
            return
        doc = {
            "identity": self.identity,
            "selector": selector,
            "notes": self.notes,
            "n_shadows": int(game.n_shadows),
            "n_tests": int(game.n_tests),
            "batch_size": int(game.batch_size),
            "cost": cost.to_dict(),
        }
        self.path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(self.path, (json.dumps(doc, indent=1) + "\n").encode())


#: The membership pilot's stream (its number of runs depends on the machine's speed, so it
#: draws from none that anything else reads).
_PILOT = stream("audit/membership-pilot")


#: What the audit's black-box game ranks targets by when a time limit leaves no room for the
#: two-stage screen: cell rarity, the screen's own prefilter (the best selector from the data
#: alone on the ground-truth risk maps, benchmarks/RESULTS_selectors.md).
SCREEN_FALLBACK = "rarity"


def _screen_share() -> float:
    """The share of a time limit the two-stage screen may take: its share of the ``standard``
    budget's generator runs (its pool, or pools, against the game behind it, which the budget
    measured as costing together about the game without a screen), so that a timed audit keeps
    that balance instead of spending the limit on the screen and leaving the smallest game."""
    from synthleak.games.twostage import screen_design, screen_generator_runs

    b = BUDGETS[Budget.STANDARD]
    screen = screen_generator_runs(screen_design(b.mia_targets, b.n), b.screen_datasets)
    return screen / (screen + (b.screened_shadows or b.shadows) + b.tests)


def _screen_or_not(
    ctx: Context, cost: MembershipCost, n_targets: int, shared: bool, notes: list[str]
) -> str:
    """``"screen"`` when the two-stage screen (its generator runs, projected from ``cost``)
    takes at most :func:`_screen_share` of the time the limit leaves after the pilot, and the
    smallest useful game fits after it; else :data:`SCREEN_FALLBACK`, with a note in ``notes``
    saying why."""
    from synthleak.games.twostage import screen_design, screen_generator_runs

    assert ctx.options.max_time is not None
    workers = ctx.runtime.workers
    pools = _screen_pools(ctx)
    design = screen_design(n_targets, ctx.train_rows.size)
    screen = cost.generation_seconds(screen_generator_runs(design, pools), workers)
    # the smallest game as a timed audit would run it: in balanced work units
    smallest = smallest_game_seconds(
        cost,
        n_targets=n_targets,
        workers=workers,
        shared=shared,
        batch=unit_datasets(cost.fit_seconds),
    )
    available = ctx.options.max_time - cost.pilot_seconds
    share = _screen_share()
    fits = screen + smallest <= available
    if fits and screen <= share * available:
        return "screen"
    pooled = (
        f"its two pools of {pools} shadow and {pools} test datasets"
        if design["second_pool"]
        else f"its {pools} shadow and {pools} test datasets"
    )
    took = (
        f"The two-stage screen was not run: {pooled} through '{ctx.options.generator}' "
        f"would take about {format_seconds(screen)} "
        f"({cost.fit_seconds:.1f} s a run, measured, on {workers} worker(s))"
    )
    if not fits:
        why = (
            f" and the smallest useful game about {format_seconds(smallest)}: with the pilot's "
            f"{format_seconds(cost.pilot_seconds)}, more than the time limit "
            f"({format_seconds(ctx.options.max_time)})."
        )
    else:
        why = (
            f", more than {share:.0%} of the {format_seconds(available)} the time limit leaves "
            f"after the pilot (the screen's share of the standard budget's generator runs), so "
            f"the game keeps the larger part of the limit."
        )
    notes.append(
        took + why + f" The game's targets are the records {SCREEN_FALLBACK!r} ranks riskiest "
        "(cell rarity, the screen's own prefilter)."
    )
    ctx.log("two-stage screen skipped: it would take more of the time limit than it may")
    return SCREEN_FALLBACK


def game_train_size(release: int, original: int, n_targets: int, budget: int) -> tuple[int, str]:
    """Training records of each dataset of the audit's shadow-model game, and why it is fewer
    than ``release`` ("" when it is not).

    A release's membership risk depends on how many records it was trained on (smaller
    training sets leak more), so the game's datasets hold as many records as the release was
    trained on (``release``), unless the budget's ``budget`` (:attr:`BudgetPlan.n`) is smaller
    or the ``original`` records cannot supply them: the ``n_targets`` targets aside, the other
    records are split into three disjoint pools (shadow, test and known records), so a dataset
    holds at most a third of them.
    """
    limit = max(2, (int(original) - int(n_targets)) // 3)
    n = min(int(release), int(budget), limit)
    if n >= release:
        return n, ""
    if n == limit and limit < budget:
        return n, (
            f"the original's {original} records supply the {n_targets} targets and three "
            f"disjoint pools of shadow, test and known records, at most {limit} each"
        )
    return n, f"the budget's datasets hold at most {budget} records"


# long: the screen, the time limit's plan, the game and its epsilon, kept in the order they run
def _membership(ctx: Context, rng: np.random.Generator) -> StageOutput:
    seed = game_seed(rng)  # the stage's game draws from its own seed
    from synthleak.attacks.base import make_attack
    from synthleak.games.targets import Targets

    assert ctx.options.generator is not None
    notes: list[str] = []
    attacks = []
    for a in ctx.plan.mia_attacks:
        try:
            make_attack(AttackFamily.MEMBERSHIP, a)
        except InputError as exc:  # MissingExtraError included: a note, never a crash
            notes.append(f"membership attack '{a}' was skipped: {exc}")
            continue
        attacks.append(a)
    if not attacks:  # the stage's reason names why each was skipped (its notes are not kept)
        raise InputError("no membership attack could run: " + "; ".join(notes))
    n_top = min(ctx.plan.mia_targets, len(ctx.train))
    n_controls = min(ctx.plan.mia_controls, len(ctx.original) - n_top)
    n_targets = n_top + n_controls
    release = len(ctx.train)  # what the release was trained on (the original, or the split)
    n, why = game_train_size(release, len(ctx.original), n_targets, ctx.plan.n)
    if n <= n_targets:  # a shared pool's dataset holds every target and known records
        needed = n_targets + 3 * (n_targets + 1)
        raise InputError(
            f"too small to measure: every shadow dataset holds the {n_targets} targets and "
            f"known records, drawn from three disjoint pools of the original's other records; "
            f"{len(ctx.original)} original records allow datasets of {n} records only (it needs "
            f"at least {needed} original records, or a budget with fewer targets)"
        )
    if why:
        notes.append(
            f"The shadow-model game used datasets of {n} records, fewer than the {release} the "
            f"release was trained on ({why}): smaller training sets leak more, so its figures "
            "may overstate the release's risk."
        )
    generator = ctx.options.generator

    def make_game(selector: str, targets: Targets) -> MembershipGame:
        return MembershipGame(
            generator,
            targets=targets,
            train_size=n,
            synthetic_size=n,
            # a screened audit gives the screen's share of the budget back (a fixed plan size,
            # so the result does not depend on the machine's speed)
            n_shadows=(ctx.plan.screened_shadows or ctx.plan.shadows)
            if selector == "screen"
            else ctx.plan.shadows,
            n_tests=ctx.plan.tests,
            attacks=attacks,
        )

    # the pilot draws from its own stream: how many runs it makes depends on the machine's speed
    pilot_rng = _PILOT.rng(seed)
    selector = ctx.options.selector
    measured = None
    # a time limit's choices (screen or not, the game's sizes) come from measured times: an
    # interrupted run keeps them, so that running it again resumes the same game
    plan = _TimedPlan(ctx, seed) if ctx.options.max_time is not None else None
    if plan is not None and plan.earlier is not None:
        selector = plan.earlier["selector"]
        notes.extend(plan.earlier["notes"])
        if "cost" in plan.earlier:  # the projection of the interrupted run, not a new pilot
            measured = MembershipCost.from_dict(plan.earlier["cost"])
    elif selector == "screen" and plan is not None:
        # measure the generator first: a screen the time limit cannot pay for is not started
        pilot = make_game(selector, Targets.rows([int(ctx.train_rows[0])]))
        measured = measure_membership_cost(pilot, ctx.original, rng=pilot_rng, runtime=ctx.runtime)
        before = len(notes)
        selector = _screen_or_not(ctx, measured, n_targets, shared_pool(pilot), notes)
        plan.notes = notes[before:]
    times = _StageTimes(ctx, seed)
    screen_seconds = 0.0  # this run's
    screening = None
    if selector == "screen":
        with times.timed("screen"):
            top, screen_seconds, screening = _screen(ctx, n_top, n, seed, notes)
    else:
        top = [int(ctx.train_rows[r]) for r in _ranked(ctx, selector)[:n_top]]
    pool = np.setdiff1d(np.arange(len(ctx.original)), top)
    controls = [int(r) for r in rng.choice(pool, min(n_controls, pool.size), replace=False)]
    ctx.log(
        f"black-box membership inference: {len(top) + len(controls)} targets, datasets of "
        f"{n} records through '{ctx.options.generator}'"
    )
    targets = Targets.rows(top, label=selector)
    if controls:
        targets = targets + Targets.rows(controls, label="random")
    game = make_game(selector, targets)
    n_targets = len(top) + len(controls)
    workers = ctx.runtime.workers
    # the plan's sizes are a default: a time limit (less the screen's and the pilot's time)
    # may raise them
    max_seconds = None if plan is None else ctx.options.max_time - screen_seconds  # type: ignore[operator]
    if plan is not None and plan.earlier is not None:
        game.n_shadows, game.n_tests = plan.earlier["n_shadows"], plan.earlier["n_tests"]
        game.batch_size = plan.earlier.get("batch_size", game.batch_size)
        max_seconds = None
        ctx.log("the game's sizes and targets are those of the interrupted run (time limit)")
    cost, projected = plan_membership(
        game,
        ctx.original,
        n_targets=n_targets,
        rng=pilot_rng,
        workers=workers,
        max_seconds=max_seconds,
        cap=False,
        cost=measured,
        runtime=ctx.runtime,
        # a slow generator's runs in short work units, so that the last leave no worker idle
        # long (the units' size is kept with the plan: units of another size share their keys,
        # not their datasets, and the game's run directory refuses them)
        balance=plan is not None and plan.earlier is None,
    )
    if plan is not None and plan.earlier is None:
        plan.save(selector, game, cost)
    ctx.log(
        cost.summary(
            n_shadows=game.n_shadows,
            n_tests=game.n_tests,
            n_targets=n_targets,
            workers=workers,
            batch=game.batch_size,
        )
    )
    with times.timed("game"), warnings.catch_warnings():
        warnings.simplefilter("ignore", BaselineWarning)
        res = game.run(ctx.original, seed=seed, runtime=ctx.runtime)
    finding = membership_finding(res, rng=finding_rng(res))
    claimed, neighbouring = ctx.options.claimed_epsilon, ctx.options.neighbouring
    if claimed is None:  # the generator's own claim, for the relation its library states
        gen = make_generator(ctx.options.generator)
        claimed = claimed_epsilon_of(gen)
        declared = getattr(gen, "claimed_neighbouring", None)
        if claimed is not None and declared is not None and declared != neighbouring:
            notes.append(
                f"'{ctx.options.generator}' states its epsilon for {declared.replace('_', '/')} "
                f"neighbours; the claim is tested for that relation"
            )
            neighbouring = declared
    epsilon = membership_epsilon(
        res,
        rng=rng,
        claimed=claimed,
        delta=ctx.options.delta,
        neighbouring=neighbouring,
    )
    # the power the budget bought; its epsilon ceiling is the estimate's own (the trials that
    # came back, in the claim's relation), so the report states one figure for it
    bought = power(game.n_tests, neighbouring=neighbouring)
    bought = replace(bought, epsilon_ceiling=epsilon.ceiling)
    budget = BudgetRecord(
        game.n_shadows,
        game.n_tests,
        projected,
        times.seconds["game"],
        bought,
        times.seconds.get("screen", 0.0),
        train_size=n,
        release_train_size=release,
        resumed=tuple(p for p in ("screen", "game") if times.kept(p)),
    )
    return StageOutput(
        findings=(finding,),
        notes=tuple(notes),
        sections=Sections(screening=screening, membership=res, epsilon=epsilon, budget=budget),
    )


def _to_stderr(message: str) -> None:
    print(f"synthleak: {message}", file=sys.stderr)


def plan_game(
    game: MembershipGame,
    table: Table,
    *,
    seed: int,
    runtime: Runtime,
    max_time: float | None,
    neighbouring: Neighbouring = Neighbouring.ADD_REMOVE,
    log: Log | None = None,
) -> float:
    """Measure the game's cost (a slow generator's runs also side by side on ``runtime``'s
    workers), size it to ``max_time`` if given, and tell ``log`` (by default standard error)
    the projection and the power for a claim in ``neighbouring``; returns the projected
    seconds."""
    from synthleak.games.membership import MIA_PILOT
    from synthleak.games.targets import Targets, as_targets

    say = log or _to_stderr
    # the game's own default when it was given no targets (MembershipGame.run)
    spec = as_targets(game.targets if game.targets is not None else Targets.top(10))
    n_targets = len(spec.resolve(table, seed=seed))
    shared, workers = shared_pool(game), runtime.workers
    say(f"measuring one run of '{game.generator}' and of each attack ...")
    cost, projected = plan_membership(
        game,
        table,
        n_targets=n_targets,
        rng=MIA_PILOT.rng(seed),
        workers=workers,
        max_seconds=max_time,
        runtime=runtime,
    )
    say(
        cost.summary(
            n_shadows=game.n_shadows,
            n_tests=game.n_tests,
            n_targets=n_targets,
            workers=workers,
            shared=shared,
            batch=game.batch_size,
        )
    )
    knowledge = Knowledge(game.knowledge)
    rules = 0  # rules fixed in advance: one per target for each unfitted attack that has one
    if knowledge is Knowledge.EXACT:
        rules = n_targets * sum(
            1 for _, a in game.resolved_attacks() if getattr(a, "fixed_threshold", None) is not None
        )
    budget = power(
        game.n_tests,
        fixed_rules=rules,
        neighbouring=neighbouring,
        game_neighbouring=game._relation(knowledge).value,
    )
    say(f"power: {budget.sentence()}")
    return projected


def play_membership(
    table: Table,
    *,
    generator: str,
    targets: Targets | None,
    train_size: int,
    synthetic_size: int,
    n_shadows: int,
    n_tests: int,
    attacks: Sequence[str],
    n_queries: int,
    pool: PoolMode = PoolMode.SHARED,
    aux_size: int | None = None,
    test_size: int | None = None,
    batch_size: int = 50,
    knowledge: Knowledge = Knowledge.AUXILIARY,
    claimed: float | None,
    delta: float,
    neighbouring: Neighbouring = Neighbouring.ADD_REMOVE,
    max_time: float | None = None,
    seed: int,
    runtime: Runtime,
    log: Log | None = None,
) -> tuple[MembershipResult, EpsilonEstimate]:
    """Play the black-box shadow-model membership game on ``table`` through ``generator``, as
    ``synthleak mia DATA --generator SPEC`` does, and bound epsilon from its result.

    The game (:class:`~synthleak.games.membership.MembershipGame`, whose parameters these are;
    ``n_queries`` is the ``query`` attack's) is checked before anything runs, its cost measured
    and, with ``max_time``, its sizes fitted to it (:func:`plan_game`); then it is played and the
    empirical epsilon bounded against ``claimed`` (at ``delta``, for ``neighbouring``
    neighbours). ``log`` (by default standard error) is told the projection, the time the game
    took, the target/attack pairs that did no better than a random guess and the generator's
    failures. The result depends on ``seed`` alone.

    The audit's ``membership`` stage plays the same game class on the records its two-stage
    screen (or a data-only ranking) picks, sized by the budget and its time-limit plan, so it
    composes its own game instead of calling this.
    """
    from synthleak.games.membership import MIA_EPSILON

    say = log or _to_stderr
    params: dict[str, dict[str, Any]] = {"query": {"n_queries": n_queries}}
    game = MembershipGame(
        generator,
        targets=targets,
        train_size=train_size,
        synthetic_size=synthetic_size,
        n_shadows=n_shadows,
        n_tests=n_tests,
        attacks=list(attacks),
        attack_params={a: params[a] for a in attacks if a in params},
        pool=pool,
        aux_size=aux_size,
        test_size=test_size,
        batch_size=batch_size,
        knowledge=knowledge,
    )
    game.validate(table, seed=seed)  # every input error before the pilot
    projected = plan_game(
        game,
        table,
        seed=seed,
        runtime=runtime,
        max_time=max_time,
        neighbouring=neighbouring,
        log=say,
    )
    started = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", BaselineWarning)
        result = game.run(table, seed=seed, runtime=runtime)
    say(
        f"the game took {format_seconds(time.perf_counter() - started)} "
        f"(projected {format_seconds(projected)})"
    )
    n_base = sum(1 for w in caught if issubclass(w.category, BaselineWarning))
    if n_base:
        say(
            f"warning: {n_base} target/attack pair(s) did no better than a random guess "
            "(AUC 95% CI covers 0.5)"
        )
    fails = result.failures
    if fails.failed_datasets:
        say(
            f"warning: the generator failed on {fails.failed_datasets} of "
            f"{fails.total_datasets} datasets (dropped): " + "; ".join(list(fails.messages)[:2])
        )
    epsilon = membership_epsilon(
        result,
        rng=MIA_EPSILON.rng(seed),
        claimed=claimed,
        delta=delta,
        neighbouring=neighbouring,
    )
    return result, epsilon


STAGE = Stage(
    "membership", "Membership inference with shadow models", _needs_generator, _membership
)
