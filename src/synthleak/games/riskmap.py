"""Full-dataset membership risk map: a membership-inference AUC for every record of a dataset.

Meeus et al. (2023) rank records by the vulnerability score ``V_k`` because running a query-based
MIA for every record was too expensive for it (§4, §5.5: 4,000 shadow datasets *per target*).
This module runs it anyway, LiRA-style, with ONE shadow pool and ONE test pool shared by all
records, and then checks how well ``V_k`` (and the rare-value and log-likelihood baselines)
predict the measured per-record risk.

Design
------
The private dataset ``D`` is ``n`` records (a random sample of the data). Every other record of the
data (or, with ``population=P``, of a random ``P``-record population that contains ``D``) is a
*filler*. Every shadow and test dataset has exactly ``n`` records:

* a uniformly random half of ``D`` (``floor(n / 2)`` records), so every record of ``D`` is IN a
  dataset with probability ``floor(n/2)/n`` (1/2 for even ``n``), independently of the pool;
* padded with ``n - floor(n / 2)`` fillers drawn at random without replacement.

So the generator always sees ``n`` training records, as in the single-target game, but the
datasets differ in half of ``D`` rather than in one record. The shadow pool (attacker) and the
test pool (challenger) are drawn independently from the same ``D`` and fillers (LiRA's design:
attacker and challenger know the same population). For record ``i`` the label of a dataset is
"``i`` is IN"; every record's meta-classifier (the query attack on a random subset of
``n_queries`` of its ``2^F - 1`` counting queries, and/or the distance attack) is trained on the
shadow pool and scored on the test pool; its AUC gets a stratified bootstrap CI.

Memory and execution
--------------------
Shadow datasets are generated once with :func:`synthleak.runtime.run_units` (resumable run
directory, local processes or Dask) and held as one compact :class:`~synthleak.queries.TableStack`
per pool (``datasets x m x columns`` codes and values). Attack features are computed on the fly in
work units of ``chunk`` records: a unit builds each record's features (all ``2^F`` counts of
chunks of 256 datasets, of which the record's ``n_queries`` sampled queries are kept), fits,
scores and returns only the test scores. Peak memory is the pools plus
``256 x 2^F`` counts and ``(datasets x n_queries)`` features of one record per worker; never
``records x datasets x 2^F``. Every random draw comes from a stream
(:mod:`synthleak.runtime.seeding`) keyed by pool, dataset, record and attack, so the same seed
gives the same map whatever the number of workers.

References
----------
Meeus et al. (2023), Sec. 3 (query-based MIA), Sec. 4 (vulnerability score ``V_k``, Definition 2),
Sec. 5.2 (rare-value and log-likelihood baselines), Table 1 (parameters). Carlini et al. (2022)
(LiRA; shared shadow models, each record IN half of the datasets).
"""

from __future__ import annotations

import copy
import hashlib
import json
import math
import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np
import pandas as pd

from synthleak.attacks.base import (
    Attack,
    AttackFamily,
    MembershipAttack,
    fit_membership,
    resolve_attacks,
)
from synthleak.data.release import as_table
from synthleak.data.table import Table
from synthleak.errors import InputError
from synthleak.games.shadow import GeneratorFailures, generate_pools, table_fingerprint
from synthleak.generators import make_generator
from synthleak.metrics.privacy import auc_estimate
from synthleak.metrics.ranking import RankValidation, rank_validation
from synthleak.queries import TableStack
from synthleak.runtime import RunStore, Runtime, WorkUnit, as_runtime
from synthleak.runtime.seeding import stream
from synthleak.serde import FloatArray, IntArray, Result, jsonable
from synthleak.vulnerability import log_likelihood_scores, rare_value_scores, vulnerability_scores

RISKMAP_ATTACKS = ("query", "distance")
SCORES = ("vulnerability", "rare_value", "log_likelihood")

# keys kept from the first layout (the shadow datasets draw from games/shadow.py's stream)
_SPLIT = stream("riskmap/split", key=10)
_POOL = stream("riskmap/pool", key=11)
_ATTACK = stream("riskmap/attack", key=13)
_METRIC = stream("riskmap/metric", key=14)
_VALID = stream("riskmap/valid", key=15)
SHADOW_POOL, TEST_POOL = 0, 1


@dataclass(frozen=True, repr=False)
class RiskMapConfig(Result):
    """The parameters a risk map ran with (recorded in its result)."""

    generator: str
    train_size: int
    synthetic_size: int
    population: int | None
    n_shadows: int
    n_tests: int
    attacks: tuple[str, ...]
    attack_params: dict[str, dict[str, Any]]
    k: int
    n_boot: int
    seed: int
    data: str
    private_rows: str
    n_records: int
    design: str = "each dataset: a random half of D (floor(n/2)) + n - floor(n/2) random fillers"


@dataclass(frozen=True, repr=False, eq=False)
class RiskMapResult(Result):
    """Per-record AUCs (per attack), selector scores and their validation against the AUCs.

    Attributes
    ----------
    config : RiskMapConfig
    rows : array of int
        The ``n`` rows of the input data forming ``D``.
    auc : dict
        Attack name -> ``(n, 3)`` array: AUC, CI low, CI high of every record.
    scores : dict
        Selector name (``vulnerability``, ``rare_value``, ``log_likelihood``) -> ``(n,)`` scores.
    validation : RankValidation
        Spearman and top-10 precision of every selector against the best attack's AUC.
    validation_per_attack : dict
        The same against each attack's AUC (when several attacks ran).
    failures : GeneratorFailures
    timings : dict
        Wall-clock seconds of this invocation (generation, attacks); resumed units cost ~0.
    """

    result_kind = "riskmap"

    config: RiskMapConfig
    rows: IntArray
    auc: dict[str, FloatArray]
    scores: dict[str, FloatArray]
    validation: RankValidation
    validation_per_attack: dict[str, RankValidation] = field(default_factory=dict)
    failures: GeneratorFailures = field(default_factory=GeneratorFailures)
    timings: dict[str, float] = field(default_factory=dict)

    def best(self) -> np.ndarray:
        """``(n, 3)``: per record, the AUC (and CI) of the attack with the highest AUC."""
        names = list(self.auc)
        stacked = np.stack([self.auc[a] for a in names])  # (A, n, 3)
        vals = np.where(np.isnan(stacked[:, :, 0]), -np.inf, stacked[:, :, 0])
        pick = np.argmax(vals, axis=0)
        return stacked[pick, np.arange(stacked.shape[1])]

    def auc_mean(self) -> float:
        """Mean of the per-record best AUCs."""
        return _nanstat(np.nanmean, self.best()[:, 0])

    def auc_sd(self) -> float:
        """Standard deviation of the per-record best AUCs."""
        return _nanstat(np.nanstd, self.best()[:, 0])

    def to_frame(self) -> pd.DataFrame:
        """One row per record: best AUC and CI, each attack's AUC and CI, selector scores."""
        best = self.best()
        cols: dict[str, Any] = {
            "row": self.rows.astype(np.int64),
            "auc": best[:, 0],
            "auc_ci_low": best[:, 1],
            "auc_ci_high": best[:, 2],
        }
        for a, arr in self.auc.items():
            cols[f"auc_{a}"] = arr[:, 0]
            cols[f"auc_{a}_ci_low"] = arr[:, 1]
            cols[f"auc_{a}_ci_high"] = arr[:, 2]
        for name, arr in self.scores.items():
            cols[name] = arr
        return pd.DataFrame(cols)

    def to_csv(self) -> str:
        """The :meth:`to_frame` table as CSV (undefined numbers as empty cells)."""
        return self.to_frame().to_csv(index=False, na_rep="")


def _nanstat(fn: Any, v: np.ndarray) -> float:
    return float(fn(v)) if v.size and not np.isnan(v).all() else math.nan


# --- work units ---------------------------------------------------------------------------------


def _attack_chunk(shared: dict[str, Any], lo: int, hi: int) -> dict[str, np.ndarray]:
    """Fit every attack for records ``lo:hi`` on the shadow pool; AUC (CI) on the test pool."""
    private: Table = shared["private"]
    shadow: TableStack = shared["shadow"]
    test: TableStack = shared["test"]
    ys: np.ndarray = shared["y_shadow"]
    yt: np.ndarray = shared["y_test"]
    seed = int(shared["seed"])
    attacks: list[tuple[str, MembershipAttack]] = shared["attacks"]
    out = np.full((len(attacks), hi - lo, 3), np.nan)
    for i in range(lo, hi):
        target = private.take([i])
        y_s, y_t = ys[:, i], yt[:, i]
        if y_s.all() or not y_s.any() or y_t.all() or not y_t.any():
            continue  # no IN or no OUT dataset: the AUC is undefined
        for a_idx, (_name, attack) in enumerate(attacks):
            rng = _ATTACK.rng(seed, i, a_idx)
            model = copy.deepcopy(attack)
            fit_membership(
                model,
                target,
                shadow,
                y_s.astype(np.int64),
                rng=rng,
                population=shared["population"],
            )
            s = np.asarray(model.score(test), dtype=np.float64)
            est = auc_estimate(
                y_t, s, rng=_METRIC.rng(seed, i, a_idx), n_boot=int(shared["n_boot"])
            )
            out[a_idx, i - lo] = (est.value, est.ci_low, est.ci_high)
    return {"auc": out}


# --- the game -------------------------------------------------------------------------------------


def _whole(name: str, value: Any, low: int) -> None:
    if isinstance(value, bool) or int(value) != value or value < low:
        raise InputError(f"{name} must be a whole number >= {low}, got {value!r}")


class RiskMap:
    """Membership AUC of every record of a ``train_size``-record private dataset (shared pools).

    Parameters
    ----------
    generator : str
        Generator spec (``baynet:k=2``, ``synthpop``, ...).
    train_size : int
        Records of the private dataset ``D`` (every one is audited) and of every generator
        training set.
    synthetic_size : int, optional
        Synthetic records released per dataset (default ``train_size``).
    population : int, optional
        Draw ``D`` and the fillers from a random ``population``-record subset of the data
        (``population >= train_size + ceil(train_size / 2)``); default: fillers are all the other
        records.
    n_shadows, n_tests : int
        Shadow (attacker) and test (challenger) datasets.
    attacks : sequence of str or MembershipAttack
        Membership attacks run against every record (default ``query`` and ``distance``).
    n_queries : int
        Counting queries per record for the query attack (a random subset of all ``2^F - 1``).
    n_estimators : int
        Trees of each record's random forest (forest attacks given by name).
    k : int
        Neighbours of ``V_k``.
    n_boot : int
        Bootstrap resamples of every AUC CI and of the Spearman CIs.
    chunk : int
        Records per attack work unit.
    batch_size : int
        Datasets per generation work unit.
    private_rows : sequence of int, optional
        The rows of the data forming ``D`` (default: a random sample). The population (with
        ``population``) is then ``D`` plus random other rows.

    References
    ----------
    Meeus et al. (2023), Sec. 3, Sec. 4, Sec. 5.2, Table 1; Carlini et al. (2022).
    """

    def __init__(
        self,
        generator: str,
        *,
        train_size: int = 1000,
        synthetic_size: int | None = None,
        population: int | None = None,
        n_shadows: int = 200,
        n_tests: int = 100,
        attacks: Sequence[str | Attack] = RISKMAP_ATTACKS,
        n_queries: int = 1000,
        n_estimators: int = 100,
        k: int = 5,
        n_boot: int = 1000,
        chunk: int = 20,
        batch_size: int = 10,
        private_rows: Sequence[int] | np.ndarray | None = None,
    ) -> None:
        self.generator = generator
        self.train_size = train_size
        self.synthetic_size = synthetic_size
        self.population = population
        self.n_shadows = n_shadows
        self.n_tests = n_tests
        self.attacks = attacks
        self.n_queries = n_queries
        self.n_estimators = n_estimators
        self.k = k
        self.n_boot = n_boot
        self.chunk = chunk
        self.batch_size = batch_size
        self.private_rows = private_rows

    def _attack_list(self) -> list[tuple[str, MembershipAttack, str]]:
        """``(name, unfitted attack, parameters JSON)`` of every attack."""
        given = [self.attacks] if isinstance(self.attacks, str | Attack) else list(self.attacks)
        params = {
            "query": {"n_queries": int(self.n_queries), "n_estimators": int(self.n_estimators)},
            "distance": {"n_estimators": int(self.n_estimators)},
            "groundhog": {"n_estimators": int(self.n_estimators)},
        }
        # resolve_attack makes registered membership attacks and rejects objects that are not
        # MembershipAttack instances: the family's base class is the attacks' type
        resolved = cast(
            list[tuple[str, MembershipAttack]],
            resolve_attacks(AttackFamily.MEMBERSHIP, given, params),
        )
        out = []
        for (name, attack), a in zip(resolved, given, strict=True):
            p = params.get(name, {}) if isinstance(a, str) else jsonable(vars(attack))
            out.append((name, attack, json.dumps(p, sort_keys=True, default=str)))
        return out

    def validate(self, data: pd.DataFrame | Table) -> None:
        """Check every parameter against ``data`` (cheap; raises :class:`InputError`)."""
        self._validate(as_table(data))

    def _validate(self, data: Table) -> int:
        make_generator(self.generator)
        self._attack_list()
        n = self.train_size
        m = n if self.synthetic_size is None else self.synthetic_size
        for name, val, low in (
            ("train_size", n, 2),
            ("synthetic_size", m, 1),
            ("n_shadows", self.n_shadows, 4),
            ("n_tests", self.n_tests, 4),
            ("n_queries", self.n_queries, 1),
            ("n_estimators", self.n_estimators, 1),
            ("k", self.k, 1),
            ("n_boot", self.n_boot, 10),
            ("chunk", self.chunk, 1),
            ("batch_size", self.batch_size, 1),
        ):
            _whole(name, val, low)
        if n > len(data):
            raise InputError(
                f"train_size {n} is larger than the data ({len(data)} records): lower train_size"
            )
        pad = n - n // 2
        if self.population is not None:
            if self.population < n:
                raise InputError(
                    f"population {self.population} is smaller than train_size {n}: the "
                    "population must contain D"
                )
            if self.population > len(data):
                raise InputError(
                    f"population {self.population} is larger than the data ({len(data)} "
                    "records): lower it"
                )
            if self.population - n < pad:
                raise InputError(
                    f"population {self.population} leaves {self.population - n} fillers but "
                    f"every dataset needs {pad}: use population >= {n + pad}"
                )
        elif len(data) - n < pad:
            raise InputError(
                f"the data has {len(data)} records: {len(data) - n} outside D but every dataset "
                f"needs {pad} fillers; lower train_size to at most {(2 * len(data)) // 3}"
            )
        if self.k >= n:
            raise InputError(f"k {self.k} must be smaller than train_size {n}")
        if self.private_rows is not None:
            given = np.asarray(self.private_rows, dtype=np.int64).ravel()
            if given.size != n or np.unique(given).size != given.size:
                raise InputError(
                    f"private_rows must hold exactly train_size = {n} distinct rows, got "
                    f"{given.size}"
                )
            if given.min() < 0 or given.max() >= len(data):
                raise InputError(f"private_rows must be rows 0..{len(data) - 1} of the data")
        return int(m)

    def _design(
        self, seed: int, n_private: int, n_fill: int
    ) -> dict[int, tuple[np.ndarray, np.ndarray]]:
        """Pool id -> (rows (S, n) into the local table [D; fillers], labels (S, n) bool)."""
        n, half = n_private, n_private // 2
        design = {}
        for pool_id, size in ((SHADOW_POOL, self.n_shadows), (TEST_POOL, self.n_tests)):
            rng = _POOL.rng(seed, pool_id)
            rows = np.empty((int(size), n), dtype=np.int64)
            labels = np.zeros((int(size), n), dtype=bool)
            for s in range(int(size)):
                ins = rng.choice(n, half, replace=False)
                labels[s, ins] = True
                rows[s, :half] = np.sort(ins)
                rows[s, half:] = n + rng.choice(n_fill, n - half, replace=False)
            design[pool_id] = (rows, labels)
        return design

    def run(
        self, data: pd.DataFrame | Table, *, seed: int, runtime: Runtime | None = None
    ) -> RiskMapResult:
        """Audit every record of a random ``train_size``-record sample of ``data``.

        Parameters
        ----------
        data : DataFrame or Table
            The data; ``D`` (and the population) are drawn from it.
        seed : int
            Same seed, same result whatever the runtime's workers or cluster.
        runtime : Runtime, optional
            Workers, cluster, resumable run directory, progress bars.
        """
        rt = as_runtime(runtime)
        table = as_table(data)
        m = self._validate(table)
        n = int(self.train_size)
        rng = _SPLIT.rng(seed)
        pop_size = len(table) if self.population is None else int(self.population)
        if self.private_rows is None:
            pop = rng.permutation(len(table))[:pop_size]
        else:
            given = np.asarray(self.private_rows, dtype=np.int64).ravel()
            others = rng.permutation(np.setdiff1d(np.arange(len(table)), given))
            pop = np.concatenate([given, others])[:pop_size]
        d_rows, filler_rows = pop[:n], np.sort(pop[n:])
        local = table.take(np.concatenate([d_rows, filler_rows]))
        private = table.take(d_rows)
        design = self._design(seed, n, filler_rows.size)
        attacks = self._attack_list()
        attack_params = {name: json.loads(p) for name, _, p in attacks}
        fingerprint = table_fingerprint(table)
        rows_hash = hashlib.sha256(d_rows.tobytes()).hexdigest()[:16]
        # the run store's configuration (its fingerprint guards the run directory)
        store_config: dict[str, Any] = {
            "command": "riskmap",
            "generator": self.generator,
            "n": n,
            "m": m,
            "population": None if self.population is None else int(self.population),
            "n_shadow": int(self.n_shadows),
            "n_test": int(self.n_tests),
            "attacks": [name for name, _, _ in attacks],
            "attack_params": attack_params,
            "k": int(self.k),
            "n_boot": int(self.n_boot),
            "seed": int(seed),
            "data": fingerprint,
            "private_rows": rows_hash,
            "n_records": len(table),
            "design": RiskMapConfig.design,
        }
        config = RiskMapConfig(
            generator=self.generator,
            train_size=n,
            synthetic_size=m,
            population=store_config["population"],
            n_shadows=int(self.n_shadows),
            n_tests=int(self.n_tests),
            attacks=tuple(store_config["attacks"]),
            attack_params=attack_params,
            k=int(self.k),
            n_boot=int(self.n_boot),
            seed=int(seed),
            data=fingerprint,
            private_rows=rows_hash,
            n_records=len(table),
        )
        store = rt.store(store_config)
        try:
            t0 = time.perf_counter()
            stacks, labels, failures = generate_pools(
                local,
                design,
                generator=self.generator,
                synthetic_size=m,
                seed=int(seed),
                batch_size=int(self.batch_size),
                runtime=rt,
                store=store,
            )
            for pool_id, y in labels.items():
                if len(y) < 2:
                    raise InputError(
                        f"the generator {self.generator!r} failed on {failures.failed_datasets} of "
                        f"{failures.total_datasets} datasets (pool {pool_id}): "
                        + "; ".join(list(failures.messages)[:3])
                    )
            t1 = time.perf_counter()
            population = table.take(filler_rows)
            auc = self._attack(private, stacks, labels, attacks, int(seed), rt, store, population)
            t2 = time.perf_counter()
            scores = {
                "vulnerability": vulnerability_scores(private, k=int(self.k)),
                "rare_value": rare_value_scores(private),
                "log_likelihood": log_likelihood_scores(private),
            }
            best = RiskMapResult(
                config, d_rows, auc, scores, RankValidation(0, 10, math.nan)
            ).best()[:, 0]
            validation = rank_validation(
                best, scores, rng=_VALID.rng(seed), n_boot=int(self.n_boot)
            )
            per_attack = {}
            if len(auc) > 1:
                per_attack = {
                    a: rank_validation(
                        v[:, 0],
                        scores,
                        rng=_VALID.rng(seed, j + 1),
                        n_boot=int(self.n_boot),
                    )
                    for j, (a, v) in enumerate(auc.items())
                }
            result = RiskMapResult(
                config,
                d_rows.astype(np.int64),
                auc,
                scores,
                validation,
                per_attack,
                failures,
                {"generation_seconds": t1 - t0, "attack_seconds": t2 - t1},
            )
            if store is not None:
                store.write_json("result.json", result.to_dict())
                store.write_json("schema.json", json.loads(table.schema.to_json()))
            return result
        finally:
            if store is not None:
                store.close()

    def _attack(
        self,
        private: Table,
        stacks: dict[int, TableStack],
        labels: dict[int, np.ndarray],
        attacks: list[tuple[str, MembershipAttack, str]],
        seed: int,
        rt: Runtime,
        store: RunStore | None,
        population: Table,
    ) -> dict[str, np.ndarray]:
        n = len(private)
        tag = hashlib.sha256(json.dumps([[a, p] for a, _, p in attacks]).encode()).hexdigest()[:8]
        units = [
            WorkUnit(f"atk-{tag}-r{lo}", (lo, min(lo + int(self.chunk), n)))
            for lo in range(0, n, int(self.chunk))
        ]
        shared = {
            "private": private,
            "shadow": stacks[SHADOW_POOL],
            "test": stacks[TEST_POOL],
            "y_shadow": labels[SHADOW_POOL],
            "y_test": labels[TEST_POOL],
            "seed": int(seed),
            "attacks": [(a, obj) for a, obj, _ in attacks],
            "n_boot": int(self.n_boot),
            "population": population,
        }
        res = rt.run(
            _attack_chunk,
            units,
            shared=shared,
            store=store,
            description=f"per-record attacks ({n} records)",
        )
        out = {a: np.full((n, 3), np.nan) for a, _, _ in attacks}
        errors = [res[u.key].error for u in units if res[u.key].arrays is None]
        for u in units:
            r = res[u.key]
            if r.arrays is None:
                continue
            lo, hi = u.args
            for j, (a, _, _) in enumerate(attacks):
                out[a][lo:hi] = r.arrays["auc"][j]
        if errors:
            warnings.warn(
                f"{len(errors)} of {len(units)} attack units failed (their records get no AUC): "
                f"{errors[0]}",
                RuntimeWarning,
                stacklevel=3,
            )
        return out
