"""What a black-box membership game will cost, measured before it runs, and budgets that fit.

Shadow modelling repeats "fit the generator, release synthetic data" once per shadow and test
dataset, then fits every attack against every target on the shadow releases. A pilot measures
both on the user's own data and generator:

* the generator: ``fit + sample`` of a training set of ``train_size`` records, repeated until
  a few seconds have passed (at least three runs, at most ``max_pilot``); the first run is a
  warm-up (it pays one-off costs: imports of the generator's library, JIT compilation) and the
  median of the others is kept;
* with a :class:`~synthleak.runtime.Runtime` of several local workers and a generator of at
  least :data:`TOGETHER_MIN_SECONDS` a run, the generator again, as the game will run it: a few
  runs on every worker at once (each worker's first run, which starts it, is not counted), and
  the median of those is kept instead (runs made side by side share the machine's caches and
  memory bandwidth: a TabDDPM run took 7 % longer two at a time than alone);
* the attacks: each attack is fitted and scored on ``calibration`` shadow releases made by
  tiling the pilot releases (labels alternating), so its cost per shadow dataset is measured at
  a realistic size, not on a handful of datasets; a first fit on four releases, not timed, pays
  the attack's one-off costs (imports, JIT compilation), which the game's fits do not repeat
  (timed with them, a baynet game's attacks were projected at 2.3 times what they took).

:meth:`MembershipCost.projected_seconds` extrapolates linearly to the requested numbers of shadow
and test datasets, targets and workers, in the game's work units (each pool's datasets cut into
units of ``batch_size``, taken in order by the first free worker, as the runtime does: the last
units may leave workers idle); :func:`fit_budget` chooses the largest budget that fits a
wall-time limit and :func:`power` says what that budget can show (the half-width of an AUC
interval at chance, and the largest epsilon its test datasets could certify).

Notes
-----
Wall-clock seconds on this machine under its current load: projections are re-measured for every
run, and :func:`plan_membership` counts the pilot's own time against a limit. The projection
assumes the generator runs are not slowed by other jobs more than the pilot's were. With
``balance``, :func:`plan_membership` cuts a slow generator's runs into work units of about
:data:`UNIT_SECONDS` each, so that the last ones leave little idle time.

References
----------
Hanley and McNeil (1982) (variance of the AUC); Jagielski et al. (2020) (epsilon lower bounds).
"""

from __future__ import annotations

import copy
import heapq
import math
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from synthleak.attacks.base import Attack, fit_membership
from synthleak.data.release import as_table
from synthleak.data.table import Table
from synthleak.errors import InputError
from synthleak.generators import make_generator
from synthleak.modes import Knowledge, Neighbouring, PoolMode
from synthleak.queries import TableStack
from synthleak.runtime.threads import one_thread_limit
from synthleak.serde import Result

if TYPE_CHECKING:
    from synthleak.runtime import Runtime

#: A generator this slow (seconds a run, alone) is measured again with every worker busy.
TOGETHER_MIN_SECONDS = 0.5

#: Seconds of generator runs a work unit aims at when :func:`plan_membership` balances a game.
UNIT_SECONDS = 60.0


@dataclass(frozen=True, repr=False)
class MembershipCost(Result):
    """Measured unit costs of a membership game.

    Attributes
    ----------
    generator : str
    train_size, synthetic_size : int
    fit_seconds : float
        Median wall-clock seconds of one ``fit + sample``, as the game will make them (with
        ``together`` workers busy at once when that is above 1).
    pilot_runs : int
        Generator runs of the pilot.
    attack_seconds : dict
        Attack name -> seconds to fit and score one target, per shadow dataset.
    pilot_seconds : float
        What the pilot itself took.
    together : int
        How many runs were made at once when ``fit_seconds`` was measured (1: one at a time).
    """

    generator: str
    train_size: int
    synthetic_size: int
    fit_seconds: float
    pilot_runs: int
    attack_seconds: dict[str, float] = field(default_factory=dict)
    pilot_seconds: float = 0.0
    together: int = 1

    def generation_seconds(
        self, n_datasets: int | Sequence[int], workers: int = 1, *, batch: int | None = None
    ) -> float:
        """Wall-clock seconds to make the releases of pools of ``n_datasets`` (one size or one
        per pool) on ``workers`` processes: in work units of at most ``batch`` datasets of one
        pool, each taken by the first free worker, or, without ``batch``, spread evenly."""
        sizes = [int(n_datasets)] if isinstance(n_datasets, int) else [int(s) for s in n_datasets]
        w = max(1, int(workers))
        if batch is None:
            return math.ceil(sum(sizes) / w) * self.fit_seconds
        b = max(1, int(batch))
        finish = [0] * w  # runs each worker has made, as a heap
        for size in sizes:
            for start in range(0, size, b):
                heapq.heapreplace(finish, finish[0] + min(b, size - start))
        return max(finish) * self.fit_seconds

    def attack_total_seconds(self, n_shadows: int, n_targets: int, workers: int = 1) -> float:
        """Wall-clock seconds to fit and score every attack against every target."""
        per_target = sum(self.attack_seconds.values()) * n_shadows
        return math.ceil(n_targets / max(1, workers)) * per_target

    def projected_seconds(
        self,
        *,
        n_shadows: int,
        n_tests: int,
        n_targets: int,
        workers: int = 1,
        shared: bool = True,
        batch: int | None = None,
    ) -> float:
        """Projected wall-clock seconds of the game (after the pilot), its generator runs in
        work units of ``batch`` datasets when given (:meth:`generation_seconds`)."""
        pools = [n_shadows, n_tests] * (1 if shared else n_targets)
        gen = self.generation_seconds(pools, workers, batch=batch)
        return gen + self.attack_total_seconds(n_shadows, n_targets, workers)

    def summary(
        self,
        *,
        n_shadows: int,
        n_tests: int,
        n_targets: int,
        workers: int,
        shared: bool = True,
        batch: int | None = None,
    ) -> str:
        """One line for the terminal: the projection and what it is made of."""
        pools = 1 if shared else n_targets
        total = self.projected_seconds(
            n_shadows=n_shadows,
            n_tests=n_tests,
            n_targets=n_targets,
            workers=workers,
            shared=shared,
            batch=batch,
        )
        runs = pools * (n_shadows + n_tests)
        how = f"{self.together} at a time" if self.together > 1 else "one at a time"
        return (
            f"projected time {format_seconds(total)}: {runs} runs of '{self.generator}' "
            f"({self.fit_seconds:.2f} s each, measured {how}) on {workers} worker(s), then "
            f"{len(self.attack_seconds)} attack(s) x {n_targets} target(s) on {n_shadows} shadow "
            f"datasets ({format_seconds(self.attack_total_seconds(n_shadows, n_targets, workers))})"
        )


def format_seconds(seconds: float) -> str:
    """``"42 s"``, ``"3.5 min"``, ``"2.1 h"``."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.1f} min"
    return f"{seconds / 3600:.1f} h"


def _pilot_run(shared: dict[str, object], rows: np.ndarray, seed: int) -> dict[str, np.ndarray]:
    """Work unit of the pilot: one generator run; its seconds, the worker and when it began."""
    table: Table = shared["table"]  # type: ignore[assignment]
    rng = np.random.default_rng(seed)
    began = time.time()
    t0 = time.perf_counter()
    make_generator(str(shared["spec"])).fit(table.take(rows), rng=rng).sample(
        int(shared["m"]),  # type: ignore[call-overload]
        rng=rng,
    )
    seconds = time.perf_counter() - t0
    return {
        "seconds": np.array([seconds]),
        "pid": np.array([os.getpid()]),
        "began": np.array([began]),
    }


def _seconds_together(
    spec: str, table: Table, n: int, m: int, rng: np.random.Generator, runtime: Runtime
) -> float | None:
    """Median seconds of a generator run with every local worker busy: three runs per worker,
    each worker's first (it starts the worker and the generator's imports) left out. ``None``
    when too few runs remain (a worker that failed, or one that took every run)."""
    from synthleak.runtime import WorkUnit

    units = [
        WorkUnit(
            f"pilot-{i}",
            (rng.choice(len(table), n, replace=False), int(rng.integers(2**63 - 1))),
        )
        for i in range(3 * runtime.workers)
    ]
    shared = {"table": table, "spec": spec, "m": m}
    results = runtime.run(_pilot_run, units, shared=shared, description="pilot, runs side by side")
    runs = [r.arrays for r in results.values() if r.arrays is not None]
    by_worker: dict[int, list[tuple[float, float]]] = {}
    for a in runs:
        by_worker.setdefault(int(a["pid"][0]), []).append(
            (float(a["began"][0]), float(a["seconds"][0]))
        )
    kept = [sec for times in by_worker.values() for _, sec in sorted(times)[1:]]
    if len(by_worker) < min(2, runtime.workers) or len(kept) < runtime.workers:
        return None
    return float(np.median(kept))


def measure_membership_cost(
    game: object,
    data: pd.DataFrame | Table,
    *,
    rng: np.random.Generator,
    runtime: Runtime | None = None,
    min_seconds: float = 3.0,
    max_pilot: int = 8,
    calibration: int = 100,
) -> MembershipCost:
    """Run the pilot of a :class:`~synthleak.games.membership.MembershipGame` (module docstring).

    The pilot uses the game's generator, sizes and attacks; its randomness comes from ``rng`` and
    does not touch the game's own seed streams. With a ``runtime`` of several local workers, a
    generator of at least :data:`TOGETHER_MIN_SECONDS` a run is measured again with every
    worker busy (the workers then stay started for the game).
    """
    from synthleak.attacks.base import AttackFamily, resolve_attacks

    t_start = time.perf_counter()
    table = as_table(data)
    n = int(game.train_size)  # type: ignore[attr-defined]
    m = int(game.synthetic_size)  # type: ignore[attr-defined]
    spec = str(game.generator)  # type: ignore[attr-defined]
    if n > len(table):
        raise InputError(f"train_size {n} is larger than the data ({len(table)} records)")
    given = game.attacks  # type: ignore[attr-defined]
    given = [given] if isinstance(given, str | Attack) else list(given)
    attacks = resolve_attacks(AttackFamily.MEMBERSHIP, given, game.attack_params)  # type: ignore[attr-defined]
    # one thread, as the game's work units run (synthleak.runtime.executor): the runs timed
    # here stand for theirs
    with one_thread_limit():
        releases: list[Table] = []
        seconds: list[float] = []
        target_row = int(rng.integers(len(table)))
        while len(releases) < max_pilot and (len(releases) < 3 or sum(seconds[1:]) < min_seconds):
            rows = rng.choice(len(table), n, replace=False)
            if len(releases) % 2 == 0 and target_row not in rows:
                rows[-1] = target_row
            t0 = time.perf_counter()
            syn = make_generator(spec).fit(table.take(rows), rng=rng).sample(m, rng=rng)
            seconds.append(time.perf_counter() - t0)
            releases.append(syn)
        fit_seconds = float(np.median(seconds[1:]))
        together = 1
        if (
            runtime is not None
            and runtime.cluster is None
            and runtime.workers > 1
            and fit_seconds >= TOGETHER_MIN_SECONDS
        ):
            measured = _seconds_together(spec, table, n, m, rng, runtime)
            if measured is not None:
                fit_seconds, together = measured, runtime.workers
        # attacks on a realistic number of shadow releases (the pilot's, tiled)
        k = max(4, min(calibration, int(game.n_shadows)))  # type: ignore[attr-defined]
        stack = TableStack.from_tables([releases[i % len(releases)] for i in range(k)])
        labels = np.arange(k) % 2
        target = table.take([target_row])
        others = table.take(np.setdiff1d(np.arange(len(table)), [target_row]))
        known = others.take(np.arange(min(n - 1, len(others))))  # exact knowledge's size
        attack_seconds = {}
        warm = TableStack.from_tables([releases[i % len(releases)] for i in range(4)])
        for name, attack in attacks:
            # a first fit on four releases pays the one-off costs (imports, JIT compilation,
            # caches) that the game's many fits do not repeat; only the second is timed
            fit_membership(
                copy.deepcopy(attack),  # type: ignore[arg-type]
                target,
                warm,
                np.arange(4) % 2,
                rng=rng,
                population=others,
                known=known,
            )
            model = copy.deepcopy(attack)
            t0 = time.perf_counter()
            fit_membership(
                model,  # type: ignore[arg-type]
                target,
                stack,
                labels,
                rng=rng,
                population=others,
                known=known,
            )
            model.score(stack)  # type: ignore[attr-defined]
            attack_seconds[name] = (time.perf_counter() - t0) / k
    return MembershipCost(
        spec,
        n,
        m,
        fit_seconds,
        len(seconds),
        attack_seconds,
        time.perf_counter() - t_start,
        together,
    )


@dataclass(frozen=True, repr=False)
class Power(Result):
    """What a budget can show.

    Attributes
    ----------
    n_tests : int
        Test datasets (half IN, half OUT).
    auc_half_width : float
        Half-width of a 95 % interval around an AUC of 0.5 (Hanley and McNeil 1982): smaller
        effects than this cannot be told from guessing.
    epsilon_ceiling : float
        The largest epsilon the test datasets could ever certify (every trial right), for the
        claim's relation at 95 % with the evaluation half of the trials, or with all of them
        for a rule fixed in advance (the error then shared, as the epsilon audit shares it).
    """

    n_tests: int
    auc_half_width: float
    epsilon_ceiling: float

    def sentence(self) -> str:
        return (
            f"{self.n_tests} test datasets can tell an AUC above 0.5 + {self.auc_half_width:.3f} "
            f"from guessing, and certify an epsilon of at most {self.epsilon_ceiling:.2f}"
        )


def power(
    n_tests: int,
    *,
    confidence: float = 0.95,
    fixed_rules: int = 0,
    neighbouring: Neighbouring | str = Neighbouring.ADD_REMOVE,
    game_neighbouring: Neighbouring | str = Neighbouring.SUBSTITUTE,
) -> Power:
    """The power of ``n_tests`` test datasets (:class:`Power`) for a claim in ``neighbouring``
    tested on trials in ``game_neighbouring`` (the exact-knowledge game's add/remove trials
    bound an add/remove claim directly, substitution trials only half as much), with
    ``fixed_rules`` rules fixed in advance (the novelty attack's, one per target) beside the
    selected test."""
    from statistics import NormalDist

    from synthleak.metrics.epsilon import epsilon_ceiling, error_shares, level_at_share

    n_pos = n_neg = max(1, n_tests // 2)
    var = (n_pos + n_neg + 1) / (12.0 * n_pos * n_neg)
    z = NormalDist().inv_cdf(0.5 + confidence / 2)

    def ceiling(n: int, share: float) -> float:
        return epsilon_ceiling(
            n,
            n,
            confidence=level_at_share(confidence, share),
            neighbouring=neighbouring,
            game_neighbouring=game_neighbouring,
        )

    # the selected test is bounded on the evaluation half of the trials (selection on the
    # other half); a rule fixed in advance on all of them
    share, rule_share = error_shares(fixed_rules)
    best = ceiling(max(1, n_pos // 2), share)
    if fixed_rules:
        best = max(best, ceiling(n_pos, rule_share))
    return Power(int(n_tests), z * math.sqrt(var), float(best))


#: The smallest useful membership game a time limit may size (:func:`fit_budget`).
MIN_SHADOWS = 50
MIN_TESTS = 50


def smallest_game_seconds(
    cost: MembershipCost,
    *,
    n_targets: int,
    workers: int = 1,
    shared: bool = True,
    batch: int | None = None,
) -> float:
    """Projected seconds of the smallest game :func:`fit_budget` would size."""
    return cost.projected_seconds(
        n_shadows=MIN_SHADOWS,
        n_tests=MIN_TESTS,
        n_targets=n_targets,
        workers=workers,
        shared=shared,
        batch=batch,
    )


def shared_pool(game: object) -> bool:
    """Whether ``game``'s shadow datasets share one pool (auxiliary knowledge, shared pool)."""
    return (
        game.knowledge == Knowledge.AUXILIARY  # type: ignore[attr-defined]
        and game.pool == PoolMode.SHARED  # type: ignore[attr-defined]
    )


def fit_budget(
    cost: MembershipCost,
    max_seconds: float,
    *,
    n_targets: int,
    workers: int = 1,
    shared: bool = True,
    batch: int | None = None,
    tests_per_shadow: float = 0.2,
    min_shadows: int = MIN_SHADOWS,
    max_shadows: int = 4000,
) -> tuple[int, int]:
    """The largest ``(n_shadows, n_tests)`` whose projection fits ``max_seconds`` (work units of
    ``batch`` datasets when given).

    Test datasets are ``tests_per_shadow`` of the shadow datasets (at least 50): the shadow pool
    trains the attacks, the test pool measures them. Raises :class:`InputError` when even
    ``min_shadows`` shadow datasets do not fit, and says what the minimum would take.
    """

    def tests(s: int) -> int:
        return max(MIN_TESTS, round(s * tests_per_shadow))

    def projected(s: int) -> float:
        return cost.projected_seconds(
            n_shadows=s,
            n_tests=tests(s),
            n_targets=n_targets,
            workers=workers,
            shared=shared,
            batch=batch,
        )

    def fits(s: int) -> bool:
        return projected(s) <= max_seconds

    if not fits(min_shadows):
        need = projected(min_shadows)
        raise InputError(
            f"max_time {format_seconds(max_seconds)} is out of reach for '{cost.generator}': the "
            f"smallest useful game ({min_shadows} shadow datasets) needs about "
            f"{format_seconds(need)}; allow more time, add workers, or audit the release without "
            "the generator (no-box: original, synthetic and control data)"
        )
    lo, hi = min_shadows, max_shadows
    if fits(hi):
        return hi, tests(hi)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if fits(mid) else (lo, mid)
    return lo, tests(lo)


def unit_datasets(fit_seconds: float, *, most: int = 50) -> int:
    """Datasets per work unit for runs of ``fit_seconds``: about :data:`UNIT_SECONDS` of runs,
    between 1 and ``most``."""
    return max(1, min(int(most), int(UNIT_SECONDS // max(fit_seconds, 1e-9))))


def plan_membership(
    game: object,
    data: pd.DataFrame | Table,
    *,
    n_targets: int,
    rng: np.random.Generator,
    workers: int = 1,
    max_seconds: float | None = None,
    cap: bool = True,
    cost: MembershipCost | None = None,
    runtime: Runtime | None = None,
    balance: bool = False,
) -> tuple[MembershipCost, float]:
    """Plan a :class:`~synthleak.games.membership.MembershipGame`: measure its cost
    (:func:`measure_membership_cost`, randomness from ``rng``, on ``runtime``'s workers when
    given), size its ``n_shadows`` and ``n_tests`` to ``max_seconds`` less the pilot's own time
    when given (:func:`fit_budget`; the game is changed in place), and return the cost and the
    projected seconds of the game as sized, in its work units.

    With ``cap`` the game's own sizes are upper bounds (sizes a user asked for); without it the
    fit may also raise them to use the time (sizes that were only a default). With ``balance``
    the game's ``batch_size`` is lowered to about :data:`UNIT_SECONDS` of generator runs
    (:func:`unit_datasets`): a slow generator's last work units then leave little idle time.
    Units of another size share their keys in a run directory, not their datasets (the game
    refuses them): keep the size chosen to resume.
    Whether the shadow datasets share one pool follows the game's ``knowledge`` and ``pool``. A
    ``cost`` already measured for the same generator and sizes is used instead of a new pilot
    (its time is counted all the same).
    """
    shared = shared_pool(game)
    if cost is None:
        cost = measure_membership_cost(game, data, rng=rng, runtime=runtime)
    if balance:
        game.batch_size = unit_datasets(cost.fit_seconds, most=game.batch_size)  # type: ignore[attr-defined]
    batch = int(game.batch_size)  # type: ignore[attr-defined]
    if max_seconds is not None:
        shadows, tests = fit_budget(
            cost,
            max_seconds - cost.pilot_seconds,
            n_targets=n_targets,
            workers=workers,
            shared=shared,
            batch=batch,
        )
        if cap:
            shadows = min(shadows, game.n_shadows)  # type: ignore[attr-defined]
            tests = min(tests, game.n_tests)  # type: ignore[attr-defined]
        game.n_shadows, game.n_tests = shadows, tests  # type: ignore[attr-defined]
    projected = cost.projected_seconds(
        n_shadows=game.n_shadows,  # type: ignore[attr-defined]
        n_tests=game.n_tests,  # type: ignore[attr-defined]
        n_targets=n_targets,
        workers=workers,
        shared=shared,
        batch=batch,
    )
    return cost, projected
