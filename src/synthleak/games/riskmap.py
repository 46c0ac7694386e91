"""Full-dataset membership risk map: a membership-inference AUC for every record of a dataset.

Meeus et al. (2023) rank records by the vulnerability score ``V_k`` because running a query-based
MIA for every record was too expensive for them (Sec. 4 and 5.5: 4,000 shadow datasets *per
target*).
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
``records x datasets x 2^F``. Every random draw comes from
:func:`~synthleak.runtime.unit_rng` keyed by pool, dataset, record and attack, so the same seed
gives the same map whatever the number of workers.

References
----------
Meeus et al. (2023), "Achilles' heels: vulnerable record identification in synthetic data
publishing", ESORICS, Sec. 3 (query-based MIA), Sec. 4 (vulnerability score ``V_k``,
Definition 2), Sec. 5.2 (rare-value and log-likelihood baselines), Table 1 (parameters).
Carlini et al. (2022), "Membership inference attacks from first principles" (LiRA; shared shadow
models, each record IN half of the datasets).
"""

from __future__ import annotations

import hashlib
import json
import math
import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from scipy.stats import rankdata

from synthleak.attacks.base import AttackFamily, make_attack
from synthleak.data.table import Table
from synthleak.errors import InputError
from synthleak.games.membership import (
    _generate_batch,
    load_membership_attacks,
    table_fingerprint,
)
from synthleak.generators import make_generator
from synthleak.metrics.privacy import auc_estimate
from synthleak.queries import TableStack
from synthleak.results import jsonable
from synthleak.runtime import RunStore, WorkUnit, run_units, unit_rng
from synthleak.runtime.progress import progress_bar
from synthleak.vulnerability import log_likelihood_scores, rare_value_scores, vulnerability_scores

RISKMAP_ATTACKS = ("query", "distance")
SCORES = ("vulnerability", "rare_value", "log_likelihood")

# seed paths (first element of every unit_rng key); 2 is membership's per-dataset generator key
_SEED_SPLIT, _SEED_POOL, _SEED_ATTACK, _SEED_METRIC, _SEED_VALID = 10, 11, 13, 14, 15
SHADOW_POOL, TEST_POOL = 0, 1


@dataclass
class RiskMapResult:
    """Per-record AUCs (per attack and best), selector scores and the validation summary."""

    config: dict[str, Any]
    rows: np.ndarray  # (n,) rows of the input data
    auc: dict[str, np.ndarray]  # attack -> (n, 3) value, ci_low, ci_high
    scores: dict[str, np.ndarray]  # vulnerability / rare_value / log_likelihood -> (n,)
    summary: dict[str, Any] = field(default_factory=dict)
    failures: dict[str, Any] = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)

    def best(self) -> np.ndarray:
        """``(n, 3)``: per record, the AUC (and CI) of the attack with the highest AUC."""
        names = list(self.auc)
        stacked = np.stack([self.auc[a] for a in names])  # (A, n, 3)
        vals = np.where(np.isnan(stacked[:, :, 0]), -np.inf, stacked[:, :, 0])
        pick = np.argmax(vals, axis=0)
        return stacked[pick, np.arange(stacked.shape[1])]

    def records(self) -> list[dict[str, Any]]:
        """One dict per record (the CSV columns)."""
        best = self.best()
        out = []
        for i, r in enumerate(self.rows.tolist()):
            rec: dict[str, Any] = {
                "row": int(r),
                "auc": float(best[i, 0]),
                "auc_ci_low": float(best[i, 1]),
                "auc_ci_high": float(best[i, 2]),
            }
            for a, arr in self.auc.items():
                rec[f"auc_{a}"] = float(arr[i, 0])
                rec[f"auc_{a}_ci_low"] = float(arr[i, 1])
                rec[f"auc_{a}_ci_high"] = float(arr[i, 2])
            for s, arr in self.scores.items():
                rec[s] = float(arr[i])
            out.append(rec)
        return out

    def to_dict(self) -> dict[str, Any]:
        return jsonable(
            {
                "config": self.config,
                "records": self.records(),
                "summary": self.summary,
                "failures": self.failures,
                "timings": self.timings,
            }
        )

    def to_csv(self) -> str:
        recs = self.records()
        cols = list(recs[0]) if recs else ["row", "auc", "auc_ci_low", "auc_ci_high"]
        lines = [",".join(cols)]
        for rec in recs:
            lines.append(",".join(_csv_value(rec[c]) for c in cols))
        return "\n".join(lines) + "\n"


def _csv_value(v: Any) -> str:
    if isinstance(v, float):
        return "" if math.isnan(v) else repr(v)
    return str(v)


# --- validation ---------------------------------------------------------------------------------


def spearman(x: np.ndarray, y: np.ndarray) -> float:
    """Spearman rank correlation (average ranks for ties); nan when either side is constant."""
    rx, ry = rankdata(x), rankdata(y)
    if rx.std() == 0 or ry.std() == 0:
        return float("nan")
    return float(np.corrcoef(rx, ry)[0, 1])


def spearman_ci(
    x: np.ndarray,
    y: np.ndarray,
    *,
    rng: np.random.Generator,
    n_boot: int = 1000,
    confidence: float = 0.95,
) -> tuple[float, float, float]:
    """Spearman's rho with a percentile bootstrap CI (records resampled with replacement)."""
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    rho = spearman(x, y)
    n = x.size
    if n < 3 or math.isnan(rho):
        return rho, float("nan"), float("nan")
    idx = rng.integers(0, n, (n_boot, n))
    vals = np.array([spearman(x[i], y[i]) for i in idx])
    vals = vals[~np.isnan(vals)]
    if vals.size == 0:
        return rho, float("nan"), float("nan")
    a = (1 - confidence) / 2
    return rho, float(np.quantile(vals, a)), float(np.quantile(vals, 1 - a))


def top_k_precision(score: np.ndarray, auc: np.ndarray, k: int = 10) -> float:
    """Fraction of the ``k`` records ranked highest by ``score`` that are in the true top ``k`` by AUC.

    The true top ``k`` is every record whose AUC reaches the ``k``-th largest AUC (ties at the
    boundary are all counted as top); the score's top ``k`` breaks ties by row order.
    """
    k = min(k, score.size)
    if k == 0:
        return float("nan")
    pred = np.argsort(-score, kind="stable")[:k]
    thresh = np.sort(auc)[::-1][k - 1]
    return float(np.mean(auc[pred] >= thresh))


def validate(
    auc: np.ndarray,
    scores: dict[str, np.ndarray],
    *,
    rng: np.random.Generator,
    k: int = 10,
    n_boot: int = 1000,
) -> dict[str, Any]:
    """Spearman (bootstrap CI) and top-``k`` precision of every selector score against the AUCs.

    Records whose AUC is undefined (nan) are left out. The chance level of the precision is
    ``k / n``.

    References
    ----------
    Meeus et al. (2023), Sec. 4 (``V_k`` is meant to rank records by risk), Sec. 5.2
    (baselines).
    """
    ok = ~np.isnan(auc)
    out: dict[str, Any] = {
        "n_records": int(ok.sum()),
        "top_k": int(k),
        "chance_precision": float(min(k, ok.sum()) / max(ok.sum(), 1)),
    }
    for name, s in scores.items():
        rho, lo, hi = spearman_ci(s[ok], auc[ok], rng=rng, n_boot=n_boot)
        out[name] = {
            "spearman": rho,
            "spearman_ci": [lo, hi],
            f"precision_at_{k}": top_k_precision(s[ok], auc[ok], k),
        }
    return out


# --- work units ---------------------------------------------------------------------------------


def _attack_chunk(shared: dict[str, Any], lo: int, hi: int) -> dict[str, np.ndarray]:
    """Fit every attack for records ``lo:hi`` on the shadow pool; AUC (CI) on the test pool."""
    load_membership_attacks()
    private: Table = shared["private"]
    shadow: TableStack = shared["shadow"]
    test: TableStack = shared["test"]
    ys: np.ndarray = shared["y_shadow"]
    yt: np.ndarray = shared["y_test"]
    seed = int(shared["seed"])
    attacks: list[tuple[str, str]] = shared["attacks"]
    out = np.full((len(attacks), hi - lo, 3), np.nan)
    for i in range(lo, hi):
        target = private.take([i])
        y_s, y_t = ys[:, i], yt[:, i]
        if y_s.all() or not y_s.any() or y_t.all() or not y_t.any():
            continue  # no IN or no OUT dataset: the AUC is undefined
        for a_idx, (name, params) in enumerate(attacks):
            rng = unit_rng(seed, _SEED_ATTACK, i, a_idx)
            model = make_attack(AttackFamily.MEMBERSHIP, name, **json.loads(params))
            model.fit(target, shadow, y_s.astype(np.int64), rng=rng)
            s = np.asarray(model.score(test), dtype=np.float64)
            est = auc_estimate(
                y_t, s, rng=unit_rng(seed, _SEED_METRIC, i, a_idx), n_boot=int(shared["n_boot"])
            )
            out[a_idx, i - lo] = (est.value, est.ci_low, est.ci_high)
    return {"auc": out}


# --- the game -------------------------------------------------------------------------------------


class RiskMap:
    """Membership AUC of every record of an ``n``-record private dataset (shared shadow pools).

    Parameters
    ----------
    generator : str
        Generator spec (``baynet:k=2``, ``synthpop``, ...).
    n : int
        Records of the private dataset ``D`` (every one is audited) and of every generator training set.
    m : int, optional
        Synthetic records released per dataset (default ``n``).
    population : int, optional
        Draw ``D`` and the fillers from a random ``population``-record subset of the data
        (``population >= n + ceil(n/2)``); default: fillers are all the other records.
    n_shadow, n_test : int
        Shadow (attacker) and test (challenger) datasets.
    attacks : sequence of str
        Any of ``query`` and ``distance``.
    n_queries : int
        Counting queries per record for the query attack (a random subset of all ``2^F - 1``).
    n_estimators : int
        Trees of each record's random forest.
    k : int
        Neighbours of ``V_k``.
    n_boot : int
        Bootstrap resamples of every AUC CI and of the Spearman CIs.
    chunk : int
        Records per attack work unit.
    batch_size : int
        Datasets per generation work unit.
    workers, cluster, run_dir, progress
        As :class:`~synthleak.games.membership.MembershipGame`.

    References
    ----------
    Meeus et al. (2023), Sec. 3, 4 and 5.2, Table 1; LiRA (Carlini et al. (2022)).
    """

    def __init__(
        self,
        generator: str,
        *,
        n: int = 1000,
        m: int | None = None,
        population: int | None = None,
        n_shadow: int = 200,
        n_test: int = 100,
        attacks: Sequence[str] = RISKMAP_ATTACKS,
        n_queries: int = 1000,
        n_estimators: int = 100,
        k: int = 5,
        n_boot: int = 1000,
        chunk: int = 20,
        batch_size: int = 10,
        workers: int = 1,
        cluster: Any = None,
        run_dir: str | Path | None = None,
        progress: bool = False,
    ) -> None:
        self.generator = generator
        self.n = n
        self.m = m
        self.population = population
        self.n_shadow = n_shadow
        self.n_test = n_test
        self.attacks = tuple(attacks)
        self.n_queries = n_queries
        self.n_estimators = n_estimators
        self.k = k
        self.n_boot = n_boot
        self.chunk = chunk
        self.batch_size = batch_size
        self.workers = workers
        self.cluster = cluster
        self.run_dir = run_dir
        self.progress = progress

    def _validate(self, data: Table) -> int:
        make_generator(self.generator)
        load_membership_attacks()
        if not self.attacks:
            raise InputError("no attacks given: choose query, distance or both")
        for a in self.attacks:
            if a not in RISKMAP_ATTACKS:
                raise InputError(
                    f"unknown risk-map attack {a!r}: choose from {', '.join(RISKMAP_ATTACKS)}"
                )
        if len(set(self.attacks)) != len(self.attacks):
            raise InputError("an attack is listed twice: list each attack once")
        m = self.n if self.m is None else self.m
        for name, val, low in (
            ("n", self.n, 2),
            ("m", m, 1),
            ("shadows", self.n_shadow, 4),
            ("tests", self.n_test, 4),
            ("queries", self.n_queries, 1),
            ("k", self.k, 1),
            ("boot", self.n_boot, 10),
            ("chunk", self.chunk, 1),
            ("batch-size", self.batch_size, 1),
            ("workers", self.workers, 1),
        ):
            if isinstance(val, bool) or int(val) != val or val < low:
                raise InputError(f"--{name} must be a whole number >= {low}, got {val}")
        if self.n > len(data):
            raise InputError(
                f"--n {self.n} is larger than the data ({len(data)} records): lower --n"
            )
        pad = self.n - self.n // 2
        if self.population is not None:
            if self.population < self.n:
                raise InputError(
                    f"--population {self.population} is smaller than --n {self.n}: the population must contain D"
                )
            if self.population > len(data):
                raise InputError(
                    f"--population {self.population} is larger than the data ({len(data)} records): lower it"
                )
            if self.population - self.n < pad:
                raise InputError(
                    f"--population {self.population} leaves {self.population - self.n} fillers but every dataset "
                    f"needs {pad}: use --population >= {self.n + pad}"
                )
        elif len(data) - self.n < pad:
            raise InputError(
                f"the data has {len(data)} records: {len(data) - self.n} outside D but every dataset needs "
                f"{pad} fillers; lower --n to at most {(2 * len(data)) // 3}"
            )
        if self.k >= self.n:
            raise InputError(f"--k {self.k} must be smaller than --n {self.n}")
        return int(m)

    def _design(
        self, seed: int, n_private: int, n_fill: int
    ) -> dict[int, tuple[np.ndarray, np.ndarray]]:
        """Pool id -> (rows (S, n) into the local table [D; fillers], labels (S, n) bool)."""
        n, half = n_private, n_private // 2
        design = {}
        for pool_id, size in ((SHADOW_POOL, self.n_shadow), (TEST_POOL, self.n_test)):
            rng = unit_rng(seed, _SEED_POOL, pool_id)
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
        self, data: Table, *, seed: int = 0, private_rows: Sequence[int] | np.ndarray | None = None
    ) -> RiskMapResult:
        """Audit every record of a random ``n``-record sample of ``data``.

        Parameters
        ----------
        data : Table
            The data; ``D`` (and the population) are drawn from it.
        seed : int
            Same seed, same result whatever ``workers`` / ``cluster``.
        private_rows : sequence of int, optional
            The ``n`` rows of ``data`` forming ``D`` (default: a random sample). The population
            (with ``population``) is then ``D`` plus random other rows.
        """
        m = self._validate(data)
        rng = unit_rng(seed, _SEED_SPLIT)
        pop_size = len(data) if self.population is None else int(self.population)
        if private_rows is None:
            pop = rng.permutation(len(data))[:pop_size]
        else:
            given = np.asarray(private_rows, dtype=np.int64).ravel()
            if given.size != self.n or np.unique(given).size != given.size:
                raise InputError(
                    f"give exactly n = {self.n} distinct private rows, got {given.size}"
                )
            if given.min() < 0 or given.max() >= len(data):
                raise InputError(f"private rows must be in 0..{len(data) - 1}")
            others = rng.permutation(np.setdiff1d(np.arange(len(data)), given))
            pop = np.concatenate([given, others])[:pop_size]
        d_rows, filler_rows = pop[: self.n], np.sort(pop[self.n :])
        local = data.take(np.concatenate([d_rows, filler_rows]))
        private = data.take(d_rows)
        design = self._design(seed, self.n, filler_rows.size)
        attacks = [
            (
                a,
                json.dumps(
                    {"n_queries": int(self.n_queries), "n_estimators": int(self.n_estimators)}
                    if a == "query"
                    else {"n_estimators": int(self.n_estimators)},
                    sort_keys=True,
                ),
            )
            for a in self.attacks
        ]
        config: dict[str, Any] = {
            "command": "riskmap",
            "generator": self.generator,
            "n": int(self.n),
            "m": m,
            "population": None if self.population is None else int(self.population),
            "n_shadow": int(self.n_shadow),
            "n_test": int(self.n_test),
            "attacks": list(self.attacks),
            "attack_params": {a: json.loads(p) for a, p in attacks},
            "k": int(self.k),
            "n_boot": int(self.n_boot),
            "seed": int(seed),
            "data": table_fingerprint(data),
            "private_rows": hashlib.sha256(d_rows.tobytes()).hexdigest()[:16],
            "n_records": len(data),
            "design": "each dataset: a random half of D (floor(n/2)) + n - floor(n/2) random fillers",
        }
        store = RunStore(self.run_dir, config) if self.run_dir is not None else None
        try:
            t0 = time.perf_counter()
            stacks, labels, failures = self._generate(local, design, m, seed, store)
            t1 = time.perf_counter()
            auc = self._attack(private, stacks, labels, attacks, seed, store)
            t2 = time.perf_counter()
            scores = {
                "vulnerability": vulnerability_scores(private, k=int(self.k)),
                "rare_value": rare_value_scores(private),
                "log_likelihood": log_likelihood_scores(private),
            }
            result = RiskMapResult(config, d_rows.astype(np.int64), auc, scores, failures=failures)
            best = result.best()[:, 0]
            summary: dict[str, Any] = {
                "auc_mean": _nanstat(np.nanmean, best),
                "auc_sd": _nanstat(np.nanstd, best),
                "per_attack": {
                    a: {
                        "auc_mean": _nanstat(np.nanmean, v[:, 0]),
                        "auc_sd": _nanstat(np.nanstd, v[:, 0]),
                    }
                    for a, v in auc.items()
                },
                "validation": validate(
                    best, scores, rng=unit_rng(seed, _SEED_VALID), n_boot=int(self.n_boot)
                ),
            }
            if len(auc) > 1:
                summary["validation_per_attack"] = {
                    a: validate(
                        v[:, 0],
                        scores,
                        rng=unit_rng(seed, _SEED_VALID, j + 1),
                        n_boot=int(self.n_boot),
                    )
                    for j, (a, v) in enumerate(auc.items())
                }
            result.summary = summary
            # wall-clock seconds of this invocation (resumed units cost ~0); not part of the run fingerprint
            result.timings = {"generation_seconds": t1 - t0, "attack_seconds": t2 - t1}
            if store is not None:
                store.write_json("result.json", result.to_dict())
            return result
        finally:
            if store is not None:
                store.close()

    def _generate(
        self,
        local: Table,
        design: dict[int, tuple[np.ndarray, np.ndarray]],
        m: int,
        seed: int,
        store: RunStore | None,
    ) -> tuple[dict[int, TableStack], dict[int, np.ndarray], dict[str, Any]]:
        units = [
            WorkUnit(
                f"gen-p{pool_id}-s{start}", (pool_id, start, rows[start : start + self.batch_size])
            )
            for pool_id, (rows, _) in design.items()
            for start in range(0, rows.shape[0], self.batch_size)
        ]
        shared = {"omega": local, "m": m, "seed": int(seed), "generator": self.generator}
        with progress_bar(
            f"shadow + test datasets ({self.generator})", enabled=self.progress
        ) as prog:
            res = run_units(
                _generate_batch,
                units,
                shared=shared,
                workers=self.workers,
                cluster=self.cluster,
                store=store,
                progress=prog,
            )
        stacks, labels = {}, {}
        messages: dict[str, int] = {}
        n_failed = 0
        n_cat, n_cont = local.codes.shape[1], local.values.shape[1]
        for pool_id, (_rows, lab) in design.items():
            codes, values, ok = [], [], []
            for u in units:
                if u.args[0] != pool_id:
                    continue
                r = res[u.key]
                if r.arrays is None:
                    b = u.args[2].shape[0]
                    codes.append(np.zeros((b, m, n_cat), dtype=local.codes.dtype))
                    values.append(np.zeros((b, m, n_cont), dtype=np.float32))
                    ok.append(np.zeros(b, dtype=bool))
                    messages[str(r.error)] = messages.get(str(r.error), 0) + b
                    continue
                okb = r.arrays["ok"].astype(bool)
                codes.append(r.arrays["codes"])
                values.append(r.arrays["values"])
                ok.append(okb)
                for e in r.arrays["errors"][~okb].tolist():
                    messages[e] = messages.get(e, 0) + 1
            okv = np.concatenate(ok)
            n_failed += int((~okv).sum())
            if okv.sum() < 2:
                raise InputError(
                    f"the generator {self.generator!r} failed on {int((~okv).sum())} of {okv.size} datasets: "
                    + "; ".join(list(messages)[:3])
                )
            stacks[pool_id] = TableStack(
                local.schema, np.concatenate(codes)[okv], np.concatenate(values)[okv]
            )
            labels[pool_id] = lab[okv]
        total = sum(r.shape[0] for r, _ in design.values())
        if n_failed:
            warnings.warn(
                f"the generator failed on {n_failed} of {total} datasets (dropped)",
                RuntimeWarning,
                stacklevel=3,
            )
        failures = {
            "failed_datasets": n_failed,
            "total_datasets": int(total),
            "messages": dict(sorted(messages.items(), key=lambda kv: -kv[1])[:10]),
        }
        return stacks, labels, failures

    def _attack(
        self,
        private: Table,
        stacks: dict[int, TableStack],
        labels: dict[int, np.ndarray],
        attacks: list[tuple[str, str]],
        seed: int,
        store: RunStore | None,
    ) -> dict[str, np.ndarray]:
        n = len(private)
        tag = hashlib.sha256(json.dumps(attacks).encode()).hexdigest()[:8]
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
            "attacks": attacks,
            "n_boot": int(self.n_boot),
        }
        with progress_bar(f"per-record attacks ({n} records)", enabled=self.progress) as prog:
            res = run_units(
                _attack_chunk,
                units,
                shared=shared,
                workers=self.workers,
                cluster=self.cluster,
                store=store,
                progress=prog,
            )
        out = {a: np.full((n, 3), np.nan) for a, _ in attacks}
        errors = [res[u.key].error for u in units if res[u.key].arrays is None]
        for u in units:
            r = res[u.key]
            if r.arrays is None:
                continue
            lo, hi = u.args
            for j, (a, _) in enumerate(attacks):
                out[a][lo:hi] = r.arrays["auc"][j]
        if errors:
            warnings.warn(
                f"{len(errors)} of {len(units)} attack units failed (their records get no AUC): {errors[0]}",
                RuntimeWarning,
                stacklevel=3,
            )
        return out


def _nanstat(fn: Any, v: np.ndarray) -> float:
    return float(fn(v)) if v.size and not np.isnan(v).all() else float("nan")
