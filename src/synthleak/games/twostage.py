"""Two-stage membership audit: screen every record cheaply, then attack the riskiest in full.

Meeus et al. (2023) rank records by the vulnerability score ``V_k`` because a shadow-model attack
on every record was too expensive for them. A shared-pool risk map makes a cheap attack on every
record affordable. On ground-truth risk maps (``benchmarks/RESULTS_selectors.md``: nineteen maps
of eight datasets and four generators) the records the audit's screen (:func:`screen_design`,
one pool) selects reach 0.958 of the true top 10's mean AUC on four maps it was not chosen on,
against 0.895 for ``V_k``, and 0.940 on four other held-out maps (baynet and synthpop releases
of two datasets not in this repository); a wider two-pool screen reached 0.965 and 0.941 on the
same maps at twice the generator runs, so the cheaper one is the default. The two-stage audit,
the default of ``synthleak audit`` and ``synthleak mia``, therefore

1. **screens** the records with :class:`ScreeningMap`: one shadow pool and one test pool of
   synthetic datasets shared by every record (few datasets, a thousand counting queries per
   record), one query-attack meta-classifier per record, its AUC on the test pool (with the
   ``two-pool`` design, a wider cut with a smaller attack, whose best records are screened
   again, with the full attack, on a second, independent pool, :func:`screen_records` with
   ``second_pool``, and ranked by the mean of both AUCs);
2. **attacks in full** the records the screen ranks highest (``ScreeningResult.top``), with the
   full shadow-model game (:class:`~synthleak.games.membership.MembershipGame`) and its budget.

Screening design
----------------
The audited records ``R`` (every record of the data by default) and the *fillers* (the other
records) form the population. Every shadow and test dataset has ``train_size`` records: a uniformly
random subset of ``h = min(train_size, floor(|R| / 2))`` audited records and ``train_size - h``
random fillers. So every audited record is IN a dataset with probability ``h / |R|`` (1/2 when
fillers pad the datasets), independently of the pool, and the generator always trains on
``train_size`` records. This is the design of :class:`~synthleak.games.riskmap.RiskMap` (and of
LiRA's shared shadow models) extended to audit *every* record of a small dataset, where no
fillers are left: with 1,000 records and ``train_size = 330`` (the audit's size for 1,000 records),
each dataset is a random third of the data.

Memory and execution
--------------------
Datasets are generated once (work units of ``batch_size`` datasets, resumable with a run
directory) and held as one :class:`~synthleak.queries.TableStack` per pool; each record's features
are computed on the fly in work units of ``chunk`` records, never ``records x datasets x 2^F``.
Every random draw comes from a stream (:mod:`synthleak.runtime.seeding`) keyed by pool, dataset
and record: the same seed gives the same screen whatever the number of workers.

Notes
-----
Threat model of the screen: the attacker of Meeus et al. (2023), Sec. 2.3 (black-box access to
the generator's training procedure, auxiliary data from the same population, the target record)
with the shadow pools of Carlini et al. (2022). The screen's AUCs are estimates from few datasets:
they rank records, they are not the audit's risk figures; the full game of stage 2 measures the
risk of the records it selects, with confidence intervals and the 0.5 baseline.

References
----------
Meeus, Guepin, Cretu and de Montjoye (2023), Sec. 3-5 (query-based attack, ``V_k``, baselines).
Carlini et al. (2022) (LiRA: shadow models shared by all records, each record IN half of them).
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import pandas as pd

from synthleak.attacks.base import AttackFamily, MembershipAttack, make_attack
from synthleak.data.release import as_table
from synthleak.data.table import Table
from synthleak.errors import InputError, raise_if_interrupted
from synthleak.games.shadow import table_fingerprint
from synthleak.generators import make_generator
from synthleak.metrics.privacy import auc_estimate
from synthleak.queries import TableStack
from synthleak.runtime import Runtime, WorkUnit, as_runtime
from synthleak.runtime.seeding import game_seed, stream
from synthleak.serde import FloatArray, IntArray, Result

if TYPE_CHECKING:
    from synthleak.games.targets import Targets

__all__ = [
    "MIN_SCREENED",
    "SCREEN_FRACTION",
    "STAGE1_ESTIMATORS",
    "STAGE1_QUERIES",
    "ScreeningMap",
    "ScreeningResult",
    "screen_design",
    "screen_generator_runs",
    "screen_records",
    "screened_count",
    "screened_targets",
]

# keys kept from the first layout
_POOL = stream("screen/pool", key=31)
_DATASET = stream("screen/dataset", key=32)
_ATTACK = stream("screen/attack", key=33)
_METRIC = stream("screen/metric", key=34)
_ATTACK1 = stream("screen/attack-stage1", key=35)  # stage 1 of successive halving
_METRIC1 = stream("screen/metric-stage1", key=36)
_SECOND = stream("screen/second-pool")  # the seed of the second pool's game
_SHADOW, _TEST = 0, 1


@dataclass(frozen=True, repr=False)
class ScreeningResult(Result):
    """Stage 1 of the two-stage audit: a cheap membership AUC for every audited record.

    Attributes
    ----------
    rows : IntArray
        Audited rows of the data, in the order of the other arrays.
    auc, ci_low, ci_high : FloatArray
        Query-attack AUC of each record on the test pool and its 95 % bootstrap interval (nan
        when a pool holds the record in every dataset or in none).
    generator : str
    train_size, n_shadows, n_tests, n_queries : int
        Records per dataset, shadow and test datasets, counting queries per record.
    seed : int
    failed_datasets, total_datasets : int
        Generator runs that failed (their datasets are dropped) and all runs.
    stage : IntArray
        Successive halving or a second pool only (empty otherwise): 2 for the records screened
        again (their ``auc`` is the full screen's on the whole pools, or the mean of both
        pools'), 1 for the others (their ``auc`` is the first stage's).
    stage1_auc : FloatArray
        Successive halving only: every record's first-stage AUC.
    stage1_shadows, stage1_tests, stage1_queries, stage1_estimators : int
        Successive halving or a second pool: datasets, queries and trees of the first stage.
    second_auc : FloatArray
        Second pool only (empty otherwise): every record's AUC on the second pool (nan for the
        records not passed on); their ``auc`` is the mean of both pools' and ``stage`` is 2.
    second_pool : int
        Records screened again on a second, independent pool (0: none).
    """

    rows: IntArray
    auc: FloatArray
    ci_low: FloatArray
    ci_high: FloatArray
    generator: str = ""
    train_size: int = 0
    n_shadows: int = 0
    n_tests: int = 0
    n_queries: int = 0
    seed: int = 0
    failed_datasets: int = 0
    total_datasets: int = 0
    stage: IntArray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    stage1_auc: FloatArray = field(default_factory=lambda: np.zeros(0, dtype=np.float64))
    stage1_shadows: int = 0
    stage1_tests: int = 0
    stage1_queries: int = 0
    stage1_estimators: int = 0
    second_auc: FloatArray = field(default_factory=lambda: np.zeros(0, dtype=np.float64))
    second_pool: int = 0

    def order(self) -> np.ndarray:
        """Positions (into :attr:`rows`) from the highest screened AUC to the lowest.

        With successive halving or a second pool, the re-screened records come first (by
        their full-screen AUC, or the mean of both pools'), then the others by their
        first-stage AUC. Undefined AUCs come last within their
        stage; ties keep the row order.
        """
        key = np.where(np.isnan(self.auc), -np.inf, self.auc)
        if self.stage.size:
            return np.lexsort((np.arange(key.size), -key, -self.stage))
        return np.argsort(-key, kind="stable")

    def top(self, n: int) -> np.ndarray:
        """The ``n`` rows of the data with the highest screened AUC (int64, riskiest first)."""
        if isinstance(n, bool) or int(n) != n or n < 1:
            raise InputError(f"n must be a positive number of records, got {n!r}")
        return self.rows[self.order()[: int(n)]].astype(np.int64)


# --- work units (top level: picklable for processes and Dask) ---------------------------------


def _generate_units(
    shared: dict[str, Any], pool_id: int, start: int, rows: np.ndarray
) -> dict[str, np.ndarray]:
    """Fit the generator on each dataset ``rows[j]`` (rows of the data) and sample
    ``train_size``."""
    data: Table = shared["data"]
    m, seed, spec = int(shared["m"]), int(shared["seed"]), shared["generator"]
    b = rows.shape[0]
    codes = np.zeros((b, m, data.codes.shape[1]), dtype=data.codes.dtype)
    values = np.zeros((b, m, data.values.shape[1]), dtype=np.float32)
    ok = np.zeros(b, dtype=bool)
    errors = np.full(b, "", dtype="<U200")
    for j in range(b):
        rng = _DATASET.rng(seed, pool_id, start + j)
        try:
            syn = make_generator(spec).fit(data.take(rows[j]), rng=rng).sample(m, rng=rng)
            if len(syn) != m or syn.schema != data.schema:
                raise ValueError(f"generator returned {len(syn)} records or another schema")
            codes[j], values[j], ok[j] = syn.codes, syn.values, True
        except Exception as exc:  # counted and reported; the dataset is dropped
            raise_if_interrupted(exc)
            msg = str(exc).splitlines()[0] if str(exc) else ""
            errors[j] = f"{type(exc).__name__}: {msg}"[:200]
    return {"codes": codes, "values": values, "ok": ok, "errors": errors}


def _screen_units(shared: dict[str, Any], lo: int, hi: int) -> dict[str, np.ndarray]:
    """Query attack of audited records ``lo:hi``: fit on the shadow pool, AUC on the test pool."""
    targets: Table = shared["targets"]
    shadow: TableStack = shared["shadow"]
    test: TableStack = shared["test"]
    ys, yt = shared["y_shadow"], shared["y_test"]
    seed = int(shared["seed"])
    index: np.ndarray = shared["index"]  # positions (into the audited records) to attack
    attack_stream, metric_stream = shared["streams"]
    out = np.full((hi - lo, 3), np.nan)
    for j, i in enumerate(int(p) for p in index[lo:hi]):
        y_s, y_t = ys[:, i], yt[:, i]
        if y_s.all() or not y_s.any() or y_t.all() or not y_t.any():
            continue  # no IN or no OUT dataset: the AUC is undefined
        model = cast(
            MembershipAttack,
            make_attack(
                AttackFamily.MEMBERSHIP,
                "query",
                n_queries=int(shared["n_queries"]),
                n_estimators=int(shared["n_estimators"]),
            ),
        )
        model.fit(targets.take([i]), shadow, y_s.astype(np.int64), rng=attack_stream.rng(seed, i))
        s = np.asarray(model.score(test), dtype=np.float64)
        est = auc_estimate(y_t, s, rng=metric_stream.rng(seed, i), n_boot=int(shared["n_boot"]))
        out[j] = (est.value, est.ci_low, est.ci_high)
    return {"auc": out}


def _ranks(x: np.ndarray) -> np.ndarray:
    """Average ranks of ``x`` scaled to [0, 1] (ties share their mean rank)."""
    from scipy.stats import rankdata

    return (rankdata(x) - 1) / max(x.size - 1, 1)


class ScreeningMap:
    """Stage 1 of the two-stage audit: a cheap query-attack AUC for every audited record.

    Parameters
    ----------
    generator : str
        Generator spec (``baynet``, ``synthpop:predictors=onehot``, ...).
    train_size : int, optional
        Records per shadow and test dataset (``|D|``). Default: the size the audit's full game
        uses for these data, ``min(1000, (len(data) - 10) // 3)``.
    n_shadows, n_tests : int
        Shadow (attacker) and test (challenger) datasets, shared by every record.
    n_queries : int
        Counting queries per record (a random subset of all ``2^F - 1``).
    n_estimators : int
        Trees of each record's random forest (depth 10).
    records : sequence of int, optional
        Rows to audit (default: every row). The other rows are fillers.
    n_boot : int
        Bootstrap resamples of each AUC interval.
    chunk, batch_size : int
        Records per attack work unit (at most; smaller when a unit per worker would leave
        workers idle), datasets per generation work unit.
    keep : int, optional
        Successive halving: screen every audited record cheaply on the first
        ``stage1_shadows`` + ``stage1_tests`` datasets of the pools (``stage1_queries`` queries,
        ``stage1_estimators`` trees), then re-screen the ``keep`` records with the highest
        first-stage AUC on the whole pools with the full attack. Default (None): one stage, every
        audited record on the whole pools.
    stage1_shadows, stage1_tests, stage1_queries, stage1_estimators : int
        The first stage of successive halving (ignored without ``keep``).
    stage1_prior : array of float, optional
        Successive halving: a score of each audited record (higher = riskier, e.g. cell
        rarity) whose rank is averaged with the rank of the first-stage AUC to choose the
        ``keep`` records. Default: the first-stage AUC alone.

    Notes
    -----
    See the module docstring for the design and the threat model. Cost: ``n_shadows + n_tests``
    generator runs and one forest per audited record on ``n_shadows`` datasets of ``n_queries``
    features. With ``keep``: the same generator runs (the two stages share the pools), one
    small forest per audited record (``stage1_estimators`` trees on ``stage1_shadows`` datasets
    of ``stage1_queries`` features) and one full forest per kept record.

    References
    ----------
    Meeus et al. (2023), Sec. 5.1; Carlini et al. (2022).
    """

    def __init__(
        self,
        generator: str,
        *,
        train_size: int | None = None,
        n_shadows: int = 100,
        n_tests: int = 100,
        n_queries: int = 1000,
        n_estimators: int = 100,
        records: np.ndarray | list[int] | None = None,
        n_boot: int = 200,
        chunk: int = 20,
        batch_size: int = 10,
        keep: int | None = None,
        stage1_shadows: int = 50,
        stage1_tests: int = 50,
        stage1_queries: int = 100,
        stage1_estimators: int = 10,
        stage1_prior: np.ndarray | None = None,
    ) -> None:
        self.generator = generator
        self.train_size = train_size
        self.n_shadows = n_shadows
        self.n_tests = n_tests
        self.n_queries = n_queries
        self.n_estimators = n_estimators
        self.records = records
        self.n_boot = n_boot
        self.chunk = chunk
        self.batch_size = batch_size
        self.keep = keep
        self.stage1_shadows = stage1_shadows
        self.stage1_tests = stage1_tests
        self.stage1_queries = stage1_queries
        self.stage1_estimators = stage1_estimators
        self.stage1_prior = stage1_prior

    # --- validation ---------------------------------------------------------------------------
    def _check(self, data: Table) -> tuple[np.ndarray, int]:
        make_generator(self.generator)  # unknown generator / bad parameters -> InputError
        for name, val, low in (
            ("n_shadows", self.n_shadows, 4),
            ("n_tests", self.n_tests, 4),
            ("n_queries", self.n_queries, 1),
            ("n_estimators", self.n_estimators, 1),
            ("n_boot", self.n_boot, 10),
            ("chunk", self.chunk, 1),
            ("batch_size", self.batch_size, 1),
        ):
            if isinstance(val, bool) or not isinstance(val, int | np.integer) or val < low:
                raise InputError(f"{name} must be a whole number >= {low}, got {val!r}")
        if self.keep is not None:
            for name, val, low, high in (
                ("keep", self.keep, 1, None),
                ("stage1_shadows", self.stage1_shadows, 4, self.n_shadows),
                ("stage1_tests", self.stage1_tests, 4, self.n_tests),
                ("stage1_queries", self.stage1_queries, 1, None),
                ("stage1_estimators", self.stage1_estimators, 1, None),
            ):
                if isinstance(val, bool) or not isinstance(val, int | np.integer) or val < low:
                    raise InputError(f"{name} must be a whole number >= {low}, got {val!r}")
                if high is not None and val > high:
                    raise InputError(
                        f"{name} = {val} but the pool has only {high} datasets: the first stage "
                        "uses a part of the pools, lower it"
                    )
        n = len(data)
        if self.records is None:
            rows = np.arange(n, dtype=np.int64)
        else:
            rows = np.asarray(self.records).ravel()
            if rows.size == 0 or not np.issubdtype(rows.dtype, np.integer):
                raise InputError("records must be a non-empty list of row numbers")
            rows = rows.astype(np.int64)
            if rows.min() < 0 or rows.max() >= n:
                raise InputError(f"records must be rows of the data, 0..{n - 1}")
            if np.unique(rows).size != rows.size:
                raise InputError("a row is listed twice in records: list each row once")
        if self.keep is not None and self.stage1_prior is not None:
            prior = np.asarray(self.stage1_prior, dtype=np.float64).ravel()
            if prior.size != rows.size or not np.all(np.isfinite(prior)):
                raise InputError(
                    f"stage1_prior must hold one finite score per audited record ({rows.size}), "
                    f"got {prior.size} values"
                )
        train_size = self.train_size if self.train_size is not None else min(1000, (n - 10) // 3)
        if isinstance(train_size, bool) or int(train_size) != train_size or train_size < 2:
            raise InputError(
                f"train_size must be a whole number >= 2, got {train_size!r}"
                + ("" if self.train_size is not None else f" (the data has only {n} records)")
            )
        half = min(int(train_size), rows.size // 2)
        if half < 1:
            raise InputError("audit at least 2 records: every dataset holds a random half of them")
        if n - rows.size < int(train_size) - half:
            raise InputError(
                f"train_size = {train_size} needs {int(train_size) - half} fillers per dataset "
                f"but only {n - rows.size} rows are not audited: lower train_size or audit "
                "fewer records"
            )
        return rows, int(train_size)

    # --- design -------------------------------------------------------------------------------
    def _design(
        self, seed: int, rows: np.ndarray, fillers: np.ndarray, train_size: int
    ) -> dict[int, tuple[np.ndarray, np.ndarray]]:
        """Pool id -> (dataset rows (S, train_size) of the data, labels (S, |R|) bool)."""
        r = rows.size
        half = min(train_size, r // 2)
        design = {}
        for pool_id, size in ((_SHADOW, int(self.n_shadows)), (_TEST, int(self.n_tests))):
            rng = _POOL.rng(seed, pool_id)
            ds = np.empty((size, train_size), dtype=np.int64)
            labels = np.zeros((size, r), dtype=bool)
            for s in range(size):
                ins = rng.choice(r, half, replace=False)
                labels[s, ins] = True
                ds[s, :half] = rows[np.sort(ins)]
                if train_size > half:
                    ds[s, half:] = fillers[
                        rng.choice(fillers.size, train_size - half, replace=False)
                    ]
            design[pool_id] = (ds, labels)
        return design

    # --- running ------------------------------------------------------------------------------
    def run(
        self, data: pd.DataFrame | Table, *, seed: int, runtime: Runtime | None = None
    ) -> ScreeningResult:
        """Screen the audited records of ``data``.

        Parameters
        ----------
        data : DataFrame or Table
            The private dataset (audited records and fillers).
        seed : int
            Same seed, same result, whatever the runtime.
        runtime : Runtime, optional
            Workers, cluster, resumable run directory, progress bars.
        """
        data = as_table(data)
        rt = as_runtime(runtime)
        rows, train_size = self._check(data)
        fillers = np.setdiff1d(np.arange(len(data)), rows)
        design = self._design(int(seed), rows, fillers, train_size)
        config = {
            "game": "screening",
            "generator": self.generator,
            "train_size": train_size,
            "n_shadows": int(self.n_shadows),
            "n_tests": int(self.n_tests),
            "n_queries": int(self.n_queries),
            "n_estimators": int(self.n_estimators),
            "n_boot": int(self.n_boot),
            "seed": int(seed),
            "data": table_fingerprint(data),
            "records": hashlib.sha256(rows.tobytes()).hexdigest()[:16],
        }
        halving = self.keep is not None and int(self.keep) < rows.size
        if halving:
            if self.stage1_prior is not None:
                prior = np.ascontiguousarray(self.stage1_prior, dtype=np.float64)
                config["stage1_prior"] = hashlib.sha256(prior.tobytes()).hexdigest()[:16]
            config |= {
                "keep": int(cast(int, self.keep)),
                "stage1": [
                    int(self.stage1_shadows),
                    int(self.stage1_tests),
                    int(self.stage1_queries),
                    int(self.stage1_estimators),
                ],
            }
        store = rt.store(config)
        targets = data.take(rows)
        stage = np.zeros(0, dtype=np.int64)
        auc1 = np.zeros(0, dtype=np.float64)
        try:
            stacks, labels, index, failed, total = self._generate(
                data, design, train_size, seed, rt, store
            )
            everyone = np.arange(rows.size, dtype=np.int64)
            if not halving:
                auc = self._screen(targets, stacks, labels, everyone, seed, rt, store)
            else:
                # stage 1: every record on the first datasets of each pool (the ones generated
                # first), a small attack
                first = {
                    _SHADOW: index[_SHADOW] < int(self.stage1_shadows),
                    _TEST: index[_TEST] < int(self.stage1_tests),
                }
                for pid, mask in first.items():
                    if mask.sum() < 4:
                        raise InputError(
                            f"only {int(mask.sum())} datasets of the first stage's "
                            f"{'shadow' if pid == _SHADOW else 'test'} pool were generated: "
                            "the generator failed on the others"
                        )
                first_stage = self._screen(
                    targets,
                    {p: stacks[p].take(np.flatnonzero(m)) for p, m in first.items()},
                    {p: labels[p][m] for p, m in first.items()},
                    everyone,
                    seed,
                    rt,
                    store,
                    stage=1,
                )
                auc1 = first_stage[:, 0]
                key = np.where(np.isnan(auc1), -np.inf, auc1)
                if self.stage1_prior is not None:
                    key = _ranks(key) + _ranks(np.asarray(self.stage1_prior, np.float64).ravel())
                kept = np.sort(np.argsort(-key, kind="stable")[: int(cast(int, self.keep))])
                # stage 2: the kept records on the whole pools (stage 1's datasets and the rest)
                second = self._screen(targets, stacks, labels, kept, seed, rt, store)
                auc = first_stage.copy()
                auc[kept] = second
                stage = np.ones(rows.size, dtype=np.int64)
                stage[kept] = 2
        finally:
            if store is not None:
                store.close()
        s1: dict[str, Any] = (
            {
                "stage": stage,
                "stage1_auc": auc1,
                "stage1_shadows": int(self.stage1_shadows),
                "stage1_tests": int(self.stage1_tests),
                "stage1_queries": int(self.stage1_queries),
                "stage1_estimators": int(self.stage1_estimators),
            }
            if halving
            else {}
        )
        return ScreeningResult(
            rows=rows,
            auc=auc[:, 0],
            ci_low=auc[:, 1],
            ci_high=auc[:, 2],
            generator=self.generator,
            train_size=train_size,
            n_shadows=int(self.n_shadows),
            n_tests=int(self.n_tests),
            n_queries=int(self.n_queries),
            seed=int(seed),
            failed_datasets=failed,
            total_datasets=total,
            **s1,
        )

    def _generate(
        self,
        data: Table,
        design: dict[int, tuple[np.ndarray, np.ndarray]],
        train_size: int,
        seed: int,
        rt: Runtime,
        store: Any,
    ) -> tuple[dict[int, TableStack], dict[int, np.ndarray], dict[int, np.ndarray], int, int]:
        """Generate both pools; per pool the stack and labels of the datasets that were
        generated, and their positions in the pool."""
        bs = int(self.batch_size)
        units = [
            WorkUnit(f"gen-p{pid}-s{start}", (pid, start, ds[start : start + bs]))
            for pid, (ds, _) in design.items()
            for start in range(0, ds.shape[0], bs)
        ]
        shared = {"data": data, "m": train_size, "seed": int(seed), "generator": self.generator}
        res = rt.run(
            _generate_units,
            units,
            shared=shared,
            store=store,
            description=f"screening datasets ({self.generator})",
        )
        stacks, labels, index = {}, {}, {}
        failed, messages = 0, []
        for pid, (_ds, lab) in design.items():
            codes, values, ok = [], [], []
            for u in units:
                if u.args[0] != pid:
                    continue
                r = res[u.key]
                b = u.args[2].shape[0]
                if r.arrays is None:
                    codes.append(np.zeros((b, train_size, data.codes.shape[1]), data.codes.dtype))
                    values.append(np.zeros((b, train_size, data.values.shape[1]), np.float32))
                    ok.append(np.zeros(b, dtype=bool))
                    messages.append(str(r.error))
                    continue
                okb = r.arrays["ok"].astype(bool)
                codes.append(r.arrays["codes"])
                values.append(r.arrays["values"])
                ok.append(okb)
                messages += [str(e) for e in r.arrays["errors"][~okb]]
            okv = np.concatenate(ok)
            failed += int((~okv).sum())
            if okv.sum() < 4:
                raise InputError(
                    f"the generator {self.generator!r} failed on {int((~okv).sum())} of "
                    f"{okv.size} screening datasets: {'; '.join(sorted(set(messages))[:3])}"
                )
            stacks[pid] = TableStack(
                data.schema, np.concatenate(codes)[okv], np.concatenate(values)[okv]
            )
            labels[pid] = lab[okv]
            index[pid] = np.flatnonzero(okv)
        total = sum(ds.shape[0] for ds, _ in design.values())
        return stacks, labels, index, failed, int(total)

    def _screen(
        self,
        targets: Table,
        stacks: dict[int, TableStack],
        labels: dict[int, np.ndarray],
        index: np.ndarray,
        seed: int,
        rt: Runtime,
        store: Any,
        *,
        stage: int = 0,
    ) -> np.ndarray:
        """AUC and interval ``(len(index), 3)`` of the audited records at positions ``index``;
        ``stage`` 1 is the first stage of successive halving (its own attack size, seed paths
        and work-unit names), 0 the full screen."""
        n = int(index.size)
        # at least four units per worker, so that a short screen keeps every worker busy (each
        # record's draws are keyed by the record: the unit size does not change the result)
        step = max(1, min(int(self.chunk), math.ceil(n / (4 * max(1, rt.workers)))))
        tag = "screen1" if stage == 1 else ("screen" if n == len(targets) else "screen2")
        units = [
            WorkUnit(f"{tag}-r{lo}-{min(lo + step, n)}", (lo, min(lo + step, n)))
            for lo in range(0, n, step)
        ]
        shared = {
            "targets": targets,
            "shadow": stacks[_SHADOW],
            "test": stacks[_TEST],
            "y_shadow": labels[_SHADOW],
            "y_test": labels[_TEST],
            "seed": int(seed),
            "index": index,
            "streams": (_ATTACK1, _METRIC1) if stage == 1 else (_ATTACK, _METRIC),
            "n_queries": int(self.stage1_queries if stage == 1 else self.n_queries),
            "n_estimators": int(self.stage1_estimators if stage == 1 else self.n_estimators),
            "n_boot": int(self.n_boot),
        }
        what = "first stage" if stage == 1 else "screening"
        res = rt.run(
            _screen_units, units, shared=shared, store=store, description=f"{what}: {n} records"
        )
        out = np.full((n, 3), np.nan)
        errors = []
        for u in units:
            r = res[u.key]
            if r.arrays is None:
                errors.append(str(r.error))
                continue
            lo, hi = u.args
            out[lo:hi] = r.arrays["auc"]
        if errors:
            raise RuntimeError(f"{len(errors)} of {len(units)} screening units failed: {errors[0]}")
        return out


#: The full screening attack's counting queries and trees (``screen_records``' defaults).
FULL_QUERIES, FULL_ESTIMATORS = 1000, 100
#: Share of the records screened after the cell-rarity prefilter (chosen on the design risk maps).
SCREEN_FRACTION = 0.1
#: Fewest records screened (all of them when the data has fewer).
MIN_SCREENED = 50
#: Successive halving: queries and trees of the first stage's attack (a tenth of a full
#: screen's cost per record; fixed from timings before any risk map was read with it).
STAGE1_QUERIES = 100
STAGE1_ESTIMATORS = 10


#: The two-pool screen (``screen_design(..., design=TWO_POOL)``), chosen on fifteen risk maps
#: and read on held-out ones (benchmarks/RESULTS_selectors.md, "A second, independent pool"):
#: cell rarity keeps ``FIRST_PER_TARGET`` records per target (at least ``FIRST_MIN``), screened
#: with a small attack; the ``SECOND_PER_TARGET`` per target (at least ``SECOND_MIN``) it ranks
#: riskiest are screened again, with the full attack, on a second pool.
FIRST_PER_TARGET, FIRST_MIN = 40, 200
FIRST_QUERIES, FIRST_ESTIMATORS = 200, 20
SECOND_PER_TARGET, SECOND_MIN = 2, 20

#: The screen designs by name: ``one-pool`` (the audit's default) screens
#: :func:`screened_count` records with the full attack on one pool; ``two-pool`` screens a wider
#: cut with a small attack and its best records again on a second pool. On eight held-out risk
#: maps they tie (0.958 and 0.940 for one pool, 0.965 and 0.941 for two, on two rounds of four
#: maps), so the default is the one of half the generator runs.
ONE_POOL, TWO_POOL = "one-pool", "two-pool"
SCREEN_DESIGNS = (ONE_POOL, TWO_POOL)


def screen_design(n_targets: int, available: int, *, design: str = ONE_POOL) -> dict[str, Any]:
    """The :func:`screen_records` parameters with which an audit screens ``available``
    candidates for ``n_targets`` targets (pools and seed aside), by ``design``
    (:data:`SCREEN_DESIGNS`; the default is the cheaper of two that tie on held-out maps)."""
    if design == ONE_POOL:
        return {
            "n_screened": screened_count(n_targets, available),
            "n_queries": FULL_QUERIES,
            "n_estimators": FULL_ESTIMATORS,
            "second_pool": None,
        }
    if design != TWO_POOL:
        raise InputError(
            f"unknown screen design {design!r}: use {' or '.join(SCREEN_DESIGNS)}",
            parameter="design",
        )
    first = min(int(available), max(FIRST_MIN, FIRST_PER_TARGET * int(n_targets)))
    return {
        "n_screened": first,
        "n_queries": FIRST_QUERIES,
        "n_estimators": FIRST_ESTIMATORS,
        "second_pool": min(first, max(SECOND_MIN, SECOND_PER_TARGET * int(n_targets))),
    }


def screen_generator_runs(design: dict[str, Any], pools: int) -> int:
    """Generator runs of a screen with ``design``'s parameters, each pool ``pools`` shadow and
    ``pools`` test datasets: one pool, and a second when ``design`` passes records on to one."""
    return 2 * int(pools) * (2 if design.get("second_pool") else 1)


def screened_count(n_targets: int, available: int) -> int:
    """Records to screen for ``n_targets`` targets: ten per target and at least
    :data:`MIN_SCREENED` (the design maps screened the rarest 50 of 500 records for 10 targets),
    at most ``available``."""
    return min(int(available), max(MIN_SCREENED, 10 * int(n_targets)))


def screen_records(
    data: pd.DataFrame | Table,
    generator: str,
    *,
    seed: int,
    runtime: Runtime | None = None,
    prefilter: str | None = "rarity",
    screen_fraction: float = SCREEN_FRACTION,
    min_screened: int = MIN_SCREENED,
    n_screened: int | None = None,
    candidates: np.ndarray | list[int] | None = None,
    train_size: int | None = None,
    n_shadows: int = 100,
    n_tests: int = 100,
    n_queries: int = 1000,
    n_estimators: int = 100,
    second_pool: int | None = None,
    second_queries: int = 1000,
    second_estimators: int = 100,
    stage1_datasets: int | None = None,
    stage1_queries: int = STAGE1_QUERIES,
    stage1_estimators: int = STAGE1_ESTIMATORS,
    stage1_prior: str | None = "rarity",
) -> ScreeningResult:
    """Stage 1 of the two-stage audit: prefilter the records of ``data``, then screen them.

    By default: keep the ``max(min_screened, ceil(screen_fraction * len(data)))`` records with
    the highest cell rarity (:func:`~synthleak.vulnerability.cell_rarity_scores`), screen them
    with :class:`ScreeningMap` (100 shadow and 100 test datasets, 1,000 queries per record) and
    attack in full the records with the highest screened AUC: ``screen_records(...).top(n)``.
    The audit screens with :func:`screen_design`'s parameters (by default these, with
    :func:`screened_count` records; its ``two-pool`` design: a wider cut, a smaller first attack
    and a second pool for the records it ranks first).

    Parameters
    ----------
    data : DataFrame or Table
        The private dataset.
    generator : str
        Generator spec, as for the full game.
    seed : int
        Same seed, same screen.
    runtime : Runtime, optional
    prefilter : {"rarity", "distance", "halving", None}
        Score that picks the records to screen: cell rarity, ``V_5`` or none (screen every
        record; ``screen_fraction`` is then ignored). ``"halving"``: no cut, successive halving
        (:class:`ScreeningMap` with ``keep``): every record is screened with a small attack on
        the first ``stage1_datasets`` shadow and test datasets, and the records that
        ``screen_fraction``/``min_screened``/``n_screened`` would keep are chosen by that AUC
        (rank-averaged with ``stage1_prior``) and screened again on the whole pools.
    screen_fraction : float
        Share of the records screened, in (0, 1].
    min_screened : int
        Screen at least this many records (all when the data has fewer).
    n_screened : int, optional
        Screen exactly this many records (all when the data has fewer), overriding
        ``screen_fraction`` and ``min_screened``: for a large dataset of which only a few
        targets are wanted (e.g. ``5 * n`` for ``n`` targets).
    train_size, n_shadows, n_tests, n_queries, n_estimators
        As :class:`ScreeningMap` (the attack of the screen, or of the first pool).
    second_pool : int, optional
        Screen the ``second_pool`` records the screen ranks riskiest again, on a second,
        independent pool of ``n_shadows`` + ``n_tests`` datasets (other seed paths) with
        ``second_queries`` queries and ``second_estimators`` trees, and rank them by the mean of
        their two AUCs (``ScreeningResult.second_auc`` keeps the second alone). Twice the
        generator runs; the screen's own noise on the records that matter is what it removes.
        Not with ``prefilter="halving"``.
    second_queries, second_estimators : int
        The second pool's attack.
    stage1_datasets : int, optional
        Successive halving: shadow (and test) datasets of the first stage (default: half the
        pools).
    stage1_queries, stage1_estimators : int
        Successive halving: queries and trees of the first stage's attack.
    stage1_prior : {"rarity", "distance", None}
        Successive halving: the score whose rank is averaged with the first-stage AUC's to
        choose the records screened again (None: the first-stage AUC alone).

    Returns
    -------
    ScreeningResult
        Over the screened records; ``result.top(n)`` are the ``n`` records to attack in full.

    Notes
    -----
    Records the prefilter drops are never selected: on the design maps (Adult) the prefilter kept
    the screen's share of the true top-10 risk (0.967 against 0.966 screening every record) at a
    tenth of the attack cost. On the six held-out maps (UK Census, ACS MA and ACS TX, baynet
    and synthpop) the selected records reached 0.946 of the true top-10 mean AUC on average
    (0.910 to 0.973; ``V_5``: 0.887); on ACS MA with baynet the riskiest records are not rare on
    pairs of columns and the prefilter dropped them (screening every record: 0.946 there). On
    the ACS TX maps, run after this default was fixed, screening every record did no better
    (0.945 against 0.945). Successive halving (``prefilter="halving"``) reached 0.961 on the
    eight maps (its second stage simulated) against the prefilter's 0.951 at about twice the
    attack cost: within the choice rule's 0.01, so the cheaper prefilter stays the default. On
    three later held-out maps (ACS TX 2018, ACS MA 2018, German credit) the default reached
    0.926 (0.888 to 0.951; the prefilter kept 1 to 4 of the true top 10) and halving 0.936; on
    four more (COMPAS with baynet and synthpop, German credit with synthpop, ACS MA 2018 with
    baynet) 0.949, where a wider prefilter screened with a smaller attack, chosen on the
    eleven earlier maps, reached 0.928. That design with a second pool for its 20 best records
    (:func:`screen_design` with ``design="two-pool"``), chosen on all fifteen maps (0.953
    against this default's 0.945), reached 0.965 on four held-out maps (0.956 to 0.971; this
    default 0.958), but 0.941 on four others (0.950, 0.950, 0.945, 0.919; this default 0.940,
    significantly above it on two): no better at twice the generator runs, so the audit screens
    as this default does (:func:`screen_design`'s ``one-pool``).

    References
    ----------
    Meeus et al. (2023), Sec. 4 and 5.2; Carlini et al. (2022).
    """
    from synthleak.vulnerability import cell_rarity_scores, vulnerability_scores

    data = as_table(data)
    if prefilter not in ("halving", "rarity", "distance", None):
        raise InputError(
            f"prefilter must be 'halving', 'rarity', 'distance' or None, got {prefilter!r}"
        )
    if isinstance(screen_fraction, bool) or not (0 < float(screen_fraction) <= 1):
        raise InputError(f"screen_fraction must lie in (0, 1], got {screen_fraction!r}")
    if isinstance(min_screened, bool) or int(min_screened) != min_screened or min_screened < 2:
        raise InputError(f"min_screened must be a whole number >= 2, got {min_screened!r}")
    if candidates is None:
        pool = np.arange(len(data), dtype=np.int64)
    else:
        pool = np.unique(np.asarray(candidates).ravel())
        if pool.size < 2 or not np.issubdtype(pool.dtype, np.integer):
            raise InputError("candidates must list at least 2 row numbers")
        if pool.min() < 0 or pool.max() >= len(data):
            raise InputError(f"candidates must be rows of the data, 0..{len(data) - 1}")
        pool = pool.astype(np.int64)
    n = pool.size
    if n_screened is not None:
        if isinstance(n_screened, bool) or int(n_screened) != n_screened or n_screened < 2:
            raise InputError(f"n_screened must be a whole number >= 2, got {n_screened!r}")
        keep = int(n_screened)
    else:
        keep = max(int(min_screened), math.ceil(float(screen_fraction) * n))
    records = None if candidates is None else pool
    if stage1_prior not in ("rarity", "distance", None):
        raise InputError(f"stage1_prior must be 'rarity', 'distance' or None, got {stage1_prior!r}")
    halving: dict[str, Any] = {}
    if prefilter == "halving":
        prior = None
        if stage1_prior is not None:
            score = (
                cell_rarity_scores(data) if stage1_prior == "rarity" else vulnerability_scores(data)
            )
            prior = score[pool]
        half = stage1_datasets
        if half is None:
            half = max(4, min(int(n_shadows), int(n_tests)) // 2)
        halving = {
            "keep": keep,
            "stage1_shadows": half,
            "stage1_tests": half,
            "stage1_queries": stage1_queries,
            "stage1_estimators": stage1_estimators,
            "stage1_prior": prior,
        }
    elif prefilter is not None and keep < n:
        score = cell_rarity_scores(data) if prefilter == "rarity" else vulnerability_scores(data)
        best = np.argsort(-score[pool], kind="stable")[:keep]
        records = np.sort(pool[best]).astype(np.int64)
    if second_pool is not None:
        if isinstance(second_pool, bool) or int(second_pool) != second_pool or second_pool < 2:
            raise InputError(f"second_pool must be a whole number >= 2, got {second_pool!r}")
        if prefilter == "halving":
            raise InputError("second_pool does not combine with prefilter='halving': use one")
    game = ScreeningMap(
        generator,
        train_size=train_size,
        n_shadows=n_shadows,
        n_tests=n_tests,
        n_queries=n_queries,
        n_estimators=n_estimators,
        records=records,
        **halving,
    )
    rt = as_runtime(runtime)
    first = game.run(data, seed=seed, runtime=rt)
    if second_pool is None:
        return first
    passed = np.sort(first.top(min(int(second_pool), first.rows.size)))
    again = ScreeningMap(
        generator,
        train_size=first.train_size,
        n_shadows=n_shadows,
        n_tests=n_tests,
        n_queries=second_queries,
        n_estimators=second_estimators,
        records=passed,
    ).run(data, seed=game_seed(_SECOND.rng(seed)), runtime=rt.sub("second pool"))
    return _two_pools(first, again, n_estimators)


def _two_pools(first: ScreeningResult, again: ScreeningResult, trees: int) -> ScreeningResult:
    """The screen of ``first`` with the records ``again`` screened on a second pool: those
    ranked by the mean of their two AUCs (interval from the two independent halves)."""
    at = np.searchsorted(first.rows, again.rows)
    auc, low, high = first.auc.copy(), first.ci_low.copy(), first.ci_high.copy()
    a1, a2 = first.auc[at], again.auc
    h1 = (first.ci_high[at] - first.ci_low[at]) / 2
    h2 = (again.ci_high - again.ci_low) / 2
    both = ~(np.isnan(a1) | np.isnan(a2))
    mean = np.where(both, (a1 + a2) / 2, np.where(np.isnan(a1), a2, a1))
    half = np.where(both, np.hypot(h1, h2) / 2, np.where(np.isnan(a1), h2, h1))
    auc[at], low[at], high[at] = mean, np.clip(mean - half, 0, 1), np.clip(mean + half, 0, 1)
    stage = np.ones(first.rows.size, dtype=np.int64)
    stage[at] = 2
    second = np.full(first.rows.size, np.nan)
    second[at] = a2
    return ScreeningResult(
        rows=first.rows,
        auc=auc,
        ci_low=low,
        ci_high=high,
        generator=first.generator,
        train_size=first.train_size,
        n_shadows=again.n_shadows,
        n_tests=again.n_tests,
        n_queries=again.n_queries,
        seed=first.seed,
        failed_datasets=first.failed_datasets + again.failed_datasets,
        total_datasets=first.total_datasets + again.total_datasets,
        stage=stage,
        stage1_auc=first.auc,
        stage1_shadows=first.n_shadows,
        stage1_tests=first.n_tests,
        stage1_queries=first.n_queries,
        stage1_estimators=int(trees),
        second_auc=second,
        second_pool=int(again.rows.size),
    )


def screened_targets(
    data: pd.DataFrame | Table,
    generator: str,
    n: int,
    *,
    seed: int,
    runtime: Runtime | None = None,
    label: str = "screen",
    **screen: Any,
) -> Targets:
    """The ``n`` records the two-stage screen ranks riskiest, as targets of the full game.

    ``screened_targets(data, generator, n, seed=seed, runtime=rt)`` runs
    :func:`screen_records` (cell-rarity prefilter, then the 100 + 100 screen; ``screen`` passes
    its other parameters, e.g. ``train_size``) and returns ``Targets.rows(top n, label=label)``
    for :class:`~synthleak.games.membership.MembershipGame`. The full game measures these records
    on its own shadow and test datasets (other seed paths than the screen's), so its AUCs are not
    biased by the screen having picked the records.

    Parameters
    ----------
    data : DataFrame or Table
        The private dataset (the same rows the full game's targets refer to).
    generator : str
        Generator spec, as for the full game.
    n : int
        Targets to return (at most the number of records screened).
    seed : int
        Same seed, same targets.
    runtime : Runtime, optional
    label : str
        How the targets are named in the game's ``selected_by``.

    Returns
    -------
    Targets

    References
    ----------
    Meeus et al. (2023), Sec. 4 and 5.2; Carlini et al. (2022).
    """
    from synthleak.games.targets import Targets

    if isinstance(n, bool) or not isinstance(n, int | np.integer) or n < 1:
        raise InputError(f"n must be a positive number of targets, got {n!r}")
    res = screen_records(data, generator, seed=seed, runtime=runtime, **screen)
    if n > res.rows.size:
        raise InputError(
            f"n = {n} targets but only {res.rows.size} records were screened: lower n or raise "
            "min_screened"
        )
    return Targets.rows(res.top(int(n)).tolist(), label=label)
