"""The membership-inference privacy game with shadow modelling, at scale.

The challenger holds the full dataset ``Omega``. Target records are chosen on ``Omega`` (by a
selector or explicitly); ``Omega`` minus the targets is split at random into ``D_aux`` (the
attacker's auxiliary data) and ``D_test`` (the challenger's). The attacker builds ``n_shadow``
training datasets of ``n`` records from ``D_aux`` holding the target (IN) in half of them and a
random other record (OUT) in the other half, runs the generator on each and keeps ``m`` synthetic
records; the challenger builds ``n_test`` datasets the same way from ``D_test``. Every attack
trains one meta-classifier per target on the shadow synthetic datasets and is scored by its AUC
on the challenger's synthetic datasets.

Pools
-----
``PoolMode.SHARED`` (default, LiRA-style): ONE pool of shadow datasets and ONE pool of test
datasets serve all ``T`` targets. A dataset is ``n - T`` random records plus ``T`` slots; slot
``t`` holds target ``t`` with probability 1/2 (exactly half of the datasets per target, drawn
independently across targets) and a random other record otherwise. Cost: ``n_shadow + n_test``
generator runs instead of ``T`` times that. For target ``t`` the other targets are part of the
background population, as any record is.

``PoolMode.SINGLE`` is the paper exactly: per target, ``n - 1`` random records plus the target or a
random other record.

Execution
---------
Generator runs are batched into work units run by :func:`synthleak.runtime.run_units` (inline,
processes or a Dask cluster); with a run directory every finished batch is stored (compact code
and value arrays) and a re-run resumes. Every dataset draws its records and its generator's
randomness from :func:`synthleak.runtime.unit_rng` keyed by its pool and index, so the same seed
gives identical results whatever the number of workers. A generator that fails on a dataset is
counted and reported; that dataset is dropped and the run goes on. All attacks and all targets
reuse the one set of synthetic shadow datasets; (target, attack) fits are work units too.

References
----------
Meeus et al. (2023), "Achilles' heels: vulnerable record identification in synthetic data
publishing", ESORICS, Sec. 2.3 (privacy game, shadow modelling), Sec. 5.5 and Table 1
(parameters).
Carlini et al. (2022), "Membership inference attacks from first principles" (LiRA; shared shadow
models).
"""

from __future__ import annotations

import hashlib
import importlib
import json
import math
import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

import numpy as np

from synthleak.attacks.base import AttackFamily, list_attacks, make_attack
from synthleak.data.table import Table
from synthleak.errors import BaselineWarning, InputError
from synthleak.generators import make_generator
from synthleak.metrics.privacy import RiskEstimate, auc_estimate, roc_curve, tpr_at_fpr
from synthleak.queries import TableStack
from synthleak.results import jsonable
from synthleak.runtime import RunStore, WorkUnit, run_units, unit_rng
from synthleak.runtime.progress import progress_bar

BUILTIN_ATTACK_MODULES = (
    "synthleak.attacks.mia_query",
    "synthleak.attacks.mia_distance",
    "synthleak.attacks.mia_groundhog",
    "synthleak.attacks.mia_attention",
)
TPR_FPRS = (0.1, 0.01)

# seed paths (first element of every unit_rng key)
_SEED_SPLIT, _SEED_POOL, _SEED_DATASET, _SEED_ATTACK, _SEED_METRIC, _SEED_TARGETS = 0, 1, 2, 3, 4, 5


def load_membership_attacks() -> list[str]:
    """Import the built-in membership attacks (registering them); returns the registered names."""
    for mod in BUILTIN_ATTACK_MODULES:
        try:
            importlib.import_module(mod)
        except ModuleNotFoundError as exc:
            if exc.name != mod:  # a real missing dependency inside an existing module
                raise
    return [i.name for i in list_attacks(AttackFamily.MEMBERSHIP)]


class PoolMode(StrEnum):
    """How shadow and test datasets are shared across targets."""

    SHARED = "shared"
    SINGLE = "single"


@dataclass(frozen=True)
class AttackOutcome:
    """One attack against one target: AUC (bootstrap CI), accuracy, TPR at low FPR."""

    auc: RiskEstimate
    accuracy: float
    tpr_at_fpr: dict[str, float]
    n_test: int
    error: str | None = None
    roc: dict[str, list[float]] | None = None

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "auc": self.auc.value,
            "auc_ci": [self.auc.ci_low, self.auc.ci_high],
            "accuracy": self.accuracy,
            "tpr_at_fpr": dict(self.tpr_at_fpr),
            "n_test": self.n_test,
        }
        if self.roc is not None:
            d["roc"] = self.roc
        if self.error:
            d["error"] = self.error
        return d


@dataclass(frozen=True)
class TargetOutcome:
    """Every attack's outcome against one target record."""

    row: int
    selected_by: str
    attacks: dict[str, AttackOutcome]

    def to_dict(self) -> dict[str, Any]:
        return {
            "row": self.row,
            "selected_by": self.selected_by,
            "attacks": {k: v.to_dict() for k, v in self.attacks.items()},
        }


@dataclass
class MembershipResult:
    """The game's result (serialises to the ``synthleak mia`` JSON document)."""

    config: dict[str, Any]
    targets: list[TargetOutcome]
    failures: dict[str, Any] = field(default_factory=dict)

    def summary(self) -> dict[str, dict[str, float]]:
        """Mean and standard deviation of the AUC across targets, per attack (Table 2 style)."""
        out: dict[str, dict[str, float]] = {}
        for name in self.config.get("attacks", []):
            aucs = np.array([t.attacks[name].auc.value for t in self.targets if name in t.attacks])
            aucs = aucs[~np.isnan(aucs)]
            acc = np.array([t.attacks[name].accuracy for t in self.targets if name in t.attacks])
            out[name] = {
                "auc_mean": float(aucs.mean()) if aucs.size else float("nan"),
                "auc_sd": float(aucs.std()) if aucs.size else float("nan"),
                "accuracy_mean": float(np.nanmean(acc))
                if acc.size and not np.isnan(acc).all()
                else float("nan"),
                "n_targets": int(aucs.size),
            }
        return out

    def summary_by_selector(self) -> dict[str, dict[str, dict[str, float]]]:
        """AUC mean and s.d. per target selector and attack (a target selected by two counts twice)."""
        by: dict[str, dict[str, list[float]]] = {}
        for t in self.targets:
            for sel in t.selected_by.split("+"):
                for name, o in t.attacks.items():
                    by.setdefault(sel, {}).setdefault(name, []).append(o.auc.value)
        return {
            sel: {
                name: {
                    "auc_mean": float(np.nanmean(v)) if not np.isnan(v).all() else float("nan"),
                    "auc_sd": float(np.nanstd(v)) if not np.isnan(v).all() else float("nan"),
                    "n_targets": len(v),
                }
                for name, v in d.items()
            }
            for sel, d in by.items()
        }

    def to_dict(self) -> dict[str, Any]:
        return {
            "config": self.config,
            "targets": [t.to_dict() for t in self.targets],
            "summary": self.summary(),
            "summary_by_selector": self.summary_by_selector(),
            "failures": self.failures,
        }


# --- work units (top level: picklable for processes and Dask) ---------------------------------


def _generate_batch(
    shared: dict[str, Any], pool_id: int, start: int, rows: np.ndarray
) -> dict[str, np.ndarray]:
    """Fit the generator on each dataset ``rows[j]`` (Omega indices) and sample ``m`` records."""
    omega: Table = shared["omega"]
    m, seed, spec = int(shared["m"]), int(shared["seed"]), shared["generator"]
    b = rows.shape[0]
    n_cat, n_cont = omega.codes.shape[1], omega.values.shape[1]
    codes = np.zeros((b, m, n_cat), dtype=omega.codes.dtype)
    values = np.zeros((b, m, n_cont), dtype=np.float32)
    ok = np.zeros(b, dtype=bool)
    errors = np.full(b, "", dtype="<U200")
    for j in range(b):
        rng = unit_rng(seed, _SEED_DATASET, pool_id, start + j)
        try:
            syn = make_generator(spec).fit(omega.take(rows[j]), rng=rng).sample(m, rng=rng)
            if len(syn) != m or syn.schema != omega.schema:
                raise ValueError(f"generator returned {len(syn)} records or another schema")
            codes[j] = syn.codes
            values[j] = syn.values
            ok[j] = True
        except Exception as exc:  # counted and reported; the dataset is dropped
            msg = str(exc).splitlines()[0] if str(exc) else ""
            errors[j] = f"{type(exc).__name__}: {msg}"[:200]
    return {"codes": codes, "values": values, "ok": ok, "errors": errors}


def _attack_unit(
    shared: dict[str, Any], t: int, attack: str, params_json: str, attack_index: int
) -> dict[str, np.ndarray]:
    """Fit ``attack`` against target ``t`` on the shadow pool and score the test pool."""
    load_membership_attacks()
    pools = shared["pools"]
    shadow, y_shadow = pools.shadow(t)
    test, y_test = pools.test(t)
    target: Table = shared["omega"].take([shared["targets"][t]])
    rng = unit_rng(int(shared["seed"]), _SEED_ATTACK, t, attack_index)
    model = make_attack(AttackFamily.MEMBERSHIP, attack, **json.loads(params_json))
    c0 = time.process_time()
    model.fit(target, shadow, y_shadow, rng=rng)
    scores = np.asarray(model.score(test), dtype=np.float64)
    # CPU seconds of this process for fit + score, kept in the run directory for benchmarks
    # (not part of the result, which must not depend on the machine)
    cpu = np.array([time.process_time() - c0])
    return {"scores": scores, "labels": y_test.astype(np.int8), "cpu_seconds": cpu}


@dataclass
class _Pools:
    """Synthetic datasets and IN/OUT labels of every pool (shared or one per target)."""

    mode: PoolMode
    stacks: dict[int, TableStack]
    labels: dict[int, np.ndarray]  # pool id -> (S,) labels (single) or (S, T) (shared)

    def _get(self, pool_id: int, t: int) -> tuple[TableStack, np.ndarray]:
        y = self.labels[pool_id]
        return self.stacks[pool_id], (y[:, t] if y.ndim == 2 else y)

    def shadow(self, t: int) -> tuple[TableStack, np.ndarray]:
        return self._get(0 if self.mode is PoolMode.SHARED else 2 * t + 2, t)

    def test(self, t: int) -> tuple[TableStack, np.ndarray]:
        return self._get(1 if self.mode is PoolMode.SHARED else 2 * t + 3, t)


def _balanced(rng: np.random.Generator, size: int) -> np.ndarray:
    y = np.zeros(size, dtype=bool)
    y[: size // 2] = True
    return rng.permutation(y)


def table_fingerprint(table: Table) -> str:
    """A hash of a table's schema and contents."""
    h = hashlib.sha256(table.schema.to_json().encode())
    h.update(np.ascontiguousarray(table.codes).tobytes())
    h.update(np.ascontiguousarray(table.values).tobytes())
    return h.hexdigest()[:16]


class MembershipGame:
    """Membership inference against a generator, for many targets, with shadow modelling.

    Parameters
    ----------
    generator : str
        Generator spec (``synthpop``, ``baynet:k=2``, ...).
    n, m : int
        Training records per dataset (``|D|``) and synthetic records released (``|D^s|``).
    n_shadow, n_test : int
        Shadow datasets (attacker) and test datasets (challenger).
    attacks : sequence of str
        Registered membership attacks to run.
    attack_params : dict, optional
        Hyperparameters per attack name (e.g. ``{"query": {"n_queries": 100000}}``).
    pool : PoolMode
        ``shared`` (default) or ``single`` (the paper exactly).
    aux_size, test_size : int, optional
        ``|D_aux|`` and ``|D_test|``. Defaults as Table 1 (10,000 and 5,000) when the data allows,
        otherwise two thirds and one third of the non-target records.
    batch_size : int
        Datasets per work unit.
    workers : int
        Local processes (ignored with ``cluster``).
    cluster : str, optional
        Dask scheduler address.
    run_dir : path, optional
        Resumable run directory.
    progress : bool
        Rich progress bars with ETA on stderr.

    References
    ----------
    Meeus et al. (2023), Sec. 2.3, Sec. 5.5, Table 1.
    """

    def __init__(
        self,
        generator: str,
        *,
        n: int = 1000,
        m: int = 1000,
        n_shadow: int = 4000,
        n_test: int = 200,
        attacks: Sequence[str] = ("query", "distance", "groundhog"),
        attack_params: dict[str, dict[str, Any]] | None = None,
        pool: PoolMode | str = PoolMode.SHARED,
        aux_size: int | None = None,
        test_size: int | None = None,
        batch_size: int = 50,
        workers: int = 1,
        cluster: Any = None,
        run_dir: str | Path | None = None,
        progress: bool = False,
    ) -> None:
        self.generator = generator
        self.n = n
        self.m = m
        self.n_shadow = n_shadow
        self.n_test = n_test
        self.attacks = tuple(attacks)
        self.attack_params = attack_params or {}
        self.pool = pool
        self.aux_size = aux_size
        self.test_size = test_size
        self.batch_size = batch_size
        self.workers = workers
        self.cluster = cluster
        self.run_dir = run_dir
        self.progress = progress

    # --- validation -----------------------------------------------------------------------
    def _validate(self, omega: Table, targets: np.ndarray) -> tuple[PoolMode, int, int]:
        try:
            mode = PoolMode(self.pool)
        except ValueError:
            raise InputError(f"unknown pool mode {self.pool!r}: use 'shared' or 'single'") from None
        make_generator(self.generator)  # unknown generator / bad parameters -> InputError
        known = load_membership_attacks()
        if not self.attacks:
            raise InputError("no attacks given: choose some of " + ", ".join(known))
        for a in self.attacks:
            if a not in known:
                raise InputError(
                    f"unknown membership attack {a!r}: choose one of {', '.join(known)}"
                )
            make_attack(AttackFamily.MEMBERSHIP, a, **self.attack_params.get(a, {}))
        if len(set(self.attacks)) != len(self.attacks):
            raise InputError("an attack is listed twice: list each attack once")
        for name, val, low in (
            ("n", self.n, 2),
            ("m", self.m, 1),
            ("shadows", self.n_shadow, 4),
            ("tests", self.n_test, 4),
        ):
            if isinstance(val, bool) or int(val) != val or val < low:
                raise InputError(f"--{name} must be a whole number >= {low}, got {val}")
        if self.batch_size < 1:
            raise InputError(f"batch size must be at least 1, got {self.batch_size}")
        if targets.size == 0:
            raise InputError("no target records: select at least one (e.g. --targets top:10)")
        bad = targets[(targets < 0) | (targets >= len(omega))]
        if bad.size:
            raise InputError(
                f"target row(s) {bad[:5].tolist()} are not in the data (rows 0..{len(omega) - 1}): give existing rows"
            )
        if np.unique(targets).size != targets.size:
            raise InputError("a target row is listed twice: list each target once")
        rest = len(omega) - targets.size
        aux = self.aux_size if self.aux_size is not None else min(10_000, (2 * rest) // 3)
        test = self.test_size if self.test_size is not None else min(5_000, rest - aux)
        if aux < 1 or test < 1 or aux + test > rest:
            raise InputError(
                f"--aux-size {aux} and --test-size {test} do not fit in the {rest} non-target records: "
                "give smaller sizes"
            )
        if self.n > aux:
            raise InputError(
                f"--n {self.n} is larger than D_aux ({aux} records): lower --n or raise --aux-size"
            )
        if self.n > test:
            raise InputError(
                f"--n {self.n} is larger than D_test ({test} records): lower --n or raise --test-size"
            )
        if mode is PoolMode.SHARED and targets.size >= self.n:
            raise InputError(
                f"a shared pool holds every target in one dataset of n = {self.n} records, "
                f"but there are {targets.size} targets: use fewer targets, a larger --n or --pool single"
            )
        return mode, int(aux), int(test)

    # --- design -----------------------------------------------------------------------------
    def _design(
        self,
        seed: int,
        mode: PoolMode,
        targets: np.ndarray,
        aux_rows: np.ndarray,
        test_rows: np.ndarray,
    ) -> dict[int, tuple[np.ndarray, np.ndarray]]:
        """Pool id -> (rows (S, n) Omega indices, labels). Shared: ids 0/1; single: 2t+2 / 2t+3."""
        n, T = int(self.n), targets.size
        design: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        specs = (
            [(0, aux_rows, self.n_shadow, None), (1, test_rows, self.n_test, None)]
            if mode is PoolMode.SHARED
            else [
                (2 * t + 2 + k, src, size, t)
                for t in range(T)
                for k, (src, size) in enumerate(
                    ((aux_rows, self.n_shadow), (test_rows, self.n_test))
                )
            ]
        )
        for pool_id, src, size, t in specs:
            rng = unit_rng(seed, _SEED_POOL, pool_id)
            rows = np.empty((int(size), n), dtype=np.int64)
            for i in range(int(size)):
                rows[i] = src[rng.choice(src.size, n, replace=False)]
            if t is None:  # shared: slot n - T + j holds target j or its filler
                labels = np.stack([_balanced(rng, int(size)) for _ in range(T)], axis=1)
                slots = rows[:, n - T :]
                slots[labels] = np.broadcast_to(targets, slots.shape)[labels]
            else:  # single: the last slot holds the target or a random other record
                labels = _balanced(rng, int(size))
                rows[labels, n - 1] = targets[t]
            design[pool_id] = (rows, labels)
        return design

    # --- running ----------------------------------------------------------------------------
    def run(
        self,
        omega: Table,
        targets: Sequence[int] | np.ndarray,
        *,
        seed: int = 0,
        selected_by: Sequence[str] | None = None,
    ) -> MembershipResult:
        """Play the game for every target row of ``omega``; returns per-target metrics.

        Parameters
        ----------
        omega : Table
            The full dataset the targets come from.
        targets : sequence of int
            Target rows of ``omega``.
        seed : int
            Run seed: same seed, same result (whatever ``workers`` / ``cluster``).
        selected_by : sequence of str, optional
            How each target was chosen (reported as is).
        """
        tgt = np.asarray(targets, dtype=np.int64).ravel()
        mode, aux_size, test_size = self._validate(omega, tgt)
        sel = list(selected_by) if selected_by is not None else ["rows"] * tgt.size
        if len(sel) != tgt.size:
            raise InputError("selected_by must name one selector per target")
        rng = unit_rng(seed, _SEED_SPLIT)
        rest = np.setdiff1d(np.arange(len(omega)), tgt)
        perm = rng.permutation(rest)
        aux_rows, test_rows = (
            np.sort(perm[:aux_size]),
            np.sort(perm[aux_size : aux_size + test_size]),
        )
        design = self._design(seed, mode, tgt, aux_rows, test_rows)

        config: dict[str, Any] = {
            "generator": self.generator,
            "n": int(self.n),
            "m": int(self.m),
            "n_shadow": int(self.n_shadow),
            "n_test": int(self.n_test),
            "pool": mode.value,
            "aux_size": aux_size,
            "test_size": test_size,
            "seed": int(seed),
            "targets": tgt.tolist(),
            "data": table_fingerprint(omega),
            "n_records": len(omega),
        }
        store = RunStore(self.run_dir, config) if self.run_dir is not None else None
        try:
            pools, failures = self._generate(omega, design, mode, seed, store)
            outcomes = self._attack(omega, tgt, sel, pools, seed, store)
            result_config = {
                **config,
                "attacks": list(self.attacks),
                "attack_params": {a: self.attack_params.get(a, {}) for a in self.attacks},
            }
            result = MembershipResult(result_config, outcomes, failures)
            if store is not None:
                store.write_json("result.json", jsonable(result.to_dict()))
                store.write_json("schema.json", json.loads(omega.schema.to_json()))
            return result
        finally:
            if store is not None:
                store.close()

    def _generate(
        self,
        omega: Table,
        design: dict[int, tuple[np.ndarray, np.ndarray]],
        mode: PoolMode,
        seed: int,
        store: RunStore | None,
    ) -> tuple[_Pools, dict[str, Any]]:
        units: list[WorkUnit] = []
        for pool_id, (rows, _) in design.items():
            for start in range(0, rows.shape[0], self.batch_size):
                units.append(
                    WorkUnit(
                        f"gen-p{pool_id}-s{start}",
                        (pool_id, start, rows[start : start + self.batch_size]),
                    )
                )
        shared = {"omega": omega, "m": int(self.m), "seed": int(seed), "generator": self.generator}
        with progress_bar(f"shadow models ({self.generator})", enabled=self.progress) as prog:
            res = run_units(
                _generate_batch,
                units,
                shared=shared,
                workers=self.workers,
                cluster=self.cluster,
                store=store,
                progress=prog,
            )
        stacks: dict[int, TableStack] = {}
        labels: dict[int, np.ndarray] = {}
        n_failed = 0
        messages: dict[str, int] = {}
        for pool_id, (_rows, lab) in design.items():
            n_cat, n_cont = omega.codes.shape[1], omega.values.shape[1]
            codes, values, ok = [], [], []
            for u in units:
                if u.args[0] != pool_id:
                    continue
                r = res[u.key]
                if (
                    r.arrays is None
                ):  # the whole unit failed (e.g. a worker crashed): drop its datasets
                    b = u.args[2].shape[0]
                    codes.append(np.zeros((b, int(self.m), n_cat), dtype=omega.codes.dtype))
                    values.append(np.zeros((b, int(self.m), n_cont), dtype=np.float32))
                    ok.append(np.zeros(b, dtype=bool))
                    messages[str(r.error)] = messages.get(str(r.error), 0) + b
                    continue
                codes.append(r.arrays["codes"])
                values.append(r.arrays["values"])
                ok.append(r.arrays["ok"].astype(bool))
                for e in r.arrays["errors"][~r.arrays["ok"].astype(bool)].tolist():
                    messages[e] = messages.get(e, 0) + 1
            okv = np.concatenate(ok)
            n_failed += int((~okv).sum())
            y = lab[okv]
            stack = TableStack(
                omega.schema, np.concatenate(codes)[okv], np.concatenate(values)[okv]
            )
            per_target = y if y.ndim == 2 else y[:, None]
            if (per_target.sum(axis=0) == 0).any() or (per_target.sum(axis=0) == len(y)).any():
                raise InputError(
                    f"the generator {self.generator!r} failed on too many datasets of pool {pool_id} "
                    f"({int((~okv).sum())} of {okv.size}) to train or test the attacks: "
                    + "; ".join(list(messages)[:3])
                )
            stacks[pool_id] = stack
            labels[pool_id] = y
        total = sum(r.shape[0] for r, _ in design.values())
        top_messages = dict(sorted(messages.items(), key=lambda kv: -kv[1])[:10])
        failures: dict[str, Any] = {
            "failed_datasets": n_failed,
            "total_datasets": int(total),
            "messages": top_messages,
        }
        if n_failed:
            warnings.warn(
                f"the generator failed on {n_failed} of {total} datasets (dropped): "
                + "; ".join(list(top_messages)[:2]),
                RuntimeWarning,
                stacklevel=3,
            )
        return _Pools(mode, stacks, labels), failures

    def _attack(
        self,
        omega: Table,
        tgt: np.ndarray,
        sel: list[str],
        pools: _Pools,
        seed: int,
        store: RunStore | None,
    ) -> list[TargetOutcome]:
        units = []
        for a_idx, a in enumerate(self.attacks):
            params = json.dumps(self.attack_params.get(a, {}), sort_keys=True)
            phash = hashlib.sha256(params.encode()).hexdigest()[:8]
            for t in range(tgt.size):
                units.append(WorkUnit(f"atk-{a}-{phash}-t{t}", (t, a, params, a_idx)))
        shared = {"omega": omega, "targets": tgt, "pools": pools, "seed": int(seed)}
        with progress_bar("attacks (target x attack)", enabled=self.progress) as prog:
            res = run_units(
                _attack_unit,
                units,
                shared=shared,
                workers=self.workers,
                cluster=self.cluster,
                store=store,
                progress=prog,
            )
        outcomes: list[TargetOutcome] = []
        for t in range(tgt.size):
            per: dict[str, AttackOutcome] = {}
            for a_idx, a in enumerate(self.attacks):
                u = units[a_idx * tgt.size + t]
                r = res[u.key]
                if r.arrays is None:
                    nan = float("nan")
                    per[a] = AttackOutcome(
                        RiskEstimate(nan, nan, nan, 0.95, 0, 0.5),
                        nan,
                        {str(f): nan for f in TPR_FPRS},
                        0,
                        r.error,
                    )
                    continue
                per[a] = attack_outcome(
                    r.arrays["labels"],
                    r.arrays["scores"],
                    rng=unit_rng(seed, _SEED_METRIC, t, a_idx),
                    name=f"{a} on row {int(tgt[t])}",
                )
            outcomes.append(TargetOutcome(int(tgt[t]), sel[t], per))
        return outcomes


def attack_outcome(
    labels: np.ndarray,
    scores: np.ndarray,
    *,
    rng: np.random.Generator,
    name: str = "attack",
    n_boot: int = 1000,
) -> AttackOutcome:
    """AUC (stratified bootstrap CI), accuracy at threshold 0.5 and TPR at FPR 0.1 / 0.01.

    Warns with :class:`BaselineWarning` when the AUC interval covers 0.5 (no better than a guess).
    """
    y = np.asarray(labels).astype(bool)
    s = np.asarray(scores, dtype=np.float64)
    est = auc_estimate(y, s, rng=rng, n_boot=n_boot)
    acc = float(np.mean((s > 0.5) == y)) if y.size else float("nan")
    tpr = {str(f): tpr_at_fpr(y, s, f) for f in TPR_FPRS}
    if not math.isnan(est.ci_low) and est.ci_low <= 0.5 <= est.ci_high:
        warnings.warn(
            f"{name}: AUC {est.value:.3f} (95% CI {est.ci_low:.3f}-{est.ci_high:.3f}) is no better than a random guess (0.5)",
            BaselineWarning,
            stacklevel=2,
        )
    fpr, tpr_curve = roc_curve(y, s)
    roc = {"fpr": fpr.tolist(), "tpr": tpr_curve.tolist()}
    return AttackOutcome(est, acc, tpr, int(y.size), roc=roc)


def parse_targets(
    spec: str, omega: Table, *, seed: int = 0, k: int = 5
) -> tuple[np.ndarray, list[str]]:
    """Target rows from ``top:N``, ``distance:N``, ``rare:N``, ``loglik:N``, ``random:N`` or ``rows:i,j``.

    Several selectors may be joined with ``+`` (``distance:10+rare:10``); a row chosen by two
    selectors is one target whose ``selected_by`` names both (``distance+rare``).

    References
    ----------
    Meeus et al. (2023), Sec. 4 (distance, ``V_k`` with k = 5) and Sec. 5.2 (rare, loglik,
    random).
    """
    from synthleak.vulnerability import select_targets

    rows: list[int] = []
    labels: dict[int, list[str]] = {}
    for i, part in enumerate(p.strip() for p in spec.split("+")):
        method, sep, arg = part.partition(":")
        method = method.strip().lower()
        if not sep or not arg.strip():
            raise InputError(
                f"target spec {part!r}: use top:N, rare:N, loglik:N, random:N or rows:i,j"
            )
        if method == "rows":
            try:
                picked = [int(v) for v in arg.split(",") if v.strip()]
            except ValueError:
                raise InputError(
                    f"target rows {arg!r} are not whole numbers: give rows:i,j"
                ) from None
            bad = [r for r in picked if r < 0 or r >= len(omega)]
            if bad:
                raise InputError(
                    f"target row(s) {bad[:5]} are not in the data (rows 0..{len(omega) - 1}): give existing rows"
                )
            name = "rows"
        else:
            name = "distance" if method == "top" else method
            if name not in ("distance", "rare", "loglik", "random"):
                raise InputError(
                    f"unknown target selector {method!r}: use top, rare, loglik, random or rows"
                )
            try:
                count = int(arg)
            except ValueError:
                raise InputError(f"target spec {part!r}: N must be a whole number") from None
            if count < 1:
                raise InputError(f"target spec {part!r}: N must be at least 1")
            picked = select_targets(
                omega, name, count, rng=unit_rng(seed, _SEED_TARGETS, i), k=k
            ).tolist()
        for r in picked:
            if r not in labels:
                rows.append(int(r))
                labels[r] = []
            if name not in labels[r]:
                labels[r].append(name)
    return np.asarray(rows, dtype=np.int64), ["+".join(labels[r]) for r in rows]
